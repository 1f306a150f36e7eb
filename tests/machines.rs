//! Machines: jointed bodies moving fast with continuous collision on (the
//! default). A wheel rolling on a hinge, a car on four wheels over a bump,
//! a ragdoll landing: the continuous pass never pulls a body back from
//! what its joints hold (issue 35, item 1; `world/continuous.rs`).
//!
//! Composed machines against issue 35's bar for the joint solver: a welded
//! fan driven on a hinge and at rest on a ball joint, chains released level
//! with heavy ends, a flywheel's energy and a free pair's angular momentum,
//! a rope bridge falling asleep. Those the solver does not meet yet are
//! ignored with what they measure (run them with `--include-ignored`).

mod common;

use common::*;
use std::time::Instant;
use tumble::glam::{Vec2, Vec3};
use tumble::shape::Shape;
use tumble::{Angular, BodyDesc, BodyHandle, ColliderDesc, JointDesc, JointHandle, World, D2, D3};

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
#[ignore = "issue 35: the landing is chaotic; since trees are solved directly the 3D car lands on one wheel at 4.4 m/s, 2 m up and tilted, and that wheel goes 0.117 m into the ground with continuous collision on, where the run with it off lands otherwise (0.046 m); hinges 7.4e-4 m apart, up kept 0.305"]
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

// ------------------------------------------------------------------------
// Composed machines (issue 35's bar for the joint solver). Each measures
// with default settings (`awake`: sleeping off, except the bridge, which
// must fall asleep), 60 Hz steps and continuous collision on (every body's
// default `fast_share`).

/// Most a weld's two anchors may come apart, metres (issue 35).
const WELD_GAP: f32 = 1e-3;

/// Most a weld's two bodies may turn from their relative rotation as
/// built, radians (issue 35).
const WELD_TURN: f32 = 1e-3;

/// A body's rotation.
fn rotation<D: Machine>(world: &World<D>, body: BodyHandle) -> D::Rotation {
    D::rotation_from_orientation(world.body(body).unwrap().rotation())
}

/// `b`'s rotation relative to `a`'s.
fn relative<D: Machine>(world: &World<D>, a: BodyHandle, b: BodyHandle) -> D::Rotation {
    D::compose(D::invert(rotation(world, a)), rotation(world, b))
}

/// A weld and its bodies' relative rotation as built.
struct Weld<D: Machine> {
    joint: JointHandle,
    a: BodyHandle,
    b: BodyHandle,
    built: D::Rotation,
}

impl<D: Machine> Weld<D> {
    /// Welds `a` and `b` at `anchor` (world) as they stand.
    fn add(world: &mut World<D>, a: BodyHandle, b: BodyHandle, anchor: D::Vector) -> Self {
        let joint = world.add_joint(JointDesc::weld(a, b, anchor)).unwrap();
        let built = relative(world, a, b);
        Weld { joint, a, b, built }
    }
    /// How far apart its anchors are, metres, and how far its bodies have
    /// turned from their relative rotation as built, radians.
    fn error(&self, world: &World<D>) -> (f32, f32) {
        let [a, b] = world.joint_anchors(self.joint).unwrap();
        let turned = D::turn_angle(self.built, relative(world, self.a, self.b));
        (D::len(b - a), turned)
    }
}

/// The fan's hub's mass, kg (issue 35's probe).
const HUB_MASS: f32 = 13.5;

/// The blades' mass in issue 35's probe, kg (0.57 of the hub's).
const PROBE_BLADE_MASS: f32 = 7.7;

/// Issue 35's fan, in the XY plane (vertical) around `centre`, its axle Z:
/// a hub 0.6 x 0.6 m across and 0.3 m thick along the axle, 13.5 kg, and
/// four blades 1.6 m long, 0.3 m wide and 0.05 m thick along the axle, of
/// `blade_mass` each (their density scaled to it), welded by their inner
/// ends to the middles of the hub's sides. The probe's fan turned by a
/// quarter turn (its axle was Y); in 2D its outline in the plane.
struct Fan<D: Machine> {
    hub: BodyHandle,
    welds: Vec<Weld<D>>,
}

impl<D: Machine> Fan<D> {
    fn add(world: &mut World<D>, centre: D::Vector, blade_mass: f32) -> Self {
        let hub = world
            .add_body(
                BodyDesc::dynamic().position(centre).mass(HUB_MASS),
                ColliderDesc::new(D::cuboid_xyz(0.3, 0.3, 0.15)),
            )
            .unwrap();
        let sides = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
        let welds = sides
            .into_iter()
            .enumerate()
            .map(|(k, (x, y))| {
                let blade = world
                    .add_body(
                        BodyDesc::dynamic()
                            .position(centre + D::v(1.1 * x, 1.1 * y))
                            .rotation(D::tilt(k as f32 * std::f32::consts::FRAC_PI_2))
                            .mass(blade_mass),
                        ColliderDesc::new(D::cuboid_xyz(0.8, 0.15, 0.025)),
                    )
                    .unwrap();
                Weld::add(world, hub, blade, centre + D::v(0.3 * x, 0.3 * y))
            })
            .collect();
        Fan { hub, welds }
    }
    /// The widest any weld came apart, metres, and the most any turned,
    /// radians.
    fn worst_weld(&self, world: &World<D>) -> (f32, f32) {
        self.welds.iter().fold((0.0f32, 0.0f32), |(gap, turn), w| {
            let (g, t) = w.error(world);
            (gap.max(g), turn.max(t))
        })
    }
}

/// A spin's size, rad/s.
fn spin_size<D: Machine>(w: D::AngularVector) -> f32 {
    w.dot(w).sqrt()
}

/// The fan's drive: 30 rad/s with at most 10 kN·m (enough to bring the
/// 10:1 fan, 770 kg·m² about its axle, to speed in 2.3 s).
const FAN_SPEED: f32 = 30.0;
const FAN_TORQUE: f32 = 1e4;

/// The fan with `blade_mass` blades on a hinge at its hub's centre (axle
/// Z) to a fixed body, driven at 30 rad/s, gravity on, for 60 s: the
/// widest a weld came apart at any step, metres, and the most one turned,
/// radians, over the run and over its last 10 s, and the hub's spin at
/// the end, rad/s.
fn driven_fan<D: Machine>(blade_mass: f32) -> ([f32; 2], [f32; 2], f32) {
    let mut world = World::<D>::new(awake::<D>());
    let centre = D::v(0.0, 3.0);
    let fixed = pivot(&mut world, centre);
    let fan = Fan::add(&mut world, centre, blade_mass);
    world
        .add_joint(
            JointDesc::revolute(fixed, fan.hub, centre)
                .axis(D::axle())
                .drive(FAN_SPEED, FAN_TORQUE),
        )
        .unwrap();
    let (mut all, mut last) = ([0.0f32; 2], [0.0f32; 2]);
    for step in 0..3600 {
        world.step(DT);
        let (g, t) = fan.worst_weld(&world);
        all = [all[0].max(g), all[1].max(t)];
        if step >= 3000 {
            last = [last[0].max(g), last[1].max(t)];
        }
    }
    let spin = D::spin_z(world.body(fan.hub).unwrap().angular_velocity());
    (all, last, spin)
}

/// Issue 35's bar: the driven fan's welds within 1 mm and 1e-3 rad at
/// every step of 60 s, blades `ratio` times the hub's mass.
fn check_driven_fan<D: Machine>(ratio: f32) {
    let clock = Instant::now();
    let ([gap, turn], [late_gap, late_turn], spin) = driven_fan::<D>(ratio * HUB_MASS);
    println!(
        "{}: fan on a hinge driven at {FAN_SPEED} rad/s, blades:hub {ratio}:1, 60 s: \
         welds apart at most {gap:.2e} m, turned at most {turn:.2e} rad (last 10 s: \
         {late_gap:.2e} m, {late_turn:.2e} rad); hub spins {spin:.3} rad/s at the end \
         ({:.2} s to run)",
        D::NAME,
        clock.elapsed().as_secs_f32()
    );
    assert!(gap <= WELD_GAP, "a weld came {gap} m apart");
    assert!(turn <= WELD_TURN, "a weld turned {turn} rad");
}

#[test]
fn a_driven_fan_holds_its_welds_blades_half_the_hub_2d() {
    check_driven_fan::<D2>(0.5);
}

#[test]
fn a_driven_fan_holds_its_welds_blades_half_the_hub_3d() {
    check_driven_fan::<D3>(0.5);
}

#[test]
fn a_driven_fan_holds_its_welds_blades_as_heavy_as_the_hub_2d() {
    check_driven_fan::<D2>(1.0);
}

#[test]
fn a_driven_fan_holds_its_welds_blades_as_heavy_as_the_hub_3d() {
    check_driven_fan::<D3>(1.0);
}

#[test]
fn a_driven_fan_holds_its_welds_blades_ten_times_the_hub_2d() {
    check_driven_fan::<D2>(10.0);
}

#[test]
fn a_driven_fan_holds_its_welds_blades_ten_times_the_hub_3d() {
    check_driven_fan::<D3>(10.0);
}

/// Most the fan at rest on its ball joint may spin (its hub, about any
/// axis), rad/s. Built balanced on the joint (its centre of mass there,
/// each blade's weight matched by the opposite one's), nothing turns it:
/// the true spin is zero, and welds sagging alike under the blades'
/// weight, as the weld bar allows, keep it balanced, its centre of mass
/// straight below the joint. The bound lets a blade's tip (1.9 m out)
/// move 1.9 mm/s, a twenty-sixth of the speed under which the engine
/// counts a body at rest (`linear_sleep_tolerance`, 5 cm/s), and is a
/// thirty-fifth of its rest spin (`angular_sleep_tolerance`, 2 degrees a
/// second).
const FAN_REST_SPIN: f32 = 1e-3;

/// The fan with `blade_mass` blades on a ball joint at its hub's centre to
/// a fixed body, vertical, released from rest under gravity with no
/// motor, for 10 s: the widest a weld came apart, metres, the most one
/// turned, radians, and the hub's fastest spin (about any axis), rad/s,
/// at any step.
fn resting_fan<D: Machine>(blade_mass: f32) -> (f32, f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let centre = D::v(0.0, 3.0);
    let fixed = pivot(&mut world, centre);
    let fan = Fan::add(&mut world, centre, blade_mass);
    world
        .add_joint(JointDesc::spherical(fixed, fan.hub, centre))
        .unwrap();
    let (mut gap, mut turn, mut spin) = (0.0f32, 0.0f32, 0.0f32);
    for _ in 0..600 {
        world.step(DT);
        let (g, t) = fan.worst_weld(&world);
        gap = gap.max(g);
        turn = turn.max(t);
        spin = spin.max(spin_size::<D>(
            world.body(fan.hub).unwrap().angular_velocity(),
        ));
    }
    (gap, turn, spin)
}

/// Issue 35's bar for the fan at rest on a ball joint: still (hub spin
/// under 1e-3 rad/s), welds within 1 mm and 1e-3 rad, for the probe's
/// blades and each ratio of the driven fan.
fn check_resting_fan<D: Machine>(blade_mass: f32) {
    let (gap, turn, spin) = resting_fan::<D>(blade_mass);
    println!(
        "{}: fan on a ball joint at rest, {blade_mass} kg blades on a {HUB_MASS} kg hub, 10 s: \
         hub spin at most {spin:.2e} rad/s, welds apart at most {gap:.2e} m, turned at most \
         {turn:.2e} rad",
        D::NAME
    );
    assert!(spin <= FAN_REST_SPIN, "the hub spun at {spin} rad/s");
    assert!(gap <= WELD_GAP, "a weld came {gap} m apart");
    assert!(turn <= WELD_TURN, "a weld turned {turn} rad");
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_2d() {
    check_resting_fan::<D2>(PROBE_BLADE_MASS);
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_3d() {
    check_resting_fan::<D3>(PROBE_BLADE_MASS);
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_blades_half_the_hub_2d() {
    check_resting_fan::<D2>(0.5 * HUB_MASS);
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_blades_half_the_hub_3d() {
    check_resting_fan::<D3>(0.5 * HUB_MASS);
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_blades_as_heavy_as_the_hub_2d() {
    check_resting_fan::<D2>(HUB_MASS);
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_blades_as_heavy_as_the_hub_3d() {
    check_resting_fan::<D3>(HUB_MASS);
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_blades_ten_times_the_hub_2d() {
    check_resting_fan::<D2>(10.0 * HUB_MASS);
}

#[test]
fn a_fan_on_a_ball_joint_stays_at_rest_blades_ten_times_the_hub_3d() {
    check_resting_fan::<D3>(10.0 * HUB_MASS);
}

/// A chain of 30 links (boxes 0.5 x 0.1 x 0.1 m) hinged end to end (about
/// Z), the first to a fixed pivot, laid level along X and released from
/// rest, its last link `end_density` times a link's density, for 10 s:
/// the anchor separation summed over all joints, its largest at any step
/// and at the end, metres.
fn level_chain<D: Machine>(end_density: f32) -> (f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 10.0));
    let (_, joints) = hinged_chain(
        &mut world,
        top,
        D::v(0.0, 10.0),
        D::v(0.5, 0.0),
        30,
        &D::cuboid_xyz(0.25, 0.05, 0.05),
        end_density,
    );
    let mut worst = 0.0f32;
    for _ in 0..600 {
        world.step(DT);
        worst = worst.max(anchors_apart(&world, &joints));
    }
    (worst, anchors_apart(&world, &joints))
}

/// Issue 35's bar for the chain released level: summed anchor separation
/// at most `bar` metres over the run.
fn check_level_chain<D: Machine>(end_density: f32, bar: f32) {
    let (worst, end) = level_chain::<D>(end_density);
    println!(
        "{}: chain of 30 released level, end link {end_density}:1, 10 s: anchors apart in all \
         at most {worst:.2e} m, {end:.2e} m at the end (bar {bar:.0e})",
        D::NAME
    );
    assert!(worst <= bar, "the chain came {worst} m apart in all");
}

#[test]
fn a_chain_released_level_holds_together_2d() {
    check_level_chain::<D2>(1.0, 1e-3);
}

#[test]
fn a_chain_released_level_holds_together_3d() {
    check_level_chain::<D3>(1.0, 1e-3);
}

#[test]
fn a_chain_released_level_holds_an_end_a_hundred_times_a_link_2d() {
    check_level_chain::<D2>(100.0, 1e-2);
}

#[test]
fn a_chain_released_level_holds_an_end_a_hundred_times_a_link_3d() {
    check_level_chain::<D3>(100.0, 1e-2);
}

#[test]
#[ignore = "issue 35: the chain comes apart, its 30 joints 112 m apart in all at 10 s (bar 5e-2)"]
fn a_chain_released_level_holds_an_end_a_thousand_times_a_link_2d() {
    check_level_chain::<D2>(1000.0, 5e-2);
}

#[test]
#[ignore = "issue 35: the chain comes apart, its 30 joints 115 m apart in all at 10 s (bar 5e-2)"]
fn a_chain_released_level_holds_an_end_a_thousand_times_a_link_3d() {
    check_level_chain::<D3>(1000.0, 5e-2);
}

/// Most a machine's energy or angular momentum may change, as a share of
/// its start (issue 35).
const KEPT: f32 = 0.01;

/// A flywheel: a ball 0.5 m in radius (a disc in 2D) on a hinge (axle Z)
/// to a fixed pivot at y = 0.05, its centre `offset` metres to the side,
/// spun at 20 rad/s about the hinge, gravity on, no damping or friction,
/// for 60 s: its energy at the start (kinetic plus potential from y = 0,
/// its centre's lowest height 5 cm off centre, so that the bar is on the
/// energy it can give), J, and the largest change at any step, J. Off
/// centre, gravity pulls it round: its spin varies by 2.5% a turn.
fn flywheel<D: Machine>(offset: f32) -> (f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let at = D::v(0.0, 0.05);
    let fixed = pivot(&mut world, at);
    let (centre, spin) = (D::v(offset, 0.05), D::spin(20.0));
    let wheel = world
        .add_body(
            BodyDesc::dynamic()
                .position(centre)
                .angular_velocity(spin)
                .linear_velocity(D::angular_cross(spin, centre - at)),
            ColliderDesc::new(Shape::ball(0.5).unwrap()),
        )
        .unwrap();
    world
        .add_joint(JointDesc::revolute(fixed, wheel, at).axis(D::axle()))
        .unwrap();
    let start = energy(&world, &[wheel]);
    let mut change = 0.0f32;
    for _ in 0..3600 {
        world.step(DT);
        change = change.max((energy(&world, &[wheel]) - start).abs());
    }
    (start, change)
}

/// Issue 35's bar: the flywheel 5 cm off centre keeps its energy within
/// 1% over 60 s. Printed beside it, the same flywheel hinged at its
/// centre.
fn check_flywheel<D: Machine>() {
    let (start, change) = flywheel::<D>(0.05);
    let (centred, centred_change) = flywheel::<D>(0.0);
    println!(
        "{}: flywheel at 20 rad/s on a hinge 5 cm off its centre, gravity on, 60 s: energy \
         {start:.3} J, changed by at most {change:.3e} J ({:.2}%; hinged at its centre \
         {:.2}%)",
        D::NAME,
        100.0 * change / start,
        100.0 * centred_change / centred
    );
    assert!(
        change <= KEPT * start,
        "its energy changed by {change} J of {start}"
    );
}

#[test]
#[ignore = "issue 35: loses 65% of its energy in 60 s (its spin 20 to 11 rad/s; bar 1%); hinged at its centre it keeps it all"]
fn a_flywheel_on_an_off_centre_hinge_keeps_its_energy_2d() {
    check_flywheel::<D2>();
}

#[test]
#[ignore = "issue 35: loses 69% of its energy in 60 s (its spin 20 to 11 rad/s; bar 1%); hinged at its centre it keeps it all"]
fn a_flywheel_on_an_off_centre_hinge_keeps_its_energy_3d() {
    check_flywheel::<D3>();
}

/// A body's inertia about its centre of mass, world axes, kg·m²: its
/// shape's, scaled to its mass and turned by its rotation.
fn world_inertia<D: Machine>(body: tumble::Body<D>) -> D::Inertia {
    let m = body.shape().mass_properties(1.0);
    let local = D::scale_inertia(m.inertia, body.mass() / m.mass);
    D::rotate_inertia(D::rotation_from_orientation(body.rotation()), local)
}

/// The bodies' angular momentum about their common centre of mass,
/// kg·m²/s.
fn angular_momentum<D: Machine>(world: &World<D>, bodies: &[BodyHandle]) -> D::AngularVector {
    let (mut mass, mut moment, mut momentum) = (0.0, D::v(0.0, 0.0), D::v(0.0, 0.0));
    for &h in bodies {
        let b = world.body(h).unwrap();
        mass += b.mass();
        moment += b.center_of_mass() * b.mass();
        momentum += b.linear_velocity() * b.mass();
    }
    let (centre, velocity) = (moment * (1.0 / mass), momentum * (1.0 / mass));
    let mut total = D::AngularVector::default();
    for &h in bodies {
        let b = world.body(h).unwrap();
        let (r, v) = (b.center_of_mass() - centre, b.linear_velocity() - velocity);
        total += D::cross(r, v * b.mass());
        total += D::mul_inertia(world_inertia(b), b.angular_velocity());
    }
    total
}

/// Two boxes (1 x 0.2 x 0.4 m and 0.6 x 0.5 x 0.3 m) end to end, on a
/// ball joint (a hinge in 2D) between their ends when `joined` (else
/// free, passing through each other), in zero gravity, spun at `spins`
/// (each about its centre, the joint's point at rest), for 10 s: their
/// angular momentum about their centre of mass at the start, kg·m²/s,
/// and the largest change at any step.
fn tumbling_pair<D: Machine>(spins: [D::AngularVector; 2], joined: bool) -> (f32, f32) {
    let settings = tumble::Settings {
        gravity: D::v(0.0, 0.0),
        ..awake::<D>()
    };
    let mut world = World::<D>::new(settings);
    let at = D::v(0.0, 5.0);
    let parts = [
        (D::v(-0.5, 5.0), D::cuboid_xyz(0.5, 0.1, 0.2)),
        (D::v(0.3, 5.0), D::cuboid_xyz(0.3, 0.25, 0.15)),
    ];
    let bodies: Vec<BodyHandle> = parts
        .into_iter()
        .zip(spins)
        .map(|((centre, shape), spin)| {
            world
                .add_body(
                    BodyDesc::dynamic()
                        .position(centre)
                        .angular_velocity(spin)
                        .linear_velocity(D::angular_cross(spin, centre - at) * -1.0),
                    ColliderDesc::new(shape).filter(tumble::CollisionFilter {
                        category: 1,
                        mask: 0,
                    }),
                )
                .unwrap()
        })
        .collect();
    if joined {
        world
            .add_joint(JointDesc::spherical(bodies[0], bodies[1], at))
            .unwrap();
    }
    let start = angular_momentum(&world, &bodies);
    let mut change = 0.0f32;
    for _ in 0..600 {
        world.step(DT);
        change = change.max(spin_size::<D>(angular_momentum(&world, &bodies) - start));
    }
    (spin_size::<D>(start), change)
}

/// Issue 35's bar: the pair on its joint keeps its angular momentum
/// within 1% over 10 s. Printed beside it, the same two boxes unjoined:
/// what the integrator alone keeps of it.
fn check_tumbling_pair<D: Machine>(spins: [D::AngularVector; 2], how: &str) {
    let (start, change) = tumbling_pair::<D>(spins, true);
    let (_, apart) = tumbling_pair::<D>(spins, false);
    println!(
        "{}: two boxes on a ball joint tumbling {how} in zero gravity, 10 s: angular momentum \
         {start:.4} kg m^2/s, changed by at most {change:.3e} ({:.2}%; unjoined {:.2}%)",
        D::NAME,
        100.0 * change / start,
        100.0 * apart / start
    );
    assert!(
        change <= KEPT * start,
        "its angular momentum changed by {change} of {start}"
    );
}

/// Spins about Z only (the pair turns in the XY plane).
fn planar_spins<D: Machine>() -> [D::AngularVector; 2] {
    [D::spin(3.0), D::spin(-4.0)]
}

#[test]
#[ignore = "issue 35: its angular momentum changes by 13.1% in 10 s (bar 1%); unjoined, 0.00%"]
fn a_free_jointed_pair_keeps_its_angular_momentum_2d() {
    check_tumbling_pair::<D2>(planar_spins::<D2>(), "in its plane");
}

#[test]
#[ignore = "issue 35: its angular momentum changes by 23.3% in 10 s (bar 1%); unjoined, 0.00%"]
fn a_free_jointed_pair_keeps_its_angular_momentum_3d() {
    check_tumbling_pair::<D3>(planar_spins::<D3>(), "in its plane");
}

#[test]
#[ignore = "issue 35: its angular momentum changes by 94.6% in 10 s (bar 1%); unjoined, 43.6%, as the integrator keeps each body's spin, not its angular momentum (no gyroscopic term)"]
fn a_free_jointed_pair_tumbling_about_every_axis_keeps_its_angular_momentum_3d() {
    let spins = [Vec3::new(1.0, 2.0, 3.0), Vec3::new(-2.0, 1.0, -4.0)];
    check_tumbling_pair::<D3>(spins, "about every axis");
}

/// A rope bridge as Box2D's sample lays it, sleeping on
/// (`Settings::default`): 12 planks (0.9 x 0.12 x 1.6 m, density 20)
/// hinged end to end (about Z) at their top edges, laid level between two
/// fixed boxes 4 m tall standing on the ground 10.8 m apart, the end ones
/// hinged exactly at the boxes' top inner edges, released from rest: when
/// every plank was first asleep, seconds (none within 10 s), the widest a
/// hinge came apart, metres, how far the deck sagged at the end (its
/// lowest hinge below the boxes' tops), metres, and its fastest plank's
/// speed at the end, m/s.
fn rope_bridge<D: Machine>() -> (Option<f32>, f32, f32, f32) {
    let mut world = World::<D>::new(tumble::Settings::default());
    add_ground(&mut world, 0.0);
    let (links, link, height) = (12, 0.9f32, 4.0);
    let edge = 0.5 * links as f32 * link;
    let post = (0.3, 0.5 * height, 1.0);
    let posts = [-1.0, 1.0].map(|side| {
        world
            .add_body(
                BodyDesc::fixed().position(D::v(side * (edge + post.0), post.1)),
                ColliderDesc::new(D::cuboid_xyz(post.0, post.1, post.2)),
            )
            .unwrap()
    });
    let plank = D::cuboid_xyz(0.5 * link, 0.06, 0.8);
    let hinge = |k: usize| D::v(-edge + k as f32 * link, height);
    let mut joints = Vec::new();
    let mut planks = Vec::new();
    let mut previous = posts[0];
    for k in 0..links {
        let body = world
            .add_body(
                BodyDesc::dynamic().position(hinge(k) + D::v(0.5 * link, -0.06)),
                ColliderDesc::new(plank.clone()).density(20.0),
            )
            .unwrap();
        joints.push(
            world
                .add_joint(JointDesc::revolute(previous, body, hinge(k)).axis(D::axle()))
                .unwrap(),
        );
        planks.push(body);
        previous = body;
    }
    joints.push(
        world
            .add_joint(JointDesc::revolute(previous, posts[1], hinge(links)).axis(D::axle()))
            .unwrap(),
    );
    let (mut asleep, mut gap) = (None, 0.0f32);
    for step in 1..=600 {
        world.step(DT);
        for &j in &joints {
            gap = gap.max(anchors_apart(&world, &[j]));
        }
        let all = planks.iter().all(|&p| world.body(p).unwrap().is_sleeping());
        if all && asleep.is_none() {
            asleep = Some(step as f32 * DT);
        }
    }
    let lowest = joints
        .iter()
        .map(|&j| D::height(world.joint_anchors(j).unwrap()[0]))
        .fold(height, f32::min);
    let fastest = planks
        .iter()
        .map(|&p| D::len(world.body(p).unwrap().linear_velocity()))
        .fold(0.0f32, f32::max);
    (asleep, gap, height - lowest, fastest)
}

fn check_rope_bridge<D: Machine>() {
    let (asleep, gap, sag, fastest) = rope_bridge::<D>();
    println!(
        "{}: rope bridge of 12 planks hinged at two boxes' edges: all asleep at {asleep:?} s; \
         hinges apart at most {gap:.2e} m; at 10 s the deck sags {sag:.3} m, its fastest \
         plank at {fastest:.3} m/s",
        D::NAME
    );
    assert!(asleep.is_some(), "the bridge was still awake after 10 s");
}

#[test]
#[ignore = "issue 35: still awake at 10 s (a plank at 0.59 m/s, the deck bouncing 0.2-0.4 m down, hinges 1.0e-2 m apart); all asleep at 46.8 s"]
fn a_rope_bridge_falls_asleep_2d() {
    check_rope_bridge::<D2>();
}

#[test]
#[ignore = "issue 35: still awake at 10 s (a plank at 0.59 m/s, the deck bouncing 0.2-0.4 m down, hinges 1.0e-2 m apart); all asleep at 46.8 s"]
fn a_rope_bridge_falls_asleep_3d() {
    check_rope_bridge::<D3>();
}
