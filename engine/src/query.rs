//! Scene queries, answered through the broad phase (never a scan of every
//! body): ray casts, shape casts, and point, box and shape overlaps, each
//! with a [`QueryFilter`]: collision groups that a collider's
//! [`CollisionFilter`] must admit, optionally one body left out (the
//! player casting from its own centre) and sensors skipped.
//!
//! Why a body can be left out: a cast starting inside a collider hits it at
//! distance 0, so a ray from a player's centre would only ever find the
//! player. Guarded by `filters_leave_out_a_body_and_sensors_2d`/`_3d` in
//! `tests/queries.rs`, which run all six queries with and without the
//! player and the sensors.
//!
//! Results come in a fixed order: casts by distance, then by handle;
//! overlaps by handle.

use crate::body::BodyHandle;
use crate::collider::Collider;
use crate::collider::{ColliderHandle, CollisionFilter};
use crate::dim::Dim;
use crate::math::{Pose, Vector};
use crate::pipeline::narrow_phase::cast::{contains_point, ray_cast, shape_cast, CastHit};
use crate::pipeline::narrow_phase::contact;
use crate::pipeline::narrow_phase::surface::surface_cast;
use crate::shape::{Aabb, Shape};
use crate::world::{collider_of, World};

/// Rays and casts longer than this (metres) are cut to it.
pub const MAX_CAST_DISTANCE: f32 = 1.0e6;

/// Which colliders a scene query considers: those whose collision filter
/// admits `groups`, not on `exclude_body`, and not sensors when
/// `exclude_sensors` is set. The default considers everything.
///
/// ```
/// use tumble::d2::*;
/// use tumble::glam::Vec2;
///
/// let mut world = World::new(Settings::default());
/// let ground = Shape::cuboid(Vec2::new(20.0, 0.5)).unwrap();
/// world.add_body(BodyDesc::fixed().position(Vec2::new(0.0, -0.5)), ColliderDesc::new(ground)).unwrap();
/// let player = world
///     .add_body(BodyDesc::dynamic().position(Vec2::new(0.0, 2.0)), ColliderDesc::new(Shape::ball(0.5).unwrap()))
///     .unwrap();
/// // From the player's centre, the ray first meets the player itself...
/// let down = Vec2::new(0.0, -1.0);
/// let hit = world.cast_ray(Vec2::new(0.0, 2.0), down, 10.0, &QueryFilter::default()).unwrap();
/// assert_eq!(hit.body, player);
/// // ...unless the player (and any sensor) is left out: then it finds the
/// // ground, 2 m below.
/// let filter = QueryFilter::default().excluding(player).without_sensors();
/// let hit = world.cast_ray(Vec2::new(0.0, 2.0), down, 10.0, &filter).unwrap();
/// assert_ne!(hit.body, player);
/// assert!((hit.distance - 2.0).abs() < 1e-4);
/// // Collision groups alone convert: `CollisionFilter` into `QueryFilter`.
/// let nothing = QueryFilter::from(CollisionFilter { category: 2, mask: 2 });
/// assert!(world.cast_ray(Vec2::new(0.0, 2.0), down, 10.0, &nothing).is_none());
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct QueryFilter {
    /// The query's collision groups: a collider is considered when its
    /// [`CollisionFilter`] admits these (default: everything).
    pub groups: CollisionFilter,
    /// A body whose colliders are left out, if any (default: none).
    pub exclude_body: Option<BodyHandle>,
    /// When true, sensors are left out (default: false).
    pub exclude_sensors: bool,
}

impl QueryFilter {
    /// This filter, also leaving out every collider of `body`.
    pub fn excluding(mut self, body: BodyHandle) -> Self {
        self.exclude_body = Some(body);
        self
    }

    /// This filter with the collision groups `groups`.
    pub fn groups(mut self, groups: CollisionFilter) -> Self {
        self.groups = groups;
        self
    }

    /// This filter, also leaving out sensors.
    pub fn without_sensors(mut self) -> Self {
        self.exclude_sensors = true;
        self
    }

    /// True when the query considers `collider`, on `body`.
    pub fn admits<D: Dim>(&self, body: BodyHandle, collider: &Collider<D>) -> bool {
        collider.filter.admits(&self.groups)
            && self.exclude_body != Some(body)
            && !(self.exclude_sensors && collider.sensor)
    }
}

impl From<CollisionFilter> for QueryFilter {
    /// A filter with these collision groups that leaves nothing else out.
    fn from(groups: CollisionFilter) -> Self {
        Self::default().groups(groups)
    }
}

/// Where a ray or a cast shape first touches a body, in world space.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct QueryHit<D: Dim> {
    /// The body hit.
    pub body: BodyHandle,
    /// Its collider that was hit.
    pub collider: ColliderHandle,
    /// Distance travelled along the unit direction, metres.
    pub distance: f32,
    /// The touching point, on the body's surface.
    pub point: D::Vector,
    /// The body's outward unit surface normal there.
    pub normal: D::Vector,
    /// On a surface (mesh, heightfield, chain), the facet hit: its index
    /// in [`crate::shape::Surface::facets`].
    pub facet: Option<u32>,
}

/// A ray (`moving` is `None`) or shape cast against `target`, with the
/// facet hit when `target` is a surface.
fn cast_with_facet<D: Dim>(
    target: &Shape<D>,
    pose: &Pose<D>,
    moving: Option<&Shape<D>>,
    start: &Pose<D>,
    direction: D::Vector,
    reach: f32,
) -> Option<(CastHit<D>, Option<u32>)> {
    match target.as_surface() {
        Some(surface) => surface_cast(surface, pose, moving, start, direction, reach)
            .map(|(hit, facet)| (hit, Some(facet))),
        None => match moving {
            None => ray_cast(target, pose, start.translation, direction, reach),
            Some(m) => shape_cast(target, pose, m, start, direction, reach),
        }
        .map(|hit| (hit, None)),
    }
}

/// A cast's unit direction and how far it reaches, or `None` for a zero,
/// NaN or infinite direction or a negative or NaN distance.
fn cast_motion<D: Dim>(direction: D::Vector, max_distance: f32) -> Option<(D::Vector, f32)> {
    let length = direction.length();
    let valid = length > 0.0 && length.is_finite() && max_distance >= 0.0;
    valid.then(|| {
        (
            direction * (1.0 / length),
            max_distance.min(MAX_CAST_DISTANCE),
        )
    })
}

impl<D: Dim> QueryHit<D> {
    fn new(
        body: BodyHandle,
        collider: &Collider<D>,
        (hit, facet): (CastHit<D>, Option<u32>),
    ) -> Self {
        Self {
            body,
            collider: collider.handle,
            distance: hit.distance,
            point: hit.point,
            normal: hit.normal,
            facet,
        }
    }
}

impl<D: Dim> World<D> {
    /// Colliders whose broad-phase boxes overlap `aabb` and that `filter`
    /// admits, with their bodies and world poses, by handle.
    fn candidates(
        &self,
        aabb: &Aabb<D>,
        filter: &QueryFilter,
    ) -> Vec<(BodyHandle, &Collider<D>, Pose<D>)> {
        let mut keys = Vec::new();
        if !(aabb.min.is_finite() && aabb.max.is_finite()) {
            return Vec::new();
        }
        self.broad_phase.query(aabb, |key| {
            keys.push(collider_of(key));
            true
        });
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .filter_map(|c| self.collider(c))
            .filter(|(body, collider, _)| filter.admits(*body, collider))
            .collect()
    }

    /// Bodies among `found`, each once, by handle.
    fn distinct_bodies(found: impl Iterator<Item = BodyHandle>) -> Vec<BodyHandle> {
        let mut bodies: Vec<BodyHandle> = found.collect();
        bodies.sort();
        bodies.dedup();
        bodies
    }

    /// The box swept by a cast from `from` along unit `direction` for `distance`.
    fn swept_box(from: Aabb<D>, direction: D::Vector, distance: f32) -> Aabb<D> {
        let moved = direction * distance;
        from.union(&Aabb::new(from.min + moved, from.max + moved))
    }

    /// Every collider the ray from `origin` along `direction` meets within
    /// `max_distance` metres, nearest first. `direction` need not be unit length.
    pub fn cast_ray_all(
        &self,
        origin: D::Vector,
        direction: D::Vector,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Vec<QueryHit<D>> {
        let Some((dir, reach)) =
            cast_motion::<D>(direction, max_distance).filter(|_| origin.is_finite())
        else {
            return Vec::new();
        };
        let swept = Self::swept_box(Aabb::new(origin, origin), dir, reach);
        let mut hits: Vec<QueryHit<D>> = self
            .candidates(&swept, filter)
            .into_iter()
            .filter_map(|(body, collider, pose)| {
                let start = Pose::from_translation(origin);
                let hit = cast_with_facet(&collider.shape, &pose, None, &start, dir, reach)?;
                Some(QueryHit::new(body, collider, hit))
            })
            .collect();
        hits.sort_by(|a, b| {
            a.distance
                .total_cmp(&b.distance)
                .then(a.collider.cmp(&b.collider))
        });
        hits
    }

    /// The nearest collider the ray meets, if any; see [`World::cast_ray_all`].
    pub fn cast_ray(
        &self,
        origin: D::Vector,
        direction: D::Vector,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Option<QueryHit<D>> {
        self.cast_ray_all(origin, direction, max_distance, filter)
            .into_iter()
            .next()
    }

    /// The first collider that `shape`, starting at `pose` and translated
    /// along `direction`, touches within `max_distance` metres.
    pub fn cast_shape(
        &self,
        shape: &Shape<D>,
        pose: &Pose<D>,
        direction: D::Vector,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Option<QueryHit<D>> {
        let (dir, reach) =
            cast_motion::<D>(direction, max_distance).filter(|_| pose.is_finite())?;
        let swept = Self::swept_box(shape.aabb(pose), dir, reach);
        self.candidates(&swept, filter)
            .into_iter()
            .filter_map(|(body, collider, at)| {
                let hit = cast_with_facet(&collider.shape, &at, Some(shape), pose, dir, reach)?;
                Some(QueryHit::new(body, collider, hit))
            })
            .min_by(|a, b| {
                a.distance
                    .total_cmp(&b.distance)
                    .then(a.collider.cmp(&b.collider))
            })
    }

    /// Bodies containing `point`, by handle.
    pub fn bodies_at_point(&self, point: D::Vector, filter: &QueryFilter) -> Vec<BodyHandle> {
        let found = self
            .candidates(&Aabb::new(point, point), filter)
            .into_iter();
        Self::distinct_bodies(
            found
                .filter(|(_, c, at)| contains_point(&c.shape, at, point))
                .map(|(b, _, _)| b),
        )
    }

    /// Bodies with a collider whose tight bounding box overlaps `aabb`
    /// (for a surface, the box of one of its facets), by handle.
    pub fn bodies_in_aabb(&self, aabb: &Aabb<D>, filter: &QueryFilter) -> Vec<BodyHandle> {
        let found = self.candidates(aabb, filter).into_iter();
        let overlaps = |c: &Collider<D>, at: &Pose<D>| match c.shape.as_surface() {
            Some(surface) => {
                // The query box seen from the surface's frame holds it.
                let local = aabb.transformed(&at.inverse());
                let mut near = Vec::new();
                surface.facets_in(&local, &mut near);
                near.iter().any(|&i| {
                    let facet = Shape::facet(surface.facets()[i as usize]);
                    facet.aabb(at).overlaps(aabb)
                })
            }
            None => c.shape.aabb(at).overlaps(aabb),
        };
        Self::distinct_bodies(
            found
                .filter(|(_, c, at)| overlaps(c, at))
                .map(|(b, _, _)| b),
        )
    }

    /// Bodies with a collider that overlaps `shape` at `pose`, by handle.
    pub fn bodies_overlapping(
        &self,
        shape: &Shape<D>,
        pose: &Pose<D>,
        filter: &QueryFilter,
    ) -> Vec<BodyHandle> {
        if !pose.is_finite() {
            return Vec::new();
        }
        let found = self.candidates(&shape.aabb(pose), filter).into_iter();
        Self::distinct_bodies(
            found
                .filter(|(_, c, at)| contact(&c.shape, at, shape, pose).is_some())
                .map(|(b, _, _)| b),
        )
    }
}
