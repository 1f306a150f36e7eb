//! Probes from outside: joints of every kind (limits, drives, springs,
//! chains, fixed and kinematic partners, removals, mass ratios), saving and
//! loading and rollback with joints, and the API's bad-input boundary.
//! Probes that found a bug are `#[ignore = "bug: ..."]`.

mod common;

use common::awake;
use tumble::glam::{Vec2, Vec3};
use tumble::{
    BodyDesc, BodyHandle, ColliderDesc, JointDesc, JointHandle, Settings, Vector, World,
    WorldError, D2, D3,
};

type Shape2 = tumble::shape::Shape<D2>;
type Shape3 = tumble::shape::Shape<D3>;

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

fn no_gravity<D: tumble::Dim>() -> Settings<D> {
    let mut s = awake::<D>();
    s.gravity = Default::default();
    s
}

fn fixed2(world: &mut World<D2>, at: Vec2) -> BodyHandle {
    world
        .add_body(
            BodyDesc::fixed().position(at),
            ColliderDesc::new(Shape2::cuboid(Vec2::splat(0.04)).unwrap()),
        )
        .unwrap()
}

fn ball2(world: &mut World<D2>, at: Vec2, radius: f32, density: f32) -> BodyHandle {
    world
        .add_body(
            BodyDesc::dynamic().position(at),
            ColliderDesc::new(Shape2::ball(radius).unwrap()).density(density),
        )
        .unwrap()
}

fn box2(world: &mut World<D2>, at: Vec2, half: Vec2, density: f32) -> BodyHandle {
    world
        .add_body(
            BodyDesc::dynamic().position(at),
            ColliderDesc::new(Shape2::cuboid(half).unwrap()).density(density),
        )
        .unwrap()
}

fn gap<D: tumble::Dim>(world: &World<D>, joint: JointHandle) -> f32 {
    let [a, b] = world.joint_anchors(joint).unwrap();
    (b - a).length()
}

// ---------------------------------------------------------------- joints

/// A rope (`range(0, max)`) is slack at any length up to its longest:
/// tying both ends at one point is a rope made slack, not a zero-length rod.
#[test]
fn a_rope_tied_with_both_ends_at_one_point_is_accepted_and_hangs_at_its_length() {
    let mut world = World::<D2>::new(awake());
    let top = fixed2(&mut world, Vec2::new(0.0, 6.0));
    let bob = ball2(&mut world, Vec2::new(0.0, 6.0), 0.1, 1.0);
    let rope = world.add_joint(
        JointDesc::distance(top, bob, Vec2::new(0.0, 6.0), Vec2::new(0.0, 6.0)).range(0.0, 1.7),
    );
    let rope = rope.expect("a slack rope whose ends start together is valid input");
    for _ in 0..180 {
        world.step(DT);
    }
    let hang = gap(&world, rope);
    assert!((hang - 1.7).abs() < 0.01, "rope hangs {hang} m, not 1.7 m");
}

/// The pendulum's anchor sits 2.3 m from the bob's centre (far from the
/// body): a hinge, not a rod, and the period is still 2 pi sqrt(L/g).
#[test]
fn a_hinge_pendulum_with_its_pivot_far_from_the_bob_keeps_its_period() {
    let mut world = World::<D2>::new(awake());
    let length = 2.3;
    let top = fixed2(&mut world, Vec2::new(0.0, 8.0));
    let angle = 6f32.to_radians();
    let start = Vec2::new(length * angle.sin(), 8.0 - length * angle.cos());
    let bob = ball2(&mut world, start, 0.04, 50.0);
    world
        .add_joint(JointDesc::revolute(top, bob, Vec2::new(0.0, 8.0)))
        .unwrap();
    let (mut crossings, mut last_x) = (Vec::new(), start.x);
    for step in 1..=1200 {
        world.step(DT);
        let x = world.body(bob).unwrap().position().x;
        if last_x < 0.0 && x >= 0.0 {
            // Interpolated time of the upward crossing.
            let t = (step as f32 - 1.0 + last_x / (last_x - x)) * DT;
            crossings.push(t);
        }
        last_x = x;
    }
    assert!(crossings.len() >= 5, "only {} crossings", crossings.len());
    let n = crossings.len() - 1;
    let period = (crossings[n] - crossings[0]) / n as f32;
    // Large-swing term 1 + theta^2 / 16; a 4 cm ball's own inertia adds
    // (2/5 r^2)/(2 L^2), negligible.
    let expected = 2.0 * core::f32::consts::PI * (length / G).sqrt() * (1.0 + angle * angle / 16.0);
    assert!(
        ((period - expected) / expected).abs() < 0.01,
        "period {period} s against {expected} s"
    );
}

/// A drive's effort is a force (N), not an impulse: a slider driven up at
/// 1 m/s with half the body's weight falls at g / 2.
#[test]
fn a_slider_drive_weaker_than_the_weight_lets_the_body_fall_at_the_difference() {
    let mut world = World::<D2>::new(awake());
    let top = fixed2(&mut world, Vec2::new(0.0, 50.0));
    let body = box2(&mut world, Vec2::new(0.0, 49.0), Vec2::new(0.3, 0.2), 3.0);
    let m = world.body(body).unwrap().mass();
    world
        .add_joint(
            JointDesc::prismatic(top, body, Vec2::new(0.0, 49.0), Vec2::Y).drive(1.0, 0.5 * m * G),
        )
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    let v = world.body(body).unwrap().linear_velocity().y;
    let expected = -0.5 * G * 1.0;
    assert!(
        ((v - expected) / expected).abs() < 0.02,
        "after 1 s the slider moves at {v} m/s, expected {expected}"
    );
}

/// A hinge drive limited to 40 N·m spins a disc of known inertia up at
/// torque / inertia, the target far above.
#[test]
fn a_torque_limited_hinge_drive_accelerates_at_torque_over_inertia() {
    let mut world = World::<D2>::new(awake());
    let hub = fixed2(&mut world, Vec2::new(0.0, 3.0));
    let disc = ball2(&mut world, Vec2::new(0.0, 3.0), 0.8, 4.0);
    let m = world.body(disc).unwrap().mass();
    let inertia = 0.5 * m * 0.8 * 0.8;
    world
        .add_joint(JointDesc::revolute(hub, disc, Vec2::new(0.0, 3.0)).drive(200.0, 40.0))
        .unwrap();
    for _ in 0..45 {
        world.step(DT);
    }
    let w = world.body(disc).unwrap().angular_velocity();
    let expected = 40.0 / inertia * 0.75;
    assert!(
        ((w - expected) / expected).abs() < 0.02,
        "after 0.75 s the disc spins at {w} rad/s, expected {expected}"
    );
}

/// Linear and angular momentum of a free chain: the joints' internal
/// forces (and their position passes) move no centre of mass and add no
/// spin. Links alternate 1 and 30 kg/m^2 (a mass ratio over 10: the
/// ordered path).
fn free_chain_2d(densities: [f32; 2]) -> (Vec2, Vec2, f32, f32, Vec2, Vec2) {
    let mut world = World::<D2>::new(no_gravity());
    let mut links = Vec::new();
    for i in 0..7 {
        let x = i as f32 * 0.6;
        links.push(box2(
            &mut world,
            Vec2::new(x, 1.0),
            Vec2::new(0.25, 0.07),
            densities[i % 2],
        ));
        if i > 0 {
            world
                .add_joint(JointDesc::revolute(
                    links[i - 1],
                    links[i],
                    Vec2::new(x - 0.3, 1.0),
                ))
                .unwrap();
        }
    }
    world
        .body_mut(links[6])
        .unwrap()
        .apply_impulse(Vec2::new(0.3, 4.0), Vec2::new(3.85, 1.05))
        .unwrap();
    world
        .body_mut(links[0])
        .unwrap()
        .apply_impulse(Vec2::new(-1.0, 0.5), Vec2::new(-0.2, 0.95))
        .unwrap();
    let totals = |world: &World<D2>| {
        let (mut p, mut mc, mut mass) = (Vec2::ZERO, Vec2::ZERO, 0.0);
        for &h in &links {
            let b = world.body(h).unwrap();
            p += b.mass() * b.linear_velocity();
            mc += b.mass() * b.center_of_mass();
            mass += b.mass();
        }
        let c = mc / mass;
        let mut l = 0.0;
        for &h in &links {
            let b = world.body(h).unwrap();
            let r = b.center_of_mass() - c;
            let v = b.linear_velocity();
            let (hx, hy) = (0.25f32, 0.07f32);
            let i = b.mass() * (4.0 * (hx * hx + hy * hy)) / 12.0;
            l += b.mass() * r.perp_dot(v) + i * b.angular_velocity();
        }
        (p, c, l, mass)
    };
    let (p0, c0, l0, mass) = totals(&world);
    let steps = 240;
    for _ in 0..steps {
        world.step(DT);
    }
    let (p1, c1, l1, _) = totals(&world);
    let predicted = c0 + p0 / mass * (steps as f32 * DT);
    (p0, p1, l0, l1, c1, predicted)
}

fn check_free_chain(densities: [f32; 2]) {
    let (p0, p1, l0, l1, c1, predicted) = free_chain_2d(densities);
    assert!(
        (p1 - p0).length() < 1e-3 * p0.length(),
        "momentum {p0} became {p1} ({densities:?})"
    );
    assert!(
        (c1 - predicted).length() < 1e-3,
        "centre of mass at {c1}, drifting along {predicted} ({densities:?})"
    );
    // Angular momentum is lost here (about 23% in 4 s): see
    // `a_welded_pair_spinning_in_the_air_keeps_its_spin`.
    let _ = (l0, l1);
}

/// Two boxes welded end to end, spinning at 5 rad/s about their common
/// centre with no gravity: one rigid body, whose spin a single box keeps
/// exactly. The weld pair should keep it within 1% over 1 s.
fn welded_pair_spin(w: f32) -> f32 {
    let mut world = World::<D2>::new(no_gravity());
    let a = box2(&mut world, Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.1), 1.0);
    let b = box2(&mut world, Vec2::new(0.5, 0.0), Vec2::new(0.5, 0.1), 1.0);
    world.add_joint(JointDesc::weld(a, b, Vec2::ZERO)).unwrap();
    for (h, x) in [(a, -0.5f32), (b, 0.5)] {
        let mut body = world.body_mut(h).unwrap();
        body.set_angular_velocity(w).unwrap();
        body.set_linear_velocity(Vec2::new(0.0, w * x)).unwrap();
    }
    for _ in 0..60 {
        world.step(DT);
    }
    world.body(a).unwrap().angular_velocity()
}

#[test]
#[ignore = "bug: a welded pair spinning freely at 5 rad/s loses 3.6% of its spin a second \
            (10 rad/s: 12%), as the position passes pull the centrifugal stretch in with \
            velocities untouched"]
fn a_welded_pair_spinning_in_the_air_keeps_its_spin() {
    for w in [5.0f32, 10.0] {
        let after = welded_pair_spin(w);
        assert!(
            ((after - w) / w).abs() < 0.01,
            "spun at {w} rad/s, after 1 s {after}"
        );
    }
}

/// A lone box spun the same way keeps its spin to the bit: the bar the
/// welded pair is held to above is one a rigid body meets.
#[test]
fn a_lone_box_spinning_in_the_air_keeps_its_spin() {
    let mut world = World::<D2>::new(no_gravity());
    let a = box2(&mut world, Vec2::ZERO, Vec2::new(1.0, 0.1), 1.0);
    world
        .body_mut(a)
        .unwrap()
        .set_angular_velocity(10.0)
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    let after = world.body(a).unwrap().angular_velocity();
    assert!((after - 10.0).abs() < 1e-4, "{after}");
}

#[test]
fn a_free_chain_keeps_its_momentum_equal_masses() {
    check_free_chain([2.0, 2.0]);
}

#[test]
fn a_free_chain_keeps_its_momentum_mass_ratio_fifteen() {
    check_free_chain([2.0, 30.0]);
}

/// A pendulum hung from a kinematic cart moving at 2 m/s: the hinge holds
/// at the cart's speed (a kinematic body has no mass to give).
#[test]
fn a_hinge_on_a_moving_kinematic_cart_holds() {
    let mut world = World::<D2>::new(awake());
    let cart = world
        .add_body(
            BodyDesc::kinematic()
                .position(Vec2::new(0.0, 4.0))
                .linear_velocity(Vec2::new(2.0, 0.0)),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(0.5, 0.1)).unwrap()),
        )
        .unwrap();
    let bob = ball2(&mut world, Vec2::new(0.0, 2.8), 0.15, 20.0);
    let hinge = world
        .add_joint(JointDesc::revolute(cart, bob, Vec2::new(0.0, 4.0)))
        .unwrap();
    let mut worst: f32 = 0.0;
    for _ in 0..240 {
        world.step(DT);
        worst = worst.max(gap(&world, hinge));
    }
    assert!(worst < 5e-3, "hinge on a cart apart by {worst} m");
    let x = world.body(cart).unwrap().position().x;
    assert!((x - 8.0).abs() < 1e-3, "cart at {x}");
    // The bob swings about the cart: its mean speed is the cart's.
    let bx = world.body(bob).unwrap().position().x;
    assert!((bx - x).abs() < 1.2, "bob {bx} left the cart {x}");
}

/// A joint between a fixed and a kinematic body (nothing for the solver to
/// move) is accepted and leaves both where they go.
#[test]
fn a_joint_between_fixed_and_kinematic_bodies_changes_nothing() {
    let mut world = World::<D3>::new(awake());
    let post = world
        .add_body(
            BodyDesc::fixed(),
            ColliderDesc::new(Shape3::cuboid(Vec3::splat(0.2)).unwrap()),
        )
        .unwrap();
    let lift = world
        .add_body(
            BodyDesc::kinematic()
                .position(Vec3::new(2.0, 0.0, 0.0))
                .linear_velocity(Vec3::new(0.0, 1.5, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::splat(0.2)).unwrap()),
        )
        .unwrap();
    world
        .add_joint(JointDesc::weld(post, lift, Vec3::new(1.0, 0.0, 0.0)))
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    assert_eq!(world.body(post).unwrap().position(), Vec3::ZERO);
    let y = world.body(lift).unwrap().position().y;
    assert!((y - 1.5).abs() < 1e-4, "kinematic lift at {y}");
}

/// A wrecking ball 1000 times its links' mass on a chain of 6 links:
/// anchors apart by less than 2 cm after 4 s of swinging.
fn wrecking_chain(ball_density: f32) -> f32 {
    let mut world = World::<D2>::new(awake());
    let top = fixed2(&mut world, Vec2::new(0.0, 10.0));
    let mut prev = top;
    let mut joints = Vec::new();
    for i in 0..6 {
        let x = 0.25 + 0.5 * i as f32;
        let link = box2(&mut world, Vec2::new(x, 10.0), Vec2::new(0.25, 0.04), 1.0);
        joints.push(
            world
                .add_joint(JointDesc::revolute(prev, link, Vec2::new(x - 0.25, 10.0)))
                .unwrap(),
        );
        prev = link;
    }
    let ball = ball2(&mut world, Vec2::new(3.3, 10.0), 0.3, ball_density);
    joints.push(
        world
            .add_joint(JointDesc::revolute(prev, ball, Vec2::new(3.0, 10.0)))
            .unwrap(),
    );
    let mut worst: f32 = 0.0;
    for _ in 0..240 {
        world.step(DT);
        for &j in &joints {
            worst = worst.max(gap(&world, j));
        }
    }
    worst
}

#[test]
#[ignore = "bug: at a 1000:1 mass ratio the chain stretches 4.1 m apart within 4 s \
            (7 m before trees were solved directly): the position passes' Newton steps \
            over a chain pulled straight by its heavy end bend the light links further \
            than the error"]
fn a_wrecking_ball_a_thousand_times_its_links_stays_on_its_chain() {
    // Links 0.5 x 0.08 m at 1 kg/m^2: 0.04 kg; the ball 0.28 m^2 at
    // 140 kg/m^2: 40 kg.
    let worst = wrecking_chain(140.0);
    assert!(worst < 0.02, "chain links {worst} m apart");
}

/// Removing the middle of a mixed-mass chain (the ordered path, laid out
/// and cached from step to step): the chain's two halves go on, each
/// holding, and nothing panics.
#[test]
fn removing_the_middle_of_a_heavy_ended_chain_leaves_two_chains_that_hold() {
    let mut world = World::<D2>::new(awake());
    let top = fixed2(&mut world, Vec2::new(0.0, 10.0));
    let mut prev = top;
    let mut links = Vec::new();
    for i in 0..9 {
        let y = 10.0 - 0.4 * (i as f32 + 0.5);
        let density = if i == 8 { 400.0 } else { 2.0 };
        let link = box2(&mut world, Vec2::new(0.0, y), Vec2::new(0.05, 0.2), density);
        world
            .add_joint(JointDesc::revolute(prev, link, Vec2::new(0.0, y + 0.2)))
            .unwrap();
        links.push(link);
        prev = link;
    }
    world
        .body_mut(links[8])
        .unwrap()
        .apply_impulse_at_center(Vec2::new(30.0, 0.0))
        .unwrap();
    for _ in 0..30 {
        world.step(DT);
    }
    world.remove_body(links[4]).unwrap();
    let removed = world
        .joint_events()
        .iter()
        .filter(|e| matches!(e, tumble::JointEvent::Removed { .. }))
        .count();
    assert_eq!(removed, 2);
    assert_eq!(world.joints().count(), 7);
    for _ in 0..120 {
        world.step(DT);
    }
    let handles: Vec<JointHandle> = world.joints().map(|(h, _)| h).collect();
    for h in handles {
        let g = gap(&world, h);
        assert!(g < 0.01, "a joint left apart by {g} m");
    }
    // The lower half fell free: it is below where it was.
    let y = world.body(links[8]).unwrap().position().y;
    assert!(y < 6.6 - 1.0, "the cut-off heavy end is at {y}");
}

/// Joint descriptions with out-of-range parameters: each refused.
#[test]
fn every_bad_joint_parameter_is_refused_2d() {
    let mut world = World::<D2>::new(awake());
    let a = fixed2(&mut world, Vec2::ZERO);
    let b = ball2(&mut world, Vec2::new(1.0, 0.0), 0.2, 1.0);
    let at = Vec2::new(0.5, 0.0);
    let cases: Vec<(&str, JointDesc<D2>)> = vec![
        ("cone -0.1", JointDesc::spherical(a, b, at).cone(-0.1)),
        ("cone NaN", JointDesc::spherical(a, b, at).cone(f32::NAN)),
        ("cone 4", JointDesc::spherical(a, b, at).cone(4.0)),
        (
            "twist 0.4 > -0.4",
            JointDesc::spherical(a, b, at).twist_limits(0.4, -0.4),
        ),
        (
            "twist NaN",
            JointDesc::spherical(a, b, at).twist_limits(f32::NAN, 0.1),
        ),
        (
            "prismatic zero axis",
            JointDesc::prismatic(a, b, at, Vec2::ZERO),
        ),
        (
            "prismatic NaN axis",
            JointDesc::prismatic(a, b, at, Vec2::new(f32::NAN, 1.0)),
        ),
        (
            "wheel infinite axis",
            JointDesc::wheel(a, b, at, Vec2::new(f32::INFINITY, 0.0)),
        ),
        ("hinge axis 0", JointDesc::revolute(a, b, at).axis(0.0)),
        (
            "hinge axis NaN",
            JointDesc::revolute(a, b, at).axis(f32::NAN),
        ),
        ("motor force -1", JointDesc::motor(a, b).max_force(-1.0)),
        (
            "motor torque NaN",
            JointDesc::motor(a, b).max_torque(f32::NAN),
        ),
        (
            "spring damping -0.2",
            JointDesc::revolute(a, b, at).spring(2.0, -0.2),
        ),
        (
            "spring hertz inf",
            JointDesc::prismatic(a, b, at, Vec2::X).spring(f32::INFINITY, 0.5),
        ),
        (
            "spring hertz -3",
            JointDesc::wheel(a, b, at, Vec2::Y).spring(-3.0, 0.5),
        ),
        (
            "spring target NaN",
            JointDesc::revolute(a, b, at)
                .spring(1.0, 0.1)
                .spring_target(f32::NAN),
        ),
        (
            "break torque -1",
            JointDesc::revolute(a, b, at).break_torque(-1.0),
        ),
        (
            "break force NaN",
            JointDesc::revolute(a, b, at).break_force(f32::NAN),
        ),
        (
            "length -1",
            JointDesc::distance(a, b, at, Vec2::new(1.0, 0.0)).length(-1.0),
        ),
        (
            "length NaN",
            JointDesc::distance(a, b, at, Vec2::new(1.0, 0.0)).length(f32::NAN),
        ),
        (
            "range -1..2",
            JointDesc::distance(a, b, at, Vec2::new(1.0, 0.0)).range(-1.0, 2.0),
        ),
        (
            "range 0..0",
            JointDesc::distance(a, b, at, Vec2::new(1.0, 0.0)).range(0.0, 0.0),
        ),
        (
            "range 1..inf",
            JointDesc::distance(a, b, at, Vec2::new(1.0, 0.0)).range(1.0, f32::INFINITY),
        ),
        (
            "soft weld NaN",
            JointDesc::weld(a, b, at).soft(f32::NAN, 1.0, 0.5),
        ),
        (
            "soft weld damping -1",
            JointDesc::weld(a, b, at).soft(3.0, 0.0, -1.0),
        ),
        (
            "drive speed NaN",
            JointDesc::wheel(a, b, at, Vec2::Y).drive(f32::NAN, 1.0),
        ),
        (
            "drive effort NaN",
            JointDesc::prismatic(a, b, at, Vec2::Y).drive(1.0, f32::NAN),
        ),
        (
            "slider limits 1 > -1",
            JointDesc::prismatic(a, b, at, Vec2::Y).limits(1.0, -1.0),
        ),
        (
            "hinge limits -inf",
            JointDesc::revolute(a, b, at).limits(f32::NEG_INFINITY, 0.0),
        ),
        (
            "anchor inf",
            JointDesc::distance(a, b, at, Vec2::new(f32::INFINITY, 0.0)),
        ),
    ];
    let mut accepted = Vec::new();
    for (name, desc) in cases {
        if world.add_joint(desc).is_ok() {
            accepted.push(name);
        }
    }
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
    assert_eq!(world.joints().count(), 0);
}

/// An arm pinned at one end and spun towards its lower limit at 3 rad/s
/// (no gravity): the lowest angle it reaches and where it rests after 2 s,
/// its turn followed across the wrap at pi.
fn spun_arm(lower: f32, upper: f32) -> (f32, f32) {
    let mut world = World::<D2>::new(no_gravity());
    let pin = fixed2(&mut world, Vec2::new(0.0, 0.0));
    let arm = box2(&mut world, Vec2::new(0.6, 0.0), Vec2::new(0.6, 0.05), 1.0);
    let hinge = world
        .add_joint(JointDesc::revolute(pin, arm, Vec2::ZERO).limits(lower, upper))
        .unwrap();
    {
        // Turning about the pin at 3 rad/s: the centre 0.6 m out moves at 1.8 m/s.
        let mut body = world.body_mut(arm).unwrap();
        body.set_angular_velocity(-3.0).unwrap();
        body.set_linear_velocity(Vec2::new(0.0, -1.8)).unwrap();
    }
    let (mut turned, mut last, mut lowest) = (0.0f32, 0.0f32, 0.0f32);
    for _ in 0..120 {
        world.step(DT);
        let a = world.joint_angle(hinge).unwrap();
        let mut d = a - last;
        if d > core::f32::consts::PI {
            d -= 2.0 * core::f32::consts::PI;
        } else if d < -core::f32::consts::PI {
            d += 2.0 * core::f32::consts::PI;
        }
        turned += d;
        last = a;
        lowest = lowest.min(turned);
    }
    (lowest, turned)
}

/// Within half a turn the lower limit holds: the arm stops at -3.0 rad.
#[test]
fn a_hinge_spun_into_its_limit_near_half_a_turn_stops_there() {
    let (lowest, rest) = spun_arm(-3.0, 0.2);
    assert!(
        lowest > -3.0 - 0.01 && (rest + 3.0).abs() < 0.1,
        "the arm turned to {lowest} rad and rests at {rest}, limit -3.0"
    );
}

/// A hinge's limits past half a turn (a door swinging 200 degrees) cannot
/// be held by limit rows that read an angle wrapping at pi: the arm would
/// spin through them. `add_joint` refuses them with a typed error, for a
/// revolute joint's limits and a spherical joint's twist, in 2D and 3D;
/// limits of exactly half a turn are taken.
#[test]
fn a_hinge_limited_past_half_a_turn_is_refused() {
    let mut world = World::<D2>::new(no_gravity());
    let pin = fixed2(&mut world, Vec2::new(0.0, 0.0));
    let arm = box2(&mut world, Vec2::new(0.6, 0.0), Vec2::new(0.6, 0.05), 1.0);
    let half_turn = core::f32::consts::PI;
    for (lower, upper) in [(-3.4, 0.2), (-0.2, 3.2), (-7.0, 7.0)] {
        let refused =
            world.add_joint(JointDesc::revolute(pin, arm, Vec2::ZERO).limits(lower, upper));
        assert!(
            matches!(refused, Err(WorldError::OutOfRange { .. })),
            "limits ({lower}, {upper}): {refused:?}"
        );
        let refused =
            world.add_joint(JointDesc::spherical(pin, arm, Vec2::ZERO).twist_limits(lower, upper));
        assert!(
            matches!(refused, Err(WorldError::OutOfRange { .. })),
            "twist ({lower}, {upper}): {refused:?}"
        );
    }
    assert!(world
        .add_joint(JointDesc::revolute(pin, arm, Vec2::ZERO).limits(-half_turn, half_turn))
        .is_ok());
    let mut world = World::<D3>::new(Settings::default());
    let a = world
        .add_body(
            BodyDesc::fixed(),
            ColliderDesc::new(Shape3::ball(0.1).unwrap()),
        )
        .unwrap();
    let b = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::X),
            ColliderDesc::new(Shape3::ball(0.1).unwrap()),
        )
        .unwrap();
    let refused = world.add_joint(JointDesc::revolute(a, b, Vec3::ZERO).limits(-0.5, 3.3));
    assert!(
        matches!(refused, Err(WorldError::OutOfRange { .. })),
        "{refused:?}"
    );
}

// ------------------------------------------------- saving, loading, rollback

/// A 3D yard of every joint kind, a sensor and a ground, sleep on: a
/// slider driven against its limit, a sprung hinge, a wheel, a ball joint
/// in a cone, a soft weld, a motor joint, a breakable rope, a rod.
struct Yard {
    world: World<D3>,
    bodies: Vec<BodyHandle>,
    joints: Vec<JointHandle>,
}

fn cube3(world: &mut World<D3>, at: Vec3, half: f32, density: f32) -> BodyHandle {
    world
        .add_body(
            BodyDesc::dynamic().position(at),
            ColliderDesc::new(Shape3::cuboid(Vec3::splat(half)).unwrap()).density(density),
        )
        .unwrap()
}

fn yard() -> Yard {
    let mut world = World::<D3>::new(Settings::default());
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::new(30.0, 0.5, 30.0)).unwrap()),
        )
        .unwrap();
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(4.0, 1.0, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::splat(1.0)).unwrap()).sensor(true),
        )
        .unwrap();
    let post = world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, 4.0, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::splat(0.1)).unwrap()),
        )
        .unwrap();
    let mut bodies = Vec::new();
    let mut joints = Vec::new();
    let s = cube3(&mut world, Vec3::new(-3.0, 3.0, 0.0), 0.2, 2.0);
    joints.push(
        world
            .add_joint(
                JointDesc::prismatic(post, s, Vec3::new(-3.0, 3.0, 0.0), Vec3::X)
                    .limits(-0.4, 0.7)
                    .drive(1.3, 60.0),
            )
            .unwrap(),
    );
    let h = cube3(&mut world, Vec3::new(1.0, 4.0, 0.0), 0.15, 3.0);
    joints.push(
        world
            .add_joint(
                JointDesc::revolute(post, h, Vec3::new(0.0, 4.0, 0.0))
                    .axis(Vec3::Z)
                    .spring(1.7, 0.05)
                    .limits(-2.0, 1.0),
            )
            .unwrap(),
    );
    let car = cube3(&mut world, Vec3::new(-1.0, 0.9, 2.0), 0.3, 1.0);
    let wheel = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(-1.0, 0.35, 2.0)),
            ColliderDesc::new(Shape3::ball(0.3).unwrap()).friction(0.9),
        )
        .unwrap();
    joints.push(
        world
            .add_joint(
                JointDesc::wheel(car, wheel, Vec3::new(-1.0, 0.35, 2.0), Vec3::Y)
                    .axis(Vec3::Z)
                    .spring(4.0, 0.7)
                    .drive(6.0, 20.0),
            )
            .unwrap(),
    );
    let swing = cube3(&mut world, Vec3::new(0.0, 3.0, -1.0), 0.2, 1.0);
    joints.push(
        world
            .add_joint(
                JointDesc::spherical(post, swing, Vec3::new(0.0, 4.0, -1.0))
                    .axis(Vec3::NEG_Y)
                    .cone(0.6)
                    .twist_limits(-0.3, 0.4),
            )
            .unwrap(),
    );
    let welded = cube3(&mut world, Vec3::new(0.0, 4.0, 1.2), 0.25, 1.0);
    joints.push(
        world
            .add_joint(JointDesc::weld(post, welded, Vec3::new(0.0, 4.0, 0.6)).soft(3.0, 2.0, 0.3))
            .unwrap(),
    );
    let led = cube3(&mut world, Vec3::new(2.0, 2.0, 2.0), 0.2, 1.0);
    joints.push(
        world
            .add_joint(JointDesc::motor(post, led).max_force(25.0).max_torque(5.0))
            .unwrap(),
    );
    let dangling = cube3(&mut world, Vec3::new(0.8, 2.5, -2.0), 0.2, 5.0);
    joints.push(
        world
            .add_joint(
                JointDesc::distance(
                    post,
                    dangling,
                    Vec3::new(0.0, 4.0, 0.0),
                    Vec3::new(0.8, 2.7, -2.0),
                )
                .range(0.0, 2.2)
                .break_force(350.0),
            )
            .unwrap(),
    );
    let rod = cube3(&mut world, Vec3::new(3.0, 3.0, 0.0), 0.1, 1.0);
    joints.push(
        world
            .add_joint(JointDesc::distance(
                swing,
                rod,
                Vec3::new(0.0, 3.0, -1.0),
                Vec3::new(3.0, 3.0, 0.0),
            ))
            .unwrap(),
    );
    // Loose cubes to sleep on the ground and fall through the sensor.
    for i in 0..6 {
        bodies.push(cube3(
            &mut world,
            Vec3::new(4.0 + 0.1 * i as f32, 2.5 + 0.6 * i as f32, 0.05 * i as f32),
            0.2,
            1.0,
        ));
    }
    bodies.extend([s, h, car, wheel, swing, welded, led, dangling, rod]);
    Yard {
        world,
        bodies,
        joints,
    }
}

/// What the game does at a step of the yard: the slider driven back and
/// forth, a kick, a body removed with its joint and one added.
fn yard_input(yard: &mut Yard, step: usize) {
    if step % 50 == 25 {
        let speed = if (step / 50).is_multiple_of(2) {
            -1.1
        } else {
            1.6
        };
        let j = yard.joints[0];
        if let Some(joint) = yard.world.joint_mut(j) {
            joint.set_drive_speed(speed);
        }
        let s = yard.bodies[6];
        if let Some(mut b) = yard.world.body_mut(s) {
            b.wake_up();
        }
    }
    if step == 70 {
        let led = yard.bodies[12];
        yard.world.remove_body(led);
    }
    if step == 90 {
        let b = cube3(&mut yard.world, Vec3::new(-4.0, 1.0, -3.0), 0.3, 1.0);
        yard.bodies.push(b);
    }
    if step == 130 {
        let d = yard.bodies[13];
        if let Some(mut b) = yard.world.body_mut(d) {
            b.apply_impulse_at_center(Vec3::new(0.0, -90.0, 0.0))
                .unwrap();
        }
    }
}

fn joint_bits(world: &World<D3>) -> Vec<u32> {
    let mut bits = Vec::new();
    for (_, j) in world.joints() {
        let (f, t) = (j.reaction_force(), j.reaction_torque());
        bits.extend([f.x, f.y, f.z, t.x, t.y, t.z].map(f32::to_bits));
    }
    bits
}

#[test]
fn a_yard_of_every_joint_saved_at_any_step_continues_bit_identically() {
    for save_at in [40usize, 71, 128, 160] {
        let mut a = yard();
        for step in 0..save_at {
            yard_input(&mut a, step);
            a.world.step(DT);
        }
        let bytes = a.world.to_bytes();
        let mut b = Yard {
            world: World::<D3>::from_bytes(&bytes).unwrap(),
            bodies: a.bodies.clone(),
            joints: a.joints.clone(),
        };
        for step in save_at..save_at + 120 {
            yard_input(&mut a, step);
            yard_input(&mut b, step);
            a.world.step(DT);
            b.world.step(DT);
            assert_eq!(
                a.world.state_hash(),
                b.world.state_hash(),
                "saved at {save_at}, apart at {step}"
            );
            assert_eq!(joint_bits(&a.world), joint_bits(&b.world), "step {step}");
            assert_eq!(a.world.joint_events(), b.world.joint_events());
            assert_eq!(a.world.sensor_events().len(), b.world.sensor_events().len());
        }
        assert_eq!(a.world.to_bytes(), b.world.to_bytes(), "saved at {save_at}");
    }
}

/// After 300 steps the breakable rope has snapped, the motor joint's body
/// was removed, and the loose cubes sleep; the loaded world calls those
/// handles stale, and what is added next gets the same handles in both.
#[test]
fn a_loaded_yard_calls_removed_and_broken_handles_stale_and_adds_alike() {
    let mut a = yard();
    let mut broke = false;
    for step in 0..300 {
        yard_input(&mut a, step);
        a.world.step(DT);
        broke |= a
            .world
            .joint_events()
            .iter()
            .any(|e| matches!(e, tumble::JointEvent::Broke { .. }));
    }
    assert!(broke, "the rope did not break");
    let sleeping = a.world.bodies().filter(|(_, b)| b.is_sleeping()).count();
    assert!(sleeping > 0, "nothing sleeps");
    let mut b = World::<D3>::from_bytes(&a.world.to_bytes()).unwrap();
    let led = a.bodies[12];
    assert!(a.world.body(led).is_none() && b.body(led).is_none());
    assert!(b.body_mut(led).is_none());
    let gone: Vec<JointHandle> = a
        .joints
        .iter()
        .copied()
        .filter(|&j| a.world.joint(j).is_none())
        .collect();
    assert_eq!(gone.len(), 2, "the motor joint and the rope");
    for &j in &gone {
        assert!(b.joint(j).is_none() && b.joint_mut(j).is_none());
        assert!(b.remove_joint(j).is_none());
        assert!(b.joint_anchors(j).is_none());
    }
    assert_eq!(
        b.add_joint(JointDesc::weld(led, a.bodies[0], Vec3::ZERO)),
        Err(WorldError::StaleHandle)
    );
    for world in [&mut a.world, &mut b] {
        assert_eq!(
            world.set_body_mass(led, 2.0),
            Err(WorldError::StaleHandle),
            "a removed body's mass"
        );
    }
    let na = cube3(&mut a.world, Vec3::new(6.0, 1.0, 6.0), 0.2, 1.0);
    let nb = cube3(&mut b, Vec3::new(6.0, 1.0, 6.0), 0.2, 1.0);
    assert_eq!(na, nb);
    assert_ne!(na, led, "a new body took a stale handle");
    let ja = a
        .world
        .add_joint(JointDesc::revolute(
            a.bodies[0],
            na,
            Vec3::new(6.0, 1.2, 6.0),
        ))
        .unwrap();
    let jb = b
        .add_joint(JointDesc::revolute(
            a.bodies[0],
            nb,
            Vec3::new(6.0, 1.2, 6.0),
        ))
        .unwrap();
    assert_eq!(ja, jb);
    assert!(!gone.contains(&ja), "a new joint took a stale handle");
    for _ in 0..60 {
        a.world.step(DT);
        b.step(DT);
        assert_eq!(a.world.state_hash(), b.state_hash());
    }
}

/// A rollback across joint changes made after the state was saved (a
/// drive's speed, a joint removed, a joint added): either the state is
/// refused, or the world rolled back continues as the run that never made
/// them.
fn rollback_over(change: impl Fn(&mut Yard)) -> Result<(), String> {
    let mut a = yard();
    for step in 0..60 {
        yard_input(&mut a, step);
        a.world.step(DT);
    }
    let state = a.world.save_state();
    let mut plain = Yard {
        world: a.world.clone(),
        bodies: a.bodies.clone(),
        joints: a.joints.clone(),
    };
    change(&mut a);
    for _ in 0..5 {
        a.world.step(DT);
    }
    match a.world.restore_state(&state) {
        Err(WorldError::StateMismatch) => return Ok(()),
        Err(e) => return Err(format!("restore failed: {e}")),
        Ok(()) => {}
    }
    for step in 60..69 {
        a.world.step(DT);
        plain.world.step(DT);
        if a.world.state_hash() != plain.world.state_hash() {
            return Err(format!("apart from the plain run at step {step}"));
        }
    }
    Ok(())
}

#[test]
fn rolling_back_over_a_drive_speed_change_gives_the_plain_run() {
    rollback_over(|y| {
        let j = y.joints[0];
        y.world.joint_mut(j).unwrap().set_drive_speed(-4.0);
    })
    .unwrap();
}

#[test]
fn rolling_back_over_a_removed_joint_gives_the_plain_run() {
    rollback_over(|y| {
        let j = y.joints[1];
        y.world.remove_joint(j).unwrap();
    })
    .unwrap();
}

#[test]
fn rolling_back_over_an_added_joint_gives_the_plain_run() {
    rollback_over(|y| {
        let (p, q) = (y.bodies[7], y.bodies[10]);
        let at = y.world.body(p).unwrap().position();
        y.world.add_joint(JointDesc::spherical(p, q, at)).unwrap();
    })
    .unwrap();
}

/// The yard stepped on 1 and 2 threads: one state hash.
#[test]
fn the_yard_steps_alike_on_one_and_two_threads() {
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| {
                let mut y = yard();
                let mut hashes = Vec::new();
                for step in 0..200 {
                    yard_input(&mut y, step);
                    y.world.step(DT);
                    hashes.push(y.world.state_hash());
                }
                hashes
            })
    };
    assert_eq!(run(1), run(2));
}

// ----------------------------------------------------------- bad input

/// Bad values to every body and collider builder and setter: each refused,
/// and a world stepped after all of them holds no NaN.
#[test]
fn bad_values_to_every_setter_are_refused_and_leave_no_nan_2d() {
    let mut world = World::<D2>::new(awake());
    world
        .add_body(
            BodyDesc::fixed().position(Vec2::new(0.0, -0.5)),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(10.0, 0.5)).unwrap()),
        )
        .unwrap();
    let b = box2(&mut world, Vec2::new(0.0, 1.0), Vec2::splat(0.3), 1.0);
    let c = world.body(b).unwrap().colliders()[0].handle();
    let k = world
        .add_body(
            BodyDesc::kinematic().position(Vec2::new(3.0, 2.0)),
            ColliderDesc::new(Shape2::ball(0.2).unwrap()),
        )
        .unwrap();
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let ball = || ColliderDesc::new(Shape2::ball(0.3).unwrap());
    let descs: Vec<(&str, BodyDesc<D2>, ColliderDesc<D2>)> = vec![
        (
            "position NaN",
            BodyDesc::dynamic().position(Vec2::new(nan, 0.0)),
            ball(),
        ),
        ("rotation inf", BodyDesc::dynamic().rotation(inf), ball()),
        (
            "velocity inf",
            BodyDesc::dynamic().linear_velocity(Vec2::new(0.0, inf)),
            ball(),
        ),
        (
            "spin NaN",
            BodyDesc::dynamic().angular_velocity(nan),
            ball(),
        ),
        (
            "linear damping -1",
            BodyDesc::dynamic().linear_damping(-1.0),
            ball(),
        ),
        (
            "angular damping NaN",
            BodyDesc::dynamic().angular_damping(nan),
            ball(),
        ),
        (
            "gravity scale inf",
            BodyDesc::dynamic().gravity_scale(inf),
            ball(),
        ),
        (
            "gravity scale NaN",
            BodyDesc::dynamic().gravity_scale(nan),
            ball(),
        ),
        ("fast share 0", BodyDesc::dynamic().fast_share(0.0), ball()),
        (
            "fast share -1",
            BodyDesc::dynamic().fast_share(-1.0),
            ball(),
        ),
        (
            "fast share NaN",
            BodyDesc::dynamic().fast_share(nan),
            ball(),
        ),
        ("mass 0", BodyDesc::dynamic().mass(0.0), ball()),
        ("mass -2", BodyDesc::dynamic().mass(-2.0), ball()),
        ("mass inf", BodyDesc::dynamic().mass(inf), ball()),
        (
            "mass properties inertia 0",
            BodyDesc::dynamic().mass_properties(1.0, Vec2::ZERO, 0.0),
            ball(),
        ),
        (
            "mass properties centre NaN",
            BodyDesc::dynamic().mass_properties(1.0, Vec2::new(nan, 0.0), 1.0),
            ball(),
        ),
        ("density 0", BodyDesc::dynamic(), ball().density(0.0)),
        ("density -1", BodyDesc::dynamic(), ball().density(-1.0)),
        ("friction -0.1", BodyDesc::dynamic(), ball().friction(-0.1)),
        ("friction inf", BodyDesc::dynamic(), ball().friction(inf)),
        (
            "restitution NaN",
            BodyDesc::dynamic(),
            ball().restitution(nan),
        ),
        (
            "restitution -0.5",
            BodyDesc::dynamic(),
            ball().restitution(-0.5),
        ),
        (
            "collider pose NaN",
            BodyDesc::dynamic(),
            ball().local_pose(Vec2::new(0.0, nan), 0.0),
        ),
    ];
    let mut accepted = Vec::new();
    for (name, desc, collider) in descs {
        if world.add_body(desc, collider).is_ok() {
            accepted.push(name);
        }
    }
    let mut outcomes: Vec<(&str, bool)> = Vec::new();
    {
        let mut body = world.body_mut(b).unwrap();
        outcomes.push((
            "set_position NaN",
            body.set_position(Vec2::new(nan, 1.0)).is_ok(),
        ));
        outcomes.push(("set_rotation inf", body.set_rotation(-inf).is_ok()));
        outcomes.push((
            "set_linear_velocity NaN",
            body.set_linear_velocity(Vec2::new(1.0, nan)).is_ok(),
        ));
        outcomes.push((
            "set_angular_velocity inf",
            body.set_angular_velocity(inf).is_ok(),
        ));
        outcomes.push((
            "apply_force inf",
            body.apply_force(Vec2::new(inf, 0.0)).is_ok(),
        ));
        outcomes.push(("apply_torque NaN", body.apply_torque(nan).is_ok()));
        outcomes.push((
            "apply_impulse at NaN",
            body.apply_impulse(Vec2::X, Vec2::new(nan, 0.0)).is_ok(),
        ));
        outcomes.push((
            "apply_impulse_at_center -inf",
            body.apply_impulse_at_center(Vec2::new(0.0, -inf)).is_ok(),
        ));
        outcomes.push((
            "kinematic target on a dynamic body",
            body.set_kinematic_target(Vec2::ONE, 0.0).is_ok(),
        ));
    }
    outcomes.push((
        "kinematic target NaN",
        world
            .body_mut(k)
            .unwrap()
            .set_kinematic_target(Vec2::new(nan, 0.0), 0.0)
            .is_ok(),
    ));
    outcomes.push((
        "kinematic target angle inf",
        world
            .body_mut(k)
            .unwrap()
            .set_kinematic_target(Vec2::ZERO, inf)
            .is_ok(),
    ));
    outcomes.push(("set_body_mass 0", world.set_body_mass(b, 0.0).is_ok()));
    outcomes.push(("set_body_mass NaN", world.set_body_mass(b, nan).is_ok()));
    outcomes.push((
        "set_body_mass_properties inertia -1",
        world
            .set_body_mass_properties(b, 1.0, Vec2::ZERO, -1.0)
            .is_ok(),
    ));
    outcomes.push((
        "set_body_linear_damping -0.5",
        world.set_body_linear_damping(b, -0.5).is_ok(),
    ));
    outcomes.push((
        "set_body_angular_damping inf",
        world.set_body_angular_damping(b, inf).is_ok(),
    ));
    outcomes.push((
        "set_body_gravity_scale NaN",
        world.set_body_gravity_scale(b, nan).is_ok(),
    ));
    outcomes.push((
        "set_collider_friction NaN",
        world.set_collider_friction(c, nan).is_ok(),
    ));
    outcomes.push((
        "set_collider_restitution 1.5",
        world.set_collider_restitution(c, 1.5).is_ok(),
    ));
    outcomes.push((
        "set_collider_density -3",
        world.set_collider_density(c, -3.0).is_ok(),
    ));
    outcomes.push((
        "set_collider_density inf",
        world.set_collider_density(c, inf).is_ok(),
    ));
    for (name, ok) in outcomes {
        if ok {
            accepted.push(name);
        }
    }
    for dt in [0.0, -DT, nan, inf] {
        if world.try_step(dt).is_ok() {
            accepted.push("a bad time step");
        }
        world.step(dt);
    }
    for _ in 0..60 {
        world.step(DT);
    }
    assert!(accepted.is_empty(), "accepted: {accepted:?}");
    for (h, body) in world.bodies() {
        assert!(
            body.position().is_finite()
                && body.rotation().is_finite()
                && body.linear_velocity().is_finite()
                && body.angular_velocity().is_finite(),
            "{h:?} not finite"
        );
    }
    let y = world.body(b).unwrap().position().y;
    assert!((y - 0.3).abs() < 0.01, "the box rests at {y}");
}

/// Shapes of zero, negative or non-finite size are refused.
#[test]
fn shapes_of_no_size_are_refused() {
    assert!(Shape2::ball(0.0).is_err());
    assert!(Shape2::ball(-0.1).is_err());
    assert!(Shape2::ball(f32::NAN).is_err());
    assert!(Shape2::cuboid(Vec2::new(0.5, 0.0)).is_err());
    assert!(Shape2::cuboid(Vec2::new(-0.5, 0.5)).is_err());
    assert!(Shape2::capsule(0.5, 0.0).is_err());
    assert!(Shape2::capsule(-0.5, 0.2).is_err());
    assert!(Shape3::cuboid(Vec3::new(0.5, 0.5, f32::INFINITY)).is_err());
    assert!(Shape3::ball(f32::NEG_INFINITY).is_err());
    assert!(Shape3::capsule(0.5, -0.2).is_err());
    assert!(Shape3::convex_hull(&[Vec3::ZERO, Vec3::X, Vec3::Y]).is_err());
    assert!(Shape3::convex_hull(&[Vec3::ZERO; 5]).is_err());
}

/// Far from the origin (1e5 m: a 8 mm f32 step) a box still rests on the
/// ground and a hinge still holds; at 1e6 m (6 cm steps) nothing turns NaN.
#[test]
fn far_from_the_origin_boxes_rest_and_hinges_hold() {
    for (x, tolerance) in [(1.0e5f32, 0.02f32), (1.0e6, 0.2)] {
        let mut world = World::<D3>::new(awake());
        world
            .add_body(
                BodyDesc::fixed().position(Vec3::new(x, -0.5, -x)),
                ColliderDesc::new(Shape3::cuboid(Vec3::new(5.0, 0.5, 5.0)).unwrap()),
            )
            .unwrap();
        let b = cube3(&mut world, Vec3::new(x, 1.0, -x), 0.5, 1.0);
        let post = world
            .add_body(
                BodyDesc::fixed().position(Vec3::new(x + 2.0, 4.0, -x)),
                ColliderDesc::new(Shape3::cuboid(Vec3::splat(0.1)).unwrap()),
            )
            .unwrap();
        let bob = cube3(&mut world, Vec3::new(x + 3.0, 4.0, -x), 0.1, 5.0);
        let hinge = world
            .add_joint(JointDesc::revolute(post, bob, Vec3::new(x + 2.0, 4.0, -x)))
            .unwrap();
        for _ in 0..180 {
            world.step(DT);
        }
        let p = world.body(b).unwrap().position();
        assert!(p.is_finite());
        assert!(
            (p.y - 0.5).abs() < tolerance,
            "box at {x} m rests at y {}",
            p.y
        );
        let g = gap(&world, hinge);
        assert!(g < tolerance, "hinge at {x} m apart by {g}");
    }
}

/// A 0.2 mm grain (1e-4 m radius) dropped on the ground rests on it.
#[test]
fn a_grain_of_a_tenth_of_a_millimetre_rests_on_the_ground() {
    let mut world = World::<D3>::new(awake());
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::new(2.0, 0.5, 2.0)).unwrap()),
        )
        .unwrap();
    let grain = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(0.0, 0.05, 0.0)),
            ColliderDesc::new(Shape3::ball(1e-4).unwrap()).density(2500.0),
        )
        .unwrap();
    let cube = cube3(&mut world, Vec3::new(0.5, 0.05, 0.0), 1e-4, 2500.0);
    for _ in 0..120 {
        world.step(DT);
    }
    for h in [grain, cube] {
        let p = world.body(h).unwrap().position();
        assert!(p.is_finite());
        assert!(
            p.y > 0.0 && p.y < 3e-4,
            "a grain rests at height {} (radius 1e-4)",
            p.y
        );
    }
}
