//! The stress CLI: steps a reference scene and prints the time per step and
//! how well the stacks stand.
//!
//! `cargo run --release -p benches --bin stress -- --scene NAME --steps N --threads T`
//! (`--list` names the scenes). The scenes run with sleeping off, so every
//! body is stepped every step.
//!
//! `--base N` resizes the pyramid and tower scenes (pyramid base, tower
//! height), for scaling runs.
//!
//! `--engine rapier` steps a rapier world mirroring the same tumble scene body
//! for body (see `benches::rapier_mirror`): same bodies, shapes, density,
//! friction, gravity and dt 1/60, sleeping off, rapier's defaults otherwise.
//! Rapier runs single-threaded unless the CLI is built with
//! `--features rapier-parallel`, which turns on rapier's rayon-parallel step;
//! it then runs in the same `--threads` pool as tumble.

use std::time::Instant;

use benches::rapier_mirror;
use tumble::{D2, D3};
use tumble_scenes::{find, Build, Scene, SCENES};

#[derive(Copy, Clone, PartialEq)]
enum Engine {
    Tumble,
    Rapier,
}

struct Options {
    scene: String,
    steps: usize,
    threads: usize,
    engine: Engine,
    base: Option<usize>,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        scene: "large_pyramid_2d".into(),
        steps: 500,
        threads: 1,
        engine: Engine::Tumble,
        base: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--scene" => options.scene = value("--scene")?,
            "--steps" => {
                options.steps = value("--steps")?
                    .parse()
                    .map_err(|_| "--steps: not a number")?
            }
            "--threads" => {
                options.threads = value("--threads")?
                    .parse()
                    .map_err(|_| "--threads: not a number")?
            }
            "--engine" => {
                options.engine = match value("--engine")?.as_str() {
                    "tumble" => Engine::Tumble,
                    "rapier" => Engine::Rapier,
                    other => return Err(format!("--engine: tumble or rapier, not {other}")),
                }
            }
            "--base" => {
                options.base = Some(
                    value("--base")?
                        .parse()
                        .map_err(|_| "--base: not a number")?,
                )
            }
            "--list" => {
                for s in SCENES {
                    println!("{:18} {}", s.name, s.about);
                }
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// Stability after the run: largest sideways drift, largest sink, and how
/// many bodies moved more than 1 m (metres, counts).
struct Stability {
    drift: f32,
    sink: f32,
    moved: usize,
}

impl Stability {
    /// The figures between two sets of positions `[x, y, z]`, Y up.
    fn between(start: &[[f32; 3]], end: &[[f32; 3]]) -> Self {
        let mut stability = Stability {
            drift: 0.0,
            sink: 0.0,
            moved: 0,
        };
        for (p0, p1) in start.iter().zip(end) {
            let [dx, dy, dz] = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
            stability.drift = stability.drift.max((dx * dx + dz * dz).sqrt());
            stability.sink = stability.sink.max(-dy);
            stability.moved += usize::from((dx * dx + dy * dy + dz * dz).sqrt() > 1.0);
        }
        stability
    }
}

/// A world the CLI steps: a tumble scene or its rapier mirror.
trait Stepper {
    /// One step of 1/60 s.
    fn step(&mut self);
    /// Positions of the measured bodies, `[x, y, z]` (z = 0 in 2D).
    fn positions(&self) -> Vec<[f32; 3]>;
    /// The last step's time per stage, ms (tumble only): broad phase,
    /// narrow phase, solver, islands.
    fn stages(&self) -> Option<[f64; 4]> {
        None
    }
}

/// The stage times of a tumble world's last step, ms.
fn stages_of(profile: &tumble::StepProfile) -> [f64; 4] {
    [
        profile.broad_phase,
        profile.narrow_phase,
        profile.solver,
        profile.islands,
    ]
}

impl Stepper for Scene<D2> {
    fn step(&mut self) {
        self.world.step(DT);
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        let at = |&h| self.world.body(h).expect("live").position();
        self.bodies
            .iter()
            .map(at)
            .map(|p| [p.x, p.y, 0.0])
            .collect()
    }

    fn stages(&self) -> Option<[f64; 4]> {
        Some(stages_of(self.world.profile()))
    }
}

impl Stepper for Scene<D3> {
    fn step(&mut self) {
        self.world.step(DT);
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        let at = |&h| self.world.body(h).expect("live").position();
        self.bodies.iter().map(at).map(|p| p.to_array()).collect()
    }

    fn stages(&self) -> Option<[f64; 4]> {
        Some(stages_of(self.world.profile()))
    }
}

impl Stepper for rapier_mirror::d2::World {
    fn step(&mut self) {
        rapier_mirror::d2::World::step(self);
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        rapier_mirror::d2::World::positions(self)
    }
}

impl Stepper for rapier_mirror::d3::World {
    fn step(&mut self) {
        rapier_mirror::d3::World::step(self);
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        rapier_mirror::d3::World::positions(self)
    }
}

/// The time step of every run.
const DT: f32 = 1.0 / 60.0;

/// What a run measured.
struct Run {
    /// Each step's time, ms.
    times: Vec<f64>,
    stability: Stability,
    bodies: usize,
    /// Mean time per stage, ms (tumble only).
    stages: Option<[f64; 4]>,
}

/// Times `steps` steps of `world`.
fn measure(world: &mut impl Stepper, steps: usize) -> Run {
    let start = world.positions();
    let mut times = Vec::with_capacity(steps);
    let mut stages: Option<[f64; 4]> = None;
    for _ in 0..steps {
        let t = Instant::now();
        world.step();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        if let Some(step) = world.stages() {
            let sum = stages.get_or_insert([0.0; 4]);
            sum.iter_mut().zip(step).for_each(|(s, t)| *s += t);
        }
    }
    let end = world.positions();
    let per_step = |sum: [f64; 4]| sum.map(|s| s / steps.max(1) as f64);
    Run {
        times,
        stability: Stability::between(&start, &end),
        bodies: end.len(),
        stages: stages.map(per_step),
    }
}

/// A scene builder: a listed scene's, or one resized by `--base`.
enum Builder {
    D2(Box<dyn Fn() -> Scene<D2> + Send + Sync>),
    D3(Box<dyn Fn() -> Scene<D3> + Send + Sync>),
}

/// The builder of scene `name` resized to `n` (pyramid base or tower height).
fn resize(name: &str, n: usize) -> Option<Builder> {
    use tumble_scenes as scenes;
    Some(match name {
        "pyramid_2d" | "large_pyramid_2d" => Builder::D2(Box::new(move || scenes::pyramid_2d(n))),
        "large_pyramid_3d" => Builder::D3(Box::new(move || scenes::pyramid_3d(n))),
        "square_pyramid_3d" => Builder::D3(Box::new(move || scenes::square_pyramid_3d(n))),
        "tower_2d" => Builder::D2(Box::new(move || scenes::tower_2d(n))),
        "tower_3d" => Builder::D3(Box::new(move || scenes::tower_3d(n))),
        _ => return None,
    })
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn main() {
    let options = parse().unwrap_or_else(|e| {
        eprintln!("stress: {e}");
        std::process::exit(2);
    });
    let Some(entry) = find(&options.scene) else {
        eprintln!("stress: no scene {} (try --list)", options.scene);
        std::process::exit(2);
    };
    if options.engine == Engine::Rapier && options.threads > 1 && !cfg!(feature = "rapier-parallel")
    {
        eprintln!(
            "stress: rapier is single-threaded in this build; \
             build with --features rapier-parallel for --threads > 1"
        );
        std::process::exit(2);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .expect("thread pool");
    let steps = options.steps;
    let build = match options.base {
        None => match entry.build {
            Build::D2(f) => Builder::D2(Box::new(f)),
            Build::D3(f) => Builder::D3(Box::new(f)),
        },
        Some(base) => resize(entry.name, base).unwrap_or_else(|| {
            eprintln!("stress: --base applies to the pyramid and tower scenes only");
            std::process::exit(2);
        }),
    };
    let outcome = pool.install(|| match (build, options.engine) {
        (Builder::D2(build), Engine::Tumble) => Ok(measure(&mut build(), steps)),
        (Builder::D3(build), Engine::Tumble) => Ok(measure(&mut build(), steps)),
        (Builder::D2(build), Engine::Rapier) => rapier_mirror::d2::World::mirror(&build(), DT)
            .map(|mut world| measure(&mut world, steps)),
        (Builder::D3(build), Engine::Rapier) => rapier_mirror::d3::World::mirror(&build(), DT)
            .map(|mut world| measure(&mut world, steps)),
    });
    let Run {
        mut times,
        stability,
        bodies,
        stages,
    } = outcome.unwrap_or_else(|e| {
        eprintln!("stress: {e}");
        std::process::exit(2);
    });
    times.sort_by(f64::total_cmp);
    println!(
        "engine {} scene {} bodies {} steps {} threads {}: median {:.3} ms/step, p95 {:.3} ms/step",
        match options.engine {
            Engine::Tumble => "tumble",
            Engine::Rapier if cfg!(feature = "rapier-parallel") => "rapier (parallel build)",
            Engine::Rapier => "rapier",
        },
        match options.base {
            Some(base) => format!("{} --base {base}", entry.name),
            None => entry.name.to_string(),
        },
        bodies,
        options.steps,
        options.threads,
        percentile(&times, 0.5),
        percentile(&times, 0.95)
    );
    println!(
        "stability: largest sideways drift {:.4} m, largest sink {:.4} m, moved more than 1 m: {}",
        stability.drift, stability.sink, stability.moved
    );
    if let Some([broad, narrow, solver, islands]) = stages {
        println!(
            "stages (mean ms/step): broad phase {broad:.3}, narrow phase {narrow:.3}, \
             solver {solver:.3}, islands and events {islands:.3}"
        );
    }
}
