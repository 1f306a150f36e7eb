//! Bad input never panics and never enters the world: random sequences of
//! calls, with NaN, infinities and 1e30 among the values, and stale handles.

mod common;

use common::*;
use tumble::shape::Shape;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, Settings, Vector, World};

/// A deterministic generator of awkward numbers.
struct Chaos(u64);

impl Chaos {
    fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: u32) -> u32 {
        self.next_u32() % n
    }

    /// Mostly ordinary values, sometimes NaN, infinities, huge, zero or negative.
    fn value(&mut self) -> f32 {
        match self.below(20) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 1e30,
            4 => -1e30,
            5 => 0.0,
            _ => (self.next_u32() as f32 / u32::MAX as f32 - 0.5) * 10.0,
        }
    }

    /// A value in 0.1..1 most of the time, an awkward one otherwise.
    fn mostly_fine(&mut self) -> f32 {
        if self.below(5) == 0 {
            self.value()
        } else {
            0.1 + 0.9 * (self.next_u32() as f32 / u32::MAX as f32)
        }
    }
}

fn random_shape<D: Scene>(chaos: &mut Chaos) -> Result<Shape<D>, tumble::shape::ShapeError> {
    match chaos.below(3) {
        0 => Shape::ball(chaos.mostly_fine()),
        1 => Shape::capsule(chaos.mostly_fine(), chaos.mostly_fine()),
        _ => Shape::cuboid(D::v(chaos.mostly_fine(), chaos.mostly_fine()) + D::v(0.0, 0.0)),
    }
}

/// Runs `calls` random calls; returns (steps taken, most bodies at once).
fn drive<D: Scene>(seed: u64, calls: usize) -> (usize, usize) {
    let mut chaos = Chaos(seed);
    // Bodies are added more often than removed, so the world fills up.
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let mut handles: Vec<BodyHandle> = Vec::new();
    let mut removed: Vec<BodyHandle> = Vec::new();
    let (mut steps, mut most) = (0, 0);
    for _ in 0..calls {
        match chaos.below(10) {
            0 | 1 => {
                let shape = random_shape::<D>(&mut chaos);
                if let Ok(shape) = shape {
                    let desc = BodyDesc::dynamic()
                        .position(D::v(chaos.mostly_fine() * 10.0, chaos.mostly_fine() * 10.0))
                        .rotation(D::tilt(chaos.mostly_fine()))
                        .linear_velocity(D::v(chaos.value(), chaos.mostly_fine()));
                    let collider = ColliderDesc::new(shape)
                        .density(chaos.mostly_fine())
                        .friction(chaos.mostly_fine())
                        .restitution(chaos.mostly_fine());
                    match world.add_body(desc, collider) {
                        Ok(h) => handles.push(h),
                        Err(e) => assert!(!e.to_string().is_empty()),
                    }
                }
            }
            2 => {
                if handles.len() > 60 {
                    let h = handles.swap_remove(chaos.below(handles.len() as u32) as usize);
                    assert!(world.remove_body(h).is_some());
                    removed.push(h);
                }
            }
            3 => {
                if let Some(&h) = removed.last() {
                    assert!(
                        world.body(h).is_none()
                            && world.body_mut(h).is_none()
                            && world.remove_body(h).is_none()
                    );
                }
            }
            4 | 5 => {
                if let Some(&h) = handles.get(chaos.below(handles.len().max(1) as u32) as usize) {
                    let v = D::v(chaos.value(), chaos.value());
                    let body = world.body_mut(h).unwrap();
                    let _ = match chaos.below(5) {
                        0 => body.set_position(v),
                        1 => body.set_linear_velocity(v),
                        2 => body.apply_impulse(v, D::v(chaos.value(), chaos.value())),
                        3 => body.apply_force(v),
                        _ => body.set_rotation(D::tilt(chaos.value())),
                    };
                }
            }
            6 if chaos.below(2) == 0 => {
                let all = tumble::QueryFilter::default();
                let (origin, direction) = (
                    D::v(chaos.value(), chaos.value()),
                    D::v(chaos.value(), chaos.value()),
                );
                for hit in world.cast_ray_all(origin, direction, chaos.value(), &all) {
                    assert!(
                        hit.distance.is_finite() && hit.point.is_finite() && hit.normal.is_finite(),
                        "a ray hit leaked a non-finite value"
                    );
                }
                let _ = world.bodies_at_point(origin, &all);
                if let Ok(probe) = random_shape::<D>(&mut chaos) {
                    let pose = tumble::Pose::<D>::new(origin, D::tilt(chaos.value()));
                    let _ = world.bodies_overlapping(&probe, &pose, &all);
                    if let Some(hit) =
                        world.cast_shape(&probe, &pose, direction, chaos.value(), &all)
                    {
                        assert!(
                            hit.distance.is_finite() && hit.point.is_finite(),
                            "a shape cast leaked a non-finite value"
                        );
                    }
                }
            }
            6 => {
                if let (Ok(a), Ok(b)) =
                    (random_shape::<D>(&mut chaos), random_shape::<D>(&mut chaos))
                {
                    let pa = tumble::Pose::<D>::new(
                        D::v(chaos.value(), chaos.value()),
                        D::tilt(chaos.value()),
                    );
                    let pb = tumble::Pose::<D>::new(
                        D::v(chaos.value(), chaos.value()),
                        D::tilt(chaos.value()),
                    );
                    if let Some(c) = tumble::pipeline::narrow_phase::contact(&a, &pa, &b, &pb) {
                        assert!(
                            c.depth.is_finite() && c.normal.is_finite() && c.point_a.is_finite(),
                            "contact leaked a non-finite value"
                        );
                    }
                    let _ = tumble::pipeline::narrow_phase::distance(&a, &pa, &b, &pb);
                }
            }
            _ => {
                let dt = if chaos.below(4) == 0 {
                    chaos.value()
                } else {
                    1.0 / 60.0
                };
                world.step(dt);
                steps += 1;
                most = most.max(world.body_count());
                for (_, body) in world.bodies() {
                    let finite = body.position().is_finite()
                        && body.linear_velocity().is_finite()
                        && D::angular_is_finite(body);
                    assert!(
                        finite,
                        "a body went non-finite: {:?} {:?} {:?} {:?}",
                        body.position(),
                        body.linear_velocity(),
                        body.rotation(),
                        body.angular_velocity()
                    );
                }
            }
        }
    }
    (steps, most)
}

#[test]
fn ten_thousand_random_calls_never_panic_or_leak_nan_2d() {
    let (steps, most) = drive::<tumble::D2>(11, 10_000);
    assert!(
        steps > 2000 && most > 50,
        "too tame: {steps} steps, at most {most} bodies"
    );
}

#[test]
fn ten_thousand_random_calls_never_panic_or_leak_nan_3d() {
    let (steps, most) = drive::<tumble::D3>(13, 10_000);
    assert!(
        steps > 2000 && most > 50,
        "too tame: {steps} steps, at most {most} bodies"
    );
}
