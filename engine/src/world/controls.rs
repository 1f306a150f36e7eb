//! What a game changes on bodies and colliders after adding them: material,
//! filters, sensors, density, kind, locks, mass, damping, gravity scale, and
//! removing one collider of a compound.
//!
//! Each change is a [`World`] method, as most need more than the body: a
//! collider's pairs, the broad phase, the body's mass. Each checks its value
//! first (a typed [`WorldError`], changing nothing), then the handle
//! ([`WorldError::StaleHandle`]), and wakes the body.
//!
//! A pair exists while the colliders' fat boxes overlap and
//! `ContactPair::between` admits them, which reads their bodies' kinds and
//! their filters and sensor flags. Changing one of those queues the
//! collider; at the next step, once the broad phase is up to date,
//! [`World::refilter_pairs`] decides each of its candidate pairs again:
//! a pair no longer admitted ends (a `Stopped` or `Left` event if it
//! touched), one now admitted begins, and one whose sides changed (a sensor
//! flag moved to the other collider) ends and begins again. So changes made
//! and undone between two steps leave the pairs as they were.

use crate::body::{BodyHandle, BodyKind, Locks, MassOverride};
use crate::collider::{
    check_density, check_friction, check_restitution, Collider, ColliderHandle, CollisionFilter,
};
use crate::dim::Dim;
use crate::error::WorldError;

use super::replay::{Control, Input};
use super::{collider_of, key_of, ColliderSlot, ContactPair, World};

impl<D: Dim> ContactPair<D> {
    /// True when `other` joins the same colliders, sides and kind (sensor
    /// or contact) as this pair: the pair may go on as it is.
    fn same_as(&self, other: &Self) -> bool {
        (
            self.body_a,
            self.body_b,
            self.collider_a,
            self.collider_b,
            self.sensor,
        ) == (
            other.body_a,
            other.body_b,
            other.collider_a,
            other.collider_b,
            other.sensor,
        )
    }
}

impl<D: Dim> World<D> {
    /// Sets a collider's friction coefficient (>= 0; a pair uses
    /// `sqrt(a * b)`), from the next step, and wakes the bodies it touches.
    /// Errors on a negative or non-finite value, or a stale handle.
    pub fn set_collider_friction(
        &mut self,
        collider: ColliderHandle,
        friction: f32,
    ) -> Result<(), WorldError> {
        self.control(Control::Friction(collider, friction));
        check_friction(friction)?;
        self.collider_mut(collider)?.friction = friction;
        self.wake_pairs_of(collider);
        Ok(())
    }

    /// Sets a collider's restitution (0 to 1; a pair takes the larger), from
    /// the next step, and wakes the bodies it touches. Errors on a value
    /// outside 0..=1, or a stale handle.
    pub fn set_collider_restitution(
        &mut self,
        collider: ColliderHandle,
        restitution: f32,
    ) -> Result<(), WorldError> {
        self.control(Control::Restitution(collider, restitution));
        check_restitution(restitution)?;
        self.collider_mut(collider)?.restitution = restitution;
        self.wake_pairs_of(collider);
        Ok(())
    }

    /// Sets a collider's collision filter and wakes its body. At the next
    /// step its pairs follow: a pair the filter now refuses ends (a
    /// `Stopped` event if it touched, and its other body wakes), and one it
    /// now admits begins (`tests/controls.rs`:
    /// `changing_the_ground_filter_drops_a_box_then_catches_another_2d`).
    /// Errors on a stale handle.
    pub fn set_collider_filter(
        &mut self,
        collider: ColliderHandle,
        filter: CollisionFilter,
    ) -> Result<(), WorldError> {
        self.control(Control::Filter(collider, filter));
        let target = self.collider_mut(collider)?;
        let changed = target.filter != filter;
        target.filter = filter;
        if changed {
            self.refiltered.push(collider);
        }
        Ok(())
    }

    /// Makes a collider a sensor (it reports overlaps and pushes nothing) or
    /// a solid one, and wakes its body. At the next step its pairs follow,
    /// as for [`World::set_collider_filter`]: contacts end with `Stopped`
    /// events and sensor pairs begin, or sensor pairs end with `Left` events
    /// and contacts begin. Errors on a stale handle.
    pub fn set_collider_sensor(
        &mut self,
        collider: ColliderHandle,
        sensor: bool,
    ) -> Result<(), WorldError> {
        self.control(Control::Sensor(collider, sensor));
        let target = self.collider_mut(collider)?;
        let changed = target.sensor != sensor;
        target.sensor = sensor;
        if changed {
            self.refiltered.push(collider);
        }
        Ok(())
    }

    /// Sets a collider's density (kg/m² in 2D, kg/m³ in 3D; > 0) and
    /// recomputes its body's mass, centre of mass and inertia (a body whose
    /// mass was set with [`World::set_body_mass`] keeps that mass; one with
    /// [`World::set_body_mass_properties`] keeps all three). Errors,
    /// changing nothing, on a non-positive or non-finite density, mass
    /// properties f32 cannot hold ([`WorldError::MassOutOfRange`]), or a
    /// stale handle.
    pub fn set_collider_density(
        &mut self,
        collider: ColliderHandle,
        density: f32,
    ) -> Result<(), WorldError> {
        self.control(Control::Density(collider, density));
        check_density(density)?;
        let slot = *self
            .colliders
            .get(collider)
            .ok_or(WorldError::StaleHandle)?;
        let mut body = self
            .body_parts_mut(slot.body)
            .ok_or(WorldError::StaleHandle)?;
        body.set_collider_density(slot.index, density)
    }

    /// Removes one collider from its body and returns it; its handle goes
    /// stale. The body's mass properties are recomputed from its other
    /// colliders (the body's origin stays where it is) and it wakes. The
    /// collider's pairs end at once, as [`World::remove_body`] ends a
    /// body's: a `Stopped` (or `Left`) event for each that touched, both
    /// bodies woken; they leave [`World::contact_pairs`] at the next step
    /// (`tests/controls.rs`:
    /// `removing_a_part_of_a_compound_ends_its_contact_and_lightens_the_body_2d`).
    ///
    /// A body keeps at least one collider: removing its last is refused with
    /// [`WorldError::LastCollider`] (remove the body instead). Errors too,
    /// changing nothing, on a stale handle, or when the remaining colliders'
    /// mass properties do not fit in f32 ([`WorldError::MassOutOfRange`]).
    pub fn remove_collider(&mut self, collider: ColliderHandle) -> Result<Collider<D>, WorldError> {
        self.record_input(|| Input::RemoveCollider(collider));
        let slot = *self
            .colliders
            .get(collider)
            .ok_or(WorldError::StaleHandle)?;
        let mut body = self
            .body_parts_mut(slot.body)
            .ok_or(WorldError::StaleHandle)?;
        let removed = body.detach(slot.index)?;
        // The colliders after it moved one place down in the body's list.
        let moved: Vec<(ColliderHandle, usize)> = body.record.colliders[slot.index..]
            .iter()
            .enumerate()
            .map(|(i, c)| (c.handle, slot.index + i))
            .collect();
        self.stamp_removal(super::state::change::COLLIDER_REMOVED, key_of(collider));
        let ended = self.pair_keys_of(collider, slot.proxy);
        self.colliders.remove(collider);
        self.broad_phase.remove(slot.proxy);
        self.end_pairs(&ended);
        self.touched.push(slot.body);
        for (handle, index) in moved {
            let Some(moved_slot) = self.colliders.get_mut(handle) else {
                continue;
            };
            moved_slot.index = index;
            let proxy = moved_slot.proxy;
            for key in self.pair_keys_of(handle, proxy) {
                let Ok(k) = self.pairs.binary_search_by(|p| p.key().cmp(&key)) else {
                    continue;
                };
                let pair = &mut self.pairs[k];
                if pair.collider_a == handle {
                    pair.index_a = index as u32;
                }
                if pair.collider_b == handle {
                    pair.index_b = index as u32;
                }
            }
        }
        Ok(removed)
    }

    /// Makes a body dynamic, fixed or kinematic, with the mass properties of
    /// that kind (a fixed or kinematic body has no mass; a dynamic one gets
    /// its colliders' or its override's), and wakes it. A body made fixed
    /// stops where it is; only a kinematic body keeps its target; a body
    /// made dynamic keeps its velocities (less what its locks forbid). At
    /// the next step its pairs follow, as for [`World::set_collider_filter`]:
    /// two bodies of which neither is dynamic do not pair
    /// (`tests/controls.rs`: `a_body_made_fixed_stops_in_mid_air_and_made_dynamic_falls_2d`).
    /// Errors, changing nothing, on a stale handle or mass properties f32
    /// cannot hold.
    pub fn set_body_kind(&mut self, body: BodyHandle, kind: BodyKind) -> Result<(), WorldError> {
        self.control(Control::Kind(body, kind));
        let mut target = self.body_parts_mut(body).ok_or(WorldError::StaleHandle)?;
        let (before, changed) = (target.kind(), target.kind() != kind);
        target.set_kind(kind)?;
        // Only dynamic bodies are in islands (`sleep.rs`): a body made
        // fixed or kinematic leaves its island (which may come apart) and
        // unlinks its pairs; one made dynamic starts an island of its own
        // and joins those of the dynamic bodies it is joined to (its pairs
        // link after the next solve)
        // (`a_body_made_fixed_and_dynamic_again_between_steps_rejoins_its_pile`).
        if changed && before == BodyKind::Dynamic {
            self.leave_island(body);
            self.unlink_pairs_of(body);
        }
        if changed && kind == BodyKind::Dynamic {
            self.start_island(body);
            let joined: Vec<BodyHandle> = self
                .joined_bodies()
                .filter_map(|(a, b)| match (a == body, b == body) {
                    (true, false) => Some(b),
                    (false, true) => Some(a),
                    _ => None,
                })
                .collect();
            for other in joined {
                self.link(body, other);
            }
        }
        // Which bodies the solver takes, and which pairs are awake, follow
        // the kind: both are found anew.
        self.touched.push(body);
        self.buffers.index_stale = true;
        let target = &self.bodies[body];
        if changed {
            let handles = target.colliders.iter().map(|c| c.handle);
            self.refiltered.extend(handles);
        }
        Ok(())
    }

    /// Replaces a body's locks ([`Locks`]) and wakes it: while dynamic it
    /// does not move along or turn about the locked world axes, and its
    /// velocities there stop now. Errors on a stale handle.
    pub fn set_body_locks(&mut self, body: BodyHandle, locks: Locks) -> Result<(), WorldError> {
        self.control(Control::Locks(body, locks));
        let mut target = self.body_parts_mut(body).ok_or(WorldError::StaleHandle)?;
        target.set_locks(locks);
        self.touched.push(body);
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

    /// Sets a body's linear damping (1/s, >= 0) and wakes it. Errors on a
    /// negative or non-finite value, or a stale handle.
    pub fn set_body_linear_damping(
        &mut self,
        body: BodyHandle,
        damping: f32,
    ) -> Result<(), WorldError> {
        self.control(Control::LinearDamping(body, damping));
        crate::body::check_damping("linear damping", damping)?;
        let mut target = self.body_parts_mut(body).ok_or(WorldError::StaleHandle)?;
        target.sim.linear_damping = damping;
        target.wake_up();
        self.touched.push(body);
        Ok(())
    }

    /// Sets a body's angular damping (1/s, >= 0) and wakes it. Errors on a
    /// negative or non-finite value, or a stale handle.
    pub fn set_body_angular_damping(
        &mut self,
        body: BodyHandle,
        damping: f32,
    ) -> Result<(), WorldError> {
        self.control(Control::AngularDamping(body, damping));
        crate::body::check_damping("angular damping", damping)?;
        let mut target = self.body_parts_mut(body).ok_or(WorldError::StaleHandle)?;
        target.sim.angular_damping = damping;
        target.wake_up();
        self.touched.push(body);
        Ok(())
    }

    /// Sets the multiplier on the world's gravity for a body (finite; a
    /// negative one lifts it) and wakes it. Errors on a non-finite value or
    /// a stale handle.
    pub fn set_body_gravity_scale(
        &mut self,
        body: BodyHandle,
        scale: f32,
    ) -> Result<(), WorldError> {
        self.control(Control::GravityScale(body, scale));
        crate::body::check_gravity_scale(scale)?;
        let mut target = self.body_parts_mut(body).ok_or(WorldError::StaleHandle)?;
        target.sim.gravity_scale = scale;
        target.wake_up();
        self.touched.push(body);
        Ok(())
    }

    pub(crate) fn set_mass_override(
        &mut self,
        body: BodyHandle,
        mass: MassOverride<D>,
    ) -> Result<(), WorldError> {
        self.control(Control::Mass(body, mass));
        let mass = mass.validate()?;
        let mut target = self.body_parts_mut(body).ok_or(WorldError::StaleHandle)?;
        target.set_mass_override(mass)?;
        self.touched.push(body);
        Ok(())
    }

    /// Before each control: the call is recorded when recording
    /// (`world/replay.rs`), and the next rollback state saved takes the
    /// controls' values anew (`world/state.rs`).
    fn control(&mut self, control: Control<D>) {
        self.controls_changed();
        self.record_control(control);
    }

    /// The collider to change, its body woken; `StaleHandle` if it is gone.
    fn collider_mut(&mut self, collider: ColliderHandle) -> Result<&mut Collider<D>, WorldError> {
        let slot = *self
            .colliders
            .get(collider)
            .ok_or(WorldError::StaleHandle)?;
        self.touched.push(slot.body);
        let body = self
            .bodies
            .get_mut(slot.body)
            .ok_or(WorldError::StaleHandle)?;
        body.wake_up();
        body.colliders
            .get_mut(slot.index)
            .ok_or(WorldError::StaleHandle)
    }

    /// Wakes the sleeping bodies of a collider's pairs (a material change
    /// under a resting body is news to it).
    fn wake_pairs_of(&mut self, collider: ColliderHandle) {
        let Some(slot) = self.colliders.get(collider).copied() else {
            return;
        };
        let mut woken = Vec::new();
        for key in self.pair_keys_of(collider, slot.proxy) {
            if let Ok(k) = self.pairs.binary_search_by(|p| p.key().cmp(&key)) {
                woken.extend([self.pairs[k].body_a, self.pairs[k].body_b]);
            }
        }
        self.wake_sleeping(woken);
    }

    /// The pair the colliders of candidate `key` make as they are now, if
    /// `ContactPair::between` admits them.
    fn pair_for(&self, key: (u64, u64)) -> Option<ContactPair<D>> {
        let a: ColliderSlot = *self.colliders.get(collider_of(key.0))?;
        let b: ColliderSlot = *self.colliders.get(collider_of(key.1))?;
        let bodies = self.view();
        let (body_a, body_b) = (bodies.get(a.body)?, bodies.get(b.body)?);
        if self.unpaired(a.body, b.body) {
            return None;
        }
        ContactPair::between(a, body_a, b, body_b)
    }

    /// Stage 2, after the broad phase's pairs are up to date: the candidate
    /// pairs of the colliders whose filter, sensor flag or body kind changed
    /// since the last step are decided again (see the module
    /// documentation). Ended pairs give their events and wake their bodies;
    /// new pairs wake theirs and are solved from this step on. The pairs
    /// stay sorted by key and a subset of the candidates.
    pub(super) fn refilter_pairs(&mut self) {
        if self.refiltered.is_empty() {
            return;
        }
        let mut changed = std::mem::take(&mut self.refiltered);
        changed.sort_unstable_by_key(|&h| key_of(h));
        changed.dedup();
        let mut keys: Vec<(u64, u64)> = changed
            .iter()
            .filter_map(|&h| Some((h, self.colliders.get(h)?.proxy)))
            .flat_map(|(h, proxy)| self.pair_keys_of(h, proxy))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let (mut ended, mut begun, mut events, mut woken, mut unlinked) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for key in keys {
            let now = self.pair_for(key);
            let kept = self.pairs.binary_search_by(|p| p.key().cmp(&key)).ok();
            match (kept, now) {
                (Some(k), Some(now)) if self.pairs[k].same_as(&now) => {}
                (Some(k), now) => {
                    let old = &self.pairs[k];
                    events.push(old.stopped());
                    woken.extend([old.body_a, old.body_b]);
                    if old.linked {
                        unlinked.push((old.body_a, old.body_b));
                    }
                    ended.push(key);
                    begun.extend(now);
                }
                (None, Some(now)) => {
                    woken.extend([now.body_a, now.body_b]);
                    begun.push(now);
                }
                (None, None) => {}
            }
        }
        if !ended.is_empty() {
            // `ended` is sorted, as `keys` was.
            self.pairs
                .retain(|p| ended.binary_search(&p.key()).is_err());
        }
        if !begun.is_empty() {
            self.pairs.extend(begun);
            // Two sorted runs: the stable sort merges them in linear time.
            self.pairs.sort_by_key(ContactPair::key);
        }
        self.buffers.awake_pairs_stale = true;
        self.record_all(events);
        self.wake_sleeping(woken);
        for (a, b) in unlinked {
            self.unlink(a, b);
        }
    }
}
