//! Integration: velocities from gravity, forces and damping; positions from
//! velocities (symplectic Euler, run once per solver substep).

use crate::math::{Dim, Vector};

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

/// Stage 1, per substep: `v += h·a`, then damping `v /= 1 + h·c`.
pub(crate) fn integrate_velocities<D: Dim>(bodies: &mut [SolverBody<D>], h: f32) {
    for b in bodies.iter_mut().filter(|b| b.dynamic) {
        b.linear_velocity += b.linear_acceleration * h;
        b.angular_velocity += b.angular_acceleration * h;
        b.linear_velocity *= 1.0 / (1.0 + h * b.linear_damping);
        b.angular_velocity = b.angular_velocity * (1.0 / (1.0 + h * b.angular_damping));
    }
}

/// Stage 6, per substep: `x += h·v` and the rotation turned by `h·ω`.
pub(crate) fn integrate_positions<D: Dim>(bodies: &mut [SolverBody<D>], h: f32) {
    for b in bodies.iter_mut() {
        b.center += b.linear_velocity * h;
        b.rotation = D::integrate_rotation(b.rotation, b.angular_velocity, h);
    }
}
