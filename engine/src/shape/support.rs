//! Support functions: the farthest point of a shape along a direction, the
//! one query GJK and EPA ask of a shape.

use crate::math::Vector;

/// A convex set known by its support function.
pub trait SupportMap<V> {
    /// The point of the set farthest along `dir` (local frame). `dir` need not
    /// be unit length; a zero `dir` gives some point of the set.
    fn support(&self, dir: V) -> V;
}

/// A box's support: the corner whose signs follow `dir`.
#[inline]
pub(crate) fn cuboid_support<V: Vector>(half_extents: V, dir: V) -> V {
    half_extents.copysign(dir)
}
