//! # Tumble
//!
//! A rigid-body physics engine for 2D and 3D. Contacts come from GJK and EPA
//! on convex shapes; the world keeps incremental manifolds per pair and solves
//! them with a soft-step sequential-impulse solver.
//!
//! Everything is written once over a dimension `D: Dim` ([`D2`] or [`D3`]);
//! users pick a dimension through a prelude:
//!
//! ```
//! use tumble::d3::*;
//! use tumble::glam::{Quat, Vec3};
//!
//! let a = Shape::cuboid(Vec3::splat(0.5)).unwrap();
//! let b = Shape::ball(0.5).unwrap();
//! let pa = Pose::new(Vec3::ZERO, Quat::IDENTITY);
//! let pb = Pose::new(Vec3::new(0.0, 0.9, 0.0), Quat::IDENTITY);
//! let hit = contact(&a, &pa, &b, &pb).expect("they overlap");
//! assert!((hit.depth - 0.1).abs() < 1e-5);
//! assert!((hit.normal - Vec3::Y).length() < 1e-5); // from A towards B
//! ```

#![warn(missing_docs)]

/// The world's bodies to read (`sims::Bodies`), borrowing only its
/// `bodies` and `sims` fields, so that other fields can be changed beside.
macro_rules! bodies_of {
    ($world:expr) => {
        $crate::world::Bodies {
            records: &$world.bodies,
            sims: &$world.sims,
        }
    };
}

pub mod body;
pub mod collider;
pub mod dim;
pub mod error;
pub mod events;
pub mod joint;
pub mod math;
mod parallel;
pub mod pipeline;
pub mod query;
pub mod settings;
pub mod shape;
mod sleep;
pub mod world;

pub use body::{Body, BodyDesc, BodyHandle, BodyKind, BodyMut, Locks, RemovedBody};
pub use collider::{Collider, ColliderDesc, ColliderHandle, CollisionFilter};
pub use dim::Dim;
pub use error::WorldError;
pub use events::{ContactEvent, SensorEvent};
pub use glam;
pub use joint::{Joint, JointDesc, JointEvent, JointHandle};
pub use math::{Angular, Axes, MathDim, Pose, Rot2, Vector, D2, D3};
pub use pipeline::dim::ManifoldDim;
pub use pipeline::narrow_phase::NarrowPhaseDim;
pub use query::{QueryFilter, QueryHit};
pub use settings::Settings;
pub use shape::ShapeDim;
pub use world::{ContactPair, Recording, ReplayReport, StepProfile, World, WorldState};
#[cfg(feature = "serde")]
pub use world::{LoadError, FORMAT_VERSION};

/// The 2D engine: `Vec2` points, rotations as angles in radians.
pub mod d2 {
    pub use crate::body::{BodyHandle, BodyKind, Locks};
    pub use crate::collider::{ColliderHandle, CollisionFilter};
    pub use crate::error::WorldError;
    pub use crate::events::SensorEvent;
    pub use crate::math::Axes;
    pub use crate::pipeline::narrow_phase::{contact, contact_traced, distance};
    pub use crate::query::QueryFilter;
    pub use crate::shape::{ChainFront, LoopFront, ShapeError};
    #[cfg(feature = "serde")]
    pub use crate::world::LoadError;

    /// The dimension marker type (`tumble::Dim` is the trait it implements).
    pub use crate::math::D2;
    /// A 2D contact that started or stopped touching.
    pub type ContactEvent = crate::events::ContactEvent<crate::math::D2>;
    /// A 2D world.
    pub type World = crate::world::World<crate::math::D2>;
    /// A 2D world's rollback state ([`World::save_state`](crate::world::World::save_state)).
    pub type WorldState = crate::world::WorldState<crate::math::D2>;
    /// A 2D world's recording ([`World::start_recording`](crate::world::World::start_recording)).
    pub type Recording = crate::world::Recording<crate::math::D2>;
    /// 2D world settings.
    pub type Settings = crate::settings::Settings<crate::math::D2>;
    /// A 2D body description.
    pub type BodyDesc = crate::body::BodyDesc<crate::math::D2>;
    /// A 2D collider description.
    pub type ColliderDesc = crate::collider::ColliderDesc<crate::math::D2>;
    /// A 2D body, to read ([`World::body`]).
    pub type Body<'w> = crate::body::Body<'w, crate::math::D2>;
    /// A 2D body, to change ([`World::body_mut`]).
    pub type BodyMut<'w> = crate::body::BodyMut<'w, crate::math::D2>;
    /// A 2D body removed from its world ([`World::remove_body`]).
    pub type RemovedBody = crate::body::RemovedBody<crate::math::D2>;
    /// A 2D convex shape.
    pub type Shape = crate::shape::Shape<crate::math::D2>;
    /// What a 2D shape is.
    pub type ShapeKind = crate::shape::ShapeKind<crate::math::D2>;
    /// A 2D pose: `Pose::new(Vec2, angle)`.
    pub type Pose = crate::math::Pose<crate::math::D2>;
    /// A 2D contact between two shapes: depth, normal, witness points.
    pub type ShapeContact = crate::pipeline::narrow_phase::ShapeContact<crate::math::D2>;
    /// The workings of a 2D contact query: GJK's simplex, EPA's iterations.
    pub type Trace = crate::pipeline::narrow_phase::Trace<crate::glam::Vec2>;
    /// One EPA iteration in 2D.
    pub type EpaStep = crate::pipeline::narrow_phase::EpaStep<crate::glam::Vec2>;
    /// A 2D ray or shape cast hit.
    pub type QueryHit = crate::query::QueryHit<crate::math::D2>;
    /// A 2D bounding box.
    pub type Aabb = crate::shape::Aabb<crate::math::D2>;
    /// 2D mass properties.
    pub type MassProperties = crate::shape::MassProperties<crate::math::D2>;
    /// A 2D joint description.
    pub type JointDesc = crate::joint::JointDesc<crate::math::D2>;
    /// A 2D joint.
    pub type Joint = crate::joint::Joint<crate::math::D2>;
    pub use crate::joint::{JointEvent, JointHandle};
}

/// The 3D engine: `Vec3` points, rotations as unit quaternions.
pub mod d3 {
    pub use crate::body::{BodyHandle, BodyKind, Locks};
    pub use crate::collider::{ColliderHandle, CollisionFilter};
    pub use crate::error::WorldError;
    pub use crate::events::SensorEvent;
    pub use crate::math::Axes;
    pub use crate::pipeline::narrow_phase::{contact, contact_traced, distance};
    pub use crate::query::QueryFilter;
    pub use crate::shape::ShapeError;
    #[cfg(feature = "serde")]
    pub use crate::world::LoadError;

    /// The dimension marker type (`tumble::Dim` is the trait it implements).
    pub use crate::math::D3;
    /// A 3D contact that started or stopped touching.
    pub type ContactEvent = crate::events::ContactEvent<crate::math::D3>;
    /// A 3D world.
    pub type World = crate::world::World<crate::math::D3>;
    /// A 3D world's rollback state ([`World::save_state`](crate::world::World::save_state)).
    pub type WorldState = crate::world::WorldState<crate::math::D3>;
    /// A 3D world's recording ([`World::start_recording`](crate::world::World::start_recording)).
    pub type Recording = crate::world::Recording<crate::math::D3>;
    /// 3D world settings.
    pub type Settings = crate::settings::Settings<crate::math::D3>;
    /// A 3D body description.
    pub type BodyDesc = crate::body::BodyDesc<crate::math::D3>;
    /// A 3D collider description.
    pub type ColliderDesc = crate::collider::ColliderDesc<crate::math::D3>;
    /// A 3D body, to read ([`World::body`]).
    pub type Body<'w> = crate::body::Body<'w, crate::math::D3>;
    /// A 3D body, to change ([`World::body_mut`]).
    pub type BodyMut<'w> = crate::body::BodyMut<'w, crate::math::D3>;
    /// A 3D body removed from its world ([`World::remove_body`]).
    pub type RemovedBody = crate::body::RemovedBody<crate::math::D3>;
    /// A 3D convex shape.
    pub type Shape = crate::shape::Shape<crate::math::D3>;
    /// What a 3D shape is.
    pub type ShapeKind = crate::shape::ShapeKind<crate::math::D3>;
    /// A 3D pose: `Pose::new(Vec3, Quat)`.
    pub type Pose = crate::math::Pose<crate::math::D3>;
    /// A 3D contact between two shapes: depth, normal, witness points.
    pub type ShapeContact = crate::pipeline::narrow_phase::ShapeContact<crate::math::D3>;
    /// The workings of a 3D contact query: GJK's simplex, EPA's iterations.
    pub type Trace = crate::pipeline::narrow_phase::Trace<crate::glam::Vec3>;
    /// One EPA iteration in 3D.
    pub type EpaStep = crate::pipeline::narrow_phase::EpaStep<crate::glam::Vec3>;
    /// A 3D ray or shape cast hit.
    pub type QueryHit = crate::query::QueryHit<crate::math::D3>;
    /// A 3D bounding box.
    pub type Aabb = crate::shape::Aabb<crate::math::D3>;
    /// 3D mass properties.
    pub type MassProperties = crate::shape::MassProperties<crate::math::D3>;
    /// A 3D joint description.
    pub type JointDesc = crate::joint::JointDesc<crate::math::D3>;
    /// A 3D joint.
    pub type Joint = crate::joint::Joint<crate::math::D3>;
    pub use crate::joint::{JointEvent, JointHandle};
}

/// The README's examples, compiled and run as doctests so that they stay
/// true (with the `serde` feature, which one of them uses, as the
/// workspace's test command builds the engine).
#[cfg(all(doctest, feature = "serde"))]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
