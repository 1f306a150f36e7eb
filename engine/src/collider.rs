//! Colliders: the shapes a body is made of, where they sit on it, their
//! material and which other colliders they meet.

use slotmap::new_key_type;

use crate::body::user_rotation;
use crate::dim::Dim;
use crate::error::WorldError;
use crate::math::{Pose, Vector};
use crate::shape::Shape;

new_key_type! {
    /// A collider in a [`crate::World`]; stale once its body is removed.
    pub struct ColliderHandle;
}

/// A collider's description: its shape and material.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Clone, Debug, PartialEq)]
pub struct ColliderDesc<D: Dim> {
    shape: Shape<D>,
    /// Where the shape sits in the body's frame, as the user gave it.
    local_translation: D::Vector,
    local_rotation: D::Orientation,
    density: f32,
    friction: f32,
    restitution: f32,
    filter: CollisionFilter,
    sensor: bool,
    user_data: u64,
}

/// Which colliders meet, as in Box2D: two colliders collide when each one's
/// `category` shares a bit with the other's `mask`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct CollisionFilter {
    /// The groups this collider belongs to (bits).
    pub category: u32,
    /// The groups this collider collides with (bits).
    pub mask: u32,
}

impl Default for CollisionFilter {
    /// Category 1, colliding with everything.
    fn default() -> Self {
        Self {
            category: 1,
            mask: u32::MAX,
        }
    }
}

impl CollisionFilter {
    /// True when colliders with these filters collide.
    pub fn admits(&self, other: &Self) -> bool {
        self.category & other.mask != 0 && other.category & self.mask != 0
    }
}

impl<D: Dim> ColliderDesc<D> {
    /// A collider of `shape` with density 1, friction 0.6, restitution 0.
    pub fn new(shape: Shape<D>) -> Self {
        Self {
            shape,
            local_translation: D::Vector::ZERO,
            local_rotation: D::orientation_of(D::identity()),
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
            filter: CollisionFilter::default(),
            sensor: false,
            user_data: 0,
        }
    }

    /// Where the shape sits in the body's frame: `translation` (metres) and
    /// `rotation` (radians in 2D, a quaternion in 3D, standing for the unit
    /// one along it). Default: the body's origin. A NaN or infinite
    /// component, or a zero quaternion, is refused when the collider is
    /// added: the body's centre of mass would be NaN.
    pub fn local_pose(mut self, translation: D::Vector, rotation: D::Orientation) -> Self {
        self.local_translation = translation;
        self.local_rotation = rotation;
        self
    }

    /// Which colliders this one collides with (default: everything).
    pub fn filter(mut self, filter: CollisionFilter) -> Self {
        self.filter = filter;
        self
    }

    /// A sensor reports what overlaps it ([`crate::SensorEvent`]) and pushes nothing.
    pub fn sensor(mut self, sensor: bool) -> Self {
        self.sensor = sensor;
        self
    }

    /// A number of the user's, kept with the collider. Default 0.
    pub fn user_data(mut self, data: u64) -> Self {
        self.user_data = data;
        self
    }

    /// Density, kg/m² in 2D and kg/m³ in 3D (> 0).
    pub fn density(mut self, density: f32) -> Self {
        self.density = density;
        self
    }

    /// Coulomb friction coefficient (>= 0); a pair uses `sqrt(a * b)`.
    pub fn friction(mut self, friction: f32) -> Self {
        self.friction = friction;
        self
    }

    /// Restitution, 0 (no bounce) to 1 (elastic); a pair uses the larger.
    pub fn restitution(mut self, restitution: f32) -> Self {
        self.restitution = restitution;
        self
    }

    /// Checks every value: a finite local pose whose rotation names one,
    /// and the material's ranges.
    pub(crate) fn validate(&self) -> Result<(), WorldError> {
        let what = "collider local pose";
        if !self.local_translation.is_finite() {
            return Err(WorldError::NotFinite { what });
        }
        user_rotation::<D>(self.local_rotation, what)?;
        check_density(self.density)?;
        check_friction(self.friction)?;
        check_restitution(self.restitution)
    }
}

/// `Ok` when `ok`, else `value` is out of range for `what`.
fn in_range(what: &'static str, value: f32, ok: bool) -> Result<(), WorldError> {
    if ok {
        Ok(())
    } else {
        Err(WorldError::OutOfRange { what, value })
    }
}

/// A density as the world takes it: finite and positive.
pub(crate) fn check_density(density: f32) -> Result<(), WorldError> {
    in_range("density", density, density.is_finite() && density > 0.0)
}

/// A friction coefficient as the world takes it: finite and not negative.
pub(crate) fn check_friction(friction: f32) -> Result<(), WorldError> {
    in_range(
        "friction",
        friction,
        friction.is_finite() && friction >= 0.0,
    )
}

/// A restitution as the world takes it: 0 to 1.
pub(crate) fn check_restitution(restitution: f32) -> Result<(), WorldError> {
    in_range(
        "restitution",
        restitution,
        (0.0..=1.0).contains(&restitution),
    )
}

/// A shape attached to a body, with its material.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct Collider<D: Dim> {
    pub(crate) handle: ColliderHandle,
    pub(crate) shape: Shape<D>,
    pub(crate) local_pose: Pose<D>,
    pub(crate) density: f32,
    pub(crate) friction: f32,
    pub(crate) restitution: f32,
    pub(crate) filter: CollisionFilter,
    pub(crate) sensor: bool,
    pub(crate) user_data: u64,
}

impl<D: Dim> Collider<D> {
    pub(crate) fn new(handle: ColliderHandle, desc: ColliderDesc<D>) -> Self {
        Self {
            handle,
            shape: desc.shape,
            local_pose: Pose::new(desc.local_translation, desc.local_rotation),
            density: desc.density,
            friction: desc.friction,
            restitution: desc.restitution,
            filter: desc.filter,
            sensor: desc.sensor,
            user_data: desc.user_data,
        }
    }

    /// This collider's handle.
    pub fn handle(&self) -> ColliderHandle {
        self.handle
    }

    /// The shape.
    pub fn shape(&self) -> &Shape<D> {
        &self.shape
    }

    /// Where the shape sits in its body's frame.
    pub fn local_pose(&self) -> Pose<D> {
        self.local_pose
    }

    /// The shape's pose in the world for a body at `body_pose`.
    pub fn world_pose(&self, body_pose: &Pose<D>) -> Pose<D> {
        body_pose.mul(&self.local_pose)
    }

    /// Density, kg/m² in 2D and kg/m³ in 3D.
    pub fn density(&self) -> f32 {
        self.density
    }

    /// Friction coefficient.
    pub fn friction(&self) -> f32 {
        self.friction
    }

    /// Restitution.
    pub fn restitution(&self) -> f32 {
        self.restitution
    }

    /// The collision filter.
    pub fn filter(&self) -> CollisionFilter {
        self.filter
    }

    /// True for a sensor.
    pub fn is_sensor(&self) -> bool {
        self.sensor
    }

    /// The user's number given with [`ColliderDesc::user_data`].
    pub fn user_data(&self) -> u64 {
        self.user_data
    }
}
