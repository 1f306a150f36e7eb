//! Narrow phase: exact contact between two convex shapes.
//!
//! How [`contact`] works:
//! 1. Express B in A's local frame, so f32 keeps its precision far from the
//!    world origin.
//! 2. Run GJK ([`gjk`]) on the shapes' *cores* (a ball's centre, a capsule's
//!    segment, a polytope itself). When the cores are apart by more than the
//!    summed radii there is no contact; when they are apart by less, the
//!    closest core points give depth, normal and witnesses exactly.
//! 3. Otherwise the shapes are deep (or both polytopes): GJK on the full
//!    shapes gives a simplex holding the origin, and EPA ([`epa_2d`],
//!    [`epa_3d`]) expands it to the closest face of the Minkowski difference.
//! 4. Map the result back to world space.
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
/// Below this fraction of the pair's coordinate size, two cores count as
/// touching and the full shapes go to EPA, whose normal is then exact.
const CORE_CONTACT_FRACTION: f32 = 1e-3;

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

/// Sizes that scale the pair's tolerances.
struct PairScale {
    /// Larger bounding radius of the two shapes.
    size: f32,
    /// Largest coordinate magnitude the pair's computation meets in A's frame.
    coordinates: f32,
}

impl PairScale {
    fn new<D: Dim>(a: &Shape<D>, b: &Shape<D>, b_in_a: &Pose<D>) -> Self {
        let size = a.bounding_radius().max(b.bounding_radius());
        Self { size, coordinates: size + b_in_a.translation.length() }
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
    let scale = PairScale::new(a, b, b_in_a);
    let radii = a.radius() + b.radius();
    let (core_a, core_b) = (Core(a), Core(b));
    let cores = MinkowskiPair::new(&core_a, &core_b, *b_in_a);
    let first_dir = -b_in_a.translation;
    match gjk::gjk::<D, _>(&cores, first_dir, radii, scale.tolerance()) {
        GjkResult::Apart => None,
        GjkResult::Separated(closest) => {
            if closest.distance > radii {
                return None;
            }
            if closest.distance > CORE_CONTACT_FRACTION * scale.coordinates {
                return Some(rounded_contact(a.radius(), b.radius(), &closest));
            }
            deep_contact(a, b, b_in_a, &scale)
        }
        GjkResult::Overlapping(simplex) if radii == 0.0 => {
            Some(D::epa(&cores, &simplex, scale.tolerance()))
        }
        GjkResult::Overlapping(_) => deep_contact(a, b, b_in_a, &scale),
    }
}

/// Contact of two rounded shapes whose cores are apart: the closest core
/// points pushed out by each radius.
fn rounded_contact<V: Vector>(radius_a: f32, radius_b: f32, closest: &gjk::ClosestPoints<V>) -> Penetration<V> {
    let normal = (closest.point_b - closest.point_a) * (1.0 / closest.distance);
    Penetration {
        depth: radius_a + radius_b - closest.distance,
        normal,
        point_a: closest.point_a + normal * radius_a,
        point_b: closest.point_b - normal * radius_b,
        iterations: 0,
    }
}

/// Contact of the full shapes (radius included) by GJK then EPA.
fn deep_contact<D: Dim>(a: &Shape<D>, b: &Shape<D>, b_in_a: &Pose<D>, scale: &PairScale) -> Option<Penetration<D::Vector>> {
    let full = MinkowskiPair::new(a, b, *b_in_a);
    match gjk::gjk::<D, _>(&full, -b_in_a.translation, 0.0, scale.tolerance()) {
        GjkResult::Overlapping(simplex) => Some(D::epa(&full, &simplex, scale.tolerance())),
        GjkResult::Apart | GjkResult::Separated(_) => None,
    }
}

/// The distance between `a` at `pose_a` and `b` at `pose_b` in metres; 0 when
/// they overlap, infinity when a pose holds NaN or infinities.
pub fn distance<D: Dim>(a: &Shape<D>, pose_a: &Pose<D>, b: &Shape<D>, pose_b: &Pose<D>) -> f32 {
    if !(pose_a.is_finite() && pose_b.is_finite()) {
        return f32::INFINITY;
    }
    let b_in_a = pose_a.inv_mul(pose_b);
    let scale = PairScale::new(a, b, &b_in_a);
    let (core_a, core_b) = (Core(a), Core(b));
    let cores = MinkowskiPair::new(&core_a, &core_b, b_in_a);
    match gjk::gjk::<D, _>(&cores, -b_in_a.translation, f32::INFINITY, scale.tolerance()) {
        GjkResult::Separated(closest) => (closest.distance - a.radius() - b.radius()).max(0.0),
        GjkResult::Overlapping(_) => 0.0,
        GjkResult::Apart => f32::INFINITY,
    }
}
