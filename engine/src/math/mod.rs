//! Math: the [`Dim`] trait (every 2D/3D difference), poses and 2D rotations.

mod axes;
pub mod dim;
pub mod lanes;
mod pose;
mod rot2;

pub use axes::Axes;
pub use dim::{Angular, Dim, PointArray, Vector, D2, D3};
pub use lanes::{InertiaLanes, Lanes, RotationLanes, Word};
pub use pose::Pose;
pub use rot2::Rot2;
