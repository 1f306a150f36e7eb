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

    /// The face of a box with these half extents whose outward normal is
    /// nearest `dir`: its corners in order around it, and how many there
    /// are (an edge's 2 in 2D, a face's 4 in 3D).
    fn cuboid_face(half_extents: Self::Vector, dir: Self::Vector) -> ([Self::Vector; 4], usize);
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

    fn cuboid_face(h: Vec2, dir: Vec2) -> ([Vec2; 4], usize) {
        let mut face = [Vec2::ZERO; 4];
        if dir.x.abs() >= dir.y.abs() {
            let x = h.x.copysign(dir.x);
            face[..2].copy_from_slice(&[Vec2::new(x, -h.y), Vec2::new(x, h.y)]);
        } else {
            let y = h.y.copysign(dir.y);
            face[..2].copy_from_slice(&[Vec2::new(-h.x, y), Vec2::new(h.x, y)]);
        }
        (face, 2)
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

    fn cuboid_face(h: Vec3, dir: Vec3) -> ([Vec3; 4], usize) {
        let a = dir.abs();
        let axis = if a.x >= a.y && a.x >= a.z {
            0
        } else if a.y >= a.z {
            1
        } else {
            2
        };
        let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
        let face = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(su, sv)| {
            let mut corner = Vec3::ZERO;
            corner[axis] = h[axis].copysign(dir[axis]);
            corner[u] = su * h[u];
            corner[v] = sv * h[v];
            corner
        });
        (face, 4)
    }
}
