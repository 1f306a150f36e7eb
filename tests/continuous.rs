//! Continuous collision: fast bodies land on walls and floors, never
//! behind them (issue: continuous collision).

mod common;

use common::*;
use tumble::{BodyDesc, ColliderDesc, Settings, World};

const DT: f32 = 1.0 / 60.0;

/// A small deterministic generator (xorshift).
struct Draw(u64);

impl Draw {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn between(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }
}

/// A 5 cm ball fired at `speed` m/s from 3 m in front of a 1 cm static
/// wall (its face at x = -0.005, its back at x = 0.005), at `angle` from
/// the wall's normal (about Z), `lift` m up: the farthest its centre got
/// along X in 30 steps.
fn fire<D: Scene>(speed: f32, angle: f32, lift: f32) -> f32 {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, 0.0)),
            ColliderDesc::new(D::cuboid_xyz(0.005, 20.0, 20.0)),
        )
        .unwrap();
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(-3.0, lift))
                .linear_velocity(D::v(speed * angle.cos(), speed * angle.sin())),
            ColliderDesc::new(tumble::shape::Shape::ball(0.05).unwrap()),
        )
        .unwrap();
    let mut farthest = f32::NEG_INFINITY;
    for _ in 0..30 {
        world.step(DT);
        let x = D::dot(world.body(ball).unwrap().position(), D::v(1.0, 0.0));
        farthest = farthest.max(x);
    }
    farthest
}

fn check_wall<D: Scene>() {
    let mut draw = Draw(0x2545_f491_4f6c_dd1d);
    let mut worst = f32::NEG_INFINITY;
    let mut behind = 0;
    for _ in 0..1000 {
        let speed = draw.between(50.0, 300.0);
        let angle = draw.between(-1.2, 1.2);
        let lift = draw.between(-5.0, 5.0);
        let x = fire::<D>(speed, angle, lift);
        worst = worst.max(x);
        if x > 0.0 {
            behind += 1;
        }
    }
    println!(
        "{}: 1000 balls at 50-300 m/s into a 1 cm wall: {behind} behind it; the farthest centre at x = {worst:.4} (face at -0.005)",
        D::NAME
    );
    assert_eq!(behind, 0);
}

#[test]
fn a_fast_ball_never_passes_a_thin_wall_2d() {
    check_wall::<tumble::D2>();
}

#[test]
fn a_fast_ball_never_passes_a_thin_wall_3d() {
    check_wall::<tumble::D3>();
}

/// A 2 m x 2 cm stick spinning at 50 rad/s and falling at 20 m/s onto the
/// ground from `height` m, turned `angle`: its centre's lowest height and
/// its lowest end's, metres.
fn drop_stick<D: Scene>(height: f32, angle: f32, spin_sign: f32) -> (f32, f32) {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, -0.5)),
            ColliderDesc::new(D::cuboid(20.0, 0.5)),
        )
        .unwrap();
    let stick = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(0.0, height))
                .rotation(D::tilt(angle))
                .linear_velocity(D::v(0.0, -20.0))
                .angular_velocity(D::spin(50.0 * spin_sign)),
            ColliderDesc::new(D::cuboid_xyz(1.0, 0.01, 0.01)),
        )
        .unwrap();
    let (mut centre, mut end) = (f32::INFINITY, f32::INFINITY);
    for _ in 0..90 {
        world.step(DT);
        let body = world.body(stick).unwrap();
        centre = centre.min(D::height(body.position()));
        for x in [-1.0, 1.0] {
            end = end.min(D::height(body.pose().transform_point(D::v(x, 0.0))));
        }
    }
    (centre, end)
}

fn check_stick<D: Scene>() {
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let (mut centre, mut end) = (f32::INFINITY, f32::INFINITY);
    for _ in 0..100 {
        let height = draw.between(1.5, 4.0);
        let angle = draw.between(0.0, core::f32::consts::TAU);
        let sign = if draw.unit() < 0.5 { -1.0 } else { 1.0 };
        let (c, e) = drop_stick::<D>(height, angle, sign);
        centre = centre.min(c);
        end = end.min(e);
    }
    println!(
        "{}: 100 sticks spinning at 50 rad/s falling at 20 m/s: lowest centre {centre:.4} m, lowest end {end:.4} m (ground at 0)",
        D::NAME
    );
    assert!(centre > 0.0, "a stick's centre went below the ground");
    assert!(
        end > -0.01,
        "a stick's end went 1 cm into the ground: {end}"
    );
}

#[test]
fn a_spinning_stick_never_passes_the_ground_2d() {
    check_stick::<tumble::D2>();
}
