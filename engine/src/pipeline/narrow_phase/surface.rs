//! Contacts and casts against surfaces (meshes, heightfields, chains): the
//! same GJK and EPA as between convex shapes, one facet at a time.
//!
//! 1. A facet is a convex shape: [`facet_query`] runs the ordinary query
//!    between it and the other shape, in the other shape's frame.
//! 2. One-sided: a shape whose origin lies behind the facet's plane meets
//!    nothing there (Box2D's chains), so a body is never pulled through
//!    from behind, and a convex join's far facet (whose plane rises over
//!    its neighbour) stays out of a body resting on that neighbour.
//! 3. Smooth: the contact's normal is passed through
//!    [`Facet::smoothed_normal`]. Where it becomes the facet's own normal,
//!    the contact is measured again along it: the other shape's deepest
//!    point towards the facet's plane, and its separation from the plane.
//!    So a box sliding across the flat join of two triangles meets the
//!    second one's plane, not its edge (`tests/level_geometry.rs`).
//! 4. A whole surface (the public [`super::contact`] and the casts) is
//!    met facet by facet, through its BVH: the deepest contact, the
//!    nearest hit, with the facet's index.
//!
//! Limits: a surface against a surface meets nothing (the world never
//! pairs them: both are fixed or kinematic).

use super::cast::{ray_cast, shape_cast, CastHit};
use super::{query_local, NarrowPhaseDim, Penetration, ShapeContact};
use crate::math::{Pose, Vector};
use crate::shape::{Facet, Shape, ShapeKind, SupportMap, Surface};

/// How close to a facet's boundary (metres, per metre of the pair's size)
/// a witness must be to count as on it: ten times the iterative
/// algorithms' tolerance, so a witness EPA or GJK puts on an edge is
/// always found there.
const FEATURE_TOLERANCE: f32 = 1e-5;

/// The contact between `convex` and `facet` (whose shape is
/// `facet_shape`) at `pose_facet`, in `convex`'s frame, `convex` placed
/// at its own origin and the facet by `facet_in_convex`: the normal points
/// from the convex shape to the facet. `Err` carries a lower bound on the
/// distance (0 when the facet has no contact to make here).
pub(crate) fn facet_query<D: NarrowPhaseDim>(
    convex: &Shape<D>,
    facet_shape: &Shape<D>,
    facet: &Facet<D::Vector>,
    facet_in_convex: &Pose<D>,
    margin: f32,
) -> Result<Penetration<D::Vector>, f32> {
    let origin = facet_in_convex.inverse_transform_point(D::Vector::ZERO);
    if facet.height_of(origin) < 0.0 {
        return Err(0.0);
    }
    let local = query_local(convex, facet_shape, facet_in_convex, margin, &mut ())?;
    let from_facet = facet_in_convex.inverse_transform_vector(-local.normal);
    let on_facet = facet_in_convex.inverse_transform_point(local.point_b);
    let size = convex.bounding_radius().max(facet_shape.bounding_radius());
    let tolerance = FEATURE_TOLERANCE * size;
    let Some(normal) = facet.smoothed_normal(on_facet, from_facet, tolerance) else {
        return Err(0.0);
    };
    if normal == from_facet {
        return Ok(local);
    }
    // Measured again along the smoothed normal, in the convex frame.
    let n = facet_in_convex.transform_vector(normal);
    let deepest = convex.support(-n);
    let plane = facet_in_convex.transform_point(facet.corners()[0]);
    let separation = (deepest - plane).dot(n);
    if separation > margin {
        return Err(separation);
    }
    Ok(Penetration {
        depth: -separation,
        normal: -n,
        point_a: deepest,
        point_b: deepest - n * separation,
        iterations: local.iterations,
    })
}

/// The same contact with A and B swapped.
pub(crate) fn swapped<V: Vector>(p: Penetration<V>) -> Penetration<V> {
    Penetration {
        depth: p.depth,
        normal: -p.normal,
        point_a: p.point_b,
        point_b: p.point_a,
        iterations: p.iterations,
    }
}

/// The deepest contact between `convex` and any facet of `surface`, in
/// `convex`'s frame, the surface placed by `surface_in_convex` (normal from
/// the convex shape to the surface), with the facet's index.
pub(crate) fn surface_query<D: NarrowPhaseDim>(
    convex: &Shape<D>,
    surface: &Surface<D>,
    surface_in_convex: &Pose<D>,
    margin: f32,
) -> Option<(Penetration<D::Vector>, u32)> {
    let convex_in_surface = surface_in_convex.inverse();
    let reach = convex.aabb(&convex_in_surface).expanded(margin.max(0.0));
    let mut near = Vec::new();
    surface.facets_in(&reach, &mut near);
    let mut deepest: Option<(Penetration<D::Vector>, u32)> = None;
    for i in near {
        let facet = surface.facets()[i as usize];
        let shape = Shape::facet(facet);
        if let Ok(p) = facet_query(convex, &shape, &facet, surface_in_convex, margin) {
            if deepest.as_ref().is_none_or(|(d, _)| p.depth > d.depth) {
                deepest = Some((p, i));
            }
        }
    }
    deepest
}

/// The nearest hit of a ray (`moving` is `None`) or a shape translated
/// along unit `direction` from `start` with the front of any facet of
/// `surface` at `pose`, within `max_distance`, with the facet's index.
pub fn surface_cast<D: NarrowPhaseDim>(
    surface: &Surface<D>,
    pose: &Pose<D>,
    moving: Option<&Shape<D>>,
    start: &Pose<D>,
    direction: D::Vector,
    max_distance: f32,
) -> Option<(CastHit<D>, u32)> {
    let local_start = pose.inv_mul(start);
    let local_direction = pose.inverse_transform_vector(direction);
    let cast_facet = |i: u32| -> Option<CastHit<D>> {
        let facet = surface.facets()[i as usize];
        // Only the front is met, as in contacts.
        if local_direction.dot(facet.normal()) >= 0.0 {
            return None;
        }
        let shape = Shape::facet(facet);
        match moving {
            None => ray_cast(&shape, pose, start.translation, direction, max_distance),
            Some(m) => shape_cast(&shape, pose, m, start, direction, max_distance),
        }
    };
    let mut best: Option<(CastHit<D>, u32)> = None;
    let mut keep = |i: u32, hit: CastHit<D>| {
        if best.as_ref().is_none_or(|(b, j)| {
            hit.distance < b.distance || (hit.distance == b.distance && i < *j)
        }) {
            best = Some((hit, i));
        }
    };
    match moving {
        None => {
            surface.bvh().cast_ray(
                local_start.translation,
                local_direction,
                max_distance,
                |i, _| {
                    let hit = cast_facet(i)?;
                    keep(i, hit);
                    Some(hit.distance)
                },
            );
        }
        Some(m) => {
            let from = m.aabb(&local_start);
            let reach = if max_distance.is_finite() {
                max_distance
            } else {
                f32::MAX.sqrt()
            };
            let swept = from.swept(local_direction * reach);
            let mut near = Vec::new();
            surface.facets_in(&swept, &mut near);
            for i in near {
                if let Some(hit) = cast_facet(i) {
                    keep(i, hit);
                }
            }
        }
    }
    best
}

/// The contact of two shapes either of which may be a facet or a surface,
/// in A's frame with B placed by `b_in_a`; `None` when neither is.
pub(crate) fn query_with_surfaces<D: NarrowPhaseDim>(
    a: &Shape<D>,
    b: &Shape<D>,
    b_in_a: &Pose<D>,
    margin: f32,
) -> Option<Result<Penetration<D::Vector>, f32>> {
    let result = match (a.kind(), b.kind()) {
        (
            ShapeKind::Surface(_) | ShapeKind::Facet(_),
            ShapeKind::Surface(_) | ShapeKind::Facet(_),
        ) => Err(0.0),
        (_, ShapeKind::Facet(facet)) => facet_query(a, b, facet, b_in_a, margin),
        (ShapeKind::Facet(facet), _) => {
            facet_query(b, a, facet, &b_in_a.inverse(), margin).map(|p| to_a(p, b_in_a))
        }
        (_, ShapeKind::Surface(surface)) => surface_query(a, surface, b_in_a, margin)
            .map(|(p, _)| p)
            .ok_or(0.0),
        (ShapeKind::Surface(surface), _) => surface_query(b, surface, &b_in_a.inverse(), margin)
            .map(|(p, _)| to_a(p, b_in_a))
            .ok_or(0.0),
        _ => return None,
    };
    Some(result)
}

/// A contact found in B's frame (B against A) as A against B in A's frame.
fn to_a<D: NarrowPhaseDim>(p: Penetration<D::Vector>, b_in_a: &Pose<D>) -> Penetration<D::Vector> {
    swapped(Penetration {
        depth: p.depth,
        normal: b_in_a.transform_vector(p.normal),
        point_a: b_in_a.transform_point(p.point_a),
        point_b: b_in_a.transform_point(p.point_b),
        iterations: p.iterations,
    })
}

/// A world contact from one in A's frame.
pub(crate) fn to_world<D: NarrowPhaseDim>(
    p: Penetration<D::Vector>,
    pose_a: &Pose<D>,
) -> ShapeContact<D> {
    ShapeContact {
        depth: p.depth,
        normal: pose_a.transform_vector(p.normal),
        point_a: pose_a.transform_point(p.point_a),
        point_b: pose_a.transform_point(p.point_b),
    }
}
