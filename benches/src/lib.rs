//! Benchmarks of the tumble engine (criterion benches live in `benches/`).

pub mod machine;
pub mod rapier_mirror;
