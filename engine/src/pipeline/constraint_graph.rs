//! The constraint graph (Box2D v3's `constraint_graph.c`): contact
//! constraints coloured so that no two of one colour share a body that
//! moves, so each colour can be solved in parallel with the bodies updated
//! in place.
//!
//! Colours are picked greedily as constraints arrive in pair order, the
//! lowest free one first, so the colouring (and with it the solve order)
//! depends only on the pairs, never on the thread count: one thread or many
//! give the same bits. A constraint that finds no free colour among the
//! first [`COLOURS`] goes to the overflow, solved on one thread. Guarded by
//! `a_chain_takes_two_colours_and_shares_no_moving_body` and
//! `a_fixed_body_is_shared_freely_and_a_busy_one_overflows`. How the
//! solver uses the colours: `docs/parallel-solver.md`.

/// Colours before the overflow (Box2D v3 uses 24): a body's taken colours
/// fit one `u32`, and only constraints around a body touching more than
/// about two dozen moving bodies overflow.
pub(crate) const COLOURS: usize = 24;

/// Which colours each body is taken in, one bit per colour.
#[derive(Clone, Debug, Default)]
pub(crate) struct ConstraintGraph {
    taken: Vec<u32>,
}

/// The bits of the colours before the overflow.
const ALL_COLOURS: u32 = (1 << COLOURS) - 1;

impl ConstraintGraph {
    /// An empty graph over bodies `0..body_count`.
    pub(crate) fn new(body_count: usize) -> Self {
        Self {
            taken: vec![0; body_count],
        }
    }

    /// No constraints, over bodies `0..body_count`.
    pub(crate) fn clear(&mut self, body_count: usize) {
        self.taken.clear();
        self.taken.resize(body_count, 0);
    }

    /// The colour of a new constraint between two bodies, each given with
    /// whether the solver moves it: the lowest colour holding neither
    /// moving body, which now holds them, or [`COLOURS`] (the overflow).
    /// A body that does not move is only read, so any number of a colour's
    /// constraints may share it.
    pub(crate) fn colour(&mut self, bodies: [(usize, bool); 2]) -> usize {
        let taken = bodies
            .iter()
            .filter(|(_, moves)| *moves)
            .fold(0, |bits, &(body, _)| bits | self.taken[body]);
        let free = !taken & ALL_COLOURS;
        if free == 0 {
            return COLOURS;
        }
        let colour = free.trailing_zeros();
        for &(body, moves) in &bodies {
            if moves {
                self.taken[body] |= 1 << colour;
            }
        }
        colour as usize
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
