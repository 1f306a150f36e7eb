//! The world's joints: adding, checking, removing them, and handing them to
//! the solver each step.
//!
//! 1. `add_joint` checks the description (typed errors), turns its world
//!    anchors and axis into each body's frame, and wakes both bodies; two
//!    bodies joined without `collide_connected` have their contact pairs
//!    decided again, and none is made while the joint lasts.
//! 2. Each step the joints whose bodies are both in the solver (awake, or
//!    fixed) become its inputs, in joint order ([`World::joint_inputs`]);
//!    after the solve each keeps its impulses and reaction, and one whose
//!    reaction passed its break force or torque is removed with a
//!    [`JointEvent::Broke`] ([`World::store_joints`]).
//! 3. Joined dynamic bodies are one island: adding a joint merges their
//!    islands and removing one counts a removal in theirs; they fall
//!    asleep together, and an awake body wakes the sleeping island it is
//!    joined to (`sleep.rs`). Removing a body removes its joints
//!    ([`JointEvent::Removed`]).

use std::collections::HashMap;

use slotmap::SecondaryMap;

use super::{replay, World};
use crate::body::{BodyHandle, BodyKind};
use crate::dim::Dim;
use crate::error::WorldError;
use crate::joint::{Joint, JointDesc, JointEvent, JointHandle};
use crate::math::{Angular, Vector};
use crate::pipeline::joints::{JointFrame, JointImpulses, JointInput, JointModel, Motor, Spring};

/// Pairs of bodies joined without `collide_connected`, with how many such
/// joints each pair has: their contacts are skipped.
pub(crate) type Unpaired = HashMap<(BodyHandle, BodyHandle), u32>;

/// The key of an unordered pair of bodies.
pub(crate) fn body_pair(a: BodyHandle, b: BodyHandle) -> (BodyHandle, BodyHandle) {
    if a < b {
        (a, b)
    } else {
        (b, a)
    }
}

/// `value` if finite, else the error naming `what`.
fn finite(what: &'static str, value: f32) -> Result<f32, WorldError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(WorldError::NotFinite { what })
    }
}

/// `value` if finite and at least `least` (more than it when `strictly`).
fn at_least(what: &'static str, value: f32, least: f32, strictly: bool) -> Result<f32, WorldError> {
    let ok = if strictly {
        value > least
    } else {
        value >= least
    };
    if value.is_finite() && ok {
        Ok(value)
    } else {
        Err(WorldError::OutOfRange { what, value })
    }
}

fn check_limits(limits: Option<(f32, f32)>) -> Result<(), WorldError> {
    if let Some((lower, upper)) = limits {
        finite("joint lower limit", lower)?;
        finite("joint upper limit", upper)?;
        if lower > upper {
            return Err(WorldError::ImpossibleLimits { lower, upper });
        }
    }
    Ok(())
}

/// Limits on an angle (a revolute joint's, a twist): as [`check_limits`],
/// and within half a turn either way. The angle the limit rows read wraps
/// at ±π, so a limit past it would never be met: an arm turned past -π
/// reads as near +π, and spun on through a limit of -3.4 rad
/// (`a_hinge_limited_past_half_a_turn_is_refused`).
fn check_angle_limits(limits: Option<(f32, f32)>) -> Result<(), WorldError> {
    check_limits(limits)?;
    if let Some((lower, upper)) = limits {
        let half_turn = core::f32::consts::PI;
        for value in [lower, upper] {
            if !(-half_turn..=half_turn).contains(&value) {
                return Err(WorldError::OutOfRange {
                    what: "joint angle limit (radians, within -pi to pi)",
                    value,
                });
            }
        }
    }
    Ok(())
}

fn check_drive(drive: Option<Motor>) -> Result<(), WorldError> {
    if let Some(m) = drive {
        finite("joint drive speed", m.speed)?;
        at_least("joint drive effort", m.max_effort, 0.0, false)?;
    }
    Ok(())
}

fn check_spring(spring: Option<Spring>) -> Result<(), WorldError> {
    if let Some(s) = spring {
        at_least("joint spring hertz", s.hertz, 0.0, true)?;
        at_least("joint spring damping ratio", s.damping_ratio, 0.0, false)?;
    }
    Ok(())
}

/// Checks a joint model's parameters as [`World::add_joint`] takes them
/// (typed errors), settling a distance joint's length (`given`, within its
/// range) and its range (the length itself when none was given). A model
/// this leaves unchanged is one `add_joint` makes: a loaded world's joints
/// are checked so (`world/persist.rs`).
pub(crate) fn settle_model(model: &mut JointModel, given: f32) -> Result<(), WorldError> {
    match model {
        JointModel::Distance {
            length,
            min,
            max,
            spring,
        } => {
            // A rod (no range) is its length, which must be more than
            // nothing; with a range the length is a spring's rest length
            // within it, and a rope whose two ends start at one point
            // starts at zero
            // (`a_rope_tied_with_both_ends_at_one_point_is_accepted_and_hangs_at_its_length`).
            let ranged = *min >= 0.0 || *max >= 0.0;
            *length = at_least("joint length", given, 0.0, !ranged)?;
            if !ranged {
                (*min, *max) = (*length, *length);
            }
            at_least("joint min length", *min, 0.0, false)?;
            // A longest length of zero would settle the length at zero,
            // which no joint may have (a loaded world's joints are checked
            // by settling them again:
            // `random_joints_levels_bullets_and_rollbacks_over_many_seeds`).
            at_least("joint max length", *max, 0.0, true)?;
            if *min > *max {
                return Err(WorldError::ImpossibleLimits {
                    lower: *min,
                    upper: *max,
                });
            }
            *length = length.clamp(*min, *max);
            check_spring(*spring)?;
        }
        JointModel::Revolute {
            limits,
            motor,
            spring,
            target,
        } => {
            check_angle_limits(*limits)?;
            check_drive(*motor)?;
            check_spring(*spring)?;
            finite("joint spring target", *target)?;
        }
        JointModel::Prismatic {
            limits,
            motor,
            spring,
            target,
        } => {
            check_limits(*limits)?;
            check_drive(*motor)?;
            check_spring(*spring)?;
            finite("joint spring target", *target)?;
        }
        JointModel::Weld { linear, angular } => {
            check_spring(*linear)?;
            check_spring(*angular)?;
        }
        JointModel::Spherical { cone, twist } => {
            if let Some(cone) = *cone {
                if !(0.0..=core::f32::consts::PI).contains(&cone) {
                    return Err(WorldError::OutOfRange {
                        what: "joint cone",
                        value: cone,
                    });
                }
            }
            check_angle_limits(*twist)?;
        }
        JointModel::Wheel { spring, motor } => {
            check_drive(*motor)?;
            check_spring(*spring)?;
        }
        JointModel::Motor {
            max_force,
            max_torque,
        } => {
            at_least("joint max force", *max_force, 0.0, false)?;
            at_least("joint max torque", *max_torque, 0.0, false)?;
        }
    }
    Ok(())
}

impl<D: Dim> World<D> {
    /// Adds a joint between two bodies, woken; its handle. Errors:
    /// [`WorldError::StaleHandle`] for a removed body,
    /// [`WorldError::JointToItself`], [`WorldError::NotFinite`] for a NaN
    /// or infinite anchor, axis, limit or motor speed,
    /// [`WorldError::ZeroAxis`], [`WorldError::ImpossibleLimits`] (lower >
    /// upper, or a distance range with min > max), and
    /// [`WorldError::OutOfRange`] for a spring's hertz <= 0 or negative
    /// damping, a negative motor torque, a distance joint's length <= 0 or
    /// a negative range, and a break force or torque <= 0.
    pub fn add_joint(&mut self, desc: JointDesc<D>) -> Result<JointHandle, WorldError> {
        let (a, b) = (desc.body_a, desc.body_b);
        if a == b {
            return Err(WorldError::JointToItself);
        }
        let bodies = self.view();
        let (Some(body_a), Some(body_b)) = (bodies.sim(a), bodies.sim(b)) else {
            return Err(WorldError::StaleHandle);
        };
        let p = desc.placement;
        if !(p.anchor_a.is_finite() && p.anchor_b.is_finite()) {
            return Err(WorldError::NotFinite {
                what: "joint anchor",
            });
        }
        if !p.axis.is_finite() {
            return Err(WorldError::NotFinite { what: "joint axis" });
        }
        let axis = D::unit_axis(p.axis).ok_or(WorldError::ZeroAxis)?;
        for (what, value) in [
            ("joint break force", desc.break_force),
            ("joint break torque", desc.break_torque),
        ] {
            // Infinity (the default) never breaks.
            if value.is_nan() || value <= 0.0 {
                return Err(WorldError::OutOfRange { what, value });
            }
        }
        let (pose_a, pose_b) = (body_a.pose, body_b.pose);
        let mut model = desc.model;
        let apart = (p.anchor_b - p.anchor_a).length();
        settle_model(&mut model, desc.length.unwrap_or(apart))?;
        let slide = if matches!(
            model,
            JointModel::Prismatic { .. } | JointModel::Wheel { .. }
        ) {
            if !p.slide.is_finite() {
                return Err(WorldError::NotFinite { what: "joint axis" });
            }
            let length = p.slide.length();
            if length <= 0.0 || !length.is_finite() {
                return Err(WorldError::ZeroAxis);
            }
            p.slide * (1.0 / length)
        } else {
            D::Vector::unit_y()
        };
        // A motor joint holds B's origin where it is in A's frame.
        let (anchor_a, anchor_b) = match model {
            JointModel::Motor { .. } => (pose_b.translation, pose_b.translation),
            _ => (p.anchor_a, p.anchor_b),
        };
        let frame = JointFrame {
            anchor_a: pose_a.inverse_transform_point(anchor_a),
            anchor_b: pose_b.inverse_transform_point(anchor_b),
            axis_a: D::turn_axis(D::invert(pose_a.rotation), axis),
            axis_b: D::turn_axis(D::invert(pose_b.rotation), axis),
            reference: D::compose(D::invert(pose_a.rotation), pose_b.rotation),
            slide_a: D::inverse_rotate(pose_a.rotation, slide),
        };
        let joint = Joint {
            body_a: a,
            body_b: b,
            model,
            frame,
            impulses: JointImpulses::default(),
            collide_connected: desc.collide_connected,
            break_force: desc.break_force,
            break_torque: desc.break_torque,
            reaction_force: D::Vector::ZERO,
            reaction_torque: D::AngularVector::default(),
        };
        let handle = self.joints.insert(joint);
        self.awake_joints_stale = true;
        if !desc.collide_connected {
            *self.unpaired.entry(body_pair(a, b)).or_insert(0) += 1;
            self.refilter_bodies(&[a, b]);
        }
        self.wake_joined([a, b]);
        // Joined dynamic bodies are one island from now on.
        self.link(a, b);
        self.record_input(|| replay::Input::AddJoint {
            joint: desc,
            handle,
        });
        Ok(handle)
    }

    /// Removes a joint, waking its bodies; `None` for a stale handle.
    pub fn remove_joint(&mut self, handle: JointHandle) -> Option<Joint<D>> {
        self.record_input(|| replay::Input::RemoveJoint(handle));
        let joint = self.joints.remove(handle)?;
        self.awake_joints_stale = true;
        self.forget_joint(&joint);
        Some(joint)
    }

    /// The joint, or `None` once removed.
    pub fn joint(&self, handle: JointHandle) -> Option<&Joint<D>> {
        self.joints.get(handle)
    }

    /// The joint to change (its motor speed), or `None` once removed.
    pub fn joint_mut(&mut self, handle: JointHandle) -> Option<&mut Joint<D>> {
        self.note_joint_reached(handle);
        self.joints.get_mut(handle)
    }

    /// Every joint with its handle, in joint order.
    pub fn joints(&self) -> impl Iterator<Item = (JointHandle, &Joint<D>)> {
        self.joints.iter()
    }

    /// The joint's anchors on A and on B, world space, as the bodies stand
    /// (apart only by the joint's error, or a distance joint's length);
    /// `None` for a stale handle.
    pub fn joint_anchors(&self, handle: JointHandle) -> Option<[D::Vector; 2]> {
        let joint = self.joints.get(handle)?;
        let bodies = self.view();
        let (a, b) = (bodies.sim(joint.body_a)?, bodies.sim(joint.body_b)?);
        Some([
            a.pose.transform_point(joint.frame.anchor_a),
            b.pose.transform_point(joint.frame.anchor_b),
        ])
    }

    /// A revolute joint's angle, radians in (-π, π]: B's turn relative to
    /// A's about the hinge axis since the joint was made; `None` for a
    /// stale handle or another kind.
    pub fn joint_angle(&self, handle: JointHandle) -> Option<f32> {
        let joint = self.joints.get(handle)?;
        if !matches!(joint.model, JointModel::Revolute { .. }) {
            return None;
        }
        let bodies = self.view();
        let (a, b) = (bodies.sim(joint.body_a)?, bodies.sim(joint.body_b)?);
        let relative = D::compose(D::invert(a.pose.rotation), b.pose.rotation);
        let turned = D::compose(relative, D::invert(joint.frame.reference));
        Some(D::twist(turned, joint.frame.axis_a))
    }

    /// Joints that broke in the last step, or went with a removed body
    /// since.
    pub fn joint_events(&self) -> &[JointEvent] {
        &self.joint_events
    }

    /// True when `a` and `b` are joined without `collide_connected`: no
    /// contact pair between them.
    pub(crate) fn unpaired(&self, a: BodyHandle, b: BodyHandle) -> bool {
        !self.unpaired.is_empty() && self.unpaired.contains_key(&body_pair(a, b))
    }

    /// What a removed joint leaves: its bodies' contacts decided again and
    /// the bodies woken.
    fn forget_joint(&mut self, joint: &Joint<D>) {
        let (a, b) = (joint.body_a, joint.body_b);
        if !joint.collide_connected {
            let key = body_pair(a, b);
            if let Some(count) = self.unpaired.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    self.unpaired.remove(&key);
                }
            }
            self.refilter_bodies(&[a, b]);
        }
        self.wake_joined([a, b]);
        // Their island may have come apart.
        self.unlink(a, b);
    }

    /// The joints of a body being removed go too, each with a
    /// [`JointEvent::Removed`].
    pub(crate) fn remove_joints_of(&mut self, body: BodyHandle) {
        if self.joints.is_empty() {
            return;
        }
        let gone: Vec<JointHandle> = self
            .joints
            .iter()
            .filter(|(_, j)| j.body_a == body || j.body_b == body)
            .map(|(h, _)| h)
            .collect();
        for handle in gone {
            if let Some(joint) = self.joints.remove(handle) {
                self.awake_joints_stale = true;
                self.joint_events.push(JointEvent::Removed {
                    joint: handle,
                    body_a: joint.body_a,
                    body_b: joint.body_b,
                });
                self.forget_joint(&joint);
            }
        }
    }

    /// The colliders of `bodies` have their pairs decided again next step.
    fn refilter_bodies(&mut self, bodies: &[BodyHandle]) {
        for &h in bodies {
            if let Some(body) = self.bodies.get(h) {
                self.refiltered
                    .extend(body.colliders.iter().map(|c| c.handle));
            }
        }
    }

    /// Wakes both bodies of a joint (and their sleeping islands).
    fn wake_joined(&mut self, bodies: [BodyHandle; 2]) {
        for h in bodies {
            if let Some(mut body) = self.body_parts_mut(h) {
                if body.kind() == BodyKind::Dynamic {
                    body.wake_up();
                    self.touched.push(h);
                }
            }
        }
    }

    /// Step 2: the joints the solver takes, in joint order: both bodies in
    /// the solver (`index`), one of them dynamic; with their handles. Each
    /// input's anchors are from its bodies' centres of mass. The joints
    /// with both bodies in the solver are kept from step to step
    /// (`awake_joints`), so a sleeping island's joints cost nothing.
    pub(crate) fn joint_inputs(
        &mut self,
        index: &SecondaryMap<BodyHandle, usize>,
        inputs: &mut Vec<JointInput<D>>,
        handles: &mut Vec<JointHandle>,
    ) {
        if self.awake_joints_stale {
            self.awake_joints.clear();
            let solved = |h| index.contains_key(h);
            self.awake_joints.extend(
                self.joints
                    .iter()
                    .filter(|(_, j)| solved(j.body_a) && solved(j.body_b))
                    .map(|(h, _)| h),
            );
            self.awake_joints_stale = false;
        }
        inputs.clear();
        handles.clear();
        for &handle in &self.awake_joints {
            let Some(joint) = self.joints.get(handle) else {
                continue;
            };
            let (Some(&a), Some(&b)) = (index.get(joint.body_a), index.get(joint.body_b)) else {
                continue;
            };
            // The solver's bodies' sims are at their solver indices
            // (`world/sims.rs`).
            let sims = self.sims.as_slice();
            let (body_a, body_b) = (&sims[a], &sims[b]);
            if body_a.kind != BodyKind::Dynamic && body_b.kind != BodyKind::Dynamic {
                continue;
            }
            let mut frame = joint.frame;
            frame.anchor_a -= body_a.local_center;
            frame.anchor_b -= body_b.local_center;
            inputs.push(JointInput {
                bodies: [a, b],
                frame,
                model: joint.model,
                impulses: joint.impulses,
            });
            handles.push(handle);
        }
    }

    /// Step 2, after the solve: each solved joint's impulses and reaction
    /// (`reactions`: force and torque on B, N and N·m, in input order);
    /// joints whose reaction passed their break force or torque are
    /// removed with [`JointEvent::Broke`].
    pub(crate) fn store_joints(
        &mut self,
        handles: &[JointHandle],
        solved: impl Iterator<Item = (JointImpulses<D>, D::Vector, D::AngularVector)>,
    ) {
        let mut broken = Vec::new();
        for (&handle, (impulses, force, torque)) in handles.iter().zip(solved) {
            let Some(joint) = self.joints.get_mut(handle) else {
                continue;
            };
            // Squared first: a root only for a joint near its limits (or
            // past a square's range).
            let (f2, t2) = (force.length_squared(), torque.dot(torque));
            let (bf, bt) = (joint.break_force, joint.break_torque);
            if f2 > bf * bf || t2 > bt * bt || !(f2 + t2).is_finite() {
                let (f, t) = (f2.sqrt(), t2.sqrt());
                if f > bf || t > bt {
                    broken.push((handle, f, t));
                }
            }
            // A solve that overflowed (bodies placed absurdly far apart,
            // velocities near f32's limit) leaves the joint cold, as new,
            // rather than warm starting from a NaN or reporting one
            // (`random_joints_levels_bullets_and_rollbacks_never_panic_or_leak_nan_2d`).
            if force.is_finite() && torque.is_finite() && impulses.is_finite() {
                joint.impulses = impulses;
                joint.reaction_force = force;
                joint.reaction_torque = torque;
            } else {
                joint.impulses = JointImpulses::default();
                joint.reaction_force = D::Vector::ZERO;
                joint.reaction_torque = D::AngularVector::default();
            }
        }
        for (handle, force, torque) in broken {
            if let Some(joint) = self.joints.remove(handle) {
                self.awake_joints_stale = true;
                self.joint_events.push(JointEvent::Broke {
                    joint: handle,
                    body_a: joint.body_a,
                    body_b: joint.body_b,
                    force,
                    torque,
                });
                self.forget_joint(&joint);
            }
        }
    }

    /// Every joint's bodies, in joint order: the islands' joint links
    /// (`sleep.rs`).
    pub(crate) fn joined_bodies(&self) -> impl Iterator<Item = (BodyHandle, BodyHandle)> + '_ {
        self.joints.values().map(|j| (j.body_a, j.body_b))
    }
}
