//! Rollback: the part of a world that changes while a game runs, saved and
//! written back in place, sharing everything else with the live world.
//!
//! A fighting game or a networked game saves its physics every step and,
//! when a late input arrives, restores the state of some steps back and
//! simulates them again with the inputs; the steps simulated again must
//! give the same bits as if the input had come in time, whatever the game
//! changed through the controls meanwhile. [`World::save_state`] copies
//! what a step or a control changes into a [`WorldState`],
//! [`World::restore_state`] writes it back:
//! 1. Each body's motion, in the bodies' order: pose, velocities, rest
//!    time, the sleeping and placed flags; force, torque, kinematic
//!    target and whether a target was just reached (the next step stops
//!    the body) only for the bodies that have one.
//! 2. The broad phase's fat boxes, pairs and move buffer
//!    ([`BroadPhase::save_state`](crate::pipeline::broad_phase::BroadPhase::save_state));
//!    the tree keeps its present shape, which no result depends on.
//! 3. The contact pairs: one bit each among the broad phase's pairs, and
//!    each pair's manifold without the points (normal, last query, what it
//!    pushed) with the points in use (warm-start impulses, anchors, lever
//!    arms); a pair with a surface keeps its facet and cluster manifolds
//!    whole (`FacetManifolds::kept`). A pair the colliders as they are
//!    cannot make is kept whole: one whose collider was removed since the
//!    last step (it ends at the next), or whose collider's filter, sensor
//!    flag or body kind changed since (the next step decides it again,
//!    `World::refilter_pairs`).
//! 4. The islands, awake and sleeping, and each pair's link bit (islands
//!    are split only as the sleep candidate, so they depend on history:
//!    `sleep.rs`), the solver's orders of bodies and pairs where
//!    the next step would not rebuild them (bodies woken within a step
//!    come after the others), the joints with their impulses and the pairs
//!    they keep apart, and the bodies and colliders the game reached since
//!    the last step.
//! 5. The controls' values (`world/controls.rs`): each body's kind, locks,
//!    damping and gravity scale, each collider's filter, sensor flag,
//!    friction, restitution and density, and the mass override of each
//!    body that has one. Games change them every few frames (a one-way
//!    platform's filter, a pick-up's sensor flag, a power-up's material or
//!    mass), and frame 10's state gives back frame 10's. A body's mass
//!    properties are not kept: where a restore changes a kind, a density
//!    or an override, `body::mass_parts`, a pure function of those, makes
//!    them again, to the bits the control made.
//! 6. What rests is shared: the body motions, the pairs' manifolds and the
//!    controls are kept in chunks of [`CHUNK`], and a chunk equal bit for
//!    bit to the one at its place in the world's last saved state is that
//!    chunk, shared; the controls are shared whole, unread, while no
//!    control was called since the last state saved or restored (each
//!    control tells the save cache: `World::controls_changed`); the
//!    islands are shared until they change. A ring of states over a
//!    settled level holds it about once
//!    (`a_ring_of_states_shares_what_rests`).
//!
//! Restoring:
//! 1. checks the structure stamp (below) and the count of bodies;
//! 2. checks the state's controls against the bodies and colliders, and
//!    makes the mass properties of the bodies whose kind, densities or
//!    override they change, writing nothing: a state that does not fit is
//!    refused whole (skipped when the world's controls are the state's);
//! 3. gives the broad phase its boxes, pairs and move buffer back and
//!    refits its tree;
//! 4. writes the motions and the controls back; where a filter changed,
//!    or a control called since the last step waits for the next, gives
//!    every proxy its collider's filter as its groups
//!    (`World::regroup_proxies`), as the step would have;
//! 5. puts the pairs back, in place when the live pairs have the state's
//!    keys and no filter, sensor flag or kind changed (nor waits); else
//!    each is made anew from the state's whole pair, a live pair of the
//!    same key, or the colliders (whose sides and sensor flag now follow
//!    the controls restored);
//! 6. puts back the islands, the solver's orders (or marks them for the
//!    next step to rebuild), the joints and the reached bodies, and clears
//!    the events.
//!
//! The structure stamp says which worlds a state fits: a hash (FNV-1a, 64
//! bits) of every structural change since the world was new: each
//! collider added (its handle and its body's, its place on the body, its
//! pose there and its shape bit for bit, and what of the body no control
//! changes: sleep allowed, bullet, fast share) and each body or collider
//! removed. Controls leave it as it is. It is saved with the world
//! (`world/persist.rs`), so a clone, a copy loaded from bytes and a world
//! built by the same calls share it and take each other's states: they
//! have the same bodies and colliders in the same slots, and every index a
//! state holds means the same in each.
//!
//! Guarded by `tests/rollback.rs`:
//! `rolling_back_eight_steps_every_step_gives_the_plain_run` and
//! `rollback_keeps_joints_surfaces_bullets_and_kinematic_bodies`
//! (motions, pairs, islands, joints), `a_rollback_takes_back_filters_sensors_materials_and_kinds`
//! (the controls, in 2D and 3D, on 1 and 2 threads, and into a loaded
//! copy), `rolling_back_eight_steps_across_controls_gives_the_plain_run`
//! (states holding controls that wait for their step: whole pairs,
//! groups, pairs made anew), `a_state_that_no_longer_fits_is_refused`
//! (the stamp) and `a_ring_of_states_shares_what_rests`.
//!
//! Limits: the state holds no bodies, colliders or shapes. Adding or
//! removing a body or collider (also adding one and removing it again:
//! the slot maps' free lists, and so the handles of the next bodies
//! added, differ) makes the states saved before it refused with
//! [`WorldError::StateMismatch`] (a game that rolls back over a spawn
//! keeps a clone of the world, or a serialised one, for that). Two
//! histories give one stamp about once in 2^64; a world loaded from bytes
//! other code wrote has the stamp they hold. What no control changes and
//! the state does not hold, restore does not undo: user data and the
//! world's settings ([`World::settings_mut`]: gravity and the rest) stay
//! as the game last set them. The events of the step before the save are
//! not kept: restore clears them. The controls cost every state 44 bytes
//! a body of one collider (20 for the body, 24 for the collider) and 2 of
//! chunk handles, shared across a ring until a control is called; a save
//! after a control walks every body and collider, as a restore does that
//! changes controls. Where every body moves, nothing is shared, and every
//! pair in the broad phase's reach keeps its last query whether or not it
//! has points: 1000 awake mixed bodies take about 440 bytes a body
//! (`benches/RESULTS.md`).

use std::mem::{size_of, size_of_val};
use std::sync::{Arc, Mutex};

use slotmap::{Key, SlotMap};

use super::joints::Unpaired;
use super::replay::{FNV_OFFSET, FNV_PRIME};
use super::surface_pairs::SurfaceContacts;
use super::{collider_of, in_solver, key_of, ContactPair, World, ASLEEP};
use crate::body::{
    mass_parts, Body, BodyHandle, BodyKind, BodyMut, BodySim, Locks, MassOverride, MassParts,
};
use crate::collider::{Collider, ColliderHandle, CollisionFilter};
use crate::dim::Dim;
use crate::error::WorldError;
use crate::joint::{Joint, JointHandle};
use crate::math::{same_bits, Pose, Vector};
use crate::pipeline::broad_phase::BroadPhaseState;
use crate::pipeline::manifold::{ManifoldHead, ManifoldPoint};
use crate::shape::fingerprint_vector;
use crate::sleep::{AwakeIslands, SleepingIslands};

/// The structure stamp of a world with no bodies: where the hash of its
/// structural changes starts (FNV-1a's offset basis).
pub(super) const EMPTY_STRUCTURE: u64 = FNV_OFFSET;

/// The first word of each structural change in a stamp: any values, as
/// long as they differ.
pub(super) mod change {
    /// A collider added, with its body (`World::stamp_collider`).
    pub(crate) const COLLIDER: u32 = 1;
    pub(crate) const BODY_REMOVED: u32 = 2;
    pub(crate) const COLLIDER_REMOVED: u32 = 3;
}

/// A structure stamp in the making: the stamp before and the words of one
/// change, FNV-1a over their little-endian bytes (the same on every
/// target, so that a saved world's stamp goes on alike where it loads).
struct Stamp(u64);

impl Stamp {
    fn after(stamp: u64, change: u32) -> Self {
        let mut made = Self(stamp);
        made.word(change);
        made
    }

    fn word(&mut self, word: u32) {
        for byte in word.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
        }
    }

    fn long(&mut self, long: u64) {
        self.word(long as u32);
        self.word((long >> u32::BITS) as u32);
    }
}

impl<D: Dim> World<D> {
    /// The structure stamp after collider `index` of `body` was added
    /// (with the body, for its first): the handles, what of the body the
    /// step reads and no control changes (sleep allowed, bullet, fast
    /// share), the collider's place on it and its shape, bit for bit.
    pub(super) fn stamp_collider(&mut self, body: BodyHandle, index: usize) {
        let record = &self.bodies[body];
        let collider = &record.colliders[index];
        let mut stamp = Stamp::after(self.structure, change::COLLIDER);
        stamp.long(body.data().as_ffi());
        stamp.long(key_of(collider.handle));
        stamp.long(index as u64);
        stamp.word(u32::from(record.can_sleep));
        stamp.word(u32::from(record.bullet));
        stamp.word(record.fast_share.to_bits());
        let mut eat = |word| stamp.word(word);
        fingerprint_vector(collider.local_pose.translation, &mut eat);
        fingerprint_vector(collider.local_pose.rotation, &mut eat);
        collider.shape.fingerprint(&mut eat);
        self.structure = stamp.0;
    }

    /// The structure stamp after a removal (`change`) of the body or
    /// collider of handle bits `key`.
    pub(super) fn stamp_removal(&mut self, change: u32, key: u64) {
        let mut stamp = Stamp::after(self.structure, change);
        stamp.long(key);
        self.structure = stamp.0;
    }
}

/// What a body's motion is between two steps (its flags are kept in bit
/// sets beside).
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Copy, Clone, Debug)]
struct BodyMotion<D: Dim> {
    translation: D::Vector,
    rotation: D::PackedRotation,
    linear_velocity: D::Vector,
    angular_velocity: D::AngularVector,
    /// Seconds at rest, towards sleep.
    rest_time: f32,
}

/// What few bodies have between two steps: a force or torque the game
/// applied for the next step, a kinematic target, or a target just reached.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Copy, Clone, Debug)]
struct BodyExtras<D: Dim> {
    /// The body's place in the bodies' order.
    body: u32,
    force: D::Vector,
    torque: D::AngularVector,
    kinematic_target: Option<Pose<D>>,
    target_reached: bool,
}

/// What the game may change of a body while it runs, through the
/// controls (`world/controls.rs`), but for its mass override (few bodies
/// have one: [`Controls::masses`]).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug)]
struct BodyControls {
    kind: BodyKind,
    locks: Locks,
    linear_damping: f32,
    angular_damping: f32,
    gravity_scale: f32,
}

impl BodyControls {
    fn of<D: Dim>(sim: &BodySim<D>) -> Self {
        Self {
            kind: sim.kind,
            locks: sim.locks,
            linear_damping: sim.linear_damping,
            angular_damping: sim.angular_damping,
            gravity_scale: sim.gravity_scale,
        }
    }

    fn same_bits(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.locks == other.locks
            && self.linear_damping.to_bits() == other.linear_damping.to_bits()
            && self.angular_damping.to_bits() == other.angular_damping.to_bits()
            && self.gravity_scale.to_bits() == other.gravity_scale.to_bits()
    }
}

/// What the game may change of a collider while it runs, through the
/// controls (`world/controls.rs`).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Copy, Clone, Debug)]
struct ColliderControls {
    filter: CollisionFilter,
    friction: f32,
    restitution: f32,
    density: f32,
    sensor: bool,
}

impl ColliderControls {
    fn of<D: Dim>(collider: &Collider<D>) -> Self {
        Self {
            filter: collider.filter,
            friction: collider.friction,
            restitution: collider.restitution,
            density: collider.density,
            sensor: collider.sensor,
        }
    }

    fn same_bits(&self, other: &Self) -> bool {
        self.filter == other.filter
            && self.sensor == other.sensor
            && self.friction.to_bits() == other.friction.to_bits()
            && self.restitution.to_bits() == other.restitution.to_bits()
            && self.density.to_bits() == other.density.to_bits()
    }
}

/// The controls' values of every body and collider (step 5 of the module
/// docs), in the bodies' order, each body's colliders in its order, kept
/// in shared chunks of [`CHUNK`] as the motions are.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug)]
struct Controls<D: Dim> {
    /// The structure stamp of the world they were taken from.
    structure: u64,
    bodies: Chunked<[BodyControls]>,
    colliders: Chunked<[ColliderControls]>,
    body_count: usize,
    collider_count: usize,
    /// The bodies whose mass override is not their shapes', by their place
    /// in the bodies' order.
    masses: Vec<(u32, MassOverride<D>)>,
}

impl<D: Dim> Default for Controls<D> {
    fn default() -> Self {
        Self {
            structure: 0,
            bodies: Chunked::default(),
            colliders: Chunked::default(),
            body_count: 0,
            collider_count: 0,
            masses: Vec::new(),
        }
    }
}

impl<D: Dim> Controls<D> {
    fn bytes(&self) -> usize {
        size_of::<Self>()
            + self.body_count * size_of::<BodyControls>()
            + self.collider_count * size_of::<ColliderControls>()
            + (self.bodies.chunks.len() + self.colliders.chunks.len()) * CHUNK_HANDLE_BYTES
            + self.masses.len() * size_of::<(u32, MassOverride<D>)>()
    }
}

/// Takes `items` into `chunked` in chunks of [`CHUNK`], each the chunk at
/// its place in `last` when equal to it by `same`; returns the bytes kept
/// anew.
fn take_chunks<T: Copy>(
    items: impl Iterator<Item = T>,
    last: &[Arc<[T]>],
    same: impl Fn(&T, &T) -> bool,
    chunked: &mut Chunked<[T]>,
) -> usize {
    let mut fresh = 0;
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut take = |chunk: &mut Vec<T>, chunked: &mut Chunked<[T]>| {
        fresh += chunked.push(
            last,
            chunk.as_slice(),
            |a: &[T], b: &[T]| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
            |made| (Arc::from(made), size_of_val(made) + CHUNK_HANDLE_BYTES),
        );
        chunk.clear();
    };
    for item in items {
        chunk.push(item);
        if chunk.len() == CHUNK {
            take(&mut chunk, chunked);
        }
    }
    if !chunk.is_empty() {
        take(&mut chunk, chunked);
    }
    fresh
}

/// Items per chunk of a state's body motions and pairs: a chunk equal bit
/// for bit to the one at its place in the world's last saved state is
/// shared, not copied, so a ring of states holds what sleeps or rests
/// once. 32 keeps a chunk's handle (16 bytes, and 16 of count) small
/// against its items (about 2 KB) while one moving body dirties few others.
const CHUNK: usize = 32;

/// What a chunk's handle takes: its pointer and length in the state, and
/// its reference counts beside the items.
const CHUNK_HANDLE_BYTES: usize = 32;

/// Items kept in shared chunks of [`CHUNK`] (or, for pairs, of
/// [`CHUNK`] pairs with their points).
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound(
        serialize = "Arc<T>: serde::Serialize",
        deserialize = "Arc<T>: serde::Deserialize<'de>"
    ))
)]
#[derive(Debug)]
struct Chunked<T: ?Sized> {
    chunks: Vec<Arc<T>>,
}

impl<T: ?Sized> Clone for Chunked<T> {
    fn clone(&self) -> Self {
        Self {
            chunks: self.chunks.clone(),
        }
    }
}

impl<T: ?Sized> Default for Chunked<T> {
    fn default() -> Self {
        Self { chunks: Vec::new() }
    }
}

impl<T: ?Sized> Chunked<T> {
    /// Takes `made` as the next chunk, or the chunk at its place in `last`
    /// when `same` says they are equal; returns the bytes it kept anew.
    fn push(
        &mut self,
        last: &[Arc<T>],
        made: &T,
        same: impl Fn(&T, &T) -> bool,
        new: impl FnOnce(&T) -> (Arc<T>, usize),
    ) -> usize {
        match last.get(self.chunks.len()) {
            Some(old) if same(old, made) => {
                self.chunks.push(Arc::clone(old));
                0
            }
            _ => {
                let (chunk, bytes) = new(made);
                self.chunks.push(chunk);
                bytes
            }
        }
    }
}

/// [`CHUNK`] contact pairs' manifolds: the heads and the points in use.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug, Default)]
struct PairChunk<D: Dim> {
    heads: Vec<ManifoldHead<D>>,
    points: Vec<ManifoldPoint<D::Vector>>,
}

impl<D: Dim> PairChunk<D> {
    fn same_bits(&self, other: &Self) -> bool {
        self.heads.len() == other.heads.len()
            && self.points.len() == other.points.len()
            && self
                .heads
                .iter()
                .zip(&other.heads)
                .all(|(a, b)| a.same_bits(b))
            && self
                .points
                .iter()
                .zip(&other.points)
                .all(|(a, b)| a.same_bits(b))
    }

    fn bytes(&self) -> usize {
        self.heads.len() * size_of::<ManifoldHead<D>>()
            + self.points.len() * size_of::<ManifoldPoint<D::Vector>>()
    }
}

impl<D: Dim> BodyMotion<D> {
    fn same_bits(&self, other: &Self) -> bool {
        let turn = |m: &Self| D::unpack_rotation(m.rotation);
        same_bits(self.translation, other.translation)
            && same_bits(turn(self), turn(other))
            && same_bits(self.linear_velocity, other.linear_velocity)
            && same_bits(self.angular_velocity, other.angular_velocity)
            && same_bits(self.rest_time, other.rest_time)
    }
}

/// The chunks of the world's last saved state, for the next save to share
/// (behind a lock: saving reads the world, `&self`). A clone of the world
/// starts with none.
#[derive(Debug)]
pub(super) struct SaveCache<D: Dim>(Mutex<LastChunks<D>>);

#[derive(Debug)]
struct LastChunks<D: Dim> {
    bodies: Vec<Arc<[BodyMotion<D>]>>,
    pairs: Vec<Arc<PairChunk<D>>>,
    islands: Option<Arc<SleepingIslands>>,
    awake_islands: Option<Arc<AwakeIslands>>,
    /// The controls of the last state saved or restored, and whether the
    /// world's are still those: no control was called since (a structural
    /// change gives the world another stamp than theirs).
    controls: Option<Arc<Controls<D>>>,
    controls_current: bool,
}

impl<D: Dim> Default for SaveCache<D> {
    fn default() -> Self {
        Self(Mutex::new(LastChunks {
            bodies: Vec::new(),
            pairs: Vec::new(),
            islands: None,
            awake_islands: None,
            controls: None,
            controls_current: false,
        }))
    }
}

impl<D: Dim> SaveCache<D> {
    fn last(&mut self) -> &mut LastChunks<D> {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner())
    }
}

impl<D: Dim> World<D> {
    /// A control was called (`world/controls.rs`): the next save takes
    /// the controls anew rather than share the last state's.
    pub(super) fn controls_changed(&mut self) {
        self.save_cache.last().controls_current = false;
    }
}

impl<D: Dim> Clone for SaveCache<D> {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// One bit per item, in order.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Debug, Default)]
struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    fn clear(&mut self) {
        self.words.clear();
        self.len = 0;
    }

    fn push(&mut self, bit: bool) {
        if self.len % 64 == 0 {
            self.words.push(0);
        }
        if bit {
            self.words[self.len / 64] |= 1 << (self.len % 64);
        }
        self.len += 1;
    }

    /// The `i`th bit; false past the end.
    fn get(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] >> (i % 64) & 1 == 1
    }

    fn bytes(&self) -> usize {
        self.words.len() * std::mem::size_of::<u64>()
    }
}

/// The part of a [`World`] that changes while a game runs, for rolling
/// back: each body's motion, the broad phase's boxes and pairs, the
/// contact manifolds with their warm-start impulses, the sleeping islands,
/// the joints, what the game reached since the last step, and the values
/// of the controls (filters, sensor flags, materials, densities, masses,
/// kinds, locks, damping, gravity scales); not the bodies, colliders,
/// shapes or settings, which it shares with the world. It fits the world
/// it was saved in, a clone of it, a copy loaded from its bytes and a
/// world built by the same calls, until a body or collider is added or
/// removed (`world/state.rs`). Taken by [`World::save_state`] (or [`World::save_state_into`], which
/// reuses a state's memory), given back by [`World::restore_state`]; what
/// rests between two saves is shared between their states. The README's
/// "Rollback" section has an example.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug)]
pub struct WorldState<D: Dim> {
    structure: u64,
    /// Every body's motion, in the bodies' order.
    bodies: Chunked<[BodyMotion<D>]>,
    body_count: usize,
    sleeping: Bits,
    teleported: Bits,
    extras: Vec<BodyExtras<D>>,
    broad_phase: BroadPhaseState<D>,
    /// Which of the broad phase's pairs are contact pairs (the others are
    /// filtered out, on one body, or joined).
    paired: Bits,
    /// Each contact pair's manifold, in pair order.
    pairs: Chunked<PairChunk<D>>,
    pair_count: usize,
    touching: Bits,
    reported: Bits,
    /// Which pairs link their bodies' islands (`ContactPair::linked`).
    linked: Bits,
    /// The surface pairs' facet manifolds, by their place among the pairs.
    surfaces: Vec<(u32, Box<SurfaceContacts<D>>)>,
    /// Pairs whose colliders were removed since the last step (they end at
    /// the next), whole, by their place: the colliders cannot make them.
    orphans: Vec<(u32, ContactPair<D>)>,
    sleep_islands: Arc<SleepingIslands>,
    awake_islands: Arc<AwakeIslands>,
    /// The solver's bodies and awake pairs in order, where the next step
    /// would not rebuild them the same.
    solver_orders: Option<(Vec<BodyHandle>, Option<Vec<u32>>)>,
    touched: Vec<BodyHandle>,
    refiltered: Vec<ColliderHandle>,
    /// The controls' values, shared with the state saved before while no
    /// control was called between the two.
    controls: Arc<Controls<D>>,
    /// With their free list, so that a joint added after a restore gets
    /// the handle it got in the run recorded, also through a saved
    /// recording (`random_joints_levels_bullets_and_rollbacks_never_panic_or_leak_nan_2d`).
    #[cfg_attr(feature = "serde", serde(with = "crate::world::persist::slot_map"))]
    joints: SlotMap<JointHandle, Joint<D>>,
    unpaired: Unpaired,
    /// Bytes this save kept anew (not shared with the save before).
    fresh_bytes: usize,
}

impl<D: Dim> Default for WorldState<D> {
    fn default() -> Self {
        Self {
            structure: 0,
            bodies: Chunked::default(),
            body_count: 0,
            sleeping: Bits::default(),
            teleported: Bits::default(),
            extras: Vec::new(),
            broad_phase: BroadPhaseState::default(),
            paired: Bits::default(),
            pairs: Chunked::default(),
            pair_count: 0,
            touching: Bits::default(),
            reported: Bits::default(),
            linked: Bits::default(),
            surfaces: Vec::new(),
            orphans: Vec::new(),
            sleep_islands: Arc::default(),
            awake_islands: Arc::default(),
            solver_orders: None,
            touched: Vec::new(),
            refiltered: Vec::new(),
            controls: Arc::default(),
            joints: SlotMap::with_key(),
            unpaired: Unpaired::new(),
            fresh_bytes: 0,
        }
    }
}

impl<D: Dim> WorldState<D> {
    /// Bytes the state holds in its arrays (their lengths, not their
    /// capacities), the facet manifolds of surface pairs and the joints
    /// included.
    pub fn bytes(&self) -> usize {
        let surfaces: usize = self
            .surfaces
            .iter()
            .map(|(_, s)| size_of::<(u32, Box<SurfaceContacts<D>>)>() + s.bytes())
            .sum();
        let orders = self.solver_orders.as_ref().map_or(0, |(bodies, pairs)| {
            bodies.len() * size_of::<BodyHandle>()
                + pairs.as_ref().map_or(0, Vec::len) * size_of::<u32>()
        });
        let bits = [
            &self.sleeping,
            &self.teleported,
            &self.paired,
            &self.touching,
            &self.reported,
            &self.linked,
        ];
        let chunks = (self.bodies.chunks.len() + self.pairs.chunks.len()) * CHUNK_HANDLE_BYTES;
        let pairs: usize = self.pairs.chunks.iter().map(|c| c.bytes()).sum();
        size_of::<Self>()
            + self.body_count * size_of::<BodyMotion<D>>()
            + pairs
            + chunks
            + bits.iter().map(|b| b.bytes()).sum::<usize>()
            + self.extras.len() * size_of::<BodyExtras<D>>()
            + self.broad_phase.bytes()
            + surfaces
            + self.sleep_islands.bytes()
            + self.awake_islands.bytes()
            + orders
            + self.touched.len() * size_of::<BodyHandle>()
            + self.refiltered.len() * size_of::<ColliderHandle>()
            + self.controls.bytes()
            + self.joints.len() * size_of::<(JointHandle, Joint<D>)>()
            + self.unpaired.len() * size_of::<((BodyHandle, BodyHandle), u32)>()
    }

    /// Bytes this save kept anew: [`WorldState::bytes`] less the chunks of
    /// body motions and pairs it shares with the world's save before (what
    /// sleeps or rests between the two). What a ring of states costs per
    /// further state.
    pub fn fresh_bytes(&self) -> usize {
        self.fresh_bytes
    }

    /// Contact points held: the convex pairs' and the facets'.
    pub fn points(&self) -> usize {
        let facets: usize = self.surfaces.iter().map(|(_, s)| s.point_count()).sum();
        let points: usize = self.pairs.chunks.iter().map(|c| c.points.len()).sum();
        points + facets
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
        let mut last = self.save_cache.0.lock().unwrap_or_else(|e| e.into_inner());
        let LastChunks {
            bodies: last_bodies,
            pairs: last_pairs,
            islands: last_islands,
            awake_islands: last_awake,
            controls: last_controls,
            controls_current,
        } = &mut *last;
        let mut fresh = 0;
        state.structure = self.structure;
        state.bodies.chunks.clear();
        state.body_count = self.bodies.len();
        state.sleeping.clear();
        state.teleported.clear();
        state.extras.clear();
        let mut motions = Vec::with_capacity(CHUNK);
        let mut take_motions = |motions: &mut Vec<BodyMotion<D>>, bodies: &mut Chunked<_>| {
            fresh += bodies.push(
                last_bodies,
                motions.as_slice(),
                |a: &[BodyMotion<D>], b: &[BodyMotion<D>]| {
                    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_bits(y))
                },
                |made| (Arc::from(made), size_of_val(made) + CHUNK_HANDLE_BYTES),
            );
            motions.clear();
        };
        for (i, (_, Body { record: body, sim })) in self.view().iter().enumerate() {
            motions.push(BodyMotion {
                translation: sim.pose.translation,
                rotation: D::pack_rotation(sim.pose.rotation),
                linear_velocity: sim.linear_velocity,
                angular_velocity: sim.angular_velocity,
                rest_time: body.rest_time,
            });
            if motions.len() == CHUNK {
                take_motions(&mut motions, &mut state.bodies);
            }
            state.sleeping.push(body.sleeping);
            state.teleported.push(body.teleported);
            let pushed = sim.force != D::Vector::ZERO
                || sim.torque != D::AngularVector::default()
                || body.kinematic_target.is_some()
                || body.target_reached;
            if pushed {
                state.extras.push(BodyExtras {
                    body: i as u32,
                    force: sim.force,
                    torque: sim.torque,
                    kinematic_target: body.kinematic_target,
                    target_reached: body.target_reached,
                });
            }
        }
        if !motions.is_empty() {
            take_motions(&mut motions, &mut state.bodies);
        }
        last_bodies.clone_from(&state.bodies.chunks);
        self.broad_phase.save_state(&mut state.broad_phase);
        // The contact pairs are a sorted subset of the broad phase's: one
        // walk through both marks them.
        state.paired.clear();
        let mut pairs = self.pairs.iter().map(ContactPair::key).peekable();
        for &candidate in self.broad_phase.pairs() {
            state.paired.push(pairs.next_if_eq(&candidate).is_some());
        }
        state.pairs.chunks.clear();
        state.pair_count = self.pairs.len();
        state.touching.clear();
        state.reported.clear();
        state.linked.clear();
        state.surfaces.clear();
        state.orphans.clear();
        // The colliders whose pairs the next step decides again: their
        // pairs are kept whole, as those of removed colliders are.
        let mut pending = self.refiltered.clone();
        pending.sort_unstable();
        let as_made = |c: &ColliderHandle| {
            self.colliders.contains_key(*c) && pending.binary_search(c).is_err()
        };
        let mut chunk = PairChunk::default();
        let mut take_pairs = |chunk: &mut PairChunk<D>, pairs: &mut Chunked<PairChunk<D>>| {
            fresh += pairs.push(last_pairs, chunk, PairChunk::same_bits, |made| {
                (Arc::new(made.clone()), made.bytes() + CHUNK_HANDLE_BYTES)
            });
            chunk.heads.clear();
            chunk.points.clear();
        };
        for (k, pair) in self.pairs.iter().enumerate() {
            if !(as_made(&pair.collider_a) && as_made(&pair.collider_b)) {
                state.orphans.push((k as u32, pair.clone()));
            }
            chunk.heads.push(pair.manifold.head());
            chunk.points.extend_from_slice(pair.manifold.points());
            if chunk.heads.len() == CHUNK {
                take_pairs(&mut chunk, &mut state.pairs);
            }
            state.touching.push(pair.touching);
            state.reported.push(pair.reported);
            state.linked.push(pair.linked);
            if let Some(surface) = pair.surface.as_deref() {
                state.surfaces.push((k as u32, Box::new(surface.saved())));
            }
        }
        if !chunk.heads.is_empty() {
            take_pairs(&mut chunk, &mut state.pairs);
        }
        last_pairs.clone_from(&state.pairs.chunks);
        state.sleep_islands = Arc::clone(&self.sleep_islands);
        let islands_shared = last_islands
            .as_ref()
            .is_some_and(|last| Arc::ptr_eq(last, &self.sleep_islands));
        *last_islands = Some(Arc::clone(&self.sleep_islands));
        state.awake_islands = Arc::clone(&self.islands);
        let awake_shared = last_awake
            .as_ref()
            .is_some_and(|last| Arc::ptr_eq(last, &self.islands));
        *last_awake = Some(Arc::clone(&self.islands));
        self.save_solver_orders(state);
        state.touched.clone_from(&self.touched);
        state.refiltered.clone_from(&self.refiltered);
        state.joints.clone_from(&self.joints);
        state.unpaired.clone_from(&self.unpaired);
        let unchanged = last_controls
            .as_ref()
            .filter(|c| *controls_current && c.structure == self.structure);
        match unchanged {
            Some(controls) => state.controls = Arc::clone(controls),
            None => {
                let (controls, kept) = self.take_controls(last_controls.as_deref());
                fresh += kept;
                state.controls = Arc::new(controls);
                *last_controls = Some(Arc::clone(&state.controls));
                *controls_current = true;
            }
        }
        let shared: usize = (state.bodies.chunks.iter().map(|c| size_of_val(&**c)))
            .chain(state.pairs.chunks.iter().map(|c| c.bytes()))
            .sum::<usize>()
            + (state.bodies.chunks.len() + state.pairs.chunks.len()) * CHUNK_HANDLE_BYTES;
        let islands = if islands_shared {
            self.sleep_islands.bytes()
        } else {
            0
        } + if awake_shared {
            self.islands.bytes()
        } else {
            0
        };
        // The controls are counted whole as shared; what of them is new
        // is in `fresh`.
        let controls = state.controls.bytes();
        state.fresh_bytes = state.bytes() - shared - islands - controls + fresh;
    }

    /// The controls' values of every body and collider, each chunk shared
    /// with `last`'s at its place when equal to it; and the bytes kept
    /// anew.
    fn take_controls(&self, last: Option<&Controls<D>>) -> (Controls<D>, usize) {
        let mut made = Controls {
            structure: self.structure,
            ..Controls::default()
        };
        let bodies = self.view();
        let last_bodies = last.map_or(&[][..], |c| &c.bodies.chunks[..]);
        let last_colliders = last.map_or(&[][..], |c| &c.colliders.chunks[..]);
        let mut fresh = size_of::<Controls<D>>();
        fresh += take_chunks(
            bodies.iter().map(|(_, b)| BodyControls::of(b.sim)),
            last_bodies,
            BodyControls::same_bits,
            &mut made.bodies,
        );
        let colliders = bodies.iter().flat_map(|(_, b)| b.record.colliders.iter());
        fresh += take_chunks(
            colliders.map(ColliderControls::of),
            last_colliders,
            ColliderControls::same_bits,
            &mut made.colliders,
        );
        made.body_count = made.bodies.chunks.iter().map(|c| c.len()).sum();
        made.collider_count = made.colliders.chunks.iter().map(|c| c.len()).sum();
        made.masses = bodies
            .iter()
            .enumerate()
            .filter(|(_, (_, b))| !matches!(b.record.mass_override, MassOverride::Shapes))
            .map(|(i, (_, b))| (i as u32, b.record.mass_override))
            .collect();
        fresh += made.masses.len() * size_of::<(u32, MassOverride<D>)>();
        (made, fresh)
    }

    /// The solver's orders, unless the next step would rebuild them the
    /// same: both stale, or both what a rebuild gives (the solver's bodies
    /// and the awake pairs in the world's orders; bodies and pairs woken
    /// within a step come after the others until a rebuild).
    fn save_solver_orders(&self, state: &mut WorldState<D>) {
        let buffers = &self.buffers;
        let rebuilt_alike = buffers.index_stale
            || (buffers.order.iter().copied().eq(self
                .view()
                .iter()
                .filter(|&(_, b)| in_solver(b))
                .map(|(h, _)| h))
                && (buffers.awake_pairs_stale
                    || buffers.awake_pairs.iter().copied().eq(self
                        .pairs
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| p.is_awake(self.view()))
                        .map(|(k, _)| k))));
        if rebuilt_alike {
            state.solver_orders = None;
            return;
        }
        let (bodies, pairs) = state.solver_orders.get_or_insert_with(Default::default);
        bodies.clone_from(&buffers.order);
        fill(
            pairs,
            !buffers.awake_pairs_stale,
            buffers.awake_pairs.iter().map(|&k| k as u32),
        );
    }

    /// Writes `state` back: the world continues from where it was saved,
    /// bit for bit, as if the steps since had not been taken, the controls
    /// called since (filters, sensor flags, materials, densities, masses,
    /// kinds, locks, damping, gravity scales) undone with them (see
    /// [`WorldState`] for what that covers). Errors, changing nothing, with
    /// [`WorldError::StateMismatch`] when the state comes from a world of
    /// another structure: another world (not a clone or a loaded copy of
    /// this one, nor one built by the same calls), or this one before a
    /// body or collider was added or removed.
    pub fn restore_state(&mut self, state: &WorldState<D>) -> Result<(), WorldError> {
        // What the game reached before the rollback is recorded first, as
        // before any call.
        self.record_reached();
        self.restore_state_of_structure(state, true)?;
        self.record_restore(state);
        Ok(())
    }

    /// [`World::restore_state`], the structure stamp checked or not (a
    /// replay on another start may have stamps of its own).
    pub(super) fn restore_state_of_structure(
        &mut self,
        state: &WorldState<D>,
        check_stamp: bool,
    ) -> Result<(), WorldError> {
        if (check_stamp && state.structure != self.structure)
            || state.body_count != self.bodies.len()
        {
            return Err(WorldError::StateMismatch);
        }
        // Colliders whose filter, sensor flag or body kind changed since
        // the last step have broad-phase groups and pairs that do not
        // follow from them yet.
        let pending = !self.refiltered.is_empty();
        let controls = self.controls_to_restore(&state.controls)?;
        if !self.broad_phase.restore_state(&state.broad_phase) {
            return Err(WorldError::StateMismatch);
        }
        let (mut regroup, mut pairs_anew) = (pending, pending);
        if let Some(changes) = controls {
            regroup |= changes.filters;
            pairs_anew |= changes.pairs;
            self.write_controls(&state.controls, &changes.masses);
        }
        if regroup {
            self.regroup_proxies();
        }
        let last = self.save_cache.last();
        last.controls = Some(Arc::clone(&state.controls));
        last.controls_current = true;
        let mut extras = state.extras.iter().peekable();
        let motions = state.bodies.chunks.iter().flat_map(|c| c.iter());
        for (i, (body, motion)) in self.bodies.values_mut().zip(motions).enumerate() {
            let sim = self.sims.get_mut(body.sim);
            sim.pose = Pose {
                translation: motion.translation,
                rotation: D::unpack_rotation(motion.rotation),
            };
            sim.linear_velocity = motion.linear_velocity;
            sim.angular_velocity = motion.angular_velocity;
            body.rest_time = motion.rest_time;
            body.sleeping = state.sleeping.get(i);
            body.teleported = state.teleported.get(i);
            match extras.next_if(|e| e.body as usize == i) {
                Some(extra) => {
                    sim.force = extra.force;
                    sim.torque = extra.torque;
                    body.kinematic_target = extra.kinematic_target;
                    body.target_reached = extra.target_reached;
                }
                None => {
                    sim.force = D::Vector::ZERO;
                    sim.torque = D::AngularVector::default();
                    body.kinematic_target = None;
                    body.target_reached = false;
                }
            }
        }
        self.restore_pairs(state, pairs_anew);
        self.sleep_islands = Arc::clone(&state.sleep_islands);
        self.islands = Arc::clone(&state.awake_islands);
        self.restore_solver_orders(state);
        self.touched.clone_from(&state.touched);
        self.refiltered.clone_from(&state.refiltered);
        self.joints.clone_from(&state.joints);
        self.awake_joints_stale = true;
        self.unpaired.clone_from(&state.unpaired);
        self.contact_events.clear();
        self.sensor_events.clear();
        self.joint_events.clear();
        Ok(())
    }

    /// What restoring `controls` changes, or `None` when the world's
    /// controls are theirs already (none was called since they were saved
    /// or restored). Reads only: errors with [`WorldError::StateMismatch`]
    /// when they do not fit the world's bodies and colliders or give a
    /// body mass properties it cannot have (neither happens to a state of
    /// this structure: its values were the world's).
    fn controls_to_restore(
        &mut self,
        controls: &Arc<Controls<D>>,
    ) -> Result<Option<ControlChanges<D>>, WorldError> {
        let last = self.save_cache.last();
        let current = last.controls_current
            && last
                .controls
                .as_ref()
                .is_some_and(|c| Arc::ptr_eq(c, controls));
        if current {
            return Ok(None);
        }
        if controls.body_count != self.bodies.len()
            || controls.collider_count != self.colliders.len()
        {
            return Err(WorldError::StateMismatch);
        }
        let mut changes = ControlChanges {
            masses: Vec::new(),
            filters: false,
            pairs: false,
        };
        let saved_bodies = controls.bodies.chunks.iter().flat_map(|c| c.iter());
        let mut overrides = controls.masses.iter().peekable();
        let mut first_collider = 0;
        for (i, ((_, body), saved)) in self.view().iter().zip(saved_bodies).enumerate() {
            let colliders = &body.record.colliders;
            let saved_collider = |k: usize| item(&controls.colliders, first_collider + k);
            let mass_override = overrides
                .next_if(|(at, _)| *at as usize == i)
                .map_or(MassOverride::Shapes, |&(_, m)| m);
            let mut mass_changed =
                saved.kind != body.sim.kind || !mass_override.same_bits(&body.record.mass_override);
            for (k, collider) in colliders.iter().enumerate() {
                let saved = saved_collider(k).ok_or(WorldError::StateMismatch)?;
                mass_changed |= saved.density.to_bits() != collider.density.to_bits();
                changes.filters |= saved.filter != collider.filter;
                changes.pairs |= saved.filter != collider.filter || saved.sensor != collider.sensor;
            }
            changes.pairs |= saved.kind != body.sim.kind;
            if mass_changed {
                // Every collider's saved value was found just above.
                let density =
                    |k: usize| saved_collider(k).map_or(colliders[k].density, |c| c.density);
                let parts = mass_parts(colliders, density, mass_override, saved.kind)
                    .map_err(|_| WorldError::StateMismatch)?;
                changes.masses.push((i, parts));
            }
            first_collider += colliders.len();
        }
        Ok(Some(changes))
    }

    /// Gives every body and collider its value in `controls` (which
    /// [`World::controls_to_restore`] found to fit), and the bodies of
    /// `masses` (by place) their mass properties.
    fn write_controls(&mut self, controls: &Controls<D>, masses: &[(usize, MassParts<D>)]) {
        let saved_bodies = controls.bodies.chunks.iter().flat_map(|c| c.iter());
        let mut saved_colliders = controls.colliders.chunks.iter().flat_map(|c| c.iter());
        let mut overrides = controls.masses.iter().peekable();
        let mut masses = masses.iter().peekable();
        for (i, (body, saved)) in self.bodies.values_mut().zip(saved_bodies).enumerate() {
            let sim = self.sims.get_mut(body.sim);
            sim.kind = saved.kind;
            sim.locks = saved.locks;
            sim.linear_damping = saved.linear_damping;
            sim.angular_damping = saved.angular_damping;
            sim.gravity_scale = saved.gravity_scale;
            body.mass_override = overrides
                .next_if(|(at, _)| *at as usize == i)
                .map_or(MassOverride::Shapes, |&(_, m)| m);
            for (collider, saved) in body.colliders.iter_mut().zip(&mut saved_colliders) {
                collider.filter = saved.filter;
                collider.friction = saved.friction;
                collider.restitution = saved.restitution;
                collider.density = saved.density;
                collider.sensor = saved.sensor;
            }
            if let Some((_, parts)) = masses.next_if(|(at, _)| *at == i) {
                BodyMut { record: body, sim }.set_mass_parts(parts);
            }
        }
    }

    /// The contact pairs of `state`. Each keeps its place in the live
    /// pairs when the live pairs have the same keys (a short rollback
    /// usually finds them so) and is written in place; otherwise, or
    /// `anew` (a filter, sensor flag or kind changed: the live pairs'
    /// sides and sensor flags may not be the state's), the pairs are made
    /// anew, each taking its fixed parts (bodies, colliders, sensor flag)
    /// from the state's whole pairs, a live pair of the same key or the
    /// colliders. The state's whole pairs always take their places: the
    /// colliders as they are cannot make them.
    fn restore_pairs(&mut self, state: &WorldState<D>, anew: bool) {
        let candidates = self.broad_phase.pairs();
        let keys = || {
            candidates
                .iter()
                .enumerate()
                .filter(|&(c, _)| state.paired.get(c))
                .map(|(_, &key)| key)
        };
        let same_keys = !anew
            && self.pairs.len() == state.pair_count
            && self.pairs.iter().map(ContactPair::key).eq(keys());
        if same_keys {
            for (k, whole) in &state.orphans {
                if let Some(pair) = self.pairs.get_mut(*k as usize) {
                    pair.clone_from(whole);
                }
            }
        } else {
            let live = if anew {
                Vec::new()
            } else {
                std::mem::take(&mut self.pairs)
            };
            let mut live = live.into_iter().peekable();
            let mut orphans = state.orphans.iter().peekable();
            let mut pairs = Vec::with_capacity(state.pair_count);
            for (k, key) in keys().enumerate() {
                while live.next_if(|p| p.key() < key).is_some() {}
                let kept = live.next_if(|p| p.key() == key);
                let orphan = orphans.next_if(|(at, _)| *at as usize == k);
                let made = orphan
                    .map(|(_, pair)| pair.clone())
                    .or(kept)
                    .or_else(|| self.pair_of_colliders(key));
                // A state of this structure names only pairs that can be
                // made; should one not be, the heads would be read
                // against other pairs: keep the world's pairs empty.
                match made {
                    Some(pair) => pairs.push(pair),
                    None => {
                        pairs.clear();
                        break;
                    }
                }
            }
            self.pairs = pairs;
        }
        let mut surfaces = state.surfaces.iter().peekable();
        let saved = state.pairs.chunks.iter().flat_map(|chunk| {
            let mut points = chunk.points.as_slice();
            chunk.heads.iter().map(move |head| {
                let (own, rest) = points.split_at(head.len().min(points.len()));
                points = rest;
                (head, own)
            })
        });
        for (k, (pair, (head, own))) in self.pairs.iter_mut().zip(saved).enumerate() {
            let surface = surfaces.next_if(|(at, _)| *at as usize == k);
            pair.manifold.restore(head, own);
            match (surface, pair.surface.as_deref_mut()) {
                (Some((_, saved)), Some(live)) => live.restore(saved),
                (saved, _) => pair.surface = saved.map(|(_, s)| Box::new(s.saved())),
            }
            pair.touching = state.touching.get(k);
            pair.reported = state.reported.get(k);
            pair.linked = state.linked.get(k);
        }
    }

    /// A new pair of the colliders of broad-phase pair `key`, if they may
    /// interact.
    fn pair_of_colliders(&self, key: (u64, u64)) -> Option<ContactPair<D>> {
        let a = *self.colliders.get(collider_of(key.0))?;
        let b = *self.colliders.get(collider_of(key.1))?;
        let bodies = self.view();
        ContactPair::between(a, bodies.get(a.body)?, b, bodies.get(b.body)?)
    }

    /// The solver's body index and awake pairs from the saved orders, or
    /// marked for the next step to rebuild.
    fn restore_solver_orders(&mut self, state: &WorldState<D>) {
        let buffers = &mut self.buffers;
        let Some((order, awake)) = &state.solver_orders else {
            buffers.index_stale = true;
            buffers.awake_pairs_stale = true;
            return;
        };
        buffers.order.clone_from(order);
        buffers.index.clear();
        for (i, &h) in order.iter().enumerate() {
            buffers.index.insert(h, i);
        }
        buffers.index_stale = false;
        let sleeping = self.sleep_islands.groups();
        self.sims
            .arrange(&buffers.order, sleeping, &mut self.bodies);
        let awake = match awake {
            Some(awake) if awake.iter().all(|&k| (k as usize) < self.pairs.len()) => awake,
            _ => {
                buffers.awake_pairs_stale = true;
                return;
            }
        };
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
}

/// What restoring a state's controls changes beyond their values
/// ([`World::controls_to_restore`]).
struct ControlChanges<D: Dim> {
    /// The bodies whose kind, densities or mass override change, by
    /// place, with their mass properties as those make them.
    masses: Vec<(usize, MassParts<D>)>,
    /// A filter changes: the broad phase's groups follow.
    filters: bool,
    /// A filter, sensor flag or kind changes: the pairs are made anew.
    pairs: bool,
}

/// Item `i` of `chunked`, whose chunks but the last hold [`CHUNK`] items.
fn item<T>(chunked: &Chunked<[T]>, i: usize) -> Option<&T> {
    chunked.chunks.get(i / CHUNK)?.get(i % CHUNK)
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
