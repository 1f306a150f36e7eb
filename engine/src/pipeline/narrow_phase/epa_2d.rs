//! EPA in 2D: penetration depth, normal and witness points of two overlapping
//! convex sets, from the simplex GJK ends with. Twin of `epa_3d`.
//!
//! 1. Grow GJK's simplex to a triangle: a point gains the farthest support
//!    along the axes, a segment the farthest across it.
//! 2. Keep the polygon counter-clockwise, each edge with its outward normal
//!    and distance to the origin.
//! 3. Take the closest edge and the support point `w` along its normal. When
//!    `w` is no farther than the edge (within the tolerance) the edge is on
//!    the boundary: done.
//! 4. Otherwise insert `w` between the edge's ends (it lies on the boundary
//!    arc between them, so the polygon stays convex) and repeat.
//! 5. Project the origin on the closest edge; its barycentric coordinates
//!    combine each vertex's own support points into the witness points.
//!
//! Limits: [`MAX_ITERATIONS`]; a degenerate new edge or one closer than the
//! edge it replaces (rounding) stops the expansion with the closest edge so
//! far as the answer, never NaN.

use std::cell::Cell;

use glam::Vec2;

use super::epa_start::{grow_to_full, touching, HullGrowth, MAX_GROWTH_DIRECTIONS};
use super::trace::{EpaStep, Observer};
use super::{PairSupport, Penetration, Simplex, SupportPoint};

/// Cap on expansions; boxes need a handful, curved shapes more.
pub const MAX_ITERATIONS: u32 = 128;

/// Edge `i` runs from vertex `i` to vertex `i + 1` (counter-clockwise).
#[derive(Copy, Clone, Debug)]
struct Edge {
    normal: Vec2,
    distance: f32,
}

#[derive(Default)]
struct Polygon {
    vertices: Vec<SupportPoint<Vec2>>,
    edges: Vec<Edge>,
}

thread_local! {
    /// The last polygon's buffers, kept for the next query on this thread:
    /// the narrow phase runs EPA for thousands of pairs a step.
    static BUFFERS: Cell<Polygon> = const {
        Cell::new(Polygon { vertices: Vec::new(), edges: Vec::new() })
    };
}

/// Penetration of the pair whose Minkowski difference `pair` is, given GJK's
/// overlapping `simplex`. `tolerance` is absolute, in metres.
pub fn penetration<P: PairSupport<Vec2>>(
    pair: &P,
    simplex: &Simplex<Vec2>,
    tolerance: f32,
) -> Penetration<Vec2> {
    penetration_observed(pair, simplex, tolerance, &mut ())
}

/// [`penetration`], reporting every iteration to `observer`.
pub fn penetration_observed<P: PairSupport<Vec2>, O: Observer<Vec2>>(
    pair: &P,
    simplex: &Simplex<Vec2>,
    tolerance: f32,
    observer: &mut O,
) -> Penetration<Vec2> {
    let triangle = match grow_to_full::<_, _, 3>(pair, simplex, tolerance) {
        Ok(t) => t,
        Err(flat_normal) => return touching(simplex, flat_normal),
    };
    let Some(mut polygon) = Polygon::from_triangle(triangle, BUFFERS.take()) else {
        return touching(simplex, Vec2::Y);
    };
    let penetration = polygon.converge(pair, tolerance, observer);
    BUFFERS.set(polygon);
    penetration
}

impl HullGrowth for Vec2 {
    /// A point grows along the axes, a segment to both sides of it.
    fn growth_directions(hull: &[SupportPoint<Vec2>]) -> ([Vec2; MAX_GROWTH_DIRECTIONS], usize) {
        match hull.len() {
            1 => (
                [
                    Vec2::X,
                    Vec2::NEG_X,
                    Vec2::Y,
                    Vec2::NEG_Y,
                    Vec2::ZERO,
                    Vec2::ZERO,
                ],
                4,
            ),
            _ => {
                let n = (hull[1].w - hull[0].w).perp().normalize_or(Vec2::Y);
                ([n, -n, n, -n, n, -n], 2)
            }
        }
    }

    fn distance_from_hull(hull: &[SupportPoint<Vec2>], w: Vec2) -> f32 {
        let r = w - hull[0].w;
        match hull.len() {
            1 => r.length(),
            _ => r
                .dot((hull[1].w - hull[0].w).perp().normalize_or_zero())
                .abs(),
        }
    }
}

/// The outward edge from `a` to `b` of a counter-clockwise polygon.
fn edge(a: Vec2, b: Vec2) -> Option<Edge> {
    let normal = Vec2::new(b.y - a.y, a.x - b.x).try_normalize()?;
    Some(Edge {
        normal,
        distance: 0.5 * (normal.dot(a) + normal.dot(b)),
    })
}

impl Polygon {
    /// Step 2: the triangle, counter-clockwise, with its edges, in the
    /// buffers of `reused`.
    fn from_triangle(mut t: [SupportPoint<Vec2>; 3], mut reused: Polygon) -> Option<Self> {
        if (t[1].w - t[0].w).perp_dot(t[2].w - t[0].w) < 0.0 {
            t.swap(1, 2);
        }
        reused.edges.clear();
        for i in 0..3 {
            reused.edges.push(edge(t[i].w, t[(i + 1) % 3].w)?);
        }
        reused.vertices.clear();
        reused.vertices.extend_from_slice(&t);
        Some(reused)
    }

    /// Steps 3 to 5: expands until the closest edge is on the boundary (or
    /// the cap), then the witnesses.
    fn converge<P: PairSupport<Vec2>, O: Observer<Vec2>>(
        &mut self,
        pair: &P,
        tolerance: f32,
        observer: &mut O,
    ) -> Penetration<Vec2> {
        let mut iterations = 0;
        loop {
            let closest = self.closest_edge();
            let edge = self.edges[closest];
            let w = pair.support_point(edge.normal);
            if O::ENABLED {
                observer.epa_step(self.snapshot(closest, w.w));
            }
            let gap = edge.normal.dot(w.w) - edge.distance;
            if gap <= tolerance || iterations >= MAX_ITERATIONS || !gap.is_finite() {
                return self.witness(closest, iterations);
            }
            iterations += 1;
            if !self.insert(closest, w, edge.distance - tolerance) {
                return self.witness(closest, iterations);
            }
        }
    }

    /// The polygon as an [`EpaStep`], for tracing.
    fn snapshot(&self, closest: usize, support: Vec2) -> EpaStep<Vec2> {
        let n = self.vertices.len() as u32;
        let edge = self.edges[closest];
        EpaStep {
            vertices: self.vertices.iter().map(|v| v.w).collect(),
            faces: (0..n).map(|i| vec![i, (i + 1) % n]).collect(),
            closest,
            distance: edge.distance,
            normal: edge.normal,
            support,
        }
    }

    /// Index of the edge closest to the origin (the first among equals).
    fn closest_edge(&self) -> usize {
        let mut best = 0;
        for (i, e) in self.edges.iter().enumerate() {
            if e.distance < self.edges[best].distance {
                best = i;
            }
        }
        best
    }

    /// Step 4: inserts `w` between edge `i`'s ends. False when a new edge is
    /// degenerate or closer than `floor` (rounding broke convexity).
    fn insert(&mut self, i: usize, w: SupportPoint<Vec2>, floor: f32) -> bool {
        let j = (i + 1) % self.vertices.len();
        let (Some(first), Some(second)) =
            (edge(self.vertices[i].w, w.w), edge(w.w, self.vertices[j].w))
        else {
            return false;
        };
        if first.distance < floor || second.distance < floor {
            return false;
        }
        self.vertices.insert(i + 1, w);
        self.edges[i] = first;
        self.edges.insert(i + 1, second);
        true
    }

    /// Step 5: depth, normal and witnesses from edge `i`.
    fn witness(&self, i: usize, iterations: u32) -> Penetration<Vec2> {
        let e = self.edges[i];
        let a = self.vertices[i];
        let b = self.vertices[(i + 1) % self.vertices.len()];
        let p = e.normal * e.distance;
        let ab = b.w - a.w;
        let t = ((p - a.w).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
        let t = if t.is_finite() { t } else { 0.5 };
        Penetration {
            depth: e.distance.max(0.0),
            normal: e.normal,
            point_a: a.a + (b.a - a.a) * t,
            point_b: a.b + (b.b - a.b) * t,
            iterations,
        }
    }
}
