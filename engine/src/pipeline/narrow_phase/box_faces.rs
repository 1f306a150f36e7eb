//! Two boxes face to face (3D): the contact points are the incident box's
//! face clipped to the reference box's face (Box2D v3's `b2ClipPolygons`,
//! Jolt's `ManifoldBetweenTwoFaces`), not found by perturbation.
//!
//! How [`box_face_contacts`] works, given the query's normal:
//! 1. Reference: a box one of whose faces has the contact normal (to
//!    within `OWN_NORMAL_COSINE`), A's first; the incident box is the other,
//!    its face the one turned most against the normal.
//! 2. The incident face's four corners, in the reference box's frame, are
//!    clipped to the slab of the reference face's sides (Sutherland-Hodgman,
//!    four planes: at most eight points).
//! 3. Each clipped point within `margin` of the reference face's plane is
//!    a contact: its foot on that plane is the reference box's end.
//!
//! Why not perturbation: a tilt small enough not to move a box's far side
//! by more than the merging radius (`perturb`) turns a thin box's short
//! sides by almost nothing. A 2 m x 2 cm stick lying flat but rolled by
//! 0.016 rad shows the ground one long edge to every tilt, so its manifold
//! held that edge alone, the whole landing pushed 1 cm off its long axis,
//! and a moment about that axis 1/5000 of the one across it spun it to
//! 214 rad/s in one step (`a_spinning_stick_never_passes_the_ground_3d`,
//! `tests/continuous.rs`). Clipping sees the whole face at any roll.
//!
//! Limits: pairs whose smaller box (the one perturbation tilts) is thin
//! only ([`THIN`]), all others are left to perturbation. Clipping keeps
//! every clipped point within the contact margin, so a landing box holds
//! speculative points up to the whole margin above its deepest one (60%
//! of the points not touching on the rope bridge, against 39% perturbed),
//! and more boxes were thrown off the light-planked bridge; keeping only
//! points within 5 mm of the deepest did better than either
//! (`benches/RESULTS.md`, "Box clipping for every pair"). Boxes only (a hull's face is a set of triangles,
//! its corners not listed together); edge against edge, or a face turned
//! more than `OWN_NORMAL_COSINE` from the normal, is left to perturbation.

use glam::Vec3;

use super::ShapeContact;
use crate::math::{Pose, D3};
use crate::shape::{Shape, ShapeKind, OWN_NORMAL_COSINE};

/// The most points clipping a quadrilateral to four planes leaves: each
/// plane adds at most one.
pub(crate) const MAX_CLIPPED: usize = 8;

/// The contacts of two boxes meeting face to face along `normal` (world,
/// from A to B) within `margin` (module docs), each handed to `found`;
/// false, having found nothing, when the pair is not two boxes with a face
/// along the normal.
pub(crate) fn box_face_contacts(
    [(shape_a, pose_a), (shape_b, pose_b)]: [(&Shape<D3>, &Pose<D3>); 2],
    normal: Vec3,
    margin: f32,
    found: &mut impl FnMut(ShapeContact<D3>),
) -> bool {
    let (ShapeKind::Cuboid { half_extents: a }, ShapeKind::Cuboid { half_extents: b }) =
        (shape_a.kind(), shape_b.kind())
    else {
        return false;
    };
    // Perturbation tilts the box of the smaller bounding radius (`perturb`):
    // only where that one is thin are its tilts too small.
    let tilted = if b.length() <= a.length() { *b } else { *a };
    if !thin(tilted) {
        return false;
    }
    // A's face turned towards B has the normal as its outward normal; B's
    // face turned towards A has its opposite.
    let sides = [
        (*a, pose_a, *b, pose_b, normal, true),
        (*b, pose_b, *a, pose_a, -normal, false),
    ];
    for (reference, reference_pose, incident, incident_pose, outwards, reference_is_a) in sides {
        let Some(face) = Face::facing(reference, reference_pose, outwards) else {
            continue;
        };
        let corners = incident_face(incident, incident_pose, -outwards)
            .map(|c| reference_pose.inverse_transform_point(c));
        let mut polygon = Polygon::from_corners(corners);
        for (axis, half) in face.sides() {
            polygon = polygon.clip(axis, half).clip(-axis, half);
        }
        for &point in polygon.points() {
            let height = face.height(point);
            // A NaN height (a pose gone bad) gives no contact.
            if height.is_nan() || height > margin {
                continue;
            }
            let on_incident = reference_pose.transform_point(point);
            let on_reference = reference_pose.transform_point(face.foot(point));
            let (point_a, point_b) = if reference_is_a {
                (on_reference, on_incident)
            } else {
                (on_incident, on_reference)
            };
            found(ShapeContact {
                depth: -height,
                normal,
                point_a,
                point_b,
            });
        }
        return true;
    }
    false
}

/// Below this ratio of its thickness to its bounding radius a box is thin
/// (a 2 m x 2 cm stick: 0.02; a plank 0.84 x 0.12 x 1.6 m: 0.13; a cube:
/// 1.15): a perturbation tilt that moves its far end by the merging radius
/// moves its thin side by under a twentieth of that, too little to show
/// its far edge.
const THIN: f32 = 0.05;

/// True when the box of half extents `half` is thin ([`THIN`]).
fn thin(half: Vec3) -> bool {
    2.0 * half.min_element() < THIN * half.length()
}

/// A box's face, in the box's frame: along local axis `axis`, on the side
/// `sign`, of a box of half extents `half`.
struct Face {
    half: Vec3,
    axis: usize,
    sign: f32,
}

impl Face {
    /// The face of the box of half extents `half` at `pose` whose outward
    /// normal is `outwards` (world) to within `OWN_NORMAL_COSINE`, if any.
    fn facing(half: Vec3, pose: &Pose<D3>, outwards: Vec3) -> Option<Self> {
        let local = pose.rotation.inverse() * outwards;
        let axis = largest_axis(local);
        let along = local[axis];
        (along.abs() >= OWN_NORMAL_COSINE).then_some(Self {
            half,
            axis,
            sign: if along > 0.0 { 1.0 } else { -1.0 },
        })
    }

    /// The face's two other axes, each with its half extent.
    fn sides(&self) -> [(Vec3, f32); 2] {
        let other = |k: usize| {
            let i = (self.axis + k) % 3;
            (Vec3::AXES[i], self.half[i])
        };
        [other(1), other(2)]
    }

    /// How far `point` (box frame) lies outside the face's plane, metres.
    fn height(&self, point: Vec3) -> f32 {
        self.sign * point[self.axis] - self.half[self.axis]
    }

    /// `point` moved along the face's axis onto its plane.
    fn foot(&self, point: Vec3) -> Vec3 {
        let mut foot = point;
        foot[self.axis] = self.sign * self.half[self.axis];
        foot
    }
}

/// The local axis (0, 1 or 2) along which `v` is largest in magnitude; the
/// first of equals.
fn largest_axis(v: Vec3) -> usize {
    let a = v.abs();
    if a.x >= a.y && a.x >= a.z {
        0
    } else if a.y >= a.z {
        1
    } else {
        2
    }
}

/// The corners, world space and in order around it, of the face of the box
/// of half extents `half` at `pose` turned most towards `towards` (world).
fn incident_face(half: Vec3, pose: &Pose<D3>, towards: Vec3) -> [Vec3; 4] {
    let local = pose.rotation.inverse() * towards;
    let axis = largest_axis(local);
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let sign = if local[axis] > 0.0 { 1.0 } else { -1.0 };
    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(su, sv)| {
        let mut corner = Vec3::ZERO;
        corner[axis] = sign * half[axis];
        corner[u] = su * half[u];
        corner[v] = sv * half[v];
        pose.transform_point(corner)
    })
}

/// A convex polygon of at most [`MAX_CLIPPED`] points, in order.
#[derive(Copy, Clone)]
struct Polygon {
    points: [Vec3; MAX_CLIPPED],
    len: usize,
}

impl Polygon {
    fn from_corners(corners: [Vec3; 4]) -> Self {
        let mut points = [Vec3::ZERO; MAX_CLIPPED];
        points[..4].copy_from_slice(&corners);
        Self { points, len: 4 }
    }

    fn points(&self) -> &[Vec3] {
        &self.points[..self.len]
    }

    /// The part of the polygon where `point · axis <= limit`: each edge that
    /// crosses the plane leaves its crossing (Sutherland-Hodgman). A
    /// polygon of `n` points gives at most `n + 1`; past [`MAX_CLIPPED`]
    /// (never, for a quadrilateral and four planes) the rest is dropped.
    fn clip(&self, axis: Vec3, limit: f32) -> Self {
        let mut out = Self {
            points: [Vec3::ZERO; MAX_CLIPPED],
            len: 0,
        };
        let mut push = |p: Vec3| {
            if out.len < MAX_CLIPPED {
                out.points[out.len] = p;
                out.len += 1;
            }
        };
        let n = self.len;
        for i in 0..n {
            let (p, q) = (self.points[i], self.points[(i + 1) % n]);
            let (dp, dq) = (p.dot(axis) - limit, q.dot(axis) - limit);
            if dp <= 0.0 {
                push(p);
            }
            if (dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0) {
                push(p + (q - p) * (dp / (dp - dq)));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::narrow_phase::PairView;
    use glam::Quat;

    fn shapes<'a>(pair: &'a PairView<'a, D3>) -> [(&'a Shape<D3>, &'a Pose<D3>); 2] {
        [(pair.shape_a, &pair.pose_a), (pair.shape_b, &pair.pose_b)]
    }

    fn contacts(pair: &PairView<'_, D3>, normal: Vec3, margin: f32) -> Vec<ShapeContact<D3>> {
        let mut found = Vec::new();
        assert!(box_face_contacts(shapes(pair), normal, margin, &mut |c| {
            found.push(c)
        }));
        found
    }

    #[test]
    fn a_rolled_stick_on_the_ground_shows_all_four_corners() {
        let ground = Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap();
        let stick = Shape::cuboid(Vec3::new(1.0, 0.01, 0.01)).unwrap();
        // Rolled 0.016 rad about its long axis, its lower edge 1 mm deep.
        let rotation = Quat::from_rotation_x(0.016);
        let pair = PairView {
            shape_a: &ground,
            pose_a: Pose {
                translation: Vec3::new(0.0, -0.5, 0.0),
                rotation: Quat::IDENTITY,
            },
            shape_b: &stick,
            pose_b: Pose {
                translation: Vec3::new(0.0, 0.01 - 0.001, 0.0),
                rotation,
            },
        };
        let found = contacts(&pair, Vec3::Y, 0.02);
        assert_eq!(found.len(), 4);
        for x in [-1.0, 1.0] {
            for z in [-0.01, 0.01] {
                let near = found
                    .iter()
                    .any(|c| (c.point_b - Vec3::new(x, 0.0, z)).abs().max_element() < 0.002);
                assert!(near, "no corner at ({x}, {z}): {found:?}");
            }
        }
        for c in &found {
            assert!((c.point_a.y).abs() < 1e-6, "on the ground's face");
            assert!((c.point_a - c.point_b - Vec3::Y * c.depth).length() < 1e-6);
        }
    }

    #[test]
    fn an_overhanging_board_is_clipped_to_the_face_under_it() {
        let cube = Shape::cuboid(Vec3::new(0.5, 0.01, 0.5)).unwrap();
        let pair = PairView {
            shape_a: &cube,
            pose_a: Pose {
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY,
            },
            shape_b: &cube,
            pose_b: Pose {
                translation: Vec3::new(0.7, 0.02, 0.0),
                rotation: Quat::from_rotation_y(0.3),
            },
        };
        let found = contacts(&pair, Vec3::Y, 0.02);
        assert!(found.len() >= 3, "{found:?}");
        for c in &found {
            assert!(c.point_a.x <= 0.5 + 1e-5 && c.point_a.z.abs() <= 0.5 + 1e-5);
            assert!(c.depth.abs() < 1e-5);
        }
        // A point where the top box's edge crosses the lower box's far side.
        assert!(found.iter().any(|c| (c.point_a.x - 0.5).abs() < 1e-5));
    }

    #[test]
    fn an_edge_on_a_face_gives_the_edge_and_other_pairs_nothing() {
        let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
        let stick = Shape::cuboid(Vec3::new(0.01, 0.01, 0.5)).unwrap();
        let pair = PairView {
            shape_a: &cube,
            pose_a: Pose {
                translation: Vec3::ZERO,
                rotation: Quat::IDENTITY,
            },
            shape_b: &stick,
            pose_b: Pose {
                translation: Vec3::new(0.0, 0.5 + 0.0141 - 0.001, 0.0),
                rotation: Quat::from_rotation_z(core::f32::consts::FRAC_PI_4),
            },
        };
        // A's top face has the normal: the stick's lowest edge is clipped
        // to it, its two ends.
        let found = contacts(&pair, Vec3::Y, 0.005);
        assert_eq!(found.len(), 2, "{found:?}");
        // A normal along neither box's face: nothing.
        let slanted = Vec3::new(0.3, 1.0, 0.2).normalize();
        let mut none = 0;
        assert!(!box_face_contacts(
            shapes(&pair),
            slanted,
            0.02,
            &mut |_| none += 1
        ));
        // Two cubes: perturbation's.
        let cubes = PairView {
            shape_b: &cube,
            ..pair
        };
        assert!(!box_face_contacts(
            shapes(&cubes),
            Vec3::Y,
            0.02,
            &mut |_| none += 1
        ));
        assert_eq!(none, 0);
    }
}
