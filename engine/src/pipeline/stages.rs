//! The solver's parallel loop (Box2D v3's solver stages): a step is a
//! sequence of stages (integrate, warm start colour 0, colour 1, ...), each
//! cut into blocks. Any thread may claim the next block of the current
//! stage; a stage starts only when every block of the one before has
//! finished.
//!
//! A rayon task per stage would cost a wake-up of the other threads each
//! time, and a step has about a hundred stages of a few dozen microseconds.
//! Here the calling thread drives the stages while helper tasks spin on the
//! stage counter and claim blocks as they appear. The driver never waits
//! for a block nobody has claimed, so the loop finishes even if no helper
//! ever starts (one thread, or a busy pool); which thread runs a block
//! never changes the result (`stages_run_in_order_on_any_thread_count`).
//! Helpers that find no new stage for a while yield their core; the driver
//! only spins, since a yield while it waits for a helper's last block
//! hands its core to whatever else runs on the machine, and the next stage
//! then waits for the driver.

#[cfg(feature = "parallel")]
use core::hint::spin_loop;
use core::marker::PhantomData;
use core::ops::Range;
#[cfg(feature = "parallel")]
use std::sync::atomic::{AtomicUsize, Ordering};

/// The stage counter's value once the driver is done.
#[cfg(feature = "parallel")]
const FINISHED: usize = usize::MAX;

/// Spins before a waiting helper starts yielding its core. While a step
/// runs, a helper waits for the next stage about one block's time at most
/// (tens of microseconds); 4096 spin hints last about that long or longer
/// (a hint takes from a few to over a hundred cycles, by CPU), so a helper
/// yields mostly once the stages have stopped coming.
#[cfg(feature = "parallel")]
const SPINS_BEFORE_YIELD: u32 = 1 << 12;

/// Runs `run(stage, block)` for every block `0..blocks[stage]` of every
/// stage in order, the blocks of one stage in parallel on the current rayon
/// pool, every block of a stage finished before the next stage starts.
pub(crate) fn run_stages(blocks: &[usize], run: impl Fn(usize, usize) + Sync) {
    #[cfg(feature = "parallel")]
    {
        let helpers = crate::parallel::threads().saturating_sub(1);
        if helpers > 0 {
            run_with_helpers(blocks, &run, helpers);
            return;
        }
    }
    for (stage, &count) in blocks.iter().enumerate() {
        (0..count).for_each(|block| run(stage, block));
    }
}

/// [`run_stages`] with `helpers` tasks beside the calling thread.
#[cfg(feature = "parallel")]
fn run_with_helpers(blocks: &[usize], run: &(impl Fn(usize, usize) + Sync), helpers: usize) {
    let counters = Counters {
        stage: AtomicUsize::new(0),
        claimed: blocks.iter().map(|_| AtomicUsize::new(0)).collect(),
        done: blocks.iter().map(|_| AtomicUsize::new(0)).collect(),
    };
    let counters = &counters;
    rayon::scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(move |_| counters.help(blocks, run));
        }
        counters.drive(blocks, run);
    });
}

/// Where the stages stand, shared by the driver and its helpers.
#[cfg(feature = "parallel")]
struct Counters {
    /// The stage whose blocks may be claimed, or `FINISHED`.
    stage: AtomicUsize,
    /// Per stage: blocks handed out (may run past the count).
    claimed: Vec<AtomicUsize>,
    /// Per stage: blocks finished.
    done: Vec<AtomicUsize>,
}

#[cfg(feature = "parallel")]
impl Counters {
    /// The driver: each stage announced, worked on, and waited for.
    fn drive(&self, blocks: &[usize], run: &(impl Fn(usize, usize) + Sync)) {
        for (stage, &count) in blocks.iter().enumerate() {
            // Release: the blocks of this stage see everything done before.
            self.stage.store(stage, Ordering::Release);
            self.work(stage, count, run);
            // Acquire: the next stage sees the helpers' writes of this one.
            while self.done[stage].load(Ordering::Acquire) < count {
                spin_loop();
            }
        }
        self.stage.store(FINISHED, Ordering::Release);
    }

    /// A helper: claims blocks of each new stage until the driver is done.
    fn help(&self, blocks: &[usize], run: &(impl Fn(usize, usize) + Sync)) {
        let mut seen = FINISHED;
        let mut spins = 0u32;
        loop {
            let stage = self.stage.load(Ordering::Acquire);
            if stage == FINISHED {
                return;
            }
            if stage != seen {
                self.work(stage, blocks[stage], run);
                seen = stage;
                spins = 0;
            } else if spins < SPINS_BEFORE_YIELD {
                spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Claims and runs blocks of `stage` until none is left.
    fn work(&self, stage: usize, count: usize, run: &(impl Fn(usize, usize) + Sync)) {
        loop {
            let block = self.claimed[stage].fetch_add(1, Ordering::Relaxed);
            if block >= count {
                return;
            }
            run(stage, block);
            // Release: whoever waits for this stage sees the block's writes.
            self.done[stage].fetch_add(1, Ordering::Release);
        }
    }
}

/// A slice shared by the threads of the solver's stages, each taking only
/// elements no other thread touches in the same stage.
pub(crate) struct Shared<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: `Shared` stands for an exclusive borrow `&mut [T]`, which is
// `Sync` when `T` is `Send`; its accessors are `unsafe`, and their contracts
// forbid two threads from reaching one element while either writes it.
unsafe impl<T: Send> Sync for Shared<'_, T> {}

impl<'a, T> Shared<'a, T> {
    /// Shares `slice` for the length of one parallel loop.
    pub(crate) fn new(slice: &'a mut [T]) -> Self {
        Self {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _borrow: PhantomData,
        }
    }

    /// Element `i`, mutably.
    ///
    /// # Safety
    /// No other reference to element `i` may be alive while the result is.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn get_mut(&self, i: usize) -> &mut T {
        assert!(i < self.len, "index out of range");
        // SAFETY: in bounds (checked above); exclusive by the contract.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// Element `i`, read only.
    ///
    /// # Safety
    /// No mutable reference to element `i` may be alive while the result is.
    pub(crate) unsafe fn get(&self, i: usize) -> &T {
        assert!(i < self.len, "index out of range");
        // SAFETY: in bounds (checked above); not aliased mutably by the contract.
        unsafe { &*self.ptr.add(i) }
    }

    /// How many elements there are.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Element `i`, read only, without checking the bounds.
    ///
    /// # Safety
    /// `i` must be below [`Shared::len`], and as for [`Shared::get`].
    pub(crate) unsafe fn get_unchecked(&self, i: usize) -> &T {
        // SAFETY: in bounds and not aliased mutably, by the contract.
        unsafe { &*self.ptr.add(i) }
    }

    /// Element `i`, mutably, without checking the bounds.
    ///
    /// # Safety
    /// `i` must be below [`Shared::len`], and as for [`Shared::get_mut`].
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn get_unchecked_mut(&self, i: usize) -> &mut T {
        // SAFETY: in bounds and exclusive, by the contract.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// Elements `range`, mutably.
    ///
    /// # Safety
    /// No other reference into `range` may be alive while the result is.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn range_mut(&self, range: Range<usize>) -> &mut [T] {
        assert!(
            range.start <= range.end && range.end <= self.len,
            "range out of bounds"
        );
        // SAFETY: in bounds (checked above); exclusive by the contract.
        unsafe { core::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::*;

    /// Each stage adds its index to every element, block by block, after
    /// checking that the stage before finished everywhere.
    #[test]
    fn stages_run_in_order_on_any_thread_count() {
        const N: usize = 10_000;
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut values = vec![0usize; N];
            let blocks = [7, 1, 13, 5];
            let shared = Shared::new(&mut values);
            pool.install(|| {
                run_stages(&blocks, |stage, block| {
                    let count = blocks[stage];
                    let range = block * N / count..(block + 1) * N / count;
                    let before: usize = (0..stage).sum();
                    // SAFETY: the blocks of a stage cover disjoint ranges.
                    let values = unsafe { shared.range_mut(range) };
                    for v in values {
                        assert_eq!(*v, before, "stage {stage} started early");
                        *v += stage;
                    }
                });
            });
            assert!(values.iter().all(|&v| v == 6), "{threads} threads");
        }
    }
}
