//! GJK: distance and closest points between two convex sets, or a simplex of
//! their Minkowski difference that holds the origin when they overlap.
//!
//! 1. Start from the support point along a first direction; `v` is the point
//!    of the simplex closest to the origin.
//! 2. Take the support point `w` along `-v`. `v·w / |v|` is a lower bound on
//!    the distance and `|v|` an upper bound: stop when they meet within the
//!    tolerance, or as soon as the lower bound exceeds the caller's margin.
//! 3. Add `w`, reduce the simplex to the feature closest to the origin
//!    (`NarrowPhaseDim::reduce_simplex`), and repeat.
//! 4. A full simplex (D+1 points) or `|v|` below the tolerance means overlap:
//!    the simplex goes to EPA.
//!
//! Limits: at most [`MAX_ITERATIONS`] iterations; a step that fails to bring
//! `v` closer (rounding) ends the search with the best simplex so far, as does
//! a repeated support point (van den Bergen, *Collision Detection in
//! Interactive 3D Environments*, 4.3).

use super::NarrowPhaseDim;
use super::{PairSupport, Simplex};
use crate::math::Vector;

/// Cap on GJK iterations; polytopes need about 3, rarely over 20.
pub const MAX_ITERATIONS: u32 = 64;

/// Closest points of two separated shapes, in the frame GJK ran in.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ClosestPoints<V> {
    /// Distance between the shapes, > 0.
    pub distance: f32,
    /// Closest point on A.
    pub point_a: V,
    /// Closest point on B.
    pub point_b: V,
    /// Unit direction from A towards B: the closest feature's normal, exact
    /// even when the distance is tiny.
    pub normal: V,
}

/// What GJK found.
#[derive(Copy, Clone, Debug)]
pub enum GjkResult<V> {
    /// Farther apart than the margin: no closest points computed, only a
    /// lower bound on the distance (0 when the search met non-finite values).
    Apart {
        /// The distance is at least this, metres.
        lower_bound: f32,
    },
    /// Apart, at most the margin away, with the closest points.
    Separated(ClosestPoints<V>),
    /// Overlapping or touching within the tolerance: a simplex holding the
    /// origin (fewer than D+1 points when the origin lies on its boundary).
    Overlapping(Simplex<V>),
}

/// Runs GJK on `pair` (the Minkowski difference A - B).
///
/// `first_dir` seeds the search (any non-zero direction; the previous frame's
/// works best). `margin`: report [`GjkResult::Apart`] as soon as the distance
/// is proven larger (use `f32::INFINITY` for exact distances). `tolerance`:
/// absolute distance precision in metres.
pub fn gjk<D: NarrowPhaseDim, P: PairSupport<D::Vector>>(
    pair: &P,
    first_dir: D::Vector,
    margin: f32,
    tolerance: f32,
) -> GjkResult<D::Vector> {
    let dir = if first_dir.length_squared() > 0.0 {
        first_dir
    } else {
        D::Vector::axes()[0]
    };
    let mut simplex = Simplex::single(pair.support_point(dir));
    let mut v = simplex.points[0].w;
    let mut dist_sq = v.length_squared();
    for _ in 0..MAX_ITERATIONS {
        if dist_sq <= tolerance * tolerance {
            return GjkResult::Overlapping(simplex);
        }
        if !dist_sq.is_finite() {
            return GjkResult::Apart { lower_bound: 0.0 };
        }
        let w = pair.support_point(-v);
        // w is the support along -v, so the set lies where x·v >= v·w:
        // v·w / |v| is a lower bound on the distance, |v| an upper bound.
        let vw = v.dot(w.w);
        let lower_bound_exceeds_margin = vw > 0.0 && vw * vw > margin * margin * dist_sq;
        if margin.is_finite() && lower_bound_exceeds_margin {
            return GjkResult::Apart {
                lower_bound: vw / dist_sq.sqrt(),
            };
        }
        let converged = dist_sq - vw <= tolerance * dist_sq.sqrt();
        let repeated = simplex.vertices().iter().any(|p| p.w == w.w);
        if converged || repeated {
            return separated::<D>(&simplex, v, dist_sq);
        }
        let previous = simplex;
        simplex.push(w);
        let next_v = D::reduce_simplex(&mut simplex);
        if simplex.len == D::N + 1 {
            return GjkResult::Overlapping(simplex);
        }
        // Search along the closest feature's exact normal: next to a long
        // feature the tiny tilt of `v` that decides the next support point is
        // below the rounding of its weighted vertices.
        let next_dist_sq = next_v.length_squared();
        let next_v = D::feature_direction(&simplex, next_v) * next_dist_sq.sqrt();
        if next_dist_sq >= dist_sq || next_dist_sq.is_nan() {
            // Rounding stalled the descent. A new feature as close as the
            // old one (a face met edge-on) is kept: its normal is the exact one.
            if next_dist_sq.sqrt() <= dist_sq.sqrt() + tolerance {
                return separated::<D>(&simplex, next_v, next_dist_sq);
            }
            return separated::<D>(&previous, v, dist_sq);
        }
        v = next_v;
        dist_sq = next_dist_sq;
    }
    if dist_sq <= tolerance * tolerance {
        GjkResult::Overlapping(simplex)
    } else {
        separated::<D>(&simplex, v, dist_sq)
    }
}

fn separated<D: NarrowPhaseDim>(
    simplex: &Simplex<D::Vector>,
    v: D::Vector,
    dist_sq: f32,
) -> GjkResult<D::Vector> {
    GjkResult::Separated(ClosestPoints {
        distance: dist_sq.sqrt(),
        point_a: simplex.combine(|p| p.a),
        point_b: simplex.combine(|p| p.b),
        normal: -D::feature_direction(simplex, v),
    })
}
