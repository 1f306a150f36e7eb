//! The body controls a game reaches for first: locked rotation and
//! translation.

mod common;

use common::*;
use tumble::shape::Shape;
use tumble::{Axes, BodyDesc, BodyHandle, ColliderDesc, Locks, Settings, World};

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
