//! Shapes in their local frame: the convex ball, cuboid, capsule and convex
//! hull (a polygon in 2D, a polyhedron in 3D), and the static surfaces a
//! level is made of (a triangle mesh or heightfield in 3D, a chain in 2D),
//! which are made of convex facets.
//!
//! Each shape is validated when built, offers a support function
//! ([`SupportMap`]), a bounding box for a pose and mass properties from a
//! density. Rounded shapes are a *core* (a point for the ball, a segment for
//! the capsule) grown by a radius: the narrow phase runs on the core and adds
//! the radius, which is both faster and exact. A surface has no mass and no
//! support of its own: the narrow phase meets its facets one by one.

mod aabb;
pub(crate) mod bvh;
mod convex_hull;
mod convex_polygon;
mod dim;
mod error;
mod facet;
pub(crate) mod mass;
mod support;
mod surface;

pub use aabb::Aabb;
pub use bvh::Bvh;
pub use convex_hull::ConvexHull;
pub use convex_polygon::ConvexPolygon;
pub use dim::ShapeDim;
pub use error::ShapeError;
pub(crate) use facet::{clip_to_sides, ClipFace, OwnedSides, OWN_NORMAL_COSINE};
pub use facet::{Facet, FacetFeature, FacetGeometry, Join};
pub use mass::MassProperties;
pub use support::SupportMap;
pub use surface::{ChainFront, LoopFront, Surface, SurfaceSource};

use std::sync::Arc;

use crate::math::{Pose, Vector, D2, D3};
use glam::{Vec2, Vec3};

/// A polygon or polyhedron given by its vertices: what [`ShapeDim::Hull`] is.
pub trait PolytopeShape<V>: SupportMap<V> {
    /// Largest vertex distance from the local origin, metres.
    fn bounding_radius(&self) -> f32;
    /// Smallest width across a face (an edge in 2D), metres.
    fn thickness(&self) -> f32;
    /// How deep the local point `p` lies: its least distance to a face's
    /// plane (an edge's line in 2D), metres; negative outside.
    fn depth_of(&self, p: V) -> f32;
    /// The vertices, in the local frame.
    fn vertices(&self) -> &[V];
    /// A point well inside, in the local frame.
    fn inner_point(&self) -> V;
    /// Hands `found` the face whose outward normal is nearest `dir` (local
    /// frame), one that holds `top`, the vertex farthest along `dir` (its
    /// support): a polygon's edge (2D), or each of the triangles a
    /// polyhedron's face is made of.
    fn for_each_support_face(&self, dir: V, top: V, found: &mut dyn FnMut(&[V]));
}

impl PolytopeShape<Vec2> for ConvexPolygon {
    fn bounding_radius(&self) -> f32 {
        ConvexPolygon::bounding_radius(self)
    }
    fn thickness(&self) -> f32 {
        ConvexPolygon::thickness(self)
    }
    fn depth_of(&self, p: Vec2) -> f32 {
        let vertices = ConvexPolygon::vertices(self);
        let n = vertices.len();
        (0..n)
            .map(|i| {
                let (a, b) = (vertices[i], vertices[(i + 1) % n]);
                // Counter-clockwise: the outward normal is the edge turned
                // clockwise.
                let d = (b - a).normalize_or_zero();
                Vec2::new(d.y, -d.x).dot(a - p)
            })
            .fold(f32::INFINITY, f32::min)
    }
    fn vertices(&self) -> &[Vec2] {
        ConvexPolygon::vertices(self)
    }
    fn inner_point(&self) -> Vec2 {
        ConvexPolygon::inner_point(self)
    }
    fn for_each_support_face(&self, dir: Vec2, top: Vec2, found: &mut dyn FnMut(&[Vec2])) {
        let vertices = ConvexPolygon::vertices(self);
        let n = vertices.len();
        let Some(top) = vertices.iter().position(|&v| v == top) else {
            found(&[top]);
            return;
        };
        // Of the two edges at the top vertex (counter-clockwise: the
        // outward normal of an edge is its direction turned clockwise),
        // the one facing `dir` more.
        let facing = |a: Vec2, b: Vec2| {
            let d = b - a;
            Vec2::new(d.y, -d.x).normalize_or_zero().dot(dir)
        };
        let (before, after) = (vertices[(top + n - 1) % n], vertices[(top + 1) % n]);
        let (here, next) = (vertices[top], after);
        if facing(before, here) > facing(here, next) {
            found(&[before, here]);
        } else {
            found(&[here, next]);
        }
    }
}

impl PolytopeShape<Vec3> for ConvexHull {
    fn bounding_radius(&self) -> f32 {
        ConvexHull::bounding_radius(self)
    }
    fn thickness(&self) -> f32 {
        ConvexHull::thickness(self)
    }
    fn depth_of(&self, p: Vec3) -> f32 {
        let vertices = ConvexHull::vertices(self);
        self.triangles()
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| vertices[i as usize]);
                // Counter-clockwise seen from outside: the outward normal.
                (b - a).cross(c - a).normalize_or_zero().dot(a - p)
            })
            .fold(f32::INFINITY, f32::min)
    }
    fn vertices(&self) -> &[Vec3] {
        ConvexHull::vertices(self)
    }
    fn inner_point(&self) -> Vec3 {
        ConvexHull::inner_point(self)
    }
    fn for_each_support_face(&self, dir: Vec3, top: Vec3, found: &mut dyn FnMut(&[Vec3])) {
        ConvexHull::for_each_support_face(self, dir, top, found);
    }
}

/// Most vertices of a hull whose box ([`Shape::aabb`]) is found by placing
/// every vertex: six supports (one per side of the box) each scan or climb
/// the vertices, so up to about this many, placing each once costs less.
const AABB_BY_VERTICES_MAX: usize = 32;

/// What a [`Shape`] is. Read it with [`Shape::kind`]; build shapes with the
/// validating constructors of [`Shape`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub enum ShapeKind<D: ShapeDim> {
    /// A ball (a disc in 2D) of `radius` metres centred on the local origin.
    Ball {
        /// Radius in metres, > 0.
        radius: f32,
    },
    /// A box centred on the local origin with the given half extents (metres, > 0).
    Cuboid {
        /// Half the side length along each local axis.
        half_extents: D::Vector,
    },
    /// A segment from `(0, -half_height)` to `(0, half_height)` along local Y,
    /// rounded by `radius`.
    Capsule {
        /// Half the length of the core segment, metres, > 0.
        half_height: f32,
        /// Rounding radius, metres, > 0.
        radius: f32,
    },
    /// The convex hull of a point set: a polygon (2D) or polyhedron (3D).
    ConvexHull(D::Hull),
    /// A static surface: a triangle mesh or heightfield (3D), a chain (2D).
    /// It has no mass: it goes on fixed and kinematic bodies only.
    Surface(Arc<Surface<D>>),
    /// One facet of a surface (a segment in 2D, a triangle in 3D), as the
    /// narrow phase meets it: one-sided, smooth across its inactive joins.
    Facet(Facet<D::Vector>),
}

/// The first word of a shape's fingerprint ([`Shape::fingerprint`]), one
/// per kind: any values, as long as they differ.
mod shape_tag {
    pub(super) const BALL: u32 = 1;
    pub(super) const CUBOID: u32 = 2;
    pub(super) const CAPSULE: u32 = 3;
    pub(super) const HULL: u32 = 4;
    pub(super) const SURFACE: u32 = 5;
    pub(super) const FACET: u32 = 6;
}

/// Feeds `eat` the bits of a vector's components (for fingerprints).
pub(crate) fn fingerprint_vector<V: crate::math::SimdWord>(v: V, eat: &mut dyn FnMut(u32)) {
    for x in v.to_word().to_array() {
        eat(x.to_bits());
    }
}

/// A validated convex shape in its own local frame.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct Shape<D: ShapeDim> {
    kind: ShapeKind<D>,
}

fn check_size(name: &'static str, value: f32) -> Result<f32, ShapeError> {
    if !value.is_finite() {
        Err(ShapeError::NotFinite { what: name })
    } else if value <= 0.0 {
        Err(ShapeError::NonPositiveSize { what: name, value })
    } else {
        Ok(value)
    }
}

impl<D: ShapeDim> Shape<D> {
    /// A ball (disc in 2D) of the given radius in metres.
    ///
    /// Errors: [`ShapeError::NotFinite`] or [`ShapeError::NonPositiveSize`].
    pub fn ball(radius: f32) -> Result<Self, ShapeError> {
        let radius = check_size("ball radius", radius)?;
        Ok(Self {
            kind: ShapeKind::Ball { radius },
        })
    }

    /// A box with the given half extents in metres (each > 0).
    pub fn cuboid(half_extents: D::Vector) -> Result<Self, ShapeError> {
        if !half_extents.is_finite() {
            return Err(ShapeError::NotFinite {
                what: "cuboid half extents",
            });
        }
        let smallest = half_extents.min_element();
        if smallest <= 0.0 {
            return Err(ShapeError::NonPositiveSize {
                what: "cuboid half extent",
                value: smallest,
            });
        }
        Ok(Self {
            kind: ShapeKind::Cuboid { half_extents },
        })
    }

    /// A capsule: the segment from `-half_height` to `+half_height` along local
    /// Y, rounded by `radius` (both metres, > 0).
    pub fn capsule(half_height: f32, radius: f32) -> Result<Self, ShapeError> {
        let half_height = check_size("capsule half height", half_height)?;
        let radius = check_size("capsule radius", radius)?;
        Ok(Self {
            kind: ShapeKind::Capsule {
                half_height,
                radius,
            },
        })
    }

    /// Mass, local centre of mass and inertia about it for a uniform
    /// `density` (kg/m² in 2D, kg/m³ in 3D).
    pub fn mass_properties(&self, density: f32) -> MassProperties<D> {
        D::mass_properties(&self.kind, density)
    }

    /// The world-space bounding box of this shape placed at `pose`.
    pub fn aabb(&self, pose: &Pose<D>) -> Aabb<D> {
        match &self.kind {
            ShapeKind::Ball { radius } => Aabb::around(pose.translation, *radius),
            ShapeKind::Cuboid { half_extents } => {
                Aabb::new(-*half_extents, *half_extents).transformed(pose)
            }
            ShapeKind::Surface(surface) => surface.local_aabb().transformed(pose),
            ShapeKind::ConvexHull(hull) if hull.vertices().len() <= AABB_BY_VERTICES_MAX => {
                // Each vertex placed once, with no search: cheaper than a
                // support per side for a hull this small.
                let mut placed = hull.vertices().iter().map(|&v| pose.transform_point(v));
                let first = placed.next().unwrap_or(pose.translation);
                let (min, max) = placed.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p)));
                Aabb::new(min, max)
            }
            _ => Aabb::of_support(|dir| {
                pose.transform_point(self.support(pose.inverse_transform_vector(dir)))
            }),
        }
    }

    /// A static surface of facets (mesh, heightfield or chain) placed in a shape.
    pub fn surface(surface: Surface<D>) -> Self {
        Self {
            kind: ShapeKind::Surface(Arc::new(surface)),
        }
    }

    /// One facet as a shape, for the narrow phase.
    pub(crate) fn facet(facet: Facet<D::Vector>) -> Self {
        Self {
            kind: ShapeKind::Facet(facet),
        }
    }

    /// The surface this shape is, if it is one.
    pub fn as_surface(&self) -> Option<&Surface<D>> {
        match &self.kind {
            ShapeKind::Surface(surface) => Some(surface),
            _ => None,
        }
    }

    /// Feeds `eat` the bits of what the shape is made of: its kind and
    /// sizes, a hull's vertices, a surface's or facet's corners, normals
    /// and joins. Two shapes feed the same words when they are the same
    /// shape, bit for bit (what follows from those, a surface's tree or a
    /// hull's faces, is built from them alike); a world's structure stamp
    /// is made of them (`world/state.rs`). Costs a pass over the shape.
    pub(crate) fn fingerprint(&self, eat: &mut dyn FnMut(u32)) {
        let vector = fingerprint_vector::<D::Vector>;
        match &self.kind {
            ShapeKind::Ball { radius } => {
                eat(shape_tag::BALL);
                eat(radius.to_bits());
            }
            ShapeKind::Cuboid { half_extents } => {
                eat(shape_tag::CUBOID);
                vector(*half_extents, eat);
            }
            ShapeKind::Capsule {
                half_height,
                radius,
            } => {
                eat(shape_tag::CAPSULE);
                eat(half_height.to_bits());
                eat(radius.to_bits());
            }
            ShapeKind::ConvexHull(hull) => {
                eat(shape_tag::HULL);
                for &v in hull.vertices() {
                    vector(v, eat);
                }
            }
            ShapeKind::Surface(surface) => {
                eat(shape_tag::SURFACE);
                surface.fingerprint(eat);
            }
            ShapeKind::Facet(facet) => {
                eat(shape_tag::FACET);
                facet.fingerprint(eat);
            }
        }
    }

    /// True for shapes with no mass (surfaces and facets): they go on
    /// fixed and kinematic bodies only.
    pub fn is_massless(&self) -> bool {
        matches!(self.kind, ShapeKind::Surface(_) | ShapeKind::Facet(_))
    }

    /// What this shape is.
    pub fn kind(&self) -> &ShapeKind<D> {
        &self.kind
    }

    /// The rounding radius added to the core: the ball's and capsule's radius, 0 otherwise.
    pub fn radius(&self) -> f32 {
        match &self.kind {
            ShapeKind::Ball { radius } | ShapeKind::Capsule { radius, .. } => *radius,
            _ => 0.0,
        }
    }

    /// The point of the core nearest `p` (local frame): the centre of a
    /// ball, the nearest point of a capsule's axis segment; `p` itself for
    /// a shape without rounding. A point on a rounded shape's surface is its
    /// core point moved the radius out along the surface normal there, so
    /// the manifold takes a kept point's end on a ball or capsule anew from
    /// its core as the body rolls (`Manifold::refresh`).
    pub(crate) fn core_point(&self, p: D::Vector) -> D::Vector {
        match &self.kind {
            ShapeKind::Ball { .. } => D::Vector::ZERO,
            ShapeKind::Capsule { half_height, .. } => {
                let axis = D::Vector::unit_y();
                axis * p.dot(axis).clamp(-half_height, *half_height)
            }
            _ => p,
        }
    }

    /// True for shapes with flat faces (cuboid, hull): the ones the manifold
    /// perturbs to gather several contact points.
    pub fn is_polyhedral(&self) -> bool {
        matches!(
            self.kind,
            ShapeKind::Cuboid { .. } | ShapeKind::ConvexHull(_) | ShapeKind::Facet(_)
        )
    }

    /// A point well inside the shape, local frame: its centre, or for a
    /// hull the average of its vertices (the origin may lie anywhere, even
    /// on the surface). One-sided surfaces ask on which side of a facet a
    /// shape is by this point: `narrow_phase::surface`.
    pub fn inner_point(&self) -> D::Vector {
        match &self.kind {
            ShapeKind::ConvexHull(hull) => hull.inner_point(),
            _ => D::Vector::ZERO,
        }
    }

    /// Hands `found` the core's face (its corners in order) whose outward
    /// normal is nearest `dir` (local frame), `top` being the shape's
    /// support along `dir` (read by hulls and polygons, whose face holds
    /// it): a box's face (an edge in 2D),
    /// each triangle of a hull's face or a polygon's edge
    /// (`PolytopeShape::for_each_support_face`), a capsule's segment, a
    /// ball's centre; false, handing nothing, for a surface or facet.
    pub(crate) fn for_each_support_face(
        &self,
        dir: D::Vector,
        top: D::Vector,
        found: &mut dyn FnMut(&[D::Vector]),
    ) -> bool {
        match &self.kind {
            ShapeKind::Ball { .. } => found(&[D::Vector::ZERO]),
            ShapeKind::Capsule { half_height, .. } => found(&[
                D::Vector::unit_y() * *half_height,
                D::Vector::unit_y() * -*half_height,
            ]),
            ShapeKind::Cuboid { half_extents } => {
                let (face, count) = D::cuboid_face(*half_extents, dir);
                found(&face[..count]);
            }
            ShapeKind::ConvexHull(hull) => hull.for_each_support_face(dir, top, found),
            ShapeKind::Surface(_) | ShapeKind::Facet(_) => return false,
        }
        true
    }

    /// Calls `f` with each vertex of the shape's core (a box's or hull's
    /// own vertices, a ball's centre, a capsule's two ends: the full shape
    /// is the core grown by [`Shape::radius`]), in the local frame; false,
    /// calling nothing, for a surface or facet.
    pub fn for_each_core_vertex(&self, mut f: impl FnMut(D::Vector)) -> bool {
        match &self.kind {
            ShapeKind::Ball { .. } => f(D::Vector::ZERO),
            ShapeKind::Capsule { half_height, .. } => {
                f(D::Vector::unit_y() * *half_height);
                f(D::Vector::unit_y() * -*half_height);
            }
            ShapeKind::Cuboid { half_extents } => {
                let (corners, count) = D::cuboid_corners(*half_extents);
                corners[..count].iter().for_each(|&c| f(c));
            }
            ShapeKind::ConvexHull(hull) => hull.vertices().iter().for_each(|&v| f(v)),
            ShapeKind::Surface(_) | ShapeKind::Facet(_) => return false,
        }
        true
    }

    /// Radius of the smallest origin-centred ball holding the shape, metres.
    pub fn bounding_radius(&self) -> f32 {
        match &self.kind {
            ShapeKind::Ball { radius } => *radius,
            ShapeKind::Cuboid { half_extents } => half_extents.length(),
            ShapeKind::Capsule {
                half_height,
                radius,
            } => half_height + radius,
            ShapeKind::ConvexHull(hull) => hull.bounding_radius(),
            ShapeKind::Surface(surface) => surface.bounding_radius(),
            ShapeKind::Facet(facet) => facet
                .corners()
                .iter()
                .map(|c| c.length())
                .fold(0.0, f32::max),
        }
    }

    /// The shape's smallest width, metres: a ball's or capsule's diameter
    /// across its core, a box's shortest side, a hull's least width across
    /// one of its faces; a surface's or facet's is unbounded (the level
    /// behind it counts as solid), so a pair's distances scale with the
    /// body on it. Contact distances that must resolve the shape's
    /// features (the corners of a small box) scale with it.
    pub fn thickness(&self) -> f32 {
        match &self.kind {
            ShapeKind::Ball { radius } | ShapeKind::Capsule { radius, .. } => 2.0 * radius,
            ShapeKind::Cuboid { half_extents } => 2.0 * half_extents.min_element(),
            ShapeKind::ConvexHull(hull) => hull.thickness(),
            ShapeKind::Surface(_) | ShapeKind::Facet(_) => f32::INFINITY,
        }
    }

    /// How deep the local point `p` lies inside the shape: its least
    /// distance to the surface, metres (a box's, hull's or polygon's least
    /// distance to a face's plane); 0 or less outside, 0 for a surface or
    /// facet, which has no inside. A body turning about a point this deep
    /// in one of its shapes keeps the ball of this radius about it covered
    /// (`world/continuous.rs`).
    pub(crate) fn depth_of(&self, p: D::Vector) -> f32 {
        match &self.kind {
            ShapeKind::Ball { radius } => radius - p.length(),
            ShapeKind::Capsule {
                half_height,
                radius,
            } => {
                let along = p.dot(D::Vector::unit_y()).clamp(-half_height, *half_height);
                radius - (p - D::Vector::unit_y() * along).length()
            }
            ShapeKind::Cuboid { half_extents } => (*half_extents - p.abs()).min_element(),
            ShapeKind::ConvexHull(hull) => hull.depth_of(p),
            ShapeKind::Surface(_) | ShapeKind::Facet(_) => 0.0,
        }
    }

    /// The core's support point: the ball's centre, the capsule's segment end,
    /// or the polytope's or facet's farthest vertex along `dir` (local
    /// frame). A surface, not being convex, answers with its bounding
    /// box's corner: the narrow phase meets its facets instead.
    #[inline]
    pub fn core_support(&self, dir: D::Vector) -> D::Vector {
        match &self.kind {
            ShapeKind::Ball { .. } => D::Vector::ZERO,
            ShapeKind::Cuboid { half_extents } => support::cuboid_support(*half_extents, dir),
            ShapeKind::Capsule { half_height, .. } => {
                let axis = D::Vector::unit_y();
                if dir.dot(axis) >= 0.0 {
                    axis * *half_height
                } else {
                    axis * -*half_height
                }
            }
            ShapeKind::ConvexHull(hull) => hull.support(dir),
            ShapeKind::Facet(facet) => facet.support(dir),
            ShapeKind::Surface(surface) => {
                let aabb = surface.local_aabb();
                let center = (aabb.min + aabb.max) * 0.5;
                center + support::cuboid_support((aabb.max - aabb.min) * 0.5, dir)
            }
        }
    }
}

impl Shape<D2> {
    /// A chain: the polyline through `points`, back to the first when
    /// `closed`, for fixed and kinematic bodies. One-sided, as Box2D's
    /// chains: each segment collides on the **right** of its direction (a
    /// counter-clockwise loop is solid inside; a ground line runs from
    /// right to left), and bodies slide across its joins with no bump.
    /// **A ground drawn left to right faces down, and everything falls
    /// through it**: name the side at the call with
    /// [`Shape::one_sided_chain`] (`ChainFront::Left` for such a ground) or
    /// [`Shape::one_sided_loop`].
    ///
    /// Errors: see [`Surface::chain`].
    pub fn chain(points: &[Vec2], closed: bool) -> Result<Self, ShapeError> {
        Ok(Self::surface(Surface::chain(points, closed)?))
    }

    /// An open chain through `points` that bodies collide with on its
    /// `front` side, left or right of the direction from the first point
    /// to the last: a ground drawn left to right is
    /// `Shape::one_sided_chain(&points, ChainFront::Left)`. A body behind
    /// it (in the solid) passes through; no chain is two-sided.
    ///
    /// Errors: see [`Surface::one_sided_chain`].
    pub fn one_sided_chain(points: &[Vec2], front: ChainFront) -> Result<Self, ShapeError> {
        Ok(Self::surface(Surface::one_sided_chain(points, front)?))
    }

    /// A closed loop through `points`, in either order, that bodies
    /// collide with from `front`: `LoopFront::Outside` for an island or a
    /// floating platform (solid inside), `LoopFront::Inside` for a room or
    /// a cave; the winding is found and each segment turned to face that
    /// side.
    ///
    /// Errors: see [`Surface::one_sided_loop`] (a loop enclosing no area
    /// is [`ShapeError::Degenerate`]).
    pub fn one_sided_loop(points: &[Vec2], front: LoopFront) -> Result<Self, ShapeError> {
        Ok(Self::surface(Surface::one_sided_loop(points, front)?))
    }

    /// The convex polygon around `points` (any order; interior and collinear
    /// points are dropped).
    ///
    /// Errors: [`ShapeError::NotFinite`], [`ShapeError::TooFewPoints`] (fewer
    /// than 3), [`ShapeError::Degenerate`] (all points on one line).
    pub fn convex_polygon(points: &[Vec2]) -> Result<Self, ShapeError> {
        Ok(Self {
            kind: ShapeKind::ConvexHull(ConvexPolygon::new(points)?),
        })
    }
}

impl Shape<D3> {
    /// A triangle mesh over `vertices`, each triangle's corners
    /// counter-clockwise seen from its front (the side bodies stay on),
    /// for fixed and kinematic bodies. Zero-area triangles are dropped
    /// ([`Surface::dropped_facets`]); bodies slide across the joins of
    /// flat or concave neighbours with no bump. **One-sided: a body behind
    /// a triangle passes through it**, so a floor wound clockwise seen from
    /// above drops everything (check `surface.facets()[i].normal()`; swap
    /// two indices of each triangle to turn it over).
    ///
    /// Errors: see [`Surface::triangle_mesh`].
    pub fn triangle_mesh(vertices: &[Vec3], indices: &[[u32; 3]]) -> Result<Self, ShapeError> {
        Ok(Self::surface(Surface::triangle_mesh(vertices, indices)?))
    }

    /// A heightfield: `rows` x `columns` row-major `heights`, the grid
    /// `scale.x` by `scale.z` metres centred on the local origin, heights
    /// times `scale.y`, front up (+Y of its body: a body below it passes
    /// through); for fixed and kinematic bodies.
    ///
    /// Errors: see [`Surface::heightfield`].
    pub fn heightfield(
        heights: &[f32],
        rows: usize,
        columns: usize,
        scale: Vec3,
    ) -> Result<Self, ShapeError> {
        Ok(Self::surface(Surface::heightfield(
            heights, rows, columns, scale,
        )?))
    }

    /// The convex hull of `points` (any order; interior points are dropped).
    ///
    /// Errors: [`ShapeError::NotFinite`], [`ShapeError::TooFewPoints`] (fewer
    /// than 4), [`ShapeError::Degenerate`] (all points on one plane).
    pub fn convex_hull(points: &[Vec3]) -> Result<Self, ShapeError> {
        Ok(Self {
            kind: ShapeKind::ConvexHull(ConvexHull::new(points)?),
        })
    }
}

impl<D: ShapeDim> SupportMap<D::Vector> for Shape<D> {
    /// The full shape's support point, radius included.
    #[inline]
    fn support(&self, dir: D::Vector) -> D::Vector {
        let core = self.core_support(dir);
        let radius = self.radius();
        if radius == 0.0 {
            return core;
        }
        let len = dir.length();
        if len > 0.0 {
            core + dir * (radius / len)
        } else {
            core
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_reject_bad_sizes() {
        assert!(matches!(
            Shape::<D3>::ball(0.0),
            Err(ShapeError::NonPositiveSize { .. })
        ));
        assert!(matches!(
            Shape::<D3>::ball(f32::NAN),
            Err(ShapeError::NotFinite { .. })
        ));
        assert!(matches!(
            Shape::<D2>::cuboid(Vec2::new(1.0, -1.0)),
            Err(ShapeError::NonPositiveSize { .. })
        ));
        assert!(matches!(
            Shape::<D3>::cuboid(Vec3::new(1.0, f32::INFINITY, 1.0)),
            Err(ShapeError::NotFinite { .. })
        ));
        assert!(matches!(
            Shape::<D3>::capsule(1.0, 0.0),
            Err(ShapeError::NonPositiveSize { .. })
        ));
        assert!(Shape::<D3>::capsule(0.5, 0.25).is_ok());
    }

    #[test]
    fn depth_of_is_the_distance_to_the_surface_inside() {
        let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
        let ball = Shape::<D3>::ball(1.0).unwrap();
        assert!(close(ball.depth_of(Vec3::new(0.25, 0.0, 0.0)), 0.75));
        let capsule = Shape::<D2>::capsule(0.5, 0.25).unwrap();
        let off = Vec2::new(0.1, 0.2).length();
        assert!(close(capsule.depth_of(Vec2::new(0.1, 0.7)), 0.25 - off));
        let cuboid = Shape::<D3>::cuboid(Vec3::new(0.5, 1.0, 2.0)).unwrap();
        assert!(close(cuboid.depth_of(Vec3::new(0.1, 0.2, -0.3)), 0.4));
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(1.0, 1.0, 1.0)
                    - 2.0 * Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, (i >> 2) as f32)
            })
            .collect();
        let hull = Shape::<D3>::convex_hull(&corners).unwrap();
        assert!(close(hull.depth_of(Vec3::new(0.5, 0.0, 0.0)), 0.5));
        assert!(hull.depth_of(Vec3::new(1.5, 0.0, 0.0)) < 0.0);
        let square =
            [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)].map(|(x, y)| Vec2::new(x, y));
        let polygon = Shape::<D2>::convex_polygon(&square).unwrap();
        assert!(close(polygon.depth_of(Vec2::new(0.0, 0.25)), 0.75));
        assert!(polygon.depth_of(Vec2::new(0.0, 1.25)) < 0.0);
    }

    #[test]
    fn rounded_support_adds_radius() {
        let capsule = Shape::<D3>::capsule(0.5, 0.25).unwrap();
        let s = capsule.support(Vec3::new(0.0, 2.0, 0.0));
        assert!((s - Vec3::new(0.0, 0.75, 0.0)).length() < 1e-6);
        let ball = Shape::<D2>::ball(2.0).unwrap();
        assert!((ball.support(Vec2::new(3.0, 4.0)) - Vec2::new(1.2, 1.6)).length() < 1e-6);
    }

    #[test]
    fn turned_cuboid_box_matches_its_support_box() {
        let cuboid = Shape::<D3>::cuboid(Vec3::new(0.5, 1.0, 2.0)).unwrap();
        let pose = Pose::new(
            Vec3::new(1.0, -2.0, 3.0),
            glam::Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 0.7),
        );
        let by_support = Aabb::<D3>::of_support(|dir| {
            pose.transform_point(cuboid.support(pose.inverse_transform_vector(dir)))
        });
        let aabb = cuboid.aabb(&pose);
        assert!((aabb.min - by_support.min).length() < 1e-5);
        assert!((aabb.max - by_support.max).length() < 1e-5);
        let square = Shape::<D2>::cuboid(Vec2::new(0.5, 2.0)).unwrap();
        let pose = Pose::new(Vec2::new(-1.0, 4.0), 2.0);
        let by_support = Aabb::<D2>::of_support(|dir| {
            pose.transform_point(square.support(pose.inverse_transform_vector(dir)))
        });
        let aabb = square.aabb(&pose);
        assert!((aabb.min - by_support.min).length() < 1e-5);
        assert!((aabb.max - by_support.max).length() < 1e-5);
    }

    #[test]
    fn a_turned_hull_s_box_is_its_support_box() {
        // Small hulls place their vertices, large ones take supports: both
        // give the box of the supports, in 3D and 2D.
        let mut state = 0x9e37_79b9_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        };
        for count in [4, 9, 20, AABB_BY_VERTICES_MAX, 80] {
            let points: Vec<Vec3> = (0..count)
                .map(|_| Vec3::new(next(), next(), next()))
                .collect();
            let hull = Shape::<D3>::convex_hull(&points).unwrap();
            let flat: Vec<Vec2> = points.iter().map(|p| p.truncate()).collect();
            let polygon = Shape::<D2>::convex_polygon(&flat).unwrap();
            for _ in 0..20 {
                let axis = Vec3::new(next(), next(), next()).normalize_or(Vec3::X);
                let pose = Pose::<D3>::new(
                    Vec3::new(next(), next(), next()) * 50.0,
                    glam::Quat::from_axis_angle(axis, 3.0 * next()),
                );
                let by_support = Aabb::<D3>::of_support(|dir| {
                    pose.transform_point(hull.support(pose.inverse_transform_vector(dir)))
                });
                let aabb = hull.aabb(&pose);
                assert!((aabb.min - by_support.min).length() < 1e-4, "{count}");
                assert!((aabb.max - by_support.max).length() < 1e-4, "{count}");
                let pose = Pose::<D2>::new(Vec2::new(next(), next()) * 50.0, 3.0 * next());
                let by_support = Aabb::<D2>::of_support(|dir| {
                    pose.transform_point(polygon.support(pose.inverse_transform_vector(dir)))
                });
                let aabb = polygon.aabb(&pose);
                assert!((aabb.min - by_support.min).length() < 1e-4, "{count}");
                assert!((aabb.max - by_support.max).length() < 1e-4, "{count}");
            }
        }
    }
}
