//! Plain point joints four at a time in SIMD lanes: revolute joints
//! without limit, motor or spring, and ball joints without cone or twist
//! limits, the rows of [`super`]'s `solve_point` and `solve_hinge` (and
//! `project_point`, `project_hinge`) for four joints of one colour at once,
//! one per lane, as the contact solver bundles four manifolds.
//!
//! A [`PointBundle`] holds what stays the same over the step: the bodies,
//! their inverse masses and inertias, the anchors as lever arms and the
//! hinge axes in world axes as the step began, and the accumulated
//! impulses. Its [`PointRows`] are what the bodies' turns since the step
//! began make of them: the lever arms now, the point block's inverse mass
//! matrix and the hinge's rows. The poses do not change within a solve or
//! relax pass, only the velocities, so the rows are worked out once a pass
//! (at the warm start, and at the first relax sweep) and read by every
//! sweep. An empty lane's bodies are the all-zero state past the last
//! body, its masses zero: it pushes on nothing.

use core::fmt::Debug;

use glam::Vec4;

use super::{ANGULAR_TOLERANCE, LINEAR_TOLERANCE, MAX_ANGULAR_CORRECTION, MAX_LINEAR_CORRECTION};
use crate::math::{D2, D3};
use crate::pipeline::integrate::BodyState;
use crate::pipeline::lanes::{
    sqrt_lanes, InertiaLanes, Lanes, Lanes1, Lanes2, Lanes3, QuatLanes, Rot2Lanes, RotationLanes,
    SymmetricLanes3,
};
use crate::pipeline::solver::SolverDim;
use crate::pipeline::stages::Shared;

/// Joints in a bundle: one per SIMD lane.
pub(crate) const LANES: usize = 4;

/// Four plain point joints of one colour side by side, one per lane.
#[derive(Copy, Clone, Debug, Default)]
pub struct PointBundle<D: PointDim> {
    /// Each lane's bodies' places in the solver's states; an empty lane's
    /// are the all-zero state past the last body.
    pub body_a: [u32; LANES],
    pub body_b: [u32; LANES],
    /// Which lanes' bodies the solver moves; the others are only read.
    pub moves_a: [bool; LANES],
    pub moves_b: [bool; LANES],
    pub inv_mass_a: Vec4,
    pub inv_mass_b: Vec4,
    pub inv_inertia_a: D::InertiaLanes,
    pub inv_inertia_b: D::InertiaLanes,
    /// The anchors from the centres of mass, world axes, as the step began.
    pub arm_a: D::VectorLanes,
    pub arm_b: D::VectorLanes,
    /// `centre_b - centre_a` as the step began.
    pub centres: D::VectorLanes,
    /// The hinge axis on A and on B, world axes, as the step began (3D; a
    /// ball joint's and an empty lane's are zero, their rows masked off).
    pub axis_a: D::AngularLanes,
    pub axis_b: D::AngularLanes,
    /// 1 in lanes whose joint keeps a hinge's axes together (a 3D revolute
    /// joint), 0 in the others.
    pub hinge: Vec4,
    /// Accumulated impulses: on the point, and angular (a hinge's rows).
    pub point: D::VectorLanes,
    pub angular: D::AngularLanes,
}

/// A bundle's rows where its bodies stand now.
#[derive(Copy, Clone, Debug, Default)]
pub struct PointRows<D: PointDim> {
    arm_a: D::VectorLanes,
    arm_b: D::VectorLanes,
    block: D::BlockLanes,
    hinge: D::HingeLanes,
}

/// The velocities of a bundle's bodies A (or B), a body per lane.
#[derive(Copy, Clone, Debug, Default)]
pub struct Velocities<D: SolverDim> {
    pub linear: D::VectorLanes,
    pub angular: D::AngularLanes,
}

/// How far a bundle's bodies A (or B) moved and turned since the step began.
#[derive(Copy, Clone, Debug, Default)]
pub struct Motions<D: SolverDim> {
    pub displacement: D::VectorLanes,
    pub turn: D::RotationLanes,
}

/// What point joints add to the solver's dimension, lane by lane.
pub trait PointDim: SolverDim {
    /// A point block's inverse mass matrix in lanes.
    type BlockLanes: Copy + Debug + Default + Send + Sync + 'static;
    /// A hinge's rows across its axis in lanes (none in 2D).
    type HingeLanes: Copy + Debug + Default + Send + Sync + 'static;

    /// Per lane, `ω × r`.
    fn angular_cross_lanes(w: &Self::AngularLanes, r: &Self::VectorLanes) -> Self::VectorLanes;
    /// Per lane, the inverse of the point block's mass matrix `K` (as
    /// `JointDim::solve_point_block`), zero where `K` is singular.
    fn block_lanes(
        mass: Vec4,
        inertia: [&Self::InertiaLanes; 2],
        arms: [&Self::VectorLanes; 2],
    ) -> Self::BlockLanes;
    /// Per lane, `K⁻¹ rhs`.
    fn solve_block_lanes(block: &Self::BlockLanes, rhs: &Self::VectorLanes) -> Self::VectorLanes;
    /// A bundle's hinge rows with A turned by `turn_a` since the step began.
    fn hinge_lanes(bundle: &PointBundle<Self>, turn_a: &Self::RotationLanes) -> Self::HingeLanes;
    /// A sweep over a bundle's hinge rows (as `solve_hinge` without limits,
    /// motor or spring).
    fn solve_hinge_lanes(
        bundle: &mut PointBundle<Self>,
        hinge: &Self::HingeLanes,
        a: &mut Velocities<Self>,
        b: &mut Velocities<Self>,
    );
    /// A position pass over a bundle's hinge rows (as `project_hinge`
    /// without limits); whether it turned a body.
    fn project_hinge_lanes(
        bundle: &PointBundle<Self>,
        a: &mut Motions<Self>,
        b: &mut Motions<Self>,
    ) -> bool;
    /// Per lane, `axis` turned by `turn` (`JointDim::turn_axis`).
    fn turn_axis_lanes(turn: &Self::RotationLanes, axis: &Self::AngularLanes)
        -> Self::AngularLanes;
    /// Per lane, `turn` turned further by the small rotation vector `by`
    /// (`MathDim::integrate_rotation` over one second).
    fn integrate_lanes(turn: &Self::RotationLanes, by: &Self::AngularLanes) -> Self::RotationLanes;
}

impl PointDim for D2 {
    type BlockLanes = [Vec4; 3];
    type HingeLanes = ();

    #[inline]
    fn angular_cross_lanes(w: &Lanes1, r: &Lanes2) -> Lanes2 {
        // `r.perp() * w`.
        Lanes2 {
            x: Vec4::ZERO - r.y * w.0,
            y: r.x * w.0,
        }
    }

    #[inline]
    fn block_lanes(mass: Vec4, [ia, ib]: [&Lanes1; 2], [ra, rb]: [&Lanes2; 2]) -> [Vec4; 3] {
        // Box2D's revolute point block, as `D2::solve_point_block`.
        let (ia, ib) = (ia.0, ib.0);
        let k11 = mass + ia * ra.y * ra.y + ib * rb.y * rb.y;
        let k12 = Vec4::ZERO - ia * ra.x * ra.y - ib * rb.x * rb.y;
        let k22 = mass + ia * ra.x * ra.x + ib * rb.x * rb.x;
        let det = k11 * k22 - k12 * k12;
        let inv = inverse_or_zero(det);
        [k22 * inv, Vec4::ZERO - k12 * inv, k11 * inv]
    }

    #[inline]
    fn solve_block_lanes(k: &[Vec4; 3], rhs: &Lanes2) -> Lanes2 {
        Lanes2 {
            x: k[0] * rhs.x + k[1] * rhs.y,
            y: k[1] * rhs.x + k[2] * rhs.y,
        }
    }

    #[inline]
    fn hinge_lanes(_bundle: &PointBundle<D2>, _turn_a: &Rot2Lanes) {}

    #[inline]
    fn solve_hinge_lanes(
        _bundle: &mut PointBundle<D2>,
        _hinge: &(),
        _a: &mut Velocities<D2>,
        _b: &mut Velocities<D2>,
    ) {
    }

    #[inline]
    fn project_hinge_lanes(
        _bundle: &PointBundle<D2>,
        _a: &mut Motions<D2>,
        _b: &mut Motions<D2>,
    ) -> bool {
        false
    }

    #[inline]
    fn turn_axis_lanes(_turn: &Rot2Lanes, axis: &Lanes1) -> Lanes1 {
        *axis
    }

    #[inline]
    fn integrate_lanes(turn: &Rot2Lanes, by: &Lanes1) -> Rot2Lanes {
        // As `D2::integrate_rotation`: first order on the unit circle,
        // then back onto it.
        let (c, s, h) = (turn.cos(), turn.sin(), by.0);
        let cos = c - h * s;
        let sin = s + h * c;
        let len = sqrt_lanes(cos * cos + sin * sin);
        let ok = len.cmpgt(Vec4::ZERO) & len.is_finite_mask();
        Rot2Lanes::new(
            Vec4::select(ok, cos / len, Vec4::ONE),
            Vec4::select(ok, sin / len, Vec4::ZERO),
        )
    }
}

/// A 3D hinge's two rows across its axis, solved as one 2x2 block: their
/// directions (the tangents of A's axis now) and the inverse of their
/// effective mass matrix (zero in a ball joint's lanes).
#[derive(Copy, Clone, Debug, Default)]
pub struct HingeLanes3 {
    p: Lanes3,
    q: Lanes3,
    /// The inverse's entries `pp, pq, qq`.
    inverse: [Vec4; 3],
}

impl PointDim for D3 {
    type BlockLanes = SymmetricLanes3;
    type HingeLanes = HingeLanes3;

    #[inline]
    fn angular_cross_lanes(w: &Lanes3, r: &Lanes3) -> Lanes3 {
        w.cross(r)
    }

    #[inline]
    fn block_lanes(
        mass: Vec4,
        [ia, ib]: [&SymmetricLanes3; 2],
        [ra, rb]: [&Lanes3; 2],
    ) -> SymmetricLanes3 {
        // K = m 1 + Sᵀ_a I_a S_a + Sᵀ_b I_b S_b, S the cross-product matrix
        // of each arm (S v = r × v), Sᵀ I S written out for symmetric I.
        let part = |inertia: &SymmetricLanes3, r: &Lanes3| {
            let [a, b, c, d, e, f] = inertia.entries();
            let (x, y, z) = (r.x, r.y, r.z);
            let (xx, yy, zz, xy, xz, yz) = (x * x, y * y, z * z, x * y, x * z, y * z);
            [
                b * zz + c * yy - (f + f) * yz,
                a * zz + c * xx - (e + e) * xz,
                a * yy + b * xx - (d + d) * xy,
                f * xz + e * yz - d * zz - c * xy,
                d * yz + f * xy - b * xz - e * yy,
                d * xz + e * xy - a * yz - f * xx,
            ]
        };
        let (pa, pb) = (part(ia, ra), part(ib, rb));
        let (kxx, kyy, kzz) = (
            mass + pa[0] + pb[0],
            mass + pa[1] + pb[1],
            mass + pa[2] + pb[2],
        );
        let (kxy, kxz, kyz) = (pa[3] + pb[3], pa[4] + pb[4], pa[5] + pb[5]);
        // The inverse from the cofactors (K is symmetric).
        let cxx = kyy * kzz - kyz * kyz;
        let cxy = kxz * kyz - kxy * kzz;
        let cxz = kxy * kyz - kxz * kyy;
        let cyy = kxx * kzz - kxz * kxz;
        let cyz = kxy * kxz - kxx * kyz;
        let czz = kxx * kyy - kxy * kxy;
        let det = kxx * cxx + kxy * cxy + kxz * cxz;
        let inv = inverse_or_zero(det);
        SymmetricLanes3::new(
            cxx * inv,
            cyy * inv,
            czz * inv,
            cxy * inv,
            cxz * inv,
            cyz * inv,
        )
    }

    #[inline]
    fn solve_block_lanes(k: &SymmetricLanes3, rhs: &Lanes3) -> Lanes3 {
        k.mul(rhs)
    }

    #[inline]
    fn hinge_lanes(bundle: &PointBundle<D3>, turn_a: &QuatLanes) -> HingeLanes3 {
        let axis = turn_a.rotate(&bundle.axis_a);
        let [p, q] = tangent_lanes(&axis);
        let (ip, iq) = (
            bundle.inv_inertia_a.mul(&p) + bundle.inv_inertia_b.mul(&p),
            bundle.inv_inertia_a.mul(&q) + bundle.inv_inertia_b.mul(&q),
        );
        let (kpp, kpq, kqq) = (p.dot(&ip), p.dot(&iq), q.dot(&iq));
        let inv = inverse_or_zero(kpp * kqq - kpq * kpq) * bundle.hinge;
        HingeLanes3 {
            p,
            q,
            inverse: [kqq * inv, Vec4::ZERO - kpq * inv, kpp * inv],
        }
    }

    #[inline]
    fn solve_hinge_lanes(
        bundle: &mut PointBundle<D3>,
        hinge: &HingeLanes3,
        a: &mut Velocities<D3>,
        b: &mut Velocities<D3>,
    ) {
        let spin = b.angular - a.angular;
        let (sp, sq) = (spin.dot(&hinge.p), spin.dot(&hinge.q));
        let [kpp, kpq, kqq] = hinge.inverse;
        // The impulse is minus `turn`: A gains `turn`, B loses it.
        let turn = hinge.p * (kpp * sp + kpq * sq) + hinge.q * (kpq * sp + kqq * sq);
        bundle.angular -= turn;
        a.angular += bundle.inv_inertia_a.mul(&turn);
        b.angular -= bundle.inv_inertia_b.mul(&turn);
    }

    #[inline]
    fn project_hinge_lanes(
        bundle: &PointBundle<D3>,
        a: &mut Motions<D3>,
        b: &mut Motions<D3>,
    ) -> bool {
        // Both rows as one block, from the axes as the pass found them
        // (each row's error clamped; a lane whose axes lean less than the
        // tolerance left alone, a bundle whose lanes all do skipped).
        let axis_a = a.turn.rotate(&bundle.axis_a);
        let axis_b = b.turn.rotate(&bundle.axis_b);
        let lean = axis_a.cross(&axis_b);
        let off = lean
            .dot(&lean)
            .cmpge(Vec4::splat(ANGULAR_TOLERANCE * ANGULAR_TOLERANCE))
            & bundle.hinge.cmpgt(Vec4::ZERO);
        if !off.any() {
            return false;
        }
        let hinge = D3::hinge_lanes(bundle, &a.turn);
        let most = Vec4::splat(MAX_ANGULAR_CORRECTION);
        let (ep, eq) = (
            Vec4::select(off, lean.dot(&hinge.p).clamp(-most, most), Vec4::ZERO),
            Vec4::select(off, lean.dot(&hinge.q).clamp(-most, most), Vec4::ZERO),
        );
        let [kpp, kpq, kqq] = hinge.inverse;
        // A turns by `turn`, B by minus it, each through its inertia.
        let turn = hinge.p * (kpp * ep + kpq * eq) + hinge.q * (kpq * ep + kqq * eq);
        a.turn = D3::integrate_lanes(&a.turn, &bundle.inv_inertia_a.mul(&turn));
        let zero = Lanes3::default();
        b.turn = D3::integrate_lanes(&b.turn, &(zero - bundle.inv_inertia_b.mul(&turn)));
        true
    }

    #[inline]
    fn turn_axis_lanes(turn: &QuatLanes, axis: &Lanes3) -> Lanes3 {
        turn.rotate(axis)
    }

    #[inline]
    fn integrate_lanes(turn: &QuatLanes, by: &Lanes3) -> QuatLanes {
        // As `D3::integrate_rotation`: q' = q + 1/2 (ω, 0) q, renormalised.
        let (v, w) = (turn.axis(), turn.w());
        let half = Vec4::splat(0.5);
        let dv = *by * w + by.cross(v);
        let dw = Vec4::ZERO - by.dot(v);
        let axis = *v + dv * half;
        let w2 = w + dw * half;
        let len = sqrt_lanes(axis.dot(&axis) + w2 * w2);
        let ok = len.cmpgt(Vec4::ZERO) & len.is_finite_mask();
        let inv = Vec4::ONE / len;
        QuatLanes::new(
            Lanes3 {
                x: Vec4::select(ok, axis.x * inv, v.x),
                y: Vec4::select(ok, axis.y * inv, v.y),
                z: Vec4::select(ok, axis.z * inv, v.z),
            },
            Vec4::select(ok, w2 * inv, w),
        )
    }
}

/// `1 / x` where `|x|` is above the smallest normal float, zero elsewhere
/// (a singular block: both bodies fixed, or an empty lane).
#[inline]
fn inverse_or_zero(x: Vec4) -> Vec4 {
    let usable = x.abs().cmpgt(Vec4::splat(f32::MIN_POSITIVE));
    Vec4::select(usable, Vec4::ONE / x, Vec4::ZERO)
}

/// Per lane, `D3::tangents` of unit `n`.
#[inline]
fn tangent_lanes(n: &Lanes3) -> [Lanes3; 2] {
    let near_x = n.x.abs().cmplt(Vec4::splat(0.57));
    let reference = Lanes3 {
        x: Vec4::select(near_x, Vec4::ONE, Vec4::ZERO),
        y: Vec4::select(near_x, Vec4::ZERO, Vec4::ONE),
        z: Vec4::ZERO,
    };
    let t = reference - *n * reference.dot(n);
    let t1 = t * (Vec4::ONE / sqrt_lanes(t.dot(&t)));
    [t1, n.cross(&t1)]
}

/// `v` shortened to at most `most` per lane (as `at_most`).
#[inline]
fn at_most_lanes<D: PointDim>(v: &D::VectorLanes, most: f32) -> D::VectorLanes {
    let length = sqrt_lanes(v.dot(v));
    let most = Vec4::splat(most);
    let scale = Vec4::select(length.cmpgt(most), most / length, Vec4::ONE);
    *v * scale
}

impl<D: PointDim> PointBundle<D> {
    /// The rows where the bodies stand after turning by `turn_a` and
    /// `turn_b` since the step began.
    #[inline]
    pub(crate) fn rows(
        &self,
        turn_a: &D::RotationLanes,
        turn_b: &D::RotationLanes,
    ) -> PointRows<D> {
        let arm_a = turn_a.rotate(&self.arm_a);
        let arm_b = turn_b.rotate(&self.arm_b);
        let block = D::block_lanes(
            self.inv_mass_a + self.inv_mass_b,
            [&self.inv_inertia_a, &self.inv_inertia_b],
            [&arm_a, &arm_b],
        );
        PointRows {
            arm_a,
            arm_b,
            block,
            hinge: D::hinge_lanes(self, turn_a),
        }
    }

    /// A linear impulse `linear` on the anchors at `rows`' arms (B gains
    /// it, A loses it) and an angular one, into the velocities.
    #[inline]
    fn apply(
        &self,
        rows: &PointRows<D>,
        a: &mut Velocities<D>,
        b: &mut Velocities<D>,
        linear: &D::VectorLanes,
        angular: &D::AngularLanes,
    ) {
        a.linear -= *linear * self.inv_mass_a;
        a.angular -= self
            .inv_inertia_a
            .mul(&(D::cross_lanes(&rows.arm_a, linear) + *angular));
        b.linear += *linear * self.inv_mass_b;
        b.angular += self
            .inv_inertia_b
            .mul(&(D::cross_lanes(&rows.arm_b, linear) + *angular));
    }

    /// The accumulated impulses applied again.
    #[inline]
    pub(crate) fn warm_start(
        &self,
        rows: &PointRows<D>,
        a: &mut Velocities<D>,
        b: &mut Velocities<D>,
    ) {
        self.apply(rows, a, b, &self.point, &self.angular);
    }

    /// One Gauss-Seidel sweep over the bundle's rows: the hinge's, then the
    /// point block (rigid, no push: the position passes correct the drift).
    #[inline]
    pub(crate) fn sweep(
        &mut self,
        rows: &PointRows<D>,
        a: &mut Velocities<D>,
        b: &mut Velocities<D>,
    ) {
        D::solve_hinge_lanes(self, &rows.hinge, a, b);
        let speed = b.linear + D::angular_cross_lanes(&b.angular, &rows.arm_b)
            - a.linear
            - D::angular_cross_lanes(&a.angular, &rows.arm_a);
        // The impulse is minus `solved`: A gains `solved`, B loses it.
        let solved = D::solve_block_lanes(&rows.block, &speed);
        self.point -= solved;
        a.linear += solved * self.inv_mass_a;
        a.angular += self
            .inv_inertia_a
            .mul(&D::cross_lanes(&rows.arm_a, &solved));
        b.linear -= solved * self.inv_mass_b;
        b.angular -= self
            .inv_inertia_b
            .mul(&D::cross_lanes(&rows.arm_b, &solved));
    }

    /// One position pass: the hinge's axes brought together, then the
    /// anchors (as `project_hinge` and `project_point`, a lane off by less
    /// than the tolerances left alone); the poses move, the velocities do
    /// not. Whether it moved a body.
    #[inline]
    pub(crate) fn project(&self, a: &mut Motions<D>, b: &mut Motions<D>) -> bool {
        let turned = D::project_hinge_lanes(self, a, b);
        let arm_a = a.turn.rotate(&self.arm_a);
        let arm_b = b.turn.rotate(&self.arm_b);
        let separation = self.centres + b.displacement - a.displacement + arm_b - arm_a;
        let apart = separation
            .dot(&separation)
            .cmpge(Vec4::splat(LINEAR_TOLERANCE * LINEAR_TOLERANCE));
        if !apart.any() {
            return turned;
        }
        let error = at_most_lanes::<D>(&separation, MAX_LINEAR_CORRECTION)
            * Vec4::select(apart, Vec4::ONE, Vec4::ZERO);
        let block = D::block_lanes(
            self.inv_mass_a + self.inv_mass_b,
            [&self.inv_inertia_a, &self.inv_inertia_b],
            [&arm_a, &arm_b],
        );
        let shift = D::VectorLanes::default() - D::solve_block_lanes(&block, &error);
        let zero = D::AngularLanes::default();
        a.displacement -= shift * self.inv_mass_a;
        let turn_a = zero - self.inv_inertia_a.mul(&D::cross_lanes(&arm_a, &shift));
        a.turn = D::integrate_lanes(&a.turn, &turn_a);
        b.displacement += shift * self.inv_mass_b;
        let turn_b = self.inv_inertia_b.mul(&D::cross_lanes(&arm_b, &shift));
        b.turn = D::integrate_lanes(&b.turn, &turn_b);
        true
    }
}

/// The bodies' states as the solver's stages share them, read and written
/// four at a time. The bundles' body indices were laid out below the
/// states' count (checked once, in [`StateLanes::new`]), so each access
/// goes unchecked.
pub(crate) struct StateLanes<'s, 'a, D: SolverDim> {
    states: &'s Shared<'a, D::BodyState>,
}

impl<'s, 'a, D: SolverDim> StateLanes<'s, 'a, D> {
    /// `states`, to be reached at indices below `bound`.
    pub(crate) fn new(states: &'s Shared<'a, D::BodyState>, bound: usize) -> Self {
        assert!(bound <= states.len(), "bundles reach past the states");
        Self { states }
    }
    /// The states of `bodies`, one a lane.
    ///
    /// # Safety
    /// As [`StateLanes::velocities`].
    #[inline]
    unsafe fn lanes(&self, bodies: &[u32; LANES]) -> [&D::BodyState; LANES] {
        // SAFETY: by the caller's contract.
        bodies.map(|i| unsafe { self.states.get_unchecked(i as usize) })
    }

    /// The velocities of `bodies` in lanes.
    ///
    /// # Safety
    /// `bodies` must be below the bound given to [`StateLanes::new`], and
    /// no state of `bodies` may be written while this runs.
    #[inline]
    pub(crate) unsafe fn velocities(&self, bodies: &[u32; LANES]) -> Velocities<D> {
        // SAFETY: by the caller's contract.
        let lanes = unsafe { self.lanes(bodies) };
        let (linear, angular) = D::BodyState::gather_velocities(lanes);
        Velocities { linear, angular }
    }

    /// The lanes of `velocities` whose body moves written back.
    ///
    /// # Safety
    /// `bodies` must be below the bound given to [`StateLanes::new`], and
    /// no other reference to the state of a moving body of `bodies` may be
    /// alive.
    #[inline]
    pub(crate) unsafe fn set_velocities(
        &self,
        bodies: &[u32; LANES],
        moves: &[bool; LANES],
        velocities: &Velocities<D>,
    ) {
        let lanes = D::BodyState::velocities_by_lane(&velocities.linear, &velocities.angular);
        for ((&index, &moves), velocity) in bodies.iter().zip(moves).zip(lanes) {
            if moves {
                // SAFETY: by the caller's contract.
                unsafe { self.states.get_unchecked_mut(index as usize) }.set_velocity(velocity);
            }
        }
    }

    /// The motions of `bodies` since the step began, in lanes.
    ///
    /// # Safety
    /// As [`StateLanes::velocities`].
    #[inline]
    pub(crate) unsafe fn motions(&self, bodies: &[u32; LANES]) -> Motions<D> {
        // SAFETY: by the caller's contract.
        let lanes = unsafe { self.lanes(bodies) };
        let (displacement, turn) = D::BodyState::gather_motions(lanes);
        Motions { displacement, turn }
    }

    /// The lanes of `motions` whose body moves written back.
    ///
    /// # Safety
    /// As [`StateLanes::set_velocities`].
    #[inline]
    pub(crate) unsafe fn set_motions(
        &self,
        bodies: &[u32; LANES],
        moves: &[bool; LANES],
        motions: &Motions<D>,
    ) {
        let lanes = D::BodyState::motions_by_lane(&motions.displacement, &motions.turn);
        for ((&index, &moves), motion) in bodies.iter().zip(moves).zip(lanes) {
            if moves {
                // SAFETY: by the caller's contract.
                unsafe { self.states.get_unchecked_mut(index as usize) }.set_motion(motion);
            }
        }
    }
}
