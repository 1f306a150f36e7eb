//! The headless runner: steps a scene for some simulated seconds without a
//! window, printing one line per simulated second (time, bodies, contacts,
//! ms per step, kinetic energy) and a summary. Used where no display exists
//! and with `--headless`. The EPA inspectors are not stepped: they print the
//! trace of their contact query instead.

use std::io::{self, Write};

use crate::scenes::DemoScene;
use crate::sim::{Counts, Sim, SimWorld, DT};

/// What the world looked like at the end of one reported interval.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sample {
    /// Simulated time, seconds.
    pub time: f32,
    /// Bodies, pairs and manifold points.
    pub counts: Counts,
    /// Mean wall-clock time per step over the interval, milliseconds.
    pub ms_per_step: f64,
    /// Kinetic energy, joules.
    pub kinetic: f32,
    /// Lowest point of any dynamic body, metres (the ground's top is 0).
    pub lowest: Option<f32>,
}

/// A whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Steps taken.
    pub steps: usize,
    /// One sample per simulated second, and one at the end.
    pub samples: Vec<Sample>,
    /// Mean wall-clock time per step, milliseconds.
    pub mean_ms: f64,
    /// Slowest step, milliseconds.
    pub max_ms: f64,
}

/// Number of steps for `seconds` of simulated time (negative or NaN: none).
pub fn steps_for(seconds: f32) -> usize {
    let steps = (seconds / DT).round();
    if steps.is_finite() && steps > 0.0 {
        steps as usize
    } else {
        0
    }
}

fn sample(sim: &Sim, ms_per_step: f64) -> Sample {
    Sample {
        time: sim.time,
        counts: sim.counts(),
        ms_per_step,
        kinetic: sim.kinetic_energy(),
        lowest: sim.lowest_point(),
    }
}

/// Runs `scene` for `seconds` of simulated time at [`DT`], writing the
/// report to `out`.
pub fn run(scene: &'static DemoScene, seconds: f32, out: &mut impl Write) -> io::Result<Summary> {
    let mut sim = Sim::new(scene);
    sim.scripted = true;
    if scene.is_inspector() {
        return inspect(&sim, out);
    }
    let total = steps_for(seconds);
    let per_second = (1.0 / DT).round() as usize;
    writeln!(
        out,
        "scene {} (headless): {}; {} bodies, {} s = {} steps of {:.4} s",
        scene.name,
        scene.about,
        sim.counts().bodies,
        seconds,
        total,
        DT
    )?;
    let mut samples = Vec::new();
    let (mut total_ms, mut max_ms, mut interval_ms, mut interval_steps) = (0.0, 0.0f64, 0.0, 0);
    for step in 1..=total {
        let ms = sim.step();
        total_ms += ms;
        max_ms = max_ms.max(ms);
        interval_ms += ms;
        interval_steps += 1;
        if step % per_second == 0 || step == total {
            let s = sample(&sim, interval_ms / interval_steps as f64);
            writeln!(
                out,
                "t={:6.2}s bodies={} pairs={} points={} ms/step={:.3} kinetic={:.3} J",
                s.time, s.counts.bodies, s.counts.pairs, s.counts.points, s.ms_per_step, s.kinetic
            )?;
            samples.push(s);
            (interval_ms, interval_steps) = (0.0, 0);
        }
    }
    let mean_ms = total_ms / total.max(1) as f64;
    let last = samples.last().copied().unwrap_or_else(|| sample(&sim, 0.0));
    writeln!(
        out,
        "done: {} steps, {:.2} s simulated, mean {:.3} ms/step, slowest {:.3} ms; \
         final: {} bodies, {} pairs, {} points, kinetic {:.3} J",
        total,
        sim.time,
        mean_ms,
        max_ms,
        last.counts.bodies,
        last.counts.pairs,
        last.counts.points,
        last.kinetic
    )?;
    Ok(Summary {
        steps: total,
        samples,
        mean_ms,
        max_ms,
    })
}

/// An inspector scene: its trace (GJK's simplex, each EPA iteration's depth,
/// the final depth, normal and witnesses) and no steps.
fn inspect(sim: &Sim, out: &mut impl Write) -> io::Result<Summary> {
    writeln!(
        out,
        "scene {} (headless): {}; not stepped, the contact query's trace:",
        sim.scene.name, sim.scene.about
    )?;
    let iterations = match &sim.world {
        SimWorld::Inspector2d(i) => i.report(out).map(|_| i.iterations())?,
        SimWorld::Inspector3d(i) => i.report(out).map(|_| i.iterations())?,
        SimWorld::D2(_) | SimWorld::D3(_) => 0,
    };
    writeln!(out, "done: {iterations} EPA iterations shown, 0 steps")?;
    Ok(Summary {
        steps: 0,
        samples: vec![sample(sim, 0.0)],
        mean_ms: 0.0,
        max_ms: 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_for_rounds_and_refuses_nonsense() {
        assert_eq!(steps_for(10.0), 600);
        assert_eq!(steps_for(0.05), 3);
        assert_eq!(steps_for(0.0), 0);
        assert_eq!(steps_for(-1.0), 0);
        assert_eq!(steps_for(f32::NAN), 0);
    }
}
