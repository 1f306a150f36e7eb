//! Joints: two bodies held together by a hinge, a rod, a rope, a spring, a
//! weld or a ball joint, solved in the same soft-step solver as the
//! contacts (`pipeline/joints.rs`).
//!
//! A [`JointDesc`] names the two bodies and the joint's place in the
//! world (an anchor, an axis) as the bodies stand when it is added;
//! [`crate::World::add_joint`] checks it and keeps the anchors and axes in
//! each body's frame. Common options: `collide_connected` (default false:
//! the two bodies' contacts are skipped, as a hinge's parts overlap), and
//! a force and a torque past which the joint breaks
//! ([`JointEvent::Broke`]).

use slotmap::new_key_type;

use crate::body::BodyHandle;
use crate::dim::Dim;
use crate::math::Vector;
use crate::pipeline::joints::{JointFrame, JointImpulses};
pub use crate::pipeline::joints::{JointModel, Motor, Spring};

/// A motor joint's largest force (N) and torque (N·m) unless set: enough
/// to carry a few tonnes against gravity, and far from infinite, so a
/// grabbed body pressed into a wall stops rather than tunnels.
const DEFAULT_MOTOR_EFFORT: f32 = 1000.0;

new_key_type! {
    /// A joint's handle: stale (and refused) once the joint is removed.
    pub struct JointHandle;
}

/// Where a joint sits as it is made, world space: each builder's anchors
/// and axis.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Placement<D: Dim> {
    pub anchor_a: D::Vector,
    pub anchor_b: D::Vector,
    /// A hinge's or wheel's axle.
    pub axis: D::AngularVector,
    /// A slider's or wheel's suspension axis.
    pub slide: D::Vector,
}

/// What a joint is to be: its bodies, its kind and its place, for
/// [`crate::World::add_joint`].
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JointDesc<D: Dim> {
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: BodyHandle,
    pub(crate) model: JointModel,
    pub(crate) placement: Placement<D>,
    /// A distance joint's length, when given (else the anchors' distance).
    pub(crate) length: Option<f32>,
    pub(crate) collide_connected: bool,
    pub(crate) break_force: f32,
    pub(crate) break_torque: f32,
}

impl<D: Dim> JointDesc<D> {
    fn new(a: BodyHandle, b: BodyHandle, model: JointModel, placement: Placement<D>) -> Self {
        Self {
            body_a: a,
            body_b: b,
            model,
            placement,
            length: None,
            collide_connected: false,
            break_force: f32::INFINITY,
            break_torque: f32::INFINITY,
        }
    }

    /// A distance joint: `anchor_a` on A and `anchor_b` on B (world points)
    /// kept as far apart as they are now, a rigid rod. [`JointDesc::length`],
    /// [`JointDesc::range`] (a rope: `range(0.0, max)`) and
    /// [`JointDesc::spring`] change that.
    pub fn distance(
        a: BodyHandle,
        b: BodyHandle,
        anchor_a: D::Vector,
        anchor_b: D::Vector,
    ) -> Self {
        let model = JointModel::Distance {
            length: -1.0,
            min: -1.0,
            max: -1.0,
            spring: None,
        };
        let placement = Placement {
            anchor_a,
            anchor_b,
            axis: D::z_axis(),
            slide: D::Vector::unit_y(),
        };
        Self::new(a, b, model, placement)
    }

    /// A revolute joint (a hinge): the bodies pinned together at `anchor`
    /// (world), turning about Z (2D) or about [`JointDesc::axis`] (3D;
    /// default Z). Angle zero is the bodies' pose as the joint is added.
    pub fn revolute(a: BodyHandle, b: BodyHandle, anchor: D::Vector) -> Self {
        let model = JointModel::Revolute {
            limits: None,
            motor: None,
            spring: None,
            target: 0.0,
        };
        Self::new(a, b, model, Self::at(anchor))
    }

    /// A weld: the bodies held at `anchor` (world) and in their present
    /// relative rotation, rigidly or, with [`JointDesc::soft`], springily.
    pub fn weld(a: BodyHandle, b: BodyHandle, anchor: D::Vector) -> Self {
        let model = JointModel::Weld {
            linear: None,
            angular: None,
        };
        Self::new(a, b, model, Self::at(anchor))
    }

    /// A spherical (ball) joint: the bodies pinned at `anchor` (world),
    /// free to turn every way (in 2D, a hinge), within optional limits:
    /// [`JointDesc::cone`] and [`JointDesc::twist_limits`] about its axis
    /// ([`JointDesc::axis`], world, default Z).
    pub fn spherical(a: BodyHandle, b: BodyHandle, anchor: D::Vector) -> Self {
        let model = JointModel::Spherical {
            cone: None,
            twist: None,
        };
        Self::new(a, b, model, Self::at(anchor))
    }

    /// A spherical joint's swing cone: the largest angle, radians in
    /// [0, π], B's axis may lean from A's (3D).
    pub fn cone(mut self, angle: f32) -> Self {
        if let JointModel::Spherical { cone, .. } = &mut self.model {
            *cone = Some(angle);
        }
        self
    }

    /// A spherical joint's lowest and highest twist about its axis, radians
    /// (in 2D, its angle), within -π to π.
    pub fn twist_limits(mut self, lower: f32, upper: f32) -> Self {
        if let JointModel::Spherical { twist, .. } = &mut self.model {
            *twist = Some((lower, upper));
        }
        self
    }

    /// A prismatic joint (a slider): B slides along `axis` (world) through
    /// `anchor` (world) without turning relative to A. Translation zero is
    /// the bodies' place as the joint is added; [`JointDesc::limits`]
    /// (metres), [`JointDesc::drive`] (m/s, N) and [`JointDesc::spring`]
    /// act along the axis. `axis` must not be zero.
    pub fn prismatic(a: BodyHandle, b: BodyHandle, anchor: D::Vector, axis: D::Vector) -> Self {
        let model = JointModel::Prismatic {
            limits: None,
            motor: None,
            spring: None,
            target: 0.0,
        };
        let mut placement = Self::at(anchor);
        placement.slide = axis;
        Self::new(a, b, model, placement)
    }

    /// A wheel joint: B (the wheel) hangs from A at `anchor` (world) on a
    /// suspension along `axis` (world; rigid unless [`JointDesc::spring`]),
    /// spinning freely about its axle (Z in 2D; [`JointDesc::axis`] in 3D),
    /// driven by [`JointDesc::drive`] (rad/s, N·m).
    pub fn wheel(a: BodyHandle, b: BodyHandle, anchor: D::Vector, axis: D::Vector) -> Self {
        let model = JointModel::Wheel {
            spring: None,
            motor: None,
        };
        let mut placement = Self::at(anchor);
        placement.slide = axis;
        Self::new(a, b, model, placement)
    }

    /// A motor joint: drives B (its origin and rotation) back towards the
    /// pose relative to A it has as the joint is added, with at most [`JointDesc::max_force`] and
    /// [`JointDesc::max_torque`] (default 1000 N and 1000 N·m). Moving A
    /// (a kinematic body, say) leads B: a hand grabbing a body.
    pub fn motor(a: BodyHandle, b: BodyHandle) -> Self {
        let model = JointModel::Motor {
            max_force: DEFAULT_MOTOR_EFFORT,
            max_torque: DEFAULT_MOTOR_EFFORT,
        };
        Self::new(a, b, model, Self::at(D::Vector::ZERO))
    }

    fn at(anchor: D::Vector) -> Placement<D> {
        Placement {
            anchor_a: anchor,
            anchor_b: anchor,
            axis: D::z_axis(),
            slide: D::Vector::unit_y(),
        }
    }

    /// A motor joint's largest force, N (>= 0).
    pub fn max_force(mut self, force: f32) -> Self {
        if let JointModel::Motor { max_force, .. } = &mut self.model {
            *max_force = force;
        }
        self
    }

    /// A motor joint's largest torque, N·m (>= 0).
    pub fn max_torque(mut self, torque: f32) -> Self {
        if let JointModel::Motor { max_torque, .. } = &mut self.model {
            *max_torque = torque;
        }
        self
    }

    /// A revolute joint's or wheel's axle, world (3D; in 2D only its sign
    /// counts: it flips which way the angle turns). Must not be zero.
    pub fn axis(mut self, axis: D::AngularVector) -> Self {
        self.placement.axis = axis;
        self
    }

    /// The lowest and highest position (lower <= upper): a revolute
    /// joint's angle (radians, within -π to π: `add_joint` refuses a limit
    /// past half a turn), a prismatic joint's translation (metres).
    pub fn limits(mut self, lower: f32, upper: f32) -> Self {
        match &mut self.model {
            JointModel::Revolute { limits, .. } | JointModel::Prismatic { limits, .. } => {
                *limits = Some((lower, upper))
            }
            _ => {}
        }
        self
    }

    /// A drive: B's speed relative to A along or about the joint's free
    /// axis driven towards `speed` with at most `max_effort`: a revolute
    /// joint's or wheel's spin (rad/s, N·m), a prismatic joint's slide (m/s, N).
    pub fn drive(mut self, speed: f32, max_effort: f32) -> Self {
        let drive = Some(Motor { speed, max_effort });
        match &mut self.model {
            JointModel::Revolute { motor, .. }
            | JointModel::Prismatic { motor, .. }
            | JointModel::Wheel { motor, .. } => *motor = drive,
            _ => {}
        }
        self
    }

    /// A spring (`hertz` > 0, `damping_ratio` >= 0): a revolute joint's
    /// towards its target angle and a prismatic joint's towards its target
    /// translation ([`JointDesc::spring_target`], default 0), a distance
    /// joint's towards its length (within its range), a wheel's suspension.
    pub fn spring(mut self, hertz: f32, damping_ratio: f32) -> Self {
        let spring = Some(Spring {
            hertz,
            damping_ratio,
        });
        match &mut self.model {
            JointModel::Revolute { spring: s, .. }
            | JointModel::Distance { spring: s, .. }
            | JointModel::Prismatic { spring: s, .. }
            | JointModel::Wheel { spring: s, .. } => *s = spring,
            _ => {}
        }
        self
    }

    /// Where a revolute or prismatic joint's spring pulls towards: an
    /// angle (radians) or a translation (metres).
    pub fn spring_target(mut self, value: f32) -> Self {
        match &mut self.model {
            JointModel::Revolute { target, .. } | JointModel::Prismatic { target, .. } => {
                *target = value
            }
            _ => {}
        }
        self
    }

    /// A distance joint's rest length, metres (> 0; default the anchors'
    /// distance as the joint is added).
    pub fn length(mut self, length: f32) -> Self {
        self.length = Some(length);
        self
    }

    /// A distance joint's shortest and longest length, metres (0 <= min <=
    /// max, max > 0): free between them, or springy with [`JointDesc::spring`]. A
    /// rope is `range(0.0, max)`.
    pub fn range(mut self, min_length: f32, max_length: f32) -> Self {
        if let JointModel::Distance { min, max, .. } = &mut self.model {
            (*min, *max) = (min_length, max_length);
        }
        self
    }

    /// A soft weld: its point and its rotation each a spring (hertz > 0;
    /// 0 keeps that part rigid) with `damping_ratio` (>= 0).
    pub fn soft(mut self, linear_hertz: f32, angular_hertz: f32, damping_ratio: f32) -> Self {
        let spring = |hertz: f32| {
            (hertz != 0.0).then_some(Spring {
                hertz,
                damping_ratio,
            })
        };
        if let JointModel::Weld { linear, angular } = &mut self.model {
            (*linear, *angular) = (spring(linear_hertz), spring(angular_hertz));
        }
        self
    }

    /// Whether the two bodies still collide with each other (default false).
    pub fn collide_connected(mut self, collide: bool) -> Self {
        self.collide_connected = collide;
        self
    }

    /// The reaction force, N, past which the joint breaks (default never).
    pub fn break_force(mut self, force: f32) -> Self {
        self.break_force = force;
        self
    }

    /// The reaction torque, N·m, past which the joint breaks (default never).
    pub fn break_torque(mut self, torque: f32) -> Self {
        self.break_torque = torque;
        self
    }
}

/// A joint in the world.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct Joint<D: Dim> {
    pub(crate) body_a: BodyHandle,
    pub(crate) body_b: BodyHandle,
    pub(crate) model: JointModel,
    pub(crate) frame: JointFrame<D>,
    pub(crate) impulses: JointImpulses<D>,
    pub(crate) collide_connected: bool,
    pub(crate) break_force: f32,
    pub(crate) break_torque: f32,
    /// The last step's reaction on B, N and N·m.
    pub(crate) reaction_force: D::Vector,
    pub(crate) reaction_torque: D::AngularVector,
}

impl<D: Dim> Joint<D> {
    /// The two bodies, A then B.
    pub fn bodies(&self) -> [BodyHandle; 2] {
        [self.body_a, self.body_b]
    }

    /// The joint's kind and parameters.
    pub fn model(&self) -> &JointModel {
        &self.model
    }

    /// Whether the two bodies collide with each other.
    pub fn collides_connected(&self) -> bool {
        self.collide_connected
    }

    /// The force the joint put on B in its last step (A took the
    /// opposite), N: the constraint impulse over the last substep.
    pub fn reaction_force(&self) -> D::Vector {
        self.reaction_force
    }

    /// The torque the joint put on B in its last step about B's anchor, N·m.
    pub fn reaction_torque(&self) -> D::AngularVector {
        self.reaction_torque
    }

    /// A drive's target speed: a revolute joint's or wheel's spin (rad/s),
    /// a prismatic joint's slide (m/s); nothing for a joint without a
    /// drive, or a NaN or infinite speed. Wakes nothing: to drive a
    /// sleeping body, wake it (`Body::wake_up` through `World::body_mut`).
    pub fn set_drive_speed(&mut self, speed: f32) {
        if let JointModel::Revolute { motor: Some(m), .. }
        | JointModel::Prismatic { motor: Some(m), .. }
        | JointModel::Wheel { motor: Some(m), .. } = &mut self.model
        {
            if speed.is_finite() {
                m.speed = speed;
            }
        }
    }
}

/// What happened to a joint in a step.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum JointEvent {
    /// The joint's reaction passed its break force or torque: it is gone.
    Broke {
        /// The joint (now stale).
        joint: JointHandle,
        /// Its first body.
        body_a: BodyHandle,
        /// Its second body.
        body_b: BodyHandle,
        /// The reaction force that broke it (or not), N (magnitude).
        force: f32,
        /// The reaction torque, N·m (magnitude).
        torque: f32,
    },
    /// One of the joint's bodies was removed, and the joint with it.
    Removed {
        /// The joint (now stale).
        joint: JointHandle,
        /// Its first body.
        body_a: BodyHandle,
        /// Its second body.
        body_b: BodyHandle,
    },
}
