//! Soft-step sequential impulses (Catto; Box2D v3's `solver.c` and
//! `contact_solver.c`).
//!
//! 1. Prepare: per manifold point, anchors relative to each centre of mass,
//!    effective masses of the normal and tangent rows, and the approach speed
//!    (for restitution).
//! 2. Per substep: integrate velocities; warm start with the accumulated
//!    impulses; solve with a soft push-out bias; integrate positions; relax
//!    (solve again without bias, so push-out adds no energy).
//! 3. Restitution once, for points that approached faster than the threshold.
//! 4. Store the accumulated impulses back into the manifolds.
//!
//! Impulses are accumulated and clamped: normal >= 0, each friction row
//! within `friction * normal`. Manifolds are solved one after another in the
//! pair order of the broad phase (so results do not depend on threads), but
//! the rows *within* a manifold together, from the same velocities, each
//! row's mass divided by its share of the manifold's common push: solved one
//! after another, the first corner of a box resting flat takes more than its
//! share, the box spins, and a tall stack leans from that seed. As in Box2D
//! v3, overlap is pushed out softly from the first millimetre (no slop), so
//! a pyramid of 40 rows sinks about 1.4 mm a row.

use super::integrate::{integrate_positions, integrate_velocities, SolverBody};
use super::manifold::Manifold;
use crate::math::{Angular, Dim, Vector};
use crate::settings::Settings;

/// Soft constraint coefficients for one substep (Box2D's `b2Softness`).
#[derive(Copy, Clone, Debug)]
struct Softness {
    bias_rate: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

impl Softness {
    fn new(hertz: f32, damping_ratio: f32, h: f32) -> Self {
        if hertz <= 0.0 {
            return Self {
                bias_rate: 0.0,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            };
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

#[derive(Copy, Clone, Debug, Default)]
struct ConstraintPoint<D: Dim> {
    /// Lever arms from each centre of mass to the contact midpoint, world.
    r_a: D::Vector,
    r_b: D::Vector,
    /// Each surface point relative to its centre, in the body's rotated frame.
    local_a: D::Vector,
    local_b: D::Vector,
    normal_mass: f32,
    /// How many rows' worth of push this row feels when the manifold's rows
    /// act together (>= 1): its row of the coupling matrix summed, over its diagonal.
    share: f32,
    tangent_mass: [f32; 2],
    tangent_share: [f32; 2],
    normal_impulse: f32,
    tangent_impulse: [f32; 2],
    max_normal_impulse: f32,
    /// Normal velocity before solving, m/s (negative when approaching).
    approach_speed: f32,
}

/// The rows of one manifold.
#[derive(Clone, Debug)]
pub(crate) struct ContactConstraint<D: Dim> {
    pub body_a: usize,
    pub body_b: usize,
    normal: D::Vector,
    tangents: [D::Vector; 2],
    tangent_count: usize,
    friction: f32,
    restitution: f32,
    points: [ConstraintPoint<D>; 4],
    len: usize,
}

/// What the solver needs of a manifold's pair.
pub(crate) struct ContactInput<'m, D: Dim> {
    pub body_a: usize,
    pub body_b: usize,
    pub friction: f32,
    pub restitution: f32,
    pub manifold: &'m Manifold<D>,
}

fn effective_mass<D: Dim>(
    a: &SolverBody<D>,
    b: &SolverBody<D>,
    r_a: D::Vector,
    r_b: D::Vector,
    dir: D::Vector,
) -> f32 {
    let ra = D::cross(r_a, dir);
    let rb = D::cross(r_b, dir);
    let k = a.inv_mass
        + b.inv_mass
        + D::mul_inertia(a.inv_inertia, ra).dot(ra)
        + D::mul_inertia(b.inv_inertia, rb).dot(rb);
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

fn relative_velocity<D: Dim>(
    a: &SolverBody<D>,
    b: &SolverBody<D>,
    r_a: D::Vector,
    r_b: D::Vector,
) -> D::Vector {
    (b.linear_velocity + D::angular_cross(b.angular_velocity, r_b))
        - (a.linear_velocity + D::angular_cross(a.angular_velocity, r_a))
}

/// Applies impulse `p` at levers `r_a`, `r_b`: `-p` to A, `+p` to B.
fn push_apart<D: Dim>(
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
    r_a: D::Vector,
    r_b: D::Vector,
    p: D::Vector,
) {
    a.linear_velocity -= p * a.inv_mass;
    a.angular_velocity -= D::mul_inertia(a.inv_inertia, D::cross(r_a, p));
    b.linear_velocity += p * b.inv_mass;
    b.angular_velocity += D::mul_inertia(b.inv_inertia, D::cross(r_b, p));
}

/// The two distinct bodies of a constraint, both mutable.
fn pair_mut<D: Dim>(
    bodies: &mut [SolverBody<D>],
    ia: usize,
    ib: usize,
) -> (&mut SolverBody<D>, &mut SolverBody<D>) {
    if ia < ib {
        let (low, high) = bodies.split_at_mut(ib);
        (&mut low[ia], &mut high[0])
    } else {
        let (low, high) = bodies.split_at_mut(ia);
        (&mut high[0], &mut low[ib])
    }
}

fn apply_impulse<D: Dim>(
    bodies: &mut [SolverBody<D>],
    ia: usize,
    ib: usize,
    r_a: D::Vector,
    r_b: D::Vector,
    p: D::Vector,
) {
    let (a, b) = pair_mut(bodies, ia, ib);
    push_apart(a, b, r_a, r_b, p);
}

/// Step 1: the constraint of one manifold.
pub(crate) fn prepare<D: Dim>(
    input: &ContactInput<'_, D>,
    bodies: &[SolverBody<D>],
    pose_of: impl Fn(usize) -> crate::math::Pose<D>,
) -> ContactConstraint<D> {
    let (a, b) = (&bodies[input.body_a], &bodies[input.body_b]);
    let normal = input.manifold.normal;
    let (tangents, tangent_count) = D::tangents(normal);
    let (pose_a, pose_b) = (pose_of(input.body_a), pose_of(input.body_b));
    let mut c = ContactConstraint {
        body_a: input.body_a,
        body_b: input.body_b,
        normal,
        tangents,
        tangent_count,
        friction: input.friction,
        restitution: input.restitution,
        points: [ConstraintPoint::default(); 4],
        len: input.manifold.points().len().min(4),
    };
    for (i, mp) in input.manifold.points().iter().take(4).enumerate() {
        let (pa, pb) = input.manifold.world_points(&pose_a, &pose_b, i);
        let mid = (pa + pb) * 0.5;
        let (r_a, r_b) = (mid - a.center, mid - b.center);
        let mut tangent_mass = [0.0; 2];
        for (k, t) in tangents.iter().take(tangent_count).enumerate() {
            tangent_mass[k] = effective_mass(a, b, r_a, r_b, *t);
        }
        c.points[i] = ConstraintPoint {
            r_a,
            r_b,
            local_a: D::inverse_rotate(a.rotation, pa - a.center),
            local_b: D::inverse_rotate(b.rotation, pb - b.center),
            normal_mass: effective_mass(a, b, r_a, r_b, normal),
            share: 1.0,
            tangent_mass,
            tangent_share: [1.0; 2],
            normal_impulse: mp.normal_impulse,
            tangent_impulse: mp.tangent_impulse,
            max_normal_impulse: 0.0,
            approach_speed: relative_velocity(a, b, r_a, r_b).dot(normal),
        };
    }
    set_shares(&mut c, a, b);
    c
}

/// Velocity along `dir` at point `i` per unit impulse along `dir` at point `j`.
fn coupling<D: Dim>(
    c: &ContactConstraint<D>,
    a: &SolverBody<D>,
    b: &SolverBody<D>,
    dir: D::Vector,
    i: usize,
    j: usize,
) -> f32 {
    let (pi, pj) = (&c.points[i], &c.points[j]);
    let (ai, aj) = (D::cross(pi.r_a, dir), D::cross(pj.r_a, dir));
    let (bi, bj) = (D::cross(pi.r_b, dir), D::cross(pj.r_b, dir));
    a.inv_mass
        + b.inv_mass
        + ai.dot(D::mul_inertia(a.inv_inertia, aj))
        + bi.dot(D::mul_inertia(b.inv_inertia, bj))
}

/// How many rows' worth of push row `i` along `dir` feels when the
/// manifold's rows act together: its coupling row summed over its diagonal, at least 1.
fn share<D: Dim>(
    c: &ContactConstraint<D>,
    a: &SolverBody<D>,
    b: &SolverBody<D>,
    dir: D::Vector,
    i: usize,
) -> f32 {
    let diagonal = coupling(c, a, b, dir, i, i);
    let row: f32 = (0..c.len).map(|j| coupling(c, a, b, dir, i, j)).sum();
    if diagonal > 0.0 {
        (row / diagonal).max(1.0)
    } else {
        1.0
    }
}

/// Every row's share, normal and tangent.
fn set_shares<D: Dim>(c: &mut ContactConstraint<D>, a: &SolverBody<D>, b: &SolverBody<D>) {
    for i in 0..c.len {
        c.points[i].share = share(c, a, b, c.normal, i);
        for k in 0..c.tangent_count {
            c.points[i].tangent_share[k] = share(c, a, b, c.tangents[k], i);
        }
    }
}

fn warm_start<D: Dim>(c: &ContactConstraint<D>, bodies: &mut [SolverBody<D>]) {
    for p in &c.points[..c.len] {
        let mut impulse = c.normal * p.normal_impulse;
        for k in 0..c.tangent_count {
            impulse += c.tangents[k] * p.tangent_impulse[k];
        }
        apply_impulse(bodies, c.body_a, c.body_b, p.r_a, p.r_b, impulse);
    }
}

/// One pass over a constraint's rows; `soft` is `None` in the relax pass.
fn solve_contact<D: Dim>(
    c: &mut ContactConstraint<D>,
    bodies: &mut [SolverBody<D>],
    soft: Option<Softness>,
    settings: &Settings<D>,
    inv_h: f32,
) {
    let (a, b) = (bodies[c.body_a], bodies[c.body_b]);
    let mut rows = [NormalRow::default(); 4];
    for (row, p) in rows.iter_mut().zip(&c.points[..c.len]) {
        let world_a = a.center + D::rotate(a.rotation, p.local_a);
        let world_b = b.center + D::rotate(b.rotation, p.local_b);
        let separation = (world_b - world_a).dot(c.normal);
        *row = if separation > 0.0 {
            // Speculative: let the bodies close the gap this substep, no more.
            NormalRow {
                bias: separation * inv_h,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            }
        } else if let Some(s) = soft {
            NormalRow {
                bias: (s.bias_rate * separation).max(-settings.max_push_out_speed),
                mass_scale: s.mass_scale,
                impulse_scale: s.impulse_scale,
            }
        } else {
            NormalRow {
                bias: 0.0,
                mass_scale: 1.0,
                impulse_scale: 0.0,
            }
        };
    }
    let added = solve_normals_together(c, &rows, &a, &b);
    let (a, b) = pair_mut(bodies, c.body_a, c.body_b);
    for (p, &applied) in c.points[..c.len].iter_mut().zip(&added) {
        p.normal_impulse += applied;
        p.max_normal_impulse = p.max_normal_impulse.max(applied);
        push_apart(a, b, p.r_a, p.r_b, c.normal * applied);
    }
    // Friction rows likewise, from the velocities the normal rows leave.
    let mut friction = [D::Vector::ZERO; 4];
    for (i, p) in c.points[..c.len].iter_mut().enumerate() {
        let limit = c.friction * p.normal_impulse;
        let dv = relative_velocity(a, b, p.r_a, p.r_b);
        for k in 0..c.tangent_count {
            let t = c.tangents[k];
            let old = p.tangent_impulse[k];
            let total =
                (old - p.tangent_mass[k] / p.tangent_share[k] * dv.dot(t)).clamp(-limit, limit);
            p.tangent_impulse[k] = total;
            friction[i] += t * (total - old);
        }
    }
    for (p, &impulse) in c.points[..c.len].iter().zip(&friction) {
        push_apart(a, b, p.r_a, p.r_b, impulse);
    }
}

/// A normal row's bias and softness for one pass.
#[derive(Copy, Clone, Debug, Default)]
struct NormalRow {
    bias: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

/// The impulse each normal row of a manifold adds this pass, all computed
/// from the same velocities (Jacobi): solved one after another, the first
/// corner of a box resting flat would take more than its share and set the
/// box spinning. For the approach velocity each row's mass is divided by how
/// strongly the manifold's rows push on it together (`share`), so that a
/// common approach is stopped exactly once, not once per point; the soft
/// push-out keeps the row's full mass. Each total stays >= 0.
fn solve_normals_together<D: Dim>(
    c: &ContactConstraint<D>,
    rows: &[NormalRow; 4],
    a: &SolverBody<D>,
    b: &SolverBody<D>,
) -> [f32; 4] {
    let mut added = [0.0f32; 4];
    for i in 0..c.len {
        let (p, row) = (&c.points[i], &rows[i]);
        let vn = relative_velocity(a, b, p.r_a, p.r_b).dot(c.normal);
        // The approach is the manifold's to stop together (shared mass); the
        // push-out is each point's own overlap (full mass), which holds a
        // loaded stack as stiffly as a lone point would be held.
        let shared_mass = p.normal_mass / p.share;
        let impulse = -row.mass_scale * (shared_mass * vn + p.normal_mass * row.bias)
            - row.impulse_scale * p.normal_impulse;
        added[i] = (p.normal_impulse + impulse).max(0.0) - p.normal_impulse;
    }
    added
}

/// Step 3: bounce points that approached faster than the threshold.
fn apply_restitution<D: Dim>(
    c: &mut ContactConstraint<D>,
    bodies: &mut [SolverBody<D>],
    threshold: f32,
) {
    if c.restitution == 0.0 {
        return;
    }
    for i in 0..c.len {
        let p = c.points[i];
        if p.approach_speed > -threshold || p.max_normal_impulse == 0.0 {
            continue;
        }
        let vn =
            relative_velocity(&bodies[c.body_a], &bodies[c.body_b], p.r_a, p.r_b).dot(c.normal);
        let impulse = -p.normal_mass * (vn + c.restitution * p.approach_speed);
        let total = (p.normal_impulse + impulse).max(0.0);
        c.points[i].normal_impulse = total;
        apply_impulse(
            bodies,
            c.body_a,
            c.body_b,
            p.r_a,
            p.r_b,
            c.normal * (total - p.normal_impulse),
        );
    }
}

/// Steps 2 and 3: the substep loop over prepared constraints, then restitution.
pub(crate) fn solve<D: Dim>(
    constraints: &mut [ContactConstraint<D>],
    bodies: &mut [SolverBody<D>],
    settings: &Settings<D>,
    dt: f32,
) {
    let substeps = settings.substeps.max(1);
    let h = dt / substeps as f32;
    let inv_h = 1.0 / h;
    let hertz = settings.contact_hertz.min(0.25 * inv_h);
    let soft = Softness::new(hertz, settings.contact_damping_ratio, h);
    // Contacts with a body that cannot move are twice as stiff (Box2D v3):
    // they carry the whole stack's weight.
    let soft_static = Softness::new(2.0 * hertz, settings.contact_damping_ratio, h);
    for _ in 0..substeps {
        integrate_velocities(bodies, h);
        for c in constraints.iter() {
            warm_start(c, bodies);
        }
        for c in constraints.iter_mut() {
            let against_static =
                bodies[c.body_a].inv_mass == 0.0 || bodies[c.body_b].inv_mass == 0.0;
            solve_contact(
                c,
                bodies,
                Some(if against_static { soft_static } else { soft }),
                settings,
                inv_h,
            );
        }
        integrate_positions(bodies, h);
        for c in constraints.iter_mut() {
            solve_contact(c, bodies, None, settings, inv_h);
        }
    }
    for c in constraints.iter_mut() {
        apply_restitution(c, bodies, settings.restitution_threshold);
    }
}

/// Step 4: the accumulated impulses back into the manifold, for warm starting.
pub(crate) fn store_impulses<D: Dim>(c: &ContactConstraint<D>, manifold: &mut Manifold<D>) {
    for (mp, p) in manifold.points_mut().iter_mut().zip(&c.points[..c.len]) {
        mp.normal_impulse = p.normal_impulse;
        mp.tangent_impulse = p.tangent_impulse;
    }
}
