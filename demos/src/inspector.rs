//! The EPA inspector's model: two shapes the user places, the contact query
//! run on them with its workings ([`tumble::d2::contact_traced`] and the 3D
//! one), the EPA iteration on show, and the text both the window and the
//! headless runner print. Nothing here touches macroquad.

use std::io::{self, Write};

use tumble::glam::{Quat, Vec2, Vec3};
use tumble::pipeline::narrow_phase::{contact_traced, distance, EpaStep, ShapeContact, Trace};
use tumble::shape::{Shape, ShapeKind, SupportMap};
use tumble::{Dim, Pose, Vector, D2, D3};

/// Directions sampled around the full shapes' Minkowski difference.
const OUTLINE_SAMPLES: usize = 96;

/// A vector as short text: `(x, y)` or `(x, y, z)`, three decimals.
pub trait Show {
    /// The text.
    fn show(&self) -> String;
}

impl Show for Vec2 {
    fn show(&self) -> String {
        format!("({:.3}, {:.3})", self.x, self.y)
    }
}

impl Show for Vec3 {
    fn show(&self) -> String {
        format!("({:.3}, {:.3}, {:.3})", self.x, self.y, self.z)
    }
}

/// What the inspector needs of a dimension beyond [`Dim`]: the shapes it
/// offers and where they start.
pub trait Inspect: Dim<Vector: Show> {
    /// Names of the shapes Tab cycles through.
    const KINDS: [&'static str; 4];
    /// Shape number `kind` (an index into [`Self::KINDS`]).
    fn preset(kind: usize) -> Shape<Self>;
    /// The shapes (A, B) and their poses at the start: overlapping, so EPA runs.
    fn start() -> ([usize; 2], [Pose<Self>; 2]);
    /// `pose` turned by `angle` radians about the world `axis` (ignored in 2D).
    fn turned(pose: &Pose<Self>, axis: Vec3, angle: f32) -> Pose<Self>;
    /// The vertices of a shape's core in its local frame: a box's or hull's
    /// corners, a capsule's segment ends, a ball's centre; none for a
    /// surface or facet, which the inspector does not take.
    fn core_vertices(shape: &Shape<Self>) -> Vec<Self::Vector>;
}

impl Inspect for D2 {
    const KINDS: [&'static str; 4] = ["box", "polygon", "capsule", "ball"];

    fn preset(kind: usize) -> Shape<D2> {
        let shape = match kind % 4 {
            0 => Shape::cuboid(Vec2::new(1.0, 0.6)),
            1 => Shape::convex_polygon(&[
                Vec2::new(-0.9, -0.5),
                Vec2::new(0.6, -0.8),
                Vec2::new(1.0, 0.1),
                Vec2::new(0.2, 0.9),
                Vec2::new(-0.7, 0.6),
            ]),
            2 => Shape::capsule(0.7, 0.4),
            _ => Shape::ball(0.7),
        };
        shape.expect("valid preset")
    }

    fn start() -> ([usize; 2], [Pose<D2>; 2]) {
        (
            [0, 1],
            [
                Pose::new(Vec2::new(-0.7, 0.0), 0.35),
                Pose::new(Vec2::new(0.6, 0.35), -0.2),
            ],
        )
    }

    fn turned(pose: &Pose<D2>, _axis: Vec3, angle: f32) -> Pose<D2> {
        Pose::new(pose.translation, pose.orientation() + angle)
    }

    fn core_vertices(shape: &Shape<D2>) -> Vec<Vec2> {
        match shape.kind() {
            ShapeKind::Cuboid { half_extents: h } => {
                [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                    .map(|(x, y)| Vec2::new(x * h.x, y * h.y))
                    .to_vec()
            }
            ShapeKind::ConvexHull(polygon) => polygon.vertices().to_vec(),
            ShapeKind::Capsule { half_height, .. } => {
                vec![Vec2::new(0.0, -half_height), Vec2::new(0.0, *half_height)]
            }
            ShapeKind::Ball { .. } => vec![Vec2::ZERO],
            // Surfaces are level geometry, not shapes the inspector takes.
            ShapeKind::Surface(_) | ShapeKind::Facet(_) => Vec::new(),
        }
    }
}

impl Inspect for D3 {
    const KINDS: [&'static str; 4] = ["box", "hull", "capsule", "ball"];

    fn preset(kind: usize) -> Shape<D3> {
        let shape = match kind % 4 {
            0 => Shape::cuboid(Vec3::new(0.8, 0.55, 0.5)),
            1 => Shape::convex_hull(&[
                Vec3::new(0.0, 0.9, 0.0),
                Vec3::new(0.8, 0.1, 0.2),
                Vec3::new(0.2, 0.0, 0.85),
                Vec3::new(-0.7, 0.2, 0.5),
                Vec3::new(-0.6, -0.1, -0.6),
                Vec3::new(0.4, 0.1, -0.75),
                Vec3::new(0.1, -0.8, 0.1),
            ]),
            2 => Shape::capsule(0.6, 0.35),
            _ => Shape::ball(0.6),
        };
        shape.expect("valid preset")
    }

    fn start() -> ([usize; 2], [Pose<D3>; 2]) {
        (
            [0, 1],
            [
                Pose::new(Vec3::new(-0.6, 0.0, 0.0), Quat::from_rotation_y(0.4)),
                Pose::new(
                    Vec3::new(0.5, 0.25, 0.15),
                    Quat::from_euler(tumble::glam::EulerRot::XYZ, 0.3, -0.5, 0.2),
                ),
            ],
        )
    }

    fn turned(pose: &Pose<D3>, axis: Vec3, angle: f32) -> Pose<D3> {
        Pose::new(
            pose.translation,
            Quat::from_axis_angle(axis, angle) * pose.orientation(),
        )
    }

    fn core_vertices(shape: &Shape<D3>) -> Vec<Vec3> {
        match shape.kind() {
            ShapeKind::Cuboid { half_extents: h } => (0..8)
                .map(|i| {
                    let s = |bit: i32| if i & bit == 0 { -1.0 } else { 1.0 };
                    Vec3::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
                })
                .collect(),
            ShapeKind::ConvexHull(hull) => hull.vertices().to_vec(),
            ShapeKind::Capsule { half_height, .. } => vec![
                Vec3::new(0.0, -half_height, 0.0),
                Vec3::new(0.0, *half_height, 0.0),
            ],
            ShapeKind::Ball { .. } => vec![Vec3::ZERO],
            // Surfaces are level geometry, not shapes the inspector takes.
            ShapeKind::Surface(_) | ShapeKind::Facet(_) => Vec::new(),
        }
    }
}

/// Two shapes, their contact and the workings of the query that found it.
pub struct Inspector<D: Inspect> {
    /// Which preset each shape is (indices into [`Inspect::KINDS`]).
    pub kinds: [usize; 2],
    /// Shapes A and B.
    pub shapes: [Shape<D>; 2],
    /// Their poses.
    pub poses: [Pose<D>; 2],
    /// The shape the keys move and Tab changes (0 = A, 1 = B).
    pub selected: usize,
    /// The EPA iteration on show; `None` follows the last one.
    pub step: Option<usize>,
    /// The contact of the shapes as placed.
    pub contact: Option<ShapeContact<D>>,
    /// GJK's simplex and EPA's iterations.
    pub trace: Trace<D::Vector>,
    /// The distance between the shapes (0 when they touch).
    pub distance: f32,
}

impl<D: Inspect> Default for Inspector<D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<D: Inspect> Inspector<D> {
    /// The starting placement, with its contact computed.
    pub fn new() -> Self {
        let (kinds, poses) = D::start();
        let mut inspector = Self {
            kinds,
            shapes: kinds.map(D::preset),
            poses,
            selected: 1,
            step: None,
            contact: None,
            trace: Trace::default(),
            distance: 0.0,
        };
        inspector.update();
        inspector
    }

    /// Runs the contact query again after a shape moved or changed.
    pub fn update(&mut self) {
        let [a, b] = &self.shapes;
        let [pa, pb] = &self.poses;
        let (contact, trace) = contact_traced(a, pa, b, pb);
        self.contact = contact;
        self.trace = trace;
        self.distance = distance(a, pa, b, pb);
        if let Some(k) = self.step {
            self.step = Some(k.min(self.trace.epa_steps.len().saturating_sub(1)));
        }
    }

    /// The number of EPA iterations.
    pub fn iterations(&self) -> usize {
        self.trace.epa_steps.len()
    }

    /// Index of the iteration on show, if EPA ran.
    pub fn current(&self) -> Option<usize> {
        let n = self.iterations();
        (n > 0).then(|| self.step.unwrap_or(n - 1).min(n - 1))
    }

    /// The iteration on show, if EPA ran.
    pub fn current_step(&self) -> Option<&EpaStep<D::Vector>> {
        self.current().map(|k| &self.trace.epa_steps[k])
    }

    /// Shows the iteration `by` after (or before) the current one.
    pub fn step_by(&mut self, by: isize) {
        if let Some(k) = self.current() {
            let last = self.iterations() - 1;
            let k = k.saturating_add_signed(by).min(last);
            self.step = (k != last).then_some(k);
        }
    }

    /// Shows the first iteration.
    pub fn first(&mut self) {
        self.step = (self.iterations() > 1).then_some(0);
    }

    /// Shows the last iteration (and keeps following it).
    pub fn last(&mut self) {
        self.step = None;
    }

    /// Changes the selected shape to the next preset.
    pub fn cycle(&mut self, which: usize) {
        self.kinds[which] = (self.kinds[which] + 1) % D::KINDS.len();
        self.shapes[which] = D::preset(self.kinds[which]);
        self.update();
    }

    /// Moves shape `which` by `delta`, world metres.
    pub fn translate(&mut self, which: usize, delta: D::Vector) {
        self.poses[which].translation += delta;
        self.update();
    }

    /// Turns shape `which` by `angle` radians about the world `axis` (2D: about Z).
    pub fn turn(&mut self, which: usize, axis: Vec3, angle: f32) {
        self.poses[which] = D::turned(&self.poses[which], axis, angle);
        self.update();
    }

    /// The world support point of A − B along `d`: of the cores, or of the
    /// full shapes.
    pub fn support(&self, d: D::Vector, cores: bool) -> D::Vector {
        let [a, b] = &self.shapes;
        let [pa, pb] = &self.poses;
        let local = |s: &Shape<D>, p: &Pose<D>, d: D::Vector| {
            let dir = p.inverse_transform_vector(d);
            p.transform_point(if cores {
                s.core_support(dir)
            } else {
                s.support(dir)
            })
        };
        local(a, pa, d) - local(b, pb, -d)
    }

    /// Every difference of a core vertex of A and one of B, in world space:
    /// the Minkowski difference of the cores is their convex hull.
    pub fn core_differences(&self) -> Vec<D::Vector> {
        let [a, b] = &self.shapes;
        let [pa, pb] = &self.poses;
        let va: Vec<_> = D::core_vertices(a)
            .into_iter()
            .map(|p| pa.transform_point(p))
            .collect();
        let mut out = Vec::new();
        for q in D::core_vertices(b) {
            let q = pb.transform_point(q);
            out.extend(va.iter().map(|&p| p - q));
        }
        out
    }

    /// One line saying what the query found.
    pub fn verdict(&self) -> String {
        match (&self.contact, self.iterations()) {
            (Some(c), n) if n > 0 => format!(
                "contact: depth {:.4} after {n} EPA iterations, normal {}",
                c.depth,
                c.normal.show()
            ),
            (Some(c), _) => format!(
                "cores apart, rounded shapes touch: depth {:.4} from the radii, no EPA",
                c.depth
            ),
            (None, _) => format!("apart: distance {:.4}, EPA does not run", self.distance),
        }
    }

    /// The text the headless runner prints.
    pub fn report(&self, out: &mut impl Write) -> io::Result<()> {
        for (i, name) in ["A", "B"].iter().enumerate() {
            writeln!(
                out,
                "{name}: {} at {}",
                D::KINDS[self.kinds[i]],
                self.poses[i].translation.show()
            )?;
        }
        writeln!(
            out,
            "GJK simplex: {} points {}",
            self.trace.gjk_simplex.len(),
            self.trace
                .gjk_simplex
                .iter()
                .map(Show::show)
                .collect::<Vec<_>>()
                .join(" ")
        )?;
        let n = self.iterations();
        for (k, step) in self.trace.epa_steps.iter().enumerate() {
            writeln!(
                out,
                "EPA {}/{n}: {} vertices, {} faces, closest face distance {:.4}, normal {}, support gap {:.4}",
                k + 1,
                step.vertices.len(),
                step.faces.len(),
                step.distance,
                step.normal.show(),
                step.support.dot(step.normal) - step.distance
            )?;
        }
        if let Some(c) = &self.contact {
            writeln!(
                out,
                "witness points: A {}, B {}",
                c.point_a.show(),
                c.point_b.show()
            )?;
        }
        writeln!(out, "{}", self.verdict())
    }

    /// Points of the full shapes' Minkowski difference outline, sampled
    /// along `directions`.
    pub fn sampled_outline(&self, directions: &[D::Vector]) -> Vec<D::Vector> {
        directions.iter().map(|&d| self.support(d, false)).collect()
    }
}

/// Unit directions around the circle, counter-clockwise, for the 2D outline.
pub fn circle_directions() -> Vec<Vec2> {
    (0..OUTLINE_SAMPLES)
        .map(|i| {
            let a = std::f32::consts::TAU * i as f32 / OUTLINE_SAMPLES as f32;
            Vec2::new(a.cos(), a.sin())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<D: Inspect>() {
        let inspector = Inspector::<D>::new();
        let contact = inspector.contact.expect("the start overlaps");
        let n = inspector.iterations();
        assert!(n >= 1, "EPA ran");
        let last = &inspector.trace.epa_steps[n - 1];
        assert!((last.distance - contact.depth).abs() < 1e-3);
        // The trace's vertices lie in the cores' Minkowski difference.
        let hull = inspector.core_differences();
        for step in &inspector.trace.epa_steps {
            for &v in &step.vertices {
                let d = v.length().max(1e-6);
                let dir = v * (1.0 / d);
                let reach = hull.iter().map(|p| p.dot(dir)).fold(f32::MIN, f32::max);
                assert!(v.dot(dir) <= reach + 1e-3);
            }
        }
    }

    #[test]
    fn the_start_overlaps_and_the_trace_matches_the_contact() {
        check::<D2>();
        check::<D3>();
    }

    #[test]
    fn stepping_stays_in_range_and_moving_apart_stops_epa() {
        let mut inspector = Inspector::<D2>::new();
        let n = inspector.iterations();
        inspector.first();
        assert_eq!(inspector.current(), Some(0));
        inspector.step_by(-3);
        assert_eq!(inspector.current(), Some(0));
        inspector.step_by(100);
        assert_eq!(inspector.current(), Some(n - 1));
        inspector.translate(1, Vec2::new(10.0, 0.0));
        assert!(inspector.contact.is_none() && inspector.iterations() == 0);
        assert!(inspector.distance > 5.0);
        assert!(inspector.verdict().starts_with("apart"));
        for _ in 0..4 {
            inspector.cycle(0);
        }
        assert_eq!(inspector.kinds[0], 0);
    }
}
