//! What the solver adds to [`ManifoldDim`]: its SIMD lanes and a body's
//! state in the substep loop. Internal: the trait is public only so that
//! `tumble::Dim` can name it as a supertrait; this module is private, so
//! neither it nor its types can be named outside the crate.

use core::fmt::Debug;
use core::ops::IndexMut;

use crate::math::{D2, D3};
use crate::pipeline::dim::ManifoldDim;
use crate::pipeline::integrate::{BodyState, BodyState2, BodyState3};
use crate::pipeline::lanes::{
    InertiaLanes, Lanes, Lanes1, Lanes2, Lanes3, QuatLanes, Rot2Lanes, RotationLanes,
    SymmetricLanes3,
};

/// A spatial dimension as the solver sees it: [`D2`] or [`D3`].
pub trait SolverDim: ManifoldDim {
    /// Vectors in four SIMD lanes (the solver's four manifolds at a time).
    type VectorLanes: Lanes<Self::Vector>;
    /// Angular vectors in four lanes.
    type AngularLanes: Lanes<Self::AngularVector>;
    /// Rotations in four lanes.
    type RotationLanes: RotationLanes<Self::Rotation, Self::VectorLanes>;
    /// A body's state in the solver's substep loop.
    type BodyState: BodyState<Self>;
    /// Inverse inertias in four lanes.
    type InertiaLanes: InertiaLanes<Self::Inertia, Self::AngularLanes>;
    /// One `T` per friction direction (`TANGENTS` of them).
    type PerTangent<T: Copy + Debug + Default + Send + Sync + 'static>: Copy
        + Debug
        + Default
        + Send
        + Sync
        + IndexMut<usize, Output = T>
        + 'static;

    /// Per lane, `cross`.
    fn cross_lanes(r: &Self::VectorLanes, v: &Self::VectorLanes) -> Self::AngularLanes;
}

impl SolverDim for D2 {
    type VectorLanes = Lanes2;
    type AngularLanes = Lanes1;
    type RotationLanes = Rot2Lanes;
    type BodyState = BodyState2;
    type InertiaLanes = Lanes1;
    type PerTangent<T: Copy + Debug + Default + Send + Sync + 'static> = [T; 1];

    #[inline]
    fn cross_lanes(r: &Lanes2, v: &Lanes2) -> Lanes1 {
        Lanes1(r.x * v.y - r.y * v.x)
    }
}

impl SolverDim for D3 {
    type VectorLanes = Lanes3;
    type AngularLanes = Lanes3;
    type RotationLanes = QuatLanes;
    type BodyState = BodyState3;
    type InertiaLanes = SymmetricLanes3;
    type PerTangent<T: Copy + Debug + Default + Send + Sync + 'static> = [T; 2];

    #[inline]
    fn cross_lanes(r: &Lanes3, v: &Lanes3) -> Lanes3 {
        r.cross(v)
    }
}
