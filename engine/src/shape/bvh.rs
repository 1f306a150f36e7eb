//! A static bounding-volume hierarchy: the mid phase of triangle meshes and
//! heightfields (3D) and chains (2D), which finds the few faces of a large
//! surface near a body's box or along a ray.
//!
//! [`Bvh`] is built once over a fixed list of boxes, one per face (item `i`
//! is the face whose box is `boxes[i]`), and then only read, so many threads
//! may query it at once. The same code serves 2D and 3D.
//!
//! How it works:
//! 1. Every box is kept as a SIMD word (`Vec4`, unused lanes 0), so that a
//!    box test is a few vector instructions in both dimensions. A box with
//!    a coordinate that is not finite, or with `min > max` on an axis, is
//!    left out of the tree: it overlaps nothing and no ray enters it.
//! 2. The build runs top down from an explicit stack of pending nodes. A
//!    node takes the box around its items; with more than [`LEAF_SIZE`]
//!    items it splits them in halves at the median of their box centres
//!    along the axis where the centres spread the most
//!    (`select_nth_unstable_by`, ties broken by item index, so the same
//!    boxes always give the same tree: `build_is_deterministic`). Each
//!    level costs O(n), and halving bounds the depth by log2(n) - 1, so the
//!    build takes O(n log n) (200,000 boxes in about 50 ms on one desktop
//!    core; `large_build_is_sound` checks such a tree).
//! 3. Nodes live in one `Vec`, the root first and both children of a node
//!    side by side; a leaf names a range of an item array permuted into
//!    leaf order, next to which the items' own boxes are stored.
//! 4. [`Bvh::query`] walks the tree depth first from a fixed-size stack,
//!    entering the nodes whose box overlaps the query box and testing the
//!    items of the leaves it reaches: it reports exactly the items whose
//!    box overlaps (`query_matches_brute_force_2d_and_3d`).
//! 5. [`Bvh::cast_ray`] walks the same way, but clips the ray against each
//!    box by the slab test, visits the nearer child first and drops every
//!    box the ray enters later than the nearest hit found so far
//!    (`cast_ray_matches_brute_force_2d_and_3d`). An axis the ray runs
//!    parallel to (a zero component of the direction) is not divided by:
//!    the ray is inside that slab for all times or for none, so no 0 / 0 or
//!    0 * inf arises.
//!
//! Limits: the tree cannot change; a surface that changes is rebuilt. Median
//! splits ignore how big the boxes are, so a few huge faces among small ones
//! are found less quickly than a surface-area-heuristic split would find
//! them; for the even faces of meshes and heightfields the two differ
//! little. Items are numbered by `u32`. Query boxes and rays that are not
//! finite find nothing.
//!
//! References: C. Ericson, "Real-Time Collision Detection", 2005, §6.2
//! (top-down construction, median split); T. Kay and J. Kajiya, "Ray
//! Tracing Complex Scenes", SIGGRAPH 1986 (slab test); A. Williams et al.,
//! "An Efficient and Robust Ray–Box Intersection Algorithm", JGT 2005
//! (slabs and zero direction components).

use core::marker::PhantomData;

use glam::{BVec4A, Vec4};

use super::{Aabb, ShapeDim};
use crate::math::{SimdWord, Vector};

/// Most items in a leaf: testing a few faces' boxes in a row costs less than
/// another level of nodes to pick among them, and the leaf's items sit next
/// to each other in memory.
const LEAF_SIZE: usize = 4;

/// Entries of the traversal stacks. Walking depth first and keeping the
/// second child of each node on the path, a walk holds at most depth + 1
/// nodes; median splits keep the depth below log2(n) - 1 < 31 for any
/// `u32` number of items, so 64 always suffices.
const STACK_CAPACITY: usize = 64;

/// One node of the tree.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    /// Lowest corner of the box around the node's items, metres (unused lanes 0).
    min: Vec4,
    /// Highest corner of that box, metres (unused lanes 0).
    max: Vec4,
    /// A leaf's first item in [`Bvh::items`]; an internal node's first child
    /// in [`Bvh::nodes`] (the second follows it).
    start: u32,
    /// Number of items of a leaf, 1 to [`LEAF_SIZE`]; 0 for an internal node.
    count: u32,
}

/// A static BVH over a fixed list of boxes (the faces of a surface), built once.
/// The header of `shape/bvh.rs` tells how it is built and walked.
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh<D: ShapeDim> {
    /// The root (index 0) and every other node; empty when no box is usable.
    nodes: Vec<Node>,
    /// The usable items' indices, permuted so that each leaf's are a range.
    items: Vec<u32>,
    /// The boxes of `items`, in the same order: lowest and highest corners,
    /// metres (unused lanes 0).
    boxes: Vec<(Vec4, Vec4)>,
    /// Number of boxes given, usable or not.
    len: usize,
    /// The dimension the boxes live in.
    dim: PhantomData<D>,
}

impl<D: ShapeDim> Bvh<D> {
    /// Builds over `boxes` (index i stands for item i). Empty input gives an
    /// empty tree. A box with a coordinate that is not finite, or with
    /// `min > max` on an axis, is never reported.
    ///
    /// Panics when there are more than `u32::MAX` boxes.
    pub fn new(boxes: &[Aabb<D>]) -> Self {
        assert!(
            u32::try_from(boxes.len()).is_ok(),
            "a Bvh holds at most u32::MAX items"
        );
        let words: Vec<(Vec4, Vec4)> = boxes
            .iter()
            .map(|b| (b.min.to_word(), b.max.to_word()))
            .collect();
        let usable =
            |(min, max): &(Vec4, Vec4)| min.is_finite() && max.is_finite() && min.cmple(*max).all();
        // Halving each coordinate first keeps the centre of a huge box finite.
        let centres: Vec<Vec4> = words
            .iter()
            .map(|(min, max)| *min * 0.5 + *max * 0.5)
            .collect();
        let mut order: Vec<u32> = (0..boxes.len() as u32)
            .filter(|&i| usable(&words[i as usize]))
            .collect();
        // Filled in when taken from `pending`.
        let blank = Node {
            min: Vec4::ZERO,
            max: Vec4::ZERO,
            start: 0,
            count: 0,
        };
        let mut nodes = Vec::with_capacity(2 * order.len().div_ceil(LEAF_SIZE));
        // (node, first item, end of items, depth) of nodes still to fill in.
        let mut pending = Vec::new();
        if !order.is_empty() {
            nodes.push(blank);
            pending.push((0usize, 0usize, order.len(), 0usize));
        }
        let mut deepest = 0;
        while let Some((node, start, end, depth)) = pending.pop() {
            deepest = deepest.max(depth);
            let range = &mut order[start..end];
            let (mut min, mut max) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
            let (mut low, mut high) = (Vec4::INFINITY, Vec4::NEG_INFINITY);
            for &i in range.iter() {
                let (lo, hi) = words[i as usize];
                min = min.min(lo);
                max = max.max(hi);
                low = low.min(centres[i as usize]);
                high = high.max(centres[i as usize]);
            }
            if range.len() <= LEAF_SIZE {
                nodes[node] = Node {
                    min,
                    max,
                    start: start as u32,
                    count: range.len() as u32,
                };
                continue;
            }
            let spread = high - low;
            let axis = (1..D::N).fold(0, |best, k| if spread[k] > spread[best] { k } else { best });
            let half = range.len() / 2;
            range.select_nth_unstable_by(half, |&a, &b| {
                centres[a as usize][axis]
                    .total_cmp(&centres[b as usize][axis])
                    .then(a.cmp(&b))
            });
            let first = nodes.len();
            nodes.extend([blank, blank]);
            nodes[node] = Node {
                min,
                max,
                start: first as u32,
                count: 0,
            };
            pending.push((first + 1, start + half, end, depth + 1));
            pending.push((first, start, start + half, depth + 1));
        }
        debug_assert!(deepest + 1 < STACK_CAPACITY, "depth {deepest}");
        let boxes_in_order = order.iter().map(|&i| words[i as usize]).collect();
        Self {
            nodes,
            items: order,
            boxes: boxes_in_order,
            len: boxes.len(),
            dim: PhantomData,
        }
    }

    /// The box around everything (None when empty, or when no box is usable).
    pub fn bounds(&self) -> Option<Aabb<D>> {
        self.nodes.first().map(|root| {
            Aabb::new(
                D::Vector::from_word(root.min),
                D::Vector::from_word(root.max),
            )
        })
    }

    /// Number of items: the boxes given, usable or not.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when built over no boxes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Calls `visit(i)` for every item whose box overlaps `aabb` (touching
    /// counts, as in [`Aabb::overlaps`]), in an order fixed by the tree and
    /// the query (not ascending). `visit` returns false to stop early. A
    /// query box that is not finite finds nothing.
    pub fn query(&self, aabb: &Aabb<D>, mut visit: impl FnMut(u32) -> bool) {
        if self.nodes.is_empty() || !(aabb.min.is_finite() && aabb.max.is_finite()) {
            return;
        }
        let (low, high) = (aabb.min.to_word(), aabb.max.to_word());
        let overlaps = |min: Vec4, max: Vec4| (low.cmple(max) & min.cmple(high)).all();
        let mut stack = [0u32; STACK_CAPACITY];
        let mut len = 1;
        // Each node is pushed at most once (by its parent): at most
        // `nodes.len()` rounds.
        while len > 0 {
            len -= 1;
            let node = &self.nodes[stack[len] as usize];
            if !overlaps(node.min, node.max) {
                continue;
            }
            let start = node.start as usize;
            if node.count == 0 {
                stack[len] = node.start + 1;
                stack[len + 1] = node.start;
                len += 2;
                continue;
            }
            for j in start..start + node.count as usize {
                let (min, max) = self.boxes[j];
                if overlaps(min, max) && !visit(self.items[j]) {
                    return;
                }
            }
        }
    }

    /// Ray traversal: calls `hit(i, max_toi)` for the items whose box the
    /// ray `origin + t * dir`, `t` in `[0, max_toi]`, enters, nearest boxes
    /// first where cheap (the nearer child of a node is visited first).
    /// `hit` returns the time the ray hits item `i`'s face, if it does; a
    /// time in `[0, max_toi]` becomes the new `max_toi`, so that boxes the
    /// ray enters later are skipped (times outside are ignored). Returns the
    /// smallest time returned, with its item (the first found on a tie).
    ///
    /// `dir` need not be unit length: times are in units of `dir`. A zero
    /// component of `dir` (or a zero `dir`) is fine: the ray then runs
    /// inside a slab at all times or never. An origin or direction that is
    /// not finite, or a `max_toi` that is negative or NaN, finds nothing;
    /// `max_toi` may be infinite.
    pub fn cast_ray(
        &self,
        origin: D::Vector,
        dir: D::Vector,
        max_toi: f32,
        mut hit: impl FnMut(u32, f32) -> Option<f32>,
    ) -> Option<(u32, f32)> {
        if self.nodes.is_empty() || !(origin.is_finite() && dir.is_finite() && max_toi >= 0.0) {
            return None;
        }
        let ray = Ray::new(origin.to_word(), dir.to_word());
        let mut limit = max_toi;
        let mut best = None;
        let root = &self.nodes[0];
        let mut stack = [(0u32, 0.0f32); STACK_CAPACITY];
        stack[0] = (0, ray.entry(root.min, root.max, limit)?);
        let mut len = 1;
        // Each node is pushed at most once (by its parent): at most
        // `nodes.len()` rounds.
        while len > 0 {
            len -= 1;
            let (index, entry) = stack[len];
            if entry > limit {
                continue;
            }
            let node = &self.nodes[index as usize];
            let start = node.start as usize;
            if node.count == 0 {
                let (a, b) = (&self.nodes[start], &self.nodes[start + 1]);
                let near_a = ray.entry(a.min, a.max, limit);
                let near_b = ray.entry(b.min, b.max, limit);
                // The nearer child goes on top; on a tie, the first child.
                let (first, second) = match (near_a, near_b) {
                    (Some(ta), Some(tb)) if tb < ta => {
                        ((node.start + 1, tb), Some((node.start, ta)))
                    }
                    (Some(ta), Some(tb)) => ((node.start, ta), Some((node.start + 1, tb))),
                    (Some(ta), None) => ((node.start, ta), None),
                    (None, Some(tb)) => ((node.start + 1, tb), None),
                    (None, None) => continue,
                };
                if let Some(second) = second {
                    stack[len] = second;
                    len += 1;
                }
                stack[len] = first;
                len += 1;
                continue;
            }
            for j in start..start + node.count as usize {
                let (min, max) = self.boxes[j];
                if ray.entry(min, max, limit).is_none() {
                    continue;
                }
                let item = self.items[j];
                if let Some(t) = hit(item, limit) {
                    if t >= 0.0 && (t < limit || (best.is_none() && t <= limit)) {
                        limit = t;
                        best = Some((item, t));
                    }
                }
            }
        }
        best
    }
}

/// A ray prepared for slab tests against many boxes.
struct Ray {
    /// Start point, metres (unused lanes 0).
    origin: Vec4,
    /// Direction, with the zero components replaced by 1 so that dividing
    /// by it never gives 0 / 0 (those lanes are overwritten afterwards).
    dir: Vec4,
    /// The lanes where the direction is zero (the unused lanes among them).
    parallel: BVec4A,
}

impl Ray {
    fn new(origin: Vec4, dir: Vec4) -> Self {
        let parallel = dir.cmpeq(Vec4::ZERO);
        Self {
            origin,
            dir: Vec4::select(parallel, Vec4::ONE, dir),
            parallel,
        }
    }

    /// The time the ray enters the box `[min, max]` (0 when it starts
    /// inside), if it does by `limit`; in units of the direction.
    #[inline]
    fn entry(&self, min: Vec4, max: Vec4, limit: f32) -> Option<f32> {
        let outside = self.origin.cmplt(min) | self.origin.cmpgt(max);
        if (self.parallel & outside).any() {
            return None;
        }
        // Rounding is monotonic, so a box inside another gets an interval
        // inside the other's: no parent drops a face its child would enter.
        let t1 = (min - self.origin) / self.dir;
        let t2 = (max - self.origin) / self.dir;
        let near = Vec4::select(self.parallel, Vec4::NEG_INFINITY, t1.min(t2));
        let far = Vec4::select(self.parallel, Vec4::INFINITY, t1.max(t2));
        let enter = near.max_element().max(0.0);
        let leave = far.min_element().min(limit);
        (enter <= leave).then_some(enter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};
    use glam::{Vec2, Vec3};

    /// A small deterministic generator (xorshift32).
    struct Rng(u32);

    impl Rng {
        fn next(&mut self) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 17;
            self.0 ^= self.0 << 5;
            self.0
        }
        /// Uniform in [0, 1).
        fn unit(&mut self) -> f32 {
            (self.next() >> 8) as f32 / (1 << 24) as f32
        }
        /// Uniform in [lo, hi).
        fn range(&mut self, lo: f32, hi: f32) -> f32 {
            lo + (hi - lo) * self.unit()
        }
        fn chance(&mut self, p: f32) -> bool {
            self.unit() < p
        }
        fn below(&mut self, n: usize) -> usize {
            self.next() as usize % n
        }
        fn vector<D: ShapeDim>(
            &mut self,
            mut component: impl FnMut(&mut Self) -> f32,
        ) -> D::Vector {
            D::Vector::axes()
                .iter()
                .fold(D::Vector::ZERO, |v, &axis| v + axis * component(self))
        }
    }

    /// A random box: often on a coarse grid (so boxes touch exactly), some
    /// flat or a single point, some copies of earlier ones.
    fn random_box<D: ShapeDim>(rng: &mut Rng, earlier: &[Aabb<D>]) -> Aabb<D> {
        if !earlier.is_empty() && rng.chance(0.1) {
            return earlier[rng.below(earlier.len())];
        }
        let grid = rng.chance(0.5);
        let snap = |x: f32| if grid { (x * 4.0).round() / 4.0 } else { x };
        let centre = rng.vector::<D>(|r| snap(r.range(-10.0, 10.0)));
        if rng.chance(0.1) {
            return Aabb::new(centre, centre);
        }
        let half = rng.vector::<D>(|r| {
            if r.chance(0.15) {
                0.0
            } else {
                snap(r.range(0.0, 2.0))
            }
        });
        Aabb::new(centre - half, centre + half)
    }

    fn random_boxes<D: ShapeDim>(rng: &mut Rng, n: usize) -> Vec<Aabb<D>> {
        let mut boxes = Vec::with_capacity(n);
        for _ in 0..n {
            let b = random_box(rng, &boxes);
            boxes.push(b);
        }
        boxes
    }

    fn query_sorted<D: ShapeDim>(bvh: &Bvh<D>, aabb: &Aabb<D>) -> Vec<u32> {
        let mut found = Vec::new();
        bvh.query(aabb, |i| {
            found.push(i);
            true
        });
        found.sort_unstable();
        found
    }

    /// The brute-force slab test, one axis at a time.
    fn slab<D: ShapeDim>(
        b: &Aabb<D>,
        origin: D::Vector,
        dir: D::Vector,
        max_toi: f32,
    ) -> Option<f32> {
        let (o, d) = (origin.to_word(), dir.to_word());
        let (lo, hi) = (b.min.to_word(), b.max.to_word());
        let (mut enter, mut leave) = (0.0f32, max_toi);
        for k in 0..D::N {
            if d[k] == 0.0 {
                if o[k] < lo[k] || o[k] > hi[k] {
                    return None;
                }
            } else {
                let t1 = (lo[k] - o[k]) / d[k];
                let t2 = (hi[k] - o[k]) / d[k];
                enter = enter.max(t1.min(t2));
                leave = leave.min(t1.max(t2));
            }
        }
        (enter <= leave).then_some(enter)
    }

    /// Checks the tree's shape: each usable item in exactly one leaf, boxes
    /// nested, depth within the bound; returns the depth.
    fn check_structure<D: ShapeDim>(bvh: &Bvh<D>, boxes: &[Aabb<D>]) -> usize {
        let usable: Vec<bool> = boxes
            .iter()
            .map(|b| b.min.is_finite() && b.max.is_finite() && (b.max - b.min).min_element() >= 0.0)
            .collect();
        let mut seen = vec![false; boxes.len()];
        let inside = |inner: (Vec4, Vec4), outer: (Vec4, Vec4)| {
            outer.0.cmple(inner.0).all() && inner.1.cmple(outer.1).all()
        };
        let mut deepest = 0;
        let mut stack = Vec::new();
        if !bvh.nodes.is_empty() {
            stack.push((0usize, 0usize));
        }
        while let Some((index, depth)) = stack.pop() {
            deepest = deepest.max(depth);
            let node = bvh.nodes[index];
            let start = node.start as usize;
            if node.count == 0 {
                for child in [start, start + 1] {
                    let c = bvh.nodes[child];
                    assert!(inside((c.min, c.max), (node.min, node.max)));
                    stack.push((child, depth + 1));
                }
            } else {
                assert!(node.count as usize <= LEAF_SIZE);
                for j in start..start + node.count as usize {
                    let item = bvh.items[j] as usize;
                    assert!(usable[item] && !seen[item], "item {item}");
                    seen[item] = true;
                    let b = &boxes[item];
                    assert_eq!(bvh.boxes[j], (b.min.to_word(), b.max.to_word()));
                    assert!(inside(bvh.boxes[j], (node.min, node.max)));
                }
            }
        }
        assert_eq!(seen, usable);
        let usable_count = usable.iter().filter(|&&u| u).count();
        if usable_count > LEAF_SIZE {
            // Leaves lie less than log2(n) - 1 deep: at most ceil(log2 n) - 2.
            let ceil_log2 = (usize::BITS - (usable_count - 1).leading_zeros()) as usize;
            let bound = ceil_log2 - 2;
            assert!(deepest <= bound, "depth {deepest} > {bound}");
        }
        deepest
    }

    fn query_matches_brute_force<D: ShapeDim>(seed: u32) {
        let mut rng = Rng(seed);
        for n in [1, 2, 3, 4, 5, 8, 9, 17, 100, 333, 1000, 2000] {
            let boxes = random_boxes::<D>(&mut rng, n);
            let bvh = Bvh::new(&boxes);
            assert_eq!(bvh.len(), n);
            check_structure(&bvh, &boxes);
            let all = boxes.iter().fold(boxes[0], |a, b| a.union(b));
            assert_eq!(bvh.bounds(), Some(all));
            for q in 0..500 {
                let query = match q % 5 {
                    // An item's own box: touches at least itself.
                    0 => boxes[rng.below(n)],
                    // Inverted boxes still follow `Aabb::overlaps`.
                    1 => {
                        let b = random_box::<D>(&mut rng, &[]);
                        Aabb::new(b.max, b.min)
                    }
                    2 => random_box::<D>(&mut rng, &[]).expanded(rng.range(0.0, 5.0)),
                    _ => random_box::<D>(&mut rng, &[]),
                };
                let expected: Vec<u32> = (0..n as u32)
                    .filter(|&i| boxes[i as usize].overlaps(&query))
                    .collect();
                assert_eq!(
                    query_sorted(&bvh, &query),
                    expected,
                    "n {n} query {query:?}"
                );
            }
        }
    }

    #[test]
    fn query_matches_brute_force_2d_and_3d() {
        query_matches_brute_force::<D2>(0x9e37_79b9);
        query_matches_brute_force::<D3>(0x1234_5678);
    }

    fn cast_ray_matches_brute_force<D: ShapeDim>(seed: u32) {
        let mut rng = Rng(seed);
        for n in [1, 2, 5, 9, 50, 300, 2000] {
            let boxes = random_boxes::<D>(&mut rng, n);
            let bvh = Bvh::new(&boxes);
            for r in 0..300 {
                let origin = if r % 7 == 0 {
                    // On an item's corner: starts inside (touching) it.
                    boxes[rng.below(n)].min
                } else {
                    rng.vector::<D>(|r| r.range(-15.0, 15.0))
                };
                let dir = match r % 6 {
                    0 => D::Vector::ZERO,
                    // Axis-aligned or with some zero components.
                    1 | 2 => rng.vector::<D>(|r| {
                        if r.chance(0.5) {
                            0.0
                        } else {
                            r.range(-3.0, 3.0)
                        }
                    }),
                    _ => rng.vector::<D>(|r| r.range(-3.0, 3.0)) * rng.range(0.01, 10.0),
                };
                let max_toi = match r % 5 {
                    0 => f32::INFINITY,
                    1 => 0.0,
                    _ => rng.range(0.0, 30.0),
                };
                // Every third item's face is missed although its box is entered.
                let face = |i: u32| {
                    if i % 3 == 2 {
                        None
                    } else {
                        slab(&boxes[i as usize], origin, dir, max_toi)
                    }
                };
                let expected = (0..n as u32)
                    .filter_map(|i| face(i).map(|t| (i, t)))
                    .min_by(|a, b| a.1.total_cmp(&b.1));
                let mut calls = 0;
                let found = bvh.cast_ray(origin, dir, max_toi, |i, limit| {
                    calls += 1;
                    assert!(
                        limit <= max_toi && slab(&boxes[i as usize], origin, dir, limit).is_some()
                    );
                    face(i)
                });
                assert!(calls <= n);
                match (found, expected) {
                    (None, None) => {}
                    (Some((item, t)), Some((_, best))) => {
                        assert_eq!(t, best, "n {n} ray {origin:?} {dir:?}");
                        assert_eq!(face(item), Some(t));
                    }
                    _ => {
                        panic!("n {n} ray {origin:?} {dir:?} {max_toi}: {found:?} vs {expected:?}")
                    }
                }
            }
        }
    }

    #[test]
    fn cast_ray_matches_brute_force_2d_and_3d() {
        cast_ray_matches_brute_force::<D2>(0xdead_beef);
        cast_ray_matches_brute_force::<D3>(0x0bad_f00d);
    }

    #[test]
    fn cast_ray_prunes_far_boxes() {
        // A row of unit boxes along X: a ray from the left stops at the first.
        let boxes: Vec<Aabb<D3>> = (0..1000)
            .map(|i| Aabb::around(Vec3::new(i as f32 * 3.0, 0.0, 0.0), 0.5))
            .collect();
        let bvh = Bvh::new(&boxes);
        let mut calls = 0;
        let found = bvh.cast_ray(
            Vec3::new(-10.0, 0.1, 0.2),
            Vec3::X,
            f32::INFINITY,
            |i, limit| {
                calls += 1;
                slab(
                    &boxes[i as usize],
                    Vec3::new(-10.0, 0.1, 0.2),
                    Vec3::X,
                    limit,
                )
            },
        );
        assert_eq!(found, Some((0, 9.5)));
        assert!(calls <= 2 * LEAF_SIZE, "{calls} calls");
    }

    #[test]
    fn query_stops_early() {
        let mut rng = Rng(42);
        let boxes = random_boxes::<D3>(&mut rng, 500);
        let bvh = Bvh::new(&boxes);
        let everything = Aabb::<D3>::around(Vec3::ZERO, 100.0);
        assert_eq!(query_sorted(&bvh, &everything).len(), 500);
        for stop_after in [1, 7, 499, 500] {
            let mut seen = 0;
            bvh.query(&everything, |_| {
                seen += 1;
                seen < stop_after
            });
            assert_eq!(seen, stop_after);
        }
    }

    #[test]
    fn build_is_deterministic() {
        let mut rng = Rng(7);
        let boxes = random_boxes::<D2>(&mut rng, 1000);
        let (a, b) = (Bvh::new(&boxes), Bvh::new(&boxes));
        assert_eq!(a, b);
        let query = Aabb::<D2>::around(Vec2::new(1.0, -2.0), 4.0);
        let order = |bvh: &Bvh<D2>| {
            let mut found = Vec::new();
            bvh.query(&query, |i| {
                found.push(i);
                true
            });
            found
        };
        assert_eq!(order(&a), order(&b.clone()));
        // All boxes alike: the halves come from the index tie-break.
        let same = vec![Aabb::<D3>::around(Vec3::ONE, 1.0); 100];
        let tree = Bvh::new(&same);
        assert_eq!(tree, Bvh::new(&same));
        check_structure(&tree, &same);
    }

    #[test]
    fn empty_and_unusable_input_finds_nothing() {
        let empty = Bvh::<D3>::new(&[]);
        assert!(empty.is_empty() && empty.bounds().is_none());
        assert_eq!(empty.len(), 0);
        empty.query(&Aabb::around(Vec3::ZERO, 1e30), |_| panic!("empty"));
        let none = empty.cast_ray(Vec3::ZERO, Vec3::X, f32::INFINITY, |_, _| panic!("empty"));
        assert_eq!(none, None);

        let good = Aabb::<D2>::around(Vec2::ZERO, 1.0);
        let boxes = [
            Aabb::new(Vec2::new(f32::NAN, 0.0), Vec2::ONE),
            good,
            Aabb::new(Vec2::ONE, Vec2::ZERO),
            Aabb::new(Vec2::ZERO, Vec2::new(f32::INFINITY, 1.0)),
        ];
        let bvh = Bvh::new(&boxes);
        assert_eq!(bvh.len(), 4);
        assert_eq!(bvh.bounds(), Some(good));
        check_structure(&bvh, &boxes);
        let wide = Aabb::<D2>::around(Vec2::ZERO, 1e30);
        assert_eq!(query_sorted(&bvh, &wide), vec![1]);
        let nan = Aabb::new(Vec2::splat(f32::NAN), Vec2::ONE);
        let infinite = Aabb::new(Vec2::splat(f32::NEG_INFINITY), Vec2::splat(f32::INFINITY));
        for query in [nan, infinite] {
            bvh.query(&query, |_| panic!("not finite"));
        }
        let ray = |o: Vec2, d: Vec2, max: f32| {
            bvh.cast_ray(o, d, max, |i, limit| slab(&boxes[i as usize], o, d, limit))
        };
        assert_eq!(ray(Vec2::new(-5.0, 0.0), Vec2::X, 10.0), Some((1, 4.0)));
        assert_eq!(ray(Vec2::new(-5.0, 0.0), Vec2::X, 3.0), None);
        assert_eq!(ray(Vec2::new(-5.0, 0.0), Vec2::X, f32::NAN), None);
        assert_eq!(ray(Vec2::new(-5.0, 0.0), Vec2::X, -1.0), None);
        assert_eq!(ray(Vec2::new(f32::NAN, 0.0), Vec2::X, 10.0), None);
        assert_eq!(
            ray(Vec2::new(-5.0, 0.0), Vec2::new(f32::INFINITY, 0.0), 10.0),
            None
        );
        assert_eq!(ray(Vec2::new(0.5, 1.0), Vec2::ZERO, 10.0), Some((1, 0.0)));
        assert_eq!(ray(Vec2::new(0.5, 1.5), Vec2::ZERO, 10.0), None);
    }

    #[test]
    fn large_build_is_sound() {
        let mut rng = Rng(2024);
        let boxes: Vec<Aabb<D3>> = (0..200_000)
            .map(|_| {
                let c = rng.vector::<D3>(|r| r.range(-500.0, 500.0));
                Aabb::around(c, rng.range(0.0, 1.0))
            })
            .collect();
        let bvh = Bvh::new(&boxes);
        let depth = check_structure(&bvh, &boxes);
        assert!(depth < STACK_CAPACITY / 2, "depth {depth}");
        for _ in 0..20 {
            let query = Aabb::around(rng.vector::<D3>(|r| r.range(-500.0, 500.0)), 20.0);
            let expected: Vec<u32> = (0..boxes.len() as u32)
                .filter(|&i| boxes[i as usize].overlaps(&query))
                .collect();
            assert_eq!(query_sorted(&bvh, &query), expected);
        }
    }
}
