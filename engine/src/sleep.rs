//! Islands and sleep: bodies that rest, with everything they touch, stop
//! being simulated until something disturbs them (Box2D's `island.c`).
//!
//! 1. Islands: dynamic bodies joined by contact pairs that have points,
//!    found by union-find in pair order (deterministic). Fixed bodies do not
//!    join islands, so a floor does not make one island of everything on it.
//! 2. Before the solver: an island with any awake body wakes whole, so a box
//!    landing on a sleeping pile wakes the pile it touches
//!    (`a_pile_of_1000_boxes_falls_asleep_and_wakes_when_hit` in
//!    `tests/sleeping.rs`).
//! 3. After the solver: each awake body slower than the tolerances gathers
//!    rest time (its spin counts as rest below the angular tolerance, or
//!    while its farthest point moves slower than the linear one:
//!    `a_slow_spin_sleeps_by_the_speed_of_the_farthest_point`); an island
//!    whose every body has rested `time_to_sleep` and may sleep falls
//!    asleep, velocities zeroed.
//!
//! A moving kinematic body touching an island keeps it awake. Removing a
//! body wakes what touched it
//! (`removing_a_sleeping_box_ends_its_pairs_and_wakes_only_its_column`);
//! so does moving it with `set_position` or `set_rotation`, and a fixed
//! body moved so also wakes what its box now meets
//! (`World::wake_beside_teleported`;
//! `a_moved_fixed_platform_catches_and_drops_boxes_2d`/`_3d` in
//! `tests/game_api.rs`).

use crate::body::{Body, BodyKind};
use crate::math::{Angular, Dim, Vector};
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

impl<D: Dim> World<D> {
    /// The islands of the current contacts, over the world's body order.
    fn islands(&self) -> (Vec<crate::body::BodyHandle>, Vec<usize>) {
        let handles: Vec<_> = self.bodies.keys().collect();
        let mut index = slotmap::SecondaryMap::with_capacity(handles.len());
        for (i, &h) in handles.iter().enumerate() {
            index.insert(h, i);
        }
        let mut islands = Islands::new(handles.len());
        for pair in self
            .pairs
            .iter()
            .filter(|p| !p.is_sensor() && !p.manifold.points().is_empty())
        {
            let (a, b) = (&self.bodies[pair.body_a], &self.bodies[pair.body_b]);
            if joins(a) && joins(b) {
                islands.join(index[pair.body_a], index[pair.body_b]);
            }
        }
        let roots = (0..handles.len()).map(|i| islands.root(i)).collect();
        (handles, roots)
    }

    /// Step 2: wakes every island that has an awake member; true when a
    /// body woke.
    pub(crate) fn wake_touched_islands(&mut self) -> bool {
        if !self.bodies.values().any(|b| b.sleeping) {
            return false;
        }
        let (handles, roots) = self.islands();
        let mut awake = vec![false; handles.len()];
        for (i, &h) in handles.iter().enumerate() {
            let body = &self.bodies[h];
            if joins(body) && !body.sleeping {
                awake[roots[i]] = true;
            }
        }
        let mut woke = false;
        for (i, &h) in handles.iter().enumerate() {
            if awake[roots[i]] && self.bodies[h].sleeping {
                self.bodies[h].wake_up();
                woke = true;
            }
        }
        woke
    }

    /// Step 3: rest times, then islands that have rested long enough sleep.
    pub(crate) fn fall_asleep(&mut self, dt: f32) {
        let settings = *self.settings();
        if !settings.sleep {
            return;
        }
        let (linear, angular) = (
            settings.linear_sleep_tolerance,
            settings.angular_sleep_tolerance,
        );
        for body in self
            .bodies
            .values_mut()
            .filter(|b| b.kind == BodyKind::Dynamic && !b.sleeping)
        {
            // Spin counts as rest below the angular tolerance, or while it
            // moves the body's farthest point slower than the linear one
            // (Box2D v3's measure): a resting rock of 0.65 m can keep a
            // solver residue of 0.047 rad/s, above 2°/s (0.035 rad/s), yet
            // its surface creeps at 0.03 m/s, under the linear tolerance
            // (`a_slow_spin_sleeps_by_the_speed_of_the_farthest_point`).
            let spin = angular.max(linear / body.extent());
            let resting = body.linear_velocity.length_squared() <= linear * linear
                && body.angular_velocity.dot(body.angular_velocity) <= spin * spin;
            body.rest_time = if resting && body.can_sleep {
                body.rest_time + dt
            } else {
                0.0
            };
        }
        let (handles, roots) = self.islands();
        let mut ready = vec![true; handles.len()];
        for (i, &h) in handles.iter().enumerate() {
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
        for (i, &h) in handles.iter().enumerate() {
            let body = &mut self.bodies[h];
            if body.kind == BodyKind::Dynamic && !body.sleeping && ready[roots[i]] {
                body.sleeping = true;
                body.linear_velocity = D::Vector::ZERO;
                body.angular_velocity = D::AngularVector::default();
            }
        }
    }
}
