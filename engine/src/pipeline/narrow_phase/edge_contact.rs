//! Boxes that meet only where their edges are.
//!
//! Two cubes of a flush wall meet diagonally, edge to edge: the upper one
//! touches the lower one only along the line where the lower one's top face
//! and the upper one's side face end. GJK and EPA find them touching there,
//! with any normal of that edge's cone, and points on the edge: the upper
//! cube rested partly on its neighbour's edge, the load there turned both
//! cubes, and a wall of flush cubes buckled and fell, where the same wall
//! with a millimetre between its columns stands (Jolt's rounded box edges
//! leave such a pair a few millimetres apart). Such a contact has no area:
//! it is no contact.
//!
//! The rule, for two boxes (squares in 2D):
//! 1. The pair is within `tolerance` of touching (its separation along the
//!    exact contact normal is at most `tolerance`): corners striking
//!    corners from farther keep their speculative contact.
//! 2. Two axes of one box each have the other box within `tolerance` of
//!    that box's face or beyond: the gap between the two boxes along the
//!    axis (`|offset of the centres| - the other box's reach - the half
//!    extent`, the separating-axis test's projection, negative where they
//!    overlap) is at least `-tolerance`. The boxes then share no more than
//!    a sliver of `tolerance` by `tolerance` along the edge where those
//!    faces meet.
//!
//! Such a pair is treated as apart. Once it overlaps by more than
//! `tolerance` across one of the faces (a column sinking beside its
//! neighbour), it has a contact with area, along the face it overlaps least
//! across. Guarded by the tests below and by
//! `a_flush_wall_of_cubes_stands_and_sleeps` (`tests/compositions.rs`).
//!
//! Limits: boxes only. Hulls (a brick built as a convex hull) keep their
//! edge contacts: the same test along every face of a hull, by support
//! queries, cost a scene of 1000 mixed bodies 8% of its step
//! (`flat_ground_stress_3d`, 2.62 to 2.84 ms); rounded shapes have no
//! edges, and a surface's facets have their own rules.

use super::{NarrowPhaseDim, PairView, ShapeContact};
use crate::math::{Pose, Vector};
use crate::shape::ShapeKind;

/// True when `pair`, whose exact contact is `exact`, is two boxes meeting
/// only where the edges of two faces of one of them are, within
/// `tolerance` metres (module docs).
pub(crate) fn meets_at_edges_only<D: NarrowPhaseDim>(
    pair: &PairView<'_, D>,
    exact: &ShapeContact<D>,
    tolerance: f32,
) -> bool {
    let (ShapeKind::Cuboid { half_extents: ha }, ShapeKind::Cuboid { half_extents: hb }) =
        (pair.shape_a.kind(), pair.shape_b.kind())
    else {
        return false;
    };
    // NaN compares false: a pose gone bad keeps the contact as found.
    let near = -exact.depth <= tolerance;
    near && boxes_meet_at_edges_only::<D>([(*ha, &pair.pose_a), (*hb, &pair.pose_b)], tolerance)
}

/// Step 2 (module docs) for boxes of half extents and poses `boxes`.
fn boxes_meet_at_edges_only<D: NarrowPhaseDim>(
    boxes: [(D::Vector, &Pose<D>); 2],
    tolerance: f32,
) -> bool {
    let units = D::Vector::axes();
    let axes_of = |pose: &Pose<D>| {
        let mut world = [D::Vector::ZERO; 3];
        for (w, &e) in world.iter_mut().zip(units) {
            *w = D::rotate(pose.rotation, e);
        }
        world
    };
    let [(half_a, pose_a), (half_b, pose_b)] = boxes;
    let (axes_a, axes_b) = (axes_of(pose_a), axes_of(pose_b));
    let offset = pose_b.translation - pose_a.translation;
    let touching_faces = |own: &[D::Vector; 3],
                          own_half: D::Vector,
                          other: &[D::Vector; 3],
                          other_half: D::Vector| {
        let mut count = 0;
        for (w, &e) in own.iter().zip(units) {
            let reach: f32 = other
                .iter()
                .zip(units)
                .map(|(o, &f)| w.dot(*o).abs() * other_half.dot(f))
                .sum();
            // NaN compares false: a pose gone bad has no face touching.
            if offset.dot(*w).abs() - reach - own_half.dot(e) >= -tolerance {
                count += 1;
            }
        }
        count
    };
    touching_faces(&axes_a, half_a, &axes_b, half_b) >= 2
        || touching_faces(&axes_b, half_b, &axes_a, half_a) >= 2
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};
    use crate::pipeline::narrow_phase::speculative_contact;
    use crate::shape::Shape;
    use glam::{Quat, Vec2, Vec3};

    /// The half-millimetre tolerance the world uses by default.
    const TOLERANCE: f32 = 5e-4;

    fn edges_only_3d(a: &Shape<D3>, b: &Shape<D3>, offset: Vec3, turn: Quat) -> Option<bool> {
        let pair = PairView {
            shape_a: a,
            pose_a: Pose::new(Vec3::ZERO, Quat::IDENTITY),
            shape_b: b,
            pose_b: Pose::new(offset, turn),
        };
        let exact =
            speculative_contact(pair.shape_a, &pair.pose_a, pair.shape_b, &pair.pose_b, 0.02)?;
        Some(meets_at_edges_only(&pair, &exact, TOLERANCE))
    }

    #[test]
    fn cubes_meeting_edge_to_edge_meet_at_edges_only() {
        let cube = Shape::cuboid(Vec3::splat(0.25)).unwrap();
        // Flush; a hair apart both ways; sunk 0.3 mm beside, a hair across;
        // turned a little.
        for (offset, turn) in [
            (Vec3::new(0.5, 0.5, 0.0), 0.0),
            (Vec3::new(0.50002, 0.50001, 0.0), 0.0),
            (Vec3::new(0.49999, 0.4997, 0.0), 0.0),
            (Vec3::new(0.5001, 0.5001, 0.0), 2e-4),
        ] {
            let turn = Quat::from_rotation_z(turn);
            assert_eq!(
                edges_only_3d(&cube, &cube, offset, turn),
                Some(true),
                "{offset}"
            );
        }
        // A hull shaped as the cube keeps its edge contact (module docs,
        // limits).
        let corners: Vec<Vec3> = (0..8)
            .map(|i: u32| {
                glam::UVec3::new(i & 1, (i >> 1) & 1, (i >> 2) & 1).as_vec3() * 0.5 - 0.25
            })
            .collect();
        let hull = Shape::convex_hull(&corners).unwrap();
        let offset = Vec3::new(0.5, 0.5, 0.0);
        assert_eq!(
            edges_only_3d(&cube, &hull, offset, Quat::IDENTITY),
            Some(false)
        );
    }

    #[test]
    fn contacts_with_area_are_contacts() {
        let cube = Shape::cuboid(Vec3::splat(0.25)).unwrap();
        for (offset, turn) in [
            // Stacked, flush and off-centre; side by side; sunk a
            // millimetre beside a neighbour (its face overlaps).
            (Vec3::new(0.0, 0.5, 0.0), 0.0),
            (Vec3::new(0.3, 0.4999, 0.1), 0.0),
            (Vec3::new(0.5, 0.0, 0.0), 0.0),
            (Vec3::new(0.5, 0.499, 0.0), 0.0),
            // A cube standing on an edge in the middle of a face.
            (
                Vec3::new(0.0, 0.25 + 0.25 * 2f32.sqrt(), 0.0),
                core::f32::consts::FRAC_PI_4,
            ),
        ] {
            let turn = Quat::from_rotation_z(turn);
            assert_eq!(
                edges_only_3d(&cube, &cube, offset, turn),
                Some(false),
                "{offset}"
            );
        }
        // A ball at a cube's edge has a contact.
        let ball = Shape::ball(0.25).unwrap();
        let offset = Vec3::new(0.25, 0.25, 0.0) + Vec3::new(1.0, 1.0, 0.0).normalize() * 0.25;
        assert_eq!(
            edges_only_3d(&cube, &ball, offset, Quat::IDENTITY),
            Some(false)
        );
    }

    #[test]
    fn a_corner_striking_a_corner_from_afar_keeps_its_contact() {
        let cube = Shape::cuboid(Vec3::splat(0.25)).unwrap();
        let offset = Vec3::new(0.51, 0.51, 0.0);
        assert_eq!(
            edges_only_3d(&cube, &cube, offset, Quat::IDENTITY),
            Some(false)
        );
    }

    #[test]
    fn squares_meeting_corner_to_corner_meet_at_edges_only_2d() {
        let square = Shape::<D2>::cuboid(Vec2::splat(0.25)).unwrap();
        let meets = |offset: Vec2| {
            let pair = PairView {
                shape_a: &square,
                pose_a: Pose::new(Vec2::ZERO, 0.0),
                shape_b: &square,
                pose_b: Pose::new(offset, 0.0),
            };
            let exact =
                speculative_contact(pair.shape_a, &pair.pose_a, pair.shape_b, &pair.pose_b, 0.02)
                    .unwrap();
            meets_at_edges_only(&pair, &exact, TOLERANCE)
        };
        assert!(meets(Vec2::new(0.5, 0.5)));
        assert!(meets(Vec2::new(0.50002, 0.4998)));
        assert!(!meets(Vec2::new(0.5, 0.0)));
        assert!(!meets(Vec2::new(0.2, 0.5)));
        assert!(!meets(Vec2::new(0.5, 0.499)));
    }
}
