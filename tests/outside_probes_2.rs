//! Probes from outside, second round: contact and sensor events, scene
//! queries on rotated and rounded shapes, locks, friction and restitution,
//! stacking, sleeping and collision filters, with numbers the other tests
//! do not use. Probes that found a bug are `#[ignore = "bug: ..."]`.

mod common;

use common::awake;
use tumble::glam::{Quat, Vec2, Vec3};
use tumble::shape::Aabb;
use tumble::{
    Axes, BodyDesc, BodyHandle, ColliderDesc, ColliderHandle, CollisionFilter, ContactEvent, Locks,
    Pose, QueryFilter, SensorEvent, Settings, World, D2, D3,
};

type Shape2 = tumble::shape::Shape<D2>;
type Shape3 = tumble::shape::Shape<D3>;

const DT: f32 = 1.0 / 60.0;

fn ground2(world: &mut World<D2>) -> BodyHandle {
    world
        .add_body(
            BodyDesc::fixed().position(Vec2::new(0.0, -0.5)),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(40.0, 0.5)).unwrap()),
        )
        .unwrap()
}

fn ground3(world: &mut World<D3>) -> BodyHandle {
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::new(40.0, 0.5, 40.0)).unwrap()),
        )
        .unwrap()
}

fn box2(world: &mut World<D2>, at: Vec2, half: Vec2) -> BodyHandle {
    world
        .add_body(
            BodyDesc::dynamic().position(at),
            ColliderDesc::new(Shape2::cuboid(half).unwrap()),
        )
        .unwrap()
}

fn box3(world: &mut World<D3>, at: Vec3, half: Vec3) -> BodyHandle {
    world
        .add_body(
            BodyDesc::dynamic().position(at),
            ColliderDesc::new(Shape3::cuboid(half).unwrap()),
        )
        .unwrap()
}

fn first_collider<D: tumble::Dim>(world: &World<D>, body: BodyHandle) -> ColliderHandle {
    world.body(body).unwrap().colliders()[0].handle()
}

/// Sensor events seen over `steps` steps, each with its step.
fn run_sensor_events<D: tumble::Dim>(
    world: &mut World<D>,
    steps: usize,
) -> Vec<(usize, SensorEvent)> {
    let mut out = Vec::new();
    for i in 0..steps {
        world.step(DT);
        out.extend(world.sensor_events().iter().map(|e| (i, *e)));
    }
    out
}

fn entered(events: &[(usize, SensorEvent)], sensor: BodyHandle, visitor: BodyHandle) -> usize {
    events
        .iter()
        .filter(|(_, e)| *e == SensorEvent::Entered { sensor, visitor })
        .count()
}

fn left(events: &[(usize, SensorEvent)], sensor: BodyHandle, visitor: BodyHandle) -> usize {
    events
        .iter()
        .filter(|(_, e)| *e == SensorEvent::Left { sensor, visitor })
        .count()
}

// ---------------------------------------------------------------- sensors

/// A visitor made of two colliders side by side crossing a sensor enters
/// once and leaves once: the events are per body, not per collider.
#[test]
fn a_two_part_body_crossing_a_sensor_enters_once_and_leaves_once_2d() {
    let mut world = World::<D2>::new(Settings {
        gravity: Vec2::ZERO,
        ..awake()
    });
    let sensor = world
        .add_body(
            BodyDesc::fixed().position(Vec2::new(3.0, 0.0)),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(0.7, 2.0)).unwrap()).sensor(true),
        )
        .unwrap();
    let visitor = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec2::new(0.0, 0.0))
                .linear_velocity(Vec2::new(4.5, 0.0)),
            ColliderDesc::new(Shape2::ball(0.25).unwrap()),
        )
        .unwrap();
    world
        .add_collider(
            visitor,
            ColliderDesc::new(Shape2::cuboid(Vec2::splat(0.2)).unwrap())
                .local_pose(Vec2::new(-0.9, 0.0), 0.0),
        )
        .unwrap();
    let events = run_sensor_events(&mut world, 120);
    assert_eq!(entered(&events, sensor, visitor), 1, "{events:?}");
    assert_eq!(left(&events, sensor, visitor), 1, "{events:?}");
    let x = world.body(visitor).unwrap().position().x;
    assert!(
        (x - 4.5 * 2.0).abs() < 0.05,
        "the sensor pushed the visitor: x {x}"
    );
    // Entered before left, and left only once both parts are out: the
    // rear part (0.9 m behind, 0.2 m half width) clears 3.7 at x = 4.8. A
    // step's events are of the poses it began with (the narrow phase runs
    // before the bodies move), so the step that reports it began with the
    // centre within one step's travel past 4.8.
    let (enter_step, _) = events[0];
    let (left_step, _) = events[1];
    assert!(enter_step < left_step);
    let x_seen = 4.5 * DT * left_step as f32;
    assert!(
        x_seen > 4.8 && x_seen <= 4.8 + 4.5 * DT + 1e-4,
        "left seen at x {x_seen}, the rear part inside until 4.8"
    );
}

/// A kinematic sensor swept across a row of sleeping boxes reports each
/// box entering and leaving once, and does not push them.
#[test]
fn a_kinematic_sensor_swept_over_sleeping_boxes_reports_each_once_3d() {
    let mut world = World::<D3>::new(Settings::default());
    ground3(&mut world);
    let boxes: Vec<BodyHandle> = (0..4)
        .map(|i| {
            box3(
                &mut world,
                Vec3::new(i as f32 * 1.7, 0.3, 0.0),
                Vec3::splat(0.3),
            )
        })
        .collect();
    for _ in 0..120 {
        world.step(DT);
    }
    assert!(boxes.iter().all(|&b| world.body(b).unwrap().is_sleeping()));
    let rest: Vec<Vec3> = boxes
        .iter()
        .map(|&b| world.body(b).unwrap().position())
        .collect();
    let sensor = world
        .add_body(
            BodyDesc::kinematic()
                .position(Vec3::new(-2.0, 0.5, 0.0))
                .linear_velocity(Vec3::new(3.0, 0.0, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::new(0.4, 0.6, 0.6)).unwrap()).sensor(true),
        )
        .unwrap();
    let events = run_sensor_events(&mut world, 190);
    for &b in &boxes {
        assert_eq!(entered(&events, sensor, b), 1, "{b:?}: {events:?}");
        assert_eq!(left(&events, sensor, b), 1, "{b:?}: {events:?}");
    }
    for (&b, r) in boxes.iter().zip(rest) {
        let moved = (world.body(b).unwrap().position() - r).length();
        assert!(moved < 1e-3, "the sensor moved a box by {moved} m");
    }
}

/// Removing a visitor inside a sensor reports it left, once, in the next
/// step's events; removing the sensor itself reports every visitor left.
#[test]
fn removing_a_visitor_or_the_sensor_reports_left_once_2d() {
    let mut world = World::<D2>::new(awake());
    ground2(&mut world);
    let sensor = world
        .add_body(
            BodyDesc::fixed().position(Vec2::new(0.0, 1.0)),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(3.0, 1.0)).unwrap()).sensor(true),
        )
        .unwrap();
    let a = box2(&mut world, Vec2::new(-1.0, 0.25), Vec2::splat(0.25));
    let b = box2(&mut world, Vec2::new(1.0, 0.25), Vec2::splat(0.25));
    let events = run_sensor_events(&mut world, 10);
    assert_eq!(entered(&events, sensor, a), 1);
    assert_eq!(entered(&events, sensor, b), 1);
    // Removal events are there at once (until the next step clears them).
    world.remove_body(a).unwrap();
    assert_eq!(
        world.sensor_events(),
        &[SensorEvent::Left { sensor, visitor: a }]
    );
    let events = run_sensor_events(&mut world, 10);
    assert!(events.is_empty(), "{events:?}");
    world.remove_body(sensor).unwrap();
    assert_eq!(
        world.sensor_events(),
        &[SensorEvent::Left { sensor, visitor: b }]
    );
    let events = run_sensor_events(&mut world, 10);
    assert!(events.is_empty(), "{events:?}");
}

/// Removing only the sensor collider (the body stays) reports its visitor
/// left, and turning a resting box's support into a sensor stops the
/// contact, lets the box fall through and reports it entered.
#[test]
fn removing_a_sensor_collider_and_turning_a_support_into_a_sensor_3d() {
    let mut world = World::<D3>::new(awake());
    let ground = ground3(&mut world);
    let holder = world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(5.0, 1.0, 0.0)),
            ColliderDesc::new(Shape3::cuboid(Vec3::splat(0.1)).unwrap()),
        )
        .unwrap();
    let trigger = world
        .add_collider(
            holder,
            ColliderDesc::new(Shape3::ball(1.2).unwrap())
                .sensor(true)
                .local_pose(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY),
        )
        .unwrap();
    let cube = box3(&mut world, Vec3::new(5.0, 0.35, 0.0), Vec3::splat(0.35));
    let events = run_sensor_events(&mut world, 30);
    assert_eq!(entered(&events, holder, cube), 1, "{events:?}");
    world.remove_collider(trigger).unwrap();
    assert_eq!(
        world.sensor_events(),
        &[SensorEvent::Left {
            sensor: holder,
            visitor: cube
        }]
    );
    let events = run_sensor_events(&mut world, 5);
    assert!(events.is_empty(), "{events:?}");

    // Now the ground becomes a sensor under the resting cube.
    let floor = first_collider(&world, ground);
    let cube_c = first_collider(&world, cube);
    world.set_collider_sensor(floor, true).unwrap();
    let mut stopped = 0;
    let mut sensor_events = Vec::new();
    for i in 0..30 {
        world.step(DT);
        stopped += world
            .contact_events()
            .iter()
            .filter(|e| {
                matches!(e, ContactEvent::Stopped { collider_a, collider_b, .. }
                    if [*collider_a, *collider_b].contains(&floor) && [*collider_a, *collider_b].contains(&cube_c))
            })
            .count();
        sensor_events.extend(world.sensor_events().iter().map(|e| (i, *e)));
    }
    assert_eq!(stopped, 1);
    assert_eq!(
        entered(&sensor_events, ground, cube),
        1,
        "{sensor_events:?}"
    );
    let y = world.body(cube).unwrap().position().y;
    assert!(
        y < -0.5,
        "the cube should fall through a sensor floor: y {y}"
    );
}

/// Two sensors overlapping: whatever the engine's choice (report or not),
/// enters and leaves pair up, and a sensor never pushes a sensor.
#[test]
fn sensors_passing_through_sensors_pair_their_events_2d() {
    let mut world = World::<D2>::new(Settings {
        gravity: Vec2::ZERO,
        ..awake()
    });
    let still = world
        .add_body(
            BodyDesc::fixed(),
            ColliderDesc::new(Shape2::ball(1.0).unwrap()).sensor(true),
        )
        .unwrap();
    let mover = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec2::new(-4.0, 0.3))
                .linear_velocity(Vec2::new(5.0, 0.0)),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(0.5, 0.3)).unwrap()).sensor(true),
        )
        .unwrap();
    let events = run_sensor_events(&mut world, 120);
    let n_in = entered(&events, still, mover) + entered(&events, mover, still);
    let n_out = left(&events, still, mover) + left(&events, mover, still);
    assert_eq!(n_in, n_out, "{events:?}");
    assert!(n_in <= 2, "{events:?}");
    let v = world.body(mover).unwrap().linear_velocity();
    assert!((v - Vec2::new(5.0, 0.0)).length() < 1e-4, "v {v}");
}

// ---------------------------------------------------------------- contact events

fn contact_counts<D: tumble::Dim>(
    world: &World<D>,
    a: ColliderHandle,
    b: ColliderHandle,
) -> (usize, usize) {
    let is = |ca: ColliderHandle, cb: ColliderHandle| (ca == a && cb == b) || (ca == b && cb == a);
    let mut s = 0;
    let mut t = 0;
    for e in world.contact_events() {
        match *e {
            ContactEvent::Started {
                collider_a,
                collider_b,
                ..
            } if is(collider_a, collider_b) => s += 1,
            ContactEvent::Stopped {
                collider_a,
                collider_b,
                ..
            } if is(collider_a, collider_b) => t += 1,
            _ => {}
        }
    }
    (s, t)
}

/// A ball bouncing with restitution 0.8 on a floor: every bounce that
/// leaves the speculative distance stops and starts again; over the whole
/// run starts and stops alternate, starting first, and a removed ball
/// closes its last start.
#[test]
fn a_bouncing_ball_alternates_started_and_stopped_and_removal_closes_it_3d() {
    let mut world = World::<D3>::new(awake());
    let ground = ground3(&mut world);
    let ball = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(0.0, 2.3, 0.0)),
            ColliderDesc::new(Shape3::ball(0.2).unwrap()).restitution(0.8),
        )
        .unwrap();
    let g = first_collider(&world, ground);
    let b = first_collider(&world, ball);
    let mut open = 0i32;
    let mut starts = 0;
    for _ in 0..200 {
        world.step(DT);
        let (s, t) = contact_counts(&world, g, b);
        assert!(s + t <= 1, "both in one step");
        open += s as i32 - t as i32;
        starts += s;
        assert!((0..=1).contains(&open), "unbalanced: {open}");
    }
    assert!(
        starts >= 3,
        "a 0.8 ball from 2.1 m bounces several times: {starts}"
    );
    if open == 1 {
        world.remove_body(ball).unwrap();
        let (s, t) = contact_counts(&world, g, b);
        assert_eq!((s, t), (0, 1), "removal must report the stop");
    }
}

// ---------------------------------------------------------------- queries

/// Rays against a box turned 30 degrees, from outside and from inside; a
/// zero-length ray from inside hits at 0 and from outside misses.
#[test]
fn rays_against_a_turned_box_from_outside_inside_and_zero_length_2d() {
    let mut world = World::<D2>::new(awake());
    let angle = 30f32.to_radians();
    let b = world
        .add_body(
            BodyDesc::fixed()
                .position(Vec2::new(2.0, 1.0))
                .rotation(angle),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(1.0, 0.4)).unwrap()),
        )
        .unwrap();
    let all = QueryFilter::default();
    // Along the box's own local +x axis from far out: hits at the face.
    let axis = Vec2::new(angle.cos(), angle.sin());
    let from = Vec2::new(2.0, 1.0) - axis * 5.0;
    let hit = world.cast_ray(from, axis, 10.0, &all).unwrap();
    assert_eq!(hit.body, b);
    assert!((hit.distance - 4.0).abs() < 1e-4, "{hit:?}");
    assert!((hit.normal + axis).length() < 1e-4, "{hit:?}");
    // Straight down onto the top: the top face's edge y at x = 2 is
    // 1 + 0.4 / cos 30.
    let hit = world
        .cast_ray(Vec2::new(2.0, 5.0), Vec2::NEG_Y, 10.0, &all)
        .unwrap();
    let top = 1.0 + 0.4 / angle.cos();
    assert!((hit.point.y - top).abs() < 1e-4, "{hit:?} vs {top}");
    // From inside: distance 0.
    let hit = world
        .cast_ray(Vec2::new(2.1, 1.05), Vec2::X, 3.0, &all)
        .unwrap();
    assert_eq!(hit.distance, 0.0, "{hit:?}");
    let hit = world.cast_ray(Vec2::new(2.1, 1.05), Vec2::X, 0.0, &all);
    assert!(hit.is_some_and(|h| h.distance == 0.0), "{hit:?}");
    // Zero length from outside: nothing.
    assert!(world.cast_ray(from, axis, 0.0, &all).is_none());
    // Points: inside the turned box but outside its unturned one, and the
    // other way round.
    let inside_turned = Vec2::new(2.0, 1.0) + axis * 0.95;
    assert_eq!(world.bodies_at_point(inside_turned, &all), vec![b]);
    let corner_of_unturned = Vec2::new(2.95, 1.38);
    assert!(world.bodies_at_point(corner_of_unturned, &all).is_empty());
}

/// Capsules and polygons turned, rays and points against them; then a
/// shape cast onto a turned capsule.
#[test]
fn a_turned_capsule_and_polygon_answer_rays_points_and_casts_2d() {
    let mut world = World::<D2>::new(awake());
    // Capsule lying along X (turned 90 degrees), segment -0.8..0.8, r 0.3.
    let cap = world
        .add_body(
            BodyDesc::fixed()
                .position(Vec2::new(0.0, 2.0))
                .rotation(std::f32::consts::FRAC_PI_2),
            ColliderDesc::new(Shape2::capsule(0.8, 0.3).unwrap()),
        )
        .unwrap();
    let tri = Shape2::convex_polygon(&[
        Vec2::new(-1.0, 0.0),
        Vec2::new(1.0, 0.0),
        Vec2::new(0.0, 1.5),
    ])
    .unwrap();
    let poly = world
        .add_body(
            BodyDesc::fixed()
                .position(Vec2::new(5.0, 0.0))
                .rotation(std::f32::consts::PI),
            ColliderDesc::new(tri),
        )
        .unwrap();
    let all = QueryFilter::default();
    // Down onto the capsule's flat middle at x = 0.5: top at 2.3.
    let hit = world
        .cast_ray(Vec2::new(0.5, 4.0), Vec2::NEG_Y, 5.0, &all)
        .unwrap();
    assert_eq!(hit.body, cap);
    assert!((hit.distance - 1.7).abs() < 1e-4, "{hit:?}");
    // Down onto its rounded end at x = 0.8 + 0.3 sin 45: y = 2 + 0.3 cos 45.
    let s = 0.3 * std::f32::consts::FRAC_1_SQRT_2;
    let hit = world
        .cast_ray(Vec2::new(0.8 + s, 4.0), Vec2::NEG_Y, 5.0, &all)
        .unwrap();
    assert!((hit.point.y - (2.0 + s)).abs() < 1e-3, "{hit:?}");
    assert!(
        (hit.normal - Vec2::new(1.0, 1.0).normalize()).length() < 1e-3,
        "{hit:?}"
    );
    // Points near the capsule's ends.
    assert_eq!(world.bodies_at_point(Vec2::new(1.05, 2.0), &all), vec![cap]);
    assert!(world.bodies_at_point(Vec2::new(1.12, 2.0), &all).is_empty());
    assert!(world.bodies_at_point(Vec2::new(0.0, 2.35), &all).is_empty());
    // The triangle turned upside down points down: apex at (5, -1.5).
    let hit = world
        .cast_ray(Vec2::new(5.0, -4.0), Vec2::Y, 5.0, &all)
        .unwrap();
    assert_eq!(hit.body, poly);
    assert!((hit.point.y + 1.5).abs() < 1e-4, "{hit:?}");
    assert_eq!(
        world.bodies_at_point(Vec2::new(5.0, -1.4), &all),
        vec![poly]
    );
    assert!(world.bodies_at_point(Vec2::new(5.0, 0.2), &all).is_empty());
    // bodies_in_aabb on the turned triangle's box: it spans y -1.5..0.
    let probe = Aabb::new(Vec2::new(4.9, -1.45), Vec2::new(5.1, -1.4));
    assert_eq!(world.bodies_in_aabb(&probe, &all), vec![poly]);
    let above = Aabb::new(Vec2::new(4.0, 0.05), Vec2::new(6.0, 0.5));
    assert!(world.bodies_in_aabb(&above, &all).is_empty());
    // A ball of radius 0.1 cast down at x = 0.5 stops 0.1 above the capsule.
    let ball = Shape2::ball(0.1).unwrap();
    let hit = world
        .cast_shape(
            &ball,
            &Pose::from_translation(Vec2::new(0.5, 4.0)),
            Vec2::NEG_Y,
            5.0,
            &all,
        )
        .unwrap();
    assert!((hit.distance - 1.6).abs() < 1e-3, "{hit:?}");
    // A zero-length shape cast overlapping the capsule hits at 0;
    // one apart from it finds nothing.
    let hit = world.cast_shape(
        &ball,
        &Pose::from_translation(Vec2::new(0.0, 2.35)),
        Vec2::X,
        0.0,
        &all,
    );
    assert!(hit.is_some_and(|h| h.distance == 0.0), "{hit:?}");
    let none = world.cast_shape(
        &ball,
        &Pose::from_translation(Vec2::new(0.0, 2.5)),
        Vec2::X,
        0.0,
        &all,
    );
    assert!(none.is_none(), "{none:?}");
}

/// A turned hull and capsule in 3D: rays from outside and inside, points,
/// overlap with a ball, and filters by collision group.
#[test]
fn turned_hull_and_capsule_with_groups_3d() {
    let mut world = World::<D3>::new(awake());
    // A square pyramid, apex up, turned 45 degrees about Y.
    let hull = Shape3::convex_hull(&[
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(-1.0, 0.0, 1.0),
        Vec3::new(0.0, 2.0, 0.0),
    ])
    .unwrap();
    let pyr = world
        .add_body(
            BodyDesc::fixed().rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4)),
            ColliderDesc::new(hull).filter(CollisionFilter {
                category: 0b10,
                mask: u32::MAX,
            }),
        )
        .unwrap();
    // Capsule lying along Z at x = 4 (turned 90 degrees about X).
    let cap = world
        .add_body(
            BodyDesc::fixed()
                .position(Vec3::new(4.0, 0.5, 0.0))
                .rotation(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
            ColliderDesc::new(Shape3::capsule(1.0, 0.5).unwrap()).filter(CollisionFilter {
                category: 0b100,
                mask: u32::MAX,
            }),
        )
        .unwrap();
    let all = QueryFilter::default();
    // The pyramid turned 45 degrees reaches sqrt 2 along X at its base.
    let hit = world
        .cast_ray(Vec3::new(-5.0, 0.001, 0.0), Vec3::X, 10.0, &all)
        .unwrap();
    assert_eq!(hit.body, pyr);
    assert!(
        (hit.distance - (5.0 - 2f32.sqrt() * (1.0 - 0.0005))).abs() < 2e-3,
        "{hit:?}"
    );
    // The apex from above.
    let hit = world
        .cast_ray(Vec3::new(0.0, 9.0, 0.0), Vec3::NEG_Y, 10.0, &all)
        .unwrap();
    assert!((hit.distance - 7.0).abs() < 1e-3, "{hit:?}");
    // Only category 0b100 admitted: the ray passes the pyramid and finds
    // the capsule's side at x = 3.5.
    let caps_only = QueryFilter::from(CollisionFilter {
        category: u32::MAX,
        mask: 0b100,
    });
    let hit = world
        .cast_ray(Vec3::new(-5.0, 0.5, 0.0), Vec3::X, 20.0, &caps_only)
        .unwrap();
    assert_eq!(hit.body, cap);
    assert!((hit.distance - 8.5).abs() < 1e-3, "{hit:?}");
    // The capsule lies along Z: its end cap reaches z = 1.5.
    assert_eq!(
        world.bodies_at_point(Vec3::new(4.0, 0.5, 1.45), &all),
        vec![cap]
    );
    assert!(world
        .bodies_at_point(Vec3::new(4.0, 1.45, 0.0), &all)
        .is_empty());
    // A ray from inside the capsule: distance 0, and with the capsule
    // left out it goes on.
    let hit = world
        .cast_ray(Vec3::new(4.0, 0.5, 0.9), Vec3::NEG_X, 10.0, &all)
        .unwrap();
    assert_eq!((hit.body, hit.distance), (cap, 0.0));
    let hit = world.cast_ray(
        Vec3::new(4.0, 0.5, 0.9),
        Vec3::NEG_X,
        10.0,
        &all.excluding(cap),
    );
    assert!(hit.is_some_and(|h| h.body == pyr), "{hit:?}");
    // Overlap with a ball touching both: both, by handle; groups cut one.
    let ball = Shape3::ball(1.6).unwrap();
    let pose = Pose::from_translation(Vec3::new(2.0, 0.5, 0.0));
    let mut both = vec![pyr, cap];
    both.sort();
    assert_eq!(world.bodies_overlapping(&ball, &pose, &all), both);
    assert_eq!(
        world.bodies_overlapping(&ball, &pose, &caps_only),
        vec![cap]
    );
}

// ---------------------------------------------------------------- friction, restitution

fn slope_slide_2d(angle_deg: f32, friction: f32) -> f32 {
    let mut world = World::<D2>::new(awake());
    let a = angle_deg.to_radians();
    world
        .add_body(
            BodyDesc::fixed().rotation(a),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(20.0, 0.5)).unwrap()).friction(friction),
        )
        .unwrap();
    let normal = Vec2::new(-a.sin(), a.cos());
    let start = normal * (0.5 + 0.25);
    let b = world
        .add_body(
            BodyDesc::dynamic().position(start).rotation(a),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(0.4, 0.25)).unwrap()).friction(friction),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(DT);
    }
    (world.body(b).unwrap().position() - start).length()
}

fn slope_slide_3d(angle_deg: f32, friction: f32) -> f32 {
    let mut world = World::<D3>::new(awake());
    let q = Quat::from_rotation_z(angle_deg.to_radians());
    world
        .add_body(
            BodyDesc::fixed().rotation(q),
            ColliderDesc::new(Shape3::cuboid(Vec3::new(20.0, 0.5, 5.0)).unwrap())
                .friction(friction),
        )
        .unwrap();
    let start = q * Vec3::new(0.0, 0.75, 0.0);
    let b = world
        .add_body(
            BodyDesc::dynamic().position(start).rotation(q),
            ColliderDesc::new(Shape3::cuboid(Vec3::new(0.4, 0.25, 0.3)).unwrap())
                .friction(friction),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(DT);
    }
    (world.body(b).unwrap().position() - start).length()
}

/// At 22 degrees tan is 0.404: friction 0.44 holds the box (moves < 1 cm
/// in 2 s), friction 0.37 lets it slide at g (sin - 0.37 cos) within 5 %.
#[test]
fn a_box_on_a_22_degree_slope_sticks_just_above_tan_and_slides_just_below() {
    let a = 22f32.to_radians();
    let expect = 0.5 * 9.81 * (a.sin() - 0.37 * a.cos()) * 4.0; // s = a t^2 / 2, t = 2
    for (name, held, slid) in [
        ("2d", slope_slide_2d(22.0, 0.44), slope_slide_2d(22.0, 0.37)),
        ("3d", slope_slide_3d(22.0, 0.44), slope_slide_3d(22.0, 0.37)),
    ] {
        assert!(held < 0.01, "{name}: held box moved {held} m");
        assert!(
            (slid - expect).abs() < 0.05 * expect + 0.02,
            "{name}: slid {slid} m, expected {expect}"
        );
    }
}

fn bounce_height_2d(e: f32, drop: f32) -> f32 {
    let mut world = World::<D2>::new(awake());
    ground2(&mut world);
    let r = 0.15;
    let ball = world
        .add_body(
            BodyDesc::dynamic().position(Vec2::new(0.0, r + drop)),
            ColliderDesc::new(Shape2::ball(r).unwrap()).restitution(e),
        )
        .unwrap();
    let mut bounced = false;
    let mut peak: f32 = 0.0;
    for _ in 0..240 {
        world.step(DT);
        let body = world.body(ball).unwrap();
        if body.linear_velocity().y > 0.5 {
            bounced = true;
        }
        if bounced {
            peak = peak.max(body.position().y - r);
            if body.linear_velocity().y < 0.0 {
                break;
            }
        }
    }
    peak
}

/// Bounce heights are e^2 of the drop within 10 % (restitution 0.3, 0.7,
/// 0.9 from 1.6 m).
#[test]
fn bounce_heights_follow_restitution_squared_2d() {
    for e in [0.3f32, 0.7, 0.9] {
        let h = bounce_height_2d(e, 1.6);
        let want = e * e * 1.6;
        assert!(
            (h - want).abs() < 0.1 * want,
            "e {e}: bounced {h}, want {want}"
        );
    }
}

// ---------------------------------------------------------------- locks

/// A box locked in X and in rotation, dropped onto a 30 degree slope: it
/// can only fall straight down, so it comes to rest on the slope and keeps
/// its x and angle exactly, in 2D; in 3D locked in X and Z translation it
/// keeps both.
#[test]
fn a_box_locked_in_x_dropped_on_a_slope_stays_on_its_vertical_line() {
    let mut w2 = World::<D2>::new(awake());
    w2.add_body(
        BodyDesc::fixed().rotation(30f32.to_radians()),
        ColliderDesc::new(Shape2::cuboid(Vec2::new(10.0, 0.2)).unwrap()).friction(0.0),
    )
    .unwrap();
    let b = w2
        .add_body(
            BodyDesc::dynamic()
                .position(Vec2::new(1.3, 3.0))
                .locks(Locks {
                    translation: Axes::X,
                    rotation: Axes::Z,
                }),
            ColliderDesc::new(Shape2::cuboid(Vec2::splat(0.3)).unwrap()).friction(0.0),
        )
        .unwrap();
    for _ in 0..180 {
        w2.step(DT);
    }
    let body = w2.body(b).unwrap();
    assert_eq!(body.position().x, 1.3);
    assert_eq!(body.rotation(), 0.0);
    assert!(
        body.linear_velocity().length() < 1e-2,
        "{:?}",
        body.linear_velocity()
    );
    assert!(body.position().y.is_finite() && body.position().y > 0.5);

    let mut w3 = World::<D3>::new(awake());
    w3.add_body(
        BodyDesc::fixed().rotation(Quat::from_rotation_z(30f32.to_radians())),
        ColliderDesc::new(Shape3::cuboid(Vec3::new(10.0, 0.2, 10.0)).unwrap()).friction(0.0),
    )
    .unwrap();
    let b = w3
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(1.3, 3.0, -0.7))
                .lock_translation(Axes::X | Axes::Z)
                .lock_rotation(Axes::ALL),
            ColliderDesc::new(Shape3::cuboid(Vec3::splat(0.3)).unwrap()).friction(0.0),
        )
        .unwrap();
    for _ in 0..180 {
        w3.step(DT);
    }
    let body = w3.body(b).unwrap();
    let p = body.position();
    assert_eq!((p.x, p.z), (1.3, -0.7));
    assert_eq!(body.rotation(), Quat::IDENTITY);
    assert!(body.linear_velocity().length() < 1e-2);
}

// ---------------------------------------------------------------- stacking

/// A tower of 14 flat boxes (1.2 x 0.3) and a 2D pyramid of base 13 stand
/// for 6 s: within 5 mm sideways, upright.
#[test]
fn a_tower_of_14_planks_and_a_pyramid_of_13_stand_2d() {
    let mut world = World::<D2>::new(awake());
    ground2(&mut world);
    let mut bodies = Vec::new();
    for i in 0..14 {
        let p = Vec2::new(-6.0, 0.15 + 0.3 * i as f32);
        bodies.push((box2(&mut world, p, Vec2::new(0.6, 0.15)), p));
    }
    let h = 0.35;
    for row in 0..13 {
        for i in 0..(13 - row) {
            let x = 4.0 + (i as f32 - (12 - row) as f32 * 0.5) * 2.0 * h;
            let p = Vec2::new(x, h + 2.0 * h * row as f32);
            bodies.push((box2(&mut world, p, Vec2::splat(h)), p));
        }
    }
    for _ in 0..360 {
        world.step(DT);
    }
    for (b, p) in bodies {
        let d = world.body(b).unwrap().position() - p;
        assert!(d.x.abs() < 0.005, "{b:?} drifted sideways {} m", d.x);
        // Soft contacts sink under load (the tower's top about 1 cm a
        // plank's contact at the bottom); never a whole plank's 0.3 m.
        assert!(d.y.abs() < 0.15, "{b:?} sank {} m", d.y);
        assert!(world.body(b).unwrap().rotation().abs() < 0.01);
    }
}

/// A 3D pyramid of base 5 (55 cubes of 0.8 m) stands for 5 s: within
/// 5 mm sideways, upright.
#[test]
fn a_pyramid_of_base_5_stands_3d() {
    let mut world = World::<D3>::new(awake());
    ground3(&mut world);
    let mut bodies = Vec::new();
    let h = 0.4;
    for layer in 0..5 {
        let n = 5 - layer;
        for i in 0..n {
            for j in 0..n {
                let off = (n - 1) as f32 * h;
                let p = Vec3::new(
                    i as f32 * 2.0 * h - off,
                    h + 2.0 * h * layer as f32,
                    j as f32 * 2.0 * h - off,
                );
                bodies.push((box3(&mut world, p, Vec3::splat(h)), p));
            }
        }
    }
    for _ in 0..300 {
        world.step(DT);
    }
    for (b, p) in bodies {
        let d = world.body(b).unwrap().position() - p;
        let sideways = Vec2::new(d.x, d.z).length();
        assert!(sideways < 0.005, "{b:?} drifted sideways {sideways} m");
        assert!(d.y.abs() < 0.1, "{b:?} sank {} m", d.y);
        let turned = world
            .body(b)
            .unwrap()
            .rotation()
            .angle_between(Quat::IDENTITY);
        assert!(turned < 0.01, "{b:?} turned {turned} rad");
    }
}

/// Two planks (1.2 x 0.24 x 1 m), one squarely on the other, with the
/// default friction: nothing pushes them about the vertical, so they stay
/// square and fall asleep. Cubes and 1 x 0.8 x 1 slabs do; with friction 0
/// these do too, and one plank alone does.
#[test]
fn two_stacked_planks_stay_square_and_fall_asleep_3d() {
    // The plank of the report, a squarer and a longer one, and the upper
    // one set off the lower one's centre.
    for (half_length, offset) in [(0.6, 0.0), (0.55, 0.05), (0.7, 0.1)] {
        let mut world = World::<D3>::new(Settings::default());
        ground3(&mut world);
        let half = Vec3::new(half_length, 0.12, 0.5);
        let slabs = [
            box3(&mut world, Vec3::new(0.0, 0.12, 0.0), half),
            box3(&mut world, Vec3::new(offset, 0.36, -offset), half),
        ];
        let mut turned: f32 = 0.0;
        let mut asleep_at = None;
        for step in 1..=600 {
            world.step(DT);
            for s in slabs {
                let rotation = world.body(s).unwrap().rotation();
                turned = turned.max(rotation.angle_between(Quat::IDENTITY));
            }
            if asleep_at.is_none() && slabs.iter().all(|&s| world.body(s).unwrap().is_sleeping()) {
                asleep_at = Some(step as f32 * DT);
            }
        }
        println!(
            "two planks {half_length} long, {offset} off: turned {turned:.2e} rad, asleep at {asleep_at:?} s"
        );
        assert!(
            turned < 1e-3,
            "a slab turned {turned} rad about the vertical"
        );
        let asleep_at = asleep_at.expect("the planks never slept");
        assert!(asleep_at <= 2.0, "asleep only at {asleep_at} s");
    }
}

// ---------------------------------------------------------------- sleeping

fn settled_pile_3d() -> (World<D3>, BodyHandle, Vec<BodyHandle>) {
    let mut world = World::<D3>::new(Settings::default());
    let ground = ground3(&mut world);
    let mut pile = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            let p = Vec3::new(i as f32 * 0.9 - 0.9, 0.35 + j as f32 * 0.7, 0.0);
            pile.push(box3(&mut world, p, Vec3::splat(0.35)));
        }
    }
    for _ in 0..240 {
        world.step(DT);
    }
    (world, ground, pile)
}

/// A 3x3 wall of cubes falls asleep within 4 s.
#[test]
fn a_wall_of_nine_cubes_falls_asleep() {
    let (world, _, pile) = settled_pile_3d();
    for b in &pile {
        assert!(world.body(*b).unwrap().is_sleeping(), "{b:?} awake");
    }
}

/// Removing a sleeping bottom cube wakes the one on it, which falls.
#[test]
fn removing_a_sleeping_bottom_cube_drops_the_column_above() {
    let (mut world, _, pile) = settled_pile_3d();
    // pile[i*3 + j]: column i, row j.
    let top = pile[5];
    let y0 = world.body(top).unwrap().position().y;
    world.remove_body(pile[3]).unwrap();
    world.remove_body(pile[4]).unwrap();
    for _ in 0..30 {
        world.step(DT);
    }
    let y = world.body(top).unwrap().position().y;
    assert!(y < y0 - 0.8, "top cube held in the air: {y0} -> {y}");
}

/// Changing a sleeping cube's own collider so it no longer meets the
/// ground (filter), or shrinking its density, wakes it: with the filter it
/// falls through.
#[test]
fn changing_a_sleeping_cubes_filter_wakes_it_and_it_falls_through() {
    let (mut world, _, pile) = settled_pile_3d();
    let bottom = pile[0];
    let c = first_collider(&world, bottom);
    world
        .set_collider_filter(
            c,
            CollisionFilter {
                category: 0b1000,
                mask: 0b1000,
            },
        )
        .unwrap();
    for _ in 0..40 {
        world.step(DT);
    }
    let y = world.body(bottom).unwrap().position().y;
    assert!(y < -0.5, "the cube should fall through everything: y {y}");
    // The cubes that stood on it fall onto the ground.
    let above = world.body(pile[1]).unwrap().position().y;
    assert!(
        above < 0.4,
        "the cube above should land on the ground: {above}"
    );
}

/// Turning the ground into a sensor under a sleeping pile: the pile falls.
#[test]
fn turning_the_ground_into_a_sensor_under_a_sleeping_pile_drops_it() {
    let (mut world, ground, pile) = settled_pile_3d();
    let g = first_collider(&world, ground);
    world.set_collider_sensor(g, true).unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    for b in pile {
        let y = world.body(b).unwrap().position().y;
        assert!(y < -0.5, "{b:?} still at {y}");
    }
}

/// A ball thrown at a sleeping pile wakes it and knocks a cube.
#[test]
fn a_ball_thrown_at_a_sleeping_wall_knocks_it() {
    let (mut world, _, pile) = settled_pile_3d();
    let target = pile[8]; // right column, top
    let p0 = world.body(target).unwrap().position();
    world
        .add_body(
            BodyDesc::dynamic()
                .position(p0 + Vec3::new(3.0, 0.0, 0.0))
                .linear_velocity(Vec3::new(-12.0, 0.0, 0.0))
                .gravity_scale(0.0),
            ColliderDesc::new(Shape3::ball(0.2).unwrap()).density(30.0),
        )
        .unwrap();
    for _ in 0..30 {
        world.step(DT);
    }
    let moved = (world.body(target).unwrap().position() - p0).length();
    assert!(moved > 0.3, "the top cube barely moved: {moved}");
}

// ---------------------------------------------------------------- filters

/// One-sided masks do not collide (Box2D: both must admit), in the world
/// as in queries.
#[test]
fn a_one_sided_mask_does_not_collide_2d() {
    let mut world = World::<D2>::new(awake());
    world
        .add_body(
            BodyDesc::fixed().position(Vec2::new(0.0, -0.5)),
            ColliderDesc::new(Shape2::cuboid(Vec2::new(10.0, 0.5)).unwrap()).filter(
                CollisionFilter {
                    category: 0b1,
                    mask: 0b10,
                },
            ),
        )
        .unwrap();
    let b = world
        .add_body(
            BodyDesc::dynamic().position(Vec2::new(0.0, 1.0)),
            ColliderDesc::new(Shape2::ball(0.3).unwrap()).filter(CollisionFilter {
                category: 0b100,
                mask: 0b1,
            }),
        )
        .unwrap();
    let mut any_event = false;
    for _ in 0..60 {
        world.step(DT);
        any_event |= !world.contact_events().is_empty();
    }
    assert!(!any_event);
    assert!(world.body(b).unwrap().position().y < -1.0);
}

// ---------------------------------------------------------------- determinism

fn busy_run() -> (Vec<u32>, Vec<String>) {
    let mut world = World::<D3>::new(Settings::default());
    ground3(&mut world);
    let sensor = world
        .add_body(
            BodyDesc::kinematic()
                .position(Vec3::new(-3.0, 0.8, 0.0))
                .linear_velocity(Vec3::new(1.5, 0.0, 0.0)),
            ColliderDesc::new(Shape3::ball(0.9).unwrap()).sensor(true),
        )
        .unwrap();
    let mut bodies = vec![sensor];
    for i in 0..12 {
        let f = i as f32;
        bodies.push(
            world
                .add_body(
                    BodyDesc::dynamic()
                        .position(Vec3::new(
                            (f * 0.77) % 3.0 - 1.5,
                            0.5 + f * 0.6,
                            (f * 0.41) % 1.0,
                        ))
                        .rotation(Quat::from_rotation_z(f * 0.3)),
                    ColliderDesc::new(if i % 2 == 0 {
                        Shape3::cuboid(Vec3::new(0.3, 0.2, 0.25)).unwrap()
                    } else {
                        Shape3::capsule(0.2, 0.15).unwrap()
                    })
                    .restitution(0.3),
                )
                .unwrap(),
        );
    }
    let mut events = Vec::new();
    for i in 0..240 {
        world.step(DT);
        if i == 100 {
            world.remove_body(bodies[5]).unwrap();
        }
        events.extend(world.contact_events().iter().map(|e| format!("{i} {e:?}")));
        events.extend(world.sensor_events().iter().map(|e| format!("{i} {e:?}")));
    }
    let bits = world
        .bodies()
        .flat_map(|(_, b)| {
            let p = b.position();
            [p.x.to_bits(), p.y.to_bits(), p.z.to_bits()]
        })
        .collect();
    (bits, events)
}

/// Two identical runs with a kinematic sensor, mixed shapes and a removal
/// give the same poses and the same events.
#[test]
fn two_identical_busy_runs_agree_bit_for_bit() {
    let a = busy_run();
    let b = busy_run();
    assert!(!a.1.is_empty());
    assert_eq!(a, b);
}

/// Waking a sleeping wall (a ball thrown at its far column) reports only
/// the ball's own contacts as started: the pairs that touched all along
/// do not start again when they wake.
#[test]
fn waking_a_sleeping_wall_starts_no_contact_that_touched_all_along() {
    let (mut world, _, pile) = settled_pile_3d();
    let target = pile[8];
    let p0 = world.body(target).unwrap().position();
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(p0 + Vec3::new(1.5, 0.0, 0.0))
                .linear_velocity(Vec3::new(-3.0, 0.0, 0.0))
                .gravity_scale(0.0),
            ColliderDesc::new(Shape3::ball(0.2).unwrap()),
        )
        .unwrap();
    let mut started_without_ball = Vec::new();
    let mut woke = false;
    for i in 0..40 {
        world.step(DT);
        woke |= !world.body(target).unwrap().is_sleeping();
        for e in world.contact_events() {
            if let ContactEvent::Started { body_a, body_b, .. } = *e {
                if body_a != ball && body_b != ball {
                    started_without_ball.push((i, body_a, body_b));
                }
            }
        }
    }
    assert!(woke, "the ball never woke the wall");
    // A cube knocked off may land on the ground: a new contact, but never
    // within the first steps after the wake.
    assert!(
        started_without_ball.iter().all(|&(i, _, _)| i > 25),
        "{started_without_ball:?}"
    );
}

/// `cast_ray_all` through a row of shapes, starting inside the first:
/// every one, nearest first, the first at 0.
#[test]
fn a_ray_through_a_row_of_shapes_from_inside_the_first_finds_all_in_order_2d() {
    let mut world = World::<D2>::new(awake());
    let shapes = [
        Shape2::ball(0.5).unwrap(),
        Shape2::cuboid(Vec2::new(0.3, 0.6)).unwrap(),
        Shape2::capsule(0.4, 0.2).unwrap(),
        Shape2::convex_polygon(&[
            Vec2::new(-0.4, -0.4),
            Vec2::new(0.4, -0.4),
            Vec2::new(0.0, 0.5),
        ])
        .unwrap(),
    ];
    let mut bodies = Vec::new();
    for (i, s) in shapes.into_iter().enumerate() {
        bodies.push(
            world
                .add_body(
                    BodyDesc::fixed()
                        .position(Vec2::new(2.0 * i as f32, 0.1))
                        .rotation(0.3 * i as f32),
                    ColliderDesc::new(s),
                )
                .unwrap(),
        );
    }
    let hits = world.cast_ray_all(Vec2::new(0.1, 0.1), Vec2::X, 20.0, &QueryFilter::default());
    let order: Vec<BodyHandle> = hits.iter().map(|h| h.body).collect();
    assert_eq!(order, bodies, "{hits:?}");
    assert_eq!(hits[0].distance, 0.0);
    for w in hits.windows(2) {
        assert!(w[0].distance < w[1].distance);
    }
    for h in &hits {
        assert!(
            h.normal.is_finite() && (h.normal.length() - 1.0).abs() < 1e-4,
            "{h:?}"
        );
    }
    // The box turned 0.3 rad: its left face at x = 2 - 0.3/cos 0.3 along
    // y = 0.1 (through its centre).
    let want = 2.0 - 0.3 / 0.3f32.cos() - 0.1;
    assert!(
        (hits[1].distance - want).abs() < 1e-4,
        "{:?} vs {want}",
        hits[1]
    );
}
