//! The GJK simplex: up to D+1 vertices of the Minkowski difference, each with
//! the two shapes' support points it came from, and the barycentric weights of
//! the simplex point closest to the origin. The segment case is shared by 2D
//! and 3D; triangles and tetrahedra live in `simplex_2d` and `simplex_3d`.

use crate::math::Vector;

/// A vertex of the Minkowski difference A - B: `w = a - b`.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct SupportPoint<V> {
    /// The Minkowski difference vertex.
    pub w: V,
    /// A's support point.
    pub a: V,
    /// B's support point.
    pub b: V,
}

/// Up to four support points and the barycentric weights of the closest point.
#[derive(Copy, Clone, Debug, Default)]
pub struct Simplex<V> {
    /// Vertices; only the first `len` are used.
    pub points: [SupportPoint<V>; 4],
    /// Barycentric weights of the closest point, same order as `points`.
    pub weights: [f32; 4],
    /// Number of vertices in use.
    pub len: usize,
}

impl<V: Vector> Simplex<V> {
    /// The simplex with one vertex.
    pub fn single(p: SupportPoint<V>) -> Self {
        let mut s = Self {
            len: 1,
            ..Default::default()
        };
        s.points[0] = p;
        s.weights[0] = 1.0;
        s
    }

    /// Appends a vertex (the caller keeps `len <= 4`).
    pub fn push(&mut self, p: SupportPoint<V>) {
        self.points[self.len] = p;
        self.len += 1;
    }

    /// The vertices in use.
    pub fn vertices(&self) -> &[SupportPoint<V>] {
        &self.points[..self.len]
    }

    /// Keeps only the listed vertices with the given weights.
    pub fn keep(&mut self, indices: &[usize], weights: &[f32]) {
        let old = self.points;
        for (slot, (&i, &w)) in indices.iter().zip(weights).enumerate() {
            self.points[slot] = old[i];
            self.weights[slot] = w;
        }
        self.len = indices.len();
    }

    /// The weighted combination of `w`, `a` or `b` of the kept vertices.
    pub fn combine(&self, pick: impl Fn(&SupportPoint<V>) -> V) -> V {
        let mut sum = V::ZERO;
        for (p, &w) in self.vertices().iter().zip(&self.weights) {
            sum += pick(p) * w;
        }
        sum
    }
}

/// Closest point to the origin on segment `points[i]..points[j]`: the kept
/// indices and their weights (one or two).
pub(crate) fn closest_on_segment<V: Vector>(
    s: &Simplex<V>,
    i: usize,
    j: usize,
) -> (V, [usize; 2], [f32; 2], usize) {
    let a = s.points[i].w;
    let b = s.points[j].w;
    let ab = b - a;
    let denom = ab.length_squared();
    let t = if denom > 0.0 {
        (-a.dot(ab) / denom).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if t <= 0.0 {
        (a, [i, j], [1.0, 0.0], 1)
    } else if t >= 1.0 {
        (b, [j, i], [1.0, 0.0], 1)
    } else {
        (a + ab * t, [i, j], [1.0 - t, t], 2)
    }
}

/// Reduces a segment simplex to its closest feature; returns the closest point.
pub(crate) fn reduce_segment<V: Vector>(s: &mut Simplex<V>) -> V {
    let (p, idx, w, n) = closest_on_segment(s, 0, 1);
    s.keep(&idx[..n], &w[..n]);
    p
}

/// The unit direction of `v` for a point or segment simplex; on a segment,
/// `v` loses any component along the segment first.
pub(crate) fn point_or_segment_direction<V: Vector>(s: &Simplex<V>, v: V) -> V {
    let mut dir = v;
    if s.len == 2 {
        let edge = s.points[1].w - s.points[0].w;
        let len_sq = edge.length_squared();
        if len_sq > 0.0 {
            dir -= edge * (dir.dot(edge) / len_sq);
        }
    }
    let len = dir.length();
    if len > 0.0 && len.is_finite() {
        dir * (1.0 / len)
    } else {
        let len = v.length();
        if len > 0.0 {
            v * (1.0 / len)
        } else {
            V::axes()[1]
        }
    }
}
