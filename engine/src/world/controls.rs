//! What a game changes on a body after adding it: its locks.
//!
//! Each change is a [`World`] method: it refuses a stale handle
//! ([`WorldError::StaleHandle`]) and wakes the body.

use crate::body::{BodyHandle, Locks};
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
}
