//! Continuous collision: fast bodies land on walls and floors, never
//! behind them (issue: continuous collision).

mod common;

use common::*;
use tumble::{BodyDesc, ColliderDesc, Settings, World};

const DT: f32 = 1.0 / 60.0;

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

/// In 3D the stick lands on its end or its long face, each a face of a
/// box meeting the ground's: its manifold is that face clipped to the
/// ground's (`narrow_phase::box_faces`), corners on both sides of its long
/// axis, so the landing does not spin it about that axis (whose moment is
/// 1/5000 of the one across it).
#[test]
fn a_spinning_stick_never_passes_the_ground_3d() {
    check_stick::<tumble::D3>();
}

/// A 5 cm bullet box fired at 200 m/s at the `row`th box of a tower of 10
/// unit boxes standing 10 m away: the first box it touched (its place in
/// the tower), and how far along X it got.
fn bullet_into_tower<D: Scene>(row: usize) -> (Option<usize>, f32) {
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
    let tower: Vec<_> = (0..10)
        .map(|i| {
            world
                .add_body(
                    BodyDesc::dynamic().position(D::v(0.0, 0.5 + i as f32)),
                    ColliderDesc::new(D::cube(0.5)),
                )
                .unwrap()
        })
        .collect();
    let bullet = world
        .add_body(
            BodyDesc::dynamic()
                .bullet(true)
                .position(D::v(-10.0, 0.5 + row as f32))
                .linear_velocity(D::v(200.0, 0.0)),
            ColliderDesc::new(D::cube(0.025)),
        )
        .unwrap();
    let mut first = None;
    let mut farthest = f32::NEG_INFINITY;
    for _ in 0..20 {
        world.step(DT);
        farthest = farthest.max(D::dot(
            world.body(bullet).unwrap().position(),
            D::v(1.0, 0.0),
        ));
        for event in world.contact_events() {
            if let tumble::ContactEvent::Started { body_a, body_b, .. } = event {
                let other = if *body_a == bullet {
                    *body_b
                } else if *body_b == bullet {
                    *body_a
                } else {
                    continue;
                };
                if first.is_none() {
                    first = tower.iter().position(|&b| b == other);
                }
            }
        }
    }
    (first, farthest)
}

fn check_bullet_tower<D: Scene>() {
    for row in [0, 3, 9] {
        let (first, farthest) = bullet_into_tower::<D>(row);
        println!("{}: bullet at box {row} of the tower: first touched {first:?}, got to x = {farthest:.3}", D::NAME);
        assert_eq!(first, Some(row));
        assert!(farthest < 0.5, "it passed the tower: x = {farthest}");
    }
}

#[test]
fn a_bullet_hits_the_first_box_it_meets_2d() {
    check_bullet_tower::<tumble::D2>();
}

#[test]
fn a_bullet_hits_the_first_box_it_meets_3d() {
    check_bullet_tower::<tumble::D3>();
}

/// Two 5 cm bullet boxes 4 m apart flying at each other at 200 m/s each,
/// offset `offset` m across their path, restitution `restitution`, no
/// gravity: their velocities along X after 10 steps.
fn bullets_head_on<D: Scene>(offset: f32, restitution: f32) -> (f32, f32) {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        gravity: D::v(0.0, 0.0),
        ..Settings::default()
    });
    let fire = |world: &mut World<D>, x: f32, y: f32, vx: f32| {
        world
            .add_body(
                BodyDesc::dynamic()
                    .bullet(true)
                    .position(D::v(x, y))
                    .linear_velocity(D::v(vx, 0.0)),
                ColliderDesc::new(D::cube(0.025))
                    .restitution(restitution)
                    .friction(0.0),
            )
            .unwrap()
    };
    let a = fire(&mut world, -2.0, 1.0, 200.0);
    let b = fire(&mut world, 2.0, 1.0 + offset, -200.0);
    for _ in 0..10 {
        world.step(DT);
    }
    let vx = |h| D::dot(world.body(h).unwrap().linear_velocity(), D::v(1.0, 0.0));
    (vx(a), vx(b))
}

fn check_bullets_head_on<D: Scene>() {
    // Centred: an elastic hit sends them back, an inelastic one stops both.
    let (a1, b1) = bullets_head_on::<D>(0.0, 1.0);
    let (a0, b0) = bullets_head_on::<D>(0.0, 0.0);
    println!(
        "{}: centred, restitution 1: {a1:.2} / {b1:.2} m/s; restitution 0: {a0:.3} / {b0:.3} m/s",
        D::NAME
    );
    assert!(
        (a1 + 200.0).abs() < 2.0 && (b1 - 200.0).abs() < 2.0,
        "bounced at {a1}, {b1}"
    );
    assert!(a0.abs() < 1.0 && b0.abs() < 1.0, "stopped at {a0}, {b0}");
    let mut draw = Draw(0x5851_f42d_4c95_7f2d);
    let (mut missed, mut worst_bounce, mut worst_stop) = (0, 0.0f32, 0.0f32);
    for _ in 0..100 {
        // Within half their size, so that they meet face to face over at
        // least half a side: further off, an elastic hit through points
        // that far from the centres turns nearly all the motion into spin
        // (equal cubes 4 cm off: each keeps -5 m/s of its 200), and the
        // bounce is not a reversal even in exact physics.
        let offset = draw.between(-0.025, 0.025);
        let (a, b) = bullets_head_on::<D>(offset, 1.0);
        if !(a < 0.0 && b > 0.0) {
            missed += 1;
        }
        worst_bounce = worst_bounce.max((a + 200.0).abs()).max((b - 200.0).abs());
        let (a, b) = bullets_head_on::<D>(offset, 0.0);
        if a > 150.0 || b < -150.0 {
            missed += 1;
        }
        worst_stop = worst_stop.max(a.abs()).max(b.abs());
    }
    println!(
        "{}: two bullets head on at 200 m/s, 100 offsets: {missed} passed through; restitution 1: speed off 200 by at most {worst_bounce:.2} m/s; restitution 0: at most {worst_stop:.2} m/s left",
        D::NAME
    );
    assert_eq!(missed, 0);
}

#[test]
fn two_bullets_meeting_head_on_collide_2d() {
    check_bullets_head_on::<tumble::D2>();
}

#[test]
fn two_bullets_meeting_head_on_collide_3d() {
    check_bullets_head_on::<tumble::D3>();
}

/// A thin body (a capsule 2 cm thick, or a box 4 cm thick, by `kind`)
/// fired at `speed` m/s from 2 m in front of a fixed box 1 m thick (its
/// face at x = 0), tilted by `tilt` and spun at `spin` rad/s about Z: the
/// farthest its centre got along X in 20 steps.
fn fire_thin<D: Scene>(kind: usize, speed: f32, tilt: f32, spin: f32, lift: f32) -> f32 {
    let mut world = World::<D>::new(Settings {
        sleep: false,
        gravity: D::v(0.0, 0.0),
        ..Settings::default()
    });
    world
        .add_body(
            BodyDesc::fixed().position(D::v(0.5, 0.0)),
            ColliderDesc::new(D::cuboid_xyz(0.5, 40.0, 40.0)),
        )
        .unwrap();
    let shape = match kind {
        0 => tumble::shape::Shape::capsule(0.1, 0.01).unwrap(),
        _ => D::cuboid_xyz(0.02, 0.1, 0.06),
    };
    let body = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(-2.0, lift))
                .rotation(D::tilt(tilt))
                .linear_velocity(D::v(speed, 0.0))
                .angular_velocity(D::spin(spin)),
            ColliderDesc::new(shape),
        )
        .unwrap();
    let mut farthest = f32::NEG_INFINITY;
    for _ in 0..20 {
        world.step(DT);
        let x = D::dot(world.body(body).unwrap().position(), D::v(1.0, 0.0));
        farthest = farthest.max(x);
    }
    farthest
}

/// Thin fast bodies, thrown tilted and spinning at a solid box, never get
/// their centres into it: in the step after the first impact they start
/// touching it, and their cores stop them where their overlap alone would
/// not (`world::continuous`, `core_impact`).
fn check_thin_into_box<D: Scene>() {
    let mut draw = Draw(0x5eed_0f74_11b0_d1a7);
    let mut worst = f32::NEG_INFINITY;
    for k in 0..200 {
        let x = fire_thin::<D>(
            k % 2,
            draw.between(60.0, 400.0),
            draw.between(-1.5, 1.5),
            draw.between(-40.0, 40.0),
            draw.between(-2.0, 2.0),
        );
        worst = worst.max(x);
    }
    println!(
        "{}: 200 thin bodies at 60-400 m/s into a solid box: the farthest centre at x = {worst:.4} (face at 0)",
        D::NAME
    );
    assert!(worst < 0.0, "a centre reached x = {worst}");
}

#[test]
fn thin_fast_bodies_never_get_their_centres_into_a_solid_box_2d() {
    check_thin_into_box::<tumble::D2>();
}

#[test]
fn thin_fast_bodies_never_get_their_centres_into_a_solid_box_3d() {
    check_thin_into_box::<tumble::D3>();
}
