//! Perturbation: more contact points from the same frame.
//!
//! GJK and EPA give one point per query. A box landing flat needs its whole
//! face in the manifold at once, so (after Bullet's `btConvexConvexAlgorithm`):
//! 1. tilt the shape with the smaller bounding radius by a small angle about
//!    axes across the contact normal (two tilts in 2D, four in 3D);
//! 2. run the contact query again on the tilted pair: the tilt makes another
//!    corner the deepest;
//! 3. map the tilted shape's witness back to its real pose, and put its
//!    partner on the untilted shape's contact plane (through the unperturbed
//!    contact's witness, across its normal): exact for a face, and the
//!    points of a box resting flat come out symmetric, with no tilt left in
//!    them to seed a lean in a tall stack.
//!
//! Only polyhedral pairs are perturbed: extra off-centre points on a ball or
//! capsule would make it roll forever. A capsule's points are instead its
//! two ends, each queried as a ball of its radius ([`rounded_end_contacts`]):
//! the ends are where a capsule lying on a face touches it, and a ball's
//! contact has no tilt in it.
//!
//! A facet met on its face (the contact normal is the facet's own) needs no
//! query per tilt: its points are the other shape's vertices over it near
//! its plane ([`face_contacts`]), for a few dot products: a body on level
//! geometry touches several facets each step. Two boxes face to face,
//! one of them thin, are not perturbed at all: one face clipped to the
//! other gives their points (`box_faces`, 3D), where a thin box's small
//! tilts would miss its far edge.

use super::surface::face_contacts;
use super::NarrowPhaseDim;
use super::{speculative_contact, PairView, ShapeContact};
use crate::math::{Pose, Vector};
use crate::shape::{Shape, OWN_NORMAL_COSINE};

/// How much farther than the margin, as a share of the rounded shape's
/// bounding radius, an end must lie from the plane of the pair's own
/// contact to be left unqueried (`rounded_end_contacts`): well above the
/// rounding of the query's points and normal.
const END_SKIP_SLACK: f32 = 1e-3;

/// Largest tilt, radians (Bullet's limit).
const MAX_TILT: f32 = core::f32::consts::PI / 8.0;

/// Contact points of the pair with one shape slightly tilted, mapped back to
/// the real poses, each along the `unperturbed` contact's normal; `margin`
/// as in [`speculative_contact`].
/// The tilt moves the shape's far side by about `tilt_distance`.
pub(crate) fn perturbed_contacts<D: NarrowPhaseDim>(
    pair: &PairView<'_, D>,
    unperturbed: &ShapeContact<D>,
    tilt_distance: f32,
    margin: f32,
    mut found: impl FnMut(ShapeContact<D>),
) {
    if face_contacts(pair, unperturbed.normal, margin, &mut found) {
        return;
    }
    let (a, pose_a, b, pose_b) = (pair.shape_a, &pair.pose_a, pair.shape_b, &pair.pose_b);
    let normal = unperturbed.normal;
    let tilt_b = b.bounding_radius() <= a.bounding_radius();
    let radius = if tilt_b {
        b.bounding_radius()
    } else {
        a.bounding_radius()
    };
    let angle = (tilt_distance / radius).min(MAX_TILT);
    let (tilts, count) = D::tilts(normal, angle);
    for &tilt in &tilts[..count] {
        let tilted = |pose: &Pose<D>| Pose {
            translation: pose.translation,
            rotation: D::compose(tilt, pose.rotation),
        };
        let hit = if tilt_b {
            let pose_b_tilted = tilted(pose_b);
            speculative_contact(a, pose_a, b, &pose_b_tilted, margin).map(|c| {
                let point_b =
                    pose_b.transform_point(pose_b_tilted.inverse_transform_point(c.point_b));
                (c.point_a, point_b)
            })
        } else {
            let pose_a_tilted = tilted(pose_a);
            speculative_contact(a, &pose_a_tilted, b, pose_b, margin).map(|c| {
                let point_a =
                    pose_a.transform_point(pose_a_tilted.inverse_transform_point(c.point_a));
                (point_a, c.point_b)
            })
        };
        if let Some((point_a, point_b)) = hit {
            let depth = (point_a - point_b).dot(normal);
            if depth >= -margin {
                found(ShapeContact {
                    depth,
                    normal,
                    point_a,
                    point_b,
                });
            }
        }
    }
}

/// The contacts of a rounded shape's core vertices (a capsule's two ends;
/// a ball has but its centre, the query's own point) with the other shape
/// of the pair: for each vertex, the ball of the shape's radius there,
/// queried against the other shape within `margin`, kept when its normal
/// is `normal` (world, from A to B) to within `OWN_NORMAL_COSINE`. A
/// capsule is the hull of its two end balls, so a capsule lying on a face
/// touches it at those ends, and these are its manifold's points, found
/// anew at each query as a facet's `face_contacts` finds them. GJK gives
/// one point, at either end, and a sliding capsule's point of the step
/// before has slid past the merging radius by the next query (3.3 cm a
/// step at 2 m/s): held by one end a step, the capsule rocked from end to
/// end and slid 1.6 cm deep into a box
/// (`a_capsule_slides_on_a_box_at_its_resting_height_3d`, `_2d`).
///
/// `query` is the pair's own contact (normal from A to B): the other shape
/// lies beyond the plane through its point on that shape, across its
/// normal (a separating plane, or EPA's least way out), so an end whose
/// ball is farther from that plane than the margin, and a little more for
/// rounding ([`END_SKIP_SLACK`]), is farther from the shape too and is not
/// queried: a capsule standing on one end costs no second query.
pub(crate) fn rounded_end_contacts<D: NarrowPhaseDim>(
    pair: &PairView<'_, D>,
    normal: D::Vector,
    query: &ShapeContact<D>,
    margin: f32,
    mut found: impl FnMut(ShapeContact<D>),
) {
    let ends = |shape: &Shape<D>,
                pose: &Pose<D>,
                other: &Shape<D>,
                other_pose: &Pose<D>,
                shape_is_a: bool,
                found: &mut dyn FnMut(ShapeContact<D>)| {
        // The plane the other shape lies beyond: through its point of the
        // query, facing away from it.
        let (on_other, away) = if shape_is_a {
            (query.point_b, -query.normal)
        } else {
            (query.point_a, query.normal)
        };
        let reach = margin + shape.radius() + END_SKIP_SLACK * shape.bounding_radius();
        let mut vertices = 0;
        shape.for_each_core_vertex(|_| vertices += 1);
        if vertices < 2 {
            return;
        }
        let Ok(ball) = Shape::<D>::ball(shape.radius()) else {
            return;
        };
        shape.for_each_core_vertex(|vertex| {
            let at = Pose {
                translation: pose.transform_point(vertex),
                rotation: pose.rotation,
            };
            let apart: D::Vector = at.translation - on_other;
            if apart.dot(away) > reach {
                return;
            }
            let hit = if shape_is_a {
                speculative_contact(&ball, &at, other, other_pose, margin)
            } else {
                speculative_contact(other, other_pose, &ball, &at, margin)
            };
            if let Some(c) = hit.filter(|c| c.normal.dot(normal) >= OWN_NORMAL_COSINE) {
                found(c);
            }
        });
    };
    let (a, pose_a, b, pose_b) = (pair.shape_a, &pair.pose_a, pair.shape_b, &pair.pose_b);
    if a.radius() > 0.0 {
        ends(a, pose_a, b, pose_b, true, &mut found);
    }
    if b.radius() > 0.0 {
        ends(b, pose_b, a, pose_a, false, &mut found);
    }
}
