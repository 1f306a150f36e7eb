//! Integration: velocities from gravity, forces and damping; positions from
//! velocities (symplectic Euler, run once per solver substep).

use core::fmt::Debug;

use glam::{Quat, Vec2, Vec3, Vec4};

use super::lanes::{
    columns, transpose, Lanes, Lanes1, Lanes2, Lanes3, QuatLanes, Rot2Lanes, RotationLanes,
};
use super::solver::SolverDim;
use crate::math::{Axes, MathDim, Rot2, SimdWord, Vector, D2, D3};

/// A body as the solver sees it: dense, plain data.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SolverBody<D: SolverDim> {
    /// Centre of mass, world space.
    pub center: D::Vector,
    pub rotation: D::Rotation,
    pub linear_velocity: D::Vector,
    pub angular_velocity: D::AngularVector,
    pub inv_mass: f32,
    /// World axes along which contacts do not move the body: its inverse
    /// mass along them is zero (`Locks::translation`).
    pub translation_lock: Axes,
    /// World-space inverse inertia, fixed for the step (zero about locked
    /// rotation axes).
    pub inv_inertia: D::Inertia,
    /// Gravity and applied force as an acceleration, m/s².
    pub linear_acceleration: D::Vector,
    /// Applied torque as an angular acceleration, rad/s².
    pub angular_acceleration: D::AngularVector,
    pub linear_damping: f32,
    pub angular_damping: f32,
    /// Only dynamic bodies gain velocity from forces.
    pub dynamic: bool,
}

impl<D: SolverDim> SolverBody<D> {
    /// A body that does not move this step (fixed, or asleep).
    pub(crate) fn at_rest(center: D::Vector, rotation: D::Rotation) -> Self {
        Self {
            center,
            rotation,
            linear_velocity: D::Vector::ZERO,
            angular_velocity: D::AngularVector::default(),
            inv_mass: 0.0,
            translation_lock: Axes::NONE,
            inv_inertia: D::zero_inertia(),
            linear_acceleration: D::Vector::ZERO,
            angular_acceleration: D::AngularVector::default(),
            linear_damping: 0.0,
            angular_damping: 0.0,
            dynamic: false,
        }
    }
}

/// What the substep loop changes of a body, as SIMD [`SimdWord`]s, so that the
/// solver gathers four bodies into lanes with a transpose (Box2D v3's
/// `b2BodyState`). The pose is kept as its change since the step began: a
/// contact's current separation is its separation at the step's start
/// moved by the two changes, with no per-point copy of where the point sits
/// on each body. A 2D body's velocities fit one word and its motion
/// another ([`BodyState2`]); a 3D body takes a word per quantity
/// ([`BodyState3`]). The all-zero state (`Default`) is a body that neither
/// moves nor pushes.
pub trait BodyState<D: SolverDim>: Copy + Debug + Default + Send + Sync + 'static {
    /// One body's velocities as a scatter writes them back.
    type Velocity: Copy;
    /// One body's motion since the step began as a scatter writes it back.
    type Motion: Copy;
    /// A body moving at `linear` (m/s) and `angular` (rad/s) as the step begins.
    fn starting(linear: D::Vector, angular: D::AngularVector) -> Self;
    /// The linear (m/s) and angular (rad/s) velocities.
    fn velocities(&self) -> (D::Vector, D::AngularVector);
    /// How far the centre of mass moved (m) and the body turned (world
    /// frame) since the step began.
    fn motion(&self) -> (D::Vector, D::Rotation);
    /// `v += h·a`, then each velocity scaled by its damping factor.
    fn accelerate(
        &mut self,
        acceleration: (D::Vector, D::AngularVector),
        damping: (f32, f32),
        h: f32,
    );
    /// `x += h·v` and the rotation turned by `h·ω`.
    fn advance(&mut self, h: f32);
    /// Four bodies' linear and angular velocities in lanes.
    fn gather_velocities(states: [&Self; 4]) -> (D::VectorLanes, D::AngularLanes);
    /// Four bodies' motions in lanes.
    fn gather_motions(states: [&Self; 4]) -> (D::VectorLanes, D::RotationLanes);
    /// Lanes of velocities, body by body.
    fn velocities_by_lane(
        linear: &D::VectorLanes,
        angular: &D::AngularLanes,
    ) -> [Self::Velocity; 4];
    /// The velocities set to `velocity`.
    fn set_velocity(&mut self, velocity: Self::Velocity);
    /// Lanes of motions (displacement and turn since the step began), body
    /// by body.
    fn motions_by_lane(displacement: &D::VectorLanes, turn: &D::RotationLanes)
        -> [Self::Motion; 4];
    /// The motion since the step began set to `motion`.
    fn set_motion(&mut self, motion: Self::Motion);
    /// The velocities set to `linear` (m/s) and `angular` (rad/s).
    fn set_velocities(&mut self, linear: D::Vector, angular: D::AngularVector);
    /// The pose moved by `shift` (m) and turned by the small rotation
    /// vector `turn` (rad), velocities untouched: a position correction.
    fn nudge(&mut self, shift: D::Vector, turn: D::AngularVector);
}

/// A 2D body's state: `(vx, vy, ω, 0)` and `(dx, dy, cos, sin)`.
#[derive(Copy, Clone, Debug, Default)]
pub struct BodyState2 {
    velocity: Vec4,
    motion: Vec4,
}

impl BodyState<D2> for BodyState2 {
    type Velocity = Vec4;
    type Motion = Vec4;
    #[inline]
    fn starting(linear: Vec2, angular: f32) -> Self {
        Self {
            velocity: Vec4::new(linear.x, linear.y, angular, 0.0),
            motion: Vec4::new(0.0, 0.0, 1.0, 0.0),
        }
    }
    #[inline]
    fn velocities(&self) -> (Vec2, f32) {
        (Vec2::new(self.velocity.x, self.velocity.y), self.velocity.z)
    }
    #[inline]
    fn motion(&self) -> (Vec2, Rot2) {
        let turn = Rot2 {
            cos: self.motion.z,
            sin: self.motion.w,
        };
        (Vec2::new(self.motion.x, self.motion.y), turn)
    }
    #[inline]
    fn accelerate(&mut self, (linear, angular): (Vec2, f32), damping: (f32, f32), h: f32) {
        self.velocity += Vec4::new(linear.x, linear.y, angular, 0.0) * h;
        self.velocity *= Vec4::new(damping.0, damping.0, damping.1, 1.0);
    }
    #[inline]
    fn advance(&mut self, h: f32) {
        let (v, m) = (self.velocity, self.motion);
        let (_, turn) = self.motion();
        let turn = D2::integrate_rotation(turn, v.z, h);
        self.motion = Vec4::new(m.x + v.x * h, m.y + v.y * h, turn.cos, turn.sin);
    }
    #[inline]
    fn gather_velocities(states: [&Self; 4]) -> (Lanes2, Lanes1) {
        let (linear, angular, _) = split_rows(states.map(|s| s.velocity));
        (linear, Lanes1(angular))
    }
    #[inline]
    fn gather_motions(states: [&Self; 4]) -> (Lanes2, Rot2Lanes) {
        let (displacement, cos, sin) = split_rows(states.map(|s| s.motion));
        (displacement, Rot2Lanes::new(cos, sin))
    }
    #[inline]
    fn velocities_by_lane(linear: &Lanes2, angular: &Lanes1) -> [Vec4; 4] {
        columns(transpose([linear.x, linear.y, angular.0, Vec4::ZERO]))
    }
    #[inline]
    fn set_velocities(&mut self, linear: Vec2, angular: f32) {
        self.velocity = Vec4::new(linear.x, linear.y, angular, 0.0);
    }
    #[inline]
    fn nudge(&mut self, shift: Vec2, turn: f32) {
        let (moved, turned) = self.motion();
        let turned = D2::integrate_rotation(turned, turn, 1.0);
        let moved = moved + shift;
        self.motion = Vec4::new(moved.x, moved.y, turned.cos, turned.sin);
    }
    #[inline]
    fn set_velocity(&mut self, velocity: Vec4) {
        self.velocity = velocity;
    }
    #[inline]
    fn motions_by_lane(displacement: &Lanes2, turn: &Rot2Lanes) -> [Vec4; 4] {
        columns(transpose([
            displacement.x,
            displacement.y,
            turn.cos(),
            turn.sin(),
        ]))
    }
    #[inline]
    fn set_motion(&mut self, motion: Vec4) {
        self.motion = motion;
    }
}

/// Four words in lanes: their first two components as 2D vectors, then
/// their third and their fourth components.
#[inline]
fn split_rows(words: [Vec4; 4]) -> (Lanes2, Vec4, Vec4) {
    let rows = transpose(words);
    let xy = Lanes2 {
        x: rows.x_axis,
        y: rows.y_axis,
    };
    (xy, rows.z_axis, rows.w_axis)
}

/// A 3D body's state: `v`, `ω` and the displacement, each `(x, y, z, 0)`,
/// and the turn as a quaternion.
#[derive(Copy, Clone, Debug, Default)]
pub struct BodyState3 {
    linear_velocity: Vec4,
    angular_velocity: Vec4,
    displacement: Vec4,
    turn: Vec4,
}

impl BodyState<D3> for BodyState3 {
    type Velocity = (Vec4, Vec4);
    type Motion = (Vec4, Vec4);
    #[inline]
    fn starting(linear: Vec3, angular: Vec3) -> Self {
        Self {
            linear_velocity: linear.to_word(),
            angular_velocity: angular.to_word(),
            displacement: Vec4::ZERO,
            turn: Quat::IDENTITY.to_word(),
        }
    }
    #[inline]
    fn velocities(&self) -> (Vec3, Vec3) {
        (
            Vec3::from_word(self.linear_velocity),
            Vec3::from_word(self.angular_velocity),
        )
    }
    #[inline]
    fn motion(&self) -> (Vec3, Quat) {
        (
            Vec3::from_word(self.displacement),
            Quat::from_word(self.turn),
        )
    }
    #[inline]
    fn accelerate(&mut self, (linear, angular): (Vec3, Vec3), damping: (f32, f32), h: f32) {
        self.linear_velocity += linear.to_word() * h;
        self.angular_velocity += angular.to_word() * h;
        self.linear_velocity *= damping.0;
        self.angular_velocity *= damping.1;
    }
    #[inline]
    fn advance(&mut self, h: f32) {
        self.displacement += self.linear_velocity * h;
        let (_, turn) = self.motion();
        let turn = D3::integrate_rotation(turn, Vec3::from_word(self.angular_velocity), h);
        self.turn = turn.to_word();
    }
    #[inline]
    fn gather_velocities(states: [&Self; 4]) -> (Lanes3, Lanes3) {
        (
            Lanes3::from_words(states.map(|s| s.linear_velocity)),
            Lanes3::from_words(states.map(|s| s.angular_velocity)),
        )
    }
    #[inline]
    fn gather_motions(states: [&Self; 4]) -> (Lanes3, QuatLanes) {
        (
            Lanes3::from_words(states.map(|s| s.displacement)),
            QuatLanes::from_words(states.map(|s| s.turn)),
        )
    }
    #[inline]
    fn velocities_by_lane(linear: &Lanes3, angular: &Lanes3) -> [(Vec4, Vec4); 4] {
        let (linear, angular) = (linear.to_words(), angular.to_words());
        core::array::from_fn(|i| (linear[i], angular[i]))
    }
    #[inline]
    fn set_velocities(&mut self, linear: Vec3, angular: Vec3) {
        self.linear_velocity = linear.to_word();
        self.angular_velocity = angular.to_word();
    }
    #[inline]
    fn nudge(&mut self, shift: Vec3, turn: Vec3) {
        let (moved, turned) = self.motion();
        self.displacement = (moved + shift).to_word();
        self.turn = D3::integrate_rotation(turned, turn, 1.0).to_word();
    }
    #[inline]
    fn set_velocity(&mut self, (linear, angular): (Vec4, Vec4)) {
        self.linear_velocity = linear;
        self.angular_velocity = angular;
    }
    #[inline]
    fn motions_by_lane(displacement: &Lanes3, turn: &QuatLanes) -> [(Vec4, Vec4); 4] {
        let (displacement, turn) = (displacement.to_words(), turn.to_words());
        core::array::from_fn(|i| (displacement[i], turn[i]))
    }
    #[inline]
    fn set_motion(&mut self, (displacement, turn): (Vec4, Vec4)) {
        self.displacement = displacement;
        self.turn = turn;
    }
}

/// The state of `body` as the step begins.
pub(crate) fn starting_state<D: SolverDim>(body: &SolverBody<D>) -> D::BodyState {
    D::BodyState::starting(body.linear_velocity, body.angular_velocity)
}

/// `state` written back into `body`: its velocities, and its pose moved
/// and turned.
pub(crate) fn store<D: SolverDim>(state: &D::BodyState, body: &mut SolverBody<D>) {
    let ((linear, angular), (displacement, turn)) = (state.velocities(), state.motion());
    body.linear_velocity = linear;
    body.angular_velocity = angular;
    body.center += displacement;
    body.rotation = D::turn_by(body.rotation, turn);
}

/// Stage 1, per substep: `v += h·a`, then damping `v /= 1 + h·c`.
pub(crate) fn integrate_velocities<D: SolverDim>(
    states: &mut [D::BodyState],
    bodies: &[SolverBody<D>],
    h: f32,
) {
    for (s, b) in states.iter_mut().zip(bodies).filter(|(_, b)| b.dynamic) {
        let damping = (
            1.0 / (1.0 + h * b.linear_damping),
            1.0 / (1.0 + h * b.angular_damping),
        );
        s.accelerate((b.linear_acceleration, b.angular_acceleration), damping, h);
    }
}

/// Stage 6, per substep: `x += h·v` and the rotation turned by `h·ω`.
pub(crate) fn integrate_positions<D: SolverDim>(states: &mut [D::BodyState], h: f32) {
    states.iter_mut().for_each(|s| s.advance(h));
}
