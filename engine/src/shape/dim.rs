//! What shapes add to [`MathDim`]: the general convex shape and mass.

use core::fmt::Debug;

use super::{
    mass, ConvexHull, ConvexPolygon, FacetGeometry, MassProperties, PolytopeShape, ShapeKind,
};
use crate::math::{MathDim, D2, D3};

/// A spatial dimension's shapes: [`D2`] or [`D3`]; its vectors know the
/// geometry of facets (segments or triangles).
pub trait ShapeDim: MathDim<Vector: FacetGeometry> {
    /// The general convex shape: a polygon (2D) or a polyhedron (3D).
    type Hull: PolytopeShape<Self::Vector> + Clone + Debug + PartialEq + Send + Sync + 'static;

    /// Mass, centre of mass and inertia of a shape of uniform `density` (kg/m² in 2D, kg/m³ in 3D).
    fn mass_properties(shape: &ShapeKind<Self>, density: f32) -> MassProperties<Self>;
}

impl ShapeDim for D2 {
    type Hull = ConvexPolygon;

    fn mass_properties(shape: &ShapeKind<D2>, density: f32) -> MassProperties<D2> {
        mass::mass_properties_2d(shape, density)
    }
}

impl ShapeDim for D3 {
    type Hull = ConvexHull;

    fn mass_properties(shape: &ShapeKind<D3>, density: f32) -> MassProperties<D3> {
        mass::mass_properties_3d(shape, density)
    }
}
