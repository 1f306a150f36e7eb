//! The constraint graph (Box2D v3's `constraint_graph.c`): contact
//! constraints coloured so that no two of one colour share a body that
//! moves, so each colour can be solved in parallel with the bodies updated
//! in place.
//!
//! Colours are picked greedily as constraints arrive in pair order, the
//! lowest free one first, so the colouring (and with it the solve order)
//! depends only on the pairs, never on the thread count: one thread or many
//! give the same bits. A constraint that finds no free colour among the
//! first [`COLOURS`] goes to the overflow, solved on one thread.

/// Colours before the overflow (Box2D v3 uses 24).
pub(crate) const COLOURS: usize = 24;

/// Which moving bodies each colour holds, as one bit set per colour.
#[derive(Clone, Debug)]
pub(crate) struct ConstraintGraph {
    words: usize,
    used: Vec<u64>,
}

impl ConstraintGraph {
    /// An empty graph over bodies `0..body_count`.
    pub(crate) fn new(body_count: usize) -> Self {
        let words = body_count.div_ceil(64);
        Self {
            words,
            used: vec![0; COLOURS * words],
        }
    }

    /// No constraints, over bodies `0..body_count`.
    pub(crate) fn clear(&mut self, body_count: usize) {
        self.words = body_count.div_ceil(64);
        self.used.clear();
        self.used.resize(COLOURS * self.words, 0);
    }

    /// The colour of a new constraint between two bodies, each given with
    /// whether the solver moves it: the lowest colour holding neither
    /// moving body, which now holds them, or [`COLOURS`] (the overflow).
    /// A body that does not move is only read, so any number of a colour's
    /// constraints may share it.
    pub(crate) fn colour(&mut self, bodies: [(usize, bool); 2]) -> usize {
        let moving = bodies.iter().filter(|(_, moves)| *moves).map(|&(i, _)| i);
        let bit = |body: usize| (body / 64, 1u64 << (body % 64));
        let free = |colour: &usize| {
            moving.clone().all(|body| {
                let (word, mask) = bit(body);
                self.used[colour * self.words + word] & mask == 0
            })
        };
        let Some(colour) = (0..COLOURS).find(free) else {
            return COLOURS;
        };
        for body in moving {
            let (word, mask) = bit(body);
            self.used[colour * self.words + word] |= mask;
        }
        colour
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_takes_two_colours_and_shares_no_moving_body() {
        // Bodies 0..10 in a chain, constraint i joining i and i + 1; body 0 is fixed.
        let mut graph = ConstraintGraph::new(10);
        let colours: Vec<usize> = (0..9)
            .map(|i| graph.colour([(i, i > 0), (i + 1, true)]))
            .collect();
        assert_eq!(colours, [0, 1, 0, 1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn a_fixed_body_is_shared_freely_and_a_busy_one_overflows() {
        let mut graph = ConstraintGraph::new(COLOURS + 10);
        for i in 1..5 {
            assert_eq!(graph.colour([(0, false), (i, true)]), 0, "ground shared");
        }
        let hub = COLOURS + 9;
        let colours: Vec<usize> = (5..COLOURS + 6)
            .map(|i| graph.colour([(hub, true), (i, true)]))
            .collect();
        assert_eq!(colours[..COLOURS], (0..COLOURS).collect::<Vec<_>>()[..]);
        assert_eq!(colours[COLOURS], COLOURS, "no colour left: overflow");
    }
}
