//! Time of impact: the first time within a step at which two shapes, each
//! moving steadily from one pose to another (a sweep), come within a target
//! distance of each other (Mirtich's conservative advancement).
//!
//! 1. Bound the motion: over the sweep no point of a shape moves faster
//!    than its centre's speed plus its spin times its farthest reach from
//!    the centre; the two bounds summed bound how fast the shapes can
//!    close.
//! 2. From `t = 0`: measure the distance at `t` (GJK); once it is within
//!    the target plus a tolerance, `t` is the time of impact. Otherwise
//!    advance `t` by the distance beyond the target over the closing
//!    bound: the shapes cannot have come within the target before then.
//! 3. Past `t = 1` they never meet in the sweep; after
//!    [`MAX_ADVANCES`] steps the last `t` is returned as the answer (still
//!    apart there, so moving a body back to it never leaves it inside).
//!
//! Limits: the bound counts the whole spin for every point, so a fast
//! spinning shape grazing another advances in small steps (hence the
//! cap); shapes already within the target at `t = 0` give `t = 0`.

use super::{distance, NarrowPhaseDim};
use crate::math::{Pose, Vector};
use crate::shape::Shape;

/// Most advancements before a defined answer (the last safe `t`):
/// conservative advancement converges in a handful for most sweeps, and a
/// grazing spin needs tens.
pub const MAX_ADVANCES: usize = 64;

/// A shape's motion over a step: its centre of mass moves in a straight
/// line and it turns steadily about it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sweep<D: NarrowPhaseDim> {
    /// The centre of mass in the shape's frame, metres.
    pub local_center: D::Vector,
    /// The centre's world position at the start and at the end.
    pub center: [D::Vector; 2],
    /// The rotation at the start and at the end.
    pub rotation: [D::Rotation; 2],
}

impl<D: NarrowPhaseDim> Sweep<D> {
    /// A sweep between two poses of a shape whose centre of mass is at
    /// `local_center` in its frame.
    pub fn between(start: &Pose<D>, end: &Pose<D>, local_center: D::Vector) -> Self {
        Self {
            local_center,
            center: [
                start.transform_point(local_center),
                end.transform_point(local_center),
            ],
            rotation: [start.rotation, end.rotation],
        }
    }

    /// The shape's pose a share `t` of the way through the sweep.
    pub fn pose_at(&self, t: f32) -> Pose<D> {
        let rotation = D::interpolate(self.rotation[0], self.rotation[1], t);
        let center = self.center[0] + (self.center[1] - self.center[0]) * t;
        Pose {
            translation: center - D::rotate(rotation, self.local_center),
            rotation,
        }
    }

    /// How far, at most, any point of `shape` moves over the whole sweep.
    pub(crate) fn motion_bound(&self, shape: &Shape<D>) -> f32 {
        let reach = shape.bounding_radius() + self.local_center.length();
        (self.center[1] - self.center[0]).length()
            + D::turn_angle(self.rotation[0], self.rotation[1]) * reach
    }
}

/// What a time-of-impact search found.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Impact {
    /// The shapes come within the target at this share of the sweep.
    At(f32),
    /// They stay farther apart than the target over the whole sweep.
    Never,
    /// The search stopped after [`MAX_ADVANCES`]; the shapes are still
    /// apart at this share of the sweep (a safe place to stop).
    Capped(f32),
}

/// The first share `t` of the sweeps at which `a` and `b` come within
/// `target` metres (module docs), found to within `tolerance` metres.
pub fn time_of_impact<D: NarrowPhaseDim>(
    a: &Shape<D>,
    sweep_a: &Sweep<D>,
    b: &Shape<D>,
    sweep_b: &Sweep<D>,
    target: f32,
    tolerance: f32,
) -> Impact {
    let bound = sweep_a.motion_bound(a) + sweep_b.motion_bound(b);
    advance(bound, target, tolerance, |t| {
        distance(a, &sweep_a.pose_at(t), b, &sweep_b.pose_at(t))
    })
}

/// Conservative advancement: from `t = 0`, steps by the gap `gap_at(t)`
/// less `target` over `bound` (how far any point moves over the whole
/// sweep, metres), so no point can cross the target between steps; at
/// most [`MAX_ADVANCES`] steps.
pub(crate) fn advance(
    bound: f32,
    target: f32,
    tolerance: f32,
    mut gap_at: impl FnMut(f32) -> f32,
) -> Impact {
    let mut t = 0.0f32;
    for _ in 0..MAX_ADVANCES {
        let gap = gap_at(t);
        if !gap.is_finite() {
            return Impact::Never;
        }
        if gap <= target + tolerance {
            return Impact::At(t);
        }
        if bound <= 0.0 {
            return Impact::Never;
        }
        t += (gap - target) / bound;
        if t >= 1.0 {
            return Impact::Never;
        }
    }
    Impact::Capped(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};
    use glam::{Quat, Vec2, Vec3};

    #[test]
    fn a_fast_ball_meets_a_thin_wall_where_it_first_touches_it() {
        let wall = Shape::<D3>::cuboid(Vec3::new(0.005, 1.0, 1.0)).unwrap();
        let ball = Shape::<D3>::ball(0.05).unwrap();
        let still = Pose::new(Vec3::ZERO, Quat::IDENTITY);
        let wall_sweep = Sweep::between(&still, &still, Vec3::ZERO);
        // 5 m in one step, through the wall at x = 0.
        let start = Pose::new(Vec3::new(-2.0, 0.1, 0.0), Quat::IDENTITY);
        let end = Pose::new(Vec3::new(3.0, 0.1, 0.0), Quat::IDENTITY);
        let sweep = Sweep::between(&start, &end, Vec3::ZERO);
        let Impact::At(t) = time_of_impact(&wall, &wall_sweep, &ball, &sweep, 0.0, 1e-4) else {
            panic!("no impact");
        };
        // It touches when its centre reaches x = -0.055: t = 1.945 / 5.
        assert!((t - 1.945 / 5.0).abs() < 1e-4, "t = {t}");
        let at = sweep.pose_at(t).translation.x;
        assert!(at < -0.055 + 1e-3 && at > -0.06, "{at}");
    }

    #[test]
    fn a_spinning_stick_is_stopped_before_it_dips_into_the_ground() {
        let ground = Shape::<D2>::cuboid(Vec2::new(10.0, 0.5)).unwrap();
        let stick = Shape::<D2>::cuboid(Vec2::new(1.0, 0.01)).unwrap();
        let ground_pose = Pose::new(Vec2::new(0.0, -0.5), 0.0f32);
        let still = Sweep::between(&ground_pose, &ground_pose, Vec2::ZERO);
        // Falling 0.4 m and turning 0.9 rad in the step, from level 0.3 m up.
        let start = Pose::new(Vec2::new(0.0, 0.3), 0.0f32);
        let end = Pose::new(Vec2::new(0.0, -0.1), 0.9f32);
        let sweep = Sweep::between(&start, &end, Vec2::ZERO);
        let impact = time_of_impact(&ground, &still, &stick, &sweep, 0.0, 1e-4);
        let t = match impact {
            Impact::At(t) | Impact::Capped(t) => t,
            Impact::Never => panic!("it goes in"),
        };
        let pose = sweep.pose_at(t);
        let gap = distance(&ground, &ground_pose, &stick, &pose);
        assert!((0.0..2e-3).contains(&gap), "gap {gap} at t {t}");
    }

    #[test]
    fn shapes_that_never_meet_in_the_sweep_say_so() {
        let a = Shape::<D3>::ball(0.5).unwrap();
        let still = Pose::new(Vec3::ZERO, Quat::IDENTITY);
        let sweep_a = Sweep::between(&still, &still, Vec3::ZERO);
        let from = Pose::new(Vec3::new(-3.0, 2.0, 0.0), Quat::IDENTITY);
        let to = Pose::new(Vec3::new(3.0, 2.0, 0.0), Quat::IDENTITY);
        let sweep_b = Sweep::between(&from, &to, Vec3::ZERO);
        assert_eq!(
            time_of_impact(&a, &sweep_a, &a, &sweep_b, 0.0, 1e-4),
            Impact::Never
        );
    }
}
