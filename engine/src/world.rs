//! The world: bodies, their contacts, and `step()`, which reads as the
//! pipeline's table of contents.

use std::sync::Arc;
use std::time::Instant;

use crate::parallel::*;
use slotmap::{Key, KeyData, SecondaryMap, SlotMap};

use crate::body::{
    Body, BodyDesc, BodyHandle, BodyKind, BodyMut, BodyRecord, BodySim, Locks, RemovedBody,
};
use crate::collider::{Collider, ColliderDesc, ColliderHandle, CollisionFilter};
use crate::dim::Dim;
use crate::error::WorldError;
use crate::events::{ContactEvent, SensorEvent};
use crate::joint::{Joint, JointEvent, JointHandle};
use crate::math::{Angular, Axes, Pose, Vector};
use crate::pipeline::broad_phase::{BroadPhase, ProxyId};
use crate::pipeline::integrate::{self, SolverBody};
use crate::pipeline::joints::{JointInput, JointSolver};
use crate::pipeline::manifold::{Manifold, ManifoldPoint, ManifoldTuning, PairView};
use crate::pipeline::narrow_phase::contact;
use crate::pipeline::solver::{ContactSolver, ManifoldInput};
use crate::pipeline::stages::Shared;
use crate::settings::Settings;
use crate::shape::Aabb;
use crate::sleep::{AwakeIslands, SleepingIslands};

mod continuous;
pub(crate) use continuous::FAST_SHARE;
mod controls;
mod joints;
#[cfg(feature = "serde")]
pub(crate) mod persist;
mod replay;
mod seams;
mod sims;
pub(crate) use sims::{Bodies, BodySims};
mod state;
mod surface_pairs;
#[cfg(feature = "serde")]
pub use persist::{LoadError, FORMAT_VERSION, MAGIC, RECORDING_MAGIC};

pub use replay::{Recording, ReplayReport};
pub use state::WorldState;

use surface_pairs::{InputBuffers, SurfaceBuffers, SurfaceContacts};

/// Bodies per rayon task when the solver's body states are read and written.
const BODIES_PER_TASK: usize = 1024;
/// Pairs per rayon task when impulses are stored back into manifolds.
const PAIRS_PER_TASK: usize = 1024;

/// A pair's slot when it is not among the awake pairs.
const ASLEEP: u32 = u32::MAX;

/// The broad phase looks for escaped boxes walking every body, in memory
/// order, while at least one body in this many is in the solver; with
/// fewer, the solver's are reached one by one by handle (a world mostly
/// asleep pays nothing for its sleepers).
const WALK_ALL_SHARE: usize = 4;

/// A pair's merging radius (`ManifoldTuning::merge`) is at most this share
/// of its thinner shape's thickness: a box's corners are a side apart, so a
/// quarter keeps them apart with room for the points' drift, while a
/// metre-sized shape keeps the world's breaking threshold.
const MERGE_SHARE_OF_THICKNESS: f32 = 0.25;

/// Two polytopes within this many linear slops of meeting at their edges
/// only are apart (`narrow_phase::edge_contact`): a tenth, half a
/// millimetre by default, the distance below which Box2D v3 treats two
/// polygons as touching on a face (`b2CollidePolygons`).
const EDGE_TOLERANCE_SLOPS: f32 = 0.1;

/// A touching (or nearly touching) pair and its manifold.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct ContactPair<D: Dim> {
    /// The first body.
    pub body_a: BodyHandle,
    /// The second body.
    pub body_b: BodyHandle,
    /// The first body's collider.
    pub collider_a: ColliderHandle,
    /// The second body's collider.
    pub collider_b: ColliderHandle,
    /// Those colliders' places in their bodies' collider lists (four
    /// bytes: the pairs are read front to back twice a step).
    index_a: u32,
    index_b: u32,
    /// The pair's contact points; the normal points from A to B. Empty
    /// for a pair with a surface, whose points are its facet and cluster
    /// manifolds ([`ContactPair::facet_manifolds`]).
    pub manifold: Manifold<D>,
    /// With a surface: the manifolds of the facets near the other shape
    /// and of their normal clusters, and their solver inputs.
    surface: Option<Box<SurfaceContacts<D>>>,
    /// A sensor pair: only overlap is tracked, nothing is solved.
    sensor: bool,
    /// Touching (or, for a sensor, overlapping) now.
    touching: bool,
    /// Touching as last reported in events.
    reported: bool,
    /// A link of its bodies' island (`sleep.rs`): set after the solve
    /// while the pair has points between two dynamic bodies
    /// ([`ContactPair::links`]).
    pub(crate) linked: bool,
}

impl<D: Dim> ContactPair<D> {
    /// The pair of two colliders whose boxes met, if they may interact: on
    /// different bodies, one of which moves, filters admitting each other,
    /// and a sensor (if any) on side A.
    fn between(
        a: ColliderSlot,
        body_a: Body<'_, D>,
        b: ColliderSlot,
        body_b: Body<'_, D>,
    ) -> Option<Self> {
        let (ca, cb) = (
            &body_a.record.colliders[a.index],
            &body_b.record.colliders[b.index],
        );
        let moves = body_a.sim.kind == BodyKind::Dynamic || body_b.sim.kind == BodyKind::Dynamic;
        if a.body == b.body || !moves || !ca.filter.admits(&cb.filter) || (ca.sensor && cb.sensor) {
            return None;
        }
        let (a, b) = if cb.sensor { (b, a) } else { (a, b) };
        Some(Self {
            body_a: a.body,
            body_b: b.body,
            collider_a: a.handle,
            collider_b: b.handle,
            index_a: a.index as u32,
            index_b: b.index as u32,
            manifold: Manifold::default(),
            surface: (ca.shape.as_surface().is_some() || cb.shape.as_surface().is_some())
                .then(Box::default),
            sensor: ca.sensor || cb.sensor,
            touching: false,
            reported: false,
            linked: false,
        })
    }

    /// Whether the pair links its bodies' islands: a contact (not a
    /// sensor) with points between two dynamic bodies. A linked pair's
    /// bodies stay dynamic while it is linked (`World::set_body_kind`
    /// unlinks the pairs of a body made fixed or kinematic), so only an
    /// unlinked pair with points reads the bodies.
    pub(crate) fn links(&self, bodies: Bodies<'_, D>) -> bool {
        let dynamic = |h| bodies.sim(h).is_some_and(|b| b.kind == BodyKind::Dynamic);
        !self.sensor
            && self.has_points()
            && (self.linked || (dynamic(self.body_a) && dynamic(self.body_b)))
    }

    /// True when either body is awake: the narrow phase and the solver
    /// take the pair.
    fn is_awake(&self, bodies: Bodies<'_, D>) -> bool {
        let active = |h| bodies.get(h).is_some_and(|b| b.is_active());
        active(self.body_a) || active(self.body_b)
    }

    /// The broad-phase pair of keys the pair came from, in ascending order.
    fn key(&self) -> (u64, u64) {
        let (a, b) = (key_of(self.collider_a), key_of(self.collider_b));
        (a.min(b), a.max(b))
    }

    /// The two colliders and their world poses, from the bodies.
    fn colliders<'w>(&self, bodies: Bodies<'w, D>) -> Option<[(&'w Collider<D>, Pose<D>); 2]> {
        self.colliders_of(bodies.get(self.body_a)?, bodies.get(self.body_b)?)
    }

    /// [`ContactPair::colliders`], given its bodies `a` and `b`.
    fn colliders_of<'w>(
        &self,
        a: Body<'w, D>,
        b: Body<'w, D>,
    ) -> Option<[(&'w Collider<D>, Pose<D>); 2]> {
        let (ca, cb) = (
            a.colliders().get(self.index_a as usize)?,
            b.colliders().get(self.index_b as usize)?,
        );
        Some([
            (ca, ca.world_pose(&a.sim.pose)),
            (cb, cb.world_pose(&b.sim.pose)),
        ])
    }

    /// What the solver takes of the pair, given the two colliders at their
    /// world poses and each body's index in the solver's arrays; `None`
    /// for a sensor, an empty manifold or a body not indexed.
    fn solver_input(
        &self,
        index: &SecondaryMap<BodyHandle, usize>,
        colliders: [(&Collider<D>, Pose<D>); 2],
    ) -> Option<ManifoldInput<D>> {
        if self.sensor || self.manifold.points().is_empty() {
            return None;
        }
        let bodies = self.solver_bodies(index)?;
        let m = &self.manifold;
        Some(manifold_input(bodies, colliders, m.normal, m.points()))
    }

    /// The two bodies' indices in the solver's arrays, if both have one.
    fn solver_bodies(&self, index: &SecondaryMap<BodyHandle, usize>) -> Option<[usize; 2]> {
        Some([*index.get(self.body_a)?, *index.get(self.body_b)?])
    }

    /// A surface pair's inputs taken from its facets' manifolds as they
    /// are (a pair woken within the step: its manifolds are as it fell
    /// asleep).
    fn take_surface_inputs(
        &mut self,
        index: &SecondaryMap<BodyHandle, usize>,
        colliders: [(&Collider<D>, Pose<D>); 2],
        breaking: f32,
        buffers: &mut InputBuffers<D>,
    ) {
        let Some(bodies) = self.solver_bodies(index) else {
            return;
        };
        let merge = merge_radius(breaking, colliders[0].0, colliders[1].0);
        if let Some(contacts) = self.surface.as_deref_mut() {
            contacts.take_inputs(merge, buffers, |normal, points| {
                Some(manifold_input(bodies, colliders, normal, points))
            });
        }
    }

    /// True for a sensor pair: overlap is reported, nothing is solved.
    pub fn is_sensor(&self) -> bool {
        self.sensor
    }

    /// True when the pair touches: some point overlaps or pushed in the
    /// last step (or, for a sensor pair, the shapes overlap).
    pub fn is_touching(&self) -> bool {
        self.reported
    }

    /// Whether the pair's sleeping bodies wake because the game placed one
    /// of its bodies: the pair touched (its support may have gone), or the
    /// placed body is fixed (nothing else looks at a fixed body's new
    /// contacts with sleeping ones). A moved dynamic or kinematic body is
    /// awake, so its new contacts wake their islands anyway; nothing rests
    /// on a sensor.
    fn wakes_after_placing(&self, bodies: Bodies<'_, D>) -> bool {
        let placed = |h| bodies.get(h).filter(|b| b.record.teleported);
        [self.body_a, self.body_b]
            .into_iter()
            .any(|h| match placed(h) {
                Some(body) => body.sim.kind == BodyKind::Fixed || (self.touching && !self.sensor),
                None => false,
            })
    }

    /// Whether the pair touches after its solve: it starts touching when a
    /// point overlaps or pushed in the step (a speculative point struck
    /// mid-step), and stays touching while a point is within
    /// `speculative_distance`, so that a box settling on the ground, which
    /// hops a fraction of a millimetre after its impact, does not stop and
    /// start again (`a_dropped_box_starts_touching_once_and_stops_once_lifted_2d`).
    fn touches_after_solve(&self, speculative_distance: f32) -> bool {
        self.manifolds().any(Manifold::touches)
            || (self.touching
                && self.manifolds().any(|m| {
                    m.points()
                        .iter()
                        .any(|p| p.separation <= speculative_distance)
                }))
    }

    /// Every manifold of the pair: its own, then with a surface its facet
    /// and cluster manifolds (as [`ContactPair::facet_manifolds`] lists
    /// them).
    pub fn manifolds(&self) -> impl Iterator<Item = &Manifold<D>> {
        let facets = self
            .surface
            .as_deref()
            .into_iter()
            .flat_map(|s| s.manifolds.manifolds());
        core::iter::once(&self.manifold).chain(facets)
    }

    /// With a surface, each manifold with a facet index; empty otherwise.
    /// First the manifolds of facets with their own (met across a free
    /// border or a convex join, or apart within a known distance), in facet
    /// order, each with its facet; then one manifold per normal cluster of
    /// the facets met on their face (contacts within 5 degrees of one
    /// normal, merged and reduced to at most a manifold's points), each
    /// with the facet its deepest contact was found on. A facet thus
    /// appears at most once among the first and may appear again among
    /// the clusters, whose points may lie on other facets too.
    pub fn facet_manifolds(&self) -> impl Iterator<Item = (u32, &Manifold<D>)> {
        self.surface
            .as_deref()
            .into_iter()
            .flat_map(|s| s.manifolds.iter())
    }

    /// True when some manifold of the pair has points.
    pub(crate) fn has_points(&self) -> bool {
        self.manifolds().any(|m| !m.points().is_empty())
    }

    /// The event for this pair starting to touch: where it pushed hardest
    /// (or, if it did not push, where it is deepest), its step's total
    /// impulse and fastest approach; `None` if a body is gone.
    fn started(&self, bodies: Bodies<'_, D>) -> Option<ContactEvent<D>> {
        let [(_, pose_a), (_, pose_b)] = self.colliders(bodies)?;
        // Of several (a surface's facets), the one that pushed hardest, or
        // else the one with the deepest point.
        let deepest_of = |m: &Manifold<D>| {
            m.points()
                .iter()
                .map(|p| -p.separation)
                .fold(f32::NEG_INFINITY, f32::max)
        };
        let manifold = self
            .manifolds()
            .filter(|m| !m.points().is_empty())
            .max_by(|x, y| {
                (x.total_normal_impulse(), deepest_of(x))
                    .partial_cmp(&(y.total_normal_impulse(), deepest_of(y)))
                    .unwrap_or(core::cmp::Ordering::Equal)
            })?;
        let points = manifold.points();
        let deepest = || {
            (0..points.len()).min_by(|&i, &j| points[i].separation.total_cmp(&points[j].separation))
        };
        let point = if manifold.total_normal_impulse() > 0.0 {
            manifold.strongest_point()
        } else {
            deepest()
        }?;
        let (on_a, on_b) = manifold.world_points(&pose_a, &pose_b, point);
        Some(ContactEvent::Started {
            body_a: self.body_a,
            body_b: self.body_b,
            collider_a: self.collider_a,
            collider_b: self.collider_b,
            point: (on_a + on_b) * 0.5,
            normal: manifold.normal,
            impulse: manifold.total_normal_impulse(),
            approach_speed: manifold.approach_speed(),
        })
    }

    /// Ends the pair before the broad phase drops it: no points, not
    /// touching, and nothing left to report.
    fn end(&mut self) {
        self.manifold = Manifold::default();
        if let Some(surface) = self.surface.as_deref_mut() {
            surface.clear();
        }
        self.touching = false;
        self.reported = false;
    }

    /// The event for this pair ceasing to touch.
    fn stopped(&self) -> Option<Event<D>> {
        if !self.reported {
            None
        } else if self.sensor {
            Some(Event::Sensor(SensorEvent::Left {
                sensor: self.body_a,
                visitor: self.body_b,
            }))
        } else {
            Some(Event::Contact(ContactEvent::Stopped {
                body_a: self.body_a,
                body_b: self.body_b,
                collider_a: self.collider_a,
                collider_b: self.collider_b,
            }))
        }
    }
}

/// Where a collider lives: its body, its place in the body's list, its broad-phase proxy.
#[derive(Copy, Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
struct ColliderSlot {
    handle: ColliderHandle,
    body: BodyHandle,
    index: usize,
    proxy: ProxyId,
}

/// How long the last step's stages took, milliseconds (wall clock).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct StepProfile {
    /// Refitting boxes and finding candidate pairs.
    pub broad_phase: f64,
    /// GJK, EPA, perturbation and manifolds, over all pairs.
    pub narrow_phase: f64,
    /// Preparing and solving contacts, integrating (all substeps).
    pub solver: f64,
    /// Islands, sleep and events.
    pub islands: f64,
    /// The whole step.
    pub total: f64,
}

impl StepProfile {
    /// Adds another step's times to these.
    fn add(&mut self, other: &Self) {
        self.broad_phase += other.broad_phase;
        self.narrow_phase += other.narrow_phase;
        self.solver += other.solver;
        self.islands += other.islands;
        self.total += other.total;
    }
}

/// How a call's `dt` is stepped: the count of equal steps and their length.
/// As few steps as keep each within `max_step` (for a `dt` within it, one
/// step of exactly `dt`), at most `max_steps`, each then `max_step` long.
fn split_step(dt: f32, max_step: f32, max_steps: u32) -> (u32, f32) {
    if dt <= max_step {
        return (1, dt);
    }
    let needed = (dt / max_step).ceil();
    if needed > max_steps as f32 {
        (max_steps, max_step)
    } else {
        let steps = needed as u32;
        (steps, dt / steps as f32)
    }
}

/// Either kind of event, while a step sorts them.
enum Event<D: Dim> {
    Contact(ContactEvent<D>),
    Sensor(SensorEvent),
}

/// A physics world in dimension `D`: use `tumble::d2::World` or `tumble::d3::World`.
///
/// ```
/// use tumble::d2::*;
/// use tumble::glam::Vec2;
///
/// let mut world = World::new(Settings::default());
/// let ground = Shape::cuboid(Vec2::new(20.0, 0.5)).unwrap();
/// world.add_body(BodyDesc::fixed().position(Vec2::new(0.0, -0.5)), ColliderDesc::new(ground)).unwrap();
/// let crate_ = world
///     .add_body(BodyDesc::dynamic().position(Vec2::new(0.0, 3.0)), ColliderDesc::new(Shape::cuboid(Vec2::splat(0.5)).unwrap()))
///     .unwrap();
/// let mut landed = false;
/// for _ in 0..120 {
///     world.step(1.0 / 60.0);
///     landed |= world.contact_events().iter().any(|e| matches!(e, ContactEvent::Started { .. }));
/// }
/// assert!(landed);
/// assert!((world.body(crate_).unwrap().position().y - 0.5).abs() < 0.01);
/// // What is below the crate?
/// let hit = world.cast_ray(Vec2::new(0.0, 5.0), Vec2::new(0.0, -1.0), 10.0, &QueryFilter::default()).unwrap();
/// assert_eq!(hit.body, crate_);
/// ```
///
/// A clone is a snapshot: it holds every body, pair, manifold and warm-start
/// impulse, so stepping the clone gives bit for bit what stepping the
/// original would.
///
/// With the `serde` feature a world also saves to bytes and loads from
/// them ([`World::to_bytes`], [`World::from_bytes`]), and has a serde form
/// of its own that carries the format's version (`world/persist.rs`).
#[derive(Clone)]
pub struct World<D: Dim> {
    settings: Settings<D>,
    /// Each body's record; its sim is in `sims`.
    pub(crate) bodies: SlotMap<BodyHandle, BodyRecord<D>>,
    /// Every body's sim, the solver's bodies first, in its order
    /// (`world/sims.rs`).
    pub(crate) sims: BodySims<D>,
    colliders: SlotMap<ColliderHandle, ColliderSlot>,
    pub(crate) broad_phase: BroadPhase<D>,
    /// Sorted by key, so the solver's order never depends on threads.
    pub(crate) pairs: Vec<ContactPair<D>>,
    contact_events: Vec<ContactEvent<D>>,
    sensor_events: Vec<SensorEvent>,
    profile: StepProfile,
    /// The solver's arrays, kept between steps for their allocations only.
    contacts: ContactSolver<D>,
    pub(crate) buffers: SolveBuffers<D>,
    /// The islands that sleep, each kept whole; shared with the rollback
    /// states saved since they last changed (copied on a change).
    pub(crate) sleep_islands: Arc<SleepingIslands>,
    /// The islands of the awake dynamic bodies, kept from step to step
    /// (`sleep.rs`); shared with the rollback states saved since they last
    /// changed.
    pub(crate) islands: Arc<AwakeIslands>,
    /// Bodies the game reached (`body_mut`, the `set_body_*` and
    /// `set_collider_*` controls) or added since the last step.
    touched: Vec<BodyHandle>,
    /// Colliders whose filter, sensor flag or body kind changed since the
    /// last step: their pairs are decided again (`World::refilter_pairs`).
    refiltered: Vec<ColliderHandle>,
    /// The joints, in joint order (the solver's).
    joints: SlotMap<JointHandle, Joint<D>>,
    joint_events: Vec<JointEvent>,
    /// Bodies joined without `collide_connected` (`world/joints.rs`).
    unpaired: joints::Unpaired,
    /// The joints' solver and its inputs, kept for their allocations.
    joint_solver: JointSolver<D>,
    joint_inputs: Vec<JointInput<D>>,
    joint_handles: Vec<JointHandle>,
    /// The joints whose bodies are both in the solver, in joint order, so
    /// that a step walks no sleeping joint (`World::joint_inputs`); built
    /// again when stale (bodies came, went, slept or woke, joints came or
    /// went).
    awake_joints: Vec<JointHandle>,
    pub(crate) awake_joints_stale: bool,
    /// A hash of the structural changes the world went through since it
    /// was new (bodies and colliders added, with their shapes, and
    /// removed): a rollback state fits only the stamp it was saved with.
    /// Saved with the world, so a loaded copy takes the original's states
    /// (`world/state.rs`).
    pub(crate) structure: u64,
    /// The recording running, if any (`world/replay.rs`).
    recorder: Option<Box<replay::Recorder<D>>>,
    /// The last rollback state's chunks, for the next to share.
    save_cache: state::SaveCache<D>,
}

/// The arrays the world hands the solver, kept between steps for their
/// allocations only (fresh ones each step cost page faults at every size
/// that outgrows the allocator's free lists).
#[derive(Clone)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub(crate) struct SolveBuffers<D: Dim> {
    /// Each solved body's index in the solver's arrays: its place in
    /// `order`. Only the bodies the solver needs have one: every fixed
    /// body and every awake one; a sleeping body costs the solver nothing.
    pub(crate) index: SecondaryMap<BodyHandle, usize>,
    /// The solved bodies, in index order: the fixed and awake bodies in the
    /// bodies' order, then any woken within the step, in the order they woke.
    /// While not stale, body `i` of it has its sim at place `i` of the
    /// world's sims (`world/sims.rs`).
    pub(crate) order: Vec<BodyHandle>,
    /// A body was added, removed, fell asleep or woke since `index` was
    /// built: rebuild it before the next narrow phase.
    pub(crate) index_stale: bool,
    /// The pairs the narrow phase and the solver look at: those with an
    /// awake body, in pair order, then any whose bodies woke within the
    /// step. A pair between sleeping (or fixed) bodies costs nothing.
    pub(crate) awake_pairs: Vec<usize>,
    /// Each pair's place in `awake_pairs`, or [`ASLEEP`].
    slot: Vec<u32>,
    /// The awake pairs with a surface, in the order of `awake_pairs`:
    /// their facets' inputs follow all others.
    pub(crate) surface_pairs: Vec<usize>,
    /// The pairs changed, or bodies slept or woke, since `awake_pairs` was
    /// built.
    pub(crate) awake_pairs_stale: bool,
    /// What the solver takes of each solved body this step
    /// ([`World::solver_body`]: its centre of mass, world inverse inertia,
    /// accelerations), made from the sims in place.
    #[cfg_attr(feature = "serde", serde(skip))]
    states: Vec<SolverBody<D>>,
    /// One per awake pair (`awake_pairs`), taken in the narrow phase.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) inputs: Vec<Option<ManifoldInput<D>>>,
    /// One per awake pair: true for a pair of a dynamic body and a fixed
    /// or kinematic one with points (its own, or with a surface its facet
    /// and cluster manifolds'), which may be a seam (`world::seams`).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) supports: Vec<bool>,
    /// The pairs whose touching or link (`ContactPair::linked`) changed in
    /// the step, in pair order.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(crate) changed: Vec<usize>,
}

impl<D: Dim> Default for SolveBuffers<D> {
    fn default() -> Self {
        Self {
            index: SecondaryMap::new(),
            order: Vec::new(),
            index_stale: true,
            awake_pairs: Vec::new(),
            slot: Vec::new(),
            surface_pairs: Vec::new(),
            awake_pairs_stale: true,
            states: Vec::new(),
            inputs: Vec::new(),
            supports: Vec::new(),
            changed: Vec::new(),
        }
    }
}

/// A collider's box for the broad phase: its shape's bounds plus the speculative distance.
fn bounds_of<D: Dim>(collider: &Collider<D>, body: &BodySim<D>, settings: &Settings<D>) -> Aabb<D> {
    collider
        .shape
        .aabb(&collider.world_pose(&body.pose))
        .expanded(settings.speculative_distance)
}

/// How far two bodies can close on each other in a step of `dt`, metres,
/// at their current velocities: the relative speed of their centres plus
/// each one's spin times its reach.
fn closing_distance<D: Dim>(a: Body<'_, D>, b: Body<'_, D>, dt: f32) -> f32 {
    let spin = |body: Body<'_, D>| {
        let w = body.sim.angular_velocity;
        w.dot(w).sqrt() * body.record.extent()
    };
    let relative = (b.sim.linear_velocity - a.sim.linear_velocity).length();
    let closing = (relative + spin(a) + spin(b)) * dt;
    if closing.is_finite() {
        closing
    } else {
        0.0
    }
}

/// Whether the solver takes `body` this step: every fixed body (others
/// rest on it) and every awake one; a sleeping body costs it nothing.
fn in_solver<D: Dim>(body: Body<'_, D>) -> bool {
    body.sim.kind == BodyKind::Fixed || !body.record.sleeping
}

/// What the solver takes of `points` along `normal` (a manifold's)
/// between the solver's bodies `bodies`, whose colliders are at their
/// world poses.
fn manifold_input<D: Dim>(
    bodies: [usize; 2],
    [(a, pose_a), (b, pose_b)]: [(&Collider<D>, Pose<D>); 2],
    normal: D::Vector,
    points: &[ManifoldPoint<D::Vector>],
) -> ManifoldInput<D> {
    ManifoldInput::new(
        bodies,
        [&pose_a, &pose_b],
        [a.shape.radius(), b.shape.radius()],
        [
            (a.friction * b.friction).sqrt(),
            a.restitution.max(b.restitution),
        ],
        normal,
        points,
    )
}

/// The merging radius of a pair of colliders, metres: the world's
/// (`breaking`), or less between thin shapes, so that the corners of a
/// centimetre cube stay apart (`ManifoldTuning::merge`).
fn merge_radius<D: Dim>(breaking: f32, a: &Collider<D>, b: &Collider<D>) -> f32 {
    breaking.min(MERGE_SHARE_OF_THICKNESS * a.shape.thickness().min(b.shape.thickness()))
}

fn key_of(handle: ColliderHandle) -> u64 {
    handle.data().as_ffi()
}

/// The filter of the collider in `slot`, if its body holds it.
fn filter_of<D: Dim>(
    bodies: &SlotMap<BodyHandle, BodyRecord<D>>,
    slot: &ColliderSlot,
) -> Option<CollisionFilter> {
    Some(bodies.get(slot.body)?.colliders.get(slot.index)?.filter)
}

/// The collider a broad-phase key stands for.
pub(crate) fn collider_of(key: u64) -> ColliderHandle {
    ColliderHandle::from(KeyData::from_ffi(key))
}

impl<D: Dim> World<D> {
    /// An empty world. The settings are not checked here:
    /// [`World::try_step`] refuses to step while [`Settings::validate`]
    /// refuses them, and [`World::try_new`] checks them at once.
    pub fn new(settings: Settings<D>) -> Self {
        Self {
            broad_phase: BroadPhase::new(settings.aabb_margin),
            settings,
            bodies: SlotMap::with_key(),
            sims: BodySims::default(),
            colliders: SlotMap::with_key(),
            pairs: Vec::new(),
            contact_events: Vec::new(),
            sensor_events: Vec::new(),
            profile: StepProfile::default(),
            contacts: ContactSolver::default(),
            buffers: SolveBuffers::default(),
            sleep_islands: Arc::default(),
            islands: Arc::default(),
            touched: Vec::new(),
            refiltered: Vec::new(),
            joints: SlotMap::with_key(),
            joint_events: Vec::new(),
            unpaired: joints::Unpaired::new(),
            joint_solver: JointSolver::default(),
            joint_inputs: Vec::new(),
            joint_handles: Vec::new(),
            awake_joints: Vec::new(),
            awake_joints_stale: true,
            structure: state::EMPTY_STRUCTURE,
            recorder: None,
            save_cache: state::SaveCache::default(),
        }
    }

    /// An empty world, or the error of [`Settings::validate`].
    pub fn try_new(settings: Settings<D>) -> Result<Self, WorldError> {
        settings.validate()?;
        Ok(Self::new(settings))
    }

    /// The settings the world steps with.
    pub fn settings(&self) -> &Settings<D> {
        &self.settings
    }

    /// The settings to change; changes apply from the next step
    /// (`aabb_margin` to boxes the broad phase stores from then on), which
    /// [`World::try_step`] refuses while [`Settings::validate`] does.
    pub fn settings_mut(&mut self) -> &mut Settings<D> {
        self.note_settings_reached();
        &mut self.settings
    }

    /// Adds a body with one collider. Errors on NaN or infinite values,
    /// out-of-range material (density <= 0, friction < 0, restitution outside
    /// 0..=1) and mass properties f32 cannot hold ([`WorldError::MassOutOfRange`]).
    pub fn add_body(
        &mut self,
        body: BodyDesc<D>,
        collider: ColliderDesc<D>,
    ) -> Result<BodyHandle, WorldError> {
        body.validate()?;
        collider.validate()?;
        let recorded = self.is_recording().then(|| collider.clone());
        let (record, sim) = crate::body::new_body(&body, ColliderHandle::default(), collider)?;
        let handle = self.bodies.insert(record);
        self.bodies[handle].sim = self.sims.push(handle, sim);
        self.start_island(handle);
        self.buffers.index_stale = true;
        self.touched.push(handle);
        self.register_collider(handle, 0);
        if let Some(collider) = recorded {
            self.record_input(|| replay::Input::AddBody {
                body,
                collider,
                handle,
            });
        }
        Ok(handle)
    }

    /// Attaches another collider to a body (a compound body); the body's
    /// mass, centre of mass and inertia now count it. Errors, changing
    /// nothing, on a stale handle, a bad collider, or mass properties f32
    /// cannot hold.
    pub fn add_collider(
        &mut self,
        body: BodyHandle,
        collider: ColliderDesc<D>,
    ) -> Result<ColliderHandle, WorldError> {
        collider.validate()?;
        let recorded = self.is_recording().then(|| collider.clone());
        let mut target = sims::body_mut(&mut self.bodies, &mut self.sims, body)
            .ok_or(WorldError::StaleHandle)?;
        target.attach(ColliderHandle::default(), collider)?;
        let index = target.record.colliders.len() - 1;
        self.touched.push(body);
        let handle = self.register_collider(body, index);
        if let Some(collider) = recorded {
            self.record_input(|| replay::Input::AddCollider {
                body,
                collider,
                handle,
            });
        }
        Ok(handle)
    }

    /// Gives a body's collider its handle and broad-phase proxy.
    fn register_collider(&mut self, body: BodyHandle, index: usize) -> ColliderHandle {
        let owner = &self.bodies[body];
        let aabb = bounds_of(
            &owner.colliders[index],
            self.sims.get(owner.sim),
            &self.settings,
        );
        let filter = owner.colliders[index].filter;
        let broad_phase = &mut self.broad_phase;
        let handle = self.colliders.insert_with_key(|handle| {
            let proxy = broad_phase.insert_grouped(key_of(handle), aabb, filter);
            ColliderSlot {
                handle,
                body,
                index,
                proxy,
            }
        });
        self.bodies[body].colliders[index].handle = handle;
        self.stamp_collider(body, index);
        handle
    }

    /// Removes a body and its colliders; its handles go stale. Returns the
    /// body, or `None` for a stale handle. Its pairs end at once (a
    /// `Stopped` event for each that touched; the other body wakes) and
    /// leave [`World::contact_pairs`] at the next step.
    ///
    /// Costs what the body touches, not what the world holds: its pairs are
    /// found through the broad phase (every pair's colliders have
    /// overlapping fat boxes, and fat boxes change only in a step) and
    /// looked up in the sorted pairs.
    pub fn remove_body(&mut self, handle: BodyHandle) -> Option<RemovedBody<D>> {
        self.record_input(|| replay::Input::RemoveBody(handle));
        if !self.bodies.contains_key(handle) {
            return None;
        }
        // Its island (woken if it slept) may come apart.
        self.leave_island(handle);
        let record = self.bodies.remove(handle)?;
        let sim = self.sims.remove(record.sim, &mut self.bodies);
        let body = RemovedBody { record, sim };
        self.stamp_removal(state::change::BODY_REMOVED, handle.data().as_ffi());
        self.remove_joints_of(handle);
        self.buffers.index_stale = true;
        let mut keys = Vec::new();
        for collider in &body.record.colliders {
            let Some(slot) = self.colliders.remove(collider.handle) else {
                continue;
            };
            keys.extend(self.pair_keys_of(collider.handle, slot.proxy));
            self.broad_phase.remove(slot.proxy);
        }
        keys.sort_unstable();
        keys.dedup();
        self.end_pairs(&keys);
        Some(body)
    }

    /// The keys of the possible pairs of `collider` (proxy `proxy`), sorted:
    /// every proxy whose fat box overlaps its own, whatever their groups.
    /// After the broad phase's `update_pairs` those include its candidates;
    /// between steps they include every pair it has (a pair's fat boxes
    /// overlap, and fat boxes change only in a step).
    fn pair_keys_of(&self, collider: ColliderHandle, proxy: ProxyId) -> Vec<(u64, u64)> {
        let key = key_of(collider);
        let mut keys = Vec::new();
        if let Some(fat) = self.broad_phase.fat_aabb(proxy).copied() {
            self.broad_phase.query(&fat, |other| {
                if other != key {
                    keys.push((key.min(other), key.max(other)));
                }
                true
            });
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// Ends the pairs of `keys` (sorted) that exist, at once: a `Stopped`
    /// (or `Left`) event for each that touched, both bodies woken with
    /// their islands; the broad phase drops the pairs at the next step.
    fn end_pairs(&mut self, keys: &[(u64, u64)]) {
        let (mut neighbours, mut unlinked, mut events) = (Vec::new(), Vec::new(), Vec::new());
        for key in keys {
            let Ok(k) = self.pairs.binary_search_by(|p| p.key().cmp(key)) else {
                continue;
            };
            let pair = &mut self.pairs[k];
            let event = pair.stopped();
            if std::mem::take(&mut pair.linked) {
                unlinked.push((pair.body_a, pair.body_b));
            }
            pair.end();
            for other in [pair.body_a, pair.body_b] {
                if let Some(neighbour) = self.bodies.get_mut(other) {
                    neighbour.wake_up();
                    neighbours.push(other);
                }
            }
            events.push(event);
        }
        self.record_all(events);
        self.wake_islands_of(&neighbours);
        for (a, b) in unlinked {
            self.unlink(a, b);
        }
    }

    /// Where `body`'s pairs sit in the sorted pairs, collider by collider
    /// in key order, found through the broad phase as
    /// [`World::remove_body`] finds them.
    fn pair_indices_of(&self, body: BodyHandle) -> Vec<usize> {
        let Some(owner) = self.bodies.get(body) else {
            return Vec::new();
        };
        owner
            .colliders
            .iter()
            .filter_map(|c| Some((c.handle, self.colliders.get(c.handle)?.proxy)))
            .flat_map(|(handle, proxy)| self.pair_keys_of(handle, proxy))
            .filter_map(|key| self.pairs.binary_search_by(|p| p.key().cmp(&key)).ok())
            .collect()
    }

    /// The other bodies of `body`'s contact pairs with points (not
    /// sensors); each as often as it has such pairs.
    pub(crate) fn bodies_touching(&self, body: BodyHandle) -> Vec<BodyHandle> {
        self.pair_indices_of(body)
            .into_iter()
            .map(|k| &self.pairs[k])
            .filter(|pair| !pair.sensor && pair.has_points())
            .map(|pair| {
                if pair.body_a == body {
                    pair.body_b
                } else {
                    pair.body_a
                }
            })
            .collect()
    }

    /// Unlinks the linked pairs of `body` (made fixed or kinematic: it
    /// left its island), without counting: its leaving counted.
    pub(crate) fn unlink_pairs_of(&mut self, body: BodyHandle) {
        for k in self.pair_indices_of(body) {
            self.pairs[k].linked = false;
        }
    }

    /// A collider with its body and world pose, or `None` for a stale handle.
    pub fn collider(&self, handle: ColliderHandle) -> Option<(BodyHandle, &Collider<D>, Pose<D>)> {
        let slot = self.colliders.get(handle)?;
        let body = self.view().get(slot.body)?;
        let collider = body.colliders().get(slot.index)?;
        Some((slot.body, collider, collider.world_pose(&body.sim.pose)))
    }

    /// The body, or `None` for a stale handle.
    pub fn body(&self, handle: BodyHandle) -> Option<Body<'_, D>> {
        self.view().get(handle)
    }

    /// The body to change, or `None` for a stale handle.
    pub fn body_mut(&mut self, handle: BodyHandle) -> Option<BodyMut<'_, D>> {
        let body = sims::body_mut(&mut self.bodies, &mut self.sims, handle)?;
        // The next step looks at the bodies the game reached (it may have
        // woken, placed or driven them) beside the awake ones.
        self.touched.push(handle);
        Some(body)
    }

    /// Every body with its handle, in a stable order.
    pub fn bodies(&self) -> impl Iterator<Item = (BodyHandle, Body<'_, D>)> {
        self.view().iter()
    }

    /// The bodies, records and sims together, to read.
    pub(crate) fn view(&self) -> Bodies<'_, D> {
        bodies_of!(self)
    }

    /// The body of `handle` to change, without counting it as reached by
    /// the game.
    pub(crate) fn body_parts_mut(&mut self, handle: BodyHandle) -> Option<BodyMut<'_, D>> {
        sims::body_mut(&mut self.bodies, &mut self.sims, handle)
    }

    /// Number of bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// How long the last step's stages took.
    pub fn profile(&self) -> &StepProfile {
        &self.profile
    }

    /// Contacts that started or stopped touching in the last step (and pairs
    /// ended by removals since), in pair order.
    pub fn contact_events(&self) -> &[ContactEvent<D>] {
        &self.contact_events
    }

    /// Bodies that entered or left sensors in the last step (and removals since).
    pub fn sensor_events(&self) -> &[SensorEvent] {
        &self.sensor_events
    }

    /// Records the events of pairs whose touching changed, the pairs
    /// already as they are after the changes: contact events as they come,
    /// one per pair of colliders; a sensor event names bodies, so the
    /// changes of a sensor body and a visitor body are summed, and they
    /// give `Entered` only when the two go from no touching pair of
    /// colliders to some, and `Left` only when from some to none: a body
    /// of two colliders crossing a sensor enters once and leaves once
    /// (`a_two_part_body_crossing_a_sensor_enters_once_and_leaves_once_2d`).
    fn record_all(&mut self, events: impl IntoIterator<Item = Option<Event<D>>>) {
        // Each sensor and visitor body changed, with its count of pairs
        // that began less those that ended, in the order first changed.
        let mut sensed: Vec<(BodyHandle, BodyHandle, i64)> = Vec::new();
        for event in events.into_iter().flatten() {
            match event {
                Event::Contact(e) => self.contact_events.push(e),
                Event::Sensor(e) => {
                    let (sensor, visitor, change) = match e {
                        SensorEvent::Entered { sensor, visitor } => (sensor, visitor, 1),
                        SensorEvent::Left { sensor, visitor } => (sensor, visitor, -1),
                    };
                    match sensed
                        .iter_mut()
                        .find(|(s, v, _)| *s == sensor && *v == visitor)
                    {
                        Some((_, _, net)) => *net += change,
                        None => sensed.push((sensor, visitor, change)),
                    }
                }
            }
        }
        for (sensor, visitor, net) in sensed {
            let now = self
                .pairs
                .iter()
                .filter(|p| p.sensor && p.reported && p.body_a == sensor && p.body_b == visitor)
                .count() as i64;
            let before = now - net;
            if before <= 0 && now > 0 {
                self.sensor_events
                    .push(SensorEvent::Entered { sensor, visitor });
            } else if before > 0 && now <= 0 {
                self.sensor_events
                    .push(SensorEvent::Left { sensor, visitor });
            }
        }
    }

    /// The pairs the narrow phase kept this step, with their manifolds.
    pub fn contact_pairs(&self) -> &[ContactPair<D>] {
        &self.pairs
    }

    /// Advances the world by `dt` seconds. A `dt` that is not finite and
    /// positive, or invalid settings, do nothing; [`World::try_step`] says why.
    pub fn step(&mut self, dt: f32) {
        let _ = self.try_step(dt);
    }

    /// Advances the world by `dt` seconds, or errors, changing nothing, when
    /// `dt` is not finite and positive or [`Settings::validate`] refuses the settings.
    ///
    /// The pipeline: broad phase, narrow phase with manifolds, then the
    /// solver, whose substeps integrate velocities, solve contacts and
    /// integrate positions (stages 1, 5 and 6 interleaved, Box2D v3's soft step).
    ///
    /// A `dt` longer than [`Settings::max_step`] is taken as equal steps of
    /// at most that, and at most [`Settings::max_steps_per_call`] of them
    /// (a longer `dt` is cut: the world runs slow for that frame). Events
    /// and the profile then cover all of them.
    pub fn try_step(&mut self, dt: f32) -> Result<(), WorldError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(WorldError::OutOfRange {
                what: "time step",
                value: dt,
            });
        }
        self.settings.validate()?;
        let (steps, h) = split_step(dt, self.settings.max_step, self.settings.max_steps_per_call);
        self.contact_events.clear();
        self.sensor_events.clear();
        self.joint_events.clear();
        self.record_reached();
        let mut profile = StepProfile::default();
        for steps_left in (1..=steps).rev() {
            self.step_once(h, steps_left);
            profile.add(&self.profile);
        }
        self.profile = profile;
        self.record_step(dt);
        Ok(())
    }

    /// One step of `dt` seconds, the pipeline's stages in order, with
    /// `steps_left` steps of the call left, this one included (kinematic
    /// targets are reached at the end of the call: `BodyMut::aim_at_target`);
    /// events are added to the call's.
    fn step_once(&mut self, dt: f32, steps_left: u32) {
        let start = Instant::now();
        self.broad_phase.set_margin(self.settings.aabb_margin);
        let since = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
        // Only a body the game reached since the last step (`touched`:
        // `body_mut`, `add_body`, the controls) can have been placed, given
        // a kinematic target, woken or added; a body's other changes of
        // whether the solver takes it (falling asleep, a removal, a change
        // of kind) mark the solver's bodies stale where they happen.
        let (mut teleports, mut stale) = (false, false);
        let mut woken = Vec::new();
        let index = &self.buffers.index;
        // The bodies reached arrive after the solve (`BodyRecord::arrive`):
        // only they can have been placed or given a target.
        let reached = std::mem::take(&mut self.touched);
        for &handle in &reached {
            let Some(mut body) = sims::body_mut(&mut self.bodies, &mut self.sims, handle) else {
                stale = true;
                continue;
            };
            body.aim_at_target(dt, steps_left);
            teleports |= body.record.teleported;
            // A body the game woke (an impulse, a placement) joins the
            // solver, and its sleeping island wakes with it.
            stale |= in_solver(body.as_body()) != index.contains_key(handle);
            if !body.record.sleeping && self.sleep_islands.island_of(handle).is_some() {
                woken.push(handle);
            }
        }
        // Every island of a woken body wakes now, before the narrow phase,
        // whether or not the solver's bodies are already stale: what the
        // step does then depends on the bodies, not on how the solver's
        // index was kept, which a restored state rebuilds
        // (`tests/rollback.rs`, `rolling_back_eight_steps_every_step_gives_the_plain_run`).
        let woke_islands = !self.wake_islands_of(&woken).is_empty();
        self.buffers.index_stale |= stale || woke_islands;
        self.refresh_solver_index();
        let sleepers = !self.sleep_islands.is_empty();
        let wake_for_teleports = teleports && sleepers;
        self.update_broad_phase(dt, wake_for_teleports);
        if wake_for_teleports {
            self.wake_beside_teleported();
        }
        // Bodies woken beside a placed one (or by a refiltered pair) are
        // solved in this step, as those the narrow phase finds touched are.
        self.refresh_solver_index();
        let broad_phase = since(start);
        let t = Instant::now();
        self.update_manifolds(dt);
        self.smooth_seams();
        let narrow_phase = since(t);
        let t = Instant::now();
        // Nothing falls asleep before the solve: with no sleeper at the
        // start of the step there is no island to wake. The bodies woken
        // here take the solver's places from `first_woken` on.
        let first_woken = self.buffers.order.len();
        let woke = sleepers && self.wake_touched_islands();
        if woke {
            self.add_woken_inputs(first_woken);
        }
        let mut islands = since(t);
        let t = Instant::now();
        self.append_facet_inputs();
        self.solve(dt, &reached, steps_left == 1);
        // Next step the solver's bodies are in the bodies' order again,
        // the woken ones among them.
        self.buffers.index_stale |= woke;
        // What the step itself reached (a joint that broke woke its
        // bodies) is kept for the next, in the old list's allocation.
        let mut reached = reached;
        reached.clear();
        reached.append(&mut self.touched);
        self.touched = reached;
        let solver = since(t);
        let t = Instant::now();
        self.fall_asleep(dt);
        self.report_touching();
        islands += since(t);
        self.profile = StepProfile {
            broad_phase,
            narrow_phase,
            solver,
            islands,
            total: since(start),
        };
    }

    /// The solver's bodies anew, when a body came, went, slept or woke:
    /// every fixed and every awake body, in the bodies' order.
    fn refresh_solver_index(&mut self) {
        let buffers = &mut self.buffers;
        if !buffers.index_stale {
            return;
        }
        buffers.index.clear();
        buffers.order.clear();
        let bodies = bodies_of!(self);
        for (h, body) in bodies.iter() {
            if in_solver(body) {
                buffers.index.insert(h, buffers.order.len());
                buffers.order.push(h);
            }
        }
        let sleeping = self.sleep_islands.groups();
        self.sims
            .arrange(&buffers.order, sleeping, &mut self.bodies);
        buffers.index_stale = false;
        self.awake_joints_stale = true;
        buffers.awake_pairs_stale = true;
    }

    /// Stage 2: refit moved bodies' boxes (stretched ahead by their last
    /// velocity over `dt`); the sorted candidate pairs. With `teleports`,
    /// the game placed a body while others sleep: a sleeping body whose pair
    /// with a placed one ends is woken, as its support may have gone.
    fn update_broad_phase(&mut self, dt: f32, teleports: bool) {
        let escaped = self.escaped_boxes(dt);
        self.broad_phase.update_many(&escaped);
        self.regroup_refiltered();
        self.broad_phase.update_pairs();
        // Colliders whose filter, sensor flag or body kind changed have
        // their candidates decided again first; the other pairs follow from
        // the candidates alone (the rest of what `ContactPair::between`
        // reads never changes), and the broad phase says exactly whether
        // those changed (the keys are unique): when they did not, nothing
        // else began or ended.
        self.refilter_pairs();
        if !self.broad_phase.pairs_changed() {
            return;
        }
        let candidates = self.broad_phase.pairs();
        let bodies = bodies_of!(self);
        let mut old = std::mem::take(&mut self.pairs).into_iter().peekable();
        let mut pairs = Vec::with_capacity(candidates.len());
        let mut ended = Vec::new();
        let mut woken = Vec::new();
        let mut unlinked = Vec::new();
        let mut end = |gone: ContactPair<D>| {
            if teleports && gone.wakes_after_placing(bodies) {
                woken.extend([gone.body_a, gone.body_b]);
            }
            if gone.linked {
                unlinked.push((gone.body_a, gone.body_b));
            }
            ended.push(gone.stopped());
        };
        for &key in candidates {
            while let Some(gone) = old.next_if(|p| p.key() < key) {
                end(gone);
            }
            if let Some(kept) = old.next_if(|p| p.key() == key) {
                pairs.push(kept);
                continue;
            }
            let slots = (
                self.colliders.get(collider_of(key.0)),
                self.colliders.get(collider_of(key.1)),
            );
            if let (Some(&a), Some(&b)) = slots {
                if let (Some(body_a), Some(body_b)) = (bodies.get(a.body), bodies.get(b.body)) {
                    if !self.unpaired(a.body, b.body) {
                        pairs.extend(ContactPair::between(a, body_a, b, body_b));
                    }
                }
            }
        }
        old.for_each(&mut end);
        self.pairs = pairs;
        self.buffers.awake_pairs_stale = true;
        self.record_all(ended);
        self.wake_sleeping(woken);
        for (a, b) in unlinked {
            self.unlink(a, b);
        }
    }

    /// Gives the proxies of the colliders whose filter (or sensor flag or
    /// body kind) changed since the last step their filters as broad-phase
    /// groups, which queues them to find their pairs anew: the broad phase
    /// leaves out the pairs the filters refuse, so that a scene whose
    /// filters rule out most overlaps (joint_grid_2d: every one) never
    /// stores, merges or decides them (`tests/controls.rs`:
    /// `changing_the_ground_filter_drops_a_box_then_catches_another_2d`).
    fn regroup_refiltered(&mut self) {
        for &collider in &self.refiltered {
            if let Some(slot) = self.colliders.get(collider) {
                if let Some(filter) = filter_of(&self.bodies, slot) {
                    self.broad_phase.set_groups(slot.proxy, filter);
                }
            }
        }
    }

    /// Gives every broad-phase proxy its collider's filter as groups, the
    /// pairs left as they are: for a loaded world, whose broad phase is
    /// saved without its groups (they follow from the colliders) and whose
    /// pairs were found with them, and for a world whose filters a
    /// rollback gave back (`world/state.rs`).
    fn regroup_proxies(&mut self) {
        let (colliders, bodies) = (&self.colliders, &self.bodies);
        self.broad_phase.regroup(|key| {
            colliders
                .get(collider_of(key))
                .and_then(|slot| filter_of(bodies, slot))
                .unwrap_or_default()
        });
    }

    /// Wakes those of `bodies` that sleep; the others keep their rest time.
    fn wake_sleeping(&mut self, bodies: Vec<BodyHandle>) {
        if !self.wake_islands_of(&bodies).is_empty() {
            self.buffers.index_stale = true;
        }
    }

    /// Wakes the sleeping bodies paired with a body the game placed (or
    /// added) since the last step, before the narrow phase, so that their
    /// contacts are measured anew this step.
    fn wake_beside_teleported(&mut self) {
        let bodies = self.view();
        let woken: Vec<BodyHandle> = self
            .pairs
            .par_iter()
            .with_min_len(PAIRS_PER_TASK)
            .filter(|pair| pair.wakes_after_placing(bodies))
            .flat_map_iter(|pair| [pair.body_a, pair.body_b])
            .collect();
        self.wake_sleeping(woken);
    }

    /// The boxes of awake (or just placed) bodies' colliders that left
    /// their fat boxes, or will in this step at their speed, with each
    /// body's displacement over `dt`, in body order. Most boxes stay inside, and checking is read-only, so all
    /// threads check and only the few that escaped are re-inserted, one at
    /// a time.
    fn escaped_boxes(&self, dt: f32) -> Vec<(ProxyId, Aabb<D>, D::Vector)> {
        let (colliders, broad_phase, settings) =
            (&self.colliders, &self.broad_phase, &self.settings);
        let moving = |b: &Body<'_, D>| b.is_active() || b.record.teleported;
        // The bodies the solver takes (those just placed or added among
        // them), reached by handle while most bodies sleep; walked in the
        // bodies' order otherwise, which reads them in memory order.
        let view = self.view();
        let bodies: Vec<Body<'_, D>> =
            if self.buffers.order.len() * WALK_ALL_SHARE >= self.bodies.len() {
                view.iter().map(|(_, b)| b).filter(moving).collect()
            } else {
                self.buffers
                    .order
                    .iter()
                    .filter_map(|&h| view.get(h))
                    .filter(moving)
                    .collect()
            };
        bodies
            .par_iter()
            .with_min_len(BODIES_PER_TASK)
            .flat_map_iter(|body| {
                body.colliders().iter().filter_map(move |collider| {
                    let proxy = colliders.get(collider.handle)?.proxy;
                    let bounds = bounds_of(collider, body.sim, settings);
                    let displacement = body.sim.linear_velocity * dt;
                    (!broad_phase.encloses(proxy, &bounds.swept(displacement))).then_some((
                        proxy,
                        bounds,
                        displacement,
                    ))
                })
            })
            .collect()
    }

    /// Stages 3 and 4: GJK/EPA and the incremental manifold of every pair,
    /// in parallel; each touching pair's solver input is taken on the way,
    /// while the pair is in the cache. Pairs between sleeping bodies are
    /// left as they are, with no input. A pair's speculative margin covers
    /// what it can close in the step `dt`: with a fixed margin of 2 cm, a
    /// body falling 30 cm a step was first seen deep inside what it hit,
    /// and pushed out from there (light bodies went through the ground, or
    /// were shot out from between two others).
    fn update_manifolds(&mut self, dt: f32) {
        let tuning = ManifoldTuning {
            margin: self.settings.speculative_distance,
            breaking: self.settings.contact_breaking_threshold,
            merge: self.settings.contact_breaking_threshold,
            reuse: self.settings.manifold_reuse_distance,
            edge_tolerance: EDGE_TOLERANCE_SLOPS * self.settings.linear_slop,
        };
        let mut buffers = std::mem::take(&mut self.buffers);
        let bodies = bodies_of!(self);
        let awake = |pair: &ContactPair<D>| pair.is_awake(bodies);
        if buffers.awake_pairs_stale {
            buffers.awake_pairs.clear();
            buffers.slot.clear();
            buffers.surface_pairs.clear();
            for (k, pair) in self.pairs.iter().enumerate() {
                if awake(pair) {
                    buffers.slot.push(buffers.awake_pairs.len() as u32);
                    buffers.awake_pairs.push(k);
                    if pair.surface.is_some() {
                        buffers.surface_pairs.push(k);
                    }
                } else {
                    buffers.slot.push(ASLEEP);
                }
            }
            buffers.awake_pairs_stale = false;
        }
        let (index, awake_pairs) = (&buffers.index, &buffers.awake_pairs);
        let pairs = Shared::new(&mut self.pairs);
        awake_pairs
            .par_iter()
            .map_init(SurfaceBuffers::default, |surface_buffers, &k| {
                // SAFETY: `awake_pairs` holds each pair's index at most
                // once (built from an enumeration of the pairs, and
                // extended only by pairs whose slot said they were not in
                // it), so no two tasks reach the same pair.
                let pair = unsafe { pairs.get_mut(k) };
                let (Some(body_a), Some(body_b)) =
                    (bodies.get(pair.body_a), bodies.get(pair.body_b))
                else {
                    return (None, false);
                };
                let Some(colliders) = pair.colliders_of(body_a, body_b) else {
                    return (None, false);
                };
                let [(a, pose_a), (b, pose_b)] = colliders;
                if pair.sensor {
                    pair.touching = contact(&a.shape, &pose_a, &b.shape, &pose_b).is_some();
                    return (None, false);
                }
                let view = PairView {
                    shape_a: &a.shape,
                    pose_a,
                    shape_b: &b.shape,
                    pose_b,
                };
                let closing = closing_distance(body_a, body_b, dt);
                let tuning = ManifoldTuning {
                    margin: tuning.margin.max(closing),
                    merge: merge_radius(tuning.merge, a, b),
                    ..tuning
                };
                let kinds = [body_a.sim.kind, body_b.sim.kind];
                let supporting = kinds.contains(&BodyKind::Dynamic)
                    && kinds.iter().any(|&kind| kind != BodyKind::Dynamic);
                if pair.surface.is_some() {
                    let bodies = pair.solver_bodies(index);
                    pair.update_surface(colliders, tuning, surface_buffers, |normal, points| {
                        Some(manifold_input(bodies?, colliders, normal, points))
                    });
                    return (None, supporting && pair.has_points());
                }
                pair.manifold.update(&view, tuning);
                let supports = supporting && !pair.manifold.points().is_empty();
                (pair.solver_input(index, colliders), supports)
            })
            .unzip_into_vecs(&mut buffers.inputs, &mut buffers.supports);
        self.buffers = buffers;
    }

    /// The pairs of the bodies woken since the narrow phase (those at the
    /// solver's places from `first_woken` on) get their inputs. A pair of
    /// two sleepers joins the awake pairs, after the others, its manifolds
    /// as they fell asleep. A pair that was awake already (its other body
    /// a moving kinematic or an awake dynamic one: the one that woke it)
    /// had its manifolds updated in this narrow phase but no input, its
    /// woken body having no place in the solver then, and takes its input
    /// now from them. So a body woken by what touches it is solved against
    /// that in the step it wakes, as if it had been awake: a pile asleep on
    /// a kinematic platform that starts moving is carried from the first
    /// step, not sunk into it
    /// (`a_sleeping_pile_on_a_kinematic_platform_driven_up_by_targets_is_carried_from_the_first_step`
    /// and its neighbours in `tests/sleeping.rs`), and a cube landing on a
    /// sleeping one is stopped by it
    /// (`a_cube_landing_on_a_sleeping_one_is_stopped_in_the_step_it_wakes_it`).
    fn add_woken_inputs(&mut self, first_woken: usize) {
        let bodies = bodies_of!(self);
        let breaking = self.settings.contact_breaking_threshold;
        let SolveBuffers {
            index,
            inputs,
            awake_pairs,
            slot,
            surface_pairs,
            ..
        } = &mut self.buffers;
        let mut input_buffers = InputBuffers::default();
        let woke = |h| index.get(h).is_some_and(|&place| place >= first_woken);
        for (k, pair) in self.pairs.iter_mut().enumerate() {
            if !(woke(pair.body_a) || woke(pair.body_b)) {
                continue;
            }
            if slot[k] == ASLEEP {
                slot[k] = awake_pairs.len() as u32;
                awake_pairs.push(k);
                inputs.push(None);
                if pair.surface.is_some() {
                    surface_pairs.push(k);
                }
            }
            let colliders = pair.colliders(bodies);
            if pair.surface.is_some() {
                if let Some(colliders) = colliders {
                    pair.take_surface_inputs(index, colliders, breaking, &mut input_buffers);
                }
            } else {
                inputs[slot[k] as usize] =
                    colliders.and_then(|colliders| pair.solver_input(index, colliders));
            }
        }
    }

    /// Stages 1, 5, 6: the soft-step solver over the solver's bodies'
    /// sims, the first `order.len()` in the world's dense array
    /// (`world/sims.rs`), read and written in place, from the inputs the
    /// narrow phase took. Storing the impulses back, each pair also learns
    /// whether it touches (a point overlaps); each body gets its solved
    /// state, and those the game reached (`reached`) are done with their
    /// teleport, and with their target in the call's `last` step.
    fn solve(&mut self, dt: f32, reached: &[BodyHandle], last: bool) {
        let SolveBuffers {
            index,
            order,
            index_stale,
            awake_pairs,
            slot,
            surface_pairs,
            awake_pairs_stale,
            mut states,
            inputs,
            supports,
            mut changed,
        } = std::mem::take(&mut self.buffers);
        debug_assert!(
            !index_stale,
            "the solver's bodies are built before the narrow phase"
        );
        let settings = &self.settings;
        let speculative_distance = settings.speculative_distance;
        self.sims.as_slice()[..order.len()]
            .par_iter()
            .with_min_len(BODIES_PER_TASK)
            .map(|sim| Self::solver_body(settings, sim))
            .collect_into_vec(&mut states);
        let mut contacts = std::mem::take(&mut self.contacts);
        contacts.prepare(&inputs, &states);
        let (mut joint_inputs, mut joint_handles) = (
            std::mem::take(&mut self.joint_inputs),
            std::mem::take(&mut self.joint_handles),
        );
        self.joint_inputs(&index, &mut joint_inputs, &mut joint_handles);
        let mut joints = std::mem::take(&mut self.joint_solver);
        joints.prepare(&joint_inputs, &states);
        contacts.solve(&states, &mut joints, &self.settings, dt);
        let h = dt / self.settings.substeps.max(1) as f32;
        self.store_joints(&joint_handles, joints.reactions(contacts.body_states(), h));
        self.joint_solver = joints;
        (self.joint_inputs, self.joint_handles) = (joint_inputs, joint_handles);
        let solved = &contacts;
        changed.clear();
        let bodies = bodies_of!(self);
        let pairs = Shared::new(&mut self.pairs);
        changed.par_extend(
            awake_pairs
                .par_iter()
                .enumerate()
                .with_min_len(PAIRS_PER_TASK)
                .filter_map(|(j, &k)| {
                    // SAFETY: as in the narrow phase, each pair at most once.
                    let pair = unsafe { pairs.get_mut(k) };
                    // One pass over the awake pairs does all: store the
                    // impulses, settle whether the pair touches, and
                    // whether it links its bodies' islands (`sleep.rs`);
                    // the pairs whose touching or link changed are kept. A
                    // pair left out of the solve (apart) keeps its
                    // touching unless the narrow phase set it (a sensor).
                    let solved_here = match pair.surface.as_deref_mut() {
                        Some(contacts) => contacts.store(solved),
                        None => {
                            solved.store_impulses(j, &mut pair.manifold);
                            solved.solved(j)
                        }
                    };
                    let relinked = pair.links(bodies) != pair.linked;
                    if !(solved_here || pair.sensor) {
                        return relinked.then_some(k);
                    }
                    if !pair.sensor {
                        pair.touching = pair.touches_after_solve(speculative_distance);
                    }
                    (pair.touching != pair.reported || relinked).then_some(k)
                }),
        );
        // In pair order (the pairs of bodies woken within the step come
        // after the others in `awake_pairs`).
        changed.sort_unstable();
        let solved_states = contacts.body_states();
        self.sims.as_mut_slice()[..order.len()]
            .par_iter_mut()
            .zip(&states)
            .zip(solved_states)
            .with_min_len(BODIES_PER_TASK)
            .for_each(|((sim, start), solved)| {
                let mut state = *start;
                integrate::store(solved, &mut state);
                Self::write_back(sim, &state);
            });
        for &h in reached {
            if let Some(body) = sims::body_mut(&mut self.bodies, &mut self.sims, h) {
                // A body with a target is aimed again in the call's next
                // step; one on its target goes on moving until the next
                // step, which stops it unless it is given a new target.
                if body.record.arrive(body.sim, last) {
                    self.touched.push(h);
                }
            }
        }
        self.continuous_pass(&order, &index, &states, contacts.body_states());
        self.contacts = contacts;
        self.buffers = SolveBuffers {
            index,
            order,
            index_stale,
            awake_pairs,
            slot,
            surface_pairs,
            awake_pairs_stale,
            states,
            inputs,
            supports,
            changed,
        };
    }

    /// Events for the pairs that started or stopped touching this step, in
    /// pair order. Sensor pairs were decided in the narrow phase; contacts
    /// touch after the solve when a point overlaps.
    fn report_touching(&mut self) {
        let mut events = Vec::new();
        for &k in &self.buffers.changed {
            let pair = &mut self.pairs[k];
            if pair.touching == pair.reported {
                continue;
            }
            if pair.touching {
                events.push(if pair.sensor {
                    Some(Event::Sensor(SensorEvent::Entered {
                        sensor: pair.body_a,
                        visitor: pair.body_b,
                    }))
                } else {
                    pair.started(bodies_of!(self)).map(Event::Contact)
                });
            } else {
                events.push(pair.stopped());
            }
            pair.reported = pair.touching;
        }
        self.record_all(events);
    }

    /// What the solver takes of a body in it (fixed, or awake: no body in
    /// the solver sleeps while it solves) for this step.
    fn solver_body(settings: &Settings<D>, body: &BodySim<D>) -> SolverBody<D> {
        let dynamic = body.kind == BodyKind::Dynamic;
        let linear_acceleration = if dynamic {
            settings.gravity * body.gravity_scale + body.force * body.inv_mass
        } else {
            D::Vector::ZERO
        };
        let inv_inertia = body.inv_inertia_world();
        let solver_body = SolverBody {
            center: body.center_of_mass(),
            rotation: body.pose.rotation,
            linear_velocity: body.linear_velocity,
            angular_velocity: body.angular_velocity,
            inv_mass: body.inv_mass,
            translation_lock: Axes::NONE,
            inv_inertia,
            linear_acceleration,
            angular_acceleration: if dynamic {
                D::mul_inertia(inv_inertia, body.torque)
            } else {
                D::AngularVector::default()
            },
            linear_damping: body.linear_damping,
            angular_damping: body.angular_damping,
            dynamic,
        };
        if dynamic && !body.locks.is_empty() {
            Self::held_by_locks(solver_body, body.locks)
        } else {
            solver_body
        }
    }

    /// A locked dynamic body as the solver takes it: no velocity or
    /// acceleration along or about its locked axes, and contacts' impulses
    /// scaled to zero along its locked translation axes (its inverse
    /// inertia, from [`BodySim::inv_inertia_world`], is zero about the locked
    /// rotation axes already, so torques and contacts cannot turn it
    /// there). So the body's velocity along a locked axis stays exactly
    /// zero and its position there exactly as it was
    /// (`tests/controls.rs`: `a_body_locked_in_x_is_never_moved_in_x_by_a_hit_2d`).
    fn held_by_locks(body: SolverBody<D>, locks: Locks) -> SolverBody<D> {
        SolverBody {
            linear_velocity: D::lock_linear(body.linear_velocity, locks.translation),
            angular_velocity: D::lock_angular(body.angular_velocity, locks.rotation),
            linear_acceleration: D::lock_linear(body.linear_acceleration, locks.translation),
            angular_acceleration: D::lock_angular(body.angular_acceleration, locks.rotation),
            translation_lock: locks.translation,
            ..body
        }
    }

    /// The solved state back into the body; forces are cleared. A state that
    /// went non-finite (it never should) leaves the body where it was, at rest.
    fn write_back(body: &mut BodySim<D>, state: &SolverBody<D>) {
        body.force = D::Vector::ZERO;
        body.torque = D::AngularVector::default();
        if body.kind == BodyKind::Fixed {
            return;
        }
        let pose = Pose {
            translation: state.center - D::rotate(state.rotation, body.local_center),
            rotation: state.rotation,
        };
        let finite = pose.is_finite()
            && state.linear_velocity.is_finite()
            && state.angular_velocity.is_finite();
        if finite {
            body.pose = pose;
            body.linear_velocity = state.linear_velocity;
            body.angular_velocity = state.angular_velocity;
        } else {
            body.linear_velocity = D::Vector::ZERO;
            body.angular_velocity = D::AngularVector::default();
        }
    }
}
