//! The manifolds of a convex shape against a surface (mesh, heightfield or
//! chain): one incremental manifold per facet near the shape, all kept by
//! the one pair of colliders.
//!
//! Every step:
//! 1. Mid phase: the shape's box in the surface's frame, grown by the
//!    pair's margin, is looked up in the surface's BVH; the facets it meets
//!    are the pair's candidates, in facet order. While the shape has moved
//!    less than the reuse distance (`ManifoldTuning::reuse`, as a convex
//!    pair's manifold measures it: the shift plus the turn's chord at the
//!    shape's bounding radius) relative to the surface since the last
//!    lookup, the candidates are the facets that kept a manifold instead:
//!    a resting body skips the lookup and the facets it found apart with no
//!    distance bound (about half the bodies of a settled pile, with
//!    sleeping off; `benches/RESULTS.md`, level geometry). Those facets
//!    were decided at the lookup's pose, and the shape has since moved less
//!    than the reuse distance, the same staleness a reused manifold has;
//!    a margin wider than the lookup's looks up again.
//! 2. The candidates keep their manifolds from the step before (matched by
//!    facet index, so their impulses warm-start); a new candidate starts an
//!    empty one, unless its face alone finds it apart with no distance
//!    bound (then it makes none: [`fresh_facet`]); a facet no longer near
//!    drops its own, and so does one
//!    left with no points and no distance bound to skip its next query by
//!    (most near facets: kept, their manifolds would be most of the work).
//! 3. Each manifold is updated exactly as a convex pair's (refresh, merge,
//!    perturb, reduce, reuse while still: [`Manifold::update`]), against
//!    the facet as a convex shape (read only if the update queries:
//!    [`update_facet`]); the narrow phase makes the facet
//!    one-sided and smooth across its joins (`narrow_phase::surface`).
//!
//! 4. A point new to its facet's manifold that the shape carried over from
//!    a neighbouring facet (the same spot on the shape, within the merging
//!    radius, gone from the facet it was on) keeps its impulses, so a body
//!    sliding or rolling from facet to facet stays warm-started
//!    (`a_ball_rolls_across_a_mesh_of_ten_thousand_triangles_as_across_one_box`).
//!
//! A box on flat ground made of two triangles thus has up to two
//! manifolds, each holding the corners over its triangle; the world gives
//! the solver one input per normal, the manifolds whose normals agree
//! merged into one (`world::surface_pairs`), so the box's four corners
//! are one input, as on one box.

use super::dim::ManifoldDim;
use super::manifold::{Manifold, ManifoldPoint, ManifoldTuning, PairView};
use super::narrow_phase::surface::{facet_face, FacetContact};
use super::narrow_phase::ShapeContact;
use crate::math::{Pose, Vector};
use crate::shape::OWN_NORMAL_COSINE;
use crate::shape::{Shape, Surface};

/// The facet index a kept manifold is marked with while its facet is no
/// longer near (dropped at the end of the update): facet indices run
/// below it (a surface holds at most `u32::MAX` facets).
const DROPPED: u32 = u32::MAX;

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
    /// The manifolds of facets new to the pair this step (kept for the
    /// allocation).
    #[cfg_attr(feature = "serde", serde(skip))]
    fresh: Vec<(u32, Manifold<D>)>,
    /// The facets near the shape this step (kept for the allocation).
    #[cfg_attr(feature = "serde", serde(skip))]
    near: Vec<u32>,
    /// A facet's contacts found on its face (kept for the allocation).
    #[cfg_attr(feature = "serde", serde(skip))]
    found: Vec<ShapeContact<D>>,
    /// The points of the step before, for step 4 (kept for the allocation).
    #[cfg_attr(feature = "serde", serde(skip))]
    before: Vec<Carried<D::Vector>>,
    /// The shape's pose in the surface's frame at the last BVH lookup
    /// (step 1) and the margin the lookup grew the box by, if any.
    looked_up: Option<(Pose<D>, f32)>,
    /// PROTOTYPE: one manifold per normal cluster of the face-met facets.
    clusters: Vec<Manifold<D>>,
    #[cfg_attr(feature = "serde", serde(skip))]
    old_clusters: Vec<Manifold<D>>,
    /// PROTOTYPE: this step's face contacts, each with its facet's normal.
    #[cfg_attr(feature = "serde", serde(skip))]
    gathered: Vec<(D::Vector, ShapeContact<D>)>,
    #[cfg_attr(feature = "serde", serde(skip))]
    group: Vec<ShapeContact<D>>,
    #[cfg_attr(feature = "serde", serde(skip))]
    group_taken: Vec<bool>,
    #[cfg_attr(feature = "serde", serde(skip))]
    pts: Vec<ManifoldPoint<D::Vector>>,
    #[cfg_attr(feature = "serde", serde(skip))]
    world_pts: Vec<D::Vector>,
}

/// PROTOTYPE: Box3D's 5 degrees.
const CLUSTER_COSINE: f32 = 0.996;

/// A point of the step before, as step 4 reads it.
#[derive(Clone, Debug)]
struct Carried<V> {
    /// The facet it was on.
    facet: u32,
    /// Where it is on the shape, in the shape's body frame.
    on_shape: V,
    /// Its manifold's normal, world.
    normal: V,
    normal_impulse: f32,
    tangent_impulse: [f32; 2],
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
    gathered: &mut Vec<(D::Vector, ShapeContact<D>)>,
) -> Result<(), f32> {
    match face {
        FacetContact::Apart(distance) => {
            m.clear_points();
            Err(distance)
        }
        FacetContact::Face(normal) => {
            // PROTOTYPE: the contacts go to the pair's clusters.
            let _ = tuning;
            m.clear_points();
            gathered.extend(found.iter().map(|c| (normal, *c)));
            Ok(())
        }
        FacetContact::Query => m.query(view, tuning),
    }
}

/// Step 3 for one facet: its manifold updated against the shape paired
/// with the surface (`sides`, one of which is the surface), the facet met
/// on its face where it can be, `found` holding the face's contacts.
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
fn update_facet<D: ManifoldDim>(
    manifold: &mut Manifold<D>,
    facet: u32,
    sides: &[Side<'_, D>; 2],
    surface: &Surface<D>,
    surface_is_a: bool,
    tuning: ManifoldTuning,
    found: &mut Vec<ShapeContact<D>>,
    gathered: &mut Vec<(D::Vector, ShapeContact<D>)>,
) {
    let mut full_update = |m: &mut Manifold<D>, view: &PairView<'_, D>| {
        found.clear();
        let face = facet_face(view, tuning.margin, &mut |c| found.push(c));
        apply_face(m, face, view, found, tuning, gathered)
    };
    let facet = &surface.facets()[facet as usize];
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
/// runs its full update, so the result is the same as [`update_facet`] on
/// an empty manifold (`tests/rollback.rs` and the pose hashes guard it).
fn fresh_facet<D: ManifoldDim>(
    facet: u32,
    sides: &[Side<'_, D>; 2],
    surface: &Surface<D>,
    surface_is_a: bool,
    tuning: ManifoldTuning,
    found: &mut Vec<ShapeContact<D>>,
    gathered: &mut Vec<(D::Vector, ShapeContact<D>)>,
) -> Option<Manifold<D>> {
    let shape = Shape::facet(surface.facets()[facet as usize]);
    let view = facet_view(&shape, sides, surface_is_a);
    found.clear();
    let face = facet_face(&view, tuning.margin, &mut |c| found.push(c));
    // `worth_keeping`'s rule: a bound of 0 (or NaN) skips nothing.
    if matches!(face, FacetContact::Apart(distance) if distance.is_nan() || distance <= 0.0) {
        return None;
    }
    let mut manifold = Manifold::default();
    if let FacetContact::Face(normal) = face {
        // PROTOTYPE: no manifold of its own.
        gathered.extend(found.iter().map(|c| (normal, *c)));
        return None;
    }
    manifold.update_by(&view, tuning, |m| {
        apply_face(m, face, &view, found, tuning, gathered)
    });
    manifold.worth_keeping().then_some(manifold)
}

impl<D: ManifoldDim> FacetManifolds<D> {
    /// Each near facet's index and its manifold, in facet order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Manifold<D>)> {
        self.manifolds
            .iter()
            .map(|(i, m)| (*i, m))
            .chain(self.clusters.iter().map(|m| (DROPPED - 1, m)))
    }

    /// Forgets every manifold (the pair ended).
    pub(crate) fn clear(&mut self) {
        self.manifolds.clear();
        self.clusters.clear();
        self.looked_up = None;
    }

    /// Steps 1 to 3 for the pair of `a` and `b`, one of which is `surface`
    /// (`surface_is_a` says which).
    pub(crate) fn update(
        &mut self,
        [a, b]: [Side<'_, D>; 2],
        surface: &Surface<D>,
        surface_is_a: bool,
        tuning: ManifoldTuning,
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
        self.old_clusters.clone_from(&self.clusters);
        self.gathered.clear();
        let colliders = PairView {
            shape_a: a.shape,
            pose_a: a.pose,
            shape_b: b.shape,
            pose_b: b.pose,
        };
        // PROTOTYPE: a still pair refreshes its clusters' points alone.
        let still = still && self.clusters.iter_mut().all(|m| m.refresh_cluster(&colliders, tuning));
        if !still {
            let reach = convex
                .shape
                .aabb(&convex_in_surface)
                .expanded(tuning.margin);
            surface.facets_in(&reach, &mut self.near);
            self.looked_up = Some((convex_in_surface, tuning.margin));
        }
        self.before.clear();
        for (facet, m) in &self.manifolds {
            for p in m.points() {
                self.before.push(Carried {
                    facet: *facet,
                    on_shape: if surface_is_a { p.local_b } else { p.local_a },
                    normal: m.normal,
                    normal_impulse: p.normal_impulse,
                    tangent_impulse: p.tangent_impulse,
                });
            }
        }
        let sides = [a, b];
        if still {
            // The candidates are the kept manifolds' facets: updated in
            // place, in facet order, as the loop below would.
            for (facet, manifold) in &mut self.manifolds {
                update_facet(
                    manifold,
                    *facet,
                    &sides,
                    surface,
                    surface_is_a,
                    tuning,
                    &mut self.found,
                    &mut self.gathered,
                );
            }
            self.manifolds.retain(|(_, m)| m.worth_keeping());
            self.carry_over(surface_is_a, tuning.merge);
            if !self.gathered.is_empty() {
                self.build_clusters(&colliders, tuning);
            }
            return;
        }
        // The kept manifolds are updated where they lie and the new ones
        // gathered apart, then merged in by facet index: a manifold moves
        // only when one before it is dropped or added (each facet's update
        // reads nothing of another's, so the order is free).
        let Self {
            manifolds,
            near,
            found,
            fresh,
            gathered,
            ..
        } = self;
        fresh.clear();
        let mut old = 0;
        for &facet in near.iter() {
            while old < manifolds.len() && manifolds[old].0 < facet {
                // Not near any more: dropped below.
                manifolds[old].0 = DROPPED;
                old += 1;
            }
            match manifolds.get_mut(old) {
                Some((f, m)) if *f == facet => {
                    update_facet(
                        m,
                        facet,
                        &sides,
                        surface,
                        surface_is_a,
                        tuning,
                        found,
                        gathered,
                    );
                    old += 1;
                }
                _ => {
                    if let Some(m) = fresh_facet(
                        facet,
                        &sides,
                        surface,
                        surface_is_a,
                        tuning,
                        found,
                        gathered,
                    ) {
                        fresh.push((facet, m));
                    }
                }
            }
        }
        for (f, _) in &mut manifolds[old..] {
            *f = DROPPED;
        }
        manifolds.retain(|(f, m)| *f != DROPPED && m.worth_keeping());
        if !fresh.is_empty() {
            manifolds.append(fresh);
            manifolds.sort_unstable_by_key(|(facet, _)| *facet);
        }
        self.clusters.clear();
        self.build_clusters(&colliders, tuning);
        self.carry_over(surface_is_a, tuning.merge);
    }

    /// PROTOTYPE: the gathered face contacts grouped by normal (within
    /// [`CLUSTER_COSINE`] of a group's first), each group one manifold
    /// appended to the clusters, warm-started from last step's.
    fn build_clusters(&mut self, colliders: &PairView<'_, D>, tuning: ManifoldTuning) {
        let n = self.gathered.len();
        self.group_taken.clear();
        self.group_taken.resize(n, false);
        for first in 0..n {
            if self.group_taken[first] {
                continue;
            }
            let key = self.gathered[first].0;
            self.group.clear();
            let mut sum = D::Vector::ZERO;
            for k in first..n {
                if !self.group_taken[k] && self.gathered[k].0.dot(key) > CLUSTER_COSINE {
                    self.group_taken[k] = true;
                    sum = sum + self.gathered[k].0;
                    self.group.push(self.gathered[k].1);
                }
            }
            let length = sum.length();
            let normal = if length > 0.0 { sum * (1.0 / length) } else { key };
            let m = Manifold::from_cluster(
                colliders,
                normal,
                &self.group,
                tuning.merge,
                &self.old_clusters,
                &mut self.pts,
                &mut self.world_pts,
            );
            if !m.points().is_empty() {
                self.clusters.push(m);
            }
        }
    }

    /// Step 4: points new to their facet take the impulses of the same spot
    /// on the shape from the step before, where that spot left its facet.
    fn carry_over(&mut self, surface_is_a: bool, radius: f32) {
        let on_shape =
            |p: &ManifoldPoint<D::Vector>| if surface_is_a { p.local_b } else { p.local_a };
        let near = |a: D::Vector, b: D::Vector| (a - b).length_squared() <= radius * radius;
        for k in 0..self.before.len() {
            let old = &self.before[k];
            if old.normal_impulse == 0.0 {
                continue;
            }
            // Still on its facet: it kept its impulses there.
            let stayed = self.manifolds.iter().any(|(f, m)| {
                *f == old.facet && m.points().iter().any(|p| near(on_shape(p), old.on_shape))
            });
            if stayed {
                continue;
            }
            let taker = self.manifolds.iter_mut().find_map(|(f, m)| {
                if *f == old.facet {
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

    /// Every manifold, in facet order.
    pub(crate) fn manifolds(&self) -> impl Iterator<Item = &Manifold<D>> {
        self.manifolds
            .iter()
            .map(|(_, m)| m)
            .chain(self.clusters.iter())
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

    /// The `k`th manifold, to store its impulses.
    pub(crate) fn manifold_mut(&mut self, k: usize) -> Option<&mut Manifold<D>> {
        let facets = self.manifolds.len();
        if k < facets {
            self.manifolds.get_mut(k).map(|(_, m)| m)
        } else {
            self.clusters.get_mut(k - facets)
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
    };

    /// [`update_facet`] reading the facet for every update; true when the
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
            let face = facet_face(&view, TUNING.margin, &mut |c| found.push(c));
            apply_face(m, face, &view, &found, TUNING, &mut Vec::new())
        });
        full
    }

    #[test]
    fn a_facet_manifold_updated_against_the_colliders_is_the_same_as_against_its_facet() {
        let heights: Vec<f32> = (0..64).map(|i| 0.02 * ((i * 7 % 5) as f32)).collect();
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
                    update_facet(m, *f, &sides, surface, true, TUNING, &mut found, &mut Vec::new());
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
        assert!(paths.iter().all(|&n| n > 100), "{paths:?}");
    }
}
