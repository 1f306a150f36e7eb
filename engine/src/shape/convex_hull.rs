//! 3D convex polyhedron: the hull of a point cloud.

use glam::Vec3;

use super::{MassProperties, ShapeError, SupportMap};
use crate::math::D3;

/// A convex polyhedron: hull vertices and outward, counter-clockwise triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    bounding_radius: f32,
}

impl ConvexHull {
    /// The convex hull of `points`. See [`super::Shape::convex_hull`].
    pub fn new(points: &[Vec3]) -> Result<Self, ShapeError> {
        let _ = points;
        todo!("helper")
    }

    /// Hull vertices (interior points dropped), local frame.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Boundary triangles as vertex indices, counter-clockwise seen from outside.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Largest vertex distance from the local origin.
    pub fn bounding_radius(&self) -> f32 {
        self.bounding_radius
    }

    pub(crate) fn mass_properties(&self, density: f32) -> MassProperties<D3> {
        let _ = density;
        todo!("helper")
    }
}

impl SupportMap<Vec3> for ConvexHull {
    fn support(&self, dir: Vec3) -> Vec3 {
        let mut best = self.vertices[0];
        let mut best_dot = best.dot(dir);
        for &v in &self.vertices[1..] {
            let d = v.dot(dir);
            if d > best_dot {
                best = v;
                best_dot = d;
            }
        }
        best
    }
}
