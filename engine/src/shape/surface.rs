//! Surfaces: static, non-convex level geometry made of one-sided facets, a
//! chain of segments (2D) or a triangle mesh or heightfield (3D), in the
//! surface's own frame. The narrow phase meets each facet near a body as a
//! convex shape of its own; the surface finds those facets and tells each
//! what lies across its borders, so that bodies slide over the joins.
//!
//! Building a surface:
//! 1. Check the input, each fault with its own [`ShapeError`]: numbers are
//!    finite, sizes positive, indices in range, no triangle names a vertex
//!    twice, a heightfield has rows × columns samples, and there are at
//!    most `u32::MAX` facets (facets are named by `u32`).
//! 2. Make the facets. Those that span no length or area are dropped and
//!    counted ([`Surface::dropped_facets`]), a triangle counting as such when
//!    its height over its longest edge is below [`SLIVER_RATIO`]; only a
//!    surface left with none is refused. A chain's segment `i` runs from
//!    point `i` to `i + 1`, its front on the right ([`Surface::chain`]);
//!    [`Surface::one_sided_chain`] and [`Surface::one_sided_loop`] run
//!    every segment the other way, keeping its index, when the side named
//!    is the left of the points' order, or when a loop's winding (the sign
//!    of its signed area) puts the side named on the left
//!    (`one_sided_chains_face_the_side_named`; `tests/level_geometry.rs`,
//!    `a_box_rests_on_a_ground_chain_drawn_left_to_right_with_its_front_named`
//!    and the tests beside it).
//! 3. Find what lies across each facet's borders (its joins):
//!    - 3D: weld corners by exact position (the bits of the three
//!      coordinates, -0.0 read as 0.0) and key each edge by its two welded
//!      corners, sorted. An edge used by exactly two facets that run along
//!      it in opposite directions (consistent winding) joins them; every
//!      other edge (a border, a non-manifold edge of three or more facets,
//!      two facets wound against each other) is free. A heightfield's
//!      triangles go through the same code.
//!    - 2D: each kept segment's end joins the next kept segment's start
//!      (and the last the first when the chain is closed); open ends are free.
//!
//!    The kind of a join is [`join_between`]'s, from the two normals and the
//!    height of the neighbour's far corner above the facet's plane; two
//!    facets folded fully back onto each other (a knife edge) are free.
//! 4. Build the [`Bvh`] over the facets' boxes.
//!
//! Limits: welding is exact, so corners apart by rounding do not weld and
//! their edges stay free (weld such data before). A corner where an edge
//! meets the middle of another (a T-junction) is not joined. A surface
//! never changes; a changed level is rebuilt.
//!
//! References: E. Catto, Box2D v3 chain shapes (one-sided segments, ghost
//! vertices); J. Rouwe, Jolt Physics `MeshShape` (active edges).

use std::collections::HashMap;

use glam::{Vec2, Vec3};

use super::bvh::Bvh;
use super::facet::{join_between, Facet, FacetGeometry, Join, OwnedSides, FLAT_JOIN_COSINE};
use super::{Aabb, ShapeDim, ShapeError};
use crate::math::{SimdWord, Vector, D2, D3};

/// A triangle whose height over its longest edge is below this is dropped:
/// its normal, from a cross product rounded to about `f32::EPSILON` of the
/// edges' lengths multiplied, would be tilted by up to `1.2e-7 / 1e-5` rad
/// (0.7 degrees), as much as the flat-join tolerance.
const SLIVER_RATIO: f32 = 1e-5;
/// How far past a box's side, in cells, a heightfield's grid lookup
/// (`Surface::facets_in`) takes the cells there: a corner's coordinate and
/// the cell index found from it are each a few ulps off the exact grid
/// (about 1e-5 of a cell on a grid of a thousand cells), so a box touching
/// a cell's border still finds that cell's triangles.
const CELL_ROUNDING: f32 = 1e-3;
/// Most facets a surface holds: facets are named by `u32`.
const MAX_FACETS: usize = u32::MAX as usize;
/// Fewest samples along each side of a heightfield: two make one cell.
const MIN_GRID_SIDE: usize = 2;
/// Fewest points of an open chain: two make one segment.
const MIN_OPEN_CHAIN_POINTS: usize = 2;
/// Fewest points of a closed chain: three make a loop with an inside.
const MIN_CLOSED_CHAIN_POINTS: usize = 3;

/// What a surface was built from, as the game gave it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SurfaceSource {
    /// Indexed triangles ([`Surface::triangle_mesh`]).
    TriangleMesh,
    /// A grid of heights ([`Surface::heightfield`]).
    HeightField {
        /// Samples along local Z.
        rows: usize,
        /// Samples along local X.
        columns: usize,
        /// Extent along X and Z, metres, and metres per unit of height along Y.
        scale: Vec3,
    },
    /// A polyline ([`Surface::chain`]).
    Chain {
        /// True when the last point joins back to the first.
        closed: bool,
    },
}

/// A static, non-convex surface of one-sided facets in its own local frame,
/// each facet knowing what lies across its borders. Built once by
/// [`Surface::triangle_mesh`], [`Surface::heightfield`], [`Surface::chain`],
/// [`Surface::one_sided_chain`] or [`Surface::one_sided_loop`].
#[derive(Clone, Debug, PartialEq)]
pub struct Surface<D: ShapeDim> {
    /// What it was built from.
    source: SurfaceSource,
    /// The facets kept, with their joins; facet `i` is item `i` of `bvh`.
    facets: Vec<Facet<D::Vector>>,
    /// The facets' boxes, for finding those near a box or a ray.
    bvh: Bvh<D>,
    /// The box around all facets, local frame, metres.
    local_aabb: Aabb<D>,
    /// Largest distance of a corner from the local origin, metres.
    bounding_radius: f32,
    /// Facets dropped for spanning no length or area.
    dropped: usize,
}

/// The word a surface's fingerprint starts with for each source: any
/// values, as long as they differ.
const MESH_TAG: u32 = 1;
const HEIGHTFIELD_TAG: u32 = 2;
const CHAIN_TAG: u32 = 3;

impl<D: ShapeDim> Surface<D> {
    /// Feeds `eat` the bits of what the surface is made of: its source and
    /// its facets with their joins ([`Shape::fingerprint`](super::Shape::fingerprint));
    /// its tree and boxes follow from the facets.
    pub(crate) fn fingerprint(&self, eat: &mut dyn FnMut(u32)) {
        let long = |n: usize, eat: &mut dyn FnMut(u32)| {
            let n = n as u64;
            eat(n as u32);
            eat((n >> u32::BITS) as u32);
        };
        match self.source {
            SurfaceSource::TriangleMesh => eat(MESH_TAG),
            SurfaceSource::HeightField {
                rows,
                columns,
                scale,
            } => {
                eat(HEIGHTFIELD_TAG);
                long(rows, eat);
                long(columns, eat);
                super::fingerprint_vector(scale, eat);
            }
            SurfaceSource::Chain { closed } => {
                eat(CHAIN_TAG);
                eat(u32::from(closed));
            }
        }
        long(self.facets.len(), eat);
        for facet in &self.facets {
            facet.fingerprint(eat);
        }
    }

    /// The surface of these linked `facets` (step 4 of the module docs), each
    /// given what its joins make of it (`Facet::owned`, `smooth`, `gentle`).
    fn assemble(
        source: SurfaceSource,
        mut facets: Vec<Facet<D::Vector>>,
        dropped: usize,
    ) -> Result<Self, ShapeError> {
        for facet in &mut facets {
            facet.owned = facet.owned_outwards();
            facet.smooth = facet.is_smooth();
            facet.gentle = facet.has_gentle_join();
        }
        let boxes: Vec<Aabb<D>> = facets.iter().map(facet_box).collect();
        let Some(&first) = boxes.first() else {
            return Err(ShapeError::AllFacetsDegenerate { dropped });
        };
        let local_aabb = boxes.iter().fold(first, |all, b| all.union(b));
        let bounding_radius = facets
            .iter()
            .flat_map(|f| f.corners())
            .map(|c| c.length())
            .fold(0.0, f32::max);
        Ok(Self {
            source,
            bvh: Bvh::new(&boxes),
            facets,
            local_aabb,
            bounding_radius,
            dropped,
        })
    }

    /// What the surface was built from.
    pub fn source(&self) -> &SurfaceSource {
        &self.source
    }

    /// The facets, with their joins, in the order of the input (triangles,
    /// heightfield cells row by row, or segments) less the dropped ones.
    pub fn facets(&self) -> &[Facet<D::Vector>] {
        &self.facets
    }

    /// Facet `i`, if there is one.
    pub fn facet(&self, i: u32) -> Option<&Facet<D::Vector>> {
        self.facets.get(i as usize)
    }

    /// The sides of the region facet `i` owns (`Facet::owned_sides_from`), from
    /// the normals kept for it. Panics if there is no facet `i`.
    pub(crate) fn owned_sides(&self, i: u32) -> OwnedSides<'_, D::Vector> {
        let facet = &self.facets[i as usize];
        facet.owned_sides_from(&facet.owned)
    }

    /// The hierarchy over the facets' boxes (item `i` is facet `i`).
    pub(crate) fn bvh(&self) -> &Bvh<D> {
        &self.bvh
    }

    /// Local bounding box of all facets.
    pub fn local_aabb(&self) -> Aabb<D> {
        self.local_aabb
    }

    /// Largest distance of a corner from the local origin, metres.
    pub fn bounding_radius(&self) -> f32 {
        self.bounding_radius
    }

    /// Facets whose boxes overlap `aabb` (local frame; touching counts), in
    /// ascending facet index, into `out` (cleared first). A box that is not
    /// finite finds none.
    pub fn facets_in(&self, aabb: &Aabb<D>, out: &mut Vec<u32>) {
        out.clear();
        if self.grid_facets_in(aabb, out) {
            return;
        }
        self.bvh.query(aabb, |i| {
            out.push(i);
            true
        });
        out.sort_unstable();
    }

    /// [`Self::facets_in`] on a heightfield's grid, where a cell's place
    /// gives its facets: the cells under the box (widened by
    /// [`CELL_ROUNDING`] for the rounding of a cell's index), row by row, each cell's two triangles
    /// tested as the BVH tests them (`heightfield_grid_finds_what_the_bvh_finds`),
    /// so in facet order with no sort and no walk down a tree. False, having
    /// found nothing, when the surface is no heightfield with every cell kept
    /// (facet `i` is then not cell `i / 2`'s).
    fn grid_facets_in(&self, aabb: &Aabb<D>, out: &mut Vec<u32>) -> bool {
        let SurfaceSource::HeightField {
            rows,
            columns,
            scale,
        } = self.source
        else {
            return false;
        };
        if self.dropped != 0 {
            return false;
        }
        let (low, high) = (aabb.min.to_word(), aabb.max.to_word());
        if !(low.is_finite() && high.is_finite()) {
            return true;
        }
        let (cell_rows, cell_columns) = (rows - 1, columns - 1);
        // The cell along an axis of `cells` cells over `extent` metres
        // centred on the origin that holds `at`, moved by `slack` cells and
        // clamped to the grid (a float's `as` truncates towards zero and
        // saturates).
        let cell = |at: f32, extent: f32, cells: usize, slack: f32| {
            let t = (at / extent + 0.5) * cells as f32 + slack;
            (t.max(0.0) as usize).min(cells - 1)
        };
        let column_range = (
            cell(low.x, scale.x, cell_columns, -CELL_ROUNDING),
            cell(high.x, scale.x, cell_columns, CELL_ROUNDING),
        );
        let row_range = (
            cell(low.z, scale.z, cell_rows, -CELL_ROUNDING),
            cell(high.z, scale.z, cell_rows, CELL_ROUNDING),
        );
        for r in row_range.0..=row_range.1 {
            for c in column_range.0..=column_range.1 {
                let first = 2 * (r * cell_columns + c);
                for i in first..first + 2 {
                    if facet_box(&self.facets[i]).overlaps(aabb) {
                        out.push(i as u32);
                    }
                }
            }
        }
        true
    }

    /// Number of zero-area (3D) or zero-length (2D) facets dropped when
    /// building: 0 for a heightfield unless a cell is too small or too steep
    /// for `f32` (its height below 1e-5 of its longest edge).
    pub fn dropped_facets(&self) -> usize {
        self.dropped
    }
}

impl Surface<D3> {
    /// Triangles of `indices` over `vertices` (metres); counter-clockwise
    /// seen from the front. Unused vertices are allowed (and checked).
    ///
    /// Errors, in this order: [`ShapeError::EmptySurface`] (no vertices or
    /// no triangles), [`ShapeError::NotFinite`] (a vertex),
    /// [`ShapeError::TooManyFacets`], then for the first faulty triangle
    /// [`ShapeError::IndexOutOfRange`] or [`ShapeError::RepeatedIndex`],
    /// and [`ShapeError::AllFacetsDegenerate`] when every triangle spans no area.
    pub fn triangle_mesh(vertices: &[Vec3], indices: &[[u32; 3]]) -> Result<Self, ShapeError> {
        if vertices.is_empty() {
            return Err(ShapeError::EmptySurface {
                what: "triangle mesh vertices",
            });
        }
        if indices.is_empty() {
            return Err(ShapeError::EmptySurface {
                what: "triangle mesh indices",
            });
        }
        if !vertices.iter().all(|v| v.is_finite()) {
            return Err(ShapeError::NotFinite {
                what: "triangle mesh vertex",
            });
        }
        check_facet_count(indices.len())?;
        for (triangle, &[a, b, c]) in indices.iter().enumerate() {
            if let Some(&index) = [a, b, c].iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(ShapeError::IndexOutOfRange {
                    index,
                    vertices: vertices.len(),
                });
            }
            if a == b || b == c || c == a {
                return Err(ShapeError::RepeatedIndex { triangle });
            }
        }
        let corners = indices.iter().map(|t| t.map(|i| vertices[i as usize]));
        Self::from_triangles(SurfaceSource::TriangleMesh, corners)
    }

    /// A heightfield from row-major `heights` (`rows` × `columns` samples, at
    /// least 2 × 2). Sample (r, c) lies at local
    /// x = (c / (columns - 1) - 0.5) × scale.x, z = (r / (rows - 1) - 0.5) ×
    /// scale.z, y = height × scale.y: the grid is centred on the local origin
    /// in X and Z, and its front faces up (+Y). Each cell makes two
    /// triangles, always split along the diagonal from (r + 1, c) to (r, c + 1).
    ///
    /// Errors, in this order: [`ShapeError::NotFinite`] or
    /// [`ShapeError::NonPositiveSize`] (a scale component),
    /// [`ShapeError::GridTooSmall`], [`ShapeError::WrongSampleCount`],
    /// [`ShapeError::NotFinite`] (a height, or a height times scale.y),
    /// [`ShapeError::TooManyFacets`], [`ShapeError::AllFacetsDegenerate`].
    pub fn heightfield(
        heights: &[f32],
        rows: usize,
        columns: usize,
        scale: Vec3,
    ) -> Result<Self, ShapeError> {
        if !scale.is_finite() {
            return Err(ShapeError::NotFinite {
                what: "heightfield scale",
            });
        }
        if scale.min_element() <= 0.0 {
            return Err(ShapeError::NonPositiveSize {
                what: "heightfield scale",
                value: scale.min_element(),
            });
        }
        if rows < MIN_GRID_SIDE || columns < MIN_GRID_SIDE {
            return Err(ShapeError::GridTooSmall { rows, columns });
        }
        let expected = rows.saturating_mul(columns);
        if heights.len() != expected {
            return Err(ShapeError::WrongSampleCount {
                expected,
                got: heights.len(),
            });
        }
        if !heights.iter().all(|h| h.is_finite()) {
            return Err(ShapeError::NotFinite {
                what: "heightfield height",
            });
        }
        if !heights.iter().all(|h| (h * scale.y).is_finite()) {
            return Err(ShapeError::NotFinite {
                what: "heightfield height times scale.y",
            });
        }
        let (cell_rows, cell_columns) = (rows - 1, columns - 1);
        check_facet_count(cell_rows.saturating_mul(cell_columns).saturating_mul(2))?;
        let sample = move |r: usize, c: usize| {
            Vec3::new(
                (c as f32 / cell_columns as f32 - 0.5) * scale.x,
                heights[r * columns + c] * scale.y,
                (r as f32 / cell_rows as f32 - 0.5) * scale.z,
            )
        };
        let corners = (0..cell_rows).flat_map(move |r| {
            (0..cell_columns).flat_map(move |c| {
                let (p00, p01) = (sample(r, c), sample(r, c + 1));
                let (p10, p11) = (sample(r + 1, c), sample(r + 1, c + 1));
                [[p00, p10, p01], [p01, p10, p11]]
            })
        });
        let source = SurfaceSource::HeightField {
            rows,
            columns,
            scale,
        };
        Self::from_triangles(source, corners)
    }

    /// The surface of these triangles (steps 2 to 4 of the module docs).
    fn from_triangles(
        source: SurfaceSource,
        triangles: impl Iterator<Item = [Vec3; 3]>,
    ) -> Result<Self, ShapeError> {
        let mut facets = Vec::with_capacity(triangles.size_hint().0);
        let mut dropped = 0;
        for corners in triangles {
            match triangle(corners) {
                Some(facet) => facets.push(facet),
                None => dropped += 1,
            }
        }
        link_triangles(&mut facets);
        Self::assemble(source, facets, dropped)
    }
}

impl Surface<D2> {
    /// A polyline through `points` (metres); `closed` adds a segment from
    /// the last point back to the first. One-sided, Box2D's convention: each
    /// segment's front, the side bodies collide with, is on the **right** of
    /// its direction; behind it is the solid, and a body there passes
    /// through. A counter-clockwise loop is solid inside and collides
    /// outside; a ground line runs from right to left. **A ground drawn
    /// left to right faces down: bodies dropped on it fall through.**
    /// [`Surface::one_sided_chain`] and [`Surface::one_sided_loop`] name the
    /// side at the call instead. Segments between equal points are dropped
    /// and counted.
    ///
    /// Errors, in this order: [`ShapeError::EmptySurface`],
    /// [`ShapeError::TooFewPoints`] (2 open, 3 closed),
    /// [`ShapeError::NotFinite`], [`ShapeError::TooManyFacets`],
    /// [`ShapeError::AllFacetsDegenerate`] (all points equal).
    pub fn chain(points: &[Vec2], closed: bool) -> Result<Self, ShapeError> {
        check_chain_points(points, closed)?;
        Self::chain_facing(points, closed, false)
    }

    /// An open polyline through `points` (metres) whose front, the side
    /// bodies collide with and rest on, is on the `front` side of the
    /// direction from the first point to the last: a ground drawn left to
    /// right is `ChainFront::Left` (front up), one drawn right to left
    /// `ChainFront::Right` (as [`Surface::chain`]). Behind the front is the
    /// solid: a body there passes through. Facet `i` is the segment between
    /// points `i` and `i + 1` either way (less the dropped ones), its normal
    /// towards the front. There is no two-sided chain: a thin wall or
    /// platform that bodies meet from both sides is a closed loop around it
    /// ([`Surface::one_sided_loop`] with [`LoopFront::Outside`]) or convex
    /// shapes.
    ///
    /// Errors: as [`Surface::chain`] for an open chain.
    pub fn one_sided_chain(points: &[Vec2], front: ChainFront) -> Result<Self, ShapeError> {
        check_chain_points(points, false)?;
        Self::chain_facing(points, false, front == ChainFront::Left)
    }

    /// A closed loop through `points` (metres, in either order) whose
    /// front, the side bodies collide with, is `front`: its outside (an
    /// island, a floating platform: solid inside) or its inside (a room, a
    /// cave: solid around). The winding is found from the loop's signed
    /// area and each segment faces the side named, so a loop drawn
    /// clockwise or counter-clockwise gives the same surface; facet `i` is
    /// the segment between points `i` and `i + 1` (the last back to the
    /// first) either way, less the dropped ones.
    ///
    /// Limits: a loop that crosses itself has no one inside; the sign of
    /// its signed area (its larger lobe's winding) decides.
    ///
    /// Errors: as [`Surface::chain`] for a closed chain, and
    /// [`ShapeError::Degenerate`] before [`ShapeError::TooManyFacets`] when
    /// the loop encloses no area to find a winding from (twice its signed
    /// area within 1e-4 of its shoelace terms' sizes: its points on one
    /// line, or lobes that cancel out).
    pub fn one_sided_loop(points: &[Vec2], front: LoopFront) -> Result<Self, ShapeError> {
        check_chain_points(points, true)?;
        let counter_clockwise = loop_winding(points)?;
        // A counter-clockwise loop's right is its outside.
        let reversed = match front {
            LoopFront::Outside => !counter_clockwise,
            LoopFront::Inside => counter_clockwise,
        };
        Self::chain_facing(points, true, reversed)
    }

    /// The chain of the checked `points`, each segment running from point
    /// `i` to point `i + 1`, or from `i + 1` to `i` when `reversed` (its
    /// front then on the left of the points' order).
    fn chain_facing(points: &[Vec2], closed: bool, reversed: bool) -> Result<Self, ShapeError> {
        let segments = if closed {
            points.len()
        } else {
            points.len() - 1
        };
        check_facet_count(segments)?;
        let mut facets: Vec<Facet<Vec2>> = (0..segments)
            .filter_map(|i| {
                let (a, b) = (points[i], points[(i + 1) % points.len()]);
                let (from, to) = if reversed { (b, a) } else { (a, b) };
                Facet::new([from, to, to])
            })
            .collect();
        let dropped = segments - facets.len();
        // Step 3, 2D: consecutive kept segments share a point (a dropped one
        // between them has both ends there): the end of the one before, in
        // the segments' direction, is the start of the one after.
        let n = facets.len();
        let links = if closed && n > 1 {
            n
        } else {
            n.saturating_sub(1)
        };
        for i in 0..links {
            let next = (i + 1) % n;
            let (b, a) = if reversed { (next, i) } else { (i, next) };
            let (before, after) = (facets[b], facets[a]);
            facets[b].joins[1] = join_across(&before, &after, after.corners[1]);
            facets[a].joins[0] = join_across(&after, &before, before.corners[0]);
        }
        Surface::assemble(SurfaceSource::Chain { closed }, facets, dropped)
    }
}

/// Which side of an open chain bodies collide with and rest on
/// ([`Surface::one_sided_chain`]): its *front*, seen along the chain from
/// its first point to its last. Behind the front is the solid (a ground's
/// inside), and a body there passes through.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChainFront {
    /// On the left of the direction of travel: a ground drawn left to
    /// right (towards +X) faces up.
    Left,
    /// On the right of the direction of travel: a ground drawn right to
    /// left faces up ([`Surface::chain`]'s side, Box2D's).
    Right,
}

/// Which side of a closed loop bodies collide with ([`Surface::one_sided_loop`]),
/// whatever the order of its points.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LoopFront {
    /// Bodies stay outside: an island, a floating platform, a rock (solid inside).
    Outside,
    /// Bodies stay inside: a room, a cave, a pit (solid around).
    Inside,
}

/// A loop encloses no area to find its winding from when twice its signed
/// area is at most this share of the sum of its shoelace terms' sizes: the
/// sum's rounding is about √n · `f32::EPSILON` of those (1.2e-5 for 10,000
/// points), so a smaller area is a winding rounding could flip.
const WINDING_RATIO: f32 = 1e-4;

/// Step 1 for a chain: refuses no points, too few for an open or closed
/// chain, and points that are not finite.
fn check_chain_points(points: &[Vec2], closed: bool) -> Result<(), ShapeError> {
    if points.is_empty() {
        return Err(ShapeError::EmptySurface {
            what: "chain points",
        });
    }
    let needed = if closed {
        MIN_CLOSED_CHAIN_POINTS
    } else {
        MIN_OPEN_CHAIN_POINTS
    };
    if points.len() < needed {
        return Err(ShapeError::TooFewPoints {
            needed,
            got: points.len(),
        });
    }
    if !points.iter().all(|p| p.is_finite()) {
        return Err(ShapeError::NotFinite {
            what: "chain point",
        });
    }
    Ok(())
}

/// True when the closed loop through `points` (at least one) turns
/// counter-clockwise: its signed area (the shoelace sum, taken about the
/// first point to keep the terms small) is positive. Errors with
/// [`ShapeError::Degenerate`] when that area is within [`WINDING_RATIO`]
/// of the terms' sizes, or not finite.
fn loop_winding(points: &[Vec2]) -> Result<bool, ShapeError> {
    let origin = points[0];
    let next = points.iter().cycle().skip(1);
    let (twice_area, size) =
        points
            .iter()
            .zip(next)
            .fold((0.0f32, 0.0f32), |(sum, size), (&a, &b)| {
                let term = (a - origin).perp_dot(b - origin);
                (sum + term, size + term.abs())
            });
    if twice_area.abs() > WINDING_RATIO * size && size.is_finite() {
        Ok(twice_area > 0.0)
    } else {
        Err(ShapeError::Degenerate {
            reason: "the loop encloses no area, so it has no inside or outside",
        })
    }
}

/// Refuses more facets than `u32` can name.
fn check_facet_count(count: usize) -> Result<(), ShapeError> {
    if count > MAX_FACETS {
        Err(ShapeError::TooManyFacets { count })
    } else {
        Ok(())
    }
}

/// The box around a facet's corners.
fn facet_box<D: ShapeDim>(facet: &Facet<D::Vector>) -> Aabb<D> {
    let corners = facet.corners();
    let (min, max) = corners[1..]
        .iter()
        .fold((corners[0], corners[0]), |(lo, hi), &c| {
            (lo.min(c), hi.max(c))
        });
    Aabb::new(min, max)
}

/// The triangle facet with these corners, or `None` when it spans no area
/// (height over longest edge below [`SLIVER_RATIO`], or not representable).
fn triangle(corners: [Vec3; 3]) -> Option<Facet<Vec3>> {
    let [a, b, c] = corners;
    let twice_area = (b - a).cross(c - a).length();
    let longest_squared = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    // twice_area = longest × height: the test is height > ratio × longest.
    if twice_area > SLIVER_RATIO * longest_squared {
        Facet::new(corners)
    } else {
        None
    }
}

/// What lies across the border of `own` shared with `other`, whose corner
/// off that border is `far`.
fn join_across<V: FacetGeometry>(own: &Facet<V>, other: &Facet<V>, far: V) -> Join<V> {
    if own.normal.dot(other.normal) <= -FLAT_JOIN_COSINE {
        // Folded back onto each other: a knife edge, solid on no side.
        Join::Free
    } else {
        join_between(own.normal, other.normal, own.height_of(far))
    }
}

/// The welding key of a corner: its coordinates' bits, -0.0 read as 0.0.
fn weld_key(p: Vec3) -> [u32; 3] {
    p.to_array().map(|x| {
        if x == 0.0 {
            0.0f32.to_bits()
        } else {
            x.to_bits()
        }
    })
}

/// Step 3 of the module docs in 3D: sets the joins of every edge shared by
/// exactly two consistently wound triangles; the others stay free.
fn link_triangles(facets: &mut [Facet<Vec3>]) {
    let mut welded: HashMap<[u32; 3], usize> = HashMap::with_capacity(facets.len());
    // (lower corner id, higher corner id, facet, edge, runs from lower to higher).
    let mut edges: Vec<(usize, usize, u32, u8, bool)> = Vec::with_capacity(3 * facets.len());
    for (f, facet) in facets.iter().enumerate() {
        let ids = facet.corners.map(|corner| {
            let next = welded.len();
            *welded.entry(weld_key(corner)).or_insert(next)
        });
        for k in 0..3 {
            let (a, b) = (ids[k], ids[(k + 1) % 3]);
            edges.push((a.min(b), a.max(b), f as u32, k as u8, a < b));
        }
    }
    edges.sort_unstable();
    for run in edges.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
        let &[(_, _, f, k, up), (_, _, g, j, other_up)] = run else {
            continue;
        };
        if up == other_up {
            continue;
        }
        let (f, k, g, j) = (f as usize, k as usize, g as usize, j as usize);
        let (own, other) = (facets[f], facets[g]);
        facets[f].joins[k] = join_across(&own, &other, other.corners[(j + 2) % 3]);
        facets[g].joins[j] = join_across(&other, &own, own.corners[(k + 2) % 3]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ShapeError::*;

    /// Checks a flat surface's joins: free on its box's border, inactive inside.
    fn check_flat_joins<D: ShapeDim>(surface: &Surface<D>) {
        let b = surface.local_aabb();
        for facet in surface.facets() {
            let c = facet.corners();
            for (k, join) in facet.joins().iter().enumerate() {
                // 2D: end k is corner k; 3D: edge k runs from corner k to k + 1.
                let (p, q) = (c[k], c[(k + c.len() - 2) % c.len()]);
                let border = D::Vector::axes().iter().any(|&e| {
                    let (lo, hi, at) = (b.min.dot(e), b.max.dot(e), p.dot(e));
                    lo < hi && at == q.dot(e) && (at == lo || at == hi)
                });
                let expected = if border { Join::Free } else { Join::Inactive };
                assert_eq!(*join, expected, "{facet:?} border {k}");
            }
        }
    }

    #[test]
    fn heightfield_grid_finds_what_the_bvh_finds() {
        // Deterministic hills on a 13 x 9 grid, and boxes of all sizes
        // around and beyond it (touching ones, thin ones, ones outside).
        let (rows, columns) = (13, 9);
        let heights: Vec<f32> = (0..rows * columns)
            .map(|i| ((i * 37 % 11) as f32 - 5.0) * 0.21)
            .collect();
        let surface =
            Surface::<D3>::heightfield(&heights, rows, columns, Vec3::new(8.0, 1.5, 12.0)).unwrap();
        let mut state = 0x2545_f491_u32;
        let mut next = move |low: f32, high: f32| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            low + (high - low) * (state >> 8) as f32 / (1u32 << 24) as f32
        };
        let (mut grid, mut bvh) = (Vec::new(), Vec::new());
        let mut found = 0;
        for round in 0..4000 {
            let centre = Vec3::new(next(-6.0, 6.0), next(-2.5, 2.5), next(-8.0, 8.0));
            let half = Vec3::new(next(0.0, 3.0), next(0.0, 2.0), next(0.0, 3.0));
            let mut aabb: Aabb<D3> = Aabb::new(centre - half, centre + half);
            if round % 4 == 0 {
                // A box whose side lies on a facet's corner: touching counts.
                let facet = &surface.facets()[round % surface.facets().len()];
                aabb.min.x = facet.corners()[0].x;
            }
            surface.facets_in(&aabb, &mut grid);
            bvh.clear();
            surface.bvh().query(&aabb, |i| {
                bvh.push(i);
                true
            });
            bvh.sort_unstable();
            assert_eq!(grid, bvh, "{aabb:?}");
            found += grid.len();
        }
        assert!(found > 10_000, "the boxes met facets: {found}");
        let nan: Aabb<D3> = Aabb::new(Vec3::splat(f32::NAN), Vec3::ONE);
        surface.facets_in(&nan, &mut grid);
        assert!(grid.is_empty());
    }

    /// An 8 x 8-vertex grid over x, z in [0, 7]: 98 triangles facing +Y.
    /// Indexed, or each triangle with its own vertices (odd ones at y = -0.0).
    fn grid_mesh(indexed: bool) -> Surface<D3> {
        let id = |r: u32, c: u32| r * 8 + c;
        let triangles: Vec<[u32; 3]> = (0..49)
            .map(|q| (q / 7, q % 7))
            .flat_map(|(r, c)| {
                let (p00, p01, p10, p11) = (id(r, c), id(r, c + 1), id(r + 1, c), id(r + 1, c + 1));
                [[p00, p10, p01], [p01, p10, p11]]
            })
            .collect();
        let vertices: Vec<Vec3> = (0..64)
            .map(|i| Vec3::new((i % 8) as f32, 0.0, (i / 8) as f32))
            .collect();
        if indexed {
            return Surface::triangle_mesh(&vertices, &triangles).unwrap();
        }
        let own: Vec<Vec3> = (triangles.iter().enumerate())
            .flat_map(|(t, tri)| {
                tri.map(|i| Vec3 {
                    y: if t % 2 == 1 { -0.0 } else { 0.0 },
                    ..vertices[i as usize]
                })
            })
            .collect();
        let indices: Vec<[u32; 3]> = (0..98).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
        Surface::triangle_mesh(&own, &indices).unwrap()
    }

    #[test]
    fn bad_input_gets_its_own_error() {
        let v = [Vec3::ZERO, Vec3::Z, Vec3::X];
        let (nan, line) = (
            [Vec3::ZERO, Vec3::Z, Vec3::NAN],
            [Vec3::ZERO, Vec3::X, Vec3::X * 2.0],
        );
        let mesh = |v: &[Vec3], t: &[[u32; 3]]| Surface::triangle_mesh(v, t).map(drop);
        let field = |h: &[f32], r, c, s| Surface::heightfield(h, r, c, s).map(drop);
        let chain = |p: &[Vec2], closed| Surface::chain(p, closed).map(drop);
        let (p, flat, huge) = (Vec2::ONE, Vec3::new(1.0, 0.0, 1.0), [0.0, 3e38, 0.0, 0.0]);
        #[rustfmt::skip]
        let cases = [
            (mesh(&nan, &[[0, 1, 2]]), NotFinite { what: "triangle mesh vertex" }),
            (mesh(&v, &[[0, 1, 2], [0, 1, 3]]), IndexOutOfRange { index: 3, vertices: 3 }),
            (mesh(&v, &[[0, 1, 2], [2, 1, 2]]), RepeatedIndex { triangle: 1 }),
            (mesh(&[], &[[0, 1, 2]]), EmptySurface { what: "triangle mesh vertices" }),
            (mesh(&v, &[]), EmptySurface { what: "triangle mesh indices" }),
            (mesh(&line, &[[0, 1, 2]]), AllFacetsDegenerate { dropped: 1 }),
            (field(&[0.0; 5], 2, 3, Vec3::ONE), WrongSampleCount { expected: 6, got: 5 }),
            (field(&[0.0; 4], usize::MAX, 3, Vec3::ONE), WrongSampleCount { expected: usize::MAX, got: 4 }),
            (field(&[0.0; 3], 1, 3, Vec3::ONE), GridTooSmall { rows: 1, columns: 3 }),
            (field(&[0.0; 4], 2, 2, flat), NonPositiveSize { what: "heightfield scale", value: 0.0 }),
            (field(&[0.0; 4], 2, 2, Vec3::NAN), NotFinite { what: "heightfield scale" }),
            (field(&[0.0, 1.0, f32::NAN, 0.0], 2, 2, Vec3::ONE), NotFinite { what: "heightfield height" }),
            (field(&huge, 2, 2, Vec3::splat(2.0)), NotFinite { what: "heightfield height times scale.y" }),
            (chain(&[p, p, p], true), AllFacetsDegenerate { dropped: 3 }),
            (chain(&[p, p], false), AllFacetsDegenerate { dropped: 1 }),
            (chain(&[p, Vec2::X], true), TooFewPoints { needed: 3, got: 2 }),
            (chain(&[p], false), TooFewPoints { needed: 2, got: 1 }),
            (chain(&[], false), EmptySurface { what: "chain points" }),
            (chain(&[p, Vec2::NAN], false), NotFinite { what: "chain point" }),
            (check_facet_count(MAX_FACETS + 1), TooManyFacets { count: MAX_FACETS + 1 }),
        ];
        for (i, (got, expected)) in cases.into_iter().enumerate() {
            assert_eq!(got, Err(expected), "case {i}");
        }
    }

    #[test]
    fn flat_grid_joins_inside_and_is_free_on_its_border() {
        let indexed = grid_mesh(true);
        assert_eq!((indexed.facets().len(), indexed.dropped_facets()), (98, 0));
        assert!(indexed.facets().iter().all(|f| f.normal() == Vec3::Y));
        check_flat_joins(&indexed);
        // Welding by position makes the same joins from unshared vertices.
        assert_eq!(indexed.facets(), grid_mesh(false).facets());
        assert_eq!(
            indexed.local_aabb(),
            Aabb::new(Vec3::ZERO, Vec3::new(7.0, 0.0, 7.0))
        );
        assert!((indexed.bounding_radius() - 98f32.sqrt()).abs() < 1e-5);
    }

    #[test]
    fn a_ridge_is_convex_and_a_valley_inactive() {
        // Ridge along X at y = 1 between eaves at z = -1 and z = 1.
        let (x, z) = (Vec3::X, Vec3::Z);
        let roof = [Vec3::Y, x + Vec3::Y, -z, x + z];
        let roof = Surface::triangle_mesh(&roof, &[[0, 1, 2], [1, 0, 3]]).unwrap();
        let [a, b] = [roof.facets()[0], roof.facets()[1]];
        assert!((a.normal() - Vec3::new(0.0, 1.0, -1.0).normalize()).length() < 1e-6);
        assert_eq!(
            a.joins(),
            [Join::Convex(b.normal()), Join::Free, Join::Free]
        );
        assert_eq!(
            b.joins(),
            [Join::Convex(a.normal()), Join::Free, Join::Free]
        );
        let valley = [Vec3::ZERO, x, Vec3::Y - z, x + Vec3::Y + z];
        let valley = Surface::triangle_mesh(&valley, &[[0, 1, 2], [1, 0, 3]]).unwrap();
        let joins = valley
            .facets()
            .iter()
            .map(|f| (f.joins()[0], f.normal().y > 0.7));
        assert!(joins.eq([(Join::Inactive, true); 2]));
    }

    #[test]
    fn odd_edges_stay_free() {
        let up_down = [Vec3::new(0.5, 1.0, 0.0), Vec3::new(0.5, -1.0, 0.0)];
        let v = [
            Vec3::ZERO,
            Vec3::X,
            Vec3::Z,
            up_down[0],
            up_down[1],
            Vec3::NEG_Z,
        ];
        // Three triangles on edge 0-1 (non-manifold); two wound against each
        // other; a double-sided sheet (a knife edge).
        let meshes: [&[[u32; 3]]; 3] = [
            &[[0, 1, 3], [1, 0, 4], [1, 0, 2]],
            &[[0, 1, 2], [0, 1, 5]],
            &[[0, 1, 2], [0, 2, 1]],
        ];
        for triangles in meshes {
            let s = Surface::triangle_mesh(&v, triangles).unwrap();
            assert!(s.facets().iter().all(|f| f.joins() == [Join::Free; 3]));
        }
    }

    #[test]
    fn flat_heightfield_finds_its_facets_as_brute_force_does() {
        let scale = Vec3::new(10.0, 2.0, 10.0);
        let field = Surface::heightfield(&[0.5; 256], 16, 16, scale).unwrap();
        assert_eq!(
            (field.facets().len(), field.dropped_facets()),
            (2 * 15 * 15, 0)
        );
        assert!(field.facets().iter().all(|f| f.normal() == Vec3::Y));
        let corner = Vec3::new(5.0, 1.0, 5.0);
        assert_eq!(
            field.local_aabb(),
            Aabb::new(corner * Vec3::new(-1.0, 1.0, -1.0), corner)
        );
        check_flat_joins(&field);
        let query = Aabb::new(Vec3::new(-1.3, 0.9, 0.2), Vec3::new(0.4, 1.1, 1.1));
        let mut found = vec![7];
        field.facets_in(&query, &mut found);
        let expected: Vec<u32> = (0..field.facets().len() as u32)
            .filter(|&i| facet_box::<D3>(&field.facets()[i as usize]).overlaps(&query))
            .collect();
        assert!(expected.len() > 4);
        assert_eq!(found, expected);
    }

    #[test]
    fn chains_join_their_segments() {
        // A ground line from right to left: fronts up.
        let points: Vec<Vec2> = (0..=50).map(|i| Vec2::new(25.0 - i as f32, 0.0)).collect();
        let ground = Surface::chain(&points, false).unwrap();
        assert_eq!(ground.facets().len(), 50);
        assert!(ground.facets().iter().all(|f| f.normal() == Vec2::Y));
        check_flat_joins(&ground);
        // An equal point in the middle drops a segment and is bridged.
        let stutter = [
            Vec2::new(3.0, 0.0),
            Vec2::X * 2.0,
            Vec2::X * 2.0,
            Vec2::ZERO,
        ];
        let stutter = Surface::chain(&stutter, false).unwrap();
        assert_eq!(stutter.dropped_facets(), 1);
        assert_eq!(stutter.facets()[0].joins(), [Join::Free, Join::Inactive]);
        // A counter-clockwise square: outward fronts, every corner convex.
        let square = Surface::chain(&[Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y], true).unwrap();
        assert_eq!(square.source(), &SurfaceSource::Chain { closed: true });
        let normals = [Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X];
        for (i, f) in square.facets().iter().enumerate() {
            let near = |join: Join<Vec2>, n: Vec2| matches!(join, Join::Convex(m) if (m - n).length() < 1e-6);
            assert!((f.normal() - normals[i]).length() < 1e-6);
            assert!(
                near(f.joins()[0], normals[(i + 3) % 4])
                    && near(f.joins()[1], normals[(i + 1) % 4])
            );
        }
    }

    #[test]
    fn one_sided_chains_face_the_side_named() {
        // A ground drawn left to right: the plain chain faces down, the
        // left-fronted one up, its segments in the points' order.
        let points: Vec<Vec2> = (0..=4).map(|i| Vec2::new(i as f32, 0.0)).collect();
        let plain = Surface::chain(&points, false).unwrap();
        assert!(plain.facets().iter().all(|f| f.normal() == Vec2::NEG_Y));
        let left = Surface::one_sided_chain(&points, ChainFront::Left).unwrap();
        let right = Surface::one_sided_chain(&points, ChainFront::Right).unwrap();
        assert_eq!(right, plain);
        assert_eq!(left.facets().len(), 4);
        for (i, f) in left.facets().iter().enumerate() {
            assert_eq!(f.normal(), Vec2::Y);
            assert_eq!(f.corners(), [points[i + 1], points[i]]);
        }
        check_flat_joins(&left);
        // A bent ground: the joins are those of the same line drawn right
        // to left.
        let bent = [
            Vec2::ZERO,
            Vec2::X,
            Vec2::new(2.0, 1.0),
            Vec2::new(3.0, 1.0),
        ];
        let mut backwards = bent;
        backwards.reverse();
        let turned = Surface::one_sided_chain(&bent, ChainFront::Left).unwrap();
        let plain = Surface::chain(&backwards, false).unwrap();
        for (i, f) in turned.facets().iter().enumerate() {
            let g = &plain.facets()[2 - i];
            assert_eq!((f.normal(), f.joins()), (g.normal(), g.joins()));
        }
        // A square either way round: the same facets for the side named.
        let ccw = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        let mut cw = ccw;
        cw.reverse();
        let outward = [Vec2::NEG_Y, Vec2::X, Vec2::Y, Vec2::NEG_X];
        for (points, order) in [(ccw, [0, 1, 2, 3]), (cw, [2, 1, 0, 3])] {
            for (front, sign) in [(LoopFront::Outside, 1.0), (LoopFront::Inside, -1.0)] {
                let island = Surface::one_sided_loop(&points, front).unwrap();
                for (i, f) in island.facets().iter().enumerate() {
                    assert!((f.normal() - outward[order[i]] * sign).length() < 1e-6);
                    // Every corner convex seen from outside, concave from inside.
                    let convex = matches!(f.joins()[0], Join::Convex(_));
                    assert_eq!(convex, sign > 0.0, "{front:?} {points:?}");
                }
            }
        }
        // No area, no winding.
        let flat = [Vec2::ZERO, Vec2::X, Vec2::X * 2.0];
        assert!(matches!(
            Surface::one_sided_loop(&flat, LoopFront::Outside),
            Err(Degenerate { .. })
        ));
        assert_eq!(
            Surface::one_sided_loop(&flat[..2], LoopFront::Outside),
            Err(TooFewPoints { needed: 3, got: 2 })
        );
        assert_eq!(
            Surface::one_sided_chain(&[], ChainFront::Left),
            Err(EmptySurface {
                what: "chain points"
            })
        );
    }

    /// Whether edge `k` of facet `f` should be joined, by brute force: one
    /// other facet uses it, in the opposite direction, not folded back.
    fn brute_force_joined(facets: &[Facet<Vec3>], f: usize, k: usize) -> bool {
        let edge = |g: usize, j: usize| (facets[g].corners[j], facets[g].corners[(j + 1) % 3]);
        let (a, b) = edge(f, k);
        let users: Vec<(usize, bool)> = (0..facets.len())
            .filter(|&g| g != f)
            .flat_map(|g| (0..3).map(move |j| (g, j)))
            .filter_map(|(g, j)| {
                let (p, q) = edge(g, j);
                ((p, q) == (a, b) || (p, q) == (b, a)).then_some((g, p == b))
            })
            .collect();
        matches!(users[..], [(g, true)] if facets[f].normal.dot(facets[g].normal) > -FLAT_JOIN_COSINE)
    }

    /// A deterministic linear congruential generator (Knuth's MMIX constants).
    struct Lcg(u64);

    impl Lcg {
        /// A number below `n` (> 0).
        fn below(&mut self, n: u32) -> u32 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005);
            self.0 = self.0.wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % u64::from(n)) as u32
        }
    }

    #[test]
    fn random_meshes_build_or_fail_as_they_should() {
        let mut rng = Lcg(0x2545_f491_4f6c_dd1d);
        let mut outcomes = [0; 3];
        for _ in 0..200 {
            // Corners on a coarse lattice (one mesh in 8 on a line), so that
            // they coincide and triangles collapse; now and then a NaN, a
            // repeated or out-of-range index, or no vertices at all.
            let count = if rng.below(40) == 0 {
                0
            } else {
                3 + rng.below(8)
            };
            let line = rng.below(8) == 0;
            let vertices: Vec<Vec3> = (0..count)
                .map(|_| match (rng.below(150), line) {
                    (0, _) => Vec3::NAN,
                    (_, true) => Vec3::X * rng.below(4) as f32,
                    _ => Vec3::new(
                        rng.below(4) as f32,
                        rng.below(3) as f32,
                        rng.below(4) as f32,
                    ),
                })
                .collect();
            let indices: Vec<[u32; 3]> = (0..rng.below(20))
                .map(|_| {
                    let n = count.max(3);
                    let a = rng.below(n);
                    let b = (a + 1 + rng.below(n - 1)) % n;
                    let mut c = rng.below(n - 2);
                    c += u32::from(c >= a.min(b));
                    c += u32::from(c >= a.max(b));
                    match rng.below(200) {
                        0 => [a, b, a],
                        1 => [a, n + rng.below(2), c],
                        _ => [a, b, c],
                    }
                })
                .collect();
            let bad_triangle =
                indices
                    .iter()
                    .enumerate()
                    .find_map(|(triangle, &[a, b, c])| {
                        match [a, b, c].into_iter().find(|&i| i >= count) {
                            Some(index) => Some(IndexOutOfRange {
                                index,
                                vertices: count as usize,
                            }),
                            None => {
                                (a == b || b == c || a == c).then_some(RepeatedIndex { triangle })
                            }
                        }
                    });
            let expected = if count == 0 {
                Some(EmptySurface {
                    what: "triangle mesh vertices",
                })
            } else if indices.is_empty() {
                Some(EmptySurface {
                    what: "triangle mesh indices",
                })
            } else if vertices.iter().any(|v| !v.is_finite()) {
                Some(NotFinite {
                    what: "triangle mesh vertex",
                })
            } else {
                bad_triangle
            };
            match (Surface::triangle_mesh(&vertices, &indices), expected) {
                (Err(error), Some(expected)) => {
                    assert_eq!(error, expected);
                    outcomes[0] += 1;
                }
                (Err(error), None) => {
                    assert_eq!(
                        error,
                        AllFacetsDegenerate {
                            dropped: indices.len()
                        }
                    );
                    outcomes[1] += 1;
                }
                (Ok(s), None) => {
                    assert_eq!(s.facets().len() + s.dropped_facets(), indices.len());
                    for (f, facet) in s.facets().iter().enumerate() {
                        assert!((facet.normal().length() - 1.0).abs() < 1e-5);
                        for k in 0..3 {
                            let joined = brute_force_joined(s.facets(), f, k);
                            assert_eq!(facet.joins[k] != Join::Free, joined);
                        }
                    }
                    let mut all = Vec::new();
                    s.facets_in(&s.local_aabb(), &mut all);
                    assert!(all.into_iter().eq(0..s.facets().len() as u32));
                    outcomes[2] += 1;
                }
                (got, expected) => panic!("got {got:?}, expected {expected:?}"),
            }
        }
        // Each outcome is met often: refused, all degenerate, built.
        assert!(outcomes.iter().all(|&n| n >= 10), "{outcomes:?}");
    }
}

/// A surface is saved as what makes it: its source, its facets with their
/// joins, and its count of dropped facets. Loading builds the rest (the
/// BVH, the bounding box and radius) from the facets as
/// [`Surface::assemble`] first did, to the same bits (the BVH build is
/// deterministic), so a saved surface is smaller and cannot bring a broken
/// tree; facets with a coordinate that is not finite are refused.
#[cfg(feature = "serde")]
mod persist {
    use super::{Facet, Join, ShapeDim, Surface, SurfaceSource};
    use crate::math::Vector;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize)]
    #[serde(bound = "", rename = "Surface")]
    struct Saved<'a, D: ShapeDim> {
        source: &'a SurfaceSource,
        facets: &'a [Facet<D::Vector>],
        dropped: usize,
    }

    #[derive(Deserialize)]
    #[serde(bound = "", rename = "Surface")]
    struct Loaded<D: ShapeDim> {
        source: SurfaceSource,
        facets: Vec<Facet<D::Vector>>,
        dropped: usize,
    }

    impl<D: ShapeDim> Serialize for Surface<D> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Saved::<D> {
                source: &self.source,
                facets: &self.facets,
                dropped: self.dropped,
            }
            .serialize(serializer)
        }
    }

    impl<'de, D: ShapeDim> Deserialize<'de> for Surface<D> {
        fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
            let loaded = Loaded::<D>::deserialize(deserializer)?;
            let finite = |f: &Facet<D::Vector>| {
                f.corners.iter().all(|c| c.is_finite())
                    && f.normal.is_finite()
                    && f.joins.iter().all(|j| match j {
                        Join::Convex(n) => n.is_finite(),
                        Join::Free | Join::Inactive => true,
                    })
            };
            if !loaded.facets.iter().all(finite) {
                return Err(De::Error::custom("a surface facet is not finite"));
            }
            Surface::assemble(loaded.source, loaded.facets, loaded.dropped)
                .map_err(De::Error::custom)
        }
    }
}
