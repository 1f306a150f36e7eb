//! Casts: how far a ray or a moving shape travels before it first touches a
//! convex shape, by conservative advancement on GJK distances.
//!
//! 1. Run GJK on the cores of the target and the moving thing (a point, or
//!    shape B). The gap is the cores' separation along GJK's normal (the
//!    support distance of their Minkowski difference), less the radii: a
//!    lower bound on the true gap even when the normal is a little off.
//! 2. Along that normal nothing closes the gap faster than the motion's
//!    component: advance by (gap - s) / closing speed. This never brings the
//!    pair closer than the target separation `s`.
//! 3. Stop when the gap is at most `2 s` (a hit), or the motion moves away,
//!    leaves `max_distance`, or the cap of [`MAX_ITERATIONS`] is reached
//!    (no hit).
//! 4. Report the hit at touching: the distance adds the last gap over the
//!    closing speed (one more advancement step, exact when the closest
//!    feature is the face met); the normal is the closest features' at the
//!    stop, and the point is the moving thing's closest point carried on by
//!    that last step.
//!
//! Why stop at a positive separation `s = 1e-5 × size` (at least 1e-6 m):
//! on the surface itself the gap is below GJK's tolerance, where GJK can
//! only answer "overlapping" and gives no normal. At `s` the gap stands
//! clear of the f32 noise of a GJK distance (about 1e-7 of the shape's
//! size), so the closest feature, and so the normal, is the face the cast
//! meets. A cast meeting a face within `s × tan(incidence)` of its edge
//! reports the edge's normal; there the normal is ambiguous anyway.
//!
//! Why the support distance rather than GJK's distance: far from the target,
//! next to a vertex, f32 resolves GJK's normal only to a few 1e-4 rad (the
//! squared distances to the vertex and to its edge agree to rounding), and a
//! step of GJK's distance over the closing speed along that normal can pass
//! the target separation and land inside. The separation along the
//! reported normal bounds the gap along any normal, so the step stays short.
//!
//! Both rules are guarded by `tests/cast_normals.rs`: 10,000 rays per
//! dimension against boxes and hulls at random poses, and balls and boxes
//! cast onto a slab, against an oracle of ray-plane intersections.
//!
//! Started inside: when the cores overlap at the start, or the shapes
//! already interpenetrate by more than `s`, the cast hits at distance 0 with
//! the normal against the motion and the moving thing's origin as the
//! point. Should a later step land in overlap (rounding only), the hit is
//! there, with the last separated normal.
//!
//! A surface is cast against facet by facet, the front of each only
//! (`surface::surface_cast`); a surface never moves in a cast.
//!
//! Limits: the motion is a translation (no rotation during the cast).
//! Reference: Mirtich, Conservative Advancement; van den Bergen, GJK ray
//! cast; Catto, Box2D's `b2ShapeCast` and `b2TimeOfImpact` (a target
//! separation short of touching).

use super::gjk::{self, GjkResult};
use super::surface;
use super::NarrowPhaseDim;
use super::{Core, MinkowskiPair, PairSupport, RELATIVE_TOLERANCE};
use crate::math::{Pose, Vector};
use crate::shape::{Shape, ShapeKind, SupportMap};

/// Cap on advancement steps.
pub const MAX_ITERATIONS: u32 = 64;

/// Closing speeds (per unit of motion) at or below this count as moving
/// parallel or away.
const MIN_CLOSING: f32 = 1e-6;

/// Where a cast first touches, in world space.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CastHit<D: NarrowPhaseDim> {
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
pub fn ray_cast<D: NarrowPhaseDim>(
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
/// `direction`, with `target` at `pose`, within `max_distance` metres. A
/// shape starting in overlap hits at distance 0 with the normal against the
/// motion.
pub fn shape_cast<D: NarrowPhaseDim>(
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
fn cast_local<D: NarrowPhaseDim>(
    target: &Shape<D>,
    pose: &Pose<D>,
    moving: Option<&Shape<D>>,
    start: &Pose<D>,
    direction: D::Vector,
    max_distance: f32,
) -> Option<CastHit<D>> {
    if let ShapeKind::Surface(surface) = target.kind() {
        return surface::surface_cast(surface, pose, moving, start, direction, max_distance)
            .map(|(hit, _)| hit);
    }
    if moving.is_some_and(|m| m.as_surface().is_some()) {
        return None;
    }
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
    let moving_radius = moving.map_or(0.0, |m| m.radius());
    let radii = target.radius() + moving_radius;
    let target_gap = (RELATIVE_TOLERANCE * 10.0 * size).max(1e-6);
    let core_target = Core(target);
    let mut travelled = 0.0;
    // The normal and touching point of the last separated step.
    let mut last: Option<(D::Vector, D::Vector)> = None;
    for _ in 0..MAX_ITERATIONS {
        let hit = match moving {
            None => gap(&core_target, &Point, &moving_pose),
            Some(m) => gap(&core_target, &Core(m), &moving_pose),
        };
        let Some(Gap {
            separation: core_gap,
            normal,
            on_moving,
            ..
        }) = hit
        else {
            // The cores overlap: from the start, or after a step by rounding.
            let (normal, point) = last.unwrap_or((-dir, moving_pose.translation));
            return Some(world_hit(pose, travelled, point, normal));
        };
        let gap = core_gap - radii;
        if last.is_none() && gap < -target_gap {
            // The shapes interpenetrate at the start.
            return Some(world_hit(pose, 0.0, moving_pose.translation, -dir));
        }
        let closing = -dir.dot(normal);
        if closing.is_nan() {
            return None;
        }
        let surface = on_moving - normal * moving_radius;
        if gap <= 2.0 * target_gap {
            let rest = if closing > MIN_CLOSING {
                gap.max(0.0) / closing
            } else {
                0.0
            };
            let distance = travelled + rest;
            if distance > max_distance {
                return None;
            }
            return Some(world_hit(pose, distance, surface + dir * rest, normal));
        }
        if closing <= MIN_CLOSING {
            return None;
        }
        let step = (gap - target_gap) / closing;
        travelled += step;
        if travelled > max_distance {
            return None;
        }
        moving_pose.translation += dir * step;
        last = Some((normal, surface + dir * step));
    }
    None
}

fn world_hit<D: NarrowPhaseDim>(
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

/// The cores' closest features, in the target's frame.
struct Gap<V> {
    /// Distance between the cores (GJK's, an upper bound).
    distance: f32,
    /// The cores' separation along `normal`: a lower bound on the distance
    /// however roughly GJK placed the normal.
    separation: f32,
    /// Unit normal from the target towards the moving thing.
    normal: V,
    /// Closest point on the moving thing's core.
    on_moving: V,
}

/// The cores' closest features; `None` when the cores overlap.
fn gap<D: NarrowPhaseDim, A: SupportMap<D::Vector>, B: SupportMap<D::Vector>>(
    target: &A,
    moving: &B,
    moving_pose: &Pose<D>,
) -> Option<Gap<D::Vector>> {
    let pair = MinkowskiPair::new(target, moving, *moving_pose);
    match gjk::gjk::<D, _>(&pair, -moving_pose.translation, f32::INFINITY, 1e-7) {
        GjkResult::Separated(c) => Some(Gap {
            distance: c.distance,
            separation: -c.normal.dot(pair.support_point(c.normal).w),
            normal: c.normal,
            on_moving: c.point_b,
        }),
        GjkResult::Overlapping(_) | GjkResult::Apart { .. } => None,
    }
}

/// True when `point` lies in `shape` at `pose` (on the surface counts); a
/// surface or facet has no inside, and holds no point.
pub fn contains_point<D: NarrowPhaseDim>(
    shape: &Shape<D>,
    pose: &Pose<D>,
    point: D::Vector,
) -> bool {
    if !(pose.is_finite() && point.is_finite()) || shape.is_massless() {
        return false;
    }
    let at = Pose::<D>::from_translation(pose.inverse_transform_point(point));
    match gap(&Core(shape), &Point, &at) {
        Some(g) => g.distance <= shape.radius(),
        None => true,
    }
}
