//! The piles CLI: drops random piles, sleeping on, and says for each seed
//! when it fell asleep, how fast its fastest body ever went and whether any
//! body ended below the ground.
//!
//! `cargo run --release -p benches --bin piles -- --dim 3 --seeds 1-96 --seconds 20`
//! `cargo run --release -p benches --bin piles -- --dim 2 --seeds 1-400 --seconds 10 --size 1.6`
//!
//! A pile is `tumble_scenes::random_pile_2d` (150 boxes and polygons) or
//! `random_pile_3d` (200 boxes and hull rocks), stepped at 60 Hz. In 2D,
//! `--size F` makes the pile F times larger (`random_pile_2d_sized`: bodies,
//! drop grid and ground width; default 1, the plain pile) and
//! `--shapes slivers` drops slivers and thin triangles instead
//! (`random_sliver_pile_2d`, same grid, sized the same way). A pile is
//! asleep when every one of its bodies is; the top speed catches energy the
//! solver should never add: a body falling 25 m reaches 22 m/s.
//!
//! Below the ground. The ground's top face is at y = 0 (a fixed box 1 m
//! thick, `tumble_scenes::PILE_GROUND_HALF_WIDTH` times the size to each
//! side). A body whose centre of mass lies over the ground (|x|, and |z| in
//! 3D, within its half width) is *below the ground* when its centre of mass
//! is below y = 0, or its lowest point (its box's bottom, exact for these
//! shapes) is more than half its thickness (`Shape::thickness`, its
//! thinnest width) under y = 0: through the ground, or half way into it.
//! A body whose centre is beyond the ground's edge and below y = 0 fell
//! off the edge and is counted apart. Each seed prints both counts at the
//! end, how many bodies were below the ground at the end of any step, and
//! the lowest centre of mass and lowest point at the end among the bodies
//! over the ground; the last line sums them over the seeds.

use tumble::glam::{Vec2, Vec3};
use tumble::{Dim, D2, D3};
use tumble_scenes::{
    random_pile_2d_sized, random_pile_3d, random_sliver_pile_2d, Scene, PILE_GROUND_HALF_WIDTH,
};

const DT: f32 = 1.0 / 60.0;

struct Options {
    dim: u32,
    seeds: std::ops::RangeInclusive<u32>,
    seconds: f32,
    size: f32,
    slivers: bool,
}

/// What one pile did.
struct Outcome {
    /// Time at which every body was first asleep, if it happened.
    asleep_at: Option<f32>,
    /// The largest linear speed of any body at the end of any step, m/s.
    top_speed: f32,
    /// Bodies over the ground and below it at the end (module docs).
    below_ground: usize,
    /// Bodies whose centre is beyond the ground's edge and below its top
    /// at the end.
    off_edge: usize,
    /// Bodies over the ground and below it at the end of some step.
    ever_below: usize,
    /// The lowest centre of mass of a body over the ground at the end of
    /// any step, metres (y).
    deepest_center: f32,
    /// The deepest point of a body over the ground at the end of any step,
    /// metres under y = 0 (0 if none went under), and the largest such
    /// depth as a share of the body's thickness.
    deepest_point: f32,
    deepest_share: f32,
    /// The lowest centre of mass at the end among the bodies over the
    /// ground, metres (y).
    lowest_center: f32,
    /// The lowest point of any body over the ground at the end, metres (y),
    /// and that body's thickness.
    lowest_point: (f32, f32),
}

/// The piles' dimension-specific reads: a vector's length, its height
/// (y) and whether it lies over a ground of a given half width.
struct Reads<D: Dim> {
    speed: fn(D::Vector) -> f32,
    height: fn(D::Vector) -> f32,
    over: fn(D::Vector, f32) -> bool,
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        dim: 3,
        seeds: 1..=16,
        seconds: 20.0,
        size: 1.0,
        slivers: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args
            .next()
            .ok_or_else(|| format!("{flag}: missing value"))?;
        let positive = |what: &str| {
            value
                .parse()
                .ok()
                .filter(|s: &f32| s.is_finite() && *s > 0.0)
                .ok_or_else(|| format!("{what}: not a positive number: {value}"))
        };
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
            "--seconds" => options.seconds = positive("--seconds")?,
            "--size" => options.size = positive("--size")?,
            "--shapes" => {
                options.slivers = match value.as_str() {
                    "pile" => false,
                    "slivers" => true,
                    _ => return Err(format!("--shapes: pile or slivers, not {value}")),
                }
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if options.dim == 3 && (options.size != 1.0 || options.slivers) {
        return Err("--size and --shapes are for --dim 2 only".into());
    }
    Ok(options)
}

/// Whether a body (centre of mass `center`, lowest point `lowest`, both
/// heights, and thickness `thickness`) is below the ground (module docs).
fn below(center: f32, lowest: f32, thickness: f32) -> bool {
    center < 0.0 || lowest < -0.5 * thickness
}

/// Steps `scene` for `seconds` over a ground `half_width` to each side,
/// watching sleep, speed and the bodies below the ground.
fn run<D: Dim>(mut scene: Scene<D>, seconds: f32, half_width: f32, reads: Reads<D>) -> Outcome {
    let steps = (seconds / DT).ceil() as usize;
    let mut outcome = Outcome {
        asleep_at: None,
        top_speed: 0.0,
        below_ground: 0,
        off_edge: 0,
        ever_below: 0,
        deepest_center: f32::INFINITY,
        deepest_point: 0.0,
        deepest_share: 0.0,
        lowest_center: f32::INFINITY,
        lowest_point: (f32::INFINITY, 0.0),
    };
    let mut ever_below = vec![false; scene.bodies.len()];
    for step in 1..=steps {
        scene.world.step(DT);
        let bodies = || scene.bodies.iter().filter_map(|&h| scene.world.body(h));
        let fastest = bodies()
            .map(|b| (reads.speed)(b.linear_velocity()))
            .fold(0.0, f32::max);
        outcome.top_speed = outcome.top_speed.max(fastest);
        if outcome.asleep_at.is_none() && bodies().all(|b| b.is_sleeping()) {
            outcome.asleep_at = Some(step as f32 * DT);
        }
        for (flag, &h) in ever_below.iter_mut().zip(&scene.bodies) {
            let Some(b) = scene.world.body(h) else {
                continue;
            };
            let center = b.center_of_mass();
            if (reads.over)(center, half_width) {
                let height = (reads.height)(center);
                let lowest = (reads.height)(b.shape().aabb(&b.pose()).min);
                let thickness = b.shape().thickness();
                *flag |= below(height, lowest, thickness);
                outcome.deepest_center = outcome.deepest_center.min(height);
                outcome.deepest_point = outcome.deepest_point.max(-lowest);
                outcome.deepest_share = outcome.deepest_share.max(-lowest / thickness);
            }
        }
    }
    outcome.ever_below = ever_below.iter().filter(|&&b| b).count();
    for b in scene.bodies.iter().filter_map(|&h| scene.world.body(h)) {
        let center = b.center_of_mass();
        let height = (reads.height)(center);
        if !(reads.over)(center, half_width) {
            outcome.off_edge += usize::from(height < 0.0);
            continue;
        }
        let lowest = (reads.height)(b.shape().aabb(&b.pose()).min);
        let thickness = b.shape().thickness();
        outcome.below_ground += usize::from(below(height, lowest, thickness));
        outcome.lowest_center = outcome.lowest_center.min(height);
        if lowest < outcome.lowest_point.0 {
            outcome.lowest_point = (lowest, thickness);
        }
    }
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
    let reads_2d = || Reads::<D2> {
        speed: Vec2::length,
        height: |p| p.y,
        over: |p, half| p.x.abs() <= half,
    };
    let reads_3d = || Reads::<D3> {
        speed: Vec3::length,
        height: |p| p.y,
        over: |p, half| p.x.abs() <= half && p.z.abs() <= half,
    };
    let (mut awake, mut fast) = (0, 0);
    let (mut below_ground, mut off_edge, mut ever_below, mut seeds_below) = (0, 0, 0, 0);
    let mut lowest_center = (f32::INFINITY, 0);
    let mut lowest_point = (f32::INFINITY, 0.0, 0);
    let mut deepest_center = (f32::INFINITY, 0);
    let (mut deepest_point, mut deepest_share) = ((0.0, 0), (0.0, 0));
    for seed in options.seeds.clone() {
        let half_width = PILE_GROUND_HALF_WIDTH * options.size;
        let outcome = match (options.dim, options.slivers) {
            (2, false) => run(
                random_pile_2d_sized(seed, options.size),
                options.seconds,
                half_width,
                reads_2d(),
            ),
            (2, true) => run(
                random_sliver_pile_2d(seed, options.size),
                options.seconds,
                half_width,
                reads_2d(),
            ),
            _ => run(
                random_pile_3d(seed),
                options.seconds,
                half_width,
                reads_3d(),
            ),
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
        below_ground += outcome.below_ground;
        off_edge += outcome.off_edge;
        ever_below += outcome.ever_below;
        seeds_below += usize::from(outcome.below_ground > 0);
        if outcome.lowest_center < lowest_center.0 {
            lowest_center = (outcome.lowest_center, seed);
        }
        if outcome.lowest_point.0 < lowest_point.0 {
            lowest_point = (outcome.lowest_point.0, outcome.lowest_point.1, seed);
        }
        if outcome.deepest_center < deepest_center.0 {
            deepest_center = (outcome.deepest_center, seed);
        }
        if outcome.deepest_point > deepest_point.0 {
            deepest_point = (outcome.deepest_point, seed);
        }
        if outcome.deepest_share > deepest_share.0 {
            deepest_share = (outcome.deepest_share, seed);
        }
        println!(
            "{}D seed {seed}: {asleep}, top speed {:.1} m/s, below the ground {} \
             (at some step {}), off the edge {}; at the end lowest centre {:.4} m, \
             lowest point {:.4} m (thickness {:.3} m); at any step lowest centre \
             {:.4} m, deepest point {:.4} m, {:.2} of a thickness",
            options.dim,
            outcome.top_speed,
            outcome.below_ground,
            outcome.ever_below,
            outcome.off_edge,
            outcome.lowest_center,
            outcome.lowest_point.0,
            outcome.lowest_point.1,
            outcome.deepest_center,
            -outcome.deepest_point,
            outcome.deepest_share,
        );
    }
    println!(
        "{}D seeds {}-{}: {awake} never all asleep, {fast} with a body over 30 m/s",
        options.dim,
        options.seeds.start(),
        options.seeds.end()
    );
    println!(
        "{}D seeds {}-{}: {below_ground} bodies below the ground at the end in \
         {seeds_below} piles ({ever_below} at some step), {off_edge} off the edge; \
         at the end lowest centre {:.4} m (seed {}), lowest point {:.4} m (seed {}, \
         thickness {:.3} m); at any step lowest centre {:.4} m (seed {}), deepest \
         point {:.4} m (seed {}), {:.2} of a thickness (seed {})",
        options.dim,
        options.seeds.start(),
        options.seeds.end(),
        lowest_center.0,
        lowest_center.1,
        lowest_point.0,
        lowest_point.2,
        lowest_point.1,
        deepest_center.0,
        deepest_center.1,
        -deepest_point.0,
        deepest_point.1,
        deepest_share.0,
        deepest_share.1,
    );
}
