//! What the narrow phase adds to [`ShapeDim`]: GJK's simplex solver and EPA,
//! each written twice ([`simplex_2d`], [`simplex_3d`], [`epa_2d`], [`epa_3d`]).

use glam::{Vec2, Vec3};

use super::trace::Observer;
use super::{
    box_faces, epa_2d, epa_3d, simplex_2d, simplex_3d, PairSupport, Penetration, ShapeContact,
    Simplex,
};
use crate::math::Pose;
use crate::math::{D2, D3};
use crate::shape::Shape;
use crate::shape::ShapeDim;

/// A spatial dimension's contact algorithms: [`D2`] or [`D3`].
pub trait NarrowPhaseDim: ShapeDim {
    /// Reduces a GJK simplex to the smallest sub-simplex whose hull holds the
    /// point closest to the origin, and returns that point.
    fn reduce_simplex(simplex: &mut Simplex<Self::Vector>) -> Self::Vector;
    /// The unit direction of `v`, the simplex's closest point, made exactly
    /// normal to the simplex's feature so that rounding in `v` cannot tilt it.
    fn feature_direction(simplex: &Simplex<Self::Vector>, v: Self::Vector) -> Self::Vector;
    /// EPA from an overlapping GJK simplex: penetration of `pair` (see [`epa_2d`], [`epa_3d`]).
    fn epa<S: PairSupport<Self::Vector>, O: Observer<Self::Vector>>(
        pair: &S,
        simplex: &Simplex<Self::Vector>,
        tolerance: f32,
        observer: &mut O,
    ) -> Penetration<Self::Vector>;
    /// Two boxes face to face, one of them thin: the incident face
    /// clipped to the reference face, each point within `margin` handed
    /// to `found`; false, having found nothing, for any other pair
    /// (`box_faces`, 3D only: in 2D the perturbation's two tilts already
    /// show a face's two corners).
    fn box_face_contacts(
        shapes: [(&Shape<Self>, &Pose<Self>); 2],
        normal: Self::Vector,
        margin: f32,
        found: &mut impl FnMut(ShapeContact<Self>),
    ) -> bool;
}

impl NarrowPhaseDim for D2 {
    #[inline]
    fn reduce_simplex(simplex: &mut Simplex<Vec2>) -> Vec2 {
        simplex_2d::reduce(simplex)
    }
    fn feature_direction(simplex: &Simplex<Vec2>, v: Vec2) -> Vec2 {
        simplex_2d::feature_direction(simplex, v)
    }
    fn epa<S: PairSupport<Vec2>, O: Observer<Vec2>>(
        pair: &S,
        simplex: &Simplex<Vec2>,
        tolerance: f32,
        observer: &mut O,
    ) -> Penetration<Vec2> {
        epa_2d::penetration_observed(pair, simplex, tolerance, observer)
    }
    fn box_face_contacts(
        _shapes: [(&Shape<D2>, &Pose<D2>); 2],
        _normal: Vec2,
        _margin: f32,
        _found: &mut impl FnMut(ShapeContact<D2>),
    ) -> bool {
        false
    }
}

impl NarrowPhaseDim for D3 {
    #[inline]
    fn reduce_simplex(simplex: &mut Simplex<Vec3>) -> Vec3 {
        simplex_3d::reduce(simplex)
    }
    fn feature_direction(simplex: &Simplex<Vec3>, v: Vec3) -> Vec3 {
        simplex_3d::feature_direction(simplex, v)
    }
    fn epa<S: PairSupport<Vec3>, O: Observer<Vec3>>(
        pair: &S,
        simplex: &Simplex<Vec3>,
        tolerance: f32,
        observer: &mut O,
    ) -> Penetration<Vec3> {
        epa_3d::penetration_observed(pair, simplex, tolerance, observer)
    }
    fn box_face_contacts(
        shapes: [(&Shape<D3>, &Pose<D3>); 2],
        normal: Vec3,
        margin: f32,
        found: &mut impl FnMut(ShapeContact<D3>),
    ) -> bool {
        box_faces::box_face_contacts(shapes, normal, margin, found)
    }
}
