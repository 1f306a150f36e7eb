//! Cases a game meets that the reference scenes do not: centimetre-sized
//! bodies, fast balls with friction, and a long frame (a hitch).

mod common;

use common::*;
use tumble::glam::{Quat, Vec3};
use tumble::shape::Shape;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, Settings, World, D2, D3};

const DT: f32 = 1.0 / 60.0;
const FRICTION: f32 = 0.8;

/// A small deterministic generator (xorshift), uniform in `[0, 1)`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn between(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.next()
    }
}

/// What these tests need beyond [`Scene`]: any orientation, any direction.
trait Random: Scene {
    fn rotation(rng: &mut Rng) -> Self::Orientation;
    /// A unit direction within `cone` radians of +X.
    fn towards_x(rng: &mut Rng, cone: f32) -> Self::Vector;
    /// The `i`th of many spots on the ground, `spacing` metres apart.
    fn spot(i: usize, spacing: f32) -> Self::Vector;
    /// A wall across X, `half_thickness` thick and `half_size` wide every other way.
    fn wall(half_thickness: f32, half_size: f32) -> Shape<Self>;
}

impl Random for D2 {
    fn rotation(rng: &mut Rng) -> f32 {
        rng.between(-std::f32::consts::PI, std::f32::consts::PI)
    }
    fn towards_x(rng: &mut Rng, cone: f32) -> tumble::glam::Vec2 {
        let angle = rng.between(-cone, cone);
        tumble::glam::Vec2::new(angle.cos(), angle.sin())
    }
    fn spot(i: usize, spacing: f32) -> tumble::glam::Vec2 {
        tumble::glam::Vec2::new(spacing * i as f32, 0.0)
    }
    fn wall(half_thickness: f32, half_size: f32) -> Shape<D2> {
        Shape::cuboid(tumble::glam::Vec2::new(half_thickness, half_size)).unwrap()
    }
}

impl Random for D3 {
    fn rotation(rng: &mut Rng) -> Quat {
        let v = Vec3::new(rng.next(), rng.next(), rng.next()) * 2.0 - Vec3::ONE;
        let w = rng.next() * 2.0 - 1.0;
        Quat::from_xyzw(v.x, v.y, v.z, w).normalize()
    }
    fn towards_x(rng: &mut Rng, cone: f32) -> Vec3 {
        let off = rng.between(0.0, cone);
        let around = rng.between(0.0, std::f32::consts::TAU);
        Vec3::new(
            off.cos(),
            off.sin() * around.cos(),
            off.sin() * around.sin(),
        )
    }
    fn spot(i: usize, spacing: f32) -> Vec3 {
        Vec3::new((i % 20) as f32, 0.0, (i / 20) as f32) * spacing
    }
    fn wall(half_thickness: f32, half_size: f32) -> Shape<D3> {
        Shape::cuboid(Vec3::new(half_thickness, half_size, half_size)).unwrap()
    }
}

/// 200 cubes of 1 cm dropped from 2-30 cm at random orientations, apart
/// from each other: after 10 s every one rests on the ground, none below it.
fn centimetre_cubes<D: Random>() {
    let half = 0.005;
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let cubes: Vec<BodyHandle> = (0..200)
        .map(|i| {
            let at = D::spot(i, 0.05) + D::v(0.0, rng.between(0.02, 0.3));
            let desc = BodyDesc::dynamic()
                .position(at)
                .rotation(D::rotation(&mut rng));
            world
                .add_body(desc, ColliderDesc::new(D::cube(half)))
                .unwrap()
        })
        .collect();
    for _ in 0..600 {
        world.step(DT);
    }
    let lowest = cubes
        .iter()
        .map(|&h| D::height(world.body(h).unwrap().position()))
        .fold(f32::INFINITY, f32::min);
    let below = cubes
        .iter()
        .filter(|&&h| D::height(world.body(h).unwrap().position()) < 0.0)
        .count();
    println!(
        "{}: 1 cm cubes below the ground after 10 s: {below} of 200, lowest centre {lowest:.5} m",
        D::NAME
    );
    assert_eq!(below, 0, "{}: 1 cm cubes fell through", D::NAME);
    assert!(
        lowest > 0.5 * half,
        "{}: a cube sank to {lowest} m",
        D::NAME
    );
}

#[test]
fn centimetre_cubes_rest_on_the_ground_2d() {
    centimetre_cubes::<D2>();
}

#[test]
fn centimetre_cubes_rest_on_the_ground_3d() {
    centimetre_cubes::<D3>();
}

/// 100 balls of 5 cm with friction fired at 50-300 m/s, up to 70 degrees
/// off the normal, at a fixed wall 10 cm thick: none ends behind it. A ball
/// struck at a slant spins up within the impact step; the contact must
/// follow its surface, not a point turning with it.
fn friction_balls_at_a_wall<D: Random>() {
    let (radius, half_thickness) = (0.05, 0.05);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut through = 0;
    for shot in 0..100 {
        let mut world = World::<D>::new(Settings::default());
        world
            .add_body(
                BodyDesc::fixed(),
                ColliderDesc::new(D::wall(half_thickness, 20.0)).friction(FRICTION),
            )
            .unwrap();
        let direction = D::towards_x(&mut rng, 70f32.to_radians());
        let speed = rng.between(50.0, 300.0);
        let ball = world
            .add_body(
                BodyDesc::dynamic()
                    .position(D::v(-3.0, 0.0))
                    .linear_velocity(direction * speed),
                ColliderDesc::new(Shape::ball(radius).unwrap()).friction(FRICTION),
            )
            .unwrap();
        let mut behind = false;
        for _ in 0..30 {
            world.step(DT);
            let x = D::dot(world.body(ball).unwrap().position(), D::v(1.0, 0.0));
            behind |= x > 0.0;
        }
        if behind {
            println!(
                "{}: shot {shot} at {speed:.0} m/s along {direction:?} went through",
                D::NAME
            );
            through += 1;
        }
    }
    println!(
        "{}: friction balls through a 10 cm wall: {through} of 100",
        D::NAME
    );
    assert_eq!(through, 0, "{}: balls went through the wall", D::NAME);
}

#[test]
fn fast_friction_balls_do_not_pass_through_a_wall_2d() {
    friction_balls_at_a_wall::<D2>();
}

#[test]
fn fast_friction_balls_do_not_pass_through_a_wall_3d() {
    friction_balls_at_a_wall::<D3>();
}

/// A ball thrown sliding along the ground with no spin: friction turns it
/// to rolling at `v0 / (1 + I / (m r²))`: 5/7 of its speed for a solid
/// ball, 2/3 for a disc; rolling, it keeps that speed (nothing slows a
/// rolling ball on flat ground) and stays on the ground.
fn sliding_ball_rolls<D: Random>(rolling_share: f32) {
    let (radius, v0) = (0.2, 6.0);
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(-40.0, radius))
                .linear_velocity(D::v(v0, 0.0)),
            ColliderDesc::new(Shape::ball(radius).unwrap()),
        )
        .unwrap();
    let (mut lowest, mut highest) = (f32::INFINITY, f32::NEG_INFINITY);
    for step in 0..300 {
        world.step(DT);
        let body = world.body(ball).unwrap();
        let height = D::height(body.position());
        lowest = lowest.min(height);
        highest = highest.max(height);
        if step == 120 || step == 299 {
            let speed = D::len(body.linear_velocity());
            println!(
                "{}: step {step}: speed {speed:.4} m/s, expected {:.4}; centre {lowest:.5}..{highest:.5} m",
                D::NAME,
                v0 * rolling_share
            );
            assert!(
                (speed - v0 * rolling_share).abs() < 0.01 * v0,
                "{}: rolling at {speed} m/s",
                D::NAME
            );
        }
    }
    assert!(
        lowest > radius - 0.002 && highest < radius + 0.002,
        "{}: the ball left the ground's surface: centre {lowest}..{highest}",
        D::NAME
    );
}

#[test]
fn a_sliding_ball_starts_rolling_at_the_speed_its_inertia_gives_2d() {
    sliding_ball_rolls::<D2>(2.0 / 3.0);
}

#[test]
fn a_sliding_ball_starts_rolling_at_the_speed_its_inertia_gives_3d() {
    sliding_ball_rolls::<D3>(5.0 / 7.0);
}

/// A frame that takes a whole second (a game's hitch), given to `step` as
/// it is: boxes and balls resting (awake) on the ground stay on it. The step is
/// taken as steps of at most `Settings::max_step`: taken whole, one step of
/// a second leaves the boxes centimetres into the ground.
fn one_second_hitch<D: Random>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let resting: Vec<(BodyHandle, f32)> = (0..8)
        .map(|i| {
            let (shape, half) = if i % 2 == 0 {
                (D::cube(0.5), 0.5)
            } else {
                (Shape::ball(0.3).unwrap(), 0.3)
            };
            let at = D::spot(i, 2.0) + D::v(0.0, half);
            let body = world
                .add_body(
                    BodyDesc::dynamic().position(at).can_sleep(false),
                    ColliderDesc::new(shape),
                )
                .unwrap();
            (body, half)
        })
        .collect();
    for _ in 0..60 {
        world.step(DT);
    }
    world.step(1.0);
    for _ in 0..3 {
        for &(body, half) in &resting {
            let height = D::height(world.body(body).unwrap().position());
            assert!(
                (height - half).abs() < 0.01,
                "{}: a body resting at {half} m is at {height} m after the hitch",
                D::NAME
            );
        }
        world.step(DT);
    }
}

#[test]
fn a_one_second_hitch_leaves_resting_bodies_on_the_ground_2d() {
    one_second_hitch::<D2>();
}

#[test]
fn a_one_second_hitch_leaves_resting_bodies_on_the_ground_3d() {
    one_second_hitch::<D3>();
}

/// A step longer than `max_step` is the same, bit for bit, as the equal
/// steps it is split into; past `max_steps_per_call` steps the rest of the
/// time is dropped.
#[test]
fn a_long_step_is_its_equal_steps_and_at_most_max_steps_per_call_of_them() {
    let falling = || {
        let mut world = World::<D3>::new(Settings::default());
        add_ground::<D3>(&mut world, 0.0);
        let body = world
            .add_body(
                BodyDesc::dynamic()
                    .position(Vec3::new(0.0, 3.0, 0.0))
                    .rotation(Quat::from_rotation_z(0.3))
                    .linear_velocity(Vec3::new(1.0, 0.0, 0.5)),
                ColliderDesc::new(D3::cube(0.5)),
            )
            .unwrap();
        (world, body)
    };
    let pose = |world: &World<D3>, body| {
        let b = world.body(body).unwrap();
        (b.position(), b.rotation(), b.linear_velocity())
    };
    let (mut long, body) = falling();
    let (mut short, _) = falling();
    for _ in 0..20 {
        long.step(0.05);
        short.step(0.025);
        short.step(0.025);
    }
    assert_eq!(pose(&long, body), pose(&short, body));
    let (mut hitch, body) = falling();
    let (mut capped, _) = falling();
    hitch.step(10.0);
    let settings = *capped.settings();
    for _ in 0..settings.max_steps_per_call {
        capped.step(settings.max_step);
    }
    assert_eq!(pose(&hitch, body), pose(&capped, body));
}
