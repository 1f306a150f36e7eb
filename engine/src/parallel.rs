//! The engine's data parallelism, behind the `parallel` cargo feature (on
//! by default): with it, rayon's parallel iterators over the current rayon
//! pool; without it, the same calls on plain iterators, one thread, and no
//! rayon in the dependency tree (for the web and for one-core machines).
//!
//! The results are the same bit for bit either way: every parallel step of
//! the engine already gives the result of its one-thread run (the work is
//! split so that no result depends on which thread did what; guarded by
//! `tests/determinism.rs`, which also runs without the feature:
//! `cargo test -p tumble --no-default-features`).

#[cfg(feature = "parallel")]
pub(crate) use rayon::prelude::*;

/// The threads the engine's parallel steps may use: the current rayon
/// pool's, or one without the `parallel` feature.
pub(crate) fn threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

#[cfg(not(feature = "parallel"))]
pub(crate) use serial::*;

/// rayon's calls the engine makes, on plain iterators.
#[cfg(not(feature = "parallel"))]
mod serial {
    /// `par_iter`, `par_iter_mut`, `par_chunks_mut` on slices: their
    /// plain iterators.
    pub(crate) trait ParallelSlice<T> {
        fn par_iter(&self) -> core::slice::Iter<'_, T>;
        fn par_iter_mut(&mut self) -> core::slice::IterMut<'_, T>;
        fn par_chunks_mut(&mut self, size: usize) -> core::slice::ChunksMut<'_, T>;
    }

    impl<T> ParallelSlice<T> for [T] {
        fn par_iter(&self) -> core::slice::Iter<'_, T> {
            self.iter()
        }
        fn par_iter_mut(&mut self) -> core::slice::IterMut<'_, T> {
            self.iter_mut()
        }
        fn par_chunks_mut(&mut self, size: usize) -> core::slice::ChunksMut<'_, T> {
            self.chunks_mut(size)
        }
    }

    /// rayon's iterator calls that plain iterators lack.
    pub(crate) trait ParallelIteratorCalls: Iterator + Sized {
        /// `flat_map`.
        fn flat_map_iter<U: IntoIterator, F: FnMut(Self::Item) -> U>(
            self,
            f: F,
        ) -> core::iter::FlatMap<Self, U, F> {
            self.flat_map(f)
        }
        /// `map` with a state `init` makes for the items (rayon makes one
        /// per split of the work; one thread has one).
        fn map_init<T, R, I: FnOnce() -> T, F: FnMut(&mut T, Self::Item) -> R>(
            self,
            init: I,
            mut f: F,
        ) -> impl Iterator<Item = R> {
            let mut state = init();
            self.map(move |item| f(&mut state, item))
        }
        /// No split to bound on one thread.
        fn with_min_len(self, _len: usize) -> Self {
            self
        }
        /// The items into `out`, replacing what it held.
        fn collect_into_vec(self, out: &mut Vec<Self::Item>) {
            out.clear();
            out.extend(self);
        }
        /// The pairs' halves into `left` and `right`, replacing what they held.
        fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
        where
            Self: Iterator<Item = (A, B)>,
        {
            left.clear();
            right.clear();
            for (a, b) in self {
                left.push(a);
                right.push(b);
            }
        }
    }

    impl<I: Iterator> ParallelIteratorCalls for I {}

    /// `par_extend` on vectors: `extend`.
    pub(crate) trait ParallelExtend<T> {
        fn par_extend(&mut self, items: impl IntoIterator<Item = T>);
    }

    impl<T> ParallelExtend<T> for Vec<T> {
        fn par_extend(&mut self, items: impl IntoIterator<Item = T>) {
            self.extend(items);
        }
    }
}
