//! The checks of a loaded broad phase (`world/persist.rs`): the tree and
//! its lists as the broad phase's own operations leave them, so that no
//! later call indexes out of range, loops or finds a wrong height.
//!
//! 1. The free list is exactly the free nodes, each once.
//! 2. From the root every node in use is reached exactly once, each
//!    child's parent is the node that names it, each internal node's
//!    height is one more than its taller child's and its children differ
//!    by at most one (AVL), and the leaves are the proxies.
//! 3. The move buffer holds exactly the nodes flagged as moved, each
//!    once; removed nodes and stored pairs name nodes that exist.

use super::{BroadPhase, ProxyId, FREE, NULL};
use crate::shape::ShapeDim;

impl<D: ShapeDim> BroadPhase<D> {
    /// The first fault found, or `Ok`.
    pub(crate) fn check(&self) -> Result<(), &'static str> {
        let nodes = &self.nodes;
        let n = nodes.len();
        if n >= NULL as usize {
            return Err("broad phase: more nodes than links can name");
        }
        let index = |i: u32| (i != NULL && (i as usize) < n).then_some(i as usize);
        let mut seen = vec![false; n];
        for &i in &self.free {
            let i = index(i).ok_or("broad phase: a free slot out of range")?;
            if seen[i] || nodes[i].height != FREE {
                return Err("broad phase: the free list is not the free nodes");
            }
            seen[i] = true;
        }
        if nodes.iter().filter(|node| node.height == FREE).count() != self.free.len() {
            return Err("broad phase: a free node is missing from the free list");
        }
        let mut reached = vec![false; n];
        let mut leaves = 0;
        let mut stack = Vec::new();
        if self.root != NULL {
            let root = index(self.root).ok_or("broad phase: the root is out of range")?;
            if nodes[root].parent != NULL {
                return Err("broad phase: the root has a parent");
            }
            stack.push(root);
        }
        while let Some(i) = stack.pop() {
            if std::mem::replace(&mut reached[i], true) {
                return Err("broad phase: a node is reached twice");
            }
            let node = &nodes[i];
            match node.height {
                0 => leaves += 1,
                height if height > 0 => {
                    let mut heights = [0; 2];
                    for (k, &child) in node.children.iter().enumerate() {
                        let c = index(child).ok_or("broad phase: a child is out of range")?;
                        if nodes[c].parent as usize != i || nodes[c].height < 0 {
                            return Err("broad phase: a child's parent link is wrong");
                        }
                        heights[k] = nodes[c].height;
                        stack.push(c);
                    }
                    if height != 1 + heights[0].max(heights[1])
                        || (heights[0] - heights[1]).abs() > 1
                    {
                        return Err("broad phase: a node's height is wrong or unbalanced");
                    }
                }
                _ => return Err("broad phase: the tree reaches a free node"),
            }
        }
        let stray = nodes
            .iter()
            .zip(&reached)
            .any(|(node, &reached)| node.height != FREE && !reached);
        if stray || leaves != self.proxy_count {
            return Err("broad phase: the tree does not hold every proxy");
        }
        let mut queued = vec![false; n];
        for &i in &self.move_buffer {
            let i = index(i).ok_or("broad phase: a moved node is out of range")?;
            if std::mem::replace(&mut queued[i], true) || !nodes[i].moved {
                return Err("broad phase: the move buffer disagrees with the moved flags");
            }
        }
        if nodes.iter().filter(|node| node.moved).count() != self.move_buffer.len() {
            return Err("broad phase: a moved node is missing from the move buffer");
        }
        let named = self
            .removed
            .iter()
            .copied()
            .chain(self.pairs.iter().flat_map(|&(_, _, a, b)| [a, b]));
        if named.into_iter().any(|i| index(i).is_none()) {
            return Err("broad phase: a removed node or a pair is out of range");
        }
        if !(self.margin >= 0.0 && self.margin.is_finite()) {
            return Err("broad phase: the margin is not finite and positive");
        }
        Ok(())
    }

    /// The key of a live proxy, or `None` for a handle naming no proxy.
    pub(crate) fn key_of(&self, proxy: ProxyId) -> Option<u64> {
        self.leaf(proxy).map(|leaf| self.nodes[leaf as usize].key)
    }
}

impl ProxyId {
    /// A handle naming no proxy, for a slot that is filled for a moment
    /// (`world/persist.rs`).
    pub(crate) fn placeholder() -> Self {
        ProxyId(NULL)
    }
}
