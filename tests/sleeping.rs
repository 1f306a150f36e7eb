//! Sleeping: a pile at rest falls asleep soon after it settles, and wakes
//! when something hits it; islands kept from step to step are split when
//! they rest, step alike on any thread count, and roll back and load bit
//! for bit.

mod common;

use common::add_ground;
use tumble::d3::{BodyDesc, BodyHandle, ColliderDesc, Shape, World};
use tumble::glam::Vec3;
use tumble::Settings;

const DT: f32 = 1.0 / 60.0;

/// Steps `world` until every one of `bodies` sleeps, at most `steps` times,
/// and checks that they all fell asleep within 5 s of settling (the fastest
/// under 0.1 m/s).
fn asleep_within_5_s_of_settling(world: &mut World, bodies: &[BodyHandle], steps: u32) {
    let fastest = |world: &World| {
        bodies
            .iter()
            .map(|&h| world.body(h).unwrap().linear_velocity().length())
            .fold(0.0f32, f32::max)
    };
    let awake = |world: &World| {
        let awake = |&&h: &&BodyHandle| !world.body(h).unwrap().is_sleeping();
        bodies.iter().filter(awake).count()
    };
    let (mut settled, mut asleep) = (None, None);
    for step in 1..=steps {
        world.step(DT);
        let t = step as f32 * DT;
        if settled.is_none() && fastest(world) < 0.1 {
            settled = Some(t);
        }
        if awake(world) == 0 {
            asleep = Some(t);
            break;
        }
    }
    println!("settled at {settled:?} s, all asleep at {asleep:?} s");
    let settled = settled.expect("the bodies settle");
    let asleep = asleep.unwrap_or_else(|| panic!("{} bodies still awake", awake(world)));
    assert!(
        asleep - settled <= 5.0,
        "asleep {asleep} s, settled {settled} s"
    );
}

#[test]
fn a_pile_of_1000_boxes_falls_asleep_and_wakes_when_hit() {
    let mut world = World::new(Settings::default());
    add_ground(&mut world, 0.0);
    let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let mut boxes = Vec::new();
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                let at = Vec3::new(
                    i as f32 * 1.05 - 4.7 + 0.01 * (j % 3) as f32,
                    0.5 + j as f32 * 1.02,
                    k as f32 * 1.05 - 4.7,
                );
                boxes.push(
                    world
                        .add_body(
                            BodyDesc::dynamic().position(at),
                            ColliderDesc::new(cube.clone()),
                        )
                        .unwrap(),
                );
            }
        }
    }
    asleep_within_5_s_of_settling(&mut world, &boxes, 900);
    // A fast ball into the side of the pile wakes it.
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(-12.0, 1.0, 0.3))
                .linear_velocity(Vec3::new(20.0, 0.0, 0.0)),
            ColliderDesc::new(Shape::ball(0.5).unwrap()).density(5.0),
        )
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    let woken = boxes
        .iter()
        .filter(|&&h| !world.body(h).unwrap().is_sleeping())
        .count();
    println!("{woken} boxes woke");
    assert!(woken > 0, "the hit woke nothing");
    assert!(
        world.body(ball).unwrap().linear_velocity().x < 15.0,
        "the ball went through"
    );
}

/// Cubes dropped turned every which way land on edges and corners of the
/// cubes below and come to rest at odd angles, some bridging two or three
/// others; the whole pile still falls asleep soon after it settles. Guards
/// manifold reduction keeping a point level with the deepest first
/// (`reduce_keeps_a_deep_point_over_lifted_ones`): by area alone, a cube
/// tilted on the edge of another keeps two points a centimetre above the
/// face over the corner pressed into it, the corner sinks unseen until a
/// kept point breaks away and it is found deep and pushed out, and the
/// cube rocks for good.
#[test]
fn a_pile_of_turned_cubes_falls_asleep() {
    let mut scene = tumble_scenes::falling_boxes_small_3d();
    scene.world.settings_mut().sleep = true;
    asleep_within_5_s_of_settling(&mut scene.world, &scene.bodies, 1200);
}

/// In the step a sleeping column is woken by a hit, its contacts are solved
/// too, though the narrow phase skips them while both bodies sleep: without
/// them every cube would fall freely for that step, at `g·dt` = 0.16 m/s.
#[test]
fn a_column_woken_by_a_hit_keeps_its_supports_in_the_step_it_wakes() {
    let mut world = World::new(Settings::default());
    add_ground(&mut world, 0.0);
    let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let column: Vec<_> = (0..4)
        .map(|j| {
            world
                .add_body(
                    BodyDesc::dynamic().position(Vec3::new(0.0, 0.5 + j as f32, 0.0)),
                    ColliderDesc::new(cube.clone()),
                )
                .unwrap()
        })
        .collect();
    let asleep = |world: &World| column.iter().all(|&h| world.body(h).unwrap().is_sleeping());
    for _ in 0..600 {
        world.step(DT);
        if asleep(&world) {
            break;
        }
    }
    assert!(asleep(&world), "the column falls asleep");
    world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(-3.0, 3.5, 0.0))
                .linear_velocity(Vec3::new(6.0, 0.0, 0.0))
                .gravity_scale(0.0),
            ColliderDesc::new(Shape::ball(0.25).unwrap()).density(0.2),
        )
        .unwrap();
    let mut woke = false;
    for _ in 0..120 {
        world.step(DT);
        if !asleep(&world) {
            woke = true;
            break;
        }
    }
    assert!(woke, "the ball wakes the column");
    for (j, &h) in column.iter().enumerate() {
        let vy = world.body(h).unwrap().linear_velocity().y;
        assert!(vy > -0.05, "cube {j} falls at {vy} m/s in the step it woke");
    }
}

/// Spin counts as rest while it moves a body's farthest point slower than
/// the linear tolerance (0.05 m/s), even above the angular one (2°/s): a
/// unit cube, corners 0.87 m out, turning at 0.05 rad/s in free space
/// sleeps; at 0.07 rad/s its corners move at 0.06 m/s and it stays awake.
#[test]
fn a_slow_spin_sleeps_by_the_speed_of_the_farthest_point() {
    let spinning = |w: f32| {
        let mut world = World::new(Settings {
            gravity: Vec3::ZERO,
            ..Settings::default()
        });
        let cube = world
            .add_body(
                BodyDesc::dynamic().angular_velocity(Vec3::new(0.0, w, 0.0)),
                ColliderDesc::new(Shape::cuboid(Vec3::splat(0.5)).unwrap()),
            )
            .unwrap();
        for _ in 0..60 {
            world.step(DT);
        }
        world.body(cube).unwrap().is_sleeping()
    };
    assert!(spinning(0.05), "corners at 0.043 m/s: asleep");
    assert!(!spinning(0.07), "corners at 0.061 m/s: awake");
    assert!(spinning(0.03), "under 2°/s: asleep");
}

/// Random 2D piles of boxes and polygons (`tumble_scenes::random_pile_2d`)
/// all fall asleep within 10 s, and no body ever goes faster than its fall
/// from the top of the pile (about 19 m/s). Guards two rules: manifold
/// reduction keeps the points bearing load, else a polygon rocks on a box
/// for good (`reduce_keeps_points_bearing_load_over_a_farther_lifted_one`);
/// and the speculative margin grows with each pair's closing speed, else
/// bodies are knocked off the ground (`fast_box_is_caught_at_the_ground` in
/// `tests/scenarios.rs`).
#[test]
fn random_2d_piles_fall_asleep_with_no_body_flung() {
    let top_of_the_fall = (2.0f32 * 9.81 * 23.0).sqrt();
    for seed in 1..=12 {
        let mut pile = tumble_scenes::random_pile_2d(seed);
        let (mut fastest, mut asleep_at) = (0.0f32, None);
        for step in 1..=600 {
            pile.world.step(DT);
            let bodies = || pile.bodies.iter().map(|&h| pile.world.body(h).unwrap());
            let speed = bodies()
                .map(|b| b.linear_velocity().length())
                .fold(0.0, f32::max);
            fastest = fastest.max(speed);
            if bodies().all(|b| b.is_sleeping()) {
                asleep_at = Some(step as f32 * DT);
                break;
            }
        }
        println!("seed {seed}: asleep at {asleep_at:?} s, fastest {fastest:.1} m/s");
        assert!(asleep_at.is_some(), "seed {seed}: awake after 10 s");
        assert!(fastest < top_of_the_fall, "seed {seed}: {fastest} m/s");
    }
}

/// Removing the middle box of one of five sleeping columns of three ends
/// exactly its two touching pairs (two `Stopped` events, and its pairs are
/// gone after the next step), wakes the boxes above and below it, and
/// leaves the other columns asleep; the top box then falls onto the bottom one.
#[test]
fn removing_a_sleeping_box_ends_its_pairs_and_wakes_only_its_column() {
    let mut world = World::new(Settings::default());
    add_ground(&mut world, 0.0);
    let columns: Vec<Vec<BodyHandle>> = (0..5)
        .map(|c| {
            (0..3)
                .map(|k| {
                    let at = Vec3::new(c as f32 * 3.0, 0.5 + k as f32, 0.0);
                    let cube = ColliderDesc::new(Shape::cuboid(Vec3::splat(0.5)).unwrap());
                    world
                        .add_body(BodyDesc::dynamic().position(at), cube)
                        .unwrap()
                })
                .collect()
        })
        .collect();
    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    let all: Vec<BodyHandle> = columns.iter().flatten().copied().collect();
    assert!(all.iter().all(|&h| world.body(h).unwrap().is_sleeping()));
    let removed = columns[2][1];
    world.remove_body(removed).unwrap();
    let stopped = world
        .contact_events()
        .iter()
        .filter(|e| matches!(e, tumble::d3::ContactEvent::Stopped { body_a, body_b, .. } if *body_a == removed || *body_b == removed))
        .count();
    assert_eq!(
        stopped, 2,
        "the box touched the one below and the one above"
    );
    assert_eq!(world.contact_events().len(), 2);
    for &h in &all {
        let woken = h == columns[2][0] || h == columns[2][2];
        if h != removed {
            assert_eq!(world.body(h).unwrap().is_sleeping(), !woken);
        }
    }
    for _ in 0..120 {
        world.step(1.0 / 60.0);
        assert!(world
            .contact_pairs()
            .iter()
            .all(|p| p.body_a != removed && p.body_b != removed));
    }
    let top = world.body(columns[2][2]).unwrap().position().y;
    assert!(
        (top - 1.5).abs() < 0.01,
        "the top box rests on the bottom one: {top}"
    );
    for (c, column) in columns.iter().enumerate().filter(|(c, _)| *c != 2) {
        assert!(
            column.iter().all(|&h| world.body(h).unwrap().is_sleeping()),
            "column {c} stays asleep"
        );
    }
}

/// 100 sleeping piles of three cubes; a ball dropped on one wakes that
/// pile, whole, in the step the ball strikes it, and no other pile wakes.
/// A sleeping island is kept whole (waking one member wakes it without
/// looking at any other body), so the others cost nothing and stay asleep.
#[test]
fn a_ball_dropped_on_one_of_100_sleeping_piles_wakes_that_pile_only() {
    let mut world = World::new(Settings::default());
    add_ground(&mut world, 0.0);
    let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let piles: Vec<Vec<BodyHandle>> = (0..100)
        .map(|p| {
            let (x, z) = ((p % 10) as f32 * 4.0, (p / 10) as f32 * 4.0);
            (0..3)
                .map(|k| {
                    let at = Vec3::new(x, 0.5 + k as f32, z);
                    let desc = ColliderDesc::new(cube.clone());
                    world
                        .add_body(BodyDesc::dynamic().position(at), desc)
                        .unwrap()
                })
                .collect()
        })
        .collect();
    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    let asleep = |world: &World, pile: &[BodyHandle]| {
        pile.iter().all(|&h| world.body(h).unwrap().is_sleeping())
    };
    assert!(piles.iter().all(|p| asleep(&world, p)), "every pile sleeps");
    let hit = 37;
    let top = world.body(piles[hit][2]).unwrap().position();
    let ball = world
        .add_body(
            BodyDesc::dynamic()
                .position(top + Vec3::new(0.1, 2.0, -0.1))
                .linear_velocity(Vec3::new(0.0, -4.0, 0.0)),
            ColliderDesc::new(Shape::ball(0.3).unwrap()),
        )
        .unwrap();
    let mut struck = None;
    for step in 0..60 {
        world.step(1.0 / 60.0);
        let strikes = world.contact_events().iter().any(|e| {
            matches!(e, tumble::d3::ContactEvent::Started { body_a, body_b, .. }
                if (*body_a == ball || *body_b == ball) && piles[hit].iter().any(|h| h == body_a || h == body_b))
        });
        if strikes && struck.is_none() {
            struck = Some(step);
            assert!(
                piles[hit]
                    .iter()
                    .all(|&h| !world.body(h).unwrap().is_sleeping()),
                "the struck pile wakes whole in the step of the strike"
            );
        }
        for (p, pile) in piles.iter().enumerate().filter(|(p, _)| *p != hit) {
            assert!(asleep(&world, pile), "step {step}: pile {p} woke");
        }
    }
    assert!(struck.is_some(), "the ball struck the pile");
}

/// A box asleep on a fixed platform starts falling in the very step after
/// the platform is moved from under it: woken beside a placed body, it is
/// solved in that step, not the next.
#[test]
fn a_box_asleep_on_a_platform_moved_away_falls_in_the_next_step() {
    let mut world = World::new(Settings::default());
    let platform = world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec3::new(2.0, 0.5, 2.0)).unwrap()),
        )
        .unwrap();
    let cube = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(0.0, 0.5, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec3::splat(0.5)).unwrap()),
        )
        .unwrap();
    for _ in 0..120 {
        world.step(1.0 / 60.0);
    }
    assert!(world.body(cube).unwrap().is_sleeping());
    world
        .body_mut(platform)
        .unwrap()
        .set_position(Vec3::new(10.0, -0.5, 0.0))
        .unwrap();
    world.step(1.0 / 60.0);
    let body = world.body(cube).unwrap();
    assert!(!body.is_sleeping());
    assert!(
        body.linear_velocity().y < -0.1,
        "falling in the step after the move: {}",
        body.linear_velocity().y
    );
}

/// Piles of three cubes, each with a cube on top that never sleeps; a
/// joint ties the first pile's top cube to the second's; after `settle`
/// steps every slider is pushed off its pile. Returns the world, the
/// piles and the sliders.
fn piles_with_sliders(settle: usize) -> (World, Vec<Vec<BodyHandle>>, Vec<BodyHandle>) {
    let mut world = World::new(Settings::default());
    add_ground(&mut world, 0.0);
    let cube = || ColliderDesc::new(Shape::cuboid(Vec3::splat(0.5)).unwrap());
    let mut piles = Vec::new();
    let mut sliders = Vec::new();
    for p in 0..4 {
        let x = p as f32 * 6.0;
        let pile: Vec<BodyHandle> = (0..3)
            .map(|k| {
                let at = Vec3::new(x, 0.5 + k as f32, 0.0);
                world
                    .add_body(BodyDesc::dynamic().position(at), cube())
                    .unwrap()
            })
            .collect();
        let at = Vec3::new(x, 3.5, 0.0);
        let slider = BodyDesc::dynamic().position(at).can_sleep(false);
        sliders.push(world.add_body(slider, cube()).unwrap());
        piles.push(pile);
    }
    let (a, b) = (piles[0][2], piles[1][2]);
    let joint =
        tumble::d3::JointDesc::distance(a, b, Vec3::new(0.0, 2.5, 0.0), Vec3::new(6.0, 2.5, 0.0));
    world.add_joint(joint).unwrap();
    for _ in 0..settle {
        world.step(DT);
    }
    for (i, &s) in sliders.iter().enumerate() {
        let push = Vec3::new(0.0, 0.0, 3.0 + i as f32 * 0.5);
        world
            .body_mut(s)
            .unwrap()
            .set_linear_velocity(push)
            .unwrap();
    }
    (world, piles, sliders)
}

/// FNV-1a over the bits of every body's position, rotation and sleeping
/// flag, in the bodies' order.
fn pose_hash(world: &World) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for (_, body) in world.bodies() {
        let (p, q) = (body.position(), body.rotation());
        let words = [p.x, p.y, p.z, q.x, q.y, q.z, q.w].map(f32::to_bits);
        for word in words.into_iter().chain([u32::from(body.is_sleeping())]) {
            for byte in word.to_le_bytes() {
                hash = (hash ^ byte as u64).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    hash
}

/// A cube pushed off a resting pile that it shared an island with, and
/// kept awake, does not keep the pile awake: the island, short of the
/// lost contact, is split once the pile's cubes have rested (the sleep
/// candidate), and the pile sleeps while the cube still moves about. The
/// two joined piles sleep as one island.
#[test]
fn a_box_sliding_off_a_pile_lets_the_pile_sleep_after_one_split() {
    let (mut world, piles, sliders) = piles_with_sliders(30);
    let asleep = |world: &World, pile: &[BodyHandle]| {
        pile.iter().all(|&h| world.body(h).unwrap().is_sleeping())
    };
    let mut slept = vec![None; piles.len()];
    for step in 0..240 {
        world.step(DT);
        for (p, pile) in piles.iter().enumerate() {
            if slept[p].is_none() && asleep(&world, pile) {
                slept[p] = Some(step);
            }
        }
    }
    println!("piles asleep at steps {slept:?}");
    for (p, pile) in piles.iter().enumerate() {
        assert!(asleep(&world, pile), "pile {p} sleeps");
    }
    assert_eq!(slept[0], slept[1], "the joined piles sleep together");
    for &s in &sliders {
        let body = world.body(s).unwrap();
        assert!(!body.is_sleeping());
        assert!(body.position().z > 1.0, "the slider left its pile");
    }
}

/// Steps the piles with sliders 150 steps after the push, at one thread
/// or more: the hash.
fn sliders_hash_with_threads(threads: usize) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let (mut world, _, _) = piles_with_sliders(30);
        for _ in 0..150 {
            world.step(DT);
        }
        pose_hash(&world)
    })
}

/// Islands merged, split and put to sleep give the same bits on one
/// thread and on several.
#[test]
fn kept_islands_give_one_hash_across_threads() {
    let one = sliders_hash_with_threads(1);
    assert_eq!(sliders_hash_with_threads(1), one, "two runs differ");
    for threads in [2, 4] {
        assert_eq!(sliders_hash_with_threads(threads), one, "{threads} threads");
    }
}

/// Saved 10 steps after the push, while the sliders' islands have lost
/// their contacts and wait for a split, a rolled-back world and a loaded
/// one step on bit for bit as the plain run, through the splits and the
/// piles falling asleep.
#[test]
fn islands_in_flight_roll_back_and_load_bit_for_bit() {
    let (mut world, piles, _) = piles_with_sliders(30);
    for _ in 0..10 {
        world.step(DT);
    }
    let state = world.save_state();
    let bytes = world.to_bytes();
    let mut loaded = World::from_bytes(&bytes).unwrap();
    let mut hashes = Vec::new();
    for _ in 0..150 {
        world.step(DT);
        hashes.push(pose_hash(&world));
    }
    assert!(
        piles
            .iter()
            .flatten()
            .all(|&h| world.body(h).unwrap().is_sleeping()),
        "the piles fell asleep in the window"
    );
    world.restore_state(&state).unwrap();
    for (step, &hash) in hashes.iter().enumerate() {
        world.step(DT);
        loaded.step(DT);
        assert_eq!(pose_hash(&world), hash, "rolled back, step {step}");
        assert_eq!(pose_hash(&loaded), hash, "loaded, step {step}");
    }
}
