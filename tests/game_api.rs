//! What a game embedding the engine relies on: contact and sensor events,
//! collision filtering, user data, snapshots.

mod common;

use common::*;
use tumble::shape::Shape;
use tumble::{
    BodyDesc, ColliderDesc, CollisionFilter, ContactEvent, QueryFilter, SensorEvent, Settings,
    World,
};

const DT: f32 = 1.0 / 60.0;

fn started_and_stopped<D: Scene>(world: &World<D>) -> (usize, usize) {
    let started = world
        .contact_events()
        .iter()
        .filter(|e| matches!(e, ContactEvent::Started { .. }))
        .count();
    (started, world.contact_events().len() - started)
}

fn drop_and_lift<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let b = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 1.0)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    let (mut started, mut stopped) = (0, 0);
    let mut impulse = 0.0;
    for _ in 0..120 {
        world.step(DT);
        for e in world.contact_events() {
            if let ContactEvent::Started { impulse: i, .. } = e {
                impulse = *i;
            }
        }
        let (s, t) = started_and_stopped(&world);
        started += s;
        stopped += t;
    }
    assert_eq!((started, stopped), (1, 0), "{}: landing", D::NAME);
    assert!(
        impulse > 0.0,
        "the started event carries the step's impulse"
    );
    let mut body = world.body_mut(b).unwrap();
    body.set_position(D::v(0.0, 5.0)).unwrap();
    body.set_linear_velocity(D::v(0.0, 0.0)).unwrap();
    for _ in 0..10 {
        world.step(DT);
        let (s, t) = started_and_stopped(&world);
        started += s;
        stopped += t;
    }
    assert_eq!((started, stopped), (1, 1), "{}: lifted away", D::NAME);
}

#[test]
fn a_dropped_box_starts_touching_once_and_stops_once_lifted_2d() {
    drop_and_lift::<tumble::D2>();
}

#[test]
fn a_dropped_box_starts_touching_once_and_stops_once_lifted_3d() {
    drop_and_lift::<tumble::D3>();
}

fn through_a_sensor<D: Scene>() {
    let mut world = World::<D>::new(Settings {
        gravity: D::v(0.0, 0.0),
        ..Settings::default()
    });
    let sensor = world
        .add_body(
            BodyDesc::fixed(),
            ColliderDesc::new(D::cube(1.0)).sensor(true),
        )
        .unwrap();
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(-4.0, 0.0))
                .linear_velocity(D::v(4.0, 0.0)),
            ColliderDesc::new(Shape::ball(0.3).unwrap()),
        )
        .unwrap();
    let mut events = Vec::new();
    for _ in 0..120 {
        world.step(DT);
        events.extend_from_slice(world.sensor_events());
        assert!(
            world.contact_events().is_empty(),
            "a sensor makes no contact"
        );
    }
    assert_eq!(
        events,
        vec![
            SensorEvent::Entered {
                sensor,
                visitor: ball
            },
            SensorEvent::Left {
                sensor,
                visitor: ball
            }
        ]
    );
    let v = world.body(ball).unwrap().linear_velocity();
    assert!(
        D::len(v - D::v(4.0, 0.0)) < 1e-6,
        "{}: the ball was deflected: {v:?}",
        D::NAME
    );
}

#[test]
fn a_ball_passes_through_a_sensor_and_is_reported_2d() {
    through_a_sensor::<tumble::D2>();
}

#[test]
fn a_ball_passes_through_a_sensor_and_is_reported_3d() {
    through_a_sensor::<tumble::D3>();
}

fn filtered_out<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let ghost = CollisionFilter {
        category: 2,
        mask: !1,
    };
    let b = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 1.0)).user_data(42),
            ColliderDesc::new(D::cube(0.5)).filter(ghost).user_data(7),
        )
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    let body = world.body(b).unwrap();
    assert!(
        D::height(body.position()) < -1.0,
        "{}: the filtered box fell through the ground",
        D::NAME
    );
    assert_eq!((body.user_data(), body.collider_user_data()), (42, 7));
}

#[test]
fn filtered_colliders_pass_through_and_keep_user_data_2d() {
    filtered_out::<tumble::D2>();
}

#[test]
fn filtered_colliders_pass_through_and_keep_user_data_3d() {
    filtered_out::<tumble::D3>();
}

/// A dynamic unit cube at (x, y).
fn add_cube<D: Scene>(world: &mut World<D>, x: f32, y: f32) -> tumble::BodyHandle {
    world
        .add_body(
            BodyDesc::dynamic().position(D::v(x, y)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap()
}

/// Bodies added and removed between steps take part in the next step:
/// boxes dropped later, or where another was removed, land and rest, and
/// removing a box leaves the others resting.
fn replaced_body_lands<D: Scene>() {
    // Awake throughout, so every box is solved in every step.
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    add_ground::<D>(&mut world, 0.0);
    let first = add_cube(&mut world, 0.0, 1.0);
    let neighbour = add_cube(&mut world, 3.0, 1.0);
    let run = |world: &mut World<D>, steps| (0..steps).for_each(|_| world.step(DT));
    run(&mut world, 60);
    let late = add_cube(&mut world, -3.0, 1.0);
    run(&mut world, 60);
    world.remove_body(first).unwrap();
    run(&mut world, 60);
    let second = add_cube(&mut world, 0.0, 1.0);
    run(&mut world, 120);
    let boxes = [
        ("late", late),
        ("neighbour", neighbour),
        ("replacement", second),
    ];
    for (name, h) in boxes {
        let height = D::height(world.body(h).unwrap().position());
        assert!((height - 0.5).abs() < 0.02, "{name} at height {height}");
    }
}

#[test]
fn a_box_added_after_a_removal_lands_and_rests_2d() {
    replaced_body_lands::<tumble::D2>();
}

#[test]
fn a_box_added_after_a_removal_lands_and_rests_3d() {
    replaced_body_lands::<tumble::D3>();
}

fn pose_hash<D: Scene>(world: &World<D>) -> Vec<u32> {
    world
        .bodies()
        .flat_map(|(_, b)| D::bits(b.position()))
        .collect()
}

fn snapshot_continues<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    add_pyramid::<D>(&mut world, 8);
    for _ in 0..100 {
        world.step(DT);
    }
    let snapshot = world.clone();
    for _ in 0..200 {
        world.step(DT);
    }
    let mut restored = snapshot;
    for _ in 0..200 {
        restored.step(DT);
    }
    assert_eq!(
        pose_hash(&world),
        pose_hash(&restored),
        "{}: the restored world diverged",
        D::NAME
    );
}

#[test]
fn a_snapshot_continues_bit_identically_2d() {
    snapshot_continues::<tumble::D2>();
}

#[test]
fn a_snapshot_continues_bit_identically_3d() {
    snapshot_continues::<tumble::D3>();
}

fn platform_carries<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let platform = world
        .add_body(
            BodyDesc::kinematic(),
            ColliderDesc::new(D::cuboid(2.0, 0.25)).friction(1.0),
        )
        .unwrap();
    let rider = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 0.75)),
            ColliderDesc::new(D::cube(0.5)).friction(1.0),
        )
        .unwrap();
    assert!(
        world
            .body_mut(rider)
            .unwrap()
            .set_kinematic_target(D::v(1.0, 0.0), D::tilt(0.0))
            .is_err(),
        "only kinematic bodies take targets"
    );
    for _ in 0..60 {
        world.step(DT);
    }
    for step in 1..=120 {
        // Smoothstep from 0 to 2 m: no jump in speed for friction to chase.
        let s = step as f32 / 120.0;
        let x = 2.0 * s * s * (3.0 - 2.0 * s);
        world
            .body_mut(platform)
            .unwrap()
            .set_kinematic_target(D::v(x, 0.0), D::tilt(0.0))
            .unwrap();
        world.step(DT);
        let at = world.body(platform).unwrap().position();
        assert!(
            D::len(at - D::v(x, 0.0)) < 1e-5,
            "{}: the platform is at {at:?}, not at x = {x}",
            D::NAME
        );
    }
    let carried = world.body(rider).unwrap().position();
    println!("{}: rider carried to {carried:?}", D::NAME);
    assert!(
        (D::dot(carried, D::v(1.0, 0.0)) - 2.0).abs() < 0.01,
        "{}: the rider slid: {carried:?}",
        D::NAME
    );
}

#[test]
fn a_kinematic_platform_driven_by_targets_carries_a_box_2d() {
    platform_carries::<tumble::D2>();
}

#[test]
fn a_kinematic_platform_driven_by_targets_carries_a_box_3d() {
    platform_carries::<tumble::D3>();
}

/// Speed of the target-driven platforms below, m/s along X.
const PLATFORM_SPEED: f32 = 2.0;
/// Turn rate of the target-driven turntable below, rad/s about Z.
const PLATFORM_SPIN: f32 = 1.5;
/// How close a target-driven body's velocity reads to the one it moves
/// at (the bar): the velocity is the step's displacement over the
/// step, rounded at positions of a few metres.
const READ_TOLERANCE: f32 = 1e-4;

/// A kinematic platform 4 m wide (top at y = 0.25), friction `friction`,
/// and a turntable beside it, both kinematic.
fn platform_and_turntable<D: Scene>(
    world: &mut World<D>,
    friction: f32,
) -> (tumble::BodyHandle, tumble::BodyHandle) {
    let platform = world
        .add_body(
            BodyDesc::kinematic(),
            ColliderDesc::new(D::cuboid(2.0, 0.25)).friction(friction),
        )
        .unwrap();
    let turntable = world
        .add_body(
            BodyDesc::kinematic().position(D::v(0.0, -5.0)),
            ColliderDesc::new(D::cuboid(1.0, 0.25)),
        )
        .unwrap();
    (platform, turntable)
}

/// Gives the platform and the turntable their targets for step `step`
/// (counted from 1): `PLATFORM_SPEED` along X and `PLATFORM_SPIN` about Z.
fn drive<D: Scene>(
    world: &mut World<D>,
    (platform, turntable): (tumble::BodyHandle, tumble::BodyHandle),
    step: usize,
) {
    let t = step as f32 * DT;
    world
        .body_mut(platform)
        .unwrap()
        .set_kinematic_target(D::v(PLATFORM_SPEED * t, 0.0), D::tilt(0.0))
        .unwrap();
    world
        .body_mut(turntable)
        .unwrap()
        .set_kinematic_target(D::v(0.0, -5.0), D::tilt(PLATFORM_SPIN * t))
        .unwrap();
}

/// A platform driven by a target every step reads the velocity it moves
/// at after every step, and a turntable its spin (before, both read zero:
/// the step stopped them on their targets); a step without a target stops
/// them on their last one, reading zero, and a velocity set after a target
/// keeps a platform moving.
fn target_velocities<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let bodies = platform_and_turntable(&mut world, 0.6);
    let (platform, turntable) = bodies;
    let mut worst = (0.0f32, 0.0f32);
    for step in 1..=120 {
        drive(&mut world, bodies, step);
        world.step(DT);
        let moving = world.body(platform).unwrap();
        let turning = world.body(turntable).unwrap();
        let v = moving.linear_velocity() - D::v(PLATFORM_SPEED, 0.0);
        let w = D::spin_z(turning.angular_velocity()) - PLATFORM_SPIN;
        worst = (worst.0.max(D::len(v)), worst.1.max(w.abs()));
        assert!(
            D::len(v) < READ_TOLERANCE && w.abs() < READ_TOLERANCE,
            "{}: step {step}: the platform reads {:?}, the turntable {:?}",
            D::NAME,
            moving.linear_velocity(),
            turning.angular_velocity()
        );
        let x = PLATFORM_SPEED * step as f32 * DT;
        assert!(
            D::len(moving.position() - D::v(x, 0.0)) < 1e-5,
            "{}: the platform is on its target",
            D::NAME
        );
    }
    println!(
        "{}: read velocities off by at most {:.1e} m/s and {:.1e} rad/s",
        D::NAME,
        worst.0,
        worst.1
    );
    // No target: both stop where the last one put them.
    let at = world.body(platform).unwrap().position();
    world.step(DT);
    let (moving, turning) = (
        world.body(platform).unwrap(),
        world.body(turntable).unwrap(),
    );
    assert_eq!(moving.linear_velocity(), D::v(0.0, 0.0), "{}", D::NAME);
    assert_eq!(D::spin_z(turning.angular_velocity()), 0.0, "{}", D::NAME);
    assert!(
        D::len(moving.position() - at) < 1e-6,
        "{}: stopped on the target",
        D::NAME
    );
    // A velocity set after a target's step keeps the platform moving.
    drive(&mut world, bodies, 121);
    world.step(DT);
    let read = world.body(platform).unwrap().linear_velocity();
    world
        .body_mut(platform)
        .unwrap()
        .set_linear_velocity(read)
        .unwrap();
    let before = world.body(platform).unwrap().position();
    world.step(DT);
    let moving = world.body(platform).unwrap();
    assert_eq!(moving.linear_velocity(), read, "{}: kept", D::NAME);
    assert!(
        (D::dot(moving.position() - before, D::v(1.0, 0.0)) - PLATFORM_SPEED * DT).abs() < 1e-5,
        "{}: moved on at the velocity set",
        D::NAME
    );
}

#[test]
fn a_target_driven_platform_reads_the_velocity_it_moves_at_2d() {
    target_velocities::<tumble::D2>();
}

#[test]
fn a_target_driven_platform_reads_the_velocity_it_moves_at_3d() {
    target_velocities::<tumble::D3>();
}

/// A call split into several steps (`Settings::max_step`) moves a
/// target-driven platform evenly over them and ends it on its target,
/// reading the velocity it moved at (before, it reached the target in the
/// first step and stood still for the others).
fn split_call<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let bodies = platform_and_turntable(&mut world, 0.6);
    let (platform, turntable) = bodies;
    // Three frames' time in one call: two steps of 1/40 s.
    let long = 3.0 * DT;
    let to = D::v(PLATFORM_SPEED * long, 0.0);
    world
        .body_mut(platform)
        .unwrap()
        .set_kinematic_target(to, D::tilt(0.0))
        .unwrap();
    world
        .body_mut(turntable)
        .unwrap()
        .set_kinematic_target(D::v(0.0, -5.0), D::tilt(PLATFORM_SPIN * long))
        .unwrap();
    world.step(long);
    let moving = world.body(platform).unwrap();
    assert_eq!(moving.position(), to, "{}: on the target", D::NAME);
    let v = moving.linear_velocity() - D::v(PLATFORM_SPEED, 0.0);
    let w = D::spin_z(world.body(turntable).unwrap().angular_velocity()) - PLATFORM_SPIN;
    assert!(
        D::len(v) < READ_TOLERANCE && w.abs() < READ_TOLERANCE,
        "{}: reads {:?} after a split call",
        D::NAME,
        moving.linear_velocity()
    );
}

#[test]
fn a_call_split_into_steps_moves_a_target_driven_platform_evenly_2d() {
    split_call::<tumble::D2>();
}

#[test]
fn a_call_split_into_steps_moves_a_target_driven_platform_evenly_3d() {
    split_call::<tumble::D3>();
}

/// Seconds the platform speeds up over, from rest to `PLATFORM_SPEED`
/// (friction, 0.6 × g, needs a third of a second to bring the box along).
const SPEED_UP: f32 = 0.5;

/// A box resting on a target-driven platform moving at 2 m/s is carried
/// at the speed the platform reads.
fn box_carried<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let bodies = platform_and_turntable(&mut world, 0.6);
    let platform = bodies.0;
    let rider = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 0.75)),
            ColliderDesc::new(D::cube(0.5)).friction(0.6),
        )
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    let (mut x, mut worst) = (0.0, 0.0f32);
    let steps = (1.5 / DT) as usize;
    for step in 1..=steps {
        let speed = PLATFORM_SPEED * (step as f32 * DT / SPEED_UP).min(1.0);
        x += speed * DT;
        world
            .body_mut(platform)
            .unwrap()
            .set_kinematic_target(D::v(x, 0.0), D::tilt(0.0))
            .unwrap();
        world.step(DT);
        if step as f32 * DT > 2.0 * SPEED_UP {
            let carrier = world.body(platform).unwrap().linear_velocity();
            let carried = world.body(rider).unwrap().linear_velocity();
            worst = worst.max(D::len(carried - carrier));
            assert!(
                D::len(carrier - D::v(PLATFORM_SPEED, 0.0)) < READ_TOLERANCE,
                "{}: the platform reads {carrier:?}",
                D::NAME
            );
        }
    }
    println!("{}: the box is carried within {worst:.1e} m/s", D::NAME);
    assert!(
        worst < 1e-3,
        "{}: the box moves {worst} m/s off the platform's speed",
        D::NAME
    );
}

#[test]
fn a_box_on_a_target_driven_platform_moves_at_the_speed_it_reads_2d() {
    box_carried::<tumble::D2>();
}

#[test]
fn a_box_on_a_target_driven_platform_moves_at_the_speed_it_reads_3d() {
    box_carried::<tumble::D3>();
}

/// Most a player matching the platform's velocity may drift on it in 2 s
/// (the bar), metres.
const PLAYER_DRIFT: f32 = 0.01;

/// A player (frictionless: only the velocity it sets carries it) on a
/// platform moving at 2 m/s by targets sets its own velocity to the
/// platform's, read from `linear_velocity()`, every frame, keeping its
/// fall: it stays where it stood on the platform.
fn player_matches<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let bodies = platform_and_turntable(&mut world, 0.0);
    let platform = bodies.0;
    // The platform is under way before the player comes.
    for step in 1..=30 {
        drive(&mut world, bodies, step);
        world.step(DT);
    }
    let start = world.body(platform).unwrap().position();
    let player = world
        .add_body(
            BodyDesc::dynamic()
                .position(start + D::v(0.5, 0.75))
                .fixed_rotation(),
            ColliderDesc::new(D::cube(0.5)).friction(0.0),
        )
        .unwrap();
    let offset = |world: &World<D>| {
        world.body(player).unwrap().position() - world.body(platform).unwrap().position()
    };
    let first = offset(&world);
    let mut drift = 0.0f32;
    for step in 31..=30 + (2.0 / DT) as usize {
        drive(&mut world, bodies, step);
        let carrier = world.body(platform).unwrap().linear_velocity();
        let mut body = world.body_mut(player).unwrap();
        let fall = D::height(body.linear_velocity());
        let level = carrier - D::v(0.0, D::height(carrier));
        body.set_linear_velocity(level + D::v(0.0, fall)).unwrap();
        world.step(DT);
        drift = drift.max(D::sideways(offset(&world) - first));
    }
    println!(
        "{}: the player drifted {drift:.1e} m on the platform",
        D::NAME
    );
    assert!(
        drift < PLAYER_DRIFT,
        "{}: the player drifted {drift} m on the platform",
        D::NAME
    );
}

#[test]
fn a_player_matching_a_target_driven_platform_stays_on_it_2d() {
    player_matches::<tumble::D2>();
}

#[test]
fn a_player_matching_a_target_driven_platform_stays_on_it_3d() {
    player_matches::<tumble::D3>();
}

fn compound_rests<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    // An L of two boxes: a long base and a post standing on its right end.
    let base = ColliderDesc::new(D::cuboid(1.0, 0.25));
    let l_shape = world
        .add_body(BodyDesc::dynamic().position(D::v(0.0, 1.0)), base)
        .unwrap();
    let post = world
        .add_collider(
            l_shape,
            ColliderDesc::new(D::cuboid(0.25, 0.5)).local_pose(D::v(0.75, 0.75), D::tilt(0.0)),
        )
        .unwrap();
    let body = world.body(l_shape).unwrap();
    assert_eq!(body.colliders().len(), 2);
    let center = body.center_of_mass();
    assert!(
        D::dot(center - D::v(0.0, 1.0), D::v(1.0, 0.0)) > 0.05,
        "{}: the centre moved towards the post: {center:?}",
        D::NAME
    );
    for step in 0..600 {
        if step % 60 == 0 {
            let b = world.body(l_shape).unwrap();
            eprintln!(
                "{} {step} v {:?} w {:?} p {:?}",
                D::NAME,
                b.linear_velocity(),
                b.angular_velocity(),
                b.position()
            );
        }
        world.step(DT);
    }
    let body = world.body(l_shape).unwrap();
    assert!(
        D::len(body.linear_velocity()) < 1e-3,
        "{}: still moving: {:?} at {:?}",
        D::NAME,
        body.linear_velocity(),
        body.position()
    );
    assert!(
        (D::height(body.position()) - 0.25).abs() < 0.01,
        "{}: the base rests flat: {:?}",
        D::NAME,
        body.position()
    );
    let hit = world
        .cast_ray(
            D::v(0.75, 5.0),
            D::v(0.0, -1.0),
            10.0,
            &QueryFilter::default(),
        )
        .expect("the post is below");
    assert_eq!((hit.body, hit.collider), (l_shape, post));
    assert!(
        (hit.distance - (5.0 - 1.5)).abs() < 0.02,
        "{}: the post's top is 1.5 m up: {hit:?}",
        D::NAME
    );
    assert!(
        world
            .add_collider(
                tumble::BodyHandle::default(),
                ColliderDesc::new(D::cube(0.5))
            )
            .is_err(),
        "stale handle"
    );
}

#[test]
fn a_compound_body_rests_and_is_hit_per_collider_2d() {
    compound_rests::<tumble::D2>();
}

#[test]
fn a_compound_body_rests_and_is_hit_per_collider_3d() {
    compound_rests::<tumble::D3>();
}

#[test]
fn the_step_profile_adds_up() {
    let mut world = World::<tumble::D3>::new(Settings::default());
    add_ground::<tumble::D3>(&mut world, 0.0);
    add_pyramid::<tumble::D3>(&mut world, 6);
    world.step(DT);
    let p = *world.profile();
    let stages = p.broad_phase + p.narrow_phase + p.solver + p.islands;
    assert!(p.total > 0.0 && stages <= p.total * 1.0001 + 1e-6, "{p:?}");
}

/// A fixed body the game moves takes its contacts along: a platform moved
/// under a falling box catches it, a box asleep on a platform moved away
/// wakes and falls, and one asleep on a platform lowered a little follows it.
fn moved_fixed_platform<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let platform = |world: &mut World<D>, x: f32| {
        world
            .add_body(
                BodyDesc::fixed().position(D::v(x, 0.0)),
                ColliderDesc::new(D::cuboid(1.0, 0.25)),
            )
            .unwrap()
    };
    let dropped = add_cube(&mut world, 0.0, 0.75);
    let lowered = add_cube(&mut world, 5.0, 0.75);
    let [under_dropped, under_lowered, catcher] =
        [0.0, 5.0, -10.0].map(|x| platform(&mut world, x));
    for _ in 0..120 {
        world.step(DT);
    }
    for h in [dropped, lowered] {
        assert!(world.body(h).unwrap().is_sleeping(), "settled and asleep");
    }
    let falling = add_cube(&mut world, 10.0, 3.0);
    let place = |world: &mut World<D>, h, x: f32, y: f32| {
        world.body_mut(h).unwrap().set_position(D::v(x, y)).unwrap();
    };
    place(&mut world, catcher, 10.0, 0.0);
    place(&mut world, under_dropped, 20.0, 0.0);
    place(&mut world, under_lowered, 5.0, -0.1);
    for _ in 0..120 {
        world.step(DT);
    }
    let height = |h| D::height(world.body(h).unwrap().position());
    assert!(
        (height(falling) - 0.75).abs() < 0.02,
        "caught at {}",
        height(falling)
    );
    assert!(height(dropped) < -5.0, "dropped box at {}", height(dropped));
    assert!(
        (height(lowered) - 0.65).abs() < 0.02,
        "lowered box at {}",
        height(lowered)
    );
}

/// A game that sets a fixed platform's position every frame, unchanged,
/// does not keep the box on it awake, while another body sleeps elsewhere.
fn platform_held_in_place<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let elsewhere = add_cube(&mut world, -20.0, 0.5);
    for _ in 0..60 {
        world.step(DT);
    }
    assert!(world.body(elsewhere).unwrap().is_sleeping());
    let at = D::v(20.0, 2.0);
    let platform = world
        .add_body(
            BodyDesc::fixed().position(at),
            ColliderDesc::new(D::cuboid(1.0, 0.25)),
        )
        .unwrap();
    let resting = add_cube(&mut world, 20.0, 2.75);
    let mut asleep = Vec::new();
    for _ in 0..180 {
        world.body_mut(platform).unwrap().set_position(at).unwrap();
        world.step(DT);
        asleep.push(world.body(resting).unwrap().is_sleeping());
    }
    let fell_asleep = asleep.iter().position(|&a| a).expect("never slept");
    assert!(fell_asleep < 120, "slept only after {fell_asleep} steps");
    assert!(asleep[fell_asleep..].iter().all(|&a| a), "woken again");
}

#[test]
fn a_platform_set_where_it_is_every_frame_lets_its_box_sleep_2d() {
    platform_held_in_place::<tumble::D2>();
}

#[test]
fn a_platform_set_where_it_is_every_frame_lets_its_box_sleep_3d() {
    platform_held_in_place::<tumble::D3>();
}

#[test]
fn a_moved_fixed_platform_catches_and_drops_boxes_2d() {
    moved_fixed_platform::<tumble::D2>();
}

#[test]
fn a_moved_fixed_platform_catches_and_drops_boxes_3d() {
    moved_fixed_platform::<tumble::D3>();
}
