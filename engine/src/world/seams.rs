//! Seams between separate colliders laid flush: a tile map of fixed boxes,
//! a floor of separate slabs, a 2D level of one-segment chains each its
//! own body, or of chains and boxes by turns. A body sliding from one tile
//! onto the next meets the next tile's corner (a box's, or a chain's free
//! end), and the narrow phase, seeing that tile alone, gives the contact a
//! sideways normal: the body catches on a seam that is not there (a ghost
//! collision; Box2D, rapier and Avian users report it). Within one surface
//! the facets' joins smooth this (`narrow_phase::surface`); between
//! colliders, after the narrow phase:
//! 1. Each awake pair between a dynamic body and a fixed or kinematic
//!    collider with points (marked so by the narrow phase, while the pair
//!    is in the cache) holds the body by *supports*: each of its manifolds
//!    with points (a convex pair's own; a surface pair's facet and cluster
//!    manifolds, `world::surface_pairs`) is a plane with the manifold's
//!    normal turned towards the body, through the deepest of its points on
//!    the fixed side. Only a body held by two pairs or more is read
//!    further: a seam needs two colliders.
//! 2. A support whose normal differs from another pair's support's, and
//!    whose *piece* nowhere rises above that other support's plane (by
//!    more than [`SEAM_LEVEL_SHARE`] of the linear slop), is a seam: that
//!    piece can hold the body up along the plane but never push it
//!    sideways. A support's piece is what its points lie on: a convex
//!    pair's collider; a surface's facet, for the facet's own manifold
//!    (met across a free border or a convex join); the surface's box, for
//!    a cluster, whose points may lie on several facets. A wall standing
//!    on the floor rises above the floor's plane and keeps its normal; so
//!    does a step, a box's or a chain's. The supports of one pair never
//!    smooth one another: a surface's own joins did that.
//! 3. A seam takes the plane's normal, its points measured along it
//!    (`Manifold::turn_to`).
//! 4. The changed pairs' solver inputs are taken again: a convex pair's
//!    one input, and a surface pair's inputs from all its manifolds, once
//!    its seams are turned (`SurfaceContacts::take_inputs`).
//!
//! A chain stays one-sided: a body whose inner point is behind a segment
//! makes no contact with it (`narrow_phase::surface::facet_face`), so no
//! support to turn, and a chain above a floor rises above the floor's
//! plane.
//!
//! The bodies are visited in handle order, each body's pairs in pair order
//! and a surface pair's manifolds in their order, so the result never
//! depends on threads. Guarded by
//! `a_box_slides_across_a_row_of_flush_boxes_as_across_one` (2D and 3D),
//! `a_box_slides_across_flush_one_segment_chains_and_boxes_as_across_one_2d`,
//! `a_box_stops_at_a_step_between_flush_boxes`,
//! `a_box_stops_at_a_step_between_flush_one_segment_chains_2d` and
//! `a_box_falls_through_flush_one_segment_chains_seen_from_behind_2d`
//! (`tests/level_geometry.rs`), and the players' walks of
//! `tests/compositions.rs` (`a_player_walks_over_flush_tiles_as_over_one_box`,
//! `a_player_walks_over_flush_one_segment_chains_as_over_one_box_2d`,
//! `a_player_walks_over_flush_chains_and_boxes_by_turns_as_over_one_box_2d`).
//!
//! Limits: the rise is the piece's highest point along the plane's normal
//! anywhere, not near the seam (a ramp of one box or one facet that climbs
//! away from a flush start keeps its seam; a chain whose first segment is
//! flat smooths its seam, its climb being other facets); a cluster's piece
//! is its whole surface's box, so a cluster (a face contact, whose normal
//! is the face's already) is a seam only on a surface that is level
//! throughout.

use super::surface_pairs::InputBuffers;
use super::World;
use crate::body::BodyKind;
use crate::dim::Dim;
use crate::math::Vector;
use crate::pipeline::manifold::Manifold;
use crate::shape::SupportMap;
use slotmap::Key;

/// How far a support's piece (module docs, step 2) may rise above a
/// neighbour's support plane and still count as level with it, as a share of the linear slop: a tenth (0.5 mm
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

/// A pair of a dynamic body and a fixed or kinematic collider with
/// points (marked so by the narrow phase): its manifolds may be supports.
struct Candidate {
    /// The dynamic body's handle, as the order key.
    body: u64,
    /// The pair.
    pair: usize,
    /// True when the fixed side is the pair's body A.
    fixed_is_a: bool,
}

/// A body's support by one manifold of a fixed or kinematic collider
/// (module docs, step 1).
struct Support<V> {
    /// The pair.
    pair: usize,
    /// The manifold: `None` for a convex pair's own, `Some(k)` for the
    /// `k`th of its surface's (`FacetManifolds::manifold`).
    manifold: Option<usize>,
    /// The normal, unit, pointing at the dynamic body.
    normal: V,
    /// The plane's offset along `normal`, metres.
    offset: f32,
    /// True when the fixed side is the pair's body A.
    fixed_is_a: bool,
}

impl<D: Dim> World<D> {
    /// Steps 1 to 4 (module docs), after the narrow phase.
    pub(crate) fn smooth_seams(&mut self) {
        let level = SEAM_LEVEL_SHARE * self.settings.linear_slop;
        let mut candidates = Vec::new();
        let buffers = &self.buffers;
        let marked = buffers.awake_pairs.iter().zip(&buffers.supports);
        for (&k, _) in marked.filter(|(_, &supports)| supports) {
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
            let body = if fixed_is_a { pair.body_b } else { pair.body_a };
            candidates.push(Candidate {
                body: body.data().as_ffi(),
                pair: k,
                fixed_is_a,
            });
        }
        if candidates.len() < 2 {
            return;
        }
        candidates.sort_by_key(|c| (c.body, c.pair));
        let mut seams: Vec<(usize, Option<usize>, D::Vector)> = Vec::new();
        let mut supports = Vec::new();
        // Steps 1 and 2, for the bodies held by two pairs or more.
        for group in candidates.chunk_by(|c, d| c.body == d.body) {
            if group.len() < 2 {
                continue;
            }
            supports.clear();
            for c in group {
                self.push_supports(c, &mut supports);
            }
            for seam in &supports {
                let plane = supports.iter().find(|p| {
                    p.pair != seam.pair
                        && p.normal.dot(seam.normal) < SAME_PLANE_COSINE
                        && self.rise(seam, p.normal) <= p.offset + level
                });
                if let Some(plane) = plane {
                    seams.push((seam.pair, seam.manifold, plane.normal));
                }
            }
        }
        // Steps 3 and 4, a surface pair's inputs taken again once all its
        // seams turned (a pair's seams are in a row in `seams`: a pair has
        // one dynamic body, whose supports are in pair order).
        let mut input_buffers = InputBuffers::default();
        for (j, &(k, manifold, normal)) in seams.iter().enumerate() {
            let Some(colliders) = self.pairs[k].colliders(bodies_of!(self)) else {
                continue;
            };
            let [(_, pose_a), (_, pose_b)] = colliders;
            let pair = &mut self.pairs[k];
            let fixed_is_a = self.sims.get(self.bodies[pair.body_a].sim).kind != BodyKind::Dynamic;
            let normal = if fixed_is_a { normal } else { -normal };
            let Some(k_manifold) = manifold else {
                pair.manifold.turn_to(normal, &pose_a, &pose_b);
                let slot = self.buffers.slot[k] as usize;
                let input = pair.solver_input(&self.buffers.index, colliders);
                if let Some(place) = self.buffers.inputs.get_mut(slot) {
                    *place = input;
                }
                continue;
            };
            let Some(contacts) = pair.surface.as_deref_mut() else {
                continue;
            };
            if let Some(m) = contacts.manifolds.manifold_mut(k_manifold) {
                m.turn_to(normal, &pose_a, &pose_b);
            }
            let last_of_pair = seams.get(j + 1).is_none_or(|&(next, _, _)| next != k);
            if last_of_pair {
                let breaking = self.settings.contact_breaking_threshold;
                let index = &self.buffers.index;
                pair.take_surface_inputs(index, colliders, breaking, &mut input_buffers);
            }
        }
    }

    /// Step 1 for one pair: its own manifold, or with a surface each of its
    /// facet and cluster manifolds, with points, as a support.
    fn push_supports(&self, c: &Candidate, supports: &mut Vec<Support<D::Vector>>) {
        let pair = &self.pairs[c.pair];
        let Some([(_, pose_a), (_, pose_b)]) = pair.colliders(bodies_of!(self)) else {
            return;
        };
        let mut push = |manifold: Option<usize>, m: &Manifold<D>| {
            if m.points().is_empty() {
                return;
            }
            let normal = if c.fixed_is_a { m.normal } else { -m.normal };
            let offset = (0..m.points().len())
                .map(|i| {
                    let (on_a, on_b) = m.world_points(&pose_a, &pose_b, i);
                    let on_fixed = if c.fixed_is_a { on_a } else { on_b };
                    on_fixed.dot(normal)
                })
                .fold(f32::NEG_INFINITY, f32::max);
            supports.push(Support {
                pair: c.pair,
                manifold,
                normal,
                offset,
                fixed_is_a: c.fixed_is_a,
            });
        };
        match pair.surface.as_deref() {
            Some(contacts) => {
                for (k, m) in contacts.manifolds.manifolds().enumerate() {
                    push(Some(k), m);
                }
            }
            None => push(None, &pair.manifold),
        }
    }

    /// How high the fixed piece `support`'s points lie on rises along `n`
    /// (world): the fixed collider's highest point along it, or, for a
    /// surface's manifold, its facet's (a facet manifold) or the surface's
    /// box's (a cluster, whose points may lie on several facets).
    fn rise(&self, support: &Support<D::Vector>, n: D::Vector) -> f32 {
        let pair = &self.pairs[support.pair];
        let Some([(ca, pa), (cb, pb)]) = pair.colliders(bodies_of!(self)) else {
            return f32::INFINITY;
        };
        let (fixed, pose) = if support.fixed_is_a {
            (ca, pa)
        } else {
            (cb, pb)
        };
        let local = pose.inverse_transform_vector(n);
        let facet = match (support.manifold, &pair.surface, fixed.shape.as_surface()) {
            (Some(k), Some(contacts), Some(surface)) => contacts
                .manifolds
                .facet_of(k)
                .and_then(|f| surface.facets().get(f as usize)),
            _ => None,
        };
        let highest = match facet {
            Some(facet) => facet.support(local),
            None => fixed.shape.support(local),
        };
        pose.transform_point(highest).dot(n)
    }
}
