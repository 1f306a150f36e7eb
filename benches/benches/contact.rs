//! Narrow-phase `contact()` over the overlapping pairs of the contact corpus,
//! tumble side by side with parry 0.31 on the very same pairs.
//!
//! Groups `contact_3d` and `contact_2d`, each with three functions:
//! - `tumble`: `tumble::d3::contact` / `tumble::d2::contact`;
//! - `parry_gjk_epa`: parry's GJK-then-EPA on two support maps
//!   (`query::details::contact_support_map_support_map`), every pair;
//! - `parry_dispatch`: parry's dispatching `query::contact` (analytic
//!   ball-ball and ball-convex, GJK+EPA for the rest).
//!
//! One iteration runs the query once over every overlapping pair; the
//! throughput is set to the pair count so criterion reports per-pair rates.
//! At the end the bench prints ns per query for each function (total time
//! measured over all of criterion's runs divided by queries made).
//!
//! Run: `cargo bench -p benches --bench contact`

use std::cell::RefCell;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput};
use serde_json::Value;

use tumble::glam::{Quat, Vec2, Vec3};

const DATA_3D: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/contacts3d.jsonl"
);
const DATA_2D: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/data/contacts2d.jsonl"
);

// ---------------------------------------------------------------------------
// Corpus reading
// ---------------------------------------------------------------------------

/// The overlapping cases of a corpus file, as JSON objects.
fn overlapping_cases(path: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("parsing {path}: {e}"))
        })
        .filter(|case| case["overlap"].as_bool() == Some(true))
        .collect()
}

fn num(v: &Value) -> f32 {
    v.as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {v}")) as f32
}

fn array<const N: usize>(v: &Value) -> [f32; N] {
    let items = v
        .as_array()
        .unwrap_or_else(|| panic!("expected an array, got {v}"));
    assert_eq!(items.len(), N, "expected {N} numbers, got {v}");
    std::array::from_fn(|i| num(&items[i]))
}

fn points<const N: usize>(v: &Value) -> Vec<[f32; N]> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected points, got {v}"))
        .iter()
        .map(array::<N>)
        .collect()
}

// ---------------------------------------------------------------------------
// Pairs in both engines
// ---------------------------------------------------------------------------

/// One overlapping pair built in tumble and in parry, with the corpus depth.
struct Pair<TS, TP, PS: ?Sized, PP> {
    a: TS,
    pa: TP,
    b: TS,
    pb: TP,
    parry_a: Box<PS>,
    parry_pa: PP,
    parry_b: Box<PS>,
    parry_pb: PP,
    depth: f32,
}

type Pair3 =
    Pair<tumble::d3::Shape, tumble::d3::Pose, dyn parry3d::shape::Shape, parry3d::math::Pose>;
type Pair2 =
    Pair<tumble::d2::Shape, tumble::d2::Pose, dyn parry2d::shape::Shape, parry2d::math::Pose>;

/// The pairs built by a shape and a pose builder.
type Pairs<S, P> = Vec<
    Pair<
        <S as ShapeBuilder>::T,
        <P as PoseBuilder>::T,
        <S as ShapeBuilder>::P,
        <P as PoseBuilder>::P,
    >,
>;

/// Builds every pair both engines accept; returns them and the number skipped.
fn build_pairs<S, P>(cases: &[Value], shape: S, pose: P) -> (Pairs<S, P>, usize)
where
    S: ShapeBuilder,
    P: PoseBuilder,
{
    let mut pairs = Vec::with_capacity(cases.len());
    let mut skipped = 0;
    for case in cases {
        let built = (|| {
            let (a, parry_a) = shape.build(&case["a"])?;
            let (b, parry_b) = shape.build(&case["b"])?;
            let (pa, parry_pa) = pose.build(&case["pa"]);
            let (pb, parry_pb) = pose.build(&case["pb"]);
            Some(Pair {
                a,
                pa,
                b,
                pb,
                parry_a,
                parry_pa,
                parry_b,
                parry_pb,
                depth: num(&case["depth"]),
            })
        })();
        match built {
            Some(pair) => pairs.push(pair),
            None => {
                skipped += 1;
                eprintln!(
                    "skipping {}: a shape was rejected by tumble or parry",
                    case["id"]
                );
            }
        }
    }
    (pairs, skipped)
}

trait ShapeBuilder {
    type T;
    type P: ?Sized;
    fn build(&self, v: &Value) -> Option<(Self::T, Box<Self::P>)>;
}

trait PoseBuilder {
    type T;
    type P;
    fn build(&self, v: &Value) -> (Self::T, Self::P);
}

struct Shapes3;
struct Shapes2;
struct Poses3;
struct Poses2;

impl ShapeBuilder for Shapes3 {
    type T = tumble::d3::Shape;
    type P = dyn parry3d::shape::Shape;

    fn build(&self, v: &Value) -> Option<(Self::T, Box<Self::P>)> {
        use parry3d::math::Vector as PV;
        use parry3d::shape as ps;
        use tumble::d3::Shape;
        match v["kind"].as_str()? {
            "sphere" => {
                let r = num(&v["r"]);
                Some((Shape::ball(r).ok()?, Box::new(ps::Ball::new(r))))
            }
            "box" => {
                let h = array::<3>(&v["half"]);
                Some((
                    Shape::cuboid(Vec3::from_array(h)).ok()?,
                    Box::new(ps::Cuboid::new(PV::from_array(h))),
                ))
            }
            "capsule" => {
                let (hh, r) = (num(&v["half_height"]), num(&v["r"]));
                Some((
                    Shape::capsule(hh, r).ok()?,
                    Box::new(ps::Capsule::new_y(hh, r)),
                ))
            }
            "hull" => {
                let pts = points::<3>(&v["points"]);
                let ours: Vec<Vec3> = pts.iter().map(|p| Vec3::from_array(*p)).collect();
                let theirs: Vec<PV> = pts.iter().map(|p| PV::from_array(*p)).collect();
                Some((
                    Shape::convex_hull(&ours).ok()?,
                    Box::new(ps::ConvexPolyhedron::from_convex_hull(&theirs)?),
                ))
            }
            other => panic!("unknown 3D shape kind {other:?}"),
        }
    }
}

impl ShapeBuilder for Shapes2 {
    type T = tumble::d2::Shape;
    type P = dyn parry2d::shape::Shape;

    fn build(&self, v: &Value) -> Option<(Self::T, Box<Self::P>)> {
        use parry2d::math::Vector as PV;
        use parry2d::shape as ps;
        use tumble::d2::Shape;
        match v["kind"].as_str()? {
            "circle" => {
                let r = num(&v["r"]);
                Some((Shape::ball(r).ok()?, Box::new(ps::Ball::new(r))))
            }
            "box" => {
                let h = array::<2>(&v["half"]);
                Some((
                    Shape::cuboid(Vec2::from_array(h)).ok()?,
                    Box::new(ps::Cuboid::new(PV::from_array(h))),
                ))
            }
            "capsule" => {
                let (hh, r) = (num(&v["half_height"]), num(&v["r"]));
                Some((
                    Shape::capsule(hh, r).ok()?,
                    Box::new(ps::Capsule::new_y(hh, r)),
                ))
            }
            "polygon" => {
                let pts = points::<2>(&v["points"]);
                let ours: Vec<Vec2> = pts.iter().map(|p| Vec2::from_array(*p)).collect();
                let theirs: Vec<PV> = pts.iter().map(|p| PV::from_array(*p)).collect();
                Some((
                    Shape::convex_polygon(&ours).ok()?,
                    Box::new(ps::ConvexPolygon::from_convex_hull(&theirs)?),
                ))
            }
            other => panic!("unknown 2D shape kind {other:?}"),
        }
    }
}

impl PoseBuilder for Poses3 {
    type T = tumble::d3::Pose;
    type P = parry3d::math::Pose;

    fn build(&self, v: &Value) -> (Self::T, Self::P) {
        let t = array::<3>(&v["t"]);
        let [x, y, z, w] = array::<4>(&v["q"]);
        // Normalise in f32 so both engines see the very same rotation.
        let q = Quat::from_xyzw(x, y, z, w).normalize();
        let ours = tumble::d3::Pose::new(Vec3::from_array(t), q);
        let theirs = parry3d::math::Pose::from_parts(
            parry3d::math::Vector::from_array(t),
            parry3d::math::Rotation::from_array(q.to_array()),
        );
        (ours, theirs)
    }
}

impl PoseBuilder for Poses2 {
    type T = tumble::d2::Pose;
    type P = parry2d::math::Pose;

    fn build(&self, v: &Value) -> (Self::T, Self::P) {
        let t = array::<2>(&v["t"]);
        let angle = num(&v["angle"]);
        let ours = tumble::d2::Pose::new(Vec2::from_array(t), angle);
        let theirs = parry2d::math::Pose::new(parry2d::math::Vector::from_array(t), angle);
        (ours, theirs)
    }
}

// ---------------------------------------------------------------------------
// The queries (one pass over all pairs each)
// ---------------------------------------------------------------------------

/// Depths found by each query: `None` where it reported no contact.
type Depths = Vec<Option<f32>>;

fn tumble_3d(pairs: &[Pair3]) -> Depths {
    pairs
        .iter()
        .map(|p| tumble::d3::contact(&p.a, &p.pa, &p.b, &p.pb).map(|c| c.depth))
        .collect()
}

fn tumble_2d(pairs: &[Pair2]) -> Depths {
    pairs
        .iter()
        .map(|p| tumble::d2::contact(&p.a, &p.pa, &p.b, &p.pb).map(|c| c.depth))
        .collect()
}

fn parry_gjk_3d(
    pairs: &[Pair3],
    maps: &[(
        &dyn parry3d::shape::SupportMap,
        &dyn parry3d::shape::SupportMap,
    )],
) -> Depths {
    pairs
        .iter()
        .zip(maps)
        .map(|(p, (a, b))| {
            let pos12 = p.parry_pa.inv_mul(&p.parry_pb);
            parry3d::query::details::contact_support_map_support_map(&pos12, *a, *b, 0.0)
                .map(|c| -c.dist)
        })
        .collect()
}

fn parry_gjk_2d(
    pairs: &[Pair2],
    maps: &[(
        &dyn parry2d::shape::SupportMap,
        &dyn parry2d::shape::SupportMap,
    )],
) -> Depths {
    pairs
        .iter()
        .zip(maps)
        .map(|(p, (a, b))| {
            let pos12 = p.parry_pa.inv_mul(&p.parry_pb);
            parry2d::query::details::contact_support_map_support_map(&pos12, *a, *b, 0.0)
                .map(|c| -c.dist)
        })
        .collect()
}

fn parry_dispatch_3d(pairs: &[Pair3]) -> Depths {
    pairs
        .iter()
        .map(|p| {
            parry3d::query::contact(&p.parry_pa, &*p.parry_a, &p.parry_pb, &*p.parry_b, 0.0)
                .expect("parry supports every convex pair")
                .map(|c| -c.dist)
        })
        .collect()
}

fn parry_dispatch_2d(pairs: &[Pair2]) -> Depths {
    pairs
        .iter()
        .map(|p| {
            parry2d::query::contact(&p.parry_pa, &*p.parry_a, &p.parry_pb, &*p.parry_b, 0.0)
                .expect("parry supports every convex pair")
                .map(|c| -c.dist)
        })
        .collect()
}

// In the timed loops the per-pair results go through `black_box` one by one
// instead of being collected, so no allocation is timed.

fn time_tumble_3d(pairs: &[Pair3]) {
    for p in pairs {
        black_box(tumble::d3::contact(
            black_box(&p.a),
            black_box(&p.pa),
            black_box(&p.b),
            black_box(&p.pb),
        ));
    }
}

fn time_tumble_2d(pairs: &[Pair2]) {
    for p in pairs {
        black_box(tumble::d2::contact(
            black_box(&p.a),
            black_box(&p.pa),
            black_box(&p.b),
            black_box(&p.pb),
        ));
    }
}

fn time_parry_gjk_3d(
    pairs: &[Pair3],
    maps: &[(
        &dyn parry3d::shape::SupportMap,
        &dyn parry3d::shape::SupportMap,
    )],
) {
    for (p, (a, b)) in pairs.iter().zip(maps) {
        let pos12 = black_box(&p.parry_pa).inv_mul(black_box(&p.parry_pb));
        black_box(parry3d::query::details::contact_support_map_support_map(
            &pos12,
            black_box(*a),
            black_box(*b),
            0.0,
        ));
    }
}

fn time_parry_gjk_2d(
    pairs: &[Pair2],
    maps: &[(
        &dyn parry2d::shape::SupportMap,
        &dyn parry2d::shape::SupportMap,
    )],
) {
    for (p, (a, b)) in pairs.iter().zip(maps) {
        let pos12 = black_box(&p.parry_pa).inv_mul(black_box(&p.parry_pb));
        black_box(parry2d::query::details::contact_support_map_support_map(
            &pos12,
            black_box(*a),
            black_box(*b),
            0.0,
        ));
    }
}

fn time_parry_dispatch_3d(pairs: &[Pair3]) {
    for p in pairs {
        let _ = black_box(parry3d::query::contact(
            black_box(&p.parry_pa),
            black_box(&*p.parry_a),
            black_box(&p.parry_pb),
            black_box(&*p.parry_b),
            0.0,
        ));
    }
}

fn time_parry_dispatch_2d(pairs: &[Pair2]) {
    for p in pairs {
        let _ = black_box(parry2d::query::contact(
            black_box(&p.parry_pa),
            black_box(&*p.parry_a),
            black_box(&p.parry_pb),
            black_box(&*p.parry_b),
            0.0,
        ));
    }
}

// ---------------------------------------------------------------------------
// Reporting
// ---------------------------------------------------------------------------

/// Total time and iterations criterion ran one function for.
struct Tally {
    label: String,
    pairs: usize,
    total: Duration,
    iterations: u64,
}

impl Tally {
    fn ns_per_query(&self) -> f64 {
        self.total.as_nanos() as f64 / (self.iterations as f64 * self.pairs as f64)
    }
}

/// Registers `run` (one pass over all pairs) as `name` in `group`, timing
/// with `iter_custom` so the total time can be printed at the end.
fn bench(
    group: &mut BenchmarkGroup<'_, WallTime>,
    tallies: &RefCell<Vec<Tally>>,
    label: String,
    pairs: usize,
    run: impl Fn(),
) {
    let name = label.rsplit('/').next().unwrap_or(&label).to_string();
    let index = {
        let mut t = tallies.borrow_mut();
        t.push(Tally {
            label,
            pairs,
            total: Duration::ZERO,
            iterations: 0,
        });
        t.len() - 1
    };
    group.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                run();
            }
            let elapsed = start.elapsed();
            let mut t = tallies.borrow_mut();
            t[index].total += elapsed;
            t[index].iterations += iters;
            elapsed
        })
    });
}

/// Prints how many of the overlapping pairs each query found in contact and
/// its mean and worst depth error, relative to the larger bounding radius.
fn report_accuracy(dim: &str, label: &str, found: &Depths, expected: &[f32], scale: &[f32]) {
    let mut hits = 0;
    let mut sum = 0.0f64;
    let mut worst = 0.0f64;
    for ((d, e), s) in found.iter().zip(expected).zip(scale) {
        if let Some(d) = d {
            hits += 1;
            let err = f64::from((d - e).abs() / s);
            sum += err;
            worst = worst.max(err);
        }
    }
    let mean = if hits > 0 { sum / hits as f64 } else { 0.0 };
    println!(
        "{dim} {label:<15} contact found on {hits}/{} overlapping pairs; depth error / size: mean {mean:.2e}, max {worst:.2e}",
        found.len()
    );
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    let tallies = RefCell::new(Vec::new());

    // ---- 3D ----
    let (pairs3, skipped3) = build_pairs(&overlapping_cases(DATA_3D), Shapes3, Poses3);
    let maps3: Vec<_> = pairs3
        .iter()
        .map(|p| {
            (
                p.parry_a.as_support_map().expect("support map"),
                p.parry_b.as_support_map().expect("support map"),
            )
        })
        .collect();
    let n3 = pairs3.len();
    println!("contact_3d: {n3} overlapping pairs ({skipped3} skipped)");
    {
        let expected: Vec<f32> = pairs3.iter().map(|p| p.depth).collect();
        let scale: Vec<f32> = pairs3
            .iter()
            .map(|p| p.a.bounding_radius().max(p.b.bounding_radius()))
            .collect();
        report_accuracy("3d", "tumble", &tumble_3d(&pairs3), &expected, &scale);
        report_accuracy(
            "3d",
            "parry_gjk_epa",
            &parry_gjk_3d(&pairs3, &maps3),
            &expected,
            &scale,
        );
        report_accuracy(
            "3d",
            "parry_dispatch",
            &parry_dispatch_3d(&pairs3),
            &expected,
            &scale,
        );
    }
    {
        let mut group = criterion.benchmark_group("contact_3d");
        group.throughput(Throughput::Elements(n3 as u64));
        bench(&mut group, &tallies, "contact_3d/tumble".into(), n3, || {
            time_tumble_3d(&pairs3)
        });
        bench(
            &mut group,
            &tallies,
            "contact_3d/parry_gjk_epa".into(),
            n3,
            || time_parry_gjk_3d(&pairs3, &maps3),
        );
        bench(
            &mut group,
            &tallies,
            "contact_3d/parry_dispatch".into(),
            n3,
            || time_parry_dispatch_3d(&pairs3),
        );
        group.finish();
    }

    // ---- 2D ----
    let (pairs2, skipped2) = build_pairs(&overlapping_cases(DATA_2D), Shapes2, Poses2);
    let maps2: Vec<_> = pairs2
        .iter()
        .map(|p| {
            (
                p.parry_a.as_support_map().expect("support map"),
                p.parry_b.as_support_map().expect("support map"),
            )
        })
        .collect();
    let n2 = pairs2.len();
    println!("contact_2d: {n2} overlapping pairs ({skipped2} skipped)");
    {
        let expected: Vec<f32> = pairs2.iter().map(|p| p.depth).collect();
        let scale: Vec<f32> = pairs2
            .iter()
            .map(|p| p.a.bounding_radius().max(p.b.bounding_radius()))
            .collect();
        report_accuracy("2d", "tumble", &tumble_2d(&pairs2), &expected, &scale);
        report_accuracy(
            "2d",
            "parry_gjk_epa",
            &parry_gjk_2d(&pairs2, &maps2),
            &expected,
            &scale,
        );
        report_accuracy(
            "2d",
            "parry_dispatch",
            &parry_dispatch_2d(&pairs2),
            &expected,
            &scale,
        );
    }
    {
        let mut group = criterion.benchmark_group("contact_2d");
        group.throughput(Throughput::Elements(n2 as u64));
        bench(&mut group, &tallies, "contact_2d/tumble".into(), n2, || {
            time_tumble_2d(&pairs2)
        });
        bench(
            &mut group,
            &tallies,
            "contact_2d/parry_gjk_epa".into(),
            n2,
            || time_parry_gjk_2d(&pairs2, &maps2),
        );
        bench(
            &mut group,
            &tallies,
            "contact_2d/parry_dispatch".into(),
            n2,
            || time_parry_dispatch_2d(&pairs2),
        );
        group.finish();
    }

    criterion.final_summary();

    println!("\nns per contact query (total time over all of criterion's runs / queries):");
    for t in tallies.borrow().iter().filter(|t| t.iterations > 0) {
        println!(
            "  {:<28} {:>9.1} ns  ({} pairs x {} passes)",
            t.label,
            t.ns_per_query(),
            t.pairs,
            t.iterations
        );
    }
}
