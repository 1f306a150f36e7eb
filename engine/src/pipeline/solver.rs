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

/// One velocity constraint along a direction `d` at a contact point: the
/// angular parts of its Jacobian and their images under the inverse
/// inertias, so a row reads and changes velocities without a matrix product.
#[derive(Copy, Clone, Debug, Default)]
struct Row<D: Dim> {
    /// `r_a × d`, `r_b × d`.
    ja: D::AngularVector,
    jb: D::AngularVector,
    /// `I_a⁻¹ (r_a × d)`, `I_b⁻¹ (r_b × d)`.
    ka: D::AngularVector,
    kb: D::AngularVector,
    /// Effective mass along `d`, kg.
    mass: f32,
    /// How many rows' worth of push this row feels when the manifold's rows
    /// along the same direction act together (>= 1).
    share: f32,
    /// Accumulated impulse, N·s.
    impulse: f32,
}

impl<D: Dim> Row<D> {
    fn new(
        a: &SolverBody<D>,
        b: &SolverBody<D>,
        r_a: D::Vector,
        r_b: D::Vector,
        d: D::Vector,
        impulse: f32,
    ) -> Self {
        let (ja, jb) = (D::cross(r_a, d), D::cross(r_b, d));
        let (ka, kb) = (
            D::mul_inertia(a.inv_inertia, ja),
            D::mul_inertia(b.inv_inertia, jb),
        );
        let k = a.inv_mass + b.inv_mass + ja.dot(ka) + jb.dot(kb);
        Self {
            ja,
            jb,
            ka,
            kb,
            mass: if k > 0.0 { 1.0 / k } else { 0.0 },
            share: 1.0,
            impulse,
        }
    }

    /// Relative velocity of B against A along `d` at the point, m/s.
    #[inline]
    fn velocity(&self, d: D::Vector, a: &SolverBody<D>, b: &SolverBody<D>) -> f32 {
        d.dot(b.linear_velocity - a.linear_velocity) + self.jb.dot(b.angular_velocity)
            - self.ja.dot(a.angular_velocity)
    }

    /// Applies impulse `lambda` along `d`: to B, and its opposite to A.
    #[inline]
    fn apply(&self, d: D::Vector, a: &mut SolverBody<D>, b: &mut SolverBody<D>, lambda: f32) {
        a.linear_velocity -= d * (lambda * a.inv_mass);
        a.angular_velocity -= self.ka * lambda;
        b.linear_velocity += d * (lambda * b.inv_mass);
        b.angular_velocity += self.kb * lambda;
    }

    /// Velocity along this row per unit impulse on `other` (same direction).
    fn coupling(&self, other: &Self, inv_masses: f32) -> f32 {
        inv_masses + self.ja.dot(other.ka) + self.jb.dot(other.kb)
    }
}

#[derive(Copy, Clone, Debug, Default)]
struct ConstraintPoint<D: Dim> {
    /// Each surface point relative to its centre, in the body's rotated frame.
    local_a: D::Vector,
    local_b: D::Vector,
    normal: Row<D>,
    tangents: [Row<D>; 2],
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
    /// The colliders' world poses, the frames the manifold's anchors live in.
    pub pose_a: crate::math::Pose<D>,
    pub pose_b: crate::math::Pose<D>,
    pub friction: f32,
    pub restitution: f32,
    pub manifold: &'m Manifold<D>,
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

/// Step 1: the constraint of one manifold.
pub(crate) fn prepare<D: Dim>(
    input: &ContactInput<'_, D>,
    bodies: &[SolverBody<D>],
) -> ContactConstraint<D> {
    let (a, b) = (&bodies[input.body_a], &bodies[input.body_b]);
    let normal = input.manifold.normal;
    let (tangents, tangent_count) = D::tangents(normal);
    let (pose_a, pose_b) = (input.pose_a, input.pose_b);
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
        let normal_row = Row::new(a, b, r_a, r_b, normal, mp.normal_impulse);
        let mut tangent_rows = [Row::default(); 2];
        for k in 0..tangent_count {
            tangent_rows[k] = Row::new(a, b, r_a, r_b, tangents[k], mp.tangent_impulse[k]);
        }
        c.points[i] = ConstraintPoint {
            local_a: D::inverse_rotate(a.rotation, pa - a.center),
            local_b: D::inverse_rotate(b.rotation, pb - b.center),
            approach_speed: normal_row.velocity(normal, a, b),
            normal: normal_row,
            tangents: tangent_rows,
            max_normal_impulse: 0.0,
        };
    }
    set_shares(&mut c, a.inv_mass + b.inv_mass);
    c
}

/// How many rows' worth of push a row feels when the manifold's rows along
/// the same direction act together: its coupling row summed over its
/// diagonal, at least 1.
fn share<D: Dim>(rows: &[Row<D>], i: usize, inv_masses: f32, magnitude: bool) -> f32 {
    let diagonal = rows[i].coupling(&rows[i], inv_masses);
    let row: f32 = rows
        .iter()
        .map(|other| rows[i].coupling(other, inv_masses))
        .map(|k| if magnitude { k.abs() } else { k })
        .sum();
    if diagonal > 0.0 {
        (row / diagonal).max(1.0)
    } else {
        1.0
    }
}

/// Every row's share, normal and tangent.
fn set_shares<D: Dim>(c: &mut ContactConstraint<D>, inv_masses: f32) {
    let points = &mut c.points[..c.len];
    let normals: [Row<D>; 4] =
        core::array::from_fn(|i| points.get(i).map_or(Row::default(), |p| p.normal));
    for (i, p) in points.iter_mut().enumerate() {
        p.normal.share = share(&normals[..c.len], i, inv_masses, false);
    }
    for k in 0..c.tangent_count {
        let rows: [Row<D>; 4] =
            core::array::from_fn(|i| points.get(i).map_or(Row::default(), |p| p.tangents[k]));
        for (i, p) in points.iter_mut().enumerate() {
            p.tangents[k].share = share(&rows[..c.len], i, inv_masses, true);
        }
    }
}

fn warm_start<D: Dim>(c: &ContactConstraint<D>, bodies: &mut [SolverBody<D>]) {
    let (a, b) = pair_mut(bodies, c.body_a, c.body_b);
    for p in &c.points[..c.len] {
        p.normal.apply(c.normal, a, b, p.normal.impulse);
        for k in 0..c.tangent_count {
            p.tangents[k].apply(c.tangents[k], a, b, p.tangents[k].impulse);
        }
    }
}

/// A normal row's bias and softness for one pass.
#[derive(Copy, Clone, Debug, Default)]
struct NormalRow {
    bias: f32,
    mass_scale: f32,
    impulse_scale: f32,
}

/// One pass over a constraint's rows; `soft` is `None` in the relax pass.
fn solve_contact<D: Dim>(
    c: &mut ContactConstraint<D>,
    bodies: &mut [SolverBody<D>],
    soft: Option<Softness>,
    settings: &Settings<D>,
    inv_h: f32,
) {
    let (a, b) = pair_mut(bodies, c.body_a, c.body_b);
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
    let added = solve_normals_together(c, &rows, a, b);
    for (p, &applied) in c.points[..c.len].iter_mut().zip(&added) {
        p.normal.impulse += applied;
        p.max_normal_impulse = p.max_normal_impulse.max(applied);
        p.normal.apply(c.normal, a, b, applied);
    }
    solve_friction_together(c, a, b);
}

/// The impulse each normal row of a manifold adds this pass, all computed
/// from the same velocities (Jacobi): solved one after another, the first
/// corner of a box resting flat would take more than its share and set the
/// box spinning. For the approach velocity each row's mass is divided by how
/// strongly the manifold's rows push on it together (`share`), so that a
/// common approach is stopped exactly once, not once per point; the soft
/// push-out keeps the row's full mass, which holds a loaded stack as stiffly
/// as a lone point would be held. Each total stays >= 0.
fn solve_normals_together<D: Dim>(
    c: &ContactConstraint<D>,
    rows: &[NormalRow; 4],
    a: &SolverBody<D>,
    b: &SolverBody<D>,
) -> [f32; 4] {
    let mut added = [0.0f32; 4];
    for i in 0..c.len {
        let (p, row) = (&c.points[i].normal, &rows[i]);
        let vn = p.velocity(c.normal, a, b);
        let impulse = -row.mass_scale * (p.mass / p.share * vn + p.mass * row.bias)
            - row.impulse_scale * p.impulse;
        added[i] = (p.impulse + impulse).max(0.0) - p.impulse;
    }
    added
}

/// Friction likewise: every point's tangent rows from the velocities the
/// normal rows left, each within `friction * normal impulse`, then applied.
fn solve_friction_together<D: Dim>(
    c: &mut ContactConstraint<D>,
    a: &mut SolverBody<D>,
    b: &mut SolverBody<D>,
) {
    let count = c.tangent_count;
    let mut added = [[0.0f32; 2]; 4];
    for (p, added) in c.points[..c.len].iter_mut().zip(&mut added) {
        let limit = c.friction * p.normal.impulse;
        for ((row, t), added) in p.tangents[..count]
            .iter_mut()
            .zip(&c.tangents)
            .zip(added.iter_mut())
        {
            let vt = row.velocity(*t, a, b);
            let total = (row.impulse - row.mass / row.share * vt).clamp(-limit, limit);
            *added = total - row.impulse;
            row.impulse = total;
        }
    }
    for (p, added) in c.points[..c.len].iter().zip(&added) {
        for ((row, t), &added) in p.tangents[..count]
            .iter()
            .zip(&c.tangents)
            .zip(added.iter())
        {
            row.apply(*t, a, b, added);
        }
    }
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
    let (a, b) = pair_mut(bodies, c.body_a, c.body_b);
    for p in &mut c.points[..c.len] {
        if p.approach_speed > -threshold || p.max_normal_impulse == 0.0 {
            continue;
        }
        let row = &mut p.normal;
        let vn = row.velocity(c.normal, a, b);
        let total = (row.impulse - row.mass * (vn + c.restitution * p.approach_speed)).max(0.0);
        let added = total - row.impulse;
        row.impulse = total;
        row.apply(c.normal, a, b, added);
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
        mp.normal_impulse = p.normal.impulse;
        mp.tangent_impulse = [p.tangents[0].impulse, p.tangents[1].impulse];
    }
}
