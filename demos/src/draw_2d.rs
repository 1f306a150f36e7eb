//! Drawing a 2D world with an orthographic camera: every body as a filled
//! convex outline in its real orientation (balls with a radius line so their
//! spin shows), chains as lines with their solid side shaded, and the
//! optional contact, bounding-box and joint layers.
//!
//! A chain collides on its front (the right of each segment's direction):
//! the line is drawn bright, a band behind each segment shades its back, a
//! closed counter-clockwise loop (solid inside) is filled, and with the
//! contact layer on, a tick from each segment's middle points to its front.

use std::f32::consts::{PI, TAU};
use std::sync::Arc;

use macroquad::camera::set_camera;
use macroquad::color::Color;
use macroquad::math::Vec2;
use macroquad::shapes::{draw_circle, draw_line, draw_rectangle_lines, draw_triangle};
use tumble::d2::{Body, Pose, ShapeKind, World};
use tumble::glam;
use tumble::shape::{Surface, SurfaceSource};
use tumble::{BodyKind, D2};

use crate::bridge;
use crate::camera::PanCamera;
use crate::style::{self, Layers};

/// Outline points of a round end or ball: points per half turn.
const ARC_POINTS: usize = 10;

/// Depth of the band that shades the back (solid side) of a chain, metres.
const CHAIN_BAND: f32 = 0.6;
/// Length of the tick on each chain segment's front, metres.
const CHAIN_TICK: f32 = 0.3;

/// The filling of a closed counter-clockwise chain (solid inside), in its
/// local frame, kept while the chain is drawn.
struct ChainFill {
    surface: Arc<Surface<D2>>,
    triangles: Vec<[glam::Vec2; 3]>,
    /// Drawn this frame: kept for the next.
    used: bool,
}

/// Draws 2D worlds; keeps its outline buffer from body to body, and the
/// filling of each closed chain from frame to frame.
#[derive(Default)]
pub struct Painter2d {
    outline: Vec<Vec2>,
    fills: Vec<ChainFill>,
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
        for fill in &mut self.fills {
            fill.used = false;
        }
        for (handle, body) in world.bodies() {
            if let ShapeKind::Surface(surface) = body.shape().kind() {
                self.chain(surface, &body.pose(), px, layers.contacts);
                continue;
            }
            let color = if body.kind() == BodyKind::Dynamic {
                style::body_color(handle, body.is_sleeping())
            } else {
                style::GROUND
            };
            self.body(&body, color, px);
        }
        self.fills.retain(|f| f.used);
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
        if layers.joints {
            draw_joints(world, px);
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
            // Drawn by `chain`; a facet is never a body's shape, but as
            // a segment it is a line.
            ShapeKind::Surface(_) => {}
            ShapeKind::Facet(facet) => {
                let [a, b] = [facet.corners()[0], facet.corners()[1]].map(to_screen);
                draw_line(a.x, a.y, b.x, b.y, 2.0 * px, color);
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

    /// A chain at `pose`: its solid side shaded (a closed counter-clockwise
    /// loop filled, a band behind every other segment), its line bright,
    /// and with `ticks` a tick on each segment's front.
    fn chain(&mut self, surface: &Arc<Surface<D2>>, pose: &Pose, px: f32, ticks: bool) {
        let to_screen = |p: glam::Vec2| bridge::vec2(pose.transform_point(p));
        let facets = surface.facets();
        let closed = matches!(surface.source(), SurfaceSource::Chain { closed: true });
        let fill = closed.then(|| self.fill(surface)).flatten();
        match fill {
            Some(triangles) => {
                for t in triangles {
                    let [a, b, c] = t.map(to_screen);
                    draw_triangle(a, b, c, style::GROUND);
                }
            }
            None => {
                let back = style::scaled(style::GROUND, 0.75);
                for (i, f) in facets.iter().enumerate() {
                    let ([a, b], n) = ([f.corners()[0], f.corners()[1]], f.normal());
                    let depth = n * -CHAIN_BAND;
                    let [a, b, c, d] = [a, b, b + depth, a + depth].map(to_screen);
                    draw_triangle(a, b, c, back);
                    draw_triangle(a, c, d, back);
                    // The wedge between this segment's band and the next's.
                    let next = if i + 1 < facets.len() {
                        Some(&facets[i + 1])
                    } else {
                        closed.then(|| &facets[0])
                    };
                    if let Some(next) = next {
                        let joint = f.corners()[1];
                        let [p, q, r] = [
                            joint,
                            joint - n * CHAIN_BAND,
                            joint - next.normal() * CHAIN_BAND,
                        ]
                        .map(to_screen);
                        draw_triangle(p, q, r, back);
                    }
                }
            }
        }
        let line = style::scaled(style::GROUND, 1.6);
        for f in facets {
            let [a, b] = [f.corners()[0], f.corners()[1]].map(to_screen);
            draw_line(a.x, a.y, b.x, b.y, 2.5 * px, line);
        }
        if ticks {
            for f in facets {
                let mid = (f.corners()[0] + f.corners()[1]) * 0.5;
                let [a, b] = [mid, mid + f.normal() * CHAIN_TICK].map(to_screen);
                draw_line(a.x, a.y, b.x, b.y, 1.5 * px, style::FACET_NORMAL);
            }
        }
    }

    /// The triangles filling the closed chain `surface` (local frame),
    /// from the cache or triangulated now; `None` when it is clockwise
    /// (solid outside) or cannot be triangulated.
    fn fill(&mut self, surface: &Arc<Surface<D2>>) -> Option<&[[glam::Vec2; 3]]> {
        let index = match self
            .fills
            .iter()
            .position(|f| Arc::ptr_eq(&f.surface, surface))
        {
            Some(i) => i,
            None => {
                let points: Vec<glam::Vec2> =
                    surface.facets().iter().map(|f| f.corners()[0]).collect();
                self.fills.push(ChainFill {
                    surface: Arc::clone(surface),
                    triangles: triangulate(&points).unwrap_or_default(),
                    used: false,
                });
                self.fills.len() - 1
            }
        };
        let fill = &mut self.fills[index];
        fill.used = true;
        (!fill.triangles.is_empty()).then_some(fill.triangles.as_slice())
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
/// A pair with a chain has one manifold per segment it touches: each is drawn.
fn draw_contacts(world: &World, px: f32) {
    for pair in world.contact_pairs() {
        let (Some(a), Some(b)) = (world.body(pair.body_a), world.body(pair.body_b)) else {
            continue;
        };
        let (pose_a, pose_b) = (a.pose(), b.pose());
        for manifold in pair.manifolds() {
            let normal = bridge::vec2(manifold.normal);
            for i in 0..manifold.points().len() {
                let (pa, pb) = manifold.world_points(&pose_a, &pose_b, i);
                let p = bridge::vec2((pa + pb) * 0.5);
                let q = p + normal * 0.4;
                draw_line(p.x, p.y, q.x, q.y, 2.0 * px, style::CONTACT_NORMAL);
                draw_circle(p.x, p.y, 3.0 * px, style::CONTACT_POINT);
            }
        }
    }
}

/// Every joint: a line between its two anchors (apart by the joint's
/// error, a wheel's suspension travel or a distance joint's length), a dot
/// at its anchor on A and a smaller one, over it, at its anchor on B.
fn draw_joints(world: &World, px: f32) {
    for (handle, _) in world.joints() {
        let Some([a, b]) = world.joint_anchors(handle) else {
            continue;
        };
        let (a, b) = (bridge::vec2(a), bridge::vec2(b));
        draw_line(a.x, a.y, b.x, b.y, 2.0 * px, style::JOINT_LINE);
        draw_circle(a.x, a.y, 4.0 * px, style::JOINT_A);
        draw_circle(b.x, b.y, 2.5 * px, style::JOINT_B);
    }
}

/// The triangles of the simple counter-clockwise polygon `points`, by ear
/// clipping (`None` when it is clockwise or not simple). Collinear corners
/// are dropped.
fn triangulate(points: &[glam::Vec2]) -> Option<Vec<[glam::Vec2; 3]>> {
    let n = points.len();
    let twice_area: f32 = (0..n)
        .map(|i| points[i].perp_dot(points[(i + 1) % n]))
        .sum();
    if n < 3 || twice_area <= 0.0 {
        return None;
    }
    let mut left: Vec<usize> = (0..n).collect();
    let mut triangles = Vec::with_capacity(n - 2);
    while left.len() > 3 {
        let m = left.len();
        let corner = |i: usize| {
            let [a, b, c] = [(i + m - 1) % m, i, (i + 1) % m].map(|k| points[left[k]]);
            (a, b, c)
        };
        // A collinear corner goes; otherwise a convex one with no other
        // corner inside its triangle (an ear).
        let flat = (0..m).find(|&i| {
            let (a, b, c) = corner(i);
            (b - a).perp_dot(c - b) == 0.0
        });
        let ear = flat.or_else(|| {
            (0..m).find(|&i| {
                let (a, b, c) = corner(i);
                (b - a).perp_dot(c - b) > 0.0
                    && left.iter().all(|&k| {
                        let p = points[k];
                        p == a || p == b || p == c || !inside(p, a, b, c)
                    })
            })
        })?;
        if flat.is_none() {
            let (a, b, c) = corner(ear);
            triangles.push([a, b, c]);
        }
        left.remove(ear);
    }
    if let [a, b, c] = left[..] {
        triangles.push([points[a], points[b], points[c]]);
    }
    Some(triangles)
}

/// True when `p` lies inside or on the counter-clockwise triangle `a b c`.
fn inside(p: glam::Vec2, a: glam::Vec2, b: glam::Vec2, c: glam::Vec2) -> bool {
    (b - a).perp_dot(p - a) >= 0.0
        && (c - b).perp_dot(p - b) >= 0.0
        && (a - c).perp_dot(p - c) >= 0.0
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counter_clockwise_cup_is_filled_and_a_clockwise_loop_is_not() {
        let cup = [
            (-3.0, 0.0),
            (3.0, 0.0),
            (3.0, 3.0),
            (2.5, 3.0),
            (2.5, 0.5),
            (0.0, 0.5),
            (-2.5, 0.5),
            (-2.5, 3.0),
            (-3.0, 3.0),
        ]
        .map(|(x, y)| glam::Vec2::new(x, y));
        let triangles = triangulate(&cup).expect("counter-clockwise");
        let area: f32 = triangles
            .iter()
            .map(|[a, b, c]| 0.5 * (*b - *a).perp_dot(*c - *a))
            .sum();
        // 6 x 0.5 floor and two 0.5 x 2.5 walls.
        assert!((area - 5.5).abs() < 1e-4, "{area}");
        assert!(triangles
            .iter()
            .all(|[a, b, c]| (*b - *a).perp_dot(*c - *a) > 0.0));
        let mut clockwise = cup;
        clockwise.reverse();
        assert!(triangulate(&clockwise).is_none());
    }
}
