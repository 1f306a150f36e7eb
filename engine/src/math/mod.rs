//! Math: the [`MathDim`] trait (vectors, rotations and inertias in 2D and
//! 3D), poses, 2D rotations, the SIMD word form of values and the
//! [`MaybeSerde`] bound of the `serde` feature.
//!
//! The bottom layer: it uses nothing else of the crate.

mod axes;
pub mod dim;
mod maybe_serde;
mod pose;
mod rot2;
mod word;

pub use axes::Axes;
pub use dim::{Angular, MathDim, Vector, D2, D3};
pub use maybe_serde::MaybeSerde;
pub use pose::{PackedPose, Pose};
pub use rot2::Rot2;
pub use word::{same_bits, SimdWord};
