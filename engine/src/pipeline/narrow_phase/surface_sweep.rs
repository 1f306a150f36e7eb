//! A convex shape swept against a surface (mesh, heightfield, chain) for
//! the continuous pass: the same time of impact and overlap search as
//! against a convex shape ([`super::toi`], `world::continuous`), with the
//! surface's distance and depth taken over the few facets the sweep can
//! reach, not the whole surface.
//!
//! 1. The candidates are the facets whose boxes meet a box that holds the
//!    shape at every pose of the sweep, grown by the target separation:
//!    the box of the shape translated along the sweep without turning,
//!    grown by the turn's arc (the turn angle times the shape's reach from
//!    its centre of mass), cut by the box of the centre's segment grown by
//!    that reach. Both hold every pose, so their common part does. A facet
//!    outside it is farther than the target from the shape all through
//!    the sweep.
//! 2. The time of impact is conservative advancement (as
//!    [`super::toi::time_of_impact`]) on the surface's distance: the least
//!    of the candidates' distances, each facet measured as a convex shape
//!    (GJK); a facet whose front the shape's inner point is behind counts
//!    for nothing, as in contacts. (The whole surface's [`super::distance`]
//!    takes each facet's contact, smoothed: far from a facet that is its
//!    plane's distance: in the first sweep of this module's test it stopped
//!    a box about 0.6 m above the bumps.) Each candidate's height over its plane (one support call)
//!    and its box's distance bound its distance from below; the
//!    candidates are taken lowest plane first, and a candidate whose bound
//!    is no less than the least distance found so far is not queried, so
//!    a shape falling onto a field of facets runs GJK on a few, not on
//!    every facet under it at every advance.
//! 3. The overlap search's depth at a pose is the deepest contact among the
//!    candidates whose boxes meet the shape's box there; for a facet the
//!    shape's inner point was in front of at the sweep's start, also how
//!    far the shape's deepest point towards its plane lies across it, where
//!    that point is over the facet. Contacts are one-sided (the inner
//!    point behind a facet's front meets nothing), so a box driven fast
//!    into the facet it stood on ended its step with its centre behind it,
//!    its depth read as none, and fell through
//!    (`fast_bodies_fired_into_a_chain_never_pass_through`); the plane's
//!    depth still sees it. On a flat neighbour the plane depth is the
//!    contact's; one falling away is crossed less.
//!
//! A candidate left out by a bound is farther than the least distance
//! found, so the distance advanced by is never more than the shape's true
//! distance from the surface: the advance stays conservative.
//!
//! Limits: as in [`super::toi`], the sweep's motion bound counts the whole
//! turn for every point. Guarded by `tests/continuous.rs` and
//! `tests/level_geometry.rs`.

use super::surface::facet_query;
use super::toi::{advance, Impact, Sweep};
use super::{query_local, NarrowPhaseDim};
use crate::math::{Pose, Vector};
use crate::shape::{Aabb, Facet, Shape, SupportMap, Surface};

/// The margin a distance query against a facet runs with, metres: far
/// beyond any level, so every facet in front reports its distance.
const REACH: f32 = 1e18;

/// One facet a sweep can reach.
struct Candidate<D: NarrowPhaseDim> {
    facet: Facet<D::Vector>,
    shape: Shape<D>,
    /// The facet's box, surface frame.
    aabb: Aabb<D>,
    /// True when the shape's inner point is in front of the facet at the
    /// sweep's start.
    front_at_start: bool,
}

/// A convex shape's sweep against a surface at rest, with the facets it
/// can reach (module docs, step 1).
pub(crate) struct SurfaceSweep<'a, D: NarrowPhaseDim> {
    pose: Pose<D>,
    shape: &'a Shape<D>,
    sweep: &'a Sweep<D>,
    candidates: Vec<Candidate<D>>,
}

impl<'a, D: NarrowPhaseDim> SurfaceSweep<'a, D> {
    /// The sweep of `shape` along `sweep` (world) against `surface` at
    /// `pose`, its candidates the facets that may come within `reach`
    /// metres of it.
    pub(crate) fn new(
        surface: &Surface<D>,
        pose: &Pose<D>,
        shape: &'a Shape<D>,
        sweep: &'a Sweep<D>,
        reach: f32,
    ) -> Self {
        let local = |p: &Pose<D>| pose.inv_mul(p);
        let (from, to) = (local(&sweep.pose_at(0.0)), local(&sweep.pose_at(1.0)));
        let arm = shape.bounding_radius() + sweep.local_center.length();
        let turn = D::turn_angle(sweep.rotation[0], sweep.rotation[1]);
        // The shape translated without turning: its start pose moved to
        // the end's centre.
        let moved = Pose {
            translation: from.translation
                + (to.transform_point(sweep.local_center)
                    - from.transform_point(sweep.local_center)),
            rotation: from.rotation,
        };
        let translated = shape
            .aabb(&from)
            .union(&shape.aabb(&moved))
            .expanded(turn * arm);
        let (c0, c1) = (
            from.transform_point(sweep.local_center),
            to.transform_point(sweep.local_center),
        );
        let around_centre = Aabb::<D>::new(c0.min(c1), c0.max(c1)).expanded(arm);
        let reach_box = Aabb::new(
            translated.min.max(around_centre.min),
            translated.max.min(around_centre.max),
        )
        .expanded(reach);
        let mut near = Vec::new();
        surface.facets_in(&reach_box, &mut near);
        let inner = from.transform_point(shape.inner_point());
        let candidates = near
            .into_iter()
            .map(|i| {
                let facet = surface.facets()[i as usize];
                let corners = facet.corners();
                let (mut min, mut max) = (corners[0], corners[0]);
                for &c in &corners[1..] {
                    min = min.min(c);
                    max = max.max(c);
                }
                Candidate {
                    facet,
                    shape: Shape::facet(facet),
                    aabb: Aabb::new(min, max),
                    front_at_start: facet.height_of(inner) >= 0.0,
                }
            })
            .collect();
        Self {
            pose: *pose,
            shape,
            sweep,
            candidates,
        }
    }

    /// True when no facet can come near the shape in the sweep.
    pub(crate) fn is_empty(&self) -> bool {
        self.candidates.is_empty()
    }

    /// The shape's pose at share `t` of the sweep in the surface's frame,
    /// and the surface's pose in the shape's frame; `None` when a pose is
    /// not finite.
    fn frames(&self, t: f32) -> Option<(Pose<D>, Pose<D>)> {
        let at = self.sweep.pose_at(t);
        if !(self.pose.is_finite() && at.is_finite()) {
            return None;
        }
        let shape_in_surface = self.pose.inv_mul(&at);
        Some((shape_in_surface, shape_in_surface.inverse()))
    }

    /// The surface's distance from the shape at share `t` of the sweep
    /// (module docs, step 2): infinity when no candidate's front faces it
    /// or a pose is not finite.
    fn distance_at(&self, t: f32, order: &mut Vec<(f32, usize)>) -> f32 {
        let Some((shape_in_surface, surface_in_shape)) = self.frames(t) else {
            return f32::INFINITY;
        };
        let inner = shape_in_surface.transform_point(self.shape.inner_point());
        let shape_box = self.shape.aabb(&shape_in_surface);
        order.clear();
        for (k, c) in self.candidates.iter().enumerate() {
            if c.facet.height_of(inner) < 0.0 {
                continue;
            }
            let front = c.facet.normal();
            let local = shape_in_surface.inverse_transform_vector(-front);
            let deepest = shape_in_surface.transform_point(self.shape.support(local));
            let over_plane = c.facet.height_of(deepest);
            let gap = (c.aabb.min - shape_box.max)
                .max(shape_box.min - c.aabb.max)
                .max(D::Vector::ZERO)
                .length();
            order.push((over_plane.max(gap), k));
        }
        order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut least = f32::INFINITY;
        for &(bound, k) in order.iter() {
            if bound >= least {
                break;
            }
            let c = &self.candidates[k];
            // The facet's own distance, as a convex shape's: a contact's
            // smoothing re-measures along the facet's normal, which far
            // from the facet gives its plane's distance, not its own.
            let gap = match query_local(self.shape, &c.shape, &surface_in_shape, REACH, &mut ()) {
                Ok(p) => (-p.depth).max(0.0),
                Err(bound) => bound,
            };
            least = least.min(gap);
        }
        least
    }

    /// The first share of the sweep at which the shape comes within
    /// `target` metres of the surface, found to within `tolerance`
    /// (conservative advancement, as [`super::toi::time_of_impact`]).
    pub(crate) fn time_of_impact(&self, target: f32, tolerance: f32) -> Impact {
        let bound = self.sweep.motion_bound(self.shape);
        let mut order = Vec::with_capacity(self.candidates.len());
        advance(bound, target, tolerance, |t| {
            self.distance_at(t, &mut order)
        })
    }

    /// The deepest overlap of the shape with the surface at share `t` of
    /// the sweep, metres (0 when apart; module docs, step 3).
    pub(crate) fn depth_at(&self, t: f32) -> f32 {
        let Some((shape_in_surface, surface_in_shape)) = self.frames(t) else {
            return 0.0;
        };
        let shape_box = self.shape.aabb(&shape_in_surface);
        let mut deepest = 0.0f32;
        for c in &self.candidates {
            if !c.aabb.overlaps(&shape_box) {
                continue;
            }
            if let Ok(p) = facet_query(self.shape, &c.shape, &c.facet, &surface_in_shape, 0.0) {
                deepest = deepest.max(p.depth);
            }
            if c.front_at_start {
                // How far the shape's deepest point lies across the plane,
                // where that point is over the facet.
                let local = shape_in_surface.inverse_transform_vector(-c.facet.normal());
                let point = shape_in_surface.transform_point(self.shape.support(local));
                if c.facet.covers(point) {
                    deepest = deepest.max(-c.facet.height_of(point));
                }
            }
        }
        deepest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::D3;
    use crate::pipeline::narrow_phase::{contact, speculative_contact};
    use glam::{Quat, Vec3};

    /// A 17x17-sample heightfield of bumps, 8 m square, 0.3 m high.
    fn bumps() -> Shape<D3> {
        let n = 17;
        let heights: Vec<f32> = (0..n * n)
            .map(|k| {
                let (r, c) = ((k / n) as f32, (k % n) as f32);
                0.5 + 0.5 * libm::sinf(1.3 * r) * libm::cosf(0.9 * c)
            })
            .collect();
        Shape::surface(Surface::heightfield(&heights, n, n, Vec3::new(8.0, 0.3, 8.0)).unwrap())
    }

    #[test]
    fn a_sweep_over_the_reachable_facets_stops_a_shape_where_it_first_touches_the_surface() {
        // Boxes falling fast and turning onto bumps from many places: no
        // pose before the time of impact overlaps the surface, and the
        // pose at it is within the target (plus the tolerance) of it.
        let ground = bumps();
        let surface = ground.as_surface().unwrap();
        let cube = Shape::<D3>::cuboid(Vec3::new(0.4, 0.2, 0.3)).unwrap();
        let at = Pose::<D3>::new(Vec3::new(0.0, -0.2, 0.0), Quat::IDENTITY);
        let (target, tolerance) = (0.005, 0.00125);
        let mut met = 0;
        for k in 0..40 {
            let x = -3.0 + 0.15 * k as f32;
            let z = 2.5 - 0.13 * k as f32;
            let start = Pose::new(Vec3::new(x, 0.9, z), Quat::from_rotation_x(0.1 * k as f32));
            let end = Pose::new(
                Vec3::new(x + 0.3, -0.4, z - 0.2),
                Quat::from_rotation_x(0.1 * k as f32 + 0.7) * Quat::from_rotation_z(0.4),
            );
            let sweep = Sweep::between(&start, &end, Vec3::ZERO);
            let near = SurfaceSweep::new(surface, &at, &cube, &sweep, target + tolerance);
            let t = match near.time_of_impact(target, tolerance) {
                Impact::At(t) | Impact::Capped(t) => t,
                Impact::Never => 1.0,
            };
            for s in 0..50 {
                let before = sweep.pose_at(t * s as f32 / 50.0);
                assert!(
                    contact(&ground, &at, &cube, &before).is_none_or(|c| c.depth <= 0.0),
                    "sweep {k}: overlaps at {s}/50 of {t}"
                );
            }
            if t < 1.0 {
                met += 1;
                let reach = target + tolerance + 1e-4;
                let there = speculative_contact(&ground, &at, &cube, &sweep.pose_at(t), reach);
                assert!(there.is_some(), "sweep {k}: nothing within reach at {t}");
            }
        }
        assert!(met > 30, "only {met} sweeps met the bumps");
    }

    #[test]
    fn a_shape_far_from_a_surface_has_no_candidates() {
        let ground = bumps();
        let at = Pose::<D3>::new(Vec3::ZERO, Quat::IDENTITY);
        let ball = Shape::<D3>::ball(0.3).unwrap();
        let start = Pose::new(Vec3::new(0.0, 5.0, 0.0), Quat::IDENTITY);
        let end = Pose::new(Vec3::new(1.0, 4.0, 0.0), Quat::IDENTITY);
        let sweep = Sweep::between(&start, &end, Vec3::ZERO);
        let near = SurfaceSweep::new(ground.as_surface().unwrap(), &at, &ball, &sweep, 0.01);
        assert!(near.is_empty());
    }
}
