//! 3D convex polyhedron: the hull of a point cloud, its support function and
//! its mass properties.
//!
//! [`ConvexHull::new`] runs a quickhull in `f64`, where f32 inputs are exact:
//!
//! 1. Reject NaN or infinite components, then fewer than 4 points.
//! 2. Take the tolerance `1e-5 × extent` (bounding box diagonal). Seed a
//!    tetrahedron: the lowest-x point, the point farthest from it, the point
//!    farthest from their line, the point farthest from that plane. If one of
//!    them is within the tolerance the cloud is refused as degenerate.
//! 3. Give each other point to a face it lies above (its conflict list).
//!    Points more than the tolerance above are eye candidates; the others
//!    wait, so nearly coplanar points never make slivers.
//! 4. Repeatedly take a face's farthest candidate (the eye), flood-fill the
//!    faces it sees from there, chain their boundary into one horizon loop,
//!    replace them by a fan from the horizon to the eye, and hand their
//!    points to the new faces. If the horizon is not one simple loop (only
//!    through rounding on near-degenerate input) the eye is skipped.
//! 5. When no candidate is left, flood-fill from each waiting point over the
//!    faces it sees; one now more than the tolerance below it makes it a
//!    candidate again (thin shapes have sharp edges), and step 4 resumes
//!    (`random_thin_and_noisy_clouds_are_closed_and_contain_every_point`).
//!    At most `3 × points + 16` eyes are tried; the hull built by then stands.
//! 6. Keep the vertices the triangles use; hulls of more than 32 vertices
//!    record vertex adjacency for a hill-climbing support
//!    (`sphere_volume_and_hill_climb_support`).
//!
//! Mass properties sum tetrahedra from the vertex mean to each triangle in
//! `f64` (volume, first and second moments), then shift to the centroid.
//!
//! Limits: input points lie within the tolerance of the hull's face planes,
//! not necessarily inside; coplanar faces stay split into triangles;
//! vertices keep the caller's frame (nothing is recentred).

use std::collections::HashMap;

use glam::{DMat3, DVec3, Vec3};

use super::{MassProperties, ShapeError, SupportMap};
use crate::math::D3;

/// Points within this fraction of the extent above a face count as on it.
const DISTANCE_TOLERANCE: f64 = 1e-5;
/// A face is seen from points above it by more than this fraction of the
/// extent: far below the distance tolerance, far above rounding.
const VISIBILITY_TOLERANCE: f64 = 1e-10;
/// Rounds of eye adding (step 4) and re-checking waiting points (step 5).
const MAX_ROUNDS: usize = 8;
/// Hulls with at most this many vertices use the linear-scan support.
const LINEAR_SUPPORT_MAX: usize = 32;
/// The refusal for clouds without volume.
const FLAT: ShapeError = ShapeError::Degenerate {
    reason: "all points lie on one plane",
};

/// The smallest width across a face of the hull of `vertices` with
/// outward `triangles`.
fn thickness(vertices: &[Vec3], triangles: &[[u32; 3]]) -> f32 {
    let vertex = |i: u32| vertices.get(i as usize).copied().unwrap_or(Vec3::ZERO);
    triangles
        .iter()
        .filter_map(|&[a, b, c]| {
            let (a, b, c) = (vertex(a), vertex(b), vertex(c));
            let normal = (b - a).cross(c - a).try_normalize()?;
            Some(
                vertices
                    .iter()
                    .map(|&v| normal.dot(a - v))
                    .fold(0.0, f32::max),
            )
        })
        .fold(f32::INFINITY, f32::min)
}

/// A convex polyhedron: hull vertices and outward, counter-clockwise triangles.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(from = "StoredHull", into = "StoredHull")
)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    bounding_radius: f32,
    /// Smallest width across a face, metres (see [`ConvexHull::thickness`]).
    thickness: f32,
    /// Each vertex's neighbours along hull edges; empty for small hulls.
    adjacency: Vec<Vec<u32>>,
    /// The average of the vertices: a point well inside (see
    /// [`super::Shape::inner_point`]).
    inner_point: Vec3,
    /// The faces: the triangles grouped by plane (derived from the
    /// triangles, not stored).
    faces: HullFaces,
}

/// A hull's faces, each the triangles in one plane.
#[derive(Clone, Debug, Default, PartialEq)]
struct HullFaces {
    /// Each face's outward unit normal.
    normals: Vec<Vec3>,
    /// Where each face's triangles start in `triangles`, and one past the
    /// last face's.
    starts: Vec<u32>,
    /// Triangle indices, face by face.
    triangles: Vec<u32>,
    /// Where each vertex's faces start in `vertex_faces`, and one past the
    /// last vertex's.
    vertex_starts: Vec<u32>,
    /// Face indices, vertex by vertex, each vertex's in ascending order: the
    /// faces with a corner equal to it (a vertex equal to an earlier one
    /// has none; its faces are the earlier one's).
    vertex_faces: Vec<u32>,
}

impl HullFaces {
    /// The triangles of `vertices` grouped by plane: a face starts at the
    /// lowest triangle not yet in one and takes in, across shared edges,
    /// every triangle facing its way whose corners lie in its plane (within
    /// [`COPLANAR_SHARE`] of `radius`); its triangles in triangle order.
    /// A convex hull's face is connected, so growing across edges finds it
    /// whole, in time linear in the triangles.
    fn of(vertices: &[Vec3], triangles: &[[u32; 3]], radius: f32) -> Self {
        let tolerance = COPLANAR_SHARE * radius;
        let corner = |i: u32| vertices.get(i as usize).copied().unwrap_or(Vec3::ZERO);
        let normals: Vec<Vec3> = triangles
            .iter()
            .map(|t| {
                let c = t.map(corner);
                (c[1] - c[0]).cross(c[2] - c[0]).normalize_or_zero()
            })
            .collect();
        // Each directed edge's triangle; the neighbour across an edge holds
        // it reversed.
        let mut across: HashMap<(u32, u32), u32> = HashMap::with_capacity(3 * triangles.len());
        for (t, &[a, b, c]) in triangles.iter().enumerate() {
            for edge in [(a, b), (b, c), (c, a)] {
                across.insert(edge, t as u32);
            }
        }
        let mut face_of = vec![u32::MAX; triangles.len()];
        let mut faces = Self::default();
        let mut grow = Vec::new();
        let mut members = Vec::new();
        for first in 0..triangles.len() {
            if face_of[first] != u32::MAX {
                continue;
            }
            let face = faces.normals.len() as u32;
            let (normal, on) = (normals[first], corner(triangles[first][0]));
            face_of[first] = face;
            grow.push(first);
            members.clear();
            while let Some(t) = grow.pop() {
                members.push(t as u32);
                let [a, b, c] = triangles[t];
                for (from, to) in [(a, b), (b, c), (c, a)] {
                    let Some(&n) = across.get(&(to, from)) else {
                        continue;
                    };
                    let n = n as usize;
                    let in_plane = normals[n].dot(normal) > 0.0
                        && triangles[n]
                            .iter()
                            .all(|&i| (corner(i) - on).dot(normal).abs() <= tolerance);
                    if face_of[n] == u32::MAX && in_plane {
                        face_of[n] = face;
                        grow.push(n);
                    }
                }
            }
            members.sort_unstable();
            faces.normals.push(normal);
            faces.starts.push(faces.triangles.len() as u32);
            faces.triangles.extend_from_slice(&members);
        }
        faces.starts.push(faces.triangles.len() as u32);
        faces.index_vertex_faces(vertices, triangles);
        faces
    }

    /// Fills `vertex_starts` and `vertex_faces`: each face, in face order,
    /// joins the list of each of its corners' first equal vertex (the one
    /// [`Self::faces_at`] finds by value).
    fn index_vertex_faces(&mut self, vertices: &[Vec3], triangles: &[[u32; 3]]) {
        // Equal vertices (none in a built hull) share the first one's list;
        // -0.0 and 0.0 are one key, as they compare equal.
        let key = |v: Vec3| v.to_array().map(|c| if c == 0.0 { 0 } else { c.to_bits() });
        let mut first_equal: HashMap<[u32; 3], u32> = HashMap::with_capacity(vertices.len());
        let owner: Vec<u32> = vertices
            .iter()
            .enumerate()
            .map(|(i, &v)| *first_equal.entry(key(v)).or_insert(i as u32))
            .collect();
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); vertices.len()];
        for f in 0..self.normals.len() {
            for &t in self.triangles_of(f) {
                let Some(corners) = triangles.get(t as usize) else {
                    continue;
                };
                for &i in corners {
                    let Some(list) = owner
                        .get(i as usize)
                        .and_then(|&o| lists.get_mut(o as usize))
                    else {
                        continue;
                    };
                    if list.last() != Some(&(f as u32)) {
                        list.push(f as u32);
                    }
                }
            }
        }
        self.vertex_starts = Vec::with_capacity(vertices.len() + 1);
        self.vertex_faces = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for list in &lists {
            self.vertex_starts.push(self.vertex_faces.len() as u32);
            self.vertex_faces.extend_from_slice(list);
        }
        self.vertex_starts.push(self.vertex_faces.len() as u32);
    }

    /// The faces holding a corner equal to `top`, in ascending order: those
    /// of the first vertex equal to it, or none.
    fn faces_at(&self, vertices: &[Vec3], top: Vec3) -> &[u32] {
        let Some(k) = vertices.iter().position(|&v| v == top) else {
            return &[];
        };
        let start = self.vertex_starts.get(k).copied().unwrap_or(0) as usize;
        let end = self.vertex_starts.get(k + 1).copied().unwrap_or(0) as usize;
        self.vertex_faces.get(start..end).unwrap_or(&[])
    }

    /// The triangle indices of face `f`.
    fn triangles_of(&self, f: usize) -> &[u32] {
        let start = self.starts.get(f).copied().unwrap_or(0) as usize;
        let end = self.starts.get(f + 1).copied().unwrap_or(0) as usize;
        self.triangles.get(start..end).unwrap_or(&[])
    }
}

/// A hull as saved: every field but the faces, which are derived again
/// on loading.
#[cfg(feature = "serde")]
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredHull {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    bounding_radius: f32,
    thickness: f32,
    adjacency: Vec<Vec<u32>>,
    inner_point: Vec3,
}

#[cfg(feature = "serde")]
impl From<StoredHull> for ConvexHull {
    fn from(s: StoredHull) -> Self {
        let faces = HullFaces::of(&s.vertices, &s.triangles, s.bounding_radius);
        Self {
            vertices: s.vertices,
            triangles: s.triangles,
            bounding_radius: s.bounding_radius,
            thickness: s.thickness,
            adjacency: s.adjacency,
            inner_point: s.inner_point,
            faces,
        }
    }
}

#[cfg(feature = "serde")]
impl From<ConvexHull> for StoredHull {
    fn from(h: ConvexHull) -> Self {
        Self {
            vertices: h.vertices,
            triangles: h.triangles,
            bounding_radius: h.bounding_radius,
            thickness: h.thickness,
            adjacency: h.adjacency,
            inner_point: h.inner_point,
        }
    }
}

impl ConvexHull {
    /// The convex hull of `points`. See [`super::Shape::convex_hull`].
    ///
    /// Interior points, duplicates and points within `1e-5 × extent` of the
    /// hull are dropped; triangles are counter-clockwise seen from outside.
    ///
    /// Errors: [`ShapeError::NotFinite`] if a component is NaN or infinite,
    /// [`ShapeError::TooFewPoints`] for fewer than 4 points,
    /// [`ShapeError::Degenerate`] when the points span no volume.
    pub fn new(points: &[Vec3]) -> Result<Self, ShapeError> {
        if points.iter().any(|p| !p.is_finite()) {
            return Err(ShapeError::NotFinite { what: "hull point" });
        }
        let got = points.len();
        if got < 4 {
            return Err(ShapeError::TooFewPoints { needed: 4, got });
        }
        let wide: Vec<DVec3> = points.iter().map(|p| p.as_dvec3()).collect();
        let bounds = (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN));
        let (lo, hi) = wide
            .iter()
            .fold(bounds, |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let extent = (hi - lo).length();
        if !(extent > 0.0 && extent.is_finite()) {
            return Err(FLAT);
        }
        let mut hull = QuickHull::seed(&wide, extent, 3 * got + 16).ok_or(FLAT)?;
        hull.run();

        // Keep the vertices the triangles use, in input order.
        let faces: Vec<[usize; 3]> = hull.faces.iter().filter(|f| f.alive).map(|f| f.v).collect();
        let mut used: Vec<usize> = faces.iter().flatten().copied().collect();
        used.sort_unstable();
        used.dedup();
        if used.len() < 4 || u32::try_from(used.len()).is_err() {
            return Err(FLAT);
        }
        let index = |i: usize| used.binary_search(&i).map_or(0, |k| k as u32);
        let triangles: Vec<[u32; 3]> = faces.iter().map(|f| f.map(index)).collect();
        let vertices: Vec<Vec3> = used
            .iter()
            .filter_map(|&i| points.get(i).copied())
            .collect();
        let bounding_radius = vertices.iter().map(|v| v.length()).fold(0.0, f32::max);
        let thickness = thickness(&vertices, &triangles);
        let mut adjacency = Vec::new();
        if vertices.len() > LINEAR_SUPPORT_MAX {
            // Each directed edge appears once; its reverse lies in the neighbour.
            adjacency = vec![Vec::new(); vertices.len()];
            for &[a, b, c] in &triangles {
                for (from, to) in [(a, b), (b, c), (c, a)] {
                    if let Some(list) = adjacency.get_mut(from as usize) {
                        list.push(to);
                    }
                }
            }
        }
        let inner_point = vertices.iter().sum::<Vec3>() / vertices.len() as f32;
        let faces = HullFaces::of(&vertices, &triangles, bounding_radius);
        Ok(Self {
            vertices,
            triangles,
            bounding_radius,
            thickness,
            adjacency,
            inner_point,
            faces,
        })
    }

    /// The smallest width of the hull across one of its faces, metres: the
    /// least distance between a face's plane and the farthest vertex behind
    /// it (for a box, its shortest side).
    pub fn thickness(&self) -> f32 {
        self.thickness
    }

    /// The average of the vertices, local frame: strictly inside.
    pub fn inner_point(&self) -> Vec3 {
        self.inner_point
    }

    /// Hull vertices (interior points dropped), local frame.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Boundary triangles as vertex indices, counter-clockwise seen from outside.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Largest vertex distance from the local origin.
    pub fn bounding_radius(&self) -> f32 {
        self.bounding_radius
    }

    /// Hands `found` each triangle of the face whose outward normal is
    /// nearest `dir` (`PolytopeShape::for_each_support_face`), of the faces
    /// at `top`, the vertex farthest along `dir` (the face turned most
    /// towards `dir` holds that vertex but on odd hulls). Only the faces at
    /// `top` are searched, from the per-vertex lists derived with the
    /// faces, the first in face order winning ties; a `top` equal to no
    /// vertex, or on no face, is handed over alone.
    pub(crate) fn for_each_support_face(
        &self,
        dir: Vec3,
        top: Vec3,
        found: &mut dyn FnMut(&[Vec3]),
    ) {
        let faces = &self.faces;
        let facing = |f: u32| {
            faces
                .normals
                .get(f as usize)
                .map_or(f32::NAN, |n| n.dot(dir))
        };
        let face = faces.faces_at(&self.vertices, top).iter().fold(
            None,
            |best: Option<u32>, &f| match best {
                Some(b) if facing(b) >= facing(f) => Some(b),
                _ => Some(f),
            },
        );
        let Some(face) = face else {
            found(&[top]);
            return;
        };
        for &t in faces.triangles_of(face as usize) {
            let corners = self
                .triangles
                .get(t as usize)
                .map(|tri| tri.map(|i| self.vertices.get(i as usize).copied().unwrap_or(top)));
            if let Some(c) = corners {
                found(&c);
            }
        }
    }

    /// Mass (`density × volume`), centroid in the local frame and inertia
    /// tensor about the centroid (kg·m²) for a uniform `density` in kg/m³.
    ///
    /// Exact: tetrahedra from the vertex mean to every triangle give volume,
    /// first and second moments `C`; `C` moves to the centroid by the parallel
    /// axis theorem and the inertia is `trace(C)·I − C`.
    pub(crate) fn mass_properties(&self, density: f32) -> MassProperties<D3> {
        let count = self.vertices.len().max(1) as f64;
        let reference = self.vertices.iter().map(|v| v.as_dvec3()).sum::<DVec3>() / count;
        let corner = |i: u32| {
            self.vertices
                .get(i as usize)
                .map(|v| v.as_dvec3() - reference)
        };
        let (mut volume, mut first, mut second) = (0.0, DVec3::ZERO, DMat3::ZERO);
        for &[i, j, k] in &self.triangles {
            let (Some(a), Some(b), Some(c)) = (corner(i), corner(j), corner(k)) else {
                continue;
            };
            // Six times the signed volume of the tetrahedron (reference, a, b, c).
            let det = a.dot(b.cross(c));
            let s = a + b + c;
            volume += det / 6.0;
            first += s * (det / 24.0);
            second += (outer(a) + outer(b) + outer(c) + outer(s)) * (det / 120.0);
        }
        let offset = first / volume.max(f64::MIN_POSITIVE);
        let c = second - outer(offset) * volume;
        let trace = c.x_axis.x + c.y_axis.y + c.z_axis.z;
        let density = f64::from(density);
        MassProperties {
            mass: (density * volume) as f32,
            local_center: (reference + offset).as_vec3(),
            inertia: ((DMat3::from_diagonal(DVec3::splat(trace)) - c) * density).as_mat3(),
        }
    }

    /// Support by scanning every vertex (the first wins ties). Both supports
    /// compare `(v − v₀)·dir`, which stays sharp far from the local origin.
    fn support_linear(&self, dir: Vec3) -> Vec3 {
        let Some(&first) = self.vertices.first() else {
            return Vec3::ZERO;
        };
        let mut best = (first, 0.0);
        for &v in &self.vertices {
            let d = (v - first).dot(dir);
            if d > best.1 {
                best = (v, d);
            }
        }
        best.0
    }

    /// Support by steepest ascent over the vertex graph from vertex 0, exact
    /// on a convex polytope. Each step raises the dot product, so there are
    /// at most as many steps as vertices.
    fn support_hill_climb(&self, dir: Vec3) -> Vec3 {
        let Some(&first) = self.vertices.first() else {
            return Vec3::ZERO;
        };
        let (mut current, mut best) = (0, 0.0);
        for _ in 0..self.vertices.len() {
            let mut next = None;
            for &n in self.adjacency.get(current).map_or(&[][..], |list| list) {
                let d = self
                    .vertices
                    .get(n as usize)
                    .map_or(best, |&v| (v - first).dot(dir));
                if d > best {
                    (best, next) = (d, Some(n as usize));
                }
            }
            match next {
                Some(n) => current = n,
                None => break,
            }
        }
        self.vertices.get(current).copied().unwrap_or(first)
    }
}

/// How far from a face's plane, as a share of the hull's bounding radius,
/// a corner still lies in it: the hull merges points within `1e-5` of its
/// extent into its faces, so its faces' corners lie far closer to their
/// planes, and a corner off the face far farther.
const COPLANAR_SHARE: f32 = 1e-4;

impl SupportMap<Vec3> for ConvexHull {
    /// The vertex farthest along `dir`: a linear scan for small hulls, a hill
    /// climb over vertex adjacency for larger ones.
    fn support(&self, dir: Vec3) -> Vec3 {
        if self.vertices.len() <= LINEAR_SUPPORT_MAX || self.adjacency.is_empty() {
            self.support_linear(dir)
        } else {
            self.support_hill_climb(dir)
        }
    }
}

/// `v vᵀ`.
fn outer(v: DVec3) -> DMat3 {
    DMat3::from_cols(v * v.x, v * v.y, v * v.z)
}

/// Fold step keeping the `(index, value)` with the largest value (first on ties).
fn highest(best: Option<(usize, f64)>, item: (usize, f64)) -> Option<(usize, f64)> {
    match best {
        Some(b) if b.1 >= item.1 => Some(b),
        _ => Some(item),
    }
}

/// A triangle of the hull under construction.
struct Face {
    /// Point indices, counter-clockwise seen from outside.
    v: [usize; 3],
    /// Unit outward normal, and the position of `v[0]`.
    normal: DVec3,
    origin: DVec3,
    /// `neighbors[i]` is the face across the edge `v[i] → v[(i + 1) % 3]`.
    neighbors: [usize; 3],
    /// Points above this face by more than the visibility tolerance.
    conflicts: Vec<usize>,
    /// False once the face was replaced.
    alive: bool,
    /// The flood fill that last reached this face, and whether its point sees it.
    mark: u64,
    visible: bool,
}

impl Face {
    /// The triangle `v` of `points`, or `None` when it has no area.
    fn new(points: &[DVec3], v: [usize; 3]) -> Option<Self> {
        let (a, b, c) = (*points.get(v[0])?, *points.get(v[1])?, *points.get(v[2])?);
        let normal = (b - a).cross(c - a);
        let length = normal.length();
        (length > 0.0 && length.is_finite()).then(|| Self {
            v,
            normal: normal / length,
            origin: a,
            neighbors: [0; 3],
            conflicts: Vec::new(),
            alive: true,
            mark: 0,
            visible: false,
        })
    }

    /// Signed height of `p` above the face's plane.
    fn height(&self, p: DVec3) -> f64 {
        self.normal.dot(p - self.origin)
    }
}

/// A horizon edge: `from`, `to`, the non-visible face across it and that
/// face's slot for the edge.
type HorizonEdge = (usize, usize, usize, usize);

/// Quickhull state: every face ever made (dead ones flagged) and the faces
/// that may hold eye candidates.
struct QuickHull<'a> {
    points: &'a [DVec3],
    faces: Vec<Face>,
    pending: Vec<usize>,
    /// Heights above a face that make a point a candidate, or see the face.
    tolerance: f64,
    visibility: f64,
    /// Flood fill counter for [`Face::mark`], and the eyes still allowed.
    search: u64,
    eyes_left: usize,
}

impl<'a> QuickHull<'a> {
    /// The starting tetrahedron with the points outside it in conflict lists,
    /// or `None` when the points span no volume.
    fn seed(points: &'a [DVec3], extent: f64, max_eyes: usize) -> Option<Self> {
        let tolerance = DISTANCE_TOLERANCE * extent;
        let [mut a, mut b, c, d] = initial_simplex(points, tolerance)?;
        // With `d` below `a b c`, these four faces close outward, each edge
        // shared with the listed neighbour holding it reversed.
        if Face::new(points, [a, b, c])?.height(*points.get(d)?) > 0.0 {
            (a, b) = (b, a);
        }
        let tetrahedron = [
            ([a, b, c], [1, 2, 3]),
            ([a, d, b], [3, 2, 0]),
            ([b, d, c], [1, 3, 0]),
            ([c, d, a], [2, 1, 0]),
        ];
        let mut faces = Vec::with_capacity(4);
        for (v, neighbors) in tetrahedron {
            faces.push(Face {
                neighbors,
                ..Face::new(points, v)?
            });
        }
        let mut hull = Self {
            points,
            faces,
            pending: Vec::new(),
            tolerance,
            visibility: VISIBILITY_TOLERANCE * extent,
            search: 0,
            eyes_left: max_eyes,
        };
        let others = (0..points.len()).filter(|i| ![a, b, c, d].contains(i));
        hull.assign(others.collect(), 0);
        Some(hull)
    }

    /// Steps 4 and 5 of the module docs, for a bounded number of rounds.
    fn run(&mut self) {
        for _ in 0..MAX_ROUNDS {
            self.add_eyes();
            if self.eyes_left == 0 || !self.promote_hidden() {
                return;
            }
        }
    }

    /// Give each point to one of `faces[first..]`: the first it lies more
    /// than the tolerance above, else the one it lies highest above if that
    /// face is visible from it. Points above none are inside and dropped.
    /// Faces that received points are queued.
    fn assign(&mut self, points: Vec<usize>, first: usize) {
        let faces = self.faces.get_mut(first..).unwrap_or(&mut []);
        for i in points {
            let Some(&p) = self.points.get(i) else {
                continue;
            };
            let mut best = None;
            for (k, face) in faces.iter().enumerate() {
                best = highest(best, (k, face.height(p)));
                if best.is_some_and(|(_, h)| h > self.tolerance) {
                    break;
                }
            }
            if let Some((k, _)) = best.filter(|&(_, h)| h > self.visibility) {
                if let Some(face) = faces.get_mut(k) {
                    face.conflicts.push(i);
                }
            }
        }
        let filled = faces
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.conflicts.is_empty());
        self.pending.extend(filled.map(|(k, _)| first + k));
    }

    /// Add eyes until no queued face has a candidate or the budget is spent.
    /// Faces are only queued when made or after a skipped eye, so this ends.
    fn add_eyes(&mut self) {
        while let Some(f) = self.pending.pop() {
            if self.eyes_left == 0 {
                return;
            }
            let Some(face) = self.faces.get(f).filter(|face| face.alive) else {
                continue;
            };
            let heights = face
                .conflicts
                .iter()
                .filter_map(|&i| Some((i, face.height(*self.points.get(i)?))));
            let Some((eye, _)) = heights
                .fold(None, highest)
                .filter(|&(_, h)| h > self.tolerance)
            else {
                continue;
            };
            self.eyes_left -= 1;
            if self.add_eye(f, eye).is_none() {
                if let Some(face) = self.faces.get_mut(f) {
                    face.conflicts.retain(|&i| i != eye);
                    self.pending.push(f);
                }
            }
        }
    }

    /// Replace the faces `eye` sees (found from face `start`) by a fan from
    /// the horizon to `eye`. `None` leaves the mesh unchanged.
    fn add_eye(&mut self, start: usize, eye: usize) -> Option<()> {
        let (visible, _) = self.flood(start, *self.points.get(eye)?, f64::INFINITY)?;
        let horizon = self.horizon(&visible)?;
        // Build the fan before touching the mesh.
        let (base, m) = (self.faces.len(), horizon.len());
        let mut fan = Vec::with_capacity(m);
        for (k, &(from, to, outer, _)) in horizon.iter().enumerate() {
            let mut face = Face::new(self.points, [from, to, eye])?;
            face.neighbors = [outer, base + (k + 1) % m, base + (k + m - 1) % m];
            fan.push(face);
        }
        for (k, &(_, _, outer, slot)) in horizon.iter().enumerate() {
            if let Some(n) = self
                .faces
                .get_mut(outer)
                .and_then(|f| f.neighbors.get_mut(slot))
            {
                *n = base + k;
            }
        }
        let mut orphans = Vec::new();
        for &f in &visible {
            if let Some(face) = self.faces.get_mut(f) {
                face.alive = false;
                orphans.append(&mut face.conflicts);
            }
        }
        self.faces.extend(fan);
        orphans.retain(|&i| i != eye);
        self.assign(orphans, base);
        Some(())
    }

    /// Flood fill from face `start` over the faces `p` sees (a connected
    /// region on a convex hull), stopping at one that `p` is more than `stop`
    /// above. Returns the region and that face; `None` on a broken link.
    fn flood(&mut self, start: usize, p: DVec3, stop: f64) -> Option<(Vec<usize>, Option<usize>)> {
        self.search += 1;
        let face = self.faces.get_mut(start)?;
        (face.mark, face.visible) = (self.search, true);
        let mut region = vec![start];
        let mut head = 0;
        // Each face is queued at most once.
        while let Some(&f) = region.get(head) {
            head += 1;
            for n in self.faces.get(f)?.neighbors {
                let face = self.faces.get_mut(n)?;
                if face.mark != self.search {
                    let height = face.height(p);
                    face.mark = self.search;
                    face.visible = face.alive && height > self.visibility;
                    if face.visible {
                        region.push(n);
                        if height > stop {
                            return Some((region, Some(n)));
                        }
                    }
                }
            }
        }
        Some((region, None))
    }

    /// Hand every waiting point that a face now leaves more than the
    /// tolerance below it to that face (step 5). Returns whether any moved.
    fn promote_hidden(&mut self) -> bool {
        let mut moved = false;
        for f in 0..self.faces.len() {
            let waiting = match self.faces.get_mut(f) {
                Some(face) if face.alive => std::mem::take(&mut face.conflicts),
                _ => continue,
            };
            for i in waiting {
                let Some(&p) = self.points.get(i) else {
                    continue;
                };
                let target = match self.flood(f, p, self.tolerance) {
                    Some((_, Some(g))) => g,
                    _ => f,
                };
                if let Some(face) = self.faces.get_mut(target) {
                    face.conflicts.push(i);
                }
                if target != f {
                    self.pending.push(target);
                    moved = true;
                }
            }
        }
        moved
    }

    /// The boundary of the `visible` faces as one closed loop, each edge
    /// starting where the previous one ends, or `None` if it is not one
    /// simple loop.
    fn horizon(&self, visible: &[usize]) -> Option<Vec<HorizonEdge>> {
        let mut edges = Vec::new();
        for face in visible.iter().filter_map(|&f| self.faces.get(f)) {
            for slot in 0..3 {
                let outer = face.neighbors[slot];
                let other = self.faces.get(outer)?;
                if other.mark == self.search && other.visible {
                    continue;
                }
                let (from, to) = (face.v[slot], face.v[(slot + 1) % 3]);
                let back = (0..3).find(|&j| other.v[j] == to && other.v[(j + 1) % 3] == from)?;
                edges.push((from, to, outer, back));
            }
        }
        edges.sort_unstable();
        if edges.len() < 3 || edges.windows(2).any(|w| matches!(w, [a, b] if a.0 == b.0)) {
            return None;
        }
        let first = *edges.first()?;
        let mut ordered = Vec::with_capacity(edges.len());
        let mut edge = first;
        for _ in 0..edges.len() {
            if !ordered.is_empty() && edge == first {
                return None; // closed early: more than one loop
            }
            ordered.push(edge);
            let next = edges.binary_search_by_key(&edge.1, |e| e.0).ok();
            edge = *next.and_then(|k| edges.get(k))?;
        }
        (edge == first).then_some(ordered)
    }
}

/// Indices of a tetrahedron spanning the cloud, or `None` when the points lie
/// within `tolerance` of one point, line or plane.
fn initial_simplex(points: &[DVec3], tolerance: f64) -> Option<[usize; 4]> {
    let pick = |measure: &dyn Fn(DVec3) -> f64| {
        let measured = points.iter().enumerate().map(|(i, &p)| (i, measure(p)));
        measured.fold(None, highest)
    };
    let (a, _) = pick(&|p| -p.x)?;
    let pa = *points.get(a)?;
    let (b, span) = pick(&|p| p.distance(pa))?;
    if span <= tolerance {
        return None;
    }
    let axis = (*points.get(b)? - pa) / span;
    let (c, off_line) = pick(&|p| (p - pa).cross(axis).length())?;
    let normal = axis.cross(*points.get(c)? - pa).normalize_or_zero();
    let (d, off_plane) = pick(&|p| normal.dot(p - pa).abs())?;
    (off_line > tolerance && off_plane > tolerance).then_some([a, b, c, d])
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat3;

    #[test]
    fn a_hulls_support_face_is_its_whole_face() {
        // A box as a hull: each face is two triangles. Towards -Y, nearly
        // straight down, the face is the whole bottom: both triangles, all
        // four corners.
        let corners: Vec<Vec3> = (0..8)
            .map(|k| {
                let sign = |bit: usize| if k & bit == 0 { -1.0 } else { 1.0 };
                Vec3::new(0.6 * sign(1), 0.3 * sign(2), 0.4 * sign(4))
            })
            .collect();
        let hull = ConvexHull::new(&corners).unwrap();
        let dir = Vec3::new(0.1, -1.0, 0.05);
        let mut triangles = Vec::new();
        hull.for_each_support_face(dir, hull.support(dir), &mut |t| triangles.push(t.to_vec()));
        assert_eq!(triangles.len(), 2, "{triangles:?}");
        let mut seen: Vec<Vec3> = triangles.concat();
        seen.sort_by(|a, b| (a.x, a.z).partial_cmp(&(b.x, b.z)).unwrap());
        seen.dedup();
        assert_eq!(seen.len(), 4, "{seen:?}");
        assert!(seen.iter().all(|c| c.y == -0.3), "{seen:?}");
    }

    /// Deterministic test clouds from a 64-bit LCG.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6364136223846793005);
            self.0 = self.0.wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn in_cube(&mut self) -> Vec3 {
            Vec3::new(self.next(), self.next(), self.next()) * 2.0 - Vec3::ONE
        }
    }

    fn box_corners(half: Vec3) -> Vec<Vec3> {
        let sign = |bit: i32| if bit == 0 { -1.0 } else { 1.0 };
        let corner = |i| Vec3::new(sign(i & 1), sign(i & 2), sign(i & 4)) * half;
        (0..8).map(corner).collect()
    }

    /// Checks that the mesh is closed, consistently oriented and satisfies
    /// Euler's V - E + F = 2; returns the largest height of `points` above a
    /// face plane.
    fn check(hull: &ConvexHull, points: &[Vec3]) -> f64 {
        let mut edges: Vec<(u32, u32)> = Vec::new();
        let mut worst = f64::NEG_INFINITY;
        for &[i, j, k] in hull.triangles() {
            edges.extend([(i, j), (j, k), (k, i)]);
            let [a, b, c] = [i, j, k].map(|i| hull.vertices()[i as usize].as_dvec3());
            let n = (b - a).cross(c - a).normalize();
            assert!(n.is_finite(), "degenerate triangle");
            for p in points {
                worst = worst.max(n.dot(p.as_dvec3() - a));
            }
        }
        edges.sort_unstable();
        assert!(edges.windows(2).all(|w| w[0] != w[1]), "edge used twice");
        assert!(edges
            .iter()
            .all(|&(a, b)| edges.binary_search(&(b, a)).is_ok()));
        let (v, f) = (hull.vertices().len(), hull.triangles().len());
        assert_eq!(v as i64 - edges.len() as i64 / 2 + f as i64, 2);
        worst
    }

    #[test]
    fn cube_with_inner_and_face_points() {
        let mut points = box_corners(Vec3::ONE);
        points.extend([Vec3::ZERO, Vec3::splat(0.3), Vec3::new(-0.5, 0.2, 0.9)]);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            points.extend([axis, -axis, axis * 0.5 + (Vec3::ONE - axis) * 0.999]);
        }
        points.extend(box_corners(Vec3::ONE)); // duplicates
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!((hull.vertices().len(), hull.triangles().len()), (8, 12));
        assert!(check(&hull, &points) <= 1e-6);
        for t in hull.triangles() {
            let [a, b, c] = t.map(|i| hull.vertices()[i as usize]);
            assert!((b - a).cross(c - a).dot(a + b + c) > 0.0, "inward normal");
        }
        assert!((hull.bounding_radius() - 3f32.sqrt()).abs() < 1e-6);
        let corner = hull.support(Vec3::new(1.0, -2.0, 0.5));
        assert_eq!(corner, Vec3::new(1.0, -1.0, 1.0));
    }

    #[test]
    fn rejects_bad_input() {
        let (x, y, z) = (Vec3::X, Vec3::Y, Vec3::Z);
        let plane = [Vec3::ZERO, x, y, x + y, Vec3::new(0.3, 0.3, 0.0)];
        assert_eq!(ConvexHull::new(&plane), Err(FLAT));
        let tilted: Vec<Vec3> = plane.iter().map(|p| p.with_z(p.x + 2.0 * p.y)).collect();
        assert_eq!(ConvexHull::new(&tilted), Err(FLAT));
        let line: Vec<Vec3> = (0..6).map(|i| Vec3::splat(i as f32)).collect();
        assert_eq!(ConvexHull::new(&line), Err(FLAT));
        assert_eq!(ConvexHull::new(&[Vec3::ONE; 6]), Err(FLAT));
        let few = ConvexHull::new(&[Vec3::ZERO, x, y]);
        assert_eq!(few, Err(ShapeError::TooFewPoints { needed: 4, got: 3 }));
        let nan = ConvexHull::new(&[Vec3::ZERO, x, y, z.with_y(f32::NAN)]);
        assert_eq!(nan, Err(ShapeError::NotFinite { what: "hull point" }));
        let inf = ConvexHull::new(&[Vec3::ZERO, x, y, z, Vec3::NEG_INFINITY]);
        assert!(matches!(inf, Err(ShapeError::NotFinite { .. })));
    }

    #[test]
    fn box_mass_matches_formula() {
        let (half, density) = (Vec3::new(0.5, 1.0, 1.5), 2.0);
        let size = half * 2.0;
        let mass = density * size.x * size.y * size.z;
        let sq = size * size;
        let diagonal = Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * mass / 12.0;
        // Centred, then far from the origin: the centroid moves, inertia does not.
        for offset in [Vec3::ZERO, Vec3::new(100.0, -40.0, 7.0)] {
            let corners: Vec<Vec3> = box_corners(half).iter().map(|p| *p + offset).collect();
            let m = ConvexHull::new(&corners).unwrap().mass_properties(density);
            assert!((m.mass - mass).abs() < 1e-4);
            assert!((m.local_center - offset).length() < 1e-4);
            let inertia = Mat3::from_diagonal(diagonal);
            assert!(m.inertia.abs_diff_eq(inertia, 1e-3), "{:?}", m.inertia);
        }
        let tetra = [Vec3::ZERO, Vec3::X * 3.0, Vec3::Y * 3.0, Vec3::Z * 3.0];
        let m = ConvexHull::new(&tetra).unwrap().mass_properties(1.0);
        assert!((m.mass - 4.5).abs() < 1e-5);
        assert!((m.local_center - Vec3::splat(0.75)).length() < 1e-6);
    }

    #[test]
    fn random_thin_and_noisy_clouds_are_closed_and_contain_every_point() {
        let mut rng = Lcg(7);
        let scale = Vec3::new(1.0, 2.0, 0.5);
        let random: Vec<Vec3> = (0..200).map(|_| rng.in_cube() * scale).collect();
        // A slab whose sharp rims leave points far outside unless waiting
        // points are re-checked (step 5), and a box whose faces carry
        // points off them by float noise only.
        let flat = Vec3::new(1.0, 1e-4, 1.0);
        let slab: Vec<Vec3> = (0..300).map(|_| rng.in_cube() * flat).collect();
        let mut noisy = box_corners(Vec3::ONE);
        for _ in 0..400 {
            let (mut p, axis) = (rng.in_cube(), (rng.next() * 3.0) as usize % 3);
            p[axis] = p[axis].signum() + (rng.next() - 0.5) * 1e-6;
            noisy.push(p);
        }
        for points in [random, slab, noisy] {
            let hull = ConvexHull::new(&points).unwrap();
            let bounds = (Vec3::MAX, Vec3::MIN);
            let (lo, hi) = points
                .iter()
                .fold(bounds, |(l, h), p| (l.min(*p), h.max(*p)));
            let tolerance = DISTANCE_TOLERANCE * f64::from((hi - lo).length());
            assert!(check(&hull, &points) <= tolerance * (1.0 + 1e-9));
            assert!(hull.vertices().iter().all(|v| points.contains(v)));
            assert!(hull.vertices().len() < points.len());
        }
    }

    /// The support face by the rule the per-vertex lists replace: the
    /// first face in face order with the largest normal·dir among all the
    /// faces, if it holds `top`, else among the faces holding `top`.
    fn support_face_by_scan(hull: &ConvexHull, dir: Vec3, top: Vec3) -> Option<usize> {
        let faces = &hull.faces;
        let holds_top = |f: usize| {
            faces.triangles_of(f).iter().any(|&t| {
                let corners = hull.triangles[t as usize].map(|i| hull.vertices[i as usize]);
                corners.contains(&top)
            })
        };
        let facing = |f: usize| faces.normals[f].dot(dir);
        let most = |candidates: &mut dyn Iterator<Item = usize>| {
            candidates.fold(None, |best: Option<usize>, f| match best {
                Some(b) if facing(b) >= facing(f) => Some(b),
                _ => Some(f),
            })
        };
        match most(&mut (0..faces.normals.len())) {
            Some(f) if holds_top(f) => Some(f),
            _ => most(&mut (0..faces.normals.len()).filter(|&f| holds_top(f))),
        }
    }

    #[test]
    fn support_face_from_the_vertex_faces_matches_the_scan_of_all_faces() {
        let mut rng = Lcg(2024);
        let mut clouds = vec![box_corners(Vec3::new(0.6, 0.3, 0.4))];
        // A box, random clouds of 6 to 300 points, a box with points on its
        // faces (dropped), and points snapped to a grid (faces of several
        // triangles; ties along the axes).
        for size in [6, 12, 40, 100, 300] {
            clouds.push((0..size).map(|_| rng.in_cube()).collect());
        }
        let mut studded = box_corners(Vec3::new(1.0, 0.5, 2.0));
        for _ in 0..60 {
            let (mut p, axis) = (rng.in_cube(), (rng.next() * 3.0) as usize % 3);
            p[axis] = p[axis].signum();
            studded.push(p * Vec3::new(1.0, 0.5, 2.0));
        }
        clouds.push(studded);
        clouds.push((0..80).map(|_| (rng.in_cube() * 2.0).round()).collect());
        for points in clouds {
            let hull = ConvexHull::new(&points).unwrap();
            // Every vertex's list is ascending and holds exactly the faces
            // with that vertex as a corner.
            for (k, &v) in hull.vertices.iter().enumerate() {
                let listed = hull.faces.faces_at(&hull.vertices, v);
                assert!(listed.windows(2).all(|w| w[0] < w[1]), "{listed:?}");
                let holding: Vec<u32> = (0..hull.faces.normals.len() as u32)
                    .filter(|&f| {
                        hull.faces
                            .triangles_of(f as usize)
                            .iter()
                            .any(|&t| hull.triangles[t as usize].contains(&(k as u32)))
                    })
                    .collect();
                assert_eq!(listed, holding.as_slice(), "vertex {k}");
            }
            // Axis directions give exact ties; the rest are random.
            let mut dirs: Vec<Vec3> = [Vec3::X, Vec3::Y, Vec3::Z]
                .into_iter()
                .flat_map(|a| [a, -a])
                .collect();
            dirs.extend((0..300).map(|_| rng.in_cube()));
            for dir in dirs {
                // Each vertex as `top`, and the support itself.
                let tops = hull.vertices.iter().copied().chain([hull.support(dir)]);
                for top in tops {
                    let expected = support_face_by_scan(&hull, dir, top);
                    let mut got = Vec::new();
                    hull.for_each_support_face(dir, top, &mut |t| got.push(t.to_vec()));
                    let mut wanted = Vec::new();
                    match expected {
                        Some(f) => {
                            for &t in hull.faces.triangles_of(f) {
                                let c = hull.triangles[t as usize];
                                wanted.push(c.map(|i| hull.vertices[i as usize]).to_vec());
                            }
                        }
                        None => wanted.push(vec![top]),
                    }
                    assert_eq!(got, wanted, "dir {dir} top {top}");
                }
            }
            // A point on no face is handed over alone, as before.
            let away = Vec3::splat(10.0);
            assert_eq!(support_face_by_scan(&hull, Vec3::X, away), None);
            let mut got = Vec::new();
            hull.for_each_support_face(Vec3::X, away, &mut |t| got.push(t.to_vec()));
            assert_eq!(got, vec![vec![away]]);
        }
    }

    #[test]
    fn sphere_volume_and_hill_climb_support() {
        let mut rng = Lcg(12345);
        let radius = 2.0f32;
        let mut points = Vec::new();
        while points.len() < 500 {
            let p = rng.in_cube();
            if (0.1..=1.0).contains(&p.length()) {
                points.push(p.normalize() * radius);
            }
        }
        let hull = ConvexHull::new(&points).unwrap();
        check(&hull, &points);
        assert!(hull.vertices().len() > LINEAR_SUPPORT_MAX && !hull.adjacency.is_empty());
        let m = hull.mass_properties(1.0);
        let sphere = 4.0 / 3.0 * core::f32::consts::PI * (radius * radius * radius);
        assert!(
            m.mass < sphere && m.mass > 0.95 * sphere,
            "volume {}",
            m.mass
        );
        assert!(m.local_center.length() < 0.05);
        for _ in 0..1000 {
            let dir = rng.in_cube();
            let (climbed, scanned) = (hull.support(dir), hull.support_linear(dir));
            assert!((climbed.dot(dir) - scanned.dot(dir)).abs() <= 1e-6);
        }
        assert!(hull.vertices().contains(&hull.support(Vec3::ZERO)));
    }
}
