//! Same inputs, same results, bit for bit: across runs and thread counts,
//! with or without the `parallel` feature (CI runs this test both ways:
//! `cargo test --release -p tumble --no-default-features --test
//! determinism`), and natively or on WebAssembly (CI builds it for
//! `wasm32-wasip1`, with `simd128` from `.cargo/config.toml`, and runs it
//! under Node's WASI: `node .ci/wasi-run.mjs FILE.wasm`), so all must reach
//! [`FALLING_CUBES_HASH`].

use tumble::d3::{BodyDesc, ColliderDesc, Shape, World};
use tumble::glam::{Quat, Vec3};
use tumble::Settings;

/// 1000 cubes dropped in a jittered 10 x 10 x 10 grid onto the ground,
/// stepped 300 times (sleeping on: islands fall asleep), then five heavy
/// balls dropped on the pile (waking islands) and 120 steps more; the hash
/// of every pose's bits.
fn falling_cubes_hash() -> u64 {
    let mut world = World::new(Settings::default());
    let ground = Shape::cuboid(Vec3::new(50.0, 0.5, 50.0)).unwrap();
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(ground),
        )
        .unwrap();
    let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let mut seed = 1u32;
    let mut jitter = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        ((seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5) * 0.2
    };
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                let p = Vec3::new(
                    i as f32 * 1.3 - 6.0 + jitter(),
                    1.0 + j as f32 * 1.3,
                    k as f32 * 1.3 - 6.0 + jitter(),
                );
                let q = Quat::from_rotation_y(jitter());
                world
                    .add_body(
                        BodyDesc::dynamic().position(p).rotation(q),
                        ColliderDesc::new(cube.clone()),
                    )
                    .unwrap();
            }
        }
    }
    for _ in 0..300 {
        world.step(1.0 / 60.0);
    }
    // Balls dropped on the pile, by now partly asleep, wake its islands.
    let ball = Shape::ball(0.4).unwrap();
    for i in 0..5 {
        let at = Vec3::new(i as f32 * 2.6 - 5.0, 8.0, i as f32 * 1.3 - 3.0);
        world
            .add_body(
                BodyDesc::dynamic()
                    .position(at)
                    .linear_velocity(Vec3::new(0.0, -6.0, 0.0)),
                ColliderDesc::new(ball.clone()).density(5.0),
            )
            .unwrap();
    }
    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    // FNV-1a over the raw bits of every position and rotation.
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for (_, body) in world.bodies() {
        let (p, q) = (body.position(), body.rotation());
        for x in [p.x, p.y, p.z, q.x, q.y, q.z, q.w] {
            for byte in x.to_bits().to_le_bytes() {
                hash = (hash ^ byte as u64).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    hash
}

/// The pose hash `falling_cubes_hash` gives, recorded from a native run
/// with the `parallel` feature: a change to the engine's results changes
/// it, and the serial build and the WebAssembly build (`wasm32-wasip1`, no
/// threads) must give the same. A change that moves it says why in its
/// commit message.
const FALLING_CUBES_HASH: u64 = 0xd34c_e000_aec5_098f;

#[cfg(not(target_family = "wasm"))]
fn hash_with_threads(threads: usize) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(falling_cubes_hash)
}

/// WebAssembly has no threads here: one run, the recorded hash.
#[cfg(target_family = "wasm")]
#[test]
fn thousand_falling_cubes_give_the_recorded_hash() {
    let hash = falling_cubes_hash();
    println!("falling cubes: pose hash {hash:016x}");
    // Without `simd128` glam takes its scalar paths, which round otherwise.
    let simd = cfg!(target_feature = "simd128");
    assert_eq!(
        hash, FALLING_CUBES_HASH,
        "the recorded hash (simd128: {simd})"
    );
}

#[cfg(not(target_family = "wasm"))]
#[test]
fn thousand_falling_cubes_give_one_hash_across_runs_and_threads() {
    let reference = hash_with_threads(1);
    println!("falling cubes: pose hash {reference:016x}");
    // glam fuses its SIMD multiply-adds on targets with FMA (as
    // `-C target-cpu=native` gives): other roundings, another hash.
    let fma = cfg!(target_feature = "fma");
    assert_eq!(
        reference, FALLING_CUBES_HASH,
        "the recorded hash (fma: {fma})"
    );
    assert_eq!(
        hash_with_threads(1),
        reference,
        "two runs on one thread differ"
    );
    for threads in [2, 4] {
        assert_eq!(
            hash_with_threads(threads),
            reference,
            "{threads} threads differ from one"
        );
    }
}
