//! Joints: pendulums keep their period, chains hold together, hinges obey
//! their springs, motors and limits, welds hold (issue: joints).

mod common;

use common::*;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, JointDesc, Settings, World};

const DT: f32 = 1.0 / 60.0;

/// A pendulum: a 5 cm ball on a rigid 1 m distance joint, released at 10
/// degrees; its period and the share of its amplitude it keeps over 10
/// swings.
fn pendulum<D: Scene>() -> (f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 2.0));
    let angle = 10f32.to_radians();
    let length = 1.0;
    let start = D::v(length * angle.sin(), 2.0 - length * angle.cos());
    let bob = world
        .add_body(
            BodyDesc::dynamic().position(start),
            ColliderDesc::new(tumble::shape::Shape::ball(0.05).unwrap()),
        )
        .unwrap();
    world
        .add_joint(JointDesc::distance(top, bob, D::v(0.0, 2.0), start))
        .unwrap();
    // Swings are counted at the bob's turning points on the starting side,
    // where its speed along X turns from positive to negative.
    let mut turns = Vec::new();
    let mut peaks = Vec::new();
    let mut last_vx = 0.0f32;
    let mut t = 0.0;
    while turns.len() < 11 && t < 40.0 {
        world.step(DT);
        t += DT;
        let b = world.body(bob).unwrap();
        let vx = D::dot(b.linear_velocity(), D::v(1.0, 0.0));
        if last_vx > 0.0 && vx <= 0.0 {
            // Interpolate the crossing within the step.
            let f = last_vx / (last_vx - vx);
            turns.push(t - DT + f * DT);
            peaks.push(D::dot(b.position(), D::v(1.0, 0.0)));
        }
        last_vx = vx;
    }
    let period = (turns[10] - turns[0]) / 10.0;
    let kept = peaks[10] / (length * angle.sin());
    (period, kept)
}

fn check_pendulum<D: Scene>() {
    let (period, kept) = pendulum::<D>();
    let expected = 2.0 * core::f32::consts::PI * (1.0f32 / 9.81).sqrt();
    println!(
        "{}: pendulum period {period:.4} s (2 pi sqrt(L/g) {expected:.4}), amplitude kept {kept:.4}",
        D::NAME
    );
    assert!((period / expected - 1.0).abs() < 0.01, "period {period}");
    assert!(kept > 0.98, "amplitude kept {kept}");
}

#[test]
fn a_pendulum_keeps_its_period_and_amplitude_2d() {
    check_pendulum::<tumble::D2>();
}

#[test]
fn a_pendulum_keeps_its_period_and_amplitude_3d() {
    check_pendulum::<tumble::D3>();
}

/// A chain of 20 links (0.5 m boxes, 1:1 masses, or the last `end_mass`
/// times heavier) hinged end to end below a fixed pivot, hanging straight
/// down from rest: the summed distance between each hinge's two anchors
/// after 10 s.
fn hanging_chain<D: Scene>(end_mass: f32) -> f32 {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 10.0));
    let (_, joints) = hinged_chain(
        &mut world,
        top,
        D::v(0.0, 10.0),
        D::v(0.0, -0.5),
        20,
        &D::cuboid(0.05, 0.25),
        end_mass,
    );
    for _ in 0..600 {
        world.step(DT);
    }
    anchors_apart(&world, &joints)
}

fn check_hanging_chain<D: Scene>() {
    let even = hanging_chain::<D>(1.0);
    let heavy = hanging_chain::<D>(100.0);
    println!(
        "{}: chain of 20 hanging 10 s, anchors apart in all: 1:1 {even:.2e} m, 100:1 end {heavy:.2e} m",
        D::NAME
    );
    assert!(even < 1e-3, "1:1 chain apart {even}");
    assert!(heavy < 1e-2, "100:1 chain apart {heavy}");
}

#[test]
fn a_chain_of_twenty_links_holds_together_2d() {
    check_hanging_chain::<tumble::D2>();
}

#[test]
fn a_chain_of_twenty_links_holds_together_3d() {
    check_hanging_chain::<tumble::D3>();
}

/// The same chain (1:1) released horizontal: its energy (kinetic plus
/// potential) at each step, and the largest summed anchor separation.
fn released_chain<D: Scene>() -> (Vec<f32>, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 10.0));
    let (bodies, joints) = hinged_chain(
        &mut world,
        top,
        D::v(0.0, 10.0),
        D::v(0.5, 0.0),
        20,
        &D::cuboid(0.25, 0.05),
        1.0,
    );
    let mut energies = vec![energy(&world, &bodies)];
    let mut worst = 0.0f32;
    for _ in 0..600 {
        world.step(DT);
        energies.push(energy(&world, &bodies));
        worst = worst.max(anchors_apart(&world, &joints));
    }
    (energies, worst)
}

fn check_released_chain<D: Scene>() {
    let (energies, worst) = released_chain::<D>();
    let start = energies[0];
    let top = energies.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let kinetic_scale = start.abs().max(1.0);
    println!(
        "{}: chain of 20 released: energy start {start:.3} J, highest {top:.3} J, end {:.3} J; anchors apart at most {worst:.2e} m in all",
        D::NAME,
        energies[energies.len() - 1]
    );
    // Never above the start: a rise of a ten-thousandth of it would be the
    // solver adding energy, beyond rounding.
    assert!(
        top <= start + 1e-4 * kinetic_scale,
        "energy rose to {top} from {start}"
    );
}

#[test]
fn a_released_chain_never_gains_energy_2d() {
    check_released_chain::<tumble::D2>();
}

#[test]
fn a_released_chain_never_gains_energy_3d() {
    check_released_chain::<tumble::D3>();
}

/// A unit box hinged at its centre to a fixed pivot (gravity exerts no
/// torque about it), turned by `spin` rad/s at the start, with `options`
/// applied to the hinge; the world, the box and the joint.
fn hinged_box<D: Scene>(
    spin: D::AngularVector,
    options: impl FnOnce(JointDesc<D>) -> JointDesc<D>,
) -> (World<D>, BodyHandle, tumble::JointHandle) {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 5.0));
    let body = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(0.0, 5.0))
                .angular_velocity(spin),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    let joint = world
        .add_joint(options(JointDesc::revolute(top, body, D::v(0.0, 5.0))))
        .unwrap();
    (world, body, joint)
}

/// The hinge spring's frequency, Hz, from the angle's zero crossings over
/// 3 s (a spring of `hertz` and no damping).
fn spring_frequency<D: Scene>(hertz: f32, spin: D::AngularVector) -> f32 {
    let (mut world, _, joint) = hinged_box::<D>(spin, |j| j.spring(hertz, 0.0));
    let mut crossings = Vec::new();
    let mut last = 0.0f32;
    let mut t = 0.0;
    for _ in 0..180 {
        world.step(DT);
        t += DT;
        let angle = world.joint_angle(joint).unwrap();
        if last > 0.0 && angle <= 0.0 {
            crossings.push(t - DT + DT * last / (last - angle));
        }
        last = angle;
    }
    let periods = crossings.len() - 1;
    periods as f32 / (crossings[periods] - crossings[0])
}

#[test]
fn a_hinge_spring_oscillates_at_its_frequency() {
    for hertz in [1.0, 2.5] {
        let f2 = spring_frequency::<tumble::D2>(hertz, 1.0);
        let f3 = spring_frequency::<tumble::D3>(hertz, tumble::glam::Vec3::Z);
        println!("hinge spring {hertz} Hz, no damping: 2D {f2:.4} Hz, 3D {f3:.4} Hz");
        for f in [f2, f3] {
            assert!((f / hertz - 1.0).abs() < 0.02, "{f} Hz against {hertz}");
        }
    }
}

/// An arm 1 m long hinged at its end to a fixed pivot, released level
/// (pointing along +X, or -X when `left`) with its angle limited to
/// [-0.5, 0.5] rad: how far past the limit it went, radians (0 if never).
fn limited_arm<D: Scene>(left: bool) -> f32 {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 5.0));
    let side = if left { -1.0 } else { 1.0 };
    let arm = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.5 * side, 5.0)),
            ColliderDesc::new(D::cuboid(0.5, 0.05)),
        )
        .unwrap();
    let joint = world
        .add_joint(JointDesc::revolute(top, arm, D::v(0.0, 5.0)).limits(-0.5, 0.5))
        .unwrap();
    let mut past = 0.0f32;
    for _ in 0..180 {
        world.step(DT);
        let angle = world.joint_angle(joint).unwrap();
        past = past.max(angle - 0.5).max(-0.5 - angle);
    }
    past
}

fn check_limits<D: Scene>() {
    let (right, left) = (limited_arm::<D>(false), limited_arm::<D>(true));
    println!(
        "{}: hinge limits passed by at most {:.3} / {:.3} degrees (falling right / left)",
        D::NAME,
        right.to_degrees(),
        left.to_degrees()
    );
    assert!(right.to_degrees() < 0.5 && left.to_degrees() < 0.5);
}

#[test]
fn a_hinge_stays_within_its_limits_2d() {
    check_limits::<tumble::D2>();
}

#[test]
fn a_hinge_stays_within_its_limits_3d() {
    check_limits::<tumble::D3>();
}

#[test]
fn a_hinge_motor_reaches_its_speed() {
    let speed = 5.0;
    let (mut world, body, _) = hinged_box::<tumble::D2>(0.0, |j| j.drive(speed, 50.0));
    for _ in 0..60 {
        world.step(DT);
    }
    let w2 = world.body(body).unwrap().angular_velocity();
    let (mut world, body, _) =
        hinged_box::<tumble::D3>(tumble::glam::Vec3::ZERO, |j| j.drive(speed, 50.0));
    for _ in 0..60 {
        world.step(DT);
    }
    let w3 = world.body(body).unwrap().angular_velocity();
    println!("hinge motor at {speed} rad/s after 1 s: 2D {w2:.4}, 3D {w3:?}");
    assert!((w2 / speed - 1.0).abs() < 0.01);
    assert!((w3.z / speed - 1.0).abs() < 0.01 && w3.x.abs() < 1e-3 && w3.y.abs() < 1e-3);
}

/// A 1 m beam (10 cm thick) welded by one end to a fixed block, level:
/// how far its free end sags in 2 s, metres.
fn welded_beam<D: Scene>() -> f32 {
    let mut world = World::<D>::new(awake::<D>());
    let wall = pivot(&mut world, D::v(0.0, 5.0));
    let beam = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.5, 5.0)),
            ColliderDesc::new(D::cuboid(0.5, 0.05)),
        )
        .unwrap();
    world
        .add_joint(JointDesc::weld(wall, beam, D::v(0.0, 5.0)))
        .unwrap();
    let mut sag = 0.0f32;
    for _ in 0..120 {
        world.step(DT);
        let tip = world
            .body(beam)
            .unwrap()
            .pose()
            .transform_point(D::v(0.5, 0.0));
        sag = sag.max(5.0 - D::height(tip));
    }
    sag
}

#[test]
fn a_weld_holds_a_beam_level() {
    let (s2, s3) = (welded_beam::<tumble::D2>(), welded_beam::<tumble::D3>());
    println!("welded 1 m beam: tip sags at most 2D {s2:.2e} m, 3D {s3:.2e} m");
    assert!(s2 < 1e-3 && s3 < 1e-3);
}

/// A 1 kg ball hanging on a rigid rod whose break force is 1.5 m g, pulled
/// down by another m g in step `pull` only: the steps at which a
/// `Broke` event came.
fn breaking_rod<D: Scene>(pull: usize) -> Vec<usize> {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 5.0));
    let ball = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 4.0)).mass(1.0),
            ColliderDesc::new(tumble::shape::Shape::ball(0.1).unwrap()),
        )
        .unwrap();
    let g = 9.81;
    let rod = world
        .add_joint(
            JointDesc::distance(top, ball, D::v(0.0, 5.0), D::v(0.0, 4.0)).break_force(1.5 * g),
        )
        .unwrap();
    let mut broke = Vec::new();
    for step in 0..90 {
        if step == pull {
            world
                .body_mut(ball)
                .unwrap()
                .apply_force(D::v(0.0, -g))
                .unwrap();
        }
        world.step(DT);
        for event in world.joint_events() {
            if let tumble::JointEvent::Broke { joint, .. } = event {
                assert_eq!(*joint, rod);
                broke.push(step);
            }
        }
    }
    assert!(world.joint(rod).is_none() || broke.is_empty());
    broke
}

#[test]
fn a_joint_breaks_in_the_step_its_force_passes_the_threshold() {
    for (name, broke) in [
        ("2D", breaking_rod::<tumble::D2>(45)),
        ("3D", breaking_rod::<tumble::D3>(45)),
    ] {
        println!("{name}: rod pulled in step 45 broke in steps {broke:?}");
        assert_eq!(broke, vec![45], "{name}");
    }
}

#[test]
fn bad_joints_are_refused_with_their_error() {
    use tumble::glam::Vec3;
    use tumble::WorldError;
    let mut world = World::<tumble::D3>::new(Settings::default());
    let a = pivot(&mut world, Vec3::ZERO);
    let b = world
        .add_body(
            BodyDesc::dynamic(),
            ColliderDesc::new(tumble::D3::cube(0.5)),
        )
        .unwrap();
    let at = Vec3::ZERO;
    let cases: Vec<(JointDesc<tumble::D3>, WorldError)> = vec![
        (JointDesc::revolute(a, a, at), WorldError::JointToItself),
        (
            JointDesc::revolute(a, b, Vec3::NAN),
            WorldError::NotFinite {
                what: "joint anchor",
            },
        ),
        (
            JointDesc::revolute(a, b, at).axis(Vec3::ZERO),
            WorldError::ZeroAxis,
        ),
        (
            JointDesc::revolute(a, b, at).limits(1.0, -1.0),
            WorldError::ImpossibleLimits {
                lower: 1.0,
                upper: -1.0,
            },
        ),
        (
            JointDesc::revolute(a, b, at).drive(1.0, -2.0),
            WorldError::OutOfRange {
                what: "joint drive effort",
                value: -2.0,
            },
        ),
        (
            JointDesc::revolute(a, b, at).spring(0.0, 1.0),
            WorldError::OutOfRange {
                what: "joint spring hertz",
                value: 0.0,
            },
        ),
        (
            JointDesc::distance(a, b, at, at),
            WorldError::OutOfRange {
                what: "joint length",
                value: 0.0,
            },
        ),
        (
            JointDesc::distance(a, b, at, Vec3::X).range(2.0, 1.0),
            WorldError::ImpossibleLimits {
                lower: 2.0,
                upper: 1.0,
            },
        ),
        (
            JointDesc::weld(a, b, at).break_force(0.0),
            WorldError::OutOfRange {
                what: "joint break force",
                value: 0.0,
            },
        ),
    ];
    for (desc, error) in cases {
        assert_eq!(world.add_joint(desc), Err(error));
    }
    let removed = world
        .add_body(
            BodyDesc::dynamic(),
            ColliderDesc::new(tumble::D3::cube(0.5)),
        )
        .unwrap();
    world.remove_body(removed);
    assert_eq!(
        world.add_joint(JointDesc::weld(b, removed, at)),
        Err(WorldError::StaleHandle)
    );
    assert_eq!(world.joints().count(), 0);
}

#[test]
fn removing_a_body_removes_its_joints_with_an_event() {
    let mut world = World::<tumble::D2>::new(Settings::default());
    let top = pivot(&mut world, tumble::D2::v(0.0, 5.0));
    let bob = world
        .add_body(
            BodyDesc::dynamic().position(tumble::D2::v(1.0, 5.0)),
            ColliderDesc::new(tumble::D2::cube(0.1)),
        )
        .unwrap();
    let joint = world
        .add_joint(JointDesc::revolute(top, bob, tumble::D2::v(0.0, 5.0)))
        .unwrap();
    world.remove_body(bob);
    assert!(world.joint(joint).is_none());
    assert_eq!(
        world.joint_events(),
        &[tumble::JointEvent::Removed {
            joint,
            body_a: top,
            body_b: bob
        }]
    );
}

#[test]
fn joined_bodies_fall_asleep_and_wake_together() {
    let mut world = World::<tumble::D2>::new(Settings::default());
    world
        .add_body(
            BodyDesc::fixed().position(tumble::D2::v(0.0, -0.5)),
            ColliderDesc::new(tumble::D2::cuboid(10.0, 0.5)),
        )
        .unwrap();
    let a = world
        .add_body(
            BodyDesc::dynamic().position(tumble::D2::v(-0.5, 0.25)),
            ColliderDesc::new(tumble::D2::cube(0.25)),
        )
        .unwrap();
    let b = world
        .add_body(
            BodyDesc::dynamic().position(tumble::D2::v(0.5, 0.25)),
            ColliderDesc::new(tumble::D2::cube(0.25)),
        )
        .unwrap();
    world
        .add_joint(JointDesc::distance(
            a,
            b,
            tumble::D2::v(-0.5, 0.25),
            tumble::D2::v(0.5, 0.25),
        ))
        .unwrap();
    let mut slept = None;
    for step in 0..300 {
        world.step(DT);
        let (sa, sb) = (
            world.body(a).unwrap().is_sleeping(),
            world.body(b).unwrap().is_sleeping(),
        );
        assert_eq!(sa, sb, "step {step}: one asleep without the other");
        if sa {
            slept = Some(step);
            break;
        }
    }
    assert!(slept.is_some(), "never slept");
    world
        .body_mut(a)
        .unwrap()
        .apply_impulse_at_center(tumble::D2::v(0.0, 1.0))
        .unwrap();
    world.step(DT);
    assert!(!world.body(a).unwrap().is_sleeping());
    assert!(
        !world.body(b).unwrap().is_sleeping(),
        "the joined body slept on"
    );
}

#[test]
fn bodies_joined_without_collide_connected_do_not_push_apart() {
    // Two boxes overlapping by half, pinned where they overlap, no gravity.
    let settings = Settings {
        gravity: tumble::D2::v(0.0, 0.0),
        sleep: false,
        ..Settings::default()
    };
    for collide in [false, true] {
        let mut world = World::<tumble::D2>::new(settings);
        let a = world
            .add_body(
                BodyDesc::dynamic().position(tumble::D2::v(0.0, 0.0)),
                ColliderDesc::new(tumble::D2::cube(0.5)),
            )
            .unwrap();
        let b = world
            .add_body(
                BodyDesc::dynamic().position(tumble::D2::v(0.5, 0.0)),
                ColliderDesc::new(tumble::D2::cube(0.5)),
            )
            .unwrap();
        world
            .add_joint(
                JointDesc::spherical(a, b, tumble::D2::v(0.25, 0.0)).collide_connected(collide),
            )
            .unwrap();
        for _ in 0..30 {
            world.step(DT);
        }
        let spin = world.body(a).unwrap().angular_velocity().abs()
            + world.body(b).unwrap().angular_velocity().abs();
        let pairs = world.contact_pairs().len();
        println!("collide_connected {collide}: {pairs} pairs, spin {spin:.3}");
        assert_eq!(pairs > 0, collide);
        if !collide {
            assert!(spin < 1e-6, "they pushed each other: {spin}");
        }
    }
}

/// Box2D v3's "falling hinges" benchmark, smaller: columns of boxes, each
/// box hinged to the one below at a corner with a little offset so the
/// columns buckle, dropped on the ground; the pose hash after 120 steps.
fn falling_hinges_hash() -> u64 {
    use tumble::glam::{Quat, Vec3};
    let mut world = World::<tumble::D3>::new(Settings::default());
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(tumble::D3::cuboid(40.0, 0.5)),
        )
        .unwrap();
    let (columns, rows, half) = (8, 12, 0.25);
    for c in 0..columns {
        let x = -7.0 + 2.0 * c as f32;
        let mut below = None;
        for r in 0..rows {
            // Each box a little turned and shifted, as Box2D's scene does.
            let offset = 0.02 * ((r * 7 + c * 3) % 5) as f32;
            let at = Vec3::new(x + offset, 1.0 + 2.1 * half * r as f32, 0.0);
            let body = world
                .add_body(
                    BodyDesc::dynamic()
                        .position(at)
                        .rotation(Quat::from_rotation_z(0.05 * offset)),
                    ColliderDesc::new(tumble::D3::cube(half)),
                )
                .unwrap();
            if let Some(under) = below {
                let corner = at + Vec3::new(half, -1.05 * half, 0.0);
                world
                    .add_joint(JointDesc::revolute(under, body, corner).axis(Vec3::Z))
                    .unwrap();
            }
            below = Some(body);
        }
    }
    for _ in 0..120 {
        world.step(DT);
    }
    pose_hash_3d(&world)
}

#[test]
fn falling_hinges_give_one_hash_across_runs_and_threads() {
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(falling_hinges_hash)
    };
    let one = on(1);
    assert_eq!(on(1), one, "two runs on one thread differ");
    assert_eq!(on(2), one, "2 threads differ from one");
    assert_eq!(on(4), one, "4 threads differ from one");
}

/// A 1 kg box on a prismatic joint along Y under a fixed block, its
/// translation limited to [-0.5, 0]: it falls onto the lower limit, then a
/// drive of +1 m/s lifts it onto the upper one. The lowest and highest
/// translations reached, and where it rests at the end of each half.
fn slider_between_limits<D: Scene>() -> (f32, f32, f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 5.0));
    let body = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 4.0)).mass(1.0),
            ColliderDesc::new(D::cube(0.2)),
        )
        .unwrap();
    let slider = |world: &mut World<D>, drive: Option<f32>| {
        let desc =
            JointDesc::prismatic(top, body, D::v(0.0, 4.0), D::v(0.0, 1.0)).limits(-0.5, 0.0);
        let desc = match drive {
            Some(speed) => desc.drive(speed, 100.0),
            None => desc,
        };
        world.add_joint(desc).unwrap()
    };
    let translation = |world: &World<D>| D::height(world.body(body).unwrap().position()) - 4.0;
    let joint = slider(&mut world, None);
    let (mut lowest, mut highest) = (0.0f32, f32::NEG_INFINITY);
    for _ in 0..120 {
        world.step(DT);
        lowest = lowest.min(translation(&world));
    }
    let rest_low = translation(&world);
    // The same slider, now driven up (the joint made anew where it stands,
    // its limits shifted to keep the same range).
    world.remove_joint(joint);
    let desc = JointDesc::prismatic(top, body, D::v(0.0, 4.0 + rest_low), D::v(0.0, 1.0))
        .limits(-0.5 - rest_low, -rest_low)
        .drive(1.0, 100.0);
    world.add_joint(desc).unwrap();
    for _ in 0..120 {
        world.step(DT);
        highest = highest.max(translation(&world));
    }
    (lowest, rest_low, highest, translation(&world))
}

#[test]
fn a_slider_stops_at_its_limits() {
    for (name, (lowest, rest_low, highest, rest_high)) in [
        ("2D", slider_between_limits::<tumble::D2>()),
        ("3D", slider_between_limits::<tumble::D3>()),
    ] {
        println!(
            "{name}: slider limits [-0.5, 0]: lowest {lowest:.5}, rests at {rest_low:.5}; driven up: highest {highest:.5}, rests at {rest_high:.5}"
        );
        assert!(lowest > -0.5 - 1e-3 && (rest_low + 0.5).abs() < 1e-3);
        assert!(highest < 1e-3 && rest_high.abs() < 1e-3);
    }
}

/// A box on a level prismatic joint along X driven at `speed`: its speed
/// after 1 s.
fn driven_slider<D: Scene>(speed: f32) -> f32 {
    let mut world = World::<D>::new(awake::<D>());
    let base = pivot(&mut world, D::v(0.0, 5.0));
    let body = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 5.0)),
            ColliderDesc::new(D::cube(0.2)),
        )
        .unwrap();
    world
        .add_joint(
            JointDesc::prismatic(base, body, D::v(0.0, 5.0), D::v(1.0, 0.0)).drive(speed, 200.0),
        )
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    D::dot(world.body(body).unwrap().linear_velocity(), D::v(1.0, 0.0))
}

#[test]
fn a_slider_drive_reaches_its_speed() {
    let (v2, v3) = (
        driven_slider::<tumble::D2>(2.0),
        driven_slider::<tumble::D3>(2.0),
    );
    println!("slider driven at 2 m/s, after 1 s: 2D {v2:.5}, 3D {v3:.5} m/s");
    assert!((v2 / 2.0 - 1.0).abs() < 0.01 && (v3 / 2.0 - 1.0).abs() < 0.01);
}

/// A wheel (ball, r 0.3) on a sprung suspension below a fixed block,
/// driven at 10 rad/s: how far the suspension settled below the anchor
/// (m) and the wheel's spin after 1 s.
fn sprung_wheel<D: Scene>() -> (f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let frame = pivot(&mut world, D::v(0.0, 5.0));
    let wheel = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 4.0)).mass(1.0),
            ColliderDesc::new(tumble::shape::Shape::ball(0.3).unwrap()),
        )
        .unwrap();
    world
        .add_joint(
            JointDesc::wheel(frame, wheel, D::v(0.0, 4.0), D::v(0.0, 1.0))
                .spring(2.0, 1.0)
                .drive(10.0, 20.0),
        )
        .unwrap();
    for _ in 0..240 {
        world.step(DT);
    }
    let b = world.body(wheel).unwrap();
    (
        4.0 - D::height(b.position()),
        D::spin_z(b.angular_velocity()),
    )
}

#[test]
fn a_sprung_wheel_settles_by_its_weight_and_spins_at_its_drive() {
    // A 1 kg wheel on a 2 Hz spring sinks g / (2 pi 2)^2 = 6.2 cm.
    let expected = 9.81 / (2.0 * core::f32::consts::PI * 2.0f32).powi(2);
    for (name, (sink, spin)) in [
        ("2D", sprung_wheel::<tumble::D2>()),
        ("3D", sprung_wheel::<tumble::D3>()),
    ] {
        println!("{name}: wheel on a 2 Hz spring sank {sink:.4} m (expected {expected:.4}), spins {spin:.4} rad/s");
        assert!((sink / expected - 1.0).abs() < 0.02, "{name}: sank {sink}");
        assert!((spin / 10.0 - 1.0).abs() < 0.01, "{name}: spin {spin}");
    }
}

/// A kinematic hand moving at 1 m/s leads a 1 kg box through a motor
/// joint: the box's distance from where the hand holds it after 2 s.
fn led_by_a_hand<D: Scene>() -> f32 {
    let mut world = World::<D>::new(awake::<D>());
    let hand = world
        .add_body(
            BodyDesc::kinematic()
                .position(D::v(0.0, 5.0))
                .linear_velocity(D::v(1.0, 0.0)),
            ColliderDesc::new(D::cube(0.05)),
        )
        .unwrap();
    let body = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 4.0)).mass(1.0),
            ColliderDesc::new(D::cube(0.2)),
        )
        .unwrap();
    world
        .add_joint(
            JointDesc::motor(hand, body)
                .max_force(100.0)
                .max_torque(100.0),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(DT);
    }
    let held = world.body(hand).unwrap().position() - D::v(0.0, 1.0);
    D::len(world.body(body).unwrap().position() - held)
}

#[test]
fn a_motor_joint_leads_a_body_after_a_moving_hand() {
    let (d2, d3) = (led_by_a_hand::<tumble::D2>(), led_by_a_hand::<tumble::D3>());
    println!(
        "box led by a hand at 1 m/s for 2 s: off its held place by 2D {d2:.4} m, 3D {d3:.4} m"
    );
    assert!(d2 < 0.1 && d3 < 0.1);
}

#[test]
fn a_ragdoll_dropped_a_hundred_times_stays_whole() {
    use tumble::glam::{Quat, Vec3};
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let mut worst = 0.0f32;
    for drop in 0..100 {
        let mut world = World::<tumble::D3>::new(Settings::default());
        world
            .add_body(
                BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
                ColliderDesc::new(tumble::D3::cuboid(20.0, 0.5)),
            )
            .unwrap();
        let axis = Vec3::new(
            draw.between(-1.0, 1.0),
            draw.between(-1.0, 1.0),
            draw.between(-1.0, 1.0),
        );
        let rotation = Quat::from_axis_angle(
            axis.normalize_or(Vec3::Y),
            draw.between(0.0, core::f32::consts::TAU),
        );
        let at = Vec3::new(
            draw.between(-1.0, 1.0),
            draw.between(1.5, 4.0),
            draw.between(-1.0, 1.0),
        );
        let bodies = tumble_scenes::ragdoll::add_ragdoll(&mut world, at, rotation);
        let spin = Vec3::new(
            draw.between(-5.0, 5.0),
            draw.between(-5.0, 5.0),
            draw.between(-5.0, 5.0),
        );
        world
            .body_mut(bodies[0])
            .unwrap()
            .set_angular_velocity(spin)
            .unwrap();
        for _ in 0..300 {
            world.step(DT);
        }
        for &b in &bodies {
            let body = world.body(b).unwrap();
            assert!(
                body.position().is_finite() && body.rotation().is_finite(),
                "drop {drop}: a NaN"
            );
        }
        for (handle, _) in world.joints() {
            let [a, b] = world.joint_anchors(handle).unwrap();
            worst = worst.max((b - a).length());
        }
    }
    println!("ragdoll dropped 100 times: joints apart at most {worst:.2e} m after 5 s");
    assert!(worst < 0.05, "a joint {worst} m apart");
}

/// README's joints example, as written there.
#[test]
fn the_readme_example_runs() -> Result<(), Box<dyn std::error::Error>> {
    use tumble::d2::*;
    use tumble::glam::Vec2;

    let mut world = World::new(Settings::default());
    let ground = world.add_body(
        BodyDesc::fixed(),
        ColliderDesc::new(Shape::cuboid(Vec2::new(20.0, 0.5))?),
    )?;
    // A door: a plank hinged to the ground at (0, 0.5), swinging within 90 degrees,
    // driven shut at 1 rad/s with at most 50 N·m.
    let door = world.add_body(
        BodyDesc::dynamic().position(Vec2::new(0.0, 1.5)),
        ColliderDesc::new(Shape::cuboid(Vec2::new(0.05, 1.0))?),
    )?;
    let hinge = world.add_joint(
        JointDesc::revolute(ground, door, Vec2::new(0.0, 0.5))
            .limits(-1.57, 0.0)
            .drive(-1.0, 50.0),
    )?;
    // A lamp on a rope 2 m long under the door's top.
    let lamp = world.add_body(
        BodyDesc::dynamic().position(Vec2::new(1.0, 1.0)),
        ColliderDesc::new(Shape::ball(0.2)?),
    )?;
    world.add_joint(
        JointDesc::distance(door, lamp, Vec2::new(0.0, 2.5), Vec2::new(1.0, 1.0))
            .range(0.0, 2.0)
            .break_force(500.0),
    )?;
    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    let angle = world.joint_angle(hinge).unwrap();
    assert!((-1.58..=0.01).contains(&angle));
    // Bad input is refused: a joint from a body to itself.
    assert!(world
        .add_joint(JointDesc::weld(door, door, Vec2::ZERO))
        .is_err());
    Ok(())
}

/// A 1 m arm hanging from a ball joint whose axis points down along it,
/// swung out level and spun about itself: the largest swing (radians) and
/// twist past the limits, with a cone of 0.5 rad and twist [-0.3, 0.3].
#[test]
fn a_ball_joint_keeps_its_cone_and_twist_limits() {
    use tumble::glam::Vec3;
    let mut world = World::<tumble::D3>::new(awake::<tumble::D3>());
    let top = pivot(&mut world, Vec3::new(0.0, 5.0, 0.0));
    let arm = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(0.0, 4.5, 0.0))
                .linear_velocity(Vec3::new(4.0, 0.0, 1.0))
                .angular_velocity(Vec3::new(0.0, 6.0, 0.0)),
            ColliderDesc::new(tumble::shape::Shape::capsule(0.45, 0.05).unwrap()),
        )
        .unwrap();
    world
        .add_joint(
            JointDesc::spherical(top, arm, Vec3::new(0.0, 5.0, 0.0))
                .axis(Vec3::NEG_Y)
                .cone(0.5)
                .twist_limits(-0.3, 0.3),
        )
        .unwrap();
    let (mut swing, mut twist) = (0.0f32, 0.0f32);
    for _ in 0..180 {
        world.step(DT);
        let q = world.body(arm).unwrap().rotation();
        let down = q * Vec3::NEG_Y;
        swing = swing.max(down.angle_between(Vec3::NEG_Y));
        let q = if q.w < 0.0 { -q } else { q };
        twist = twist.max((2.0 * q.xyz().dot(down).atan2(q.w)).abs());
    }
    println!("ball joint: swing at most {swing:.4} rad (cone 0.5), twist at most {twist:.4} rad (limit 0.3)");
    assert!(swing < 0.5 + 0.5f32.to_radians());
    assert!(twist < 0.3 + 0.5f32.to_radians());
}
