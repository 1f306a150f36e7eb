//! 2D convex polygon: the hull of a point set.

use glam::Vec2;

use super::{MassProperties, ShapeError, SupportMap};
use crate::math::D2;

/// A convex polygon, vertices counter-clockwise, no three collinear.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    vertices: Vec<Vec2>,
    bounding_radius: f32,
}

impl ConvexPolygon {
    /// The convex hull of `points`. See [`super::Shape::convex_polygon`].
    pub fn new(points: &[Vec2]) -> Result<Self, ShapeError> {
        let _ = points;
        todo!("helper")
    }

    /// Vertices in counter-clockwise order, local frame.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// Largest vertex distance from the local origin.
    pub fn bounding_radius(&self) -> f32 {
        self.bounding_radius
    }

    pub(crate) fn mass_properties(&self, density: f32) -> MassProperties<D2> {
        let _ = density;
        todo!("helper")
    }
}

impl SupportMap<Vec2> for ConvexPolygon {
    fn support(&self, dir: Vec2) -> Vec2 {
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
