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

/// A player's walk: the README's capped push towards 5 m/s along x, with
/// its rotation locked, for 10 s on the ground `add_ground` builds.
struct Walk {
    /// Largest vertical speed after the first second, m/s.
    vertical_speed: f32,
    /// Mean speed along x after the first second, m/s.
    speed: f32,
    /// Largest distance of a contact normal from straight up.
    tilt: f32,
}

/// Speed the walk pushes towards, m/s, and the most one frame's push may
/// change it by (the README's player).
const WALK_SPEED: f32 = 5.0;
const WALK_PUSH: f32 = 0.5;

fn walk<D: Scene>(player: tumble::shape::Shape<D>, add_ground: impl FnOnce(&mut World<D>)) -> Walk {
    let mut world = World::<D>::new(Settings::default());
    add_ground(&mut world);
    let player = world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(-8.0, 0.8))
                .fixed_rotation(),
            ColliderDesc::new(player).density(100.0).friction(0.6),
        )
        .unwrap();
    let mut run = Walk {
        vertical_speed: 0.0,
        speed: 0.0,
        tilt: 0.0,
    };
    let (frames, settle) = (600, 60);
    for frame in 0..frames {
        let mut body = world.body_mut(player).unwrap();
        let mass = body.mass();
        let along = D::dot(body.linear_velocity(), D::v(1.0, 0.0));
        let push = (WALK_SPEED - along).clamp(-WALK_PUSH, WALK_PUSH);
        body.apply_impulse_at_center(D::v(mass * push, 0.0))
            .unwrap();
        world.step(DT);
        if frame < settle {
            continue;
        }
        let body = world.body(player).unwrap();
        let v = body.linear_velocity();
        run.vertical_speed = run.vertical_speed.max(D::height(v).abs());
        run.speed += D::dot(v, D::v(1.0, 0.0)) / (frames - settle) as f32;
        for pair in world.contact_pairs() {
            if pair.body_a != player && pair.body_b != player {
                continue;
            }
            for m in pair.manifolds().filter(|m| !m.points().is_empty()) {
                let up = D::v(0.0, 1.0);
                let tilt = D::len(m.normal - up).min(D::len(m.normal + up));
                run.tilt = run.tilt.max(tilt);
            }
        }
    }
    run
}

/// 100 unit boxes laid flush along x, each its own fixed body, tops at 0.
fn flush_tiles<D: Scene>(world: &mut World<D>) {
    for i in 0..100 {
        world
            .add_body(
                BodyDesc::fixed().position(D::v(i as f32 - 10.0, -0.5)),
                ColliderDesc::new(D::cube(0.5)).friction(0.6),
            )
            .unwrap();
    }
}

/// One box as long as the tiles together.
fn one_long_box<D: Scene>(world: &mut World<D>) {
    world
        .add_body(
            BodyDesc::fixed().position(D::v(39.5, -0.5)),
            ColliderDesc::new(D::cuboid_xyz(50.0, 0.5, 0.5)).friction(0.6),
        )
        .unwrap();
}

fn players<D: Scene>() -> [(&'static str, tumble::shape::Shape<D>); 3] {
    [
        (
            "capsule",
            tumble::shape::Shape::capsule(0.45, 0.35).unwrap(),
        ),
        ("ball", tumble::shape::Shape::ball(0.4).unwrap()),
        ("box", D::cube(0.4)),
    ]
}

/// The bar for a walk over separate flush colliders: no vertical speed
/// above 1 cm/s, the speed of the walk on one long box within 1%, and
/// every contact normal within 1e-3 of straight up.
fn assert_walks_as_on_one_box<D: Scene>(ground: &str, add_ground: impl Fn(&mut World<D>)) {
    for ((name, player), (_, same)) in players::<D>().into_iter().zip(players::<D>()) {
        let tiles = walk(player, &add_ground);
        let reference = walk(same, one_long_box);
        println!(
            "{} {name} over {ground}: vertical speed {:.2e} m/s, speed {:.4} m/s (one box {:.4}), normal off up by {:.2e}",
            D::NAME,
            tiles.vertical_speed,
            tiles.speed,
            reference.speed,
            tiles.tilt
        );
        assert!(
            tiles.vertical_speed <= 1e-2,
            "{name}: {}",
            tiles.vertical_speed
        );
        assert!(
            (tiles.speed - reference.speed).abs() <= 0.01 * reference.speed,
            "{name}: {} against {}",
            tiles.speed,
            reference.speed
        );
        assert!(tiles.tilt <= 1e-3, "{name}: {}", tiles.tilt);
    }
}

#[test]
fn a_player_walks_over_flush_tiles_as_over_one_box() {
    assert_walks_as_on_one_box::<D2>("100 flush boxes", flush_tiles);
    assert_walks_as_on_one_box::<D3>("100 flush boxes", flush_tiles);
}

#[test]
fn a_player_walks_over_a_mesh_of_tiles_as_over_one_box_3d() {
    assert_walks_as_on_one_box::<D3>("a mesh of 0.5 m tiles", |world| {
        world
            .add_body(
                BodyDesc::fixed().position(tumble::glam::Vec3::new(39.5, 0.0, 0.0)),
                ColliderDesc::new(grid_mesh(200, 4, 0.5, true)).friction(0.6),
            )
            .unwrap();
    });
}

/// 100 one-segment chains 1 m long laid end to end along x, each its own
/// fixed body, their fronts up.
fn flush_chains(world: &mut World<D2>) {
    use tumble::glam::Vec2;
    for i in 0..100 {
        let x = i as f32 - 10.5;
        let segment = [Vec2::new(x, 0.0), Vec2::new(x + 1.0, 0.0)];
        let chain =
            tumble::d2::Shape::one_sided_chain(&segment, tumble::d2::ChainFront::Left).unwrap();
        world
            .add_body(BodyDesc::fixed(), ColliderDesc::new(chain).friction(0.6))
            .unwrap();
    }
}

/// A chain's free end is a corner to whatever slides onto or off it; the
/// seams between chains are smoothed as between boxes (`world::seams`;
/// unsmoothed, the capsule was kicked up at 1.3 m/s at the first seam:
/// issue 34, item 5).
#[test]
fn a_player_walks_over_flush_one_segment_chains_as_over_one_box_2d() {
    assert_walks_as_on_one_box::<D2>("100 one-segment chains", flush_chains);
}

/// 100 unit tiles laid flush as in [`flush_chains`], every other one a
/// fixed box instead of a chain.
fn flush_chains_and_boxes(world: &mut World<D2>) {
    use tumble::glam::Vec2;
    for i in 0..100u32 {
        let x = i as f32 - 10.5;
        let collider = if i.is_multiple_of(2) {
            let segment = [Vec2::new(x, 0.0), Vec2::new(x + 1.0, 0.0)];
            let front = tumble::d2::ChainFront::Left;
            ColliderDesc::new(tumble::d2::Shape::one_sided_chain(&segment, front).unwrap())
        } else {
            ColliderDesc::new(D2::cube(0.5))
        };
        let at = if i.is_multiple_of(2) {
            D2::v(0.0, 0.0)
        } else {
            D2::v(x + 0.5, -0.5)
        };
        world
            .add_body(BodyDesc::fixed().position(at), collider.friction(0.6))
            .unwrap();
    }
}

#[test]
fn a_player_walks_over_flush_chains_and_boxes_by_turns_as_over_one_box_2d() {
    assert_walks_as_on_one_box::<D2>("chains and boxes by turns", flush_chains_and_boxes);
}
