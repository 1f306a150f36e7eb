//! Soft-step sequential impulses (Catto; Box2D v3's `solver.c` and
//! `contact_solver.c`).
//!
//! 1. Prepare: per manifold point, its lever arms (frozen since the pair's
//!    last query), effective masses for the normal and each tangent, and
//!    the approach speed (for restitution), a bundle's four manifolds at
//!    once in SIMD lanes (`solver/prepare.rs`). The rows' angular parts
//!    (`r × n`) are recomputed from the arms in every pass (Box2D v3 does
//!    the same): a few multiplies cost less than reading them back, since
//!    a large scene's rows do not stay in the cache between passes.
//! 2. Per substep: integrate velocities; warm start with the accumulated
//!    impulses; solve with a soft push-out bias; integrate positions; relax
//!    (solve again without bias, so push-out adds no energy).
//! 3. Restitution once, for points that approached faster than the threshold.
//! 4. Store the accumulated impulses back into the manifolds.
//!
//! Impulses are accumulated and clamped: normal >= 0, each friction row
//! within `friction * normal`. Manifolds are solved colour by colour
//! (`constraint_graph`: no two of a colour share a moving body, so a colour's
//! manifolds can be solved on several threads at once, and the colours come
//! from the pair order alone, so results do not depend on threads), four
//! manifolds of a colour at a time in SIMD lanes (a bundle: its bodies are
//! gathered into lanes, solved, and scattered back; being of one colour,
//! no two lanes share a moving body), and the rows *within* a manifold
//! together, from the same velocities, each row's mass divided by its share
//! of the manifold's common push: solved one after another, the first
//! corner of a box resting flat takes more than its share, the box spins,
//! and a tall stack leans from that seed. As in Box2D v3, overlap is pushed
//! out softly from the first millimetre (no slop), so a pyramid of 40 rows
//! sinks about 1.4 mm a row.

use core::ops::Range;

use glam::{BVec4A, Vec4};

mod dim;
mod prepare;

pub(crate) use dim::SolverDim;

use super::constraint_graph::{ConstraintGraph, COLOURS};
use super::integrate::{
    integrate_positions, integrate_velocities, starting_state, BodyState, SolverBody,
};
use super::joints::{JointDim, JointPass, JointSolver, JointStage};
use super::lanes::{InertiaLanes, Lanes, RotationLanes};
use super::manifold::{Manifold, ManifoldPoint, Pushed};
use super::stages::{run_stages, Shared};
use crate::math::Pose;
use crate::parallel::*;
use crate::settings::Settings;

/// Manifolds in a bundle: one per SIMD lane.
const LANES: usize = 4;

/// In a bundle's inputs: a lane with no manifold.
const NO_INPUT: usize = usize::MAX;

/// A body's index in the solver's arrays. Four bytes, not eight: bundles
/// and inputs are read many times a step, and a world holds far fewer than
/// 2³² bodies (each takes over a hundred bytes).
type BodyIndex = u32;

/// `i` as a [`BodyIndex`].
fn body_index(i: usize) -> BodyIndex {
    debug_assert!(
        BodyIndex::try_from(i).is_ok(),
        "body index {i} out of range"
    );
    i as BodyIndex
}

/// Soft constraint coefficients for one substep (Box2D's `b2Softness`).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Softness {
    pub(crate) bias_rate: f32,
    pub(crate) mass_scale: f32,
    pub(crate) impulse_scale: f32,
}

impl Softness {
    /// No softness: a rigid constraint without bias (the relax pass).
    pub(crate) const RIGID: Self = Self {
        bias_rate: 0.0,
        mass_scale: 1.0,
        impulse_scale: 0.0,
    };

    pub(crate) fn new(hertz: f32, damping_ratio: f32, h: f32) -> Self {
        if hertz <= 0.0 {
            return Self::RIGID;
        }
        let omega = 2.0 * core::f32::consts::PI * hertz;
        let a1 = 2.0 * damping_ratio + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Self {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

/// A bundle's Jacobians for one point and direction, a manifold per lane:
/// the angular parts `r_a × d` and `r_b × d` of the velocity constraint
/// along a direction `d`. Their images under the inverse inertias are not
/// kept: a manifold's impulses are summed first and turned into spin with
/// one product per body.
#[derive(Copy, Clone, Debug, Default)]
struct JacobianLanes<D: SolverDim> {
    a: D::AngularLanes,
    b: D::AngularLanes,
}

impl<D: SolverDim> JacobianLanes<D> {
    /// Per lane, the rows along `d` of a point at lever arms `r_a` and
    /// `r_b` (recomputed each pass: cheaper than reading them back).
    #[inline]
    fn across(r_a: &D::VectorLanes, r_b: &D::VectorLanes, d: &D::VectorLanes) -> Self {
        Self {
            a: D::cross_lanes(r_a, d),
            b: D::cross_lanes(r_b, d),
        }
    }

    /// Per lane, the relative velocity of B against A along the row, given
    /// the linear part `d · (v_b - v_a)`, m/s.
    #[inline]
    fn velocity(&self, linear: Vec4, a: &Velocities<D>, b: &Velocities<D>) -> Vec4 {
        linear + self.b.dot(&b.angular) - self.a.dot(&a.angular)
    }
}

/// The velocities of a bundle's bodies A (or B), a body per lane.
#[derive(Copy, Clone, Debug, Default)]
struct Velocities<D: SolverDim> {
    linear: D::VectorLanes,
    angular: D::AngularLanes,
}

/// How far a bundle's bodies A (or B) moved and turned since the step
/// began, for the current separations.
#[derive(Copy, Clone, Debug, Default)]
struct Motions<D: SolverDim> {
    displacement: D::VectorLanes,
    turn: D::RotationLanes,
}

/// Impulses summed over a bundle's rows, applied to its bodies at once.
#[derive(Copy, Clone, Debug, Default)]
struct Impulse<D: SolverDim> {
    /// Linear impulse on B (its opposite on A), N·s.
    linear: D::VectorLanes,
    /// Angular impulses `Σ λ J`, before the inverse inertias.
    angular_a: D::AngularLanes,
    angular_b: D::AngularLanes,
}

impl<D: SolverDim> Impulse<D> {
    /// The rows of one direction `d`, a point's row per call with its
    /// impulses `lambda`; their linear parts are added once, as `d` times
    /// their sum ([`Impulse::along`]).
    #[inline]
    fn add_row(&mut self, j: &JacobianLanes<D>, lambda: Vec4) {
        self.angular_a += j.a * lambda;
        self.angular_b += j.b * lambda;
    }

    /// The linear impulse of rows along `d` whose impulses sum to `sum`.
    #[inline]
    fn along(&mut self, d: &D::VectorLanes, sum: Vec4) {
        self.linear += *d * sum;
    }

    #[inline]
    fn apply(&self, bundle: &ManifoldBundle<D>, a: &mut Velocities<D>, b: &mut Velocities<D>) {
        a.linear -= self.linear * bundle.inv_mass_a;
        a.angular -= bundle.inv_inertia_a.mul(&self.angular_a);
        b.linear += self.linear * bundle.inv_mass_b;
        b.angular += bundle.inv_inertia_b.mul(&self.angular_b);
    }
}

/// Up to four manifolds of one colour side by side, one per lane; their
/// points are in [`PointLanes`]. An empty lane has no bodies and zeros
/// everywhere, so it pushes on nothing.
#[derive(Copy, Clone, Debug, Default)]
struct ManifoldBundle<D: SolverDim> {
    /// Each lane's bodies; an empty lane's are the state past the last
    /// body (zeros, never written).
    body_a: [BodyIndex; LANES],
    body_b: [BodyIndex; LANES],
    /// Which lanes' bodies the solver moves; the others are only read.
    moves_a: [bool; LANES],
    moves_b: [bool; LANES],
    normal: D::VectorLanes,
    tangents: D::PerTangent<D::VectorLanes>,
    friction: Vec4,
    restitution: Vec4,
    /// Each lane's shapes' rounding radii, m (see [`ManifoldInput::radii`]).
    radius_a: Vec4,
    radius_b: Vec4,
    /// One body cannot move: the contact carries weight and is stiffer.
    against_static: BVec4A,
    /// Each lane's bodies' inverse masses along the world axes: the same
    /// along every axis but zero along a locked one (`Locks::translation`).
    inv_mass_a: D::VectorLanes,
    inv_mass_b: D::VectorLanes,
    inv_inertia_a: D::InertiaLanes,
    inv_inertia_b: D::InertiaLanes,
}

/// One point of each manifold of a bundle (its `k`th), a manifold per lane.
#[derive(Copy, Clone, Debug, Default)]
struct PointLanes<D: SolverDim> {
    /// Where the impulses act, from each body's centre of mass, world
    /// space as the step began (the Jacobians' lever arms).
    anchor_a: D::VectorLanes,
    anchor_b: D::VectorLanes,
    /// The current separation, less what follows the bodies' motions:
    /// each body's witness point is its anchor moved half the separation
    /// along the normal onto its own surface, and its core point that
    /// surface point moved a further rounding radius inwards; the cores
    /// turn and move with their bodies, the radii stay along the normal
    /// (see [`ManifoldInput::radii`]). With the motions it gives the
    /// current separation (`solve_normals_together`).
    base_separation: Vec4,
    /// Half the separation as the step began, m: how far each witness
    /// point lies from the anchor (the midpoint between them).
    half_gap: Vec4,
    /// Effective mass along the normal, kg (for push-out and restitution),
    /// lowered for all of a manifold's points alike where pushing together
    /// at full masses would not converge (`prepare::push_out_scale`); zero
    /// in a lane whose manifold does not have this point.
    normal_mass: Vec4,
    /// The normal mass divided by how many rows' worth of push the row
    /// feels when the manifold's normal rows act together (for approach).
    normal_shared_mass: Vec4,
    /// That mass, but no more than one over the manifold's stiffest mode,
    /// for the relax pass (see `solve_normals_together`).
    normal_relax_mass: Vec4,
    /// Friction rows' effective masses, likewise divided by their shares.
    tangent_shared_mass: D::PerTangent<Vec4>,
    /// Accumulated impulses, N·s.
    normal_impulse: Vec4,
    tangent_impulse: D::PerTangent<Vec4>,
    /// Normal impulse applied over the step so far, N·s: each substep's
    /// (the accumulated impulse once relaxed: the warm start plus every
    /// solve's addition) and the bounce's, added up. For contact events, and
    /// positive where the point pushed, which restitution asks of a point
    /// it bounces (Box2D's `maxNormalImpulse > 0`).
    total_normal_impulse: Vec4,
    /// Normal velocity before solving, m/s (negative when approaching):
    /// the most negative one the solve passes saw, for restitution.
    approach_speed: Vec4,
}

impl<D: SolverDim> PointLanes<D> {
    /// The point's rows along `d`, from its lever arms.
    #[inline]
    fn row(&self, d: &D::VectorLanes) -> JacobianLanes<D> {
        JacobianLanes::across(&self.anchor_a, &self.anchor_b, d)
    }

    /// Lanes whose manifold has this point.
    #[inline]
    fn in_use(&self) -> BVec4A {
        self.normal_mass.cmpgt(Vec4::ZERO)
    }
}

/// What the solver needs of a manifold's pair, copied out of the pair in
/// pair order: the pairs are large and read front to back here; the solver
/// then reads these, compact, in colour order.
#[derive(Clone, Debug)]
pub(crate) struct ManifoldInput<D: SolverDim> {
    body_a: BodyIndex,
    body_b: BodyIndex,
    friction: f32,
    restitution: f32,
    /// The two shapes' rounding radii, m (a ball's, a capsule's; zero for
    /// a polytope). The radius part of an anchor stays along the normal as
    /// its body turns: a ball's contact is always under its centre, so a
    /// ball a slanting impact spins up stays stopped by the wall
    /// (`fast_friction_balls_do_not_pass_through_a_wall_3d`), where a point
    /// turning with it would swing off the wall and let it through.
    radii: [f32; 2],
    normal: D::Vector,
    /// Points in use.
    len: u32,
    points: D::PerPoint<InputPoint<D>>,
}

/// A manifold point as the solver takes it.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
struct InputPoint<D: SolverDim> {
    /// Each lever arm's far end: the arm frozen at the pair's last query
    /// plus the collider's origin, world space.
    anchor_a: D::Vector,
    anchor_b: D::Vector,
    /// Separation of the surface points along the normal, m.
    separation: f32,
    normal_impulse: f32,
    tangent_impulse: [f32; 2],
}

impl<D: SolverDim> ManifoldInput<D> {
    /// The solver's input for a manifold's `points` (at most
    /// `D::MAX_MANIFOLD_POINTS` are taken) along its `normal` (world, from
    /// A to B), between bodies `body_a` and `body_b` (their indices in the
    /// solver's bodies), whose colliders are at `pose_a` and `pose_b`;
    /// `[friction, restitution]` of the pair.
    pub(crate) fn new(
        [body_a, body_b]: [usize; 2],
        [pose_a, pose_b]: [&Pose<D>; 2],
        radii: [f32; 2],
        [friction, restitution]: [f32; 2],
        normal: D::Vector,
        kept: &[ManifoldPoint<D::Vector>],
    ) -> Self {
        let mut points = D::PerPoint::<InputPoint<D>>::default();
        let len = kept.len().min(D::MAX_MANIFOLD_POINTS) as u32;
        for (mp, point) in kept.iter().zip(points.as_mut()) {
            *point = InputPoint {
                anchor_a: mp.lever_a + pose_a.translation,
                anchor_b: mp.lever_b + pose_b.translation,
                separation: mp.separation,
                normal_impulse: mp.normal_impulse,
                tangent_impulse: mp.tangent_impulse,
            };
        }
        Self {
            body_a: body_index(body_a),
            body_b: body_index(body_b),
            friction,
            restitution,
            radii,
            normal,
            len,
            points,
        }
    }

    /// Points in use.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }
}

/// What the solver did at one point of an input over the step.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SolvedPoint {
    /// Accumulated normal impulse, N·s, for warm starting.
    pub normal_impulse: f32,
    /// Accumulated friction impulses along the tangents, N·s.
    pub tangent_impulse: [f32; 2],
    /// Normal impulse over the step, every substep and the bounce, N·s.
    pub total_normal_impulse: f32,
    /// How fast the point closed along the normal, m/s (>= 0).
    pub approach_speed: f32,
}

impl SolvedPoint {
    /// Keeps the accumulated impulses in `point`, for warm starting.
    pub(crate) fn store_into<V>(&self, point: &mut ManifoldPoint<V>) {
        point.normal_impulse = self.normal_impulse;
        point.tangent_impulse = self.tangent_impulse;
    }
}

/// A manifold's [`Pushed`] summed point by point.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct PushTally {
    pub pushed: Pushed,
    /// The largest point's total normal impulse so far, N·s.
    strongest: f32,
}

impl PushTally {
    /// Adds what point `i` of the manifold did (`solved`).
    pub(crate) fn add(&mut self, i: usize, solved: &SolvedPoint) {
        let total = solved.total_normal_impulse;
        self.pushed.total_normal_impulse += total;
        self.pushed.approach_speed = self.pushed.approach_speed.max(solved.approach_speed);
        if total > self.strongest {
            (self.strongest, self.pushed.strongest) = (total, i as u8);
        }
    }
}

/// Fewest bundles in a block of a colour's stage (a block is the unit one
/// thread claims): smaller blocks cost more in claiming, and in cache lines
/// both threads write, than they gain in balance.
const MIN_BUNDLES_PER_BLOCK: usize = 64;
/// Fewest inputs per rayon task when inputs are compared or copied whole.
const MIN_INPUTS_PER_TASK: usize = 1024;
/// Blocks per thread in a colour's stage, for balance.
const BLOCKS_PER_THREAD: usize = 2;
/// Fewest bodies in a block of an integration stage.
const MIN_BODIES_PER_BLOCK: usize = 256;
/// Fewest bodies per rayon task when the states are copied in or out.
const BODIES_PER_TASK: usize = 1024;

/// What one stage of the substep loop does.
#[derive(Copy, Clone, Debug)]
enum Stage {
    IntegrateVelocities,
    /// A stage of joint work (its place in the joint stages), before the
    /// contacts of each pass.
    Joints(usize),
    WarmStart(usize),
    Solve(usize),
    IntegratePositions,
    Relax(usize),
    Restitution(usize),
}

/// In [`ContactSolver`]' places: an input that was not solved.
const UNSOLVED: (usize, usize) = (usize::MAX, usize::MAX);

/// Bodies per block of an integration stage: as many blocks per thread as
/// a colour's stage has, for balance, unless that makes them too small.
fn body_block_size(bodies: usize) -> usize {
    let threads = crate::parallel::threads();
    bodies
        .div_ceil(BLOCKS_PER_THREAD * threads)
        .max(MIN_BODIES_PER_BLOCK)
}

/// Block `block` of `len` items cut into blocks of `size`.
fn block_range(block: usize, size: usize, len: usize) -> Range<usize> {
    (block * size).min(len)..((block + 1) * size).min(len)
}

/// Every contact constraint of a step, in bundles of four manifolds, the
/// bundles of each colour of the constraint graph together (the last
/// colour is the overflow, a manifold per bundle).
#[derive(Clone, Debug)]
pub(crate) struct ContactSolver<D: SolverDim> {
    bundles: Vec<ManifoldBundle<D>>,
    /// `MAX_MANIFOLD_POINTS` per bundle.
    points: Vec<PointLanes<D>>,
    /// Each bundle's inputs, by lane (`NO_INPUT` in an empty lane).
    bundle_inputs: Vec<[usize; LANES]>,
    /// Each colour's bundles.
    colour_bundles: Vec<Range<usize>>,
    /// Each colour's inputs, in input order (kept for their allocations).
    members: Vec<Vec<usize>>,
    /// Where each input's manifold went: bundle and lane, or `UNSOLVED`.
    placed: Vec<(usize, usize)>,
    graph: ConstraintGraph,
    /// Each input's bodies and whether they move, as last laid out.
    signature: Vec<Option<(BodyIndex, BodyIndex, bool, bool)>>,
    /// The bodies' states during the substep loop.
    states: Vec<D::BodyState>,
}

impl<D: SolverDim> Default for ContactSolver<D> {
    fn default() -> Self {
        Self {
            bundles: Vec::new(),
            points: Vec::new(),
            bundle_inputs: Vec::new(),
            colour_bundles: vec![0..0; COLOURS + 1],
            members: vec![Vec::new(); COLOURS + 1],
            placed: Vec::new(),
            graph: ConstraintGraph::new(0),
            signature: Vec::new(),
            states: Vec::new(),
        }
    }
}

impl<D: SolverDim> ContactSolver<D> {
    /// Step 1: the rows of every manifold, for bodies `bodies`; an input
    /// may be `None` (a pair not solved this step), and inputs keep their
    /// index for [`ContactSolver::store_impulses`]. Colours are handed out in
    /// input order (cheap, and it fixes the solve order for any thread
    /// count), each colour's manifolds are bundled four by four in that
    /// order, and then the bundles are built on all threads.
    pub(crate) fn prepare(
        &mut self,
        inputs: &[Option<ManifoldInput<D>>],
        bodies: &[SolverBody<D>],
    ) {
        if !self.same_layout(inputs, bodies) {
            self.colour(inputs, bodies);
            self.bundle(inputs.len());
        }
        let points = D::MAX_MANIFOLD_POINTS;
        self.bundles
            .resize(self.bundle_inputs.len(), ManifoldBundle::default());
        self.points
            .resize(self.bundle_inputs.len() * points, PointLanes::default());
        let empty = prepare::EmptyLane::new();
        // Bundles look for translation locks only when some body has them.
        let translation_locks = bodies.iter().any(|b| !b.translation_lock.is_empty());
        self.bundles
            .par_iter_mut()
            .zip(self.points.par_chunks_mut(points))
            .zip(&self.bundle_inputs)
            .with_min_len(MIN_BUNDLES_PER_BLOCK)
            .for_each(|((bundle, points), lanes)| {
                let inputs = lanes.map(|k| inputs.get(k).and_then(Option::as_ref));
                prepare::build_bundle(inputs, bodies, translation_locks, &empty, bundle, points);
            });
    }

    /// True when `inputs` join the same bodies, moving or not, as last
    /// step's, so that last step's colours and bundles stand (the colouring
    /// depends on nothing else); the signature is updated either way. Both
    /// the comparison and the update run on all threads.
    fn same_layout(
        &mut self,
        inputs: &[Option<ManifoldInput<D>>],
        bodies: &[SolverBody<D>],
    ) -> bool {
        let signature_of = |input: &Option<ManifoldInput<D>>| {
            input.as_ref().map(|input| {
                let moves = |i: BodyIndex| bodies[i as usize].inv_mass > 0.0;
                (
                    input.body_a,
                    input.body_b,
                    moves(input.body_a),
                    moves(input.body_b),
                )
            })
        };
        let same = !self.signature.is_empty()
            && self.signature.len() == inputs.len()
            && inputs
                .par_iter()
                .zip(&self.signature)
                .with_min_len(MIN_INPUTS_PER_TASK)
                .all(|(input, &kept)| signature_of(input) == kept);
        if !same {
            inputs
                .par_iter()
                .with_min_len(MIN_INPUTS_PER_TASK)
                .map(signature_of)
                .collect_into_vec(&mut self.signature);
        }
        same
    }

    /// Each input's colour, in input order: its index joins the colour's
    /// members.
    fn colour(&mut self, inputs: &[Option<ManifoldInput<D>>], bodies: &[SolverBody<D>]) {
        self.graph.clear(bodies.len());
        self.members.iter_mut().for_each(Vec::clear);
        for (k, input) in inputs.iter().enumerate() {
            let Some(input) = input else { continue };
            let (a, b) = (input.body_a as usize, input.body_b as usize);
            let colour = self
                .graph
                .colour([(a, bodies[a].inv_mass > 0.0), (b, bodies[b].inv_mass > 0.0)]);
            self.members[colour].push(k);
        }
    }

    /// Each colour's members four to a bundle (the overflow's one to a
    /// bundle: they may share bodies), and where each input went.
    fn bundle(&mut self, input_count: usize) {
        self.placed.clear();
        self.placed.resize(input_count, UNSOLVED);
        self.bundle_inputs.clear();
        for (colour, members) in self.members.iter().enumerate() {
            let width = if colour == COLOURS { 1 } else { LANES };
            let start = self.bundle_inputs.len();
            for chunk in members.chunks(width) {
                let mut lanes = [NO_INPUT; LANES];
                for (lane, &k) in chunk.iter().enumerate() {
                    lanes[lane] = k;
                    self.placed[k] = (self.bundle_inputs.len(), lane);
                }
                self.bundle_inputs.push(lanes);
            }
            self.colour_bundles[colour] = start..self.bundle_inputs.len();
        }
    }

    /// Steps 2 and 3: the substep loop, then restitution. The bodies'
    /// solved states are left in [`ContactSolver::body_states`].
    pub(crate) fn solve(
        &mut self,
        bodies: &[SolverBody<D>],
        joints: &mut JointSolver<D>,
        settings: &Settings<D>,
        dt: f32,
    ) where
        D: JointDim,
    {
        let substeps = settings.substeps.max(1);
        let h = dt / substeps as f32;
        let inv_h = 1.0 / h;
        let hertz = settings.contact_hertz.min(0.25 * inv_h);
        let joint_pass = JointPass { h };
        let soft = Softness::new(hertz, settings.contact_damping_ratio, h);
        // Contacts with a body that cannot move are twice as stiff (Box2D v3):
        // they carry the whole stack's weight.
        let soft_static = Softness::new(2.0 * hertz, settings.contact_damping_ratio, h);
        let solve_pass = Pass::new(soft, soft_static, false, settings.max_push_out_speed, inv_h);
        let relax_pass = Pass::new(
            Softness::RIGID,
            Softness::RIGID,
            true,
            settings.max_push_out_speed,
            inv_h,
        );
        let threshold = settings.restitution_threshold;
        let (stages, joint_stages) = self.stages(substeps, joints);
        let block_sizes = self.block_sizes();
        let body_block = body_block_size(bodies.len());
        let body_blocks = bodies.len().div_ceil(body_block);
        let blocks: Vec<usize> = stages
            .iter()
            .map(|stage| match *stage {
                Stage::IntegrateVelocities | Stage::IntegratePositions => body_blocks,
                Stage::Joints(k) => joints.blocks(&joint_stages[k]),
                Stage::WarmStart(colour)
                | Stage::Solve(colour)
                | Stage::Relax(colour)
                | Stage::Restitution(colour) => self.colour_bundles[colour]
                    .len()
                    .div_ceil(block_sizes[colour]),
            })
            .collect();
        let body_count = bodies.len();
        bodies
            .par_iter()
            .with_min_len(BODIES_PER_TASK)
            .map(starting_state)
            .collect_into_vec(&mut self.states);
        // The extra state of empty lanes' bodies.
        self.states.push(D::BodyState::default());
        let view = BundleView {
            bundles: &self.bundles,
            points: Shared::new(&mut self.points),
            states: Shared::new(&mut self.states),
        };
        let joint_view = joints.view();
        let colours: Vec<(Range<usize>, usize)> = self
            .colour_bundles
            .iter()
            .cloned()
            .zip(block_sizes)
            .collect();
        run_stages(&blocks, |stage, block| {
            let range = block_range(block, body_block, body_count);
            let bundles = |colour: usize| {
                let (bundles, size) = &colours[colour];
                let inner = block_range(block, *size, bundles.len());
                bundles.start + inner.start..bundles.start + inner.end
            };
            match stages[stage] {
                // SAFETY: the blocks of a stage cover disjoint bodies.
                Stage::IntegrateVelocities => integrate_velocities(
                    unsafe { view.states.range_mut(range.clone()) },
                    &bodies[range],
                    h,
                ),
                // SAFETY: likewise.
                Stage::IntegratePositions => {
                    integrate_positions::<D>(unsafe { view.states.range_mut(range) }, h)
                }
                // SAFETY: the stages run one after another, and the joints'
                // blocks of a stage reach disjoint moving bodies.
                Stage::Joints(k) => unsafe {
                    joint_view.run(&joint_stages[k], block, &view.states, &joint_pass)
                },
                Stage::WarmStart(colour) => view.run(bundles(colour), false, |c, p, a, b, _| {
                    warm_start(c, p, a, b)
                }),
                Stage::Solve(colour) => view.run(bundles(colour), true, |c, p, a, b, motions| {
                    solve_bundle(c, p, a, b, motions, &solve_pass)
                }),
                Stage::Relax(colour) => view.run(bundles(colour), true, |c, p, a, b, motions| {
                    solve_bundle(c, p, a, b, motions, &relax_pass)
                }),
                Stage::Restitution(colour) => view.run(bundles(colour), false, |c, p, a, b, _| {
                    apply_restitution(c, p, a, b, threshold)
                }),
            }
        });
    }

    /// Each body's state after [`ContactSolver::solve`], in body order: what
    /// [`integrate::store`](super::integrate::store) writes into its solver body.
    pub(crate) fn body_states(&self) -> &[D::BodyState] {
        &self.states[..self.states.len().saturating_sub(1)]
    }

    /// The stages of a step: per substep, integrate velocities, warm start
    /// (the joints, then the contacts colour by colour), solve, integrate
    /// positions, relax; then restitution, and the joints' position passes.
    /// Empty colours are left out. With them, the joint stages the
    /// [`Stage::Joints`] point to.
    fn stages<D2: JointDim>(
        &self,
        substeps: u32,
        joints: &JointSolver<D2>,
    ) -> (Vec<Stage>, Vec<JointStage>) {
        let used: Vec<usize> = (0..=COLOURS)
            .filter(|&c| !self.colour_bundles[c].is_empty())
            .collect();
        let mut joint_stages = Vec::new();
        let mut add_joints = |stages: &mut Vec<Stage>, more: Vec<JointStage>| {
            for stage in more {
                stages.push(Stage::Joints(joint_stages.len()));
                joint_stages.push(stage);
            }
        };
        let (first_warm, warm, solve, relax) = (
            joints.warm_start_stages(true),
            joints.warm_start_stages(false),
            joints.solve_stages(false),
            joints.solve_stages(true),
        );
        let mut stages = Vec::new();
        for substep in 0..substeps {
            stages.push(Stage::IntegrateVelocities);
            let warm = if substep == 0 { &first_warm } else { &warm };
            add_joints(&mut stages, warm.clone());
            stages.extend(used.iter().map(|&c| Stage::WarmStart(c)));
            add_joints(&mut stages, solve.clone());
            stages.extend(used.iter().map(|&c| Stage::Solve(c)));
            stages.push(Stage::IntegratePositions);
            add_joints(&mut stages, relax.clone());
            stages.extend(used.iter().map(|&c| Stage::Relax(c)));
        }
        stages.extend(used.iter().map(|&c| Stage::Restitution(c)));
        add_joints(&mut stages, joints.project_stages());
        (stages, joint_stages)
    }

    /// Bundles per block of each colour's stages. The overflow, whose
    /// manifolds may share bodies, is one block, solved in order. Block
    /// sizes follow the thread count; results do not.
    fn block_sizes(&self) -> Vec<usize> {
        let threads = crate::parallel::threads();
        let sizes = self
            .colour_bundles
            .iter()
            .enumerate()
            .map(|(colour, range)| {
                let len = range.len().max(1);
                if colour == COLOURS {
                    len
                } else {
                    len.div_ceil(BLOCKS_PER_THREAD * threads)
                        .max(MIN_BUNDLES_PER_BLOCK)
                }
            });
        sizes.collect()
    }

    /// True when the `k`th input was solved this step.
    pub(crate) fn solved(&self, k: usize) -> bool {
        self.placed.get(k).is_some_and(|&p| p != UNSOLVED)
    }

    /// What the solver did at point `i` of the `k`th input, if it was
    /// solved. A point whose solve overflowed (bodies placed absurdly far
    /// apart, velocities near f32's limit) keeps no impulse: the next step
    /// starts it cold instead of warm starting with a NaN, and events
    /// report no push
    /// (`random_joints_levels_bullets_and_rollbacks_never_panic_or_leak_nan_2d`).
    pub(crate) fn solved_point(&self, k: usize, i: usize) -> Option<SolvedPoint> {
        let &(bundle, lane) = self.placed.get(k).filter(|&&p| p != UNSOLVED)?;
        let rows = self.points.get(bundle * D::MAX_MANIFOLD_POINTS + i)?;
        let finite = rows.normal_impulse[lane].is_finite()
            && (0..D::TANGENTS).all(|t| rows.tangent_impulse[t][lane].is_finite());
        let mut tangent_impulse = [0.0; 2];
        if finite {
            for (t, slot) in tangent_impulse.iter_mut().enumerate().take(D::TANGENTS) {
                *slot = rows.tangent_impulse[t][lane];
            }
        }
        Some(SolvedPoint {
            normal_impulse: if finite {
                rows.normal_impulse[lane]
            } else {
                0.0
            },
            tangent_impulse,
            total_normal_impulse: finite_or_zero(rows.total_normal_impulse[lane]),
            approach_speed: finite_or_zero(-rows.approach_speed[lane]),
        })
    }

    /// Step 4: the accumulated impulses of the `k`th input's manifold added
    /// back into it, for warm starting (nothing for an input that was `None`).
    pub(crate) fn store_impulses(&self, k: usize, manifold: &mut Manifold<D>) {
        if !self.solved(k) {
            return;
        }
        let mut tally = PushTally::default();
        for (i, mp) in manifold.points_mut().iter_mut().enumerate() {
            if let Some(solved) = self.solved_point(k, i) {
                solved.store_into(mp);
                tally.add(i, &solved);
            }
        }
        manifold.set_pushed(tally.pushed);
    }
}

/// The bundles and body states during the parallel loop, shared between
/// the threads.
struct BundleView<'a, D: SolverDim> {
    bundles: &'a [ManifoldBundle<D>],
    points: Shared<'a, PointLanes<D>>,
    /// The bodies' states, then the all-zero state of empty lanes' bodies,
    /// which pushes on nothing (and does not move, so it is never written).
    states: Shared<'a, D::BodyState>,
}

impl<D: SolverDim> BundleView<'_, D> {
    /// Calls `f` with each bundle of `range`, its points, and its bodies'
    /// velocities gathered into lanes (and their motions, if `motions`), then
    /// scatters the velocities of the bodies the solver moves back.
    fn run(
        &self,
        range: Range<usize>,
        motions: bool,
        f: impl Fn(
            &ManifoldBundle<D>,
            &mut [PointLanes<D>],
            &mut Velocities<D>,
            &mut Velocities<D>,
            &[Motions<D>; 2],
        ),
    ) {
        let count = D::MAX_MANIFOLD_POINTS;
        for (index, bundle) in self.bundles[range.clone()].iter().enumerate() {
            let index = range.start + index;
            // SAFETY: within a colour no two manifolds share a moving body
            // (the constraint graph), so no two bundles of a stage, nor two
            // lanes of a bundle, hold the same moving body; the overflow
            // (whose manifolds may share) runs as one block, a manifold per
            // bundle; the stages run one after another. So a moving body's
            // state is read and written only here while this runs, and that
            // of a body that does not move is only read (no one writes it in
            // a constraint stage). Each bundle owns its points.
            let points = unsafe { self.points.range_mut(index * count..(index + 1) * count) };
            let (mut a, motion_a) = unsafe { self.gather(&bundle.body_a, motions) };
            let (mut b, motion_b) = unsafe { self.gather(&bundle.body_b, motions) };
            f(bundle, points, &mut a, &mut b, &[motion_a, motion_b]);
            // SAFETY: as above.
            unsafe {
                self.scatter(&bundle.body_a, &bundle.moves_a, &a);
                self.scatter(&bundle.body_b, &bundle.moves_b, &b);
            }
        }
    }

    /// The velocities of `bodies` in lanes, and their motions since the step began if `motions`
    /// (an empty lane's are zero: its body is the extra all-zero state).
    ///
    /// # Safety
    /// No state of `bodies` may be written while this runs.
    #[inline]
    unsafe fn gather(
        &self,
        bodies: &[BodyIndex; LANES],
        motions: bool,
    ) -> (Velocities<D>, Motions<D>) {
        // SAFETY: by the caller's contract.
        let state = |i: BodyIndex| unsafe { self.states.get(i as usize) };
        let lanes = [
            state(bodies[0]),
            state(bodies[1]),
            state(bodies[2]),
            state(bodies[3]),
        ];
        let (linear, angular) = D::BodyState::gather_velocities(lanes);
        let velocities = Velocities { linear, angular };
        let motion = if motions {
            let (displacement, turn) = D::BodyState::gather_motions(lanes);
            Motions { displacement, turn }
        } else {
            Motions::default()
        };
        (velocities, motion)
    }

    /// The lanes of `velocities` whose body moves written back to its state.
    ///
    /// # Safety
    /// No other reference to the state of a moving body of `bodies` may be
    /// alive.
    #[inline]
    unsafe fn scatter(
        &self,
        bodies: &[BodyIndex; LANES],
        moves: &[bool; LANES],
        velocities: &Velocities<D>,
    ) {
        let lanes = D::BodyState::velocities_by_lane(&velocities.linear, &velocities.angular);
        for ((&index, &moves), velocity) in bodies.iter().zip(moves).zip(lanes) {
            if moves {
                // SAFETY: by the caller's contract.
                unsafe { self.states.get_mut(index as usize) }.set_velocity(velocity);
            }
        }
    }
}

/// No accumulated impulse on any row of any lane: the bundle pushes on
/// nothing.
fn is_idle<D: SolverDim>(points: &[PointLanes<D>]) -> bool {
    points.iter().all(|p| {
        let pushes = (0..D::TANGENTS).fold(p.normal_impulse.cmpne(Vec4::ZERO), |any, k| {
            any | p.tangent_impulse[k].cmpne(Vec4::ZERO)
        });
        !pushes.any()
    })
}

fn warm_start<D: SolverDim>(
    c: &ManifoldBundle<D>,
    points: &mut [PointLanes<D>],
    a: &mut Velocities<D>,
    b: &mut Velocities<D>,
) {
    if is_idle(points) {
        return;
    }
    let mut impulse = Impulse::default();
    let mut normal = Vec4::ZERO;
    for p in points.iter() {
        let row = p.row(&c.normal);
        impulse.add_row(&row, p.normal_impulse);
        normal += p.normal_impulse;
    }
    impulse.along(&c.normal, normal);
    for k in 0..D::TANGENTS {
        let mut tangent = Vec4::ZERO;
        for p in points.iter() {
            let row = p.row(&c.tangents[k]);
            impulse.add_row(&row, p.tangent_impulse[k]);
            tangent += p.tangent_impulse[k];
        }
        impulse.along(&c.tangents[k], tangent);
    }
    impulse.apply(c, a, b);
}

/// How one pass treats overlap: soft push-out in the solve pass, none in
/// the relax pass (a softness of zero hertz: rigid, no bias).
struct Pass {
    soft: SoftnessLanes,
    soft_static: SoftnessLanes,
    /// The relax pass: rigid rows, each mode of a manifold stopped without
    /// overshoot.
    relax: bool,
    max_push_out_speed: Vec4,
    inv_h: Vec4,
}

/// A [`Softness`] in every lane.
#[derive(Copy, Clone, Debug)]
struct SoftnessLanes {
    bias_rate: Vec4,
    mass_scale: Vec4,
    impulse_scale: Vec4,
}

impl SoftnessLanes {
    fn splat(s: Softness) -> Self {
        Self {
            bias_rate: Vec4::splat(s.bias_rate),
            mass_scale: Vec4::splat(s.mass_scale),
            impulse_scale: Vec4::splat(s.impulse_scale),
        }
    }

    /// Per lane, `if_true` where `mask`, else `self`.
    #[inline]
    fn select(self, mask: BVec4A, if_true: Self) -> Self {
        Self {
            bias_rate: Vec4::select(mask, if_true.bias_rate, self.bias_rate),
            mass_scale: Vec4::select(mask, if_true.mass_scale, self.mass_scale),
            impulse_scale: Vec4::select(mask, if_true.impulse_scale, self.impulse_scale),
        }
    }
}

impl Pass {
    fn new(
        soft: Softness,
        soft_static: Softness,
        relax: bool,
        max_push_out_speed: f32,
        inv_h: f32,
    ) -> Self {
        Self {
            soft: SoftnessLanes::splat(soft),
            soft_static: SoftnessLanes::splat(soft_static),
            relax,
            max_push_out_speed: Vec4::splat(max_push_out_speed),
            inv_h: Vec4::splat(inv_h),
        }
    }

    /// The softness of each lane's normal rows: the stiffer one against a
    /// body that cannot move; and rigid (no mass or impulse scaling) while
    /// every point of the manifold is apart. The bias rate stays that of
    /// the soft rows (a gap's bias does not use it). The softness is the
    /// manifold's, not each point's: chosen per point, the corners of a box
    /// landing flat cross zero separation in the same substep and rounding
    /// splits them between rigid and soft rows, whose impulses differ by a
    /// tenth: the box lands spinning, and columns of dropped boxes topple.
    #[inline]
    fn softness(&self, against_static: BVec4A, overlapping: BVec4A) -> SoftnessLanes {
        let soft = self.soft.select(against_static, self.soft_static);
        SoftnessLanes {
            bias_rate: soft.bias_rate,
            mass_scale: Vec4::select(overlapping, soft.mass_scale, Vec4::ONE),
            impulse_scale: Vec4::select(overlapping, soft.impulse_scale, Vec4::ZERO),
        }
    }

    /// Each normal row's targets at its `separation`: a gap the bodies may
    /// close this substep and no more (speculative: a velocity the row
    /// allows, `s / h`), or soft push-out of an overlap (a velocity it
    /// adds, at most `max_push_out_speed`).
    #[inline]
    fn targets(&self, separation: Vec4, bias_rate: Vec4) -> Targets {
        let gap = separation.cmpgt(Vec4::ZERO);
        let push_out = (separation * bias_rate).max(-self.max_push_out_speed);
        Targets {
            speculative: Vec4::select(gap, separation * self.inv_h, Vec4::ZERO),
            push_out: Vec4::select(gap, Vec4::ZERO, push_out),
        }
    }
}

/// A normal row's velocity targets, m/s (see [`Pass::targets`]).
struct Targets {
    speculative: Vec4,
    push_out: Vec4,
}

/// One pass over a bundle's rows: normals, then friction.
fn solve_bundle<D: SolverDim>(
    c: &ManifoldBundle<D>,
    points: &mut [PointLanes<D>],
    a: &mut Velocities<D>,
    b: &mut Velocities<D>,
    motions: &[Motions<D>; 2],
    pass: &Pass,
) {
    solve_normals_together(c, points, a, b, motions, pass);
    solve_friction_together(c, points, a, b);
}

/// Every normal row of a manifold from the same velocities (Jacobi), then
/// their sum applied: solved one after another, the first corner of a box
/// resting flat would take more than its share and set the box spinning.
/// For the approach velocity each row's mass is divided by its share, so
/// that a common approach is stopped exactly once, not once per point; the
/// soft push-out keeps the row's full mass, which holds a loaded stack as
/// stiffly as a lone point would be held. Each total stays >= 0.
///
/// The shares are exact for the manifold pushing as one, but overshoot its
/// rocking (1.5 times for a cube on a cube); with the clamp at zero, an
/// overshoot that lifts one side breaks the symmetry of an impact, and a
/// column of cubes dropped off the origin topples. So the relax pass, which
/// leaves the velocities the step ends with, caps each row's mass by one
/// over the manifold's stiffest mode: no mode overshoots there.
fn solve_normals_together<D: SolverDim>(
    c: &ManifoldBundle<D>,
    points: &mut [PointLanes<D>],
    a: &mut Velocities<D>,
    b: &mut Velocities<D>,
    [motion_a, motion_b]: &[Motions<D>; 2],
    pass: &Pass,
) {
    // Separation along the normal from the bodies' motions: the normal is
    // turned back by each body's turn once, then each point is a dot
    // product (`n · R r = Rᵀn · r`).
    // Each core point is its anchor plus `(half gap + radius) n` on B's
    // side (minus on A's), turned with its body: `n · R c = Rᵀn · c`.
    let normal_in_a = motion_a.turn.inverse_rotate(&c.normal);
    let normal_in_b = motion_b.turn.inverse_rotate(&c.normal);
    let (turned_a, turned_b) = (c.normal.dot(&normal_in_a), c.normal.dot(&normal_in_b));
    let moved = (motion_b.displacement - motion_a.displacement).dot(&c.normal);
    let rounded = c.radius_b * turned_b + c.radius_a * turned_a;
    let mut separations = [Vec4::ZERO; 4];
    let mut overlapping = BVec4A::FALSE;
    for (p, separation) in points.iter().zip(&mut separations) {
        *separation = p.base_separation + moved + p.anchor_b.dot(&normal_in_b)
            - p.anchor_a.dot(&normal_in_a)
            + p.half_gap * (turned_a + turned_b)
            + rounded;
        overlapping |= separation.cmple(Vec4::ZERO) & p.in_use();
    }
    let soft = pass.softness(c.against_static, overlapping);
    let linear = c.normal.dot(&(b.linear - a.linear));
    let mut impulse = Impulse::default();
    let mut sum = Vec4::ZERO;
    for (p, &separation) in points.iter_mut().zip(&separations) {
        let row = p.row(&c.normal);
        let vn = row.velocity(linear, a, b);
        if !pass.relax {
            // The fastest approach of the step: a speculative point met
            // mid-step is struck at the speed gravity has added by then.
            p.approach_speed = p.approach_speed.min(vn);
        }
        let targets = pass.targets(separation, soft.bias_rate);
        let approach_mass = if pass.relax {
            p.normal_relax_mass
        } else {
            p.normal_shared_mass
        };
        // The approach, less the gap it may close, is stopped once for the
        // manifold (shared masses); the push-out acts per point. Unused
        // lanes have zero masses and impulses: their lambda is zero.
        let lambda = -(approach_mass * (vn + targets.speculative)
            + p.normal_mass * targets.push_out)
            * soft.mass_scale
            - p.normal_impulse * soft.impulse_scale;
        // `max` keeps its second operand for a NaN lane: a NaN total gives zero.
        let total = (p.normal_impulse + lambda).max(Vec4::ZERO);
        let added = total - p.normal_impulse;
        p.normal_impulse = total;
        if pass.relax {
            // The substep's impulse: its warm start and every solve's
            // addition, which is what the row holds once it is relaxed.
            p.total_normal_impulse += total;
        }
        impulse.add_row(&row, added);
        sum += added;
    }
    impulse.along(&c.normal, sum);
    impulse.apply(c, a, b);
}

/// Friction likewise: every point's tangent rows from the velocities the
/// normal rows left, each within `friction * normal impulse`, then applied.
/// Both tangents' rows act together, so in 3D a manifold's friction masses
/// are lowered where they would overshoot its twist about the normal
/// (`prepare::twist_scale`).
fn solve_friction_together<D: SolverDim>(
    c: &ManifoldBundle<D>,
    points: &mut [PointLanes<D>],
    a: &mut Velocities<D>,
    b: &mut Velocities<D>,
) {
    if is_idle(points) {
        // No normal impulse, so no friction either: gaps not yet closing.
        return;
    }
    let relative = b.linear - a.linear;
    let mut impulse = Impulse::default();
    for k in 0..D::TANGENTS {
        let linear = c.tangents[k].dot(&relative);
        let mut sum = Vec4::ZERO;
        for p in points.iter_mut() {
            let limit = p.normal_impulse * c.friction;
            let row = p.row(&c.tangents[k]);
            let vt = row.velocity(linear, a, b);
            let old = p.tangent_impulse[k];
            // min, then max: no panic on a limit gone NaN (an overflow the
            // world then discards).
            let total = (old - p.tangent_shared_mass[k] * vt).min(limit).max(-limit);
            p.tangent_impulse[k] = total;
            impulse.add_row(&row, total - old);
            sum += total - old;
        }
        impulse.along(&c.tangents[k], sum);
    }
    impulse.apply(c, a, b);
}

/// Step 3: bounce points that approached faster than the threshold, one
/// point after another (each lane its own manifold).
fn apply_restitution<D: SolverDim>(
    c: &ManifoldBundle<D>,
    points: &mut [PointLanes<D>],
    a: &mut Velocities<D>,
    b: &mut Velocities<D>,
    threshold: f32,
) {
    let bouncy = c.restitution.cmpne(Vec4::ZERO);
    if !bouncy.any() {
        return;
    }
    // The points' bounces depend on each other (a bounce at one corner of
    // a box face turns the box and changes what the next corner sees):
    // one sweep point after point sent two cubes meeting head on at
    // 400 m/s back 12-14% short; a few sweeps converge on every point's
    // target together (`two_bullets_meeting_head_on_collide_2d`, `_3d`).
    for _ in 0..RESTITUTION_SWEEPS {
        for p in points.iter_mut() {
            let bounces = bouncy
                & p.in_use()
                & p.approach_speed.cmple(Vec4::splat(-threshold))
                & p.total_normal_impulse.cmpgt(Vec4::ZERO);
            if !bounces.any() {
                continue;
            }
            let linear = c.normal.dot(&(b.linear - a.linear));
            let row = p.row(&c.normal);
            let vn = row.velocity(linear, a, b);
            let old = p.normal_impulse;
            let target = vn + c.restitution * p.approach_speed;
            let total = Vec4::select(bounces, (old - p.normal_mass * target).max(Vec4::ZERO), old);
            p.normal_impulse = total;
            p.total_normal_impulse += total - old;
            let mut impulse = Impulse::default();
            impulse.add_row(&row, total - old);
            impulse.along(&c.normal, total - old);
            impulse.apply(c, a, b);
        }
    }
}

/// Sweeps of the restitution rows over a manifold's points: four bring a
/// face's corners to within a few tenths of a percent of their bounce
/// (`two_bullets_meeting_head_on_collide_2d`, `_3d`).
const RESTITUTION_SWEEPS: usize = 4;

/// `value`, or zero when it is NaN or infinite.
fn finite_or_zero(value: f32) -> f32 {
    if value.is_finite() {
        value
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unchanged_step_keeps_the_layout_a_fresh_colouring_gives() {
        use crate::math::{MathDim, Pose, D2};
        let mut bodies = vec![SolverBody::<D2>::at_rest(glam::Vec2::ZERO, D2::identity()); 12];
        for body in &mut bodies[1..] {
            body.inv_mass = 1.0;
        }
        let manifold = Manifold::<D2>::default();
        let pose = Pose::<D2>::identity();
        let chain = |pairs: &[(usize, usize)]| -> Vec<Option<ManifoldInput<D2>>> {
            pairs
                .iter()
                .map(|&(a, b)| {
                    Some(ManifoldInput::new(
                        [a, b],
                        [&pose, &pose],
                        [0.0, 0.0],
                        [0.5, 0.0],
                        manifold.normal,
                        manifold.points(),
                    ))
                })
                .collect()
        };
        let first: Vec<(usize, usize)> = (0..11).map(|i| (i, i + 1)).collect();
        let mut kept = ContactSolver::<D2>::default();
        kept.prepare(&chain(&first), &bodies);
        kept.prepare(&chain(&first), &bodies);
        let mut fresh = ContactSolver::<D2>::default();
        fresh.prepare(&chain(&first), &bodies);
        assert_eq!(kept.bundle_inputs, fresh.bundle_inputs);
        assert_eq!(kept.placed, fresh.placed);
        // A body that stops moving changes the colours: laid out afresh.
        bodies[5].inv_mass = 0.0;
        kept.prepare(&chain(&first), &bodies);
        let mut fresh = ContactSolver::<D2>::default();
        fresh.prepare(&chain(&first), &bodies);
        assert_eq!(kept.bundle_inputs, fresh.bundle_inputs);
        assert_eq!(kept.colour_bundles, fresh.colour_bundles);
    }
}
