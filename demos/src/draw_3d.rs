//! Drawing a 3D world: every body as a lit mesh in its real orientation
//! (macroquad's `draw_cube` is axis aligned, so boxes, hulls, balls and
//! capsules are built here as triangles), box edges, the ground grid, and the
//! optional contact, bounding-box and joint layers (contacts and joints
//! show through the bodies).
//!
//! Macroquad has no lighting, so each vertex is coloured on the CPU from a
//! fixed light direction. Triangles go into one batch that is drawn with
//! `draw_mesh` whenever it fills up (its indices are `u16`).
//!
//! Surfaces (triangle meshes and heightfields, tens of thousands of
//! triangles) are built once into meshes of at most [`BATCH_VERTICES`]
//! vertices, flat shaded by facet normal and tinted by height, and kept
//! while the surface is drawn at the same pose; with the contact or
//! bounding-box layer on, their edges are drawn over them as a wireframe.

use std::collections::HashMap;
use std::f32::consts::{PI, TAU};
use std::sync::Arc;

use macroquad::camera::{set_camera, Camera, Camera3D};
use macroquad::color::Color;
use macroquad::math::{vec2, vec3, Mat4, Quat, Vec3};
use macroquad::models::{draw_cube, draw_cube_wires, draw_line_3d, draw_mesh, Mesh, Vertex};
use macroquad::texture::RenderPass;
use tumble::d3::{Body, Pose, Shape, ShapeKind, World};
use tumble::shape::Surface;
use tumble::{glam, BodyKind, D3};

use crate::bridge;
use crate::camera::OrbitCamera;
use crate::style::{self, Layers};

/// Vertices per `draw_mesh` call; the window's draw-call capacity must exceed it.
pub const BATCH_VERTICES: usize = 24_000;
/// Indices per `draw_mesh` call; the window's draw-call capacity must exceed it.
pub const BATCH_INDICES: usize = 36_000;

/// Latitude bands of a ball or of a capsule's two caps together (even).
const RINGS: usize = 8;
/// Longitude segments of a ball or capsule.
const SEGMENTS: usize = 16;

/// Direction towards the light (unit).
fn light() -> Vec3 {
    vec3(0.35, 0.85, 0.4).normalize()
}

/// `base` lit from [`light`] on a surface of world normal `normal`.
fn lit(base: Color, normal: Vec3) -> Color {
    let diffuse = normal.dot(light()).max(0.0);
    let sky = 0.5 + 0.5 * normal.y;
    style::scaled(base, 0.28 + 0.12 * sky + 0.62 * diffuse)
}

/// Direction towards the light that shades surfaces (unit): the same
/// bearing as [`light`], lower, so gentle slopes show.
fn level_light() -> Vec3 {
    vec3(0.35, 0.45, 0.4).normalize()
}

/// `base` lit from [`level_light`] on a surface of world normal `normal`.
fn lit_level(base: Color, normal: Vec3) -> Color {
    let diffuse = normal.dot(level_light()).max(0.0);
    let sky = 0.5 + 0.5 * normal.y;
    style::scaled(base, 0.3 + 0.15 * sky + 0.75 * diffuse)
}

/// A rigid placement in macroquad's math.
#[derive(Copy, Clone)]
struct Placement {
    rotation: Quat,
    translation: Vec3,
}

impl Placement {
    fn of(body: &Body) -> Self {
        let pose = body.pose();
        Self {
            rotation: bridge::quat(body.rotation()),
            translation: bridge::vec3(pose.translation),
        }
    }

    fn point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    fn vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }
}

/// Triangles waiting to be drawn.
#[derive(Default)]
struct Batch {
    vertices: Vec<Vertex>,
    indices: Vec<u16>,
}

impl Batch {
    /// Makes room for `vertices` more vertices and `indices` more indices.
    fn reserve(&mut self, vertices: usize, indices: usize) {
        if self.vertices.len() + vertices > BATCH_VERTICES
            || self.indices.len() + indices > BATCH_INDICES
        {
            self.flush();
        }
    }

    fn vertex(&mut self, position: Vec3, color: Color) -> u16 {
        let index = self.vertices.len() as u16;
        self.vertices
            .push(Vertex::new2(position, vec2(0.0, 0.0), color));
        index
    }

    fn triangle(&mut self, p: [Vec3; 3], color: Color) {
        self.reserve(3, 3);
        let i = self.vertex(p[0], color);
        self.vertex(p[1], color);
        self.vertex(p[2], color);
        self.indices.extend([i, i + 1, i + 2]);
    }

    fn quad(&mut self, p: [Vec3; 4], colors: [Color; 4]) {
        self.reserve(4, 6);
        let i = self.vertex(p[0], colors[0]);
        for k in 1..4 {
            self.vertex(p[k], colors[k]);
        }
        self.indices.extend([i, i + 1, i + 2, i, i + 2, i + 3]);
    }

    /// Draws what is waiting and empties the batch.
    fn flush(&mut self) {
        if self.indices.is_empty() {
            return;
        }
        let mesh = Mesh {
            vertices: std::mem::take(&mut self.vertices),
            indices: std::mem::take(&mut self.indices),
            texture: None,
        };
        draw_mesh(&mesh);
        self.vertices = mesh.vertices;
        self.indices = mesh.indices;
        self.vertices.clear();
        self.indices.clear();
    }
}

/// The camera with depth testing off, for layers that must show through bodies.
pub(crate) struct XRay<'a>(pub(crate) &'a Camera3D);

impl Camera for XRay<'_> {
    fn matrix(&self) -> Mat4 {
        self.0.matrix()
    }

    fn depth_enabled(&self) -> bool {
        false
    }

    fn render_pass(&self) -> Option<RenderPass> {
        self.0.render_pass()
    }

    fn viewport(&self) -> Option<(i32, i32, i32, i32)> {
        self.0.viewport()
    }
}

/// A surface built into meshes at one pose, kept from frame to frame.
struct SurfaceMesh {
    /// The surface (held, so its address names no other while kept).
    surface: Arc<Surface<D3>>,
    /// The pose it was built at.
    pose: Pose,
    /// Flat-shaded triangles, world frame, at most [`BATCH_VERTICES`]
    /// vertices a mesh.
    meshes: Vec<Mesh>,
    /// Each edge once, lifted a little off the surface, world frame; built
    /// the first time the wireframe is asked for.
    edges: Option<Vec<(Vec3, Vec3)>>,
    /// Drawn this frame: kept for the next.
    used: bool,
}

impl SurfaceMesh {
    fn new(surface: &Arc<Surface<D3>>, pose: Pose) -> Self {
        let at = Placement {
            rotation: bridge::quat(pose.rotation),
            translation: bridge::vec3(pose.translation),
        };
        let (low, high) = {
            let aabb = surface.local_aabb();
            let corners = (0..8).map(|i| {
                let pick = |bit: i32, k: usize| {
                    if i & bit == 0 {
                        aabb.min[k]
                    } else {
                        aabb.max[k]
                    }
                };
                at.point(vec3(pick(1, 0), pick(2, 1), pick(4, 2))).y
            });
            corners.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), y| {
                (lo.min(y), hi.max(y))
            })
        };
        let per_mesh = BATCH_VERTICES / 3;
        let meshes = surface
            .facets()
            .chunks(per_mesh)
            .map(|chunk| {
                let mut vertices = Vec::with_capacity(chunk.len() * 3);
                for facet in chunk {
                    let p: [Vec3; 3] =
                        std::array::from_fn(|k| at.point(bridge::vec3(facet.corners()[k])));
                    let normal = at.vector(bridge::vec3(facet.normal()));
                    let height = ((p[0].y + p[1].y + p[2].y) / 3.0 - low) / (high - low).max(1e-3);
                    // A 4 m checker of two tints, so slopes read at a distance.
                    let centre = (p[0] + p[1] + p[2]) / 3.0;
                    let cell = (centre.x / CHECKER).floor() + (centre.z / CHECKER).floor();
                    let tint = if cell.rem_euclid(2.0) == 0.0 {
                        1.0
                    } else {
                        0.93
                    };
                    let shade = lit_level(style::scaled(style::terrain(height), tint), normal);
                    vertices.extend(p.map(|q| Vertex::new2(q, vec2(0.0, 0.0), shade)));
                }
                Mesh {
                    indices: (0..vertices.len() as u16).collect(),
                    vertices,
                    texture: None,
                }
            })
            .collect();
        Self {
            surface: Arc::clone(surface),
            pose,
            meshes,
            edges: None,
            used: true,
        }
    }

    /// Each edge of the surface once (by exact corner positions), lifted
    /// along its facets' mean normal so it is not hidden by them.
    fn edges(&mut self) -> &[(Vec3, Vec3)] {
        let (surface, pose) = (&self.surface, &self.pose);
        self.edges.get_or_insert_with(|| {
            let key = |p: glam::Vec3| p.to_array().map(|c| (c + 0.0).to_bits());
            let mut edges: HashMap<_, (glam::Vec3, glam::Vec3, glam::Vec3)> =
                HashMap::with_capacity(surface.facets().len() * 2);
            for facet in surface.facets() {
                let c = facet.corners();
                for k in 0..3 {
                    let (a, b) = (c[k], c[(k + 1) % 3]);
                    let (ka, kb) = (key(a), key(b));
                    let id = if ka <= kb { (ka, kb) } else { (kb, ka) };
                    edges.entry(id).or_insert((a, b, glam::Vec3::ZERO)).2 += facet.normal();
                }
            }
            let lift = WIRE_LIFT * surface.bounding_radius().max(1.0).sqrt();
            edges
                .into_values()
                .map(|(a, b, n)| {
                    let up = n.normalize_or_zero() * lift;
                    let [a, b] = [a + up, b + up].map(|p| bridge::vec3(pose.transform_point(p)));
                    (a, b)
                })
                .collect()
        })
    }
}

/// Side of the checker tinting surfaces, metres.
const CHECKER: f32 = 4.0;

/// How far a surface's wireframe is lifted off it, metres (times the
/// square root of the surface's radius: a far surface needs more).
const WIRE_LIFT: f32 = 0.004;

/// Draws 3D worlds; keeps its buffers from frame to frame.
pub struct Painter3d {
    batch: Batch,
    /// Unit directions of a ball's vertices, `[ring][segment]`, ring 0 at +Y.
    sphere: Vec<[Vec3; SEGMENTS + 1]>,
    /// Line segments drawn after the triangles.
    lines: Vec<(Vec3, Vec3, Color)>,
    /// The surfaces drawn lately, built into meshes.
    surfaces: Vec<SurfaceMesh>,
}

impl Default for Painter3d {
    fn default() -> Self {
        Self::new()
    }
}

impl Painter3d {
    /// A painter with empty buffers.
    pub fn new() -> Self {
        let sphere = (0..=RINGS)
            .map(|i| {
                let theta = PI * i as f32 / RINGS as f32;
                std::array::from_fn(|j| {
                    let phi = TAU * j as f32 / SEGMENTS as f32;
                    vec3(
                        theta.sin() * phi.cos(),
                        theta.cos(),
                        theta.sin() * phi.sin(),
                    )
                })
            })
            .collect();
        Self {
            batch: Batch::default(),
            sphere,
            lines: Vec::new(),
            surfaces: Vec::new(),
        }
    }

    /// Draws `world` seen by `camera`, with the debug `layers` asked for.
    pub fn draw(&mut self, world: &World, camera: &OrbitCamera, layers: Layers) {
        let orbit = camera;
        let camera = camera.camera();
        set_camera(&camera);
        for surface in &mut self.surfaces {
            surface.used = false;
        }
        for (handle, body) in world.bodies() {
            if let ShapeKind::Surface(surface) = body.shape().kind() {
                self.surface(surface, body.pose(), layers.contacts || layers.bounds);
                continue;
            }
            let color = if body.kind() == BodyKind::Dynamic {
                style::body_color(handle, body.is_sleeping())
            } else {
                style::GROUND
            };
            self.body(&body, color);
        }
        self.surfaces.retain(|s| s.used);
        self.batch.flush();
        for &(a, b, color) in &self.lines {
            draw_line_3d(a, b, color);
        }
        self.lines.clear();
        if layers.bounds {
            for (_, body) in world.bodies() {
                let aabb = body.shape().aabb(&body.pose());
                let (min, max) = (bridge::vec3(aabb.min), bridge::vec3(aabb.max));
                draw_cube_wires((min + max) * 0.5, max - min, style::BOUNDS);
            }
        }
        if layers.contacts || layers.joints {
            set_camera(&XRay(&camera));
        }
        if layers.contacts {
            draw_contacts(world);
        }
        if layers.joints {
            draw_joints(world, orbit);
        }
    }

    /// A surface at `pose`: its meshes, built now if it was not drawn at
    /// that pose last frame, and with `wireframe` its edges.
    fn surface(&mut self, surface: &Arc<Surface<D3>>, pose: Pose, wireframe: bool) {
        let kept = self
            .surfaces
            .iter()
            .position(|s| Arc::ptr_eq(&s.surface, surface) && s.pose == pose && !s.used);
        let index = kept.unwrap_or_else(|| {
            self.surfaces.push(SurfaceMesh::new(surface, pose));
            self.surfaces.len() - 1
        });
        let built = &mut self.surfaces[index];
        built.used = true;
        for mesh in &built.meshes {
            draw_mesh(mesh);
        }
        if wireframe {
            for &(a, b) in built.edges() {
                draw_line_3d(a, b, style::WIRE);
            }
        }
    }

    fn body(&mut self, body: &Body, color: Color) {
        let fixed = body.kind() == BodyKind::Fixed;
        self.shape_at(Placement::of(body), body.shape(), color, fixed);
    }

    /// Queues `shape` at `pose` (lit, with box edges); [`Self::flush`] draws it.
    pub fn shape(&mut self, shape: &Shape, pose: &Pose, color: Color) {
        let at = Placement {
            rotation: bridge::quat(pose.rotation),
            translation: bridge::vec3(pose.translation),
        };
        self.shape_at(at, shape, color, false);
    }

    /// Draws what [`Self::shape`] queued.
    pub fn flush(&mut self) {
        self.batch.flush();
        for &(a, b, color) in &self.lines {
            draw_line_3d(a, b, color);
        }
        self.lines.clear();
    }

    fn shape_at(&mut self, at: Placement, shape: &Shape, color: Color, fixed: bool) {
        match shape.kind() {
            ShapeKind::Cuboid { half_extents } => {
                let h = bridge::vec3(*half_extents);
                self.cuboid(at, h, color);
                if fixed && h.x.min(h.z) >= 1.0 {
                    self.grid(at, h);
                } else {
                    // A body, or a fixed set piece too narrow for a grid
                    // (a stair, a post, a door frame).
                    self.cuboid_edges(at, h, style::scaled(color, 0.45));
                }
            }
            ShapeKind::Ball { radius } => self.round(at, 0.0, *radius, color),
            ShapeKind::Capsule {
                half_height,
                radius,
            } => self.round(at, *half_height, *radius, color),
            ShapeKind::ConvexHull(hull) => {
                let vertices = hull.vertices();
                for t in hull.triangles() {
                    let p = t.map(|i| at.point(bridge::vec3(vertices[i as usize])));
                    let normal = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
                    self.batch.triangle(p, lit(color, normal));
                }
            }
            // A body's surface is drawn from its cached meshes
            // (`Self::surface`); here, one queued like any shape.
            ShapeKind::Surface(surface) => {
                for facet in surface.facets() {
                    self.facet(at, facet.corners(), facet.normal(), color);
                }
            }
            ShapeKind::Facet(facet) => self.facet(at, facet.corners(), facet.normal(), color),
        }
    }

    /// One triangle of a surface, lit by its normal.
    fn facet(&mut self, at: Placement, corners: &[glam::Vec3], normal: glam::Vec3, color: Color) {
        let p = std::array::from_fn(|k| at.point(bridge::vec3(corners[k])));
        self.batch
            .triangle(p, lit(color, at.vector(bridge::vec3(normal))));
    }

    fn cuboid(&mut self, at: Placement, h: Vec3, color: Color) {
        for axis in 0..3 {
            for sign in [-1.0f32, 1.0] {
                let mut n = Vec3::ZERO;
                n[axis] = sign;
                let (mut u, mut v) = (Vec3::ZERO, Vec3::ZERO);
                u[(axis + 1) % 3] = 1.0;
                v[(axis + 2) % 3] = 1.0;
                let (n, u, v) = (n * h, u * h, v * h);
                let corners = [n - u - v, n + u - v, n + u + v, n - u + v].map(|c| at.point(c));
                let shade = lit(color, at.vector(n.normalize()));
                self.batch.quad(corners, [shade; 4]);
            }
        }
    }

    /// The 12 edges of a box, pushed out a hair so they are not hidden by its faces.
    fn cuboid_edges(&mut self, at: Placement, h: Vec3, color: Color) {
        let h = h * 1.004;
        for axis in 0..3 {
            let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
            for (sb, sc) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let mut p = Vec3::ZERO;
                p[b] = sb * h[b];
                p[c] = sc * h[c];
                let mut q = p;
                p[axis] = -h[axis];
                q[axis] = h[axis];
                self.lines.push((at.point(p), at.point(q), color));
            }
        }
    }

    /// A 1 m grid on the top face of a fixed box (the ground).
    fn grid(&mut self, at: Placement, h: Vec3) {
        let half = h.x.min(h.z).min(30.0).floor();
        let y = h.y + 0.01;
        let mut s = -half;
        while s <= half {
            for (a, b) in [
                (vec3(s, y, -half), vec3(s, y, half)),
                (vec3(-half, y, s), vec3(half, y, s)),
            ] {
                self.lines.push((at.point(a), at.point(b), style::GRID));
            }
            s += 1.0;
        }
    }

    /// A ball (`half_height` 0) or a capsule along local Y, with a checker
    /// of two shades so its spin shows.
    fn round(&mut self, at: Placement, half_height: f32, radius: f32, color: Color) {
        let other = style::scaled(color, 0.72);
        // Rings from the top pole to the bottom one; a capsule repeats the
        // equator, once on each cap, and the band between is its cylinder.
        let mut rings: Vec<(usize, f32)> = Vec::with_capacity(RINGS + 2);
        for i in 0..=RINGS {
            if i < RINGS / 2 {
                rings.push((i, half_height));
            } else if i > RINGS / 2 {
                rings.push((i, -half_height));
            } else {
                rings.push((i, half_height));
                if half_height > 0.0 {
                    rings.push((i, -half_height));
                }
            }
        }
        for (band, pair) in rings.windows(2).enumerate() {
            let [(r0, y0), (r1, y1)] = [pair[0], pair[1]];
            for j in 0..SEGMENTS {
                let tint = if (band / 2 + j / 4) % 2 == 0 {
                    color
                } else {
                    other
                };
                let dirs = [
                    self.sphere[r0][j],
                    self.sphere[r0][j + 1],
                    self.sphere[r1][j + 1],
                    self.sphere[r1][j],
                ];
                let ys = [y0, y0, y1, y1];
                let points =
                    std::array::from_fn(|k| at.point(dirs[k] * radius + vec3(0.0, ys[k], 0.0)));
                let colors = dirs.map(|d| lit(tint, at.vector(d)));
                self.batch.quad(points, colors);
            }
        }
    }
}

/// Every manifold point (a small red cube at the middle of the point's two
/// witnesses) and the manifold's normal (a yellow line from it); a pair
/// with a surface has one manifold per facet it touches.
fn draw_contacts(world: &World) {
    for pair in world.contact_pairs() {
        let (Some(a), Some(b)) = (world.body(pair.body_a), world.body(pair.body_b)) else {
            continue;
        };
        let (pose_a, pose_b) = (a.pose(), b.pose());
        for manifold in pair.manifolds() {
            let normal = bridge::vec3(manifold.normal);
            for i in 0..manifold.points().len() {
                let (pa, pb) = manifold.world_points(&pose_a, &pose_b, i);
                let p = bridge::vec3((pa + pb) * 0.5);
                draw_line_3d(p, p + normal * 0.4, style::CONTACT_NORMAL);
                draw_cube(p, Vec3::splat(0.06), None, style::CONTACT_POINT);
            }
        }
    }
}

/// Every joint: a line between its two anchors (apart by the joint's
/// error, a wheel's suspension travel or a distance joint's length), a dot
/// (a small cube, the same few pixels wide at any distance) at its anchor
/// on A and a smaller one, over it, at its anchor on B.
fn draw_joints(world: &World, camera: &OrbitCamera) {
    let height = macroquad::window::screen_height();
    for (handle, _) in world.joints() {
        let Some([a, b]) = world.joint_anchors(handle) else {
            continue;
        };
        let (a, b) = (bridge::vec3(a), bridge::vec3(b));
        draw_line_3d(a, b, style::JOINT_LINE);
        let pixel = camera.metres_per_pixel(a, height);
        draw_cube(a, Vec3::splat(6.0 * pixel), None, style::JOINT_A);
        draw_cube(b, Vec3::splat(3.5 * pixel), None, style::JOINT_B);
    }
}
