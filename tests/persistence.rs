//! Saving and loading worlds (the `serde` feature, `engine/src/world/persist.rs`).
//!
//! 1. Continuation: a scene stepped N times, saved with `to_bytes`, loaded
//!    with `from_bytes` and stepped M more equals the scene stepped N + M
//!    times straight: every body's pose and velocity bit for bit, and the
//!    whole saved state byte for byte (`continues`). For piles that sleep
//!    and wake, joints, surfaces, bullets and kinematic bodies, each saved
//!    at several N: 0, mid-fall, and the steps where bodies fell asleep or
//!    woke.
//! 2. Handles: bodies and joints added after loading get the handles they
//!    get in the original (slot maps keep their free lists).
//! 3. Another process: 1000 cubes saved at step 300 to a file and loaded by
//!    this test binary run again, stepped 600 more on 1 and 2 threads: the
//!    pose hash of an uninterrupted 900-step run.
//! 4. Corruption: truncated, bit-flipped and scribbled bytes and another
//!    version give errors; payloads changed and re-sealed with a valid
//!    checksum load as errors or as worlds that step without a panic.
//! 5. The serde form (JSON here) carries the format version and dimension.
//!
//! The figures print with `--nocapture`.

mod common;

use common::in_pool;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use tumble::body::Body;
use tumble::glam::{Quat, Vec2, Vec3};
use tumble::{
    BodyDesc, BodyHandle, BodyKind, ColliderDesc, CollisionFilter, Dim, JointDesc, LoadError,
    Settings, World, D2, D3, FORMAT_VERSION,
};
use tumble_scenes::ccd_scenes::{bullet_3d, bullets_3d, pinball_2d, BULLET_SHOTS, GUN_MUZZLE};
use tumble_scenes::joint_scenes::{car_2d, chain_2d, ragdoll_stairs_3d, rope_bridge_3d};
use tumble_scenes::{chains_2d, random_pile_2d, terrain_3d, terrain_mesh_3d};

const DT: f32 = 1.0 / 60.0;

/// A dimension whose bodies' poses and velocities the tests read as bits.
trait Bits: Dim {
    /// Position, rotation, linear and angular velocity, as bits.
    fn bits(body: &Body<Self>) -> Vec<u32>;
}

impl Bits for D2 {
    fn bits(body: &Body<D2>) -> Vec<u32> {
        let (p, v) = (body.position(), body.linear_velocity());
        [p.x, p.y, body.rotation(), v.x, v.y, body.angular_velocity()]
            .map(f32::to_bits)
            .to_vec()
    }
}

impl Bits for D3 {
    fn bits(body: &Body<D3>) -> Vec<u32> {
        let (p, q) = (body.position(), body.rotation());
        let (v, w) = (body.linear_velocity(), body.angular_velocity());
        [
            p.x, p.y, p.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z,
        ]
        .map(f32::to_bits)
        .to_vec()
    }
}

/// Every body's handle with its pose and velocity bits, in body order.
fn body_bits<D: Bits>(world: &World<D>) -> Vec<(BodyHandle, Vec<u32>)> {
    world.bodies().map(|(h, b)| (h, D::bits(&b))).collect()
}

fn asleep<D: Dim>(world: &World<D>) -> usize {
    world.bodies().filter(|(_, b)| b.is_sleeping()).count()
}

/// What the API shows of a world, every float to the bit (Debug prints
/// the shortest text that reads back to the same bits): every body
/// (its whole state, colliders and shapes), every pair with its
/// manifolds, the events of the last step, the joints and the settings.
fn fingerprint<D: Dim>(world: &World<D>) -> String {
    let mut text = format!("{:?}\n", world.settings());
    for (h, body) in world.bodies() {
        text += &format!("{h:?} {body:?}\n");
    }
    for p in world.contact_pairs() {
        text += &format!(
            "pair {:?} {:?} {:?} {:?} touching {} sensor {}\n",
            p.body_a,
            p.body_b,
            p.collider_a,
            p.collider_b,
            p.is_touching(),
            p.is_sensor()
        );
        let facets = p.facet_manifolds().map(|(f, m)| (Some(f), m));
        for (facet, m) in std::iter::once((None, &p.manifold)).chain(facets) {
            text += &format!(
                "  {facet:?} {:?} {:?} {} {} {:?}\n",
                m.normal,
                m.points(),
                m.total_normal_impulse(),
                m.approach_speed(),
                m.strongest_point()
            );
        }
    }
    text += &format!(
        "{:?}\n{:?}\n{:?}\n",
        world.contact_events(),
        world.sensor_events(),
        world.joint_events()
    );
    for (h, joint) in world.joints() {
        text += &format!("{h:?} {joint:?}\n");
    }
    text
}

/// The world from `make`, driven by `drive` before each step (called with
/// the step's index: the game's calls), stepped straight on, and saved at
/// each of `saves` (after that step's drive, before its step: the game's
/// calls since the last step are pending in what is saved), loaded and
/// stepped `more` steps with the same drive. Loaded, the world must show
/// what the original showed ([`fingerprint`]) and save to the same bytes;
/// `more` steps on, its bodies must match the straight run's bit for bit,
/// and so must what it shows and its saved state byte for byte (which
/// holds every manifold, impulse, pair, flag and list saved).
fn continues<D: Bits>(
    name: &str,
    make: impl Fn() -> World<D>,
    saves: &[usize],
    more: usize,
    drive: impl Fn(&mut World<D>, usize),
) {
    let last = saves.iter().max().copied().unwrap_or(0) + more;
    let mut world = make();
    let mut saved = BTreeMap::new();
    let mut expected = BTreeMap::new();
    for step in 0..last {
        drive(&mut world, step);
        if saves.contains(&step) {
            saved.insert(step, (world.to_bytes(), fingerprint(&world)));
        }
        world.step(DT);
        if saves.iter().any(|&n| n + more == step + 1) {
            let state = (body_bits(&world), fingerprint(&world), world.to_bytes());
            expected.insert(step + 1, state);
        }
    }
    for &n in saves {
        let (bytes, shown) = &saved[&n];
        let mut loaded = World::<D>::from_bytes(bytes)
            .unwrap_or_else(|e| panic!("{name}: the world saved at step {n} does not load: {e}"));
        assert!(
            fingerprint(&loaded) == *shown,
            "{name}: saved at step {n} and loaded: the world shows another state"
        );
        assert!(
            loaded.to_bytes() == *bytes,
            "{name}: saved at step {n}, loaded and saved again: other bytes"
        );
        for step in n..n + more {
            if step > n {
                drive(&mut loaded, step);
            }
            loaded.step(DT);
        }
        let (bits, shown, state) = &expected[&(n + more)];
        assert_eq!(
            body_bits(&loaded),
            *bits,
            "{name}: saved at step {n}, loaded and stepped {more} more: the bodies differ"
        );
        assert!(
            fingerprint(&loaded) == *shown,
            "{name}: saved at step {n}, loaded and stepped {more} more: the world shows \
             another state"
        );
        assert!(
            loaded.to_bytes() == *state,
            "{name}: saved at step {n}, loaded and stepped {more} more: the state differs"
        );
    }
    let sizes = saved.values().map(|(bytes, _)| bytes.len());
    println!(
        "{name}: {} bodies, saved at steps {saves:?} ({} to {} bytes), each loaded and \
         stepped {more} more: bit-identical",
        world.body_count(),
        sizes.clone().min().unwrap_or(0),
        sizes.max().unwrap_or(0),
    );
}

/// The straight run's count of sleeping bodies after each step, `0..=steps`.
fn sleeping_after<D: Dim>(
    make: impl Fn() -> World<D>,
    steps: usize,
    drive: impl Fn(&mut World<D>, usize),
) -> Vec<usize> {
    let mut world = make();
    let mut counts = vec![asleep(&world)];
    for step in 0..steps {
        drive(&mut world, step);
        world.step(DT);
        counts.push(asleep(&world));
    }
    counts
}

/// The first step after which more bodies sleep than before it (after
/// `from`), and the first after which fewer do.
fn fell_asleep_and_woke(counts: &[usize], from: usize) -> (Option<usize>, Option<usize>) {
    let fell = (1..counts.len()).find(|&s| counts[s] > counts[s - 1]);
    let woke = (from.max(1)..counts.len()).find(|&s| counts[s] < counts[s - 1]);
    (fell, woke)
}

/// `nx * ny * nz` unit cubes dropped in a jittered grid onto a fixed
/// ground, sleeping on (tests/determinism.rs's pile, any size).
fn cube_pile(nx: usize, ny: usize, nz: usize) -> World<D3> {
    tumble_scenes::cube_pile_sized_3d(nx, ny, nz).world
}

/// Heavy balls dropped on a pile at `step`, waking it where they land.
fn drop_balls(world: &mut World<D3>, count: usize) {
    let ball = tumble::d3::Shape::ball(0.4).unwrap();
    for i in 0..count {
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
}

/// The pile's `k`th body.
fn nth_body<D: Dim>(world: &World<D>, k: usize) -> BodyHandle {
    world.bodies().nth(k).map(|(h, _)| h).expect("a body")
}

/// A game's calls on a pile, pending until the next step: one body placed
/// (a teleport beside sleepers), one pushed, one given a force, one removed
/// (its pairs end, its proxy leaves the tree) and one collider refiltered.
fn poke(world: &mut World<D3>) {
    let placed = nth_body(world, 5);
    let at = world.body(placed).unwrap().position() + Vec3::new(0.0, 0.3, 0.0);
    world.body_mut(placed).unwrap().set_position(at).unwrap();
    let pushed = nth_body(world, 9);
    let mut body = world.body_mut(pushed).unwrap();
    body.apply_impulse_at_center(Vec3::new(0.5, 2.0, 0.0))
        .unwrap();
    let forced = nth_body(world, 12);
    let mut body = world.body_mut(forced).unwrap();
    body.apply_force(Vec3::new(0.0, 30.0, 0.0)).unwrap();
    world.remove_body(nth_body(world, 14));
    let refiltered = nth_body(world, 20);
    let collider = world.body(refiltered).unwrap().colliders()[0].handle();
    let filter = CollisionFilter {
        category: 2,
        mask: !1,
    };
    world.set_collider_filter(collider, filter).unwrap();
}

#[test]
fn a_3d_pile_that_sleeps_and_wakes_continues_bit_identically() {
    const POKE: usize = 170;
    const DROP: usize = 200;
    let make = || cube_pile(4, 3, 4);
    let drive = |world: &mut World<D3>, step: usize| match step {
        POKE => poke(world),
        DROP => drop_balls(world, 3),
        _ => {}
    };
    let counts = sleeping_after(make, DROP + 120, drive);
    let (fell, woke) = fell_asleep_and_woke(&counts, DROP);
    let (fell, woke) = (
        fell.expect("the pile falls asleep"),
        woke.expect("the balls wake the pile"),
    );
    println!(
        "3D pile: bodies first fall asleep in step {fell} ({} asleep), {} asleep at the poke, \
         {} at the drop, wake in step {woke} ({} asleep before, {} after)",
        counts[fell],
        counts[POKE],
        counts[DROP],
        counts[woke - 1],
        counts[woke]
    );
    assert!(
        counts[POKE] > 0 && counts[DROP] > 0,
        "some of the pile sleeps when it is poked and when the balls drop"
    );
    let saves = [
        0,
        1,
        37,
        fell - 1,
        fell,
        POKE,
        POKE + 1,
        DROP,
        woke - 1,
        woke,
    ];
    continues("3D pile", make, &saves, 90, drive);
}

#[test]
fn a_2d_pile_continues_bit_identically() {
    let make = || random_pile_2d(7).world;
    // A body pushed up every 50 steps: a force pending at some saves.
    let drive = |world: &mut World<D2>, step: usize| {
        if step % 50 == 25 {
            let body = nth_body(world, 3 + step / 50);
            let force = Vec2::new(5.0, 60.0);
            world.body_mut(body).unwrap().apply_force(force).unwrap();
        }
    };
    let counts = sleeping_after(make, 300, drive);
    let (fell, _) = fell_asleep_and_woke(&counts, 0);
    let mut saves = vec![0, 25, 120, 175];
    saves.extend(fell);
    continues("2D pile", make, &saves, 120, drive);
}

#[test]
fn joints_continue_bit_identically() {
    continues(
        "ragdolls down stairs 3D",
        || ragdoll_stairs_3d().world,
        &[0, 40, 150],
        90,
        |_, _| {},
    );
    continues(
        "rope bridge 3D",
        || rope_bridge_3d().world,
        &[0, 60],
        90,
        |_, _| {},
    );
    continues("chain 2D", || chain_2d().world, &[0, 50], 120, |_, _| {});
    // The car's motor driven by the step number, as a player would.
    continues(
        "car 2D",
        || car_2d().world,
        &[0, 30, 100],
        120,
        |world, step| {
            let speed = if (step / 40) % 2 == 0 { -20.0 } else { 10.0 };
            let joints: Vec<_> = world.joints().map(|(h, _)| h).collect();
            for h in joints {
                if let Some(joint) = world.joint_mut(h) {
                    joint.set_drive_speed(speed);
                }
            }
        },
    );
}

#[test]
fn surfaces_continue_bit_identically() {
    continues(
        "heightfield 3D",
        || terrain_3d(17, 40).world,
        &[0, 60, 140],
        90,
        |_, _| {},
    );
    continues(
        "triangle mesh 3D",
        || terrain_mesh_3d(17, 40).world,
        &[0, 90],
        90,
        |_, _| {},
    );
    continues(
        "chains 2D",
        || chains_2d().world,
        &[0, 45, 150],
        90,
        |_, _| {},
    );
}

#[test]
fn bullets_continue_bit_identically() {
    // A shot every 20 steps, each at the next target.
    let fire = |world: &mut World<D3>, step: usize| {
        if step % 20 == 5 {
            let shot = BULLET_SHOTS[(step / 20) % BULLET_SHOTS.len()];
            let velocity = (shot.aim - GUN_MUZZLE).normalize() * shot.speed;
            bullet_3d(world, GUN_MUZZLE, velocity).expect("a bullet");
        }
    };
    // Saved with bullets in flight (a shot takes a few steps to land).
    continues(
        "bullets 3D",
        || bullets_3d().world,
        &[0, 6, 26, 47, 100],
        60,
        fire,
    );
    continues(
        "pinball 2D",
        || pinball_2d().world,
        &[0, 3, 50],
        90,
        |_, _| {},
    );
}

/// A kinematic platform bobbing and turning on targets, a kinematic bar
/// spinning at a set rate and boxes dropped on both, sleeping on.
fn kinematic_scene() -> World<D3> {
    let mut world = World::new(Settings::default());
    let ground = tumble::d3::Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap();
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(ground),
        )
        .unwrap();
    let platform = tumble::d3::Shape::cuboid(Vec3::new(2.0, 0.2, 2.0)).unwrap();
    world
        .add_body(
            BodyDesc::kinematic()
                .position(Vec3::new(0.0, 1.0, 0.0))
                .user_data(1),
            ColliderDesc::new(platform),
        )
        .unwrap();
    let bar = tumble::d3::Shape::cuboid(Vec3::new(3.0, 0.2, 0.2)).unwrap();
    world
        .add_body(
            BodyDesc::kinematic()
                .position(Vec3::new(8.0, 0.5, 0.0))
                .angular_velocity(Vec3::new(0.0, 1.5, 0.0)),
            ColliderDesc::new(bar),
        )
        .unwrap();
    let cube = tumble::d3::Shape::cuboid(Vec3::splat(0.3)).unwrap();
    for i in 0..24 {
        let x = if i < 12 { 0.0 } else { 8.0 };
        let at = Vec3::new(
            x + (i % 3) as f32 * 0.8 - 0.8,
            2.0 + (i % 12 / 3) as f32 * 0.8,
            0.5,
        );
        world
            .add_body(
                BodyDesc::dynamic().position(at),
                ColliderDesc::new(cube.clone()),
            )
            .unwrap();
    }
    world
}

#[test]
fn kinematic_bodies_continue_bit_identically() {
    let drive = |world: &mut World<D3>, step: usize| {
        // No target every fourth step: the platform, which reads the
        // velocity its last target gave it, stops (a world saved at step
        // 91 keeps that it has just reached one).
        if step % 4 == 3 {
            return;
        }
        let platform = world
            .bodies()
            .find(|(_, b)| b.user_data() == 1)
            .map(|(h, _)| h)
            .expect("the platform");
        let t = step as f32 * DT;
        let target = Vec3::new(0.0, 1.0 + 0.5 * (t * 2.0).sin(), 0.0);
        let mut body = world.body_mut(platform).expect("the platform");
        assert_eq!(body.kind(), BodyKind::Kinematic);
        body.set_kinematic_target(target, Quat::from_rotation_y(0.3 * t))
            .unwrap();
    };
    continues(
        "kinematic 3D",
        kinematic_scene,
        &[0, 20, 91, 150],
        90,
        drive,
    );
}

/// Three cubes over the ground and a row of balls joined by distance
/// joints, some removed in a scrambled order: the slot maps' free lists
/// are out of slot order.
fn scrambled_world() -> World<D3> {
    let mut world = cube_pile(3, 2, 3);
    let ball = tumble::d3::Shape::ball(0.3).unwrap();
    let row: Vec<BodyHandle> = (0..8)
        .map(|i| {
            world
                .add_body(
                    BodyDesc::dynamic().position(Vec3::new(i as f32 * 0.9 - 3.0, 9.0, 4.0)),
                    ColliderDesc::new(ball.clone()),
                )
                .unwrap()
        })
        .collect();
    let joints: Vec<_> = row
        .windows(2)
        .map(|w| {
            let at = |h| world.body(h).unwrap().position();
            let desc = JointDesc::distance(w[0], w[1], at(w[0]), at(w[1]));
            world.add_joint(desc).unwrap()
        })
        .collect();
    for _ in 0..30 {
        world.step(DT);
    }
    let bodies: Vec<BodyHandle> = world.bodies().map(|(h, _)| h).collect();
    for k in [11, 3, 17, 6, 2] {
        world.remove_body(bodies[k]);
    }
    for k in [5, 1] {
        world.remove_joint(joints[k]);
    }
    world
}

/// Bodies and joints added to a world, their handles.
fn add_some(world: &mut World<D3>) -> Vec<String> {
    let cube = tumble::d3::Shape::cuboid(Vec3::splat(0.25)).unwrap();
    let mut added: Vec<BodyHandle> = Vec::new();
    for i in 0..7 {
        let at = Vec3::new(i as f32 - 3.0, 6.0, -4.0);
        added.push(
            world
                .add_body(
                    BodyDesc::dynamic().position(at),
                    ColliderDesc::new(cube.clone()),
                )
                .unwrap(),
        );
    }
    let mut handles: Vec<String> = added.iter().map(|h| format!("{h:?}")).collect();
    for w in added.windows(2).take(3) {
        let at = |h| world.body(h).unwrap().position();
        let desc = JointDesc::distance(w[0], w[1], at(w[0]), at(w[1]));
        let joint = world.add_joint(desc).unwrap();
        handles.push(format!("{joint:?}"));
    }
    let colliders = world
        .bodies()
        .flat_map(|(_, b)| b.colliders().iter().map(|c| format!("{:?}", c.handle())))
        .collect::<Vec<_>>();
    handles.extend(colliders);
    handles
}

#[test]
fn a_loaded_world_hands_out_the_handles_the_original_would() {
    let mut original = scrambled_world();
    let bytes = original.to_bytes();
    let mut loaded = World::<D3>::from_bytes(&bytes).unwrap();
    // The removals are pending in the broad phase until the next step.
    for _ in 0..30 {
        original.step(DT);
        loaded.step(DT);
    }
    assert!(fingerprint(&original) == fingerprint(&loaded));
    assert!(original.to_bytes() == loaded.to_bytes());
    let (a, b) = (add_some(&mut original), add_some(&mut loaded));
    assert_eq!(a, b, "the handles after loading");
    for _ in 0..60 {
        original.step(DT);
        loaded.step(DT);
    }
    assert_eq!(body_bits(&original), body_bits(&loaded));
    assert!(original.to_bytes() == loaded.to_bytes());
    println!(
        "after 5 bodies and 2 joints removed out of order: {} handles added after loading \
         equal the original's",
        a.len()
    );
}

/// The pose hash of tests/determinism.rs.
fn pose_hash(world: &World<D3>) -> u64 {
    common::pose_hash_3d(world)
}

/// The 1000-cube pile of tests/determinism.rs saved at step 300, and the
/// pose hash of the same run at step 900, uninterrupted (one thread),
/// with [`wake_the_pile`] after the save.
struct Thousand {
    bytes: Vec<u8>,
    asleep: usize,
    hash: u64,
    save_ms: f64,
}

const SAVE_STEP: usize = 300;
const MORE_STEPS: usize = 600;

/// Five heavy balls dropped on the 1000 cubes 20 steps after the save
/// (as tests/determinism.rs does), waking the islands they land on, so
/// the 600 steps after loading are not spent asleep.
fn wake_the_pile(world: &mut World<D3>, step: usize) {
    if step == SAVE_STEP + 20 {
        drop_balls(world, 5);
    }
}

fn thousand() -> &'static Thousand {
    static SAVED: OnceLock<Thousand> = OnceLock::new();
    SAVED.get_or_init(|| {
        in_pool(1, || {
            let mut world = cube_pile(10, 10, 10);
            for _ in 0..SAVE_STEP {
                world.step(DT);
            }
            let t = Instant::now();
            let bytes = world.to_bytes();
            let save_ms = t.elapsed().as_secs_f64() * 1e3;
            let asleep = asleep(&world);
            for step in SAVE_STEP..SAVE_STEP + MORE_STEPS {
                wake_the_pile(&mut world, step);
                world.step(DT);
            }
            Thousand {
                bytes,
                asleep,
                hash: pose_hash(&world),
                save_ms,
            }
        })
    })
}

/// Set in the environment of the test binary run again as the child: the
/// saved file and the thread count.
const CHILD_FILE: &str = "TUMBLE_PERSISTENCE_CHILD_FILE";
const CHILD_THREADS: &str = "TUMBLE_PERSISTENCE_CHILD_THREADS";

/// The child's part (a no-op in a normal run): load the saved file, step
/// 600 more in a pool of the given size, print the pose hash.
#[test]
fn child_loads_a_saved_world_and_prints_its_hash() {
    let (Ok(file), Ok(threads)) = (std::env::var(CHILD_FILE), std::env::var(CHILD_THREADS)) else {
        return;
    };
    let threads: usize = threads.parse().expect("a thread count");
    let bytes = std::fs::read(&file).expect("the saved world");
    let t = Instant::now();
    let mut world = World::<D3>::from_bytes(&bytes).expect("the saved world loads");
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let hash = in_pool(threads, || {
        for step in SAVE_STEP..SAVE_STEP + MORE_STEPS {
            wake_the_pile(&mut world, step);
            world.step(DT);
        }
        pose_hash(&world)
    });
    let step_ms = t.elapsed().as_secs_f64() * 1e3;
    println!("child load ms {load_ms:.2}");
    println!("child steps ms {step_ms:.0}");
    println!("child pose hash {hash:016x}");
}

/// What the child printed after `prefix`.
fn child_line<'a>(stdout: &'a str, prefix: &str) -> Option<&'a str> {
    // The test harness prints the test's name on the line the output starts.
    stdout.lines().find_map(|line| {
        let at = line.find(prefix)?;
        Some(line[at + prefix.len()..].trim())
    })
}

#[test]
fn a_thousand_bodies_saved_at_300_continue_in_another_process_as_uninterrupted() {
    let saved = thousand();
    let bodies = 1001;
    assert!(
        saved.asleep > 0 && saved.asleep < bodies,
        "some bodies sleep at step {SAVE_STEP}, not all ({} asleep)",
        saved.asleep
    );
    let file: PathBuf = std::env::temp_dir().join(format!(
        "tumble_persistence_{}_{SAVE_STEP}.world",
        std::process::id()
    ));
    std::fs::write(&file, &saved.bytes).unwrap();
    let t = Instant::now();
    let loaded = World::<D3>::from_bytes(&saved.bytes).unwrap();
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    assert_eq!(loaded.body_count(), bodies);
    assert_eq!(asleep(&loaded), saved.asleep);
    println!(
        "1000 cubes at step {SAVE_STEP} ({} asleep): {} bytes, {:.0} bytes per body; \
         save {:.2} ms, load {load_ms:.2} ms",
        saved.asleep,
        saved.bytes.len(),
        saved.bytes.len() as f64 / bodies as f64,
        saved.save_ms,
    );
    println!(
        "uninterrupted to step {}: pose hash {:016x}",
        SAVE_STEP + MORE_STEPS,
        saved.hash
    );
    let exe = std::env::current_exe().unwrap();
    for threads in [1, 2] {
        let t = Instant::now();
        let out = Command::new(&exe)
            .args([
                "--exact",
                "child_loads_a_saved_world_and_prints_its_hash",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_FILE, &file)
            .env(CHILD_THREADS, threads.to_string())
            .output()
            .expect("the test binary runs again");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "the child failed:\n{stdout}");
        let hash = child_line(&stdout, "child pose hash ")
            .unwrap_or_else(|| panic!("the child printed no hash:\n{stdout}"));
        let figures = |prefix| child_line(&stdout, prefix).unwrap_or("?").to_string();
        println!(
            "another process, {threads} thread(s): loaded in {} ms, 600 steps in {} ms, pose \
             hash {hash} ({:.1} s in all)",
            figures("child load ms "),
            figures("child steps ms "),
            t.elapsed().as_secs_f64()
        );
        assert_eq!(
            hash,
            format!("{:016x}", saved.hash),
            "{threads} thread(s): the loaded world's hash differs from the uninterrupted run's"
        );
    }
    let _ = std::fs::remove_file(&file);
}

/// FNV-1a 64, the checksum of the format (`world/persist.rs`), to re-seal
/// a changed payload.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The header's length: magic, version, dimension, length, checksum.
const HEADER: usize = 32;

/// A deterministic 64-bit sequence (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn truncated_flipped_scribbled_and_other_version_bytes_are_errors() {
    let bytes = &thousand().bytes;
    let len = bytes.len();
    let t = Instant::now();
    // Truncated at 200 lengths spread over the buffer, 0 among them.
    for k in 0..200 {
        let cut = len * k / 200;
        let got = World::<D3>::from_bytes(&bytes[..cut]);
        assert!(got.is_err(), "truncated to {cut} bytes: loaded");
        if cut >= HEADER {
            assert!(
                matches!(got, Err(LoadError::Truncated { .. })),
                "truncated to {cut}: {got:?}",
                got = got.err()
            );
        }
    }
    // 1000 single-bit flips anywhere, each loaded on its own.
    let mut rng = Rng(0x5eed);
    let mut copy = bytes.clone();
    let mut kinds = BTreeMap::new();
    for _ in 0..1000 {
        let bit = rng.below(len * 8);
        copy[bit / 8] ^= 1 << (bit % 8);
        let got = World::<D3>::from_bytes(&copy);
        let err = got
            .err()
            .unwrap_or_else(|| panic!("bit {bit} flipped: loaded"));
        *kinds.entry(kind(&err)).or_insert(0) += 1;
        copy[bit / 8] ^= 1 << (bit % 8);
    }
    println!("1000 bit flips: {kinds:?}");
    // 1000 scribbles: 2 to 16 bytes, each changed, at random places.
    let mut kinds = BTreeMap::new();
    for _ in 0..1000 {
        let n = 2 + rng.below(15);
        let at = rng.below(len - n);
        for b in &mut copy[at..at + n] {
            *b ^= 1 + rng.below(255) as u8;
        }
        let err = World::<D3>::from_bytes(&copy)
            .err()
            .unwrap_or_else(|| panic!("{n} bytes scribbled at {at}: loaded"));
        *kinds.entry(kind(&err)).or_insert(0) += 1;
        copy[at..at + n].copy_from_slice(&bytes[at..at + n]);
    }
    println!("1000 scribbles: {kinds:?}");
    assert!(copy == *bytes);
    // Another version (3: before surface pairs saved their normal
    // clusters; 4: before the awake islands and the pairs' link bits were
    // saved; 5: before the bodies' sims were saved apart from their
    // records; 6: before a body kept whether it just reached its kinematic
    // target and the structure stamp was saved), and the other dimension.
    assert_eq!(FORMAT_VERSION, 7);
    for version in [0, 3, 4, 5, 6, FORMAT_VERSION + 1, u32::MAX] {
        copy[8..12].copy_from_slice(&version.to_le_bytes());
        assert_eq!(
            World::<D3>::from_bytes(&copy).err(),
            Some(LoadError::Version {
                found: version,
                expected: FORMAT_VERSION
            })
        );
    }
    assert_eq!(
        World::<D2>::from_bytes(bytes).err(),
        Some(LoadError::Dimension {
            found: 3,
            expected: 2
        })
    );
    assert_eq!(
        World::<D3>::from_bytes(b"not a world at all").err(),
        Some(LoadError::NotAWorld)
    );
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        World::<D3>::from_bytes(&longer),
        Err(LoadError::Malformed { .. })
    ));
    println!(
        "{len} bytes: 200 truncations, 1000 flips, 1000 scribbles, 3 versions refused in {:.2} s",
        t.elapsed().as_secs_f64()
    );
}

fn kind(e: &LoadError) -> &'static str {
    match e {
        LoadError::NotAWorld => "not a world",
        LoadError::NotARecording => "not a recording",
        LoadError::Version { .. } => "version",
        LoadError::Dimension { .. } => "dimension",
        LoadError::Truncated { .. } => "truncated",
        LoadError::Checksum { .. } => "checksum",
        LoadError::Malformed { .. } => "malformed",
    }
}

/// A small world with a bit of everything: a heightfield, a pile that
/// partly sleeps, joints (one unpaired), a kinematic body and a sensor.
fn mixed_world() -> World<D3> {
    let mut world = terrain_3d(9, 12).world;
    let cube = tumble::d3::Shape::cuboid(Vec3::splat(0.3)).unwrap();
    let a = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(0.0, 12.0, 0.0)),
            ColliderDesc::new(cube.clone()),
        )
        .unwrap();
    let b = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(0.8, 12.0, 0.0)),
            ColliderDesc::new(cube.clone()),
        )
        .unwrap();
    world
        .add_joint(JointDesc::revolute(a, b, Vec3::new(0.4, 12.0, 0.0)).axis(Vec3::Z))
        .unwrap();
    world
        .add_body(
            BodyDesc::kinematic()
                .position(Vec3::new(3.0, 8.0, 0.0))
                .linear_velocity(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(cube.clone()).sensor(true),
        )
        .unwrap();
    for _ in 0..150 {
        world.step(DT);
    }
    world
}

#[test]
fn re_sealed_random_payloads_load_as_errors_or_as_worlds_that_step() {
    let world = mixed_world();
    let bytes = world.to_bytes();
    let len = bytes.len();
    let mut rng = Rng(0xfade);
    let (mut refused, mut stepped) = (BTreeMap::new(), 0);
    let t = Instant::now();
    for round in 0..1500 {
        let mut copy = bytes.clone();
        // A flip, a scribble or a cut inside the payload, the checksum and
        // length then made to match: only the decoding and the validation
        // stand between it and the step.
        match round % 3 {
            0 => {
                let bit = HEADER * 8 + rng.below((len - HEADER) * 8);
                copy[bit / 8] ^= 1 << (bit % 8);
            }
            1 => {
                let n = 1 + rng.below(8);
                let at = HEADER + rng.below(len - HEADER - n);
                for b in &mut copy[at..at + n] {
                    *b = rng.next() as u8;
                }
            }
            _ => copy.truncate(HEADER + rng.below(len - HEADER)),
        }
        let payload_len = (copy.len() - HEADER) as u64;
        let sum = fnv1a(&copy[HEADER..]);
        copy[16..24].copy_from_slice(&payload_len.to_le_bytes());
        copy[24..32].copy_from_slice(&sum.to_le_bytes());
        match World::<D3>::from_bytes(&copy) {
            Err(e) => {
                let what = match &e {
                    LoadError::Malformed { what } if what.starts_with("the payload does not") => {
                        "does not decode".to_string()
                    }
                    LoadError::Malformed { what } => what.clone(),
                    other => panic!("a re-sealed payload: {other}"),
                };
                *refused.entry(what).or_insert(0) += 1;
            }
            Ok(mut loaded) => {
                for _ in 0..3 {
                    loaded.step(DT);
                }
                let _ = loaded.to_bytes();
                stepped += 1;
            }
        }
    }
    println!(
        "1500 re-sealed changes of a {len}-byte mixed world: {stepped} loaded and stepped, \
         refused {refused:#?} ({:.2} s)",
        t.elapsed().as_secs_f64()
    );
    assert!(refused.len() > 1, "the validation refuses some");
}

/// A small 2D pile for the serde form.
fn small_pile_2d() -> World<D2> {
    let mut world = World::new(Settings::default());
    let ground = tumble::d2::Shape::cuboid(Vec2::new(20.0, 0.5)).unwrap();
    world
        .add_body(
            BodyDesc::fixed().position(Vec2::new(0.0, -0.5)),
            ColliderDesc::new(ground),
        )
        .unwrap();
    let crate_ = tumble::d2::Shape::cuboid(Vec2::splat(0.4)).unwrap();
    for i in 0..12 {
        let at = Vec2::new((i % 4) as f32 - 1.5, 1.0 + (i / 4) as f32);
        world
            .add_body(
                BodyDesc::dynamic().position(at).rotation(0.1 * i as f32),
                ColliderDesc::new(crate_.clone()),
            )
            .unwrap();
    }
    world
}

#[test]
fn the_serde_form_carries_the_version_and_continues_through_json() {
    let mut world = small_pile_2d();
    for _ in 0..40 {
        world.step(DT);
    }
    let json = serde_json::to_string(&world).unwrap();
    let mut loaded: World<D2> = serde_json::from_str(&json).unwrap();
    for _ in 0..60 {
        world.step(DT);
        loaded.step(DT);
    }
    assert_eq!(body_bits(&world), body_bits(&loaded), "through JSON");
    let mut value = serde_json::to_value(&world).unwrap();
    assert_eq!(value["format_version"], FORMAT_VERSION);
    assert_eq!(value["dimension"], 2);
    let as_3d = serde_json::from_value::<World<D3>>(value.clone())
        .err()
        .unwrap();
    assert!(as_3d.to_string().contains("2D world"), "{as_3d}");
    value["format_version"] = (FORMAT_VERSION + 1).into();
    let other = serde_json::from_value::<World<D2>>(value).err().unwrap();
    assert!(other.to_string().contains("version"), "{other}");
    // A world holding an infinity (an unbreakable joint's break force)
    // does not go through JSON, which has none: an error, not a panic.
    let mut rod = small_pile_2d();
    let [a, b] = [1, 2].map(|k| nth_body(&rod, k));
    let at = |h| rod.body(h).unwrap().position();
    let joint = JointDesc::distance(a, b, at(a), at(b));
    rod.add_joint(joint).unwrap();
    let infinite = serde_json::to_string(&rod).unwrap();
    assert!(serde_json::from_str::<World<D2>>(&infinite).is_err());
    println!(
        "JSON: {} bytes for {} bodies; other version: \"{other}\"; as 3D: \"{as_3d}\"",
        json.len(),
        world.body_count()
    );
}

/// README's saving example, as written there.
#[test]
fn the_readme_example_runs() -> Result<(), Box<dyn std::error::Error>> {
    use tumble::d3::*;
    use tumble::glam::Vec3;

    let mut world = World::new(Settings::default());
    let ground = Shape::cuboid(Vec3::new(20.0, 0.5, 20.0))?;
    world.add_body(
        BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
        ColliderDesc::new(ground),
    )?;
    let ball = world.add_body(
        BodyDesc::dynamic().position(Vec3::new(0.0, 3.0, 0.0)),
        ColliderDesc::new(Shape::ball(0.5)?),
    )?;
    for _ in 0..60 {
        world.step(1.0 / 60.0);
    }
    let bytes: Vec<u8> = world.to_bytes(); // to a file, a socket, a save slot
    let mut loaded = World::from_bytes(&bytes)?; // Result<World, LoadError>
    for _ in 0..60 {
        world.step(1.0 / 60.0);
        loaded.step(1.0 / 60.0);
    }
    assert_eq!(
        world.body(ball).unwrap().position(),
        loaded.body(ball).unwrap().position()
    );
    // Truncated, corrupted, another version or dimension: a typed error, never a panic.
    assert!(matches!(
        World::from_bytes(&bytes[..100]),
        Err(LoadError::Truncated { .. })
    ));
    Ok(())
}
