//! Criterion bench of level geometry: one whole step of the terrain stress
//! scenes, 1000 mixed bodies (balls, capsules, hulls, boxes) rained on a
//! 64 m terrain of 129 x 129 samples (128 x 128 cells), as a heightfield
//! and as the same terrain built as a triangle mesh (32 768 triangles), and
//! the same bodies on one flat fixed box: the reference the terrain's step
//! time is held to (within 1.5x of it).
//!
//! `cargo bench -p benches --bench terrain` (add a filter such as
//! `terrain/heightfield` to run one). Each scene is first stepped for two
//! seconds of simulated time so the rain has landed, then timed while it
//! keeps stepping; sleeping is off in every scene. Figures go to
//! `benches/RESULTS.md`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use tumble::{World, D3};
use tumble_scenes::{flat_ground_3d, terrain_3d, terrain_mesh_3d};

/// The time step, s.
const DT: f32 = 1.0 / 60.0;

/// Steps before timing: two seconds, for the highest layer of the rain
/// (about 14 m up) to land.
const SETTLE_STEPS: usize = 120;

/// Heights along each side of the terrain: 128 x 128 cells.
const SAMPLES: usize = 129;

/// Bodies rained on each ground.
const BODIES: usize = 1000;

/// Benches one step of `world`, after [`SETTLE_STEPS`], as `name`.
fn bench_world(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut world: World<D3>,
) {
    for _ in 0..SETTLE_STEPS {
        world.step(DT);
    }
    group.bench_function(name, |b| b.iter(|| world.step(DT)));
}

fn terrain(c: &mut Criterion) {
    let mut group = c.benchmark_group("terrain");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    bench_world(&mut group, "heightfield", terrain_3d(SAMPLES, BODIES).world);
    bench_world(
        &mut group,
        "triangle_mesh",
        terrain_mesh_3d(SAMPLES, BODIES).world,
    );
    bench_world(&mut group, "flat_box", flat_ground_3d(BODIES).world);
    group.finish();
}

criterion_group!(benches, terrain);
criterion_main!(benches);
