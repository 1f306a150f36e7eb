//! The narrow phase against the contact corpus: exact answers, computed in f64
//! from the Minkowski difference, for 3000 pairs in 3D and 2000 in 2D
//! (`tests/data/`, copied from the shared corpus; see its README).
//!
//! Errors, each divided by the larger bounding radius `s` of the pair, with
//! `h_S(n)` the support value of shape S along n, evaluated here in f64:
//! - depth: |d - depth|
//! - normal: h_A(n) + h_B(-n) - depth (0 when moving B by depth·n separates)
//! - witness: max(|n·pa - h_A(n)|, |-n·pb - h_B(-n)|, |pa - pb - d·n|)
//! - distance: |distance - exact|
//!
//! Bar (issue 2): depth p99 <= 5e-5 and max <= 1e-3; normal, witness and
//! distance max <= 1e-3; overlap decided right unless the exact depth or
//! distance is below 1e-5 of the size.

use serde_json::Value;
use tumble::glam::{DQuat, DVec2, DVec3, Quat};

const UNDECIDED: f64 = 1e-5;
const DEPTH_P99: f64 = 5e-5;
const MAX_ERROR: f64 = 1e-3;

/// One case's errors, relative to its size.
#[derive(Default, Clone)]
struct Errors {
    id: String,
    category: String,
    depth: Option<f64>,
    normal: Option<f64>,
    witness: Option<f64>,
    distance: Option<f64>,
    wrong_overlap: bool,
}

fn read_cases(file: &str) -> Vec<Value> {
    let path = format!("{}/data/{}", env!("CARGO_MANIFEST_DIR"), file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("number")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(f).collect()
}

// ---------------------------------------------------------------- 3D

/// A corpus shape in f64, for exact support values.
enum Shape3 {
    Sphere(f64),
    Box(DVec3),
    Capsule(f64, f64),
    Hull(Vec<DVec3>),
}

impl Shape3 {
    fn parse(v: &Value) -> Self {
        match v["kind"].as_str().expect("kind") {
            "sphere" => Shape3::Sphere(f(&v["r"])),
            "box" => {
                let h = floats(&v["half"]);
                Shape3::Box(DVec3::new(h[0], h[1], h[2]))
            }
            "capsule" => Shape3::Capsule(f(&v["half_height"]), f(&v["r"])),
            "hull" => Shape3::Hull(
                v["points"]
                    .as_array()
                    .expect("points")
                    .iter()
                    .map(|p| {
                        let c = floats(p);
                        DVec3::new(c[0], c[1], c[2])
                    })
                    .collect(),
            ),
            k => panic!("unknown kind {k}"),
        }
    }

    fn radius(&self) -> f64 {
        match self {
            Shape3::Sphere(r) => *r,
            Shape3::Box(h) => h.length(),
            Shape3::Capsule(h, r) => h + r,
            Shape3::Hull(p) => p.iter().map(|q| q.length()).fold(0.0, f64::max),
        }
    }

    /// Support value along local unit direction `d`.
    fn support_value(&self, d: DVec3) -> f64 {
        match self {
            Shape3::Sphere(r) => *r,
            Shape3::Box(h) => h.dot(d.abs()),
            Shape3::Capsule(h, r) => h * d.y.abs() + r,
            Shape3::Hull(p) => p.iter().map(|q| q.dot(d)).fold(f64::NEG_INFINITY, f64::max),
        }
    }

    fn engine(&self) -> tumble::d3::Shape {
        use tumble::d3::Shape;
        match self {
            Shape3::Sphere(r) => Shape::ball(*r as f32),
            Shape3::Box(h) => Shape::cuboid(h.as_vec3()),
            Shape3::Capsule(h, r) => Shape::capsule(*h as f32, *r as f32),
            Shape3::Hull(p) => {
                Shape::convex_hull(&p.iter().map(|q| q.as_vec3()).collect::<Vec<_>>())
            }
        }
        .expect("valid corpus shape")
    }
}

fn pose3(v: &Value) -> (DVec3, DQuat) {
    let t = floats(&v["t"]);
    let q = floats(&v["q"]);
    (
        DVec3::new(t[0], t[1], t[2]),
        DQuat::from_xyzw(q[0], q[1], q[2], q[3]),
    )
}

/// World support value of a shape at a pose along world unit `n`.
fn world_support3(s: &Shape3, (t, q): (DVec3, DQuat), n: DVec3) -> f64 {
    s.support_value(q.inverse() * n) + t.dot(n)
}

fn check3(case: &Value) -> Errors {
    let (a, b) = (Shape3::parse(&case["a"]), Shape3::parse(&case["b"]));
    let (pa, pb) = (pose3(&case["pa"]), pose3(&case["pb"]));
    let size = a.radius().max(b.radius());
    let to_pose = |(t, q): (DVec3, DQuat)| {
        tumble::d3::Pose::new(
            t.as_vec3(),
            Quat::from_xyzw(q.x as f32, q.y as f32, q.z as f32, q.w as f32),
        )
    };
    let (ea, eb) = (a.engine(), b.engine());
    let (qa, qb) = (to_pose(pa), to_pose(pb));
    let hit = tumble::d3::contact(&ea, &qa, &eb, &qb);
    let gap = tumble::d3::distance(&ea, &qa, &eb, &qb) as f64;
    let overlap = case["overlap"].as_bool().expect("overlap");
    let exact_depth = f(&case["depth"]);
    let exact_distance = f(&case["distance"]);
    let decided = if overlap { exact_depth } else { exact_distance } > UNDECIDED * size;
    let mut e = Errors {
        id: case["id"].as_str().unwrap_or("").into(),
        category: case["category"].as_str().unwrap_or("").into(),
        ..Default::default()
    };
    e.wrong_overlap = decided && hit.is_some() != overlap;
    if !overlap {
        e.distance = Some((gap - exact_distance).abs() / size);
    }
    if let (true, Some(c)) = (overlap, hit) {
        let n = c.normal.as_dvec3();
        let d = c.depth as f64;
        let (wa, wb) = (c.point_a.as_dvec3(), c.point_b.as_dvec3());
        let ha = world_support3(&a, pa, n);
        let hb = world_support3(&b, pb, -n);
        e.depth = Some((d - exact_depth).abs() / size);
        e.normal = Some((ha + hb - exact_depth) / size);
        let witness = (n.dot(wa) - ha)
            .abs()
            .max((-n.dot(wb) - hb).abs())
            .max((wa - wb - n * d).length());
        e.witness = Some(witness / size);
        assert!(
            (c.normal.length() - 1.0).abs() < 1e-4,
            "{}: normal not unit",
            e.id
        );
    }
    e
}

// ---------------------------------------------------------------- 2D

/// A corpus shape in f64, for exact support values.
enum Shape2 {
    Circle(f64),
    Box(DVec2),
    Capsule(f64, f64),
    Polygon(Vec<DVec2>),
}

impl Shape2 {
    fn parse(v: &Value) -> Self {
        match v["kind"].as_str().expect("kind") {
            "circle" => Shape2::Circle(f(&v["r"])),
            "box" => {
                let h = floats(&v["half"]);
                Shape2::Box(DVec2::new(h[0], h[1]))
            }
            "capsule" => Shape2::Capsule(f(&v["half_height"]), f(&v["r"])),
            "polygon" => Shape2::Polygon(
                v["points"]
                    .as_array()
                    .expect("points")
                    .iter()
                    .map(|p| {
                        let c = floats(p);
                        DVec2::new(c[0], c[1])
                    })
                    .collect(),
            ),
            k => panic!("unknown kind {k}"),
        }
    }

    fn radius(&self) -> f64 {
        match self {
            Shape2::Circle(r) => *r,
            Shape2::Box(h) => h.length(),
            Shape2::Capsule(h, r) => h + r,
            Shape2::Polygon(p) => p.iter().map(|q| q.length()).fold(0.0, f64::max),
        }
    }

    fn support_value(&self, d: DVec2) -> f64 {
        match self {
            Shape2::Circle(r) => *r,
            Shape2::Box(h) => h.dot(d.abs()),
            Shape2::Capsule(h, r) => h * d.y.abs() + r,
            Shape2::Polygon(p) => p.iter().map(|q| q.dot(d)).fold(f64::NEG_INFINITY, f64::max),
        }
    }

    fn engine(&self) -> tumble::d2::Shape {
        use tumble::d2::Shape;
        match self {
            Shape2::Circle(r) => Shape::ball(*r as f32),
            Shape2::Box(h) => Shape::cuboid(h.as_vec2()),
            Shape2::Capsule(h, r) => Shape::capsule(*h as f32, *r as f32),
            Shape2::Polygon(p) => {
                Shape::convex_polygon(&p.iter().map(|q| q.as_vec2()).collect::<Vec<_>>())
            }
        }
        .expect("valid corpus shape")
    }
}

fn pose2(v: &Value) -> (DVec2, f64) {
    let t = floats(&v["t"]);
    (DVec2::new(t[0], t[1]), f(&v["angle"]))
}

fn world_support2(s: &Shape2, (t, angle): (DVec2, f64), n: DVec2) -> f64 {
    let local = DVec2::from_angle(-angle).rotate(n);
    s.support_value(local) + t.dot(n)
}

fn check2(case: &Value) -> Errors {
    let (a, b) = (Shape2::parse(&case["a"]), Shape2::parse(&case["b"]));
    let (pa, pb) = (pose2(&case["pa"]), pose2(&case["pb"]));
    let size = a.radius().max(b.radius());
    let to_pose = |(t, angle): (DVec2, f64)| tumble::d2::Pose::new(t.as_vec2(), angle as f32);
    let (ea, eb) = (a.engine(), b.engine());
    let (qa, qb) = (to_pose(pa), to_pose(pb));
    let hit = tumble::d2::contact(&ea, &qa, &eb, &qb);
    let gap = tumble::d2::distance(&ea, &qa, &eb, &qb) as f64;
    let overlap = case["overlap"].as_bool().expect("overlap");
    let exact_depth = f(&case["depth"]);
    let exact_distance = f(&case["distance"]);
    let decided = if overlap { exact_depth } else { exact_distance } > UNDECIDED * size;
    let mut e = Errors {
        id: case["id"].as_str().unwrap_or("").into(),
        category: case["category"].as_str().unwrap_or("").into(),
        ..Default::default()
    };
    e.wrong_overlap = decided && hit.is_some() != overlap;
    if !overlap {
        e.distance = Some((gap - exact_distance).abs() / size);
    }
    if let (true, Some(c)) = (overlap, hit) {
        let n = c.normal.as_dvec2();
        let d = c.depth as f64;
        let (wa, wb) = (c.point_a.as_dvec2(), c.point_b.as_dvec2());
        let ha = world_support2(&a, pa, n);
        let hb = world_support2(&b, pb, -n);
        e.depth = Some((d - exact_depth).abs() / size);
        e.normal = Some((ha + hb - exact_depth) / size);
        let witness = (n.dot(wa) - ha)
            .abs()
            .max((-n.dot(wb) - hb).abs())
            .max((wa - wb - n * d).length());
        e.witness = Some(witness / size);
        assert!(
            (c.normal.length() - 1.0).abs() < 1e-4,
            "{}: normal not unit",
            e.id
        );
    }
    e
}

// ---------------------------------------------------------------- statistics

fn percentile(values: &mut [f64], p: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f64::total_cmp);
    let rank = ((p * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

/// Reads one error figure of a case, if the case has it.
type Metric = fn(&Errors) -> Option<f64>;

fn worst(all: &[Errors], pick: Metric) -> Option<(&Errors, f64)> {
    all.iter()
        .filter_map(|e| pick(e).map(|v| (e, v)))
        .max_by(|x, y| x.1.total_cmp(&y.1))
}

/// Prints the figures and asserts the bar.
fn assert_bar(label: &str, all: &[Errors]) {
    let metrics: [(&str, Metric); 4] = [
        ("depth", |e| e.depth),
        ("normal", |e| e.normal),
        ("witness", |e| e.witness),
        ("distance", |e| e.distance),
    ];
    let mut failures = Vec::new();
    println!("{label}: {} cases", all.len());
    for (name, pick) in metrics {
        let mut values: Vec<f64> = all.iter().filter_map(pick).collect();
        let count = values.len();
        let p99 = percentile(&mut values, 0.99);
        let max = values.last().copied().unwrap_or(0.0);
        let (worst_id, worst_category) = worst(all, pick)
            .map(|(e, _)| (e.id.clone(), e.category.clone()))
            .unwrap_or_default();
        println!("  {name:8} n={count:5} p99={p99:.2e} max={max:.2e} (worst {worst_id} {worst_category})");
        if max > MAX_ERROR || (name == "depth" && p99 > DEPTH_P99) {
            failures.push(format!(
                "{name}: p99 {p99:.2e}, max {max:.2e} at {worst_id} ({worst_category})"
            ));
        }
    }
    let wrong: Vec<&str> = all
        .iter()
        .filter(|e| e.wrong_overlap)
        .map(|e| e.id.as_str())
        .collect();
    println!("  wrong overlap decisions: {}", wrong.len());
    if !wrong.is_empty() {
        failures.push(format!(
            "wrong overlap decision in {} cases: {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(10)]
        ));
    }
    assert!(
        failures.is_empty(),
        "{label} misses the bar:\n{}",
        failures.join("\n")
    );
}

#[test]
fn corpus_3d_meets_the_bar() {
    let cases = read_cases("contacts3d.jsonl");

    assert_eq!(cases.len(), 3000);
    let errors: Vec<Errors> = cases.iter().map(check3).collect();
    assert_bar("3D", &errors);
}

#[test]
fn corpus_2d_meets_the_bar() {
    let cases = read_cases("contacts2d.jsonl");

    assert_eq!(cases.len(), 2000);
    let errors: Vec<Errors> = cases.iter().map(check2).collect();
    assert_bar("2D", &errors);
}
