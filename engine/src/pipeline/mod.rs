//! The stages of a world step, one module each, in pipeline order.

pub mod narrow_phase;
