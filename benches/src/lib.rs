//! Benchmarks of the tumble engine (criterion benches live in `benches/`).
