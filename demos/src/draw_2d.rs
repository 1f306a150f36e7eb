//! Drawing a 2D world with an orthographic camera: every body as a filled
//! convex outline in its real orientation (balls with a radius line so their
//! spin shows), and the optional contact and bounding-box layers.

use std::f32::consts::{PI, TAU};

use macroquad::camera::set_camera;
use macroquad::color::Color;
use macroquad::math::Vec2;
use macroquad::shapes::{draw_circle, draw_line, draw_rectangle_lines, draw_triangle};
use tumble::d2::{Body, ShapeKind, World};
use tumble::glam;
use tumble::BodyKind;

use crate::bridge;
use crate::camera::PanCamera;
use crate::style::{self, Layers};

/// Outline points of a round end or ball: points per half turn.
const ARC_POINTS: usize = 10;

/// Draws 2D worlds; keeps its outline buffer from body to body.
#[derive(Default)]
pub struct Painter2d {
    outline: Vec<Vec2>,
}

impl Painter2d {
    /// A painter with an empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Draws `world` seen by `camera`, with the debug `layers` asked for.
    pub fn draw(&mut self, world: &World, camera: &PanCamera, layers: Layers) {
        set_camera(&camera.camera());
        let px = camera.pixel();
        for (handle, body) in world.bodies() {
            let color = if body.kind() == BodyKind::Dynamic {
                style::body_color(handle, body.is_sleeping())
            } else {
                style::GROUND
            };
            self.body(body, color, px);
        }
        if layers.bounds {
            for (_, body) in world.bodies() {
                let aabb = body.shape().aabb(&body.pose());
                let (min, size) = (aabb.min, aabb.max - aabb.min);
                draw_rectangle_lines(min.x, min.y, size.x, size.y, 1.5 * px, style::BOUNDS);
            }
        }
        if layers.contacts {
            draw_contacts(world, px);
        }
    }

    fn body(&mut self, body: &Body, color: Color, px: f32) {
        let pose = body.pose();
        let to_screen = |p: glam::Vec2| bridge::vec2(pose.transform_point(p));
        self.outline.clear();
        let mut spoke = None;
        match body.shape().kind() {
            ShapeKind::Cuboid { half_extents } => {
                let h = *half_extents;
                self.outline.extend(
                    [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                        .map(|(x, y)| to_screen(glam::Vec2::new(x * h.x, y * h.y))),
                );
            }
            ShapeKind::Ball { radius } => {
                self.arc(glam::Vec2::ZERO, *radius, 0.0, 2 * ARC_POINTS, &to_screen);
                spoke = Some(to_screen(glam::Vec2::new(*radius, 0.0)));
            }
            ShapeKind::Capsule {
                half_height,
                radius,
            } => {
                let top = glam::Vec2::new(0.0, *half_height);
                self.arc(top, *radius, 0.0, ARC_POINTS, &to_screen);
                self.arc(-top, *radius, PI, ARC_POINTS, &to_screen);
            }
            ShapeKind::ConvexHull(polygon) => {
                self.outline
                    .extend(polygon.vertices().iter().map(|&v| to_screen(v)));
            }
        }
        let centre = to_screen(glam::Vec2::ZERO);
        let n = self.outline.len();
        for i in 0..n {
            draw_triangle(centre, self.outline[i], self.outline[(i + 1) % n], color);
        }
        let edge = style::scaled(color, 0.45);
        for i in 0..n {
            let (a, b) = (self.outline[i], self.outline[(i + 1) % n]);
            draw_line(a.x, a.y, b.x, b.y, 1.5 * px, edge);
        }
        if let Some(s) = spoke {
            draw_line(centre.x, centre.y, s.x, s.y, 1.5 * px, edge);
        }
    }

    /// Points of the half circle (or full circle for `steps` = 2 ×
    /// [`ARC_POINTS`]) of `radius` around the local point `centre`,
    /// counter-clockwise from the angle `start`.
    fn arc(
        &mut self,
        centre: glam::Vec2,
        radius: f32,
        start: f32,
        steps: usize,
        to_screen: &impl Fn(glam::Vec2) -> Vec2,
    ) {
        let end = if steps >= 2 * ARC_POINTS {
            steps - 1
        } else {
            steps
        };
        for k in 0..=end {
            let a = start + TAU * 0.5 * k as f32 / ARC_POINTS as f32;
            let p = centre + glam::Vec2::new(a.cos(), a.sin()) * radius;
            self.outline.push(to_screen(p));
        }
    }
}

/// Every manifold point (a red dot at the middle of the point's two
/// witnesses) and the pair's normal (a yellow line from it).
fn draw_contacts(world: &World, px: f32) {
    for pair in world.contact_pairs() {
        let (Some(a), Some(b)) = (world.body(pair.body_a), world.body(pair.body_b)) else {
            continue;
        };
        let (pose_a, pose_b) = (a.pose(), b.pose());
        let normal = bridge::vec2(pair.manifold.normal);
        for i in 0..pair.manifold.points().len() {
            let (pa, pb) = pair.manifold.world_points(&pose_a, &pose_b, i);
            let p = bridge::vec2((pa + pb) * 0.5);
            let q = p + normal * 0.4;
            draw_line(p.x, p.y, q.x, q.y, 2.0 * px, style::CONTACT_NORMAL);
            draw_circle(p.x, p.y, 3.0 * px, style::CONTACT_POINT);
        }
    }
}

/// Impact flashes: a ring where each recent impact struck, its radius
/// growing with the impulse (a square root, so a crate's knock and a heavy
/// ball's landing both show), fading as it ages.
pub fn draw_impacts(impacts: &[crate::player::Impact], px: f32) {
    for impact in impacts {
        let fade = 1.0 - impact.age / crate::player::IMPACT_LIFE;
        let radius = (0.1 + 0.05 * impact.impulse.max(0.0).sqrt()) * (1.0 + impact.age * 2.0);
        let color = Color::new(1.0, 0.55, 0.1, fade.clamp(0.0, 1.0));
        let at = bridge::vec2(impact.point);
        macroquad::shapes::draw_circle_lines(at.x, at.y, radius, 3.0 * px, color);
    }
}
