//! Integration: velocities from gravity, forces and damping; positions from
//! velocities (symplectic Euler, run once per solver substep).

use glam::Vec4;

use crate::math::{Dim, Vector, Word};

/// A body as the solver sees it: dense, plain data.
#[derive(Copy, Clone, Debug)]
pub(crate) struct SolverBody<D: Dim> {
    /// Centre of mass, world space.
    pub center: D::Vector,
    pub rotation: D::Rotation,
    pub linear_velocity: D::Vector,
    pub angular_velocity: D::AngularVector,
    pub inv_mass: f32,
    /// World-space inverse inertia, fixed for the step.
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

impl<D: Dim> SolverBody<D> {
    /// A body that does not move this step (fixed, or asleep).
    pub(crate) fn at_rest(center: D::Vector, rotation: D::Rotation) -> Self {
        Self {
            center,
            rotation,
            linear_velocity: D::Vector::ZERO,
            angular_velocity: D::AngularVector::default(),
            inv_mass: 0.0,
            inv_inertia: D::zero_inertia(),
            linear_acceleration: D::Vector::ZERO,
            angular_acceleration: D::AngularVector::default(),
            linear_damping: 0.0,
            angular_damping: 0.0,
            dynamic: false,
        }
    }
}

/// What the substep loop changes of a body, each quantity as one SIMD
/// [`Word`], so that the solver gathers four bodies into lanes with a
/// transpose (Box2D v3's `b2BodyState`). The pose is kept as its change
/// since the step began: a contact's current separation is its separation
/// at the step's start moved by the two changes, with no per-point copy of
/// where the point sits on each body.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) struct BodyState {
    pub linear_velocity: Vec4,
    pub angular_velocity: Vec4,
    /// How far the centre of mass moved since the step began, m.
    pub displacement: Vec4,
    /// How far the body turned since the step began (world frame).
    pub turn: Vec4,
}

impl BodyState {
    /// The state of `body` as the step begins.
    pub(crate) fn of<D: Dim>(body: &SolverBody<D>) -> Self {
        Self {
            linear_velocity: body.linear_velocity.to_word(),
            angular_velocity: body.angular_velocity.to_word(),
            displacement: Vec4::ZERO,
            turn: D::identity().to_word(),
        }
    }

    /// The state written back into `body`: its velocities, and its pose
    /// moved and turned.
    pub(crate) fn store<D: Dim>(&self, body: &mut SolverBody<D>) {
        body.linear_velocity = D::Vector::from_word(self.linear_velocity);
        body.angular_velocity = D::AngularVector::from_word(self.angular_velocity);
        body.center += D::Vector::from_word(self.displacement);
        body.rotation = D::turn_by(body.rotation, D::Rotation::from_word(self.turn));
    }
}

/// Stage 1, per substep: `v += h·a`, then damping `v /= 1 + h·c`.
pub(crate) fn integrate_velocities<D: Dim>(
    states: &mut [BodyState],
    bodies: &[SolverBody<D>],
    h: f32,
) {
    for (s, b) in states.iter_mut().zip(bodies).filter(|(_, b)| b.dynamic) {
        s.linear_velocity += b.linear_acceleration.to_word() * h;
        s.angular_velocity += b.angular_acceleration.to_word() * h;
        s.linear_velocity *= 1.0 / (1.0 + h * b.linear_damping);
        s.angular_velocity *= 1.0 / (1.0 + h * b.angular_damping);
    }
}

/// Stage 6, per substep: `x += h·v` and the rotation turned by `h·ω`.
pub(crate) fn integrate_positions<D: Dim>(states: &mut [BodyState], h: f32) {
    for s in states.iter_mut() {
        s.displacement += s.linear_velocity * h;
        let turn = D::integrate_rotation(
            D::Rotation::from_word(s.turn),
            D::AngularVector::from_word(s.angular_velocity),
            h,
        );
        s.turn = turn.to_word();
    }
}
