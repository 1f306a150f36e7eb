//! GJK's simplex solver in 3D: the closest point to the origin on a point,
//! segment, triangle or tetrahedron, and the smallest sub-simplex holding it.
//! A triangle by projecting on its plane and checking the weights, else its
//! edges; a tetrahedron by the faces the origin lies outside of. Flat
//! triangles and tetrahedra fall back to their edges and faces, so no
//! division by a zero area or volume ever happens.

use glam::Vec3;

use super::simplex::{closest_on_segment, point_or_segment_direction, reduce_segment, Simplex};

/// Reduces `s` to the feature closest to the origin and returns that point
/// (the origin itself when a tetrahedron contains it).
pub fn reduce(s: &mut Simplex<Vec3>) -> Vec3 {
    match s.len {
        1 => s.points[0].w,
        2 => reduce_segment(s),
        3 => {
            let (p, idx, w, n) = closest_on_triangle(s, [0, 1, 2]);
            s.keep(&idx[..n], &w[..n]);
            p
        }
        _ => reduce_tetrahedron(s),
    }
}

/// The unit direction of `v` made exactly normal to the simplex's feature: a
/// triangle's normal, oriented like `v`, or `v` off a segment.
pub fn feature_direction(s: &Simplex<Vec3>, v: Vec3) -> Vec3 {
    if s.len == 3 {
        let [a, b, c] = [s.points[0].w, s.points[1].w, s.points[2].w];
        if let Some(n) = (b - a).cross(c - a).try_normalize() {
            return if n.dot(v) < 0.0 { -n } else { n };
        }
    }
    point_or_segment_direction(s, v)
}

type Feature = (Vec3, [usize; 3], [f32; 3], usize);

fn vertex(s: &Simplex<Vec3>, i: usize) -> Feature {
    (s.points[i].w, [i, 0, 0], [1.0, 0.0, 0.0], 1)
}

fn edge(s: &Simplex<Vec3>, i: usize, j: usize) -> Feature {
    let (p, idx, w, n) = closest_on_segment(s, i, j);
    (p, [idx[0], idx[1], 0], [w[0], w[1], 0.0], n)
}

/// Closest point to the origin on triangle `t` of `s`: the origin projected
/// on the plane when its barycentric weights (by cross products with the
/// normal) are all >= 0, else the closest point of the edges. Products of
/// dot products (Voronoi regions by determinants) lose every digit on a long
/// thin triangle, as GJK meets between a box and a large ground.
fn closest_on_triangle(s: &Simplex<Vec3>, t: [usize; 3]) -> Feature {
    let [ia, ib, ic] = t;
    let (a, b, c) = (s.points[ia].w, s.points[ib].w, s.points[ic].w);
    let n = (b - a).cross(c - a);
    let nn = n.length_squared();
    if !(nn > 0.0 && nn.is_finite()) {
        return closest_of_edges(s, ia, ib, ic);
    }
    let p = n * (n.dot(a) / nn);
    let wa = n.dot((b - p).cross(c - p)) / nn;
    let wb = n.dot((c - p).cross(a - p)) / nn;
    let wc = 1.0 - wa - wb;
    if wa >= 0.0 && wb >= 0.0 && wc >= 0.0 {
        (p, [ia, ib, ic], [wa, wb, wc], 3)
    } else {
        closest_of_edges(s, ia, ib, ic)
    }
}

/// A flat triangle: the best of its three edges.
fn closest_of_edges(s: &Simplex<Vec3>, ia: usize, ib: usize, ic: usize) -> Feature {
    [edge(s, ia, ib), edge(s, ib, ic), edge(s, ic, ia)]
        .into_iter()
        .min_by(|x, y| x.0.length_squared().total_cmp(&y.0.length_squared()))
        .unwrap_or_else(|| vertex(s, ia))
}

/// True when the origin is strictly outside face `t` (opposite vertex `k`),
/// or the tetrahedron is too flat to tell.
fn origin_outside_face(s: &Simplex<Vec3>, t: [usize; 3], k: usize) -> bool {
    let a = s.points[t[0]].w;
    let n = (s.points[t[1]].w - a).cross(s.points[t[2]].w - a);
    let side_of_origin = n.dot(-a);
    let side_of_k = n.dot(s.points[k].w - a);
    side_of_k == 0.0 || side_of_origin * side_of_k < 0.0
}

fn reduce_tetrahedron(s: &mut Simplex<Vec3>) -> Vec3 {
    const FACES: [([usize; 3], usize); 4] = [
        ([0, 1, 2], 3),
        ([0, 3, 1], 2),
        ([0, 2, 3], 1),
        ([1, 3, 2], 0),
    ];
    let mut best: Option<(f32, Feature)> = None;
    for &(t, k) in &FACES {
        if !origin_outside_face(s, t, k) {
            continue;
        }
        let f = closest_on_triangle(s, t);
        let d = f.0.length_squared();
        if best.is_none_or(|b| d < b.0) {
            best = Some((d, f));
        }
    }
    match best {
        Some((_, (p, idx, w, n))) => {
            s.keep(&idx[..n], &w[..n]);
            p
        }
        None => {
            keep_tetrahedron_weights(s);
            Vec3::ZERO
        }
    }
}

/// The origin is inside: its barycentric weights by signed volumes.
fn keep_tetrahedron_weights(s: &mut Simplex<Vec3>) {
    let [a, b, c, d] = [s.points[0].w, s.points[1].w, s.points[2].w, s.points[3].w];
    let volume = (b - a).dot((c - a).cross(d - a));
    let wb = (-a).dot((c - a).cross(d - a)) / volume;
    let wc = (b - a).dot((-a).cross(d - a)) / volume;
    let wd = (b - a).dot((c - a).cross(-a)) / volume;
    s.keep(&[0, 1, 2, 3], &[1.0 - wb - wc - wd, wb, wc, wd]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::narrow_phase::SupportPoint;

    fn simplex(points: &[Vec3]) -> Simplex<Vec3> {
        let mut s = Simplex::single(SupportPoint {
            w: points[0],
            a: points[0],
            b: Vec3::ZERO,
        });
        for &p in &points[1..] {
            s.push(SupportPoint {
                w: p,
                a: p,
                b: Vec3::ZERO,
            });
        }
        s
    }

    #[test]
    fn tetrahedron_holding_origin_keeps_all() {
        let mut s = simplex(&[
            Vec3::new(1.0, -1.0, -1.0),
            Vec3::new(-1.0, -1.0, -1.0),
            Vec3::new(0.0, -1.0, 1.0),
            Vec3::new(0.0, 1.0, 0.0),
        ]);
        assert_eq!(reduce(&mut s), Vec3::ZERO);
        assert_eq!(s.len, 4);
        assert!(s.combine(|p| p.w).length() < 1e-6);
    }

    #[test]
    fn triangle_face_region() {
        let mut s = simplex(&[
            Vec3::new(-1.0, 1.0, -1.0),
            Vec3::new(1.0, 1.0, -1.0),
            Vec3::new(0.0, 1.0, 1.0),
        ]);
        let p = reduce(&mut s);
        assert!((p - Vec3::Y).length() < 1e-6);
        assert_eq!(s.len, 3);
        assert!((s.combine(|q| q.w) - p).length() < 1e-6);
    }

    #[test]
    fn tetrahedron_reduces_to_nearest_edge() {
        let mut s = simplex(&[
            Vec3::new(-1.0, 1.0, 1.0),
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(0.0, 3.0, 2.0),
            Vec3::new(0.0, 2.0, 4.0),
        ]);
        let p = reduce(&mut s);
        assert!((p - Vec3::new(0.0, 1.0, 1.0)).length() < 1e-6);
        assert_eq!(s.len, 2);
    }

    #[test]
    fn flat_tetrahedron_is_finite() {
        let mut s = simplex(&[
            Vec3::new(-1.0, 1.0, -1.0),
            Vec3::new(1.0, 1.0, -1.0),
            Vec3::new(0.0, 1.0, 1.0),
            Vec3::new(0.5, 1.0, 0.0),
        ]);
        let p = reduce(&mut s);
        assert!((p - Vec3::Y).length() < 1e-5);
    }
}
