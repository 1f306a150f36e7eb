//! 3D convex polyhedron: the hull of a point cloud, its support function and
//! its mass properties.
//!
//! Building a hull ([`ConvexHull::new`]) runs a quickhull in `f64` (f32 inputs
//! are exact there, so face normals and distances are accurate):
//!
//! 1. Reject any point with a NaN or infinite component, then fewer than 4
//!    points.
//! 2. Measure the cloud's `extent` (bounding box diagonal); the distance
//!    tolerance is `1e-5 × extent`.
//! 3. Seed a tetrahedron: the farthest pair among the six axis-extreme points,
//!    the point farthest from their line, the point farthest from that plane.
//!    If any of these lies within the tolerance the cloud is refused as
//!    degenerate (coincident, collinear or coplanar).
//! 4. Give every other point to the first face it lies above by more than the
//!    tolerance (its *outside set*); points within the tolerance are dropped,
//!    so nearly coplanar points never make slivers.
//! 5. Repeatedly take a face with a non-empty outside set and its farthest
//!    point (the *eye*); flood-fill the faces the eye sees from that face;
//!    walk their boundary into one closed horizon loop; replace the visible
//!    faces by a fan of triangles from the horizon to the eye; hand the
//!    visible faces' outside points to the new faces.
//!    If the horizon is not one simple loop (only possible through rounding on
//!    near-degenerate input) the eye is skipped and the mesh left unchanged.
//! 6. Stop when no outside points remain, or after `3 × points + 16` steps
//!    (then the hull built so far is returned).
//! 7. Keep only the vertices the triangles use; for hulls of more than 32
//!    vertices record each vertex's neighbours for a hill-climbing support.
//!
//! Mass properties come from tetrahedra between each triangle and the vertex
//! mean (an interior point): volume, centroid and second moment are summed in
//! `f64`, then shifted to the centroid with the parallel axis theorem.
//!
//! Limits: every input point lies within the tolerance of the hull, not
//! necessarily exactly inside it; coplanar faces stay split into triangles;
//! vertices keep the caller's local frame (nothing is recentred).

use std::collections::HashMap;

use glam::{DMat3, DVec3, Mat3, Vec3};

use super::{MassProperties, ShapeError, SupportMap};
use crate::math::D3;

/// Points within this fraction of the extent above a face count as on it.
const DISTANCE_TOLERANCE: f64 = 1e-5;

/// A face is seen from an eye that lies above it by more than this fraction
/// of the extent: far below the distance tolerance, far above rounding.
const VISIBILITY_TOLERANCE: f64 = 1e-10;

/// Hulls with at most this many vertices use the linear-scan support.
const LINEAR_SUPPORT_MAX: usize = 32;

/// A convex polyhedron: hull vertices and outward, counter-clockwise triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    bounding_radius: f32,
    /// Vertex `i`'s neighbours are `adjacency[adjacency_offsets[i]..adjacency_offsets[i + 1]]`.
    /// Both are empty for small hulls, which use the linear scan.
    adjacency_offsets: Vec<u32>,
    adjacency: Vec<u32>,
}

impl ConvexHull {
    /// The convex hull of `points`. See [`super::Shape::convex_hull`].
    ///
    /// Interior points, duplicates and points within `1e-5 × extent` of a face
    /// are dropped; triangles are counter-clockwise seen from outside.
    ///
    /// Errors: [`ShapeError::NotFinite`] if a component is NaN or infinite,
    /// [`ShapeError::TooFewPoints`] for fewer than 4 points,
    /// [`ShapeError::Degenerate`] when the points span no volume.
    pub fn new(points: &[Vec3]) -> Result<Self, ShapeError> {
        if points.iter().any(|p| !p.is_finite()) {
            return Err(ShapeError::NotFinite { what: "hull point" });
        }
        if points.len() < 4 {
            return Err(ShapeError::TooFewPoints {
                needed: 4,
                got: points.len(),
            });
        }
        if u32::try_from(points.len()).is_err() {
            return Err(ShapeError::Degenerate {
                reason: "more points than u32 indices can address",
            });
        }
        let degenerate = || ShapeError::Degenerate {
            reason: "all points lie on one plane",
        };

        let wide: Vec<DVec3> = points.iter().map(|p| p.as_dvec3()).collect();
        let init = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        let (min, max) = wide
            .iter()
            .fold(init, |(min, max), p| (min.min(*p), max.max(*p)));
        let extent = (max - min).length();
        if !(extent > 0.0 && extent.is_finite()) {
            return Err(degenerate());
        }
        let mut builder = QuickHull::seed(&wide, extent).ok_or_else(degenerate)?;
        builder.run(3 * points.len() + 16);

        // Keep only the vertices the triangles use, in input order.
        let faces: Vec<[usize; 3]> = builder
            .faces
            .iter()
            .filter(|f| f.alive)
            .map(|f| f.v)
            .collect();
        let mut remap: Vec<Option<u32>> = vec![None; points.len()];
        for &i in faces.iter().flatten() {
            if let Some(slot) = remap.get_mut(i) {
                *slot = Some(0);
            }
        }
        let mut vertices = Vec::new();
        for (slot, &p) in remap.iter_mut().zip(points) {
            if slot.is_some() {
                *slot = u32::try_from(vertices.len()).ok();
                vertices.push(p);
            }
        }
        let mut triangles = Vec::with_capacity(faces.len());
        for face in &faces {
            let mut triangle = [0u32; 3];
            for (out, &i) in triangle.iter_mut().zip(face) {
                *out = remap.get(i).copied().flatten().ok_or_else(degenerate)?;
            }
            triangles.push(triangle);
        }
        if vertices.len() < 4 || triangles.len() < 4 {
            return Err(degenerate());
        }

        let bounding_radius = vertices.iter().map(|v| v.length()).fold(0.0, f32::max);
        let (adjacency_offsets, adjacency) = if vertices.len() > LINEAR_SUPPORT_MAX {
            build_adjacency(vertices.len(), &triangles)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Self {
            vertices,
            triangles,
            bounding_radius,
            adjacency_offsets,
            adjacency,
        })
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

    /// Mass (`density × volume`), centroid in the local frame and inertia
    /// tensor about the centroid (kg·m²) for a uniform `density` in kg/m³.
    ///
    /// Exact for the polyhedron: tetrahedra from the vertex mean to every
    /// triangle give volume, first and second moments; the second moment is
    /// shifted to the centroid and turned into `trace(C)·I − C`.
    pub(crate) fn mass_properties(&self, density: f32) -> MassProperties<D3> {
        let count = self.vertices.len().max(1) as f64;
        let reference = self
            .vertices
            .iter()
            .fold(DVec3::ZERO, |sum, v| sum + v.as_dvec3())
            / count;
        let corner = |i: u32| {
            self.vertices
                .get(i as usize)
                .map(|v| v.as_dvec3() - reference)
        };

        let mut volume = 0.0;
        let mut first_moment = DVec3::ZERO;
        let mut second_moment = DMat3::ZERO;
        for &[i, j, k] in &self.triangles {
            let (Some(a), Some(b), Some(c)) = (corner(i), corner(j), corner(k)) else {
                continue;
            };
            // Tetrahedron (reference, a, b, c): six times its signed volume.
            let det = a.dot(b.cross(c));
            let sum = a + b + c;
            volume += det / 6.0;
            first_moment += sum * (det / 24.0);
            second_moment += (outer(a) + outer(b) + outer(c) + outer(sum)) * (det / 120.0);
        }

        let offset = if volume > 0.0 {
            first_moment / volume
        } else {
            DVec3::ZERO
        };
        let covariance = second_moment - outer(offset) * volume;
        let trace = covariance.x_axis.x + covariance.y_axis.y + covariance.z_axis.z;
        let inertia = (DMat3::from_diagonal(DVec3::splat(trace)) - covariance) * f64::from(density);
        MassProperties {
            mass: (f64::from(density) * volume) as f32,
            local_center: (reference + offset).as_vec3(),
            inertia: inertia.as_mat3(),
        }
    }

    /// Support by scanning every vertex (the first one wins ties).
    ///
    /// Both supports compare `(v - v₀)·dir` rather than `v·dir`: the
    /// difference is exact for vertices near each other, which keeps the
    /// comparisons sharp for hulls far from the local origin.
    fn support_linear(&self, dir: Vec3) -> Vec3 {
        let mut vertices = self.vertices.iter().copied();
        let Some(first) = vertices.next() else {
            return Vec3::ZERO;
        };
        let (mut best, mut best_dot) = (first, 0.0);
        for v in vertices {
            let d = (v - first).dot(dir);
            if d > best_dot {
                best = v;
                best_dot = d;
            }
        }
        best
    }

    /// Support by steepest ascent over the vertex graph from vertex 0: exact on
    /// a convex polytope. Each step strictly raises the dot product, so at
    /// most one step per vertex is taken.
    fn support_hill_climb(&self, dir: Vec3) -> Vec3 {
        let Some(&first) = self.vertices.first() else {
            return Vec3::ZERO;
        };
        let (mut current, mut best_dot) = (0usize, 0.0);
        for _ in 0..self.vertices.len() {
            let range = match (
                self.adjacency_offsets.get(current),
                self.adjacency_offsets.get(current + 1),
            ) {
                (Some(&start), Some(&end)) => start as usize..end as usize,
                _ => break,
            };
            let mut next = None;
            for &n in self.adjacency.get(range).unwrap_or(&[]) {
                if let Some(&v) = self.vertices.get(n as usize) {
                    let d = (v - first).dot(dir);
                    if d > best_dot {
                        best_dot = d;
                        next = Some(n as usize);
                    }
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

/// Sorted, deduplicated neighbour lists of every vertex in compressed form:
/// (offsets with one entry per vertex plus one, concatenated neighbours).
fn build_adjacency(vertex_count: usize, triangles: &[[u32; 3]]) -> (Vec<u32>, Vec<u32>) {
    let mut pairs: Vec<(u32, u32)> = triangles
        .iter()
        .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a), (b, a), (c, b), (a, c)])
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut offsets = vec![0u32; vertex_count + 1];
    for &(from, _) in &pairs {
        if let Some(count) = offsets.get_mut(from as usize + 1) {
            *count += 1;
        }
    }
    let mut running = 0u32;
    for offset in offsets.iter_mut() {
        running += *offset;
        *offset = running;
    }
    (offsets, pairs.into_iter().map(|(_, to)| to).collect())
}

/// A triangle of the hull under construction.
struct Face {
    /// Point indices, counter-clockwise seen from outside.
    v: [usize; 3],
    /// Unit outward normal.
    normal: DVec3,
    /// The position of `v[0]`, for plane distances.
    origin: DVec3,
    /// `neighbors[i]` is the face across the edge `v[i] → v[(i + 1) % 3]`.
    neighbors: [usize; 3],
    /// Points above this face by more than the tolerance.
    outside: Vec<usize>,
    /// False once the face was replaced.
    alive: bool,
    /// The step that last tested this face for visibility, and the answer.
    mark: u64,
    visible: bool,
}

impl Face {
    /// The triangle `v` of `points`, or `None` when it has no area.
    fn new(points: &[DVec3], v: [usize; 3]) -> Option<Self> {
        let (a, b, c) = (*points.get(v[0])?, *points.get(v[1])?, *points.get(v[2])?);
        let normal = (b - a).cross(c - a);
        let length = normal.length();
        if !(length > 0.0 && length.is_finite()) {
            return None;
        }
        let normal = normal / length;
        Some(Self {
            v,
            normal,
            origin: a,
            neighbors: [0; 3],
            outside: Vec::new(),
            alive: true,
            mark: 0,
            visible: false,
        })
    }

    /// Signed distance of `p` above the face's plane.
    fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p - self.origin)
    }
}

/// An edge between a visible face and the rest of the hull.
struct HorizonEdge {
    from: usize,
    to: usize,
    /// The non-visible face across the edge and its slot for the edge.
    outer: usize,
    outer_slot: usize,
}

/// Quickhull state: the points, every face ever made (dead ones flagged) and
/// the faces that may still have outside points.
struct QuickHull<'a> {
    points: &'a [DVec3],
    faces: Vec<Face>,
    pending: Vec<usize>,
    tolerance: f64,
    visibility: f64,
    step: u64,
}

impl<'a> QuickHull<'a> {
    /// The starting tetrahedron with every point in an outside set, or `None`
    /// when the points span no volume.
    fn seed(points: &'a [DVec3], extent: f64) -> Option<Self> {
        let tolerance = DISTANCE_TOLERANCE * extent;
        let simplex = initial_simplex(points, tolerance)?;
        let [a, b, c, d] = simplex;
        let centroid =
            (*points.get(a)? + *points.get(b)? + *points.get(c)? + *points.get(d)?) / 4.0;
        let mut faces = Vec::with_capacity(4);
        for [x, y, z] in [[a, b, c], [a, b, d], [a, c, d], [b, c, d]] {
            let face = Face::new(points, [x, y, z])?;
            faces.push(if face.distance(centroid) > 0.0 {
                Face::new(points, [x, z, y])?
            } else {
                face
            });
        }
        // Link each edge to the face holding it reversed.
        let edges: Vec<[usize; 3]> = faces.iter().map(|f| f.v).collect();
        for (f, face) in faces.iter_mut().enumerate() {
            for slot in 0..3 {
                let (from, to) = (face.v[slot], face.v[(slot + 1) % 3]);
                face.neighbors[slot] = (0..edges.len()).find(|&g| {
                    g != f
                        && edges
                            .get(g)
                            .is_some_and(|v| (0..3).any(|j| v[j] == to && v[(j + 1) % 3] == from))
                })?;
            }
        }
        for (i, &p) in points.iter().enumerate() {
            if simplex.contains(&i) {
                continue;
            }
            if let Some(face) = faces.iter_mut().find(|f| f.distance(p) > tolerance) {
                face.outside.push(i);
            }
        }
        let pending = (0..faces.len()).rev().collect();
        Some(Self {
            points,
            faces,
            pending,
            tolerance,
            visibility: VISIBILITY_TOLERANCE * extent,
            step: 0,
        })
    }

    /// Add eyes until no outside points remain or `max_eyes` eyes were tried.
    ///
    /// Popping a face that died since it was queued costs no eye; the loop
    /// still ends, as every push follows an eye and each eye pushes at most
    /// one face per new triangle.
    fn run(&mut self, max_eyes: usize) {
        let mut eyes = 0;
        while let Some(f) = self.pending.pop() {
            if eyes >= max_eyes {
                return;
            }
            let Some(face) = self.faces.get(f).filter(|face| face.alive) else {
                continue;
            };
            let farthest = face
                .outside
                .iter()
                .filter_map(|&i| Some((i, face.distance(*self.points.get(i)?))))
                .fold(None, |best: Option<(usize, f64)>, (i, d)| match best {
                    Some((_, bd)) if bd >= d => best,
                    _ => Some((i, d)),
                });
            let Some((eye, _)) = farthest else {
                continue;
            };
            eyes += 1;
            let ok = self.add_eye(f, eye);
            self.debug_check(eye);
            { let p = self.points[114]; let d = self.faces.iter().filter(|f| f.alive).map(|f| f.distance(p)).fold(f64::MIN, f64::max); eprintln!("eye {eye}: 114 max dist {d:e}"); }
            if !ok {
                // Skip this eye; keep the face's other outside points.
                if let Some(face) = self.faces.get_mut(f) {
                    face.outside.retain(|&i| i != eye);
                    if !face.outside.is_empty() {
                        self.pending.push(f);
                    }
                }
            }
        }
    }

    /// Replace the faces `eye` sees (starting from face `start`) by a fan from
    /// the horizon to `eye`. Returns false, leaving the mesh unchanged, when
    /// the visible region's boundary is not one simple loop.
    fn add_eye(&mut self, start: usize, eye: usize) -> bool {
        let Some(&eye_point) = self.points.get(eye) else {
            return false;
        };
        self.step += 1;
        let step = self.step;

        // Flood fill the visible faces. Each face is queued at most once.
        let mut visible = vec![start];
        match self.faces.get_mut(start) {
            Some(face) => (face.mark, face.visible) = (step, true),
            None => return false,
        }
        let mut head = 0;
        while let Some(&f) = visible.get(head) {
            head += 1;
            let Some(neighbors) = self.faces.get(f).map(|face| face.neighbors) else {
                return false;
            };
            for n in neighbors {
                let Some(face) = self.faces.get_mut(n) else {
                    return false;
                };
                if face.mark != step {
                    face.mark = step;
                    face.visible = face.alive && face.distance(eye_point) > self.visibility;
                    if face.visible {
                        visible.push(n);
                    }
                }
            }
        }

        let Some(horizon) = self.horizon(&visible, step) else {
            return false;
        };
        let Some(order) = horizon_loop(&horizon) else {
            return false;
        };

        // Build the fan first so that a failure leaves the mesh untouched.
        let base = self.faces.len();
        let m = order.len();
        let mut fan = Vec::with_capacity(m);
        for (pos, edge) in order.iter().filter_map(|&k| horizon.get(k)).enumerate() {
            let Some(mut face) = Face::new(self.points, [edge.from, edge.to, eye]) else {
                return false;
            };
            face.neighbors = [edge.outer, base + (pos + 1) % m, base + (pos + m - 1) % m];
            fan.push(face);
        }
        if fan.len() != m {
            return false;
        }
        for (pos, edge) in order.iter().filter_map(|&k| horizon.get(k)).enumerate() {
            if let Some(slot) = self
                .faces
                .get_mut(edge.outer)
                .and_then(|f| f.neighbors.get_mut(edge.outer_slot))
            {
                *slot = base + pos;
            }
        }
        let mut orphans = Vec::new();
        for &f in &visible {
            if let Some(face) = self.faces.get_mut(f) {
                face.alive = false;
                orphans.append(&mut face.outside);
            }
        }
        self.faces.extend(fan);

        let new_faces = self.faces.get_mut(base..).unwrap_or(&mut []);
        for i in orphans {
            let Some(&p) = self.points.get(i).filter(|_| i != eye) else {
                continue;
            };
            if let Some(face) = new_faces
                .iter_mut()
                .find(|f| f.distance(p) > self.tolerance)
            {
                face.outside.push(i);
            }
        }
        for (k, face) in new_faces.iter().enumerate() {
            if !face.outside.is_empty() {
                self.pending.push(base + k);
            }
        }
        true
    }

    fn debug_check(&self, eye: usize) {
        let verts: Vec<usize> = self
            .faces
            .iter()
            .filter(|f| f.alive)
            .flat_map(|f| f.v)
            .collect();
        let mut worst = 0.0f64;
        for f in self.faces.iter().filter(|f| f.alive) {
            for &v in &verts {
                worst = worst.max(f.distance(self.points[v]));
            }
        }
        if worst > 1e-9 {
            eprintln!(
                "after eye {eye}: concavity {worst:e}, faces {}",
                self.faces.iter().filter(|f| f.alive).count()
            );
        }
    }

    /// Every edge from a visible face to a non-visible one (tested at `step`).
    fn horizon(&self, visible: &[usize], step: u64) -> Option<Vec<HorizonEdge>> {
        let mut horizon = Vec::new();
        for face in visible.iter().filter_map(|&f| self.faces.get(f)) {
            for slot in 0..3 {
                let outer = face.neighbors[slot];
                let other = self.faces.get(outer)?;
                if other.mark == step && other.visible {
                    continue;
                }
                let (from, to) = (face.v[slot], face.v[(slot + 1) % 3]);
                let outer_slot =
                    (0..3).find(|&j| other.v[j] == to && other.v[(j + 1) % 3] == from)?;
                horizon.push(HorizonEdge {
                    from,
                    to,
                    outer,
                    outer_slot,
                });
            }
        }
        Some(horizon)
    }
}

/// Order the horizon edges into one closed loop (each edge ends where the next
/// starts), or `None` if they do not form exactly one simple loop.
fn horizon_loop(horizon: &[HorizonEdge]) -> Option<Vec<usize>> {
    let m = horizon.len();
    if m < 3 {
        return None;
    }
    let mut by_start = HashMap::with_capacity(m);
    for (k, edge) in horizon.iter().enumerate() {
        if by_start.insert(edge.from, k).is_some() {
            return None;
        }
    }
    let mut order = Vec::with_capacity(m);
    let mut k = 0;
    for _ in 0..m {
        if k == 0 && !order.is_empty() {
            return None; // closed too early: more than one loop
        }
        order.push(k);
        k = *by_start.get(&horizon.get(k)?.to)?;
    }
    (k == 0).then_some(order)
}

/// Indices of a tetrahedron spanning the cloud, or `None` when the points lie
/// within `tolerance` of one point, line or plane.
fn initial_simplex(points: &[DVec3], tolerance: f64) -> Option<[usize; 4]> {
    let mut extremes = [0usize; 6];
    for (i, p) in points.iter().enumerate() {
        for axis in 0..3 {
            let low = points.get(extremes[2 * axis])?;
            let high = points.get(extremes[2 * axis + 1])?;
            if p[axis] < low[axis] {
                extremes[2 * axis] = i;
            }
            if p[axis] > high[axis] {
                extremes[2 * axis + 1] = i;
            }
        }
    }
    let mut pair = (0, 0, 0.0);
    for (n, &i) in extremes.iter().enumerate() {
        for &j in extremes.iter().skip(n + 1) {
            let d = points.get(i)?.distance(*points.get(j)?);
            if d > pair.2 {
                pair = (i, j, d);
            }
        }
    }
    let (a, b, span) = pair;
    if span <= tolerance {
        return None;
    }
    let (pa, pb) = (*points.get(a)?, *points.get(b)?);
    let axis = (pb - pa) / span;
    let c = farthest(points, |p| (p - pa).cross(axis).length())?;
    let pc = *points.get(c)?;
    let normal = (pb - pa).cross(pc - pa).normalize_or_zero();
    let d = farthest(points, |p| normal.dot(p - pa).abs())?;
    let off_plane = normal.dot(*points.get(d)? - pa).abs();
    ((pc - pa).cross(axis).length() > tolerance && off_plane > tolerance).then_some([a, b, c, d])
}

/// Index of the point with the largest `measure` (the first on ties).
fn farthest(points: &[DVec3], measure: impl Fn(DVec3) -> f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, &p) in points.iter().enumerate() {
        let m = measure(p);
        if best.is_none_or(|(_, b)| m > b) {
            best = Some((i, m));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (64-bit LCG) for test clouds.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn in_cube(&mut self) -> Vec3 {
            Vec3::new(self.next(), self.next(), self.next()) * 2.0 - Vec3::ONE
        }

        fn on_sphere(&mut self) -> Vec3 {
            for _ in 0..1000 {
                let p = self.in_cube();
                let len = p.length();
                if len > 0.1 && len <= 1.0 {
                    return p / len;
                }
            }
            Vec3::X
        }
    }

    fn cube_corners(half: Vec3) -> Vec<Vec3> {
        (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -1.0 } else { 1.0 },
                    if i & 4 == 0 { -1.0 } else { 1.0 },
                ) * half
            })
            .collect()
    }

    fn corners(hull: &ConvexHull, t: &[u32; 3]) -> [DVec3; 3] {
        t.map(|i| hull.vertices()[i as usize].as_dvec3())
    }

    /// Largest distance of any of `points` above any face plane of `hull`.
    fn max_outside(hull: &ConvexHull, points: &[Vec3]) -> f64 {
        let mut worst = f64::NEG_INFINITY;
        for t in hull.triangles() {
            let [a, b, c] = corners(hull, t);
            let n = (b - a).cross(c - a);
            assert!(n.length() > 0.0, "degenerate triangle");
            let n = n.normalize();
            for p in points {
                worst = worst.max(n.dot(p.as_dvec3() - a));
            }
        }
        worst
    }

    /// Checks a closed, consistently oriented triangle mesh and returns V - E + F.
    fn euler_characteristic(hull: &ConvexHull) -> i64 {
        let mut directed: Vec<(u32, u32)> = hull
            .triangles()
            .iter()
            .flat_map(|&[a, b, c]| [(a, b), (b, c), (c, a)])
            .collect();
        directed.sort_unstable();
        let before = directed.len();
        directed.dedup();
        assert_eq!(
            before,
            directed.len(),
            "an edge is used twice in the same direction"
        );
        for &(a, b) in &directed {
            assert!(directed.binary_search(&(b, a)).is_ok(), "open edge");
        }
        let edges = directed.len() as i64 / 2;
        hull.vertices().len() as i64 - edges + hull.triangles().len() as i64
    }

    #[test]
    fn cube_with_inner_and_face_points() {
        let mut points = cube_corners(Vec3::ONE);
        points.extend([Vec3::ZERO, Vec3::splat(0.3), Vec3::new(-0.5, 0.2, 0.9)]);
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            points.extend([axis, -axis, axis * 0.5 + (Vec3::ONE - axis) * 0.999]);
        }
        points.extend(cube_corners(Vec3::ONE)); // duplicates
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!(hull.vertices().len(), 8);
        assert_eq!(hull.triangles().len(), 12);
        assert!(max_outside(&hull, hull.vertices()) <= 1e-6);
        assert!(max_outside(&hull, &points) <= 1e-6);
        for t in hull.triangles() {
            let [a, b, c] = corners(&hull, t);
            // Outward: the normal points away from the cube's centre.
            assert!((b - a).cross(c - a).dot(a + b + c) > 0.0);
        }
        assert_eq!(euler_characteristic(&hull), 2);
        assert!((hull.bounding_radius() - 3f32.sqrt()).abs() < 1e-6);
        assert_eq!(
            hull.support(Vec3::new(1.0, -2.0, 0.5)),
            Vec3::new(1.0, -1.0, 1.0)
        );
    }

    #[test]
    fn rejects_bad_input() {
        let plane = [
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(0.3, 0.7, 0.0),
        ];
        assert_eq!(
            ConvexHull::new(&plane),
            Err(ShapeError::Degenerate {
                reason: "all points lie on one plane"
            })
        );
        let tilted: Vec<Vec3> = plane
            .iter()
            .map(|p| Vec3::new(p.x, p.y, p.x + 2.0 * p.y))
            .collect();
        assert!(matches!(
            ConvexHull::new(&tilted),
            Err(ShapeError::Degenerate { .. })
        ));
        let line: Vec<Vec3> = (0..6).map(|i| Vec3::splat(i as f32)).collect();
        assert!(matches!(
            ConvexHull::new(&line),
            Err(ShapeError::Degenerate { .. })
        ));
        assert!(matches!(
            ConvexHull::new(&[Vec3::ONE; 6]),
            Err(ShapeError::Degenerate { .. })
        ));
        assert_eq!(
            ConvexHull::new(&[Vec3::ZERO, Vec3::X, Vec3::Y]),
            Err(ShapeError::TooFewPoints { needed: 4, got: 3 })
        );
        let nan = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, 0.0, f32::NAN)];
        assert_eq!(
            ConvexHull::new(&nan),
            Err(ShapeError::NotFinite { what: "hull point" })
        );
        let inf = [
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::Z,
            Vec3::new(f32::NEG_INFINITY, 0.0, 0.0),
        ];
        assert!(matches!(
            ConvexHull::new(&inf),
            Err(ShapeError::NotFinite { .. })
        ));
    }

    #[test]
    fn box_mass_matches_formula() {
        let half = Vec3::new(0.5, 1.0, 1.5);
        let density = 2.0;
        let m = ConvexHull::new(&cube_corners(half))
            .unwrap()
            .mass_properties(density);
        let size = half * 2.0;
        let mass = density * size.x * size.y * size.z;
        assert!((m.mass - mass).abs() < 1e-4);
        assert!(m.local_center.length() < 1e-6);
        let sq = size * size;
        let expected =
            Mat3::from_diagonal(Vec3::new(sq.y + sq.z, sq.x + sq.z, sq.x + sq.y) * (mass / 12.0));
        assert!(m.inertia.abs_diff_eq(expected, 1e-4), "{:?}", m.inertia);

        // The same box far from the origin: centroid moves, inertia does not.
        let offset = Vec3::new(100.0, -40.0, 7.0);
        let moved: Vec<Vec3> = cube_corners(half).iter().map(|p| *p + offset).collect();
        let m = ConvexHull::new(&moved).unwrap().mass_properties(density);
        assert!((m.local_center - offset).length() < 1e-4);
        assert!(m.inertia.abs_diff_eq(expected, 1e-3));
    }

    #[test]
    fn tetrahedron_centroid() {
        let points = [
            Vec3::ZERO,
            Vec3::X * 3.0,
            Vec3::Y * 3.0,
            Vec3::Z * 3.0,
            Vec3::splat(0.2),
        ];
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!(hull.vertices().len(), 4);
        let m = hull.mass_properties(1.0);
        assert!((m.mass - 4.5).abs() < 1e-5);
        assert!((m.local_center - Vec3::splat(0.75)).length() < 1e-6);
        // Products of inertia of this tetrahedron are positive about its centroid.
        assert!(m.inertia.x_axis.y > 0.0 && (m.inertia.x_axis.y - m.inertia.y_axis.x).abs() < 1e-6);
    }

    #[test]
    fn random_cloud_is_closed_and_contains_every_point() {
        let mut rng = Lcg(7);
        let points: Vec<Vec3> = (0..200)
            .map(|_| rng.in_cube() * Vec3::new(1.0, 2.0, 0.5))
            .collect();
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!(euler_characteristic(&hull), 2);
        let extent = 2.0 * Vec3::new(1.0, 2.0, 0.5).length() as f64;
        assert!(max_outside(&hull, &points) <= DISTANCE_TOLERANCE * extent);
        for v in hull.vertices() {
            assert!(points.contains(v));
        }
        assert!(hull.vertices().len() < points.len());
    }

    #[test]
    fn noisy_flat_faces_stay_valid() {
        // Points scattered on the faces of a box, off them by float-noise only.
        let mut rng = Lcg(99);
        let mut points = cube_corners(Vec3::ONE);
        for _ in 0..400 {
            let mut p = rng.in_cube();
            let axis = (rng.next() * 3.0) as usize % 3;
            p[axis] = if rng.next() < 0.5 { -1.0 } else { 1.0 } + (rng.next() - 0.5) * 1e-6;
            points.push(p);
        }
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!(euler_characteristic(&hull), 2);
        assert!(max_outside(&hull, &points) <= DISTANCE_TOLERANCE * 12f64.sqrt());
        let m = hull.mass_properties(1.0);
        assert!((m.mass - 8.0).abs() < 1e-3);
    }

    #[test]
    fn sphere_volume_and_hill_climb_support() {
        let mut rng = Lcg(12345);
        let radius = 2.0f32;
        let points: Vec<Vec3> = (0..500).map(|_| rng.on_sphere() * radius).collect();
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!(euler_characteristic(&hull), 2);
        assert!(hull.vertices().len() > LINEAR_SUPPORT_MAX);
        assert!(!hull.adjacency.is_empty());
        let volume = hull.mass_properties(1.0).mass;
        let sphere = 4.0 / 3.0 * core::f32::consts::PI * radius.powi(3);
        assert!(
            volume < sphere && volume > 0.95 * sphere,
            "volume {volume} vs {sphere}"
        );
        assert!(hull.mass_properties(1.0).local_center.length() < 0.05);
        for _ in 0..1000 {
            let dir = rng.in_cube();
            let climbed = hull.support(dir);
            let scanned = hull.support_linear(dir);
            assert!(
                (climbed.dot(dir) - scanned.dot(dir)).abs() <= 1e-6,
                "{climbed} vs {scanned}"
            );
        }
        assert!(hull.vertices().contains(&hull.support(Vec3::ZERO)));
    }

    #[test]
    fn far_from_origin_cloud() {
        let mut rng = Lcg(3);
        let offset = Vec3::new(5000.0, -3000.0, 1000.0);
        let points: Vec<Vec3> = (0..300).map(|_| rng.on_sphere() + offset).collect();
        let hull = ConvexHull::new(&points).unwrap();
        assert_eq!(euler_characteristic(&hull), 2);
        assert!(max_outside(&hull, &points) <= DISTANCE_TOLERANCE * 4.0);
        let m = hull.mass_properties(1.0);
        assert!((m.local_center - offset).length() < 0.05);
    }
}
