//! Soft-step sequential impulses (Catto; Box2D v3's `solver.c` and
//! `contact_solver.c`).
//!
//! 1. Prepare: per manifold point, a row for the normal and each tangent
//!    (the Jacobian's angular parts at lever arms frozen since the pair's
//!    last query), effective masses, and the approach speed (for
//!    restitution); a manifold's points side by side in SIMD lanes.
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
use crate::math::{Angular, Dim, Lanes, Vector, Wide};
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

/// One `f32` per manifold point.
type Lanes1<D> = <D as Dim>::Wide;

/// The Jacobians of a manifold's rows along one direction, one lane per
/// point.
#[derive(Copy, Clone, Debug, Default)]
struct JacobianLanes<D: Dim> {
    a: D::AngularLanes,
    b: D::AngularLanes,
}

impl<D: Dim> JacobianLanes<D> {
    fn set(&mut self, i: usize, j: Jacobian<D>) {
        self.a.set(i, j.a);
        self.b.set(i, j.b);
    }

    fn get(&self, i: usize) -> Jacobian<D> {
        Jacobian {
            a: self.a.get(i),
            b: self.b.get(i),
        }
    }

    /// Per point: [`Jacobian::velocity`].
    #[inline]
    fn velocity(&self, linear: f32, a: &SolverBody<D>, b: &SolverBody<D>) -> Lanes1<D> {
        Lanes1::<D>::splat(linear) + self.b.dot(b.angular_velocity) - self.a.dot(a.angular_velocity)
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

    /// Every point's row along `d` at once, with impulses `lambdas`.
    #[inline]
    fn add_lanes(&mut self, d: D::Vector, j: &JacobianLanes<D>, lambdas: Lanes1<D>) {
        self.linear += d * lambdas.element_sum();
        self.angular_a += j.a.weighted_sum(lambdas);
        self.angular_b += j.b.weighted_sum(lambdas);
    }

    #[inline]
    fn apply(&self, a: &mut SolverBody<D>, b: &mut SolverBody<D>) {
        a.linear_velocity -= self.linear * a.inv_mass;
        a.angular_velocity -= D::mul_inertia(a.inv_inertia, self.angular_a);
        b.linear_velocity += self.linear * b.inv_mass;
        b.angular_velocity += D::mul_inertia(b.inv_inertia, self.angular_b);
    }
}

/// One manifold's rows, each of its points (at most four) in a lane; the
/// unused lanes hold zeros, so they push on nothing.
#[derive(Copy, Clone, Debug, Default)]
struct ManifoldRows<D: Dim> {
    /// Each surface point relative to its centre, in the body's rotated frame.
    local_a: D::VectorLanes,
    local_b: D::VectorLanes,
    normal: JacobianLanes<D>,
    tangents: [JacobianLanes<D>; 2],
    /// Effective mass along the normal, kg (for push-out and restitution).
    normal_mass: Lanes1<D>,
    /// The normal mass divided by how many rows' worth of push the row
    /// feels when the manifold's normal rows act together (for approach).
    normal_shared_mass: Lanes1<D>,
    /// That mass, but no more than one over the manifold's stiffest mode,
    /// for the relax pass (see `solve_normals_together`).
    normal_relax_mass: Lanes1<D>,
    /// Friction rows' effective masses, likewise divided by their shares.
    tangent_shared_mass: [Lanes1<D>; 2],
    /// Accumulated impulses, N·s.
    normal_impulse: Lanes1<D>,
    tangent_impulse: [Lanes1<D>; 2],
    max_normal_impulse: Lanes1<D>,
    /// Normal velocity before solving, m/s (negative when approaching).
    approach_speed: Lanes1<D>,
}

impl<D: Dim> ManifoldRows<D> {
    /// No accumulated impulse on any row: the manifold pushes on nothing.
    fn is_idle(&self) -> bool {
        self.normal_impulse.is_zero()
            && self.tangent_impulse[0].is_zero()
            && self.tangent_impulse[1].is_zero()
    }
}

/// One manifold's constraint; its rows are at the same index of its
/// colour's set.
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
    /// Points in use.
    len: usize,
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
    /// Each constraint's rows, at the same index.
    rows: Vec<ManifoldRows<D>>,
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
    fn clear(&mut self, body_count: usize) {
        for set in &mut self.colours {
            // The rows are not cleared: `prepare` sizes them and every one
            // is overwritten, so last step's need no fresh defaults.
            set.constraints.clear();
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
            let len = input.manifold.points().len().min(D::MAX_MANIFOLD_POINTS);
            self.placed.push((colour, set.constraints.len()));
            set.constraints.push(ContactConstraint {
                moves,
                len,
                ..ContactConstraint::default()
            });
        }
        for set in &mut self.colours {
            set.rows
                .resize(set.constraints.len(), ManifoldRows::default());
        }
        let sets: Vec<_> = self
            .colours
            .iter_mut()
            .map(|set| {
                (
                    Shared::new(&mut set.constraints),
                    Shared::new(&mut set.rows),
                )
            })
            .collect();
        inputs
            .par_iter()
            .zip(&self.placed)
            .with_min_len(MIN_CONSTRAINTS_PER_BLOCK)
            .filter_map(|(input, &place)| Some((input.as_ref()?, place)))
            .for_each(|(input, (colour, index))| {
                let (constraints, rows) = &sets[colour];
                // SAFETY: each manifold has its own constraint and rows,
                // reserved above; no one else touches them in this loop.
                let (c, rows) = unsafe { (constraints.get_mut(index), rows.get_mut(index)) };
                build_rows(input, bodies, c, rows);
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
                rows: Shared::new(&mut set.rows),
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
        let rows = &set.rows[index];
        for (i, mp) in manifold
            .points_mut()
            .iter_mut()
            .enumerate()
            .take(D::MAX_MANIFOLD_POINTS)
        {
            mp.normal_impulse = rows.normal_impulse[i];
            mp.tangent_impulse = [rows.tangent_impulse[0][i], rows.tangent_impulse[1][i]];
        }
    }
}

/// One manifold's rows into its reserved constraint (whose `moves` and
/// `len` are set) and rows.
fn build_rows<D: Dim>(
    input: &ContactInput<'_, D>,
    bodies: &[SolverBody<D>],
    c: &mut ContactConstraint<D>,
    rows: &mut ManifoldRows<D>,
) {
    let (a, b) = (&bodies[input.body_a], &bodies[input.body_b]);
    let normal = input.manifold.normal;
    let (tangents, tangent_count) = D::tangents(normal);
    let linear = normal.dot(b.linear_velocity - a.linear_velocity);
    *rows = ManifoldRows::default();
    for (i, mp) in input.manifold.points().iter().enumerate().take(c.len) {
        let (pa, pb) = input.manifold.world_points(&input.pose_a, &input.pose_b, i);
        let r_a = mp.lever_a + input.pose_a.translation - a.center;
        let r_b = mp.lever_b + input.pose_b.translation - b.center;
        let normal_row = Jacobian::new(r_a, r_b, normal);
        rows.local_a
            .set(i, D::inverse_rotate(a.rotation, pa - a.center));
        rows.local_b
            .set(i, D::inverse_rotate(b.rotation, pb - b.center));
        rows.approach_speed[i] = normal_row.velocity(linear, a, b);
        rows.normal.set(i, normal_row);
        rows.normal_impulse[i] = mp.normal_impulse;
        for (k, &tangent) in tangents.iter().enumerate().take(tangent_count) {
            rows.tangents[k].set(i, Jacobian::new(r_a, r_b, tangent));
            rows.tangent_impulse[k][i] = mp.tangent_impulse[k];
        }
    }
    set_masses(rows, c.len, tangent_count, a, b);
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
    rows: Shared<'a, ManifoldRows<D>>,
}

impl<D: Dim> ColourView<'_, D> {
    /// Calls `f` with each constraint of block `block`, its rows and its
    /// two bodies. A body the solver does not move is passed as a copy,
    /// whose changes (none: its inverse mass is zero) are dropped.
    fn run(
        &self,
        block: usize,
        bodies: &Shared<'_, SolverBody<D>>,
        f: impl Fn(&ContactConstraint<D>, &mut ManifoldRows<D>, &mut SolverBody<D>, &mut SolverBody<D>),
    ) {
        let range = block_range(block, self.block_size, self.constraints.len());
        for (i, c) in self
            .constraints
            .iter()
            .enumerate()
            .take(range.end)
            .skip(range.start)
        {
            let (mut copy_a, mut copy_b);
            // SAFETY: within a colour no two constraints share a moving
            // body (the constraint graph), the overflow runs as one block,
            // and the stages run one after another, so `get_mut` on a
            // moving body is exclusive; a body that does not move is never
            // handed out mutably in a constraint stage, only read (`get`);
            // each constraint owns its rows, at its own index.
            let (a, b, rows) = unsafe {
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
                (a, b, self.rows.get_mut(i))
            };
            f(c, rows, a, b);
        }
    }
}

/// Each row's effective mass, and for approach and friction that mass
/// divided by its share of the manifold's common push: how many rows' worth
/// of push it feels when the rows along the same direction act together.
fn set_masses<D: Dim>(
    rows: &mut ManifoldRows<D>,
    count: usize,
    tangent_count: usize,
    a: &SolverBody<D>,
    b: &SolverBody<D>,
) {
    let inverse = |k: f32| if k > 0.0 { 1.0 / k } else { 0.0 };
    let jacobians = |lanes: &JacobianLanes<D>| -> [Jacobian<D>; 4] {
        core::array::from_fn(|i| {
            if i < count {
                lanes.get(i)
            } else {
                Jacobian::default()
            }
        })
    };
    let normals = couplings(&jacobians(&rows.normal)[..count], a, b);
    let mut frictions = [[[0.0f32; 4]; 4]; 2];
    for (friction, lanes) in frictions.iter_mut().zip(&rows.tangents).take(tangent_count) {
        *friction = couplings(&jacobians(lanes)[..count], a, b);
    }
    let stiffest = largest_eigenvalue(&normals, count);
    for i in 0..count {
        let mass = inverse(normals[i][i]);
        let shared = mass / share(&normals[i][..count], i, false);
        rows.normal_mass[i] = mass;
        rows.normal_shared_mass[i] = shared;
        rows.normal_relax_mass[i] = if stiffest.is_finite() && stiffest > 0.0 {
            shared.min(1.0 / stiffest)
        } else {
            shared
        };
        for (k, friction) in frictions.iter().enumerate().take(tangent_count) {
            rows.tangent_shared_mass[k][i] =
                inverse(friction[i][i]) / share(&friction[i][..count], i, true);
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
    rows: &mut ManifoldRows<D>,
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
) {
    if rows.is_idle() {
        return;
    }
    let mut impulse = Impulse::zero();
    impulse.add_lanes(c.normal, &rows.normal, rows.normal_impulse);
    for k in 0..c.tangent_count {
        impulse.add_lanes(c.tangents[k], &rows.tangents[k], rows.tangent_impulse[k]);
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

/// The normal rows' biases (per point) and softness (the manifold's) for
/// one pass.
#[derive(Copy, Clone, Debug)]
struct NormalRows<W> {
    bias: W,
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

    /// Each normal row's bias and softness at its `separation`: a gap the
    /// bodies may close this substep and no more (speculative), or soft
    /// push-out, chosen lane by lane. The softness, though, is the
    /// manifold's: soft for every row once any point overlaps, rigid while
    /// all are apart. Chosen per point, the corners of a box landing flat
    /// cross zero separation in the same substep and rounding splits them
    /// between rigid and soft rows, whose impulses differ by a tenth: the
    /// box lands spinning, and columns of dropped boxes topple.
    #[inline]
    fn normal_rows<W: Wide>(
        &self,
        separation: W,
        soft: Softness,
        overlapping: bool,
    ) -> NormalRows<W> {
        let push_out = (separation * soft.bias_rate).max(W::splat(-self.max_push_out_speed));
        let (mass_scale, impulse_scale) = if overlapping {
            (soft.mass_scale, soft.impulse_scale)
        } else {
            (1.0, 0.0)
        };
        NormalRows {
            bias: separation.select_positive(separation * self.inv_h, push_out),
            mass_scale,
            impulse_scale,
        }
    }
}

/// One pass over a manifold's rows: normals, then friction.
fn solve_contact<D: Dim>(
    c: &ContactConstraint<D>,
    rows: &mut ManifoldRows<D>,
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
    pass: &Pass,
) {
    solve_normals_together(c, rows, a, b, pass);
    solve_friction_together(c, rows, a, b);
}

/// Every normal row of a manifold from the same velocities (Jacobi), then
/// their sum applied: solved one after another, the first corner of a box
/// resting flat would take more than its share and set the box spinning.
/// For the approach velocity each row's mass is divided by its share, so
/// that a common approach is stopped exactly once, not once per point; the
/// soft push-out keeps the row's full mass, which holds a loaded stack as
/// stiffly as a lone point would be held. Each total stays >= 0. The points
/// are lanes of one SIMD computation.
///
/// The shares are exact for the manifold pushing as one, but overshoot its
/// rocking (1.5 times for a cube on a cube); with the clamp at zero, an
/// overshoot that lifts one side breaks the symmetry of an impact, and a
/// column of cubes dropped off the origin topples. So the relax pass, which
/// leaves the velocities the step ends with, caps each row's mass by one
/// over the manifold's stiffest mode: no mode overshoots there.
fn solve_normals_together<D: Dim>(
    c: &ContactConstraint<D>,
    rows: &mut ManifoldRows<D>,
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
    pass: &Pass,
) {
    // Separation along the normal from the current poses: the normal is
    // turned into each body's frame once, then each point is a dot product.
    let normal_in_a = D::inverse_rotate(a.rotation, c.normal);
    let normal_in_b = D::inverse_rotate(b.rotation, c.normal);
    let centres = (b.center - a.center).dot(c.normal);
    let separation =
        Lanes1::<D>::splat(centres) + rows.local_b.dot(normal_in_b) - rows.local_a.dot(normal_in_a);
    let overlapping = (0..c.len).any(|i| separation[i] <= 0.0);
    let row = pass.normal_rows(separation, pass.softness(c.against_static), overlapping);
    let linear = c.normal.dot(b.linear_velocity - a.linear_velocity);
    let vn = rows.normal.velocity(linear, a, b);
    let approach_mass = if pass.relax {
        rows.normal_relax_mass
    } else {
        rows.normal_shared_mass
    };
    // Unused lanes have zero masses and impulses: their lambda is zero.
    let lambda = -(approach_mass * vn + rows.normal_mass * row.bias) * row.mass_scale
        - rows.normal_impulse * row.impulse_scale;
    // `max` keeps its second operand for a NaN lane: a NaN total gives zero.
    let total = (rows.normal_impulse + lambda).max(Lanes1::<D>::splat(0.0));
    let added = total - rows.normal_impulse;
    rows.normal_impulse = total;
    rows.max_normal_impulse = rows.max_normal_impulse.max(added);
    let mut impulse = Impulse::zero();
    impulse.add_lanes(c.normal, &rows.normal, added);
    impulse.apply(a, b);
}

/// Friction likewise: every point's tangent rows from the velocities the
/// normal rows left, each within `friction * normal impulse`, then applied.
fn solve_friction_together<D: Dim>(
    c: &ContactConstraint<D>,
    rows: &mut ManifoldRows<D>,
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
) {
    if rows.is_idle() {
        // No normal impulse, so no friction either: a gap not yet closing.
        return;
    }
    let relative = b.linear_velocity - a.linear_velocity;
    let limit = rows.normal_impulse * c.friction;
    let mut impulse = Impulse::zero();
    for k in 0..c.tangent_count {
        let vt = rows.tangents[k].velocity(c.tangents[k].dot(relative), a, b);
        let old = rows.tangent_impulse[k];
        // min, then max: no panic on a limit gone NaN (an overflow the
        // world then discards).
        let total = (old - rows.tangent_shared_mass[k] * vt)
            .min(limit)
            .max(-limit);
        rows.tangent_impulse[k] = total;
        impulse.add_lanes(c.tangents[k], &rows.tangents[k], total - old);
    }
    impulse.apply(a, b);
}

/// Step 3: bounce points that approached faster than the threshold, one
/// after another.
fn apply_restitution<D: Dim>(
    c: &ContactConstraint<D>,
    rows: &mut ManifoldRows<D>,
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
    threshold: f32,
) {
    if c.restitution == 0.0 {
        return;
    }
    for i in 0..c.len {
        let approach = rows.approach_speed[i];
        if approach > -threshold || rows.max_normal_impulse[i] == 0.0 {
            continue;
        }
        let row = rows.normal.get(i);
        let linear = c.normal.dot(b.linear_velocity - a.linear_velocity);
        let vn = row.velocity(linear, a, b);
        let old = rows.normal_impulse[i];
        let total = (old - rows.normal_mass[i] * (vn + c.restitution * approach)).max(0.0);
        rows.normal_impulse[i] = total;
        let mut impulse = Impulse::zero();
        impulse.add(c.normal, &row, total - old);
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
