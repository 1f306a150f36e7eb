//! EPA in 3D: penetration depth, normal and witness points of two overlapping
//! convex sets, from the simplex GJK ends with. Twin of `epa_2d`.
//!
//! 1. Grow GJK's simplex to a tetrahedron: a point gains the farthest support
//!    along the axes, a segment the farthest across it, a triangle the
//!    farthest off its plane (Jolt, `EPAPenetrationDepth.h`).
//! 2. Keep the polytope's triangles in a priority queue by their distance to
//!    the origin.
//! 3. Take the closest face and the support point `w` along its normal. When
//!    `w` is no farther than the face (within the tolerance) the face is on
//!    the boundary: done.
//! 4. Otherwise remove every face `w` sees (a depth-first walk from the
//!    closest face over face neighbours), keep the horizon edges, fan new
//!    faces from `w` to the horizon, and repeat.
//! 5. Project the origin on the closest face; its barycentric coordinates
//!    combine each vertex's own support points into the witness points.
//!
//! Limits: [`MAX_ITERATIONS`]; a degenerate new face, a broken horizon or a
//! new face with the origin outside it (rounding) stops the expansion. In
//! every such case the answer comes from the closest face so far and the
//! best separating direction (`Polytope::best_separating`), never NaN
//! (`nearly_aligned_cubes_give_the_face_normal_and_depth`,
//! `epa_at_its_cap_returns_a_finite_lower_bound`). Unlike in 2D, a new face
//! may be closer than the face it replaces (see `Polytope::expand`), so
//! that alone does not stop it (`cube_pressed_into_an_aligned_cube`).

use std::cell::Cell;
use std::collections::BinaryHeap;

use glam::Vec3;

use super::epa_start::{grow_to_full, touching, HullGrowth, MAX_GROWTH_DIRECTIONS};
use super::trace::{EpaStep, Observer};
use super::{PairSupport, Penetration, Simplex, SupportPoint};

/// Cap on expansions; boxes need about 10, hulls 8-24, curved shapes more.
pub const MAX_ITERATIONS: u32 = 128;

/// A triangle of the polytope, counter-clockwise seen from outside.
#[derive(Copy, Clone, Debug)]
struct Face {
    vertices: [u32; 3],
    /// `neighbours[i]` shares edge `vertices[i] -> vertices[(i + 1) % 3]`.
    neighbours: [u32; 3],
    normal: Vec3,
    distance: f32,
    alive: bool,
}

/// A queue entry: the face with the smallest distance pops first; ties by index.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Queued {
    distance: f32,
    face: u32,
}

impl Eq for Queued {}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .distance
            .total_cmp(&self.distance)
            .then_with(|| other.face.cmp(&self.face))
    }
}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Default)]
struct Polytope {
    vertices: Vec<SupportPoint<Vec3>>,
    faces: Vec<Face>,
    queue: BinaryHeap<Queued>,
}

thread_local! {
    /// The last polytope's buffers, kept for the next query on this thread:
    /// the narrow phase runs EPA for thousands of pairs a step.
    static BUFFERS: Cell<Polytope> = const {
        Cell::new(Polytope { vertices: Vec::new(), faces: Vec::new(), queue: BinaryHeap::new() })
    };
}

/// Penetration of the pair whose Minkowski difference `pair` is, given GJK's
/// overlapping `simplex`. `tolerance` is absolute, in metres.
pub fn penetration<P: PairSupport<Vec3>>(
    pair: &P,
    simplex: &Simplex<Vec3>,
    tolerance: f32,
) -> Penetration<Vec3> {
    penetration_observed(pair, simplex, tolerance, &mut ())
}

/// [`penetration`], reporting every iteration to `observer`.
pub fn penetration_observed<P: PairSupport<Vec3>, O: Observer<Vec3>>(
    pair: &P,
    simplex: &Simplex<Vec3>,
    tolerance: f32,
    observer: &mut O,
) -> Penetration<Vec3> {
    let tetrahedron = match grow_to_full::<_, _, 4>(pair, simplex, tolerance) {
        Ok(t) => t,
        Err(flat_normal) => return touching(simplex, flat_normal),
    };
    let Some(mut polytope) = Polytope::from_tetrahedron(tetrahedron, BUFFERS.take()) else {
        return touching(simplex, Vec3::Y);
    };
    let penetration = polytope
        .converge(pair, tolerance, observer)
        .unwrap_or_else(|| touching(simplex, Vec3::Y));
    BUFFERS.set(polytope);
    penetration
}

/// Both ways along each axis of A's frame.
const AXES: [Vec3; 6] = [
    Vec3::X,
    Vec3::NEG_X,
    Vec3::Y,
    Vec3::NEG_Y,
    Vec3::Z,
    Vec3::NEG_Z,
];

impl HullGrowth for Vec3 {
    /// A point grows along the axes, a segment in six directions 60
    /// degrees apart around it, a triangle to both sides of it.
    fn growth_directions(hull: &[SupportPoint<Vec3>]) -> ([Vec3; MAX_GROWTH_DIRECTIONS], usize) {
        match hull.len() {
            1 => (AXES, 6),
            2 => {
                let axis = (hull[1].w - hull[0].w).normalize_or(Vec3::X);
                let (u, v) = axis.any_orthonormal_pair();
                let (s, c) = (0.866_025_4, 0.5);
                (
                    [
                        u,
                        -u,
                        u * c + v * s,
                        -(u * c + v * s),
                        u * c - v * s,
                        -(u * c - v * s),
                    ],
                    6,
                )
            }
            _ => {
                let n = (hull[1].w - hull[0].w)
                    .cross(hull[2].w - hull[0].w)
                    .normalize_or(Vec3::Y);
                ([n, -n, n, -n, n, -n], 2)
            }
        }
    }

    fn distance_from_hull(hull: &[SupportPoint<Vec3>], w: Vec3) -> f32 {
        let r = w - hull[0].w;
        match hull.len() {
            1 => r.length(),
            2 => {
                let axis = (hull[1].w - hull[0].w).normalize_or(Vec3::X);
                (r - axis * r.dot(axis)).length()
            }
            _ => {
                let n = (hull[1].w - hull[0].w)
                    .cross(hull[2].w - hull[0].w)
                    .normalize_or_zero();
                r.dot(n).abs()
            }
        }
    }
}

impl Polytope {
    /// Step 2: the tetrahedron's four outward faces, linked and queued, in
    /// the buffers of `reused`.
    fn from_tetrahedron(mut t: [SupportPoint<Vec3>; 4], reused: Polytope) -> Option<Self> {
        let volume = (t[1].w - t[0].w).dot((t[2].w - t[0].w).cross(t[3].w - t[0].w));
        if volume > 0.0 {
            t.swap(1, 2);
        }
        let mut polytope = reused;
        polytope.vertices.clear();
        polytope.faces.clear();
        polytope.queue.clear();
        polytope.vertices.extend_from_slice(&t);
        for (v, n) in [
            ([0, 1, 2], [1, 3, 2]),
            ([0, 3, 1], [2, 3, 0]),
            ([0, 2, 3], [0, 3, 1]),
            ([1, 3, 2], [1, 2, 0]),
        ] {
            polytope.add_face(v, n)?;
        }
        Some(polytope)
    }

    /// The live polytope as an [`EpaStep`], for tracing.
    fn snapshot(&self, closest: u32, support: Vec3) -> EpaStep<Vec3> {
        let live: Vec<u32> = (0..self.faces.len() as u32)
            .filter(|&f| self.faces[f as usize].alive || f == closest)
            .collect();
        let face = &self.faces[closest as usize];
        EpaStep {
            vertices: self.vertices.iter().map(|v| v.w).collect(),
            faces: live
                .iter()
                .map(|&f| self.faces[f as usize].vertices.to_vec())
                .collect(),
            closest: live.iter().position(|&f| f == closest).unwrap_or(0),
            distance: face.distance,
            normal: face.normal,
            support,
        }
    }

    /// Adds a face; `None` when it has no area.
    fn add_face(&mut self, vertices: [u32; 3], neighbours: [u32; 3]) -> Option<u32> {
        let [a, b, c] = vertices.map(|i| self.vertices[i as usize].w);
        let normal = (b - a).cross(c - a).try_normalize()?;
        let distance = (normal.dot(a) + normal.dot(b) + normal.dot(c)) / 3.0;
        let index = self.faces.len() as u32;
        self.faces.push(Face {
            vertices,
            neighbours,
            normal,
            distance,
            alive: true,
        });
        self.queue.push(Queued {
            distance,
            face: index,
        });
        Some(index)
    }

    fn pop_closest(&mut self) -> Option<u32> {
        while let Some(q) = self.queue.pop() {
            if self.faces[q.face as usize].alive {
                return Some(q.face);
            }
        }
        None
    }

    /// The index of `neighbour`'s edge that runs back along `face`'s edge.
    fn edge_towards(&self, neighbour: u32, face: u32) -> usize {
        let n = &self.faces[neighbour as usize];
        n.neighbours.iter().position(|&f| f == face).unwrap_or(0)
    }

    /// Steps 3 to 5: expands until the closest face is on the boundary (or
    /// the cap), then the witnesses; `None` if no face is left to expand.
    fn converge<P: PairSupport<Vec3>, O: Observer<Vec3>>(
        &mut self,
        pair: &P,
        tolerance: f32,
        observer: &mut O,
    ) -> Option<Penetration<Vec3>> {
        let mut iterations = 0;
        while let Some(closest) = self.pop_closest() {
            let face = self.faces[closest as usize];
            let w = pair.support_point(face.normal);
            if O::ENABLED {
                observer.epa_step(self.snapshot(closest, w.w));
            }
            let gap = face.normal.dot(w.w) - face.distance;
            if gap <= tolerance || !gap.is_finite() {
                return Some(self.witness(closest, iterations));
            }
            if iterations >= MAX_ITERATIONS {
                return Some(self.best_separating(pair, closest, iterations, tolerance));
            }
            iterations += 1;
            if !self.expand(closest, w, tolerance) {
                return Some(self.best_separating(pair, closest, iterations, tolerance));
            }
        }
        None
    }

    /// Step 4: removes what `w` sees from face `closest`, fans new faces from
    /// `w` to the horizon. False when rounding broke the polytope.
    fn expand(&mut self, closest: u32, w: SupportPoint<Vec3>, tolerance: f32) -> bool {
        let Some(horizon) = self.horizon(closest, w.w, tolerance) else {
            return false;
        };
        let apex = self.vertices.len() as u32;
        self.vertices.push(w);
        let first_new = self.faces.len() as u32;
        let count = horizon.len() as u32;
        for (k, &(outside, edge)) in horizon.iter().enumerate() {
            let f = self.faces[outside as usize];
            let a = f.vertices[edge];
            let b = f.vertices[(edge + 1) % 3];
            let this = first_new + k as u32;
            // Edges: b->a borders `outside`; a->apex and apex->b border the
            // new faces beside it, linked below.
            let Some(index) = self.add_face([b, a, apex], [outside, this, this]) else {
                return false;
            };
            // A new face may be closer than the one it replaces: the faces
            // `w` lies on go too, and when GJK ended on a segment through the
            // origin the tetrahedron holds the origin on an edge. Only a
            // face with the origin outside means rounding broke the polytope.
            if self.faces[index as usize].distance < -tolerance {
                return false;
            }
            self.faces[outside as usize].neighbours[edge] = index;
        }
        self.link_fan(first_new, count)
    }

    /// Links the new faces around the apex: face k's edge a->apex meets the
    /// face whose edge apex->b starts from the same `a`.
    fn link_fan(&mut self, first: u32, count: u32) -> bool {
        for k in first..first + count {
            let a = self.faces[k as usize].vertices[1];
            let Some(next) =
                (first..first + count).find(|&j| self.faces[j as usize].vertices[0] == a)
            else {
                return false;
            };
            self.faces[k as usize].neighbours[1] = next;
            self.faces[next as usize].neighbours[2] = k;
        }
        true
    }

    /// The faces `w` sees, removed by a depth-first walk from `closest`; the
    /// horizon edges as (face that stays, its edge index), in loop order.
    /// Faces `w` lies on (within `tolerance`) go too: otherwise a support
    /// point in the middle of an edge of the Minkowski difference leaves a
    /// new face with no area.
    fn horizon(&mut self, closest: u32, w: Vec3, tolerance: f32) -> Option<Vec<(u32, usize)>> {
        let mut horizon = Vec::with_capacity(16);
        let mut stack: Vec<(u32, usize)> = Vec::with_capacity(32);
        self.faces[closest as usize].alive = false;
        let start = self.faces[closest as usize];
        for i in (0..3).rev() {
            let n = start.neighbours[i];
            stack.push((n, self.edge_towards(n, closest)));
        }
        let mut steps = 0;
        while let Some((f, edge)) = stack.pop() {
            steps += 1;
            if steps > 4 * self.faces.len() {
                return None;
            }
            let face = self.faces[f as usize];
            if !face.alive {
                continue;
            }
            if face.normal.dot(w) - face.distance > -tolerance {
                self.faces[f as usize].alive = false;
                for step in [2, 1] {
                    let e = (edge + step) % 3;
                    let n = face.neighbours[e];
                    stack.push((n, self.edge_towards(n, f)));
                }
            } else {
                horizon.push((f, edge));
            }
        }
        (horizon.len() >= 3).then_some(horizon)
    }

    /// The answer when the polytope stops short of the boundary (rounding
    /// broke it, or the cap): the closest face's distance is then only a
    /// lower bound on the depth (zero when GJK left the origin on the
    /// polytope's surface), so of that face's normal, every live face's and
    /// A's axes, take the one along which the shortest move separates the
    /// shapes, `max over A - B of w·n`: an upper bound, and the depth
    /// itself when the direction is the right one.
    fn best_separating<P: PairSupport<Vec3>>(
        &self,
        pair: &P,
        closest: u32,
        iterations: u32,
        tolerance: f32,
    ) -> Penetration<Vec3> {
        let normals = self.faces.iter().filter(|f| f.alive).map(|f| f.normal);
        let face = self.faces[closest as usize];
        let (mut move_out, mut along, mut deepest) = {
            let w = pair.support_point(face.normal);
            (face.normal.dot(w.w), face.normal, w)
        };
        for n in normals.chain(AXES) {
            let w = pair.support_point(n);
            let distance = n.dot(w.w);
            if distance < move_out {
                (move_out, along, deepest) = (distance, n, w);
            }
        }
        let lower = self.witness(closest, iterations);
        if move_out - face.distance <= tolerance || !move_out.is_finite() {
            return lower;
        }
        // The face's witnesses lie where the shapes overlap: keep them across
        // the normal and move them onto A's supporting plane along it.
        let inside = (lower.point_a + lower.point_b) * 0.5;
        let point_a = inside + along * along.dot(deepest.a - inside);
        let depth = move_out.max(0.0);
        Penetration {
            depth,
            normal: along,
            point_a,
            point_b: point_a - along * depth,
            iterations,
        }
    }

    /// Step 5: depth, normal and witnesses from the closest face.
    fn witness(&self, closest: u32, iterations: u32) -> Penetration<Vec3> {
        let face = self.faces[closest as usize];
        let p = face.normal * face.distance;
        let (holder, weights) = self.locate(closest, p);
        let [a, b, c] = self.faces[holder as usize]
            .vertices
            .map(|i| self.vertices[i as usize]);
        let combine = |pick: fn(&SupportPoint<Vec3>) -> Vec3| {
            pick(&a) * weights[0] + pick(&b) * weights[1] + pick(&c) * weights[2]
        };
        Penetration {
            depth: face.distance.max(0.0),
            normal: face.normal,
            point_a: combine(|s| s.a),
            point_b: combine(|s| s.b),
            iterations,
        }
    }

    /// The face holding `p` and its weights there. A flat side of the
    /// Minkowski difference is split into coplanar triangles and the closest
    /// one by rounding need not hold the projection of the origin, so walk
    /// across coplanar neighbours towards it.
    fn locate(&self, start: u32, p: Vec3) -> (u32, [f32; 3]) {
        let normal = self.faces[start as usize].normal;
        let mut current = start;
        for _ in 0..self.faces.len() {
            let face = &self.faces[current as usize];
            let [a, b, c] = face.vertices.map(|i| self.vertices[i as usize].w);
            let weights = barycentric(p, a, b, c, normal);
            let (outside, least) = (0..3)
                .map(|i| (i, weights[i]))
                .fold((0, f32::INFINITY), |m, x| if x.1 < m.1 { x } else { m });
            if least >= -COPLANAR || !least.is_finite() {
                return (current, clamp_weights(weights));
            }
            let next = face.neighbours[(outside + 1) % 3];
            let neighbour = &self.faces[next as usize];
            if !neighbour.alive || neighbour.normal.dot(normal) < 1.0 - COPLANAR {
                return (current, clamp_weights(weights));
            }
            current = next;
        }
        let [a, b, c] = self.faces[current as usize]
            .vertices
            .map(|i| self.vertices[i as usize].w);
        (current, clamp_weights(barycentric(p, a, b, c, normal)))
    }
}

/// Faces whose normals agree to this (1 - cos) are one flat side.
const COPLANAR: f32 = 1e-5;

/// Barycentric weights of `p` (on the plane of `a, b, c` with unit `normal`).
fn barycentric(p: Vec3, a: Vec3, b: Vec3, c: Vec3, normal: Vec3) -> [f32; 3] {
    let area = normal.dot((b - a).cross(c - a));
    let u = normal.dot((b - p).cross(c - p)) / area;
    let v = normal.dot((c - p).cross(a - p)) / area;
    [u, v, 1.0 - u - v]
}

/// Weights clamped to the triangle, so rounding never pushes a witness off the face.
fn clamp_weights(weights: [f32; 3]) -> [f32; 3] {
    let raw = weights.map(|x| if x.is_finite() { x.max(0.0) } else { 0.0 });
    let sum: f32 = raw.iter().sum();
    if sum > 0.0 {
        raw.map(|x| x / sum)
    } else {
        [1.0 / 3.0; 3]
    }
}
