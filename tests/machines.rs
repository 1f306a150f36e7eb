//! Machines: jointed bodies moving fast with continuous collision on (the
//! default). A wheel rolling on a hinge, a car on four wheels over a bump,
//! a ragdoll landing: the continuous pass never pulls a body back from
//! what its joints hold (issue 35, item 1; `world/continuous.rs`).

mod common;

use common::*;
use tumble::glam::{Vec2, Vec3};
use tumble::shape::Shape;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, JointDesc, World, D2, D3};

const DT: f32 = 1.0 / 60.0;

/// Most a joint may come apart at any step, metres.
const JOINT_GAP: f32 = 0.01;

/// The terrain's height at `x`: hills 0.6 m from crest to trough and 30 m
/// long, with a ripple 7 m long on them, gentle enough for a wheel at
/// 14 m/s to keep to them.
fn hills(x: f32) -> f32 {
    use std::f32::consts::TAU;
    0.3 * (x / 30.0 * TAU).sin() + 0.03 * (x / 7.0 * TAU).sin()
}

/// What the machines need beyond `Scene`: a terrain along X and the axle.
trait Machine: Scene {
    /// A fixed surface following `height(x)` from x = `from` to `to`,
    /// sampled every half metre (a chain in 2D, a heightfield 8 m wide in
    /// Z in 3D).
    fn terrain(from: f32, to: f32, height: impl Fn(f32) -> f32) -> Shape<Self>;
    /// The wheels' axle (Z).
    fn axle() -> Self::AngularVector;
    /// The body's up direction, world.
    fn up(body: tumble::Body<Self>) -> Self::Vector {
        let pose = body.pose();
        pose.transform_point(Self::v(0.0, 1.0)) - pose.transform_point(Self::v(0.0, 0.0))
    }
}

impl Machine for D2 {
    fn terrain(from: f32, to: f32, height: impl Fn(f32) -> f32) -> Shape<D2> {
        let n = ((to - from) / 0.5) as usize;
        let points: Vec<Vec2> = (0..=n)
            .map(|i| {
                let x = from + 0.5 * i as f32;
                Vec2::new(x, height(x))
            })
            .collect();
        Shape::chain(&points, false).unwrap()
    }
    fn axle() -> f32 {
        1.0
    }
}

impl Machine for D3 {
    fn terrain(from: f32, to: f32, height: impl Fn(f32) -> f32) -> Shape<D3> {
        // Centred on the origin: placed at the middle of [from, to] by the
        // body that holds it (`add_terrain`).
        let columns = ((to - from) / 0.5) as usize + 1;
        let rows = 9;
        let length = 0.5 * (columns - 1) as f32;
        let middle = from + 0.5 * length;
        let heights: Vec<f32> = (0..rows * columns)
            .map(|k| height(middle - 0.5 * length + 0.5 * (k % columns) as f32))
            .collect();
        Shape::heightfield(&heights, rows, columns, Vec3::new(length, 1.0, 8.0)).unwrap()
    }
    fn axle() -> Vec3 {
        Vec3::Z
    }
}

/// Adds the terrain from x = `from` to `to`.
fn add_terrain<D: Machine>(world: &mut World<D>, from: f32, to: f32) {
    // The chain is drawn in world X; the heightfield is centred on its body.
    let at = if D::NAME == "3D" {
        0.5 * (from + to)
    } else {
        0.0
    };
    world
        .add_body(
            BodyDesc::fixed().position(D::v(at, 0.0)),
            ColliderDesc::new(D::terrain(from, to, hills)).friction(0.9),
        )
        .unwrap();
}

/// Where `body`'s point `local` (body frame) is, world.
fn point<D: Machine>(world: &World<D>, body: BodyHandle, local: D::Vector) -> D::Vector {
    world.body(body).unwrap().pose().transform_point(local)
}

/// A joint between two bodies, by the point each holds (body frames), for
/// measuring how far apart it comes.
struct Held<D: Machine> {
    a: BodyHandle,
    b: BodyHandle,
    local_a: D::Vector,
    local_b: D::Vector,
}

impl<D: Machine> Held<D> {
    /// The joint at `anchor` (world) between `a` and `b` as they stand.
    fn new(world: &World<D>, a: BodyHandle, b: BodyHandle, anchor: D::Vector) -> Self {
        let local = |h| {
            world
                .body(h)
                .unwrap()
                .pose()
                .inverse_transform_point(anchor)
        };
        Held {
            a,
            b,
            local_a: local(a),
            local_b: local(b),
        }
    }
    /// How far apart its two points are now, metres.
    fn gap(&self, world: &World<D>) -> f32 {
        D::len(point(world, self.a, self.local_a) - point(world, self.b, self.local_b))
    }
}

/// What a wheel rolls on.
#[derive(Clone, Copy, Debug)]
enum Ground {
    /// The hills (`hills`): a chain in 2D, a heightfield in 3D.
    Hills,
    /// A long flat fixed box, its top at y = 0.
    Flat,
}

/// A ball wheel, radius 0.4 m, on a hinge to a 20 kg frame centred on its
/// axle, rolling at `speed` on `ground` for 10 s, continuous collision
/// `on` for both: the widest the hinge came apart, metres, and how far the
/// wheel travelled along X.
fn rolling_wheel<D: Machine>(ground: Ground, speed: f32, on: bool) -> (f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let height = match ground {
        Ground::Hills => {
            add_terrain(&mut world, -10.0, 200.0);
            hills
        }
        Ground::Flat => {
            world
                .add_body(
                    BodyDesc::fixed().position(D::v(95.0, -0.5)),
                    ColliderDesc::new(D::cuboid(105.0, 0.5)).friction(0.9),
                )
                .unwrap();
            |_| 0.0
        }
    };
    let radius = 0.4;
    let share = if on { 0.5 } else { f32::INFINITY };
    let centre = D::v(0.0, height(0.0) + radius + 0.01);
    let moving = |desc: BodyDesc<D>| {
        desc.position(centre)
            .linear_velocity(D::v(speed, 0.0))
            .fast_share(share)
    };
    let wheel = world
        .add_body(
            moving(BodyDesc::dynamic()).angular_velocity(D::spin(-speed / radius)),
            ColliderDesc::new(Shape::ball(radius).unwrap()).friction(0.9),
        )
        .unwrap();
    let frame = world
        .add_body(
            moving(BodyDesc::dynamic()).mass(20.0),
            ColliderDesc::new(D::cuboid_xyz(0.3, 0.05, 0.05)),
        )
        .unwrap();
    world
        .add_joint(JointDesc::revolute(frame, wheel, centre).axis(D::axle()))
        .unwrap();
    let held = Held::new(&world, frame, wheel, centre);
    let start = world.body(wheel).unwrap().position();
    let mut worst = 0.0f32;
    for _ in 0..600 {
        world.step(DT);
        worst = worst.max(held.gap(&world));
    }
    let travelled = D::dot(
        world.body(wheel).unwrap().position() - start,
        D::v(1.0, 0.0),
    );
    (worst, travelled)
}

fn check_rolling_wheel<D: Machine>(ground: Ground, speed: f32) {
    let (gap, travelled) = rolling_wheel::<D>(ground, speed, true);
    let (gap_off, travelled_off) = rolling_wheel::<D>(ground, speed, false);
    println!(
        "{}: wheel on a hinge at {speed} m/s on {ground:?}: joint apart {gap:.2e} m (off {gap_off:.2e}), \
         travelled {travelled:.1} m (off {travelled_off:.1})",
        D::NAME
    );
    assert!(gap <= JOINT_GAP, "the hinge came {gap} m apart");
    assert!(
        (travelled - travelled_off).abs() <= 0.05 * travelled_off,
        "travelled {travelled} m, {travelled_off} m with continuous collision off"
    );
}

#[test]
fn a_wheel_on_a_hinge_rolls_over_hills_as_without_continuous_collision_2d() {
    check_rolling_wheel::<D2>(Ground::Hills, 14.0);
}

#[test]
fn a_wheel_on_a_hinge_rolls_over_hills_as_without_continuous_collision_3d() {
    check_rolling_wheel::<D3>(Ground::Hills, 14.0);
}

#[test]
fn a_wheel_on_a_hinge_rolls_on_a_box_as_without_continuous_collision_2d() {
    check_rolling_wheel::<D2>(Ground::Flat, 14.0);
}

#[test]
fn a_wheel_on_a_hinge_rolls_on_a_box_as_without_continuous_collision_3d() {
    check_rolling_wheel::<D3>(Ground::Flat, 14.0);
}

// At 30 m/s the wheel moves more than half its thickness a step: it is
// swept, and rolling on the ground it touches must not be held back by it.

#[test]
fn a_fast_wheel_on_a_hinge_rolls_over_hills_as_without_continuous_collision_2d() {
    check_rolling_wheel::<D2>(Ground::Hills, 30.0);
}

#[test]
fn a_fast_wheel_on_a_hinge_rolls_over_hills_as_without_continuous_collision_3d() {
    check_rolling_wheel::<D3>(Ground::Hills, 30.0);
}

#[test]
fn a_fast_wheel_on_a_hinge_rolls_on_a_box_as_without_continuous_collision_2d() {
    check_rolling_wheel::<D2>(Ground::Flat, 30.0);
}

#[test]
fn a_fast_wheel_on_a_hinge_rolls_on_a_box_as_without_continuous_collision_3d() {
    check_rolling_wheel::<D3>(Ground::Flat, 30.0);
}

/// The bump's middle along X and half extents: 0.2 m tall.
const BUMP_AT: f32 = 20.0;
const BUMP_HALF: (f32, f32) = (0.4, 0.1);

/// How far a ball of `radius` at `centre` reaches into the ground (top at
/// y = 0) and the bump, metres (negative when apart).
fn depth<D: Machine>(centre: D::Vector, radius: f32) -> f32 {
    let (x, y) = (D::dot(centre, D::v(1.0, 0.0)), D::height(centre));
    let ground = y;
    let (dx, dy) = (
        ((x - BUMP_AT).abs() - BUMP_HALF.0).max(0.0),
        (y - 2.0 * BUMP_HALF.1).max(0.0),
    );
    let bump = if dx == 0.0 && dy == 0.0 {
        // Inside the bump's box: at least as deep as its top is above.
        -(2.0 * BUMP_HALF.1 - y)
    } else {
        (dx * dx + dy * dy).sqrt()
    };
    radius - ground.min(bump)
}

/// A 1200 kg box car on four ball wheels (two in 2D), 0.5 m in radius, on
/// hinges driven at 20 m/s, over a 0.2 m box bump on flat ground for 4 s,
/// continuous collision `on` for all: the widest a hinge came apart,
/// metres; the least the car's up direction kept of the world's; the
/// deepest a wheel went into the ground or bump, metres; where the car got
/// to along X. Without suspension, the bump throws the car up a metre or
/// two, and where it lands is chaotic: with 8 substeps it turns over with
/// continuous collision off too, its hinges holding.
fn car_over_bump<D: Machine>(on: bool) -> (f32, f32, f32, f32) {
    let share = if on { 0.5 } else { f32::INFINITY };
    let mut world = World::<D>::new(awake::<D>());
    add_ground(&mut world, 0.0);
    world
        .add_body(
            BodyDesc::fixed().position(D::v(BUMP_AT, BUMP_HALF.1)),
            ColliderDesc::new(D::cuboid_xyz(BUMP_HALF.0, BUMP_HALF.1, 3.0)),
        )
        .unwrap();
    let (radius, speed) = (0.5, 20.0);
    // The body's centre on the axles' line, its underside 0.33 m up.
    let axle_height = radius + 0.01;
    let body_at = D::v(0.0, axle_height);
    let car = world
        .add_body(
            BodyDesc::dynamic()
                .position(body_at)
                .linear_velocity(D::v(speed, 0.0))
                .fast_share(share)
                .mass(1200.0),
            ColliderDesc::new(D::cuboid_xyz(2.0, 0.18, 0.9)),
        )
        .unwrap();
    let sides: &[f32] = if D::NAME == "3D" {
        &[-1.0, 1.0]
    } else {
        &[0.0]
    };
    let mut wheels = Vec::new();
    let mut held = Vec::new();
    for x in [-1.4, 1.4] {
        for &z in sides {
            let at = D::xyz(x, axle_height, z);
            let wheel = world
                .add_body(
                    BodyDesc::dynamic()
                        .position(at)
                        .linear_velocity(D::v(speed, 0.0))
                        .angular_velocity(D::spin(-speed / radius))
                        .fast_share(share)
                        .mass(30.0),
                    ColliderDesc::new(Shape::ball(radius).unwrap()).friction(1.0),
                )
                .unwrap();
            world
                .add_joint(
                    JointDesc::revolute(car, wheel, at)
                        .axis(D::axle())
                        .drive(-speed / radius, 2000.0),
                )
                .unwrap();
            held.push(Held::new(&world, car, wheel, at));
            wheels.push(wheel);
        }
    }
    let (mut gap, mut upright, mut deepest) = (0.0f32, 1.0f32, f32::NEG_INFINITY);
    for _ in 0..240 {
        world.step(DT);
        for h in &held {
            gap = gap.max(h.gap(&world));
        }
        upright = upright.min(D::height(D::up(world.body(car).unwrap())));
        for &w in &wheels {
            deepest = deepest.max(depth::<D>(world.body(w).unwrap().position(), radius));
        }
    }
    let x = D::dot(world.body(car).unwrap().position(), D::v(1.0, 0.0));
    (gap, upright, deepest, x)
}

fn check_car<D: Machine>() {
    let (gap, upright, deepest, x) = car_over_bump::<D>(true);
    let (gap_off, upright_off, deepest_off, x_off) = car_over_bump::<D>(false);
    println!(
        "{}: car at 20 m/s over a 0.2 m bump: hinges apart {gap:.2e} m (off {gap_off:.2e}), \
         up kept {upright:.3} (off {upright_off:.3}), wheels {deepest:.2e} m into the ground \
         (off {deepest_off:.2e}), reached x = {x:.1} m (off {x_off:.1})",
        D::NAME
    );
    assert!(gap <= JOINT_GAP, "a hinge came {gap} m apart");
    assert!(upright > 0.0, "the car turned over (up {upright})");
    // The contacts' give under a 1200 kg body on 30 kg wheels (centimetres
    // at rest, more landing from the jump the bump gives) is the solver's,
    // with continuous collision on or off; the continuous pass adds none.
    assert!(
        deepest <= deepest_off.max(0.0) + 0.01,
        "a wheel went {deepest} m into the ground, {deepest_off} m with continuous collision off"
    );
    assert!(x > BUMP_AT + 5.0, "the car only reached x = {x} m");
}

#[test]
fn a_car_drives_over_a_bump_with_its_wheels_on_2d() {
    check_car::<D2>();
}

#[test]
fn a_car_drives_over_a_bump_with_its_wheels_on_3d() {
    check_car::<D3>();
}

/// A ragdoll's hinges' limits, radians.
const HINGE_LIMITS: (f32, f32) = (-0.3, 2.0);

/// Most a ragdoll's hinge may pass its limits landing, radians (the issue
/// saw 0.116).
const LIMIT_PASS: f32 = 0.05;

/// A ragdoll of boxes and capsules on spherical joints with limits (hinges
/// in 2D) and hinges with limits, dropped from 5 m onto the ground,
/// turning, continuous collision `on` for all: the widest any joint came
/// apart over 3 s, metres, and the most a hinge passed its limits,
/// radians.
fn ragdoll<D: Machine>(on: bool) -> (f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    add_ground(&mut world, 0.0);
    let base = 5.0;
    let share = if on { 0.5 } else { f32::INFINITY };
    let limb = |half: f32| Shape::capsule(half, 0.07).unwrap();
    // (shape, centre): torso, head, upper and lower arms and legs.
    let mut parts: Vec<(Shape<D>, D::Vector)> = vec![
        (D::cuboid_xyz(0.18, 0.3, 0.1), D::v(0.0, base)),
        (Shape::ball(0.12).unwrap(), D::v(0.0, base + 0.45)),
    ];
    for side in [-1.0, 1.0] {
        parts.push((limb(0.14), D::xyz(0.26 * side, base + 0.1, 0.0)));
        parts.push((limb(0.14), D::xyz(0.26 * side, base - 0.3, 0.0)));
        parts.push((limb(0.18), D::xyz(0.1 * side, base - 0.58, 0.0)));
        parts.push((limb(0.18), D::xyz(0.1 * side, base - 1.02, 0.0)));
    }
    let handles: Vec<BodyHandle> = parts
        .iter()
        .enumerate()
        .map(|(i, (shape, at))| {
            // The torso turns as it falls.
            let spin = if i == 0 { 3.0 } else { 0.0 };
            world
                .add_body(
                    BodyDesc::dynamic()
                        .position(*at)
                        .angular_velocity(D::spin(spin))
                        .linear_velocity(D::v(1.0, -2.0))
                        .fast_share(share),
                    ColliderDesc::new(shape.clone()),
                )
                .unwrap()
        })
        .collect();
    // (parent, child, anchor): neck, shoulders, elbows, hips, knees.
    let mut links = vec![(0, 1, D::v(0.0, base + 0.32))];
    for (k, side) in [-1.0f32, 1.0].into_iter().enumerate() {
        let first = 2 + 4 * k;
        links.push((0, first, D::xyz(0.26 * side, base + 0.28, 0.0)));
        links.push((first, first + 1, D::xyz(0.26 * side, base - 0.11, 0.0)));
        links.push((0, first + 2, D::xyz(0.1 * side, base - 0.38, 0.0)));
        links.push((first + 2, first + 3, D::xyz(0.1 * side, base - 0.8, 0.0)));
    }
    let mut held = Vec::new();
    let mut hinges = Vec::new();
    for (i, &(a, b, at)) in links.iter().enumerate() {
        let (a, b) = (handles[a], handles[b]);
        if i % 2 == 0 {
            // Neck, elbows and knees: hinges with limits.
            let joint = JointDesc::revolute(a, b, at)
                .axis(D::axle())
                .limits(HINGE_LIMITS.0, HINGE_LIMITS.1);
            hinges.push(world.add_joint(joint).unwrap());
        } else {
            // Shoulders and hips: ball joints in a cone.
            let joint = JointDesc::spherical(a, b, at)
                .cone(1.2)
                .twist_limits(-0.5, 0.5);
            world.add_joint(joint).unwrap();
        }
        held.push(Held::new(&world, a, b, at));
    }
    let (mut gap, mut past) = (0.0f32, 0.0f32);
    for _ in 0..180 {
        world.step(DT);
        for h in &held {
            gap = gap.max(h.gap(&world));
        }
        for &h in &hinges {
            let angle = world.joint_angle(h).unwrap();
            past = past.max(angle - HINGE_LIMITS.1).max(HINGE_LIMITS.0 - angle);
        }
    }
    (gap, past)
}

fn check_ragdoll<D: Machine>() {
    let (gap, past) = ragdoll::<D>(true);
    let (gap_off, past_off) = ragdoll::<D>(false);
    println!(
        "{}: ragdoll dropped from 5 m: joints apart {gap:.2e} m (off {gap_off:.2e}), \
         hinges past their limits by {past:.3} rad (off {past_off:.3})",
        D::NAME
    );
    assert!(gap <= JOINT_GAP, "a joint came {gap} m apart");
    // The landing's pass of a hinge's limits is the joint solver's (as
    // much with continuous collision off); this scene's is under it.
    assert!(
        past <= LIMIT_PASS,
        "a hinge passed its limits by {past} rad"
    );
}

#[test]
fn a_ragdoll_dropped_from_5_m_keeps_its_joints_2d() {
    check_ragdoll::<D2>();
}

#[test]
fn a_ragdoll_dropped_from_5_m_keeps_its_joints_3d() {
    check_ragdoll::<D3>();
}
