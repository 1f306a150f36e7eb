//! Mass properties from a density: exact formulas for ball, cuboid and
//! capsule; hulls by decomposition into triangles (2D) or tetrahedra (3D).
//! The 2D and 3D versions stand side by side.

use core::f32::consts::PI;

use glam::{Mat3, Vec2, Vec3};

use super::ShapeDim;
use super::ShapeKind;
use crate::math::{Pose, Vector, D2, D3};

/// Mass, centre of mass and rotational inertia of a body or shape.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MassProperties<D: ShapeDim> {
    /// Mass in kilograms.
    pub mass: f32,
    /// Centre of mass in the shape's (or body's) local frame, metres.
    pub local_center: D::Vector,
    /// Inertia about the centre of mass in the local frame, kg·m²:
    /// a scalar about Z in 2D, a symmetric tensor in 3D.
    pub inertia: D::Inertia,
}

impl<D: ShapeDim> MassProperties<D> {
    /// No mass: what a surface has.
    pub fn none() -> Self {
        Self {
            mass: 0.0,
            local_center: D::Vector::ZERO,
            inertia: D::zero_inertia(),
        }
    }

    /// The mass properties of parts placed at the given poses, about their
    /// common centre of mass (parallel axis theorem).
    pub fn combine(parts: &[(MassProperties<D>, Pose<D>)]) -> Self {
        let mass: f32 = parts.iter().map(|(p, _)| p.mass).sum();
        let weighted = parts.iter().fold(D::Vector::ZERO, |sum, (p, pose)| {
            sum + pose.transform_point(p.local_center) * p.mass
        });
        let local_center = if mass > 0.0 {
            weighted * (1.0 / mass)
        } else {
            D::Vector::ZERO
        };
        let inertia = parts.iter().fold(D::zero_inertia(), |sum, (p, pose)| {
            let offset = pose.transform_point(p.local_center) - local_center;
            D::add_inertia(
                sum,
                D::inertia_about(p.inertia, pose.rotation, p.mass, offset),
            )
        });
        Self {
            mass,
            local_center,
            inertia,
        }
    }
}

/// 2D: discs, rectangles, stadiums and polygons (density in kg/m²).
pub(crate) fn mass_properties_2d(shape: &ShapeKind<D2>, density: f32) -> MassProperties<D2> {
    match shape {
        ShapeKind::Ball { radius } => {
            let mass = density * PI * radius * radius;
            MassProperties {
                mass,
                local_center: Vec2::ZERO,
                inertia: 0.5 * mass * radius * radius,
            }
        }
        ShapeKind::Cuboid { half_extents } => {
            let size = *half_extents * 2.0;
            let mass = density * size.x * size.y;
            MassProperties {
                mass,
                local_center: Vec2::ZERO,
                inertia: mass * size.length_squared() / 12.0,
            }
        }
        ShapeKind::Capsule {
            half_height,
            radius,
        } => {
            let (h, r) = (*half_height, *radius);
            // Rectangle 2r x 2h plus a disc split into two half discs at ±h.
            let rect = density * 4.0 * r * h;
            let disc = density * PI * r * r;
            let rect_inertia = rect * (4.0 * r * r + 4.0 * h * h) / 12.0;
            // Half disc: centroid 4r/(3pi) from its flat side; parallel axis to ±h.
            let c = 4.0 * r / (3.0 * PI);
            let half = 0.5 * disc;
            let half_disc_about_centroid = half * (0.5 * r * r - c * c);
            let offset = h + c;
            let caps_inertia = 2.0 * (half_disc_about_centroid + half * offset * offset);
            MassProperties {
                mass: rect + disc,
                local_center: Vec2::ZERO,
                inertia: rect_inertia + caps_inertia,
            }
        }
        ShapeKind::ConvexHull(polygon) => polygon.mass_properties(density),
        ShapeKind::Surface(_) | ShapeKind::Facet(_) => MassProperties::none(),
    }
}

/// 3D: spheres, boxes, capsules and polyhedra (density in kg/m³).
pub(crate) fn mass_properties_3d(shape: &ShapeKind<D3>, density: f32) -> MassProperties<D3> {
    match shape {
        ShapeKind::Ball { radius } => {
            let mass = density * 4.0 / 3.0 * PI * (radius * radius * radius);
            let i = 0.4 * mass * radius * radius;
            MassProperties {
                mass,
                local_center: Vec3::ZERO,
                inertia: Mat3::from_diagonal(Vec3::splat(i)),
            }
        }
        ShapeKind::Cuboid { half_extents } => {
            let size = *half_extents * 2.0;
            let mass = density * size.x * size.y * size.z;
            let sq = size * size;
            let diagonal = Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (mass / 12.0);
            MassProperties {
                mass,
                local_center: Vec3::ZERO,
                inertia: Mat3::from_diagonal(diagonal),
            }
        }
        ShapeKind::Capsule {
            half_height,
            radius,
        } => {
            let (h, r) = (*half_height, *radius);
            // Cylinder of height 2h plus a sphere split into hemispheres at ±h.
            let cylinder = density * PI * r * r * 2.0 * h;
            let sphere = density * 4.0 / 3.0 * PI * (r * r * r);
            let axial = cylinder * r * r / 2.0 + sphere * 0.4 * r * r;
            let cylinder_transverse = cylinder * (3.0 * r * r + 4.0 * h * h) / 12.0;
            // Hemisphere: centroid 3r/8 from its flat side, own transverse
            // inertia (2/5 - 9/64) m r², parallel axis to h + 3r/8.
            let half = 0.5 * sphere;
            let c = 3.0 * r / 8.0;
            let hemisphere = half * (0.4 * r * r - c * c) + half * (h + c) * (h + c);
            let transverse = cylinder_transverse + 2.0 * hemisphere;
            MassProperties {
                mass: cylinder + sphere,
                local_center: Vec3::ZERO,
                inertia: Mat3::from_diagonal(Vec3::new(transverse, axial, transverse)),
            }
        }
        ShapeKind::ConvexHull(hull) => hull.mass_properties(density),
        ShapeKind::Surface(_) | ShapeKind::Facet(_) => MassProperties::none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::Shape;

    #[test]
    fn capsule_with_tiny_segment_is_a_ball() {
        let capsule = Shape::<D3>::capsule(1e-4, 1.0)
            .unwrap()
            .mass_properties(2.0);
        let ball = Shape::<D3>::ball(1.0).unwrap().mass_properties(2.0);
        assert!((capsule.mass - ball.mass).abs() / ball.mass < 1e-3);
        assert!(
            (capsule.inertia.x_axis.x - ball.inertia.x_axis.x).abs() / ball.inertia.x_axis.x < 1e-3
        );
        let capsule = Shape::<D2>::capsule(1e-4, 1.0)
            .unwrap()
            .mass_properties(2.0);
        let disc = Shape::<D2>::ball(1.0).unwrap().mass_properties(2.0);
        assert!((capsule.inertia - disc.inertia).abs() / disc.inertia < 1e-3);
    }

    #[test]
    fn two_halves_combine_into_the_whole_box() {
        let half = Shape::<D3>::cuboid(Vec3::new(0.5, 0.5, 1.0))
            .unwrap()
            .mass_properties(2.0);
        let parts = [
            (
                half,
                Pose::new(Vec3::new(-0.5, 0.0, 0.0), glam::Quat::IDENTITY),
            ),
            (
                half,
                Pose::new(
                    Vec3::new(0.5, 0.0, 0.0),
                    glam::Quat::from_rotation_z(core::f32::consts::PI),
                ),
            ),
        ];
        let whole = Shape::<D3>::cuboid(Vec3::new(1.0, 0.5, 1.0))
            .unwrap()
            .mass_properties(2.0);
        let combined = MassProperties::combine(&parts);
        assert!((combined.mass - whole.mass).abs() < 1e-4);
        assert!(combined.local_center.length() < 1e-5);
        assert!(
            (combined.inertia - whole.inertia).abs_diff_eq(Mat3::ZERO, 1e-3),
            "{:?} vs {:?}",
            combined.inertia,
            whole.inertia
        );
        let half2 = Shape::<D2>::cuboid(Vec2::new(0.5, 0.5))
            .unwrap()
            .mass_properties(1.0);
        let parts2 = [
            (half2, Pose::new(Vec2::new(-0.5, 0.0), 0.0)),
            (half2, Pose::new(Vec2::new(0.5, 0.0), 1.0)),
        ];
        let whole2 = Shape::<D2>::cuboid(Vec2::new(1.0, 0.5))
            .unwrap()
            .mass_properties(1.0);
        let combined2 = MassProperties::combine(&parts2);
        assert!(
            (combined2.inertia - whole2.inertia).abs() < 1e-4
                && (combined2.mass - whole2.mass).abs() < 1e-5
        );
    }

    #[test]
    fn cuboid_inertia_matches_formula() {
        let m = Shape::<D3>::cuboid(Vec3::new(0.5, 1.0, 1.5))
            .unwrap()
            .mass_properties(1.0);
        assert!((m.mass - 6.0).abs() < 1e-5);
        assert!((m.inertia.x_axis.x - 6.0 * (4.0 + 9.0) / 12.0).abs() < 1e-4);
    }
}
