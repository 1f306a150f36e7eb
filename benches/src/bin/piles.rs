//! The piles CLI: drops random piles, sleeping on, and says for each seed
//! when it fell asleep and how fast its fastest body ever went.
//!
//! `cargo run --release -p benches --bin piles -- --dim 3 --seeds 1-96 --seconds 20`
//!
//! A pile is `tumble_scenes::random_pile_2d` (150 boxes and polygons) or
//! `random_pile_3d` (200 boxes and hull rocks), stepped at 60 Hz. A pile is
//! asleep when every one of its bodies is; the top speed catches energy the
//! solver should never add: a body falling 25 m reaches 22 m/s.

use tumble::glam::{Vec2, Vec3};
use tumble::{Dim, D2, D3};
use tumble_scenes::{random_pile_2d, random_pile_3d, Scene};

const DT: f32 = 1.0 / 60.0;

struct Options {
    dim: u32,
    seeds: std::ops::RangeInclusive<u32>,
    seconds: f32,
}

/// What one pile did.
struct Outcome {
    /// Time at which every body was first asleep, if it happened.
    asleep_at: Option<f32>,
    /// The largest linear speed of any body at the end of any step, m/s.
    top_speed: f32,
    /// Bodies more than 1 m below the ground's top face at the end: flung off
    /// its edge or through it.
    below_ground: usize,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        dim: 3,
        seeds: 1..=16,
        seconds: 20.0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("{flag}: missing value"))?;
        match flag.as_str() {
            "--dim" => {
                options.dim = match value.as_str() {
                    "2" => 2,
                    "3" => 3,
                    _ => return Err(format!("--dim: 2 or 3, not {value}")),
                }
            }
            "--seeds" => {
                let (first, last) = value.split_once('-').unwrap_or((&value, &value));
                let number = |text: &str| {
                    text.parse::<u32>()
                        .map_err(|_| format!("--seeds: not a range like 1-96: {value}"))
                };
                options.seeds = number(first)?..=number(last)?;
            }
            "--seconds" => {
                options.seconds = value
                    .parse()
                    .ok()
                    .filter(|s: &f32| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("--seconds: not a positive number: {value}"))?;
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(options)
}

/// Steps `scene` for `seconds`, watching sleep and speed; `speed` reads a
/// body's linear speed and `height` its centre's height.
fn run<D: Dim>(
    mut scene: Scene<D>,
    seconds: f32,
    speed: impl Fn(D::Vector) -> f32,
    height: impl Fn(D::Vector) -> f32,
) -> Outcome {
    let steps = (seconds / DT).ceil() as usize;
    let mut outcome = Outcome {
        asleep_at: None,
        top_speed: 0.0,
        below_ground: 0,
    };
    for step in 1..=steps {
        scene.world.step(DT);
        let bodies = || scene.bodies.iter().filter_map(|&h| scene.world.body(h));
        let fastest = bodies()
            .map(|b| speed(b.linear_velocity()))
            .fold(0.0, f32::max);
        outcome.top_speed = outcome.top_speed.max(fastest);
        if outcome.asleep_at.is_none() && bodies().all(|b| b.is_sleeping()) {
            outcome.asleep_at = Some(step as f32 * DT);
        }
    }
    outcome.below_ground = scene
        .bodies
        .iter()
        .filter_map(|&h| scene.world.body(h))
        .filter(|b| height(b.position()) < -1.0)
        .count();
    outcome
}

fn main() {
    let options = match parse() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let (mut awake, mut fast) = (0, 0);
    for seed in options.seeds.clone() {
        let outcome = match options.dim {
            2 => run::<D2>(random_pile_2d(seed), options.seconds, Vec2::length, |p| p.y),
            _ => run::<D3>(random_pile_3d(seed), options.seconds, Vec3::length, |p| p.y),
        };
        let asleep = match outcome.asleep_at {
            Some(t) => format!("asleep at {t:.2} s"),
            None => {
                awake += 1;
                format!("awake after {} s", options.seconds)
            }
        };
        if outcome.top_speed > 30.0 {
            fast += 1;
        }
        println!(
            "{}D seed {seed}: {asleep}, top speed {:.1} m/s, below the ground {}",
            options.dim, outcome.top_speed, outcome.below_ground
        );
    }
    println!(
        "{}D seeds {}-{}: {awake} never all asleep, {fast} with a body over 30 m/s",
        options.dim,
        options.seeds.start(),
        options.seeds.end()
    );
}
