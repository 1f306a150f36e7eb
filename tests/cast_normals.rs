//! Ray and shape casts against polytopes report the target's outward face
//! normal at the hit point, and the distance to it, as an oracle works them
//! out independently: the polytope's face planes found by brute force from
//! its vertices in f64, and the ray clipped against those planes
//! (Cyrus-Beck). Run with `--nocapture` to see the worst errors measured.

mod common;

use common::*;
use tumble::glam::{DQuat, DVec3, Quat, Vec2, Vec3};
use tumble::pipeline::narrow_phase::cast::{ray_cast, shape_cast};
use tumble::shape::{Shape, ShapeKind};
use tumble::{Dim, Pose, Settings, World, D2, D3};

/// The reported normal must be the face's within this (unit vectors).
const NORMAL_TOLERANCE: f32 = 1e-4;
/// The reported distance must be the oracle's within this, metres (the
/// scenes span about 20 m, where an f32 step is 1e-6 m).
const DISTANCE_TOLERANCE: f64 = 1e-4;
/// Hits closer than this (metres) to another face's plane are near an edge
/// or corner, where the normal is ambiguous: they are skipped, and counted.
const EDGE_MARGIN: f64 = 1e-3;
/// A ray that passes this close (metres) to a polytope may count as
/// touching it; any farther must miss.
const GRAZING: f64 = 1e-4;
/// Checked ray hits per dimension.
const RAY_HITS: usize = 10_000;

struct Lcg(u32);

impl Lcg {
    /// Uniform in [-1, 1).
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }

    /// Uniform in [lo, hi).
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * 0.5 * (self.next() + 1.0)
    }
}

/// A face plane in f64: the polytope lies where `n·x <= d`; `n` is unit.
#[derive(Clone, Debug)]
struct Plane {
    n: Vec<f64>,
    d: f64,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The face planes of the convex hull of `points`: every plane through N
/// of them (N = 2 in 2D, 3 in 3D) with all points on or below it, each once.
fn face_planes(points: &[Vec<f64>], through: impl Fn(&[&[f64]]) -> Option<Vec<f64>>) -> Vec<Plane> {
    let n = points[0].len();
    let scale = points.iter().map(|p| dot(p, p).sqrt()).fold(0.0, f64::max);
    let eps = 1e-9 * scale;
    let mut planes: Vec<Plane> = Vec::new();
    let mut consider = |chosen: &[&[f64]]| {
        let Some(normal) = through(chosen) else {
            return;
        };
        let d = dot(&normal, chosen[0]);
        let (mut above, mut below) = (false, false);
        for p in points {
            let s = dot(&normal, p) - d;
            above |= s > eps;
            below |= s < -eps;
        }
        let normal = match (above, below) {
            (false, true) => normal,
            (true, false) => normal.iter().map(|x| -x).collect(),
            _ => return,
        };
        let d = dot(&normal, chosen[0]);
        let known = planes
            .iter()
            .any(|q| (q.d - d).abs() < eps && dot(&q.n, &normal) > 1.0 - 1e-12);
        if !known {
            planes.push(Plane { n: normal, d });
        }
    };
    let m = points.len();
    for i in 0..m {
        for j in i + 1..m {
            if n == 2 {
                consider(&[&points[i], &points[j]]);
                continue;
            }
            for k in j + 1..m {
                consider(&[&points[i], &points[j], &points[k]]);
            }
        }
    }
    planes
}

/// Where the ray `o + t·dir` (t >= 0, from outside) enters the polytope
/// bounded by `planes`: (t, entered face, the hit's distance to the nearest
/// other face plane). `None` when the ray misses.
fn oracle_ray(planes: &[Plane], o: &[f64], dir: &[f64]) -> Option<(f64, usize, f64)> {
    let (mut enter, mut face, mut exit) = (f64::NEG_INFINITY, usize::MAX, f64::INFINITY);
    for (i, plane) in planes.iter().enumerate() {
        let along = dot(&plane.n, dir);
        let room = plane.d - dot(&plane.n, o);
        if along < 0.0 {
            let t = room / along;
            if t > enter {
                enter = t;
                face = i;
            }
        } else if along > 0.0 {
            exit = exit.min(room / along);
        } else if room < 0.0 {
            return None;
        }
    }
    if face == usize::MAX || enter < 0.0 || enter > exit {
        return None;
    }
    let hit: Vec<f64> = o.iter().zip(dir).map(|(a, b)| a + enter * b).collect();
    let margin = planes
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != face)
        .map(|(_, p)| p.d - dot(&p.n, &hit))
        .fold(f64::INFINITY, f64::min);
    Some((enter, face, margin))
}

/// How far the polytope's planes must move out for the ray (t >= 0) to
/// meet it: how clear of the polytope a missing ray passes (bisection).
fn ray_clearance(planes: &[Plane], o: &[f64], dir: &[f64]) -> f64 {
    let meets = |delta: f64| {
        let (mut enter, mut exit) = (0.0f64, f64::INFINITY);
        for plane in planes {
            let along = dot(&plane.n, dir);
            let room = plane.d + delta - dot(&plane.n, o);
            if along < 0.0 {
                enter = enter.max(room / along);
            } else if along > 0.0 {
                exit = exit.min(room / along);
            } else if room < 0.0 {
                return false;
            }
        }
        enter <= exit
    };
    let (mut lo, mut hi) = (0.0, 10.0);
    while hi - lo > 1e-12 {
        let mid = 0.5 * (lo + hi);
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// What the oracle needs in either dimension.
trait Oracle: Scene {
    fn to64(v: Self::Vector) -> Vec<f64>;
    fn from64(v: &[f64]) -> Self::Vector;
    /// A random unit vector.
    fn random_unit(rng: &mut Lcg) -> Self::Vector;
    /// A random rotation.
    fn random_rotation(rng: &mut Lcg) -> Self::Orientation;
    /// `v` rotated by the pose's stored rotation, in f64.
    fn rotate64(pose: &Pose<Self>, v: &[f64]) -> Vec<f64>;
    /// A random box or convex hull (polygon in 2D) about the origin, and the
    /// vertices its support map uses.
    fn random_polytope(rng: &mut Lcg, boxy: bool) -> (Shape<Self>, Vec<Vec<f64>>);
    /// The normal of the plane through N points, if they span one.
    fn through(points: &[&[f64]]) -> Option<Vec<f64>>;
}

/// A box's corners, in f64.
fn box_corners(half: &[f64]) -> Vec<Vec<f64>> {
    let n = half.len();
    (0..1usize << n)
        .map(|bits| {
            (0..n)
                .map(|i| {
                    if bits >> i & 1 == 1 {
                        half[i]
                    } else {
                        -half[i]
                    }
                })
                .collect()
        })
        .collect()
}

impl Oracle for D2 {
    fn to64(v: Vec2) -> Vec<f64> {
        vec![v.x as f64, v.y as f64]
    }
    fn from64(v: &[f64]) -> Vec2 {
        Vec2::new(v[0] as f32, v[1] as f32)
    }
    fn random_unit(rng: &mut Lcg) -> Vec2 {
        Vec2::from_angle(rng.next() * std::f32::consts::PI)
    }
    fn random_rotation(rng: &mut Lcg) -> f32 {
        rng.next() * std::f32::consts::PI
    }
    fn rotate64(pose: &Pose<D2>, v: &[f64]) -> Vec<f64> {
        let (c, s) = (pose.rotation.cos as f64, pose.rotation.sin as f64);
        vec![c * v[0] - s * v[1], s * v[0] + c * v[1]]
    }
    fn random_polytope(rng: &mut Lcg, boxy: bool) -> (Shape<D2>, Vec<Vec<f64>>) {
        if boxy {
            let half = Vec2::new(rng.range(0.2, 2.0), rng.range(0.2, 2.0));
            let corners = box_corners(&D2::to64(half));
            return (Shape::cuboid(half).unwrap(), corners);
        }
        let stretch = Vec2::new(rng.range(0.3, 1.5), rng.range(0.3, 1.5));
        let points: Vec<Vec2> = (0..8).map(|_| D2::random_unit(rng) * stretch).collect();
        let shape = Shape::convex_polygon(&points).unwrap();
        let ShapeKind::ConvexHull(polygon) = shape.kind() else {
            unreachable!("a polygon is a hull");
        };
        let vertices = polygon.vertices().iter().map(|&v| D2::to64(v)).collect();
        (shape, vertices)
    }
    fn through(points: &[&[f64]]) -> Option<Vec<f64>> {
        let (a, b) = (points[0], points[1]);
        let normal = [a[1] - b[1], b[0] - a[0]];
        let length = dot(&normal, &normal).sqrt();
        (length > 1e-9).then(|| normal.iter().map(|x| x / length).collect())
    }
}

impl Oracle for D3 {
    fn to64(v: Vec3) -> Vec<f64> {
        vec![v.x as f64, v.y as f64, v.z as f64]
    }
    fn from64(v: &[f64]) -> Vec3 {
        Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
    }
    fn random_unit(rng: &mut Lcg) -> Vec3 {
        loop {
            let v = Vec3::new(rng.next(), rng.next(), rng.next());
            let length = v.length();
            if (0.1..=1.0).contains(&length) {
                return v / length;
            }
        }
    }
    fn random_rotation(rng: &mut Lcg) -> Quat {
        Quat::from_axis_angle(D3::random_unit(rng), rng.next() * std::f32::consts::PI)
    }
    fn rotate64(pose: &Pose<D3>, v: &[f64]) -> Vec<f64> {
        let q: DQuat = pose.rotation.as_dquat();
        let r = q * DVec3::new(v[0], v[1], v[2]);
        vec![r.x, r.y, r.z]
    }
    fn random_polytope(rng: &mut Lcg, boxy: bool) -> (Shape<D3>, Vec<Vec<f64>>) {
        if boxy {
            let half = Vec3::new(
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
                rng.range(0.2, 2.0),
            );
            let corners = box_corners(&D3::to64(half));
            return (Shape::cuboid(half).unwrap(), corners);
        }
        let stretch = Vec3::new(
            rng.range(0.3, 1.5),
            rng.range(0.3, 1.5),
            rng.range(0.3, 1.5),
        );
        let points: Vec<Vec3> = (0..14).map(|_| D3::random_unit(rng) * stretch).collect();
        let shape = Shape::convex_hull(&points).unwrap();
        let ShapeKind::ConvexHull(hull) = shape.kind() else {
            unreachable!("a hull is a hull");
        };
        let vertices = hull.vertices().iter().map(|&v| D3::to64(v)).collect();
        (shape, vertices)
    }
    fn through(points: &[&[f64]]) -> Option<Vec<f64>> {
        let p = |i: usize| DVec3::new(points[i][0], points[i][1], points[i][2]);
        let normal = (p(1) - p(0)).cross(p(2) - p(0));
        let length = normal.length();
        (length > 1e-9).then(|| (normal / length).to_array().to_vec())
    }
}

/// A box's half extents.
fn half_extents<D: Dim>(shape: &Shape<D>) -> D::Vector {
    match shape.kind() {
        ShapeKind::Cuboid { half_extents } => *half_extents,
        _ => unreachable!("a box"),
    }
}

/// The face planes of `vertices` placed at `pose`, in world space.
fn world_planes<D: Oracle>(vertices: &[Vec<f64>], pose: &Pose<D>) -> Vec<Plane> {
    let t = D::to64(pose.translation);
    face_planes(vertices, D::through)
        .into_iter()
        .map(|p| {
            let n = D::rotate64(pose, &p.n);
            let d = p.d + dot(&n, &t);
            Plane { n, d }
        })
        .collect()
}

/// Worst errors and counts over a batch of casts.
#[derive(Default, Debug)]
struct Tally {
    checked: usize,
    near_edge: usize,
    /// Shape casts whose touching point falls off the face: not checked.
    off_face: usize,
    misses: usize,
    wrong_normals: usize,
    worst_normal: f32,
    worst_distance: f64,
}

impl Tally {
    fn record(&mut self, normal_error: f32, distance_error: f64) {
        self.checked += 1;
        self.wrong_normals += usize::from(normal_error.is_nan() || normal_error > NORMAL_TOLERANCE);
        self.worst_normal = self.worst_normal.max(normal_error);
        self.worst_distance = self.worst_distance.max(distance_error);
    }

    fn assert_exact(&self, what: &str) {
        assert!(
            self.wrong_normals == 0 && self.worst_normal <= NORMAL_TOLERANCE,
            "{what}: {} of {} normals off by more than {NORMAL_TOLERANCE}: {self:?}",
            self.wrong_normals,
            self.checked
        );
        assert!(
            self.worst_distance <= DISTANCE_TOLERANCE,
            "{what}: distance off by {} m: {self:?}",
            self.worst_distance
        );
    }
}

fn rays_report_face_normals<D: Oracle>() {
    let mut rng = Lcg(2024);
    let mut tally = Tally::default();
    let mut false_hits = 0;
    let mut worst_clearance: f64 = 0.0;
    let mut shapes = 0;
    while tally.checked < RAY_HITS {
        let boxy = shapes % 2 == 0;
        shapes += 1;
        let (shape, vertices) = D::random_polytope(&mut rng, boxy);
        let centre = D::v(rng.next() * 10.0, rng.next() * 10.0);
        let pose = Pose::<D>::new(centre, D::random_rotation(&mut rng));
        let planes = world_planes(&vertices, &pose);
        for _ in 0..20 {
            let origin = centre + D::random_unit(&mut rng) * rng.range(3.0, 6.0);
            let aim = centre + D::random_unit(&mut rng) * rng.range(0.0, 1.5);
            let dir = aim - origin;
            let dir = dir * (1.0 / D::len(dir));
            let found = ray_cast(&shape, &pose, origin, dir, 100.0);
            let Some((t, face, margin)) = oracle_ray(&planes, &D::to64(origin), &D::to64(dir))
            else {
                if found.is_some() {
                    // Allowed only for a ray that grazes the polytope.
                    false_hits += 1;
                    let passes = ray_clearance(&planes, &D::to64(origin), &D::to64(dir));
                    worst_clearance = worst_clearance.max(passes);
                }
                continue;
            };
            // Near an edge or corner the normal is ambiguous: skip.
            if margin < EDGE_MARGIN {
                tally.near_edge += 1;
                continue;
            }
            let Some(hit) = found else {
                tally.misses += 1;
                continue;
            };
            let normal = D::from64(&planes[face].n);
            tally.record(D::len(hit.normal - normal), (hit.distance as f64 - t).abs());
        }
    }
    println!(
        "{} rays against boxes and hulls ({shapes} shapes): {tally:?}; \
         hits where the oracle misses: {false_hits}, passing at most {worst_clearance:e} m away",
        D::NAME
    );
    assert_eq!(tally.misses, 0, "{}: rays that hit were missed", D::NAME);
    assert!(
        worst_clearance <= GRAZING,
        "{}: a ray {worst_clearance} m clear of the polytope hit it",
        D::NAME
    );
    tally.assert_exact(&format!("{} rays", D::NAME));
}

#[test]
fn rays_report_face_normals_2d() {
    rays_report_face_normals::<D2>();
}

#[test]
fn rays_report_face_normals_3d() {
    rays_report_face_normals::<D3>();
}

/// A ball or a box (at a random rotation) cast obliquely onto the top face
/// of a tilted slab: the normal is the face's, the distance is where the
/// moving shape's lowest point along the normal first meets the face plane.
fn shape_casts_report_face_normals<D: Oracle>() {
    let mut rng = Lcg(77);
    let mut tally = Tally::default();
    let slab_half = D::cuboid(4.0, 0.5);
    let slab_vertices = box_corners(&D::to64(half_extents(&slab_half)));
    for i in 0..2000 {
        let pose = Pose::<D>::new(
            D::v(rng.next() * 10.0, rng.next() * 10.0),
            D::tilt(rng.next() * 0.5),
        );
        let planes = world_planes(&slab_vertices, &pose);
        let up = D::to64(pose.transform_vector(D::v(0.0, 1.0)));
        let top = planes
            .iter()
            .position(|p| dot(&p.n, &up) > 0.999)
            .expect("the slab has a top face");
        let moving = if i % 2 == 0 {
            Shape::ball(rng.range(0.1, 0.8)).unwrap()
        } else {
            D::cube(rng.range(0.1, 0.8))
        };
        let start = Pose::<D>::new(
            pose.transform_point(D::v(rng.next() * 2.0, rng.range(2.0, 4.0))),
            D::random_rotation(&mut rng),
        );
        // Oblique: 10 to 70 degrees from straight down the face normal.
        let sideways = D::random_unit(&mut rng);
        let down = -D::from64(&up);
        let tangent = sideways - down * D::dot(sideways, down);
        let tangent = tangent * (1.0 / D::len(tangent));
        let angle = rng.range(10.0, 70.0).to_radians();
        let dir = down * angle.cos() + tangent * angle.sin();
        let dir = dir * (1.0 / D::len(dir));
        // The moving shape's lowest point along the face normal, and where
        // it meets the face plane.
        let n = &planes[top].n;
        let lowest = match moving.kind() {
            ShapeKind::Ball { radius } => {
                let c = D::to64(start.translation);
                let mut p = c.clone();
                for (x, m) in p.iter_mut().zip(n) {
                    *x -= *radius as f64 * m;
                }
                p
            }
            _ => {
                let corners = box_corners(&D::to64(half_extents(&moving)));
                corners
                    .iter()
                    .map(|c| D::to64(start.transform_point(D::from64(c))))
                    .min_by(|a, b| dot(n, a).total_cmp(&dot(n, b)))
                    .unwrap()
            }
        };
        let dir64 = D::to64(dir);
        let t = (planes[top].d - dot(n, &lowest)) / dot(n, &dir64);
        let touch: Vec<f64> = lowest.iter().zip(&dir64).map(|(a, b)| a + t * b).collect();
        let margin = planes
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != top)
            .map(|(_, p)| p.d - dot(&p.n, &touch))
            .fold(f64::INFINITY, f64::min);
        if margin < 0.0 {
            tally.off_face += 1;
            continue;
        }
        if margin < EDGE_MARGIN {
            tally.near_edge += 1;
            continue;
        }
        let Some(hit) = shape_cast(&slab_half, &pose, &moving, &start, dir, 100.0) else {
            tally.misses += 1;
            continue;
        };
        tally.record(
            D::len(hit.normal - D::from64(n)),
            (hit.distance as f64 - t).abs(),
        );
    }
    println!("{} shape casts onto a slab: {tally:?}", D::NAME);
    assert_eq!(tally.misses, 0, "{}: casts that hit were missed", D::NAME);
    tally.assert_exact(&format!("{} shape casts", D::NAME));

    // The reported case: a cube cast at 45 degrees onto the ground.
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let cube = D::cube(0.5);
    let dir = D::v(1.0, -1.0);
    let hit = world
        .cast_shape(
            &cube,
            &Pose::new(D::v(0.0, 3.0), D::tilt(0.0)),
            dir,
            10.0,
            &Default::default(),
        )
        .expect("the cube lands");
    println!("{} cube at 45 degrees onto the ground: {hit:?}", D::NAME);
    assert!(
        D::len(hit.normal - D::v(0.0, 1.0)) <= NORMAL_TOLERANCE,
        "{}: {hit:?}",
        D::NAME
    );
    let expected = 2.5 * std::f32::consts::SQRT_2;
    assert!(
        (hit.distance - expected).abs() <= DISTANCE_TOLERANCE as f32,
        "{}: {hit:?}",
        D::NAME
    );
}

#[test]
fn shape_casts_report_face_normals_2d() {
    shape_casts_report_face_normals::<D2>();
}

#[test]
fn shape_casts_report_face_normals_3d() {
    shape_casts_report_face_normals::<D3>();
}

/// A cast that starts inside its target hits at distance 0, at its start,
/// with the normal against the motion: a ray inside a box and inside a ball
/// (off its centre), and a box cast from overlap with the slab.
fn started_inside<D: Oracle>() {
    let pose = Pose::<D>::new(D::v(1.0, 2.0), D::tilt(0.3));
    let dir = D::v(0.6, -0.8);
    let against = D::v(-0.6, 0.8);
    for target in [D::cube(0.5), Shape::ball(0.5).unwrap()] {
        let origin = D::v(1.2, 2.1);
        let hit = ray_cast(&target, &pose, origin, dir, 10.0).expect("inside hits");
        assert!(
            hit.distance == 0.0 && D::len(hit.normal - against) < 1e-6,
            "{}: {target:?}: {hit:?}",
            D::NAME
        );
        assert!(D::len(hit.point - origin) < 1e-6, "{}: {hit:?}", D::NAME);
    }
    let start = Pose::<D>::new(D::v(1.0, 2.7), D::tilt(0.0));
    let hit = shape_cast(&D::cube(0.5), &pose, &D::cube(0.4), &start, dir, 10.0)
        .expect("overlapping hits");
    assert!(
        hit.distance == 0.0 && D::len(hit.normal - against) < 1e-6,
        "{}: {hit:?}",
        D::NAME
    );
}

#[test]
fn started_inside_2d() {
    started_inside::<D2>();
}

#[test]
fn started_inside_3d() {
    started_inside::<D3>();
}
