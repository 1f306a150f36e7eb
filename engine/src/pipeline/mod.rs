//! The stages of a world step, one module each, in pipeline order:
//! integrate velocities, broad phase, narrow phase, manifolds, solver,
//! integrate positions. The solver's constraints are coloured in the
//! constraint graph and solved in stages, each colour's on all threads.

pub mod broad_phase;
pub(crate) mod constraint_graph;
pub mod dim;
pub mod facet_manifolds;
pub(crate) mod integrate;
pub mod joints;
pub(crate) mod lanes;
pub mod manifold;
pub mod narrow_phase;
pub mod solver;
pub(crate) mod stages;

pub use dim::{ManifoldDim, PointArray};
