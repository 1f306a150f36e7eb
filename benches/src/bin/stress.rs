//! The stress CLI: steps a reference scene and prints the time per step and
//! how well the stacks stand.
//!
//! `cargo run --release -p benches --bin stress -- --scene NAME --steps N --threads T`
//! (`--list` names the scenes). Sleeping does not exist yet, so every body is
//! stepped every step.

use std::time::Instant;

use tumble::{Dim, Vector};
use tumble_scenes::{find, Build, Scene, SCENES};

struct Options {
    scene: String,
    steps: usize,
    threads: usize,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        scene: "large_pyramid_2d".into(),
        steps: 500,
        threads: 1,
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

fn run<D: Dim>(mut scene: Scene<D>, steps: usize) -> (Vec<f64>, Stability) {
    let start: Vec<D::Vector> = scene
        .bodies
        .iter()
        .map(|&h| scene.world.body(h).expect("live").position())
        .collect();
    let mut times = Vec::with_capacity(steps);
    for _ in 0..steps {
        let t = Instant::now();
        scene.world.step(1.0 / 60.0);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let up = D::Vector::unit_y();
    let mut stability = Stability {
        drift: 0.0,
        sink: 0.0,
        moved: 0,
    };
    for (&h, &p0) in scene.bodies.iter().zip(&start) {
        let d = scene.world.body(h).expect("live").position() - p0;
        let vertical = d.dot(up);
        stability.drift = stability.drift.max((d - up * vertical).length());
        stability.sink = stability.sink.max(-vertical);
        stability.moved += usize::from(d.length() > 1.0);
    }
    (times, stability)
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
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .expect("thread pool");
    let (mut times, stability, bodies) = pool.install(|| match entry.build {
        Build::D2(build) => {
            let scene = build();
            let n = scene.bodies.len();
            let (t, s) = run(scene, options.steps);
            (t, s, n)
        }
        Build::D3(build) => {
            let scene = build();
            let n = scene.bodies.len();
            let (t, s) = run(scene, options.steps);
            (t, s, n)
        }
    });
    times.sort_by(f64::total_cmp);
    println!(
        "scene {} bodies {} steps {} threads {}: median {:.3} ms/step, p95 {:.3} ms/step",
        entry.name,
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
}
