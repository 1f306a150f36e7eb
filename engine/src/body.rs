//! Rigid bodies and their colliders: what users describe, and what the world
//! keeps.
//!
//! The world keeps a body in two parts (Box2D v3's `b2Body` and
//! `b2BodySim`): its `BodySim`, what every step reads and writes (pose,
//! velocities, forces, the mass and damping the solver takes), in one dense
//! array with the solver's bodies first (`world/sims.rs`), and its
//! `BodyRecord`, the rest (colliders, sleep, target, settings), in a slot
//! map by [`BodyHandle`]. A game sees a body through views over both:
//! [`Body`] to read ([`crate::World::body`], [`crate::World::bodies`]) and
//! [`BodyMut`] to change ([`crate::World::body_mut`]), with the same
//! reading methods; a handle finds the body wherever its sim has moved.

use slotmap::new_key_type;

use crate::collider::{Collider, ColliderDesc, ColliderHandle, CollisionFilter};
use crate::dim::Dim;
use crate::error::WorldError;
use crate::math::{Angular, Axes, Pose, Vector};
use crate::shape::{MassProperties, Shape};

new_key_type! {
    /// A body in a [`crate::World`]. After [`crate::World::remove_body`] the
    /// handle is stale: lookups give `None` and never another body, even if
    /// its slot is reused.
    pub struct BodyHandle;
}

/// The stored rotation for a rotation the user gave as `what`. Errors on a
/// NaN or infinite component ([`WorldError::NotFinite`]) and on a zero
/// quaternion ([`WorldError::ZeroRotation`]), which names no rotation; any
/// other quaternion, however long or short, stands for the unit one along it.
pub(crate) fn user_rotation<D: Dim>(
    rotation: D::Orientation,
    what: &'static str,
) -> Result<D::Rotation, WorldError> {
    if !D::orientation_is_finite(rotation) {
        return Err(WorldError::NotFinite { what });
    }
    let stored = D::rotation_from_orientation(rotation);
    if D::rotation_is_finite(stored) {
        Ok(stored)
    } else {
        Err(WorldError::ZeroRotation { what })
    }
}

/// How a body moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum BodyKind {
    /// Moved by forces and contacts.
    Dynamic,
    /// Never moves (infinite mass): the ground.
    Fixed,
    /// Moves at the velocity the user sets, pushes dynamic bodies, is never pushed.
    Kinematic,
}

/// Which of a dynamic body's motions are locked, about and along the
/// world's axes (as rapier's `LockedAxes` and Jolt's allowed degrees of
/// freedom): a locked axis has zero inverse mass (translation) or zero
/// inverse inertia (rotation) along it, so no contact, force, gravity or
/// impulse moves or turns the body that way, and its velocity along it
/// stays exactly zero (`tests/controls.rs`:
/// `a_capsule_player_with_locked_rotation_walks_upright_2d`,
/// `a_body_locked_in_x_is_never_moved_in_x_by_a_hit_2d`). Translation
/// locks hold the centre of mass. A 2D body moves along X and Y and turns
/// about Z only; other axes are ignored. Fixed and kinematic bodies keep
/// their locks and obey them once they are dynamic; a kinematic body moves
/// as it is told.
///
/// A 3D rotation lock zeroes the locked world axes' rows and columns of
/// the world-space inverse inertia, as rapier does: the body keeps its
/// inverse inertia about the free axes as it was. That is exactly the
/// inverse inertia of a body held to its free axes when they are principal
/// axes of its inertia (an upright capsule or box turning about Y); for a
/// body whose principal axes lean away from them it is an approximation,
/// the locked axes exact all the same
/// (`a_body_locked_about_x_and_z_spins_only_about_y_3d`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Locks {
    /// World axes along which the body's centre of mass does not move.
    pub translation: Axes,
    /// World axes about which the body does not turn (Z in 2D).
    pub rotation: Axes,
}

impl Locks {
    /// Nothing locked.
    pub const NONE: Self = Self {
        translation: Axes::NONE,
        rotation: Axes::NONE,
    };

    /// Translation along `axes` locked, nothing else.
    pub const fn translation(axes: Axes) -> Self {
        Self {
            translation: axes,
            rotation: Axes::NONE,
        }
    }

    /// Rotation about `axes` locked, nothing else.
    pub const fn rotation(axes: Axes) -> Self {
        Self {
            translation: Axes::NONE,
            rotation: axes,
        }
    }

    /// True when nothing is locked.
    pub const fn is_empty(self) -> bool {
        self.translation.is_empty() && self.rotation.is_empty()
    }

    /// The locks a body of dimension `D` can have: the others dropped.
    fn within<D: Dim>(self) -> Self {
        Self {
            translation: self.translation.and(D::TRANSLATION_AXES),
            rotation: self.rotation.and(D::ROTATION_AXES),
        }
    }
}

/// Where a dynamic body's mass properties come from.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub(crate) enum MassOverride<D: Dim> {
    /// Its colliders' shapes and densities.
    Shapes,
    /// The shapes' centre and distribution of mass, scaled to this many kg.
    Mass(f32),
    /// These, whatever the colliders.
    Full {
        mass: f32,
        local_center: D::Vector,
        inertia: D::Inertia,
    },
}

impl<D: Dim> MassOverride<D> {
    /// Checks the values given: a finite, positive mass; a finite centre;
    /// an inertia [`Dim::user_inertia`] takes (kept as it returns it).
    pub(crate) fn validate(self) -> Result<Self, WorldError> {
        let mass_in_range = |mass: f32| {
            if mass.is_finite() && mass > 0.0 {
                Ok(())
            } else {
                Err(WorldError::OutOfRange {
                    what: "body mass",
                    value: mass,
                })
            }
        };
        match self {
            MassOverride::Shapes => Ok(self),
            MassOverride::Mass(mass) => mass_in_range(mass).map(|()| self),
            MassOverride::Full {
                mass,
                local_center,
                inertia,
            } => {
                mass_in_range(mass)?;
                if !local_center.is_finite() {
                    return Err(WorldError::NotFinite {
                        what: "body centre of mass",
                    });
                }
                let inertia = D::user_inertia(inertia).map_err(|value| WorldError::OutOfRange {
                    what: "rotational inertia",
                    value,
                })?;
                Ok(MassOverride::Full {
                    mass,
                    local_center,
                    inertia,
                })
            }
        }
    }

    /// True when `other` is the same override with the same bits.
    pub(crate) fn same_bits(&self, other: &Self) -> bool {
        match (self, other) {
            (MassOverride::Shapes, MassOverride::Shapes) => true,
            (MassOverride::Mass(a), MassOverride::Mass(b)) => a.to_bits() == b.to_bits(),
            (
                MassOverride::Full {
                    mass,
                    local_center,
                    inertia,
                },
                MassOverride::Full {
                    mass: other_mass,
                    local_center: other_center,
                    inertia: other_inertia,
                },
            ) => {
                mass.to_bits() == other_mass.to_bits()
                    && crate::math::same_bits(*local_center, *other_center)
                    && D::same_inertia_bits(*inertia, *other_inertia)
            }
            _ => false,
        }
    }

    /// The body's mass properties given its shapes' `shapes`.
    fn apply(self, shapes: MassProperties<D>) -> MassProperties<D> {
        match self {
            MassOverride::Shapes => shapes,
            MassOverride::Mass(mass) => MassProperties {
                mass,
                local_center: shapes.local_center,
                inertia: D::scale_inertia(shapes.inertia, mass / shapes.mass),
            },
            MassOverride::Full {
                mass,
                local_center,
                inertia,
            } => MassProperties {
                mass,
                local_center,
                inertia,
            },
        }
    }
}

/// A damping as the world takes it: finite and not negative, 1/s.
pub(crate) fn check_damping(what: &'static str, damping: f32) -> Result<(), WorldError> {
    if damping.is_finite() && damping >= 0.0 {
        Ok(())
    } else {
        Err(WorldError::OutOfRange {
            what,
            value: damping,
        })
    }
}

/// A gravity scale as the world takes it: finite (a negative one lifts).
pub(crate) fn check_gravity_scale(scale: f32) -> Result<(), WorldError> {
    check_damping("gravity scale", scale.abs())
}

/// A body's description, built with chained setters and given to
/// [`crate::World::add_body`], which checks every value.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BodyDesc<D: Dim> {
    kind: BodyKind,
    position: D::Vector,
    rotation: D::Orientation,
    linear_velocity: D::Vector,
    angular_velocity: D::AngularVector,
    linear_damping: f32,
    angular_damping: f32,
    gravity_scale: f32,
    user_data: u64,
    can_sleep: bool,
    locks: Locks,
    mass: MassOverride<D>,
    bullet: bool,
    fast_share: f32,
}

impl<D: Dim> BodyDesc<D> {
    fn of_kind(kind: BodyKind) -> Self {
        Self {
            kind,
            position: D::Vector::ZERO,
            rotation: D::orientation_of(D::identity()),
            linear_velocity: D::Vector::ZERO,
            angular_velocity: D::AngularVector::default(),
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            user_data: 0,
            can_sleep: true,
            locks: Locks::NONE,
            mass: MassOverride::Shapes,
            bullet: false,
            fast_share: crate::world::FAST_SHARE,
        }
    }

    /// A body moved by forces and contacts.
    pub fn dynamic() -> Self {
        Self::of_kind(BodyKind::Dynamic)
    }

    /// A body that never moves.
    pub fn fixed() -> Self {
        Self::of_kind(BodyKind::Fixed)
    }

    /// A body moved only by the velocity the user gives it.
    pub fn kinematic() -> Self {
        Self::of_kind(BodyKind::Kinematic)
    }

    /// Position of the body's origin (the shape's local origin), metres.
    pub fn position(mut self, position: D::Vector) -> Self {
        self.position = position;
        self
    }

    /// Orientation: an angle in radians (2D) or a quaternion (3D), which
    /// stands for the unit quaternion along it; a zero one is refused.
    pub fn rotation(mut self, rotation: D::Orientation) -> Self {
        self.rotation = rotation;
        self
    }

    /// Velocity of the centre of mass, m/s.
    pub fn linear_velocity(mut self, v: D::Vector) -> Self {
        self.linear_velocity = v;
        self
    }

    /// Angular velocity, rad/s (about Z in 2D).
    pub fn angular_velocity(mut self, w: D::AngularVector) -> Self {
        self.angular_velocity = w;
        self
    }

    /// Linear damping, 1/s (>= 0): velocity decays as `v / (1 + dt·damping)`.
    pub fn linear_damping(mut self, damping: f32) -> Self {
        self.linear_damping = damping;
        self
    }

    /// Angular damping, 1/s (>= 0).
    pub fn angular_damping(mut self, damping: f32) -> Self {
        self.angular_damping = damping;
        self
    }

    /// Multiplier on the world's gravity for this body (1 by default).
    pub fn gravity_scale(mut self, scale: f32) -> Self {
        self.gravity_scale = scale;
        self
    }

    /// Whether the body may fall asleep when it and everything it touches
    /// rest (default true; the world's [`crate::Settings::sleep`] also decides).
    pub fn can_sleep(mut self, can_sleep: bool) -> Self {
        self.can_sleep = can_sleep;
        self
    }

    /// A bullet: when fast, swept against dynamic bodies too (and other
    /// bullets), not only against fixed and kinematic ones (default false).
    /// See the README's "Continuous collision".
    pub fn bullet(mut self, bullet: bool) -> Self {
        self.bullet = bullet;
        self
    }

    /// How far the body may move in a step, as a share of its thinnest
    /// collider's thickness, before it is swept for continuous collision
    /// (default 0.5; > 0, infinity never sweeps it).
    pub fn fast_share(mut self, share: f32) -> Self {
        self.fast_share = share;
        self
    }

    /// A number of the user's, kept with the body (an entity id, say). Default 0.
    pub fn user_data(mut self, data: u64) -> Self {
        self.user_data = data;
        self
    }

    /// Locks translation along the world `axes` (see [`Locks`]), keeping
    /// any rotation locks: `.lock_translation(Axes::Z)` keeps a 3D body in
    /// its plane.
    pub fn lock_translation(mut self, axes: Axes) -> Self {
        self.locks.translation = axes;
        self
    }

    /// Locks rotation about the world `axes` (see [`Locks`]), keeping any
    /// translation locks: `.lock_rotation(Axes::X | Axes::Z)` lets a 3D
    /// body turn about Y only. In 2D only Z counts; see
    /// [`BodyDesc::fixed_rotation`].
    pub fn lock_rotation(mut self, axes: Axes) -> Self {
        self.locks.rotation = axes;
        self
    }

    /// Locks every rotation: the body never turns (a character's capsule).
    pub fn fixed_rotation(self) -> Self {
        self.lock_rotation(Axes::ALL)
    }

    /// Sets every lock at once (default [`Locks::NONE`]).
    pub fn locks(mut self, locks: Locks) -> Self {
        self.locks = locks;
        self
    }

    /// The body's mass in kg (finite, > 0) in place of its colliders': their
    /// centre of mass stays, and their inertia is scaled by the same factor,
    /// so the body balances and turns as its shapes do, only heavier or
    /// lighter (`tests/controls.rs`:
    /// `a_mass_override_changes_how_far_an_impulse_moves_a_body_2d`).
    /// Colliders added or densities changed later keep this mass. Only a
    /// dynamic body has mass; the mass is checked when the body is added
    /// ([`WorldError::OutOfRange`]).
    pub fn mass(mut self, mass: f32) -> Self {
        self.mass = MassOverride::Mass(mass);
        self
    }

    /// The body's mass properties in full, in place of its colliders':
    /// `mass` (kg, finite and > 0), `local_center` (the centre of mass in
    /// the body's frame, metres) and `inertia` about it in the body's frame
    /// (kg·m²: a positive moment in 2D; in 3D a symmetric, positive-definite
    /// tensor, see [`MathDim::user_inertia`](crate::math::MathDim::user_inertia)), checked when the body is added
    /// (`full_mass_properties_set_mass_centre_and_inertia_3d`). Colliders
    /// added or changed later leave them as they are.
    pub fn mass_properties(
        mut self,
        mass: f32,
        local_center: D::Vector,
        inertia: D::Inertia,
    ) -> Self {
        self.mass = MassOverride::Full {
            mass,
            local_center,
            inertia,
        };
        self
    }

    /// Checks every value: finite, a rotation that names one, dampings
    /// non-negative, a mass override in range.
    pub(crate) fn validate(&self) -> Result<(), WorldError> {
        let finite = |ok: bool, what| {
            if ok {
                Ok(())
            } else {
                Err(WorldError::NotFinite { what })
            }
        };
        finite(self.position.is_finite(), "body position")?;
        user_rotation::<D>(self.rotation, "body rotation")?;
        finite(self.linear_velocity.is_finite(), "body linear velocity")?;
        finite(self.angular_velocity.is_finite(), "body angular velocity")?;
        check_damping("linear damping", self.linear_damping)?;
        check_damping("angular damping", self.angular_damping)?;
        check_gravity_scale(self.gravity_scale)?;
        if self.fast_share.is_nan() || self.fast_share <= 0.0 {
            return Err(WorldError::OutOfRange {
                what: "body fast share",
                value: self.fast_share,
            });
        }
        self.mass.validate().map(|_| ())
    }
}

/// What the step reads and changes of a body every step: its pose,
/// velocities, forces and the mass and damping the solver needs (Box2D v3's
/// `b2BodySim`). The world keeps these for all bodies in one dense array
/// (`world::BodySims`), the solver's bodies first and in the solver's
/// order, so the solver reads and writes them in place, a slice in memory
/// order (`World::solve`); the rest of a body lives in its
/// [`BodyRecord`].
#[derive(Copy, Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub(crate) struct BodySim<D: Dim> {
    pub(crate) kind: BodyKind,
    /// Pose of the body's origin.
    pub(crate) pose: Pose<D>,
    /// Centre of mass in the body's frame, metres.
    pub(crate) local_center: D::Vector,
    /// Velocity of the centre of mass, m/s.
    pub(crate) linear_velocity: D::Vector,
    /// rad/s.
    pub(crate) angular_velocity: D::AngularVector,
    /// 1/kg; 0 unless dynamic.
    pub(crate) inv_mass: f32,
    /// Inverse rotational inertia about the centre of mass, body frame.
    pub(crate) inv_inertia_local: D::Inertia,
    /// 1/s.
    pub(crate) linear_damping: f32,
    /// 1/s.
    pub(crate) angular_damping: f32,
    pub(crate) gravity_scale: f32,
    /// Applied force for the next step, newtons.
    pub(crate) force: D::Vector,
    /// Applied torque for the next step, N·m.
    pub(crate) torque: D::AngularVector,
    /// The motions it may not make while dynamic, within its dimension's axes.
    pub(crate) locks: Locks,
}

impl<D: Dim> BodySim<D> {
    /// Centre of mass in world space, metres.
    pub(crate) fn center_of_mass(&self) -> D::Vector {
        self.pose.transform_point(self.local_center)
    }

    /// Inverse inertia in world space, with the rows and columns of locked
    /// rotation axes zeroed ([`Locks`]).
    pub(crate) fn inv_inertia_world(&self) -> D::Inertia {
        let inverse = D::rotate_inertia(self.pose.rotation, self.inv_inertia_local);
        if self.locks.rotation.is_empty() {
            inverse
        } else {
            D::lock_inverse_inertia(inverse, self.locks.rotation)
        }
    }

    /// `v` less its components along a dynamic body's locked translation axes.
    pub(crate) fn free_linear(&self, v: D::Vector) -> D::Vector {
        if self.kind == BodyKind::Dynamic && !self.locks.translation.is_empty() {
            D::lock_linear(v, self.locks.translation)
        } else {
            v
        }
    }

    /// A dynamic body's velocities along its locked axes set to zero.
    fn hold_locked_velocities(&mut self) {
        if self.kind == BodyKind::Dynamic && !self.locks.is_empty() {
            self.linear_velocity = D::lock_linear(self.linear_velocity, self.locks.translation);
            self.angular_velocity = D::lock_angular(self.angular_velocity, self.locks.rotation);
        }
    }
}

/// The rest of a body: its colliders, sleep, targets and settings, which
/// the step reads only where it needs them. Its [`BodySim`] is found by
/// `sim`.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub(crate) struct BodyRecord<D: Dim> {
    /// Where its [`BodySim`] is in the world's array (`world::BodySims`).
    pub(crate) sim: u32,
    /// kg; 0 unless dynamic.
    pub(crate) mass: f32,
    /// The body's colliders, at least one.
    pub(crate) colliders: Vec<Collider<D>>,
    user_data: u64,
    /// Where a kinematic body is to be at the end of the next step.
    pub(crate) kinematic_target: Option<Pose<D>>,
    /// The body reached a kinematic target at the end of the last step and
    /// still has the velocities that took it there (what the game reads):
    /// the next step stops it unless the game gives it a new target or
    /// velocity ([`BodyMut::set_kinematic_target`]).
    pub(crate) target_reached: bool,
    pub(crate) can_sleep: bool,
    /// Asleep: not integrated or solved until something wakes it.
    pub(crate) sleeping: bool,
    /// How long the body has been slow enough to sleep, seconds.
    pub(crate) rest_time: f32,
    /// Added, or moved by `set_position` or `set_rotation`, since the last
    /// step: the sleeping bodies it touched are woken, and, for a fixed
    /// body, those its box now meets.
    pub(crate) teleported: bool,
    /// Where its mass properties come from.
    pub(crate) mass_override: MassOverride<D>,
    /// Swept against dynamic bodies too when fast (`BodyDesc::bullet`).
    pub(crate) bullet: bool,
    /// [`BodyRecord::extent`], [`BodyRecord::spin_reach`] and
    /// [`BodyRecord::thinnest`], set with the mass.
    reach: f32,
    spin_reach: f32,
    thinnest: f32,
    /// Share of its thickness it may move in a step before it is swept
    /// (`BodyDesc::fast_share`).
    pub(crate) fast_share: f32,
}

impl<D: Dim> BodyRecord<D> {
    /// How far the body's farthest point lies from its centre of mass at
    /// most, metres: each collider's origin plus its shape's bounding radius
    /// (kept from the last change of colliders or mass).
    pub(crate) fn extent(&self) -> f32 {
        self.reach
    }

    /// How far beyond where it stands the body can reach by turning about
    /// its centre of mass, whatever the angle, metres (kept likewise): its
    /// extent less the radius of the ball about its centre of mass that
    /// one of its shapes holds (a point turned stays within the extent,
    /// and the ball is covered at every angle). 0 for a ball turning about
    /// its centre, which covers the same space at every angle; the extent
    /// when the centre of mass lies in none of its shapes.
    pub(crate) fn spin_reach(&self) -> f32 {
        self.spin_reach
    }

    /// Its thinnest collider's thickness, metres (kept likewise).
    pub(crate) fn thinnest(&self) -> f32 {
        self.thinnest
    }

    /// Wakes the body (its island wakes with it on the next step).
    pub(crate) fn wake_up(&mut self) {
        self.sleeping = false;
        self.rest_time = 0.0;
    }

    /// After a step: a teleport has been dealt with. In the `last` step of
    /// a call, a body with a target is put exactly on it (rounding in the
    /// integration aside, it is there already) and keeps the velocities it
    /// moved at, so that the game reads them; the next step stops it there
    /// unless it is given a new target or velocity
    /// ([`BodyMut::aim_at_target`]). True when the body had a target: the
    /// next step must see it (`sim` is its own).
    pub(crate) fn arrive(&mut self, sim: &mut BodySim<D>, last: bool) -> bool {
        self.teleported = false;
        let Some(target) = self.kinematic_target else {
            return false;
        };
        if last {
            sim.pose = target;
            self.kinematic_target = None;
            self.target_reached = true;
        }
        true
    }
}

/// The methods that read a body, the same on each of its handles
/// ([`Body`], [`BodyMut`], [`RemovedBody`]), which hold its `record` and
/// `sim`.
macro_rules! body_reads {
    () => {
        /// The motions the body may not make while dynamic.
        pub fn locks(&self) -> Locks {
            self.sim.locks
        }

        /// Linear damping, 1/s.
        pub fn linear_damping(&self) -> f32 {
            self.sim.linear_damping
        }

        /// Angular damping, 1/s.
        pub fn angular_damping(&self) -> f32 {
            self.sim.angular_damping
        }

        /// Multiplier on the world's gravity for this body.
        pub fn gravity_scale(&self) -> f32 {
            self.sim.gravity_scale
        }

        /// True while the body sleeps: at rest with everything it touches, it is
        /// neither integrated nor solved until a contact, a change or an impulse
        /// wakes it.
        pub fn is_sleeping(&self) -> bool {
            self.record.sleeping
        }

        /// How the body moves.
        pub fn kind(&self) -> BodyKind {
            self.sim.kind
        }

        /// Position of the body's origin, metres.
        pub fn position(&self) -> D::Vector {
            self.sim.pose.translation
        }

        /// Orientation: an angle in radians (2D) or a unit quaternion (3D).
        pub fn rotation(&self) -> D::Orientation {
            D::orientation_of(self.sim.pose.rotation)
        }

        /// The full pose of the body's origin.
        pub fn pose(&self) -> Pose<D> {
            self.sim.pose
        }

        /// Velocity of the centre of mass, m/s.
        pub fn linear_velocity(&self) -> D::Vector {
            self.sim.linear_velocity
        }

        /// Angular velocity, rad/s.
        pub fn angular_velocity(&self) -> D::AngularVector {
            self.sim.angular_velocity
        }

        /// Mass in kg (0 for fixed and kinematic bodies).
        pub fn mass(&self) -> f32 {
            self.record.mass
        }

        /// Centre of mass in world space, metres.
        pub fn center_of_mass(&self) -> D::Vector {
            self.sim.center_of_mass()
        }

        /// The user's number given with [`BodyDesc::user_data`].
        pub fn user_data(&self) -> u64 {
            self.record.user_data
        }

        /// The first collider's user number ([`ColliderDesc::user_data`]).
        pub fn collider_user_data(&self) -> u64 {
            self.record.colliders[0].user_data
        }

        /// True when the first collider is a sensor: it reports overlaps and pushes nothing.
        pub fn is_sensor(&self) -> bool {
            self.record.colliders[0].sensor
        }

        /// The first collider's collision filter.
        pub fn filter(&self) -> CollisionFilter {
            self.record.colliders[0].filter
        }
    };
}

/// A body in the world, to read: what [`crate::World::body`] and
/// [`crate::World::bodies`] hand out. It borrows the world; change the body
/// with [`crate::World::body_mut`].
#[derive(Copy, Clone, Debug)]
pub struct Body<'w, D: Dim> {
    pub(crate) record: &'w BodyRecord<D>,
    pub(crate) sim: &'w BodySim<D>,
}

impl<'w, D: Dim> Body<'w, D> {
    body_reads!();

    /// True when the body takes part in this step: awake, and dynamic or
    /// moving kinematic.
    pub(crate) fn is_active(&self) -> bool {
        !self.record.sleeping && self.sim.kind != BodyKind::Fixed
    }

    /// The body's colliders; the first is the one given to `add_body`.
    pub fn colliders(&self) -> &'w [Collider<D>] {
        &self.record.colliders
    }

    /// The first collider's shape (see [`Body::colliders`] for all).
    pub fn shape(&self) -> &'w Shape<D> {
        &self.record.colliders[0].shape
    }
}

/// A body removed from the world ([`crate::World::remove_body`]), as it was.
#[derive(Clone, Debug)]
pub struct RemovedBody<D: Dim> {
    pub(crate) record: BodyRecord<D>,
    pub(crate) sim: BodySim<D>,
}

impl<D: Dim> RemovedBody<D> {
    body_reads!();

    /// The body's colliders; the first is the one given to `add_body`.
    pub fn colliders(&self) -> &[Collider<D>] {
        &self.record.colliders
    }
}

/// A body in the world, to change: what [`crate::World::body_mut`] hands
/// out. It reads as [`Body`] does.
#[derive(Debug)]
pub struct BodyMut<'w, D: Dim> {
    pub(crate) record: &'w mut BodyRecord<D>,
    pub(crate) sim: &'w mut BodySim<D>,
}

/// A new body's record and sim from its description and first collider
/// (the record's `sim` left for the world to set).
pub(crate) fn new_body<D: Dim>(
    desc: &BodyDesc<D>,
    handle: ColliderHandle,
    collider: ColliderDesc<D>,
) -> Result<(BodyRecord<D>, BodySim<D>), WorldError> {
    let mut record = BodyRecord {
        sim: 0,
        mass: 0.0,
        colliders: vec![Collider::new(handle, collider)],
        user_data: desc.user_data,
        kinematic_target: None,
        target_reached: false,
        can_sleep: desc.can_sleep,
        sleeping: false,
        rest_time: 0.0,
        teleported: true,
        mass_override: desc.mass.validate()?,
        bullet: desc.bullet,
        fast_share: desc.fast_share,
        reach: 0.0,
        spin_reach: 0.0,
        thinnest: f32::INFINITY,
    };
    let mut sim = BodySim {
        kind: desc.kind,
        pose: Pose::new(desc.position, desc.rotation),
        local_center: D::Vector::ZERO,
        linear_velocity: if desc.kind == BodyKind::Fixed {
            D::Vector::ZERO
        } else {
            desc.linear_velocity
        },
        angular_velocity: if desc.kind == BodyKind::Fixed {
            D::AngularVector::default()
        } else {
            desc.angular_velocity
        },
        inv_mass: 0.0,
        inv_inertia_local: D::zero_inertia(),
        linear_damping: desc.linear_damping,
        angular_damping: desc.angular_damping,
        gravity_scale: desc.gravity_scale,
        force: D::Vector::ZERO,
        torque: D::AngularVector::default(),
        locks: desc.locks.within::<D>(),
    };
    let mut body = BodyMut {
        record: &mut record,
        sim: &mut sim,
    };
    body.update_mass()?;
    body.sim.hold_locked_velocities();
    Ok((record, sim))
}

/// A body's mass properties as [`mass_parts`] makes them: what
/// [`BodyMut::set_mass_parts`] writes on its record and sim.
#[derive(Copy, Clone, Debug)]
pub(crate) struct MassParts<D: Dim> {
    local_center: D::Vector,
    /// 0 unless dynamic, as `inv_mass` and `inv_inertia_local`.
    mass: f32,
    inv_mass: f32,
    inv_inertia_local: D::Inertia,
    reach: f32,
    spin_reach: f32,
    thinnest: f32,
}

/// The mass properties of a body of `kind` with `colliders`, collider `i`
/// taken at density `density(i)`, and `mass_override`: the centre of mass
/// from every collider; mass and inertia too for a dynamic body (the
/// others have none), then the override ([`BodyDesc::mass`] scales the
/// colliders' mass and inertia to its mass, [`BodyDesc::mass_properties`]
/// replaces all three). A pure function of its arguments, so that a
/// rollback that gives a body back its kind, densities and override gives
/// it back the same bits (`world/state.rs`). Errors as
/// [`BodyMut::update_mass`] does.
pub(crate) fn mass_parts<D: Dim>(
    colliders: &[Collider<D>],
    density: impl Fn(usize) -> f32,
    mass_override: MassOverride<D>,
    kind: BodyKind,
) -> Result<MassParts<D>, WorldError> {
    let dynamic = kind == BodyKind::Dynamic;
    if dynamic && colliders.iter().any(|c| c.shape.is_massless()) {
        return Err(WorldError::SurfaceOnDynamicBody);
    }
    let parts: Vec<(MassProperties<D>, Pose<D>)> = colliders
        .iter()
        .enumerate()
        .map(|(i, c)| (c.shape.mass_properties(density(i)), c.local_pose))
        .collect();
    let props = mass_override.apply(MassProperties::combine(&parts));
    let out_of_range = |what, value| WorldError::MassOutOfRange { what, value };
    let inv_mass = 1.0 / props.mass;
    if dynamic && !(props.mass.is_finite() && props.mass > 0.0 && inv_mass.is_finite()) {
        return Err(out_of_range("mass", props.mass));
    }
    let inv_inertia_local = if dynamic {
        D::usable_inverse_inertia(props.inertia)
            .map_err(|moment| out_of_range("rotational inertia", moment))?
    } else {
        D::zero_inertia()
    };
    if !props.local_center.is_finite() {
        return Err(out_of_range("centre of mass", props.local_center.length()));
    }
    let local_center = props.local_center;
    let reach = |c: &Collider<D>| {
        (c.local_pose.translation - local_center).length() + c.shape.bounding_radius()
    };
    let reach = colliders.iter().map(reach).fold(0.0, f32::max);
    // The deepest the centre of mass lies in one of the shapes.
    let held = colliders
        .iter()
        .map(|c| {
            c.shape
                .depth_of(c.local_pose.inverse_transform_point(local_center))
        })
        .fold(0.0, f32::max);
    Ok(MassParts {
        local_center,
        mass: if dynamic { props.mass } else { 0.0 },
        inv_mass: if dynamic { inv_mass } else { 0.0 },
        inv_inertia_local,
        reach,
        spin_reach: (reach - held).max(0.0),
        thinnest: colliders
            .iter()
            .map(|c| c.shape.thickness())
            .fold(f32::INFINITY, f32::min),
    })
}

impl<'w, D: Dim> BodyMut<'w, D> {
    body_reads!();

    /// The body's colliders; the first is the one given to `add_body`.
    pub fn colliders(&self) -> &[Collider<D>] {
        &self.record.colliders
    }

    /// The first collider's shape (see [`Body::colliders`] for all).
    pub fn shape(&self) -> &Shape<D> {
        &self.record.colliders[0].shape
    }

    /// The body to read, for as long as this borrow.
    pub fn as_body(&self) -> Body<'_, D> {
        Body {
            record: self.record,
            sim: self.sim,
        }
    }

    /// Attaches another collider and updates the mass properties; the body's
    /// origin stays where it is. Errors as [`BodyMut::update_mass`] does,
    /// leaving the body as it was.
    pub(crate) fn attach(
        &mut self,
        handle: ColliderHandle,
        collider: ColliderDesc<D>,
    ) -> Result<(), WorldError> {
        self.record.colliders.push(Collider::new(handle, collider));
        let attached = self.update_mass();
        if attached.is_err() {
            self.record.colliders.pop();
        }
        attached
    }

    /// The body's mass properties from its colliders, kind and override
    /// ([`mass_parts`]). Errors, changing nothing, with
    /// [`WorldError::SurfaceOnDynamicBody`] for a dynamic body with a
    /// surface, and with [`WorldError::MassOutOfRange`] when f32 cannot
    /// hold what the solver needs: a dynamic body's mass or inertia not
    /// finite and positive with a finite, non-zero inverse, or any body's
    /// centre of mass not finite. That happens only when the shapes are far
    /// too large or too small for their density (a ball of radius 1e13 or
    /// 1e-14 at density 1).
    fn update_mass(&mut self) -> Result<(), WorldError> {
        let record = &*self.record;
        let density = |i: usize| record.colliders[i].density;
        let parts = mass_parts(
            &record.colliders,
            density,
            record.mass_override,
            self.sim.kind,
        )?;
        self.set_mass_parts(&parts);
        Ok(())
    }

    /// Gives the body the mass properties `parts` (of [`mass_parts`]).
    pub(crate) fn set_mass_parts(&mut self, parts: &MassParts<D>) {
        self.sim.local_center = parts.local_center;
        self.record.mass = parts.mass;
        self.sim.inv_mass = parts.inv_mass;
        self.sim.inv_inertia_local = parts.inv_inertia_local;
        self.record.reach = parts.reach;
        self.record.spin_reach = parts.spin_reach;
        self.record.thinnest = parts.thinnest;
    }

    /// Applies `change` and recomputes the mass properties; when those are
    /// out of range ([`BodyMut::update_mass`]), `undo` puts the body back and
    /// the error is returned, the body as it was.
    fn change_mass(
        &mut self,
        change: impl FnOnce(&mut Self),
        undo: impl FnOnce(&mut Self),
    ) -> Result<(), WorldError> {
        change(self);
        if let Err(refused) = self.update_mass() {
            undo(self);
            return Err(refused);
        }
        self.wake_up();
        Ok(())
    }

    /// Makes the body `kind`, with its mass properties for that kind; a
    /// fixed body stops, and only a kinematic body keeps its target. Errors
    /// as [`BodyMut::update_mass`] does, changing nothing.
    pub(crate) fn set_kind(&mut self, kind: BodyKind) -> Result<(), WorldError> {
        let before = self.sim.kind;
        self.change_mass(|b| b.sim.kind = kind, |b| b.sim.kind = before)?;
        if kind == BodyKind::Fixed {
            self.sim.linear_velocity = D::Vector::ZERO;
            self.sim.angular_velocity = D::AngularVector::default();
        }
        if kind != BodyKind::Kinematic {
            self.record.kinematic_target = None;
            self.record.target_reached = false;
        }
        self.sim.hold_locked_velocities();
        Ok(())
    }

    /// Replaces the mass override (checked by the caller with
    /// [`MassOverride::validate`]); errors as [`BodyMut::update_mass`] does,
    /// changing nothing.
    pub(crate) fn set_mass_override(&mut self, mass: MassOverride<D>) -> Result<(), WorldError> {
        let before = self.record.mass_override;
        self.change_mass(
            |b| b.record.mass_override = mass,
            |b| b.record.mass_override = before,
        )
    }

    /// Gives collider `index` a new density (checked by the caller) and
    /// recomputes the mass properties; errors as [`BodyMut::update_mass`] does,
    /// changing nothing, or with [`WorldError::StaleHandle`] for no such collider.
    pub(crate) fn set_collider_density(
        &mut self,
        index: usize,
        density: f32,
    ) -> Result<(), WorldError> {
        let before = self
            .record
            .colliders
            .get(index)
            .ok_or(WorldError::StaleHandle)?
            .density;
        self.change_mass(
            |b| b.record.colliders[index].density = density,
            |b| b.record.colliders[index].density = before,
        )
    }

    /// Takes collider `index` off the body and recomputes the mass
    /// properties from the others. A body keeps at least one collider
    /// ([`WorldError::LastCollider`]); errors as [`BodyMut::update_mass`] does,
    /// changing nothing, or with [`WorldError::StaleHandle`] for no such collider.
    pub(crate) fn detach(&mut self, index: usize) -> Result<Collider<D>, WorldError> {
        if index >= self.record.colliders.len() {
            return Err(WorldError::StaleHandle);
        }
        if self.record.colliders.len() == 1 {
            return Err(WorldError::LastCollider);
        }
        let removed = self.record.colliders.remove(index);
        if let Err(refused) = self.update_mass() {
            self.record.colliders.insert(index, removed);
            return Err(refused);
        }
        self.wake_up();
        Ok(removed)
    }

    /// Replaces the locks (those of axes the dimension has) and wakes the
    /// body; a dynamic body's velocities along the newly locked axes stop.
    pub(crate) fn set_locks(&mut self, locks: Locks) {
        self.sim.locks = locks.within::<D>();
        self.sim.hold_locked_velocities();
        self.wake_up();
    }

    /// Wakes the body (its island wakes with it on the next step).
    pub fn wake_up(&mut self) {
        self.record.wake_up();
    }

    /// Replaces the user's number.
    pub fn set_user_data(&mut self, data: u64) {
        self.record.user_data = data;
    }

    /// Moves the body's origin to `position` (metres) and wakes it. If that
    /// moves it, the next step wakes the sleeping bodies it touched and,
    /// for a fixed body, those its box now meets (a fixed body may be moved
    /// this way). Errors on NaN or infinity.
    pub fn set_position(&mut self, position: D::Vector) -> Result<(), WorldError> {
        if !position.is_finite() {
            return Err(WorldError::NotFinite {
                what: "body position",
            });
        }
        self.record.teleported |= self.sim.pose.translation != position;
        self.sim.pose.translation = position;
        self.wake_up();
        Ok(())
    }

    /// Sets the orientation (a quaternion in 3D stands for the unit one
    /// along it), waking as [`BodyMut::set_position`] does. Errors on NaN or
    /// infinity, and on a zero quaternion.
    pub fn set_rotation(&mut self, rotation: D::Orientation) -> Result<(), WorldError> {
        let rotation = user_rotation::<D>(rotation, "body rotation")?;
        self.record.teleported |= self.sim.pose.rotation != rotation;
        self.sim.pose.rotation = rotation;
        self.wake_up();
        Ok(())
    }

    /// Sets the velocity of the centre of mass (m/s); ignored for fixed
    /// bodies, and along a dynamic body's locked axes ([`Locks`]). A
    /// kinematic body that has just reached a target keeps moving at its
    /// velocities from then on ([`BodyMut::set_kinematic_target`]).
    pub fn set_linear_velocity(&mut self, v: D::Vector) -> Result<(), WorldError> {
        if !v.is_finite() {
            return Err(WorldError::NotFinite {
                what: "body linear velocity",
            });
        }
        if self.sim.kind != BodyKind::Fixed {
            self.sim.linear_velocity = v;
            self.record.target_reached = false;
        }
        self.sim.hold_locked_velocities();
        self.wake_up();
        Ok(())
    }

    /// Sets the angular velocity (rad/s); ignored for fixed bodies, and
    /// about a dynamic body's locked axes ([`Locks`]). A kinematic body
    /// that has just reached a target keeps moving at its velocities from
    /// then on ([`BodyMut::set_kinematic_target`]).
    pub fn set_angular_velocity(&mut self, w: D::AngularVector) -> Result<(), WorldError> {
        if !w.is_finite() {
            return Err(WorldError::NotFinite {
                what: "body angular velocity",
            });
        }
        if self.sim.kind != BodyKind::Fixed {
            self.sim.angular_velocity = w;
            self.record.target_reached = false;
        }
        self.sim.hold_locked_velocities();
        self.wake_up();
        Ok(())
    }

    /// Drives a kinematic body to the pose of its origin at `position` and
    /// `rotation` by the end of the next step: the step gives it the
    /// velocities that get it there (the centre of mass's displacement and
    /// the turn over the step's time), which contacts see, so it pushes
    /// and carries what it touches, and ends it exactly on the target.
    ///
    /// After that step the body reads those velocities
    /// ([`Body::linear_velocity`], [`Body::angular_velocity`]): a platform
    /// given a target 2 m/s × dt ahead each step reads 2 m/s, and a player
    /// standing on it can match it. A step with no new target stops the
    /// body where it is (velocities zero); a velocity the game sets in
    /// between ([`BodyMut::set_linear_velocity`],
    /// [`BodyMut::set_angular_velocity`]) instead keeps it moving at its
    /// velocities, the one set and the other as the target left it. This
    /// is the target of PhysX's `setKinematicTarget` and rapier's
    /// position-based kinematic bodies; Box2D v3's
    /// `b2Body_SetTargetTransform` and Jolt's `MoveKinematic` set the
    /// velocities alone, and the body coasts past its target until told
    /// otherwise. A target is one step's: a game moving a platform sets one
    /// every step. Guarded by `tests/game_api.rs`
    /// (`a_target_driven_platform_reads_the_velocity_it_moves_at_2d`, `_3d`,
    /// and the tests beside them).
    ///
    /// Errors on NaN or infinity, a zero quaternion, and for a body that is
    /// not kinematic.
    pub fn set_kinematic_target(
        &mut self,
        position: D::Vector,
        rotation: D::Orientation,
    ) -> Result<(), WorldError> {
        let what = "kinematic target";
        if !position.is_finite() {
            return Err(WorldError::NotFinite { what });
        }
        let rotation = user_rotation::<D>(rotation, what)?;
        if self.sim.kind != BodyKind::Kinematic {
            return Err(WorldError::NotKinematic);
        }
        self.record.kinematic_target = Some(Pose {
            translation: position,
            rotation,
        });
        self.wake_up();
        Ok(())
    }

    /// At the start of a step of `dt` with `steps_left` steps of the call
    /// left, this one included: gives a kinematic body with a target the
    /// velocities that reach it by the end of the call (a call split into
    /// steps by [`crate::Settings::max_step`] moves it evenly over them);
    /// stops one that reached its target in the last step and was given
    /// no new target or velocity since.
    pub(crate) fn aim_at_target(&mut self, dt: f32, steps_left: u32) {
        let reached = std::mem::take(&mut self.record.target_reached);
        let Some(target) = self.record.kinematic_target else {
            if reached {
                self.sim.linear_velocity = D::Vector::ZERO;
                self.sim.angular_velocity = D::AngularVector::default();
            }
            return;
        };
        let sim = &mut *self.sim;
        let center = sim.center_of_mass();
        let target_center = target.transform_point(sim.local_center);
        // One step left: exactly `dt`, as a call of one step.
        let time = dt * steps_left as f32;
        let linear = (target_center - center) * (1.0 / time);
        let angular = D::angular_velocity_between(sim.pose.rotation, target.rotation, time);
        if linear.is_finite() && angular.is_finite() {
            sim.linear_velocity = linear;
            sim.angular_velocity = angular;
        }
    }

    /// Adds a force (newtons) at the centre of mass for the next step.
    /// Errors, changing nothing, on NaN or infinity, or when the sum would overflow.
    pub fn apply_force(&mut self, force: D::Vector) -> Result<(), WorldError> {
        let total = self.sim.force + force;
        if !(force.is_finite() && total.is_finite()) {
            return Err(WorldError::NotFinite { what: "force" });
        }
        self.sim.force = total;
        self.wake_up();
        Ok(())
    }

    /// Adds a torque (N·m) for the next step.
    /// Errors, changing nothing, on NaN or infinity, or when the sum would overflow.
    pub fn apply_torque(&mut self, torque: D::AngularVector) -> Result<(), WorldError> {
        let total = self.sim.torque + torque;
        if !(torque.is_finite() && total.is_finite()) {
            return Err(WorldError::NotFinite { what: "torque" });
        }
        self.sim.torque = total;
        self.wake_up();
        Ok(())
    }

    /// Changes the velocity at once by an impulse (N·s) applied at the world
    /// point `at`; ignored for fixed and kinematic bodies, and along and
    /// about a dynamic body's locked axes ([`Locks`]). Errors, changing
    /// nothing, on NaN or infinity, or when the new velocity would overflow.
    pub fn apply_impulse(&mut self, impulse: D::Vector, at: D::Vector) -> Result<(), WorldError> {
        if !(impulse.is_finite() && at.is_finite()) {
            return Err(WorldError::NotFinite { what: "impulse" });
        }
        let sim = &mut *self.sim;
        if sim.kind != BodyKind::Dynamic {
            return Ok(());
        }
        let r = at - sim.center_of_mass();
        let linear = sim.linear_velocity + sim.free_linear(impulse * sim.inv_mass);
        let angular =
            sim.angular_velocity + D::mul_inertia(sim.inv_inertia_world(), D::cross(r, impulse));
        if !(linear.is_finite() && angular.is_finite()) {
            return Err(WorldError::NotFinite {
                what: "velocity after the impulse",
            });
        }
        sim.linear_velocity = linear;
        sim.angular_velocity = angular;
        self.wake_up();
        Ok(())
    }

    /// Changes the velocity of the centre of mass at once by an impulse
    /// (N·s) through it: `Δv = impulse / mass`, no spin. Ignored for fixed
    /// and kinematic bodies, and along a dynamic body's locked axes. Errors,
    /// changing nothing, on NaN or infinity, or when the new velocity would
    /// overflow.
    pub fn apply_impulse_at_center(&mut self, impulse: D::Vector) -> Result<(), WorldError> {
        if !impulse.is_finite() {
            return Err(WorldError::NotFinite { what: "impulse" });
        }
        let sim = &mut *self.sim;
        if sim.kind != BodyKind::Dynamic {
            return Ok(());
        }
        let linear = sim.linear_velocity + sim.free_linear(impulse * sim.inv_mass);
        if !linear.is_finite() {
            return Err(WorldError::NotFinite {
                what: "velocity after the impulse",
            });
        }
        sim.linear_velocity = linear;
        self.wake_up();
        Ok(())
    }
}
