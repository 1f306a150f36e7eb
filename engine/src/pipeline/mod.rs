//! The stages of a world step, one module each, in pipeline order:
//! integrate velocities, broad phase, narrow phase, manifolds, solver,
//! integrate positions.

pub mod broad_phase;
pub mod integrate;
pub mod manifold;
pub mod narrow_phase;
pub mod solver;
