//! The manifolds of a convex shape against a surface (mesh, heightfield or
//! chain), all kept by the one pair of colliders: one manifold per normal
//! cluster of the facets met on their face, and one per facet for the
//! facets whose contact a query decides (or that are apart within a known
//! distance).
//!
//! Every step:
//! 1. Mid phase: the shape's box in the surface's frame, grown by the
//!    pair's margin, is looked up in the surface's BVH; the facets it meets
//!    are the pair's candidates, in facet order. While the shape has moved
//!    less than the reuse distance (`ManifoldTuning::reuse`, as a convex
//!    pair's manifold measures it: the shift plus the turn's chord at the
//!    shape's bounding radius) relative to the surface since the last
//!    lookup, there is no lookup: see step 5. A margin wider than the
//!    lookup's looks up again.
//! 2. A smooth candidate (`Facet::is_smooth`: each join inactive or
//!    gentle, as nearly every facet of a terrain) never needs a query: it
//!    keeps no manifold, and the smooth candidates are met together on
//!    their faces (`narrow_phase::surface::OverFacets::smooth_contacts`:
//!    the shape's face turned to each group of them within
//!    `CLUSTER_COSINE` is found once and clipped to each), their contacts
//!    gathered for step 4. The other candidates keep their facet manifolds
//!    from the step before (matched by facet index, so their impulses
//!    warm-start); a new one starts an empty one, unless its face alone
//!    finds it apart with no distance bound or meets it on its face (then
//!    it makes none: `FacetPass::fresh`); a facet no longer near drops its
//!    own, and so does one left with no points and no distance bound to
//!    skip its next query by.
//! 3. Each other candidate's face decides its contact
//!    (`narrow_phase::surface::facet_face`, which makes the facet
//!    one-sided and smooth across its joins): apart, its manifold keeps
//!    the distance bound (its next checks are skipped while it holds);
//!    met across a free border or a convex join, its own manifold is
//!    updated exactly as a convex pair's, against the facet as a convex
//!    shape (`Manifold::update`, `FacetPass::update`:
//!    `a_facet_manifold_updated_against_the_colliders_is_the_same_as_against_its_facet`);
//!    met on its face, it keeps no points of its own and its contacts are
//!    gathered for step 4, each with the facet's index and normal
//!    (`apply_face`).
//! 4. The gathered contacts are grouped by normal: each joins the first
//!    group whose first facet normal is within `CLUSTER_COSINE` (5
//!    degrees) of its facet's, or starts one; a group's normal is the mean
//!    of its contacts' facet normals. Each group is one manifold
//!    (`Manifold::from_cluster`): points within the merging radius of
//!    one another are one (the deeper), more than a manifold holds are
//!    reduced by the manifold's reduction (`manifold::spread_choice`), and
//!    each point takes the normal impulse of the nearest point of the step
//!    before's clusters (any normal), and its tangent impulses where the
//!    two normals agree within `OWN_NORMAL_COSINE`
//!    (`a_cluster_whose_normal_turned_past_five_degrees_keeps_its_normal_impulses`).
//!    The cluster is marked with the facet its deepest contact was found
//!    on: [`FacetManifolds::iter`] reports that facet.
//! 5. While the shape is still (step 1), the clusters' points are only
//!    refreshed where they lie, along their normals turned with collider
//!    A (`Manifold::refresh_cluster`), with no lookup and no face
//!    test for the facets they came from; the kept facet manifolds are
//!    updated in place as in step 3, and a kept facet now met on its face
//!    adds clusters of its own. If a cluster is left with no point, the
//!    step is done as a moving shape's
//!    (`a_still_body_s_clusters_are_refreshed_without_a_lookup_and_agree_with_a_full_update`).
//! 6. A point new to a facet's manifold, or to the clusters, that the
//!    shape carried over from elsewhere (the same spot on the shape,
//!    within the merging radius, gone from the facet manifold or the
//!    clusters it was in) keeps its normal impulse, and its tangent
//!    impulses where the normals agree within `OWN_NORMAL_COSINE`: a body
//!    sliding or rolling from facet to facet, or over a convex join from
//!    one cluster to another, stays warm-started
//!    (`a_ball_sliding_over_a_crest_keeps_its_warm_start_from_cluster_to_facet_to_cluster`,
//!    `a_ball_rolls_across_a_mesh_of_ten_thousand_triangles_as_across_one_box`).
//!
//! A box on flat ground made of two triangles thus has one manifold, its
//! four corners, as on one box. The world gives the solver one input per
//! normal, the manifolds whose normals agree merged into one
//! (`world::surface_pairs`): a cluster next to a queried facet's manifold
//! of about its normal is one input with it.
//!
//! The clusters are part of the saved world (serde, `FORMAT_VERSION` 4)
//! and of the rollback state (`FacetManifolds::kept`).

use super::dim::ManifoldDim;
use super::manifold::{Manifold, ManifoldPoint, ManifoldTuning, PairView};
use super::narrow_phase::surface::{facet_face, FaceScratch, FacetContact, OverFacets};
use super::narrow_phase::ShapeContact;
use crate::math::{Pose, Vector};
use crate::shape::OWN_NORMAL_COSINE;
use crate::shape::{Shape, Surface};

/// The facet index a kept manifold is marked with while its facet is no
/// longer near (dropped at the end of the update): facet indices run
/// below it (a surface holds at most `u32::MAX` facets).
const DROPPED: u32 = u32::MAX;

/// The facet index a point of the step before is marked with in step 6
/// when it was a cluster's ([`Carried::facet`]).
const CLUSTERED: u32 = u32::MAX;

/// One side of a pair: its shape at its pose.
pub(crate) struct Side<'a, D: ManifoldDim> {
    pub shape: &'a Shape<D>,
    pub pose: Pose<D>,
}

/// The manifolds of a convex shape against the facets of a surface.
#[derive(Clone, Debug, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct FacetManifolds<D: ManifoldDim> {
    /// Each near facet's index with its manifold, in facet order.
    manifolds: Vec<(u32, Manifold<D>)>,
    /// The shape's pose in the surface's frame at the last BVH lookup
    /// (step 1) and the margin the lookup grew the box by, if any.
    looked_up: Option<(Pose<D>, f32)>,
    /// One manifold per normal cluster of the facets met on their face
    /// (step 4), each with the index of the facet its deepest contact was
    /// found on.
    clusters: Vec<(u32, Manifold<D>)>,
    /// The clusters of the step before, to warm-start from (kept for the
    /// allocation).
    #[cfg_attr(feature = "serde", serde(skip))]
    old_clusters: Vec<(u32, Manifold<D>)>,
}

/// What one pair's update ([`FacetManifolds::update`]) fills and leaves
/// behind: any pair's, so that one set per thread serves every surface
/// pair of a step and stays in cache (a set per pair was a dozen cold
/// allocations touched per update).
#[derive(Clone, Debug, Default)]
pub(crate) struct FacetBuffers<D: ManifoldDim> {
    /// The manifolds of facets new to the pair this step.
    fresh: Vec<(u32, Manifold<D>)>,
    /// The facets near the shape this step.
    near: Vec<u32>,
    /// A still pair's clusters as they were before their refresh.
    kept: Vec<(u32, Manifold<D>)>,
    /// The smooth ones of the near facets, where some are not.
    smooth: Vec<u32>,
    /// What meeting the smooth facets fills.
    scratch: FaceScratch<D::Vector>,
    /// A facet's contacts found on its face.
    found: Vec<ShapeContact<D>>,
    /// The points of the step before, for step 6.
    before: Vec<Carried<D::Vector>>,
    /// This step's face contacts, each with its facet's index.
    gathered: Gathered<D>,
    /// The places among them of the contacts left for the next cluster,
    /// and of those the cluster being made is chosen from (step 4).
    left: Vec<u32>,
    candidates: Vec<u32>,
    /// One cluster's contacts, where they are not a run of the gathered
    /// ones.
    group: Vec<ShapeContact<D>>,
    /// [`Manifold::from_cluster`]'s candidate points: each one's end on B
    /// (world) and separation, and (`world_pts`) its end on A (world).
    ends: Vec<(D::Vector, f32)>,
    world_pts: Vec<D::Vector>,
}

/// The face contacts gathered for the clusters (step 4), and apart from
/// them each one's facet index: a cluster whose contacts are a run of them
/// (most) hands [`Manifold::from_cluster`] that run in place. A face
/// contact's normal is its facet's normal (world, from A to B), as
/// `narrow_phase::surface::facet_face` and `OverFacets::smooth_contacts`
/// find them: step 4 reads it there.
#[derive(Clone, Debug, Default)]
struct Gathered<D: ManifoldDim> {
    facets: Vec<u32>,
    contacts: Vec<ShapeContact<D>>,
}

impl<D: ManifoldDim> Gathered<D> {
    fn push(&mut self, facet: u32, contact: ShapeContact<D>) {
        self.facets.push(facet);
        self.contacts.push(contact);
    }

    /// `contacts`, all found on the face of `facet`, of normal `normal`.
    fn extend(&mut self, facet: u32, normal: D::Vector, contacts: &[ShapeContact<D>]) {
        debug_assert!(contacts.iter().all(|c| c.normal == normal));
        self.facets
            .extend(core::iter::repeat_n(facet, contacts.len()));
        self.contacts.extend_from_slice(contacts);
    }

    fn clear(&mut self) {
        self.facets.clear();
        self.contacts.clear();
    }

    fn is_empty(&self) -> bool {
        self.facets.is_empty()
    }
}

/// How close (cosine) a face contact's facet normal must be to a cluster's
/// first to join it: Box3D's mesh clustering threshold, 5 degrees, as
/// `world::surface_pairs` groups the remaining manifolds.
const CLUSTER_COSINE: f32 = 0.996;

/// A point of the step before, as step 6 reads it.
#[derive(Clone, Debug)]
struct Carried<V> {
    /// The facet it was on, or [`CLUSTERED`] for a cluster's point.
    facet: u32,
    /// Where it is on the shape, in the shape's body frame.
    on_shape: V,
    /// Its manifold's normal, world.
    normal: V,
    normal_impulse: f32,
    tangent_impulse: [f32; 2],
}

/// Step 6's points of the step before into `before`: those of the facet
/// manifolds `manifolds`, then those of the clusters `clusters`; the point
/// on the shape is B's end when the surface is A (`surface_is_a`).
fn carried<D: ManifoldDim>(
    before: &mut Vec<Carried<D::Vector>>,
    manifolds: &[(u32, Manifold<D>)],
    clusters: &[(u32, Manifold<D>)],
    surface_is_a: bool,
) {
    let clustered = clusters.iter().map(|(_, m)| (CLUSTERED, m));
    for (facet, m) in manifolds.iter().map(|(f, m)| (*f, m)).chain(clustered) {
        for p in m.points() {
            before.push(Carried {
                facet,
                on_shape: if surface_is_a { p.local_b } else { p.local_a },
                normal: m.normal,
                normal_impulse: p.normal_impulse,
                tangent_impulse: p.tangent_impulse,
            });
        }
    }
}

/// The pair of a facet (as the convex shape `facet`) and the shape paired
/// with its surface (`sides`, one of which is the surface).
fn facet_view<'a, D: ManifoldDim>(
    facet: &'a Shape<D>,
    [a, b]: &'a [Side<'_, D>; 2],
    surface_is_a: bool,
) -> PairView<'a, D> {
    if surface_is_a {
        PairView {
            shape_a: facet,
            pose_a: a.pose,
            shape_b: b.shape,
            pose_b: b.pose,
        }
    } else {
        PairView {
            shape_a: a.shape,
            pose_a: a.pose,
            shape_b: facet,
            pose_b: b.pose,
        }
    }
}

/// The full update of a facet's manifold `m` from what its face decided
/// (`face`, the face's contacts in `found`).
fn apply_face<D: ManifoldDim>(
    m: &mut Manifold<D>,
    face: FacetContact<D>,
    view: &PairView<'_, D>,
    found: &[ShapeContact<D>],
    tuning: ManifoldTuning,
    facet: u32,
    gathered: &mut Gathered<D>,
) -> Result<(), f32> {
    match face {
        FacetContact::Apart(distance) => {
            m.clear_points();
            Err(distance)
        }
        FacetContact::Face(normal) => {
            // The contacts go to the pair's clusters (step 4).
            m.clear_points();
            gathered.extend(facet, normal, found);
            Ok(())
        }
        FacetContact::Query => m.query(view, tuning),
    }
}

/// What step 3 reads for every facet of one pair's update, and the
/// buffers its face tests fill.
struct FacetPass<'a, D: ManifoldDim> {
    /// The pair, one side of which is the surface.
    sides: &'a [Side<'a, D>; 2],
    surface: &'a Surface<D>,
    surface_is_a: bool,
    /// The shape paired with the surface, in the surface's frame.
    over: &'a OverFacets<'a, D>,
    tuning: ManifoldTuning,
    /// A facet's contacts found on its face.
    found: &'a mut Vec<ShapeContact<D>>,
    /// The face contacts gathered for the clusters (step 4).
    gathered: &'a mut Gathered<D>,
}

impl<D: ManifoldDim> FacetPass<'_, D> {
    /// Step 3 for one facet: its manifold updated against the shape paired
    /// with the surface, the facet met on its face where it can be.
    ///
    /// When the surface is A, the facet is read only for the full update:
    /// until then (skipping a pair found apart, refreshing the kept points of
    /// one still touching) [`Manifold::update_by`] reads of A only its pose and
    /// its rounding, and a facet's are its surface's (none), so it is handed
    /// the pair of colliders. Most of a settled pile's manifolds never reach
    /// the full update, and reading their facets, from anywhere in the
    /// surface, cost a cache miss each (`benches/RESULTS.md`, facet manifold
    /// bookkeeping). When the surface is B, `update_by` measures B's turn at
    /// B's bounding radius, which a facet does not share with its surface, so
    /// it is handed the facet. Guarded by
    /// `a_facet_manifold_updated_against_the_colliders_is_the_same_as_against_its_facet`
    /// and the pose hashes of `terrain_stress_3d` and `terrain_mesh_stress_3d`.
    fn update(&mut self, manifold: &mut Manifold<D>, facet: u32) {
        let (sides, surface_is_a, tuning) = (self.sides, self.surface_is_a, self.tuning);
        let index = facet;
        let facet = &self.surface.facets()[facet as usize];
        let (over, surface) = (self.over, self.surface);
        let (found, gathered) = (&mut *self.found, &mut *self.gathered);
        let mut full_update = |m: &mut Manifold<D>, view: &PairView<'_, D>| {
            found.clear();
            let sides = surface.owned_sides(index);
            let face = facet_face(over, facet, &sides, tuning.margin, &mut |c| found.push(c));
            apply_face(m, face, view, found, tuning, index, gathered)
        };
        if surface_is_a {
            let [a, b] = sides;
            let colliders = PairView {
                shape_a: a.shape,
                pose_a: a.pose,
                shape_b: b.shape,
                pose_b: b.pose,
            };
            manifold.update_by(&colliders, tuning, |m| {
                let shape = Shape::facet(*facet);
                full_update(m, &facet_view(&shape, sides, surface_is_a))
            });
        } else {
            let shape = Shape::facet(*facet);
            let view = facet_view(&shape, sides, surface_is_a);
            manifold.update_by(&view, tuning, |m| full_update(m, &view));
        }
    }

    /// Step 3 for a facet new to the pair: its face decides first, and a facet
    /// found apart with no distance bound (about half the candidates, found
    /// anew each step: `benches/RESULTS.md`, level geometry) makes no manifold
    /// at all, where it would make an empty one to drop. A new manifold always
    /// runs its full update, so the result is the same as [`FacetPass::update`] on
    /// an empty manifold (`tests/rollback.rs` and the pose hashes guard it).
    fn fresh(&mut self, facet: u32) -> Option<Manifold<D>> {
        let tuning = self.tuning;
        let facet_ref = &self.surface.facets()[facet as usize];
        let found = &mut *self.found;
        found.clear();
        let sides = self.surface.owned_sides(facet);
        let face = facet_face(self.over, facet_ref, &sides, tuning.margin, &mut |c| {
            found.push(c)
        });
        // `worth_keeping`'s rule: a bound of 0 (or NaN) skips nothing.
        if matches!(face, FacetContact::Apart(distance) if distance.is_nan() || distance <= 0.0) {
            return None;
        }
        if let FacetContact::Face(normal) = face {
            // No manifold of its own: its contacts go to the clusters.
            self.gathered.extend(facet, normal, found);
            return None;
        }
        let shape = Shape::facet(*facet_ref);
        let view = facet_view(&shape, self.sides, self.surface_is_a);
        let mut manifold = Manifold::default();
        let gathered = &mut *self.gathered;
        manifold.update_by(&view, tuning, |m| {
            apply_face(m, face, &view, found, tuning, facet, gathered)
        });
        manifold.worth_keeping().then_some(manifold)
    }
}

/// Step 4's making of the clusters, one after another, each from the
/// gathered contacts the ones before left.
struct Clustering<'a, D: ManifoldDim> {
    gathered: &'a Gathered<D>,
    /// The places of the contacts the cluster being made leaves.
    left: &'a mut Vec<u32>,
    /// Its contacts, where they are not a run of the gathered ones.
    group: &'a mut Vec<ShapeContact<D>>,
    colliders: &'a PairView<'a, D>,
    merge: f32,
    /// The clusters of the step before, to warm-start from.
    old: &'a [(u32, Manifold<D>)],
    ends: &'a mut Vec<(D::Vector, f32)>,
    world_pts: &'a mut Vec<D::Vector>,
    clusters: &'a mut Vec<(u32, Manifold<D>)>,
}

impl<D: ManifoldDim> Clustering<'_, D> {
    /// The cluster of the first of `candidates` (places among the
    /// gathered contacts, in order): those whose facet normal is within
    /// [`CLUSTER_COSINE`] of its facet's, appended to the clusters unless
    /// they make no point; the others but the first go to `left`.
    fn make(&mut self, candidates: impl ExactSizeIterator<Item = usize> + Clone) {
        let Some(first) = candidates.clone().next() else {
            return;
        };
        let (facets, contacts) = (&self.gathered.facets, &self.gathered.contacts);
        let key = contacts[first].normal;
        let joins = |k: usize| contacts[k].normal.dot(key) > CLUSTER_COSINE;
        let mut sum = D::Vector::ZERO;
        let (mut deepest_facet, mut deepest) = (facets[first], f32::NEG_INFINITY);
        // The members' places: from the first to past the last, and how
        // many.
        let (mut start, mut end, mut count) = (0, 0, 0);
        for k in candidates.clone() {
            if !joins(k) {
                continue;
            }
            let contact = &contacts[k];
            sum += contact.normal;
            if contact.depth > deepest {
                (deepest_facet, deepest) = (facets[k], contact.depth);
            }
            if count == 0 {
                start = k;
            }
            end = k + 1;
            count += 1;
        }
        if count < candidates.len() {
            // Some are left (most clusters leave none): found again here,
            // out of the loop above.
            for k in candidates.clone() {
                if k != first && !joins(k) {
                    self.left.push(k as u32);
                }
            }
        }
        if count == 0 {
            return;
        }
        // A run of the gathered contacts (most clusters) is read in place.
        let members = if end - start == count {
            &contacts[start..end]
        } else {
            self.group.clear();
            for k in candidates {
                if joins(k) {
                    self.group.push(contacts[k]);
                }
            }
            &self.group[..]
        };
        let length = sum.length();
        let normal = if length > 0.0 {
            sum * (1.0 / length)
        } else {
            key
        };
        // Written into its place, and taken back if it made no point: made
        // aside and pushed, a manifold (a few hundred bytes) is copied
        // twice.
        self.clusters.push((deepest_facet, Manifold::default()));
        let Some((_, m)) = self.clusters.last_mut() else {
            return;
        };
        *m = Manifold::from_cluster(
            self.colliders,
            normal,
            members,
            self.merge,
            self.old,
            self.ends,
            self.world_pts,
        );
        if m.points().is_empty() {
            self.clusters.pop();
        }
    }
}

impl<D: ManifoldDim> FacetManifolds<D> {
    /// Each manifold with a facet index: the facets' own, in facet order,
    /// each with its facet, then the clusters', each with the facet of its
    /// deepest contact (step 4).
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Manifold<D>)> {
        self.manifolds
            .iter()
            .map(|(i, m)| (*i, m))
            .chain(self.clusters.iter().map(|(i, m)| (*i, m)))
    }

    /// Forgets every manifold (the pair ended).
    pub(crate) fn clear(&mut self) {
        self.manifolds.clear();
        self.clusters.clear();
        self.looked_up = None;
    }

    /// Steps 1 to 6 for the pair of `a` and `b`, one of which is `surface`
    /// (`surface_is_a` says which).
    pub(crate) fn update(
        &mut self,
        [a, b]: [Side<'_, D>; 2],
        surface: &Surface<D>,
        surface_is_a: bool,
        tuning: ManifoldTuning,
        buffers: &mut FacetBuffers<D>,
    ) {
        let (on_surface, convex) = if surface_is_a { (&a, &b) } else { (&b, &a) };
        let convex_in_surface = on_surface.pose.inv_mul(&convex.pose);
        let still = self.looked_up.is_some_and(|(then, margin)| {
            let moved = (convex_in_surface.translation - then.translation).length()
                + D::turn_chord(then.rotation, convex_in_surface.rotation)
                    * convex.shape.bounding_radius();
            // NaN (a corrupted saved pose) is not still; a wider margin
            // (the body began to close in) may reach facets the lookup
            // did not.
            moved < tuning.reuse && tuning.margin <= margin
        });
        let colliders = PairView {
            shape_a: a.shape,
            pose_a: a.pose,
            shape_b: b.shape,
            pose_b: b.pose,
        };
        // The clusters of the step before, to warm-start from (step 4): a
        // pair that moved rebuilds its clusters, so they are moved aside,
        // not copied; a still pair refreshes its own in place and keeps a
        // copy, for the rebuild if one is left with no point (step 5), and
        // for clusters a kept facet now makes. The same results either way
        // (the pose hashes of `terrain_stress_3d` and
        // `terrain_mesh_stress_3d`, `tests/rollback.rs`).
        let moved_aside = !still;
        buffers.gathered.clear();
        let refresh_all = |clusters: &mut Vec<(u32, Manifold<D>)>| {
            clusters
                .iter_mut()
                .all(|(_, m)| m.refresh_cluster(&colliders, tuning))
        };
        // Step 5: a still pair refreshes its clusters' points alone; still
        // is false from here on when one is left with no point.
        let still = if moved_aside {
            std::mem::swap(&mut self.old_clusters, &mut self.clusters);
            self.clusters.clear();
            false
        } else if self.manifolds.is_empty() {
            // Clusters alone (most of a settled terrain's pairs): once they
            // are refreshed nothing else is updated, and every point of the
            // step before is still where it was, so step 6 has nothing to
            // carry. The copy goes to the buffers, in cache, and to the
            // pair only if a cluster is left with no point.
            buffers.kept.clone_from(&self.clusters);
            if refresh_all(&mut self.clusters) {
                return;
            }
            self.old_clusters.clone_from(&buffers.kept);
            false
        } else {
            self.old_clusters.clone_from(&self.clusters);
            refresh_all(&mut self.clusters)
        };
        if !still {
            let reach = convex
                .shape
                .aabb(&convex_in_surface)
                .expanded(tuning.margin);
            surface.facets_in(&reach, &mut buffers.near);
            self.looked_up = Some((convex_in_surface, tuning.margin));
        }
        // Step 6's points of the step before, from the clusters as they
        // stand (moved aside, or refreshed in place). A moving pair with
        // no facet manifold of its own (nearly every pair on smooth
        // ground) reads them only if it ends with one: from cluster to
        // cluster [`Manifold::from_cluster`] carries the impulses, so with
        // no facet manifold before or after, step 6 has nothing to do.
        let deferred = moved_aside && self.manifolds.is_empty();
        buffers.before.clear();
        if !deferred {
            let clusters_before = if moved_aside {
                &self.old_clusters
            } else {
                &self.clusters
            };
            carried(
                &mut buffers.before,
                &self.manifolds,
                clusters_before,
                surface_is_a,
            );
        }
        let over = OverFacets::new(convex.shape, &convex.pose, &on_surface.pose, surface_is_a);
        let sides = [a, b];
        let FacetBuffers {
            near,
            smooth,
            scratch,
            found,
            fresh,
            gathered,
            ..
        } = &mut *buffers;
        let mut pass = FacetPass {
            sides: &sides,
            surface,
            surface_is_a,
            over: &over,
            tuning,
            found,
            gathered: &mut *gathered,
        };
        if still {
            // The candidates are the kept manifolds' facets: updated in
            // place, in facet order, as the loop below would.
            for (facet, manifold) in &mut self.manifolds {
                pass.update(manifold, *facet);
            }
            self.manifolds.retain(|(_, m)| m.worth_keeping());
            if !buffers.gathered.is_empty() {
                // A kept facet met on its face now: its contacts make
                // clusters of their own, after the refreshed ones.
                self.build_clusters(buffers, &colliders, tuning);
            }
            self.carry_over(buffers, surface_is_a, tuning.merge);
            return;
        }
        // The kept manifolds are updated where they lie and the new ones
        // gathered apart, then merged in by facet index: a manifold moves
        // only when one before it is dropped or added (each facet's update
        // reads nothing of another's, so the order is free).
        let manifolds = &mut self.manifolds;
        fresh.clear();
        let facets = surface.facets();
        let smooth: &[u32] = if near.iter().all(|&f| facets[f as usize].smooth) {
            // Every candidate smooth (nearly every pair on a terrain):
            // they are met as found, not copied, and every kept manifold
            // goes, as in the loop below.
            manifolds.clear();
            near
        } else {
            smooth.clear();
            let mut old = 0;
            for &facet in near.iter() {
                while old < manifolds.len() && manifolds[old].0 < facet {
                    // Not near any more: dropped below.
                    manifolds[old].0 = DROPPED;
                    old += 1;
                }
                let kept = matches!(manifolds.get(old), Some((f, _)) if *f == facet);
                if facets[facet as usize].smooth {
                    // Met on its face alone, with the other smooth facets
                    // (below); a manifold of its own (from a saved world)
                    // goes.
                    if kept {
                        manifolds[old].0 = DROPPED;
                        old += 1;
                    }
                    smooth.push(facet);
                    continue;
                }
                match manifolds.get_mut(old) {
                    Some((f, m)) if *f == facet => {
                        pass.update(m, facet);
                        old += 1;
                    }
                    _ => {
                        if let Some(m) = pass.fresh(facet) {
                            fresh.push((facet, m));
                        }
                    }
                }
            }
            for (f, _) in &mut manifolds[old..] {
                *f = DROPPED;
            }
            smooth
        };
        over.smooth_contacts(
            surface,
            smooth,
            tuning.margin,
            CLUSTER_COSINE,
            scratch,
            &mut |facet, _, c| gathered.push(facet, c),
        );
        manifolds.retain(|(f, m)| *f != DROPPED && m.worth_keeping());
        if !fresh.is_empty() {
            manifolds.append(fresh);
            manifolds.sort_unstable_by_key(|(facet, _)| *facet);
        }
        self.clusters.clear();
        self.build_clusters(buffers, &colliders, tuning);
        if deferred {
            if self.manifolds.is_empty() {
                return;
            }
            carried(&mut buffers.before, &[], &self.old_clusters, surface_is_a);
        }
        self.carry_over(buffers, surface_is_a, tuning.merge);
    }

    /// Step 4: the gathered face contacts grouped by normal (within
    /// [`CLUSTER_COSINE`] of a group's first facet normal), each group one
    /// manifold appended to the clusters ([`Manifold::from_cluster`]),
    /// marked with the facet of its deepest contact.
    fn build_clusters(
        &mut self,
        buffers: &mut FacetBuffers<D>,
        colliders: &PairView<'_, D>,
        tuning: ManifoldTuning,
    ) {
        let FacetBuffers {
            gathered,
            left,
            candidates,
            group,
            ends,
            world_pts,
            ..
        } = buffers;
        let mut clustering = Clustering {
            gathered,
            left,
            group,
            colliders,
            merge: tuning.merge,
            old: &self.old_clusters,
            ends,
            world_pts,
            clusters: &mut self.clusters,
        };
        clustering.left.clear();
        clustering.make(0..clustering.gathered.contacts.len());
        while !clustering.left.is_empty() {
            std::mem::swap(candidates, clustering.left);
            clustering.left.clear();
            clustering.make(candidates.iter().map(|&k| k as usize));
        }
    }

    /// Step 6: points new to their facet's manifold, or to the clusters,
    /// take the impulses of the same spot on the shape from the step before,
    /// where that spot left its facet's manifold or the clusters: a facet's
    /// points pass to another facet's manifold or to a cluster's point,
    /// a cluster's points to a facet's manifold (from cluster to cluster
    /// [`Manifold::from_cluster`] carries them).
    fn carry_over(&mut self, buffers: &FacetBuffers<D>, surface_is_a: bool, radius: f32) {
        let on_shape =
            |p: &ManifoldPoint<D::Vector>| if surface_is_a { p.local_b } else { p.local_a };
        let near = |a: D::Vector, b: D::Vector| (a - b).length_squared() <= radius * radius;
        for k in 0..buffers.before.len() {
            let old = &buffers.before[k];
            if old.normal_impulse == 0.0 {
                continue;
            }
            let from_cluster = old.facet == CLUSTERED;
            // Still on its facet, or in the clusters: it kept its impulses
            // there.
            let stayed = if from_cluster {
                self.clusters
                    .iter()
                    .any(|(_, m)| m.points().iter().any(|p| near(on_shape(p), old.on_shape)))
            } else {
                self.manifolds.iter().any(|(f, m)| {
                    *f == old.facet && m.points().iter().any(|p| near(on_shape(p), old.on_shape))
                })
            };
            if stayed {
                continue;
            }
            let clusters = self
                .clusters
                .iter_mut()
                .filter(|_| !from_cluster)
                .map(|(_, m)| (CLUSTERED, m));
            let taker = self
                .manifolds
                .iter_mut()
                .map(|(f, m)| (*f, m))
                .chain(clusters)
                .find_map(|(f, m)| {
                    if f == old.facet {
                        return None;
                    }
                    let normal = m.normal;
                    m.points_mut()
                        .iter_mut()
                        .find(|p| p.normal_impulse == 0.0 && near(on_shape(p), old.on_shape))
                        .map(|p| (p, normal))
                });
            if let Some((p, normal)) = taker {
                p.normal_impulse = old.normal_impulse;
                if normal.dot(old.normal) >= OWN_NORMAL_COSINE {
                    p.tangent_impulse = old.tangent_impulse;
                }
            }
        }
    }

    /// Every manifold: the facets' own, in facet order, then the clusters'.
    pub(crate) fn manifolds(&self) -> impl Iterator<Item = &Manifold<D>> {
        self.manifolds
            .iter()
            .map(|(_, m)| m)
            .chain(self.clusters.iter().map(|(_, m)| m))
    }

    /// A copy of the manifolds alone, without the buffers kept for their
    /// allocations (for the world's rollback state).
    pub(crate) fn kept(&self) -> Self {
        Self {
            manifolds: self.manifolds.clone(),
            clusters: self.clusters.clone(),
            looked_up: self.looked_up,
            ..Self::default()
        }
    }

    /// Takes the manifolds of `saved`, in place (its buffers kept).
    pub(crate) fn restore(&mut self, saved: &Self) {
        self.manifolds.clone_from(&saved.manifolds);
        self.clusters.clone_from(&saved.clusters);
        self.looked_up = saved.looked_up;
    }

    /// Bytes of the manifolds (not of the buffers).
    pub(crate) fn bytes(&self) -> usize {
        (self.manifolds.len() + self.clusters.len()) * std::mem::size_of::<(u32, Manifold<D>)>()
    }

    /// Contact points of all the manifolds.
    pub(crate) fn point_count(&self) -> usize {
        self.manifolds().map(|m| m.points().len()).sum()
    }

    /// The `k`th manifold (of [`FacetManifolds::manifolds`]).
    pub(crate) fn manifold(&self, k: usize) -> Option<&Manifold<D>> {
        let facets = self.manifolds.len();
        if k < facets {
            self.manifolds.get(k).map(|(_, m)| m)
        } else {
            self.clusters.get(k - facets).map(|(_, m)| m)
        }
    }

    /// The facet of the `k`th manifold (of [`FacetManifolds::manifolds`])
    /// when it is that facet's own, which holds its points all on it;
    /// `None` for a cluster's, whose points may lie on several facets.
    pub(crate) fn facet_of(&self, k: usize) -> Option<u32> {
        self.manifolds.get(k).map(|&(facet, _)| facet)
    }

    /// The `k`th manifold, to store its impulses.
    pub(crate) fn manifold_mut(&mut self, k: usize) -> Option<&mut Manifold<D>> {
        let facets = self.manifolds.len();
        if k < facets {
            self.manifolds.get_mut(k).map(|(_, m)| m)
        } else {
            self.clusters.get_mut(k - facets).map(|(_, m)| m)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::D3;
    use glam::{Quat, Vec3};

    /// A reuse distance wider than the moves below (1 mm and a milliradian
    /// a step), so that touching facets are refreshed without a query and
    /// apart ones skipped, as a settled body's are.
    const TUNING: ManifoldTuning = ManifoldTuning {
        margin: 0.02,
        breaking: 0.02,
        merge: 0.02,
        reuse: 0.005,
        edge_tolerance: 5e-4,
    };

    /// [`FacetPass::update`] reading the facet for every update; true when the
    /// full update ran.
    fn update_against_the_facet(
        manifold: &mut Manifold<D3>,
        facet: u32,
        sides: &[Side<'_, D3>; 2],
        surface: &Surface<D3>,
    ) -> bool {
        let shape = Shape::facet(surface.facets()[facet as usize]);
        let view = facet_view(&shape, sides, true);
        let mut found = Vec::new();
        let mut full = false;
        manifold.update_by(&view, TUNING, |m| {
            full = true;
            let (over, on) = OverFacets::of_pair(&view).expect("a facet and a body");
            let outwards = on.owned_outwards();
            let sides = on.owned_sides_from(&outwards);
            let face = facet_face(&over, on, &sides, TUNING.margin, &mut |c| found.push(c));
            apply_face(
                m,
                face,
                &view,
                &found,
                TUNING,
                facet,
                &mut Gathered::default(),
            )
        });
        full
    }

    /// The ground's height step, metres (bumps of up to 0.32 m on cells
    /// 1.14 m wide): bent enough that the bodies below meet convex joins,
    /// where facets keep manifolds of their own and are refreshed without
    /// a full update, as well as faces (whose contacts go to the clusters
    /// and whose facets update in full).
    const HEIGHT: f32 = 0.08;

    #[test]
    fn a_facet_manifold_updated_against_the_colliders_is_the_same_as_against_its_facet() {
        let heights: Vec<f32> = (0..64).map(|i| HEIGHT * ((i * 7 % 5) as f32)).collect();
        let ground = Shape::heightfield(&heights, 8, 8, Vec3::new(8.0, 1.0, 8.0)).unwrap();
        let surface = ground.as_surface().unwrap();
        let bodies = [
            Shape::ball(0.4).unwrap(),
            Shape::cuboid(Vec3::new(0.5, 0.3, 0.4)).unwrap(),
            Shape::capsule(0.3, 0.2).unwrap(),
        ];
        let mut found = Vec::new();
        // Steps spent sinking onto the ground.
        const SINKING: usize = 150;
        // Full updates, refreshes without one, and skips.
        let mut paths = [0; 3];
        for body in &bodies {
            let start = Pose::new(Vec3::new(0.3, 0.5, -0.2), Quat::from_rotation_z(0.2));
            let mut near = Vec::new();
            surface.facets_in(&body.aabb(&start).expanded(1.0), &mut near);
            let mut kept: Vec<_> = near.iter().map(|&f| (f, Manifold::default())).collect();
            let mut reference = kept.clone();
            for step in 0..300 {
                // Down 1 mm a step onto the ground, then rocking by a
                // milliradian and a tenth of a millimetre.
                let rock = (step % 2) as f32;
                let pose = Pose::new(
                    start.translation - Vec3::Y * (0.001 * step.min(SINKING) as f32 + 1e-4 * rock),
                    start.rotation * Quat::from_rotation_x(0.001 * rock),
                );
                let sides = [
                    Side {
                        shape: &ground,
                        pose: Pose::new(Vec3::ZERO, Quat::IDENTITY),
                    },
                    Side { shape: body, pose },
                ];
                for ((f, m), (_, r)) in kept.iter_mut().zip(&mut reference) {
                    FacetPass {
                        sides: &sides,
                        surface,
                        surface_is_a: true,
                        over: &OverFacets::new(body, &sides[1].pose, &sides[0].pose, true),
                        tuning: TUNING,
                        found: &mut found,
                        gathered: &mut Gathered::default(),
                    }
                    .update(m, *f);
                    let full = update_against_the_facet(r, *f, &sides, surface);
                    assert_eq!(m, r, "facet {f} at step {step}");
                    paths[match (full, r.points().is_empty()) {
                        (true, _) => 0,
                        (false, false) => 1,
                        (false, true) => 2,
                    }] += 1;
                }
            }
        }
        println!("paths {paths:?}");
        assert!(paths.iter().all(|&n| n > 100), "{paths:?}");
    }

    /// The pose of identity.
    fn origin() -> Pose<D3> {
        Pose::new(Vec3::ZERO, Quat::IDENTITY)
    }

    /// The two sides of a pair of `ground` (at the origin) and `body`.
    fn sides<'a>(ground: &'a Shape<D3>, body: &'a Shape<D3>, pose: Pose<D3>) -> [Side<'a, D3>; 2] {
        [
            Side {
                shape: ground,
                pose: origin(),
            },
            Side { shape: body, pose },
        ]
    }

    /// Every manifold's points set to have pushed (as the solver stores
    /// them), so that a point left cold by the next update shows.
    fn push_all(fm: &mut FacetManifolds<D3>) {
        let mut k = 0;
        while let Some(m) = fm.manifold_mut(k) {
            for p in m.points_mut() {
                p.normal_impulse = 1.0;
                p.tangent_impulse = [0.5, 0.5];
            }
            k += 1;
        }
    }

    /// A heightfield of two rows, `cells` columns of cells 2 m wide, each
    /// cell's slope (degrees) given, from x = -cells metres.
    fn profile(slopes: &[f32]) -> (Shape<D3>, Vec<(f32, f32)>) {
        let mut heights = vec![0.0f32];
        for s in slopes {
            let h = heights.last().unwrap() + 2.0 * libm::tanf(s * core::f32::consts::PI / 180.0);
            heights.push(h);
        }
        let columns = heights.len();
        let x0 = -(slopes.len() as f32);
        let vertices = heights
            .iter()
            .enumerate()
            .map(|(c, &h)| (x0 + 2.0 * c as f32, h))
            .collect();
        let grid: Vec<f32> = heights.iter().chain(&heights).copied().collect();
        let scale = Vec3::new(2.0 * slopes.len() as f32, 1.0, 4.0);
        let shape = Shape::heightfield(&grid, 2, columns, scale).unwrap();
        (shape, vertices)
    }

    /// The height of a polyline's `vertices` at `x`.
    fn height_at(vertices: &[(f32, f32)], x: f32) -> f32 {
        let k = vertices.windows(2).position(|w| x <= w[1].0).unwrap();
        let ((x0, y0), (x1, y1)) = (vertices[k], vertices[k + 1]);
        y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    }

    #[test]
    fn a_still_body_s_clusters_are_refreshed_without_a_lookup_and_agree_with_a_full_update() {
        // A valley bent 6 degrees at x = 0: a box across the bend rests on
        // two clusters, one corner pair on each slope.
        let (ground, vertices) = profile(&[9.0, -3.0, 3.0, -9.0]);
        let surface = ground.as_surface().unwrap();
        let body = Shape::cuboid(Vec3::new(0.5, 0.3, 0.4)).unwrap();
        let rest = height_at(&vertices, 0.5) + 0.3 - 0.001;
        let mut fm = FacetManifolds::<D3>::default();
        let (mut fb, mut fb_full) = (FacetBuffers::<D3>::default(), FacetBuffers::<D3>::default());
        let mut still_steps = 0;
        for step in 0..40 {
            // Rocking up and down by a tenth of a millimetre.
            let pose = Pose::new(
                Vec3::new(0.0, rest + 1e-4 * (step % 2) as f32, 0.0),
                Quat::IDENTITY,
            );
            let looked_up = fm.looked_up;
            let mut full = fm.clone();
            full.looked_up = None;
            fm.update(sides(&ground, &body, pose), surface, true, TUNING, &mut fb);
            full.update(
                sides(&ground, &body, pose),
                surface,
                true,
                TUNING,
                &mut fb_full,
            );
            assert_eq!(fm.clusters.len(), 2, "step {step}");
            if step > 0 {
                // No lookup, and nothing built from face contacts: the
                // clusters' points were refreshed where they were.
                assert_eq!(fm.looked_up, looked_up, "step {step}");
                assert!(fb.gathered.is_empty(), "step {step}");
                still_steps += 1;
            }
            assert_eq!(fm.clusters.len(), full.clusters.len(), "step {step}");
            for ((f, m), (g, r)) in fm.clusters.iter().zip(&full.clusters) {
                assert_eq!(f, g, "step {step}");
                assert!(m.normal.dot(r.normal) > 0.99999, "step {step}");
                assert_eq!(m.points().len(), r.points().len(), "step {step}");
                for p in r.points() {
                    let same = m.points().iter().any(|q| {
                        (q.local_b - p.local_b).length() < 1e-5
                            && (q.separation - p.separation).abs() < 1e-5
                            && q.normal_impulse == p.normal_impulse
                    });
                    assert!(same, "step {step}: {p:?} not in {:?}", m.points());
                }
            }
            push_all(&mut fm);
        }
        assert_eq!(still_steps, 39);
    }

    #[test]
    fn a_ball_sliding_over_a_crest_keeps_its_warm_start_from_cluster_to_facet_to_cluster() {
        // A hill bent 6 degrees at x = 0 (a convex join: its facets are
        // queried there); the ball slides over it from one slope's cluster
        // to the other's, 2 mm a step.
        let (ground, vertices) = profile(&[9.0, 3.0, -3.0, -9.0]);
        let surface = ground.as_surface().unwrap();
        let radius = 0.25;
        let body = Shape::ball(radius).unwrap();
        let mut fm = FacetManifolds::<D3>::default();
        let mut fb = FacetBuffers::<D3>::default();
        // Each point of the step before: where it is on the ball, its
        // normal, and whether a cluster held it.
        let mut before: Vec<(Vec3, Vec3, bool)> = Vec::new();
        // Spots passed from a cluster to a facet's manifold, from a facet's
        // manifold to a cluster, and from a cluster to one whose normal
        // turned more than 5 degrees.
        let mut crossed = [0; 3];
        for step in 0..1000 {
            let x = -1.0 + 0.002 * step as f32;
            let top = (-1000..=1000)
                .map(|k| {
                    let dx = radius * k as f32 / 1000.0;
                    height_at(&vertices, x + dx) + (radius * radius - dx * dx).sqrt()
                })
                .fold(f32::NEG_INFINITY, f32::max);
            let pose = Pose::new(Vec3::new(x, top - 0.001, 0.0), Quat::IDENTITY);
            fm.update(sides(&ground, &body, pose), surface, true, TUNING, &mut fb);
            let now: Vec<(Vec3, Vec3, bool, f32)> = fm
                .manifolds
                .iter()
                .map(|(_, m)| (m, false))
                .chain(fm.clusters.iter().map(|(_, m)| (m, true)))
                .flat_map(|(m, c)| {
                    m.points()
                        .iter()
                        .map(move |p| (p.local_b, m.normal, c, p.normal_impulse))
                })
                .collect();
            assert!(!now.is_empty(), "step {step}");
            for &(spot, normal, cluster) in &before {
                let near = |p: &&(Vec3, Vec3, bool, f32)| (p.0 - spot).length() <= TUNING.merge;
                if now.iter().filter(near).count() == 0 {
                    continue;
                }
                let warm = now.iter().filter(near).find(|p| p.3 > 0.0);
                let Some(&(_, n, c, _)) = warm else {
                    panic!("step {step}: the spot {spot} lost its impulse: {now:?}");
                };
                match (cluster, c) {
                    (true, false) => crossed[0] += 1,
                    (false, true) => crossed[1] += 1,
                    (true, true) if n.dot(normal) < CLUSTER_COSINE => crossed[2] += 1,
                    _ => {}
                }
            }
            push_all(&mut fm);
            before = now.iter().map(|p| (p.0, p.1, p.2)).collect();
        }
        assert!(crossed[0] > 0 && crossed[1] > 0, "{crossed:?}");
    }

    #[test]
    fn a_cluster_whose_normal_turned_past_five_degrees_keeps_its_normal_impulses() {
        // A box on one slope; then the pair turned 10 degrees as one and
        // looked up afresh: the cluster is rebuilt along a normal 10
        // degrees from the old one's, at the same spots.
        let (ground, vertices) = profile(&[0.0, 0.0]);
        let surface = ground.as_surface().unwrap();
        let body = Shape::cuboid(Vec3::new(0.5, 0.3, 0.4)).unwrap();
        let rest = height_at(&vertices, 0.0) + 0.3 - 0.001;
        let mut fm = FacetManifolds::<D3>::default();
        let mut fb = FacetBuffers::<D3>::default();
        let at = |turn: Quat| {
            [
                Side {
                    shape: &ground,
                    pose: Pose::new(Vec3::ZERO, turn),
                },
                Side {
                    shape: &body,
                    pose: Pose::new(turn * Vec3::new(0.5, rest, 0.0), turn),
                },
            ]
        };
        fm.update(at(Quat::IDENTITY), surface, true, TUNING, &mut fb);
        assert_eq!(fm.clusters.len(), 1);
        let normal = fm.clusters[0].1.normal;
        push_all(&mut fm);
        fm.looked_up = None;
        fm.update(
            at(Quat::from_rotation_z(0.175)),
            surface,
            true,
            TUNING,
            &mut fb,
        );
        assert_eq!(fm.clusters.len(), 1);
        let m = &fm.clusters[0].1;
        assert!(m.normal.dot(normal) < CLUSTER_COSINE);
        assert_eq!(m.points().len(), 4);
        for p in m.points() {
            // The normal impulse carried, the tangent ones (along tangents
            // turned with the normal) not.
            assert_eq!(p.normal_impulse, 1.0, "{p:?}");
            assert_eq!(p.tangent_impulse, [0.0; 2], "{p:?}");
        }
    }
}
