//! Step 1 of the solver: a bundle's four manifolds turned into rows, lever
//! arms and effective masses, the four lanes at once. The inputs are
//! gathered lane by lane; everything computed from them is lane arithmetic,
//! each lane the same operations in the same order as a manifold on its own.

use glam::{BVec4A, Vec4};

use super::SolverDim;
use super::{
    body_index, InputPoint, JacobianLanes, ManifoldBundle, ManifoldInput, PointLanes, Velocities,
    LANES,
};
use crate::math::{SimdWord, Vector};
use crate::pipeline::integrate::SolverBody;
use crate::pipeline::lanes::{InertiaLanes, Lanes};

/// The most points a manifold has in any dimension.
const POINTS: usize = 4;

/// A row's couplings with every row along the same direction, for each
/// lane: `K[i][j] = J_i M⁻¹ J_jᵀ` between points `i` and `j`, zero where
/// either point is not in use.
type Couplings = [[Vec4; POINTS]; POINTS];

/// One lane's manifold and its two bodies.
struct Lane<'a, D: SolverDim> {
    input: &'a ManifoldInput<D>,
    a: &'a SolverBody<D>,
    b: &'a SolverBody<D>,
}

/// What an empty lane is built from: a manifold without points between two
/// bodies that do not move, all zeros, so that every lane is gathered alike.
pub(super) struct EmptyLane<D: SolverDim> {
    input: ManifoldInput<D>,
    body: SolverBody<D>,
}

impl<D: SolverDim> EmptyLane<D> {
    pub(super) fn new() -> Self {
        Self {
            input: ManifoldInput {
                body_a: 0,
                body_b: 0,
                friction: 0.0,
                restitution: 0.0,
                radii: [0.0, 0.0],
                normal: D::Vector::ZERO,
                len: 0,
                points: Default::default(),
            },
            body: SolverBody::at_rest(D::Vector::ZERO, D::identity()),
        }
    }
}

/// Per lane, `f` of its manifold.
#[inline]
fn scalars<D: SolverDim>(lanes: &[Lane<'_, D>; LANES], f: impl Fn(&Lane<'_, D>) -> f32) -> Vec4 {
    Vec4::from_array(lanes.each_ref().map(f))
}

/// Per lane, the word `f` gives.
#[inline]
fn words<D: SolverDim>(
    lanes: &[Lane<'_, D>; LANES],
    f: impl Fn(&Lane<'_, D>) -> Vec4,
) -> [Vec4; LANES] {
    lanes.each_ref().map(f)
}

/// Per lane, the vector `f` gives.
#[inline]
fn vectors<D: SolverDim>(
    lanes: &[Lane<'_, D>; LANES],
    f: impl Fn(&Lane<'_, D>) -> D::Vector,
) -> D::VectorLanes {
    D::VectorLanes::from_words(words(lanes, |l| f(l).to_word()))
}

/// Per lane, whether `f` holds.
#[inline]
fn flags<D: SolverDim>(
    lanes: &[Lane<'_, D>; LANES],
    f: impl Fn(&Lane<'_, D>) -> bool,
) -> [bool; LANES] {
    lanes.each_ref().map(f)
}

/// `value` where `mask`, zero elsewhere.
#[inline]
fn only(mask: BVec4A, value: Vec4) -> Vec4 {
    Vec4::select(mask, value, Vec4::ZERO)
}

/// Per lane `f32::max(v, 1)`: a NaN gives 1.
#[inline]
fn at_least_one(v: Vec4) -> Vec4 {
    Vec4::select(v.cmpgt(Vec4::ONE), v, Vec4::ONE)
}

/// Per lane `1 / k`, or zero where `k` is not positive.
#[inline]
fn inverse(k: Vec4) -> Vec4 {
    only(k.cmpgt(Vec4::ZERO), Vec4::ONE / k)
}

/// The rows of manifolds `inputs` (one per lane, `None` for an empty lane)
/// between bodies `bodies`, into `bundle` and its `points`; an empty lane
/// is built from `empty` and gets body index `bodies.len()`, the extra
/// state that never moves. Without `translation_locks` no body has any,
/// and the lanes are not searched for them.
pub(super) fn build_bundle<D: SolverDim>(
    inputs: [Option<&ManifoldInput<D>>; LANES],
    bodies: &[SolverBody<D>],
    translation_locks: bool,
    empty: &EmptyLane<D>,
    bundle: &mut ManifoldBundle<D>,
    points: &mut [PointLanes<D>],
) {
    let in_use = inputs.map(|input| input.is_some());
    let lanes = inputs.map(|input| match input {
        Some(input) => Lane {
            input,
            a: &bodies[input.body_a as usize],
            b: &bodies[input.body_b as usize],
        },
        None => Lane {
            input: &empty.input,
            a: &empty.body,
            b: &empty.body,
        },
    });
    let lanes = &lanes;
    let keep = only(BVec4A::from_array(in_use), Vec4::ONE);
    let normal = vectors(lanes, |l| l.input.normal);
    let tangent_pairs = lanes.each_ref().map(|l| D::tangents(l.input.normal));
    let mut tangents = D::PerTangent::<D::VectorLanes>::default();
    for k in 0..D::TANGENTS {
        let words = tangent_pairs.map(|t| t[k].to_word());
        tangents[k] = D::VectorLanes::from_words(words) * keep;
    }
    let moves_a = flags(lanes, |l| l.a.inv_mass > 0.0);
    let moves_b = flags(lanes, |l| l.b.inv_mass > 0.0);
    let mut inv_inertia_a = D::InertiaLanes::default();
    let mut inv_inertia_b = D::InertiaLanes::default();
    for (i, l) in lanes.iter().enumerate() {
        inv_inertia_a.set(i, l.a.inv_inertia);
        inv_inertia_b.set(i, l.b.inv_inertia);
    }
    let against_static = core::array::from_fn(|i| in_use[i] && !(moves_a[i] && moves_b[i]));
    let (inv_mass_a, inv_mass_b) = (
        scalars(lanes, |l| l.a.inv_mass),
        scalars(lanes, |l| l.b.inv_mass),
    );
    // Each side's lanes whose body has translation locks, if any has.
    let locked = translation_locks
        .then(|| {
            (
                flags(lanes, |l| !l.a.translation_lock.is_empty()),
                flags(lanes, |l| !l.b.translation_lock.is_empty()),
            )
        })
        .filter(|(a, b)| a.contains(&true) || b.contains(&true));
    let linear = LinearMasses {
        sum: inv_mass_a + inv_mass_b,
        locked: locked.map(|(a, b)| BVec4A::from_array(core::array::from_fn(|i| a[i] || b[i]))),
    };
    let index = body_index(bodies.len());
    *bundle = ManifoldBundle {
        body_a: inputs.map(|input| input.map_or(index, |input| input.body_a)),
        body_b: inputs.map(|input| input.map_or(index, |input| input.body_b)),
        moves_a,
        moves_b,
        normal,
        tangents,
        friction: scalars(lanes, |l| l.input.friction),
        restitution: scalars(lanes, |l| l.input.restitution),
        radius_a: scalars(lanes, |l| l.input.radii[0]),
        radius_b: scalars(lanes, |l| l.input.radii[1]),
        against_static: BVec4A::from_array(against_static),
        inv_mass_a: per_axis(lanes, inv_mass_a, locked.map(|(a, _)| a), |l| l.a),
        inv_mass_b: per_axis(lanes, inv_mass_b, locked.map(|(_, b)| b), |l| l.b),
        inv_inertia_a,
        inv_inertia_b,
    };
    build_points(lanes, bundle, &linear, points);
}

/// Each lane's inverse mass `inv_mass` along every world axis, but zero
/// along the `locked` lanes' bodies' locked translation axes: a splat for
/// the bundles no lock touches (almost all), lane by lane for the others.
#[inline]
fn per_axis<D: SolverDim>(
    lanes: &[Lane<'_, D>; LANES],
    inv_mass: Vec4,
    locked: Option<[bool; LANES]>,
    body: for<'l> fn(&Lane<'l, D>) -> &'l SolverBody<D>,
) -> D::VectorLanes {
    let mut per_axis = D::VectorLanes::splat_word(D::Vector::splat(1.0).to_word()) * inv_mass;
    let Some(locked) = locked else {
        return per_axis;
    };
    for (i, lane) in lanes.iter().enumerate().filter(|&(i, _)| locked[i]) {
        let body = body(lane);
        per_axis.set(
            i,
            D::lock_linear(D::Vector::splat(body.inv_mass), body.translation_lock),
        );
    }
    per_axis
}

/// The linear part of the rows' effective masses, per lane.
struct LinearMasses {
    /// The two bodies' inverse masses summed.
    sum: Vec4,
    /// Lanes where a body has locked translation axes, if any: there a
    /// row along `d` gets `d · (M⁻¹ d)` for each body, with zero inverse
    /// mass along the locked axes, and `sum` elsewhere (the same for a
    /// unit `d`).
    locked: Option<BVec4A>,
}

impl LinearMasses {
    /// The linear part of the effective mass of rows along `d` between
    /// bodies of inverse masses `inv_mass_a` and `inv_mass_b` per axis.
    #[inline]
    fn along<D: SolverDim>(
        &self,
        d: &D::VectorLanes,
        inv_mass_a: &D::VectorLanes,
        inv_mass_b: &D::VectorLanes,
    ) -> Vec4 {
        let Some(locked) = self.locked else {
            return self.sum;
        };
        let projected = d.dot(&(*inv_mass_a * *d)) + d.dot(&(*inv_mass_b * *d));
        Vec4::select(locked, projected, self.sum)
    }
}

/// The points' lever arms, separations, impulses and masses.
fn build_points<D: SolverDim>(
    lanes: &[Lane<'_, D>; LANES],
    bundle: &ManifoldBundle<D>,
    linear_masses: &LinearMasses,
    points: &mut [PointLanes<D>],
) {
    let counts = lanes
        .each_ref()
        .map(|l| (l.input.len as usize).min(D::MAX_MANIFOLD_POINTS));
    let used: [BVec4A; POINTS] =
        core::array::from_fn(|i| BVec4A::from_array(counts.map(|n| n > i)));
    let velocities = |body: for<'l> fn(&Lane<'l, D>) -> &'l SolverBody<D>| Velocities::<D> {
        linear: vectors(lanes, |l| body(l).linear_velocity),
        angular: D::AngularLanes::from_words(words(lanes, |l| body(l).angular_velocity.to_word())),
    };
    let (a, b) = (velocities(|l| l.a), velocities(|l| l.b));
    let center_a = vectors(lanes, |l| l.a.center);
    let center_b = vectors(lanes, |l| l.b.center);
    let normal = &bundle.normal;
    let linear = normal.dot(&(b.linear - a.linear));
    let mut normal_rows = [JacobianLanes::<D>::default(); POINTS];
    let mut tangent_rows = D::PerTangent::<[JacobianLanes<D>; POINTS]>::default();
    for (i, point) in points.iter_mut().enumerate().take(D::MAX_MANIFOLD_POINTS) {
        let input = |f: fn(&InputPoint<D>) -> f32| {
            only(used[i], scalars(lanes, |l| f(&l.input.points.as_ref()[i])))
        };
        let keep = only(used[i], Vec4::ONE);
        let arm = |anchor: fn(&InputPoint<D>) -> D::Vector, center: &D::VectorLanes| {
            let anchors = vectors(lanes, |l| anchor(&l.input.points.as_ref()[i]));
            (anchors - *center) * keep
        };
        let r_a = arm(|p| p.anchor_a, &center_a);
        let r_b = arm(|p| p.anchor_b, &center_b);
        let row = JacobianLanes::across(&r_a, &r_b, normal);
        let mut tangent_impulse = D::PerTangent::<Vec4>::default();
        for k in 0..D::TANGENTS {
            tangent_rows[k][i] = JacobianLanes::across(&r_a, &r_b, &bundle.tangents[k]);
            tangent_impulse[k] = only(
                used[i],
                scalars(lanes, |l| l.input.points.as_ref()[i].tangent_impulse[k]),
            );
        }
        *point = PointLanes {
            anchor_a: r_a,
            anchor_b: r_b,
            base_separation: only(
                used[i],
                -normal.dot(&(r_b - r_a)) - (bundle.radius_a + bundle.radius_b),
            ),
            half_gap: input(|p| p.separation) * 0.5,
            normal_impulse: input(|p| p.normal_impulse),
            tangent_impulse,
            approach_speed: only(used[i], row.velocity(linear, &a, &b)),
            ..PointLanes::default()
        };
        normal_rows[i] = row;
    }
    let rows = Rows {
        normal: &normal_rows,
        tangent: &tangent_rows,
    };
    set_masses(bundle, linear_masses, rows, &used, counts, points);
}

/// Each row's effective mass, and for approach and friction that mass
/// divided by its share of the manifold's common push: how many rows' worth
/// of push it feels when the rows along the same direction act together.
fn set_masses<D: SolverDim>(
    bundle: &ManifoldBundle<D>,
    linear: &LinearMasses,
    rows: Rows<'_, D>,
    used: &[BVec4A; POINTS],
    counts: [usize; LANES],
    points: &mut [PointLanes<D>],
) {
    let masses = PairMasses::<D> {
        inv_inertia_a: bundle.inv_inertia_a,
        inv_inertia_b: bundle.inv_inertia_b,
    };
    let along = |d: &D::VectorLanes| linear.along::<D>(d, &bundle.inv_mass_a, &bundle.inv_mass_b);
    let normals = masses.couplings(along(&bundle.normal), rows.normal, used);
    let mut frictions = D::PerTangent::<Couplings>::default();
    for k in 0..D::TANGENTS {
        frictions[k] = masses.couplings(along(&bundle.tangents[k]), &rows.tangent[k], used);
    }
    let stiffest = largest_eigenvalue::<D>(&normals, counts);
    let stiff = stiffest.is_finite_mask() & stiffest.cmpgt(Vec4::ZERO);
    let relax_cap = Vec4::ONE / stiffest;
    let push_scale = push_out_scale(&normals, stiffest);
    for (i, point) in points.iter_mut().enumerate().take(D::MAX_MANIFOLD_POINTS) {
        let mass = inverse(normals[i][i]);
        let shared = mass / share(&normals, i, false);
        let capped = Vec4::select(relax_cap.cmplt(shared), relax_cap, shared);
        point.normal_mass = only(used[i], mass * push_scale);
        point.normal_shared_mass = only(used[i], shared);
        point.normal_relax_mass = only(used[i], Vec4::select(stiff, capped, shared));
        for k in 0..D::TANGENTS {
            let friction = &frictions[k];
            point.tangent_shared_mass[k] =
                only(used[i], inverse(friction[i][i]) / share(friction, i, true));
        }
    }
    if D::TANGENTS == 2 {
        let scale = twist_scale(bundle, rows, used, &masses, points);
        for point in points.iter_mut().take(D::MAX_MANIFOLD_POINTS) {
            for k in 0..D::TANGENTS {
                point.tangent_shared_mass[k] *= scale;
            }
        }
    }
}

/// How far a manifold's friction rows, acting together at their shared
/// masses, may overshoot its twist about the normal (see [`twist_scale`]).
/// Rows acting together converge while they overshoot no mode twice; at
/// 1.5 a twist left over is halved by each pass. A cube on a cube
/// overshoots 1.2 and keeps its masses (lowered to stop the twist in one
/// pass, a cube dropped off-centre on a sleeping one sank 5 mm deeper
/// than onto an awake one:
/// `a_cube_landing_on_a_sleeping_one_is_stopped_in_the_step_it_wakes_it`).
const TWIST_GAIN: f32 = 1.5;

/// Per lane, the factor on every friction mass of a 3D manifold that keeps
/// its rows, acting together, from overshooting its twist about the normal
/// by more than [`TWIST_GAIN`]: one where they do not, else just enough
/// below one. A row's share counts only the rows along its own tangent,
/// but a twist moves every point along both, so both directions push it
/// back: two planks 1.2 x 1 m stacked squarely overshot it past twice and
/// twisted by themselves, the yaw rate growing 34-fold a step
/// (`two_stacked_planks_stay_square_and_fall_asleep_3d`). The overshoot is
/// the Rayleigh quotient of the twist's impulses `x` (each row's share of
/// a turn about the normal through the points' centre): `xᵀKx` over
/// `Σ x² / m`. One factor for all of a manifold's rows keeps a symmetric
/// manifold's friction symmetric.
#[inline]
fn twist_scale<D: SolverDim>(
    bundle: &ManifoldBundle<D>,
    rows: Rows<'_, D>,
    used: &[BVec4A; POINTS],
    masses: &PairMasses<D>,
    points: &[PointLanes<D>],
) -> Vec4 {
    let n = D::MAX_MANIFOLD_POINTS;
    let count = (0..n).fold(Vec4::ZERO, |sum, i| sum + only(used[i], Vec4::ONE));
    // Unused points' arms are zero.
    let centre =
        (0..n).fold(D::VectorLanes::default(), |sum, i| sum + points[i].anchor_b) * inverse(count);
    // The normal as an angular vector: the tangents' cross product.
    let axis = D::cross_lanes(&bundle.tangents[0], &bundle.tangents[1]);
    let mut turn_a = D::AngularLanes::default();
    let mut turn_b = D::AngularLanes::default();
    let mut weight = Vec4::ZERO;
    for k in 0..D::TANGENTS {
        let about_centre = D::cross_lanes(&centre, &bundle.tangents[k]);
        for i in 0..n {
            let row = &rows.tangent[k][i];
            // `((r_b - centre) × t) · n`: the row's velocity in a unit
            // twist about the normal through the centre.
            let x = only(used[i], (row.b - about_centre).dot(&axis));
            turn_a += row.a * x;
            turn_b += row.b * x;
            weight += x * x * inverse(points[i].tangent_shared_mass[k]);
        }
    }
    // The twist's impulses sum to no net force (the centre is the points'
    // mean), so only the bodies' turns take its energy.
    let energy = turn_a.dot(&masses.inv_inertia_a.mul(&turn_a))
        + turn_b.dot(&masses.inv_inertia_b.mul(&turn_b));
    let limited = Vec4::splat(TWIST_GAIN) * weight / energy;
    // Fewer than three points, no mass or no twist: a NaN or an infinite
    // `limited` fails the test and leaves the masses as they are.
    Vec4::select(limited.cmplt(Vec4::ONE), limited, Vec4::ONE)
}

/// A bundle's rows: along the normal, and along each tangent, a row per point.
#[derive(Copy, Clone)]
struct Rows<'r, D: SolverDim> {
    normal: &'r [JacobianLanes<D>; POINTS],
    tangent: &'r D::PerTangent<[JacobianLanes<D>; POINTS]>,
}

/// The bodies' inverse inertias, per lane.
struct PairMasses<D: SolverDim> {
    inv_inertia_a: D::InertiaLanes,
    inv_inertia_b: D::InertiaLanes,
}

impl<D: SolverDim> PairMasses<D> {
    /// The couplings between `rows` (one per point, all along one
    /// direction) in each lane, whose linear part is `inv_masses`
    /// ([`LinearMasses::along`]).
    #[inline]
    fn couplings(
        &self,
        inv_masses: Vec4,
        rows: &[JacobianLanes<D>; POINTS],
        used: &[BVec4A; POINTS],
    ) -> Couplings {
        let n = D::MAX_MANIFOLD_POINTS;
        let turned_a: [D::AngularLanes; POINTS] =
            core::array::from_fn(|j| self.inv_inertia_a.mul(&rows[j].a));
        let turned_b: [D::AngularLanes; POINTS] =
            core::array::from_fn(|j| self.inv_inertia_b.mul(&rows[j].b));
        let mut k = [[Vec4::ZERO; POINTS]; POINTS];
        for i in 0..n {
            for j in 0..n {
                let entry = inv_masses + rows[i].a.dot(&turned_a[j]) + rows[i].b.dot(&turned_b[j]);
                k[i][j] = only(used[i] & used[j], entry);
            }
        }
        k
    }
}

/// Per lane, the largest eigenvalue of the couplings of its `counts[lane]`
/// points, or about it: exact for one or two points; for more, the largest
/// Rayleigh quotient over the sign patterns a rectangle of corners moves in
/// (exact for a rectangle, from below otherwise) raised by 5%, and never
/// above the Gershgorin bound (the largest absolute row sum).
#[inline]
fn largest_eigenvalue<D: SolverDim>(k: &Couplings, counts: [usize; LANES]) -> Vec4 {
    let with = |n: usize| BVec4A::from_array(counts.map(|c| c == n));
    let (mean, half) = ((k[0][0] + k[1][1]) * 0.5, (k[0][0] - k[1][1]) * 0.5);
    let two = mean + (half * half + k[0][1] * k[0][1]).sqrt();
    let few = Vec4::select(with(1), k[0][0], only(with(2), two));
    if D::MAX_MANIFOLD_POINTS <= 2 {
        return few;
    }
    let gershgorin = (0..POINTS)
        .map(|j| (k[0][j].abs() + k[1][j].abs()) + (k[2][j].abs() + k[3][j].abs()))
        .fold(Vec4::ZERO, |largest, column| {
            Vec4::select(column.cmpgt(largest), column, largest)
        });
    // A rectangle of corners pushes, rocks and twists in these sign
    // patterns, so for one the largest quotient is exact. Points past a
    // lane's count meet zero couplings.
    let patterns = [
        [1.0, 1.0, 1.0, 1.0],
        [1.0, 1.0, -1.0, -1.0],
        [1.0, -1.0, 1.0, -1.0],
        [1.0, -1.0, -1.0, 1.0],
    ];
    let mut estimate = Vec4::ZERO;
    let mut start = [Vec4::ZERO; POINTS];
    let used: [BVec4A; POINTS] =
        core::array::from_fn(|i| BVec4A::from_array(counts.map(|c| c > i)));
    for p in patterns {
        let v: [Vec4; POINTS] = core::array::from_fn(|i| only(used[i], Vec4::splat(p[i])));
        let quotient = rayleigh_quotient(k, &v);
        let better = quotient.cmpgt(estimate);
        estimate = Vec4::select(better, quotient, estimate);
        start = core::array::from_fn(|i| Vec4::select(better, v[i], start[i]));
    }
    // Points that are not a rectangle's corners (a hull's, a box's on a
    // hull) move in other patterns: power steps from the best pattern.
    // Each step scaled by the pattern's quotient keeps the lengths near
    // one (the largest eigenvalue is at most four times it).
    let scale = inverse(estimate);
    let mut v = start;
    for _ in 0..POWER_STEPS {
        v = times(k, &v).map(|x| x * scale);
    }
    let quotient = rayleigh_quotient(k, &v);
    let estimate = Vec4::select(quotient.cmpgt(estimate), quotient, estimate);
    let raised = estimate * 1.05;
    let more = Vec4::select(gershgorin.cmplt(raised), gershgorin, raised);
    let many = BVec4A::from_array(counts.map(|c| c > 2));
    Vec4::select(many, more, few)
}

/// Power steps refining [`largest_eigenvalue`]'s estimate.
const POWER_STEPS: usize = 2;

/// Per lane, `K v`.
#[inline]
fn times(k: &Couplings, v: &[Vec4; POINTS]) -> [Vec4; POINTS] {
    core::array::from_fn(|i| (k[i][0] * v[0] + k[i][1] * v[1]) + (k[i][2] * v[2] + k[i][3] * v[3]))
}

/// Per lane, `vᵀ K v / vᵀ v`, or zero for a zero `v`.
#[inline]
fn rayleigh_quotient(k: &Couplings, v: &[Vec4; POINTS]) -> Vec4 {
    let kv = times(k, v);
    let dot = |a: &[Vec4; POINTS], b: &[Vec4; POINTS]| {
        (a[0] * b[0] + a[1] * b[1]) + (a[2] * b[2] + a[3] * b[3])
    };
    dot(v, &kv) * inverse(dot(v, v))
}

/// How far the rows, each pushing out with its own mass and all at once,
/// may overshoot the manifold's stiffest mode: rows acting together at
/// masses `m_i` (Jacobi) converge while `λ_max(diag(m) K) < 2`; past it the
/// push-out rocks a body from point to point without end (a hull resting
/// on four points of a narrow base never came to rest).
const PUSH_OUT_GAIN: f32 = 2.0;

/// Per lane, the factor on every point's own mass for push-out: one while
/// `λ_max(diag(m) K)`, at most the largest mass times the stiffest mode
/// `stiffest` ([`largest_eigenvalue`]), is at most [`PUSH_OUT_GAIN`], and
/// below one just enough to bring it there. One factor for all of a
/// manifold's points, so that a symmetric manifold still pushes
/// symmetrically.
#[inline]
fn push_out_scale(k: &Couplings, stiffest: Vec4) -> Vec4 {
    let largest_mass = (0..POINTS).fold(Vec4::ZERO, |largest, i| {
        let mass = inverse(k[i][i]);
        Vec4::select(mass.cmpgt(largest), mass, largest)
    });
    let limited = Vec4::splat(PUSH_OUT_GAIN) / (stiffest * largest_mass);
    Vec4::select(limited.cmplt(Vec4::ONE), limited, Vec4::ONE)
}

/// Row `i`'s share in each lane: its couplings summed, signed or by
/// magnitude, over its own, at least 1.
#[inline]
fn share(k: &Couplings, i: usize, magnitude: bool) -> Vec4 {
    let entry = |j: usize| if magnitude { k[j][i].abs() } else { k[j][i] };
    let sum = (entry(0) + entry(1)) + (entry(2) + entry(3));
    let own = k[i][i];
    Vec4::select(own.cmpgt(Vec4::ZERO), at_least_one(sum / own), Vec4::ONE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};
    use glam::{Mat3, Vec3};

    /// `rows` (symmetric) in lane 0 of every entry.
    fn in_lane_zero(rows: &[[f32; 4]]) -> Couplings {
        core::array::from_fn(|i| {
            core::array::from_fn(|j| {
                let v = rows.get(i).map_or(0.0, |r| r[j]);
                Vec4::new(v, 0.0, 0.0, 0.0)
            })
        })
    }

    #[test]
    fn largest_eigenvalue_is_reached_and_not_undershot() {
        let one = in_lane_zero(&[[3.0, 0.0, 0.0, 0.0]]);
        assert_eq!(largest_eigenvalue::<D2>(&one, [1, 0, 0, 0]).x, 3.0);
        let two = in_lane_zero(&[[2.0, -1.0, 0.0, 0.0], [-1.0, 2.0, 0.0, 0.0]]);
        assert!((largest_eigenvalue::<D2>(&two, [2, 0, 0, 0]).x - 3.0).abs() < 1e-6);
        // A cube on a cube: corners (±½, ±½), unit masses, inverse inertia 6
        // each: K[i][j] = 2 + 12 (x_i x_j + z_i z_j); rocking modes of 12.
        let corners = [(0.5, 0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, -0.5)];
        let k: [[f32; 4]; 4] = core::array::from_fn(|i| {
            core::array::from_fn(|j| {
                let ((xi, zi), (xj, zj)) = (corners[i], corners[j]);
                2.0 + 12.0 * (xi * xj + zi * zj)
            })
        });
        let largest = largest_eigenvalue::<D3>(&in_lane_zero(&k), [4, 0, 0, 0]).x;
        assert!((12.0..=12.0 * 1.05 + 1e-4).contains(&largest), "{largest}");
    }

    /// A body of unit mass and inverse inertia `inv_inertia` about every
    /// axis, on the ground, touching it at `corners` (x, z) below its centre.
    fn on_the_ground(corners: &[(f32, f32)], inv_inertia: f32) -> Couplings {
        let rows: Vec<[f32; 4]> = (0..corners.len())
            .map(|i| {
                core::array::from_fn(|j| match corners.get(j) {
                    Some(&(xj, zj)) => {
                        let (xi, zi) = corners[i];
                        1.0 + inv_inertia * (xi * xj + zi * zj)
                    }
                    None => 0.0,
                })
            })
            .collect();
        in_lane_zero(&rows)
    }

    #[test]
    fn push_out_keeps_full_masses_where_rows_pushing_together_converge() {
        let square = [(0.5, 0.5), (0.5, -0.5), (-0.5, 0.5), (-0.5, -0.5)];
        // A unit cube's corners: inverse inertia 6, couplings 1 + 6 (x x' + z z').
        for (corners, count) in [(&square[..], 4), (&square[..1], 1), (&[][..], 0)] {
            let k = on_the_ground(corners, 6.0);
            let stiffest = largest_eigenvalue::<D3>(&k, [count, 0, 0, 0]);
            assert_eq!(push_out_scale(&k, stiffest).x, 1.0, "{count} corners");
        }
    }

    #[test]
    fn push_out_is_lowered_to_where_rows_pushing_together_converge() {
        // A long, light body on a narrow base: one end on a point, the other
        // on two close ones. At full masses its rocking mode's Jacobi gain
        // is far past 2; scaled, every mode's gain is below 2.
        let base = [(-0.5, 0.0), (0.5, -0.09), (0.5, 0.09)];
        let k = on_the_ground(&base, 40.0);
        let scale = push_out_scale(&k, largest_eigenvalue::<D3>(&k, [3, 0, 0, 0])).x;
        assert!(scale < 1.0, "{scale}");
        let masses: Vec<f32> = (0..3).map(|i| scale / k[i][i].x).collect();
        let mut v = [1.0f32, -1.0, 0.5];
        for _ in 0..200 {
            let kv: Vec<f32> = (0..3)
                .map(|i| (0..3).map(|j| k[i][j].x * v[j]).sum())
                .collect();
            let length = kv.iter().map(|x| x * x).sum::<f32>().sqrt();
            v = core::array::from_fn(|i| kv[i] / length);
        }
        let rayleigh: f32 = (0..3)
            .map(|i| v[i] * (0..3).map(|j| k[i][j].x * v[j]).sum::<f32>())
            .sum();
        let stiffest_gain = rayleigh * masses.iter().copied().fold(0.0, f32::max);
        assert!(stiffest_gain <= 2.0 + 1e-4, "{stiffest_gain}");
        let full_gain = rayleigh / k[0][0].x.min(k[1][1].x);
        assert!(full_gain > 2.0, "{full_gain}");
    }

    #[test]
    fn couplings_match_the_products_of_the_rows() {
        let inertia_a = Mat3::from_cols(
            Vec3::new(2.0, 0.1, -0.3),
            Vec3::new(0.1, 1.5, 0.2),
            Vec3::new(-0.3, 0.2, 3.0),
        );
        let inertia_b = Mat3::from_diagonal(Vec3::new(0.5, 0.7, 0.9));
        let masses = PairMasses::<D3> {
            inv_inertia_a: InertiaLanes::splat(inertia_a),
            inv_inertia_b: InertiaLanes::splat(inertia_b),
        };
        let normal = Vec3::new(0.0, 1.0, 0.0);
        let arms = [
            Vec3::new(0.5, -0.5, 0.5),
            Vec3::new(-0.5, -0.5, 0.3),
            Vec3::new(0.2, -0.5, -0.5),
        ];
        let splat = |v: Vec3| <D3 as SolverDim>::VectorLanes::splat_word(v.to_word());
        let mut rows = [JacobianLanes::<D3>::default(); POINTS];
        for (row, r) in rows.iter_mut().zip(arms) {
            *row = JacobianLanes::across(&splat(r), &splat(r + Vec3::X), &splat(normal));
        }
        // Lane 2 uses all three points; lane 0 only the first two.
        let used = [0, 1, 2, 3].map(|i| BVec4A::from_array([i < 2, false, i < 3, false]));
        let k = masses.couplings(Vec4::splat(1.5), &rows, &used);
        for (i, ri) in arms.iter().enumerate() {
            for (j, rj) in arms.iter().enumerate() {
                let (ai, bi) = (ri.cross(normal), (*ri + Vec3::X).cross(normal));
                let (aj, bj) = (rj.cross(normal), (*rj + Vec3::X).cross(normal));
                let expected = 1.5 + ai.dot(inertia_a * aj) + bi.dot(inertia_b * bj);
                assert!((k[i][j].z - expected).abs() < 1e-5, "K[{i}][{j}]");
                let in_lane_zero = if i < 2 && j < 2 { expected } else { 0.0 };
                assert!(
                    (k[i][j].x - in_lane_zero).abs() < 1e-5,
                    "lane 0 K[{i}][{j}]"
                );
                assert_eq!(k[i][j].y, 0.0, "an unused lane");
            }
            assert_eq!(k[i][3].z, 0.0, "past the points: zero");
        }
    }
}
