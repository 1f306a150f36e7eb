//! 2D convex polygon: the hull of a point set, its support function and its
//! mass properties.
//!
//! Building a polygon ([`ConvexPolygon::new`]):
//!
//! 1. Reject any point with a NaN or infinite component, then fewer than 3
//!    points.
//! 2. Widen the points to `f64` (f32 inputs are then exact and the orientation
//!    tests nearly so), sort them by x then y and drop exact duplicates.
//! 3. Build the exact hull with Andrew's monotone chain: a lower and an upper
//!    chain, popping every point that does not make a strict left turn, which
//!    drops interior points and points lying exactly on an edge.
//! 4. Drop nearly collinear vertices: walking from the sharpest corner, a
//!    vertex is merged into a longer edge when it (and every vertex merged
//!    before it into that edge) lies within `1e-6 × extent` of the edge, so the
//!    result never moves the outline by more than that tolerance
//!    (`nearly_collinear_points_are_merged`, `dense_circle_stays_round`).
//! 5. Refuse the result as degenerate when its area is at most
//!    `1e-6 × extent²` (`extent` is the diagonal of the points' bounding box).
//!
//! Mass properties come from a triangle fan around the vertex mean (an
//! interior point, which keeps the arithmetic well conditioned far from the
//! origin), summed in `f64` and shifted to the centroid.
//!
//! Limits: vertices stay in the caller's local frame (nothing is recentred);
//! the support function is a linear scan, meant for the small vertex counts of
//! physics shapes; the near-collinear merge spends a bounded amount of work
//! and keeps the remaining vertices unmerged if that budget runs out.

use core::cmp::Ordering;

use glam::{DVec2, Vec2};

use super::{MassProperties, ShapeError, SupportMap};
use crate::math::D2;

/// Vertices closer than this fraction of the points' extent to the edge that
/// would replace them are merged into it.
const COLLINEAR_TOLERANCE: f64 = 1e-6;

/// A polygon whose area is at most this fraction of the squared extent is
/// refused as degenerate (all points on one line).
const AREA_TOLERANCE: f64 = 1e-6;

/// Point-to-edge checks the near-collinear merge may spend per hull vertex.
const MERGE_WORK_PER_VERTEX: usize = 64;

/// The smallest width across an edge of the counter-clockwise polygon `vertices`.
fn thickness(vertices: &[Vec2]) -> f32 {
    let n = vertices.len();
    (0..n)
        .filter_map(|i| {
            let (a, b) = (vertices[i], vertices[(i + 1) % n]);
            let inward = (b - a).perp().try_normalize()?;
            Some(
                vertices
                    .iter()
                    .map(|&v| inward.dot(v - a))
                    .fold(0.0, f32::max),
            )
        })
        .fold(f32::INFINITY, f32::min)
}

/// A convex polygon, vertices counter-clockwise, no three collinear.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConvexPolygon {
    vertices: Vec<Vec2>,
    bounding_radius: f32,
    /// Smallest width across an edge, metres (see [`ConvexPolygon::thickness`]).
    thickness: f32,
    /// The average of the vertices: a point well inside (see
    /// [`super::Shape::inner_point`]).
    inner_point: Vec2,
}

impl ConvexPolygon {
    /// The convex hull of `points`. See [`super::Shape::convex_polygon`].
    ///
    /// The vertices are counter-clockwise in the points' own frame; interior
    /// points, duplicates and (nearly) collinear points on edges are dropped.
    ///
    /// Errors: [`ShapeError::NotFinite`] if a component is NaN or infinite,
    /// [`ShapeError::TooFewPoints`] for fewer than 3 points,
    /// [`ShapeError::Degenerate`] when the points span no area.
    pub fn new(points: &[Vec2]) -> Result<Self, ShapeError> {
        if points.iter().any(|p| !p.is_finite()) {
            return Err(ShapeError::NotFinite {
                what: "polygon point",
            });
        }
        if points.len() < 3 {
            return Err(ShapeError::TooFewPoints {
                needed: 3,
                got: points.len(),
            });
        }
        let degenerate = ShapeError::Degenerate {
            reason: "all points lie on one line",
        };

        let mut sorted: Vec<DVec2> = points.iter().map(|p| p.as_dvec2()).collect();
        sorted.sort_by(|a, b| lexicographic(*a, *b));
        sorted.dedup();

        let extent = extent(&sorted);
        if !(extent > 0.0 && extent.is_finite()) {
            return Err(degenerate);
        }
        let exact = monotone_chain(&sorted);
        let ring = merge_collinear(&exact, COLLINEAR_TOLERANCE * extent);
        if ring.len() < 3 || signed_area(&ring) <= AREA_TOLERANCE * extent * extent {
            return Err(degenerate);
        }

        let vertices: Vec<Vec2> = ring.iter().map(|p| p.as_vec2()).collect();
        let bounding_radius = vertices.iter().map(|v| v.length()).fold(0.0, f32::max);
        let thickness = thickness(&vertices);
        let inner_point = vertices.iter().sum::<Vec2>() / vertices.len() as f32;
        Ok(Self {
            vertices,
            bounding_radius,
            thickness,
            inner_point,
        })
    }

    /// The smallest width of the polygon across one of its edges, metres:
    /// the least distance between an edge's line and the farthest vertex
    /// behind it (for a box, its shorter side).
    pub fn thickness(&self) -> f32 {
        self.thickness
    }

    /// The average of the vertices, local frame: strictly inside.
    pub fn inner_point(&self) -> Vec2 {
        self.inner_point
    }

    /// Vertices in counter-clockwise order, local frame.
    pub fn vertices(&self) -> &[Vec2] {
        &self.vertices
    }

    /// Largest vertex distance from the local origin.
    pub fn bounding_radius(&self) -> f32 {
        self.bounding_radius
    }

    /// Mass (`density × area`), centroid in the local frame and polar moment
    /// of inertia about the centroid (kg·m²) for a uniform `density` in kg/m².
    ///
    /// Exact for the polygon: a triangle fan around the vertex mean, summed in
    /// `f64`, then shifted to the centroid with the parallel axis theorem.
    pub(crate) fn mass_properties(&self, density: f32) -> MassProperties<D2> {
        let count = self.vertices.len().max(1) as f64;
        let reference = self
            .vertices
            .iter()
            .fold(DVec2::ZERO, |sum, v| sum + v.as_dvec2())
            / count;

        let mut area = 0.0;
        let mut first_moment = DVec2::ZERO;
        let mut polar_moment = 0.0;
        for (a, b) in edges(&self.vertices) {
            let a = a.as_dvec2() - reference;
            let b = b.as_dvec2() - reference;
            // Triangle (reference, a, b): twice its signed area is a × b.
            let cross = a.perp_dot(b);
            area += 0.5 * cross;
            first_moment += (a + b) * (cross / 6.0);
            polar_moment += cross / 12.0 * (a.dot(a) + a.dot(b) + b.dot(b));
        }

        let offset = if area > 0.0 {
            first_moment / area
        } else {
            DVec2::ZERO
        };
        let about_centroid = (polar_moment - area * offset.length_squared()).max(0.0);
        let density = f64::from(density);
        MassProperties {
            mass: (density * area) as f32,
            local_center: (reference + offset).as_vec2(),
            inertia: (density * about_centroid) as f32,
        }
    }
}

impl SupportMap<Vec2> for ConvexPolygon {
    /// The vertex farthest along `dir` (the first one on ties), by linear scan.
    fn support(&self, dir: Vec2) -> Vec2 {
        let mut vertices = self.vertices.iter().copied();
        let Some(mut best) = vertices.next() else {
            return Vec2::ZERO;
        };
        let mut best_dot = best.dot(dir);
        for v in vertices {
            let d = v.dot(dir);
            if d > best_dot {
                best = v;
                best_dot = d;
            }
        }
        best
    }
}

/// Order by x, then y (all components are finite here).
fn lexicographic(a: DVec2, b: DVec2) -> Ordering {
    a.x.partial_cmp(&b.x)
        .unwrap_or(Ordering::Equal)
        .then(a.y.partial_cmp(&b.y).unwrap_or(Ordering::Equal))
}

/// Diagonal length of the points' bounding box.
fn extent(points: &[DVec2]) -> f64 {
    let init = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY));
    let (min, max) = points
        .iter()
        .fold(init, |(min, max), p| (min.min(*p), max.max(*p)));
    if points.is_empty() {
        0.0
    } else {
        (max - min).length()
    }
}

/// Twice the signed area of the triangle `o, a, b`: positive for a left turn.
fn turn(o: DVec2, a: DVec2, b: DVec2) -> f64 {
    (a - o).perp_dot(b - o)
}

/// Andrew's monotone chain over lexicographically sorted, distinct points:
/// the hull counter-clockwise, only strict corners kept.
fn monotone_chain(sorted: &[DVec2]) -> Vec<DVec2> {
    let mut lower: Vec<DVec2> = Vec::with_capacity(sorted.len());
    for &p in sorted {
        push_convex(&mut lower, p);
    }
    let mut upper: Vec<DVec2> = Vec::with_capacity(sorted.len());
    for &p in sorted.iter().rev() {
        push_convex(&mut upper, p);
    }
    // Each chain ends where the other starts.
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// Push `p` onto a hull chain after popping every point that would not make
/// a strict left turn. Each pass pops one point, so the loop is bounded.
fn push_convex(chain: &mut Vec<DVec2>, p: DVec2) {
    while let [.., o, a] = chain[..] {
        if turn(o, a, p) > 0.0 {
            break;
        }
        chain.pop();
    }
    chain.push(p);
}

/// How far `p` lies to the right of (outside) the directed edge `a → b` of a
/// counter-clockwise polygon.
fn outside_distance(a: DVec2, b: DVec2, p: DVec2) -> f64 {
    let edge = b - a;
    let length = edge.length();
    if length > 0.0 {
        -edge.perp_dot(p - a) / length
    } else {
        (p - a).length()
    }
}

/// Merge runs of nearly collinear vertices of a convex counter-clockwise ring
/// into single edges, moving the outline by at most `tolerance`.
///
/// Starts at the sharpest corner, then grows each edge greedily while every
/// vertex it skips stays within `tolerance` of it. Work is capped; when the
/// budget runs out the remaining vertices are kept as they are.
fn merge_collinear(ring: &[DVec2], tolerance: f64) -> Vec<DVec2> {
    let m = ring.len();
    if m <= 3 {
        return ring.to_vec();
    }
    let corner = |i: usize| -> f64 {
        match (
            ring.get((i + m - 1) % m),
            ring.get(i),
            ring.get((i + 1) % m),
        ) {
            (Some(&prev), Some(&here), Some(&next)) => outside_distance(prev, next, here),
            _ => 0.0,
        }
    };
    let start = (0..m).fold(0, |best, i| if corner(i) > corner(best) { i } else { best });
    // The ring rotated to start at the sharpest corner, closed by repeating it.
    let closed: Vec<DVec2> = (0..=m)
        .filter_map(|k| ring.get((start + k) % m).copied())
        .collect();

    let mut kept: Vec<DVec2> = closed.first().copied().into_iter().collect();
    let mut budget = MERGE_WORK_PER_VERTEX * m;
    let mut anchor = 0;
    let mut end = 2;
    // `end` grows by one every pass, so this runs at most `m` times.
    while end < closed.len() {
        let skipped = closed.get(anchor + 1..end).unwrap_or(&[]);
        let fits = match (closed.get(anchor), closed.get(end)) {
            (Some(&a), Some(&b)) if budget >= skipped.len() => {
                budget -= skipped.len();
                skipped
                    .iter()
                    .all(|&p| outside_distance(a, b, p) <= tolerance)
            }
            _ => false,
        };
        if !fits {
            anchor = end - 1;
            kept.extend(closed.get(anchor).copied());
        }
        end += 1;
    }
    kept
}

/// Consecutive vertex pairs of a closed polygon, the last back to the first.
fn edges<T: Copy>(ring: &[T]) -> impl Iterator<Item = (T, T)> + '_ {
    ring.iter()
        .copied()
        .zip(ring.iter().copied().cycle().skip(1))
}

/// Signed area of a polygon (positive when counter-clockwise).
fn signed_area(ring: &[DVec2]) -> f64 {
    0.5 * edges(ring).map(|(a, b)| a.perp_dot(b)).sum::<f64>()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_ccw_convex(vertices: &[Vec2]) -> bool {
        let n = vertices.len();
        (0..n).all(|i| {
            let (o, a, b) = (vertices[i], vertices[(i + 1) % n], vertices[(i + 2) % n]);
            (a - o).perp_dot(b - o) > 0.0
        })
    }

    #[test]
    fn square_drops_interior_collinear_and_duplicate_points() {
        let points = [
            Vec2::new(0.0, 0.0),
            Vec2::new(0.5, 0.5),
            Vec2::new(2.0, 0.0),
            Vec2::new(1.0, 0.0), // on an edge
            Vec2::new(2.0, 2.0),
            Vec2::new(2.0, 1.3), // on an edge
            Vec2::new(0.0, 2.0),
            Vec2::new(1.0, 1.0), // interior
            Vec2::new(2.0, 2.0), // duplicate
            Vec2::new(0.0, 1.0), // on an edge
        ];
        let polygon = ConvexPolygon::new(&points).unwrap();
        assert_eq!(polygon.vertices().len(), 4);
        assert!(is_ccw_convex(polygon.vertices()));
        for corner in [
            Vec2::ZERO,
            Vec2::new(2.0, 0.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(0.0, 2.0),
        ] {
            assert!(polygon.vertices().contains(&corner));
        }
        assert!((polygon.bounding_radius() - 8f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn nearly_collinear_points_are_merged() {
        // Points along the bottom edge off the line by float rounding only.
        let mut points = vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(3.0, 0.0),
            Vec2::new(3.0, 3.0),
            Vec2::new(0.0, 3.0),
        ];
        for i in 1..30 {
            points.push(Vec2::new(0.1 * i as f32, -1e-8 * (i % 3) as f32));
        }
        let polygon = ConvexPolygon::new(&points).unwrap();
        assert_eq!(polygon.vertices().len(), 4);
        assert!(is_ccw_convex(polygon.vertices()));
    }

    #[test]
    fn dense_circle_stays_round() {
        let points: Vec<Vec2> = (0..2000)
            .map(|i| {
                let t = i as f32 / 2000.0 * core::f32::consts::TAU;
                Vec2::new(libm::cosf(t), libm::sinf(t))
            })
            .collect();
        let polygon = ConvexPolygon::new(&points).unwrap();
        assert!(is_ccw_convex(polygon.vertices()));
        // Every input point stays within the merge tolerance of the outline.
        let tol = 1e-5;
        for p in &points {
            let n = polygon.vertices().len();
            let inside = (0..n).all(|i| {
                let (a, b) = (polygon.vertices()[i], polygon.vertices()[(i + 1) % n]);
                outside_distance(a.as_dvec2(), b.as_dvec2(), p.as_dvec2()) <= tol
            });
            assert!(inside);
        }
        let area = polygon.mass_properties(1.0).mass;
        assert!((area - core::f32::consts::PI).abs() < 1e-3);
    }

    #[test]
    fn rejects_bad_input() {
        let line = [
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(2.0, 2.0),
            Vec2::new(-3.0, -3.0),
        ];
        assert_eq!(
            ConvexPolygon::new(&line),
            Err(ShapeError::Degenerate {
                reason: "all points lie on one line"
            })
        );
        let same = [Vec2::ONE; 5];
        assert!(matches!(
            ConvexPolygon::new(&same),
            Err(ShapeError::Degenerate { .. })
        ));
        let nan = [Vec2::ZERO, Vec2::X, Vec2::new(f32::NAN, 1.0)];
        assert_eq!(
            ConvexPolygon::new(&nan),
            Err(ShapeError::NotFinite {
                what: "polygon point"
            })
        );
        let inf = [Vec2::ZERO, Vec2::X, Vec2::new(0.0, f32::INFINITY)];
        assert!(matches!(
            ConvexPolygon::new(&inf),
            Err(ShapeError::NotFinite { .. })
        ));
        assert_eq!(
            ConvexPolygon::new(&[Vec2::ZERO, Vec2::X]),
            Err(ShapeError::TooFewPoints { needed: 3, got: 2 })
        );
        assert!(matches!(
            ConvexPolygon::new(&[]),
            Err(ShapeError::TooFewPoints { got: 0, .. })
        ));
    }

    #[test]
    fn rectangle_mass_matches_box_formula() {
        let (w, h, density) = (2.0f32, 0.5f32, 3.0f32);
        let points = [
            Vec2::new(-1.0, -0.25),
            Vec2::new(1.0, -0.25),
            Vec2::new(1.0, 0.25),
            Vec2::new(-1.0, 0.25),
        ];
        let m = ConvexPolygon::new(&points)
            .unwrap()
            .mass_properties(density);
        let mass = density * w * h;
        assert!((m.mass - mass).abs() < 1e-5);
        assert!(m.local_center.length() < 1e-6);
        assert!((m.inertia - mass * (w * w + h * h) / 12.0).abs() < 1e-5);
    }

    #[test]
    fn offset_polygon_keeps_its_frame() {
        // A unit square far from the origin, and a right triangle.
        let offset = Vec2::new(1000.0, -250.0);
        let square: Vec<Vec2> = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y]
            .iter()
            .map(|p| *p + offset)
            .collect();
        let polygon = ConvexPolygon::new(&square).unwrap();
        assert!(polygon.vertices().contains(&offset));
        let m = polygon.mass_properties(2.0);
        assert!((m.mass - 2.0).abs() < 1e-5);
        assert!((m.local_center - (offset + Vec2::splat(0.5))).length() < 1e-4);
        assert!((m.inertia - 2.0 * 2.0 / 12.0).abs() < 1e-5);

        let triangle = [
            Vec2::new(1.0, 1.0),
            Vec2::new(4.0, 1.0),
            Vec2::new(1.0, 7.0),
        ];
        let m = ConvexPolygon::new(&triangle).unwrap().mass_properties(1.0);
        assert!((m.mass - 9.0).abs() < 1e-5);
        assert!((m.local_center - Vec2::new(2.0, 3.0)).length() < 1e-5);
        // Right triangle with legs a, b: polar moment about its centroid m(a² + b²)/18.
        assert!((m.inertia - 9.0 * (9.0 + 36.0) / 18.0).abs() < 1e-3);
    }

    #[test]
    fn support_picks_the_extreme_vertex() {
        let points = [
            Vec2::new(-1.0, -1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, 1.0),
        ];
        let polygon = ConvexPolygon::new(&points).unwrap();
        assert_eq!(polygon.support(Vec2::new(2.0, 0.5)), Vec2::new(1.0, 1.0));
        assert_eq!(
            polygon.support(Vec2::new(-0.1, -3.0)),
            Vec2::new(-1.0, -1.0)
        );
    }
}
