//! What a game changes on a body after adding it: its locks and its mass.
//!
//! Each change is a [`World`] method: it checks its value first (a typed
//! [`WorldError`], changing nothing), then the handle
//! ([`WorldError::StaleHandle`]), and wakes the body.

use crate::body::{BodyHandle, Locks, MassOverride};
use crate::error::WorldError;
use crate::math::Dim;

use super::World;

impl<D: Dim> World<D> {
    /// Replaces a body's locks ([`Locks`]) and wakes it: while dynamic it
    /// does not move along or turn about the locked world axes, and its
    /// velocities there stop now. Errors on a stale handle.
    pub fn set_body_locks(&mut self, body: BodyHandle, locks: Locks) -> Result<(), WorldError> {
        let target = self.bodies.get_mut(body).ok_or(WorldError::StaleHandle)?;
        target.set_locks(locks);
        Ok(())
    }

    /// Sets a body's mass in kg as [`crate::BodyDesc::mass`] does (its
    /// colliders' centre of mass kept, their inertia scaled alike), and
    /// wakes it; its velocities stay as they are. Errors, changing nothing,
    /// on a mass that is not finite and positive, mass properties f32
    /// cannot hold, or a stale handle.
    pub fn set_body_mass(&mut self, body: BodyHandle, mass: f32) -> Result<(), WorldError> {
        self.set_mass_override(body, MassOverride::Mass(mass))
    }

    /// Sets a body's mass, centre of mass (body frame) and inertia about it
    /// (body frame) as [`crate::BodyDesc::mass_properties`] does, and wakes
    /// it; its velocities stay as they are. Errors, changing nothing, as
    /// that refuses them, or on a stale handle.
    pub fn set_body_mass_properties(
        &mut self,
        body: BodyHandle,
        mass: f32,
        local_center: D::Vector,
        inertia: D::Inertia,
    ) -> Result<(), WorldError> {
        let full = MassOverride::Full {
            mass,
            local_center,
            inertia,
        };
        self.set_mass_override(body, full)
    }

    /// Gives a body back the mass properties of its colliders, undoing
    /// [`World::set_body_mass`] or [`World::set_body_mass_properties`], and
    /// wakes it. Errors, changing nothing, on a stale handle or mass
    /// properties f32 cannot hold.
    pub fn reset_body_mass(&mut self, body: BodyHandle) -> Result<(), WorldError> {
        self.set_mass_override(body, MassOverride::Shapes)
    }

    fn set_mass_override(
        &mut self,
        body: BodyHandle,
        mass: MassOverride<D>,
    ) -> Result<(), WorldError> {
        let mass = mass.validate()?;
        let target = self.bodies.get_mut(body).ok_or(WorldError::StaleHandle)?;
        target.set_mass_override(mass)
    }
}
