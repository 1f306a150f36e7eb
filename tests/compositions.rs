//! Composed scenes a game builds in its first hour, with default settings
//! at 60 Hz: walls of flush cubes, in 2D and 3D. Each test asserts the
//! figures a player would notice; the figures are printed (`--nocapture`).

mod common;

use common::*;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, Settings, World, D2, D3};

const DT: f32 = 1.0 / 60.0;

/// A wall's cubes: 0.5 m, 500 kg/m³ (62.5 kg in 3D), as a destruction
/// sandbox builds them.
const CUBE_HALF: f32 = 0.25;
const CUBE_DENSITY: f32 = 500.0;

/// A wall `columns` wide (x), `rows` high and `layers` thick (z, 3D only)
/// of flush cubes standing on a fixed ground box, every face exactly
/// against its neighbours'.
fn build_wall<D: Scene>(
    world: &mut World<D>,
    [columns, rows, layers]: [usize; 3],
    friction: f32,
) -> Vec<BodyHandle> {
    world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, -0.5)),
            ColliderDesc::new(D::cuboid(50.0, 0.5)).friction(friction),
        )
        .unwrap();
    let side = 2.0 * CUBE_HALF;
    let mut cubes = Vec::new();
    for row in 0..rows {
        for layer in 0..layers {
            for column in 0..columns {
                let at = D::xyz(
                    (column as f32 - columns as f32 / 2.0) * side,
                    CUBE_HALF + row as f32 * side,
                    layer as f32 * side,
                );
                let collider = ColliderDesc::new(D::cube(CUBE_HALF))
                    .density(CUBE_DENSITY)
                    .friction(friction);
                cubes.push(
                    world
                        .add_body(BodyDesc::dynamic().position(at), collider)
                        .unwrap(),
                );
            }
        }
    }
    cubes
}

/// What a wall did over `seconds`: the largest sideways move and turn of
/// any cube, and when every cube was first asleep at once.
struct WallRun {
    sideways: f32,
    turn: f32,
    asleep_at: Option<f32>,
}

fn run_wall<D: Scene>(size: [usize; 3], friction: f32, seconds: f32) -> WallRun {
    let mut world = World::<D>::new(Settings::default());
    let cubes = build_wall(&mut world, size, friction);
    let start = positions(&world, &cubes);
    let turns: Vec<D::Orientation> = cubes
        .iter()
        .map(|&c| world.body(c).unwrap().rotation())
        .collect();
    let mut run = WallRun {
        sideways: 0.0,
        turn: 0.0,
        asleep_at: None,
    };
    let steps = (seconds / DT).round() as usize;
    for step in 1..=steps {
        world.step(DT);
        for ((&c, &p0), &q0) in cubes.iter().zip(&start).zip(&turns) {
            let body = world.body(c).unwrap();
            let moved = body.position() - p0;
            // Sideways: across the vertical, in the wall's plane or out of it.
            let sideways = D::len(moved - D::v(0.0, D::height(moved)));
            run.sideways = run.sideways.max(sideways);
            run.turn = run.turn.max(D::turned(body, q0));
        }
        if run.asleep_at.is_none() && cubes.iter().all(|&c| world.body(c).unwrap().is_sleeping()) {
            run.asleep_at = Some(step as f32 * DT);
        }
    }
    run
}

/// The bar for a flush wall: no cube moves more than 1 cm sideways or turns
/// more than 0.02 rad in 30 s, and the wall is asleep within 3 s.
fn assert_wall_stands<D: Scene>(size: [usize; 3], friction: f32) {
    let run = run_wall::<D>(size, friction, 30.0);
    println!(
        "{} flush wall {:?}, friction {friction}: largest sideways {:.2e} m, turn {:.2e} rad, asleep at {:?} s",
        D::NAME,
        size,
        run.sideways,
        run.turn,
        run.asleep_at
    );
    assert!(
        run.sideways <= 0.01,
        "a cube moved {} m sideways",
        run.sideways
    );
    assert!(run.turn <= 0.02, "a cube turned {} rad", run.turn);
    let asleep = run.asleep_at.expect("the wall never slept");
    assert!(asleep <= 3.0, "asleep only at {asleep} s");
}

#[test]
fn a_flush_wall_of_cubes_stands_and_sleeps() {
    for friction in [0.2, 0.6, 1.0] {
        assert_wall_stands::<D3>([10, 20, 1], friction);
        assert_wall_stands::<D2>([20, 20, 1], friction);
    }
}

#[test]
fn wider_and_thicker_flush_walls_stand_and_sleep_3d() {
    for friction in [0.2, 0.6, 1.0] {
        assert_wall_stands::<D3>([10, 20, 2], friction);
        assert_wall_stands::<D3>([20, 20, 1], friction);
        assert_wall_stands::<D3>([20, 20, 2], friction);
    }
}

#[test]
fn a_flush_wall_forty_wide_and_twenty_five_high_stands_and_sleeps_3d() {
    for friction in [0.2, 0.6, 1.0] {
        assert_wall_stands::<D3>([40, 25, 1], friction);
        assert_wall_stands::<D3>([40, 25, 2], friction);
    }
}
