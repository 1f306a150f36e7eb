//! Scenario tests through the public API, each written once for 2D and 3D.

mod common;

use common::*;
use tumble::{BodyDesc, ColliderDesc, Settings, World};

const DT: f32 = 1.0 / 60.0;

fn box_drop<D: Scene>() {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    add_ground::<D>(&mut world, 0.0);
    let h = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 0.6)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(DT);
    }
    let b = world.body(h).unwrap();
    let speed = D::len(b.linear_velocity());
    let sideways = D::sideways(b.position());
    let penetration = 0.5 - D::height(b.position());
    println!(
        "{}: speed {speed:.2e} sideways {sideways:.2e} penetration {penetration:.2e}",
        D::NAME
    );
    assert!(speed < 1e-3, "speed {speed}");
    assert!(sideways < 1e-3, "sideways {sideways}");
    assert!(penetration <= 0.005 + 0.001, "penetration {penetration}");
}

#[test]
fn box_dropped_on_ground_comes_to_rest_2d() {
    box_drop::<tumble::D2>();
}

#[test]
fn box_dropped_on_ground_comes_to_rest_3d() {
    box_drop::<tumble::D3>();
}

fn tower<D: Scene>() {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    add_ground::<D>(&mut world, 0.0);
    let boxes: Vec<_> = (0..20)
        .map(|i| {
            let y = 0.5 + i as f32;
            world
                .add_body(
                    BodyDesc::dynamic().position(D::v(0.0, y)),
                    ColliderDesc::new(D::cube(0.5)),
                )
                .unwrap()
        })
        .collect();
    for _ in 0..600 {
        world.step(DT);
    }
    let drift = boxes
        .iter()
        .map(|&h| D::sideways(world.body(h).unwrap().position()))
        .fold(0.0, f32::max);
    let top = D::height(world.body(boxes[19]).unwrap().position());
    println!("{}: tower drift {drift:.2e} m, top at {top:.3} m", D::NAME);
    assert!(drift < 0.02, "drift {drift}");
    assert!(top > 19.0, "the tower fell: top at {top}");
}

#[test]
fn tower_of_twenty_stands_2d() {
    tower::<tumble::D2>();
}

#[test]
fn tower_of_twenty_stands_3d() {
    tower::<tumble::D3>();
}

/// A ball with restitution 0.5 dropped from `height` (its bottom above the
/// ground) bounces to a quarter of it, within 10%.
fn bounce<D: Scene>(height: f32) {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    let ground = D::cuboid(50.0, 0.5);
    world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, -0.5)),
            ColliderDesc::new(ground).restitution(0.5),
        )
        .unwrap();
    let ball = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, height + 0.25)),
            ColliderDesc::new(tumble::shape::Shape::ball(0.25).unwrap()).restitution(0.5),
        )
        .unwrap();
    let mut bounced = false;
    let mut apex: f32 = 0.0;
    for _ in 0..240 {
        world.step(DT);
        let b = world.body(ball).unwrap();
        let vy = D::height(b.linear_velocity());
        if vy > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(D::height(b.position()) - 0.25);
            if vy < 0.0 {
                break;
            }
        }
    }
    let expected = height * 0.25;
    println!("{}: from {height} m, bounce apex {apex:.4} m", D::NAME);
    assert!((apex - expected).abs() <= 0.1 * expected, "apex {apex}");
}

#[test]
fn ball_bounces_to_a_quarter_2d() {
    bounce::<tumble::D2>(1.0);
    bounce::<tumble::D2>(0.3);
}

#[test]
fn ball_bounces_to_a_quarter_3d() {
    bounce::<tumble::D3>(1.0);
    bounce::<tumble::D3>(0.3);
}

/// A ball of radius 0.25 m thrown along flat ground at 5 m/s skids, then
/// rolls (at 3.3 m/s in 2D, 3.6 m/s in 3D: a quarter of a radian a step)
/// until it has gone 10 m, and never moves up or down faster than 1 mm/s.
/// Its contact of the step before, were it kept where it lay on the ball,
/// would lift 7 mm behind it and halve the masses the real contact pushes
/// with: the ball rolled 0.6 mm deep with an upward speed of 1 cm/s.
fn roll<D: Scene>() {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    add_ground::<D>(&mut world, 0.0);
    let radius = 0.25;
    let start = D::v(-6.0, radius);
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(start)
                .linear_velocity(D::v(5.0, 0.0)),
            ColliderDesc::new(tumble::shape::Shape::ball(radius).unwrap()),
        )
        .unwrap();
    let mut worst: f32 = 0.0;
    let mut steps = 0;
    while D::len(world.body(ball).unwrap().position() - start) < 10.0 && steps < 600 {
        world.step(DT);
        steps += 1;
        let b = world.body(ball).unwrap();
        worst = worst.max(D::height(b.linear_velocity()).abs());
    }
    let b = world.body(ball).unwrap();
    println!(
        "{}: rolled 10 m in {steps} steps, largest vertical speed {worst:.2e} m/s, {:.2e} m deep",
        D::NAME,
        radius - D::height(b.position())
    );
    assert!(D::len(b.position() - start) >= 10.0, "{steps} steps");
    assert!(worst < 1e-3, "vertical speed {worst} m/s");
}

#[test]
fn a_ball_rolls_on_flat_ground_without_vertical_speed_2d() {
    roll::<tumble::D2>();
}

#[test]
fn a_ball_rolls_on_flat_ground_without_vertical_speed_3d() {
    roll::<tumble::D3>();
}

/// A box on a 30 degree slope with friction `mu` (both surfaces); returns
/// (distance slid along the slope in 2 s, acceleration along it between 0.5 and 2 s).
fn slope<D: Scene>(mu: f32) -> (f32, f32) {
    let angle = 30f32.to_radians();
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    let normal = D::v(-angle.sin(), angle.cos());
    let down = D::v(-angle.cos(), -angle.sin());
    let slope = D::cuboid(20.0, 0.5);
    world
        .add_body(
            BodyDesc::fixed().rotation(D::tilt(angle)),
            ColliderDesc::new(slope).friction(mu),
        )
        .unwrap();
    let start = normal * 1.0;
    let h = world
        .add_body(
            BodyDesc::dynamic().position(start).rotation(D::tilt(angle)),
            ColliderDesc::new(D::cube(0.5)).friction(mu),
        )
        .unwrap();
    let mut speed_at_half_second = 0.0;
    for step in 1..=120 {
        world.step(DT);
        if step == 30 {
            speed_at_half_second = D::dot(world.body(h).unwrap().linear_velocity(), down);
        }
    }
    let b = world.body(h).unwrap();
    let slid = D::dot(b.position() - start, down);
    let acceleration = (D::dot(b.linear_velocity(), down) - speed_at_half_second) / 1.5;
    (slid, acceleration)
}

fn slope_holds_and_slides<D: Scene>() {
    let (held, _) = slope::<D>(0.7);
    println!("{}: friction 0.7 slid {held:.2e} m in 2 s", D::NAME);
    assert!(held.abs() < 0.01, "slid {held}");
    let (_, a) = slope::<D>(0.2);
    let angle = 30f32.to_radians();
    let expected = 9.81 * (angle.sin() - 0.2 * angle.cos());
    println!(
        "{}: friction 0.2 acceleration {a:.4} m/s² (expected {expected:.4})",
        D::NAME
    );
    assert!(
        (a - expected).abs() <= 0.05 * expected,
        "acceleration {a}, expected {expected}"
    );
}

#[test]
fn box_on_a_slope_holds_or_slides_by_friction_2d() {
    slope_holds_and_slides::<tumble::D2>();
}

#[test]
fn box_on_a_slope_holds_or_slides_by_friction_3d() {
    slope_holds_and_slides::<tumble::D3>();
}

/// A box falls at 20 m/s (33 cm a step) towards the ground from 25 cm
/// above it. The speculative margin grows with the closing speed, so the
/// contact is seen before the overlap, not 8 cm into the ground a step
/// later. Returns how deep the box's bottom went.
fn fast_drop<D: Scene>() -> f32 {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    add_ground::<D>(&mut world, 0.0);
    let block = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(0.0, 0.5 + 0.25))
                .linear_velocity(D::v(0.0, -20.0)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    let mut lowest = f32::INFINITY;
    for _ in 0..60 {
        world.step(DT);
        lowest = lowest.min(D::height(world.body(block).unwrap().position()) - 0.5);
    }
    println!("{}: deepest bottom {lowest:.4} m", D::NAME);
    lowest
}

#[test]
fn fast_box_is_caught_at_the_ground() {
    for lowest in [fast_drop::<tumble::D2>(), fast_drop::<tumble::D3>()] {
        assert!(lowest >= -0.005, "bottom {lowest} m into the ground");
    }
}

/// A capsule (half height 0.3 m, radius 0.12 m) lying along the slope of a
/// fixed box turned by `tilt` about Z, both frictionless, starts at its
/// resting height sliding down the slope at `speed`, for 3 s; returns how
/// deep it went at most (its centre below the resting height, along the
/// box's normal) and how far its speed along the slope strayed from
/// `speed` plus what gravity adds (none on the flat).
fn capsule_slide<D: Scene>(speed: f32, tilt: f32) -> (f32, f32) {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    let normal = D::v(-tilt.sin(), tilt.cos());
    let down = D::v(-tilt.cos(), -tilt.sin());
    world
        .add_body(
            BodyDesc::fixed()
                .position(normal * -0.5)
                .rotation(D::tilt(tilt)),
            ColliderDesc::new(D::cuboid(50.0, 0.5)).friction(0.0),
        )
        .unwrap();
    let radius = 0.12;
    let capsule = world
        .add_body(
            BodyDesc::dynamic()
                .position(normal * radius)
                .rotation(D::tilt(tilt + core::f32::consts::FRAC_PI_2))
                .linear_velocity(down * speed),
            ColliderDesc::new(tumble::shape::Shape::capsule(0.3, radius).unwrap()).friction(0.0),
        )
        .unwrap();
    let steps = 180;
    let mut deepest: f32 = 0.0;
    for _ in 0..steps {
        world.step(DT);
        let b = world.body(capsule).unwrap();
        deepest = deepest.max(radius - D::dot(b.position(), normal));
    }
    let b = world.body(capsule).unwrap();
    let expected = speed + 9.81 * tilt.sin() * steps as f32 * DT;
    (
        deepest,
        (D::dot(b.linear_velocity(), down) - expected).abs(),
    )
}

/// A capsule lying on a box and sliding rides at its resting height, as on
/// a mesh, at any speed, on the flat and down a frictionless slope. The
/// query finds it one point, at either end; a sliding capsule's point of
/// the step before slid past the merging radius, so it was held by one end
/// at a time, rocked from end to end at 0.43 rad/s and sank 1.6 cm at
/// 2 m/s: its manifold now takes both ends at every query
/// (`perturb::rounded_end_contacts`).
fn capsule_slides_at_its_resting_height<D: Scene>() {
    for tilt in [0.0, 0.3] {
        for speed in [0.0, 0.5, 1.0, 2.0, 4.0] {
            let (deepest, strayed) = capsule_slide::<D>(speed, tilt);
            println!(
                "{}: tilt {tilt}, {speed} m/s: {deepest:.2e} m deep, speed strayed {strayed:.2e} m/s",
                D::NAME
            );
            assert!(deepest < 5e-4, "tilt {tilt}, {speed} m/s: {deepest} m deep");
            assert!(
                strayed < 2e-3,
                "tilt {tilt}, {speed} m/s: speed strayed {strayed} m/s"
            );
        }
    }
}

#[test]
fn a_capsule_slides_on_a_box_at_its_resting_height_2d() {
    capsule_slides_at_its_resting_height::<tumble::D2>();
}

#[test]
fn a_capsule_slides_on_a_box_at_its_resting_height_3d() {
    capsule_slides_at_its_resting_height::<tumble::D3>();
}
