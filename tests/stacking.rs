//! Pyramids: stacks under load stand without drifting.

mod common;

use common::*;
use tumble::glam::{Quat, Vec3};
use tumble::{BodyDesc, ColliderDesc, Settings, World, D2, D3};

const DT: f32 = 1.0 / 60.0;

#[test]
fn pyramid_of_820_boxes_stands_2d() {
    let mut world = World::<D2>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    add_ground::<D2>(&mut world, 0.0);
    let boxes = add_pyramid::<D2>(&mut world, 40);
    assert_eq!(boxes.len(), 820);
    let start = positions(&world, &boxes);
    for _ in 0..500 {
        world.step(DT);
    }
    let drift = largest_drift(&world, &boxes, &start);
    println!("2D pyramid of 820: largest sideways drift {drift:.4} m");
    assert!(drift < 0.03, "drift {drift}");
}

#[test]
fn square_pyramid_of_385_cubes_stands_3d() {
    let mut world = World::<D3>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    add_ground::<D3>(&mut world, 0.0);
    let cube = D3::cube(0.5);
    let mut boxes = Vec::new();
    for layer in 0..10 {
        let side = 10 - layer;
        for i in 0..side {
            for k in 0..side {
                let offset = (side - 1) as f32 * 0.5;
                let p = Vec3::new(i as f32 - offset, 0.5 + layer as f32, k as f32 - offset);
                boxes.push(
                    world
                        .add_body(
                            BodyDesc::dynamic().position(p),
                            ColliderDesc::new(cube.clone()),
                        )
                        .unwrap(),
                );
            }
        }
    }
    assert_eq!(boxes.len(), 385);
    let start = positions(&world, &boxes);
    for _ in 0..500 {
        world.step(DT);
    }
    let drift = largest_drift(&world, &boxes, &start);
    println!("3D square pyramid of 385: largest sideways drift {drift:.5} m");
    assert!(drift < 0.01, "drift {drift}");
}

/// Largest sideways drift, largest sink and bodies moved over 1 m after 500 steps.
fn settle<D: Scene>(mut scene: tumble_scenes::Scene<D>) -> (f32, f32, usize) {
    let start = positions(&scene.world, &scene.bodies);
    for _ in 0..500 {
        scene.world.step(DT);
    }
    let end = positions(&scene.world, &scene.bodies);
    let drift = largest_drift(&scene.world, &scene.bodies, &start);
    let sink = start
        .iter()
        .zip(&end)
        .map(|(&a, &b)| D::height(a) - D::height(b))
        .fold(0.0, f32::max);
    let moved = start
        .iter()
        .zip(&end)
        .filter(|&(&a, &b)| D::len(b - a) > 1.0)
        .count();
    (drift, sink, moved)
}

/// The reference scene of Box2D v3 and Box3D: 5050 boxes, base 100. Bars:
/// nothing moves 1 m, drift within rapier 0.36's in the same scene (2D
/// 0.29 m, 3D 0.30 m), sink within 1% of rapier's (2D 0.728 m, 3D 0.665 m).
#[test]
fn large_pyramids_of_5050_boxes_stand() {
    let (drift, sink, moved) = settle(tumble_scenes::pyramid_2d(100));
    println!("2D large pyramid: drift {drift:.3} m, sink {sink:.3} m, moved over 1 m: {moved}");
    assert!(
        moved == 0 && drift <= 0.29 && sink <= 0.728 * 1.01,
        "2D: drift {drift}, sink {sink}, moved {moved}"
    );
    let (drift, sink, moved) = settle(tumble_scenes::pyramid_3d(100));
    println!("3D large pyramid: drift {drift:.3} m, sink {sink:.3} m, moved over 1 m: {moved}");
    assert!(
        moved == 0 && drift <= 0.30 && sink <= 0.665 * 1.01,
        "3D: drift {drift}, sink {sink}, moved {moved}"
    );
}

/// A wall one cube thick (the 3D pyramid of base 40, 820 cubes), settled,
/// then nudged out of its plane by a lean velocity of 1 mm/s per metre of
/// height: it must rock back, not buckle, as rapier 0.36's does (within
/// 0.11 m). Guards the lever arms kept in world axes between queries
/// (`Manifold::freeze_levers`): re-taken from the poses every step, they
/// turn with the lean and the warm-started impulses feed it.
#[test]
fn wall_of_cubes_nudged_out_of_plane_rocks_back() {
    let mut scene = tumble_scenes::pyramid_3d(40);
    for _ in 0..300 {
        scene.world.step(DT);
    }
    for &h in &scene.bodies {
        let mut body = scene.world.body_mut(h).unwrap();
        let lean = Vec3::Z * (0.001 * body.position().y);
        body.set_linear_velocity(body.linear_velocity() + lean)
            .unwrap();
    }
    let mut largest = 0.0f32;
    for _ in 0..900 {
        scene.world.step(DT);
        let out = scene
            .bodies
            .iter()
            .map(|&h| scene.world.body(h).unwrap().position().z.abs())
            .fold(0.0, f32::max);
        largest = largest.max(out);
    }
    println!("wall of 820 cubes nudged: largest out-of-plane offset {largest:.3} m");
    assert!(
        largest < 0.2,
        "the wall leaned {largest} m out of its plane"
    );
}

/// A cube dropped flat from 1 m lands on its four corners at once: their
/// impulses stay equal and it does not start to spin. Guards the solver's
/// one choice per manifold: its normal rows are soft once any point
/// overlaps, rigid while all are apart. Chosen per corner by the sign of
/// its own separation, rounding splits the corners of such a landing (at
/// (0, -1) and (13, -1) among the spots below) between rigid and soft rows,
/// their impulses differ, and dropped columns topple.
#[test]
fn cube_dropped_flat_lands_on_four_equal_corners_without_spin() {
    for (x, z) in [(0.0, -1.0), (13.0, -1.0), (-19.0, 7.0)] {
        // The falling_boxes scene's ground: 120 m square.
        let mut world = awake_world_on_ground(60.0);
        let cube = world
            .add_body(
                BodyDesc::dynamic().position(Vec3::new(x, 1.0, z)),
                ColliderDesc::new(D3::cube(0.5)),
            )
            .unwrap();
        let (mut spin, mut spread) = (0.0f32, 0.0f32);
        for _ in 0..60 {
            world.step(DT);
            spin = spin.max(world.body(cube).unwrap().angular_velocity().length());
            for pair in world.contact_pairs() {
                let impulses = pair.manifold.points().iter().map(|p| p.normal_impulse);
                let (low, high) =
                    impulses.fold((f32::MAX, 0.0f32), |(lo, hi), i| (lo.min(i), hi.max(i)));
                if high > 0.0 {
                    spread = spread.max((high - low) / high);
                }
            }
        }
        println!("cube dropped at ({x}, {z}): spin {spin:.1e} rad/s, corner spread {spread:.4}");
        assert!(
            spin < 1e-5 && spread < 0.01,
            "({x}, {z}): spin {spin}, spread {spread}"
        );
    }
}

/// A random hull (14 points, about 1.1 m across) resting on four points of
/// a narrow base, as it came to rest in a pile: it settles. Guards the
/// push-out masses lowered, one factor per manifold, where points pushing
/// out together at their full masses would overshoot the body's rocking
/// mode (gain past 2, `PUSH_OUT_GAIN` in `solver/prepare.rs`): at full
/// masses this hull rocks from one end of the base to the other for ever,
/// which keeps its pile awake.
#[test]
fn hull_on_a_narrow_base_comes_to_rest() {
    let rock = [
        Vec3::new(-0.2754893, 0.33991876, 0.4504843),
        Vec3::new(-0.09421956, -0.3152802, 0.34586543),
        Vec3::new(0.0862866, 0.6126343, 0.02740672),
        Vec3::new(-0.08093364, 0.31081, -0.39907604),
        Vec3::new(0.22524525, -0.17272073, -0.57703936),
        Vec3::new(0.21854565, 0.53391296, -0.09983996),
        Vec3::new(0.22448911, 0.43105927, 0.08234098),
        Vec3::new(-0.22528748, 0.40485683, 0.44235218),
        Vec3::new(-0.27603593, -0.3831268, -0.09842612),
        Vec3::new(0.2760684, -0.43867657, -0.14715087),
        Vec3::new(0.12180474, -0.07786843, 0.45878536),
        Vec3::new(0.32339296, -0.5356426, -0.03590632),
        Vec3::new(-0.4401517, 0.1496096, -0.21848118),
        Vec3::new(-0.25034535, -0.3045367, 0.24908662),
    ];
    let mut world = awake_world_on_ground(30.0);
    let turn = Quat::from_xyzw(-0.0048134364, -0.010720861, 0.74125874, -0.6711166).normalize();
    let hull = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(-3.4241765, 0.2698142, -4.825536))
                .rotation(turn),
            ColliderDesc::new(tumble::shape::Shape::convex_hull(&rock).unwrap()),
        )
        .unwrap();
    let mut spin = 0.0f32;
    for step in 0..600 {
        world.step(DT);
        if step >= 300 {
            spin = spin.max(world.body(hull).unwrap().angular_velocity().length());
        }
    }
    println!("hull on a narrow base: largest spin over steps 300-600 {spin:.1e} rad/s");
    assert!(spin < 1e-3, "spin {spin} rad/s");
}

/// A 3D world that never sleeps, with a fixed ground `half_width` metres
/// from its centre each way and its top at y = 0.
fn awake_world_on_ground(half_width: f32) -> World<D3> {
    let mut world = World::<D3>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(D3::cuboid(half_width, 0.5)),
        )
        .unwrap();
    world
}
