//! Benchmarks of the tumble engine (criterion benches live in `benches/`).

pub mod rapier_mirror;
