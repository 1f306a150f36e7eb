//! A direct solve of each joint tree (Baraff 1996, "Linear-time dynamics
//! using Lagrange multipliers"): the rigid rows of every joint of a tree
//! held exactly, in time linear in its size, where Gauss-Seidel carries a
//! correction one joint per sweep and leaves a heavy load's chain
//! stretched and a light hub's welds fighting (issue 35).
//!
//! A tree is a group of joints joined through moving bodies without a
//! loop, the fixed bodies counted as one node, the world: a chain hung
//! from a pivot, a fan on its axle, a ragdoll, a car are trees; a bridge
//! pinned at both ends is a loop through the world, and a joint grid has
//! loops of its own. Its rigid rows ([`RigidRow`]: a point's, a hinge's
//! axes, a weld's rotation, a slider's rows across its axis, a rod) are
//! solved together; a joint's other rows (limits, motors, springs) stay
//! Gauss-Seidel rows, solved just before.
//!
//! 1. The system. With the bodies' inverse mass matrices `W` and the
//!    rows' Jacobian `J`, the velocity changes `x_b` and impulses `λ` that
//!    cancel the rows' speeds `c = J v` solve `J x + c = 0`,
//!    `x = W Jᵀ λ`. Its graph (a node per moving body and per joint, an
//!    edge between a joint and each of its moving bodies) is the tree.
//! 2. Order (`Forest::lay_out`, once a step). Each tree is rooted at its
//!    body joined to the world (if any) and laid out breadth first; its
//!    nodes are kept in the reverse order, children before parents.
//! 3. Up the tree, children first. A body's `P` is its inverse mass with
//!    its subtree's joints held: `(I + W X)⁻¹ W` with `X` the stiffness
//!    its child joints give it, then each child joint's hard rows held by
//!    projection (`P -= P Gᵀ T⁺ G P`, `T = G P Gᵀ`), and `z` its velocity
//!    change with no push from its parent. A joint's
//!    `S = J_c P_c J_cᵀ` (its child body's mobility along its rows) is
//!    factored `U S Uᵀ = D` with the largest pivot first ([`ldlt`]): rows
//!    with a pivot push the parent as a stiffness `J'ᵀ J' / d`; rows
//!    without (the child cannot serve them: a joint to the world has no
//!    child) are hard rows, which the parent holds itself.
//! 4. Down the tree, parents first: a body's velocity change is
//!    `z + P Jᵀ λ_parent`, its hard rows' impulses taken back in the
//!    reverse of the order they were held, and a joint's impulses on the
//!    rows with a pivot are `-(r' + J' x_parent) / d`, then `λ = Uᵀ λ'`.
//! 5. Velocities: `x` added to the bodies' velocities and `λ` to the
//!    joints' accumulated impulses, in every solve and relax pass.
//!    Positions: the rows' position errors (each clamped to the largest
//!    correction a pass makes) in place of `c`, `x` the bodies' moves
//!    (all scaled alike to at most that correction), for as many passes as
//!    the errors stay above tolerance (Newton steps).
//!
//! The layout follows from the joints alone and each tree is solved on
//! one thread in a fixed order, so the results do not depend on the
//! thread count. Every sum is in `f64`.
//!
//! Limits: a loop (a bridge pinned at both ends, a joint grid, a closed
//! chain) is not a tree and keeps the Gauss-Seidel path; a body in a tree
//! costs a few hundred floating-point operations a pass, scalar, where a
//! plain joint of the coloured path takes four lanes at a time; the
//! position passes' Newton steps swing wider than the error on a chain
//! pulled straight by a far heavier end (1000:1).
//!
//! Tests: the oracle tests `a_tree_solve_stops_every_row_*` (in
//! `joints.rs`: every row stopped, and the bodies' velocity changes what
//! the kept impulses give); `a_welded_fan_*`, `a_fan_on_a_ball_joint_*`,
//! `a_chain_released_level_*` (`tests/machines.rs`).

// The kernels below walk several small dense matrices by the same row and
// column indices at once; an iterator over one of them would hide that.
#![allow(clippy::needless_range_loop)]

use core::ops::Range;

use glam::Vec4;

use super::{
    rigid_rows, Bodies, JointDim, Now, Prepared, RowTarget, ANGULAR_TOLERANCE, LINEAR_TOLERANCE,
    MAX_ANGULAR_CORRECTION, MAX_LINEAR_CORRECTION, MAX_RIGID_ROWS,
};
use crate::math::SimdWord;
use crate::pipeline::integrate::BodyState;
use crate::pipeline::stages::Shared;

/// A joint's row whose pivot (its child subtree's mobility along it) is
/// at most this share of its own effective inverse mass is hard: the
/// child cannot serve it, so its parent body holds it itself (a joint to
/// the world; a child whose rotation is locked, along an angular row).
/// Rooted at the world, a tree's subtrees are free, so a pivot is either
/// that (zero but for rounding) or a mobility a mass ratio leaves (a
/// millionth at a million to one): at 1e-4 a whipping chain of thin links
/// came apart, its rows served that little taken as hard.
const HARD_SHARE: f64 = 1e-9;

/// Among a body's hard rows, one whose pivot is at most this share of its
/// own mobility (the body's, with its subtree) depends on the others and
/// gets no impulse of its own: rows that repeat each other up to f32
/// rounding would otherwise take impulses on that rounding's scale.
const DEPENDENT_SHARE: f64 = 1e-4;

/// A body whose subtree leaves it at most this share of its own mobility
/// along a hard row cannot move along it at all: the row is held already
/// (by the joints below) and gets no impulse of its own. Between what a
/// mass ratio leaves (a million to one: 1e-6) and the rounding the
/// projections leave (about 1e-10).
const UNMOVED_SHARE: f64 = 1e-8;

/// The most degrees of freedom of a body (3D: three linear, three angular).
const DOF: usize = 6;

type Vector6 = [f64; DOF];
type Matrix6 = [[f64; DOF]; DOF];

/// No node: a root's parent, a fixed side of a joint.
const NONE: u32 = u32::MAX;

/// A body's degrees of freedom in `D`: its linear ones, then its angular.
fn dof<D: JointDim>() -> usize {
    D::N + angular_dof::<D>()
}

/// A body's angular degrees of freedom: 1 in 2D, 3 in 3D.
fn angular_dof<D: JointDim>() -> usize {
    D::N * (D::N - 1) / 2
}

/// A node of a tree.
#[derive(Copy, Clone, Debug)]
enum Node {
    /// A moving body: its place in the solver's states.
    Body { index: u32 },
    /// A joint: its place in the solver's joints, and the nodes of its
    /// bodies A and B ([`NONE`] for one that does not move).
    Joint { index: u32, sides: [u32; 2] },
}

/// A node's factor and right-hand side during a solve.
#[derive(Copy, Clone, Debug)]
struct Factor {
    /// A body's inverse mass matrix `W` (set as the trees are laid out).
    w: Matrix6,
    /// A body's stiffness `X` from its child joints.
    sum: Matrix6,
    /// A body's `P`: its inverse mass with its subtree's joints held.
    inverse: Matrix6,
    /// A joint's Jacobian on each side, a row per rigid row.
    jacobian: [Matrix6; 2],
    /// A joint's rows: their count and what each adds to.
    rows: usize,
    targets: [RowTarget; MAX_RIGID_ROWS],
    /// Each row's own effective inverse mass, `Σ J W Jᵀ` over its sides.
    own: Vector6,
    /// The rows' directions, for the impulses (linear, angular).
    directions: [(Vec4, Vec4); MAX_RIGID_ROWS],
    /// A joint's `L⁻¹` and pivots `d` of `S = L D Lᵀ` (0: a hard row, one
    /// its child cannot serve).
    unit: Matrix6,
    pivots: Vector6,
    /// A joint's rows in `L⁻¹`'s frame: the parent's Jacobian and the
    /// right-hand side with the child's free motion.
    across: Matrix6,
    rhs: Vector6,
    /// A joint's hard rows as its parent held them: the parent's `P` and
    /// `z` before, and `T⁺`.
    held: Matrix6,
    held_z: Vector6,
    hard_inverse: Matrix6,
    /// The right-hand side (a joint's rows' speeds or errors; a body's
    /// push), a body's free velocity change `z`, and the solution.
    y: Vector6,
    z: Vector6,
    x: Vector6,
}

impl Default for Factor {
    fn default() -> Self {
        const ZERO: Matrix6 = [[0.0; DOF]; DOF];
        Self {
            w: ZERO,
            sum: ZERO,
            inverse: ZERO,
            jacobian: [ZERO; 2],
            rows: 0,
            targets: [RowTarget::Point; MAX_RIGID_ROWS],
            own: [0.0; DOF],
            directions: [(Vec4::ZERO, Vec4::ZERO); MAX_RIGID_ROWS],
            unit: ZERO,
            pivots: [0.0; DOF],
            across: ZERO,
            rhs: [0.0; DOF],
            held: ZERO,
            held_z: [0.0; DOF],
            hard_inverse: ZERO,
            y: [0.0; DOF],
            z: [0.0; DOF],
            x: [0.0; DOF],
        }
    }
}

/// Every tree's nodes, children before parents.
#[derive(Clone, Debug, Default)]
pub(super) struct Forest {
    /// Each tree's nodes.
    trees: Vec<Range<usize>>,
    nodes: Vec<Node>,
    /// Each node's parent ([`NONE`] for a root) and the side of the joint
    /// between them that the body is (0: A, 1: B).
    parents: Vec<(u32, u8)>,
    factors: Vec<Factor>,
    /// Each body's child joints in `children`, in node order.
    child_ranges: Vec<Range<usize>>,
    children: Vec<u32>,
    /// Scratch for the layout.
    scratch: Layout,
}

/// Scratch for laying a tree out.
#[derive(Clone, Debug, Default)]
struct Layout {
    /// Per body: its breadth-first place, and where its joints start in
    /// `adjacent` and how many are there.
    place: Vec<u32>,
    start: Vec<u32>,
    count: Vec<u32>,
    /// The joints at each body, body by body.
    adjacent: Vec<u32>,
    /// Breadth first: each node, its parent's place and side.
    kinds: Vec<Node>,
    parent: Vec<(u32, u8)>,
    /// Per joint of the tree: placed yet.
    seen: Vec<bool>,
}

/// What a solve of a tree cancels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Goal {
    /// The rows' speeds: velocities changed, impulses accumulated.
    Velocities,
    /// The rows' position errors: the bodies moved.
    Positions,
}

impl Forest {
    /// Step 2: the trees laid out, each tree's joints a range `trees` of
    /// `joints` (connected, without a loop), `body_count` the solver's
    /// bodies.
    pub(super) fn lay_out<D: JointDim>(
        &mut self,
        joints: &[Prepared<D>],
        trees: &[Range<usize>],
        body_count: usize,
    ) {
        self.trees.clear();
        self.nodes.clear();
        self.parents.clear();
        self.factors.clear();
        self.child_ranges.clear();
        self.children.clear();
        if trees.is_empty() {
            return;
        }
        let s = &mut self.scratch;
        s.place.clear();
        s.place.resize(body_count, NONE);
        s.start.clear();
        s.start.resize(body_count, NONE);
        s.count.clear();
        s.count.resize(body_count, 0);
        let moving = |joint: &Prepared<D>, side: usize| joint.inv_mass[side] > 0.0;
        let bodies_of = moving_bodies::<D>;
        for range in trees {
            let tree = &joints[range.clone()];
            // The joints at each body, in joint order (a counting sort).
            for joint in tree {
                for b in bodies_of(joint) {
                    s.count[b] += 1;
                }
            }
            let mut total = 0;
            for joint in tree {
                for b in bodies_of(joint) {
                    if s.start[b] == NONE {
                        s.start[b] = total;
                        total += s.count[b];
                        s.count[b] = 0;
                    }
                }
            }
            s.adjacent.clear();
            s.adjacent.resize(total as usize, 0);
            for (k, joint) in tree.iter().enumerate() {
                for b in bodies_of(joint) {
                    s.adjacent[(s.start[b] + s.count[b]) as usize] = k as u32;
                    s.count[b] += 1;
                }
            }
            // Breadth first.
            s.kinds.clear();
            s.parent.clear();
            s.seen.clear();
            s.seen.resize(tree.len(), false);
            // Rooted at the body joined to the world, if one is, so that
            // every joint below has a subtree free to move.
            let anchor = tree.iter().find(|j| bodies_of(j).count() == 1);
            if let Some(root) = anchor.or(tree.first()).and_then(|j| bodies_of(j).next()) {
                s.kinds.push(Node::Body { index: root as u32 });
                s.parent.push((NONE, 0));
                s.place[root] = 0;
            }
            let mut next = 0;
            while next < s.kinds.len() {
                match s.kinds[next] {
                    Node::Body { index } => {
                        let b = index as usize;
                        for at in s.start[b]..s.start[b] + s.count[b] {
                            let k = s.adjacent[at as usize] as usize;
                            if s.seen[k] {
                                continue;
                            }
                            s.seen[k] = true;
                            let side =
                                u8::from(!(tree[k].input.bodies[0] == b && moving(&tree[k], 0)));
                            s.kinds.push(Node::Joint {
                                index: (range.start + k) as u32,
                                sides: [NONE; 2],
                            });
                            s.parent.push((next as u32, side));
                        }
                    }
                    Node::Joint { index, .. } => {
                        let joint = &joints[index as usize];
                        let parent_side = s.parent[next].1 as usize;
                        for side in 0..2 {
                            if moving(joint, side) && side != parent_side {
                                let b = joint.input.bodies[side];
                                s.place[b] = s.kinds.len() as u32;
                                s.kinds.push(Node::Body { index: b as u32 });
                                s.parent.push((next as u32, side as u8));
                            }
                        }
                    }
                }
                next += 1;
            }
            // Kept children first: breadth-first place p is node
            // `first + n - 1 - p`.
            let (first, n) = (self.nodes.len(), s.kinds.len());
            let flip = |p: u32| {
                if p == NONE {
                    NONE
                } else {
                    (first + n - 1 - p as usize) as u32
                }
            };
            for p in (0..n).rev() {
                let node = match s.kinds[p] {
                    Node::Joint { index, .. } => {
                        let joint = &joints[index as usize];
                        let sides = [0, 1].map(|side| {
                            if moving(joint, side) {
                                flip(s.place[joint.input.bodies[side]])
                            } else {
                                NONE
                            }
                        });
                        Node::Joint { index, sides }
                    }
                    body => body,
                };
                self.nodes.push(node);
                let (parent, side) = s.parent[p];
                self.parents.push((flip(parent), side));
            }
            self.trees.push(first..first + n);
            for joint in tree {
                for b in bodies_of(joint) {
                    s.place[b] = NONE;
                    s.start[b] = NONE;
                    s.count[b] = 0;
                }
            }
        }
        self.factors.clear();
        self.factors.resize(self.nodes.len(), Factor::default());
        // Each body's child joints, a counting sort in node order.
        let nodes = self.nodes.len();
        let is_joint = |i: usize| matches!(self.nodes[i], Node::Joint { .. });
        let mut counts = vec![0usize; nodes + 1];
        for i in (0..nodes).filter(|&i| is_joint(i)) {
            counts[self.parents[i].0 as usize + 1] += 1;
        }
        for i in 0..nodes {
            counts[i + 1] += counts[i];
        }
        self.child_ranges.clear();
        self.child_ranges
            .extend((0..nodes).map(|i| counts[i]..counts[i]));
        self.children.clear();
        self.children.resize(counts[nodes], 0);
        for i in (0..nodes).filter(|&i| is_joint(i)) {
            let range = &mut self.child_ranges[self.parents[i].0 as usize];
            self.children[range.end] = i as u32;
            range.end += 1;
        }
        // Each body's inverse mass matrix, from a joint at it.
        for node in &self.nodes {
            if let Node::Joint { index, sides } = *node {
                let joint = &joints[index as usize];
                for (side, &body) in sides.iter().enumerate() {
                    if body != NONE {
                        self.factors[body as usize].w =
                            weight::<D>(joint.inv_mass[side], joint.inv_inertia[side]);
                    }
                }
            }
        }
    }

    /// The trees shared by the threads of the solver's stages.
    pub(super) fn view(&mut self) -> ForestView<'_> {
        ForestView {
            trees: &self.trees,
            nodes: &self.nodes,
            parents: &self.parents,
            child_ranges: &self.child_ranges,
            children: &self.children,
            factors: Shared::new(&mut self.factors),
        }
    }
}

/// The trees during the solver's stages: each tree's factors are reached
/// by the one block that solves it.
pub(super) struct ForestView<'a> {
    trees: &'a [Range<usize>],
    nodes: &'a [Node],
    parents: &'a [(u32, u8)],
    child_ranges: &'a [Range<usize>],
    children: &'a [u32],
    factors: Shared<'a, Factor>,
}

impl ForestView<'_> {
    /// Step 5, velocities: tree `tree`'s rigid rows' speeds cancelled.
    ///
    /// # Safety
    /// No other thread reaches tree `tree`, its joints in `joints` or its
    /// moving bodies in `states` meanwhile.
    pub(super) unsafe fn solve_velocities<D: JointDim>(
        &self,
        tree: usize,
        joints: &Shared<'_, Prepared<D>>,
        states: &mut Bodies<D>,
    ) {
        // SAFETY: as the caller promises.
        unsafe { self.solve(tree, Goal::Velocities, joints, states) };
    }

    /// Step 5, positions: tree `tree`'s rigid rows' errors taken out (each
    /// at most a pass's largest correction); false, moving nothing, while
    /// every row is within tolerance.
    ///
    /// # Safety
    /// As [`ForestView::solve_velocities`].
    pub(super) unsafe fn solve_positions<D: JointDim>(
        &self,
        tree: usize,
        joints: &Shared<'_, Prepared<D>>,
        states: &mut Bodies<D>,
    ) -> bool {
        // SAFETY: as the caller promises.
        unsafe { self.solve(tree, Goal::Positions, joints, states) }
    }

    /// Steps 3 to 5 for one tree; whether any row was off (positions) or
    /// any row exists (velocities).
    ///
    /// # Safety
    /// As [`ForestView::solve_velocities`].
    unsafe fn solve<D: JointDim>(
        &self,
        tree: usize,
        goal: Goal,
        joints: &Shared<'_, Prepared<D>>,
        states: &mut Bodies<D>,
    ) -> bool {
        let range = self.trees[tree].clone();
        let n = dof::<D>();
        // SAFETY: this tree's factors are this call's alone.
        let factor = |i: usize| unsafe { self.factors.get_mut(i) };
        // The rows, their right-hand sides and compliances.
        let mut off = false;
        for i in range.clone() {
            let f = factor(i);
            f.sum = [[0.0; DOF]; DOF];
            f.y = [0.0; DOF];
            let Node::Joint { index, sides } = self.nodes[i] else {
                continue;
            };
            // SAFETY: this tree's joints are this call's alone.
            let joint = unsafe { joints.get(index as usize) };
            let now = Now::of(joint, states);
            let (rows, count) = rigid_rows(joint, &now);
            f.rows = count;
            let [a, b] = joint.input.bodies;
            let velocities = [states[a].velocities(), states[b].velocities()];
            for (r, row) in rows[..count].iter().enumerate() {
                f.targets[r] = row.target;
                f.directions[r] = (row.linear.to_word(), row.angular.to_word());
                let mut own = 0.0;
                let mut speed = 0.0;
                for side in 0..2 {
                    let sign = if side == 0 { -1.0 } else { 1.0 };
                    let angular = D::cross(row.arm[side], row.linear) + row.angular;
                    let j = &mut f.jacobian[side][r];
                    *j = [0.0; DOF];
                    put::<D>(j, row.linear, angular, sign);
                    let (v, w) = velocities[side];
                    let mut motion = [0.0; DOF];
                    put::<D>(&mut motion, v, w, 1.0);
                    speed += dot(j, &motion, n);
                    if sides[side] != NONE {
                        let w = &factor(sides[side] as usize).w;
                        own += dot(j, &mul(w, j, n), n);
                    }
                }
                f.own[r] = own;
                f.y[r] = match goal {
                    Goal::Velocities => speed,
                    Goal::Positions => {
                        let angular = row.target == RowTarget::Angular;
                        let (tolerance, most) = if angular {
                            (ANGULAR_TOLERANCE, MAX_ANGULAR_CORRECTION)
                        } else {
                            (LINEAR_TOLERANCE, MAX_LINEAR_CORRECTION)
                        };
                        off |= row.error.abs() >= tolerance;
                        f64::from(row.error.clamp(-most, most))
                    }
                };
            }
            off |= goal == Goal::Velocities && count > 0;
        }
        if !off {
            return false;
        }
        // Factor and carry the right-hand sides up, children first.
        for i in range.clone() {
            let (parent, side) = self.parents[i];
            let side = side as usize;
            let f = factor(i);
            match self.nodes[i] {
                Node::Joint { sides, .. } => {
                    // S = J_c P_c J_cᵀ over the child body (none for a
                    // leaf) and its LDLᵀ; the rows in L⁻¹'s frame.
                    let rows = f.rows;
                    let mut s = [[0.0; DOF]; DOF];
                    let mut rhs = f.y;
                    let child = sides[1 - side];
                    if child != NONE {
                        let c = factor(child as usize);
                        let j = &f.jacobian[1 - side];
                        for r in 0..rows {
                            rhs[r] += dot(&j[r], &c.z, n);
                            let pj = mul(&c.inverse, &j[r], n);
                            for q in 0..rows {
                                s[r][q] = dot(&pj, &j[q], n);
                            }
                        }
                    }
                    let (unit, pivots) = ldlt(&s, &f.own, rows, HARD_SHARE);
                    f.unit = unit;
                    f.pivots = pivots;
                    f.rhs = mul(&unit, &rhs, rows);
                    let j = &f.jacobian[side];
                    for r in 0..rows {
                        f.across[r] =
                            core::array::from_fn(|k| (0..rows).map(|q| unit[r][q] * j[q][k]).sum());
                    }
                    // The rows the child can serve push the parent as a
                    // stiffness: X += J'ᵀ J' / d, y -= J'ᵀ r' / d.
                    let p = factor(parent as usize);
                    for r in 0..rows {
                        if pivots[r] == 0.0 {
                            continue;
                        }
                        let share = 1.0 / pivots[r];
                        let a = &f.across[r];
                        for k in 0..n {
                            p.y[k] -= a[k] * f.rhs[r] * share;
                            for l in 0..n {
                                p.sum[k][l] += a[k] * a[l] * share;
                            }
                        }
                    }
                }
                Node::Body { .. } => {
                    // P = (I + W X)⁻¹ W, then each child joint's hard rows
                    // (those its child cannot serve) held: T = G P Gᵀ,
                    // K = P Gᵀ T⁺, z -= K (g + G z), P -= K G P.
                    // A body without child joints that push it (a limb's
                    // end) keeps its own inverse mass.
                    let stiff = self.child_ranges[i].clone().any(|c| {
                        let c = factor(self.children[c] as usize);
                        (0..c.rows).any(|r| c.pivots[r] != 0.0)
                    });
                    let mut inverse = if stiff {
                        body_inverse(&f.w, &f.sum, n)
                    } else {
                        f.w
                    };
                    let mut z = mul(&inverse, &f.y, n);
                    for &child in &self.children[self.child_ranges[i].clone()] {
                        let c = factor(child as usize);
                        let rows = c.rows;
                        if (0..rows).all(|r| c.pivots[r] != 0.0) {
                            continue;
                        }
                        let hard = |r: usize| r < rows && c.pivots[r] == 0.0;
                        let g: [Vector6; DOF] =
                            core::array::from_fn(
                                |r| if hard(r) { c.across[r] } else { [0.0; DOF] },
                            );
                        let pg: [Vector6; DOF] = core::array::from_fn(|r| mul(&inverse, &g[r], n));
                        let mut t = [[0.0; DOF]; DOF];
                        let mut own = [0.0; DOF];
                        for r in 0..rows {
                            for q in 0..rows {
                                t[r][q] = dot(&g[r], &pg[q], n);
                            }
                            // A row is measured against its own mobility
                            // here (the subtree's joints may leave the body
                            // little), unless it has none to speak of.
                            let free = dot(&g[r], &mul(&f.w, &g[r], n), n);
                            own[r] = if t[r][r] > UNMOVED_SHARE * free {
                                t[r][r]
                            } else {
                                0.0
                            };
                        }
                        let (unit, pivots) = ldlt(&t, &own, rows, DEPENDENT_SHARE);
                        c.hard_inverse = ldlt_inverse(&unit, &pivots, rows);
                        c.held = inverse;
                        c.held_z = z;
                        let k: [Vector6; DOF] = core::array::from_fn(|q| {
                            core::array::from_fn(|d| {
                                (0..rows).map(|r| pg[r][d] * c.hard_inverse[r][q]).sum()
                            })
                        });
                        let residual: Vector6 = core::array::from_fn(|r| {
                            if hard(r) {
                                c.rhs[r] + dot(&g[r], &z, n)
                            } else {
                                0.0
                            }
                        });
                        for d in 0..n {
                            z[d] -= (0..rows).map(|q| k[q][d] * residual[q]).sum::<f64>();
                        }
                        let mut next = inverse;
                        for r in 0..n {
                            for col in 0..n {
                                next[r][col] -=
                                    (0..rows).map(|q| k[q][r] * pg[q][col]).sum::<f64>();
                            }
                        }
                        inverse = symmetric(&next, n);
                    }
                    f.inverse = inverse;
                    f.z = z;
                }
            }
        }
        // The solution down from the roots.
        for i in range.clone().rev() {
            let (parent, side) = self.parents[i];
            let side = side as usize;
            let f = factor(i);
            match self.nodes[i] {
                Node::Body { .. } => {
                    // x = z + P F with F the parent joint's push; then the
                    // child joints' hard rows, the last held first:
                    // μ = -T⁺ (g + G (z + P F)) with the z and P as they
                    // were held and F the parent's and later rows' push.
                    let mut push = [0.0; DOF];
                    if parent != NONE {
                        let p = factor(parent as usize);
                        let j = &p.jacobian[side];
                        for r in 0..p.rows {
                            for k in 0..n {
                                push[k] += j[r][k] * p.x[r];
                            }
                        }
                    }
                    let dx = mul(&f.inverse, &push, n);
                    f.x = core::array::from_fn(|k| f.z[k] + dx[k]);
                    for &child in self.children[self.child_ranges[i].clone()].iter().rev() {
                        let c = factor(child as usize);
                        let rows = c.rows;
                        c.x = [0.0; DOF];
                        if (0..rows).all(|r| c.pivots[r] != 0.0) {
                            continue;
                        }
                        let moved = mul(&c.held, &push, n);
                        let residual: Vector6 = core::array::from_fn(|r| {
                            if r < rows && c.pivots[r] == 0.0 {
                                c.rhs[r]
                                    + (0..n)
                                        .map(|d| c.across[r][d] * (c.held_z[d] + moved[d]))
                                        .sum::<f64>()
                            } else {
                                0.0
                            }
                        });
                        let mu = mul(&c.hard_inverse, &residual, rows);
                        for r in 0..rows {
                            if c.pivots[r] == 0.0 {
                                c.x[r] = -mu[r];
                                for k in 0..n {
                                    push[k] += c.across[r][k] * c.x[r];
                                }
                            }
                        }
                    }
                }
                Node::Joint { .. } => {
                    // λ' = -(r' + J' x_parent) / d on the rows the child
                    // serves (the hard rows' μ are set), λ = L⁻ᵀ λ'.
                    let p = factor(parent as usize);
                    let rows = f.rows;
                    for r in 0..rows {
                        if f.pivots[r] != 0.0 {
                            f.x[r] = -(f.rhs[r] + dot(&f.across[r], &p.x, n)) / f.pivots[r];
                        }
                    }
                    f.x = transpose_mul(&f.unit, &f.x, rows);
                }
            }
        }
        // A position pass moves no body further than a pass's largest
        // correction: all moves scaled alike, a damped Newton step.
        let mut scale = 1.0f64;
        if goal == Goal::Positions {
            for i in range.clone() {
                if let Node::Body { .. } = self.nodes[i] {
                    let x = &factor(i).x;
                    let linear = (0..D::N).map(|k| x[k] * x[k]).sum::<f64>().sqrt();
                    let angular = (D::N..n).map(|k| x[k] * x[k]).sum::<f64>().sqrt();
                    scale = scale
                        .min(f64::from(MAX_LINEAR_CORRECTION) / linear.max(f64::MIN_POSITIVE))
                        .min(f64::from(MAX_ANGULAR_CORRECTION) / angular.max(f64::MIN_POSITIVE));
                }
            }
        }
        // The bodies moved or sped, the impulses accumulated.
        for i in range.clone() {
            let f = factor(i);
            match self.nodes[i] {
                Node::Body { index } => {
                    let (linear, angular) = take::<D>(&f.x.map(|x| x * scale));
                    let state = &mut states[index as usize];
                    match goal {
                        Goal::Velocities => {
                            let (v, w) = state.velocities();
                            state.set_velocities(v + linear, w + angular);
                        }
                        Goal::Positions => state.nudge(linear, angular),
                    }
                }
                Node::Joint { index, .. } => {
                    if goal == Goal::Positions {
                        continue;
                    }
                    // SAFETY: this tree's joints are this call's alone.
                    let joint = unsafe { joints.get_mut(index as usize) };
                    let impulses = &mut joint.input.impulses;
                    for r in 0..f.rows {
                        let impulse = f.x[r] as f32;
                        let (linear, angular) = f.directions[r];
                        match f.targets[r] {
                            RowTarget::Point => {
                                impulses.point += D::Vector::from_word(linear) * impulse
                            }
                            RowTarget::Angular => {
                                impulses.angular += D::AngularVector::from_word(angular) * impulse
                            }
                            RowTarget::Axial => impulses.axial += impulse,
                        }
                    }
                }
            }
        }
        true
    }
}

/// `m` made symmetric (`n` by `n`): each pair of entries their mean.
fn symmetric(m: &Matrix6, n: usize) -> Matrix6 {
    let mut out = *m;
    for r in 0..n {
        for c in 0..r {
            let mean = 0.5 * (m[r][c] + m[c][r]);
            out[r][c] = mean;
            out[c][r] = mean;
        }
    }
    out
}

/// A joint's moving bodies' places in the solver's states.
fn moving_bodies<D: JointDim>(joint: &Prepared<D>) -> impl Iterator<Item = usize> + '_ {
    (0..2)
        .filter(move |&side| joint.inv_mass[side] > 0.0)
        .map(move |side| joint.input.bodies[side])
}

/// A body's inverse mass matrix from its inverse mass and inverse inertia.
fn weight<D: JointDim>(inv_mass: f32, inv_inertia: D::Inertia) -> Matrix6 {
    let mut w = [[0.0; DOF]; DOF];
    for k in 0..D::N {
        w[k][k] = f64::from(inv_mass);
    }
    let m = angular_dof::<D>();
    for c in 0..m {
        let mut unit = Vec4::ZERO;
        unit[c] = 1.0;
        let column = D::mul_inertia(inv_inertia, D::AngularVector::from_word(unit)).to_word();
        for r in 0..m {
            w[D::N + r][D::N + c] = f64::from(column[r]);
        }
    }
    w
}

/// `linear` and `angular` times `sign` into a row of degrees of freedom.
fn put<D: JointDim>(out: &mut Vector6, linear: D::Vector, angular: D::AngularVector, sign: f64) {
    let (l, a) = (linear.to_word(), angular.to_word());
    for k in 0..D::N {
        out[k] = sign * f64::from(l[k]);
    }
    for k in 0..angular_dof::<D>() {
        out[D::N + k] = sign * f64::from(a[k]);
    }
}

/// The linear and angular parts of a row of degrees of freedom.
fn take<D: JointDim>(x: &Vector6) -> (D::Vector, D::AngularVector) {
    let mut l = Vec4::ZERO;
    let mut a = Vec4::ZERO;
    for k in 0..D::N {
        l[k] = x[k] as f32;
    }
    for k in 0..angular_dof::<D>() {
        a[k] = x[D::N + k] as f32;
    }
    (D::Vector::from_word(l), D::AngularVector::from_word(a))
}

/// The dot product of the first `n` components.
fn dot(a: &Vector6, b: &Vector6, n: usize) -> f64 {
    (0..n).map(|k| a[k] * b[k]).sum()
}

/// `m x` over the first `n` rows and columns.
fn mul(m: &Matrix6, x: &Vector6, n: usize) -> Vector6 {
    core::array::from_fn(|r| if r < n { dot(&m[r], x, n) } else { 0.0 })
}

/// A body's `D⁻¹ = (I + W X)⁻¹ W` (`n` by `n`): Gaussian elimination with
/// partial pivoting, made symmetric (it is, exactly: `(M + X)⁻¹`).
fn body_inverse(w: &Matrix6, x: &Matrix6, n: usize) -> Matrix6 {
    let mut a = [[0.0; DOF]; DOF];
    for r in 0..n {
        for c in 0..n {
            a[r][c] = f64::from(u8::from(r == c)) + (0..n).map(|k| w[r][k] * x[k][c]).sum::<f64>();
        }
    }
    let mut y = *w;
    for k in 0..n {
        let pivot = (k..n)
            .max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))
            .unwrap_or(k);
        a.swap(k, pivot);
        y.swap(k, pivot);
        let d = a[k][k];
        if d.abs() <= f64::MIN_POSITIVE {
            continue;
        }
        for i in k + 1..n {
            let f = a[i][k] / d;
            if f == 0.0 {
                continue;
            }
            for c in k..n {
                a[i][c] -= f * a[k][c];
            }
            for c in 0..n {
                y[i][c] -= f * y[k][c];
            }
        }
    }
    for k in (0..n).rev() {
        let d = a[k][k];
        for c in 0..n {
            let s: f64 = (k + 1..n).map(|j| a[k][j] * y[j][c]).sum();
            y[k][c] = if d.abs() > f64::MIN_POSITIVE {
                (y[k][c] - s) / d
            } else {
                0.0
            };
        }
    }
    symmetric(&y, n)
}

/// A transform `U` and pivots `d` with `U s Uᵀ = D` (`s` `n` by `n`,
/// symmetric positive semi-definite): LDLᵀ with the largest pivot first
/// (each row's pivot measured against its row's `own` scale). Once no
/// pivot left is above `share` of its scale, the rows left are
/// hard, their pivots zero: what they couple to each other and to the
/// rest is at most that share too (a semi-definite matrix's off-diagonal
/// is at most the geometric mean of its diagonal), so dropping it errs by
/// no more. `U`'s rows: the pivoted ones in pivot order, then the hard.
fn ldlt(s: &Matrix6, own: &Vector6, n: usize, share: f64) -> (Matrix6, Vector6) {
    let mut a = *s;
    let mut u = [[0.0; DOF]; DOF];
    for (k, row) in u.iter_mut().enumerate().take(n) {
        row[k] = 1.0;
    }
    let mut left: [bool; DOF] = core::array::from_fn(|k| k < n);
    let mut order = [0usize; DOF];
    let mut pivots = [0.0; DOF];
    let mut count = 0;
    while count < n {
        let best = (0..n)
            .filter(|&i| left[i] && own[i] > 0.0)
            .map(|i| (i, a[i][i] / own[i]))
            .fold(None, |best: Option<(usize, f64)>, (i, r)| match best {
                Some((_, b)) if b >= r => best,
                _ => Some((i, r)),
            });
        let Some((i, ratio)) = best else { break };
        if ratio <= share {
            break;
        }
        let d = a[i][i];
        left[i] = false;
        order[count] = i;
        pivots[count] = d;
        count += 1;
        for j in (0..n).filter(|&j| left[j]) {
            let f = a[j][i] / d;
            if f == 0.0 {
                continue;
            }
            // Each row left is updated once, so `a` stays symmetric.
            for l in 0..n {
                a[j][l] -= f * a[i][l];
                u[j][l] -= f * u[i][l];
            }
        }
    }
    let pivoted = count;
    for i in (0..n).filter(|&i| left[i]) {
        order[count] = i;
        count += 1;
    }
    let mut out = [[0.0; DOF]; DOF];
    let mut out_pivots = [0.0; DOF];
    for k in 0..n {
        out[k] = u[order[k]];
        if k < pivoted {
            out_pivots[k] = pivots[k];
        }
    }
    (out, out_pivots)
}

/// `Uᵀ D⁺ U` from [`ldlt`]'s transform and pivots: `s`'s inverse on the
/// rows whose pivots stand, nothing on the hard ones.
fn ldlt_inverse(unit: &Matrix6, pivots: &Vector6, n: usize) -> Matrix6 {
    let mut out = [[0.0; DOF]; DOF];
    for r in 0..n {
        for c in 0..n {
            out[r][c] = (0..n)
                .filter(|&k| pivots[k] != 0.0)
                .map(|k| unit[k][r] * unit[k][c] / pivots[k])
                .sum();
        }
    }
    out
}

/// `uᵀ x` (`n` by `n`).
fn transpose_mul(u: &Matrix6, x: &Vector6, n: usize) -> Vector6 {
    core::array::from_fn(|c| {
        if c < n {
            (0..n).map(|k| u[k][c] * x[k]).sum()
        } else {
            0.0
        }
    })
}
