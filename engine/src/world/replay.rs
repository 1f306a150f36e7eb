//! Recording and replay: what a game did to a world, step by step, kept
//! so that it can be played again from the same start and checked against
//! the recorded results (Box2D v3's recording).
//!
//! A physics bug a player hits once is hard to see again; a desync between
//! two machines is harder still. [`World::start_recording`] keeps a copy of
//! the world as it is and, from then on, every change the game makes:
//! 1. Calls that add or remove bodies, colliders and joints, and the
//!    controls (kinds, filters, materials, masses, damping, locks), as
//!    they are called, with the handles they returned.
//! 2. At each step, the bodies the game reached through
//!    [`World::body_mut`] (and the controls) since the step before, with
//!    what the game can change there: pose, velocities, force and torque,
//!    kinematic target (and whether one was just reached), sleep, user
//!    data; the joints reached through [`World::joint_mut`], whole; the
//!    settings, when [`World::settings_mut`] was called.
//! 3. Each rollback ([`World::restore_state`]) with its state.
//! 4. Each step's time and the [`World::state_hash`] after it.
//!
//! [`Recording::replay`] plays the inputs on a copy of the start and
//! reports the first step whose hash differs from the recording's (or the
//! first call whose handle does): with an engine deterministic for the same
//! inputs there is none, on any thread count. Guarded by
//! `tests/rollback.rs` (`a_replay_matches_its_recording_and_finds_a_change`).
//!
//! Limits: the recording holds a copy of the whole world at its start and
//! grows with the inputs (a body reached every step costs about 100 bytes
//! a step). Changes made through a [`Body`] or [`Joint`] reference taken
//! before the step that records them are seen only through their effect
//! at the next step, as above; what a game reads is not recorded.

use super::{World, WorldState};
use crate::body::{Body, BodyDesc, BodyHandle, BodyKind, BodyMut, Locks, MassOverride};
use crate::collider::{ColliderDesc, ColliderHandle, CollisionFilter};
use crate::dim::Dim;
use crate::joint::{Joint, JointDesc, JointHandle};
use crate::math::{Pose, SimdWord};
use crate::settings::Settings;

/// A control call, as recorded.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug)]
pub(crate) enum Control<D: Dim> {
    Friction(ColliderHandle, f32),
    Restitution(ColliderHandle, f32),
    Filter(ColliderHandle, CollisionFilter),
    Sensor(ColliderHandle, bool),
    Density(ColliderHandle, f32),
    Kind(BodyHandle, BodyKind),
    Locks(BodyHandle, Locks),
    Mass(BodyHandle, MassOverride<D>),
    LinearDamping(BodyHandle, f32),
    AngularDamping(BodyHandle, f32),
    GravityScale(BodyHandle, f32),
}

/// What a game can change of a body through [`World::body_mut`].
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug)]
pub(crate) struct Reached<D: Dim> {
    body: BodyHandle,
    pose: Pose<D>,
    linear_velocity: D::Vector,
    angular_velocity: D::AngularVector,
    force: D::Vector,
    torque: D::AngularVector,
    kinematic_target: Option<Pose<D>>,
    target_reached: bool,
    sleeping: bool,
    rest_time: f32,
    teleported: bool,
    user_data: u64,
}

impl<D: Dim> Reached<D> {
    fn of(body: BodyHandle, Body { record, sim }: Body<'_, D>) -> Self {
        Self {
            body,
            pose: sim.pose,
            linear_velocity: sim.linear_velocity,
            angular_velocity: sim.angular_velocity,
            force: sim.force,
            torque: sim.torque,
            kinematic_target: record.kinematic_target,
            target_reached: record.target_reached,
            sleeping: record.sleeping,
            rest_time: record.rest_time,
            teleported: record.teleported,
            user_data: Body { record, sim }.user_data(),
        }
    }

    fn write(&self, mut b: BodyMut<'_, D>) {
        b.sim.pose = self.pose;
        b.sim.linear_velocity = self.linear_velocity;
        b.sim.angular_velocity = self.angular_velocity;
        b.sim.force = self.force;
        b.sim.torque = self.torque;
        b.record.kinematic_target = self.kinematic_target;
        b.record.target_reached = self.target_reached;
        b.record.sleeping = self.sleeping;
        b.record.rest_time = self.rest_time;
        b.record.teleported = self.teleported;
        b.set_user_data(self.user_data);
    }
}

/// One recorded input.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug)]
pub(crate) enum Input<D: Dim> {
    AddBody {
        body: BodyDesc<D>,
        collider: ColliderDesc<D>,
        handle: BodyHandle,
    },
    AddCollider {
        body: BodyHandle,
        collider: ColliderDesc<D>,
        handle: ColliderHandle,
    },
    RemoveBody(BodyHandle),
    RemoveCollider(ColliderHandle),
    AddJoint {
        joint: JointDesc<D>,
        handle: JointHandle,
    },
    RemoveJoint(JointHandle),
    Control(Control<D>),
    /// What the game reached since the last such input, before the next
    /// call or step: the world's list of reached bodies, its first `kept`
    /// entries as they were and `appended` after them (a body may be in it
    /// more than once), and the state of each body in `appended`.
    Reached {
        kept: usize,
        appended: Vec<BodyHandle>,
        bodies: Vec<Reached<D>>,
    },
    Joint(JointHandle, Box<Joint<D>>),
    Settings(Box<Settings<D>>),
    /// A rollback to a saved state.
    Restore(Box<WorldState<D>>),
    Step {
        dt: f32,
        hash: u64,
    },
}

/// What [`World::start_recording`] keeps while it records.
#[derive(Clone)]
pub(crate) struct Recorder<D: Dim> {
    recording: Recording<D>,
    /// `settings_mut` was called since the last step.
    settings_reached: bool,
    /// The joints `joint_mut` reached since the last step.
    joints_reached: Vec<JointHandle>,
    /// How many of the world's reached bodies (`World::touched`) the
    /// recording holds already.
    bodies_recorded: usize,
}

/// A world's start and every input a game gave it since, with each step's
/// state hash ([`World::state_hash`]): bodies, colliders and joints added
/// and removed, the controls, what the game changed through
/// [`World::body_mut`], [`World::joint_mut`] and [`World::settings_mut`],
/// and rollbacks. Made by [`World::start_recording`] and
/// [`World::stop_recording`], played by [`Recording::replay`].
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone)]
pub struct Recording<D: Dim> {
    start: Box<World<D>>,
    inputs: Vec<Input<D>>,
}

impl<D: Dim> std::fmt::Debug for Recording<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("start_bodies", &self.start.body_count())
            .field("inputs", &self.inputs.len())
            .field("steps", &self.steps())
            .finish()
    }
}

/// What a replay found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ReplayReport {
    /// Steps replayed.
    pub steps: usize,
    /// The first step (counted from 0 at the recording's start) after
    /// which the replay's state hash differs from the recording's, or at
    /// which a call returned another handle; `None` when all agree.
    pub first_difference: Option<usize>,
}

impl<D: Dim> Recording<D> {
    /// Steps recorded.
    pub fn steps(&self) -> usize {
        self.inputs
            .iter()
            .filter(|i| matches!(i, Input::Step { .. }))
            .count()
    }

    /// The world as it was when the recording started.
    pub fn start(&self) -> &World<D> {
        &self.start
    }

    /// Plays the recorded inputs on a copy of the start and compares each
    /// step's state hash, and each call's handle, with the recording's.
    pub fn replay(&self) -> ReplayReport {
        self.replay_on((*self.start).clone())
    }

    /// [`Recording::replay`] on `world` instead of the start (say, the
    /// start as loaded in another process or built by another version):
    /// the first difference says where the two part.
    pub fn replay_on(&self, mut world: World<D>) -> ReplayReport {
        world.recorder = None;
        let mut steps = 0;
        for input in &self.inputs {
            let agrees = world.play(input);
            if !agrees {
                return ReplayReport {
                    steps,
                    first_difference: Some(steps),
                };
            }
            if matches!(input, Input::Step { .. }) {
                steps += 1;
            }
        }
        ReplayReport {
            steps,
            first_difference: None,
        }
    }
}

#[cfg(feature = "serde")]
impl<D: Dim> Recording<D> {
    /// The recording as bytes, in the layout of [`World::to_bytes`] with
    /// [`RECORDING_MAGIC`](super::persist::RECORDING_MAGIC): the start
    /// world and every input, for a bug report or a replay in another
    /// process or build.
    pub fn to_bytes(&self) -> Vec<u8> {
        super::persist::frame::<D, _>(&super::persist::RECORDING_MAGIC, self, 1 << 16)
    }

    /// The recording [`Recording::to_bytes`] saved, or why `bytes` are not
    /// one (as [`World::from_bytes`] says, with
    /// [`LoadError::NotARecording`](super::LoadError::NotARecording) for
    /// other bytes); its start world is validated as a loaded world is, and
    /// its inputs' values are checked as the API checks them. Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, super::LoadError> {
        use super::persist::{malformed, unframe, RECORDING_MAGIC};
        use super::LoadError;
        let payload = unframe::<D>(&RECORDING_MAGIC, LoadError::NotARecording, bytes)?;
        let (recording, rest) = postcard::take_from_bytes::<Self>(payload)
            .map_err(|e| malformed(format!("the recording does not decode: {e}")))?;
        if !rest.is_empty() {
            return Err(malformed("the payload has bytes after the recording"));
        }
        recording.inputs.iter().try_for_each(Input::check)?;
        Ok(recording)
    }
}

#[cfg(feature = "serde")]
impl<D: Dim> Input<D> {
    /// The values a replay writes into a world without the API's checks
    /// (a reached body's motion, the settings, a step's time) are what the
    /// API would take; the calls it replays check their own.
    fn check(&self) -> Result<(), super::LoadError> {
        use crate::math::{Angular, Vector};
        let bad = |what: &str| super::persist::malformed(format!("a recorded {what}"));
        match self {
            Input::Reached { bodies, .. } => {
                let finite = |r: &Reached<D>| {
                    r.pose.is_finite()
                        && r.linear_velocity.is_finite()
                        && r.angular_velocity.is_finite()
                        && r.force.is_finite()
                        && r.torque.is_finite()
                        && r.kinematic_target.is_none_or(|t| t.is_finite())
                        && r.rest_time.is_finite()
                };
                if bodies.iter().all(finite) {
                    Ok(())
                } else {
                    Err(bad("body motion is not finite"))
                }
            }
            Input::Settings(settings) => settings.validate().map_err(|_| bad("settings")),
            Input::Step { dt, .. } if !(dt.is_finite() && *dt > 0.0) => Err(bad("time step")),
            _ => Ok(()),
        }
    }
}

/// FNV-1a, 64 bits: the offset basis and the prime.
pub(super) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
pub(super) const FNV_PRIME: u64 = 0x100_0000_01b3;

impl<D: Dim> World<D> {
    /// A hash of every body's pose, velocities and sleep, bit for bit, in
    /// the bodies' order (FNV-1a over the bits): equal on two machines
    /// exactly when their bodies are, to the last bit (to check lockstep
    /// peers and replays).
    pub fn state_hash(&self) -> u64 {
        let mut hash = FNV_OFFSET;
        let mut eat = |word: u32| {
            for byte in word.to_le_bytes() {
                hash = (hash ^ u64::from(byte)).wrapping_mul(FNV_PRIME);
            }
        };
        for (_, Body { record, sim }) in self.view().iter() {
            let words = [
                sim.pose.translation.to_word(),
                sim.pose.rotation.to_word(),
                sim.linear_velocity.to_word(),
                sim.angular_velocity.to_word(),
            ];
            for x in words.iter().flat_map(|w| w.to_array()) {
                eat(x.to_bits());
            }
            eat(u32::from(record.sleeping));
        }
        hash
    }

    /// Starts recording (see [`Recording`]): a copy of the world as it is
    /// now, then every input. A recording already running is dropped.
    pub fn start_recording(&mut self) {
        self.recorder = None;
        let start = Box::new(self.clone());
        self.recorder = Some(Box::new(Recorder {
            recording: Recording {
                start,
                inputs: Vec::new(),
            },
            settings_reached: false,
            joints_reached: Vec::new(),
            bodies_recorded: 0,
        }));
    }

    /// Stops recording and returns the recording, or `None` when none ran.
    pub fn stop_recording(&mut self) -> Option<Recording<D>> {
        self.recorder.take().map(|r| r.recording)
    }

    /// True while a recording runs.
    pub fn is_recording(&self) -> bool {
        self.recorder.is_some()
    }

    /// Keeps `input` when recording.
    pub(crate) fn record_input(&mut self, input: impl FnOnce() -> Input<D>) {
        // What the game changed through `body_mut`, `joint_mut` and
        // `settings_mut` goes first: the call may read it (a joint's frame
        // is taken from its bodies' poses as it is added;
        // `random_joints_levels_bullets_and_rollbacks_never_panic_or_leak_nan_2d`).
        self.record_reached();
        if let Some(recorder) = &mut self.recorder {
            recorder.recording.inputs.push(input());
        }
    }

    /// Keeps a rollback when recording, the world just restored to
    /// `state`: its reached bodies are the state's, which the input carries.
    pub(crate) fn record_restore(&mut self, state: &WorldState<D>) {
        if let Some(recorder) = &mut self.recorder {
            recorder.bodies_recorded = self.touched.len();
            let state = Box::new(state.clone());
            recorder.recording.inputs.push(Input::Restore(state));
        }
    }

    /// Keeps a control call when recording.
    pub(crate) fn record_control(&mut self, control: Control<D>) {
        self.record_input(|| Input::Control(control));
    }

    /// Notes that the game reached a joint or the settings.
    pub(crate) fn note_joint_reached(&mut self, joint: JointHandle) {
        if let Some(recorder) = &mut self.recorder {
            recorder.joints_reached.push(joint);
        }
    }

    pub(crate) fn note_settings_reached(&mut self) {
        if let Some(recorder) = &mut self.recorder {
            recorder.settings_reached = true;
        }
    }

    /// Before a step or a recorded call, when recording: what the game
    /// reached since the last time (each body once per time it was reached).
    pub(crate) fn record_reached(&mut self) {
        let Some(recorder) = self.recorder.as_deref_mut() else {
            return;
        };
        if recorder.settings_reached {
            recorder.settings_reached = false;
            let settings = Box::new(self.settings);
            recorder.recording.inputs.push(Input::Settings(settings));
        }
        let mut joints = std::mem::take(&mut recorder.joints_reached);
        joints.sort_unstable();
        joints.dedup();
        for handle in joints {
            if let Some(joint) = self.joints.get(handle) {
                let joint = Box::new(joint.clone());
                recorder.recording.inputs.push(Input::Joint(handle, joint));
            }
        }
        let kept = recorder.bodies_recorded.min(self.touched.len());
        if kept < self.touched.len() {
            let appended = self.touched[kept..].to_vec();
            let mut unique = appended.clone();
            unique.sort_unstable();
            unique.dedup();
            let bodies = unique
                .into_iter()
                .filter_map(|h| Some(Reached::of(h, bodies_of!(self).get(h)?)))
                .collect();
            recorder.bodies_recorded = self.touched.len();
            recorder.recording.inputs.push(Input::Reached {
                kept,
                appended,
                bodies,
            });
        }
    }

    /// At a step's end, when recording: the step and its hash.
    pub(crate) fn record_step(&mut self, dt: f32) {
        if self.recorder.is_none() {
            return;
        }
        let hash = self.state_hash();
        let Some(recorder) = &mut self.recorder else {
            return;
        };
        // The step emptied the list of reached bodies; those on it now
        // (woken as a joint broke) the replayed step puts there alike.
        recorder.bodies_recorded = self.touched.len();
        recorder.recording.inputs.push(Input::Step { dt, hash });
    }

    /// Plays one recorded input; false when it disagrees with the
    /// recording (another handle, another hash).
    fn play(&mut self, input: &Input<D>) -> bool {
        match input {
            Input::AddBody {
                body,
                collider,
                handle,
            } => self.add_body(*body, collider.clone()).ok() == Some(*handle),
            Input::AddCollider {
                body,
                collider,
                handle,
            } => self.add_collider(*body, collider.clone()).ok() == Some(*handle),
            Input::RemoveBody(handle) => {
                self.remove_body(*handle);
                true
            }
            Input::RemoveCollider(handle) => {
                let _ = self.remove_collider(*handle);
                true
            }
            Input::AddJoint { joint, handle } => self.add_joint(*joint).ok() == Some(*handle),
            Input::RemoveJoint(handle) => {
                self.remove_joint(*handle);
                true
            }
            Input::Control(control) => {
                // A call that failed when recorded fails alike and changes nothing.
                let _ = self.play_control(control);
                true
            }
            Input::Reached {
                kept,
                appended,
                bodies,
            } => {
                for reached in bodies {
                    if let Some(body) = self.body_parts_mut(reached.body) {
                        reached.write(body);
                    }
                }
                // The replay's own calls reached bodies too; the list
                // becomes the recorded world's.
                self.touched.truncate(*kept);
                self.touched.extend_from_slice(appended);
                true
            }
            Input::Joint(handle, joint) => {
                if let Some(live) = self.joints.get_mut(*handle) {
                    *live = (**joint).clone();
                }
                true
            }
            Input::Settings(settings) => {
                self.settings = **settings;
                true
            }
            // A replay on another start (`replay_on`) may have other
            // structure stamps: the recording vouches that its structure
            // is the saved state's.
            Input::Restore(state) => self.restore_state_of_structure(state, false).is_ok(),
            Input::Step { dt, hash } => {
                let _ = self.try_step(*dt);
                self.state_hash() == *hash
            }
        }
    }

    fn play_control(&mut self, control: &Control<D>) -> Result<(), crate::error::WorldError> {
        match *control {
            Control::Friction(c, v) => self.set_collider_friction(c, v),
            Control::Restitution(c, v) => self.set_collider_restitution(c, v),
            Control::Filter(c, f) => self.set_collider_filter(c, f),
            Control::Sensor(c, s) => self.set_collider_sensor(c, s),
            Control::Density(c, v) => self.set_collider_density(c, v),
            Control::Kind(b, k) => self.set_body_kind(b, k),
            Control::Locks(b, l) => self.set_body_locks(b, l),
            Control::Mass(b, m) => self.set_mass_override(b, m),
            Control::LinearDamping(b, v) => self.set_body_linear_damping(b, v),
            Control::AngularDamping(b, v) => self.set_body_angular_damping(b, v),
            Control::GravityScale(b, v) => self.set_body_gravity_scale(b, v),
        }
    }
}
