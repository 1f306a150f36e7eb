//! What contact manifolds add to [`NarrowPhaseDim`]: how many points a
//! manifold keeps, and arrays of that length.

use core::fmt::Debug;
use core::ops::IndexMut;

use crate::math::{D2, D3};
use crate::pipeline::narrow_phase::NarrowPhaseDim;

/// A fixed array of points' data, as long as the dimension needs.
pub trait PointArray<T>:
    Copy
    + Debug
    + Default
    + PartialEq
    + Send
    + Sync
    + AsRef<[T]>
    + AsMut<[T]>
    + IndexMut<usize, Output = T>
    + 'static
{
}

impl<T, const N: usize> PointArray<T> for [T; N]
where
    T: Copy + Debug + PartialEq + Send + Sync + 'static,
    [T; N]: Default,
{
}

/// A spatial dimension's contact manifolds: [`D2`] or [`D3`].
pub trait ManifoldDim: NarrowPhaseDim {
    /// Most points an incremental contact manifold keeps (2 in 2D, 4 in 3D).
    const MAX_MANIFOLD_POINTS: usize;
    /// One `T` per manifold point ([`ManifoldDim::MAX_MANIFOLD_POINTS`] of them).
    type PerPoint<T: Copy + Debug + Default + PartialEq + Send + Sync + 'static>: PointArray<T>;
    /// One `T` per manifold point and one more, for a point being merged
    /// before the manifold is reduced.
    type PerPointAndOne<T: Copy + Debug + Default + PartialEq + Send + Sync + 'static>: PointArray<
        T,
    >;
}

impl ManifoldDim for D2 {
    const MAX_MANIFOLD_POINTS: usize = 2;
    type PerPoint<T: Copy + Debug + Default + PartialEq + Send + Sync + 'static> = [T; 2];
    type PerPointAndOne<T: Copy + Debug + Default + PartialEq + Send + Sync + 'static> = [T; 3];
}

impl ManifoldDim for D3 {
    const MAX_MANIFOLD_POINTS: usize = 4;
    type PerPoint<T: Copy + Debug + Default + PartialEq + Send + Sync + 'static> = [T; 4];
    type PerPointAndOne<T: Copy + Debug + Default + PartialEq + Send + Sync + 'static> = [T; 5];
}
