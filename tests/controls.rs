//! The body and collider controls a game reaches for first: locked
//! rotation and translation, mass overrides, and changing material,
//! filters, sensors, density, kind and colliders after creation.

mod common;

use common::*;
use tumble::shape::Shape;
use tumble::{
    Axes, BodyDesc, BodyHandle, BodyKind, ColliderDesc, ColliderHandle, CollisionFilter,
    ContactEvent, Locks, SensorEvent, Settings, World, WorldError,
};

const DT: f32 = 1.0 / 60.0;

/// Steps in ten seconds at `DT`.
const TEN_SECONDS: usize = 600;

fn zero_gravity<D: Scene>() -> World<D> {
    World::new(Settings {
        gravity: D::v(0.0, 0.0),
        ..Settings::default()
    })
}

fn collider_of<D: Scene>(world: &World<D>, body: BodyHandle) -> ColliderHandle {
    world.body(body).unwrap().colliders()[0].handle()
}

fn run<D: Scene>(world: &mut World<D>, steps: usize) {
    (0..steps).for_each(|_| world.step(DT));
}

/// Whether a contact between the two colliders stopped in the last step
/// (or since, by a removal).
fn stopped<D: Scene>(world: &World<D>, a: ColliderHandle, b: ColliderHandle) -> bool {
    world.contact_events().iter().any(|e| {
        matches!(e, ContactEvent::Stopped { collider_a, collider_b, .. }
            if [*collider_a, *collider_b] == [a, b] || [*collider_a, *collider_b] == [b, a])
    })
}

fn started<D: Scene>(world: &World<D>, a: ColliderHandle, b: ColliderHandle) -> bool {
    world.contact_events().iter().any(|e| {
        matches!(e, ContactEvent::Started { collider_a, collider_b, .. }
            if [*collider_a, *collider_b] == [a, b] || [*collider_a, *collider_b] == [b, a])
    })
}

fn height<D: Scene>(world: &World<D>, body: BodyHandle) -> f32 {
    D::height(world.body(body).unwrap().position())
}

/// A capsule player walking 10 s along the ground at a velocity set every
/// step, friction on, climbing a low step and then shoving a small box.
/// Returns whether it stayed exactly upright and still throughout, the
/// largest turn away from upright seen (the chord of `Dim::turn_chord`),
/// how far it got and where the box ended up.
fn walk_capsule<D: Scene>(locks: Locks) -> (bool, f32, f32, f32) {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let player = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 0.8)).locks(locks),
            ColliderDesc::new(Shape::capsule(0.5, 0.3).unwrap()).friction(0.8),
        )
        .unwrap();
    world
        .add_body(
            BodyDesc::fixed().position(D::v(4.0, STEP_HEIGHT / 2.0)),
            ColliderDesc::new(D::cuboid(1.0, STEP_HEIGHT / 2.0)),
        )
        .unwrap();
    let shoved = world
        .add_body(
            BodyDesc::dynamic().position(D::v(8.0, 0.2)),
            ColliderDesc::new(D::cube(0.2)).density(0.5),
        )
        .unwrap();
    let upright = D::tilt(0.0);
    let mut always_upright = true;
    let mut largest_tilt = 0.0f32;
    for _ in 0..TEN_SECONDS {
        let mut body = world.body_mut(player).unwrap();
        let v = body.linear_velocity();
        body.set_linear_velocity(D::v(WALKING_SPEED, D::height(v)))
            .unwrap();
        world.step(DT);
        let body = world.body(player).unwrap();
        always_upright &=
            body.rotation() == upright && body.angular_velocity() == Default::default();
        let turned = D::rotation_from_orientation(body.rotation());
        largest_tilt = largest_tilt.max(D::turn_chord(D::identity(), turned));
    }
    let x = |h| D::dot(world.body(h).unwrap().position(), D::v(1.0, 0.0));
    (always_upright, largest_tilt, x(player), x(shoved))
}

/// The player's walking speed, m/s.
const WALKING_SPEED: f32 = 2.0;
/// The height of the step on the player's way, m.
const STEP_HEIGHT: f32 = 0.05;

fn capsule_player_stays_upright<D: Scene>() {
    let (upright, tilt, walked, shoved) = walk_capsule::<D>(Locks::rotation(Axes::ALL));
    assert!(
        upright,
        "{}: the locked player turned (largest tilt {tilt})",
        D::NAME
    );
    assert!(
        walked > 15.0,
        "{}: the player got stuck at {walked}",
        D::NAME
    );
    assert!(
        shoved > walked,
        "{}: the box was not shoved: {shoved}",
        D::NAME
    );
    // The same walk without the lock tips the capsule: the lock is what
    // keeps it upright.
    let (upright, tilt, _, _) = walk_capsule::<D>(Locks::NONE);
    assert!(
        !upright && tilt > 0.01,
        "{}: an unlocked player also stayed upright (tilt {tilt})",
        D::NAME
    );
}

#[test]
fn a_capsule_player_with_locked_rotation_walks_upright_2d() {
    capsule_player_stays_upright::<tumble::D2>();
    // In 2D the angle itself, as a game reads it.
    let mut world = World::<tumble::D2>::new(Settings::default());
    let h = world
        .add_body(
            BodyDesc::dynamic().fixed_rotation().angular_velocity(3.0),
            ColliderDesc::new(Shape::capsule(0.5, 0.3).unwrap()),
        )
        .unwrap();
    world.body_mut(h).unwrap().apply_torque(50.0).unwrap();
    world
        .body_mut(h)
        .unwrap()
        .apply_impulse(tumble::glam::Vec2::X, tumble::glam::Vec2::new(0.0, 1.0))
        .unwrap();
    run(&mut world, 60);
    let body = world.body(h).unwrap();
    assert_eq!((body.rotation(), body.angular_velocity()), (0.0, 0.0));
    assert_eq!(body.locks().rotation, Axes::Z, "2D turns about Z only");
}

#[test]
fn a_capsule_player_with_locked_rotation_walks_upright_3d() {
    capsule_player_stays_upright::<tumble::D3>();
}

/// A box locked in X, dropped onto the ground (Y stays free) and then hit
/// from the side by a ball: its X never changes, to the bit, and the ball
/// stops as if the box were a wall.
fn locked_x_is_never_moved<D: Scene>(locked: bool) -> (bool, f32, f32) {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let locks = if locked {
        Locks::translation(Axes::X)
    } else {
        Locks::NONE
    };
    let target = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 1.5)).locks(locks),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    let x_bits = D::bits(world.body(target).unwrap().position())[0];
    let mut never_moved = true;
    run(&mut world, 60);
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(-3.0, 0.6))
                .linear_velocity(D::v(8.0, 1.0)),
            ColliderDesc::new(Shape::ball(0.3).unwrap()).density(4.0),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(DT);
        let body = world.body(target).unwrap();
        never_moved &= D::bits(body.position())[0] == x_bits
            && D::dot(body.linear_velocity(), D::v(1.0, 0.0)) == 0.0;
    }
    let ball_x = D::dot(world.body(ball).unwrap().position(), D::v(1.0, 0.0));
    (never_moved, height(&world, target), ball_x)
}

fn locked_x<D: Scene>() {
    let (never_moved, y, ball_x) = locked_x_is_never_moved::<D>(true);
    assert!(never_moved, "{}: the locked box moved in X", D::NAME);
    assert!(
        (y - 0.5).abs() < 0.02,
        "{}: it fell onto the ground: {y}",
        D::NAME
    );
    assert!(ball_x < -0.7, "{}: the ball got past: {ball_x}", D::NAME);
    let (never_moved, _, _) = locked_x_is_never_moved::<D>(false);
    assert!(!never_moved, "{}: the hit moves an unlocked box", D::NAME);
}

#[test]
fn a_body_locked_in_x_is_never_moved_in_x_by_a_hit_2d() {
    locked_x::<tumble::D2>();
}

#[test]
fn a_body_locked_in_x_is_never_moved_in_x_by_a_hit_3d() {
    locked_x::<tumble::D3>();
}

/// Gravity is not integrated along a locked axis: a box locked in Y hangs
/// where it is, to the bit, until the lock is lifted.
fn locked_y_floats<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let b = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(0.0, 2.0))
                .linear_velocity(D::v(1.0, -3.0))
                .lock_translation(Axes::Y),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    let y_bits = D::bits(world.body(b).unwrap().position())[1];
    for _ in 0..60 {
        world.step(DT);
        let body = world.body(b).unwrap();
        assert_eq!(D::bits(body.position())[1], y_bits, "{}", D::NAME);
        assert_eq!(D::height(body.linear_velocity()), 0.0, "{}", D::NAME);
    }
    assert!(
        D::dot(world.body(b).unwrap().position(), D::v(1.0, 0.0)) > 0.9,
        "{}: X stays free",
        D::NAME
    );
    world.set_body_locks(b, Locks::NONE).unwrap();
    run(&mut world, 90);
    assert!(
        (height(&world, b) - 0.5).abs() < 0.02,
        "{}: unlocked, it fell: {}",
        D::NAME,
        height(&world, b)
    );
}

#[test]
fn a_body_locked_in_y_ignores_gravity_until_unlocked_2d() {
    locked_y_floats::<tumble::D2>();
}

#[test]
fn a_body_locked_in_y_ignores_gravity_until_unlocked_3d() {
    locked_y_floats::<tumble::D3>();
}

/// A box free to turn only about Y, hit off-centre by a ball whose push
/// would turn it about Y and Z: it spins about Y, and never about X or Z.
fn hit_off_centre(locks: Locks) -> tumble::glam::Vec3 {
    use tumble::glam::{Quat, Vec3};
    let mut world = zero_gravity::<tumble::D3>();
    let target = world
        .add_body(
            BodyDesc::dynamic().locks(locks),
            ColliderDesc::new(Shape::cuboid(Vec3::new(0.5, 0.5, 0.5)).unwrap()),
        )
        .unwrap();
    world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(-2.0, 0.3, 0.35))
                .linear_velocity(Vec3::new(6.0, 0.0, 0.0)),
            ColliderDesc::new(Shape::ball(0.2).unwrap()).density(8.0),
        )
        .unwrap();
    let mut largest = Vec3::ZERO;
    for _ in 0..90 {
        world.step(DT);
        let body = world.body(target).unwrap();
        let w = body.angular_velocity();
        largest = largest.max(w.abs());
        if !locks.is_empty() {
            assert_eq!((w.x, w.z), (0.0, 0.0), "spin about a locked axis");
            let q: Quat = body.rotation();
            assert_eq!((q.x, q.z), (0.0, 0.0), "turned about a locked axis");
        }
    }
    largest
}

#[test]
fn a_body_locked_about_x_and_z_spins_only_about_y_3d() {
    let spin = hit_off_centre(Locks::rotation(Axes::X | Axes::Z));
    assert!(spin.y > 0.5, "no spin about Y: {spin}");
    let free = hit_off_centre(Locks::NONE);
    assert!(
        free.z > 0.5 && free.y > 0.5,
        "the same hit turns a free box about Y and Z: {free}"
    );
}

/// An impulse through the centre changes the velocity by exactly `J / m`,
/// with `m` the overridden mass, and moves the body that much less far; the
/// shapes' inertia is scaled alike, so a spin is `m` times slower.
fn mass_override_scales_the_response<D: Scene>() {
    let mut world = zero_gravity::<D>();
    let add = |world: &mut World<D>, desc: BodyDesc<D>, x: f32| {
        world
            .add_body(desc.position(D::v(x, 0.0)), ColliderDesc::new(D::cube(0.5)))
            .unwrap()
    };
    let plain = add(&mut world, BodyDesc::dynamic(), 0.0);
    let heavy = add(&mut world, BodyDesc::dynamic().mass(8.0), 5.0);
    assert_eq!(
        world.body(plain).unwrap().mass(),
        1.0,
        "a unit cube at density 1"
    );
    assert_eq!(world.body(heavy).unwrap().mass(), 8.0);
    let impulse = D::v(0.0, 4.0);
    for h in [plain, heavy] {
        world
            .body_mut(h)
            .unwrap()
            .apply_impulse_at_center(impulse)
            .unwrap();
    }
    let v = |world: &World<D>, h| world.body(h).unwrap().linear_velocity();
    assert_eq!(v(&world, plain), D::v(0.0, 4.0), "{}: J / 1 kg", D::NAME);
    assert_eq!(v(&world, heavy), D::v(0.0, 0.5), "{}: J / 8 kg", D::NAME);
    assert_eq!(
        world.body(heavy).unwrap().angular_velocity(),
        Default::default(),
        "through the centre: no spin"
    );
    run(&mut world, 60);
    let (plain_y, heavy_y) = (height(&world, plain), height(&world, heavy));
    assert!((plain_y - 4.0).abs() < 1e-3, "{}: {plain_y}", D::NAME);
    assert!((heavy_y - 0.5).abs() < 1e-4, "{}: {heavy_y}", D::NAME);

    // Off the centre: the scaled inertia turns the heavy box 8 times slower.
    for (h, x) in [(plain, 0.0), (heavy, 5.0)] {
        let mut body = world.body_mut(h).unwrap();
        body.set_position(D::v(x, 0.0)).unwrap();
        body.apply_impulse(D::v(1.0, 0.0), D::v(x, 0.25)).unwrap();
    }
    let spin = |h| D::spin_z(world.body(h).unwrap().angular_velocity());
    assert!(spin(plain) != 0.0);
    assert_eq!(spin(heavy) * 8.0, spin(plain), "{}", D::NAME);

    // After creation: set, and back to the shapes'.
    world.set_body_mass(plain, 2.0).unwrap();
    assert_eq!(world.body(plain).unwrap().mass(), 2.0);
    world.reset_body_mass(heavy).unwrap();
    assert_eq!(world.body(heavy).unwrap().mass(), 1.0);
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let refused = world.set_body_mass(plain, bad);
        assert!(
            matches!(
                refused,
                Err(WorldError::OutOfRange {
                    what: "body mass",
                    ..
                })
            ),
            "{bad}: {refused:?}"
        );
        let refused = world.add_body(
            BodyDesc::dynamic().mass(bad),
            ColliderDesc::new(D::cube(0.5)),
        );
        assert!(matches!(
            refused,
            Err(WorldError::OutOfRange {
                what: "body mass",
                ..
            })
        ));
    }
    assert_eq!(
        world.body(plain).unwrap().mass(),
        2.0,
        "refusals change nothing"
    );
}

#[test]
fn a_mass_override_changes_how_far_an_impulse_moves_a_body_2d() {
    mass_override_scales_the_response::<tumble::D2>();
}

#[test]
fn a_mass_override_changes_how_far_an_impulse_moves_a_body_3d() {
    mass_override_scales_the_response::<tumble::D3>();
}

#[test]
fn full_mass_properties_set_mass_centre_and_inertia_2d() {
    use tumble::glam::Vec2;
    let mut world = zero_gravity::<tumble::D2>();
    let h = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec2::new(1.0, 2.0))
                .mass_properties(2.0, Vec2::new(0.25, 0.0), 0.5),
            ColliderDesc::new(Shape::cuboid(Vec2::splat(0.5)).unwrap()),
        )
        .unwrap();
    let mut body = world.body_mut(h).unwrap();
    assert_eq!(body.mass(), 2.0);
    assert_eq!(body.center_of_mass(), Vec2::new(1.25, 2.0));
    let at = body.center_of_mass() + Vec2::new(0.0, 1.0);
    body.apply_impulse(Vec2::new(1.0, 0.0), at).unwrap();
    // r × J = (0, 1) × (1, 0) = -1; over an inertia of 0.5: -2.
    assert_eq!(body.angular_velocity(), -2.0);
    assert_eq!(body.linear_velocity(), Vec2::new(0.5, 0.0));
    for (inertia, center) in [
        (0.0, Vec2::ZERO),
        (-1.0, Vec2::ZERO),
        (f32::NAN, Vec2::ZERO),
    ] {
        let refused = world.set_body_mass_properties(h, 1.0, center, inertia);
        assert!(
            matches!(
                refused,
                Err(WorldError::OutOfRange {
                    what: "rotational inertia",
                    ..
                })
            ),
            "{inertia}: {refused:?}"
        );
    }
    assert_eq!(
        world.set_body_mass_properties(h, 1.0, Vec2::new(f32::NAN, 0.0), 1.0),
        Err(WorldError::NotFinite {
            what: "body centre of mass"
        })
    );
    assert_eq!(
        world.body(h).unwrap().mass(),
        2.0,
        "refusals change nothing"
    );
    // Colliders added later leave full mass properties as they are.
    world
        .add_collider(h, ColliderDesc::new(Shape::ball(1.0).unwrap()))
        .unwrap();
    assert_eq!(world.body(h).unwrap().mass(), 2.0);
}

#[test]
fn full_mass_properties_set_mass_centre_and_inertia_3d() {
    use tumble::glam::{Mat3, Vec3};
    let mut world = zero_gravity::<tumble::D3>();
    let inertia = Mat3::from_diagonal(Vec3::new(0.5, 1.0, 2.0));
    let h = world
        .add_body(
            BodyDesc::dynamic().mass_properties(4.0, Vec3::new(0.0, -0.5, 0.0), inertia),
            ColliderDesc::new(Shape::cuboid(Vec3::splat(0.5)).unwrap()),
        )
        .unwrap();
    let mut body = world.body_mut(h).unwrap();
    assert_eq!(body.mass(), 4.0);
    assert_eq!(body.center_of_mass(), Vec3::new(0.0, -0.5, 0.0));
    let at = body.center_of_mass() + Vec3::new(0.0, 1.0, 0.0);
    body.apply_impulse(Vec3::new(0.0, 0.0, 1.0), at).unwrap();
    // r × J = (0, 1, 0) × (0, 0, 1) = (1, 0, 0); over a moment of 0.5: 2.
    let w = body.angular_velocity();
    assert!((w - Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6, "{w}");
    let asymmetric = Mat3::from_cols(
        Vec3::new(1.0, 0.5, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    );
    let indefinite = Mat3::from_cols(
        Vec3::new(1.0, 2.0, 0.0),
        Vec3::new(2.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    );
    let negative = Mat3::from_diagonal(Vec3::new(1.0, -1.0, 1.0));
    for bad in [asymmetric, indefinite, negative, Mat3::ZERO] {
        let refused = world.set_body_mass_properties(h, 1.0, Vec3::ZERO, bad);
        assert!(
            matches!(
                refused,
                Err(WorldError::OutOfRange {
                    what: "rotational inertia",
                    ..
                })
            ),
            "{bad}: {refused:?}"
        );
    }
    // A tensor turned by a rotation is symmetric to rounding: taken.
    let turn = Mat3::from_quat(tumble::glam::Quat::from_rotation_x(0.7));
    let turned = turn * inertia * turn.transpose();
    world
        .set_body_mass_properties(h, 1.0, Vec3::ZERO, turned)
        .unwrap();
    assert_eq!(world.body(h).unwrap().mass(), 1.0);
}

/// A box sliding on the ground with no friction keeps sliding; given
/// friction at runtime it stops; without it again, it slides.
fn friction_at_runtime<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let b = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(0.0, 0.5))
                .linear_velocity(D::v(3.0, 0.0)),
            ColliderDesc::new(D::cube(0.5)).friction(0.0),
        )
        .unwrap();
    let c = collider_of(&world, b);
    let speed = |world: &World<D>| D::len(world.body(b).unwrap().linear_velocity());
    run(&mut world, 30);
    assert!((speed(&world) - 3.0).abs() < 0.01, "{}: slides", D::NAME);
    world.set_collider_friction(c, 1.0).unwrap();
    assert_eq!(world.collider(c).unwrap().1.friction(), 1.0);
    run(&mut world, 60);
    assert!(
        speed(&world) < 1e-3,
        "{}: stopped: {}",
        D::NAME,
        speed(&world)
    );
    world.set_collider_friction(c, 0.0).unwrap();
    world
        .body_mut(b)
        .unwrap()
        .set_linear_velocity(D::v(3.0, 0.0))
        .unwrap();
    run(&mut world, 30);
    assert!(
        (speed(&world) - 3.0).abs() < 0.01,
        "{}: slides again",
        D::NAME
    );
    assert!(matches!(
        world.set_collider_friction(c, -0.5),
        Err(WorldError::OutOfRange {
            what: "friction",
            ..
        })
    ));
    assert!(matches!(
        world.set_collider_restitution(c, 1.5),
        Err(WorldError::OutOfRange {
            what: "restitution",
            ..
        })
    ));
    world.set_collider_restitution(c, 0.5).unwrap();
    assert_eq!(world.collider(c).unwrap().1.restitution(), 0.5);
}

#[test]
fn changing_friction_at_runtime_stops_and_frees_a_sliding_box_2d() {
    friction_at_runtime::<tumble::D2>();
}

#[test]
fn changing_friction_at_runtime_stops_and_frees_a_sliding_box_3d() {
    friction_at_runtime::<tumble::D3>();
}

/// The ground's filter changed so that boxes pass: the box asleep on it
/// stops touching at the next step and falls through. With the filter back,
/// a box already falling towards it (their pair a candidate all along) is
/// caught.
fn ground_filter_at_runtime<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let ground = world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, -0.5)),
            ColliderDesc::new(D::cuboid(100.0, 0.5)),
        )
        .unwrap();
    let ground_collider = collider_of(&world, ground);
    let first = add_box(&mut world, 0.0, 0.5);
    run(&mut world, 120);
    assert!(world.body(first).unwrap().is_sleeping(), "{}", D::NAME);
    let solid = world.body(ground).unwrap().filter();
    let passing = CollisionFilter {
        category: solid.category,
        mask: 0,
    };
    world.set_collider_filter(ground_collider, passing).unwrap();
    world.step(DT);
    assert!(
        stopped(&world, ground_collider, collider_of(&world, first)),
        "{}: the filter ended the contact at the next step",
        D::NAME
    );
    run(&mut world, 60);
    assert!(height(&world, first) < -2.0, "{}: fell through", D::NAME);

    // Its bottom 0.2 m up: the box's and the ground's fat boxes overlap, so
    // their pair is a candidate before the filter admits it.
    let second = add_box(&mut world, 0.0, 0.7);
    world.step(DT);
    world.set_collider_filter(ground_collider, solid).unwrap();
    let mut caught = false;
    for _ in 0..120 {
        world.step(DT);
        caught |= started(&world, ground_collider, collider_of(&world, second));
    }
    assert!(caught, "{}: no Started event", D::NAME);
    assert!(
        (height(&world, second) - 0.5).abs() < 0.02,
        "{}: caught at {}",
        D::NAME,
        height(&world, second)
    );
    assert!(
        height(&world, first) < -5.0,
        "{}: the first box fell on",
        D::NAME
    );
}

fn add_box<D: Scene>(world: &mut World<D>, x: f32, y: f32) -> BodyHandle {
    world
        .add_body(
            BodyDesc::dynamic().position(D::v(x, y)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap()
}

#[test]
fn changing_the_ground_filter_drops_a_box_then_catches_another_2d() {
    ground_filter_at_runtime::<tumble::D2>();
}

#[test]
fn changing_the_ground_filter_drops_a_box_then_catches_another_3d() {
    ground_filter_at_runtime::<tumble::D3>();
}

/// A platform made a sensor lets the ball resting on it through, reporting
/// it; made solid again, it holds the next ball.
fn sensor_toggle<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, -5.0);
    let platform = world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, -0.25)),
            ColliderDesc::new(D::cuboid(2.0, 0.25)),
        )
        .unwrap();
    let platform_collider = collider_of(&world, platform);
    let ball = || ColliderDesc::new(Shape::ball(0.25).unwrap());
    let first = world
        .add_body(BodyDesc::dynamic().position(D::v(0.0, 0.25)), ball())
        .unwrap();
    run(&mut world, 120);
    assert!((height(&world, first) - 0.25).abs() < 0.01);
    world.set_collider_sensor(platform_collider, true).unwrap();
    assert!(world.body(platform).unwrap().is_sensor());
    world.step(DT);
    assert!(
        stopped(&world, platform_collider, collider_of(&world, first)),
        "{}: the contact ended",
        D::NAME
    );
    let mut events = world.sensor_events().to_vec();
    for _ in 0..120 {
        world.step(DT);
        events.extend_from_slice(world.sensor_events());
    }
    assert_eq!(
        events,
        vec![
            SensorEvent::Entered {
                sensor: platform,
                visitor: first
            },
            SensorEvent::Left {
                sensor: platform,
                visitor: first
            }
        ],
        "{}",
        D::NAME
    );
    assert!(
        (height(&world, first) + 4.75).abs() < 0.02,
        "{}: on the ground",
        D::NAME
    );
    world.set_collider_sensor(platform_collider, false).unwrap();
    let second = world
        .add_body(BodyDesc::dynamic().position(D::v(0.0, 1.0)), ball())
        .unwrap();
    run(&mut world, 120);
    assert!(
        (height(&world, second) - 0.25).abs() < 0.01,
        "{}: held at {}",
        D::NAME,
        height(&world, second)
    );
    assert!(world.sensor_events().is_empty());
}

#[test]
fn toggling_a_sensor_lets_a_ball_through_then_holds_the_next_2d() {
    sensor_toggle::<tumble::D2>();
}

#[test]
fn toggling_a_sensor_lets_a_ball_through_then_holds_the_next_3d() {
    sensor_toggle::<tumble::D3>();
}

/// A falling box made fixed stops in mid-air, to the bit, and holds a box
/// dropped on it; made dynamic it falls with its old mass. On the ground,
/// made fixed its contact ends (neither body moves), and made dynamic
/// again it rests on the ground rather than falling through.
fn kind_changes<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let ground = world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, -0.5)),
            ColliderDesc::new(D::cuboid(100.0, 0.5)),
        )
        .unwrap();
    let ground_collider = collider_of(&world, ground);
    let b = add_box(&mut world, 0.0, 5.0);
    let mass = world.body(b).unwrap().mass();
    run(&mut world, 20);
    world.set_body_kind(b, BodyKind::Fixed).unwrap();
    let body = world.body(b).unwrap();
    assert_eq!((body.kind(), body.mass()), (BodyKind::Fixed, 0.0));
    assert_eq!(body.linear_velocity(), D::v(0.0, 0.0));
    let held = D::bits(body.position());
    let on_top = add_box(&mut world, 0.0, 6.0);
    run(&mut world, 120);
    assert_eq!(
        D::bits(world.body(b).unwrap().position()),
        held,
        "{}",
        D::NAME
    );
    let top = height(&world, on_top) - height(&world, b);
    assert!(
        (top - 1.0).abs() < 0.02,
        "{}: resting on it: {top}",
        D::NAME
    );

    world.set_body_kind(b, BodyKind::Dynamic).unwrap();
    assert_eq!(world.body(b).unwrap().mass(), mass);
    run(&mut world, 180);
    assert!(
        (height(&world, b) - 0.5).abs() < 0.02,
        "{}: landed",
        D::NAME
    );
    assert!((height(&world, on_top) - 1.5).abs() < 0.03, "{}", D::NAME);

    world.set_body_kind(b, BodyKind::Fixed).unwrap();
    world.step(DT);
    assert!(
        stopped(&world, ground_collider, collider_of(&world, b)),
        "{}: two fixed bodies do not touch",
        D::NAME
    );
    assert!(!world
        .contact_pairs()
        .iter()
        .any(|p| [p.body_a, p.body_b].contains(&ground) && [p.body_a, p.body_b].contains(&b)));
    world.set_body_kind(b, BodyKind::Dynamic).unwrap();
    let mut touched = false;
    for _ in 0..60 {
        world.step(DT);
        touched |= started(&world, ground_collider, collider_of(&world, b));
    }
    assert!(touched, "{}: the contact began again", D::NAME);
    assert!(
        (height(&world, b) - 0.5).abs() < 0.02,
        "{}: still on the ground: {}",
        D::NAME,
        height(&world, b)
    );

    world.set_body_kind(b, BodyKind::Kinematic).unwrap();
    assert_eq!(world.body(b).unwrap().mass(), 0.0);
    world
        .body_mut(b)
        .unwrap()
        .set_kinematic_target(D::v(0.0, 2.0), D::tilt(0.0))
        .unwrap();
    world.step(DT);
    assert!(
        (height(&world, b) - 2.0).abs() < 1e-5,
        "{}: driven",
        D::NAME
    );
    world.set_body_kind(b, BodyKind::Dynamic).unwrap();
    assert!(
        world
            .body_mut(b)
            .unwrap()
            .set_kinematic_target(D::v(0.0, 2.0), D::tilt(0.0))
            .is_err(),
        "no longer kinematic"
    );
}

#[test]
fn a_body_made_fixed_stops_in_mid_air_and_made_dynamic_falls_2d() {
    kind_changes::<tumble::D2>();
}

#[test]
fn a_body_made_fixed_stops_in_mid_air_and_made_dynamic_falls_3d() {
    kind_changes::<tumble::D3>();
}

/// Density changes recompute the mass (and a compound's centre), and keep
/// an overridden mass.
fn density_changes<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let b = add_box(&mut world, 0.0, 5.0);
    let c = collider_of(&world, b);
    let mass = world.body(b).unwrap().mass();
    world.set_collider_density(c, 4.0).unwrap();
    assert_eq!(world.body(b).unwrap().mass(), 4.0 * mass, "{}", D::NAME);
    assert_eq!(world.collider(c).unwrap().1.density(), 4.0);
    let part = world
        .add_collider(
            b,
            ColliderDesc::new(D::cube(0.5)).local_pose(D::v(2.0, 0.0), D::tilt(0.0)),
        )
        .unwrap();
    let center = |world: &World<D>| {
        let body = world.body(b).unwrap();
        D::dot(body.center_of_mass() - body.position(), D::v(1.0, 0.0))
    };
    assert!(
        (center(&world) - 0.4).abs() < 1e-5,
        "{}: 4:1 towards the first",
        D::NAME
    );
    world.set_collider_density(part, 4.0).unwrap();
    assert!((center(&world) - 1.0).abs() < 1e-5, "{}: halfway", D::NAME);
    world.set_body_mass(b, 3.0).unwrap();
    world.set_collider_density(part, 12.0).unwrap();
    assert_eq!(
        world.body(b).unwrap().mass(),
        3.0,
        "{}: the override holds",
        D::NAME
    );
    assert!(
        (center(&world) - 1.5).abs() < 1e-5,
        "{}: 1:3 towards the part",
        D::NAME
    );
    for bad in [0.0, -1.0, f32::INFINITY] {
        assert_eq!(
            world.set_collider_density(part, bad),
            Err(WorldError::OutOfRange {
                what: "density",
                value: bad
            })
        );
    }
    assert!(
        (center(&world) - 1.5).abs() < 1e-5,
        "refusals change nothing"
    );
}

#[test]
fn changing_density_changes_the_mass_2d() {
    density_changes::<tumble::D2>();
}

#[test]
fn changing_density_changes_the_mass_3d() {
    density_changes::<tumble::D3>();
}

/// A box standing on a thin sole, its own bottom just above the ground (so
/// the box and the ground are already a pair): removing the sole, the body's
/// first collider, ends the sole's contact with a `Stopped` event, leaves
/// the box's mass, and the box, now the body's first collider, falls the
/// last few centimetres and rests on the ground.
fn remove_a_part<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let ground = world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, -0.5)),
            ColliderDesc::new(D::cuboid(100.0, 0.5)),
        )
        .unwrap();
    let ground_collider = collider_of(&world, ground);
    let sole_desc =
        ColliderDesc::new(D::cuboid(0.5, 0.05)).local_pose(D::v(0.0, -0.55), D::tilt(0.0));
    let b = world
        .add_body(BodyDesc::dynamic().position(D::v(0.0, 0.6)), sole_desc)
        .unwrap();
    let sole = collider_of(&world, b);
    let cube = world
        .add_collider(b, ColliderDesc::new(D::cube(0.5)))
        .unwrap();
    run(&mut world, 60);
    assert!(
        (height(&world, b) - 0.6).abs() < 0.01,
        "{}: on its sole",
        D::NAME
    );
    assert!(
        world
            .contact_pairs()
            .iter()
            .any(|p| p.collider_a == cube || p.collider_b == cube),
        "{}: the cube and the ground are a pair already",
        D::NAME
    );

    let removed = world.remove_collider(sole).unwrap();
    assert_eq!(removed.handle(), sole);
    assert!(
        stopped(&world, ground_collider, sole),
        "{}: Stopped",
        D::NAME
    );
    let body = world.body(b).unwrap();
    let cube_mass = D::cube(0.5).mass_properties(1.0).mass;
    assert_eq!(body.mass(), cube_mass, "{}: the cube's mass alone", D::NAME);
    assert_eq!(body.center_of_mass(), body.position(), "{}", D::NAME);
    assert_eq!(body.colliders().len(), 1);
    assert_eq!(world.collider(cube).unwrap().1.handle(), cube);
    assert!(world.collider(sole).is_none());
    run(&mut world, 10);
    assert!(height(&world, b) < 0.59, "{}: falls", D::NAME);
    run(&mut world, 110);
    assert!(
        (height(&world, b) - 0.5).abs() < 0.01,
        "{}: rests on the cube: {}",
        D::NAME,
        height(&world, b)
    );
    assert_eq!(
        world.remove_collider(sole).err(),
        Some(WorldError::StaleHandle)
    );
    assert_eq!(
        world.remove_collider(cube).err(),
        Some(WorldError::LastCollider)
    );
    assert_eq!(world.body(b).unwrap().colliders().len(), 1);
}

#[test]
fn removing_a_part_of_a_compound_ends_its_contact_and_lightens_the_body_2d() {
    remove_a_part::<tumble::D2>();
}

#[test]
fn removing_a_part_of_a_compound_ends_its_contact_and_lightens_the_body_3d() {
    remove_a_part::<tumble::D3>();
}

/// Every control refuses a stale handle, and bad values, changing nothing.
fn stale_handles<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    let b = add_box(&mut world, 0.0, 0.0);
    let c = collider_of(&world, b);
    world.remove_body(b).unwrap();
    let stale = Err(WorldError::StaleHandle);
    assert_eq!(world.set_collider_friction(c, 0.5), stale);
    assert_eq!(world.set_collider_restitution(c, 0.5), stale);
    assert_eq!(
        world.set_collider_filter(c, CollisionFilter::default()),
        stale
    );
    assert_eq!(world.set_collider_sensor(c, true), stale);
    assert_eq!(world.set_collider_density(c, 2.0), stale);
    assert_eq!(world.remove_collider(c).map(|_| ()), stale);
    assert_eq!(world.set_body_kind(b, BodyKind::Fixed), stale);
    assert_eq!(world.set_body_locks(b, Locks::NONE), stale);
    assert_eq!(world.set_body_mass(b, 2.0), stale);
    assert_eq!(world.reset_body_mass(b), stale);
    assert_eq!(world.set_body_linear_damping(b, 0.5), stale);
    assert_eq!(world.set_body_angular_damping(b, 0.5), stale);
    assert_eq!(world.set_body_gravity_scale(b, 0.5), stale);

    let live = add_box(&mut world, 0.0, 0.0);
    for bad in [-1.0, f32::INFINITY] {
        assert!(world.set_body_linear_damping(live, bad).is_err());
        assert!(world.set_body_angular_damping(live, bad).is_err());
    }
    assert!(world.set_body_gravity_scale(live, f32::NAN).is_err());
    world.set_body_linear_damping(live, 0.5).unwrap();
    world.set_body_angular_damping(live, 0.25).unwrap();
    world.set_body_gravity_scale(live, -1.0).unwrap();
    let body = world.body(live).unwrap();
    assert_eq!(
        (
            body.linear_damping(),
            body.angular_damping(),
            body.gravity_scale()
        ),
        (0.5, 0.25, -1.0)
    );
    run(&mut world, 30);
    assert!(
        height(&world, live) > 0.1,
        "{}: a gravity scale of -1 lifts",
        D::NAME
    );
}

#[test]
fn every_control_refuses_stale_handles_and_bad_values_2d() {
    stale_handles::<tumble::D2>();
}

#[test]
fn every_control_refuses_stale_handles_and_bad_values_3d() {
    stale_handles::<tumble::D3>();
}

/// Removing a collider wakes the sleeping island of what it touched, and
/// the woken bodies move from the next step on (they join the solver).
#[test]
fn removing_a_collider_under_a_sleeping_box_lets_it_fall() {
    use tumble::d3::{BodyDesc, ColliderDesc, Shape, World};
    use tumble::glam::Vec3;
    let mut world = World::new(tumble::Settings::default());
    let base = world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec3::new(3.0, 0.5, 3.0)).unwrap()),
        )
        .unwrap();
    let shelf = world
        .add_collider(
            base,
            ColliderDesc::new(Shape::cuboid(Vec3::new(1.0, 0.1, 1.0)).unwrap())
                .local_pose(Vec3::new(0.0, 3.6, 0.0), tumble::glam::Quat::IDENTITY),
        )
        .unwrap();
    let cube = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(0.0, 3.7, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec3::splat(0.5)).unwrap()),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    assert!(
        world.body(cube).unwrap().is_sleeping(),
        "asleep on the shelf"
    );
    world.remove_collider(shelf).unwrap();
    for _ in 0..30 {
        world.step(1.0 / 60.0);
    }
    let y = world.body(cube).unwrap().position().y;
    assert!(y < 3.0, "the cube falls once its shelf is gone: y = {y}");
}
