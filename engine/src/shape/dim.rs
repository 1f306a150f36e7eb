//! What shapes add to [`MathDim`]: the general convex shape and mass.

use core::fmt::Debug;

use super::{
    mass, ConvexHull, ConvexPolygon, FacetGeometry, MassProperties, PolytopeShape, ShapeKind,
};
use crate::math::{MathDim, MaybeSerde, D2, D3};
use glam::{Vec2, Vec3};

/// A spatial dimension's shapes: [`D2`] or [`D3`]; its vectors know the
/// geometry of facets (segments or triangles).
pub trait ShapeDim: MathDim<Vector: FacetGeometry> {
    /// The general convex shape: a polygon (2D) or a polyhedron (3D).
    type Hull: PolytopeShape<Self::Vector>
        + Clone
        + Debug
        + PartialEq
        + Send
        + Sync
        + MaybeSerde
        + 'static;

    /// Mass, centre of mass and inertia of a shape of uniform `density` (kg/m² in 2D, kg/m³ in 3D).
    fn mass_properties(shape: &ShapeKind<Self>, density: f32) -> MassProperties<Self>;

    /// The corners of a box with these half extents, and how many there
    /// are (4 in 2D, 8 in 3D).
    fn cuboid_corners(half_extents: Self::Vector) -> ([Self::Vector; 8], usize);
}

impl ShapeDim for D2 {
    type Hull = ConvexPolygon;

    fn mass_properties(shape: &ShapeKind<D2>, density: f32) -> MassProperties<D2> {
        mass::mass_properties_2d(shape, density)
    }

    fn cuboid_corners(h: Vec2) -> ([Vec2; 8], usize) {
        let mut corners = [Vec2::ZERO; 8];
        for (k, c) in corners.iter_mut().take(4).enumerate() {
            let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            *c = Vec2::new(sign(1) * h.x, sign(2) * h.y);
        }
        (corners, 4)
    }
}

impl ShapeDim for D3 {
    type Hull = ConvexHull;

    fn mass_properties(shape: &ShapeKind<D3>, density: f32) -> MassProperties<D3> {
        mass::mass_properties_3d(shape, density)
    }

    fn cuboid_corners(h: Vec3) -> ([Vec3; 8], usize) {
        let mut corners = [Vec3::ZERO; 8];
        for (k, c) in corners.iter_mut().enumerate() {
            let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
            *c = Vec3::new(sign(1) * h.x, sign(2) * h.y, sign(4) * h.z);
        }
        (corners, 8)
    }
}
