//! Tumble demos. For now the headless runner: it steps a scene and prints one
//! line per simulated second (time, bodies, contact pairs, ms per step,
//! kinetic energy) and a summary.
//!
//! Usage: `demos [--scene NAME] [--seconds S] [--list]`

use std::time::Instant;

use tumble::d3::{BodyDesc, ColliderDesc, Shape, World};
use tumble::glam::Vec3;
use tumble::Settings;

const DT: f32 = 1.0 / 60.0;

/// The scenes the runner knows, with a builder each.
/// Builds a scene's world.
type SceneBuilder = fn() -> World;

const SCENES: &[(&str, SceneBuilder)] = &[("falling_boxes", falling_boxes), ("tower", tower)];

fn ground(world: &mut World) {
    let shape = Shape::cuboid(Vec3::new(50.0, 0.5, 50.0)).expect("valid ground");
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(shape),
        )
        .expect("valid ground");
}

/// 3D: 216 unit cubes dropped in a loose 6 x 6 x 6 grid onto the ground.
fn falling_boxes() -> World {
    let mut world = World::new(Settings::default());
    ground(&mut world);
    let cube = Shape::cuboid(Vec3::splat(0.5)).expect("valid cube");
    for i in 0..6 {
        for j in 0..6 {
            for k in 0..6 {
                let p = Vec3::new(
                    i as f32 * 1.5 - 3.75,
                    2.0 + j as f32 * 1.5,
                    k as f32 * 1.5 - 3.75,
                );
                world
                    .add_body(
                        BodyDesc::dynamic().position(p),
                        ColliderDesc::new(cube.clone()),
                    )
                    .expect("valid cube");
            }
        }
    }
    world
}

/// 3D: a tower of 10 unit cubes.
fn tower() -> World {
    let mut world = World::new(Settings::default());
    ground(&mut world);
    let cube = Shape::cuboid(Vec3::splat(0.5)).expect("valid cube");
    for i in 0..10 {
        let p = Vec3::new(0.0, 0.5 + i as f32, 0.0);
        world
            .add_body(
                BodyDesc::dynamic().position(p),
                ColliderDesc::new(cube.clone()),
            )
            .expect("valid cube");
    }
    world
}

fn kinetic_energy(world: &World) -> f32 {
    world
        .bodies()
        .map(|(_, b)| 0.5 * b.mass() * b.linear_velocity().length_squared())
        .sum()
}

struct Options {
    scene: String,
    seconds: f32,
    list: bool,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        scene: "falling_boxes".into(),
        seconds: 10.0,
        list: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scene" => options.scene = args.next().ok_or("--scene needs a name")?,
            "--seconds" => {
                let s = args.next().ok_or("--seconds needs a number")?;
                options.seconds = s
                    .parse()
                    .map_err(|_| format!("--seconds: not a number: {s}"))?;
            }
            "--list" => options.list = true,
            "--headless" => {}
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(options)
}

fn main() {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("demos: {e}");
            std::process::exit(2);
        }
    };
    if options.list {
        for (name, _) in SCENES {
            println!("{name}");
        }
        return;
    }
    let Some((_, build)) = SCENES.iter().find(|(name, _)| *name == options.scene) else {
        eprintln!("demos: no scene {} (try --list)", options.scene);
        std::process::exit(2);
    };
    let mut world = build();
    let steps_per_second = (1.0 / DT).round() as usize;
    let total_steps = (options.seconds / DT).round() as usize;
    let mut total_ms = 0.0;
    let mut second_ms = 0.0;
    println!(
        "scene {} (headless), {} bodies, {} s",
        options.scene,
        world.body_count(),
        options.seconds
    );
    for step in 1..=total_steps {
        let start = Instant::now();
        world.step(DT);
        let ms = start.elapsed().as_secs_f64() * 1e3;
        total_ms += ms;
        second_ms += ms;
        if step % steps_per_second == 0 || step == total_steps {
            let points: usize = world
                .contact_pairs()
                .iter()
                .map(|p| p.manifold.points().len())
                .sum();
            println!(
                "t={:5.2}s bodies={} pairs={} points={} ms/step={:.3} kinetic={:.3} J",
                step as f32 * DT,
                world.body_count(),
                world.contact_pairs().len(),
                points,
                second_ms / steps_per_second as f64,
                kinetic_energy(&world)
            );
            second_ms = 0.0;
        }
    }
    println!(
        "done: {total_steps} steps, mean {:.3} ms/step",
        total_ms / total_steps.max(1) as f64
    );
}
