//! The EPA inspector in the window: the two shapes on the left with the
//! contact's witness points and normal, and on the right the Minkowski
//! difference of their cores around the origin with GJK's simplex and the
//! EPA iteration on show (polygon in 2D, polytope in 3D), and the keys and
//! mouse that place the shapes and step through the iterations.

use macroquad::camera::{set_camera, set_default_camera, Camera3D};
use macroquad::color::Color;
use macroquad::input::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed, mouse_position,
    mouse_wheel, KeyCode, MouseButton,
};
use macroquad::math::{vec2, vec3, Vec2, Vec3};
use macroquad::models::{draw_line_3d, draw_mesh, draw_sphere, Mesh, Vertex};
use macroquad::shapes::{
    draw_circle, draw_line, draw_rectangle, draw_rectangle_lines, draw_triangle,
};
use macroquad::text::draw_text;
use macroquad::window::{screen_height, screen_width};
use tumble::glam;
use tumble::shape::{Shape, ShapeKind};
use tumble::{Pose, D2, D3};

use crate::bridge;
use crate::camera::OrbitCamera;
use crate::draw_3d::{Painter3d, XRay};
use crate::inspector::{circle_directions, Inspect, Inspector, Show};
use crate::style;

/// Height of the text panel at the top, pixels.
pub const INFO_HEIGHT: f32 = 100.0;
/// Turning speed of the keys, radians per second.
const TURN_SPEED: f32 = 1.5;
/// Moving speed of the keys, metres per second.
const MOVE_SPEED: f32 = 1.5;

const SHAPE_COLORS: [Color; 2] = [
    Color::new(0.29, 0.60, 0.86, 0.6),
    Color::new(0.90, 0.49, 0.25, 0.6),
];
const PANEL: Color = Color::new(0.06, 0.07, 0.09, 0.92);
const FAINT: Color = Color::new(0.55, 0.58, 0.62, 0.55);
const CORE_FILL: Color = Color::new(0.45, 0.48, 0.55, 0.16);
const SIMPLEX: Color = Color::new(0.35, 0.9, 0.45, 1.0);
const POLY: Color = Color::new(0.9, 0.92, 0.95, 0.9);
const CLOSEST: Color = Color::new(1.0, 0.55, 0.1, 1.0);
const NORMAL: Color = Color::new(1.0, 0.88, 0.15, 1.0);
const SUPPORT: Color = Color::new(1.0, 0.3, 0.9, 1.0);
const WITNESS_A: Color = Color::new(1.0, 0.25, 0.2, 1.0);
const WITNESS_B: Color = Color::new(0.3, 0.6, 1.0, 1.0);
const LABEL: Color = Color::new(0.85, 0.87, 0.9, 1.0);

/// Screen rectangles: the shapes' view and the Minkowski panel, pixels.
#[derive(Copy, Clone, Debug)]
struct Layout {
    world: (Vec2, Vec2),
    panel: (Vec2, Vec2),
}

impl Layout {
    /// The world on the left, the panel on the right, below the text panel
    /// and (for the world) above the help panel `help` pixels high.
    fn now(help: f32) -> Self {
        let (w, h) = (screen_width(), screen_height());
        let split = (w * 0.52).max(w - 560.0);
        Self {
            world: (vec2(0.0, INFO_HEIGHT), vec2(split, h - help)),
            panel: (vec2(split + 4.0, INFO_HEIGHT + 4.0), vec2(w - 6.0, h - 6.0)),
        }
    }
}

/// A map from a plane (metres, Y up) to a screen rectangle (pixels).
#[derive(Copy, Clone, Debug)]
struct Plane {
    centre: Vec2,
    scale: f32,
}

impl Plane {
    fn px(&self, p: glam::Vec2) -> Vec2 {
        self.centre + vec2(p.x, -p.y) * self.scale
    }

    fn metres(&self, pixel: Vec2) -> glam::Vec2 {
        let d = (pixel - self.centre) / self.scale;
        glam::Vec2::new(d.x, -d.y)
    }
}

/// The world view's map: 3.6 m across the smaller side of its rectangle.
fn world_plane(layout: &Layout) -> Plane {
    let (min, max) = layout.world;
    let size = max - min;
    Plane {
        centre: (min + max) * 0.5,
        scale: size.x.min(size.y).max(40.0) / 3.6,
    }
}

/// Mouse and keys of the inspector scenes, with what a drag is doing.
#[derive(Default)]
pub struct InspectorInput {
    /// The shape a left drag moves, or a right drag turns.
    held: Option<(usize, MouseButton)>,
    last_mouse: Vec2,
}

/// Keys shared by both inspectors: Tab, arrows, Home/End.
fn common_keys<D: Inspect>(inspector: &mut Inspector<D>) {
    if is_key_pressed(KeyCode::Tab) {
        inspector.cycle(inspector.selected);
    }
    if is_key_pressed(KeyCode::Right) {
        inspector.step_by(1);
    }
    if is_key_pressed(KeyCode::Left) {
        inspector.step_by(-1);
    }
    if is_key_pressed(KeyCode::Home) {
        inspector.first();
    }
    if is_key_pressed(KeyCode::End) {
        inspector.last();
    }
}

/// Q/E (and in 3D Z/X) turning speed this frame: the sign of the key pair.
fn key_axis(minus: KeyCode, plus: KeyCode) -> f32 {
    is_key_down(plus) as i32 as f32 - is_key_down(minus) as i32 as f32
}

impl InspectorInput {
    /// The 2D inspector's input for one frame of `dt` seconds.
    pub fn update_2d(&mut self, inspector: &mut Inspector<D2>, help: f32, dt: f32) {
        common_keys(inspector);
        let plane = world_plane(&Layout::now(help));
        let pos = Vec2::from(mouse_position());
        let delta = pos - self.last_mouse;
        self.last_mouse = pos;
        for button in [MouseButton::Left, MouseButton::Right] {
            if is_mouse_button_pressed(button) {
                let at = plane.metres(pos);
                if let Some(which) = under_2d(inspector, at) {
                    inspector.selected = which;
                    self.held = Some((which, button));
                } else if button == MouseButton::Right {
                    self.held = Some((inspector.selected, button));
                }
            }
        }
        match self.held {
            Some((which, button)) if is_mouse_button_down(button) => {
                if delta != Vec2::ZERO {
                    if button == MouseButton::Left {
                        let d = glam::Vec2::new(delta.x, -delta.y) / plane.scale;
                        inspector.translate(which, d);
                    } else {
                        inspector.turn(which, glam::Vec3::Z, -delta.x * 0.01);
                    }
                }
            }
            _ => self.held = None,
        }
        let turn = key_axis(KeyCode::E, KeyCode::Q);
        if turn != 0.0 {
            inspector.turn(inspector.selected, glam::Vec3::Z, turn * TURN_SPEED * dt);
        }
    }

    /// The 3D inspector's input for one frame of `dt` seconds.
    pub fn update_3d(&mut self, inspector: &mut Inspector<D3>, camera: &mut OrbitCamera, dt: f32) {
        common_keys(inspector);
        let pos = Vec2::from(mouse_position());
        let delta = pos - self.last_mouse;
        self.last_mouse = pos;
        if is_mouse_button_pressed(MouseButton::Left) {
            let (eye, dir) = camera.ray(pos);
            let hit = under_3d(inspector, bridge::to_vec3(eye), bridge::to_vec3(dir));
            if let Some(which) = hit {
                inspector.selected = which;
            }
            self.held = hit.map(|w| (w, MouseButton::Left));
        }
        let moving = match self.held {
            Some((which, button)) if is_mouse_button_down(button) => Some(which),
            _ => None,
        };
        if let Some(which) = moving {
            if delta != Vec2::ZERO {
                let at = bridge::vec3(inspector.poses[which].translation);
                let (right, up, _) = camera.basis();
                let m = camera.metres_per_pixel(at, screen_height());
                let d = (right * delta.x - up * delta.y) * m;
                inspector.translate(which, bridge::to_vec3(d));
            }
        } else {
            self.held = None;
            let orbit = is_mouse_button_down(MouseButton::Left)
                || is_mouse_button_down(MouseButton::Right)
                || is_mouse_button_down(MouseButton::Middle);
            if orbit && delta != Vec2::ZERO {
                camera.orbit(delta);
            }
        }
        let wheel = mouse_wheel().1;
        if wheel != 0.0 {
            camera.zoom(wheel.signum());
        }
        let (right, _, forward) = camera.basis();
        let flat = vec3(forward.x, 0.0, forward.z).normalize_or_zero();
        let step = right * key_axis(KeyCode::A, KeyCode::D)
            + flat * key_axis(KeyCode::S, KeyCode::W)
            + Vec3::Y * key_axis(KeyCode::F, KeyCode::R);
        if step != Vec3::ZERO {
            let d = bridge::to_vec3(step * MOVE_SPEED * dt);
            inspector.translate(inspector.selected, d);
        }
        let spin = key_axis(KeyCode::E, KeyCode::Q);
        if spin != 0.0 {
            inspector.turn(inspector.selected, glam::Vec3::Y, spin * TURN_SPEED * dt);
        }
        let tip = key_axis(KeyCode::X, KeyCode::Z);
        if tip != 0.0 {
            let axis = bridge::to_vec3(right);
            inspector.turn(inspector.selected, axis, tip * TURN_SPEED * dt);
        }
    }
}

/// The shape under the world point `at` (B first, as it is drawn on top).
fn under_2d(inspector: &Inspector<D2>, at: glam::Vec2) -> Option<usize> {
    let probe = Shape::<D2>::ball(0.02).expect("valid probe");
    let probe_pose = Pose::<D2>::from_translation(at);
    [1, 0].into_iter().find(|&i| {
        tumble::d2::distance(
            &inspector.shapes[i],
            &inspector.poses[i],
            &probe,
            &probe_pose,
        ) <= 0.0
    })
}

/// The shape whose bounding ball the ray from `eye` along unit `dir` meets first.
fn under_3d(inspector: &Inspector<D3>, eye: glam::Vec3, dir: glam::Vec3) -> Option<usize> {
    (0..2)
        .filter_map(|i| {
            let centre = inspector.poses[i].translation;
            let r = inspector.shapes[i].bounding_radius() * 0.85;
            let t = (centre - eye).dot(dir);
            let miss = (eye + dir * t - centre).length();
            (t > 0.0 && miss <= r).then_some((i, t))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

/// The text panel's lines for an inspector.
pub fn info<D: Inspect>(name: &str, inspector: &Inspector<D>) -> Vec<String> {
    let mut lines = vec![format!(
        "{name}   A {}   B {}   (selected: {})",
        D::KINDS[inspector.kinds[0]],
        D::KINDS[inspector.kinds[1]],
        ["A", "B"][inspector.selected]
    )];
    match (inspector.current(), inspector.current_step()) {
        (Some(k), Some(step)) => {
            lines.push(format!(
                "EPA iteration {} / {}   face distance {:.4}   support gap {:.4}",
                k + 1,
                inspector.iterations(),
                step.distance,
                glam_dot(step.support, step.normal) - step.distance
            ));
            lines.push(format!("face normal {}", step.normal.show()));
        }
        _ => lines.push(format!(
            "GJK only ({} simplex points): EPA runs when the cores overlap",
            inspector.trace.gjk_simplex.len()
        )),
    }
    lines.push(inspector.verdict());
    if let Some(c) = &inspector.contact {
        lines.push(format!(
            "witnesses: A {}  B {}",
            c.point_a.show(),
            c.point_b.show()
        ));
    }
    lines
}

fn glam_dot<V: tumble::Vector>(a: V, b: V) -> f32 {
    a.dot(b)
}

/// An arrow from `a` to `b`, pixels.
fn arrow(a: Vec2, b: Vec2, width: f32, color: Color) {
    draw_line(a.x, a.y, b.x, b.y, width, color);
    let d = b - a;
    let len = d.length();
    if len < 1.0 {
        return;
    }
    let u = d / len;
    let head = 9.0f32.min(len * 0.5);
    let side = vec2(-u.y, u.x);
    for s in [-1.0, 1.0] {
        let c = b - u * head + side * head * 0.5 * s;
        draw_line(b.x, b.y, c.x, c.y, width, color);
    }
}

/// A closed line through `points`.
fn polyline(points: &[Vec2], width: f32, color: Color) {
    let n = points.len();
    for i in 0..n {
        let (a, b) = (points[i], points[(i + 1) % n]);
        draw_line(a.x, a.y, b.x, b.y, width, color);
    }
}

/// A shape's outline in its local frame, for drawing.
fn outline_2d(shape: &Shape<D2>) -> Vec<glam::Vec2> {
    let arc = |centre: glam::Vec2, r: f32, start: f32, turns: f32, n: usize| {
        (0..=n).map(move |k| {
            let a = start + std::f32::consts::TAU * turns * k as f32 / n as f32;
            centre + glam::Vec2::new(a.cos(), a.sin()) * r
        })
    };
    match shape.kind() {
        ShapeKind::Cuboid { half_extents: h } => {
            [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .map(|(x, y)| glam::Vec2::new(x * h.x, y * h.y))
                .to_vec()
        }
        ShapeKind::ConvexHull(p) => p.vertices().to_vec(),
        ShapeKind::Ball { radius } => arc(glam::Vec2::ZERO, *radius, 0.0, 1.0, 31).collect(),
        ShapeKind::Capsule {
            half_height,
            radius,
        } => {
            let top = glam::Vec2::new(0.0, *half_height);
            arc(top, *radius, 0.0, 0.5, 12)
                .chain(arc(-top, *radius, std::f32::consts::PI, 0.5, 12))
                .collect()
        }
        // Surfaces are level geometry, not shapes the inspector takes.
        ShapeKind::Surface(_) | ShapeKind::Facet(_) => Vec::new(),
    }
}

/// Draws the 2D inspector; `help` is the help panel's height, pixels.
pub fn draw_2d(inspector: &Inspector<D2>, help: f32) {
    set_default_camera();
    let layout = Layout::now(help);
    let plane = world_plane(&layout);
    // The shapes.
    for i in 0..2 {
        let pose = &inspector.poses[i];
        let points: Vec<Vec2> = outline_2d(&inspector.shapes[i])
            .into_iter()
            .map(|p| plane.px(pose.transform_point(p)))
            .collect();
        let centre = plane.px(pose.translation);
        let n = points.len();
        for k in 0..n {
            draw_triangle(centre, points[k], points[(k + 1) % n], SHAPE_COLORS[i]);
        }
        let edge = if i == inspector.selected {
            LABEL
        } else {
            style::scaled(SHAPE_COLORS[i], 0.6)
        };
        polyline(&points, 2.0, edge);
        let name = ["A", "B"][i];
        draw_text(name, centre.x - 5.0, centre.y + 6.0, 22.0, LABEL);
    }
    if let Some(c) = &inspector.contact {
        let (a, b) = (plane.px(c.point_a), plane.px(c.point_b));
        draw_line(a.x, a.y, b.x, b.y, 2.0, LABEL);
        arrow(a, plane.px(c.point_a + c.normal * 0.8), 2.5, NORMAL);
        draw_circle(a.x, a.y, 5.0, WITNESS_A);
        draw_circle(b.x, b.y, 5.0, WITNESS_B);
    }
    draw_minkowski_2d(inspector, layout.panel);
}

/// The panel on the right: the Minkowski difference, GJK's simplex, and the
/// EPA polygon of the iteration on show.
fn draw_minkowski_2d(inspector: &Inspector<D2>, (min, max): (Vec2, Vec2)) {
    let size = max - min;
    draw_rectangle(min.x, min.y, size.x, size.y, PANEL);
    draw_rectangle_lines(min.x, min.y, size.x, size.y, 1.0, FAINT);
    let outline = inspector.sampled_outline(&circle_directions());
    let cores = inspector.core_differences();
    let extent = outline
        .iter()
        .chain(&cores)
        .map(|p| p.length())
        .fold(0.2f32, f32::max);
    let plane = Plane {
        centre: (min + max) * 0.5 + vec2(0.0, 8.0),
        scale: (size.x.min(size.y - 40.0) * 0.46 / extent).max(1.0),
    };
    // Axes and the full shapes' difference (radii included), faint.
    let o = plane.px(glam::Vec2::ZERO);
    draw_line(min.x, o.y, max.x, o.y, 1.0, CORE_FILL);
    draw_line(o.x, min.y, o.x, max.y, 1.0, CORE_FILL);
    let full: Vec<Vec2> = outline.iter().map(|&p| plane.px(p)).collect();
    polyline(&full, 1.0, FAINT);
    // The cores' difference: what GJK and EPA see.
    match Shape::<D2>::convex_polygon(&cores) {
        Ok(hull) => {
            if let ShapeKind::ConvexHull(p) = hull.kind() {
                let pts: Vec<Vec2> = p.vertices().iter().map(|&v| plane.px(v)).collect();
                let c = pts.iter().copied().sum::<Vec2>() / pts.len() as f32;
                for k in 0..pts.len() {
                    draw_triangle(c, pts[k], pts[(k + 1) % pts.len()], CORE_FILL);
                }
                polyline(&pts, 1.5, FAINT);
            }
        }
        Err(_) => {
            // A point or a segment (balls and capsules): join its extremes.
            let px: Vec<Vec2> = cores.iter().map(|&p| plane.px(p)).collect();
            polyline(&px, 2.0, FAINT);
        }
    }
    // GJK's simplex.
    let simplex: Vec<Vec2> = inspector
        .trace
        .gjk_simplex
        .iter()
        .map(|&p| plane.px(p))
        .collect();
    polyline(&simplex, 1.5, SIMPLEX);
    for p in &simplex {
        draw_circle(p.x, p.y, 3.0, SIMPLEX);
    }
    // The EPA iteration on show.
    if let Some(step) = inspector.current_step() {
        let v: Vec<Vec2> = step.vertices.iter().map(|&p| plane.px(p)).collect();
        for (f, face) in step.faces.iter().enumerate() {
            let (a, b) = (v[face[0] as usize], v[face[1] as usize]);
            let (w, c) = if f == step.closest {
                (4.0, CLOSEST)
            } else {
                (1.5, POLY)
            };
            draw_line(a.x, a.y, b.x, b.y, w, c);
        }
        for p in &v {
            draw_circle(p.x, p.y, 3.0, POLY);
        }
        let foot = plane.px(step.normal * step.distance);
        arrow(o, foot, 2.0, NORMAL);
        let s = plane.px(step.support);
        draw_line(foot.x, foot.y, s.x, s.y, 1.0, SUPPORT);
        draw_circle(s.x, s.y, 5.0, SUPPORT);
        draw_text(
            format!("d {:.3}", step.distance),
            foot.x + 6.0,
            foot.y - 6.0,
            16.0,
            NORMAL,
        );
    }
    draw_circle_lines_px(o, 5.0, LABEL);
    draw_text("origin", o.x + 6.0, o.y + 14.0, 14.0, LABEL);
    legend(min, max);
}

fn draw_circle_lines_px(c: Vec2, r: f32, color: Color) {
    macroquad::shapes::draw_circle_lines(c.x, c.y, r, 1.5, color);
    draw_line(c.x - r - 3.0, c.y, c.x + r + 3.0, c.y, 1.0, color);
    draw_line(c.x, c.y - r - 3.0, c.x, c.y + r + 3.0, 1.0, color);
}

/// The panel's title and colour key.
fn legend(min: Vec2, max: Vec2) {
    draw_text(
        "Minkowski difference A - B of the cores",
        min.x + 6.0,
        min.y + 15.0,
        15.0,
        LABEL,
    );
    let keys = [
        ("GJK", SIMPLEX),
        ("EPA", POLY),
        ("closest", CLOSEST),
        ("normal", NORMAL),
        ("support", SUPPORT),
    ];
    let mut x = min.x + 6.0;
    for (name, color) in keys {
        draw_text(name, x, max.y - 6.0, 14.0, color);
        x += name.len() as f32 * 7.0 + 12.0;
    }
}

/// Draws the 3D inspector seen by `camera`.
pub fn draw_3d(
    inspector: &Inspector<D3>,
    camera: &OrbitCamera,
    painter: &mut Painter3d,
    help: f32,
) {
    let cam = camera.camera();
    set_camera(&cam);
    for (i, mut color) in SHAPE_COLORS.into_iter().enumerate() {
        color.a = 1.0;
        if i != inspector.selected {
            color = style::scaled(color, 0.8);
        }
        painter.shape(&inspector.shapes[i], &inspector.poses[i], color);
    }
    painter.flush();
    set_camera(&XRay(&cam));
    if let Some(c) = &inspector.contact {
        let (a, b) = (bridge::vec3(c.point_a), bridge::vec3(c.point_b));
        draw_line_3d(a, b, LABEL);
        draw_line_3d(a, a + bridge::vec3(c.normal) * 0.8, NORMAL);
        draw_sphere(a + bridge::vec3(c.normal) * 0.8, 0.03, None, NORMAL);
        draw_sphere(a, 0.05, None, WITNESS_A);
        draw_sphere(b, 0.05, None, WITNESS_B);
    }
    let layout = Layout::now(help);
    set_default_camera();
    let (min, max) = layout.panel;
    let size = max - min;
    draw_rectangle(min.x, min.y, size.x, size.y, PANEL);
    draw_rectangle_lines(min.x, min.y, size.x, size.y, 1.0, FAINT);
    legend(min, max);
    draw_polytope(inspector, camera, layout.panel);
}

/// The inset: the cores' Minkowski difference, GJK's simplex and the EPA
/// polytope on show, seen from the world camera's direction.
fn draw_polytope(inspector: &Inspector<D3>, camera: &OrbitCamera, (min, max): (Vec2, Vec2)) {
    let cores = inspector.core_differences();
    let extent = cores.iter().map(|p| p.length()).fold(0.3f32, f32::max);
    let (top, bottom) = (min.y + 20.0, max.y - 20.0);
    let (w, h) = (max.x - min.x, bottom - top);
    let back = (camera.eye() - camera.target).normalize_or_zero();
    let distance = extent * 1.2 / (camera.fovy() * 0.5).tan();
    let inset = Camera3D {
        position: back * distance,
        target: Vec3::ZERO,
        up: Vec3::Y,
        fovy: camera.fovy(),
        aspect: Some(w / h.max(1.0)),
        viewport: Some((
            min.x as i32,
            (screen_height() - bottom) as i32,
            w as i32,
            h as i32,
        )),
        z_near: 0.01,
        z_far: 1000.0,
        ..Default::default()
    };
    set_camera(&XRay(&inset));
    let v3 = bridge::vec3;
    // The cores' difference, a faint solid.
    if let Ok(hull) = Shape::<D3>::convex_hull(&cores) {
        if let ShapeKind::ConvexHull(h) = hull.kind() {
            let tris: Vec<[Vec3; 3]> = h
                .triangles()
                .iter()
                .map(|t| t.map(|i| v3(h.vertices()[i as usize])))
                .collect();
            fill(&tris, CORE_FILL);
            for t in &tris {
                for k in 0..3 {
                    draw_line_3d(t[k], t[(k + 1) % 3], Color::new(0.5, 0.52, 0.58, 0.35));
                }
            }
        }
    } else {
        for p in &cores {
            for q in &cores {
                draw_line_3d(v3(*p), v3(*q), FAINT);
            }
        }
    }
    // Origin marker: three short axes and a dot.
    let r = extent * 0.15;
    draw_line_3d(
        Vec3::ZERO,
        vec3(r, 0.0, 0.0),
        Color::new(1.0, 0.3, 0.3, 1.0),
    );
    draw_line_3d(
        Vec3::ZERO,
        vec3(0.0, r, 0.0),
        Color::new(0.3, 1.0, 0.3, 1.0),
    );
    draw_line_3d(
        Vec3::ZERO,
        vec3(0.0, 0.0, r),
        Color::new(0.3, 0.5, 1.0, 1.0),
    );
    draw_sphere(Vec3::ZERO, extent * 0.025, None, LABEL);
    // GJK's simplex.
    let s = &inspector.trace.gjk_simplex;
    for (i, p) in s.iter().enumerate() {
        for q in &s[i + 1..] {
            draw_line_3d(v3(*p), v3(*q), SIMPLEX);
        }
    }
    // The EPA polytope on show.
    if let Some(step) = inspector.current_step() {
        let v: Vec<Vec3> = step.vertices.iter().map(|&p| v3(p)).collect();
        if let Some(face) = step.faces.get(step.closest) {
            let t = [0, 1, 2].map(|k| v[face[k] as usize]);
            fill(&[t], Color::new(1.0, 0.55, 0.1, 0.55));
        }
        for (f, face) in step.faces.iter().enumerate() {
            let color = if f == step.closest { CLOSEST } else { POLY };
            for k in 0..3 {
                draw_line_3d(v[face[k] as usize], v[face[(k + 1) % 3] as usize], color);
            }
        }
        let foot = v3(step.normal * step.distance);
        draw_line_3d(Vec3::ZERO, foot, NORMAL);
        draw_sphere(foot, extent * 0.02, None, NORMAL);
        draw_line_3d(foot, v3(step.support), SUPPORT);
        draw_sphere(v3(step.support), extent * 0.03, None, SUPPORT);
    }
    set_default_camera();
}

/// Translucent triangles, both sides.
fn fill(triangles: &[[Vec3; 3]], color: Color) {
    let mut vertices = Vec::with_capacity(triangles.len() * 3);
    for t in triangles {
        vertices.extend(t.iter().map(|&p| Vertex::new2(p, vec2(0.0, 0.0), color)));
    }
    let indices = (0..vertices.len() as u16).collect();
    draw_mesh(&Mesh {
        vertices,
        indices,
        texture: None,
    });
}
