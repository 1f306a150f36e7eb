//! GJK's simplex solver in 2D: the closest point to the origin on a point,
//! segment or triangle, and the smallest sub-simplex that holds it.
//! Twin of `simplex_3d`, one dimension down: a triangle is to 2D what a
//! tetrahedron is to 3D.

use glam::Vec2;

use super::simplex::{closest_on_segment, point_or_segment_direction, reduce_segment, Simplex};

/// Reduces `s` to the feature closest to the origin and returns that point
/// (the origin itself when a triangle contains it).
pub fn reduce(s: &mut Simplex<Vec2>) -> Vec2 {
    let point = match s.len {
        1 => s.points[0].w,
        2 => reduce_segment(s),
        _ => reduce_triangle(s),
    };
    if s.len == 2 {
        project_on_line(s).unwrap_or(point)
    } else {
        point
    }
}

/// The origin projected on the line of a segment simplex. Far more exact
/// than the weighted ends when the segment is long and the origin close to
/// it: the line's normal keeps the digits the weights lose.
fn project_on_line(s: &Simplex<Vec2>) -> Option<Vec2> {
    let a = s.points[0].w;
    let n = (s.points[1].w - a).perp().try_normalize()?;
    Some(n * n.dot(a))
}

/// The unit direction of `v` made exactly normal to the simplex's feature.
pub fn feature_direction(s: &Simplex<Vec2>, v: Vec2) -> Vec2 {
    point_or_segment_direction(s, v)
}

/// True when the origin lies strictly outside edge `i`-`j` of a triangle whose
/// third vertex is `k`, or the triangle is too flat to tell.
fn origin_outside_edge(s: &Simplex<Vec2>, i: usize, j: usize, k: usize) -> bool {
    let a = s.points[i].w;
    let edge = s.points[j].w - a;
    let side_of_origin = edge.perp_dot(-a);
    let side_of_k = edge.perp_dot(s.points[k].w - a);
    side_of_k == 0.0 || side_of_origin * side_of_k < 0.0
}

/// Closest point on a segment, kept indices, weights and how many are kept.
type SegmentFeature = (Vec2, [usize; 2], [f32; 2], usize);

fn reduce_triangle(s: &mut Simplex<Vec2>) -> Vec2 {
    const EDGES: [(usize, usize, usize); 3] = [(0, 1, 2), (1, 2, 0), (2, 0, 1)];
    let mut best: Option<(f32, SegmentFeature)> = None;
    for &(i, j, k) in &EDGES {
        if !origin_outside_edge(s, i, j, k) {
            continue;
        }
        let feature = closest_on_segment(s, i, j);
        let d = feature.0.length_squared();
        if best.is_none_or(|b| d < b.0) {
            best = Some((d, feature));
        }
    }
    match best {
        Some((_, (p, idx, w, n))) => {
            s.keep(&idx[..n], &w[..n]);
            p
        }
        None => {
            keep_triangle_weights(s);
            Vec2::ZERO
        }
    }
}

/// The origin is inside: its barycentric weights by signed areas.
fn keep_triangle_weights(s: &mut Simplex<Vec2>) {
    let [a, b, c] = [s.points[0].w, s.points[1].w, s.points[2].w];
    let area = (b - a).perp_dot(c - a);
    let wa = b.perp_dot(c) / area;
    let wb = c.perp_dot(a) / area;
    s.keep(&[0, 1, 2], &[wa, wb, 1.0 - wa - wb]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::narrow_phase::SupportPoint;

    fn simplex(points: &[Vec2]) -> Simplex<Vec2> {
        let mut s = Simplex::single(SupportPoint {
            w: points[0],
            a: points[0],
            b: Vec2::ZERO,
        });
        for &p in &points[1..] {
            s.push(SupportPoint {
                w: p,
                a: p,
                b: Vec2::ZERO,
            });
        }
        s
    }

    #[test]
    fn triangle_holding_origin_keeps_all() {
        let mut s = simplex(&[
            Vec2::new(-1.0, -1.0),
            Vec2::new(1.0, -1.0),
            Vec2::new(0.0, 1.0),
        ]);
        assert_eq!(reduce(&mut s), Vec2::ZERO);
        assert_eq!(s.len, 3);
        assert!(s.combine(|p| p.w).length() < 1e-6);
    }

    #[test]
    fn triangle_reduces_to_closest_edge() {
        let mut s = simplex(&[
            Vec2::new(-1.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(0.0, 3.0),
        ]);
        let p = reduce(&mut s);
        assert!((p - Vec2::new(0.0, 1.0)).length() < 1e-6);
        assert_eq!(s.len, 2);
    }

    #[test]
    fn collinear_triangle_gives_closest_segment_point() {
        let mut s = simplex(&[
            Vec2::new(-1.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(3.0, 1.0),
        ]);
        let p = reduce(&mut s);
        assert!((p - Vec2::new(0.0, 1.0)).length() < 1e-6);
        assert!(p.is_finite());
    }
}
