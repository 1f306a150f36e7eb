//! Casts: how far a ray or a moving shape travels before it first touches a
//! convex shape, by conservative advancement on GJK distances.
//!
//! 1. Measure the distance from the moving thing (a point, or shape B) to
//!    the target with GJK on the cores, less the radii.
//! 2. The normal of the closest features bounds how fast the gap can close
//!    along the motion: advance by gap / closing speed. This never passes
//!    through the target, since nothing closes the gap faster.
//! 3. Stop when the gap is below the tolerance (a hit) or the motion moves
//!    away, leaves `max_distance`, or the cap of [`MAX_ITERATIONS`] is
//!    reached (no hit).
//!
//! Limits: the motion is a translation (no rotation during the cast).
//! Reference: Mirtich, Conservative Advancement; van den Bergen, GJK ray cast.

use super::gjk::{self, GjkResult};
use super::{Core, MinkowskiPair, RELATIVE_TOLERANCE};
use crate::math::{Dim, Pose, Vector};
use crate::shape::{Shape, SupportMap};

/// Cap on advancement steps.
pub const MAX_ITERATIONS: u32 = 64;

/// Where a cast first touches, in world space.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CastHit<D: Dim> {
    /// Distance travelled along the (unit) direction, metres.
    pub distance: f32,
    /// The touching point, on the target's surface.
    pub point: D::Vector,
    /// The target's outward unit surface normal there.
    pub normal: D::Vector,
}

/// A single point: the ray's moving end.
struct Point;

impl<V: Vector> SupportMap<V> for Point {
    fn support(&self, _dir: V) -> V {
        V::ZERO
    }
}

/// The first point where the ray from `origin` along unit `direction` meets
/// `shape` at `pose`, within `max_distance` metres. A ray starting inside
/// hits at distance 0 with the normal against the ray.
pub fn ray_cast<D: Dim>(
    shape: &Shape<D>,
    pose: &Pose<D>,
    origin: D::Vector,
    direction: D::Vector,
    max_distance: f32,
) -> Option<CastHit<D>> {
    cast_local(
        shape,
        pose,
        None,
        &Pose::from_translation(origin),
        direction,
        max_distance,
    )
}

/// The first contact of `moving` at `start`, translated along unit
/// `direction`, with `target` at `pose`, within `max_distance` metres.
pub fn shape_cast<D: Dim>(
    target: &Shape<D>,
    pose: &Pose<D>,
    moving: &Shape<D>,
    start: &Pose<D>,
    direction: D::Vector,
    max_distance: f32,
) -> Option<CastHit<D>> {
    cast_local(target, pose, Some(moving), start, direction, max_distance)
}

/// Conservative advancement in the target's frame; `moving` is `None` for a
/// ray, whose moving end is a point.
fn cast_local<D: Dim>(
    target: &Shape<D>,
    pose: &Pose<D>,
    moving: Option<&Shape<D>>,
    start: &Pose<D>,
    direction: D::Vector,
    max_distance: f32,
) -> Option<CastHit<D>> {
    let inputs_ok =
        pose.is_finite() && start.is_finite() && direction.is_finite() && !max_distance.is_nan();
    let length = direction.length();
    if !inputs_ok || length.is_nan() || length <= 0.0 {
        return None;
    }
    let dir = pose.inverse_transform_vector(direction * (1.0 / length));
    let mut moving_pose = pose.inv_mul(start);
    let size = target
        .bounding_radius()
        .max(moving.map_or(0.0, |m| m.bounding_radius()));
    let radii = target.radius() + moving.map_or(0.0, |m| m.radius());
    let tolerance = (RELATIVE_TOLERANCE * 10.0 * size).max(1e-6);
    let core_target = Core(target);
    let mut travelled = 0.0;
    for _ in 0..MAX_ITERATIONS {
        let hit = match moving {
            None => gap(&core_target, &Point, &moving_pose),
            Some(m) => gap(&core_target, &Core(m), &moving_pose),
        };
        let Some((distance, normal, on_target)) = hit else {
            // The cores overlap: touching from the start (or numerically at the end).
            let normal = -dir;
            let point = moving_pose.translation;
            return Some(world_hit(pose, travelled, point, normal));
        };
        let gap = distance - radii;
        if gap <= tolerance {
            return Some(world_hit(
                pose,
                travelled,
                on_target + normal * target.radius(),
                normal,
            ));
        }
        let closing = -dir.dot(normal);
        if closing.is_nan() || closing <= 1e-6 {
            return None;
        }
        travelled += gap / closing;
        if travelled > max_distance {
            return None;
        }
        moving_pose.translation += dir * (gap / closing);
    }
    None
}

fn world_hit<D: Dim>(
    pose: &Pose<D>,
    distance: f32,
    point: D::Vector,
    normal: D::Vector,
) -> CastHit<D> {
    CastHit {
        distance,
        point: pose.transform_point(point),
        normal: pose.transform_vector(normal),
    }
}

/// Core distance, the unit normal from the target towards the moving thing,
/// and the closest point on the target's core; `None` when the cores overlap.
fn gap<D: Dim, A: SupportMap<D::Vector>, B: SupportMap<D::Vector>>(
    target: &A,
    moving: &B,
    moving_pose: &Pose<D>,
) -> Option<(f32, D::Vector, D::Vector)> {
    let pair = MinkowskiPair::new(target, moving, *moving_pose);
    match gjk::gjk::<D, _>(&pair, -moving_pose.translation, f32::INFINITY, 1e-7) {
        GjkResult::Separated(c) => Some((c.distance, c.normal, c.point_a)),
        GjkResult::Overlapping(_) | GjkResult::Apart { .. } => None,
    }
}

/// True when `point` lies in `shape` at `pose` (on the surface counts).
pub fn contains_point<D: Dim>(shape: &Shape<D>, pose: &Pose<D>, point: D::Vector) -> bool {
    if !(pose.is_finite() && point.is_finite()) {
        return false;
    }
    let at = Pose::<D>::from_translation(pose.inverse_transform_point(point));
    match gap(&Core(shape), &Point, &at) {
        Some((distance, _, _)) => distance <= shape.radius(),
        None => true,
    }
}
