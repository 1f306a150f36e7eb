//! Islands and sleep: bodies that rest, with everything they touch, stop
//! being simulated until something disturbs them (Box2D's `island.c`).
//!
//! 1. Islands: the awake dynamic bodies joined by the pairs the solver
//!    took (pairs with points) and by joints, found by union-find over
//!    their solver indices after each solve (deterministic). Fixed bodies do not join
//!    islands, so a floor does not make one island of everything on it.
//! 2. An island whose every body has rested `time_to_sleep` falls asleep
//!    whole (velocities zeroed) and is kept as a sleeping island of its
//!    own ([`SleepingIslands`]): its bodies leave the solver and no stage
//!    of the step looks at them or their pairs again.
//! 3. Rest: each awake body slower than the tolerances gathers rest time
//!    (its spin counts as rest below the angular tolerance, or while its
//!    farthest point moves slower than the linear one:
//!    `a_slow_spin_sleeps_by_the_speed_of_the_farthest_point`).
//! 4. Waking: before the solver, a sleeping island that an awake body
//!    touches (a pair with points) or is joined to wakes whole, so a box landing on a
//!    sleeping pile wakes the pile it touches
//!    (`a_pile_of_1000_boxes_falls_asleep_and_wakes_when_hit` in
//!    `tests/sleeping.rs`); a body the game wakes (an impulse, a force, a
//!    placement) wakes its island at the start of the next step.
//!
//! A moving kinematic body touching an island keeps it awake. Removing a
//! body wakes what touched it
//! (`removing_a_sleeping_box_ends_its_pairs_and_wakes_only_its_column`);
//! so does moving it with `set_position` or `set_rotation`, and a fixed
//! body moved so also wakes what its box now meets
//! (`World::wake_beside_teleported`;
//! `a_moved_fixed_platform_catches_and_drops_boxes_2d`/`_3d` in
//! `tests/game_api.rs`).
//!
//! Limits: the islands of awake bodies are found anew after each solve
//! (union-find over the awake bodies and their pairs), not kept
//! incrementally as Box2D v3 does.

use slotmap::{new_key_type, SecondaryMap, SlotMap};
use std::sync::Arc;

use crate::body::{Body, BodyHandle, BodyKind};
use crate::dim::Dim;
use crate::math::{Angular, Vector};
use crate::world::World;

/// Union-find over dense indices, smallest index as the root.
struct Islands {
    parent: Vec<usize>,
}

impl Islands {
    fn new(n: usize) -> Self {
        Self {
            parent: (0..n).collect(),
        }
    }

    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[high] = low;
    }
}

/// A body joins islands when it is dynamic, or kinematic and moving (then
/// it only ever keeps its island awake).
fn joins<D: Dim>(body: &Body<D>) -> bool {
    match body.kind {
        BodyKind::Dynamic => true,
        BodyKind::Kinematic => {
            body.linear_velocity.length_squared() > 0.0
                || body.angular_velocity.dot(body.angular_velocity) > 0.0
        }
        BodyKind::Fixed => false,
    }
}

/// Islands that sleep, each kept whole until something wakes it: waking
/// one member wakes them all, without looking at any other body.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct SleepingIslands {
    #[cfg_attr(feature = "serde", serde(with = "crate::world::persist::slot_map"))]
    members: SlotMap<IslandKey, Vec<BodyHandle>>,
    island_of: SecondaryMap<BodyHandle, IslandKey>,
}

new_key_type! {
    /// A sleeping island.
    pub(crate) struct IslandKey;
}

impl SleepingIslands {
    /// Bytes held by the islands' member lists and the body-to-island map
    /// (their lengths, not their capacities).
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        let members: usize = self.members.values().map(Vec::len).sum();
        self.members.len() * size_of::<(IslandKey, Vec<BodyHandle>)>()
            + members * size_of::<BodyHandle>()
            + self.island_of.len() * size_of::<(BodyHandle, IslandKey)>()
    }

    /// True when no island sleeps.
    pub(crate) fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The sleeping island `body` belongs to, if any.
    pub(crate) fn island_of(&self, body: BodyHandle) -> Option<IslandKey> {
        self.island_of.get(body).copied()
    }

    /// Puts `bodies` to sleep together as one island.
    fn add(&mut self, bodies: Vec<BodyHandle>) {
        let key = self.members.insert(Vec::new());
        for &h in &bodies {
            self.island_of.insert(h, key);
        }
        self.members[key] = bodies;
    }

    /// The members of `island`, which no longer sleeps.
    fn take(&mut self, island: IslandKey) -> Vec<BodyHandle> {
        let members = self.members.remove(island).unwrap_or_default();
        for &h in &members {
            self.island_of.remove(h);
        }
        members
    }

    /// For a loaded world (`world/persist.rs`): every island's members are
    /// live bodies that name it as theirs, and every body named belongs to
    /// the island named.
    #[cfg(feature = "serde")]
    pub(crate) fn is_sound<V>(&self, bodies: &SlotMap<BodyHandle, V>) -> bool {
        let count = self.members.values().map(Vec::len).sum::<usize>();
        count == self.island_of.len()
            && self.members.iter().all(|(key, members)| {
                members
                    .iter()
                    .all(|&h| bodies.contains_key(h) && self.island_of.get(h) == Some(&key))
            })
    }

    /// A removed body leaves its island (the others sleep on).
    pub(crate) fn forget(&mut self, body: BodyHandle) {
        if let Some(island) = self.island_of.remove(body) {
            if let Some(members) = self.members.get_mut(island) {
                members.retain(|&h| h != body);
            }
        }
    }
}

impl<D: Dim> World<D> {
    /// Wakes the whole sleeping islands of `bodies`, marking the solver's
    /// bodies stale; returns the bodies that woke, island by island in the
    /// order of `bodies`.
    pub(crate) fn wake_islands_of(&mut self, bodies: &[BodyHandle]) -> Vec<BodyHandle> {
        let mut woken = Vec::new();
        for &h in bodies {
            let Some(island) = self.sleep_islands.island_of(h) else {
                continue;
            };
            for member in Arc::make_mut(&mut self.sleep_islands).take(island) {
                if let Some(body) = self.bodies.get_mut(member) {
                    if body.sleeping {
                        body.wake_up();
                    }
                    woken.push(member);
                }
            }
        }
        // The woken bodies join the solver at its next rebuild (those woken
        // within a step's solve are also appended at once).
        self.buffers.index_stale |= !woken.is_empty();
        woken
    }

    /// Step 2: wakes the sleeping islands an awake body now touches (an
    /// awake pair with points between a body that joins islands and a
    /// sleeping one), and gives their bodies places in the solver after
    /// the others; true when a body woke.
    pub(crate) fn wake_touched_islands(&mut self) -> bool {
        let bodies = &self.bodies;
        let pairs = &self.pairs;
        let touched: Vec<BodyHandle> = self
            .buffers
            .awake_pairs
            .iter()
            .map(|&k| &pairs[k])
            .filter(|p| !p.is_sensor() && p.has_points())
            .filter_map(|p| {
                let (a, b) = (bodies.get(p.body_a)?, bodies.get(p.body_b)?);
                if a.sleeping && !b.sleeping && joins(b) {
                    Some(p.body_a)
                } else if b.sleeping && !a.sleeping && joins(a) {
                    Some(p.body_b)
                } else {
                    None
                }
            })
            .collect();
        let mut touched = touched;
        // A sleeping body joined to an awake one wakes with its island.
        for (a, b) in self.joined_bodies() {
            let (Some(body_a), Some(body_b)) = (bodies.get(a), bodies.get(b)) else {
                continue;
            };
            if body_a.sleeping && !body_b.sleeping && joins(body_b) {
                touched.push(a);
            } else if body_b.sleeping && !body_a.sleeping && joins(body_a) {
                touched.push(b);
            }
        }
        let woken = self.wake_islands_of(&touched);
        let buffers = &mut self.buffers;
        for &h in &woken {
            if !buffers.index.contains_key(h) {
                buffers.index.insert(h, buffers.order.len());
                buffers.order.push(h);
            }
        }
        // Next step the solver's bodies are in the bodies' order again.
        buffers.index_stale |= !woken.is_empty();
        !woken.is_empty()
    }

    /// Step 3: rest times, then islands of the solved bodies that have
    /// rested long enough sleep, each kept whole.
    pub(crate) fn fall_asleep(&mut self, dt: f32) {
        let settings = *self.settings();
        if !settings.sleep {
            return;
        }
        let (linear, angular) = (
            settings.linear_sleep_tolerance,
            settings.angular_sleep_tolerance,
        );
        let order = &self.buffers.order;
        for &h in order {
            let Some(body) = self.bodies.get_mut(h) else {
                continue;
            };
            if body.kind != BodyKind::Dynamic || body.sleeping {
                continue;
            }
            // Spin counts as rest below the angular tolerance, or while it
            // moves the body's farthest point slower than the linear one
            // (Box2D v3's measure; `a_slow_spin_sleeps_by_the_speed_of_the_farthest_point`).
            let spin = angular.max(linear / body.extent());
            let resting = body.linear_velocity.length_squared() <= linear * linear
                && body.angular_velocity.dot(body.angular_velocity) <= spin * spin;
            body.rest_time = if resting && body.can_sleep {
                body.rest_time + dt
            } else {
                0.0
            };
        }
        // Islands of the solved bodies, by their solver indices, joined by
        // the pairs the solver took (those with points between solved bodies).
        let mut islands = Islands::new(order.len());
        for input in self.buffers.inputs.iter().flatten() {
            let [a, b] = input.bodies();
            let (ba, bb) = (&self.bodies[order[a]], &self.bodies[order[b]]);
            if joins(ba) && joins(bb) {
                islands.join(a, b);
            }
        }
        // Joined bodies are one island.
        let index = &self.buffers.index;
        for (a, b) in self.joined_bodies() {
            if let (Some(&ia), Some(&ib)) = (index.get(a), index.get(b)) {
                if joins(&self.bodies[a]) && joins(&self.bodies[b]) {
                    islands.join(ia, ib);
                }
            }
        }
        let roots: Vec<usize> = (0..order.len()).map(|i| islands.root(i)).collect();
        let mut ready = vec![true; order.len()];
        for (i, &h) in order.iter().enumerate() {
            let body = &self.bodies[h];
            let restless = match body.kind {
                BodyKind::Dynamic => !body.sleeping && body.rest_time < settings.time_to_sleep,
                BodyKind::Kinematic => joins(body),
                BodyKind::Fixed => false,
            };
            if restless {
                ready[roots[i]] = false;
            }
        }
        let mut asleep: Vec<Vec<BodyHandle>> = vec![Vec::new(); order.len()];
        for (i, &h) in order.iter().enumerate() {
            let body = &mut self.bodies[h];
            if body.kind == BodyKind::Dynamic && !body.sleeping && ready[roots[i]] {
                body.sleeping = true;
                body.linear_velocity = D::Vector::ZERO;
                body.angular_velocity = D::AngularVector::default();
                asleep[roots[i]].push(h);
            }
        }
        for island in asleep.into_iter().filter(|m| !m.is_empty()) {
            Arc::make_mut(&mut self.sleep_islands).add(island);
            self.buffers.index_stale = true;
        }
    }
}
