//! Seams between separate colliders laid flush: a tile map of fixed boxes,
//! a floor of separate slabs. A body sliding from one tile onto the next
//! meets the next tile's corner, and GJK and EPA, seeing that tile alone,
//! give the contact a sideways normal: the body catches on a seam that is
//! not there (a ghost collision; Box2D, rapier and Avian users report it).
//! Within one surface the facets' joins smooth this
//! (`narrow_phase::surface`); between colliders, after the narrow phase:
//! 1. Each awake pair between a dynamic body and a fixed or kinematic
//!    convex collider with points (marked so by the narrow phase, while the
//!    pair is in the cache) is a *support* of the body: a plane with
//!    the manifold's normal turned towards the body, through the deepest of
//!    its points on the fixed side.
//! 2. A support whose normal differs from another support's, and whose
//!    collider nowhere rises above that other support's plane (by more
//!    than [`SEAM_LEVEL_SHARE`] of the linear slop), is a seam: that
//!    collider can hold the body up along the plane but never push it
//!    sideways, so the support takes the plane's normal and its points are
//!    measured along it. A wall standing on the floor rises above the
//!    floor's plane and keeps its normal; so does a step.
//! 3. The changed pairs' solver inputs are taken again.
//!
//! The bodies are visited in handle order and each body's supports in pair
//! order, so the result never depends on threads. Guarded by
//! `a_box_slides_across_a_row_of_flush_boxes_as_across_one` (2D and 3D,
//! `tests/level_geometry.rs`) and `a_box_stops_at_a_step_between_flush_boxes`.
//!
//! Limits: the rise is the collider's highest point along the plane's
//! normal anywhere, not near the seam (a ramp that climbs away from a
//! flush start keeps its seam); surfaces are left to their own joins.

use super::World;
use crate::body::BodyKind;
use crate::dim::Dim;
use crate::math::Vector;
use crate::shape::SupportMap;
use slotmap::Key;

/// How far a collider may rise above a neighbour's support plane and still
/// count as level with it, as a share of the linear slop: a tenth (0.5 mm
/// at the default 5 mm slop). Tiles placed by hand or by float arithmetic
/// are level to far less, and a step that low is below what the solver
/// resolves anyway: resting bodies sink by up to the slop.
pub(crate) const SEAM_LEVEL_SHARE: f32 = 0.1;

/// Normals closer than this (a cosine: about 0.08 degrees, a few times
/// f32's rounding of a unit normal) are the same support plane: nothing to
/// smooth. A wider cone left a ball 3 mm short of the next tile's corner
/// touching it along a normal tilted 0.5 degrees, which turned a 5 m/s walk
/// into a 0.05 m/s climb (`a_player_walks_over_flush_tiles_as_over_one_box`);
/// a tilt this small turns it into less than 5 mm/s.
const SAME_PLANE_COSINE: f32 = 1.0 - 1e-6;

/// A body's support by one fixed or kinematic collider (module docs, step 1).
struct Support<V> {
    /// The dynamic body's handle, as the order key.
    body: u64,
    /// The pair.
    pair: usize,
    /// The normal, unit, pointing at the dynamic body.
    normal: V,
    /// The plane's offset along `normal`, metres.
    offset: f32,
    /// True when the fixed side is the pair's body A.
    fixed_is_a: bool,
}

impl<D: Dim> World<D> {
    /// Steps 1 to 3 (module docs), after the narrow phase.
    pub(crate) fn smooth_seams(&mut self) {
        let level = SEAM_LEVEL_SHARE * self.settings.linear_slop;
        let mut supports = Vec::new();
        let buffers = &self.buffers;
        let candidates = buffers.awake_pairs.iter().zip(&buffers.supports);
        for (&k, _) in candidates.filter(|(_, &supports)| supports) {
            let pair = &self.pairs[k];
            let bodies = bodies_of!(self);
            let (Some(a), Some(b)) = (bodies.sim(pair.body_a), bodies.sim(pair.body_b)) else {
                continue;
            };
            let fixed_is_a = match (a.kind, b.kind) {
                (BodyKind::Dynamic, BodyKind::Dynamic) => continue,
                (BodyKind::Dynamic, _) => false,
                (_, BodyKind::Dynamic) => true,
                _ => continue,
            };
            let Some([(_, pose_a), (_, pose_b)]) = pair.colliders(bodies_of!(self)) else {
                continue;
            };
            let m = &pair.manifold;
            let normal = if fixed_is_a { m.normal } else { -m.normal };
            let offset = (0..m.points().len())
                .map(|i| {
                    let (on_a, on_b) = m.world_points(&pose_a, &pose_b, i);
                    let on_fixed = if fixed_is_a { on_a } else { on_b };
                    on_fixed.dot(normal)
                })
                .fold(f32::NEG_INFINITY, f32::max);
            let body = if fixed_is_a { pair.body_b } else { pair.body_a };
            supports.push(Support {
                body: body.data().as_ffi(),
                pair: k,
                normal,
                offset,
                fixed_is_a,
            });
        }
        if supports.len() < 2 {
            return;
        }
        supports.sort_by_key(|s| (s.body, s.pair));
        let mut seams: Vec<(usize, D::Vector)> = Vec::new();
        for group in supports.chunk_by(|s, t| s.body == t.body) {
            for seam in group {
                let Some([(ca, pa), (cb, pb)]) = self.pairs[seam.pair].colliders(bodies_of!(self))
                else {
                    continue;
                };
                let (fixed, pose) = if seam.fixed_is_a { (ca, pa) } else { (cb, pb) };
                let rise = |n: D::Vector| {
                    let local = pose.inverse_transform_vector(n);
                    pose.transform_point(fixed.shape.support(local)).dot(n)
                };
                let plane = group.iter().find(|p| {
                    p.pair != seam.pair
                        && p.normal.dot(seam.normal) < SAME_PLANE_COSINE
                        && rise(p.normal) <= p.offset + level
                });
                if let Some(plane) = plane {
                    seams.push((seam.pair, plane.normal));
                }
            }
        }
        for (k, normal) in seams {
            let Some(colliders) = self.pairs[k].colliders(bodies_of!(self)) else {
                continue;
            };
            let [(_, pose_a), (_, pose_b)] = colliders;
            let pair = &mut self.pairs[k];
            let fixed_is_a = self.sims.get(self.bodies[pair.body_a].sim).kind != BodyKind::Dynamic;
            let normal = if fixed_is_a { normal } else { -normal };
            pair.manifold.turn_to(normal, &pose_a, &pose_b);
            let slot = self.buffers.slot[k] as usize;
            let input = pair.solver_input(&self.buffers.index, colliders);
            if let Some(place) = self.buffers.inputs.get_mut(slot) {
                *place = input;
            }
        }
    }
}
