//! Criterion bench of rollback: `World::save_state_into` (into a state
//! whose memory is warm, as a game's ring of states is) and
//! `World::restore_state`, on 1000 bodies, with the state's size printed.
//!
//! `cargo bench -p benches --bench rollback`. Scenes: `cube_pile_3d` after
//! 300 steps (1000 cubes, sleeping on, some asleep) and `flat_ground_3d`'s
//! 1000 mixed bodies after 120 steps (sleeping off). Figures go to
//! `benches/RESULTS.md`.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use tumble::{World, D3};
use tumble_scenes::{cube_pile_3d, flat_ground_3d};

/// The time step, s.
const DT: f32 = 1.0 / 60.0;

/// Benches saving and restoring `world` after `steps` steps, as `name`.
fn bench_world(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    mut world: World<D3>,
    steps: usize,
) {
    for _ in 0..steps {
        world.step(DT);
    }
    // A ring's next state: saved one step after another, it shares what
    // did not change.
    let _before = world.save_state();
    world.step(DT);
    let mut state = world.save_state();
    let awake = world.bodies().filter(|(_, b)| !b.is_sleeping()).count();
    println!(
        "{name}: {} bodies, {awake} awake, {} contact points: {} bytes ({:.0} per body), {} anew a step after the last save; target 128 per awake body + 64 per point = {}",
        world.body_count(),
        state.points(),
        state.bytes(),
        state.bytes() as f32 / world.body_count() as f32,
        state.fresh_bytes(),
        128 * awake + 64 * state.points(),
    );
    group.bench_function(format!("{name}/save"), |b| {
        b.iter(|| world.save_state_into(&mut state))
    });
    group.bench_function(format!("{name}/restore"), |b| {
        b.iter(|| world.restore_state(&state).expect("the state fits"))
    });
}

fn rollback(c: &mut Criterion) {
    let mut group = c.benchmark_group("rollback");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    bench_world(&mut group, "cube_pile_3d", cube_pile_3d().world, 300);
    bench_world(
        &mut group,
        "flat_ground_3d",
        flat_ground_3d(1000).world,
        120,
    );
    group.finish();
}

criterion_group!(benches, rollback);
criterion_main!(benches);
