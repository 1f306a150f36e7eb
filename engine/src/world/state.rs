//! Rollback: the part of a world that changes while a game runs, saved and
//! written back in place, sharing everything else with the live world.
//!
//! A fighting game or a networked game saves its physics every step and,
//! when a late input arrives, restores the state of some steps back and
//! simulates them again; the steps simulated again must give the same bits
//! as if the input had come in time. [`World::save_state`] copies what a
//! step changes into a [`WorldState`], [`World::restore_state`] writes it
//! back:
//! 1. Each body's motion, in the bodies' order: pose, velocities, rest
//!    time, the sleeping and placed flags; force, torque and kinematic
//!    target only for the bodies that have one.
//! 2. The broad phase's fat boxes, pairs and move buffer
//!    ([`BroadPhase::save_state`](crate::pipeline::broad_phase::BroadPhase::save_state));
//!    the tree keeps its present shape, which no result depends on.
//! 3. The contact pairs: each as its place among the broad phase's pairs,
//!    its manifold without the points (normal, last query, what it pushed)
//!    and the points in use, in one array (warm-start impulses, anchors and
//!    lever arms); a pair with a surface keeps its facets' manifolds whole.
//! 4. The sleeping islands, the solver's orders of bodies and pairs where
//!    the next step would not rebuild them (bodies woken within a step
//!    come after the others), the joints with their impulses and the pairs
//!    they keep apart, and the bodies and colliders the game reached since
//!    the last step.
//!
//! Restoring rebuilds the pairs' fixed parts (bodies, colliders, sensor
//! flag) from the colliders, the solver's index from its order, and refits
//! the broad phase's tree. Guarded by `tests/rollback.rs`
//! (`rolling_back_eight_steps_every_step_gives_the_plain_run`).
//!
//! Limits: the state holds no bodies, colliders or shapes. Adding or
//! removing a body or collider, or changing a body's kind or a collider's
//! filter or sensor flag, gives the world a new *structure stamp*, and a
//! state saved before that is refused with [`WorldError::StateMismatch`]
//! (a game that rolls back over a spawn keeps a clone of the world, or a
//! serialised one, for that). What the state does not hold, restore does
//! not undo: masses, materials, damping, locks, gravity scales, user data
//! and the settings stay as the game last set them. The events of the step
//! before the save are not kept: restore clears them.

use std::sync::atomic::{AtomicU64, Ordering};

use slotmap::SlotMap;

use super::joints::Unpaired;
use super::surface_pairs::SurfaceContacts;
use super::{collider_of, ContactPair, World, ASLEEP};
use crate::body::BodyHandle;
use crate::collider::ColliderHandle;
use crate::dim::Dim;
use crate::error::WorldError;
use crate::joint::{Joint, JointHandle};
use crate::math::{Pose, Vector};
use crate::pipeline::broad_phase::BroadPhaseState;
use crate::pipeline::manifold::{Manifold, ManifoldHead, ManifoldPoint};
use crate::sleep::SleepingIslands;

/// A stamp no world has had yet in this process: worlds get a new one
/// whenever their bodies, colliders, kinds or filters change, and a state
/// fits only the stamp it was saved with.
pub(super) fn new_structure_stamp() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// What a body's motion is between two steps.
#[derive(Copy, Clone, Debug)]
struct BodyMotion<D: Dim> {
    pose: Pose<D>,
    linear_velocity: D::Vector,
    angular_velocity: D::AngularVector,
    /// Seconds at rest, towards sleep.
    rest_time: f32,
    /// [`SLEEPING`] and [`TELEPORTED`].
    flags: u8,
}

const SLEEPING: u8 = 1;
const TELEPORTED: u8 = 2;

/// What few bodies have between two steps: a force or torque the game
/// applied for the next step, or a kinematic target.
#[derive(Copy, Clone, Debug)]
struct BodyExtras<D: Dim> {
    /// The body's place in the bodies' order.
    body: u32,
    force: D::Vector,
    torque: D::AngularVector,
    kinematic_target: Option<Pose<D>>,
}

/// A contact pair without what the colliders say of it.
#[derive(Clone, Debug)]
struct PairState<D: Dim> {
    /// Its place among the broad phase's pairs (sorted by key, as the
    /// world's pairs are).
    candidate: u32,
    /// [`TOUCHING`] and [`REPORTED`].
    flags: u8,
    head: ManifoldHead<D>,
    /// A surface pair's facet manifolds.
    surface: Option<Box<SurfaceContacts<D>>>,
}

const TOUCHING: u8 = 1;
const REPORTED: u8 = 2;

/// The part of a [`World`] that changes while a game runs, for rolling
/// back: see the [module documentation](self). Taken by
/// [`World::save_state`] (or [`World::save_state_into`], which reuses a
/// state's memory), given back by [`World::restore_state`].
#[derive(Clone, Debug)]
pub struct WorldState<D: Dim> {
    structure: u64,
    bodies: Vec<BodyMotion<D>>,
    extras: Vec<BodyExtras<D>>,
    broad_phase: BroadPhaseState<D>,
    pairs: Vec<PairState<D>>,
    /// The points of every pair, in pair order.
    points: Vec<ManifoldPoint<D::Vector>>,
    sleep_islands: SleepingIslands,
    /// The solver's bodies in order, unless the next step rebuilds them.
    solver_order: Option<Vec<BodyHandle>>,
    /// The awake pairs in order, unless the next step rebuilds them.
    awake_pairs: Option<Vec<u32>>,
    touched: Vec<BodyHandle>,
    refiltered: Vec<ColliderHandle>,
    joints: SlotMap<JointHandle, Joint<D>>,
    unpaired: Unpaired,
}

impl<D: Dim> Default for WorldState<D> {
    fn default() -> Self {
        Self {
            structure: 0,
            bodies: Vec::new(),
            extras: Vec::new(),
            broad_phase: BroadPhaseState::default(),
            pairs: Vec::new(),
            points: Vec::new(),
            sleep_islands: SleepingIslands::default(),
            solver_order: None,
            awake_pairs: None,
            touched: Vec::new(),
            refiltered: Vec::new(),
            joints: SlotMap::with_key(),
            unpaired: Unpaired::new(),
        }
    }
}

impl<D: Dim> WorldState<D> {
    /// Bytes the state holds in its arrays (their lengths, not their
    /// capacities), the facet manifolds of surface pairs and the joints
    /// included.
    pub fn bytes(&self) -> usize {
        use std::mem::size_of;
        let surfaces: usize = self
            .pairs
            .iter()
            .filter_map(|p| p.surface.as_deref())
            .map(SurfaceContacts::bytes)
            .sum();
        let orders = self.solver_order.as_ref().map_or(0, Vec::len) * size_of::<BodyHandle>()
            + self.awake_pairs.as_ref().map_or(0, Vec::len) * size_of::<u32>();
        size_of::<Self>()
            + self.bodies.len() * size_of::<BodyMotion<D>>()
            + self.extras.len() * size_of::<BodyExtras<D>>()
            + self.broad_phase.bytes()
            + self.pairs.len() * size_of::<PairState<D>>()
            + self.points.len() * size_of::<ManifoldPoint<D::Vector>>()
            + surfaces
            + self.sleep_islands.bytes()
            + orders
            + self.touched.len() * size_of::<BodyHandle>()
            + self.refiltered.len() * size_of::<ColliderHandle>()
            + self.joints.len() * size_of::<(JointHandle, Joint<D>)>()
            + self.unpaired.len() * size_of::<((BodyHandle, BodyHandle), u32)>()
    }

    /// Contact points held: the convex pairs' and the facets'.
    pub fn points(&self) -> usize {
        let facets: usize = self
            .pairs
            .iter()
            .filter_map(|p| p.surface.as_deref())
            .map(SurfaceContacts::point_count)
            .sum();
        self.points.len() + facets
    }
}

impl<D: Dim> World<D> {
    /// The part of the world that changes while it runs, for
    /// [`World::restore_state`] (rollback; see [`WorldState`]).
    pub fn save_state(&self) -> WorldState<D> {
        let mut state = WorldState::default();
        self.save_state_into(&mut state);
        state
    }

    /// [`World::save_state`] into `state`, reusing its memory: a game that
    /// keeps a ring of states and saves every step allocates nothing once
    /// the ring is warm (but for surface pairs' facet manifolds).
    pub fn save_state_into(&self, state: &mut WorldState<D>) {
        state.structure = self.structure;
        state.bodies.clear();
        state.extras.clear();
        for (i, body) in self.bodies.values().enumerate() {
            let flags =
                (u8::from(body.sleeping) * SLEEPING) | (u8::from(body.teleported) * TELEPORTED);
            state.bodies.push(BodyMotion {
                pose: body.pose,
                linear_velocity: body.linear_velocity,
                angular_velocity: body.angular_velocity,
                rest_time: body.rest_time,
                flags,
            });
            let pushed = body.force != D::Vector::ZERO
                || body.torque != D::AngularVector::default()
                || body.kinematic_target.is_some();
            if pushed {
                state.extras.push(BodyExtras {
                    body: i as u32,
                    force: body.force,
                    torque: body.torque,
                    kinematic_target: body.kinematic_target,
                });
            }
        }
        self.broad_phase.save_state(&mut state.broad_phase);
        // The world's pairs are a sorted subset of the broad phase's: one
        // walk through both gives each pair's place.
        state.pairs.clear();
        state.points.clear();
        let mut candidates = self.broad_phase.pairs().iter().enumerate();
        for pair in &self.pairs {
            let key = pair.key();
            let Some((k, _)) = candidates.find(|(_, &c)| c == key) else {
                continue;
            };
            state.pairs.push(PairState {
                candidate: k as u32,
                flags: (u8::from(pair.touching) * TOUCHING) | (u8::from(pair.reported) * REPORTED),
                head: pair.manifold.head(),
                surface: pair.surface.as_deref().map(|s| Box::new(s.saved())),
            });
            state.points.extend_from_slice(pair.manifold.points());
        }
        state.sleep_islands.clone_from(&self.sleep_islands);
        let buffers = &self.buffers;
        fill(
            &mut state.solver_order,
            !buffers.index_stale,
            buffers.order.iter().copied(),
        );
        fill(
            &mut state.awake_pairs,
            !buffers.awake_pairs_stale,
            buffers.awake_pairs.iter().map(|&k| k as u32),
        );
        state.touched.clone_from(&self.touched);
        state.refiltered.clone_from(&self.refiltered);
        state.joints.clone_from(&self.joints);
        state.unpaired.clone_from(&self.unpaired);
    }

    /// Writes `state` back: the world continues from where it was saved,
    /// bit for bit, as if the steps since had not been taken (see
    /// [`WorldState`] for what that covers). Errors, changing nothing, with
    /// [`WorldError::StateMismatch`] when the state comes from another
    /// world, or from this one before a body or collider was added or
    /// removed or a kind, filter or sensor flag changed.
    pub fn restore_state(&mut self, state: &WorldState<D>) -> Result<(), WorldError> {
        if state.structure != self.structure
            || state.bodies.len() != self.bodies.len()
            || !self.broad_phase.restore_state(&state.broad_phase)
        {
            return Err(WorldError::StateMismatch);
        }
        let mut extras = state.extras.iter().peekable();
        for (i, (body, motion)) in self.bodies.values_mut().zip(&state.bodies).enumerate() {
            body.pose = motion.pose;
            body.linear_velocity = motion.linear_velocity;
            body.angular_velocity = motion.angular_velocity;
            body.rest_time = motion.rest_time;
            body.sleeping = motion.flags & SLEEPING != 0;
            body.teleported = motion.flags & TELEPORTED != 0;
            match extras.next_if(|e| e.body as usize == i) {
                Some(extra) => {
                    body.force = extra.force;
                    body.torque = extra.torque;
                    body.kinematic_target = extra.kinematic_target;
                }
                None => {
                    body.force = D::Vector::ZERO;
                    body.torque = D::AngularVector::default();
                    body.kinematic_target = None;
                }
            }
        }
        self.restore_pairs(state);
        self.sleep_islands.clone_from(&state.sleep_islands);
        self.restore_solver_orders(state);
        self.touched.clone_from(&state.touched);
        self.refiltered.clone_from(&state.refiltered);
        self.joints.clone_from(&state.joints);
        self.unpaired.clone_from(&state.unpaired);
        self.contact_events.clear();
        self.sensor_events.clear();
        self.joint_events.clear();
        Ok(())
    }

    /// The contact pairs of `state`, their fixed parts made anew from the
    /// colliders of the (restored) broad phase's pairs.
    fn restore_pairs(&mut self, state: &WorldState<D>) {
        let candidates = self.broad_phase.pairs();
        let mut pairs = Vec::with_capacity(state.pairs.len());
        let mut points = state.points.as_slice();
        for saved in &state.pairs {
            let len = if saved.surface.is_some() {
                0
            } else {
                saved.head.len().min(points.len())
            };
            let (own, rest) = points.split_at(len);
            points = rest;
            let Some(&key) = candidates.get(saved.candidate as usize) else {
                continue;
            };
            let slots = (
                self.colliders.get(collider_of(key.0)),
                self.colliders.get(collider_of(key.1)),
            );
            let (Some(&a), Some(&b)) = slots else {
                continue;
            };
            let (Some(body_a), Some(body_b)) = (self.bodies.get(a.body), self.bodies.get(b.body))
            else {
                continue;
            };
            let Some(mut pair) = ContactPair::between(a, body_a, b, body_b) else {
                continue;
            };
            pair.manifold = Manifold::from_parts(&saved.head, own);
            pair.surface.clone_from(&saved.surface);
            pair.touching = saved.flags & TOUCHING != 0;
            pair.reported = saved.flags & REPORTED != 0;
            pairs.push(pair);
        }
        self.pairs = pairs;
    }

    /// The solver's body index and awake pairs from the saved orders, or
    /// marked for the next step to rebuild.
    fn restore_solver_orders(&mut self, state: &WorldState<D>) {
        let buffers = &mut self.buffers;
        match &state.solver_order {
            Some(order) => {
                buffers.order.clone_from(order);
                buffers.index.clear();
                for (i, &h) in order.iter().enumerate() {
                    buffers.index.insert(h, i);
                }
                buffers.index_stale = false;
            }
            None => buffers.index_stale = true,
        }
        match &state.awake_pairs {
            Some(awake) if awake.iter().all(|&k| (k as usize) < self.pairs.len()) => {
                buffers.awake_pairs.clear();
                buffers
                    .awake_pairs
                    .extend(awake.iter().map(|&k| k as usize));
                buffers.slot.clear();
                buffers.slot.resize(self.pairs.len(), ASLEEP);
                buffers.surface_pairs.clear();
                for (j, &k) in buffers.awake_pairs.iter().enumerate() {
                    buffers.slot[k] = j as u32;
                    if self.pairs[k].surface.is_some() {
                        buffers.surface_pairs.push(k);
                    }
                }
                buffers.awake_pairs_stale = false;
            }
            _ => buffers.awake_pairs_stale = true,
        }
    }
}

/// `slot` holds `items` when `keep`, else nothing (its memory kept).
fn fill<T>(slot: &mut Option<Vec<T>>, keep: bool, items: impl Iterator<Item = T>) {
    match (keep, slot.as_mut()) {
        (true, Some(list)) => {
            list.clear();
            list.extend(items);
        }
        (true, None) => *slot = Some(items.collect()),
        (false, _) => *slot = None,
    }
}
