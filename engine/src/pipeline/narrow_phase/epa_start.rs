//! What EPA does alike in 2D and 3D before it expands (`epa_2d`,
//! `epa_3d`): GJK's simplex grown to a full one (a triangle in 2D, a
//! tetrahedron in 3D), and the answer when the shapes only touch.
//!
//! 1. Keep GJK's vertices that lie farther than the tolerance from every
//!    vertex kept before them.
//! 2. While the hull is not full, look along each of the dimension's
//!    growth directions for the hull's size (`HullGrowth`: the axes for a
//!    point, directions across a segment, both sides of a triangle) and
//!    take the support point farthest from the hull.
//! 3. When no direction finds a point farther than the tolerance, the
//!    Minkowski difference is flat: the first direction is its normal.
//!
//! Limits: at most `N - 1` growths, each of at most six support queries.

use super::{PairSupport, Penetration, Simplex, SupportPoint};
use crate::math::Vector;

/// The most directions a hull is grown along at once (3D: six around a
/// segment).
pub(super) const MAX_GROWTH_DIRECTIONS: usize = 6;

/// How a dimension grows a hull of fewer points than a full simplex.
pub(super) trait HullGrowth: Vector {
    /// Where to look for a point off `hull` (1 to D points), and how many
    /// of the directions are used.
    fn growth_directions(hull: &[SupportPoint<Self>]) -> ([Self; MAX_GROWTH_DIRECTIONS], usize);
    /// How far `w` lies from the point, line or plane of `hull`.
    fn distance_from_hull(hull: &[SupportPoint<Self>], w: Self) -> f32;
}

/// Steps 1 to 3: a full simplex of `N` points (D + 1) from GJK's
/// `simplex`, or the normal of the flat set the Minkowski difference lies
/// in (the shapes only touch).
pub(super) fn grow_to_full<V: HullGrowth, P: PairSupport<V>, const N: usize>(
    pair: &P,
    simplex: &Simplex<V>,
    tolerance: f32,
) -> Result<[SupportPoint<V>; N], V> {
    let mut points: [SupportPoint<V>; N] = [SupportPoint::default(); N];
    let mut len = 0;
    for p in simplex.vertices() {
        if len < N
            && points[..len]
                .iter()
                .all(|q| (q.w - p.w).length() > tolerance)
        {
            points[len] = *p;
            len += 1;
        }
    }
    while len < N {
        let hull = &points[..len];
        let (directions, count) = V::growth_directions(hull);
        let mut best: Option<(f32, SupportPoint<V>)> = None;
        for &d in &directions[..count] {
            let p = pair.support_point(d);
            let gain = V::distance_from_hull(hull, p.w);
            if best.is_none_or(|(g, _)| gain > g) {
                best = Some((gain, p));
            }
        }
        match best {
            Some((gain, p)) if gain > tolerance => {
                points[len] = p;
                len += 1;
            }
            _ => return Err(directions[0]),
        }
    }
    Ok(points)
}

/// The Minkowski difference is flat (or the shapes only touch): depth 0
/// along the flat set's normal, witnesses from GJK's simplex.
pub(super) fn touching<V: Vector>(simplex: &Simplex<V>, normal: V) -> Penetration<V> {
    Penetration {
        depth: 0.0,
        normal,
        point_a: simplex.combine(|p| p.a),
        point_b: simplex.combine(|p| p.b),
        iterations: 0,
    }
}
