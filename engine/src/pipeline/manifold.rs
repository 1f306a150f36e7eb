//! Incremental contact manifolds, after Bullet's `btPersistentManifold`.
//!
//! Each touching pair keeps up to `D::MAX_MANIFOLD_POINTS` points (2 in 2D,
//! 4 in 3D), anchored in each body's local frame so they follow the bodies.
//! Every step:
//! 1. refresh: recompute each kept point's world position and separation
//!    along the new normal; drop it when it separates farther than the
//!    breaking threshold or slides farther than the merging radius (the
//!    threshold, or less between small shapes: `ManifoldTuning::merge`);
//!    guarded by `refresh_drops_points_that_separate_or_slide`. An end on
//!    a ball or capsule is first taken anew from its core, so it stays
//!    under a rolling ball (`a_rolling_ball_keeps_one_point_under_its_centre`);
//! 2. merge: the narrow phase's new point replaces a kept point within the
//!    merging radius (keeping its accumulated impulses, for warm starting)
//!    or is added (`merge_keeps_a_near_point_impulses_and_adds_a_far_one`);
//! 3. perturb: while the manifold is not full and both shapes are polyhedral,
//!    gather more points from tilted copies of the pair (`perturb`), so a
//!    box landing flat has all its corners at once
//!    (`box_landing_flat_has_its_four_corners_in_the_first_frame`). A
//!    facet's manifold holds only the points over its facet, so it is
//!    seldom full: it is perturbed only when the query brings a point it
//!    did not have, the rest being kept from the perturbation that found
//!    them (`a_box_tipped_off_a_ridge_rests_on_its_slope_as_on_a_tilted_box`,
//!    `tests/level_geometry.rs`); two
//!    boxes face to face, one of them thin, instead clip one face to the
//!    other (`box_faces`, 3D), which a thin box's small tilts miss. A
//!    rounded shape is not perturbed; instead, at every query, full or
//!    not, a capsule's two ends are each queried as a ball, and those
//!    along the manifold's normal merged (`rounded_end_contacts`), so a
//!    capsule lying on a face holds both ends while it slides, as on a
//!    mesh (`a_capsule_slides_on_a_box_at_its_resting_height_3d`, `_2d`);
//! 4. reduce: over capacity, keep the deepest point (Bullet's rule) and
//!    those spanning the largest area with it, points bearing load before
//!    points still apart; points about level with the
//!    deepest count as deepest, and of those the outermost is kept (on a
//!    flat contact every point is equally deep, and EPA's may lie inside
//!    the face: starting from it would drop a corner); guarded by
//!    `reduce_keeps_a_deep_point_over_lifted_ones`,
//!    `reduce_keeps_points_bearing_load_over_a_farther_lifted_one`,
//!    `reduce_keeps_the_points_spanning_the_largest_area`.
//!
//! GJK and EPA give no feature ids, so points are matched by position.
//!
//! Cached pair data: the last query's relative pose. While no point of B
//! has moved more than `ManifoldTuning::reuse` relative to A since a query
//! that found contact, the fresh point would land on a kept one, so only
//! step 1 runs, with the normal carried in A's frame (as parry's
//! `try_update_contacts`): a resting stack costs a few dot products per
//! point instead of GJK, EPA and perturbation
//! (`a_resting_pair_reuses_its_points_and_agrees_with_a_fresh_query`).
//! While a pair found apart by its last query has moved less than its
//! distance beyond the margin (GJK's lower bound), it is still apart and is
//! not queried either
//! (`a_pair_found_apart_is_queried_again_only_once_it_may_be_near`).

use super::dim::ManifoldDim;
use crate::math::{same_bits, PackedPose, Pose, SimdWord, Vector};
pub(crate) use crate::pipeline::narrow_phase::PairView;
use crate::pipeline::narrow_phase::{
    edge_contact::meets_at_edges_only,
    perturb::{perturbed_contacts, rounded_end_contacts},
    speculative_query,
    surface::face_contacts,
    ShapeContact, MAX_CLIPPED,
};
use crate::shape::{Shape, ShapeKind, OWN_NORMAL_COSINE};

/// One contact point, anchored on both bodies.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ManifoldPoint<V> {
    /// The point on A's surface in A's body frame.
    pub local_a: V,
    /// The point on B's surface in B's body frame.
    pub local_b: V,
    /// Separation along the normal, metres: negative when overlapping.
    pub separation: f32,
    /// Accumulated normal impulse, N·s (kept for warm starting).
    pub normal_impulse: f32,
    /// Accumulated friction impulses along the tangents, N·s.
    pub tangent_impulse: [f32; 2],
    /// Where the solver applies the point's impulses: the midpoint of its
    /// two ends, relative to each collider's origin, in world axes, frozen
    /// at the pair's last GJK/EPA query (see [`Manifold::freeze_levers`]).
    pub(crate) lever_a: V,
    pub(crate) lever_b: V,
}

/// The contact points of one pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifold<D: ManifoldDim> {
    /// Unit normal in world space, from A towards B.
    pub normal: D::Vector,
    points: D::PerPoint<ManifoldPoint<D::Vector>>,
    len: usize,
    /// What the last GJK/EPA query found.
    last_query: LastQuery<D>,
    /// What the pair's last solved step did (kept with the pair, not per
    /// point: the pairs are read front to back every step, and these fit
    /// in the manifold's padding).
    pushed: Pushed,
}

/// What a manifold's points did in the last step it was solved in.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct Pushed {
    /// Normal impulse of all points over the step, every substep and the
    /// bounce, N·s: positive when the pair pushed.
    pub total_normal_impulse: f32,
    /// The fastest a point closed along the normal during the step, m/s (>= 0).
    pub approach_speed: f32,
    /// The point with the largest share of the impulse.
    pub strongest: u8,
}

/// What a manifold's last GJK/EPA query found, with where B was in A's frame.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
enum LastQuery<D: ManifoldDim> {
    /// No query yet.
    None,
    /// Contact, with the normal in A's frame.
    Touching {
        b_in_a: Pose<D>,
        local_normal: D::Vector,
    },
    /// Apart by at least `distance` metres. The margin is checked against
    /// it anew each step: it grows with the pair's speed.
    Apart { b_in_a: Pose<D>, distance: f32 },
}

/// A manifold without its points, in plain `f32`s and bytes: the rest of
/// what a pair keeps from one step to the next, for the world's rollback
/// state, which stores the points in use apart ([`Manifold::head`],
/// [`Manifold::restore`]).
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Copy, Clone, Debug)]
pub(crate) struct ManifoldHead<D: ManifoldDim> {
    normal: D::Vector,
    /// The last query's pose of B in A's frame (identity before any).
    query_pose: PackedPose<D>,
    /// After a touching query: the normal in A's frame.
    query_normal: D::Vector,
    /// After an apart query: the distance found.
    query_distance: f32,
    total_normal_impulse: f32,
    approach_speed: f32,
    len: u8,
    strongest: u8,
    /// [`QUERY_NONE`], [`QUERY_TOUCHING`] or [`QUERY_APART`].
    query: u8,
}

const QUERY_NONE: u8 = 0;
const QUERY_TOUCHING: u8 = 1;
const QUERY_APART: u8 = 2;

impl<D: ManifoldDim> ManifoldHead<D> {
    /// How many points the manifold had.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// True when `other` has the same bits.
    pub(crate) fn same_bits(&self, other: &Self) -> bool {
        let pose = |p: &PackedPose<D>| Pose::<D>::from(*p);
        let (a, b) = (pose(&self.query_pose), pose(&other.query_pose));
        (self.len, self.strongest, self.query) == (other.len, other.strongest, other.query)
            && same_bits(self.normal, other.normal)
            && same_bits(a.translation, b.translation)
            && same_bits(a.rotation, b.rotation)
            && same_bits(self.query_normal, other.query_normal)
            && same_bits(self.query_distance, other.query_distance)
            && same_bits(self.total_normal_impulse, other.total_normal_impulse)
            && same_bits(self.approach_speed, other.approach_speed)
    }
}

impl<V: SimdWord> ManifoldPoint<V> {
    /// True when `other` has the same bits.
    pub(crate) fn same_bits(&self, other: &Self) -> bool {
        same_bits(self.local_a, other.local_a)
            && same_bits(self.local_b, other.local_b)
            && same_bits(self.separation, other.separation)
            && same_bits(self.normal_impulse, other.normal_impulse)
            && same_bits(self.tangent_impulse[0], other.tangent_impulse[0])
            && same_bits(self.tangent_impulse[1], other.tangent_impulse[1])
            && same_bits(self.lever_a, other.lever_a)
            && same_bits(self.lever_b, other.lever_b)
    }
}

impl<D: ManifoldDim> Default for Manifold<D> {
    fn default() -> Self {
        Self {
            normal: D::Vector::unit_y(),
            points: Default::default(),
            len: 0,
            last_query: LastQuery::None,
            pushed: Pushed::default(),
        }
    }
}

/// How close in separation to a full manifold's deepest point another point
/// must be to count as level with it, as a share of the merging radius: a
/// tenth (2 mm at the default 2 cm breaking threshold), so that the points
/// of a flat contact, level to rounding, count as level, and the points a
/// tilted contact lifts by several millimetres do not.
pub(crate) const LEVEL_SHARE: f32 = 0.1;

/// A query's normal within about 1.8 degrees of the kept one (cosine above
/// this) leaves the kept one in place between two polytopes: it turns with
/// A and holds a resting pair's rows steady, where EPA's normal may move
/// between the two shapes' faces.
const KEPT_NORMAL_COSINE: f32 = 0.9995;

/// Distances that govern a manifold, metres.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ManifoldTuning {
    /// Keep contacts up to this far apart (speculative).
    pub margin: f32,
    /// Drop points that separate this far.
    pub breaking: f32,
    /// Drop points that slide this far; a new point replaces a kept one
    /// this close. At most `breaking`, and less between small shapes
    /// (the world scales it with their thickness), so that the corners of
    /// a centimetre cube stay apart (`centimetre_cubes_rest_on_the_ground_3d`).
    pub merge: f32,
    /// Skip the query while the pair has moved less than this since the last.
    pub reuse: f32,
    /// Two polytopes meeting within this of their edges only are apart
    /// (`narrow_phase::edge_contact`).
    pub edge_tolerance: f32,
}

impl<D: ManifoldDim> Manifold<D> {
    /// The points in use.
    pub fn points(&self) -> &[ManifoldPoint<D::Vector>] {
        &self.points.as_ref()[..self.len]
    }

    /// Normal impulse between the pair over the last step it was solved
    /// in, all points, every substep and the bounce, N·s.
    pub fn total_normal_impulse(&self) -> f32 {
        self.pushed.total_normal_impulse
    }

    /// The fastest a point closed along the normal during that step, m/s (>= 0).
    pub fn approach_speed(&self) -> f32 {
        self.pushed.approach_speed
    }

    /// The point that took the largest share of that impulse, if any is left.
    pub fn strongest_point(&self) -> Option<usize> {
        let i = self.pushed.strongest as usize;
        (i < self.len).then_some(i)
    }

    /// True when the pair touched in its last solved step: a point
    /// overlaps, or the pair pushed (a speculative point struck mid-step).
    pub fn touches(&self) -> bool {
        self.pushed.total_normal_impulse > 0.0 || self.points().iter().any(|p| p.separation <= 0.0)
    }

    /// Everything but the points.
    pub(crate) fn head(&self) -> ManifoldHead<D> {
        let (query, query_pose, query_normal, query_distance) = match self.last_query {
            LastQuery::None => (QUERY_NONE, Pose::identity(), D::Vector::ZERO, 0.0),
            LastQuery::Touching {
                b_in_a,
                local_normal,
            } => (QUERY_TOUCHING, b_in_a, local_normal, 0.0),
            LastQuery::Apart { b_in_a, distance } => {
                (QUERY_APART, b_in_a, D::Vector::ZERO, distance)
            }
        };
        ManifoldHead {
            normal: self.normal,
            query_pose: query_pose.into(),
            query_normal,
            query_distance,
            total_normal_impulse: self.pushed.total_normal_impulse,
            approach_speed: self.pushed.approach_speed,
            len: self.len as u8,
            strongest: self.pushed.strongest,
            query,
        }
    }

    /// Takes `head` and the first `head`'s count of `points` (fewer when
    /// `points` is shorter) as this manifold's, in place.
    pub(crate) fn restore(&mut self, head: &ManifoldHead<D>, points: &[ManifoldPoint<D::Vector>]) {
        let b_in_a = Pose::from(head.query_pose);
        self.last_query = match head.query {
            QUERY_TOUCHING => LastQuery::Touching {
                b_in_a,
                local_normal: head.query_normal,
            },
            QUERY_APART => LastQuery::Apart {
                b_in_a,
                distance: head.query_distance,
            },
            _ => LastQuery::None,
        };
        self.normal = head.normal;
        self.pushed = Pushed {
            total_normal_impulse: head.total_normal_impulse,
            approach_speed: head.approach_speed,
            strongest: head.strongest,
        };
        let slots = self.points.as_mut();
        let len = (head.len as usize).min(points.len()).min(slots.len());
        slots[..len].copy_from_slice(&points[..len]);
        self.len = len;
    }

    /// Records what the solver's step did (see [`Pushed`]).
    pub(crate) fn set_pushed(&mut self, pushed: Pushed) {
        self.pushed = pushed;
    }

    /// The points in use, for the solver to store impulses.
    pub(crate) fn points_mut(&mut self) -> &mut [ManifoldPoint<D::Vector>] {
        &mut self.points.as_mut()[..self.len]
    }

    /// Point `i`, which the caller knows to be in use, to store its
    /// impulses: reached without reading how many points are in use, so
    /// that a manifold out of cache is only written, and the write does
    /// not wait for its line (`SurfaceContacts::store`, after the solve).
    pub(crate) fn point_in_use_mut(&mut self, i: usize) -> Option<&mut ManifoldPoint<D::Vector>> {
        debug_assert!(i < self.len, "point {i} of {} in use", self.len);
        self.points.as_mut().get_mut(i)
    }

    /// World position of a point on A and on B.
    pub fn world_points(
        &self,
        pose_a: &Pose<D>,
        pose_b: &Pose<D>,
        i: usize,
    ) -> (D::Vector, D::Vector) {
        let p = &self.points[i];
        (
            pose_a.transform_point(p.local_a),
            pose_b.transform_point(p.local_b),
        )
    }

    /// One step of the manifold: refresh, merge, perturb, reduce; or, while
    /// the pair has hardly moved since the last query, refresh alone (or,
    /// if it was apart, nothing).
    pub(crate) fn update(&mut self, pair: &PairView<'_, D>, tuning: ManifoldTuning) {
        self.update_by(pair, tuning, |m| m.query(pair, tuning));
    }

    /// [`Manifold::update`] with `query` standing for the full update: it
    /// refills the manifold, or empties it and gives a lower bound on the
    /// pair's distance.
    pub(crate) fn update_by(
        &mut self,
        pair: &PairView<'_, D>,
        tuning: ManifoldTuning,
        query: impl FnOnce(&mut Self) -> Result<(), f32>,
    ) {
        let b_in_a = pair.pose_a.inv_mul(&pair.pose_b);
        let moved_since = |then: &Pose<D>| {
            let moved = (b_in_a.translation - then.translation).length()
                + D::turn_chord(then.rotation, b_in_a.rotation) * pair.shape_b.bounding_radius();
            if moved.is_nan() {
                f32::INFINITY
            } else {
                moved
            }
        };
        match self.last_query {
            LastQuery::Touching {
                b_in_a: then,
                local_normal,
            } if self.len > 0 && moved_since(&then) < tuning.reuse => {
                self.normal = D::rotate(pair.pose_a.rotation, local_normal);
                self.refresh(pair, tuning);
                if self.len > 0 {
                    return;
                }
            }
            LastQuery::Apart {
                b_in_a: then,
                distance,
            } if moved_since(&then) < distance - tuning.margin => {
                return;
            }
            _ => {}
        }
        self.last_query = match query(self) {
            Ok(()) => LastQuery::Touching {
                b_in_a,
                local_normal: D::inverse_rotate(pair.pose_a.rotation, self.normal),
            },
            Err(distance) => LastQuery::Apart { b_in_a, distance },
        };
    }

    /// The full update: a GJK/EPA query merged into the kept points, and
    /// perturbed queries while the manifold is not full. A pair farther
    /// apart than the margin empties the manifold and gives a lower bound
    /// on its distance.
    pub(crate) fn query(
        &mut self,
        pair: &PairView<'_, D>,
        tuning: ManifoldTuning,
    ) -> Result<(), f32> {
        let fresh = speculative_query(
            pair.shape_a,
            &pair.pose_a,
            pair.shape_b,
            &pair.pose_b,
            tuning.margin,
        )
        // Two polytopes meeting at edges only are apart (a distance bound
        // of zero: queried again next step).
        .and_then(
            |exact| match meets_at_edges_only(pair, &exact, tuning.edge_tolerance) {
                true => Err(0.0),
                false => Ok(exact),
            },
        )
        .inspect_err(|_| self.len = 0)?;
        // The kept normal is held in A's frame, so it turns with A's face.
        let kept = match self.last_query {
            LastQuery::Touching { local_normal, .. } if self.len > 0 => {
                D::rotate(pair.pose_a.rotation, local_normal)
            }
            _ => fresh.normal,
        };
        self.normal = kept;
        // A rounded shape's normal is exact and continuous, with nothing to
        // steady: kept, a ball's normal from the corner of the tile it
        // rolled onto stayed tilted across the whole tile, and a player
        // walked over flush tiles hopped at 0.2 m/s
        // (`a_player_walks_over_flush_tiles_as_over_one_box`).
        let rounded = pair.shape_a.radius() > 0.0 || pair.shape_b.radius() > 0.0;
        if rounded || kept.dot(fresh.normal) < KEPT_NORMAL_COSINE {
            self.turn_impulses(fresh.normal);
        }
        self.refresh(pair, tuning);
        if self.clip_faces(pair, &fresh, tuning) {
            self.freeze_levers(pair);
            return Ok(());
        }
        let new_point = self.merge(pair, &fresh, tuning.merge);
        // Step 3 for a rounded shape (module docs): a capsule's ends, at
        // every query, full or not: a sliding capsule's kept ends lag on
        // A by the slide, and go past the merging radius
        // (`a_capsule_slides_on_a_box_at_its_resting_height_3d`, `_2d`).
        if pair.shape_a.radius() > 0.0 || pair.shape_b.radius() > 0.0 {
            let mut ends = [fresh; 4];
            let mut count = 0;
            rounded_end_contacts(pair, self.normal, &fresh, tuning.margin, |c| {
                if let Some(slot) = ends.get_mut(count) {
                    *slot = c;
                    count += 1;
                }
            });
            for c in &ends[..count] {
                self.merge(pair, c, tuning.merge);
            }
        }
        // Step 3's rule for a facet's manifold (module docs).
        let facet = matches!(pair.shape_a.kind(), ShapeKind::Facet(_))
            || matches!(pair.shape_b.kind(), ShapeKind::Facet(_));
        if self.len < D::MAX_MANIFOLD_POINTS
            && pair.shape_a.is_polyhedral()
            && pair.shape_b.is_polyhedral()
            && (new_point || !facet)
        {
            let normal = self.normal;
            let mut extra = [ShapeContact::<D> {
                depth: 0.0,
                normal,
                point_a: normal,
                point_b: normal,
            }; 4];
            let mut count = 0;
            // At most four: a facet met on its face hands over every
            // vertex within the margin of its plane, which an odd facet
            // or a huge margin (a corrupted saved world) made more.
            perturbed_contacts(pair, &fresh, tuning.merge, tuning.margin, |c| {
                if let Some(slot) = extra.get_mut(count) {
                    *slot = c;
                    count += 1;
                }
            });
            for c in &extra[..count] {
                self.merge(pair, c, tuning.merge);
            }
        }
        self.freeze_levers(pair);
        Ok(())
    }

    /// Two boxes face to face, one of them thin (`narrow_phase::box_faces`,
    /// along the query's normal `fresh`): the manifold's points become the clipped
    /// face's, reduced to `D::MAX_MANIFOLD_POINTS`, each taking the
    /// impulses of the kept point within the merging radius of it, for
    /// warm starting. Rebuilt whole, not merged: a kept point or EPA's
    /// witness inside the face (a thin box's edge midpoint) would push the
    /// reduction off the face's symmetry, and a stick landing on its end
    /// took its whole impact on one side of its long axis
    /// (`a_spinning_stick_never_passes_the_ground_3d`). False, the
    /// manifold untouched, for any other pair, or when no clipped point is
    /// within the margin.
    fn clip_faces(
        &mut self,
        pair: &PairView<'_, D>,
        fresh: &ShapeContact<D>,
        tuning: ManifoldTuning,
    ) -> bool {
        let mut clipped = [*fresh; MAX_CLIPPED];
        let mut count = 0;
        let shapes = [(pair.shape_a, &pair.pose_a), (pair.shape_b, &pair.pose_b)];
        let mut keep = |c| {
            if let Some(slot) = clipped.get_mut(count) {
                *slot = c;
                count += 1;
            }
        };
        let faces = D::box_face_contacts(shapes, fresh.normal, tuning.margin, &mut keep)
            || face_contacts(pair, fresh.normal, tuning.margin, &mut keep);
        if !faces || count == 0 {
            return false;
        }
        let kept = self.points;
        let kept = &kept.as_ref()[..self.len];
        self.len = 0;
        for c in &clipped[..count] {
            self.merge(pair, c, tuning.merge);
        }
        let radius = tuning.merge;
        for point in &mut self.points.as_mut()[..self.len] {
            let nearest = kept
                .iter()
                .map(|k| (k, (k.local_a - point.local_a).length_squared()))
                .filter(|&(_, d)| d <= radius * radius)
                .min_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((k, _)) = nearest {
                point.normal_impulse = k.normal_impulse;
                point.tangent_impulse = k.tangent_impulse;
            }
        }
        true
    }

    /// A surface pair's cluster manifold built from the face contacts of
    /// every facet in the cluster, along `normal` (world, from A to B):
    /// points within `merge` of one another are one (the deeper), more than
    /// the manifold holds are reduced with [`spread_choice`], and each kept
    /// point takes the normal impulse of the nearest point (in A's frame,
    /// within `merge`) of any of `old` (the step before's clusters), so a
    /// body rolling into a cluster of another normal stays warm-started;
    /// the tangent impulses too where the two normals agree within
    /// [`OWN_NORMAL_COSINE`] (as `FacetManifolds`' carry-over between
    /// facets does).
    pub(crate) fn from_cluster(
        pair: &PairView<'_, D>,
        normal: D::Vector,
        contacts: &[ShapeContact<D>],
        merge: f32,
        old: &[(u32, Manifold<D>)],
        ends: &mut Vec<(D::Vector, f32)>,
        world: &mut Vec<D::Vector>,
    ) -> Self {
        let mut m = Self {
            normal,
            ..Self::default()
        };
        // Each candidate point's end on A (world, in `world`: the merging
        // and the reduction read them), and its end on B and separation
        // along `normal` (in `ends`); the chosen ones become points.
        ends.clear();
        world.clear();
        for c in contacts {
            let (pa, pb) = m.facing_ends(pair, c);
            let separation = (pb - pa).dot(normal);
            match world
                .iter()
                .position(|w| (*w - pa).length_squared() <= merge * merge)
            {
                Some(i) => {
                    if separation < ends[i].1 {
                        ends[i] = (pb, separation);
                        world[i] = pa;
                    }
                }
                None => {
                    ends.push((pb, separation));
                    world.push(pa);
                }
            }
        }
        let (chosen, count) = if ends.len() > D::MAX_MANIFOLD_POINTS {
            spread_choice::<D>(world, |i| ends[i].1, LEVEL_SHARE * merge)
        } else {
            let mut all = D::PerPoint::<usize>::default();
            for (slot, i) in all.as_mut().iter_mut().zip(0..ends.len()) {
                *slot = i;
            }
            (all, ends.len())
        };
        for (slot, &i) in chosen.as_ref()[..count].iter().enumerate() {
            let (pb, separation) = ends[i];
            let mut point = ManifoldPoint {
                local_a: pair.pose_a.inverse_transform_point(world[i]),
                local_b: pair.pose_b.inverse_transform_point(pb),
                separation,
                normal_impulse: 0.0,
                tangent_impulse: [0.0; 2],
                lever_a: D::Vector::ZERO,
                lever_b: D::Vector::ZERO,
            };
            let nearest = old
                .iter()
                .flat_map(|(_, o)| o.points().iter().map(move |k| (k, o.normal)))
                .map(|(k, n)| (k, n, (k.local_a - point.local_a).length_squared()))
                .filter(|&(_, _, d)| d <= merge * merge)
                .min_by(|x, y| x.2.total_cmp(&y.2));
            if let Some((k, old_normal, _)) = nearest {
                point.normal_impulse = k.normal_impulse;
                if old_normal.dot(normal) >= OWN_NORMAL_COSINE {
                    point.tangent_impulse = k.tangent_impulse;
                }
            }
            m.points[slot] = point;
        }
        m.len = count;
        m.freeze_levers(pair);
        m.last_query = LastQuery::Touching {
            b_in_a: pair.pose_a.inv_mul(&pair.pose_b),
            local_normal: D::inverse_rotate(pair.pose_a.rotation, normal),
        };
        m
    }

    /// A surface pair's cluster manifold ([`Manifold::from_cluster`]) with
    /// its points refreshed alone, its normal turned with A (the pair moved
    /// less than the reuse distance since the facets were looked up); false
    /// when no point is left.
    pub(crate) fn refresh_cluster(
        &mut self,
        pair: &PairView<'_, D>,
        tuning: ManifoldTuning,
    ) -> bool {
        if let LastQuery::Touching { local_normal, .. } = self.last_query {
            self.normal = D::rotate(pair.pose_a.rotation, local_normal);
        }
        self.refresh(pair, tuning);
        self.len > 0
    }

    /// True when the manifold has points, or knows the pair to be apart by
    /// more than nothing (its next query may be skipped): an empty
    /// manifold with neither need not be kept.
    pub(crate) fn worth_keeping(&self) -> bool {
        self.len > 0
            || matches!(self.last_query, LastQuery::Apart { distance, .. } if distance > 0.0)
    }

    /// Takes `normal` (world, from A to B) as the manifold's, each kept
    /// point's accumulated impulses turned with it: the impulse a point
    /// applied, `λn n + Σ λt t`, is taken apart along the new normal and
    /// its tangents, the normal part no less than zero. Kept along the old
    /// normal, a warm start pushes along the new one with what the pair
    /// held along the old: two cubes of a flush wall meeting edge to edge
    /// whose normal flips from up to sideways pushed their columns apart
    /// with the weight they had carried, and the wall fell
    /// (`a_flush_wall_of_cubes_stands_and_sleeps`, `tests/compositions.rs`).
    fn turn_impulses(&mut self, normal: D::Vector) {
        let old = self.normal;
        let (old_tangents, new_tangents) = (D::tangents(old), D::tangents(normal));
        for point in &mut self.points.as_mut()[..self.len] {
            let mut applied = old * point.normal_impulse;
            for (t, &impulse) in old_tangents.iter().zip(&point.tangent_impulse) {
                applied += *t * impulse;
            }
            point.normal_impulse = applied.dot(normal).max(0.0);
            for (impulse, t) in point.tangent_impulse.iter_mut().zip(&new_tangents) {
                *impulse = applied.dot(*t);
            }
        }
        self.normal = normal;
    }

    /// Takes `normal` (world, from A to B) as the manifold's, each point's
    /// separation measured along it (a seam between flush colliders:
    /// `world::seams`).
    pub(crate) fn turn_to(&mut self, normal: D::Vector, pose_a: &Pose<D>, pose_b: &Pose<D>) {
        self.turn_impulses(normal);
        for i in 0..self.len {
            let (pa, pb) = self.world_points(pose_a, pose_b, i);
            self.points[i].separation = (pb - pa).dot(normal);
        }
    }

    /// Forgets the points (the pair is apart).
    pub(crate) fn clear_points(&mut self) {
        self.len = 0;
    }

    /// The lever arms the solver uses, taken from the current poses and kept
    /// in world axes until the next query. Re-taken every step, the arms
    /// would turn with their bodies, and a heavy warm-started impulse at an
    /// arm that turns with a lean pushes further into the lean: a wall of
    /// cubes buckles out of its plane (rapier freezes its arms likewise).
    /// Guarded by `lever_arms_are_taken_at_a_query_and_kept_in_world_axes_until_the_next`
    /// and `wall_of_cubes_nudged_out_of_plane_rocks_back` (`tests/stacking.rs`).
    fn freeze_levers(&mut self, pair: &PairView<'_, D>) {
        for i in 0..self.len {
            let (pa, pb) = self.world_points(&pair.pose_a, &pair.pose_b, i);
            let mid = (pa + pb) * 0.5;
            self.points[i].lever_a = mid - pair.pose_a.translation;
            self.points[i].lever_b = mid - pair.pose_b.translation;
        }
    }

    /// Step 1: world points and separations of the kept points along the
    /// current normal; points that separate or slide too far go. A kept
    /// point's end on a rounded shape (ball, capsule) is first taken anew
    /// from its core ([`Manifold::round_ends`]).
    fn refresh(&mut self, pair: &PairView<'_, D>, tuning: ManifoldTuning) {
        let normal = self.normal;
        let mut kept = 0;
        let rounded = pair.shape_a.radius() > 0.0 || pair.shape_b.radius() > 0.0;
        for i in 0..self.len {
            if rounded {
                self.round_ends(pair, i);
            }
            let (pa, pb) = self.world_points(&pair.pose_a, &pair.pose_b, i);
            let d = pb - pa;
            let separation = d.dot(normal);
            let slide = (d - normal * separation).length();
            if separation <= tuning.breaking && slide <= tuning.merge {
                self.points[kept] = ManifoldPoint {
                    separation,
                    ..self.points[i]
                };
                kept += 1;
            }
        }
        self.len = kept;
    }

    /// Point `i`'s ends on rounded shapes moved to where the current normal
    /// meets their surfaces: each is its core point (which turns and moves
    /// with its body) moved the rounding radius along the normal towards
    /// the other shape, as the solver takes them within a step
    /// (`ManifoldInput::radii`). Anchored on the surface instead, the end
    /// rolls away with the body: a ball rolling at 3.6 m/s kept its contact
    /// of the step before, 6.6 mm up behind it, as a second point that
    /// never pushes but shares the manifold's push, which halved the masses
    /// the real point pushes with; the relax pass then took back only half
    /// of each substep's push-out, and the ball rolled 0.6 mm deep with an
    /// upward speed of 1 cm/s
    /// (`a_ball_rolls_on_flat_ground_without_vertical_speed_3d`, `_2d`).
    /// Taken from the core, the old end lies under the centre: it merges
    /// with the query's point, or has slid past the merging radius and goes
    /// (`a_rolling_ball_keeps_one_point_under_its_centre`).
    fn round_ends(&mut self, pair: &PairView<'_, D>, i: usize) {
        let normal = self.normal;
        let point = &mut self.points[i];
        let radius_a = pair.shape_a.radius();
        if radius_a > 0.0 {
            let outwards = D::inverse_rotate(pair.pose_a.rotation, normal);
            point.local_a = pair.shape_a.core_point(point.local_a) + outwards * radius_a;
        }
        let radius_b = pair.shape_b.radius();
        if radius_b > 0.0 {
            let outwards = D::inverse_rotate(pair.pose_b.rotation, -normal);
            point.local_b = pair.shape_b.core_point(point.local_b) + outwards * radius_b;
        }
    }

    /// The two ends, world space, of a new point from contact `c`. EPA's
    /// witnesses on a flat side may sit apart across the normal, so the
    /// ends face each other along the contact's normal, anchored at B's
    /// witness. A witness on a rounded shape (ball, capsule) is instead its
    /// core point moved the radius along the manifold's normal, as
    /// [`Manifold::round_ends`] keeps it, and anchors the other end (two
    /// rounded shapes keep one such end each). The narrow phase moves it
    /// along the contact's own normal, which the manifold's kept normal may
    /// differ from by up to 2 degrees (a ball on a mesh's edge): the arm
    /// missed the rolling ball's centre by 3 mm, and the spin lifted the
    /// ball at 7 mm/s
    /// (`a_ball_rolls_across_a_mesh_of_ten_thousand_triangles_as_across_one_box`).
    fn facing_ends(&self, pair: &PairView<'_, D>, c: &ShapeContact<D>) -> (D::Vector, D::Vector) {
        let rounded =
            |shape: &Shape<D>, pose: &Pose<D>, witness: D::Vector, outwards: D::Vector| {
                let core = shape.core_point(pose.inverse_transform_point(witness));
                pose.transform_point(core) + outwards * shape.radius()
            };
        let facing = |anchor: D::Vector, other: D::Vector| {
            anchor + c.normal * (other - anchor).dot(c.normal)
        };
        let (a, b) = (pair.shape_a, pair.shape_b);
        match (a.radius() > 0.0, b.radius() > 0.0) {
            (false, false) => (facing(c.point_b, c.point_a), c.point_b),
            (true, false) => {
                let end_a = rounded(a, &pair.pose_a, c.point_a, self.normal);
                (end_a, facing(end_a, c.point_b))
            }
            (false, true) => {
                let end_b = rounded(b, &pair.pose_b, c.point_b, -self.normal);
                (facing(end_b, c.point_a), end_b)
            }
            (true, true) => (
                rounded(a, &pair.pose_a, c.point_a, self.normal),
                rounded(b, &pair.pose_b, c.point_b, -self.normal),
            ),
        }
    }

    /// Step 2: a new point replaces the nearest kept one within `radius`
    /// (keeping its impulses) or joins the manifold, reduced when over
    /// capacity. Bullet's radius (the breaking threshold, or less between
    /// small shapes): two kept points closer than that push on one spot
    /// with a full mass each, and a hull resting on three corners with one
    /// of them held twice rocks on that corner for good. Guarded by
    /// `merge_keeps_a_near_point_impulses_and_adds_a_far_one`. True when
    /// the point is new to the manifold (it replaced none).
    fn merge(&mut self, pair: &PairView<'_, D>, c: &ShapeContact<D>, radius: f32) -> bool {
        // The separation is measured as `refresh` measures it, along the
        // manifold's normal: a perturbed contact's depth is that of the
        // tilted copy, and the solver starts from this separation.
        let (point_a, point_b) = self.facing_ends(pair, c);
        let point = ManifoldPoint {
            local_a: pair.pose_a.inverse_transform_point(point_a),
            local_b: pair.pose_b.inverse_transform_point(point_b),
            separation: (point_b - point_a).dot(self.normal),
            normal_impulse: 0.0,
            tangent_impulse: [0.0; 2],
            lever_a: D::Vector::ZERO,
            lever_b: D::Vector::ZERO,
        };
        let nearest = self
            .points()
            .iter()
            .enumerate()
            .map(|(i, p)| (i, (p.local_a - point.local_a).length_squared()))
            .filter(|&(_, d)| d <= radius * radius)
            .min_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((i, _)) = nearest {
            let kept = self.points[i];
            self.points[i] = ManifoldPoint {
                normal_impulse: kept.normal_impulse,
                tangent_impulse: kept.tangent_impulse,
                ..point
            };
            false
        } else if self.len < D::MAX_MANIFOLD_POINTS {
            self.points[self.len] = point;
            self.len += 1;
            true
        } else {
            self.reduce_with(pair, point, LEVEL_SHARE * radius);
            true
        }
    }

    /// Step 4: of a full manifold's points and a new one, keeps
    /// `D::MAX_MANIFOLD_POINTS`: the deepest point, then the one farthest
    /// from it, then those adding the most area, those bearing load (within
    /// `level` of the deepest, or touching) before those apart. Points within
    /// `level` of the deepest count as level with it, and of those the one
    /// farthest from the centroid comes first: on a flat contact EPA's
    /// point may lie inside the face, and starting from it would drop a
    /// corner. A point level with the deepest comes first, not simply the
    /// outermost: otherwise a corner pressed into a tilted face loses to
    /// points a centimetre above it and sinks unseen until a kept point
    /// breaks away, so a cube balanced so never settles:
    /// `reduce_keeps_a_deep_point_over_lifted_ones`, and
    /// `a_pile_of_turned_cubes_falls_asleep` (`tests/sleeping.rs`). Works on
    /// the stack: the narrow phase calls it for many pairs at once.
    fn reduce_with(&mut self, pair: &PairView<'_, D>, new: ManifoldPoint<D::Vector>, level: f32) {
        let mut candidates = D::PerPointAndOne::<ManifoldPoint<D::Vector>>::default();
        let candidates = candidates.as_mut();
        candidates[..self.len].copy_from_slice(self.points());
        candidates[self.len] = new;
        let candidates = &candidates[..=self.len];
        let mut world = D::PerPointAndOne::<D::Vector>::default();
        let world = &mut world.as_mut()[..candidates.len()];
        for (w, c) in world.iter_mut().zip(candidates) {
            *w = pair.pose_a.transform_point(c.local_a);
        }
        let separation = |i: usize| candidates[i].separation;
        let (chosen, count) = spread_choice::<D>(world, separation, level);
        for (slot, &i) in chosen.as_ref()[..count].iter().enumerate() {
            self.points[slot] = candidates[i];
        }
        self.len = count;
    }
}

/// The reduction rule of [`Manifold::reduce_with`] over any number of
/// candidate points (`world` positions, `separation` of each, metres): the
/// indices of the at most `D::MAX_MANIFOLD_POINTS` kept, in the order
/// chosen, and their count. A surface pair's facets share it to reduce the
/// points of facets with one normal to one solver input
/// (`SurfaceContacts::take_inputs`).
pub(crate) fn spread_choice<D: ManifoldDim>(
    world: &[D::Vector],
    separation: impl Fn(usize) -> f32,
    level: f32,
) -> (D::PerPoint<usize>, usize) {
    let centroid =
        world.iter().fold(D::Vector::ZERO, |sum, &p| sum + p) * (1.0 / world.len() as f32);
    let deepest = (0..world.len())
        .map(&separation)
        .fold(f32::INFINITY, f32::min);
    let outermost_level = last_greatest(
        (0..world.len()).filter(|&i| separation(i) <= deepest + level),
        |i| (world[i] - centroid).length_squared(),
        f32::total_cmp,
    );
    let mut chosen = D::PerPoint::<usize>::default();
    let mut count = 0;
    if let Some(i) = outermost_level {
        chosen[0] = i;
        count = 1;
    }
    // Points bearing load (about level with the deepest, or touching)
    // come before points still apart: chosen by distance alone, a
    // polygon resting on a vertex and on a box's corner keeps a vertex
    // 7 mm above the box instead of the one it stands on, tips onto the
    // corner and rocks back and forth for good
    // (`reduce_keeps_points_bearing_load_over_a_farther_lifted_one`).
    let bears = |i: usize| separation(i) <= (deepest + level).max(0.0);
    while count < D::MAX_MANIFOLD_POINTS {
        let so_far = &chosen.as_ref()[..count];
        let next = last_greatest(
            (0..world.len()).filter(|i| !so_far.contains(i)),
            |i| (bears(i), area_gain::<D>(world, so_far, i)),
            |(bears_i, spread_i), (bears_j, spread_j)| {
                bears_i.cmp(bears_j).then(spread_i.total_cmp(spread_j))
            },
        );
        match next {
            Some(i) => chosen[count] = i,
            None => break,
        }
        count += 1;
    }
    (chosen, count)
}

/// Of `indices`, the one whose `key` is greatest by `compare`, the last of
/// equals, as `Iterator::max_by` picks it, but with each key computed once
/// (`max_by` computes both of every comparison's: twice the area gains of
/// [`spread_choice`]).
fn last_greatest<K>(
    indices: impl Iterator<Item = usize>,
    key: impl Fn(usize) -> K,
    compare: impl Fn(&K, &K) -> core::cmp::Ordering,
) -> Option<usize> {
    let mut greatest: Option<(usize, K)> = None;
    for i in indices {
        let k = key(i);
        match &greatest {
            Some((_, g)) if compare(g, &k) == core::cmp::Ordering::Greater => {}
            _ => greatest = Some((i, k)),
        }
    }
    greatest.map(|(i, _)| i)
}

/// How much point `i` widens the chosen points: distance from a single
/// point, distance from the line of two, summed triangle areas beyond that.
fn area_gain<D: ManifoldDim>(world: &[D::Vector], chosen: &[usize], i: usize) -> f32 {
    let p = world[i];
    match chosen {
        [] => 0.0,
        [a] => (p - world[*a]).length_squared(),
        [a, b] => {
            let (a, b) = (world[*a], world[*b]);
            let ab = b - a;
            let t = (p - a).dot(ab) / ab.length_squared().max(f32::MIN_POSITIVE);
            (p - (a + ab * t)).length_squared()
        }
        _ => {
            let mut sum = 0.0;
            for k in 0..chosen.len() {
                let a = world[chosen[k]];
                let b = world[chosen[(k + 1) % chosen.len()]];
                sum += triangle_area::<D>(a, b, p);
            }
            sum
        }
    }
}

/// Twice the area of a triangle, in either dimension: sqrt(|u|²|v|² - (u·v)²).
fn triangle_area<D: ManifoldDim>(a: D::Vector, b: D::Vector, c: D::Vector) -> f32 {
    let (u, v) = (b - a, c - a);
    let d = u.length_squared() * v.length_squared() - u.dot(v) * u.dot(v);
    d.max(0.0).sqrt()
}

/// A manifold saves the points in use only: most pairs of a pile have
/// none (their fat boxes merely overlap), and no code reads past `len`.
/// Loading refuses more points than a manifold holds.
#[cfg(feature = "serde")]
mod persist {
    use super::{LastQuery, Manifold, ManifoldDim, ManifoldPoint, Pushed};
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize)]
    #[serde(bound = "", rename = "Manifold")]
    struct Saved<'a, D: ManifoldDim> {
        normal: &'a D::Vector,
        points: &'a [ManifoldPoint<D::Vector>],
        last_query: &'a LastQuery<D>,
        pushed: &'a Pushed,
    }

    #[derive(Deserialize)]
    #[serde(bound = "", rename = "Manifold")]
    struct Loaded<D: ManifoldDim> {
        normal: D::Vector,
        points: Vec<ManifoldPoint<D::Vector>>,
        last_query: LastQuery<D>,
        pushed: Pushed,
    }

    impl<D: ManifoldDim> Serialize for Manifold<D> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Saved::<D> {
                normal: &self.normal,
                points: self.points(),
                last_query: &self.last_query,
                pushed: &self.pushed,
            }
            .serialize(serializer)
        }
    }

    impl<'de, D: ManifoldDim> Deserialize<'de> for Manifold<D> {
        fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
            let loaded = Loaded::<D>::deserialize(deserializer)?;
            if loaded.points.len() > D::MAX_MANIFOLD_POINTS {
                return Err(De::Error::custom(
                    "a manifold with more points than it holds",
                ));
            }
            let mut manifold = Manifold {
                normal: loaded.normal,
                last_query: loaded.last_query,
                pushed: loaded.pushed,
                ..Manifold::default()
            };
            manifold.points.as_mut()[..loaded.points.len()].copy_from_slice(&loaded.points);
            manifold.len = loaded.points.len();
            Ok(manifold)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};
    use crate::shape::Shape;
    use glam::{Quat, Vec2, Vec3};

    const TUNING: ManifoldTuning = ManifoldTuning {
        margin: 0.02,
        breaking: 0.02,
        merge: 0.02,
        reuse: 0.0,
        edge_tolerance: 5e-4,
    };

    fn ground_3d() -> Shape<D3> {
        Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap()
    }

    fn cube() -> Shape<D3> {
        Shape::cuboid(Vec3::splat(0.5)).unwrap()
    }

    fn resting<'a>(ground: &'a Shape<D3>, cube: &'a Shape<D3>, at: Vec3) -> PairView<'a, D3> {
        PairView {
            shape_a: ground,
            pose_a: Pose::new(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY),
            shape_b: cube,
            pose_b: Pose::new(at, Quat::IDENTITY),
        }
    }

    /// The manifold's points on B, in B's frame, sorted for comparison.
    fn corners(m: &Manifold<D3>) -> Vec<(i32, i32)> {
        let mut c: Vec<(i32, i32)> = m
            .points()
            .iter()
            .map(|p| {
                (
                    (p.local_b.x * 2.0).round() as i32,
                    (p.local_b.z * 2.0).round() as i32,
                )
            })
            .collect();
        c.sort();
        c
    }

    fn ground_2d() -> Shape<D2> {
        Shape::cuboid(Vec2::new(10.0, 0.5)).unwrap()
    }

    fn square_2d() -> Shape<D2> {
        Shape::cuboid(Vec2::splat(0.5)).unwrap()
    }

    /// A square over a ground whose top is at y = 0, unturned.
    fn resting_2d<'a>(ground: &'a Shape<D2>, square: &'a Shape<D2>, at: Vec2) -> PairView<'a, D2> {
        PairView {
            shape_a: ground,
            pose_a: Pose::new(Vec2::new(0.0, -0.5), 0.0),
            shape_b: square,
            pose_b: Pose::new(at, 0.0),
        }
    }

    #[test]
    fn box_landing_flat_has_its_four_corners_in_the_first_frame() {
        let (ground, cube) = (ground_3d(), cube());
        let mut m = Manifold::default();
        m.update(
            &resting(&ground, &cube, Vec3::new(0.3, 0.499, -0.2)),
            TUNING,
        );
        assert_eq!(corners(&m), vec![(-1, -1), (-1, 1), (1, -1), (1, 1)]);
        assert!(m
            .points()
            .iter()
            .all(|p| (p.separation + 0.001).abs() < 1e-5));
        assert!((m.normal - Vec3::Y).length() < 1e-6);
    }

    #[test]
    fn two_d_box_landing_flat_has_both_corners() {
        let (ground, square) = (ground_2d(), square_2d());
        let pair = resting_2d(&ground, &square, Vec2::new(0.3, 0.499));
        let mut m = Manifold::default();
        m.update(&pair, TUNING);
        let mut xs: Vec<i32> = m
            .points()
            .iter()
            .map(|p| (p.local_b.x * 2.0).round() as i32)
            .collect();
        xs.sort();
        assert_eq!(xs, vec![-1, 1]);
    }

    #[test]
    fn lever_arms_are_taken_at_a_query_and_kept_in_world_axes_until_the_next() {
        let (ground, cube) = (ground_3d(), cube());
        let reusing = ManifoldTuning {
            reuse: 0.01,
            ..TUNING
        };
        let at = Vec3::new(0.3, 0.499, -0.2);
        let mut m = Manifold::default();
        m.update(&resting(&ground, &cube, at), reusing);
        for p in m.points() {
            // Midway between the ends (1 mm apart), from each collider's origin.
            let mid = at + p.local_b + Vec3::Y * 0.0005;
            assert!((p.lever_b - (mid - at)).length() < 1e-5);
            assert!((p.lever_a - (mid + Vec3::Y * 0.5)).length() < 1e-5);
        }
        let levers: Vec<Vec3> = m.points().iter().map(|p| p.lever_b).collect();
        // Tipped by a thousandth of a radian: within the reuse distance, so
        // the arms do not turn with the cube.
        let mut tipped = resting(&ground, &cube, at);
        tipped.pose_b.rotation = Quat::from_rotation_x(0.001);
        m.update(&tipped, reusing);
        assert_eq!(
            m.points().iter().map(|p| p.lever_b).collect::<Vec<_>>(),
            levers
        );
    }

    /// A ball rolled along the ground between two queries, 6 cm (a
    /// quarter of its radius) and 1 cm: its old contact, held on its
    /// surface, would have turned up behind it and stayed as a second
    /// point 6 mm above the ground; held at its centre, it lies under the
    /// ball, and goes (slid past the merging radius) or merges with the
    /// new one, keeping its impulse.
    #[test]
    fn a_rolling_ball_keeps_one_point_under_its_centre() {
        let (ground, ball) = (ground_3d(), Shape::ball(0.25).unwrap());
        let rolled = |x: f32| PairView {
            shape_a: &ground,
            pose_a: Pose::new(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY),
            shape_b: &ball,
            pose_b: Pose::new(Vec3::new(x, 0.249, 0.0), Quat::from_rotation_z(-x / 0.25)),
        };
        for step in [0.06, 0.01] {
            let mut m = Manifold::default();
            m.update(&rolled(0.0), TUNING);
            m.points_mut()[0].normal_impulse = 5.0;
            m.update(&rolled(step), TUNING);
            assert_eq!(m.points().len(), 1, "rolled {step} m");
            let p = m.points()[0];
            assert!((p.separation + 0.001).abs() < 1e-5, "{}", p.separation);
            // Midway between the ends (1 mm apart), right under the centre.
            let under = Vec3::new(0.0, -0.2495, 0.0);
            assert!((p.lever_b - under).length() < 1e-5, "{:?}", p.lever_b);
            let kept = if step < TUNING.merge { 5.0 } else { 0.0 };
            assert_eq!(p.normal_impulse, kept, "rolled {step} m");
        }
    }

    #[test]
    fn a_resting_pair_reuses_its_points_and_agrees_with_a_fresh_query() {
        let (ground, cube) = (ground_3d(), cube());
        let reusing = ManifoldTuning {
            reuse: 0.001,
            ..TUNING
        };
        let mut m = Manifold::default();
        m.update(
            &resting(&ground, &cube, Vec3::new(0.3, 0.499, -0.2)),
            reusing,
        );
        let anchors: Vec<Vec3> = m.points().iter().map(|p| p.local_a).collect();
        let sunk = resting(&ground, &cube, Vec3::new(0.3, 0.4988, -0.2));
        m.update(&sunk, reusing);
        let kept: Vec<Vec3> = m.points().iter().map(|p| p.local_a).collect();
        assert_eq!(
            kept, anchors,
            "0.2 mm is below the reuse distance: no query"
        );
        let mut fresh = Manifold::default();
        fresh.update(&sunk, TUNING);
        let depths = |m: &Manifold<D3>| {
            let mut d: Vec<f32> = m.points().iter().map(|p| p.separation).collect();
            d.sort_by(f32::total_cmp);
            d
        };
        for (reused, queried) in depths(&m).iter().zip(depths(&fresh)) {
            assert!((reused - queried).abs() < 1e-6, "{reused} vs {queried}");
        }
        let moved = resting(&ground, &cube, Vec3::new(0.302, 0.4988, -0.2));
        m.update(&moved, reusing);
        assert_ne!(
            m.points().iter().map(|p| p.local_a).collect::<Vec<_>>(),
            anchors,
            "2 mm is beyond it: the query runs and re-anchors the points"
        );
    }

    #[test]
    fn a_pair_found_apart_is_queried_again_only_once_it_may_be_near() {
        let (ground, cube) = (ground_3d(), cube());
        let mut m = Manifold::default();
        m.update(&resting(&ground, &cube, Vec3::new(0.0, 1.0, 0.0)), TUNING);
        let LastQuery::Apart { b_in_a, distance } = m.last_query else {
            panic!("half a metre apart");
        };
        assert!((distance - 0.5).abs() < 1e-4, "distance {distance}");
        m.update(&resting(&ground, &cube, Vec3::new(0.1, 0.7, 0.0)), TUNING);
        assert!(
            matches!(m.last_query, LastQuery::Apart { b_in_a: kept, .. } if kept == b_in_a),
            "moved 0.32 m of 0.48: still apart, not queried"
        );
        let fast = ManifoldTuning {
            margin: 0.19,
            ..TUNING
        };
        m.update(&resting(&ground, &cube, Vec3::new(0.1, 0.7, 0.0)), fast);
        assert!(
            matches!(m.last_query, LastQuery::Apart { b_in_a: kept, .. } if kept != b_in_a),
            "moved 0.32 m of the 0.31 a wider margin leaves: queried again"
        );
        m.update(&resting(&ground, &cube, Vec3::new(0.0, 0.499, 0.0)), TUNING);
        assert_eq!(m.points().len(), 4, "landed: queried, with its corners");
    }

    #[test]
    fn refresh_drops_points_that_separate_or_slide() {
        let (ground, cube) = (ground_3d(), cube());
        let mut m = Manifold::default();
        m.update(&resting(&ground, &cube, Vec3::new(0.0, 0.499, 0.0)), TUNING);
        assert_eq!(m.points().len(), 4);
        let mut lifted = m.clone();
        lifted.refresh(&resting(&ground, &cube, Vec3::new(0.0, 0.53, 0.0)), TUNING);
        assert!(lifted.points().is_empty(), "points 3 cm apart are gone");
        let mut slid = m.clone();
        slid.refresh(
            &resting(&ground, &cube, Vec3::new(0.03, 0.499, 0.0)),
            TUNING,
        );
        assert!(slid.points().is_empty(), "points slid 3 cm are gone");
        let mut nudged = m.clone();
        nudged.refresh(
            &resting(&ground, &cube, Vec3::new(0.005, 0.497, 0.0)),
            TUNING,
        );
        assert_eq!(nudged.points().len(), 4);
        assert!(
            nudged
                .points()
                .iter()
                .all(|p| (p.separation + 0.003).abs() < 1e-5),
            "separations follow the bodies"
        );
    }

    /// The manifold of `pair`, its first point carrying a normal impulse
    /// of 5 N·s and tangent impulses of 1 and -1 N·s.
    fn warm_manifold(pair: &PairView<'_, D3>) -> Manifold<D3> {
        let mut m = Manifold::default();
        m.update(pair, TUNING);
        m.points_mut()[0].normal_impulse = 5.0;
        m.points_mut()[0].tangent_impulse = [1.0, -1.0];
        m
    }

    #[test]
    fn merge_keeps_a_near_point_impulses_and_adds_a_far_one() {
        let (ground, cube) = (ground_3d(), cube());
        let pair = resting(&ground, &cube, Vec3::new(0.0, 0.499, 0.0));
        let mut m = warm_manifold(&pair);
        let (pa, pb) = m.world_points(&pair.pose_a, &pair.pose_b, 0);
        let near = ShapeContact {
            depth: 0.002,
            normal: Vec3::Y,
            point_a: pa + Vec3::X * 0.015,
            point_b: pb + Vec3::X * 0.015 - Vec3::Y * 0.001,
        };
        m.merge(&pair, &near, TUNING.merge);
        assert_eq!(m.points().len(), 4);
        let replaced = m
            .points()
            .iter()
            .find(|p| (p.separation + 0.002).abs() < 1e-6)
            .expect("the near point replaced");
        assert_eq!(
            (replaced.normal_impulse, replaced.tangent_impulse),
            (5.0, [1.0, -1.0])
        );
        let mut two = Manifold::<D3>::default();
        two.merge(&pair, &near, TUNING.merge);
        let far = ShapeContact {
            depth: 0.001,
            normal: Vec3::Y,
            point_a: Vec3::new(-0.4, 0.0, 0.1),
            point_b: Vec3::new(-0.4, -0.001, 0.1),
        };
        two.merge(&pair, &far, TUNING.merge);
        assert_eq!(two.points().len(), 2);
    }

    /// A normal that turns takes the kept impulses with it: the impulse a
    /// point applied is taken apart along the new normal and its tangents,
    /// so a load carried along the old normal pushes no harder along the
    /// new one than it did before.
    #[test]
    fn turning_the_normal_turns_the_kept_impulses() {
        let (ground, cube) = (ground_3d(), cube());
        let pair = resting(&ground, &cube, Vec3::new(0.0, 0.499, 0.0));
        let mut m = warm_manifold(&pair);
        let applied = |m: &Manifold<D3>| {
            let p = m.points()[0];
            let [t1, t2] = <D3 as crate::math::MathDim>::tangents(m.normal);
            m.normal * p.normal_impulse + t1 * p.tangent_impulse[0] + t2 * p.tangent_impulse[1]
        };
        let before = applied(&m);
        // A slight turn keeps the applied impulse.
        let slight = Vec3::new(0.05, 1.0, 0.0).normalize();
        m.turn_impulses(slight);
        assert!((applied(&m) - before).length() < 1e-5, "{:?}", applied(&m));
        // A quarter turn: the load along the old normal is not a push along
        // the new one (what was pushed across it is, clamped at zero).
        m.turn_impulses(Vec3::X);
        let p = m.points()[0];
        assert_eq!(m.normal, Vec3::X);
        assert!(p.normal_impulse <= before.x.max(0.0) + 1e-5, "{p:?}");
        assert!(p.normal_impulse < 1.5, "{p:?}");
    }

    /// A full manifold of a tilted contact, two points touching and two a
    /// centimetre or two above: a point found 6 mm deep near a corner is
    /// kept, where the area alone would drop it.
    #[test]
    fn reduce_keeps_a_deep_point_over_lifted_ones() {
        let (ground, cube) = (ground_3d(), cube());
        let pair = resting(&ground, &cube, Vec3::new(0.0, 0.5, 0.0));
        let at = |x: f32, z: f32, separation: f32| ShapeContact {
            depth: -separation,
            normal: Vec3::Y,
            point_a: Vec3::new(x, 0.0, z),
            point_b: Vec3::new(x, separation, z),
        };
        let mut m = Manifold::default();
        for c in [
            at(-0.4, -0.4, -0.0005),
            at(0.4, -0.4, 0.011),
            at(0.4, 0.4, -0.001),
            at(-0.4, 0.4, 0.019),
        ] {
            m.merge(&pair, &c, TUNING.merge);
        }
        m.merge(&pair, &at(-0.3, -0.25, -0.006), TUNING.merge);
        let deepest = m.points().iter().map(|p| p.separation).fold(1.0, f32::min);
        assert_eq!(m.points().len(), 4);
        assert_eq!(deepest, -0.006, "the deep point is kept");
    }

    /// A polygon standing on a vertex and on the box's corner, a third
    /// vertex 7 mm above the box: the two it stands on are kept, though
    /// the lifted one lies farther from the deepest.
    #[test]
    fn reduce_keeps_points_bearing_load_over_a_farther_lifted_one() {
        let (ground, square) = (ground_2d(), square_2d());
        let pair = resting_2d(&ground, &square, Vec2::new(0.0, 0.5));
        let at = |x: f32, separation: f32| ShapeContact::<D2> {
            depth: -separation,
            normal: Vec2::Y,
            point_a: Vec2::new(x, 0.0),
            point_b: Vec2::new(x, separation),
        };
        let mut m = Manifold::default();
        m.merge(&pair, &at(-0.2, -0.001), TUNING.merge);
        m.merge(&pair, &at(0.4, 0.007), TUNING.merge);
        m.merge(&pair, &at(-0.44, -0.0014), TUNING.merge);
        let mut kept: Vec<f32> = m.points().iter().map(|p| p.separation).collect();
        kept.sort_by(f32::total_cmp);
        assert_eq!(kept, vec![-0.0014, -0.001]);
    }

    #[test]
    fn reduce_keeps_the_points_spanning_the_largest_area() {
        let (ground, cube) = (ground_3d(), cube());
        let pair = resting(&ground, &cube, Vec3::new(0.0, 0.499, 0.0));
        let mut m = Manifold::default();
        m.update(&pair, TUNING);
        let centre = ShapeContact {
            depth: 0.001,
            normal: Vec3::Y,
            point_a: Vec3::ZERO,
            point_b: Vec3::new(0.0, -0.001, 0.0),
        };
        m.merge(&pair, &centre, TUNING.merge);
        assert_eq!(
            corners(&m),
            vec![(-1, -1), (-1, 1), (1, -1), (1, 1)],
            "the centre point goes, the corners stay"
        );
    }
}
