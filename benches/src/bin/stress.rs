//! The stress CLI: steps a reference scene and prints the time per step and
//! how well the stacks stand.
//!
//! `cargo run --release -p benches --bin stress -- --scene NAME --steps N --threads T`
//! (`--list` names the scenes). The scenes run with sleeping off, so every
//! body is stepped every step.
//!
//! `--base N` resizes the pyramid and tower scenes (pyramid base, tower
//! height), for scaling runs.
//!
//! `--sleep` turns sleeping on in every tumble scene (for the islands'
//! figures: a large pyramid settling with sleeping on keeps merging,
//! splitting and putting islands to sleep).
//!
//! `--calibrate` also measures, before and after the run, how well the
//! machine itself runs two threads at once (`benches::machine`): on a
//! shared machine that ceiling moves from minute to minute, and no
//! engine's two-thread speed-up can pass it.
//!
//! `--scene` takes a comma-separated list too (`--scene
//! terrain_stress_3d,flat_ground_stress_3d`): each scene gets its own copies,
//! stepped in the same turns, and the CLI prints each later scene's median
//! and p95 over the first's, so a shared machine's slow minutes fall on
//! both scenes of a ratio alike.
//!
//! `--threads` and `--engine` take comma-separated lists (`--threads 1,2`,
//! `--engine tumble,rapier`): each combination gets its own copy of the
//! scene and its own thread pool, and the copies are stepped in turns of
//! [`TURN`] steps, so a machine that slows down for a while slows every
//! copy alike; the CLI then prints each copy's figures and their ratios.
//! Each tumble copy also prints a pose hash (FNV-1a over the bits of every
//! body's pose), and with several thread counts the CLI says whether they
//! are identical, as they should be: `--threads 1,2,4` checks determinism.
//!
//! `--engine rapier` steps a rapier world mirroring the same tumble scene body
//! for body (see `benches::rapier_mirror`): same bodies, shapes, density,
//! friction, collision filters, revolute joints, gravity and dt 1/60,
//! sleeping off, rapier's defaults otherwise. For a world with joints each
//! engine also prints how far apart its joints' two anchors are.
//! Rapier runs single-threaded unless the CLI is built with
//! `--features rapier-parallel`, which turns on rapier's rayon-parallel step;
//! it then runs in the same `--threads` pool as tumble.

use std::time::Instant;

use benches::{machine, rapier_mirror};
use tumble::{Vector, D2, D3};
use tumble_scenes::{find, Build, Scene, SCENES};

#[derive(Copy, Clone, PartialEq)]
enum Engine {
    Tumble,
    Rapier,
}

struct Options {
    scenes: Vec<String>,
    steps: usize,
    threads: Vec<usize>,
    engines: Vec<Engine>,
    base: Option<usize>,
    calibrate: bool,
    sleep: bool,
}

/// The comma-separated items of `text`, each parsed by `item`.
fn list<T>(text: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    text.split(',').map(|part| item(part.trim())).collect()
}

fn engine_named(name: &str) -> Result<Engine, String> {
    match name {
        "tumble" => Ok(Engine::Tumble),
        "rapier" => Ok(Engine::Rapier),
        other => Err(format!("--engine: tumble or rapier, not {other}")),
    }
}

fn thread_count(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("--threads: not a positive number: {text}")),
    }
}

fn parse() -> Result<Options, String> {
    let mut options = Options {
        scenes: vec!["large_pyramid_2d".into()],
        steps: 500,
        threads: vec![1],
        engines: vec![Engine::Tumble],
        base: None,
        calibrate: false,
        sleep: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--scene" => options.scenes = list(&value("--scene")?, |s| Ok(s.to_string()))?,
            "--steps" => {
                options.steps = value("--steps")?
                    .parse()
                    .map_err(|_| "--steps: not a number")?
            }
            "--threads" => options.threads = list(&value("--threads")?, thread_count)?,
            "--engine" => options.engines = list(&value("--engine")?, engine_named)?,
            "--base" => {
                options.base = Some(
                    value("--base")?
                        .parse()
                        .map_err(|_| "--base: not a number")?,
                )
            }
            "--calibrate" => options.calibrate = true,
            "--sleep" => options.sleep = true,
            "--list" => {
                for s in SCENES {
                    println!("{:18} {}", s.name, s.about);
                }
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

/// Stability after the run: largest sideways drift, largest sink, and how
/// many bodies moved more than 1 m (metres, counts).
struct Stability {
    drift: f32,
    sink: f32,
    moved: usize,
}

impl Stability {
    /// The figures between two sets of positions `[x, y, z]`, Y up.
    fn between(start: &[[f32; 3]], end: &[[f32; 3]]) -> Self {
        let mut stability = Stability {
            drift: 0.0,
            sink: 0.0,
            moved: 0,
        };
        for (p0, p1) in start.iter().zip(end) {
            let [dx, dy, dz] = [p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]];
            stability.drift = stability.drift.max((dx * dx + dz * dz).sqrt());
            stability.sink = stability.sink.max(-dy);
            stability.moved += usize::from((dx * dx + dy * dy + dz * dz).sqrt() > 1.0);
        }
        stability
    }
}

/// A world the CLI steps: a tumble scene or its rapier mirror.
trait Stepper {
    /// One step of 1/60 s.
    fn step(&mut self);
    /// Positions of the measured bodies, `[x, y, z]` (z = 0 in 2D).
    fn positions(&self) -> Vec<[f32; 3]>;
    /// The last step's time per stage, ms (tumble only): broad phase,
    /// narrow phase, solver, islands.
    fn stages(&self) -> Option<[f64; 4]> {
        None
    }
    /// FNV-1a over the bits of every body's position and rotation, in the
    /// world's body order (tumble only: its results do not depend on the
    /// thread count, so neither does this).
    fn pose_hash(&self) -> Option<u64> {
        None
    }
    /// The largest and the mean distance between each joint's two world
    /// anchors, metres; `None` without joints.
    fn joint_gaps(&self) -> Option<[f32; 2]> {
        None
    }
}

/// [`Stepper::joint_gaps`] of a tumble world.
fn tumble_joint_gaps<D: tumble::Dim>(world: &tumble::World<D>) -> Option<[f32; 2]> {
    let gaps: Vec<f32> = world
        .joints()
        .filter_map(|(h, _)| world.joint_anchors(h))
        .map(|[a, b]| (b - a).length())
        .collect();
    rapier_mirror::gaps(&gaps)
}

/// FNV-1a continued from `hash` over the bits of `values`.
fn fnv1a(hash: u64, values: &[f32]) -> u64 {
    let bytes = values.iter().flat_map(|v| v.to_bits().to_le_bytes());
    bytes.fold(hash, |h, byte| {
        (h ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3)
    })
}

/// FNV-1a's starting value.
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// The stage times of a tumble world's last step, ms.
fn stages_of(profile: &tumble::StepProfile) -> [f64; 4] {
    [
        profile.broad_phase,
        profile.narrow_phase,
        profile.solver,
        profile.islands,
    ]
}

impl Stepper for Scene<D2> {
    fn step(&mut self) {
        self.world.step(DT);
    }

    fn joint_gaps(&self) -> Option<[f32; 2]> {
        tumble_joint_gaps(&self.world)
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        let at = |&h| self.world.body(h).expect("live").position();
        self.bodies
            .iter()
            .map(at)
            .map(|p| [p.x, p.y, 0.0])
            .collect()
    }

    fn stages(&self) -> Option<[f64; 4]> {
        Some(stages_of(self.world.profile()))
    }

    fn pose_hash(&self) -> Option<u64> {
        let hash = self.world.bodies().fold(FNV_OFFSET, |hash, (_, body)| {
            let pose = body.pose();
            let (p, r) = (pose.translation, pose.rotation);
            fnv1a(hash, &[p.x, p.y, r.cos, r.sin])
        });
        Some(hash)
    }
}

impl Stepper for Scene<D3> {
    fn step(&mut self) {
        self.world.step(DT);
    }

    fn joint_gaps(&self) -> Option<[f32; 2]> {
        tumble_joint_gaps(&self.world)
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        let at = |&h| self.world.body(h).expect("live").position();
        self.bodies.iter().map(at).map(|p| p.to_array()).collect()
    }

    fn stages(&self) -> Option<[f64; 4]> {
        Some(stages_of(self.world.profile()))
    }

    fn pose_hash(&self) -> Option<u64> {
        let hash = self.world.bodies().fold(FNV_OFFSET, |hash, (_, body)| {
            let pose = body.pose();
            let (p, q) = (pose.translation, pose.rotation);
            fnv1a(hash, &[p.x, p.y, p.z, q.x, q.y, q.z, q.w])
        });
        Some(hash)
    }
}

impl Stepper for rapier_mirror::d2::World {
    fn step(&mut self) {
        rapier_mirror::d2::World::step(self);
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        rapier_mirror::d2::World::positions(self)
    }

    fn joint_gaps(&self) -> Option<[f32; 2]> {
        rapier_mirror::d2::World::joint_gaps(self)
    }
}

impl Stepper for rapier_mirror::d3::World {
    fn step(&mut self) {
        rapier_mirror::d3::World::step(self);
    }

    fn positions(&self) -> Vec<[f32; 3]> {
        rapier_mirror::d3::World::positions(self)
    }

    fn joint_gaps(&self) -> Option<[f32; 2]> {
        rapier_mirror::d3::World::joint_gaps(self)
    }
}

/// The time step of every run.
const DT: f32 = 1.0 / 60.0;

/// Steps per turn when several copies of a scene take turns.
const TURN: usize = 20;

/// One copy of the scene: an engine at a thread count, with its own pool.
struct Contender {
    /// The scene's name as reported (with `--base` if resized).
    scene: String,
    engine: Engine,
    threads: usize,
    pool: rayon::ThreadPool,
    world: Box<dyn Stepper + Send>,
    start: Vec<[f32; 3]>,
    /// Each step's time, ms.
    times: Vec<f64>,
    /// Summed time per stage, ms (tumble only).
    stages: Option<[f64; 4]>,
}

impl Contender {
    fn new(scene: String, engine: Engine, threads: usize, world: Box<dyn Stepper + Send>) -> Self {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        let start = world.positions();
        Self {
            scene,
            engine,
            threads,
            pool,
            world,
            start,
            times: Vec::new(),
            stages: None,
        }
    }

    /// Steps `steps` times in the contender's pool, timing each step.
    fn run(&mut self, steps: usize) {
        let Self {
            pool,
            world,
            times,
            stages,
            ..
        } = self;
        pool.install(|| {
            for _ in 0..steps {
                let t = Instant::now();
                world.step();
                times.push(t.elapsed().as_secs_f64() * 1e3);
                if let Some(step) = world.stages() {
                    let sum = stages.get_or_insert([0.0; 4]);
                    sum.iter_mut().zip(step).for_each(|(s, t)| *s += t);
                }
            }
        });
    }

    /// The step times, ms, shortest first.
    fn sorted_times(&self) -> Vec<f64> {
        let mut sorted = self.times.clone();
        sorted.sort_by(f64::total_cmp);
        sorted
    }

    /// The index (from 0) of the slowest step.
    fn worst_step(&self) -> usize {
        (0..self.times.len())
            .max_by(|&i, &j| self.times[i].total_cmp(&self.times[j]))
            .unwrap_or(0)
    }

    /// The median step time, ms.
    fn median(&self) -> f64 {
        percentile(&self.sorted_times(), 0.5)
    }

    fn engine_name(&self) -> &'static str {
        match self.engine {
            Engine::Tumble => "tumble",
            Engine::Rapier if cfg!(feature = "rapier-parallel") => "rapier (parallel build)",
            Engine::Rapier => "rapier",
        }
    }

    /// Prints the median, p95 and worst step time, the stability figures and the
    /// mean time per stage.
    fn report(&self) {
        let scene = &self.scene;
        let sorted = self.sorted_times();
        let end = self.world.positions();
        println!(
            "engine {} scene {scene} bodies {} steps {} threads {}: median {:.3} ms/step, p95 {:.3} ms/step, worst {:.3} ms/step (step {})",
            self.engine_name(),
            end.len(),
            self.times.len(),
            self.threads,
            percentile(&sorted, 0.5),
            percentile(&sorted, 0.95),
            sorted.last().copied().unwrap_or(0.0),
            self.worst_step()
        );
        let stability = Stability::between(&self.start, &end);
        println!(
            "stability: largest sideways drift {:.4} m, largest sink {:.4} m, moved more than 1 m: {}",
            stability.drift, stability.sink, stability.moved
        );
        let lost = end.iter().flatten().filter(|v| !v.is_finite()).count();
        if lost > 0 {
            println!("NON-FINITE: {lost} position coordinates are NaN or infinite");
        }
        if let Some([largest, mean]) = self.world.joint_gaps() {
            println!("joints: anchors apart by at most {largest:.2e} m, {mean:.2e} m on average");
        }
        if let Some(hash) = self.world.pose_hash() {
            println!("pose hash after {} steps: {hash:016x}", self.times.len());
        }
        if let Some(sum) = self.stages {
            let [broad, narrow, solver, islands] = sum.map(|s| s / self.times.len().max(1) as f64);
            println!(
                "stages (mean ms/step): broad phase {broad:.3}, narrow phase {narrow:.3}, \
                 solver {solver:.3}, islands and events {islands:.3}"
            );
        }
    }
}

/// A scene builder: a listed scene's, or one resized by `--base`.
enum Builder {
    D2(Box<dyn Fn() -> Scene<D2> + Send + Sync>),
    D3(Box<dyn Fn() -> Scene<D3> + Send + Sync>),
}

/// The builder of scene `name` resized to `n` (pyramid base or tower height).
fn resize(name: &str, n: usize) -> Option<Builder> {
    use tumble_scenes as scenes;
    Some(match name {
        "pyramid_2d" | "large_pyramid_2d" => Builder::D2(Box::new(move || scenes::pyramid_2d(n))),
        "large_pyramid_3d" => Builder::D3(Box::new(move || scenes::pyramid_3d(n))),
        "square_pyramid_3d" => Builder::D3(Box::new(move || scenes::square_pyramid_3d(n))),
        "tower_2d" => Builder::D2(Box::new(move || scenes::tower_2d(n))),
        "tower_3d" => Builder::D3(Box::new(move || scenes::tower_3d(n))),
        _ => return None,
    })
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// `build` with sleeping turned on in the world it makes.
fn sleeping(build: Builder) -> Builder {
    match build {
        Builder::D2(f) => Builder::D2(Box::new(move || {
            let mut scene = f();
            scene.world.settings_mut().sleep = true;
            scene
        })),
        Builder::D3(f) => Builder::D3(Box::new(move || {
            let mut scene = f();
            scene.world.settings_mut().sleep = true;
            scene
        })),
    }
}

/// The world `engine` steps for the scene `build` makes.
fn world_for(
    build: &Builder,
    engine: Engine,
) -> Result<Box<dyn Stepper + Send>, rapier_mirror::Unsupported> {
    Ok(match (build, engine) {
        (Builder::D2(build), Engine::Tumble) => Box::new(build()),
        (Builder::D3(build), Engine::Tumble) => Box::new(build()),
        (Builder::D2(build), Engine::Rapier) => {
            Box::new(rapier_mirror::d2::World::mirror(&build(), DT)?)
        }
        (Builder::D3(build), Engine::Rapier) => {
            Box::new(rapier_mirror::d3::World::mirror(&build(), DT)?)
        }
    })
}

/// Steps every contender `steps` times, in turns of [`TURN`] steps.
fn take_turns(contenders: &mut [Contender], steps: usize) {
    let turn = if contenders.len() > 1 { TURN } else { steps };
    let mut done = 0;
    while done < steps {
        let n = turn.min(steps - done);
        contenders.iter_mut().for_each(|c| c.run(n));
        done += n;
    }
}

/// The ratios between contenders: each thread count's speed-up over the
/// first one of the same engine, and tumble's time over rapier's at the
/// same thread count.
fn report_ratios(contenders: &[Contender]) {
    let first_scene = contenders.first().map(|c| c.scene.clone());
    for c in contenders {
        let base = contenders
            .iter()
            .find(|b| b.engine == c.engine && b.scene == c.scene);
        if let Some(first) = first_scene.as_ref().filter(|f| **f != c.scene) {
            let other = contenders
                .iter()
                .find(|b| b.scene == *first && b.engine == c.engine && b.threads == c.threads);
            if let Some(other) = other {
                let p95 = |c: &Contender| percentile(&c.sorted_times(), 0.95);
                println!(
                    "{} {} threads, {} over {}: median {:.2}x, p95 {:.2}x",
                    c.engine_name(),
                    c.threads,
                    first,
                    c.scene,
                    other.median() / c.median(),
                    p95(other) / p95(c)
                );
            }
        }
        if let Some(base) = base.filter(|b| b.threads != c.threads) {
            println!(
                "speed-up {} {} threads over {}: {:.2}x",
                c.engine_name(),
                c.threads,
                base.threads,
                base.median() / c.median()
            );
        }
    }
    let tumble: Vec<&Contender> = contenders
        .iter()
        .filter(|c| c.engine == Engine::Tumble && Some(&c.scene) == first_scene.as_ref())
        .collect();
    if let [first, others @ ..] = &tumble[..] {
        if !others.is_empty() {
            let hash = first.world.pose_hash();
            let same = others.iter().all(|c| c.world.pose_hash() == hash);
            let threads: Vec<String> = tumble.iter().map(|c| c.threads.to_string()).collect();
            println!(
                "tumble pose hashes at {} threads: {}",
                threads.join(", "),
                if same { "identical" } else { "DIFFERENT" }
            );
        }
    }
    for t in contenders.iter().filter(|c| c.engine == Engine::Tumble) {
        let rapier = contenders
            .iter()
            .find(|r| r.engine == Engine::Rapier && r.threads == t.threads && r.scene == t.scene);
        if let Some(r) = rapier {
            println!(
                "tumble/rapier at {} threads: {:.2}",
                t.threads,
                t.median() / r.median()
            );
        }
    }
}

fn main() {
    let options = parse().unwrap_or_else(|e| {
        eprintln!("stress: {e}");
        std::process::exit(2);
    });
    let parallel_rapier =
        options.engines.contains(&Engine::Rapier) && options.threads.iter().any(|&t| t > 1);
    if parallel_rapier && !cfg!(feature = "rapier-parallel") {
        eprintln!(
            "stress: rapier is single-threaded in this build; \
             build with --features rapier-parallel for --threads > 1"
        );
        std::process::exit(2);
    }
    let mut contenders = Vec::new();
    for name in &options.scenes {
        let Some(entry) = find(name) else {
            eprintln!("stress: no scene {name} (try --list)");
            std::process::exit(2);
        };
        let build = match options.base {
            None => match entry.build {
                Build::D2(f) => Builder::D2(Box::new(f)),
                Build::D3(f) => Builder::D3(Box::new(f)),
            },
            Some(base) => resize(entry.name, base).unwrap_or_else(|| {
                eprintln!("stress: --base applies to the pyramid and tower scenes only");
                std::process::exit(2);
            }),
        };
        let build = if options.sleep {
            sleeping(build)
        } else {
            build
        };
        let mut scene = match options.base {
            Some(base) => format!("{} --base {base}", entry.name),
            None => entry.name.to_string(),
        };
        if options.sleep {
            scene.push_str(" --sleep");
        }
        for &engine in &options.engines {
            for &threads in &options.threads {
                let world = world_for(&build, engine).unwrap_or_else(|e| {
                    eprintln!("stress: {e}");
                    std::process::exit(2);
                });
                contenders.push(Contender::new(scene.clone(), engine, threads, world));
            }
        }
    }
    let before = options.calibrate.then(machine::two_thread_scaling);
    take_turns(&mut contenders, options.steps);
    let after = options.calibrate.then(machine::two_thread_scaling);
    contenders.iter().for_each(Contender::report);
    report_ratios(&contenders);
    for (when, scaling) in [("before", before), ("after", after)] {
        if let Some(s) = scaling {
            println!(
                "machine {when} the run: two threads at once did {:.2}x the work of one \
                 in compute, {:.2}x in memory reads",
                s.compute, s.memory
            );
        }
    }
}
