//! Contact events a game drives sounds and damage with: `Started` in the
//! step of the impact, carrying the step's whole normal impulse, the
//! fastest approach, the contact point, the normal and both colliders.

mod common;

use common::*;
use tumble::shape::Shape;
use tumble::{BodyDesc, ColliderDesc, ContactEvent, Settings, World};

const DT: f32 = 1.0 / 60.0;
const G: f32 = 9.81;

/// A ball of radius `r` and restitution `e` dropped with its lowest point
/// `h` above the ground: the `Started` event comes in the step where the
/// ball's vertical velocity turns from falling to rising (or stops), with
/// the impulse `m (v_in + v_out)` within 5 %.
fn dropped_ball<D: Scene>(r: f32, h: f32, e: f32) {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let ground = world.bodies().next().unwrap().0;
    let ball = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.3, r + h)),
            ColliderDesc::new(Shape::ball(r).unwrap()).restitution(e),
        )
        .unwrap();
    let mass = world.body(ball).unwrap().mass();
    let v_in = (2.0 * G * h).sqrt();
    let mut before = 0.0;
    for step in 0..240 {
        world.step(DT);
        let v = D::height(world.body(ball).unwrap().linear_velocity());
        let started: Vec<_> = world
            .contact_events()
            .iter()
            .filter(|e| matches!(e, ContactEvent::Started { .. }))
            .copied()
            .collect();
        let impact = before < -0.5 && v > before + 0.5 * v_in;
        if !impact {
            assert!(
                started.is_empty(),
                "{}: step {step}: Started while the ball falls at {v:.3} m/s",
                D::NAME
            );
            before = v;
            continue;
        }
        assert_eq!(
            started.len(),
            1,
            "{}: step {step}: the impact step reports Started",
            D::NAME
        );
        let ContactEvent::Started {
            body_a,
            body_b,
            collider_a,
            collider_b,
            point,
            normal,
            impulse,
            approach_speed,
        } = started[0]
        else {
            unreachable!()
        };
        let expected = mass * (v_in + v.max(0.0));
        println!(
            "{} r {r} h {h} e {e}: step {step}, impulse {:.4} N·s, m(v_in + v_out) {expected:.4}, approach {:.3} m/s (v_in {v_in:.3})",
            D::NAME,
            impulse,
            approach_speed
        );
        assert!(
            (impulse - expected).abs() <= 0.05 * expected,
            "{}: impulse {} against m(v_in + v_out) = {expected}",
            D::NAME,
            impulse
        );
        assert!(
            (approach_speed - v_in).abs() <= 0.05 * v_in,
            "{}: approach {} against {v_in}",
            D::NAME,
            approach_speed
        );
        let (bodies, colliders) = ([body_a, body_b], [collider_a, collider_b]);
        assert!(bodies == [ground, ball] || bodies == [ball, ground]);
        for (body, collider) in bodies.into_iter().zip(colliders) {
            assert_eq!(world.collider(collider).unwrap().0, body);
        }
        let up = if body_a == ground { 1.0 } else { -1.0 };
        assert!(
            (D::height(normal) - up).abs() < 1e-3,
            "{}: the normal points from A to B",
            D::NAME
        );
        assert!(
            D::height(point).abs() < 0.01 && D::sideways(point - D::v(0.3, 0.0)) < 0.01,
            "{}: the point is under the ball, on the ground",
            D::NAME
        );
        return;
    }
    panic!("{}: the ball never hit the ground", D::NAME);
}

#[test]
fn a_dropped_ball_starts_touching_in_its_impact_step_with_the_impact_impulse_2d() {
    for (r, h, e) in [(0.1, 1.0, 0.5), (0.25, 0.3, 0.0), (0.05, 2.0, 0.8)] {
        dropped_ball::<tumble::D2>(r, h, e);
    }
}

#[test]
fn a_dropped_ball_starts_touching_in_its_impact_step_with_the_impact_impulse_3d() {
    for (r, h, e) in [(0.1, 1.0, 0.5), (0.25, 0.3, 0.0), (0.05, 2.0, 0.8)] {
        dropped_ball::<tumble::D3>(r, h, e);
    }
}
