//! How well the machine runs two threads at once, right now: the ceiling
//! any engine's two-thread speed-up meets on it. On a shared machine (a
//! virtual machine whose cores other guests also use) this moves from
//! minute to minute, so the stress CLI can measure it beside a run
//! (`--calibrate`).

use std::hint::black_box;
use std::time::Instant;

/// Two threads' throughput over one thread's, for two kinds of work.
#[derive(Copy, Clone, Debug)]
pub struct Scaling {
    /// A chain of dependent floating-point operations: no memory traffic.
    pub compute: f64,
    /// Reading a buffer much larger than the caches, a cache line at a time.
    pub memory: f64,
}

/// Multiply-adds in one compute run.
const COMPUTE_STEPS: u64 = 100_000_000;
/// Floats in each thread's buffer (64 MiB).
const BUFFER_FLOATS: usize = 16 << 20;
/// Floats in a cache line: the memory kernel reads one per line.
const FLOATS_PER_LINE: usize = 16;
/// Passes of the memory kernel over its buffer.
const PASSES: usize = 4;
/// Runs of each measurement; the median is kept.
const RUNS: usize = 3;

/// Measures both scalings (about a second).
pub fn two_thread_scaling() -> Scaling {
    let buffers = [vec![1.0f32; BUFFER_FLOATS], vec![1.0f32; BUFFER_FLOATS]];
    Scaling {
        compute: scaling(|_| compute()),
        memory: scaling(|i| stream(&buffers[i])),
    }
}

/// Twice `work`'s one-thread time over the time of two threads doing it at
/// once (thread `i` calls `work(i)`), median of [`RUNS`].
fn scaling(work: impl Fn(usize) -> f32 + Sync) -> f64 {
    let mut ratios: Vec<f64> = (0..RUNS)
        .map(|_| {
            let one = timed(|| {
                black_box(work(0));
            });
            let two = timed(|| {
                std::thread::scope(|s| {
                    let work = &work;
                    let other = s.spawn(move || black_box(work(1)));
                    black_box(work(0));
                    other.join().expect("calibration thread");
                });
            });
            2.0 * one / two
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[RUNS / 2]
}

/// Seconds `f` takes.
fn timed(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

/// A dependent chain of multiply-adds.
fn compute() -> f32 {
    let mut x = black_box(1.0f32);
    for _ in 0..COMPUTE_STEPS {
        x = x * 0.999_999_9 + 1e-7;
    }
    x
}

/// The sum of one float per cache line of `buffer`, [`PASSES`] times over.
fn stream(buffer: &[f32]) -> f32 {
    (0..PASSES)
        .map(|_| {
            black_box(buffer)
                .iter()
                .step_by(FLOATS_PER_LINE)
                .sum::<f32>()
        })
        .sum()
}
