//! Soft-step sequential impulses (Catto; Box2D v3's `solver.c` and
//! `contact_solver.c`).
//!
//! 1. Prepare: per manifold point, a row for the normal and each tangent with
//!    its Jacobian's angular parts and their images under the inverse
//!    inertias (so applying an impulse is a few scaled adds), effective
//!    masses, and the approach speed (for restitution).
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
//! from the pair order alone, so results do not depend on threads), and
//! the rows *within* a manifold together, from the same velocities, each
//! row's mass divided by its share of the manifold's common push: solved one
//! after another, the first corner of a box resting flat takes more than its
//! share, the box spins, and a tall stack leans from that seed. As in Box2D
//! v3, overlap is pushed out softly from the first millimetre (no slop), so
//! a pyramid of 40 rows sinks about 1.4 mm a row.

use core::ops::Range;

use super::constraint_graph::{ConstraintGraph, COLOURS};
use super::integrate::{integrate_positions, integrate_velocities, SolverBody};
use super::manifold::Manifold;
use super::stages::{run_stages, Shared};
use crate::math::{Angular, Dim, Vector};
use crate::settings::Settings;
use rayon::prelude::*;

/// Soft constraint coefficients for one substep (Box2D's `b2Softness`).
#[derive(Copy, Clone, Debug)]
struct Softness {
    bias_rate: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

impl Softness {
    /// No softness: a rigid constraint without bias (the relax pass).
    const RIGID: Self = Self {
        bias_rate: 0.0,
        mass_scale: 1.0,
        impulse_scale: 0.0,
    };

    fn new(hertz: f32, damping_ratio: f32, h: f32) -> Self {
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

/// The angular parts of a velocity constraint's Jacobian along a direction
/// `d` at a contact point: `r_a × d` and `r_b × d`. Their images under the
/// inverse inertias are not kept: a manifold's impulses are summed first and
/// turned into spin with one product per body.
#[derive(Copy, Clone, Debug, Default)]
struct Jacobian<D: Dim> {
    a: D::AngularVector,
    b: D::AngularVector,
}

impl<D: Dim> Jacobian<D> {
    fn new(r_a: D::Vector, r_b: D::Vector, d: D::Vector) -> Self {
        Self {
            a: D::cross(r_a, d),
            b: D::cross(r_b, d),
        }
    }

    /// Relative velocity of B against A along the row, given the linear
    /// part `d · (v_b - v_a)` (shared by a manifold's rows), m/s.
    #[inline]
    fn velocity(&self, linear: f32, a: &SolverBody<D>, b: &SolverBody<D>) -> f32 {
        linear + self.b.dot(b.angular_velocity) - self.a.dot(a.angular_velocity)
    }
}

/// Impulses summed over a manifold's rows, applied to both bodies at once.
#[derive(Copy, Clone, Debug)]
struct Impulse<D: Dim> {
    /// Linear impulse on B (its opposite on A), N·s.
    linear: D::Vector,
    /// Angular impulses `Σ λ J`, before the inverse inertias.
    angular_a: D::AngularVector,
    angular_b: D::AngularVector,
}

impl<D: Dim> Impulse<D> {
    fn zero() -> Self {
        Self {
            linear: D::Vector::ZERO,
            angular_a: D::AngularVector::default(),
            angular_b: D::AngularVector::default(),
        }
    }

    #[inline]
    fn add(&mut self, d: D::Vector, j: &Jacobian<D>, lambda: f32) {
        self.linear += d * lambda;
        self.angular_a += j.a * lambda;
        self.angular_b += j.b * lambda;
    }

    #[inline]
    fn apply(&self, a: &mut SolverBody<D>, b: &mut SolverBody<D>) {
        a.linear_velocity -= self.linear * a.inv_mass;
        a.angular_velocity -= D::mul_inertia(a.inv_inertia, self.angular_a);
        b.linear_velocity += self.linear * b.inv_mass;
        b.angular_velocity += D::mul_inertia(b.inv_inertia, self.angular_b);
    }
}

/// One manifold point's rows: normal and tangents.
#[derive(Copy, Clone, Debug, Default)]
struct ConstraintPoint<D: Dim> {
    /// Each surface point relative to its centre, in the body's rotated frame.
    local_a: D::Vector,
    local_b: D::Vector,
    normal: Jacobian<D>,
    tangents: [Jacobian<D>; 2],
    /// Effective mass along the normal, kg (for push-out and restitution).
    normal_mass: f32,
    /// The normal mass divided by how many rows' worth of push the row
    /// feels when the manifold's normal rows act together (for approach).
    normal_shared_mass: f32,
    /// That mass, but no more than one over the manifold's stiffest mode,
    /// for the relax pass (see `solve_normals_together`).
    normal_relax_mass: f32,
    /// Friction rows' effective masses, likewise divided by their shares.
    tangent_shared_mass: [f32; 2],
    /// Accumulated impulses, N·s.
    normal_impulse: f32,
    tangent_impulse: [f32; 2],
    max_normal_impulse: f32,
    /// Normal velocity before solving, m/s (negative when approaching).
    approach_speed: f32,
}

impl<D: Dim> ConstraintPoint<D> {
    /// No accumulated impulse on any row: the point pushes on nothing.
    fn is_idle(&self) -> bool {
        self.normal_impulse == 0.0 && self.tangent_impulse == [0.0; 2]
    }
}

/// The rows of one manifold; its points are `points[first..first + len]`
/// of its colour's set.
#[derive(Clone, Debug, Default)]
struct ContactConstraint<D: Dim> {
    body_a: usize,
    body_b: usize,
    normal: D::Vector,
    tangents: [D::Vector; 2],
    tangent_count: usize,
    friction: f32,
    restitution: f32,
    /// One body cannot move: the contact carries weight and is stiffer.
    against_static: bool,
    /// Which bodies the solver moves; the others are only read.
    moves: [bool; 2],
    first: usize,
    len: usize,
}

impl<D: Dim> ContactConstraint<D> {
    /// Where its points are in [`Contacts`]' points.
    fn points(&self) -> core::ops::Range<usize> {
        self.first..self.first + self.len
    }
}

/// What the solver needs of a manifold's pair.
pub(crate) struct ContactInput<'m, D: Dim> {
    pub body_a: usize,
    pub body_b: usize,
    /// The colliders' world poses, the frames the manifold's anchors live in.
    pub pose_a: crate::math::Pose<D>,
    pub pose_b: crate::math::Pose<D>,
    pub friction: f32,
    pub restitution: f32,
    pub manifold: &'m Manifold<D>,
}

/// One colour's constraints and all their points, back to back.
#[derive(Clone, Debug, Default)]
struct ColourSet<D: Dim> {
    constraints: Vec<ContactConstraint<D>>,
    points: Vec<ConstraintPoint<D>>,
    /// Points reserved while colouring, before `points` is sized.
    point_count: usize,
}

/// Fewest constraints in a block of a colour's stage (a block is the unit
/// one thread claims): smaller blocks cost more in claiming, and in cache
/// lines both threads write, than they gain in balance.
const MIN_CONSTRAINTS_PER_BLOCK: usize = 256;
/// Blocks per thread in a colour's stage, for balance.
const BLOCKS_PER_THREAD: usize = 2;
/// Bodies per block of an integration stage.
const BODIES_PER_BLOCK: usize = 1024;

/// What one stage of the substep loop does.
#[derive(Copy, Clone, Debug)]
enum Stage {
    IntegrateVelocities,
    WarmStart(usize),
    Solve(usize),
    IntegratePositions,
    Relax(usize),
    Restitution(usize),
}

/// In [`Contacts`]' places: an input that was not solved.
const UNSOLVED: (usize, usize) = (usize::MAX, usize::MAX);

/// Block `block` of `len` items cut into blocks of `size`.
fn block_range(block: usize, size: usize, len: usize) -> Range<usize> {
    (block * size).min(len)..((block + 1) * size).min(len)
}

/// Every contact constraint of a step, in contiguous arrays per colour of
/// the constraint graph (the last set is the overflow).
#[derive(Clone, Debug)]
pub(crate) struct Contacts<D: Dim> {
    colours: Vec<ColourSet<D>>,
    /// Where each input's manifold went: colour and index, or `UNSOLVED`.
    placed: Vec<(usize, usize)>,
    graph: ConstraintGraph,
}

impl<D: Dim> Default for Contacts<D> {
    fn default() -> Self {
        Self {
            colours: (0..=COLOURS).map(|_| ColourSet::default()).collect(),
            placed: Vec::new(),
            graph: ConstraintGraph::new(0),
        }
    }
}

impl<D: Dim> Contacts<D> {
    /// No constraints, ready for bodies `0..body_count`; the arrays keep
    /// their allocations for the next step.
    pub(crate) fn clear(&mut self, body_count: usize) {
        for set in &mut self.colours {
            // The points are not cleared: `prepare` sizes them and every
            // one is overwritten, so last step's need no fresh defaults.
            set.constraints.clear();
            set.point_count = 0;
        }
        self.placed.clear();
        self.graph.clear(body_count);
    }

    /// Step 1: the rows of every manifold, for bodies `bodies`; an input
    /// may be `None` (a pair not solved this step), and inputs keep their
    /// index for [`Contacts::store_impulses`]. Colours are handed out in
    /// input order (cheap, and it fixes the solve order for any thread
    /// count); then each manifold's rows are built, on all threads, into the
    /// places reserved for them.
    pub(crate) fn prepare(
        &mut self,
        inputs: &[Option<ContactInput<'_, D>>],
        bodies: &[SolverBody<D>],
    ) {
        self.clear(bodies.len());
        for input in inputs {
            let Some(input) = input else {
                self.placed.push(UNSOLVED);
                continue;
            };
            let moves = [
                bodies[input.body_a].inv_mass > 0.0,
                bodies[input.body_b].inv_mass > 0.0,
            ];
            let colour = self
                .graph
                .colour([(input.body_a, moves[0]), (input.body_b, moves[1])]);
            let set = &mut self.colours[colour];
            let first = set.point_count;
            let len = input.manifold.points().len().min(D::MAX_MANIFOLD_POINTS);
            self.placed.push((colour, set.constraints.len()));
            set.constraints.push(ContactConstraint {
                moves,
                first,
                len,
                ..ContactConstraint::default()
            });
            set.point_count += len;
        }
        for set in &mut self.colours {
            set.points
                .resize(set.point_count, ConstraintPoint::default());
        }
        let sets: Vec<_> = self
            .colours
            .iter_mut()
            .map(|set| {
                (
                    Shared::new(&mut set.constraints),
                    Shared::new(&mut set.points),
                )
            })
            .collect();
        inputs
            .par_iter()
            .zip(&self.placed)
            .with_min_len(MIN_CONSTRAINTS_PER_BLOCK)
            .filter_map(|(input, &place)| Some((input.as_ref()?, place)))
            .for_each(|(input, (colour, index))| {
                let (constraints, points) = &sets[colour];
                // SAFETY: each manifold has its own constraint and points,
                // reserved above; no one else touches them in this loop.
                let c = unsafe { constraints.get_mut(index) };
                let points = unsafe { points.range_mut(c.points()) };
                build_rows(input, bodies, c, points);
            });
    }

    /// Steps 2 and 3: the substep loop, then restitution.
    pub(crate) fn solve(&mut self, bodies: &mut [SolverBody<D>], settings: &Settings<D>, dt: f32) {
        let substeps = settings.substeps.max(1);
        let h = dt / substeps as f32;
        let inv_h = 1.0 / h;
        let hertz = settings.contact_hertz.min(0.25 * inv_h);
        let soft = Softness::new(hertz, settings.contact_damping_ratio, h);
        // Contacts with a body that cannot move are twice as stiff (Box2D v3):
        // they carry the whole stack's weight.
        let soft_static = Softness::new(2.0 * hertz, settings.contact_damping_ratio, h);
        let solve_pass = Pass {
            soft,
            soft_static,
            relax: false,
            max_push_out_speed: settings.max_push_out_speed,
            inv_h,
        };
        let relax_pass = Pass {
            soft: Softness::RIGID,
            soft_static: Softness::RIGID,
            relax: true,
            ..solve_pass
        };
        let threshold = settings.restitution_threshold;
        let stages = self.stages(substeps);
        let block_sizes = self.block_sizes();
        let body_blocks = bodies.len().div_ceil(BODIES_PER_BLOCK);
        let blocks: Vec<usize> = stages
            .iter()
            .map(|stage| match *stage {
                Stage::IntegrateVelocities | Stage::IntegratePositions => body_blocks,
                Stage::WarmStart(colour)
                | Stage::Solve(colour)
                | Stage::Relax(colour)
                | Stage::Restitution(colour) => {
                    let len = self.colours[colour].constraints.len();
                    len.div_ceil(block_sizes[colour])
                }
            })
            .collect();
        let body_count = bodies.len();
        let bodies = Shared::new(bodies);
        let colours: Vec<ColourView<'_, D>> = self
            .colours
            .iter_mut()
            .zip(&block_sizes)
            .map(|(set, &block_size)| ColourView {
                block_size,
                constraints: &set.constraints,
                points: Shared::new(&mut set.points),
            })
            .collect();
        run_stages(&blocks, |stage, block| {
            let range = block_range(block, BODIES_PER_BLOCK, body_count);
            match stages[stage] {
                // SAFETY: the blocks of a stage cover disjoint bodies.
                Stage::IntegrateVelocities => {
                    integrate_velocities(unsafe { bodies.range_mut(range) }, h)
                }
                // SAFETY: likewise.
                Stage::IntegratePositions => {
                    integrate_positions(unsafe { bodies.range_mut(range) }, h)
                }
                Stage::WarmStart(colour) => colours[colour].run(block, &bodies, warm_start),
                Stage::Solve(colour) => colours[colour].run(block, &bodies, |c, p, a, b| {
                    solve_contact(c, p, a, b, &solve_pass)
                }),
                Stage::Relax(colour) => colours[colour].run(block, &bodies, |c, p, a, b| {
                    solve_contact(c, p, a, b, &relax_pass)
                }),
                Stage::Restitution(colour) => colours[colour].run(block, &bodies, |c, p, a, b| {
                    apply_restitution(c, p, a, b, threshold)
                }),
            }
        });
    }

    /// The stages of a step: per substep, integrate velocities, warm start
    /// and solve colour by colour, integrate positions, relax; then
    /// restitution. Empty colours are left out.
    fn stages(&self, substeps: u32) -> Vec<Stage> {
        let used: Vec<usize> = (0..=COLOURS)
            .filter(|&c| !self.colours[c].constraints.is_empty())
            .collect();
        let mut stages = Vec::new();
        for _ in 0..substeps {
            stages.push(Stage::IntegrateVelocities);
            stages.extend(used.iter().map(|&c| Stage::WarmStart(c)));
            stages.extend(used.iter().map(|&c| Stage::Solve(c)));
            stages.push(Stage::IntegratePositions);
            stages.extend(used.iter().map(|&c| Stage::Relax(c)));
        }
        stages.extend(used.iter().map(|&c| Stage::Restitution(c)));
        stages
    }

    /// Constraints per block of each colour's stages. The overflow, whose
    /// constraints may share bodies, is one block, solved in order. Block
    /// sizes follow the thread count; results do not.
    fn block_sizes(&self) -> Vec<usize> {
        let threads = rayon::current_num_threads();
        let sizes = self.colours.iter().enumerate().map(|(colour, set)| {
            let len = set.constraints.len().max(1);
            if colour == COLOURS {
                len
            } else {
                len.div_ceil(BLOCKS_PER_THREAD * threads)
                    .max(MIN_CONSTRAINTS_PER_BLOCK)
            }
        });
        sizes.collect()
    }

    /// Step 4: the accumulated impulses of the `k`th input's manifold added
    /// back into it, for warm starting (nothing for an input that was `None`).
    pub(crate) fn store_impulses(&self, k: usize, manifold: &mut Manifold<D>) {
        let Some(&(colour, index)) = self.placed.get(k).filter(|&&p| p != UNSOLVED) else {
            return;
        };
        let set = &self.colours[colour];
        let c = &set.constraints[index];
        let points = &set.points[c.points()];
        for (mp, p) in manifold.points_mut().iter_mut().zip(points) {
            mp.normal_impulse = p.normal_impulse;
            mp.tangent_impulse = p.tangent_impulse;
        }
    }
}

/// One manifold's rows into its reserved constraint (whose `moves`,
/// `first` and `len` are set) and points.
fn build_rows<D: Dim>(
    input: &ContactInput<'_, D>,
    bodies: &[SolverBody<D>],
    c: &mut ContactConstraint<D>,
    points: &mut [ConstraintPoint<D>],
) {
    let (a, b) = (&bodies[input.body_a], &bodies[input.body_b]);
    let normal = input.manifold.normal;
    let (tangents, tangent_count) = D::tangents(normal);
    for (i, (mp, point)) in input
        .manifold
        .points()
        .iter()
        .zip(points.iter_mut())
        .enumerate()
    {
        let (pa, pb) = input.manifold.world_points(&input.pose_a, &input.pose_b, i);
        let r_a = mp.lever_a + input.pose_a.translation - a.center;
        let r_b = mp.lever_b + input.pose_b.translation - b.center;
        let normal_row = Jacobian::new(r_a, r_b, normal);
        let mut tangent_rows = [Jacobian::default(); 2];
        for k in 0..tangent_count {
            tangent_rows[k] = Jacobian::new(r_a, r_b, tangents[k]);
        }
        let linear = normal.dot(b.linear_velocity - a.linear_velocity);
        *point = ConstraintPoint {
            local_a: D::inverse_rotate(a.rotation, pa - a.center),
            local_b: D::inverse_rotate(b.rotation, pb - b.center),
            approach_speed: normal_row.velocity(linear, a, b),
            normal: normal_row,
            tangents: tangent_rows,
            normal_impulse: mp.normal_impulse,
            tangent_impulse: mp.tangent_impulse,
            ..ConstraintPoint::default()
        };
    }
    set_masses(points, tangent_count, a, b);
    *c = ContactConstraint {
        body_a: input.body_a,
        body_b: input.body_b,
        normal,
        tangents,
        tangent_count,
        friction: input.friction,
        restitution: input.restitution,
        against_static: !c.moves[0] || !c.moves[1],
        ..*c
    };
}

/// One colour's constraints during the parallel loop, their points shared
/// between the threads.
struct ColourView<'a, D: Dim> {
    /// Constraints per block.
    block_size: usize,
    constraints: &'a [ContactConstraint<D>],
    points: Shared<'a, ConstraintPoint<D>>,
}

impl<D: Dim> ColourView<'_, D> {
    /// Calls `f` with each constraint of block `block`, its points and its
    /// two bodies. A body the solver does not move is passed as a copy,
    /// whose changes (none: its inverse mass is zero) are dropped.
    fn run(
        &self,
        block: usize,
        bodies: &Shared<'_, SolverBody<D>>,
        f: impl Fn(
            &ContactConstraint<D>,
            &mut [ConstraintPoint<D>],
            &mut SolverBody<D>,
            &mut SolverBody<D>,
        ),
    ) {
        let range = block_range(block, self.block_size, self.constraints.len());
        for c in &self.constraints[range] {
            let (mut copy_a, mut copy_b);
            // SAFETY: within a colour no two constraints share a moving
            // body (the constraint graph), the overflow runs as one block,
            // and the stages run one after another, so `get_mut` on a
            // moving body is exclusive; a body that does not move is never
            // handed out mutably in a constraint stage, only read (`get`);
            // each constraint owns its points `first..first + len`.
            let (a, b, points) = unsafe {
                let a = if c.moves[0] {
                    bodies.get_mut(c.body_a)
                } else {
                    copy_a = *bodies.get(c.body_a);
                    &mut copy_a
                };
                let b = if c.moves[1] {
                    bodies.get_mut(c.body_b)
                } else {
                    copy_b = *bodies.get(c.body_b);
                    &mut copy_b
                };
                (a, b, self.points.range_mut(c.points()))
            };
            f(c, points, a, b);
        }
    }
}

/// Each row's effective mass, and for approach and friction that mass
/// divided by its share of the manifold's common push: how many rows' worth
/// of push it feels when the rows along the same direction act together.
fn set_masses<D: Dim>(
    points: &mut [ConstraintPoint<D>],
    tangent_count: usize,
    a: &SolverBody<D>,
    b: &SolverBody<D>,
) {
    let inverse = |k: f32| if k > 0.0 { 1.0 / k } else { 0.0 };
    let rows = |row: fn(&ConstraintPoint<D>) -> Jacobian<D>| -> [Jacobian<D>; 4] {
        core::array::from_fn(|i| points.get(i).map_or(Jacobian::default(), row))
    };
    let count = points.len();
    let normals = couplings(&rows(|p| p.normal)[..count], a, b);
    let tangent_rows = [rows(|p| p.tangents[0]), rows(|p| p.tangents[1])];
    let mut frictions = [[[0.0f32; 4]; 4]; 2];
    for (friction, rows) in frictions.iter_mut().zip(&tangent_rows).take(tangent_count) {
        *friction = couplings(&rows[..count], a, b);
    }
    let stiffest = largest_eigenvalue(&normals, count);
    for (i, p) in points.iter_mut().enumerate() {
        p.normal_mass = inverse(normals[i][i]);
        p.normal_shared_mass = p.normal_mass / share(&normals[i][..count], i, false);
        p.normal_relax_mass = if stiffest.is_finite() && stiffest > 0.0 {
            p.normal_shared_mass.min(1.0 / stiffest)
        } else {
            p.normal_shared_mass
        };
        let masses = p.tangent_shared_mass.iter_mut();
        for (mass, friction) in masses.zip(&frictions[..tangent_count]) {
            *mass = inverse(friction[i][i]) / share(&friction[i][..count], i, true);
        }
    }
}

/// The symmetric matrix of couplings between a manifold's rows along one
/// direction, `K[i][j] = J_i M⁻¹ J_jᵀ`; each row's image under the inverse
/// inertias is formed once.
fn couplings<D: Dim>(rows: &[Jacobian<D>], a: &SolverBody<D>, b: &SolverBody<D>) -> [[f32; 4]; 4] {
    let turned: [Jacobian<D>; 4] = core::array::from_fn(|i| {
        rows.get(i).map_or(Jacobian::default(), |row| Jacobian {
            a: D::mul_inertia(a.inv_inertia, row.a),
            b: D::mul_inertia(b.inv_inertia, row.b),
        })
    });
    let inv_masses = a.inv_mass + b.inv_mass;
    let mut k = [[0.0f32; 4]; 4];
    for i in 0..rows.len() {
        for j in i..rows.len() {
            k[i][j] = inv_masses + rows[i].a.dot(turned[j].a) + rows[i].b.dot(turned[j].b);
            k[j][i] = k[i][j];
        }
    }
    k
}

/// The largest eigenvalue of the symmetric positive semi-definite
/// `k[..n][..n]`, or about it: exact for one or two rows; for more, the
/// largest Rayleigh quotient over the sign patterns a rectangle of corners
/// moves in (exact for a rectangle, from below otherwise) raised by 5%, and
/// never above the Gershgorin bound (the largest absolute row sum).
fn largest_eigenvalue(k: &[[f32; 4]; 4], n: usize) -> f32 {
    match n {
        0 => 0.0,
        1 => k[0][0],
        2 => {
            let (mean, half) = ((k[0][0] + k[1][1]) * 0.5, (k[0][0] - k[1][1]) * 0.5);
            mean + (half * half + k[0][1] * k[0][1]).sqrt()
        }
        _ => {
            let gershgorin = (0..n)
                .map(|i| k[i][..n].iter().map(|x| x.abs()).sum::<f32>())
                .fold(0.0f32, f32::max);
            // A rectangle of corners pushes, rocks and twists in these sign
            // patterns, so for one the largest quotient is exact.
            let patterns: [[f32; 4]; 4] = [
                [1.0, 1.0, 1.0, 1.0],
                [1.0, 1.0, -1.0, -1.0],
                [1.0, -1.0, 1.0, -1.0],
                [1.0, -1.0, -1.0, 1.0],
            ];
            let quotient = |p: &[f32; 4]| {
                let sum: f32 = (0..n)
                    .flat_map(|i| (0..n).map(move |j| (i, j)))
                    .map(|(i, j)| p[i] * p[j] * k[i][j])
                    .sum();
                sum / n as f32
            };
            let estimate = patterns.iter().map(quotient).fold(0.0f32, f32::max);
            (estimate * 1.05).min(gershgorin)
        }
    }
}

/// Row `i`'s share: its coupling row summed (signed, or by magnitude) over
/// its diagonal, at least 1.
fn share(row: &[f32], i: usize, magnitude: bool) -> f32 {
    let sum: f32 = row
        .iter()
        .map(|&k| if magnitude { k.abs() } else { k })
        .sum();
    if row[i] > 0.0 {
        (sum / row[i]).max(1.0)
    } else {
        1.0
    }
}

fn warm_start<D: Dim>(
    c: &ContactConstraint<D>,
    points: &mut [ConstraintPoint<D>],
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
) {
    if points.iter().all(ConstraintPoint::is_idle) {
        return;
    }
    let mut impulse = Impulse::zero();
    for p in points.iter() {
        impulse.add(c.normal, &p.normal, p.normal_impulse);
        for k in 0..c.tangent_count {
            impulse.add(c.tangents[k], &p.tangents[k], p.tangent_impulse[k]);
        }
    }
    impulse.apply(a, b);
}

/// How one pass treats overlap: soft push-out in the solve pass, none in
/// the relax pass (a softness of zero hertz: rigid, no bias).
struct Pass {
    soft: Softness,
    soft_static: Softness,
    /// The relax pass: rigid rows, each mode of a manifold stopped without
    /// overshoot.
    relax: bool,
    max_push_out_speed: f32,
    inv_h: f32,
}

/// A normal row's bias and softness for one pass.
#[derive(Copy, Clone, Debug, Default)]
struct NormalRow {
    bias: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

impl Pass {
    /// The softness of a manifold's normal rows.
    fn softness(&self, against_static: bool) -> Softness {
        if against_static {
            self.soft_static
        } else {
            self.soft
        }
    }

    /// A normal row's bias and softness at `separation`: a gap the bodies
    /// may close this substep and no more (speculative), or soft push-out.
    /// Written as selects, which compile without branches: manifolds of
    /// either kind alternate in a pile.
    #[inline]
    fn normal_row(&self, separation: f32, soft: Softness) -> NormalRow {
        let gap = separation > 0.0;
        let push_out = at_least(soft.bias_rate * separation, -self.max_push_out_speed);
        NormalRow {
            bias: if gap {
                separation * self.inv_h
            } else {
                push_out
            },
            mass_scale: if gap { 1.0 } else { soft.mass_scale },
            impulse_scale: if gap { 0.0 } else { soft.impulse_scale },
        }
    }
}

/// One pass over a manifold's rows: normals, then friction.
fn solve_contact<D: Dim>(
    c: &ContactConstraint<D>,
    points: &mut [ConstraintPoint<D>],
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
    pass: &Pass,
) {
    solve_normals_together(c, points, a, b, pass);
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
fn solve_normals_together<D: Dim>(
    c: &ContactConstraint<D>,
    points: &mut [ConstraintPoint<D>],
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
    pass: &Pass,
) {
    // Separation along the normal from the current poses: the normal is
    // turned into each body's frame once, then each point is a dot product.
    let normal_in_a = D::inverse_rotate(a.rotation, c.normal);
    let normal_in_b = D::inverse_rotate(b.rotation, c.normal);
    let centres = (b.center - a.center).dot(c.normal);
    let linear = c.normal.dot(b.linear_velocity - a.linear_velocity);
    let soft = pass.softness(c.against_static);
    let mut impulse = Impulse::zero();
    for p in points.iter_mut() {
        let separation = centres + p.local_b.dot(normal_in_b) - p.local_a.dot(normal_in_a);
        let row = pass.normal_row(separation, soft);
        let vn = p.normal.velocity(linear, a, b);
        let approach_mass = if pass.relax {
            p.normal_relax_mass
        } else {
            p.normal_shared_mass
        };
        let lambda = -row.mass_scale * (approach_mass * vn + p.normal_mass * row.bias)
            - row.impulse_scale * p.normal_impulse;
        let total = at_least(p.normal_impulse + lambda, 0.0);
        let added = total - p.normal_impulse;
        p.normal_impulse = total;
        p.max_normal_impulse = at_least(p.max_normal_impulse, added);
        impulse.add(c.normal, &p.normal, added);
    }
    impulse.apply(a, b);
}

/// Friction likewise: every point's tangent rows from the velocities the
/// normal rows left, each within `friction * normal impulse`, then applied.
fn solve_friction_together<D: Dim>(
    c: &ContactConstraint<D>,
    points: &mut [ConstraintPoint<D>],
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
) {
    if points.iter().all(ConstraintPoint::is_idle) {
        // No normal impulse, so no friction either: a gap not yet closing.
        return;
    }
    let relative = b.linear_velocity - a.linear_velocity;
    let linear = [c.tangents[0].dot(relative), c.tangents[1].dot(relative)];
    let mut impulse = Impulse::zero();
    for p in points.iter_mut() {
        let limit = c.friction * p.normal_impulse;
        for (k, &linear) in linear.iter().enumerate().take(c.tangent_count) {
            let vt = p.tangents[k].velocity(linear, a, b);
            let old = p.tangent_impulse[k];
            let total = within(old - p.tangent_shared_mass[k] * vt, limit);
            p.tangent_impulse[k] = total;
            impulse.add(c.tangents[k], &p.tangents[k], total - old);
        }
    }
    impulse.apply(a, b);
}

/// `x`, or `low` if `x` is below it. A plain comparison, which compiles
/// to one instruction in the solver's loops (`f32::max` also checks for
/// NaN); a NaN `x` gives `low`.
#[inline]
fn at_least(x: f32, low: f32) -> f32 {
    if x > low {
        x
    } else {
        low
    }
}

/// `x` within `-limit..=limit`. Unlike `f32::clamp` it never panics: a
/// limit gone NaN (an overflow the world then discards) passes `x` through.
#[inline]
fn within(x: f32, limit: f32) -> f32 {
    // Two selects (minss, maxss), not an if-else chain, which compiles to
    // branches that friction at its limit makes hard to predict.
    let below = if x > limit { limit } else { x };
    if below < -limit {
        -limit
    } else {
        below
    }
}

/// Step 3: bounce points that approached faster than the threshold.
fn apply_restitution<D: Dim>(
    c: &ContactConstraint<D>,
    points: &mut [ConstraintPoint<D>],
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
    threshold: f32,
) {
    if c.restitution == 0.0 {
        return;
    }
    for p in points.iter_mut() {
        if p.approach_speed > -threshold || p.max_normal_impulse == 0.0 {
            continue;
        }
        let linear = c.normal.dot(b.linear_velocity - a.linear_velocity);
        let vn = p.normal.velocity(linear, a, b);
        let total =
            (p.normal_impulse - p.normal_mass * (vn + c.restitution * p.approach_speed)).max(0.0);
        let mut impulse = Impulse::zero();
        impulse.add(c.normal, &p.normal, total - p.normal_impulse);
        p.normal_impulse = total;
        impulse.apply(a, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symmetric(rows: &[[f32; 4]]) -> [[f32; 4]; 4] {
        core::array::from_fn(|i| rows.get(i).copied().unwrap_or([0.0; 4]))
    }

    #[test]
    fn largest_eigenvalue_is_reached_and_not_undershot() {
        assert_eq!(
            largest_eigenvalue(&symmetric(&[[3.0, 0.0, 0.0, 0.0]]), 1),
            3.0
        );
        let two = symmetric(&[[2.0, -1.0, 0.0, 0.0], [-1.0, 2.0, 0.0, 0.0]]);
        assert!((largest_eigenvalue(&two, 2) - 3.0).abs() < 1e-6);
        // A cube on a cube: corners (±½, ±½), unit masses, inverse inertia 6
        // each: K[i][j] = 2 + 12 (x_i x_j + z_i z_j); rocking modes of 12.
        let corners = [(0.5, 0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, -0.5)];
        let k: [[f32; 4]; 4] = core::array::from_fn(|i| {
            core::array::from_fn(|j| {
                let ((xi, zi), (xj, zj)) = (corners[i], corners[j]);
                2.0 + 12.0 * (xi * xj + zi * zj)
            })
        });
        let largest = largest_eigenvalue(&k, 4);
        assert!((12.0..=12.0 * 1.05 + 1e-4).contains(&largest), "{largest}");
    }
}
