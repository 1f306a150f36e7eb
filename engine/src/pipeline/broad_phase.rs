//! Broad phase: a dynamic AABB tree of fattened boxes that keeps the set of
//! candidate pairs from one step to the next.
//!
//! [`BroadPhase`] stores one *proxy* per collider: the caller's key, the
//! collider's box grown by a margin (the *fat* box) and its collision
//! groups. It reports every pair of proxies whose fat boxes overlap and
//! whose groups admit each other; the narrow phase then decides which of
//! those really touch. The same code serves 2D and 3D.
//!
//! How it works:
//! 1. Every proxy is a leaf of a binary tree whose internal nodes hold the
//!    union of their children's boxes. Nodes live in one `Vec` with a free
//!    list; links are `u32` indices.
//! 2. Inserting a leaf picks its sibling by the surface-area heuristic: the
//!    cost of pairing with a node is the size of the new parent plus the
//!    growth of every ancestor, where a box's size is its *perimeter*, the
//!    sum of its extents, in both dimensions. The search descends from the
//!    root into the child the box grows less (Box2D v3's lower bound) down
//!    to a node of height 1, then takes the cheapest of it and its leaves,
//!    so that every leaf's sibling is at most one level tall, as an AVL
//!    tree requires.
//! 3. The new leaf and its sibling get a fresh parent; walking back to the
//!    root, every ancestor is AVL-balanced (when one child is taller than the
//!    other by two, the taller child is rotated up, keeping its own taller
//!    child), refitted, and then improved: a child may trade places with a
//!    grandchild of the same height when that shrinks the perimeter. The
//!    height stays below 1.44 log2(n) + 2 (`height_stays_logarithmic`).
//! 4. Removing a leaf frees its parent and links the sibling to the
//!    grandparent, then refits and balances upwards the same way.
//! 5. [`BroadPhase::update`] re-inserts a proxy only when its tight box leaves
//!    its fat box, so slow bodies stay put for many steps
//!    (`moves_within_margin_do_not_reinsert`); the new fat box also reaches
//!    ahead along the body's expected displacement
//!    (`moving_boxes_are_stretched_ahead_2d_and_3d`). Moved proxies are
//!    remembered in a move buffer. [`BroadPhase::update_many`] does the
//!    same for a batch, but when more than a quarter of all proxies leave
//!    their fat boxes at once (a pile falling together) it rebuilds the
//!    tree top down instead, each node splitting its leaves in halves at
//!    the median of their centres along the widest spread: that costs less
//!    than as many re-insertions, and the tree queries faster. Either way
//!    the pairs are the same (`update_many_matches_update_2d_and_3d`).
//! 6. [`BroadPhase::update_pairs`] queries the tree with each moved proxy's
//!    fat box, on all threads of the current rayon pool (the queries only
//!    read the tree): those are the pairs of the moved (and removed)
//!    proxies now. When they are the pairs those proxies had (a proxy
//!    re-inserted in a stack keeps its neighbours), nothing changed
//!    (`reinsertion_among_the_same_neighbours_changes_nothing`); otherwise
//!    their old pairs are replaced by the new ones in the sorted set. Two
//!    proxies that did not move cannot start or stop overlapping, so the
//!    result always equals the brute-force set
//!    (`pairs_match_brute_force_and_are_deterministic`), at a cost of
//!    O(pairs + moved log n) with a small constant: the scan over the pairs
//!    reads one bit per node.
//! 7. Every node also holds collision groups ([`CollisionFilter`]): a
//!    leaf its proxy's, an internal node the union of its leaves'
//!    categories and masks. A query for a moved proxy skips every subtree
//!    whose union its own groups refuse, and a leaf it refuses, as Box2D
//!    v3's tree skips by category bits: pairs the filters rule out cost no
//!    more than the pruned query, and are never stored or reported
//!    (`groups_leave_out_refused_pairs_2d_and_3d`). Proxies inserted
//!    without groups ([`BroadPhase::insert`]) pair with every other.
//!
//! Limits: a fat box is never shrunk while the tight box stays inside it.
//! Strict balance outranks the heuristic: a huge box is still placed next to
//! a leaf, not high up the tree. Each re-insertion searches tens to hundreds
//! of nodes (a few microseconds at 100k proxies), so a world where some of
//! its bodies outrun their margins every step pays that per body; where most
//! do, the rebuild costs O(n log n). Handles of removed proxies are recycled
//! by later insertions, so a stale [`ProxyId`] may name a newer proxy; one
//! that names no proxy is ignored. Keys are expected to be unique; two
//! proxies with the same key never pair with each other. A box with a NaN
//! coordinate is stored as an empty box that overlaps nothing
//! (`huge_finite_boxes_pair_and_nan_boxes_do_not`); random sequences of
//! calls, stale handles and NaN boxes among them, never panic
//! (`arbitrary_calls_never_panic`).
//!
//! References: E. Catto, "Dynamic AABB Trees", GDC 2019, and the dynamic
//! tree of Box2D (v2.4 `b2_dynamic_tree`, v3 `dynamic_tree.c`); J. Goldsmith
//! and J. Salmon, "Automatic Creation of Object Hierarchies for Ray Tracing",
//! IEEE CG&A 1987 (surface-area heuristic); D. Kopta et al., "Fast,
//! Effective BVH Updates for Animated Scenes", I3D 2012 (rotations);
//! G. Adelson-Velsky and E. Landis, 1962 (AVL balancing).

#[cfg(feature = "parallel")]
use crate::parallel::*;

use crate::collider::CollisionFilter;
use crate::math::Vector;
use crate::shape::Aabb;
use crate::shape::ShapeDim;

#[cfg(feature = "serde")]
mod check;

/// [`BroadPhase::update_many`] rebuilds the tree when more than one in this
/// many proxies leave their fat boxes at once. A rebuild passes over every
/// proxy however few moved, a re-insertion walks one path per moved proxy;
/// a quarter keeps rebuilds to steps where a pile moves together, as
/// falling_boxes' 4000 cubes do every few steps while they fall, and there
/// the rebuild takes about a quarter of the re-insertions' time (figures in
/// `benches/RESULTS.md`).
pub const REBUILD_DIVISOR: usize = 4;

/// Fewest moved proxies per rayon task in [`BroadPhase::update_pairs`]'s
/// queries: a query takes about a microsecond, so a task of 64 runs for
/// tens of microseconds, well above what handing it to another thread costs.
#[cfg(feature = "parallel")]
const QUERIES_PER_TASK: usize = 64;

/// Index meaning "no node".
const NULL: u32 = u32::MAX;
/// The `height` of a node on the free list.
const FREE: i32 = -1;

/// A handle to one proxy of a [`BroadPhase`], returned by [`BroadPhase::insert`].
///
/// Removing a proxy makes its handle available to later insertions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ProxyId(u32);

/// One node of the tree: a leaf (a proxy), an internal node or a free slot.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
struct Node<D: ShapeDim> {
    /// Leaf: the fat box. Internal: the union of the children's boxes.
    aabb: Aabb<D>,
    /// Parent node, or `NULL` at the root.
    parent: u32,
    /// Both children of an internal node; `NULL` for leaves.
    children: [u32; 2],
    /// 0 for a leaf, 1 + the taller child's height for an internal node, `FREE` when unused.
    height: i32,
    /// The caller's key (leaves only).
    key: u64,
    /// True exactly when this slot's index waits in the move buffer.
    moved: bool,
    /// Leaf: the proxy's collision groups. Internal: the bitwise union of
    /// its leaves' categories and masks, so that a subtree none of whose
    /// categories meets a proxy's mask (or none of whose masks meets its
    /// category) holds no proxy it may pair with. Not saved: the owner
    /// gives the leaves theirs again ([`BroadPhase::regroup`]).
    #[cfg_attr(feature = "serde", serde(skip, default = "everything"))]
    groups: CollisionFilter,
}

/// The groups of a proxy inserted without any: every category, meeting
/// every other proxy's.
fn everything() -> CollisionFilter {
    CollisionFilter {
        category: u32::MAX,
        mask: u32::MAX,
    }
}

/// The groups of the leaves under a node whose children have `a` and `b`.
fn union(a: CollisionFilter, b: CollisionFilter) -> CollisionFilter {
    CollisionFilter {
        category: a.category | b.category,
        mask: a.mask | b.mask,
    }
}

/// A stored pair: keys in ascending order, then the proxies in matching order.
type Pair = (u64, u64, u32, u32);

/// The incremental broad phase: a dynamic AABB tree with persistent pairs.
/// See the [module documentation](self) for how it works.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct BroadPhase<D: ShapeDim> {
    /// Node pool: leaves, internal nodes and free slots.
    nodes: Vec<Node<D>>,
    /// Free slots of `nodes`, reused last-in first-out.
    free: Vec<u32>,
    /// The root node, or `NULL` when empty.
    root: u32,
    /// How far fat boxes extend beyond the tight boxes, metres.
    margin: f32,
    /// Number of live proxies.
    proxy_count: usize,
    /// Proxies inserted or re-inserted since the last [`BroadPhase::update_pairs`].
    move_buffer: Vec<u32>,
    /// Current overlapping proxy pairs, sorted, without duplicates.
    pairs: Vec<Pair>,
    /// `pairs` projected to keys, sorted, without duplicates: the public result.
    key_pairs: Vec<(u64, u64)>,
    /// Whether the last `update_pairs` changed `key_pairs`.
    changed: bool,
    /// Nodes of the proxies removed since the last `update_pairs`.
    removed: Vec<u32>,
    /// One bit per node: moved or removed, so its pairs are looked at again.
    #[cfg_attr(feature = "serde", serde(skip))]
    touched: Vec<u64>,
    /// The touched nodes' pairs found by the last `update_pairs`, sorted.
    #[cfg_attr(feature = "serde", serde(skip))]
    fresh: Vec<Pair>,
}

/// The generic "surface area" of a box: the sum of its extents.
fn perimeter<D: ShapeDim>(aabb: &Aabb<D>) -> f32 {
    (aabb.max - aabb.min).dot(D::Vector::splat(1.0))
}

/// The fat box stored for the tight box `aabb`: grown by `margin`, or an
/// empty box (min +inf, max -inf), which unions as a no-op and overlaps
/// nothing, when a coordinate is NaN.
fn fatten<D: ShapeDim>(aabb: &Aabb<D>, margin: f32) -> Aabb<D> {
    // A vector's square is NaN exactly when a coordinate is (huge and
    // infinite coordinates square to infinity).
    let nan = |v: D::Vector| v.dot(v).is_nan();
    if nan(aabb.min) || nan(aabb.max) {
        let one = D::Vector::splat(1.0);
        return Aabb::new(one * f32::INFINITY, one * f32::NEG_INFINITY);
    }
    aabb.expanded(margin)
}

/// How many steps of its displacement a re-inserted fat box reaches ahead
/// (Box2D v2.4's `b2_aabbMultiplier`).
pub const PREDICTED_STEPS: f32 = 4.0;

/// `fat` stretched ahead along `displacement` by [`PREDICTED_STEPS`]; a
/// displacement that is not finite stretches nothing.
fn predicted<D: ShapeDim>(fat: &Aabb<D>, displacement: D::Vector) -> Aabb<D> {
    fat.swept(displacement * PREDICTED_STEPS)
}

/// The coordinate axis along which `points` spread the most (the first when
/// none is measurable, say with NaN boxes).
fn widest_axis<D: ShapeDim>(points: &[(D::Vector, u32)]) -> D::Vector {
    let one = D::Vector::splat(1.0);
    let (low, high) = points.iter().fold(
        (one * f32::INFINITY, one * f32::NEG_INFINITY),
        |(low, high), &(p, _)| (low.min(p), high.max(p)),
    );
    let spread = high - low;
    let axes = D::Vector::axes();
    let widest = |best: (D::Vector, f32), &axis: &D::Vector| {
        let extent = spread.dot(axis);
        if extent > best.1 {
            (axis, extent)
        } else {
            best
        }
    };
    axes.iter().fold((axes[0], f32::NEG_INFINITY), widest).0
}

/// Calls `visit` with every leaf of the tree under `root` whose box overlaps
/// `aabb` and, given `groups`, whose groups admit them, until it returns
/// false. A subtree whose union of groups refuses `groups` is skipped
/// whole (Box2D v3's category bits in its tree). Each node is pushed at
/// most once, so the stack never holds more than `nodes.len()` entries.
fn visit_overlaps<D: ShapeDim>(
    nodes: &[Node<D>],
    root: u32,
    aabb: &Aabb<D>,
    groups: Option<&CollisionFilter>,
    stack: &mut Vec<u32>,
    mut visit: impl FnMut(u32) -> bool,
) {
    stack.clear();
    if root != NULL {
        stack.push(root);
    }
    while let Some(index) = stack.pop() {
        let node = &nodes[index as usize];
        if !node.aabb.overlaps(aabb) || groups.is_some_and(|g| !node.groups.admits(g)) {
            continue;
        }
        if node.height == 0 {
            if !visit(index) {
                break;
            }
        } else {
            stack.extend(node.children);
        }
    }
}

impl<D: ShapeDim> BroadPhase<D> {
    /// An empty broad phase whose fat boxes extend `margin` metres beyond the
    /// boxes given (e.g. 0.1). A negative or NaN margin counts as zero.
    pub fn new(margin: f32) -> Self {
        let mut broad_phase = Self {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NULL,
            margin: 0.0,
            proxy_count: 0,
            move_buffer: Vec::new(),
            pairs: Vec::new(),
            key_pairs: Vec::new(),
            changed: false,
            removed: Vec::new(),
            touched: Vec::new(),
            fresh: Vec::new(),
        };
        broad_phase.set_margin(margin);
        broad_phase
    }

    /// Sets the margin of fat boxes stored from now on (boxes already
    /// stored keep theirs until re-inserted). A negative or NaN margin
    /// counts as zero.
    pub fn set_margin(&mut self, margin: f32) {
        self.margin = if margin >= 0.0 {
            margin.min(f32::MAX)
        } else {
            0.0
        };
    }

    /// Adds a proxy for the caller's stable `key` (e.g. a collider index) with
    /// tight box `aabb`; stores the box grown by the margin. The proxy takes
    /// part in the next [`update_pairs`](Self::update_pairs).
    pub fn insert(&mut self, key: u64, aabb: Aabb<D>) -> ProxyId {
        self.insert_grouped(key, aabb, everything())
    }

    /// [`insert`](Self::insert) for a proxy in collision groups: it pairs
    /// only with proxies whose groups and its own admit each other
    /// ([`CollisionFilter::admits`]), so that pairs the filters rule out
    /// are never found, stored or reported
    /// (`groups_leave_out_refused_pairs_2d_and_3d`).
    pub fn insert_grouped(&mut self, key: u64, aabb: Aabb<D>, groups: CollisionFilter) -> ProxyId {
        let leaf = self.allocate(fatten(&aabb, self.margin), key, 0, groups);
        self.insert_leaf(leaf);
        self.mark_moved(leaf);
        self.proxy_count += 1;
        ProxyId(leaf)
    }

    /// Gives a proxy new collision groups and queues it for the next
    /// [`update_pairs`](Self::update_pairs), which finds its pairs anew
    /// (even when the groups are the same: pairs restored from a state of
    /// other groups are found again, `tests/rollback.rs`:
    /// `a_filter_change_saved_before_its_step_rolls_back_alike`). The tree
    /// keeps its shape. A handle naming no proxy is ignored.
    pub fn set_groups(&mut self, proxy: ProxyId, groups: CollisionFilter) {
        let Some(leaf) = self.leaf(proxy) else { return };
        self.nodes[leaf as usize].groups = groups;
        self.regroup_upwards(self.nodes[leaf as usize].parent);
        self.mark_moved(leaf);
    }

    /// Gives every proxy the groups `groups_of` says for its key, the
    /// pairs left as they are: for a broad phase loaded without its groups
    /// (they are not saved), whose pairs were found with those groups.
    pub fn regroup(&mut self, groups_of: impl Fn(u64) -> CollisionFilter) {
        for node in self.nodes.iter_mut().filter(|n| n.height == 0) {
            node.groups = groups_of(node.key);
        }
        self.refit_all();
    }

    /// Removes a proxy; its pairs disappear at the next
    /// [`update_pairs`](Self::update_pairs). A handle naming no proxy is ignored.
    pub fn remove(&mut self, proxy: ProxyId) {
        let Some(leaf) = self.leaf(proxy) else { return };
        self.remove_leaf(leaf);
        self.release(leaf);
        self.proxy_count -= 1;
        self.removed.push(leaf);
    }

    /// Gives a proxy its new tight box and the displacement expected over
    /// the next step (metres; zero when unknown). While the box, swept along
    /// the displacement, stays inside the stored fat box nothing changes and
    /// this returns false; otherwise the proxy is re-inserted with a new fat
    /// box, grown by the margin and stretched ahead by [`PREDICTED_STEPS`]
    /// times the displacement (Box2D's predicted boxes, so a falling body is
    /// not re-inserted every step), joins the move buffer, and this returns
    /// true. A handle naming no proxy is ignored (false).
    pub fn update(&mut self, proxy: ProxyId, aabb: Aabb<D>, displacement: D::Vector) -> bool {
        let Some(leaf) = self.leaf(proxy) else {
            return false;
        };
        if self.encloses(proxy, &aabb.swept(displacement)) {
            return false;
        }
        self.remove_leaf(leaf);
        self.nodes[leaf as usize].aabb = predicted(&fatten(&aabb, self.margin), displacement);
        self.insert_leaf(leaf);
        self.mark_moved(leaf);
        true
    }

    /// [`update`](Self::update) for many proxies, in order. When more than
    /// one in [`REBUILD_DIVISOR`] of the proxies leave their fat boxes at
    /// once (a pile falling together, a blast), the tree is rebuilt from its
    /// leaves instead of re-inserting them one by one: a top-down build is
    /// O(n log n) in sequential passes, where each re-insertion walks and
    /// rebalances its own path. Either way the pairs are the same.
    pub fn update_many(&mut self, moves: &[(ProxyId, Aabb<D>, D::Vector)]) {
        let escaping = moves
            .iter()
            .filter(|(proxy, aabb, displacement)| {
                self.leaf(*proxy).is_some() && !self.encloses(*proxy, &aabb.swept(*displacement))
            })
            .count();
        if escaping * REBUILD_DIVISOR <= self.proxy_count {
            for &(proxy, aabb, displacement) in moves {
                self.update(proxy, aabb, displacement);
            }
            return;
        }
        for &(proxy, aabb, displacement) in moves {
            let Some(leaf) = self.leaf(proxy) else {
                continue;
            };
            if !self.encloses(proxy, &aabb.swept(displacement)) {
                self.nodes[leaf as usize].aabb =
                    predicted(&fatten(&aabb, self.margin), displacement);
                self.mark_moved(leaf);
            }
        }
        self.rebuild();
    }

    /// True when the proxy's stored fat box contains `aabb`, so that
    /// [`update`](Self::update) with it would change nothing. Reads only, so
    /// many threads may ask at once. False for a handle naming no proxy.
    pub fn encloses(&self, proxy: ProxyId, aabb: &Aabb<D>) -> bool {
        self.leaf(proxy)
            .is_some_and(|leaf| self.nodes[leaf as usize].aabb.contains(aabb))
    }

    /// Calls `callback` with the key of every proxy whose fat box overlaps
    /// `aabb` (touching counts), in no particular but deterministic order,
    /// until `callback` returns false.
    pub fn query(&self, aabb: &Aabb<D>, mut callback: impl FnMut(u64) -> bool) {
        let mut stack = Vec::with_capacity(64);
        visit_overlaps(&self.nodes, self.root, aabb, None, &mut stack, |leaf| {
            callback(self.nodes[leaf as usize].key)
        });
    }

    /// All pairs `(key_a, key_b)` with `key_a < key_b` whose fat boxes
    /// overlap, sorted ascending, deduplicated.
    ///
    /// Incremental: only proxies moved since the last call are queried
    /// against the tree, and the result is the persistent set = previous
    /// pairs still overlapping + new pairs.
    pub fn update_pairs(&mut self) -> &[(u64, u64)] {
        // A pair's overlap depends only on its two leaves' fat boxes, which
        // change only when a proxy is inserted, re-inserted or removed.
        self.changed = false;
        if self.move_buffer.is_empty() && self.removed.is_empty() {
            return &self.key_pairs;
        }
        // 1. The touched nodes, moved or removed: only their pairs change.
        let mut moved = std::mem::take(&mut self.move_buffer);
        self.touched.clear();
        self.touched.resize(self.nodes.len().div_ceil(64), 0);
        for &i in moved.iter().chain(&self.removed) {
            self.touched[i as usize / 64] |= 1 << (i % 64);
        }
        self.removed.clear();

        // 2. Their pairs now: the tree queried with every moved proxy that
        // is still a leaf, on all threads (the queries only read the tree;
        // a whole stack of falling boxes may leave its fat boxes at once).
        moved.retain(|&proxy| {
            let node = &mut self.nodes[proxy as usize];
            std::mem::replace(&mut node.moved, false) && node.height == 0
        });
        let (nodes, root) = (&self.nodes, self.root);
        let query = |stack: &mut Vec<u32>, found: &mut Vec<Pair>, proxy: u32| {
            let Node {
                aabb, key, groups, ..
            } = nodes[proxy as usize];
            visit_overlaps(nodes, root, &aabb, Some(&groups), stack, |other| {
                let other_key = nodes[other as usize].key;
                if other_key < key {
                    found.push((other_key, key, other, proxy));
                } else if key < other_key {
                    found.push((key, other_key, proxy, other));
                }
                true
            });
        };
        #[cfg(feature = "parallel")]
        let found: Vec<Vec<Pair>> = moved
            .par_iter()
            .with_min_len(QUERIES_PER_TASK)
            .fold(
                || (Vec::new(), Vec::new()),
                |(mut stack, mut found), &proxy| {
                    query(&mut stack, &mut found, proxy);
                    (stack, found)
                },
            )
            .map(|(_, found)| found)
            .collect();
        #[cfg(not(feature = "parallel"))]
        let found: Vec<Vec<Pair>> = {
            let (mut stack, mut found) = (Vec::new(), Vec::new());
            for &proxy in moved.iter() {
                query(&mut stack, &mut found, proxy);
            }
            vec![found]
        };
        let mut fresh = std::mem::take(&mut self.fresh);
        fresh.clear();
        found.iter().for_each(|f| fresh.extend_from_slice(f));
        moved.clear();
        self.move_buffer = moved;
        fresh.sort_unstable();
        fresh.dedup();

        // 3. Their pairs before; when the same, nothing changed (a proxy
        // re-inserted within a stack finds the pairs it had).
        let bits = &self.touched;
        let touched = |&(_, _, a, b): &Pair| {
            [a, b]
                .iter()
                .any(|&i| bits[i as usize / 64] >> (i % 64) & 1 == 1)
        };
        if !self.pairs.iter().filter(|p| touched(p)).eq(fresh.iter()) {
            // 4. The others' pairs and theirs, two sorted runs: merged. The
            // same keys in other nodes (proxies removed and added again)
            // change the stored pairs but not the keys' pairs.
            let keys = |&(a, b, _, _): &Pair| (a, b);
            let before = self.pairs.iter().filter(|p| touched(p)).map(keys);
            self.changed = !before.eq(fresh.iter().map(keys));
            self.pairs.retain(|p| !touched(p));
            self.pairs.extend_from_slice(&fresh);
            self.pairs.sort();
            if self.changed {
                self.key_pairs.clear();
                self.key_pairs.extend(self.pairs.iter().map(keys));
                self.key_pairs.dedup();
            }
        }
        self.fresh = fresh;
        &self.key_pairs
    }

    /// The pairs the last [`update_pairs`](Self::update_pairs) returned.
    pub fn pairs(&self) -> &[(u64, u64)] {
        &self.key_pairs
    }

    /// True when the last [`update_pairs`](Self::update_pairs) changed the
    /// set of pairs, false when it returned the same pairs as the call
    /// before. With duplicate keys it may also be true when two proxies of
    /// one key swapped their pairs and the keys' pairs stayed the same.
    pub fn pairs_changed(&self) -> bool {
        self.changed
    }

    /// Number of proxies.
    pub fn len(&self) -> usize {
        self.proxy_count
    }

    /// True when there are no proxies.
    pub fn is_empty(&self) -> bool {
        self.proxy_count == 0
    }

    /// The stored fat box of a proxy, or `None` for a handle naming no proxy.
    pub fn fat_aabb(&self, proxy: ProxyId) -> Option<&Aabb<D>> {
        self.leaf(proxy).map(|leaf| &self.nodes[leaf as usize].aabb)
    }

    /// Height of the tree: 0 when empty or holding one proxy, otherwise the
    /// number of edges from the root to the deepest leaf.
    pub fn height(&self) -> usize {
        let root = self.nodes.get(self.root as usize);
        root.map_or(0, |root| root.height.max(0) as usize)
    }

    /// The node index of a live proxy.
    fn leaf(&self, proxy: ProxyId) -> Option<u32> {
        let node = self.nodes.get(proxy.0 as usize)?;
        (node.height == 0).then_some(proxy.0)
    }

    /// Puts a leaf into the move buffer unless it already waits there.
    fn mark_moved(&mut self, leaf: u32) {
        let node = &mut self.nodes[leaf as usize];
        if !node.moved {
            node.moved = true;
            self.move_buffer.push(leaf);
        }
    }

    /// A detached node, from the free list when possible. A reused slot keeps
    /// its `moved` flag, which mirrors its presence in the move buffer.
    fn allocate(&mut self, aabb: Aabb<D>, key: u64, height: i32, groups: CollisionFilter) -> u32 {
        if let Some(index) = self.free.pop() {
            let node = &mut self.nodes[index as usize];
            node.aabb = aabb;
            node.parent = NULL;
            node.children = [NULL; 2];
            node.height = height;
            node.key = key;
            node.groups = groups;
            return index;
        }
        let node = Node {
            aabb,
            parent: NULL,
            children: [NULL; 2],
            height,
            key,
            moved: false,
            groups,
        };
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// Returns a detached node to the free list.
    fn release(&mut self, index: u32) {
        self.nodes[index as usize].height = FREE;
        self.free.push(index);
    }

    /// Height of a node in use.
    fn height_of(&self, index: u32) -> i32 {
        self.nodes[index as usize].height
    }

    /// Makes `new` the child of `parent` that `old` was.
    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        for child in &mut self.nodes[parent as usize].children {
            if *child == old {
                *child = new;
            }
        }
    }

    /// Recomputes an internal node's box, height and groups from its
    /// children.
    fn refit(&mut self, index: u32) {
        let [a, b] = self.nodes[index as usize].children;
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        let aabb = na.aabb.union(&nb.aabb);
        let height = 1 + na.height.max(nb.height);
        let groups = union(na.groups, nb.groups);
        let node = &mut self.nodes[index as usize];
        node.aabb = aabb;
        node.height = height;
        node.groups = groups;
    }

    /// Recomputes the groups of every node from `index` up to the root
    /// from their children, stopping where they stay the same.
    fn regroup_upwards(&mut self, mut index: u32) {
        while index != NULL {
            let [a, b] = self.nodes[index as usize].children;
            let groups = union(self.nodes[a as usize].groups, self.nodes[b as usize].groups);
            let node = &mut self.nodes[index as usize];
            if node.groups == groups {
                return;
            }
            node.groups = groups;
            index = node.parent;
        }
    }

    /// Balances, refits and improves every node from `index` up to the root.
    /// Each node's subtrees are balanced and differ in height by at most two,
    /// so one rotation restores the AVL condition.
    fn refit_upwards(&mut self, mut index: u32) {
        while index != NULL {
            let [a, b] = self.nodes[index as usize].children;
            let skew = self.height_of(b) - self.height_of(a);
            if skew.abs() > 1 {
                index = self.rotate(index, usize::from(skew > 0));
            }
            self.refit(index);
            self.improve(index);
            index = self.nodes[index as usize].parent;
        }
    }

    /// Lifts the child of `index` in `slot` (the taller, an internal node)
    /// into the place of `index`. The lifted node keeps its taller child and
    /// hands its shorter one down to `index`. Returns the lifted node.
    fn rotate(&mut self, index: u32, slot: usize) -> u32 {
        let lifted = self.nodes[index as usize].children[slot];
        let [f, g] = self.nodes[lifted as usize].children;
        let (tall, short) = if self.height_of(f) >= self.height_of(g) {
            (f, g)
        } else {
            (g, f)
        };
        let parent = self.nodes[index as usize].parent;
        self.nodes[lifted as usize].parent = parent;
        if parent == NULL {
            self.root = lifted;
        } else {
            self.replace_child(parent, index, lifted);
        }
        self.nodes[lifted as usize].children = [index, tall];
        self.nodes[index as usize].parent = lifted;
        self.nodes[index as usize].children[slot] = short;
        self.nodes[short as usize].parent = index;
        self.refit(index);
        self.refit(lifted);
        lifted
    }

    /// The node of height 0 or 1 that the surface-area heuristic pairs a new
    /// box with: from the root, into the child that the box would grow less
    /// (the lower bound Box2D v3's `b2FindBestSibling` descends by), then
    /// the cheapest of the height-1 node and its two leaves. O(height); an
    /// exact search over every short node pops many nodes in a dense stack.
    /// Boxes with NaN sizes take the first child at every level.
    fn best_sibling(&self, aabb: &Aabb<D>) -> u32 {
        let growth = |index: u32| {
            let node = &self.nodes[index as usize].aabb;
            perimeter(&node.union(aabb)) - perimeter(node)
        };
        let mut index = self.root;
        while self.height_of(index) > 1 {
            let [a, b] = self.nodes[index as usize].children;
            index = if growth(b) < growth(a) { b } else { a };
        }
        if self.height_of(index) == 0 {
            return index;
        }
        // Pairing with a leaf also grows its parent.
        let paired = |leaf: u32| perimeter(&self.nodes[leaf as usize].aabb.union(aabb));
        let through = growth(index);
        let mut best = (paired(index), index);
        for leaf in self.nodes[index as usize].children {
            let cost = paired(leaf) + through;
            if cost < best.0 {
                best = (cost, leaf);
            }
        }
        best.1
    }

    /// After a refit: lets a child of `index` trade places with a grandchild
    /// of the same height (heights stay as they are) when that shrinks the
    /// grandchild's new parent the most.
    fn improve(&mut self, index: u32) {
        let [a, b] = self.nodes[index as usize].children;
        let (mut best_gain, mut best) = (0.0, None);
        for (outer, inner) in [(a, b), (b, a)] {
            let inner_node = &self.nodes[inner as usize];
            if inner_node.height == 0 {
                continue;
            }
            let [f, g] = inner_node.children;
            for (up, stays) in [(f, g), (g, f)] {
                let merged = self.nodes[outer as usize]
                    .aabb
                    .union(&self.nodes[stays as usize].aabb);
                let gain = perimeter(&inner_node.aabb) - perimeter(&merged);
                if self.height_of(up) == self.height_of(outer) && gain > best_gain {
                    (best_gain, best) = (gain, Some((outer, inner, up)));
                }
            }
        }
        let Some((outer, inner, up)) = best else {
            return;
        };
        self.replace_child(index, outer, up);
        self.nodes[up as usize].parent = index;
        self.replace_child(inner, up, outer);
        self.nodes[outer as usize].parent = inner;
        self.refit(inner);
    }

    /// Builds the tree afresh over its leaves, top down: every internal node
    /// is freed, then each set of leaves is split at the median of the
    /// leaves' centres along the axis where the centres spread widest. The
    /// halves differ by at most one leaf, so the tree is balanced (AVL
    /// holds) and as short as it can be.
    fn rebuild(&mut self) {
        let mut leaves = Vec::with_capacity(self.proxy_count);
        for index in 0..self.nodes.len() as u32 {
            match self.height_of(index) {
                0 => {
                    let aabb = &self.nodes[index as usize].aabb;
                    leaves.push((aabb.min + aabb.max, index));
                }
                FREE => {}
                _ => self.release(index),
            }
        }
        self.root = NULL;
        if !leaves.is_empty() {
            self.root = self.build(&mut leaves);
            self.nodes[self.root as usize].parent = NULL;
        }
    }

    /// The subtree over `leaves` (at least one; each with twice its box's
    /// centre), its root returned.
    fn build(&mut self, leaves: &mut [(D::Vector, u32)]) -> u32 {
        if let [(_, leaf)] = leaves {
            return *leaf;
        }
        let axis = widest_axis::<D>(leaves);
        let half = leaves.len() / 2;
        leaves.select_nth_unstable_by(half, |(a, i), (b, j)| {
            a.dot(axis).total_cmp(&b.dot(axis)).then(i.cmp(j))
        });
        let (low, high) = leaves.split_at_mut(half);
        let children = [self.build(low), self.build(high)];
        let [a, b] = children.map(|c| &self.nodes[c as usize]);
        let (aabb, height) = (a.aabb.union(&b.aabb), 1 + a.height.max(b.height));
        let parent = self.allocate(aabb, 0, height, union(a.groups, b.groups));
        self.nodes[parent as usize].children = children;
        for child in children {
            self.nodes[child as usize].parent = parent;
        }
        parent
    }

    /// Links a detached leaf into the tree.
    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL;
            return;
        }
        let aabb = self.nodes[leaf as usize].aabb;
        let sibling = self.best_sibling(&aabb);
        let grand = self.nodes[sibling as usize].parent;
        let (leaf_node, sibling_node) = (&self.nodes[leaf as usize], &self.nodes[sibling as usize]);
        let bounds = aabb.union(&sibling_node.aabb);
        let groups = union(leaf_node.groups, sibling_node.groups);
        let parent = self.allocate(bounds, 0, sibling_node.height + 1, groups);
        let node = &mut self.nodes[parent as usize];
        node.parent = grand;
        node.children = [sibling, leaf];
        self.nodes[sibling as usize].parent = parent;
        self.nodes[leaf as usize].parent = parent;
        if grand == NULL {
            self.root = parent;
        } else {
            self.replace_child(grand, sibling, parent);
        }
        self.refit_upwards(grand);
    }

    /// Unlinks a leaf from the tree; its parent is freed and its sibling
    /// takes the parent's place.
    fn remove_leaf(&mut self, leaf: u32) {
        let parent = self.nodes[leaf as usize].parent;
        self.nodes[leaf as usize].parent = NULL;
        if parent == NULL {
            self.root = NULL;
            return;
        }
        let [a, b] = self.nodes[parent as usize].children;
        let sibling = if a == leaf { b } else { a };
        let grand = self.nodes[parent as usize].parent;
        self.nodes[sibling as usize].parent = grand;
        if grand == NULL {
            self.root = sibling;
        } else {
            self.replace_child(grand, parent, sibling);
        }
        self.release(parent);
        self.refit_upwards(grand);
    }
}

/// What of a [`BroadPhase`] changes while its proxies stay the same: every
/// leaf's fat box, the stored pairs and the proxies waiting for the next
/// [`BroadPhase::update_pairs`]. Taken by [`BroadPhase::save_state`], given
/// back by [`BroadPhase::restore_state`]; the tree's shape is not kept.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug)]
pub struct BroadPhaseState<D: ShapeDim> {
    /// Every leaf's fat box, in node order.
    leaves: Vec<Aabb<D>>,
    /// The stored pairs' two nodes each, in pair order.
    pairs: Vec<[u32; 2]>,
    /// The pairs (their places and keys) with a node that was no live
    /// leaf of that key when saved: a proxy removed since the last
    /// `update_pairs`, whose pairs go at the next.
    stale: Vec<(u32, u64, u64)>,
    /// The move buffer.
    moved: Vec<u32>,
    /// The nodes of proxies removed since the last `update_pairs`.
    removed: Vec<u32>,
}

impl<D: ShapeDim> Default for BroadPhaseState<D> {
    fn default() -> Self {
        Self {
            leaves: Vec::new(),
            pairs: Vec::new(),
            stale: Vec::new(),
            moved: Vec::new(),
            removed: Vec::new(),
        }
    }
}

impl<D: ShapeDim> BroadPhaseState<D> {
    /// Pairs held, in pair order: a caller keeping something per pair
    /// keeps it in this order.
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }
    /// Bytes held: the leaves' boxes, the pairs and the buffers.
    pub fn bytes(&self) -> usize {
        self.leaves.len() * std::mem::size_of::<Aabb<D>>()
            + self.pairs.len() * std::mem::size_of::<[u32; 2]>()
            + self.stale.len() * std::mem::size_of::<(u32, u64, u64)>()
            + (self.moved.len() + self.removed.len()) * std::mem::size_of::<u32>()
    }
}

impl<D: ShapeDim> BroadPhase<D> {
    /// Writes into `state` (reusing its allocations) what
    /// [`restore_state`](Self::restore_state) needs to bring this broad
    /// phase back to now, as long as no proxy is inserted or removed in
    /// between: the fat boxes, the pairs and the move buffer.
    pub fn save_state(&self, state: &mut BroadPhaseState<D>) {
        state.leaves.clear();
        state.leaves.extend(
            self.nodes
                .iter()
                .filter(|node| node.height == 0)
                .map(|node| node.aabb),
        );
        state.pairs.clear();
        state.stale.clear();
        let live = |node: u32, key: u64| {
            let node = self.nodes.get(node as usize);
            node.is_some_and(|n| n.height == 0 && n.key == key)
        };
        for (i, &(key_a, key_b, a, b)) in self.pairs.iter().enumerate() {
            state.pairs.push([a, b]);
            if !(live(a, key_a) && live(b, key_b)) {
                state.stale.push((i as u32, key_a, key_b));
            }
        }
        state.moved.clone_from(&self.move_buffer);
        state.removed.clone_from(&self.removed);
    }

    /// Brings back the fat boxes, pairs and move buffer of `state`, or
    /// returns false, changing nothing, when the proxies are not the ones
    /// it was saved with (another count of leaves, or a pair naming a node
    /// that is no leaf). The tree keeps its present shape, refitted to the
    /// restored boxes: pairs depend only on the leaves' boxes, never on the
    /// shape (`restored_state_gives_the_saved_pairs_whatever_the_shape`).
    pub fn restore_state(&mut self, state: &BroadPhaseState<D>) -> bool {
        let is_leaf = |i: u32| self.nodes.get(i as usize).is_some_and(|n| n.height == 0);
        let leaves = self.nodes.iter().filter(|node| node.height == 0).count();
        let in_range = |&i: &u32| (i as usize) < self.nodes.len();
        let mut stale = state.stale.iter().map(|s| s.0 as usize).peekable();
        let pairs_fit = state.pairs.iter().enumerate().all(|(i, nodes)| {
            let is_stale = stale.next_if_eq(&i).is_some();
            is_stale || nodes.iter().all(|&n| is_leaf(n))
        });
        if leaves != state.leaves.len()
            || !pairs_fit
            || !state.pairs.iter().flatten().all(in_range)
            || !state.moved.iter().chain(&state.removed).all(in_range)
        {
            return false;
        }
        let mut boxes = state.leaves.iter();
        for node in self.nodes.iter_mut() {
            if node.height == 0 {
                if let Some(aabb) = boxes.next() {
                    node.aabb = *aabb;
                }
            }
            node.moved = false;
        }
        self.refit_all();
        self.move_buffer.clear();
        for &node in &state.moved {
            self.mark_moved(node);
        }
        self.removed.clone_from(&state.removed);
        let nodes = &self.nodes;
        let mut stale = state.stale.iter().peekable();
        self.pairs.clear();
        self.pairs
            .extend(state.pairs.iter().enumerate().map(|(i, &[a, b])| {
                match stale.next_if(|s| s.0 as usize == i) {
                    Some(&(_, key_a, key_b)) => (key_a, key_b, a, b),
                    None => (nodes[a as usize].key, nodes[b as usize].key, a, b),
                }
            }));
        self.key_pairs.clear();
        self.key_pairs
            .extend(self.pairs.iter().map(|&(a, b, _, _)| (a, b)));
        self.key_pairs.dedup();
        self.changed = false;
        true
    }

    /// Every internal node's box the union of its children's again, children
    /// before parents (an explicit stack: no recursion on deep trees).
    fn refit_all(&mut self) {
        if self.root == NULL {
            return;
        }
        // Nodes in an order where each parent comes before its children;
        // walked backwards, every child is refitted before its parent.
        let mut order = Vec::with_capacity(self.nodes.len());
        order.push(self.root);
        let mut next = 0;
        while let Some(&index) = order.get(next) {
            next += 1;
            if self.height_of(index) > 0 {
                order.extend(self.nodes[index as usize].children);
            }
        }
        for &index in order.iter().rev() {
            if self.height_of(index) > 0 {
                self.refit(index);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};

    /// A small deterministic linear congruential generator.
    struct Lcg(u64);

    impl Lcg {
        fn next_f32(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(0x5851_f42d_4c95_7f2d).wrapping_add(1);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
        fn below(&mut self, n: usize) -> usize {
            ((self.next_f32() * n as f32) as usize).min(n - 1)
        }
        fn vector<D: ShapeDim>(&mut self, lo: f32, hi: f32) -> D::Vector {
            let mut v = D::Vector::ZERO;
            for &axis in D::Vector::axes() {
                v += axis * (lo + (hi - lo) * self.next_f32());
            }
            v
        }
        fn aabb<D: ShapeDim>(&mut self, world: f32) -> Aabb<D> {
            let min = self.vector::<D>(0.0, world);
            Aabb::new(min, min + self.vector::<D>(0.1, 1.5))
        }
    }

    /// Checks links, heights, boxes, AVL balance, counts and the move buffer.
    fn validate<D: ShapeDim>(bp: &BroadPhase<D>) {
        let (mut reached, mut leaves) = (0, 0);
        let mut stack = Vec::new();
        if bp.root != NULL {
            assert_eq!(bp.nodes[bp.root as usize].parent, NULL);
            stack.push(bp.root);
        }
        while let Some(i) = stack.pop() {
            reached += 1;
            let node = &bp.nodes[i as usize];
            if node.height == 0 {
                leaves += 1;
                continue;
            }
            let [a, b] = node.children;
            let (na, nb) = (&bp.nodes[a as usize], &bp.nodes[b as usize]);
            assert!(na.parent == i && nb.parent == i);
            assert_eq!(node.height, 1 + na.height.max(nb.height));
            assert!((na.height - nb.height).abs() <= 1, "unbalanced");
            let bounds = na.aabb.union(&nb.aabb);
            assert_eq!(format!("{:?}", node.aabb), format!("{bounds:?}"));
            assert_eq!(node.groups, union(na.groups, nb.groups));
            stack.extend([a, b]);
        }
        assert_eq!(leaves, bp.len());
        assert_eq!(reached + bp.free.len(), bp.nodes.len());
        for (i, node) in bp.nodes.iter().enumerate() {
            assert_eq!(node.moved, bp.move_buffer.contains(&(i as u32)));
        }
    }

    /// `update_pairs` equals brute force over the fat boxes of `live`.
    fn check<D: ShapeDim>(bp: &mut BroadPhase<D>, live: &[(u64, ProxyId)]) -> Vec<(u64, u64)> {
        let mut expected = Vec::new();
        for (i, &(ka, pa)) in live.iter().enumerate() {
            for &(kb, pb) in &live[i + 1..] {
                if ka != kb && bp.fat_aabb(pa).unwrap().overlaps(bp.fat_aabb(pb).unwrap()) {
                    expected.push((ka.min(kb), ka.max(kb)));
                }
            }
        }
        expected.sort_unstable();
        expected.dedup();
        let before = bp.pairs().to_vec();
        assert_eq!(bp.update_pairs(), &expected[..]);
        let mut keys: Vec<u64> = live.iter().map(|&(k, _)| k).collect();
        keys.sort_unstable();
        keys.dedup();
        if keys.len() == live.len() {
            let changed = before != expected;
            assert_eq!(bp.pairs_changed(), changed, "told whether they changed");
        } else if !bp.pairs_changed() {
            assert_eq!(before, expected, "unchanged only when the same");
        }
        validate(bp);
        expected
    }

    /// Insert, move a random subset several times, remove some, insert more.
    fn pairs_match_brute_force<D: ShapeDim>(seed: u64) -> Vec<(u64, u64)> {
        let mut rng = Lcg(seed);
        let mut bp = BroadPhase::<D>::new(0.1);
        let mut live: Vec<_> = (0..400u64)
            .map(|k| (k * 3 + 7, bp.insert(k * 3 + 7, rng.aabb(20.0))))
            .collect();
        assert!(!check(&mut bp, &live).is_empty());
        for round in 0..6 {
            let step = if round % 2 == 0 { 0.5 } else { 3.0 };
            for &(_, proxy) in &live {
                if rng.next_f32() < 0.3 {
                    let fat = *bp.fat_aabb(proxy).unwrap();
                    let shift = rng.vector::<D>(-step, step);
                    let tight = Aabb::new(fat.min + shift, fat.max + shift);
                    bp.update(proxy, tight.expanded(-0.1), D::Vector::ZERO);
                }
            }
            check(&mut bp, &live);
        }
        let removed: Vec<_> = live.iter().step_by(5).map(|&(_, p)| p).collect();
        removed.iter().for_each(|&p| bp.remove(p));
        live.retain(|(_, p)| !removed.contains(p));
        check(&mut bp, &live);
        for &proxy in &removed {
            assert!(
                bp.fat_aabb(proxy).is_none() && !bp.update(proxy, rng.aabb(20.0), D::Vector::ZERO)
            );
            bp.remove(proxy);
        }
        assert_eq!(bp.len(), 320);
        live.extend((1000..1040u64).map(|k| (k, bp.insert(k, rng.aabb(20.0)))));
        let pairs = check(&mut bp, &live);
        assert_eq!(bp.update_pairs(), &pairs[..], "nothing moved: same pairs");
        pairs
    }

    #[test]
    fn pairs_match_brute_force_and_are_deterministic() {
        let (d2, d3) = (pairs_match_brute_force::<D2>, pairs_match_brute_force::<D3>);
        assert_eq!(d2(1), d2(1));
        assert_eq!(d3(2), d3(2));
        d2(99);
        d3(98);
    }

    /// Random moves of about `share` of `live`, some with a NaN box.
    fn random_moves<D: ShapeDim>(
        rng: &mut Lcg,
        bp: &BroadPhase<D>,
        live: &[(u64, ProxyId)],
        share: f32,
    ) -> Vec<(ProxyId, Aabb<D>, D::Vector)> {
        let mut moves = Vec::new();
        for &(_, proxy) in live {
            if rng.next_f32() < share {
                let fat = *bp.fat_aabb(proxy).unwrap();
                let shift = rng.vector::<D>(-2.0, 2.0);
                let tight = Aabb::new(fat.min + shift, fat.max + shift).expanded(-0.1);
                moves.push((proxy, tight, rng.vector::<D>(-0.1, 0.1)));
            }
        }
        let nan = Aabb::new(D::Vector::splat(f32::NAN), D::Vector::splat(f32::NAN));
        moves.push((live[rng.below(live.len())].1, nan, D::Vector::ZERO));
        moves
    }

    /// A restored broad phase gives the saved pairs, and then the same pairs
    /// as a copy taken at the save under the same moves, though its tree
    /// was reshaped in between (re-insertions and a rebuild).
    fn restored_state_gives_the_saved_pairs<D: ShapeDim>(seed: u64) {
        let mut rng = Lcg(seed);
        let mut bp = BroadPhase::<D>::new(0.1);
        let live: Vec<_> = (0..300u64)
            .map(|k| (k, bp.insert(k, rng.aabb(20.0))))
            .collect();
        check(&mut bp, &live);
        let moves = random_moves(&mut rng, &bp, &live, 0.1);
        bp.update_many(&moves);
        // Saved with proxies in the move buffer, before their pairs.
        let mut state = BroadPhaseState::default();
        bp.save_state(&mut state);
        let copy = bp.clone();
        for share in [0.05, 0.9, 0.2] {
            let moves = random_moves(&mut rng, &bp, &live, share);
            bp.update_many(&moves);
            check(&mut bp, &live);
        }
        assert!(bp.restore_state(&state));
        validate(&bp);
        let mut copy = copy;
        assert_eq!(check(&mut bp, &live), check(&mut copy, &live));
        for share in [0.3, 0.02, 1.0, 0.1] {
            let moves = random_moves(&mut rng, &bp, &live, share);
            bp.update_many(&moves);
            copy.update_many(&moves);
            assert_eq!(check(&mut bp, &live), check(&mut copy, &live));
            for &(_, proxy) in &live {
                assert_eq!(
                    format!("{:?}", bp.fat_aabb(proxy)),
                    format!("{:?}", copy.fat_aabb(proxy))
                );
            }
        }
        // Not the proxies it was saved with: refused, nothing changed.
        let extra = bp.insert(1000, rng.aabb(20.0));
        let pairs = bp.pairs().to_vec();
        assert!(!bp.restore_state(&state));
        assert_eq!(bp.pairs(), &pairs[..]);
        bp.remove(extra);
    }

    #[test]
    fn restored_state_gives_the_saved_pairs_whatever_the_shape() {
        restored_state_gives_the_saved_pairs::<D2>(5);
        restored_state_gives_the_saved_pairs::<D3>(6);
    }

    /// Leaves under node `index`.
    fn leaf_count<D: ShapeDim>(bp: &BroadPhase<D>, index: u32) -> usize {
        let node = &bp.nodes[index as usize];
        match node.height {
            0 => 1,
            _ => node.children.iter().map(|&c| leaf_count(bp, c)).sum(),
        }
    }

    /// `update_many` gives the pairs of `update` called once per move, in
    /// order, whether it re-inserts (few escape) or rebuilds (many do),
    /// with stale handles, repeated proxies and NaN boxes among the moves.
    fn update_many_matches_update<D: ShapeDim>(seed: u64) {
        let mut rng = Lcg(seed);
        let mut many = BroadPhase::<D>::new(0.1);
        let mut live: Vec<_> = (0..400u64)
            .map(|k| (k, many.insert(k, rng.aabb(20.0))))
            .collect();
        let gone: Vec<_> = live.drain(..40).map(|(_, p)| p).collect();
        gone.iter().for_each(|&p| many.remove(p));
        let mut one = many.clone();
        check(&mut many, &live);
        check(&mut one, &live);
        for (round, share) in [0.1, 0.6, 0.2, 1.0, 0.05, 0.5].into_iter().enumerate() {
            let mut moves = Vec::new();
            for &(_, proxy) in &live {
                if rng.next_f32() < share {
                    let fat = *many.fat_aabb(proxy).unwrap();
                    let shift = rng.vector::<D>(-2.0, 2.0);
                    let tight = Aabb::new(fat.min + shift, fat.max + shift).expanded(-0.1);
                    moves.push((proxy, tight, rng.vector::<D>(-0.1, 0.1)));
                }
            }
            moves.push((gone[round], rng.aabb(20.0), D::Vector::ZERO));
            let nan = Aabb::new(D::Vector::splat(f32::NAN), D::Vector::splat(f32::NAN));
            moves.push((live[round].1, nan, D::Vector::ZERO));
            moves.push((live[round + 1].1, rng.aabb(20.0), D::Vector::ZERO));
            moves.push((live[round + 1].1, rng.aabb(20.0), D::Vector::ZERO));
            many.update_many(&moves);
            for &(proxy, aabb, displacement) in &moves {
                one.update(proxy, aabb, displacement);
            }
            for &(_, proxy) in &live {
                assert_eq!(
                    format!("{:?}", many.fat_aabb(proxy)),
                    format!("{:?}", one.fat_aabb(proxy)),
                    "round {round}: same fat boxes"
                );
            }
            assert_eq!(
                check(&mut many, &live),
                check(&mut one, &live),
                "round {round}"
            );
            // Half the proxies or more, moved by up to 2 m: most escape, and
            // the rebuilt tree splits its leaves in halves at every node.
            if share >= 0.5 {
                let leaves = |i: u32| leaf_count(&many, i);
                let [a, b] = many.nodes[many.root as usize].children;
                assert!(leaves(a).abs_diff(leaves(b)) <= 1, "round {round}: rebuilt");
            }
        }
    }

    #[test]
    fn update_many_matches_update_2d_and_3d() {
        update_many_matches_update::<D2>(5);
        update_many_matches_update::<D3>(6);
    }

    /// A proxy re-inserted next to the same neighbours keeps the same pairs,
    /// and the broad phase says so; one that leaves them says they changed.
    fn reinserted_among_the_same<D: ShapeDim>() {
        let mut bp = BroadPhase::<D>::new(0.1);
        let x = D::Vector::axes()[0];
        let at = |i: f32| Aabb::<D>::around(x * i, 0.5);
        let row: Vec<_> = (0..5u64).map(|i| bp.insert(i, at(i as f32))).collect();
        assert_eq!(bp.update_pairs(), &[(0, 1), (1, 2), (2, 3), (3, 4)]);
        assert!(bp.pairs_changed());
        assert!(
            bp.update(row[2], at(2.15), D::Vector::ZERO),
            "left its fat box"
        );
        assert_eq!(bp.update_pairs(), &[(0, 1), (1, 2), (2, 3), (3, 4)]);
        assert!(!bp.pairs_changed(), "same neighbours");
        assert!(bp.update(row[4], at(9.0), D::Vector::ZERO));
        assert_eq!(bp.update_pairs(), &[(0, 1), (1, 2), (2, 3)]);
        assert!(bp.pairs_changed(), "left its neighbour");
        bp.remove(row[0]);
        assert_eq!(bp.update_pairs(), &[(1, 2), (2, 3)]);
        assert!(bp.pairs_changed(), "removed");
        // The same keys added again in each other's nodes: same pairs.
        let [a, b] = [row[1], row[2]].map(|p| *bp.fat_aabb(p).unwrap());
        bp.remove(row[1]);
        bp.remove(row[2]);
        // Freed nodes are reused last-in first-out: 1 takes 2's node.
        bp.insert(1, a.expanded(-0.1));
        bp.insert(2, b.expanded(-0.1));
        assert_eq!(bp.update_pairs(), &[(1, 2), (2, 3)]);
        assert!(!bp.pairs_changed(), "the same keys' pairs");
    }

    /// A huge but finite box is a box (its coordinates' sum overflows, its
    /// coordinates do not); a NaN coordinate makes an empty one.
    fn huge_boxes_pair<D: ShapeDim>() {
        let mut bp = BroadPhase::<D>::new(0.1);
        let huge = Aabb::<D>::around(D::Vector::ZERO, 2e38);
        bp.insert(1, huge);
        bp.insert(2, Aabb::around(D::Vector::ZERO, 1.0));
        let mut nan = Aabb::around(D::Vector::ZERO, 1.0);
        nan.max *= f32::NAN;
        bp.insert(3, nan);
        assert_eq!(bp.update_pairs(), &[(1, 2)]);
    }

    fn small_moves_stay<D: ShapeDim>() {
        let mut bp = BroadPhase::<D>::new(0.1);
        let tight = Aabb::<D>::around(D::Vector::ZERO, 0.5);
        let proxy = bp.insert(1, tight);
        let fat = *bp.fat_aabb(proxy).unwrap();
        assert_eq!(fat, tight.expanded(0.1));
        let shifted = |d: f32| Aabb::around(D::Vector::splat(d), 0.5);
        assert!(bp.encloses(proxy, &shifted(0.05)));
        assert!(!bp.update(proxy, shifted(0.05), D::Vector::ZERO));
        assert_eq!(bp.fat_aabb(proxy), Some(&fat));
        assert!(!bp.encloses(proxy, &shifted(0.5)));
        assert!(bp.update(proxy, shifted(0.5), D::Vector::ZERO));
        assert_eq!(bp.fat_aabb(proxy), Some(&shifted(0.5).expanded(0.1)));
        assert!(bp.encloses(proxy, &shifted(0.5)));
        bp.remove(proxy);
        assert!(
            !bp.encloses(proxy, &shifted(0.5)),
            "a removed proxy encloses nothing"
        );
    }

    /// A box moving 0.2 a step gets a fat box reaching four steps ahead, so
    /// the next steps along its path keep it where it is, until the step it
    /// is about to take leaves the fat box.
    fn moving_boxes_are_stretched_ahead<D: ShapeDim>() {
        let mut bp = BroadPhase::<D>::new(0.1);
        let at = |d: f32| Aabb::<D>::around(D::Vector::unit_y() * d, 0.5);
        let proxy = bp.insert(1, at(0.0));
        let step = D::Vector::unit_y() * -0.2;
        assert!(bp.update(proxy, at(-0.2), step));
        let fat = *bp.fat_aabb(proxy).unwrap();
        assert!((fat.min.dot(D::Vector::unit_y()) - (-0.2 - 0.5 - 0.1 - 0.8)).abs() < 1e-6);
        for k in 2..=4 {
            assert!(!bp.update(proxy, at(-0.2 * k as f32), step), "step {k}");
        }
        assert!(
            bp.update(proxy, at(-1.0), step),
            "next step beyond the prediction"
        );
    }

    #[test]
    fn moving_boxes_are_stretched_ahead_2d_and_3d() {
        moving_boxes_are_stretched_ahead::<D2>();
        moving_boxes_are_stretched_ahead::<D3>();
    }

    fn query_matches<D: ShapeDim>() {
        let mut rng = Lcg(5);
        let mut bp = BroadPhase::<D>::new(0.05);
        let proxies: Vec<_> = (0..300u64).map(|k| bp.insert(k, rng.aabb(15.0))).collect();
        for _ in 0..50 {
            let probe = rng.aabb::<D>(15.0).expanded(1.0);
            let mut found = Vec::new();
            bp.query(&probe, |key| {
                found.push(key);
                true
            });
            found.sort_unstable();
            let hits = |&k: &u64| bp.fat_aabb(proxies[k as usize]).unwrap().overlaps(&probe);
            assert_eq!(found, (0..300u64).filter(hits).collect::<Vec<_>>());
            let mut visits = 0;
            bp.query(&probe, |_| {
                visits += 1;
                false
            });
            assert_eq!(visits, found.len().min(1));
        }
    }

    /// Groups from four categories, each a random category bit and mask.
    fn random_groups(rng: &mut Lcg) -> CollisionFilter {
        CollisionFilter {
            category: 1 << rng.below(4),
            mask: rng.below(16) as u32,
        }
    }

    /// Random boxes in random groups: the pairs are the brute-force
    /// overlaps that both groups admit, after moves, new groups and a
    /// regroup alike.
    fn grouped_pairs<D: ShapeDim>() {
        let mut rng = Lcg(21);
        let mut bp = BroadPhase::<D>::new(0.1);
        let mut groups: Vec<CollisionFilter> = (0..300).map(|_| random_groups(&mut rng)).collect();
        let proxies: Vec<ProxyId> = (0..300u64)
            .map(|k| bp.insert_grouped(k, rng.aabb(15.0), groups[k as usize]))
            .collect();
        let expected = |bp: &BroadPhase<D>, groups: &[CollisionFilter]| {
            let mut pairs = Vec::new();
            for a in 0..300 {
                for b in a + 1..300 {
                    let boxes = (bp.fat_aabb(proxies[a]), bp.fat_aabb(proxies[b]));
                    if boxes.0.unwrap().overlaps(boxes.1.unwrap()) && groups[a].admits(&groups[b]) {
                        pairs.push((a as u64, b as u64));
                    }
                }
            }
            pairs
        };
        for round in 0..4 {
            for (k, &proxy) in proxies.iter().enumerate() {
                if rng.next_f32() < 0.3 {
                    let shift = rng.vector::<D>(-2.0, 2.0);
                    let fat = *bp.fat_aabb(proxy).unwrap();
                    bp.update(
                        proxy,
                        Aabb::new(fat.min + shift, fat.max + shift),
                        D::Vector::ZERO,
                    );
                }
                if round > 0 && rng.next_f32() < 0.1 {
                    groups[k] = random_groups(&mut rng);
                    bp.set_groups(proxy, groups[k]);
                }
            }
            let pairs = expected(&bp, &groups);
            assert!(!pairs.is_empty());
            assert_eq!(bp.update_pairs(), &pairs[..], "round {round}");
            validate(&bp);
        }
        let before = bp.pairs().to_vec();
        bp.nodes
            .iter_mut()
            .for_each(|node| node.groups = everything());
        bp.regroup(|key| groups[key as usize]);
        validate(&bp);
        for (&proxy, &g) in proxies.iter().zip(&groups) {
            bp.set_groups(proxy, g);
        }
        assert_eq!(bp.update_pairs(), &before[..], "regrouped as they were");
        assert!(!bp.pairs_changed());
    }

    fn line_height<D: ShapeDim>() {
        let mut bp = BroadPhase::<D>::new(0.1);
        let x = D::Vector::axes()[0];
        for i in 0..1000u64 {
            bp.insert(i, Aabb::around(x * i as f32, 0.4));
        }
        validate(&bp);
        assert!(bp.height() <= 15, "height {}", bp.height());
        assert_eq!(bp.update_pairs().len(), 999, "touching neighbours");
    }

    /// One test per generic check, run in 2D and in 3D.
    macro_rules! both_dimensions {
        ($($test:ident => $check:ident),*) => {
            $(#[test]
            fn $test() {
                $check::<D2>();
                $check::<D3>();
            })*
        };
    }

    both_dimensions!(
        moves_within_margin_do_not_reinsert => small_moves_stay,
        reinsertion_among_the_same_neighbours_changes_nothing => reinserted_among_the_same,
        huge_finite_boxes_pair_and_nan_boxes_do_not => huge_boxes_pair,
        query_matches_brute_force => query_matches,
        groups_leave_out_refused_pairs_2d_and_3d => grouped_pairs,
        height_stays_logarithmic => line_height
    );

    #[test]
    fn arbitrary_calls_never_panic() {
        let mut rng = Lcg(11);
        let mut bp = BroadPhase::<D2>::new(f32::NAN);
        bp.remove(ProxyId(3));
        assert!(bp.update_pairs().is_empty() && bp.is_empty() && bp.height() == 0);
        let mut handles = vec![ProxyId(0), ProxyId(u32::MAX)];
        for step in 0..3000 {
            let mut aabb = rng.aabb::<D2>(10.0);
            if step % 97 == 0 {
                aabb.min.x = f32::NAN;
            }
            let proxy = handles[rng.below(handles.len())];
            match rng.below(5) {
                0 | 1 => handles.push(bp.insert(rng.below(50) as u64, aabb)),
                2 => bp.remove(proxy),
                3 => _ = bp.update(proxy, aabb, rng.vector::<D2>(-1.0, 1.0) / (step % 3) as f32),
                _ => _ = bp.update_pairs(),
            }
        }
        // Brute force over every proxy alive now, duplicate keys included.
        handles.sort_unstable();
        handles.dedup();
        let key = |p| Some((bp.nodes[bp.leaf(p)? as usize].key, p));
        let live: Vec<_> = handles.iter().filter_map(|&p| key(p)).collect();
        assert!(live.len() > 100 && live.len() == bp.len());
        check(&mut bp, &live);
    }
}
