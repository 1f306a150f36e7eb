//! Narrow phase: exact contact between two convex shapes.
//!
//! How [`contact`] works:
//! 1. Express B in A's local frame, so f32 keeps its precision far from the
//!    world origin.
//! 2. Run GJK ([`gjk`]) on the shapes' *cores* (a ball's centre, a capsule's
//!    segment, a polytope itself). When the cores are apart by more than the
//!    summed radii there is no contact; when they are apart by less, the
//!    closest core points and the normal of the closest feature give the
//!    contact exactly.
//! 3. When the cores overlap, EPA ([`epa_2d`], [`epa_3d`]) expands GJK's
//!    simplex to the closest face of the cores' Minkowski difference. That
//!    difference is always a polytope (possibly flat, as for two crossing
//!    segments, where EPA reports the flat set's normal), so EPA converges
//!    exactly and never has to chase a curved surface; concentric balls,
//!    whose difference is round, would need millions of faces.
//! 4. Push each witness out by its shape's radius; map back to world space.
//!
//! Conventions: the normal points from A to B; moving B by `depth * normal`
//! separates the pair. `point_a` lies on A's surface, `point_b` on B's, and
//! `point_a - point_b = depth * normal`.

pub mod epa_2d;
pub mod epa_3d;
pub mod gjk;
mod simplex;
pub mod simplex_2d;
pub mod simplex_3d;

pub use simplex::{Simplex, SupportPoint};

use crate::math::{Dim, Pose, Vector};
use crate::shape::{Shape, SupportMap};
use gjk::GjkResult;

/// Relative tolerance of the iterative algorithms, times the pair's size.
const RELATIVE_TOLERANCE: f32 = 1e-6;

/// The contact between two overlapping shapes, in world space.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Contact<D: Dim> {
    /// Penetration depth in metres, >= 0: the length of the shortest
    /// translation of B that separates the pair.
    pub depth: f32,
    /// Unit normal from A towards B: moving B by `depth * normal` separates them.
    pub normal: D::Vector,
    /// Witness point on A's surface (the deepest point of A inside B).
    pub point_a: D::Vector,
    /// Witness point on B's surface; `point_a - point_b = depth * normal`.
    pub point_b: D::Vector,
}

/// EPA's answer in the frame it ran in (A's local frame).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Penetration<V> {
    /// Distance from the origin to the closest face of the Minkowski difference A - B.
    pub depth: f32,
    /// That face's outward unit normal: from A towards B.
    pub normal: V,
    /// Witness on A.
    pub point_a: V,
    /// Witness on B.
    pub point_b: V,
    /// EPA iterations used.
    pub iterations: u32,
}

/// The support function of the Minkowski difference A - B, with both shapes'
/// own support points kept for the witnesses.
pub trait PairSupport<V> {
    /// The vertex of A - B farthest along `dir`.
    fn support_point(&self, dir: V) -> SupportPoint<V>;
}

/// Two support maps in A's local frame; B placed by `b_in_a`.
pub(crate) struct MinkowskiPair<'s, D: Dim, A, B> {
    a: &'s A,
    b: &'s B,
    b_in_a: Pose<D>,
}

impl<'s, D: Dim, A: SupportMap<D::Vector>, B: SupportMap<D::Vector>> MinkowskiPair<'s, D, A, B> {
    pub(crate) fn new(a: &'s A, b: &'s B, b_in_a: Pose<D>) -> Self {
        Self { a, b, b_in_a }
    }
}

impl<D: Dim, A: SupportMap<D::Vector>, B: SupportMap<D::Vector>> PairSupport<D::Vector>
    for MinkowskiPair<'_, D, A, B>
{
    #[inline]
    fn support_point(&self, dir: D::Vector) -> SupportPoint<D::Vector> {
        let a = self.a.support(dir);
        let b = self.b_in_a.transform_point(self.b.support(self.b_in_a.inverse_transform_vector(-dir)));
        SupportPoint { w: a - b, a, b }
    }
}

/// A shape seen without its radius: the core GJK runs on.
struct Core<'s, D: Dim>(&'s Shape<D>);

impl<D: Dim> SupportMap<D::Vector> for Core<'_, D> {
    #[inline]
    fn support(&self, dir: D::Vector) -> D::Vector {
        self.0.core_support(dir)
    }
}

/// The size that scales the pair's tolerances.
struct PairScale {
    /// Larger bounding radius of the two shapes.
    size: f32,
}

impl PairScale {
    fn new<D: Dim>(a: &Shape<D>, b: &Shape<D>) -> Self {
        Self { size: a.bounding_radius().max(b.bounding_radius()) }
    }

    fn tolerance(&self) -> f32 {
        RELATIVE_TOLERANCE * self.size
    }
}

/// The contact between `a` at `pose_a` and `b` at `pose_b`, or `None` when
/// they do not overlap. See the module docs for conventions.
///
/// Poses holding NaN or infinities give `None`.
pub fn contact<D: Dim>(a: &Shape<D>, pose_a: &Pose<D>, b: &Shape<D>, pose_b: &Pose<D>) -> Option<Contact<D>> {
    if !(pose_a.is_finite() && pose_b.is_finite()) {
        return None;
    }
    let b_in_a = pose_a.inv_mul(pose_b);
    let local = contact_local(a, b, &b_in_a)?;
    Some(Contact {
        depth: local.depth,
        normal: pose_a.transform_vector(local.normal),
        point_a: pose_a.transform_point(local.point_a),
        point_b: pose_a.transform_point(local.point_b),
    })
}

/// [`contact`] in A's local frame, with B placed by `b_in_a`.
pub(crate) fn contact_local<D: Dim>(a: &Shape<D>, b: &Shape<D>, b_in_a: &Pose<D>) -> Option<Penetration<D::Vector>> {
    let scale = PairScale::new(a, b);
    let radii = a.radius() + b.radius();
    let (core_a, core_b) = (Core(a), Core(b));
    let cores = MinkowskiPair::new(&core_a, &core_b, *b_in_a);
    let core = match gjk::gjk::<D, _>(&cores, -b_in_a.translation, radii, scale.tolerance()) {
        GjkResult::Apart => return None,
        GjkResult::Separated(closest) if closest.distance > radii => return None,
        GjkResult::Separated(closest) => Penetration {
            depth: -closest.distance,
            normal: closest.normal,
            point_a: closest.point_a,
            point_b: closest.point_b,
            iterations: 0,
        },
        GjkResult::Overlapping(simplex) => D::epa(&cores, &simplex, scale.tolerance()),
    };
    Some(grow_by_radii(core, a.radius(), b.radius()))
}

/// The contact of the full shapes from that of their cores (`depth < 0` when
/// the cores are apart): each witness moves out by its shape's radius.
fn grow_by_radii<V: Vector>(core: Penetration<V>, radius_a: f32, radius_b: f32) -> Penetration<V> {
    Penetration {
        depth: (core.depth + radius_a + radius_b).max(0.0),
        normal: core.normal,
        point_a: core.point_a + core.normal * radius_a,
        point_b: core.point_b - core.normal * radius_b,
        iterations: core.iterations,
    }
}

/// The distance between `a` at `pose_a` and `b` at `pose_b` in metres; 0 when
/// they overlap, infinity when a pose holds NaN or infinities.
pub fn distance<D: Dim>(a: &Shape<D>, pose_a: &Pose<D>, b: &Shape<D>, pose_b: &Pose<D>) -> f32 {
    if !(pose_a.is_finite() && pose_b.is_finite()) {
        return f32::INFINITY;
    }
    let b_in_a = pose_a.inv_mul(pose_b);
    let scale = PairScale::new(a, b);
    let (core_a, core_b) = (Core(a), Core(b));
    let cores = MinkowskiPair::new(&core_a, &core_b, b_in_a);
    match gjk::gjk::<D, _>(&cores, -b_in_a.translation, f32::INFINITY, scale.tolerance()) {
        GjkResult::Separated(closest) => (closest.distance - a.radius() - b.radius()).max(0.0),
        GjkResult::Overlapping(_) => 0.0,
        GjkResult::Apart => f32::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};
    use glam::{Quat, Vec2, Vec3};

    fn local3(a: &Shape<D3>, b: &Shape<D3>, t: Vec3, q: Quat) -> Option<Penetration<Vec3>> {
        contact_local(a, b, &Pose::new(t, q))
    }

    #[test]
    fn ball_against_its_own_copy_offset_slightly() {
        let ball = Shape::<D3>::ball(0.875).unwrap();
        let hit = local3(&ball, &ball, Vec3::new(-2.4e-5, -6.3e-5, 2.4e-5), Quat::IDENTITY).unwrap();
        let exact = 1.75 - Vec3::new(-2.4e-5, -6.3e-5, 2.4e-5).length();
        assert!((hit.depth - exact).abs() < 1e-4, "depth {} vs {exact}, {} iterations", hit.depth, hit.iterations);
    }
}
#[cfg(test)]
mod scratch {
    use super::*;
    use crate::math::D3;
    use glam::{Quat, Vec3};
    #[test]
    fn scratch_case() {
        let a = Shape::<D3>::cuboid(Vec3::new(253.38387258569284,221.14075952809975,166.18344665383847)).unwrap();
        let b = Shape::<D3>::cuboid(Vec3::new(0.29749452171721047,0.31870204405459324,0.21347356157336206)).unwrap();
        let pa = Pose::new(Vec3::ZERO, Quat::from_xyzw(0.06430520682954015,-0.16107758341621203,0.05394300387094644,0.9833661600994732));
        let pb = Pose::new(Vec3::new(261.81828159309475,263.401109751032,-49.9659946577055), Quat::from_xyzw(0.3064201827587376,0.25132121231843624,0.7532256579668871,-0.52497183545143));
        let c = contact_local(&a, &b, &pa.inv_mul(&pb));
        eprintln!("{c:?}");
    }
}
