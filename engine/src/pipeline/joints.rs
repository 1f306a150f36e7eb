//! Joints in the soft-step solver (Box2D v3's `joint.c`,
//! `revolute_joint.c`, `distance_joint.c`, `weld_joint.c`): each joint is a
//! few velocity rows between two bodies, warm started, solved and relaxed
//! in every substep beside the contacts, then position passes.
//!
//! 1. Prepare (once a step, `JointSolver::prepare`). The bodies joined
//!    through moving bodies form groups. A group without a loop is a
//!    *tree* (`tree`): its joints' rigid rows are solved directly, exactly,
//!    in time linear in its size. In a group with a loop in which some
//!    joint's two bodies' masses are more than `HEAVY_RATIO` apart, the
//!    joints are *heavy* and keep their joint order. The other joints are
//!    coloured in joint order in a constraint graph of their own
//!    (`constraint_graph`: no two joints of a colour share a moving body).
//!    A colour's *plain* joints (a revolute joint without limit, motor or
//!    spring, a ball joint without cone or twist limit) go four to a
//!    bundle, one per SIMD lane (`joints/point.rs`), with their bodies'
//!    inverse masses and inertias and their anchors and hinge axes in
//!    world axes, turned four lanes at a time; every other joint gets its
//!    lever arms and masses one
//!    by one. While the joints join the same bodies, of the same masses,
//!    with the same kinds of joint as the step before, the groups and
//!    colours stand (`same_layout`).
//! 2. Per substep, before the contacts of each pass: warm start (the
//!    accumulated impulses applied again), solve, and after the positions
//!    move, relax: rigid velocity rows without a positional push (a soft
//!    push plucks the joint anew after every position pass, and its
//!    damping drains a pendulum: 3.5% of its amplitude in 10 swings), a
//!    spring's rows with its own softness in both. The rows read the
//!    bodies' pose *now*: each substep turns the arms by the body's turn
//!    since the step began. A solve or relax pass is `EASY_ITERATIONS`
//!    Gauss-Seidel sweeps colour by colour, a colour's blocks on any
//!    thread; the heavy joints' `JOINT_ITERATIONS` sweeps run as one
//!    more block of the first colour's stage (they share no moving body
//!    with the others), and so do the trees, a block for a few trees:
//!    each tree's other rows (limits, motors, springs) by Gauss-Seidel,
//!    then its rigid rows solved directly, `TREE_ITERATIONS` times. A
//!    bundle's lever arms, point block inverse and
//!    hinge rows are worked out where the bodies stand at the first relax
//!    sweep, and read by every sweep until the bodies move again: the rest
//!    of that relax pass and the next substep's warm start and solve (and
//!    at the first substep's warm start).
//! 3. After the substeps, position passes (Box2D v2's position solver,
//!    nonlinear Gauss-Seidel) move the bodies so that each rigid part of a
//!    joint holds, their velocities untouched: `EASY_POSITION_PASSES`
//!    colour by colour, alternating direction, and the heavy joints'
//!    `POSITION_PASSES` in joint order, alternating direction; a tree's
//!    `POSITION_PASSES` each take its limits back by Gauss-Seidel, then
//!    solve its rigid rows' errors directly (a Newton step). A part off
//!    by less than `LINEAR_TOLERANCE` or `ANGULAR_TOLERANCE` is left
//!    alone, and a pass that moved nothing ends the passes. A soft push
//!    instead (Box2D v3) leaves a loaded joint stretched by its load over
//!    `m (2π hertz)²`, centimetres down a hanging chain
//!    (`a_chain_of_twenty_links_holds_together_2d`, `_3d`).
//! 4. Each joint keeps its accumulated impulses for the next step's warm
//!    start, and its reaction force and torque (impulse over the substep).
//!
//! The rows: a point (revolute, spherical, weld) is solved as one block
//! (2x2 in 2D, 3x3 in 3D) so that the point holds exactly whatever the
//! lever arms; a 3D hinge keeps its axes together with two angular rows
//! across the axis (one 2x2 block in the lanes); a weld's rotation is one
//! angular block; limits are one-sided rows (speculative while apart, as
//! contacts), a motor a row clamped by its torque, a spring a row with its
//! own softness.
//!
//! The groups, colours, bundles and the solve order follow from the joints
//! and bodies alone, so the results do not depend on the thread count
//! (`falling_hinges_give_one_hash_across_runs_and_threads`).
//!
//! Limits: a tree is solved on one thread, and so is the heavy group;
//! a tree's limits, motors and springs are Gauss-Seidel rows around its
//! direct solve, so a motor driving a heavy tree through a light body
//! gains on it slowly (a fan of blades ten times its hub's mass, driven
//! at 30 rad/s, turns at 19.4 after 60 s); a tree's position passes are
//! Newton steps, which a chain pulled straight by a heavy end defeats (a
//! 30-link chain with a 1000:1 end comes apart,
//! `a_chain_released_level_holds_an_end_a_thousand_times_a_link_*`);
//! Gauss-Seidel converges slowly over the loops left; and a large grid of
//! joints, two sweeps a pass and four position passes, leaves its most
//! loaded joints centimetres apart (`joint_grid_2d` after 5 s: 0.31 m at
//! most, beside the pins, 1.1 cm on average; rapier 0.62 m and 2.4 cm).

use core::ops::{Index, IndexMut, Range};
use core::sync::atomic::{AtomicBool, Ordering};

use crate::math::{Angular, MathDim, Rot2, SimdWord, Vector, D2, D3};
use crate::pipeline::constraint_graph::{ConstraintGraph, COLOURS};
use crate::pipeline::integrate::{BodyState, SolverBody};
use crate::pipeline::lanes::{InertiaLanes, Lanes, RotationLanes};
use crate::pipeline::solver::{Softness, SolverDim};
use crate::pipeline::stages::Shared;
use glam::{Mat3, Quat, Vec2, Vec3, Vec4};

mod point;
mod tree;

pub(crate) use point::PointDim;
use point::{PointBundle, PointRows, StateLanes, LANES};

/// What joints add to the solver's dimension: turning and measuring angles
/// about an axis.
pub trait JointDim: SolverDim + PointDim {
    /// The default axis of a hinge: Z (in 2D, the only one).
    fn z_axis() -> Self::AngularVector;
    /// `axis` turned by `r` (2D: unchanged).
    fn turn_axis(r: Self::Rotation, axis: Self::AngularVector) -> Self::AngularVector;
    /// `axis` scaled to unit length, or `None` when it has none.
    fn unit_axis(axis: Self::AngularVector) -> Option<Self::AngularVector>;
    /// The angle, radians in (-π, π], that `r` turns about unit `axis`
    /// (its twist; 2D: its angle times the axis' sign).
    fn twist(r: Self::Rotation, axis: Self::AngularVector) -> f32;
    /// The rows that keep axis `b` (unit, world) on axis `a`: up to two
    /// angular directions across `a` with the misalignment along each,
    /// radians (none in 2D, where every hinge axis is Z).
    fn hinge_rows(
        a: Self::AngularVector,
        b: Self::AngularVector,
    ) -> ([(Self::AngularVector, f32); 2], usize);
    /// `x` with `K x = rhs` for a point constraint's mass matrix `K`
    /// between bodies of inverse masses summing to `mass`, inverse
    /// inertias `inertia` and lever arms `arms` (2x2 or 3x3, in closed
    /// form); zero where `K` is singular (both bodies fixed).
    fn solve_point_block(
        mass: f32,
        inertia: [Self::Inertia; 2],
        arms: [Self::Vector; 2],
        rhs: Self::Vector,
    ) -> Self::Vector;
    /// The angle from unit axis `a` to unit axis `b` and the unit axis
    /// turning about which carries `a` towards `b`; `None` while they are
    /// aligned (and always in 2D, where every axis is Z).
    fn swing(a: Self::AngularVector, b: Self::AngularVector) -> Option<(f32, Self::AngularVector)>;
}

impl JointDim for D2 {
    fn z_axis() -> f32 {
        1.0
    }
    fn turn_axis(_r: Rot2, axis: f32) -> f32 {
        axis
    }
    fn unit_axis(axis: f32) -> Option<f32> {
        (axis != 0.0 && axis.is_finite()).then(|| axis.signum())
    }
    fn twist(r: Rot2, axis: f32) -> f32 {
        r.angle() * axis
    }
    fn hinge_rows(_a: f32, _b: f32) -> ([(f32, f32); 2], usize) {
        ([(0.0, 0.0); 2], 0)
    }
    fn swing(_a: f32, _b: f32) -> Option<(f32, f32)> {
        None
    }
    fn solve_point_block(mass: f32, [ia, ib]: [f32; 2], [ra, rb]: [Vec2; 2], rhs: Vec2) -> Vec2 {
        // Box2D's revolute point block.
        let k11 = mass + ia * ra.y * ra.y + ib * rb.y * rb.y;
        let k12 = -ia * ra.x * ra.y - ib * rb.x * rb.y;
        let k22 = mass + ia * ra.x * ra.x + ib * rb.x * rb.x;
        let det = k11 * k22 - k12 * k12;
        if det.abs() <= f32::MIN_POSITIVE {
            return Vec2::ZERO;
        }
        let inv = 1.0 / det;
        Vec2::new(
            inv * (k22 * rhs.x - k12 * rhs.y),
            inv * (k11 * rhs.y - k12 * rhs.x),
        )
    }
}

impl JointDim for D3 {
    fn z_axis() -> Vec3 {
        Vec3::Z
    }
    fn turn_axis(r: Quat, axis: Vec3) -> Vec3 {
        r * axis
    }
    fn unit_axis(axis: Vec3) -> Option<Vec3> {
        let length = axis.length();
        (length > 0.0 && length.is_finite()).then(|| axis / length)
    }
    fn twist(r: Quat, axis: Vec3) -> f32 {
        let r = if r.w < 0.0 { -r } else { r };
        2.0 * libm::atan2f(r.xyz().dot(axis), r.w)
    }
    fn hinge_rows(a: Vec3, b: Vec3) -> ([(Vec3, f32); 2], usize) {
        // `a × b` is the small turn that carries `a` onto `b`: B leaning
        // off A's axis by that much about each direction across `a`.
        let [p, q] = D3::tangents(a);
        let lean = a.cross(b);
        ([(p, lean.dot(p)), (q, lean.dot(q))], 2)
    }
    fn solve_point_block(mass: f32, inertia: [Mat3; 2], arms: [Vec3; 2], rhs: Vec3) -> Vec3 {
        // K = m 1 - S_a I_a S_a - S_b I_b S_b, S the cross-product matrix
        // of each arm: the velocity a unit impulse at the anchors adds.
        let skew = |r: Vec3| {
            Mat3::from_cols(
                Vec3::new(0.0, r.z, -r.y),
                Vec3::new(-r.z, 0.0, r.x),
                Vec3::new(r.y, -r.x, 0.0),
            )
        };
        let (sa, sb) = (skew(arms[0]), skew(arms[1]));
        let k =
            Mat3::from_diagonal(Vec3::splat(mass)) - sa * inertia[0] * sa - sb * inertia[1] * sb;
        let det = k.determinant();
        if det.abs() <= f32::MIN_POSITIVE {
            return Vec3::ZERO;
        }
        k.inverse() * rhs
    }
    fn swing(a: Vec3, b: Vec3) -> Option<(f32, Vec3)> {
        let lean = a.cross(b);
        let sine = lean.length();
        // Below this sine the axes count as aligned: no direction to swing by.
        (sine > SWING_EPSILON).then(|| (libm::atan2f(sine, a.dot(b)), lean / sine))
    }
}

/// Sines below this (radians, about) leave the swing direction undefined:
/// a ball joint's axes that close are aligned.
const SWING_EPSILON: f32 = 1e-6;

/// Position passes over the heavy joints, and over each tree, after each
/// step (Box2D v2 took 3). A heavy group's pass solves every joint
/// exactly against the bodies as the passes before left them, alternating
/// direction, so a chain's error falls with each pass; a tree's pass is
/// one Newton step over all its rigid rows. A pass that moved nothing
/// ends them.
const POSITION_PASSES: usize = 8;

/// Gauss-Seidel sweeps over the heavy joints in each solve and relax pass:
/// a sweep carries a correction about one link along a chain, and a chain
/// bearing an end mass many times its links' needs several per substep
/// (before trees were solved directly, a hanging chain of 20 with a 100:1
/// end mass ended 3.5 cm apart in all after 10 s with 1 sweep, 4 mm with
/// 4; `benches/RESULTS.md`).
const JOINT_ITERATIONS: usize = 4;

/// Sweeps of a tree's other rows, each followed by the direct solve of its
/// rigid rows, in each solve and relax pass. Two held the ragdolls' and
/// the ball joint's limits no better (`tests/machines.rs`,
/// `a_ball_joint_keeps_its_cone_and_twist_limits`) and cost a pile of 200
/// ragdolls a fifth of its solver time.
const TREE_ITERATIONS: usize = 1;

/// Above this ratio between the masses of a joint's two moving bodies, the
/// joint's whole group (the bodies joined to it through moving bodies),
/// if it has a loop, is heavy: solved on one thread in joint order,
/// [`JOINT_ITERATIONS`] sweeps a pass and [`POSITION_PASSES`] position
/// passes. Gauss-Seidel carries a heavy body's load along a chain slowly,
/// in colour order slower still (a chain of 20 with a 100:1 end mass
/// ended 1.3 cm apart in all coloured with 4 sweeps and 8 passes, 4 mm in
/// joint order).
const HEAVY_RATIO: f32 = 10.0;

/// Gauss-Seidel sweeps over the other joints in each solve and relax pass,
/// colour by colour. With one fewer in the relax pass the 20 x 20 grid's
/// widest joint opens from 3.2 to 6.8 mm
/// (`a_small_joint_grid_hangs_together`).
const EASY_ITERATIONS: usize = 2;

/// Position passes over the other joints, colour by colour, alternating
/// direction. With 2 the 20 x 20 grid's widest joint opens to 5.5 mm
/// (`a_small_joint_grid_hangs_together`).
const EASY_POSITION_PASSES: usize = 4;

/// The largest distance (m) and angle (rad) a position pass corrects at
/// one joint (Box2D v2's `b2_maxLinearCorrection` and
/// `b2_maxAngularCorrection`): a joint torn far apart is pulled together
/// over a few steps, not flung.
const MAX_LINEAR_CORRECTION: f32 = 0.2;
const MAX_ANGULAR_CORRECTION: f32 = 8.0 * core::f32::consts::PI / 180.0;

/// A position pass leaves alone a joint's part off by less than this
/// distance (m) or angle (rad): ten micrometres, far below what shows.
/// A pass that moved nothing ends the passes (the next would find the
/// same).
const LINEAR_TOLERANCE: f32 = 1e-5;
const ANGULAR_TOLERANCE: f32 = 1e-5;

/// A spring's stiffness as a frequency and its damping.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Spring {
    /// Natural frequency, Hz (> 0).
    pub hertz: f32,
    /// Damping ratio (>= 0): 0 oscillates for ever, 1 is critical.
    pub damping_ratio: f32,
}

/// A drive: a target relative speed along or about a joint's free axis
/// and the most effort it may spend to reach it.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Motor {
    /// Target speed: rad/s about a hinge or a wheel's axle, m/s along a
    /// slider.
    pub speed: f32,
    /// Largest effort (>= 0): torque (N·m) about an axis, force (N) along one.
    pub max_effort: f32,
}

/// What a joint holds, with its own parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum JointModel {
    /// The anchors' distance kept at `length`, or within `min..=max`
    /// (a rope: `min` 0), or pulled towards `length` by a spring.
    Distance {
        /// Rest length, metres.
        length: f32,
        /// Shortest allowed, metres (equal to `length` and `max` for a
        /// rigid rod).
        min: f32,
        /// Longest allowed, metres.
        max: f32,
        /// A spring towards `length` instead of a rigid rod.
        spring: Option<Spring>,
    },
    /// The anchors kept together and the bodies turning about one axis,
    /// with optional limits, motor and spring on the angle.
    Revolute {
        /// Lowest and highest angle, radians.
        limits: Option<(f32, f32)>,
        /// A motor on the angle's speed.
        motor: Option<Motor>,
        /// A spring towards `target`.
        spring: Option<Spring>,
        /// The angle the spring pulls towards, radians.
        target: f32,
    },
    /// The anchors kept together and the bodies' relative rotation fixed;
    /// each part rigid, or soft with its own spring.
    Weld {
        /// The point's spring (`None`: rigid).
        linear: Option<Spring>,
        /// The rotation's spring (`None`: rigid).
        angular: Option<Spring>,
    },
    /// The anchors kept together; the bodies turn freely (a ball joint),
    /// within optional limits about the joint's axis (the twist axis:
    /// [`JointFrame::axis_a`] on A, `axis_b` on B).
    Spherical {
        /// The largest angle between A's and B's twist axes (the swing),
        /// radians in [0, π].
        cone: Option<f32>,
        /// The lowest and highest twist of B about its axis, radians.
        twist: Option<(f32, f32)>,
    },
    /// B slides along an axis fixed in A, without turning relative to it,
    /// with optional limits, drive and spring on the translation.
    Prismatic {
        /// Lowest and highest translation along the axis, metres.
        limits: Option<(f32, f32)>,
        /// A drive on the sliding speed.
        motor: Option<Motor>,
        /// A spring towards translation `target`.
        spring: Option<Spring>,
        /// The translation the spring pulls towards, metres.
        target: f32,
    },
    /// A wheel: B (the wheel) slides along A's suspension axis on a spring
    /// and spins freely about its axle, optionally driven.
    Wheel {
        /// The suspension's spring (`None`: rigid).
        spring: Option<Spring>,
        /// A drive on the wheel's spin.
        motor: Option<Motor>,
    },
    /// Drives B towards the pose relative to A it had as the joint was made
    /// (move A to lead B: a hand grabbing a body), pushing with at most
    /// `max_force` and turning with at most `max_torque`.
    Motor {
        /// Largest force, N (>= 0).
        max_force: f32,
        /// Largest torque, N·m (>= 0).
        max_torque: f32,
    },
}

/// How much of a motor joint's remaining offset it closes per second, as a
/// share per substep of `1 / h` (Box2D v3's motor joint correction factor).
const MOTOR_CORRECTION: f32 = 0.3;

/// A joint's geometry in its bodies' frames: what stays the same while the
/// bodies move.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct JointFrame<D: MathDim> {
    /// The anchor on each body, in its body frame, metres: from the body's
    /// origin as the world keeps it, from its centre of mass in a
    /// `JointInput`.
    pub anchor_a: D::Vector,
    /// The anchor on B, likewise.
    pub anchor_b: D::Vector,
    /// The hinge axis in A's body frame (unit).
    pub axis_a: D::AngularVector,
    /// The same axis in B's body frame, as the joint was made.
    pub axis_b: D::AngularVector,
    /// B's rotation relative to A's as the joint was made (`q_a⁻¹ q_b`):
    /// angle zero.
    pub reference: D::Rotation,
    /// A slider's or wheel's axis in A's body frame (unit).
    pub slide_a: D::Vector,
}

/// A joint's accumulated impulses, kept from step to step for warm
/// starting.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct JointImpulses<D: MathDim> {
    /// On the point (revolute, spherical, weld), N·s, world axes.
    pub point: D::Vector,
    /// Angular, N·m·s, world axes: a hinge's alignment rows, a weld's
    /// rotation.
    pub angular: D::AngularVector,
    /// Along a distance joint's axis or about a hinge's: rigid rod or
    /// spring, N·s or N·m·s; a ball joint's upper twist limit.
    pub axial: f32,
    /// A hinge's motor, N·m·s.
    pub motor: f32,
    /// The lower limit's row (>= 0); a ball joint's lower twist limit.
    pub lower: f32,
    /// The upper limit's row (>= 0); a ball joint's swing cone.
    pub upper: f32,
}

impl<D: MathDim> JointImpulses<D> {
    /// True when every impulse is finite.
    pub fn is_finite(&self) -> bool {
        self.point.is_finite()
            && self.angular.is_finite()
            && [self.axial, self.motor, self.lower, self.upper]
                .iter()
                .all(|i| i.is_finite())
    }
}

/// One joint as the solver takes it for a step.
#[derive(Copy, Clone, Debug)]
pub(crate) struct JointInput<D: JointDim> {
    /// The two bodies' places in the solver's arrays.
    pub bodies: [usize; 2],
    pub frame: JointFrame<D>,
    pub model: JointModel,
    pub impulses: JointImpulses<D>,
}

/// A joint during the step: its input and what preparing it found.
#[derive(Copy, Clone, Debug)]
struct Prepared<D: JointDim> {
    input: JointInput<D>,
    inv_mass: [f32; 2],
    inv_inertia: [D::Inertia; 2],
    /// The anchors from the centres of mass, world axes, as the step began.
    arm: [D::Vector; 2],
    /// `centre_b - centre_a` as the step began.
    centres: D::Vector,
    /// The bodies' rotations as the step began.
    rotation: [D::Rotation; 2],
}

/// What a pass over the joints needs: the substep, s.
#[derive(Copy, Clone, Debug)]
pub(crate) struct JointPass {
    pub h: f32,
}

/// What a joint stage does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum JointWork {
    /// The accumulated impulses applied again; `fresh`: the plain joints'
    /// rows worked out where the bodies stand first (in the first substep:
    /// in the others, the rows of the last relax pass stand, as nothing
    /// moved since).
    WarmStart { fresh: bool },
    /// One Gauss-Seidel sweep; `fresh`: the bodies moved since the rows
    /// were last worked out.
    Solve { fresh: bool },
    /// Position pass `pass` (counted from 0), skipped when the one before
    /// moved nothing.
    Project { pass: usize },
}

/// One stage of joint work: a colour's joints, and with `lead` the heavy
/// joints' whole pass (all their sweeps or position passes) as one more
/// block and the trees' as more blocks.
#[derive(Copy, Clone, Debug)]
pub(crate) struct JointStage {
    work: JointWork,
    /// The colour, or `None` for the heavy joints and trees alone.
    colour: Option<usize>,
    lead: bool,
}

/// Fewest bundles in a block of a colour's stage (as the contacts').
const MIN_BUNDLES_PER_BLOCK: usize = 64;
/// Fewest joints in a block of a colour's joints that are not plain.
const MIN_SCALARS_PER_BLOCK: usize = 64;
/// Blocks per thread in a colour's stage, for balance.
const BLOCKS_PER_THREAD: usize = 2;

/// Where the solver keeps a joint during the step.
#[derive(Copy, Clone, Debug)]
enum Place {
    /// In the joints, at this index.
    Joint(u32),
    /// In a bundle's lane.
    Lane(u32, u8),
}

/// The joints of a step.
#[derive(Clone, Debug)]
pub(crate) struct JointSolver<D: JointDim> {
    /// The joints solved one at a time: the heavy ones (of a group joined
    /// by a mass ratio over [`HEAVY_RATIO`]) first, in input order, then
    /// the others that are not plain, colour by colour, each colour in
    /// input order.
    joints: Vec<Prepared<D>>,
    /// The heavy joints' share of `joints`.
    heavy: usize,
    /// The trees' joints in `joints`, tree by tree, after the heavy ones.
    trees: Vec<Range<usize>>,
    /// The trees' nodes and factors.
    forest: tree::Forest,
    /// The bodies' count: a bundle's bodies are below it, or at it (the
    /// all-zero state past the last body).
    body_count: usize,
    /// The plain joints that are not heavy, four to a bundle, colour by
    /// colour.
    bundles: Vec<PointBundle<D>>,
    /// Each bundle's rows where its bodies stand in the current pass.
    rows: Vec<PointRows<D>>,
    /// Each colour's bundles and joints (the overflow last).
    colour_bundles: Vec<Range<usize>>,
    colour_joints: Vec<Range<usize>>,
    /// Each input's place.
    places: Vec<Place>,
    /// Scratch for the layout.
    graph: ConstraintGraph,
    group: Vec<u32>,
    ratio: Vec<f32>,
    is_heavy: Vec<bool>,
    is_tree: Vec<bool>,
    /// Per group root: its moving bodies, and the world if a joint joins
    /// the group to a fixed body, less its joints (1 for a tree: a bridge
    /// pinned at both ends is a loop through the world), whether it is
    /// joined to the world, and its tree's place.
    surplus: Vec<i64>,
    anchored: Vec<bool>,
    tree_of: Vec<u32>,
    /// The trees' joints as inputs, tree by tree, and each tree's count.
    tree_inputs: Vec<usize>,
    tree_sizes: Vec<usize>,
    /// Each input's bodies, their inverse masses and whether it is plain,
    /// as last laid out.
    signature: Vec<Signature>,
    plain: Vec<Vec<usize>>,
    other: Vec<Vec<usize>>,
}

impl<D: JointDim> Default for JointSolver<D> {
    fn default() -> Self {
        Self {
            joints: Vec::new(),
            heavy: 0,
            trees: Vec::new(),
            forest: tree::Forest::default(),
            body_count: 0,
            bundles: Vec::new(),
            rows: Vec::new(),
            colour_bundles: vec![0..0; COLOURS + 1],
            colour_joints: vec![0..0; COLOURS + 1],
            places: Vec::new(),
            graph: ConstraintGraph::new(0),
            group: Vec::new(),
            ratio: Vec::new(),
            is_heavy: Vec::new(),
            is_tree: Vec::new(),
            surplus: Vec::new(),
            anchored: Vec::new(),
            tree_of: Vec::new(),
            tree_inputs: Vec::new(),
            tree_sizes: Vec::new(),
            signature: Vec::new(),
            plain: vec![Vec::new(); COLOURS + 1],
            other: vec![Vec::new(); COLOURS + 1],
        }
    }
}

/// What the layout of a joint depends on: its bodies, their inverse masses'
/// bits, and whether it is plain.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Signature {
    bodies: [u32; 2],
    inv_mass: [u32; 2],
    plain: bool,
}

/// True for a joint solved in SIMD lanes: a revolute joint without limits,
/// motor or spring, or a ball joint without cone or twist limits.
fn is_plain(model: &JointModel) -> bool {
    matches!(
        model,
        JointModel::Revolute {
            limits: None,
            motor: None,
            spring: None,
            ..
        } | JointModel::Spherical {
            cone: None,
            twist: None,
        }
    )
}

/// The root of `x`'s group (union-find with path halving).
fn group_of(group: &mut [u32], mut x: usize) -> usize {
    while group[x] as usize != x {
        let up = group[group[x] as usize];
        group[x] = up;
        x = up as usize;
    }
    x
}

impl<D: JointDim> JointSolver<D> {
    /// Step 1 for `inputs`, over the solver's `bodies`: the heavy joints
    /// set apart, the others coloured; each joint's lever arms and masses,
    /// the plain ones' in bundles.
    pub(crate) fn prepare(&mut self, inputs: &[JointInput<D>], bodies: &[SolverBody<D>]) {
        if !self.same_layout(inputs, bodies) {
            self.find_groups(inputs, bodies);
            self.colour(inputs, bodies);
        }
        self.lay_out(inputs, bodies);
    }

    /// True when `inputs` join the same bodies, of the same inverse masses
    /// (whether they move, and their ratios), with the same kinds of joint
    /// (plain or not) as last step's, so that last step's heavy groups and
    /// colours stand (they depend on nothing else); the signature is
    /// updated either way.
    fn same_layout(&mut self, inputs: &[JointInput<D>], bodies: &[SolverBody<D>]) -> bool {
        let signature_of = |input: &JointInput<D>| {
            let [a, b] = input.bodies;
            Signature {
                bodies: [a as u32, b as u32],
                inv_mass: [bodies[a].inv_mass.to_bits(), bodies[b].inv_mass.to_bits()],
                plain: is_plain(&input.model),
            }
        };
        let same = self.signature.len() == inputs.len()
            && !inputs.is_empty()
            && inputs
                .iter()
                .zip(&self.signature)
                .all(|(input, kept)| signature_of(input) == *kept);
        if !same {
            self.signature.clear();
            self.signature.extend(inputs.iter().map(signature_of));
        }
        same
    }

    /// The groups of bodies joined by moving bodies (a fixed body joins
    /// nothing): a group without a loop is a tree, its joints solved
    /// directly (`tree`); the joints of another group in which some
    /// joint's bodies' masses are more than [`HEAVY_RATIO`] apart are
    /// heavy.
    fn find_groups(&mut self, inputs: &[JointInput<D>], bodies: &[SolverBody<D>]) {
        self.is_heavy.clear();
        self.is_heavy.resize(inputs.len(), false);
        self.tree_inputs.clear();
        self.tree_sizes.clear();
        if inputs.is_empty() {
            return;
        }
        // A joint's two bodies' masses' ratio, 1 unless both move.
        let ratio_of = |input: &JointInput<D>| {
            let [ma, mb] = input.bodies.map(|i| bodies[i].inv_mass);
            if ma > 0.0 && mb > 0.0 {
                (ma / mb).max(mb / ma)
            } else {
                1.0
            }
        };
        let moves = |i: usize| bodies[i].inv_mass > 0.0;
        let (group, ratio, surplus) = (&mut self.group, &mut self.ratio, &mut self.surplus);
        group.clear();
        group.extend(0..bodies.len() as u32);
        ratio.clear();
        ratio.resize(bodies.len(), 1.0);
        surplus.clear();
        surplus.resize(bodies.len(), 0);
        self.anchored.clear();
        self.anchored.resize(bodies.len(), false);
        for input in inputs {
            let [a, b] = input.bodies;
            if moves(a) && moves(b) {
                let (ra, rb) = (group_of(group, a), group_of(group, b));
                let (ra, rb) = (ra.min(rb), ra.max(rb));
                group[rb] = ra as u32;
                ratio[ra] = ratio[ra].max(ratio[rb]).max(ratio_of(input));
            }
        }
        // Each group's moving bodies (counted once each, at their first
        // joint) less its joints between two moving bodies.
        self.tree_of.clear();
        self.tree_of.resize(bodies.len(), u32::MAX);
        const COUNTED: u32 = u32::MAX - 1;
        for input in inputs {
            let [a, b] = input.bodies;
            for body in [a, b] {
                if moves(body) && self.tree_of[body] != COUNTED {
                    self.tree_of[body] = COUNTED;
                    surplus[group_of(group, body)] += 1;
                }
            }
            if moves(a) && moves(b) {
                surplus[group_of(group, a)] -= 1;
            } else if moves(a) || moves(b) {
                // A joint to a fixed body: the fixed bodies are one node
                // more (the world), joined in only once in a tree.
                let root = group_of(group, if moves(a) { a } else { b });
                surplus[root] -= 1;
                self.anchored[root] = true;
            }
        }
        for (root, anchored) in self.anchored.iter_mut().enumerate() {
            if *anchored {
                surplus[root] += 1;
                *anchored = false;
            }
        }
        self.tree_of.iter_mut().for_each(|t| *t = u32::MAX);
        let mut trees = 0;
        for (k, input) in inputs.iter().enumerate() {
            let [a, b] = input.bodies;
            if !moves(a) && !moves(b) {
                continue;
            }
            let root = group_of(group, if moves(a) { a } else { b });
            if surplus[root] == 1 {
                if self.tree_of[root] == u32::MAX {
                    self.tree_of[root] = trees;
                    trees += 1;
                }
            } else {
                self.is_heavy[k] = ratio[root] > HEAVY_RATIO;
            }
        }
        // The trees' joints, tree by tree in order of their first joint,
        // each tree's in input order (a counting sort).
        self.tree_sizes.resize(trees as usize + 1, 0);
        let tree_of_input = |input: &JointInput<D>, group: &mut [u32]| {
            let [a, b] = input.bodies;
            if !moves(a) && !moves(b) {
                return None;
            }
            let root = group_of(group, if moves(a) { a } else { b });
            (surplus[root] == 1).then_some(root)
        };
        for input in inputs {
            if let Some(root) = tree_of_input(input, group) {
                self.tree_sizes[self.tree_of[root] as usize + 1] += 1;
            }
        }
        for t in 1..self.tree_sizes.len() {
            self.tree_sizes[t] += self.tree_sizes[t - 1];
        }
        self.tree_inputs
            .resize(self.tree_sizes.last().copied().unwrap_or(0), 0);
        let mut next: Vec<usize> = self.tree_sizes.clone();
        for (k, input) in inputs.iter().enumerate() {
            if let Some(root) = tree_of_input(input, group) {
                let t = self.tree_of[root] as usize;
                self.tree_inputs[next[t]] = k;
                next[t] += 1;
            }
        }
        // `tree_sizes` ends as each tree's start in `tree_inputs`, and one
        // past the last.
    }

    /// The other joints' colours, in input order: each joins its colour's
    /// plain or other members.
    fn colour(&mut self, inputs: &[JointInput<D>], bodies: &[SolverBody<D>]) {
        self.graph.clear(bodies.len());
        self.plain.iter_mut().for_each(Vec::clear);
        self.other.iter_mut().for_each(Vec::clear);
        self.is_tree.clear();
        self.is_tree.resize(inputs.len(), false);
        for &k in &self.tree_inputs {
            self.is_tree[k] = true;
        }
        for (k, (input, &heavy)) in inputs.iter().zip(&self.is_heavy).enumerate() {
            if heavy || self.is_tree[k] {
                continue;
            }
            let [a, b] = input.bodies;
            let colour = self
                .graph
                .colour([(a, bodies[a].inv_mass > 0.0), (b, bodies[b].inv_mass > 0.0)]);
            if colour < COLOURS && is_plain(&input.model) {
                self.plain[colour].push(k);
            } else {
                self.other[colour].push(k);
            }
        }
    }

    /// The heavy joints, then each colour's plain joints four to a bundle
    /// and its other joints; where each input went.
    fn lay_out(&mut self, inputs: &[JointInput<D>], bodies: &[SolverBody<D>]) {
        self.places.clear();
        self.places.resize(inputs.len(), Place::Joint(0));
        self.joints.clear();
        for (k, input) in inputs.iter().enumerate() {
            if self.is_heavy[k] {
                self.places[k] = Place::Joint(self.joints.len() as u32);
                self.joints.push(Prepared::new(input, bodies));
            }
        }
        self.heavy = self.joints.len();
        self.trees.clear();
        for t in 1..self.tree_sizes.len() {
            let start = self.joints.len();
            for &k in &self.tree_inputs[self.tree_sizes[t - 1]..self.tree_sizes[t]] {
                self.places[k] = Place::Joint(self.joints.len() as u32);
                self.joints.push(Prepared::new(&inputs[k], bodies));
            }
            self.trees.push(start..self.joints.len());
        }
        self.forest.lay_out(&self.joints, &self.trees, bodies.len());
        self.body_count = bodies.len();
        self.bundles.clear();
        // The all-zero state past the last body: an empty lane's bodies.
        let empty = bodies.len() as u32;
        for colour in 0..=COLOURS {
            let start = self.bundles.len();
            for chunk in self.plain[colour].chunks(LANES) {
                let lanes = core::array::from_fn(|lane| chunk.get(lane).map(|&k| &inputs[k]));
                for (lane, &k) in chunk.iter().enumerate() {
                    self.places[k] = Place::Lane(self.bundles.len() as u32, lane as u8);
                }
                self.bundles.push(PointBundle::default());
                if let Some(bundle) = self.bundles.last_mut() {
                    bundle.set(lanes, bodies, empty);
                }
            }
            self.colour_bundles[colour] = start..self.bundles.len();
            let start = self.joints.len();
            for &k in &self.other[colour] {
                self.places[k] = Place::Joint(self.joints.len() as u32);
                self.joints.push(Prepared::new(&inputs[k], bodies));
            }
            self.colour_joints[colour] = start..self.joints.len();
        }
        self.rows.clear();
        self.rows.resize(self.bundles.len(), PointRows::default());
    }

    /// The colours holding joints, in order.
    fn used_colours(&self) -> Vec<usize> {
        (0..=COLOURS)
            .filter(|&c| !self.colour_bundles[c].is_empty() || !self.colour_joints[c].is_empty())
            .collect()
    }

    /// The stages of `sweeps` sweeps of `work` over every colour, each
    /// sweep in colour order or (`backwards`) the other way; only the
    /// first sweep of a `fresh` solve works its rows out anew.
    fn sweeps(
        &self,
        work: JointWork,
        sweeps: usize,
        backwards: impl Fn(usize) -> bool,
    ) -> Vec<JointStage> {
        let used = self.used_colours();
        let mut stages = Vec::new();
        for sweep in 0..sweeps {
            let work = match work {
                JointWork::Solve { fresh } => JointWork::Solve {
                    fresh: fresh && sweep == 0,
                },
                JointWork::WarmStart { fresh } => JointWork::WarmStart {
                    fresh: fresh && sweep == 0,
                },
                JointWork::Project { .. } => JointWork::Project { pass: sweep },
            };
            let stage = |&c: &usize| JointStage {
                work,
                colour: Some(c),
                lead: false,
            };
            if backwards(sweep) {
                stages.extend(used.iter().rev().map(stage));
            } else {
                stages.extend(used.iter().map(stage));
            }
        }
        if self.heavy > 0 || !self.trees.is_empty() {
            // The heavy joints' and the trees' whole pass goes with the
            // first stage.
            match stages.first_mut() {
                Some(first) => first.lead = true,
                None => stages.push(JointStage {
                    work,
                    colour: None,
                    lead: true,
                }),
            }
        }
        stages
    }

    /// Step 2's warm start stages (`first`: of the step's first substep).
    pub(crate) fn warm_start_stages(&self, first: bool) -> Vec<JointStage> {
        self.sweeps(JointWork::WarmStart { fresh: first }, 1, |_| false)
    }

    /// Step 2's solve stages (`relax`: after the positions moved).
    pub(crate) fn solve_stages(&self, relax: bool) -> Vec<JointStage> {
        self.sweeps(JointWork::Solve { fresh: relax }, EASY_ITERATIONS, |_| {
            false
        })
    }

    /// Step 3's stages: position passes, alternating direction.
    pub(crate) fn project_stages(&self) -> Vec<JointStage> {
        self.sweeps(
            JointWork::Project { pass: 0 },
            EASY_POSITION_PASSES,
            |pass| pass % 2 == 1,
        )
    }

    /// Bundles (and other joints) per block of colour `colour`'s stages:
    /// the overflow, whose joints may share bodies, is one block.
    fn block_sizes(&self, colour: usize) -> (usize, usize) {
        let (bundles, scalars) = (
            self.colour_bundles[colour].len(),
            self.colour_joints[colour].len(),
        );
        if colour == COLOURS {
            return (bundles.max(1), scalars.max(1));
        }
        let threads = crate::parallel::threads();
        (
            bundles
                .div_ceil(BLOCKS_PER_THREAD * threads)
                .max(MIN_BUNDLES_PER_BLOCK),
            scalars
                .div_ceil(BLOCKS_PER_THREAD * threads)
                .max(MIN_SCALARS_PER_BLOCK),
        )
    }

    /// The blocks of `stage`.
    pub(crate) fn blocks(&self, stage: &JointStage) -> usize {
        let colour = stage.colour.map_or(0, |c| {
            let (bundle_size, scalar_size) = self.block_sizes(c);
            self.colour_bundles[c].len().div_ceil(bundle_size)
                + self.colour_joints[c].len().div_ceil(scalar_size)
        });
        if stage.lead {
            colour + self.lead_blocks().0 + self.lead_blocks().1
        } else {
            colour
        }
    }

    /// The lead stage's blocks: the heavy joints' (0 or 1) and the
    /// trees'.
    fn lead_blocks(&self) -> (usize, usize) {
        let trees = self.trees.len();
        let tree_blocks = trees.min(BLOCKS_PER_THREAD * crate::parallel::threads());
        (usize::from(self.heavy > 0), tree_blocks)
    }

    /// The joints shared by the threads of the solver's stages.
    pub(crate) fn view(&mut self) -> JointView<'_, D> {
        let sizes = (0..=COLOURS).map(|c| self.block_sizes(c)).collect();
        let lead_blocks = self.lead_blocks();
        JointView {
            lead_blocks,
            trees: &self.trees,
            forest: self.forest.view(),
            joints: Shared::new(&mut self.joints),
            bundles: Shared::new(&mut self.bundles),
            rows: Shared::new(&mut self.rows),
            heavy: self.heavy,
            body_count: self.body_count,
            colour_bundles: &self.colour_bundles,
            colour_joints: &self.colour_joints,
            moved: (0..EASY_POSITION_PASSES)
                .map(|_| AtomicBool::new(false))
                .collect(),
            sizes,
        }
    }

    /// Step 4: each joint's impulses and its reaction on B over the last
    /// substep of `h` seconds (force N, torque N·m about B's anchor), in
    /// input order, the bodies at their `states` after the step. A plain
    /// joint keeps no axial, motor or limit impulse.
    pub(crate) fn reactions<'s>(
        &'s self,
        states: &'s [D::BodyState],
        h: f32,
    ) -> impl Iterator<Item = (JointImpulses<D>, D::Vector, D::AngularVector)> + 's {
        self.places.iter().map(move |&place| {
            let (impulses, (linear, angular)) = match place {
                Place::Joint(k) => {
                    let joint = &self.joints[k as usize];
                    let now = Now::of(joint, states);
                    (joint.input.impulses, totals(joint, &now))
                }
                Place::Lane(bundle, lane) => {
                    let (bundle, lane) = (&self.bundles[bundle as usize], lane as usize);
                    let impulses = JointImpulses {
                        point: bundle.point.get(lane),
                        angular: bundle.angular.get(lane),
                        ..JointImpulses::default()
                    };
                    (impulses, (impulses.point, impulses.angular))
                }
            };
            (impulses, linear * (1.0 / h), angular * (1.0 / h))
        })
    }
}

impl<D: JointDim> Prepared<D> {
    /// `input` over the solver's `bodies` as the step begins.
    fn new(input: &JointInput<D>, bodies: &[SolverBody<D>]) -> Self {
        let [a, b] = input.bodies.map(|i| &bodies[i]);
        Prepared {
            input: *input,
            inv_mass: [a.inv_mass, b.inv_mass],
            inv_inertia: [a.inv_inertia, b.inv_inertia],
            arm: [
                D::rotate(a.rotation, input.frame.anchor_a),
                D::rotate(b.rotation, input.frame.anchor_b),
            ],
            centres: b.center - a.center,
            rotation: [a.rotation, b.rotation],
        }
    }
}

impl<D: JointDim> PointBundle<D> {
    /// A fresh bundle set to plain joints `lanes` (`None`: an empty lane,
    /// whose bodies are the all-zero state `empty`) over the solver's
    /// `bodies` as the step begins. Each quantity is gathered lane by lane,
    /// then turned into world axes four lanes at a time.
    fn set(
        &mut self,
        lanes: [Option<&JointInput<D>>; LANES],
        bodies: &[SolverBody<D>],
        empty: u32,
    ) {
        let bundle = self;
        bundle.body_a = [empty; LANES];
        bundle.body_b = [empty; LANES];
        let zero = [Vec4::ZERO; LANES];
        let (mut anchor_a, mut anchor_b, mut turn_a, mut turn_b) = (zero, zero, zero, zero);
        let (mut centres, mut point, mut angular) = (zero, zero, zero);
        let (mut axis_a, mut axis_b) = (zero, zero);
        let (mut inv_mass_a, mut inv_mass_b, mut hinge) =
            ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for (lane, input) in lanes.iter().enumerate() {
            let Some(input) = input else { continue };
            let [ia, ib] = input.bodies;
            let (a, b) = (&bodies[ia], &bodies[ib]);
            bundle.body_a[lane] = ia as u32;
            bundle.body_b[lane] = ib as u32;
            bundle.moves_a[lane] = a.inv_mass > 0.0;
            bundle.moves_b[lane] = b.inv_mass > 0.0;
            inv_mass_a[lane] = a.inv_mass;
            inv_mass_b[lane] = b.inv_mass;
            bundle.inv_inertia_a.set(lane, a.inv_inertia);
            bundle.inv_inertia_b.set(lane, b.inv_inertia);
            anchor_a[lane] = input.frame.anchor_a.to_word();
            anchor_b[lane] = input.frame.anchor_b.to_word();
            turn_a[lane] = a.rotation.to_word();
            turn_b[lane] = b.rotation.to_word();
            centres[lane] = (b.center - a.center).to_word();
            point[lane] = input.impulses.point.to_word();
            angular[lane] = input.impulses.angular.to_word();
            if let JointModel::Revolute { .. } = input.model {
                axis_a[lane] = input.frame.axis_a.to_word();
                axis_b[lane] = input.frame.axis_b.to_word();
                hinge[lane] = 1.0;
            }
        }
        bundle.inv_mass_a = Vec4::from_array(inv_mass_a);
        bundle.inv_mass_b = Vec4::from_array(inv_mass_b);
        bundle.hinge = Vec4::from_array(hinge);
        let (turn_a, turn_b) = (
            D::RotationLanes::from_words(turn_a),
            D::RotationLanes::from_words(turn_b),
        );
        bundle.arm_a = turn_a.rotate(&D::VectorLanes::from_words(anchor_a));
        bundle.arm_b = turn_b.rotate(&D::VectorLanes::from_words(anchor_b));
        bundle.axis_a = D::turn_axis_lanes(&turn_a, &D::AngularLanes::from_words(axis_a));
        bundle.axis_b = D::turn_axis_lanes(&turn_b, &D::AngularLanes::from_words(axis_b));
        bundle.centres = D::VectorLanes::from_words(centres);
        bundle.point = D::VectorLanes::from_words(point);
        bundle.angular = D::AngularLanes::from_words(angular);
    }
}

/// The joints during the solver's stages, shared by the threads.
pub(crate) struct JointView<'a, D: JointDim> {
    /// The lead stage's blocks: the heavy joints' and the trees'.
    lead_blocks: (usize, usize),
    /// Each tree's joints, and the trees' factors.
    trees: &'a [Range<usize>],
    forest: tree::ForestView<'a>,
    joints: Shared<'a, Prepared<D>>,
    bundles: Shared<'a, PointBundle<D>>,
    rows: Shared<'a, PointRows<D>>,
    /// The heavy joints' share of the joints.
    heavy: usize,
    /// The bodies' count (the bundles' indices reach it, not past).
    body_count: usize,
    colour_bundles: &'a [Range<usize>],
    colour_joints: &'a [Range<usize>],
    /// Per position pass: whether it moved a body (set by any block; read
    /// by the next pass's, after the stage between them ended).
    moved: Vec<AtomicBool>,
    /// Each colour's bundles and other joints per block.
    sizes: Vec<(usize, usize)>,
}

impl<D: JointDim> JointView<'_, D> {
    /// Block `block` of `stage`, over the bodies' `states`.
    ///
    /// # Safety
    /// The blocks of one stage may run at once, but no other stage may run
    /// beside them, and nothing else may reach `states`, the joints, their
    /// bundles or rows meanwhile. (Within a colour no two joints share a
    /// moving body, the heavy joints share none with the others, and the
    /// overflow is one block; a body that does not move is only read.)
    pub(crate) unsafe fn run(
        &self,
        stage: &JointStage,
        mut block: usize,
        states: &Shared<'_, D::BodyState>,
        pass: &JointPass,
    ) {
        // SAFETY: by the caller's contract, this block alone reaches its
        // joints' moving bodies, and no one writes the bodies it only reads.
        let mut bodies = unsafe { States::new(states) };
        if stage.lead {
            let (heavy, trees) = self.lead_blocks;
            if block < heavy {
                // SAFETY: the heavy joints are this block's alone.
                unsafe { self.run_heavy(stage.work, &mut bodies, pass) };
                return;
            }
            block -= heavy;
            if block < trees {
                let per_block = self.trees.len().div_ceil(trees);
                let start = block * per_block;
                for tree in start..(start + per_block).min(self.trees.len()) {
                    // SAFETY: each tree is in one block, and its joints
                    // and moving bodies are its own.
                    unsafe { self.run_tree(stage.work, tree, &mut bodies, pass) };
                }
                return;
            }
            block -= trees;
        }
        let Some(colour) = stage.colour else {
            return;
        };
        if let JointWork::Project { pass } = stage.work {
            if pass > 0 && !self.moved[pass - 1].load(Ordering::Relaxed) {
                // The pass before moved nothing: this one would find the same.
                return;
            }
        }
        let (bundle_size, scalar_size) = self.sizes[colour];
        let bundles = &self.colour_bundles[colour];
        let bundle_blocks = bundles.len().div_ceil(bundle_size);
        if block < bundle_blocks {
            let start = bundles.start + block * bundle_size;
            let range = start..(start + bundle_size).min(bundles.end);
            // SAFETY: the bundles of a block are its own; their bodies, as
            // the contract says.
            unsafe { self.run_bundles(stage.work, range, states) };
            return;
        }
        let joints = &self.colour_joints[colour];
        let start = joints.start + (block - bundle_blocks) * scalar_size;
        for k in start..(start + scalar_size).min(joints.end) {
            // SAFETY: each joint is in one block of a stage.
            let joint = unsafe { self.joints.get_mut(k) };
            match stage.work {
                JointWork::WarmStart { .. } => warm_start_joint(joint, &mut bodies),
                JointWork::Solve { .. } => solve_joint(joint, &mut bodies, pass),
                JointWork::Project { pass } => {
                    if project_joint(joint, &mut bodies) {
                        self.moved[pass].store(true, Ordering::Relaxed);
                    }
                }
            }
        }
    }

    /// The heavy joints' whole pass, in input order.
    ///
    /// # Safety
    /// As [`JointView::run`], the heavy joints this block's alone.
    unsafe fn run_heavy(&self, work: JointWork, bodies: &mut Bodies<D>, pass: &JointPass) {
        // SAFETY: the heavy joints are reached by this block alone.
        let joint = |k: usize| unsafe { self.joints.get_mut(k) };
        match work {
            JointWork::WarmStart { .. } => {
                for k in 0..self.heavy {
                    warm_start_joint(joint(k), bodies);
                }
            }
            JointWork::Solve { .. } => {
                for _ in 0..JOINT_ITERATIONS {
                    for k in 0..self.heavy {
                        solve_joint(joint(k), bodies, pass);
                    }
                }
            }
            JointWork::Project { .. } => {
                let n = self.heavy;
                for pass in 0..POSITION_PASSES {
                    let mut moved = false;
                    for k in 0..n {
                        // Passes alternate direction (symmetric Gauss-Seidel): a
                        // chain's error runs down it in one pass and up in the next.
                        let k = if pass % 2 == 0 { k } else { n - 1 - k };
                        moved |= project_joint(joint(k), bodies);
                    }
                    if !moved {
                        break;
                    }
                }
            }
        }
    }

    /// Tree `tree`'s whole pass: its joints' other rows by Gauss-Seidel,
    /// then its rigid rows solved directly (`tree`).
    ///
    /// # Safety
    /// As [`JointView::run`], the tree this block's alone.
    unsafe fn run_tree(
        &self,
        work: JointWork,
        tree: usize,
        bodies: &mut Bodies<D>,
        pass: &JointPass,
    ) {
        // SAFETY: the tree's joints are reached by this block alone.
        let joint = |k: usize| unsafe { self.joints.get_mut(k) };
        let joints = self.trees[tree].clone();
        match work {
            JointWork::WarmStart { .. } => {
                for k in joints {
                    let joint = joint(k);
                    forget_rigid_impulses(joint);
                    warm_start_joint(joint, bodies);
                }
            }
            JointWork::Solve { .. } => {
                for _ in 0..TREE_ITERATIONS {
                    for k in joints.clone() {
                        solve_extras(joint(k), bodies, pass);
                    }
                    // SAFETY: as this function's contract.
                    unsafe { self.forest.solve_velocities(tree, &self.joints, bodies) };
                }
            }
            JointWork::Project { .. } => {
                for _ in 0..POSITION_PASSES {
                    let mut moved = false;
                    for k in joints.clone() {
                        moved |= project_extras(joint(k), bodies);
                    }
                    // SAFETY: as this function's contract.
                    moved |= unsafe { self.forest.solve_positions(tree, &self.joints, bodies) };
                    if !moved {
                        break;
                    }
                }
            }
        }
    }

    /// `work` on the bundles `range`, four joints at a time.
    ///
    /// # Safety
    /// As [`JointView::run`], the bundles `range` this block's alone.
    unsafe fn run_bundles(
        &self,
        work: JointWork,
        range: Range<usize>,
        states: &Shared<'_, D::BodyState>,
    ) {
        let lanes = StateLanes::<D>::new(states, self.body_count + 1);
        let mut moved = false;
        for index in range {
            // SAFETY: the bundle and its rows are this block's alone.
            let bundle = unsafe { self.bundles.get_mut(index) };
            let rows = unsafe { self.rows.get_mut(index) };
            // SAFETY: within a colour no two bundles, nor two lanes of one,
            // share a moving body; bodies that do not move are only read.
            unsafe {
                match work {
                    JointWork::Project { .. } => {
                        let mut a = lanes.motions(&bundle.body_a);
                        let mut b = lanes.motions(&bundle.body_b);
                        if bundle.project(&mut a, &mut b) {
                            lanes.set_motions(&bundle.body_a, &bundle.moves_a, &a);
                            lanes.set_motions(&bundle.body_b, &bundle.moves_b, &b);
                            moved = true;
                        }
                    }
                    JointWork::WarmStart { fresh } | JointWork::Solve { fresh } => {
                        if fresh {
                            let a = lanes.motions(&bundle.body_a);
                            let b = lanes.motions(&bundle.body_b);
                            *rows = bundle.rows(&a.turn, &b.turn);
                        }
                        let mut a = lanes.velocities(&bundle.body_a);
                        let mut b = lanes.velocities(&bundle.body_b);
                        if matches!(work, JointWork::WarmStart { .. }) {
                            bundle.warm_start(rows, &mut a, &mut b);
                        } else {
                            bundle.sweep(rows, &mut a, &mut b);
                        }
                        lanes.set_velocities(&bundle.body_a, &bundle.moves_a, &a);
                        lanes.set_velocities(&bundle.body_b, &bundle.moves_b, &b);
                    }
                }
            }
        }
        if let (JointWork::Project { pass }, true) = (work, moved) {
            self.moved[pass].store(true, Ordering::Relaxed);
        }
    }
}

/// The bodies' states as a joint stage reaches them, indexed as a slice.
pub(crate) struct States<'s, 'a, S> {
    shared: &'s Shared<'a, S>,
}

/// The solver's body states, as the joints reach them.
type Bodies<'s, 'a, D> = States<'s, 'a, <D as SolverDim>::BodyState>;

impl<'s, 'a, S> States<'s, 'a, S> {
    /// # Safety
    /// While the result lives, the states it is used to write are reached
    /// by nothing else, and those it reads are written by nothing else.
    unsafe fn new(shared: &'s Shared<'a, S>) -> Self {
        Self { shared }
    }
}

impl<S> Index<usize> for States<'_, '_, S> {
    type Output = S;
    fn index(&self, i: usize) -> &S {
        // SAFETY: by the contract of `States::new`.
        unsafe { self.shared.get(i) }
    }
}

impl<S> IndexMut<usize> for States<'_, '_, S> {
    fn index_mut(&mut self, i: usize) -> &mut S {
        // SAFETY: by the contract of `States::new`.
        unsafe { self.shared.get_mut(i) }
    }
}

/// A joint's accumulated impulses applied again.
fn warm_start_joint<D: JointDim>(joint: &mut Prepared<D>, states: &mut Bodies<D>) {
    let now = Now::of(joint, states);
    let (linear, angular) = totals(joint, &now);
    apply(joint, &now, states, linear, angular);
}

/// One sweep over a joint's rows.
fn solve_joint<D: JointDim>(joint: &mut Prepared<D>, states: &mut Bodies<D>, pass: &JointPass) {
    match joint.input.model {
        JointModel::Distance {
            length,
            min,
            max,
            spring,
        } => solve_distance(joint, states, pass, length, min, max, spring),
        JointModel::Revolute {
            limits,
            motor,
            spring,
            target,
        } => {
            let mut now = Now::of(joint, states);
            solve_hinge(joint, states, pass, &mut now, limits, motor, spring, target);
            solve_point(joint, states, pass, None, &mut now);
        }
        JointModel::Weld { linear, angular } => {
            let mut now = Now::of(joint, states);
            solve_weld_rotation(joint, states, pass, angular);
            solve_point(joint, states, pass, linear, &mut now);
        }
        JointModel::Spherical { cone, twist } => {
            let mut now = Now::of(joint, states);
            solve_ball_limits(joint, states, pass, cone, twist);
            solve_point(joint, states, pass, None, &mut now);
        }
        JointModel::Prismatic {
            limits,
            motor,
            spring,
            target,
        } => {
            solve_slide(joint, states, pass, limits, motor, spring, target);
            solve_weld_rotation(joint, states, pass, None);
            solve_across(joint, states);
        }
        JointModel::Wheel { spring, motor } => {
            match spring {
                Some(_) => solve_slide(joint, states, pass, None, None, spring, 0.0),
                None => solve_rigid_slide(joint, states),
            }
            solve_wheel_spin(joint, states, pass, motor);
            solve_across(joint, states);
        }
        JointModel::Motor {
            max_force,
            max_torque,
        } => solve_motor_joint(joint, states, pass, max_force, max_torque),
    }
}

/// One position pass over a joint: the bodies moved so that its rigid
/// parts hold (point, rod, hinge axes, weld rotation, limits passed), each
/// part off by less than [`LINEAR_TOLERANCE`] or [`ANGULAR_TOLERANCE`]
/// left alone; springs and motors are left alone. Whether it moved them.
fn project_joint<D: JointDim>(joint: &mut Prepared<D>, states: &mut Bodies<D>) -> bool {
    match joint.input.model {
        JointModel::Distance {
            length,
            min,
            max,
            spring,
        } => project_distance(joint, states, length, min, max, spring),
        JointModel::Revolute { limits, .. } => {
            let turned = project_hinge(joint, states, limits);
            project_point(joint, states) | turned
        }
        JointModel::Weld { linear, angular } => {
            let turned = angular.is_none() && project_weld_rotation(joint, states);
            (linear.is_none() && project_point(joint, states)) | turned
        }
        JointModel::Spherical { cone, twist } => {
            let turned = project_ball_limits(joint, states, cone, twist);
            project_point(joint, states) | turned
        }
        JointModel::Prismatic { limits, .. } => {
            let turned = project_weld_rotation(joint, states);
            project_across(joint, states, limits) | turned
        }
        JointModel::Wheel { spring, .. } => {
            let turned = project_hinge(joint, states, None);
            let hold = spring.is_none().then_some((0.0, 0.0));
            project_across(joint, states, hold) | turned
        }
        JointModel::Motor { .. } => false,
    }
}

/// What a rigid row's impulse adds to in a joint's accumulated impulses.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum RowTarget {
    /// `point`, along the row's linear direction.
    #[default]
    Point,
    /// `angular`, along the row's angular direction.
    Angular,
    /// `axial`.
    Axial,
}

/// The most rigid rows of one joint: a 3D weld's six.
pub(crate) const MAX_RIGID_ROWS: usize = 6;

/// One rigid row of a joint, where its bodies stand now: B gains (and A
/// loses) `linear` at lever arms `arm` and `angular`, per unit impulse.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct RigidRow<D: JointDim> {
    /// The linear direction (unit, or zero for an angular row).
    linear: D::Vector,
    /// The linear part's lever arms on A and B, world axes.
    arm: [D::Vector; 2],
    /// The angular direction (unit, or zero for a linear row).
    angular: D::AngularVector,
    /// The row's position error, metres or radians.
    error: f32,
    target: RowTarget,
}

/// A joint's rigid rows where its bodies stand `now`: the equalities a
/// joint tree holds exactly (`tree`), its other rows (limits, motors,
/// springs) left to [`solve_extras`] and [`project_extras`]. The same rows
/// as the joint's own Gauss-Seidel rows: the point as one row per world
/// axis, a hinge's axes, a weld's rotation per world axis, a slider's
/// or wheel's rows across its axis, a wheel's rigid slide, a rigid rod.
fn rigid_rows<D: JointDim>(
    joint: &Prepared<D>,
    now: &Now<D>,
) -> ([RigidRow<D>; MAX_RIGID_ROWS], usize) {
    let mut rows = [RigidRow::<D>::default(); MAX_RIGID_ROWS];
    let mut count = 0;
    let mut push = |row: RigidRow<D>| {
        if count < MAX_RIGID_ROWS {
            rows[count] = row;
            count += 1;
        }
    };
    let linear = |d: D::Vector, arm: [D::Vector; 2], error: f32, target: RowTarget| RigidRow {
        linear: d,
        arm,
        angular: D::AngularVector::default(),
        error,
        target,
    };
    let angular = |d: D::AngularVector, error: f32| RigidRow {
        linear: D::Vector::ZERO,
        arm: [D::Vector::ZERO; 2],
        angular: d,
        error,
        target: RowTarget::Angular,
    };
    let point = |push: &mut dyn FnMut(RigidRow<D>)| {
        for k in 0..D::N {
            let mut unit = Vec4::ZERO;
            unit[k] = 1.0;
            let e = D::Vector::from_word(unit);
            push(linear(e, now.arm, now.separation.dot(e), RowTarget::Point));
        }
    };
    let hinge = |push: &mut dyn FnMut(RigidRow<D>)| {
        let axis_b = D::turn_axis(now.rotation[1], joint.input.frame.axis_b);
        let (directions, count) = D::hinge_rows(now.axis_a, axis_b);
        for &(d, error) in &directions[..count] {
            push(angular(d, error));
        }
    };
    let rotation = |push: &mut dyn FnMut(RigidRow<D>)| {
        let error = now.held_turn(joint).to_word();
        for k in 0..D::N * (D::N - 1) / 2 {
            let mut unit = Vec4::ZERO;
            unit[k] = 1.0;
            push(angular(D::AngularVector::from_word(unit), error[k]));
        }
    };
    let across = |push: &mut dyn FnMut(RigidRow<D>)| {
        let (directions, count) = across::<D>(now.slide_axis(joint));
        let arms = [now.arm[0] + now.separation, now.arm[1]];
        for &d in &directions[..count] {
            push(linear(d, arms, now.separation.dot(d), RowTarget::Point));
        }
    };
    match joint.input.model {
        JointModel::Distance {
            length,
            min,
            max,
            spring,
        } if is_rod(min, max, spring) => {
            if let Some(u) = now.direction() {
                let error = now.separation.length() - length;
                push(linear(u, now.arm, error, RowTarget::Axial));
            }
        }
        JointModel::Distance { .. } | JointModel::Motor { .. } => {}
        JointModel::Revolute { .. } => {
            point(&mut push);
            hinge(&mut push);
        }
        JointModel::Spherical { .. } => point(&mut push),
        JointModel::Weld {
            linear: spring_l,
            angular: spring_a,
        } => {
            if spring_l.is_none() {
                point(&mut push);
            }
            if spring_a.is_none() {
                rotation(&mut push);
            }
        }
        JointModel::Prismatic { .. } => {
            rotation(&mut push);
            across(&mut push);
        }
        JointModel::Wheel { spring, .. } => {
            hinge(&mut push);
            across(&mut push);
            if spring.is_none() {
                let axis = now.slide_axis(joint);
                let arms = [now.arm[0] + now.separation, now.arm[1]];
                push(linear(axis, arms, now.translation(joint), RowTarget::Axial));
            }
        }
    }
    (rows, count)
}

/// Whether a distance joint of range `min..=max` and `spring` is a rigid
/// rod.
fn is_rod(min: f32, max: f32, spring: Option<Spring>) -> bool {
    spring.is_none() && min >= max
}

/// A tree joint's rigid rows' accumulated impulses set to zero before a
/// substep: the direct solve finds them whole from any start, so a warm
/// start would only add and take away the same impulse. Where a row is
/// nearly served by a part of the tree that cannot move (a bridge pinned
/// at both ends), that impulse is large, and adding it to the bodies'
/// f32 velocities and taking it away again leaves its rounding behind:
/// rope_bridge_3d's planks flew apart.
fn forget_rigid_impulses<D: JointDim>(joint: &mut Prepared<D>) {
    let impulses = &mut joint.input.impulses;
    let (point, angular, axial) = match joint.input.model {
        JointModel::Distance {
            min, max, spring, ..
        } => (false, false, is_rod(min, max, spring)),
        JointModel::Revolute { .. } | JointModel::Prismatic { .. } => (true, true, false),
        JointModel::Spherical { .. } => (true, false, false),
        JointModel::Weld { linear, angular } => (linear.is_none(), angular.is_none(), false),
        JointModel::Wheel { spring, .. } => (true, true, spring.is_none()),
        JointModel::Motor { .. } => (false, false, false),
    };
    if point {
        impulses.point = D::Vector::ZERO;
    }
    if angular {
        impulses.angular = D::AngularVector::default();
    }
    if axial {
        impulses.axial = 0.0;
    }
}

/// One sweep over a tree joint's rows that are not rigid (limits, motors,
/// springs; a rope's range), the rigid ones left to the tree's solve.
fn solve_extras<D: JointDim>(joint: &mut Prepared<D>, states: &mut Bodies<D>, pass: &JointPass) {
    match joint.input.model {
        JointModel::Distance {
            length,
            min,
            max,
            spring,
        } => {
            if !is_rod(min, max, spring) {
                solve_distance(joint, states, pass, length, min, max, spring);
            }
        }
        JointModel::Revolute {
            limits,
            motor,
            spring,
            target,
        } => {
            let mut now = Now::of(joint, states);
            solve_hinge_axis(joint, states, pass, &mut now, limits, motor, spring, target);
        }
        JointModel::Weld { linear, angular } => {
            if angular.is_some() {
                solve_weld_rotation(joint, states, pass, angular);
            }
            if linear.is_some() {
                let mut now = Now::of(joint, states);
                solve_point(joint, states, pass, linear, &mut now);
            }
        }
        JointModel::Spherical { cone, twist } => {
            solve_ball_limits(joint, states, pass, cone, twist)
        }
        JointModel::Prismatic {
            limits,
            motor,
            spring,
            target,
        } => solve_slide(joint, states, pass, limits, motor, spring, target),
        JointModel::Wheel { spring, motor } => {
            if spring.is_some() {
                solve_slide(joint, states, pass, None, None, spring, 0.0);
            }
            solve_wheel_motor(joint, states, pass, motor);
        }
        JointModel::Motor {
            max_force,
            max_torque,
        } => solve_motor_joint(joint, states, pass, max_force, max_torque),
    }
}

/// One position pass over a tree joint's limits (a rope's range, a
/// hinge's, a ball joint's cone and twist, a slider's), the rigid rows
/// left to the tree's solve; whether it moved the bodies.
fn project_extras<D: JointDim>(joint: &mut Prepared<D>, states: &mut Bodies<D>) -> bool {
    match joint.input.model {
        JointModel::Distance {
            length,
            min,
            max,
            spring,
        } => !is_rod(min, max, spring) && project_distance(joint, states, length, min, max, spring),
        JointModel::Revolute { limits, .. } => project_hinge_limits(joint, states, limits),
        JointModel::Spherical { cone, twist } => project_ball_limits(joint, states, cone, twist),
        JointModel::Prismatic { limits, .. } => project_slide_limits(joint, states, limits),
        JointModel::Weld { .. } | JointModel::Wheel { .. } | JointModel::Motor { .. } => false,
    }
}

/// Where a joint's bodies are now, within the substep loop.
struct Now<D: JointDim> {
    /// Lever arms now, world axes.
    arm: [D::Vector; 2],
    /// Rotations now.
    rotation: [D::Rotation; 2],
    /// Anchor B less anchor A, metres.
    separation: D::Vector,
    /// Velocities now.
    linear: [D::Vector; 2],
    angular: [D::AngularVector; 2],
    /// The hinge axis on A now (unit).
    axis_a: D::AngularVector,
}

impl<D: JointDim> Now<D> {
    fn of<S: Index<usize, Output = D::BodyState> + ?Sized>(
        joint: &Prepared<D>,
        states: &S,
    ) -> Self {
        let [a, b] = joint.input.bodies;
        let ((va, wa), (vb, wb)) = (states[a].velocities(), states[b].velocities());
        let ((da, ta), (db, tb)) = (states[a].motion(), states[b].motion());
        let arm = [D::rotate(ta, joint.arm[0]), D::rotate(tb, joint.arm[1])];
        let rotation = [
            D::turn_by(joint.rotation[0], ta),
            D::turn_by(joint.rotation[1], tb),
        ];
        let separation = joint.centres + db - da + arm[1] - arm[0];
        Self {
            arm,
            rotation,
            separation,
            linear: [va, vb],
            angular: [wa, wb],
            axis_a: D::turn_axis(rotation[0], joint.input.frame.axis_a),
        }
    }

    /// The bodies' velocities read again (after an impulse): the poses do
    /// not change within a pass, only the velocities.
    fn read_velocities(&mut self, joint: &Prepared<D>, states: &Bodies<D>) {
        let [a, b] = joint.input.bodies;
        let ((va, wa), (vb, wb)) = (states[a].velocities(), states[b].velocities());
        self.linear = [va, vb];
        self.angular = [wa, wb];
    }

    /// The unit direction from anchor A to anchor B, if they are apart.
    fn direction(&self) -> Option<D::Vector> {
        let length = self.separation.length();
        (length > f32::EPSILON).then(|| self.separation * (1.0 / length))
    }

    /// The hinge axis, world, as the angular rows turn about it.
    fn hinge_axis(&self) -> D::AngularVector {
        self.axis_a
    }

    /// The relative velocity of anchor B against anchor A.
    fn point_velocity(&self) -> D::Vector {
        self.velocity_at(self.arm)
    }

    /// The velocity of the point at arm `arm[1]` on B relative to the point
    /// at arm `arm[0]` on A.
    fn velocity_at(&self, arm: [D::Vector; 2]) -> D::Vector {
        self.linear[1] + D::angular_cross(self.angular[1], arm[1])
            - self.linear[0]
            - D::angular_cross(self.angular[0], arm[0])
    }

    /// A slider's or wheel's axis on A now (unit, world).
    fn slide_axis(&self, joint: &Prepared<D>) -> D::Vector {
        D::rotate(self.rotation[0], joint.input.frame.slide_a)
    }

    /// How far anchor B lies along the slide axis from anchor A, metres.
    fn translation(&self, joint: &Prepared<D>) -> f32 {
        self.separation.dot(self.slide_axis(joint))
    }

    /// How far B has turned off the rotation relative to A the joint holds
    /// it at (a weld's, a slider's, a motor joint's), world rotation vector.
    fn held_turn(&self, joint: &Prepared<D>) -> D::AngularVector {
        let held = D::compose(self.rotation[0], joint.input.frame.reference);
        D::angular_velocity_between(held, self.rotation[1], 1.0)
    }

    /// B's spin relative to A's.
    fn relative_spin(&self) -> D::AngularVector {
        self.angular[1] - self.angular[0]
    }

    /// The hinge angle: B's turn relative to A's since the joint was made,
    /// about the hinge axis.
    fn hinge_angle(&self, frame: &JointFrame<D>) -> f32 {
        let relative = D::compose(D::invert(self.rotation[0]), self.rotation[1]);
        let turned = D::compose(relative, D::invert(frame.reference));
        D::twist(turned, frame.axis_a)
    }
}

/// A joint's accumulated impulses as one linear impulse on the anchors and
/// one angular impulse, world axes: what warm starting applies, and over
/// the substep the joint's reaction.
fn totals<D: JointDim>(joint: &Prepared<D>, now: &Now<D>) -> (D::Vector, D::AngularVector) {
    let i = joint.input.impulses;
    let (mut linear, mut angular) = (i.point, i.angular);
    match joint.input.model {
        JointModel::Distance { .. } => {
            if let Some(u) = now.direction() {
                linear += u * (i.axial + i.lower - i.upper);
            }
        }
        JointModel::Revolute { .. } => {
            angular += now.hinge_axis() * (i.axial + i.motor + i.lower - i.upper);
        }
        JointModel::Prismatic { .. } => {
            linear += now.slide_axis(joint) * (i.axial + i.motor + i.lower - i.upper);
        }
        JointModel::Wheel { .. } => {
            linear += now.slide_axis(joint) * i.axial;
            angular += now.hinge_axis() * i.motor;
        }
        JointModel::Spherical { .. } => {
            if let Some((_, direction)) = swing(joint, now) {
                angular -= direction * i.upper;
            }
            let (_, about) = twist(joint, now);
            angular += about * (i.lower - i.axial);
        }
        JointModel::Weld { .. } | JointModel::Motor { .. } => {}
    }
    (linear, angular)
}

/// A linear impulse `linear` on the anchors (B gains it, A loses it) and
/// an angular one `angular` (likewise), into the bodies' velocities.
fn apply<D: JointDim>(
    joint: &Prepared<D>,
    now: &Now<D>,
    states: &mut Bodies<D>,
    linear: D::Vector,
    angular: D::AngularVector,
) {
    apply_at(joint, now.arm, states, linear, angular);
}

/// [`apply`] with the linear impulse at lever arms `arm`.
fn apply_at<D: JointDim>(
    joint: &Prepared<D>,
    arm: [D::Vector; 2],
    states: &mut Bodies<D>,
    linear: D::Vector,
    angular: D::AngularVector,
) {
    let now_arm = arm;
    let [a, b] = joint.input.bodies;
    let [ma, mb] = joint.inv_mass;
    let [ia, ib] = joint.inv_inertia;
    // A body that does not move is only read (another colour's joints may
    // read it at the same time).
    if ma > 0.0 {
        let (va, wa) = states[a].velocities();
        states[a].set_velocities(
            va - linear * ma,
            wa - D::mul_inertia(ia, D::cross(now_arm[0], linear) + angular),
        );
    }
    if mb > 0.0 {
        let (vb, wb) = states[b].velocities();
        states[b].set_velocities(
            vb + linear * mb,
            wb + D::mul_inertia(ib, D::cross(now_arm[1], linear) + angular),
        );
    }
}

/// A spring's softness over one substep.
fn spring_softness(spring: Spring, pass: &JointPass) -> Softness {
    Softness::new(spring.hertz, spring.damping_ratio, pass.h)
}

impl JointPass {
    /// The bias rate, mass scale and impulse scale of a row held rigidly
    /// (`spring` none: no push, the position passes correct the drift) or
    /// by a spring (its own softness, Box2D v3's soft constraint).
    fn scales(&self, spring: Option<Spring>) -> (f32, f32, f32) {
        match spring {
            Some(s) => {
                let soft = spring_softness(s, self);
                (soft.bias_rate, soft.mass_scale, soft.impulse_scale)
            }
            None => (0.0, 1.0, 0.0),
        }
    }
}

/// The effective mass of the angular block that holds B's rotation to
/// A's: the inverse of the two inverse inertias summed.
fn rotation_mass<D: JointDim>(joint: &Prepared<D>) -> D::Inertia {
    let [ia, ib] = joint.inv_inertia;
    D::invert_inertia(D::add_inertia(ia, ib))
}

/// The effective mass of an angular row about `axis`.
fn angular_mass<D: JointDim>(joint: &Prepared<D>, axis: D::AngularVector) -> f32 {
    let [ia, ib] = joint.inv_inertia;
    let k = D::mul_inertia(ia, axis).dot(axis) + D::mul_inertia(ib, axis).dot(axis);
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// The effective mass of a linear row along unit `u` at the joint's arms.
fn linear_mass<D: JointDim>(joint: &Prepared<D>, now: &Now<D>, u: D::Vector) -> f32 {
    linear_mass_at(joint, now.arm, u)
}

/// [`linear_mass`] at lever arms `arm`.
fn linear_mass_at<D: JointDim>(joint: &Prepared<D>, arm: [D::Vector; 2], u: D::Vector) -> f32 {
    let [ma, mb] = joint.inv_mass;
    let [ia, ib] = joint.inv_inertia;
    let (ra, rb) = (D::cross(arm[0], u), D::cross(arm[1], u));
    let k = ma + mb + D::mul_inertia(ia, ra).dot(ra) + D::mul_inertia(ib, rb).dot(rb);
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// One row's impulse with scales `(bias_rate, mass_scale, impulse_scale)`
/// (Box2D v3's soft constraint): `-mass · mass_scale · (speed + bias_rate ·
/// error) - impulse_scale · accumulated`.
fn row_impulse(
    mass: f32,
    speed: f32,
    error: f32,
    scales: (f32, f32, f32),
    accumulated: f32,
) -> f32 {
    let (bias_rate, mass_scale, impulse_scale) = scales;
    -mass * mass_scale * (speed + bias_rate * error) - impulse_scale * accumulated
}

/// A one-sided row (a limit): `error` >= 0 is the room left; while apart
/// the row only stops the bodies crossing within the substep (speculative,
/// as contacts), and a limit passed is held rigidly (the position passes
/// bring it back); the accumulated impulse stays >= 0.
fn limit_row(mass: f32, speed: f32, error: f32, pass: &JointPass, accumulated: &mut f32) -> f32 {
    let bias = if error > 0.0 { error / pass.h } else { 0.0 };
    let total = (*accumulated - mass * (speed + bias)).max(0.0);
    let applied = total - *accumulated;
    *accumulated = total;
    applied
}

/// The point rows: anchor B on anchor A, as one block, rigid or soft
/// (`spring`).
fn solve_point<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    spring: Option<Spring>,
    now: &mut Now<D>,
) {
    now.read_velocities(joint, states);
    let (bias_rate, mass_scale, impulse_scale) = pass.scales(spring);
    let rhs = now.point_velocity() + now.separation * bias_rate;
    let solved = point_block(joint, now, rhs);
    let accumulated = joint.input.impulses.point;
    let impulse = -solved * mass_scale - accumulated * impulse_scale;
    joint.input.impulses.point = accumulated + impulse;
    apply(joint, now, states, impulse, D::AngularVector::default());
}

/// The point impulse `x` with `K x = rhs` at the joint's arms now.
fn point_block<D: JointDim>(joint: &Prepared<D>, now: &Now<D>, rhs: D::Vector) -> D::Vector {
    let [ma, mb] = joint.inv_mass;
    D::solve_point_block(ma + mb, joint.inv_inertia, now.arm, rhs)
}

/// A distance joint's rows along the anchors' line: a rigid rod, or a
/// spring; then its limits.
fn solve_distance<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    length: f32,
    min: f32,
    max: f32,
    spring: Option<Spring>,
) {
    let mut now = Now::of(joint, states);
    let Some(u) = now.direction() else {
        return;
    };
    let current = now.separation.length();
    let mass = linear_mass(joint, &now, u);
    let speed = now.point_velocity().dot(u);
    let rigid = is_rod(min, max, spring);
    let impulse = if rigid || spring.is_some() {
        let i = row_impulse(
            mass,
            speed,
            current - length,
            pass.scales(spring),
            joint.input.impulses.axial,
        );
        joint.input.impulses.axial += i;
        i
    } else {
        0.0
    };
    apply(
        joint,
        &now,
        states,
        u * impulse,
        D::AngularVector::default(),
    );
    if rigid {
        return;
    }
    now.read_velocities(joint, states);
    let speed = now.point_velocity().dot(u);
    let lower = limit_row(
        mass,
        speed,
        current - min,
        pass,
        &mut joint.input.impulses.lower,
    );
    apply(joint, &now, states, u * lower, D::AngularVector::default());
    now.read_velocities(joint, states);
    let speed = -now.point_velocity().dot(u);
    let upper = limit_row(
        mass,
        speed,
        max - current,
        pass,
        &mut joint.input.impulses.upper,
    );
    apply(joint, &now, states, u * -upper, D::AngularVector::default());
}

/// A hinge's angular rows: the axes kept together (3D), then the spring,
/// the motor and the limits about the axis.
#[allow(clippy::too_many_arguments)]
fn solve_hinge<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    now: &mut Now<D>,
    limits: Option<(f32, f32)>,
    motor: Option<Motor>,
    spring: Option<Spring>,
    target: f32,
) {
    solve_hinge_alignment(joint, states, pass, now);
    solve_hinge_axis(joint, states, pass, now, limits, motor, spring, target);
}

/// A hinge's axes kept together (3D; nothing in 2D).
fn solve_hinge_alignment<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    now: &mut Now<D>,
) {
    let frame = joint.input.frame;
    // The poses are as `now` read them: they do not change within a pass.
    now.read_velocities(joint, states);
    let axis_b = D::turn_axis(now.rotation[1], frame.axis_b);
    let (rows, count) = D::hinge_rows(now.axis_a, axis_b);
    for &(direction, error) in &rows[..count] {
        now.read_velocities(joint, states);
        let mass = angular_mass(joint, direction);
        let speed = now.relative_spin().dot(direction);
        let accumulated = joint.input.impulses.angular.dot(direction);
        let i = row_impulse(mass, speed, error, pass.scales(None), accumulated);
        joint.input.impulses.angular += direction * i;
        apply(joint, now, states, D::Vector::ZERO, direction * i);
    }
}

/// A hinge's spring, motor and limits about its axis.
#[allow(clippy::too_many_arguments)]
fn solve_hinge_axis<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    now: &mut Now<D>,
    limits: Option<(f32, f32)>,
    motor: Option<Motor>,
    spring: Option<Spring>,
    target: f32,
) {
    if spring.is_none() && motor.is_none() && limits.is_none() {
        return;
    }
    let frame = joint.input.frame;
    let axis = now.hinge_axis();
    let mass = angular_mass(joint, axis);
    let angle = now.hinge_angle(&frame);
    if let Some(s) = spring {
        now.read_velocities(joint, states);
        let speed = now.relative_spin().dot(axis);
        let i = row_impulse(
            mass,
            speed,
            angle - target,
            pass.scales(Some(s)),
            joint.input.impulses.axial,
        );
        joint.input.impulses.axial += i;
        apply(joint, now, states, D::Vector::ZERO, axis * i);
    }
    if let Some(m) = motor {
        now.read_velocities(joint, states);
        let speed = now.relative_spin().dot(axis) - m.speed;
        let limit = m.max_effort * pass.h;
        let old = joint.input.impulses.motor;
        let total = (old - mass * speed).clamp(-limit, limit);
        joint.input.impulses.motor = total;
        apply(joint, now, states, D::Vector::ZERO, axis * (total - old));
    }
    if let Some(range) = limits {
        let i = joint.input.impulses;
        let row = AngleRow { axis, mass, angle };
        let held = solve_angle_limits(joint, states, now, pass, &row, range, (i.lower, i.upper));
        (joint.input.impulses.lower, joint.input.impulses.upper) = held;
    }
}

/// An angle about a unit axis, with the effective mass of a row about it.
struct AngleRow<D: JointDim> {
    axis: D::AngularVector,
    mass: f32,
    /// The angle now, radians.
    angle: f32,
}

/// Two one-sided rows keeping `row.angle` within `lower..=upper` (a hinge's
/// limits, a ball joint's twist), from the accumulated impulses `held`
/// (lower, upper); the impulses after.
fn solve_angle_limits<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    now: &mut Now<D>,
    pass: &JointPass,
    row: &AngleRow<D>,
    (lower, upper): (f32, f32),
    mut held: (f32, f32),
) -> (f32, f32) {
    now.read_velocities(joint, states);
    let speed = now.relative_spin().dot(row.axis);
    let i = limit_row(row.mass, speed, row.angle - lower, pass, &mut held.0);
    apply(joint, now, states, D::Vector::ZERO, row.axis * i);
    now.read_velocities(joint, states);
    let speed = -now.relative_spin().dot(row.axis);
    let i = limit_row(row.mass, speed, upper - row.angle, pass, &mut held.1);
    apply(joint, now, states, D::Vector::ZERO, row.axis * -i);
    held
}

/// A weld's rotation: B's turn relative to A's held at the reference, as
/// one block, rigid or soft (`spring`).
fn solve_weld_rotation<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    spring: Option<Spring>,
) {
    let now = Now::of(joint, states);
    let (bias_rate, mass_scale, impulse_scale) = pass.scales(spring);
    // How far B has turned off the rotation the weld holds it at.
    let error = now.held_turn(joint);
    let rhs = now.relative_spin() + error * bias_rate;
    let mass = rotation_mass(joint);
    let accumulated = joint.input.impulses.angular;
    let impulse = -D::mul_inertia(mass, rhs) * mass_scale - accumulated * impulse_scale;
    joint.input.impulses.angular = accumulated + impulse;
    apply(joint, &now, states, D::Vector::ZERO, impulse);
}

/// A position correction: `linear` on the anchors and `angular` on the
/// bodies, as an impulse would be shared by the inverse masses, applied to
/// the poses (B gains, A loses).
fn nudge<D: JointDim>(
    joint: &Prepared<D>,
    now: &Now<D>,
    states: &mut Bodies<D>,
    linear: D::Vector,
    angular: D::AngularVector,
) {
    let [a, b] = joint.input.bodies;
    let [ma, mb] = joint.inv_mass;
    let [ia, ib] = joint.inv_inertia;
    // As in `apply_at`: a body that does not move is only read.
    if ma > 0.0 {
        states[a].nudge(
            -linear * ma,
            -D::mul_inertia(ia, D::cross(now.arm[0], linear) + angular),
        );
    }
    if mb > 0.0 {
        states[b].nudge(
            linear * mb,
            D::mul_inertia(ib, D::cross(now.arm[1], linear) + angular),
        );
    }
}

/// `v` shortened to at most `most`.
fn at_most<V: Vector>(v: V, most: f32) -> V {
    let length = v.length();
    if length > most {
        v * (most / length)
    } else {
        v
    }
}

/// The anchors brought together; whether they were apart.
fn project_point<D: JointDim>(joint: &Prepared<D>, states: &mut Bodies<D>) -> bool {
    let now = Now::of(joint, states);
    if now.separation.length() < LINEAR_TOLERANCE {
        return false;
    }
    let error = at_most(now.separation, MAX_LINEAR_CORRECTION);
    let shift = -point_block(joint, &now, error);
    nudge(joint, &now, states, shift, D::AngularVector::default());
    true
}

/// A rod's length restored, or a rope's or spring's range where passed;
/// whether it was off.
fn project_distance<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    length: f32,
    min: f32,
    max: f32,
    spring: Option<Spring>,
) -> bool {
    let now = Now::of(joint, states);
    let Some(u) = now.direction() else {
        return false;
    };
    let current = now.separation.length();
    let error = if is_rod(min, max, spring) {
        current - length
    } else if current < min {
        current - min
    } else if current > max {
        current - max
    } else {
        return false;
    };
    if error.abs() < LINEAR_TOLERANCE {
        return false;
    }
    let error = error.clamp(-MAX_LINEAR_CORRECTION, MAX_LINEAR_CORRECTION);
    let shift = u * (-linear_mass(joint, &now, u) * error);
    nudge(joint, &now, states, shift, D::AngularVector::default());
    true
}

/// A hinge's axes brought together (3D), and its angle back within its
/// limits; whether either was off.
fn project_hinge<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    limits: Option<(f32, f32)>,
) -> bool {
    let frame = joint.input.frame;
    let now = Now::of(joint, states);
    let axis_b = D::turn_axis(now.rotation[1], frame.axis_b);
    let (rows, count) = D::hinge_rows(now.axis_a, axis_b);
    let mut moved = false;
    for &(direction, error) in &rows[..count] {
        moved |= turn_out(joint, states, direction, error);
    }
    moved | project_hinge_limits(joint, states, limits)
}

/// A hinge's angle brought back within its limits; whether it was off.
fn project_hinge_limits<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    limits: Option<(f32, f32)>,
) -> bool {
    let Some(limits) = limits else {
        return false;
    };
    let now = Now::of(joint, states);
    let error = beyond_limits(limits, now.hinge_angle(&joint.input.frame));
    turn_out(joint, states, now.hinge_axis(), error)
}

/// How far `angle` lies beyond `lower..=upper`, radians: negative below,
/// positive above, zero within.
fn beyond_limits((lower, upper): (f32, f32), angle: f32) -> f32 {
    if angle < lower {
        angle - lower
    } else if angle > upper {
        angle - upper
    } else {
        0.0
    }
}

/// Turns a joint's bodies about unit `axis` (world) to take out `error`
/// radians, at most [`MAX_ANGULAR_CORRECTION`] a pass; false, moving
/// nothing, while the error is within [`ANGULAR_TOLERANCE`]. The one
/// angular step of every position pass (hinge axes, hinge limits, cones,
/// twists).
fn turn_out<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    axis: D::AngularVector,
    error: f32,
) -> bool {
    if error.abs() < ANGULAR_TOLERANCE {
        return false;
    }
    let error = error.clamp(-MAX_ANGULAR_CORRECTION, MAX_ANGULAR_CORRECTION);
    let now = Now::of(joint, states);
    let turn = axis * (-angular_mass(joint, axis) * error);
    nudge(joint, &now, states, D::Vector::ZERO, turn);
    true
}

/// A rigid weld's rotation restored; whether it was off.
fn project_weld_rotation<D: JointDim>(joint: &Prepared<D>, states: &mut Bodies<D>) -> bool {
    let now = Now::of(joint, states);
    let error = now.held_turn(joint);
    if error.dot(error).sqrt() < ANGULAR_TOLERANCE {
        return false;
    }
    let mass = rotation_mass(joint);
    let turn = -D::mul_inertia(mass, error);
    let size = turn.dot(turn).sqrt();
    let turn = if size > MAX_ANGULAR_CORRECTION {
        turn * (MAX_ANGULAR_CORRECTION / size)
    } else {
        turn
    };
    nudge(joint, &now, states, D::Vector::ZERO, turn);
    true
}

/// A linear row along unit `d` between the point of A under anchor B
/// (A's arm stretched by the separation, as Box2D's prismatic joint) and
/// anchor B: its effective mass and the relative speed along it.
fn slide_row<D: JointDim>(
    joint: &Prepared<D>,
    now: &Now<D>,
    d: D::Vector,
) -> (f32, f32, [D::Vector; 2]) {
    let arms = [now.arm[0] + now.separation, now.arm[1]];
    let mass = linear_mass_at(joint, arms, d);
    (mass, now.velocity_at(arms).dot(d), arms)
}

/// `impulse` along `d` at the slide row's arms (B gains, A loses).
fn apply_slide<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    arms: [D::Vector; 2],
    d: D::Vector,
    impulse: f32,
) {
    apply_at(
        joint,
        arms,
        states,
        d * impulse,
        D::AngularVector::default(),
    );
}

/// Directions across unit `axis`: one in 2D, two in 3D.
fn across<D: JointDim>(axis: D::Vector) -> ([D::Vector; 2], usize) {
    (D::tangents(axis), D::TANGENTS)
}

/// A slider's or wheel's rows across its axis: anchor B kept on A's axis
/// (rigid, no push: the position passes correct the drift).
fn solve_across<D: JointDim>(joint: &mut Prepared<D>, states: &mut Bodies<D>) {
    let mut now = Now::of(joint, states);
    let (directions, count) = across::<D>(now.slide_axis(joint));
    for &d in &directions[..count] {
        now.read_velocities(joint, states);
        let (mass, speed, arms) = slide_row(joint, &now, d);
        let impulse = -mass * speed;
        joint.input.impulses.point += d * impulse;
        apply_slide(joint, states, arms, d, impulse);
    }
}

/// A slider's or wheel's rows along its axis: spring, drive, limits.
fn solve_slide<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    limits: Option<(f32, f32)>,
    motor: Option<Motor>,
    spring: Option<Spring>,
    target: f32,
) {
    let mut now = Now::of(joint, states);
    let axis = now.slide_axis(joint);
    let translation = now.translation(joint);
    if let Some(s) = spring {
        now.read_velocities(joint, states);
        let (mass, speed, arms) = slide_row(joint, &now, axis);
        let i = row_impulse(
            mass,
            speed,
            translation - target,
            pass.scales(Some(s)),
            joint.input.impulses.axial,
        );
        joint.input.impulses.axial += i;
        apply_slide(joint, states, arms, axis, i);
    }
    if let Some(m) = motor {
        now.read_velocities(joint, states);
        let (mass, speed, arms) = slide_row(joint, &now, axis);
        let limit = m.max_effort * pass.h;
        let old = joint.input.impulses.motor;
        let total = (old - mass * (speed - m.speed)).clamp(-limit, limit);
        joint.input.impulses.motor = total;
        apply_slide(joint, states, arms, axis, total - old);
    }
    if let Some((lower, upper)) = limits {
        now.read_velocities(joint, states);
        let (mass, speed, arms) = slide_row(joint, &now, axis);
        let i = limit_row(
            mass,
            speed,
            translation - lower,
            pass,
            &mut joint.input.impulses.lower,
        );
        apply_slide(joint, states, arms, axis, i);
        now.read_velocities(joint, states);
        let (mass, speed, arms) = slide_row(joint, &now, axis);
        let i = limit_row(
            mass,
            -speed,
            upper - translation,
            pass,
            &mut joint.input.impulses.upper,
        );
        apply_slide(joint, states, arms, axis, -i);
    }
}

/// A wheel without a spring: anchor B held on anchor A along the axis too.
fn solve_rigid_slide<D: JointDim>(joint: &mut Prepared<D>, states: &mut Bodies<D>) {
    let now = Now::of(joint, states);
    let axis = now.slide_axis(joint);
    let (mass, speed, arms) = slide_row(joint, &now, axis);
    let impulse = -mass * speed;
    joint.input.impulses.axial += impulse;
    apply_slide(joint, states, arms, axis, impulse);
}

/// A wheel's axle kept on its axis (3D) and its drive.
fn solve_wheel_spin<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    motor: Option<Motor>,
) {
    let mut now = Now::of(joint, states);
    solve_hinge_alignment(joint, states, pass, &mut now);
    solve_wheel_motor(joint, states, pass, motor);
}

/// A wheel's drive on its spin.
fn solve_wheel_motor<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    motor: Option<Motor>,
) {
    if let Some(m) = motor {
        let now = Now::of(joint, states);
        let axis = now.hinge_axis();
        let mass = angular_mass(joint, axis);
        let speed = now.relative_spin().dot(axis) - m.speed;
        let limit = m.max_effort * pass.h;
        let old = joint.input.impulses.motor;
        let total = (old - mass * speed).clamp(-limit, limit);
        joint.input.impulses.motor = total;
        apply(joint, &now, states, D::Vector::ZERO, axis * (total - old));
    }
}

/// A motor joint: B's relative velocity driven to close its offset from
/// the held pose, a share [`MOTOR_CORRECTION`] per substep, within the
/// joint's force and torque.
fn solve_motor_joint<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    max_force: f32,
    max_torque: f32,
) {
    let rate = MOTOR_CORRECTION / pass.h;
    let mut now = Now::of(joint, states);
    let error = now.held_turn(joint);
    let mass = rotation_mass(joint);
    let old = joint.input.impulses.angular;
    let mut total = old - D::mul_inertia(mass, now.relative_spin() + error * rate);
    let size = total.dot(total).sqrt();
    let most = max_torque * pass.h;
    if size > most {
        total = total * (most / size);
    }
    joint.input.impulses.angular = total;
    apply(joint, &now, states, D::Vector::ZERO, total - old);
    now.read_velocities(joint, states);
    let rhs = now.point_velocity() + now.separation * rate;
    let old = joint.input.impulses.point;
    let total = at_most(old - point_block(joint, &now, rhs), max_force * pass.h);
    joint.input.impulses.point = total;
    apply(
        joint,
        &now,
        states,
        total - old,
        D::AngularVector::default(),
    );
}

/// A slider's or wheel's anchor B brought back onto A's axis, and a
/// slider's translation back within its limits; whether either was off.
fn project_across<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    limits: Option<(f32, f32)>,
) -> bool {
    let now = Now::of(joint, states);
    let axis = now.slide_axis(joint);
    let (directions, count) = across::<D>(axis);
    let mut off = false;
    for &d in &directions[..count] {
        let now = Now::of(joint, states);
        let error = now.separation.dot(d);
        if error.abs() < LINEAR_TOLERANCE {
            continue;
        }
        off = true;
        let error = error.clamp(-MAX_LINEAR_CORRECTION, MAX_LINEAR_CORRECTION);
        let (mass, _, arms) = slide_row(joint, &now, d);
        let moved = Now::<D> { arm: arms, ..now };
        nudge(
            joint,
            &moved,
            states,
            d * (-mass * error),
            D::AngularVector::default(),
        );
    }
    off | project_slide_limits(joint, states, limits)
}

/// A slider's translation brought back within its limits; whether it was
/// off.
fn project_slide_limits<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    limits: Option<(f32, f32)>,
) -> bool {
    let Some((lower, upper)) = limits else {
        return false;
    };
    let now = Now::of(joint, states);
    let axis = now.slide_axis(joint);
    let translation = now.translation(joint);
    let error = if translation < lower {
        translation - lower
    } else if translation > upper {
        translation - upper
    } else {
        return false;
    };
    if error.abs() < LINEAR_TOLERANCE {
        return false;
    }
    let error = error.clamp(-MAX_LINEAR_CORRECTION, MAX_LINEAR_CORRECTION);
    let (mass, _, arms) = slide_row(joint, &now, axis);
    let moved = Now::<D> { arm: arms, ..now };
    nudge(
        joint,
        &moved,
        states,
        axis * (-mass * error),
        D::AngularVector::default(),
    );
    true
}

/// A ball joint's swing (the angle between the twist axes) and the unit
/// direction about which more turn of B swings it further; `None` while
/// the axes are aligned.
fn swing<D: JointDim>(joint: &Prepared<D>, now: &Now<D>) -> Option<(f32, D::AngularVector)> {
    let axis_b = D::turn_axis(now.rotation[1], joint.input.frame.axis_b);
    D::swing(now.axis_a, axis_b)
}

/// The twist of a ball joint about the mean of its axes, and that axis.
fn twist<D: JointDim>(joint: &Prepared<D>, now: &Now<D>) -> (f32, D::AngularVector) {
    let frame = &joint.input.frame;
    let axis_b = D::turn_axis(now.rotation[1], frame.axis_b);
    let about = D::unit_axis(now.axis_a + axis_b).unwrap_or(now.axis_a);
    (now.hinge_angle(frame), about)
}

/// A ball joint's cone and twist limits: one-sided angular rows.
fn solve_ball_limits<D: JointDim>(
    joint: &mut Prepared<D>,
    states: &mut Bodies<D>,
    pass: &JointPass,
    cone: Option<f32>,
    twist_limits: Option<(f32, f32)>,
) {
    if cone.is_none() && twist_limits.is_none() {
        return;
    }
    let mut now = Now::of(joint, states);
    if let Some(cone) = cone {
        if let Some((angle, direction)) = swing(joint, &now) {
            let mass = angular_mass(joint, direction);
            let speed = -now.relative_spin().dot(direction);
            // The cone's row keeps its impulse in `upper`.
            let i = limit_row(
                mass,
                speed,
                cone - angle,
                pass,
                &mut joint.input.impulses.upper,
            );
            apply(joint, &now, states, D::Vector::ZERO, direction * -i);
        }
    }
    if let Some(range) = twist_limits {
        let (angle, axis) = twist(joint, &now);
        let row = AngleRow {
            axis,
            mass: angular_mass(joint, axis),
            angle,
        };
        let i = joint.input.impulses;
        // The twist's upper row keeps its impulse in `axial` (the cone's
        // is in `upper`).
        let held = solve_angle_limits(
            joint,
            states,
            &mut now,
            pass,
            &row,
            range,
            (i.lower, i.axial),
        );
        (joint.input.impulses.lower, joint.input.impulses.axial) = held;
    }
}

/// A ball joint brought back within its cone and twist limits; whether it
/// was past either.
fn project_ball_limits<D: JointDim>(
    joint: &Prepared<D>,
    states: &mut Bodies<D>,
    cone: Option<f32>,
    twist_limits: Option<(f32, f32)>,
) -> bool {
    let mut moved = false;
    if let Some(cone) = cone {
        let now = Now::of(joint, states);
        if let Some((angle, direction)) = swing(joint, &now) {
            moved |= turn_out(joint, states, direction, (angle - cone).max(0.0));
        }
    }
    if let Some(limits) = twist_limits {
        let now = Now::of(joint, states);
        let (angle, about) = twist(joint, &now);
        moved |= turn_out(joint, states, about, beyond_limits(limits, angle));
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bodies 0..10 on the X axis, body 0 fixed, each of the others moving
    /// with inverse mass `inv_mass(i)`.
    fn bodies(inv_mass: impl Fn(usize) -> f32) -> Vec<SolverBody<D2>> {
        (0..10)
            .map(|i| {
                let mut body = SolverBody::at_rest(Vec2::new(i as f32, 0.0), Rot2::IDENTITY);
                if i > 0 {
                    body.inv_mass = inv_mass(i);
                    body.inv_inertia = 1.0;
                    body.dynamic = true;
                }
                body
            })
            .collect()
    }

    /// Joint `k` hinges body `k` to body `k + 1`; the ones in `limited`
    /// have limits (not plain).
    fn chain(limited: &[usize]) -> Vec<JointInput<D2>> {
        (0..9)
            .map(|k| JointInput {
                bodies: [k, k + 1],
                frame: JointFrame {
                    anchor_a: Vec2::new(0.5, 0.0),
                    anchor_b: Vec2::new(-0.5, 0.0),
                    axis_a: 1.0,
                    axis_b: 1.0,
                    reference: Rot2::IDENTITY,
                    slide_a: Vec2::X,
                },
                model: JointModel::Revolute {
                    limits: limited.contains(&k).then_some((-1.0, 1.0)),
                    motor: None,
                    spring: None,
                    target: 0.0,
                },
                impulses: JointImpulses::default(),
            })
            .collect()
    }

    /// What a layout decided: the heavy count, each colour's bundles and
    /// joints, and each input's place.
    fn layout(solver: &JointSolver<D2>) -> String {
        format!(
            "{} {:?} {:?} {:?}",
            solver.heavy, solver.colour_bundles, solver.colour_joints, solver.places
        )
    }

    /// `chain` closed into a loop (body 9 hinged back to body 1), so that
    /// it is not a tree.
    fn ring(limited: &[usize]) -> Vec<JointInput<D2>> {
        let mut joints = chain(limited);
        let mut last = joints[1];
        last.bodies = [9, 1];
        joints.push(last);
        joints
    }

    #[test]
    fn an_unchanged_step_keeps_the_layout_a_fresh_one_gives() {
        let even = bodies(|_| 1.0);
        let heavy_end = bodies(|i| if i == 9 { 0.01 } else { 1.0 });
        let cases = [
            (ring(&[]), &even),
            (ring(&[3]), &even),
            (ring(&[]), &heavy_end),
            (chain(&[]), &even),
        ];
        let mut kept = JointSolver::<D2>::default();
        for (inputs, bodies) in &cases {
            let mut fresh = JointSolver::<D2>::default();
            fresh.prepare(inputs, bodies);
            kept.prepare(inputs, bodies);
            assert_eq!(layout(&kept), layout(&fresh), "laid out anew");
            kept.prepare(inputs, bodies);
            assert_eq!(layout(&kept), layout(&fresh), "kept");
        }
        // The chain is a tree, solved directly; pinned to the fixed body
        // at its other end too, it is a loop through the world.
        assert_eq!((kept.heavy, kept.trees.len(), kept.joints.len()), (0, 1, 9));
        let mut pinned = chain(&[]);
        let mut last = pinned[8];
        last.bodies = [9, 0];
        pinned.push(last);
        kept.prepare(&pinned, &even);
        assert_eq!(kept.trees.len(), 0);
        // The ring with a 100:1 end mass is one heavy group; the even one
        // takes three colours, its limited joint solved alone.
        kept.prepare(&ring(&[]), &heavy_end);
        assert_eq!((kept.heavy, kept.trees.len()), (10, 0));
        kept.prepare(&ring(&[3]), &even);
        assert_eq!((kept.heavy, kept.trees.len()), (0, 0));
        assert_eq!(
            kept.bundles.len(),
            2 + 1 + 1,
            "colour 0's five plain joints in two bundles, colour 1's three in one, colour 2's one"
        );
        assert_eq!(kept.joints.len(), 1, "the limited joint");
    }

    /// The relative velocity along each rigid row of `joint`.
    fn row_speeds<D: JointDim>(joint: &Prepared<D>, states: &Bodies<D>) -> Vec<f32> {
        let now = Now::of(joint, states);
        let (rows, count) = rigid_rows(joint, &now);
        rows[..count]
            .iter()
            .map(|row| {
                now.velocity_at(row.arm).dot(row.linear) + now.relative_spin().dot(row.angular)
            })
            .collect()
    }

    /// The oracle for the direct solve of a tree (`tree`): after it, every
    /// rigid row's speed is zero, and every body's velocity change is what
    /// the joints' accumulated impulses give it (so the impulses, which the
    /// next step starts from, are the solve's too, not only the motion).
    fn check_tree_solve<D: JointDim>(
        bodies: &[SolverBody<D>],
        inputs: &[JointInput<D>],
        velocities: &[(D::Vector, D::AngularVector)],
    ) {
        let mut solver = JointSolver::<D>::default();
        solver.prepare(inputs, bodies);
        assert_eq!(solver.trees.len(), 1, "one tree");
        let mut states: Vec<D::BodyState> = velocities
            .iter()
            .map(|&(v, w)| D::BodyState::starting(v, w))
            .collect();
        let before = states.clone();
        let scale = velocities
            .iter()
            .map(|&(v, w)| v.length() + w.dot(w).sqrt())
            .fold(0.0f32, f32::max);
        {
            let view = solver.forest.view();
            let shared = Shared::new(&mut states);
            let joints = Shared::new(&mut solver.joints);
            // SAFETY: one thread, one tree.
            let mut bodies = unsafe { States::new(&shared) };
            unsafe { view.solve_velocities(0, &joints, &mut bodies) };
        }
        // Positions: the bodies nudged off their joints by about a
        // millimetre; one pass takes out nearly all of it.
        let mut moved = before.clone();
        for (k, state) in moved.iter_mut().enumerate() {
            let t = k as f32;
            let (v, w) = velocities[k];
            let _ = t;
            state.nudge(v * 1e-3, w * 1e-3);
        }
        let error_of = |states: &mut Vec<D::BodyState>, joints: &[Prepared<D>]| {
            let shared = Shared::new(states);
            // SAFETY: read only, one thread.
            let read = unsafe { States::new(&shared) };
            joints
                .iter()
                .flat_map(|joint| {
                    let now = Now::of(joint, &read);
                    let (rows, count) = rigid_rows(joint, &now);
                    rows[..count]
                        .iter()
                        .map(|r| r.error.abs())
                        .collect::<Vec<_>>()
                })
                .fold(0.0f32, f32::max)
        };
        let off = error_of(&mut moved, &solver.joints);
        {
            let view = solver.forest.view();
            let shared = Shared::new(&mut moved);
            let joints = Shared::new(&mut solver.joints);
            // SAFETY: one thread, one tree.
            let mut bodies = unsafe { States::new(&shared) };
            unsafe { view.solve_positions(0, &joints, &mut bodies) };
        }
        let left = error_of(&mut moved, &solver.joints);
        assert!(left < 1e-2 * off, "position error {off} left {left}");
        let shared = Shared::new(&mut states);
        // SAFETY: read only, one thread.
        let solved = unsafe { States::new(&shared) };
        for joint in &solver.joints {
            for speed in row_speeds(joint, &solved) {
                assert!(speed.abs() < 1e-5 * scale, "row speed {speed}");
            }
        }
        // The impulses applied to the bodies as they were.
        let mut replayed = before.clone();
        let shared = Shared::new(&mut replayed);
        // SAFETY: one thread.
        let mut replay = unsafe { States::new(&shared) };
        for joint in &solver.joints {
            let now = Now::of(joint, &replay);
            let i = joint.input.impulses;
            apply(joint, &now, &mut replay, i.point, i.angular);
        }
        for (k, body) in bodies.iter().enumerate() {
            if body.inv_mass == 0.0 {
                continue;
            }
            let ((v, w), (rv, rw)) = (solved[k].velocities(), replay[k].velocities());
            let off = (v - rv).length() + (w - rw).dot(w - rw).sqrt();
            assert!(
                off < 1e-4 * scale,
                "body {k}: impulses give {rv:?} {rw:?}, solve {v:?} {w:?}"
            );
        }
    }

    /// A 2D body of inverse mass `m` and inverse inertia `i` at `x`.
    fn body2(x: Vec2, m: f32, i: f32) -> SolverBody<D2> {
        let mut body = SolverBody::at_rest(x, Rot2::IDENTITY);
        body.inv_mass = m;
        body.inv_inertia = i;
        body.dynamic = m > 0.0;
        body
    }

    /// A joint of `model` between bodies `a` and `b` at world point `at`.
    fn joint2(
        bodies: &[SolverBody<D2>],
        [a, b]: [usize; 2],
        at: Vec2,
        model: JointModel,
    ) -> JointInput<D2> {
        JointInput {
            bodies: [a, b],
            frame: JointFrame {
                anchor_a: at - bodies[a].center,
                anchor_b: at - bodies[b].center,
                axis_a: 1.0,
                axis_b: 1.0,
                reference: Rot2::IDENTITY,
                slide_a: Vec2::X,
            },
            model,
            impulses: JointImpulses::default(),
        }
    }

    const HINGE: JointModel = JointModel::Revolute {
        limits: None,
        motor: None,
        spring: None,
        target: 0.0,
    };
    const WELD: JointModel = JointModel::Weld {
        linear: None,
        angular: None,
    };

    #[test]
    fn a_tree_solve_stops_every_row_with_the_impulses_it_keeps_2d() {
        // A chain of six planks, 1000:1 in the middle, hinged end to end
        // and to a fixed post at one end, with a welded fan of three
        // blades hanging from the heavy one.
        // The hinges on a parabola.
        let hinge = |k: usize| Vec2::new(k as f32, 0.1 * (k as f32 * (6.0 - k as f32)) - 0.9);
        let mut bodies = vec![body2(hinge(0), 0.0, 0.0)];
        for k in 0..6 {
            let m = if k == 3 { 0.001 } else { 1.0 };
            bodies.push(body2((hinge(k) + hinge(k + 1)) * 0.5, m, 12.0 * m));
        }
        let mut inputs = Vec::new();
        for k in 0..6 {
            inputs.push(joint2(&bodies, [k, k + 1], hinge(k), HINGE));
        }
        for k in 0..3 {
            let at = Vec2::new(3.5 + 0.3 * k as f32, -0.5 - k as f32);
            bodies.push(body2(at, 0.5, 3.0));
            let n = bodies.len() - 1;
            inputs.push(joint2(
                &bodies,
                [if k == 0 { 4 } else { n - 1 }, n],
                at,
                WELD,
            ));
        }
        let velocities: Vec<(Vec2, f32)> = (0..bodies.len())
            .map(|k| {
                let t = k as f32;
                (
                    Vec2::new(libm::sinf(1.3 * t), libm::cosf(0.7 * t)),
                    libm::sinf(2.1 * t),
                )
            })
            .collect();
        check_tree_solve::<D2>(&bodies, &inputs, &velocities);
    }

    #[test]
    fn a_tree_solve_stops_every_row_with_the_impulses_it_keeps_3d() {
        // A welded fan (hub light in rotation, blades 10:1 heavier) on a
        // ball joint, with a two-link arm hinged to one blade.
        let body3 = |x: Vec3, m: f32, i: Vec3| {
            let mut body = SolverBody::<D3>::at_rest(x, Quat::IDENTITY);
            body.inv_mass = m;
            body.inv_inertia = Mat3::from_diagonal(i);
            body.dynamic = m > 0.0;
            body
        };
        let mut bodies = vec![body3(Vec3::ZERO, 0.0, Vec3::ZERO)];
        bodies.push(body3(Vec3::ZERO, 0.07, Vec3::new(2.0, 2.0, 0.5)));
        for k in 0..4 {
            let a = k as f32 * core::f32::consts::FRAC_PI_2;
            let at = Vec3::new(1.1 * libm::cosf(a), 1.1 * libm::sinf(a), 0.0);
            bodies.push(body3(at, 0.013, Vec3::new(0.02, 0.03, 0.05)));
        }
        bodies.push(body3(Vec3::new(1.9, 0.0, 0.5), 1.0, Vec3::splat(3.0)));
        bodies.push(body3(Vec3::new(2.7, 0.0, 0.5), 1.0, Vec3::splat(3.0)));
        let frame = |bodies: &[SolverBody<D3>], [a, b]: [usize; 2], at: Vec3| JointFrame {
            anchor_a: at - bodies[a].center,
            anchor_b: at - bodies[b].center,
            axis_a: Vec3::Z,
            axis_b: Vec3::Z,
            reference: Quat::IDENTITY,
            slide_a: Vec3::X,
        };
        let input = |bodies: &[SolverBody<D3>], pair: [usize; 2], at: Vec3, model| JointInput {
            bodies: pair,
            frame: frame(bodies, pair, at),
            model,
            impulses: JointImpulses::default(),
        };
        let ball = JointModel::Spherical {
            cone: None,
            twist: None,
        };
        let mut inputs = vec![input(&bodies, [0, 1], Vec3::ZERO, ball)];
        for k in 0..4 {
            let a = k as f32 * core::f32::consts::FRAC_PI_2;
            let at = Vec3::new(0.3 * libm::cosf(a), 0.3 * libm::sinf(a), 0.0);
            inputs.push(input(&bodies, [1, 2 + k], at, WELD));
        }
        inputs.push(input(&bodies, [2, 6], Vec3::new(1.5, 0.0, 0.5), HINGE));
        inputs.push(input(&bodies, [6, 7], Vec3::new(2.3, 0.0, 0.5), HINGE));
        let velocities: Vec<(Vec3, Vec3)> = (0..bodies.len())
            .map(|k| {
                let t = k as f32;
                (
                    Vec3::new(
                        libm::sinf(1.3 * t),
                        libm::cosf(0.7 * t),
                        libm::sinf(0.4 * t),
                    ),
                    Vec3::new(
                        libm::sinf(2.1 * t),
                        libm::cosf(1.7 * t),
                        libm::cosf(0.9 * t),
                    ),
                )
            })
            .collect();
        check_tree_solve::<D3>(&bodies, &inputs, &velocities);
    }
}
