//! Errors at the world's API boundary: one enum, a variant per cause.

use core::fmt;

use crate::shape::ShapeError;

/// Why the world refused a call.
#[derive(Clone, Debug, PartialEq)]
pub enum WorldError {
    /// A shape could not be built.
    Shape(ShapeError),
    /// A position, rotation or velocity had a NaN or infinite component.
    NotFinite {
        /// Which input.
        what: &'static str,
    },
    /// A quaternion was zero: it names no rotation (any other finite
    /// quaternion, however long or short, stands for the unit one along it).
    ZeroRotation {
        /// Which input.
        what: &'static str,
    },
    /// A density, friction, restitution, damping or time step was out of range.
    OutOfRange {
        /// Which input.
        what: &'static str,
        /// The value given.
        value: f32,
    },
    /// A body's mass properties, from its colliders' shapes, densities and
    /// places, do not fit in f32: a dynamic body's mass or rotational
    /// inertia is not finite and positive with a finite, non-zero inverse
    /// (the solver divides by both), or a body's centre of mass is not
    /// finite. The shapes are far too large or too small for their density.
    MassOutOfRange {
        /// `"mass"`, `"rotational inertia"` or `"centre of mass"`.
        what: &'static str,
        /// The value computed: kg, kg·m² (the moment to blame), or the
        /// centre's distance from the body's origin, metres.
        value: f32,
    },
    /// The handle names a body or collider that was removed (or never existed).
    StaleHandle,
    /// The collider is its body's last: a body keeps at least one (remove
    /// the body instead).
    LastCollider,
    /// A kinematic target was given to a body that is not kinematic.
    NotKinematic,
    /// A surface (triangle mesh, heightfield or chain) on a dynamic body:
    /// a surface has no mass and no inside, so it goes on fixed and
    /// kinematic bodies only.
    SurfaceOnDynamicBody,
    /// A rollback state ([`World::restore_state`](crate::World::restore_state))
    /// taken from a world of other bodies, colliders or shapes, or from
    /// this one before a body or collider was added or removed: it no
    /// longer fits, and the world is left as it was. (Controls such as
    /// filters, sensor flags and kinds do not make it refused: the state
    /// takes them back.)
    StateMismatch,
    /// A joint between a body and itself.
    JointToItself,
    /// A joint axis of zero length: it names no direction.
    ZeroAxis,
    /// A joint's lower limit (or shortest length) above its upper one.
    ImpossibleLimits {
        /// The lower limit given.
        lower: f32,
        /// The upper limit given.
        upper: f32,
    },
}

impl fmt::Display for WorldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorldError::Shape(e) => write!(f, "invalid shape: {e}"),
            WorldError::NotFinite { what } => {
                write!(f, "{what} must be finite (got NaN or infinity)")
            }
            WorldError::ZeroRotation { what } => {
                write!(f, "{what} is a zero quaternion, which names no rotation")
            }
            WorldError::OutOfRange { what, value } => {
                write!(f, "{what} is out of range (got {value})")
            }
            WorldError::MassOutOfRange { what, value } => write!(
                f,
                "the body's {what} is out of range (got {value}): its shapes are \
                 too large or too small for their density"
            ),
            WorldError::SurfaceOnDynamicBody => write!(
                f,
                "a surface (mesh, heightfield or chain) has no mass: it goes on fixed \
                 and kinematic bodies only"
            ),
            WorldError::StaleHandle => {
                write!(f, "the body or collider was removed or never existed")
            }
            WorldError::StateMismatch => write!(
                f,
                "the saved state does not fit this world: it comes from a world of other bodies, colliders or shapes, or bodies or colliders were added or removed since"
            ),
            WorldError::LastCollider => write!(
                f,
                "a body keeps at least one collider: remove the body instead of its last collider"
            ),
            WorldError::NotKinematic => {
                write!(f, "only a kinematic body can be driven to a target pose")
            }
            WorldError::JointToItself => write!(f, "a joint joins two different bodies"),
            WorldError::ZeroAxis => write!(f, "a joint axis must not be zero"),
            WorldError::ImpossibleLimits { lower, upper } => write!(
                f,
                "a joint's lower limit ({lower}) is above its upper limit ({upper})"
            ),
        }
    }
}

impl std::error::Error for WorldError {}

impl From<ShapeError> for WorldError {
    fn from(e: ShapeError) -> Self {
        WorldError::Shape(e)
    }
}
