//! [`Dim`]: a spatial dimension as the whole engine sees it, the sum of each
//! layer's dimension trait.
//!
//! | trait | module | holds |
//! |---|---|---|
//! | [`MathDim`] | `math/dim.rs` | vectors, rotations, orientations, angular vectors, inertias and their operations |
//! | [`ShapeDim`] | `shape/dim.rs` | the hull type, mass properties |
//! | [`NarrowPhaseDim`] | `pipeline/narrow_phase/dim.rs` | GJK's simplex reduction, EPA |
//! | [`ManifoldDim`] | `pipeline/dim.rs` | manifold size and per-point arrays |
//! | `SolverDim` (internal) | `pipeline/solver/dim.rs` | SIMD lanes, body states |
//! | [`JointDim`] | `pipeline/joints.rs` | hinge axes and angles |
//!
//! Each layer's code is generic over its own trait; only the world, bodies,
//! colliders, queries and sleeping use `Dim`. `Dim` is sealed: [`D2`] and
//! [`D3`] are the only dimensions.

use crate::math::{MathDim, D2, D3};
use crate::pipeline::dim::ManifoldDim;
use crate::pipeline::joints::JointDim;
use crate::pipeline::narrow_phase::NarrowPhaseDim;
use crate::pipeline::solver::SolverDim;
use crate::shape::ShapeDim;

mod sealed {
    /// Only the crate's dimensions.
    pub trait Sealed {}
    impl Sealed for super::D2 {}
    impl Sealed for super::D3 {}
}

/// A spatial dimension: [`D2`] or [`D3`]. Everything that differs between
/// 2D and 3D, layer by layer (see the [module](self) docs); sealed.
pub trait Dim:
    sealed::Sealed + MathDim + ShapeDim + NarrowPhaseDim + ManifoldDim + SolverDim + JointDim
{
}

impl<T> Dim for T where T: sealed::Sealed + ManifoldDim + SolverDim + JointDim {}
