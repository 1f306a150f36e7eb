//! Facets: the flat pieces a surface is made of, a segment of a chain (2D)
//! or a triangle of a mesh or heightfield (3D), each a convex shape the
//! narrow phase meets with the same GJK and EPA as any other.
//!
//! A facet is one-sided and knows its neighbours, so that a body sliding
//! across the joins of a surface feels one smooth surface (Box2D's ghost
//! vertices for chains, Jolt's active edges for meshes):
//! 1. Each boundary feature (2D: an end; 3D: an edge) keeps what lies
//!    across it: nothing (a free border), a neighbour that turns away from
//!    the front (a convex join: *active*, with the neighbour's normal), or
//!    a neighbour that is level with it or turns towards the front (a flat
//!    or concave join: *inactive*).
//! 2. A contact whose normal is not the facet's own is kept only where the
//!    facet's solid corner really is: on a free border, or on an active
//!    join within the arc of normals between the facet's and the
//!    neighbour's. Inside the facet, on an inactive join, or beyond the
//!    arc on the facet's own side it takes the facet's normal; beyond the
//!    arc on the neighbour's side it is the neighbour's, and the facet
//!    makes none ([`Facet::smoothed_normal`]). A body whose inner point lies
//!    behind the facet's plane meets no contact from it (one-sided, as
//!    Box2D's chains). Guarded by
//!    `a_contact_on_an_inactive_edge_takes_the_face_normal` and the sliding
//!    scenarios of `tests/level_geometry.rs`.
//! 3. A convex join bent by less than [`GENTLE_JOIN_COSINE`]'s angle is
//!    *gentle*: a body met on the face there needs no query. The region
//!    over the facet it owns reaches across a gentle join to the plane
//!    halfway to the neighbour ([`Facet::owned_side`]), so the two share
//!    the space over the ridge with no gap, and the face of a body turned
//!    to the facet, clipped to that region ([`clip_to_sides`]), gives the
//!    points on the ridge a body rests on
//!    (`a_box_rests_on_a_gently_rounded_hill_as_on_its_tangent_plane`,
//!    `a_ball_rolls_over_gently_bent_triangles_without_a_dip`).
//!
//! Limits: a 3D corner (where two edges meet) keeps a contact's own normal
//! when either edge is active; the exact corner region (the cone of all
//! the corner's faces) is not built.

use glam::Vec4;

use super::support::SupportMap;
use crate::math::Vector;

/// How close to the facet's own normal a contact normal must be to count
/// as it, as a cosine: within about 0.8 degrees, well above the rounding
/// of EPA's normals (1e-6) and below any bend a level is built with.
pub(crate) const OWN_NORMAL_COSINE: f32 = 0.9999;

/// Joins whose two normals are closer than this (a cosine: about 0.8
/// degrees) count as flat, and are inactive however they turn: a level
/// built from measured heights has joins bent by rounding alone.
pub(crate) const FLAT_JOIN_COSINE: f32 = 0.9999;

/// Convex joins whose two normals are closer than this (a cosine: about 5
/// degrees, Jolt's active-edge threshold) are gentle: a body met on the
/// facet's face there needs no query, its points on the facet's side of
/// the join found by clipping ([`clip_to_sides`]). A smooth terrain bends
/// by a few degrees from cell to cell, so most of its convex joins are
/// gentle (`a_box_rests_on_a_gently_rounded_hill_as_on_its_tangent_plane`,
/// `a_ball_rolls_over_gently_bent_triangles_without_a_dip`); a sharper
/// bend keeps the exact query (`a_box_tipped_off_a_ridge_rests_on_its_slope_as_on_a_tilted_box`).
pub(crate) const GENTLE_JOIN_COSINE: f32 = 0.996;

/// The most points [`clip_to_sides`] keeps: clipping a box's face (four
/// corners) to a facet's three sides adds at most one point per side.
pub(crate) const MAX_OWNED_CLIP: usize = 8;

/// Points whose distances out of a side [`clip_to_sides`] finds at once:
/// the lanes of a SIMD word (`Vec4`); [`MAX_OWNED_CLIP`] is a multiple.
const LANES: usize = 4;

/// The sides of the region a facet owns: each a point on it and its
/// outward unit normal ([`Facet::owned_sides_from`]).
/// Side `k` runs through corner `k` of the facet with outward normal
/// `outwards[k]`; both are read where the facet keeps them, not copied
/// (a face test reads them for every facet near a body).
#[derive(Copy, Clone, Debug)]
pub(crate) struct OwnedSides<'a, V> {
    corners: &'a [V; 3],
    outwards: &'a [V; 3],
    len: usize,
}

impl<V: Vector> OwnedSides<'_, V> {
    /// True when `p` lies inside every side (on one counts).
    pub(crate) fn contain(&self, p: V) -> bool {
        (0..self.len).all(|k| (p - self.corners[k]).dot(self.outwards[k]) <= 0.0)
    }

    /// Side `k`: a point on it and its outward unit normal.
    fn side(&self, k: usize) -> (V, V) {
        (self.corners[k], self.outwards[k])
    }
}

/// A convex polygon (in order; two points are a segment, one a point) as
/// [`clip_to_sides`] reads it: its first [`MAX_OWNED_CLIP`] points, and
/// their coordinates in SIMD lanes (four points to a `Vec4` per
/// coordinate), put there once for every facet the polygon is clipped to
/// (a body's face over the facets near it).
#[derive(Clone, Debug)]
pub(crate) struct ClipFace<V> {
    points: [V; MAX_OWNED_CLIP],
    len: usize,
    /// Per word of four points: their x, y and z (zero in 2D) coordinates;
    /// a last word's lanes past `len` are zero.
    lanes: [[Vec4; 3]; MAX_OWNED_CLIP / LANES],
}

impl<V: Vector> ClipFace<V> {
    /// The polygon of `points`, of which the first [`MAX_OWNED_CLIP`] are
    /// kept.
    pub(crate) fn new(points: impl IntoIterator<Item = V>) -> Self {
        let mut face = Self {
            points: [V::ZERO; MAX_OWNED_CLIP],
            len: 0,
            lanes: [[Vec4::ZERO; 3]; MAX_OWNED_CLIP / LANES],
        };
        let mut columns = [[[0.0; LANES]; 3]; MAX_OWNED_CLIP / LANES];
        for (i, p) in points.into_iter().take(MAX_OWNED_CLIP).enumerate() {
            face.points[i] = p;
            face.len = i + 1;
            let word = p.to_word();
            let column = &mut columns[i / LANES];
            (
                column[0][i % LANES],
                column[1][i % LANES],
                column[2][i % LANES],
            ) = (word.x, word.y, word.z);
        }
        face.lanes = columns.map(|word| word.map(Vec4::from_array));
        face
    }

    /// The points kept.
    pub(crate) fn points(&self) -> &[V] {
        &self.points[..self.len]
    }
}

/// The part of the convex polygon `face` inside `sides`: `face` clipped to
/// each side in turn (Sutherland-Hodgman), each point of the result handed
/// to `found`. A facet's owned region
/// ([`Facet::owned_sides_from`]) so clipped holds the points of a shape's face
/// over the facet and, across a gentle join, up to the plane halfway to
/// the neighbour.
pub(crate) fn clip_to_sides<V: Vector>(
    sides: &OwnedSides<'_, V>,
    face: &ClipFace<V>,
    found: &mut impl FnMut(V),
) {
    let given = face.points();
    let side_count = sides.len.min(3);
    // How far out of each side each point lies, for the points as given,
    // four points at a time from the face's lanes: each lane's distance is
    // the scalar `(p - on).dot(outward)` to the bit (the same operations in
    // the same order; the z of a 2D point is zero and adds nothing).
    // Wholly outside a side, they are gone: most faces near a facet lie
    // over a neighbour, found so before any clipping.
    let words = given.len().div_ceil(LANES);
    let lanes = &face.lanes;
    // The lanes holding points: the last word's others are padding.
    let last_lanes = given.len() - (words.max(1) - 1) * LANES;
    let mut outs = [[0.0; MAX_OWNED_CLIP]; 3];
    for (k, row) in outs.iter_mut().enumerate().take(side_count) {
        let (on, outward) = sides.side(k);
        let (on, outward) = (on.to_word(), outward.to_word());
        let mut all_out = true;
        for (w, word) in lanes[..words].iter().enumerate() {
            let [x, y, z] = *word;
            let o = (x - Vec4::splat(on.x)) * outward.x
                + (y - Vec4::splat(on.y)) * outward.y
                + (z - Vec4::splat(on.z)) * outward.z;
            row[w * LANES..(w + 1) * LANES].copy_from_slice(&o.to_array());
            let used = if w + 1 == words {
                (1 << last_lanes) - 1
            } else {
                0b1111
            };
            all_out &= o.cmpgt(Vec4::ZERO).bitmask() & used == used;
        }
        if all_out {
            return;
        }
    }
    // The first side that cuts the polygon (not every point inside it; a
    // NaN distance counts as outside): until then the polygon is `given`,
    // each side holding it whole.
    let inside = |o: &f32| *o <= 0.0;
    let Some(first_cut) = (0..side_count).find(|&k| !outs[k][..given.len()].iter().all(inside))
    else {
        given.iter().for_each(|&p| found(p));
        return;
    };
    // From there on the polygon is `polygon[..len]`, clipped into
    // `clipped` by each side in turn (Sutherland-Hodgman); the two buffers
    // trade places by reference, not by copying them.
    let mut buffers = (face.points, [V::ZERO; MAX_OWNED_CLIP]);
    let (mut polygon, mut clipped) = (&mut buffers.0, &mut buffers.1);
    let mut len = given.len();
    let mut recomputed = [0.0; MAX_OWNED_CLIP];
    for k in first_cut..side_count {
        let out = if k == first_cut {
            &outs[first_cut]
        } else {
            let (on, outward) = sides.side(k);
            for (o, &p) in recomputed.iter_mut().zip(&polygon[..len]) {
                *o = (p - on).dot(outward);
            }
            // Wholly inside, the polygon is kept as it is; wholly
            // outside, it is gone.
            if recomputed[..len].iter().all(|&o| o <= 0.0) {
                continue;
            }
            if recomputed[..len].iter().all(|&o| o > 0.0) {
                return;
            }
            &recomputed
        };
        let mut count = 0;
        let mut keep = |p: V| {
            if count < MAX_OWNED_CLIP {
                clipped[count] = p;
                count += 1;
            }
        };
        // A segment is clipped as one edge, not as a closed polygon (which
        // would cross a side twice on one line); a point is its own edge.
        if len <= 2 {
            let (a, b) = (polygon[0], polygon[len - 1]);
            let (da, db) = (out[0], out[len - 1]);
            if da <= 0.0 {
                keep(a);
            }
            if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
                keep(a + (b - a) * (da / (da - db)));
            }
            if len == 2 && db <= 0.0 {
                keep(b);
            }
        } else {
            for i in 0..len {
                let j = if i + 1 == len { 0 } else { i + 1 };
                let (a, b) = (polygon[i], polygon[j]);
                let (da, db) = (out[i], out[j]);
                if da <= 0.0 {
                    keep(a);
                }
                if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
                    keep(a + (b - a) * (da / (da - db)));
                }
            }
        }
        core::mem::swap(&mut polygon, &mut clipped);
        len = count;
        if len == 0 {
            return;
        }
    }
    polygon[..len].iter().for_each(|&p| found(p));
}

/// The word a facet's fingerprint feeds for each kind of [`Join`]: any
/// values, as long as they differ.
const JOIN_FREE_TAG: u32 = 1;
const JOIN_CONVEX_TAG: u32 = 2;
const JOIN_INACTIVE_TAG: u32 = 3;

/// What lies across one boundary feature of a facet.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Join<V> {
    /// Nothing: the surface ends here.
    Free,
    /// A neighbour that turns away from the front; its front normal.
    Convex(V),
    /// A neighbour level with the facet or turning towards its front.
    Inactive,
}

/// Where on a facet a point lies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FacetFeature {
    /// Inside, away from every boundary feature.
    Interior,
    /// On boundary feature `k` (2D: end `k`; 3D: edge `k`, from corner `k`
    /// to corner `k + 1`).
    Boundary(usize),
    /// 3D: on corner `k`, where edges `k - 1` and `k` meet.
    Corner(usize),
}

/// One facet: a segment (2D, two corners) or a triangle (3D, three corners,
/// counter-clockwise seen from the front), in its surface's frame.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound(deserialize = "V: serde::Deserialize<'de> + Default"))
)]
#[repr(C)]
pub struct Facet<V> {
    /// Corners, metres; in 2D the third repeats the second.
    pub(crate) corners: [V; 3],
    /// Unit normal of the front (the side bodies are kept on).
    pub(crate) normal: V,
    /// The outward normals of the sides of the region the facet owns
    /// ([`Self::owned_outwards`]), kept by the surface that holds the facet
    /// once its joins are known (`Surface::owned_sides` reads them, every
    /// step for every facet near a body; not saved). Zero until then.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) owned: [V; 3],
    /// [`Self::is_smooth`], kept with `owned` (false until then).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) smooth: bool,
    /// [`Self::has_gentle_join`], kept with `owned` (false until then).
    /// The fields above are all a body meeting the facet on its face reads
    /// (`OverFacets::smooth_contacts`): `repr(C)` keeps them together,
    /// ahead of the joins, in two cache lines rather than three.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) gentle: bool,
    /// What lies across each boundary feature (2D: the first two).
    pub(crate) joins: [Join<V>; 3],
}

/// The dimension-specific geometry of facets: [`crate::shape::ShapeDim`] provides it.
pub trait FacetGeometry: Vector {
    /// Corners a facet has: 2 (segment) or 3 (triangle).
    const FACET_CORNERS: usize;
    /// The front normal of the facet with these corners (2D: the right of
    /// the segment's direction, as Box2D's chains; 3D: counter-clockwise
    /// corners face the viewer), or `None` when they span no length or area.
    fn facet_normal(corners: &[Self; 3]) -> Option<Self>;
    /// Where `p` (on or near the facet's plane) lies on it, features within
    /// `tolerance` metres counting as hit.
    fn facet_feature(corners: &[Self; 3], p: Self, tolerance: f32) -> FacetFeature;
    /// How far inside the facet's boundary `p` lies, measured in the
    /// facet's line or plane, metres: negative outside.
    fn inside_distance(corners: &[Self; 3], p: Self) -> f32;
    /// A point on boundary feature `k` and the unit direction, in the
    /// facet's line or plane, pointing out of the facet across it; the
    /// facet's front normal is `normal`.
    fn boundary_plane(corners: &[Self; 3], normal: Self, k: usize) -> (Self, Self);
    /// The unit direction of boundary feature `k` (3D: edge `k`); `None`
    /// in 2D, where a boundary feature is a point.
    fn boundary_axis(corners: &[Self; 3], k: usize) -> Option<Self>;
}

impl<V: FacetGeometry> Facet<V> {
    /// Feeds `eat` the bits of the facet's corners, normal and joins
    /// ([`Shape::fingerprint`](super::Shape::fingerprint)); what it keeps
    /// beside follows from those.
    pub(crate) fn fingerprint(&self, eat: &mut dyn FnMut(u32)) {
        let vector = super::fingerprint_vector::<V>;
        for &corner in &self.corners {
            vector(corner, eat);
        }
        vector(self.normal, eat);
        for join in &self.joins {
            match *join {
                Join::Free => eat(JOIN_FREE_TAG),
                Join::Convex(normal) => {
                    eat(JOIN_CONVEX_TAG);
                    vector(normal, eat);
                }
                Join::Inactive => eat(JOIN_INACTIVE_TAG),
            }
        }
    }

    /// The facet with these corners (only the first `FACET_CORNERS` are
    /// read) and free borders, or `None` when it spans no length or area.
    pub(crate) fn new(corners: [V; 3]) -> Option<Self> {
        let mut corners = corners;
        if V::FACET_CORNERS == 2 {
            corners[2] = corners[1];
        }
        Some(Self {
            normal: V::facet_normal(&corners)?,
            corners,
            joins: [Join::Free; 3],
            owned: [V::ZERO; 3],
            smooth: false,
            gentle: false,
        })
    }

    /// The corners in use.
    pub fn corners(&self) -> &[V] {
        &self.corners[..V::FACET_CORNERS]
    }

    /// The front's unit normal.
    pub fn normal(&self) -> V {
        self.normal
    }

    /// What lies across each boundary feature.
    pub fn joins(&self) -> &[Join<V>] {
        &self.joins[..V::FACET_CORNERS]
    }

    /// True when `p`, seen along the normal, lies on the facet (its
    /// boundary included).
    pub fn covers(&self, p: V) -> bool {
        V::inside_distance(&self.corners, p) >= 0.0
    }

    /// True when join `k` is convex and gentle ([`GENTLE_JOIN_COSINE`]).
    pub(crate) fn is_gentle(&self, k: usize) -> bool {
        matches!(self.joins[k], Join::Convex(other) if self.normal.dot(other) >= GENTLE_JOIN_COSINE)
    }

    /// True when no boundary of the facet needs a query: each join is
    /// inactive or gentle, so every contact the facet makes is on its face
    /// (`narrow_phase::surface`).
    pub(crate) fn is_smooth(&self) -> bool {
        (0..V::FACET_CORNERS).all(|k| matches!(self.joins[k], Join::Inactive) || self.is_gentle(k))
    }

    /// True when some join of the facet is gentle.
    pub(crate) fn has_gentle_join(&self) -> bool {
        (0..V::FACET_CORNERS).any(|k| self.is_gentle(k))
    }

    /// The outward unit normal of the side of the region over the facet
    /// that it owns at boundary `k` (the side runs through the boundary's
    /// first corner). Across a gentle join the side is the plane halfway
    /// between the facet and its neighbour (the plane through the edge
    /// along their mean normal), so the facet and its neighbour share the
    /// space over the ridge with no gap between them; elsewhere it is the
    /// boundary's plane across the facet (`FacetGeometry::boundary_plane`).
    fn owned_outward(&self, k: usize) -> V {
        let (_, outward) = V::boundary_plane(&self.corners, self.normal, k);
        match self.joins[k] {
            Join::Convex(other) if self.normal.dot(other) >= GENTLE_JOIN_COSINE => {
                let mean = self.normal + other;
                let mean = mean * (1.0 / mean.length());
                let side = outward - mean * outward.dot(mean);
                let length = side.length();
                if length > 0.0 {
                    side * (1.0 / length)
                } else {
                    outward
                }
            }
            _ => outward,
        }
    }

    /// Each boundary's owned side's outward normal
    /// ([`Self::owned_outward`]), in boundary order (2D: the first two; the
    /// third is zero). A surface keeps them for its facets
    /// (`Surface::owned_sides`).
    pub(crate) fn owned_outwards(&self) -> [V; 3] {
        let mut outwards = [V::ZERO; 3];
        for (k, outward) in outwards.iter_mut().take(V::FACET_CORNERS).enumerate() {
            *outward = self.owned_outward(k);
        }
        outwards
    }

    /// The sides of the region the facet owns, given their outward normals
    /// ([`Self::owned_outwards`]): each runs through its boundary's first
    /// corner.
    pub(crate) fn owned_sides_from<'a>(&'a self, outwards: &'a [V; 3]) -> OwnedSides<'a, V> {
        OwnedSides {
            corners: &self.corners,
            outwards,
            len: V::FACET_CORNERS,
        }
    }

    /// Signed distance of `p` from the facet's plane, metres, positive in front.
    pub fn height_of(&self, p: V) -> f32 {
        (p - self.corners[0]).dot(self.normal)
    }

    /// The normal a contact at `point` (on the facet) with normal `normal`
    /// (unit, pointing from the facet to the other shape) has on the smooth
    /// surface the facet belongs to (module docs, step 2): `normal` itself
    /// where the facet's solid corner is there; the facet's own normal
    /// inside it, on an inactive join, or beyond the arc on its own side;
    /// `None` beyond the arc on the neighbour's side, where the contact is
    /// the neighbour's to make.
    pub fn smoothed_normal(&self, point: V, normal: V, tolerance: f32) -> Option<V> {
        let own = self.normal;
        if normal.dot(own) >= OWN_NORMAL_COSINE {
            return Some(normal);
        }
        let across = |k: usize| match self.joins[k] {
            Join::Free => Some(normal),
            Join::Inactive => Some(own),
            Join::Convex(other) => {
                // Seen along the edge (3D), the normal must lie on the arc
                // from the facet's normal to the neighbour's.
                let n = match V::boundary_axis(&self.corners, k) {
                    Some(axis) => {
                        let across = normal - axis * normal.dot(axis);
                        let length = across.length();
                        if length <= 0.0 {
                            return Some(own);
                        }
                        across * (1.0 / length)
                    }
                    None => normal,
                };
                let spread = own.dot(other);
                if n.dot(own) >= spread && n.dot(other) >= spread {
                    Some(normal)
                } else if n.dot(other) > n.dot(own) {
                    None
                } else {
                    Some(own)
                }
            }
        };
        match V::facet_feature(&self.corners, point, tolerance) {
            FacetFeature::Interior => Some(own),
            FacetFeature::Boundary(k) => across(k),
            FacetFeature::Corner(k) => {
                let before = (k + V::FACET_CORNERS - 1) % V::FACET_CORNERS;
                let inactive = |j: usize| matches!(self.joins[j], Join::Inactive);
                if inactive(k) && inactive(before) {
                    Some(own)
                } else {
                    Some(normal)
                }
            }
        }
    }
}

impl<V: FacetGeometry> SupportMap<V> for Facet<V> {
    #[inline]
    fn support(&self, dir: V) -> V {
        let mut best = self.corners[0];
        let mut best_dot = best.dot(dir);
        for &c in &self.corners[1..V::FACET_CORNERS] {
            let d = c.dot(dir);
            if d > best_dot {
                best = c;
                best_dot = d;
            }
        }
        best
    }
}

/// The join between a facet with front normal `own` and a neighbour with
/// front normal `other` whose far corner (the one not on the shared
/// feature) lies `far_height` metres in front of the facet's plane.
pub(crate) fn join_between<V: Vector>(own: V, other: V, far_height: f32) -> Join<V> {
    if own.dot(other) >= FLAT_JOIN_COSINE || far_height >= 0.0 {
        Join::Inactive
    } else {
        Join::Convex(other)
    }
}

mod geometry {
    use super::{FacetFeature, FacetGeometry};
    use glam::{Vec2, Vec3};

    impl FacetGeometry for Vec2 {
        const FACET_CORNERS: usize = 2;

        fn facet_normal(corners: &[Vec2; 3]) -> Option<Vec2> {
            let d = corners[1] - corners[0];
            let length = d.length();
            (length > 0.0 && length.is_finite()).then(|| Vec2::new(d.y, -d.x) / length)
        }

        fn facet_feature(corners: &[Vec2; 3], p: Vec2, tolerance: f32) -> FacetFeature {
            let d = corners[1] - corners[0];
            let along = (p - corners[0]).dot(d) / d.length();
            if along <= tolerance {
                FacetFeature::Boundary(0)
            } else if along >= d.length() - tolerance {
                FacetFeature::Boundary(1)
            } else {
                FacetFeature::Interior
            }
        }

        fn inside_distance(corners: &[Vec2; 3], p: Vec2) -> f32 {
            let d = corners[1] - corners[0];
            let length = d.length();
            let along = (p - corners[0]).dot(d) / length;
            along.min(length - along)
        }

        fn boundary_plane(corners: &[Vec2; 3], _normal: Vec2, k: usize) -> (Vec2, Vec2) {
            let (on, other) = if k == 0 {
                (corners[0], corners[1])
            } else {
                (corners[1], corners[0])
            };
            (on, (on - other).normalize_or_zero())
        }

        fn boundary_axis(_corners: &[Vec2; 3], _k: usize) -> Option<Vec2> {
            None
        }
    }

    impl FacetGeometry for Vec3 {
        const FACET_CORNERS: usize = 3;

        fn facet_normal(corners: &[Vec3; 3]) -> Option<Vec3> {
            let n = (corners[1] - corners[0]).cross(corners[2] - corners[0]);
            let length = n.length();
            (length > 0.0 && length.is_finite()).then(|| n / length)
        }

        fn facet_feature(corners: &[Vec3; 3], p: Vec3, tolerance: f32) -> FacetFeature {
            // Distance of `p` inside each edge, measured in the plane.
            let normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]);
            let inside = |k: usize| {
                let (a, b) = (corners[k], corners[(k + 1) % 3]);
                let edge = b - a;
                let inward = normal.cross(edge).normalize_or_zero();
                (p - a).dot(inward)
            };
            let on = [
                inside(0) <= tolerance,
                inside(1) <= tolerance,
                inside(2) <= tolerance,
            ];
            match on {
                [true, _, true] => FacetFeature::Corner(0),
                [true, true, _] => FacetFeature::Corner(1),
                [_, true, true] => FacetFeature::Corner(2),
                [true, false, false] => FacetFeature::Boundary(0),
                [false, true, false] => FacetFeature::Boundary(1),
                [false, false, true] => FacetFeature::Boundary(2),
                [false, false, false] => FacetFeature::Interior,
            }
        }

        fn inside_distance(corners: &[Vec3; 3], p: Vec3) -> f32 {
            let normal = (corners[1] - corners[0]).cross(corners[2] - corners[0]);
            (0..3)
                .map(|k| {
                    let (a, b) = (corners[k], corners[(k + 1) % 3]);
                    let inward = normal.cross(b - a).normalize_or_zero();
                    (p - a).dot(inward)
                })
                .fold(f32::INFINITY, f32::min)
        }

        fn boundary_plane(corners: &[Vec3; 3], normal: Vec3, k: usize) -> (Vec3, Vec3) {
            let (a, b) = (corners[k], corners[(k + 1) % 3]);
            (a, (b - a).cross(normal).normalize_or_zero())
        }

        fn boundary_axis(corners: &[Vec3; 3], k: usize) -> Option<Vec3> {
            Some((corners[(k + 1) % 3] - corners[k]).normalize_or_zero())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::{Vec2, Vec3};

    fn flat_triangle() -> Facet<Vec3> {
        Facet::new([Vec3::ZERO, Vec3::new(0.0, 0.0, 1.0), Vec3::X]).unwrap()
    }

    /// Plain Sutherland-Hodgman: `points` clipped to each side in turn,
    /// every side read for every point, a segment clipped as one edge.
    fn clipped_plainly(sides: &OwnedSides<'_, Vec3>, points: &[Vec3]) -> Vec<Vec3> {
        let mut polygon = points.to_vec();
        for k in 0..sides.len {
            let (on, outward) = sides.side(k);
            let out: Vec<f32> = polygon.iter().map(|&p| (p - on).dot(outward)).collect();
            let n = polygon.len();
            let mut next = Vec::new();
            for i in 0..if n == 2 { 1 } else { n } {
                let j = (i + 1) % n;
                let (a, b, da, db) = (polygon[i], polygon[j], out[i], out[j]);
                if da <= 0.0 {
                    next.push(a);
                }
                if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
                    next.push(a + (b - a) * (da / (da - db)));
                }
                if n == 2 && db <= 0.0 {
                    next.push(b);
                }
            }
            next.truncate(MAX_OWNED_CLIP);
            polygon = next;
        }
        polygon
    }

    #[test]
    fn clipping_to_owned_sides_gives_the_plain_clip_bit_for_bit() {
        // A xorshift generator: faces of 1 to 8 corners (a point, a
        // segment, regular polygons) around a facet with tilted sides,
        // inside, across and beside it.
        let mut state = 0x9e37_79b9_u32;
        let mut range = |low: f32, high: f32| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            low + (high - low) * (state >> 8) as f32 / (1u32 << 24) as f32
        };
        let facet = flat_triangle();
        let outwards = [
            Vec3::new(0.05, 0.02, -1.0).normalize(),
            Vec3::new(-1.0, -0.03, 0.0).normalize(),
            Vec3::new(0.7, 0.04, 0.7).normalize(),
        ];
        let sides = facet.owned_sides_from(&outwards);
        let (mut cut, mut empty) = (0, 0);
        for _ in 0..20_000 {
            let count = 1 + (range(0.0, 8.0) as usize).min(7);
            let (cx, cz, half) = (range(-0.5, 1.5), range(-0.5, 1.5), range(0.05, 0.8));
            let turn = range(0.0, 6.0);
            let face: Vec<Vec3> = (0..count)
                .map(|i| {
                    let angle = turn + i as f32 * core::f32::consts::TAU / count as f32;
                    let (sin, cos) = (libm::sinf(angle), libm::cosf(angle));
                    Vec3::new(cx + half * cos, range(-0.1, 0.1), cz + half * sin)
                })
                .collect();
            let mut found = Vec::new();
            clip_to_sides(&sides, &ClipFace::new(face.iter().copied()), &mut |p| {
                found.push(p)
            });
            let plain = clipped_plainly(&sides, &face);
            let bits = |v: &[Vec3]| {
                v.iter()
                    .map(|p| p.to_array().map(f32::to_bits))
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&found), bits(&plain), "face {face:?}");
            // A point is kept exactly where the sides contain it, which is
            // how `OverFacets::smooth_contacts` tests one.
            if let [point] = face[..] {
                assert_eq!(found.len(), usize::from(sides.contain(point)), "{point}");
            }
            cut += usize::from(!found.is_empty() && found.len() != face.len());
            empty += usize::from(found.is_empty());
        }
        assert!(cut > 2_000 && empty > 2_000, "cut {cut}, empty {empty}");
    }

    #[test]
    fn front_normals_follow_the_corner_order() {
        assert!((flat_triangle().normal() - Vec3::Y).length() < 1e-6);
        let segment = Facet::new([Vec2::ZERO, Vec2::new(-1.0, 0.0), Vec2::ZERO]).unwrap();
        assert!((segment.normal() - Vec2::Y).length() < 1e-6);
        assert!(Facet::new([Vec3::ZERO, Vec3::X, Vec3::X * 2.0]).is_none());
    }

    #[test]
    fn a_contact_on_an_inactive_edge_takes_the_face_normal() {
        let mut t = flat_triangle();
        // Edge 2 runs from (1,0,0) back to the origin, along -X at z = 0.
        let on_edge = Vec3::new(0.5, 0.0, 0.0);
        let sideways = Vec3::new(0.0, 0.0, -1.0);
        assert_eq!(t.smoothed_normal(on_edge, sideways, 1e-5), Some(sideways));
        t.joins[2] = Join::Inactive;
        assert_eq!(t.smoothed_normal(on_edge, sideways, 1e-5), Some(Vec3::Y));
        // A convex join keeps normals between the two faces' only; beyond
        // the neighbour's normal the contact is the neighbour's.
        let down_slope = Vec3::new(0.0, 1.0, -1.0).normalize();
        t.joins[2] = Join::Convex(down_slope);
        let between = Vec3::new(0.0, 1.0, -0.3).normalize();
        assert_eq!(t.smoothed_normal(on_edge, between, 1e-5), Some(between));
        assert_eq!(t.smoothed_normal(on_edge, sideways, 1e-5), None);
        let back_over = Vec3::new(0.0, 0.2, 1.0).normalize();
        assert_eq!(t.smoothed_normal(on_edge, back_over, 1e-5), Some(Vec3::Y));
        // Inside the facet every contact takes the face normal.
        let inside = Vec3::new(0.3, 0.0, 0.3);
        assert_eq!(t.smoothed_normal(inside, between, 1e-5), Some(Vec3::Y));
    }

    #[test]
    fn joins_are_convex_only_when_the_neighbour_turns_away() {
        let up = Vec3::Y;
        let tilted = Vec3::new(0.0, 1.0, 0.2).normalize();
        assert_eq!(join_between(up, tilted, -0.1), Join::Convex(tilted));
        assert_eq!(join_between(up, tilted, 0.1), Join::Inactive);
        assert_eq!(join_between(up, up, -0.0), Join::Inactive);
    }
}
