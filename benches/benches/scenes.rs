//! Criterion benches of the reference scenes: one whole step of each, and
//! each pipeline stage of that step on its own (from `World::profile`).
//!
//! `cargo bench -p benches --bench scenes` (add a filter such as
//! `large_pyramid_3d/narrow` to run one). Each scene is first stepped for a
//! second of simulated time so the stacks have settled, then timed while it
//! keeps stepping; sleeping is off in every reference scene.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use tumble::{Dim, StepProfile, World};
use tumble_scenes::{find, Build};

/// The time step, s.
const DT: f32 = 1.0 / 60.0;

/// Steps before timing: one second, for the stacks to settle.
const SETTLE_STEPS: usize = 60;

/// The reference scenes of issue 6.
const SCENES: [&str; 5] = [
    "large_pyramid_2d",
    "many_pyramids_2d",
    "large_pyramid_3d",
    "many_pyramids_3d",
    "falling_boxes",
];

/// How to read one stage's time (ms) from a step's profile.
type StageTime = fn(&StepProfile) -> f64;

/// The stages timed on their own.
const STAGES: [(&str, StageTime); 4] = [
    ("broad_phase", |p| p.broad_phase),
    ("narrow_phase", |p| p.narrow_phase),
    ("solver", |p| p.solver),
    ("islands", |p| p.islands),
];

/// Benches `world`: the whole step, then each stage.
fn bench_world<D: Dim>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    mut world: World<D>,
) {
    for _ in 0..SETTLE_STEPS {
        world.step(DT);
    }
    group.bench_function("step", |b| b.iter(|| world.step(DT)));
    for (name, stage) in STAGES {
        group.bench_function(name, |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    world.step(DT);
                    total += Duration::from_secs_f64(stage(world.profile()) / 1e3);
                }
                total
            })
        });
    }
}

fn scenes(c: &mut Criterion) {
    for name in SCENES {
        let entry = find(name).expect("a reference scene");
        let mut group = c.benchmark_group(name);
        group
            .sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        match entry.build {
            Build::D2(build) => bench_world(&mut group, build().world),
            Build::D3(build) => bench_world(&mut group, build().world),
        }
        group.finish();
    }
}

/// Cubes per side of the lattice `remove_body` is timed in: 26³ = 17 576
/// cubes side by side, whose fat boxes meet their 26 neighbours', about
/// 220 000 pairs.
const LATTICE_SIDE: usize = 26;

/// `World::remove_body` of one cube in the middle of a lattice of cubes
/// beside some 220 000 pairs (gravity off, so nothing moves): it should
/// cost what the cube touches, not what the world holds.
fn remove_body(c: &mut Criterion) {
    use tumble::d3::{BodyDesc, ColliderDesc, Settings, Shape, World};
    use tumble::glam::Vec3;
    let mut world = World::new(Settings {
        gravity: Vec3::ZERO,
        ..Settings::default()
    });
    let cube = Shape::cuboid(Vec3::splat(0.5)).expect("a valid cube");
    let mut middle = None;
    for i in 0..LATTICE_SIDE {
        for j in 0..LATTICE_SIDE {
            for k in 0..LATTICE_SIDE {
                let at = Vec3::new(i as f32, j as f32, k as f32);
                let body = world
                    .add_body(
                        BodyDesc::dynamic().position(at),
                        ColliderDesc::new(cube.clone()),
                    )
                    .expect("a valid body");
                if [i, j, k] == [LATTICE_SIDE / 2; 3] {
                    middle = Some(body);
                }
            }
        }
    }
    // Two steps: the first reports every pair starting to touch, and a
    // copy of that world would time growing the copied event list.
    world.step(DT);
    world.step(DT);
    let middle = middle.expect("the lattice has a middle");
    println!(
        "remove_body: {} bodies, {} pairs",
        world.body_count(),
        world.contact_pairs().len()
    );
    let mut group = c.benchmark_group("remove_body");
    group.sample_size(10);
    group.bench_function("beside_220k_pairs", |b| {
        // Only the removal is timed: not the copy it is made in, nor
        // dropping that copy (tens of milliseconds each).
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let mut copy = world.clone();
                let start = Instant::now();
                black_box(copy.remove_body(middle));
                total += start.elapsed();
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, scenes, remove_body);
criterion_main!(benches);
