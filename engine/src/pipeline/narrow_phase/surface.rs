//! Contacts and casts against surfaces (meshes, heightfields, chains): the
//! same GJK and EPA as between convex shapes, one facet at a time.
//!
//! 1. A facet is a convex shape: `facet_query` runs the ordinary query
//!    between it and the other shape, in the other shape's frame.
//! 2. A ball or capsule meets it in closed form instead
//!    (`rounded_core_query`): the closest points of its core (a point or
//!    a segment) and the facet, grown by its radius, the same contact GJK
//!    finds for a few dot products; cores that cross or touch go to GJK and
//!    EPA, which measure the depth.
//! 3. One-sided: a shape whose inner point (`Shape::inner_point`: its
//!    centre, or a hull's vertex average) lies behind the facet's plane
//!    meets nothing there (Box2D's chains), so a body is never pulled through
//!    from behind, and a convex join's far facet (whose plane rises over
//!    its neighbour) stays out of a body resting on that neighbour.
//! 4. Smooth: the contact's normal is passed through
//!    [`Facet::smoothed_normal`]. Where it becomes the facet's own normal,
//!    the contact is measured again along it: the other shape's deepest
//!    point towards the facet's plane, and its separation from the plane.
//!    So a box sliding across the flat join of two triangles meets the
//!    second one's plane, not its edge (`tests/level_geometry.rs`).
//! 5. On the face: a facet whose active borders (free ones, convex joins
//!    bent more than gently) the shape does not reach is met without GJK
//!    (`facet_face`): its contacts are the shape's vertices over it near
//!    its plane or, where a join is gentle, the shape's face turned to it
//!    clipped to the region the facet owns. The smooth facets near a shape
//!    (`Facet::is_smooth`: no active border at all) are met together
//!    (`OverFacets::smooth_contacts`): grouped by normal, the shape's face
//!    found once per group and clipped to each, in the surface's frame.
//! 6. A whole surface (the public [`super::contact`] and the casts) is
//!    met facet by facet, through its BVH: the deepest contact, the
//!    nearest hit, with the facet's index.
//!
//! Limits: a surface against a surface meets nothing (the world never
//! pairs them: both are fixed or kinematic).

use super::cast::{ray_cast, shape_cast, CastHit};
use super::{
    grow_by_radii, query_local, NarrowPhaseDim, PairScale, PairView, Penetration, ShapeContact,
};
use crate::math::{Pose, Vector};
use crate::shape::OWN_NORMAL_COSINE;
use crate::shape::{
    clip_to_sides, ClipFace, Facet, FacetGeometry, Join, OwnedSides, Shape, ShapeKind, SupportMap,
    Surface,
};

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
    let inside = facet_in_convex.inverse_transform_point(convex.inner_point());
    if facet.height_of(inside) < 0.0 {
        return Err(0.0);
    }
    // The facet lies in its plane: the shape's height over the plane bounds
    // the pair's distance from below, for one support call.
    let front = facet_in_convex.transform_vector(facet.normal());
    let plane = facet_in_convex.transform_point(facet.corners()[0]);
    let over_plane = (convex.support(-front) - plane).dot(front);
    if over_plane > margin {
        return Err(over_plane);
    }
    let local = match rounded_core_query(convex, facet_shape, facet, facet_in_convex, margin) {
        Some(result) => result?,
        None => query_local(convex, facet_shape, facet_in_convex, margin, &mut ())?,
    };
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

/// The contact of a ball or capsule with `facet` in closed form, as
/// [`query_local`] would give it (module docs, step 2): the closest points
/// of the core (a point, or a segment along local Y) and the facet, then
/// grown by the radius. `None` for any other shape, and when the cores
/// are within the pair's tolerance of each other or cross (a capsule
/// through the facet): GJK reports such cores as overlapping and EPA
/// measures the depth, so they take that path. Worked in the facet's
/// frame, where its corners and normal are stored; the core point is
/// taken back in the convex frame exactly (its centre, or its point along
/// the axis). Guarded by
/// `a_ball_or_capsule_meets_a_facet_in_closed_form_as_gjk_and_epa_do`.
fn rounded_core_query<D: NarrowPhaseDim>(
    convex: &Shape<D>,
    facet_shape: &Shape<D>,
    facet: &Facet<D::Vector>,
    facet_in_convex: &Pose<D>,
    margin: f32,
) -> Option<Result<Penetration<D::Vector>, f32>> {
    let (half_height, radius) = match *convex.kind() {
        ShapeKind::Ball { radius } => (0.0, radius),
        ShapeKind::Capsule {
            half_height,
            radius,
        } => (half_height, radius),
        _ => return None,
    };
    let axis = D::Vector::unit_y();
    let centre = facet_in_convex.inverse_transform_point(D::Vector::ZERO);
    let half = facet_in_convex.inverse_transform_vector(axis * half_height);
    let ends = [centre - half, centre + half];
    let heights = ends.map(|e| facet.height_of(e));
    // A core crossing the facet's plane inside the facet overlaps it.
    if heights[0] * heights[1] <= 0.0 {
        let across = heights[0] - heights[1];
        if across == 0.0 {
            return None;
        }
        let crossing = ends[0] + (ends[1] - ends[0]) * (heights[0] / across);
        if facet.covers(crossing) {
            return None;
        }
    }
    // The closest pair is an end over the facet's inside, or the core
    // against a boundary edge; `along` is the core point's parameter from
    // `ends[0]` (0..1), `normal` points from the core to the facet.
    let mut best = (f32::INFINITY, 0.0, D::Vector::ZERO);
    let end_count = if half_height > 0.0 { 2 } else { 1 };
    let mut covered = [false; 2];
    for k in 0..end_count {
        covered[k] = facet.covers(ends[k] - facet.normal * heights[k]);
        if covered[k] && heights[k].abs() < best.0 {
            let normal = if heights[k] >= 0.0 {
                -facet.normal
            } else {
                facet.normal
            };
            best = (heights[k].abs(), k as f32, normal);
        }
    }
    covered[1] |= end_count == 1 && covered[0];
    // An end over the inside is nearer the facet than any edge is, so an
    // edge's pair at such an end is skipped: a rounding ulp made it win a
    // tie against the end's own pair, its normal 8e-4 off the facet's
    // (`a_ball_or_capsule_meets_a_facet_in_closed_form_as_gjk_and_epa_do`).
    // With both ends over the inside, the core's nearest point is an end.
    if !(covered[0] && covered[1]) {
        // The edges of a simplex with n corners: 1 for a segment, 3 for a
        // triangle.
        let corners = D::Vector::FACET_CORNERS;
        for k in 0..corners * (corners - 1) / 2 {
            let (from, to) = (facet.corners[k], facet.corners[(k + 1) % corners]);
            let closest = closest_between_segments(ends[0], ends[1], from, to);
            let at_covered_end =
                (closest.along == 0.0 && covered[0]) || (closest.along == 1.0 && covered[1]);
            if !at_covered_end && closest.distance < best.0 {
                best = (closest.distance, closest.along, closest.normal);
            }
        }
    }
    let (distance, along, normal) = best;
    if distance <= PairScale::new(convex, facet_shape).tolerance() {
        return None;
    }
    if distance - radius > margin {
        return Some(Err((distance - radius).max(0.0)));
    }
    let normal = facet_in_convex.transform_vector(normal);
    let on_core = axis * (half_height * (2.0 * along - 1.0));
    let core = Penetration {
        depth: -distance,
        normal,
        point_a: on_core,
        point_b: on_core + normal * distance,
        iterations: 0,
    };
    Some(Ok(grow_by_radii(core, radius, 0.0)))
}

/// The closest points of two segments (Ericson, *Real-Time Collision
/// Detection*, 5.1.9).
struct SegmentsClosest<V> {
    /// The first segment's parameter (0 at its start, 1 at its end).
    along: f32,
    /// Metres between the two points.
    distance: f32,
    /// Unit direction from the first segment's point to the second's,
    /// made exactly normal to each segment whose point lies inside it: for
    /// nearly parallel segments the points slide along them with rounding,
    /// which tilted the difference of the points by 1e-4 at 7 mm apart
    /// (`a_ball_or_capsule_meets_a_facet_in_closed_form_as_gjk_and_epa_do`);
    /// GJK likewise takes its closest feature's exact normal.
    normal: V,
}

/// The closest points of segments `p0..p1` and `q0..q1` (either may be a
/// point). Parallel segments give one pair of their closest set.
fn closest_between_segments<V: Vector>(p0: V, p1: V, q0: V, q1: V) -> SegmentsClosest<V> {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let (s, t) = if a <= 0.0 {
        (
            0.0,
            if e > 0.0 {
                (f / e).clamp(0.0, 1.0)
            } else {
                0.0
            },
        )
    } else if e <= 0.0 {
        ((-d1.dot(r) / a).clamp(0.0, 1.0), 0.0)
    } else {
        let (b, c) = (d1.dot(d2), d1.dot(r));
        let denominator = a * e - b * b;
        let s = if denominator > 0.0 {
            ((b * f - c * e) / denominator).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let t = (b * s + f) / e;
        if t < 0.0 {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else if t > 1.0 {
            (((b - c) / a).clamp(0.0, 1.0), 1.0)
        } else {
            (s, t)
        }
    };
    let gap = (q0 + d2 * t) - (p0 + d1 * s);
    let distance = gap.length();
    // Gram-Schmidt over the directions of the segments met inside.
    let inside = |x: f32| x > 0.0 && x < 1.0;
    let mut across = gap;
    let mut second = d2;
    if inside(s) {
        across -= d1 * (across.dot(d1) / a);
        second -= d1 * (second.dot(d1) / a);
    }
    let second_sq = second.length_squared();
    if inside(t) && second_sq > 0.0 {
        across -= second * (across.dot(second) / second_sq);
    }
    // A correction keeps most of the gap; one that does not (rounding of
    // a crossing pair) leaves the gap's own direction.
    let across_sq = across.length_squared();
    let direction = if across_sq > 0.25 * distance * distance {
        across * (1.0 / across_sq.sqrt())
    } else {
        gap * (1.0 / distance)
    };
    SegmentsClosest {
        along: s,
        distance,
        normal: direction,
    }
}

/// What a facet makes with the shape paired with it this step, found
/// without GJK where the facet's face alone decides it ([`facet_face`]).
pub(crate) enum FacetContact<D: NarrowPhaseDim> {
    /// Nothing within the margin; a lower bound on the distance, metres.
    Apart(f32),
    /// A contact on the facet's face, with this normal (world, from A to
    /// B); its points were handed over.
    Face(D::Vector),
    /// The shape reaches across an active boundary (a free border or a
    /// convex join), where the contact may be the boundary's: the full
    /// query decides.
    Query,
}

/// How far a vertex's height over a facet read in the shape's frame may be
/// from the same height read in the surface's frame, metres: a few ulps of
/// coordinates up to ten kilometres from the origin, with room to spare.
/// Vertices higher than the margin by more are skipped unread in the
/// surface's frame ([`OverFacets::face_points`]), so the rounding of the
/// shortcut never drops a point the exact test would keep.
const HEIGHT_ROUNDING: f32 = 1e-3;

/// The contact of `facet` with the shape `over` it, decided on the facet's
/// face where it can be:
/// 1. a shape whose inner point is behind the facet's plane, or whose deepest
///    point towards the plane is farther than `margin` from it, is apart
///    (the height over the plane bounds the distance from below);
/// 2. a shape that reaches across a boundary of the facet that is a free
///    border or a convex join needs the full query ([`FacetContact::Query`]);
/// 3. otherwise every contact the facet can make has its own normal
///    ([`Facet::smoothed_normal`] gives it inside the facet and on inactive
///    joins), and its points are the shape's vertices over the facet
///    within `margin` of its plane ([`OverFacets::face_points`]): a vertex
///    over a neighbour is the neighbour's to make. So a body on level
///    geometry costs a few dot products per facet, not GJK and EPA.
pub(crate) fn facet_face<D: NarrowPhaseDim>(
    over: &OverFacets<'_, D>,
    facet: &Facet<D::Vector>,
    sides: &OwnedSides<'_, D::Vector>,
    margin: f32,
    found: &mut impl FnMut(ShapeContact<D>),
) -> FacetContact<D> {
    if facet.height_of(over.inner) < 0.0 {
        return FacetContact::Apart(0.0);
    }
    let local = over.pose.inverse_transform_vector(-facet.normal);
    let top = over.shape.support(local);
    let height = facet.height_of(over.pose.transform_point(top));
    if height > margin {
        return FacetContact::Apart(height);
    }
    if over.reaches_active_boundary(facet, margin) {
        return FacetContact::Query;
    }
    let mut any = false;
    let clip = facet.has_gentle_join();
    over.face_points(facet, sides, margin, Some(top), clip, &mut |c| {
        any = true;
        found(c);
    });
    if any {
        FacetContact::Face(over.normal(facet))
    } else {
        FacetContact::Apart(0.0)
    }
}

/// The contacts of a facet met on its face (the contact `normal`, world,
/// from A to B, is the facet's own): the other shape's vertices over the
/// facet within `margin` of its plane, each grown by the shape's radius
/// (perturbation without a query per tilt). False, having found nothing,
/// when the pair is no facet met on its face.
pub(crate) fn face_contacts<D: NarrowPhaseDim>(
    pair: &PairView<'_, D>,
    normal: D::Vector,
    margin: f32,
    found: &mut impl FnMut(ShapeContact<D>),
) -> bool {
    let Some((over, facet)) = OverFacets::of_pair(pair) else {
        return false;
    };
    if normal.dot(over.normal(facet)) < OWN_NORMAL_COSINE {
        return false;
    }
    // The shape reaches across a free border or a convex join here (else
    // the facet would have been met on its face alone): its face is
    // clipped to the facet's region, so the points where it crosses the
    // border are kept with its corners over the facet. A box sliding off
    // a ledge then rests on its corners and the ledge's edge every step
    // (`a_box_sliding_off_a_ledge_tips_only_once_its_centre_is_past_it`).
    let outwards = facet.owned_outwards();
    over.face_points(
        facet,
        &facet.owned_sides_from(&outwards),
        margin,
        None,
        true,
        found,
    );
    true
}

/// The buffers [`OverFacets::smooth_contacts`] fills (kept by the caller
/// for their allocations).
#[derive(Clone, Debug, Default)]
pub(crate) struct FaceScratch<V> {
    /// Which facets have joined a group.
    taken: Vec<bool>,
    /// A group's face, surface frame: each part's corners and their count.
    parts: Vec<ClipFace<V>>,
}

/// The convex shape paired with a surface, in the surface's frame, where
/// the facets' corners and normals are stored: what the face tests of one
/// pair's facets ([`facet_face`]) read of the shape, put in that frame once
/// for all of them, so that a facet's test composes no poses.
pub(crate) struct OverFacets<'a, D: NarrowPhaseDim> {
    shape: &'a Shape<D>,
    /// The shape's pose in the surface's frame.
    pose: Pose<D>,
    /// The surface's pose, world: contacts are handed over in world space.
    surface_pose: Pose<D>,
    /// The shape's inner point (`Shape::inner_point`), surface frame.
    inner: D::Vector,
    /// True when the surface (its facets) is the pair's A.
    surface_is_a: bool,
}

impl<'a, D: NarrowPhaseDim> OverFacets<'a, D> {
    /// `shape` at `shape_pose` over the surface at `surface_pose` (both
    /// world); `surface_is_a` says which side of the pair the surface is.
    pub(crate) fn new(
        shape: &'a Shape<D>,
        shape_pose: &Pose<D>,
        surface_pose: &Pose<D>,
        surface_is_a: bool,
    ) -> Self {
        let pose = surface_pose.inv_mul(shape_pose);
        Self {
            shape,
            pose,
            surface_pose: *surface_pose,
            inner: pose.transform_point(shape.inner_point()),
            surface_is_a,
        }
    }

    /// The facet of `pair` and the shape over it, when one side is a facet
    /// and the other is not.
    pub(crate) fn of_pair(pair: &'a PairView<'a, D>) -> Option<(Self, &'a Facet<D::Vector>)> {
        match (pair.shape_a.kind(), pair.shape_b.kind()) {
            (ShapeKind::Facet(_), ShapeKind::Facet(_)) => None,
            (ShapeKind::Facet(f), _) => {
                Some((Self::new(pair.shape_b, &pair.pose_b, &pair.pose_a, true), f))
            }
            (_, ShapeKind::Facet(f)) => Some((
                Self::new(pair.shape_a, &pair.pose_a, &pair.pose_b, false),
                f,
            )),
            _ => None,
        }
    }

    /// The facet's own contact normal, world, from A to B.
    fn normal(&self, facet: &Facet<D::Vector>) -> D::Vector {
        let front = self.surface_pose.transform_vector(facet.normal);
        if self.surface_is_a {
            front
        } else {
            -front
        }
    }

    /// True when the shape reaches across, or to within `margin` of, a
    /// boundary of `facet` that is neither an inactive join nor a gentle
    /// one (`Facet::is_gentle`: the face's points clipped to the facet's
    /// side of it stand for the join, [`Self::face_points`]).
    fn reaches_active_boundary(&self, facet: &Facet<D::Vector>, margin: f32) -> bool {
        (0..D::Vector::FACET_CORNERS).any(|k| {
            if matches!(facet.joins[k], Join::Inactive) || facet.is_gentle(k) {
                return false;
            }
            let (on, outward) = D::Vector::boundary_plane(&facet.corners, facet.normal, k);
            let local = self.pose.inverse_transform_vector(outward);
            let farthest = self.pose.transform_point(self.shape.support(local));
            (farthest - on).dot(outward) > -margin
        })
    }

    /// The corners of `face` (a part of the shape's core face, local frame)
    /// in the surface's frame, ready to be clipped (the first
    /// `MAX_OWNED_CLIP` of them, as [`ClipFace`] keeps them).
    fn placed(&self, face: &[D::Vector]) -> ClipFace<D::Vector> {
        ClipFace::new(face.iter().map(|&v| self.pose.transform_point(v)))
    }

    /// The contact at `on_facet` (a point of the core, surface frame) with
    /// `facet`, the point grown by `radius` towards its plane, if within
    /// `margin` of it. `world` keeps the facet's front and contact normal,
    /// world, once a contact needs them (most facets near a body make none).
    fn contact_on(
        &self,
        facet: &Facet<D::Vector>,
        on_facet: D::Vector,
        radius: f32,
        margin: f32,
        world: &mut Option<(D::Vector, D::Vector)>,
    ) -> Option<ShapeContact<D>> {
        let height = facet.height_of(on_facet) - radius;
        if height > margin {
            return None;
        }
        let (front, normal) = *world.get_or_insert_with(|| {
            let front = self.surface_pose.transform_vector(facet.normal);
            (front, if self.surface_is_a { front } else { -front })
        });
        let point = self.surface_pose.transform_point(on_facet) - front * radius;
        let foot = point - front * height;
        let (point_a, point_b) = if self.surface_is_a {
            (foot, point)
        } else {
            (point, foot)
        };
        Some(ShapeContact {
            depth: -height,
            normal,
            point_a,
            point_b,
        })
    }

    /// The contacts of the shape with the smooth facets `facets` of
    /// `surface` (`Facet::is_smooth`: no join of theirs needs a query),
    /// each handed to `found` with its facet's index and contact normal
    /// (world, from A to B). The facets are grouped by normal: each joins
    /// the first group, in the order given, whose first facet's normal is
    /// within `group_cosine` of its own, or starts one. The shape's core
    /// face turned to a group's first facet is found once, put in the
    /// surface's frame, and clipped to each facet of the group (to the
    /// region it owns, `Facet::owned_sides_from`); its points within `margin` of
    /// the facet's plane, grown by the shape's radius, are the facet's
    /// contacts, as [`Self::face_points`] finds them for one facet. A
    /// facet the shape's inner point is behind makes none (one-sided).
    /// Most facets near a body lie beside it, and the clipping rules them
    /// out for a few dot products each.
    pub(crate) fn smooth_contacts(
        &self,
        surface: &Surface<D>,
        facets: &[u32],
        margin: f32,
        group_cosine: f32,
        scratch: &mut FaceScratch<D::Vector>,
        found: &mut impl FnMut(u32, D::Vector, ShapeContact<D>),
    ) {
        let radius = self.shape.radius();
        let all = surface.facets();
        scratch.taken.clear();
        scratch.taken.resize(facets.len(), false);
        for first in 0..facets.len() {
            if scratch.taken[first] {
                continue;
            }
            let key = all[facets[first] as usize].normal;
            // The group's face, surface frame, a polygon per part (a
            // hull's face comes as its triangles).
            scratch.parts.clear();
            let towards = self.pose.inverse_transform_vector(-key);
            let top = self.shape.support(towards);
            self.shape.for_each_support_face(towards, top, &mut |face| {
                scratch.parts.push(self.placed(face));
            });
            for (k, &index) in facets.iter().enumerate().skip(first) {
                let facet = &all[index as usize];
                if scratch.taken[k] || facet.normal.dot(key) < group_cosine {
                    continue;
                }
                scratch.taken[k] = true;
                if facet.height_of(self.inner) < 0.0 {
                    continue;
                }
                let sides = surface.owned_sides(index);
                let mut world = None;
                let mut contact = |on_facet| {
                    if let Some(c) = self.contact_on(facet, on_facet, radius, margin, &mut world) {
                        found(index, c.normal, c);
                    }
                };
                for part in &scratch.parts {
                    if let [point] = part.points() {
                        // A point (a ball's core, a capsule's end) clipped
                        // to the sides is itself where it is inside them
                        // all, or nothing: tested so, without the clip's
                        // set-up (`clipping_to_owned_sides_gives_the_plain_clip_bit_for_bit`).
                        if sides.contain(*point) {
                            contact(*point);
                        }
                    } else if facet.gentle {
                        clip_to_sides(&sides, part, &mut contact);
                    } else {
                        // Across a flat or concave join the face's points
                        // between its corners lie no lower than they do:
                        // its corners over the facet stand for it.
                        for &corner in part.points() {
                            if sides.contain(corner) {
                                contact(corner);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The shape's core vertices over `facet`, each grown by the shape's
    /// radius towards the plane, within `margin` of it, as contacts.
    /// With `clip` (the facet has a gentle join, or the shape reaches
    /// across a free border), the points are instead those of the core's
    /// face turned to the facet clipped to `sides`, the region the facet
    /// owns (`Facet::owned_sides_from`: across a gentle join, up to the
    /// plane halfway to the neighbour; at a free border, up to the border):
    /// a box lying across a gentle ridge rests on the ridge, not on its
    /// corners sunk to the two slopes
    /// (`a_box_tipped_off_a_ridge_rests_on_its_slope_as_on_a_tilted_box`,
    /// `a_box_rests_on_a_gently_rounded_hill_as_on_its_tangent_plane`),
    /// and a box over a ledge on the ledge's edge. `top`: the shape's
    /// support towards the facet, local frame, where the caller has it.
    fn face_points(
        &self,
        facet: &Facet<D::Vector>,
        sides: &OwnedSides<'_, D::Vector>,
        margin: f32,
        top: Option<D::Vector>,
        clip: bool,
        found: &mut impl FnMut(ShapeContact<D>),
    ) {
        let radius = self.shape.radius();
        let front = facet.normal;
        let mut world = None;
        let mut contact = |on_facet: D::Vector| {
            if let Some(c) = self.contact_on(facet, on_facet, radius, margin, &mut world) {
                found(c);
            }
        };
        if clip {
            let towards = self.pose.inverse_transform_vector(-front);
            let top = top.unwrap_or_else(|| self.shape.support(towards));
            self.shape.for_each_support_face(towards, top, &mut |face| {
                clip_to_sides(sides, &self.placed(face), &mut contact);
            });
            // The face turned to the facet holds the core's vertex nearest
            // it, and every other vertex lies higher.
            return;
        }
        // With no gentle join, the owned region is the facet's own: a
        // vertex over it is inside its sides. Each vertex's height is first
        // read in the shape's frame, one dot, which rules out most of them
        // before they are put in the surface's frame.
        let up = self.pose.inverse_transform_vector(front);
        let origin_height = facet.height_of(self.pose.translation);
        self.shape.for_each_core_vertex(|vertex| {
            if origin_height + up.dot(vertex) - radius > margin + HEIGHT_ROUNDING {
                return;
            }
            let on_facet = self.pose.transform_point(vertex);
            if facet.height_of(on_facet) - radius <= margin && sides.contain(on_facet) {
                contact(on_facet);
            }
        });
    }
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
    // The moving shape's inner point, surface frame.
    let inner = moving.map(|m| local_start.transform_point(m.inner_point()));
    let cast_facet = |i: u32| -> Option<CastHit<D>> {
        let facet = surface.facets()[i as usize];
        // Only the front is met, as in contacts: moving towards it, and by
        // a shape whose inner point is not behind its plane
        // (`a_ball_cast_from_behind_a_floor_mesh_does_not_hit_it`).
        if local_direction.dot(facet.normal()) >= 0.0
            || inner.is_some_and(|p| facet.height_of(p) < 0.0)
        {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::D3;
    use glam::{Quat, Vec3};

    /// A large facet facing +Y whose long edge runs along x + z = 0, its
    /// joins inactive (as inside a flat mesh): it lies where x + z <= 0.
    fn half_plane_facet() -> Facet<Vec3> {
        let mut facet = Facet::new([
            Vec3::new(-10.0, 0.0, -10.0),
            Vec3::new(-10.0, 0.0, 10.0),
            Vec3::new(10.0, 0.0, -10.0),
        ])
        .unwrap();
        facet.joins = [Join::Inactive; 3];
        facet
    }

    fn face_of(facet: Facet<Vec3>, shape: &Shape<D3>, at: Pose<D3>) -> (bool, Vec<Vec3>) {
        let facet_shape = Shape::facet(facet);
        let pair = PairView {
            shape_a: &facet_shape,
            pose_a: Pose::new(Vec3::ZERO, Quat::IDENTITY),
            shape_b: shape,
            pose_b: at,
        };
        let mut points = Vec::new();
        let (over, facet) = OverFacets::of_pair(&pair).unwrap();
        let outwards = facet.owned_outwards();
        let face = facet_face(
            &over,
            facet,
            &facet.owned_sides_from(&outwards),
            0.02,
            &mut |c: ShapeContact<D3>| points.push(c.point_b),
        );
        (
            matches!(face, FacetContact::Face(n) if n == Vec3::Y),
            points,
        )
    }

    /// A small deterministic generator (xorshift) for the oracle below.
    struct Rng(u32);

    impl Rng {
        /// Uniform in `low..high`.
        fn range(&mut self, low: f32, high: f32) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            low + (high - low) * (self.0 >> 8) as f32 / (1u32 << 24) as f32
        }
    }

    /// How many poses of the oracle below came out each way.
    #[derive(Debug, Default)]
    struct Tally {
        /// Both found a contact (compared).
        contacts: usize,
        /// Both found the pair apart.
        apart: usize,
        /// The closed form handed the pose to GJK and EPA.
        handed_over: usize,
    }

    /// The closed form against GJK and EPA for one pose.
    fn closed_form_agrees<D: NarrowPhaseDim>(
        convex: &Shape<D>,
        facet: Facet<D::Vector>,
        facet_in_convex: &Pose<D>,
        margin: f32,
        tally: &mut Tally,
    ) {
        let facet_shape = Shape::facet(facet);
        let oracle = query_local(convex, &facet_shape, facet_in_convex, margin, &mut ());
        let size = convex.bounding_radius().max(facet_shape.bounding_radius());
        let depth_tolerance = 1e-5 * size;
        let Some(closed) =
            rounded_core_query(convex, &facet_shape, &facet, facet_in_convex, margin)
        else {
            // Handed over only where the cores cross or touch.
            let core_depth = oracle.map_or(f32::NEG_INFINITY, |o| o.depth - convex.radius());
            assert!(core_depth >= -depth_tolerance, "handed over {oracle:?}");
            tally.handed_over += 1;
            return;
        };
        match (closed, oracle) {
            (Ok(c), Ok(o)) => {
                tally.contacts += 1;
                assert!(
                    (c.depth - o.depth).abs() <= depth_tolerance,
                    "depth {} against {}",
                    c.depth,
                    o.depth
                );
                assert!(
                    (c.normal - o.normal).length() <= 1e-4,
                    "normal {:?} against {:?}",
                    c.normal,
                    o.normal
                );
                let gap = c.point_a - c.point_b - c.normal * c.depth;
                assert!(gap.length() <= depth_tolerance, "witnesses off by {gap:?}");
            }
            (Err(c), Err(o)) => {
                tally.apart += 1;
                assert!(
                    o <= c + depth_tolerance,
                    "GJK's bound {o} above the distance {c}"
                );
            }
            (Ok(c), Err(_)) | (Err(_), Ok(c)) => assert!(
                (-c.depth - margin).abs() <= depth_tolerance,
                "one apart, the other at {} within margin {margin}",
                -c.depth
            ),
        }
    }

    /// A random ball or capsule, a third of them balls.
    fn rounded_shape<D: NarrowPhaseDim>(rng: &mut Rng) -> Shape<D> {
        let radius = rng.range(0.05, 0.5);
        if rng.range(0.0, 3.0) < 1.0 {
            Shape::ball(radius).unwrap()
        } else {
            Shape::capsule(rng.range(0.05, 0.8), radius).unwrap()
        }
    }

    #[test]
    fn a_ball_or_capsule_meets_a_facet_in_closed_form_as_gjk_and_epa_do() {
        use crate::math::D2;
        use glam::Vec2;
        const POSES: usize = 20_000;
        let mut rng = Rng(0x2545_f491);
        let mut tallies = [Tally::default(), Tally::default()];
        for i in 0..POSES {
            let margin = if i % 2 == 0 { 0.0 } else { 0.1 };
            let mut corner = || {
                Vec3::new(
                    rng.range(-1.5, 1.5),
                    rng.range(-0.3, 0.3),
                    rng.range(-1.5, 1.5),
                )
            };
            let corners = [corner(), corner(), corner()];
            let Some(facet) = Facet::new(corners) else {
                continue;
            };
            let convex = rounded_shape::<D3>(&mut rng);
            let turn = Quat::from_xyzw(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            // Near the facet: a point of it moved up to the shape's size
            // and the margin in any direction.
            let (u, v) = (rng.range(0.0, 1.0), rng.range(0.0, 1.0));
            let (u, v) = if u + v > 1.0 {
                (1.0 - u, 1.0 - v)
            } else {
                (u, v)
            };
            let on = corners[0] + (corners[1] - corners[0]) * u + (corners[2] - corners[0]) * v;
            let away = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            )
            .normalize_or_zero();
            let at = on + away * rng.range(0.0, convex.bounding_radius() + 0.2);
            let convex_pose: Pose<D3> = Pose::new(at, turn);
            let facet_in_convex = convex_pose.inverse();
            closed_form_agrees(&convex, facet, &facet_in_convex, margin, &mut tallies[0]);

            let corners = [
                Vec2::new(rng.range(-1.5, 1.5), rng.range(-0.3, 0.3)),
                Vec2::new(rng.range(-1.5, 1.5), rng.range(-0.3, 0.3)),
                Vec2::ZERO,
            ];
            let Some(facet) = Facet::new(corners) else {
                continue;
            };
            let convex = rounded_shape::<D2>(&mut rng);
            let on = corners[0] + (corners[1] - corners[0]) * rng.range(0.0, 1.0);
            let away = Vec2::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)).normalize_or_zero();
            let at = on + away * rng.range(0.0, convex.bounding_radius() + 0.2);
            let convex_pose: Pose<D2> = Pose::new(at, rng.range(-3.2, 3.2));
            let facet_in_convex = convex_pose.inverse();
            closed_form_agrees(&convex, facet, &facet_in_convex, margin, &mut tallies[1]);
        }
        // Most poses are compared as contacts, many as apart.
        for tally in &tallies {
            assert!(
                tally.contacts > POSES / 2 && tally.apart > POSES / 10,
                "{tallies:?} of {POSES}"
            );
        }
    }

    #[test]
    fn a_box_on_a_facet_touches_it_at_the_corners_over_it_alone() {
        let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
        let at = Pose::new(Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY);
        let (face, mut points) = face_of(half_plane_facet(), &cube, at);
        assert!(face);
        points.sort_by(|p, q| (p.x, p.z).partial_cmp(&(q.x, q.z)).unwrap());
        // Three corners lie over the facet (one on its edge); the fourth,
        // at x + z = 1, is a neighbour's to make.
        let expected = [
            Vec3::new(-0.5, 0.0, -0.5),
            Vec3::new(-0.5, 0.0, 0.5),
            Vec3::new(0.5, 0.0, -0.5),
        ];
        assert_eq!(points.len(), 3, "{points:?}");
        for (p, e) in points.iter().zip(expected) {
            assert!((*p - e).length() < 1e-6, "{p} against {e}");
        }
    }

    #[test]
    fn a_hull_whose_origin_is_near_its_face_still_meets_a_facet_it_sinks_into() {
        // A wedge whose origin lies 2 cm inside its sloped face, that face
        // down and 3 cm into the facet: its origin is behind the plane,
        // its inner point is not, so the facet still pushes it out.
        let wedge = Shape::convex_hull(&[
            Vec3::new(-0.6, -0.3, -0.4),
            Vec3::new(0.6, -0.3, -0.4),
            Vec3::new(-0.6, -0.3, 0.4),
            Vec3::new(0.6, -0.3, 0.4),
            Vec3::new(-0.6, 0.35, -0.4),
            Vec3::new(0.6, 0.35, -0.4),
        ])
        .unwrap();
        let slope = Vec3::new(0.0, 0.8, 0.65).normalize();
        let turn = Quat::from_rotation_arc(slope, -Vec3::Y);
        let to_face = (Vec3::new(0.0, 0.35, -0.4)).dot(slope);
        let at: Pose<D3> = Pose::new(Vec3::new(-3.0, to_face - 0.03, -3.0), turn);
        assert!(at.translation.y < 0.0, "the origin is behind the plane");
        let (face, points) = face_of(half_plane_facet(), &wedge, at);
        assert!(face);
        assert_eq!(points.len(), 4, "the sloped face's four corners");
    }
}
