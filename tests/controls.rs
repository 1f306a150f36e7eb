//! The body controls a game reaches for first: locked rotation and
//! translation, and mass overrides.

mod common;

use common::*;
use tumble::shape::Shape;
use tumble::{Axes, BodyDesc, BodyHandle, ColliderDesc, Locks, Settings, World, WorldError};

const DT: f32 = 1.0 / 60.0;

/// Steps in ten seconds at `DT`.
const TEN_SECONDS: usize = 600;

fn zero_gravity<D: Scene>() -> World<D> {
    World::new(Settings {
        gravity: D::v(0.0, 0.0),
        ..Settings::default()
    })
}

fn run<D: Scene>(world: &mut World<D>, steps: usize) {
    (0..steps).for_each(|_| world.step(DT));
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
        let body = world.body_mut(player).unwrap();
        let v = body.linear_velocity();
        body.set_linear_velocity(D::v(WALKING_SPEED, D::height(v)))
            .unwrap();
        world.step(DT);
        let body = world.body(player).unwrap();
        always_upright &=
            body.rotation() == upright && body.angular_velocity() == Default::default();
        let turned = D::rotation_from_angle(body.rotation());
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
        let body = world.body_mut(h).unwrap();
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
    let body = world.body_mut(h).unwrap();
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
    let body = world.body_mut(h).unwrap();
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
