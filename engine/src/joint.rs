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
use crate::pipeline::joints::{JointFrame, JointImpulses};
pub use crate::pipeline::joints::{JointModel, Motor, Spring};

new_key_type! {
    /// A joint's handle: stale (and refused) once the joint is removed.
    pub struct JointHandle;
}

/// Where a joint sits as it is made, world space: each builder's anchors
/// and axis.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Placement<D: Dim> {
    pub anchor_a: D::Vector,
    pub anchor_b: D::Vector,
    pub axis: D::AngularVector,
}

/// What a joint is to be: its bodies, its kind and its place, for
/// [`crate::World::add_joint`].
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
    /// free to turn every way (in 2D, a hinge without options).
    pub fn spherical(a: BodyHandle, b: BodyHandle, anchor: D::Vector) -> Self {
        Self::new(a, b, JointModel::Spherical, Self::at(anchor))
    }

    fn at(anchor: D::Vector) -> Placement<D> {
        Placement {
            anchor_a: anchor,
            anchor_b: anchor,
            axis: D::z_axis(),
        }
    }

    /// A revolute joint's axis, world (3D; in 2D only its sign counts: it
    /// flips which way the angle turns). Must not be zero.
    pub fn axis(mut self, axis: D::AngularVector) -> Self {
        self.placement.axis = axis;
        self
    }

    /// A revolute joint's lowest and highest angle, radians (lower <= upper).
    pub fn limits(mut self, lower: f32, upper: f32) -> Self {
        if let JointModel::Revolute { limits, .. } = &mut self.model {
            *limits = Some((lower, upper));
        }
        self
    }

    /// A revolute joint's motor: it drives B's spin relative to A's about
    /// the axis towards `speed` (rad/s) with at most `max_torque` (N·m).
    pub fn motor(mut self, speed: f32, max_torque: f32) -> Self {
        if let JointModel::Revolute { motor, .. } = &mut self.model {
            *motor = Some(Motor { speed, max_torque });
        }
        self
    }

    /// A spring: a revolute joint's towards its target angle
    /// ([`JointDesc::target_angle`], default 0), a distance joint's towards
    /// its length (within its range). `hertz` > 0, `damping_ratio` >= 0.
    pub fn spring(mut self, hertz: f32, damping_ratio: f32) -> Self {
        let spring = Some(Spring {
            hertz,
            damping_ratio,
        });
        match &mut self.model {
            JointModel::Revolute { spring: s, .. } | JointModel::Distance { spring: s, .. } => {
                *s = spring
            }
            _ => {}
        }
        self
    }

    /// The angle a revolute joint's spring pulls towards, radians.
    pub fn target_angle(mut self, angle: f32) -> Self {
        if let JointModel::Revolute { target, .. } = &mut self.model {
            *target = angle;
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
    /// max): free between them, or springy with [`JointDesc::spring`]. A
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

    /// A revolute joint's motor speed, rad/s (wakes nothing: a sleeping
    /// joint's bodies wake when touched or moved).
    pub fn set_motor_speed(&mut self, speed: f32) {
        if let JointModel::Revolute { motor: Some(m), .. } = &mut self.model {
            if speed.is_finite() {
                m.speed = speed;
            }
        }
    }
}

/// What happened to a joint in a step.
#[derive(Copy, Clone, Debug, PartialEq)]
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
