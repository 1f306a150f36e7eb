//! Rollback (`World::save_state` / `World::restore_state`): a game loop that
//! saves every step and, as a fighting game does when a late input arrives,
//! rolls back eight steps and simulates them again must end every step in
//! the same bits as a plain run, in 2D and 3D, with sleeping islands, joints,
//! surfaces, bullets and kinematic bodies, and across a filter change; a
//! state that no longer fits its world is refused.

mod common;

use common::Scene;
use tumble::{BodyHandle, BodyKind, WorldError, WorldState};
use tumble_scenes as scenes;

const DT: f32 = 1.0 / 60.0;
/// How far back the game loop rolls every step, steps.
const ROLLBACK: usize = 8;

/// The bits of every body's pose and velocities (Debug prints each f32 in
/// the shortest form that reads back to the same bits).
fn motion_hash<D: Scene>(world: &tumble::World<D>) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for (_, body) in world.bodies() {
        let text = format!(
            "{:?}{:?}{:?}{:?}{}",
            body.position(),
            body.rotation(),
            body.linear_velocity(),
            body.angular_velocity(),
            body.is_sleeping()
        );
        for byte in text.bytes() {
            hash = (hash ^ byte as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    hash
}

/// The game's input before step `step`: every third step an upward kick to
/// one of the bodies (waking it and its island), and any kinematic body
/// driven towards a target that moves with the step, but for every fourth
/// step, when it stops where its last target put it.
fn input<D: Scene>(world: &mut tumble::World<D>, bodies: &[BodyHandle], step: usize) {
    if step.is_multiple_of(3) && !bodies.is_empty() {
        let h = bodies[(step * 7919) % bodies.len()];
        if let Some(mut body) = world.body_mut(h) {
            let side = if step.is_multiple_of(2) { 1.0 } else { -1.0 };
            let kick = D::v(side, 3.0);
            let mass = body.mass();
            if body.kind() == BodyKind::Dynamic {
                body.apply_impulse_at_center(kick * mass).unwrap();
            }
        }
    }
    let kinematic: Vec<BodyHandle> = world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Kinematic)
        .map(|(h, _)| h)
        .collect();
    if step % 4 == 3 {
        return;
    }
    for h in kinematic {
        let at = D::v((step as f32 * 0.05).sin() * 2.0, 0.5);
        let mut body = world.body_mut(h).unwrap();
        body.set_kinematic_target(at, D::tilt(step as f32 * 0.01))
            .unwrap();
    }
}

/// What a run gives: the world's state hash after each step, and the
/// test's own motion hash at the end.
struct Run {
    hashes: Vec<u64>,
    end: u64,
}

/// [`Run`] of `steps` steps: plain, or with the game loop rolling back
/// [`ROLLBACK`] steps after every step and simulating them again (saving as
/// it goes, into a ring it reuses).
fn run<D: Scene>(
    mut world: tumble::World<D>,
    bodies: &[BodyHandle],
    steps: usize,
    rollback: bool,
) -> Run {
    let mut ring: Vec<WorldState<D>> = (0..=ROLLBACK).map(|_| WorldState::default()).collect();
    let mut hashes = Vec::with_capacity(steps);
    for step in 0..steps {
        world.save_state_into(&mut ring[step % (ROLLBACK + 1)]);
        input(&mut world, bodies, step);
        world.step(DT);
        if rollback && step >= ROLLBACK {
            let from = step - ROLLBACK;
            world.restore_state(&ring[from % (ROLLBACK + 1)]).unwrap();
            for again in from..=step {
                world.save_state_into(&mut ring[again % (ROLLBACK + 1)]);
                input(&mut world, bodies, again);
                world.step(DT);
            }
        }
        hashes.push(world.state_hash());
    }
    Run {
        hashes,
        end: motion_hash(&world),
    }
}

/// The rolled-back run equals the plain one after every step.
fn rolls_back<D: Scene>(scene: scenes::Scene<D>, steps: usize, name: &str) {
    let plain = run(scene.world.clone(), &scene.bodies, steps, false);
    let rolled = run(scene.world, &scene.bodies, steps, true);
    let first = plain
        .hashes
        .iter()
        .zip(&rolled.hashes)
        .position(|(a, b)| a != b);
    assert_eq!(first, None, "{name}: first step that differs");
    // And by the test's own hash of what the bodies show.
    assert_eq!(plain.end, rolled.end, "{name}: the end");
}

/// The bar: a game loop that saves every step, rolls back 8 steps
/// and simulates them again, for 600 steps, ends every step in the bits of
/// a plain run: 1000 cubes with sleeping on (most of the pile asleep by the
/// end, kicks waking parts of it) and a 2D pile.
#[test]
fn rolling_back_eight_steps_every_step_gives_the_plain_run() {
    rolls_back(scenes::cube_pile_3d(), 600, "cube_pile_3d");
    rolls_back(scenes::random_pile_2d(3), 600, "random_pile_2d");
}

#[test]
fn rollback_keeps_joints_surfaces_bullets_and_kinematic_bodies() {
    rolls_back(
        scenes::joint_scenes::ragdoll_stairs_3d(),
        150,
        "ragdoll_stairs_3d",
    );
    rolls_back(scenes::joint_scenes::chain_2d(), 150, "chain_2d");
    rolls_back(scenes::chains_2d(), 150, "chains_2d");
    rolls_back(scenes::terrain_3d(17, 60), 150, "terrain_3d");
    rolls_back(scenes::ccd_scenes::pinball_2d(), 150, "pinball_2d");
    rolls_back(scenes::ccd_scenes::bullets_3d(), 100, "bullets_3d");
    // A kinematic paddle driven to a moving target among falling boxes.
    let mut scene = scenes::pyramid_2d(6);
    let paddle = scene
        .world
        .add_body(
            tumble::BodyDesc::kinematic().position(D2v(0.0, 0.5)),
            tumble::ColliderDesc::new(<tumble::D2 as Scene>::cuboid(1.0, 0.1)),
        )
        .unwrap();
    scene.bodies.push(paddle);
    rolls_back(scene, 150, "kinematic paddle");
}

#[allow(non_snake_case)]
fn D2v(x: f32, y: f32) -> tumble::glam::Vec2 {
    tumble::glam::Vec2::new(x, y)
}

/// A state fits only the world it came from, with the same bodies and
/// colliders: another world, an added or removed body, a changed kind or
/// filter is refused and changes nothing; a clone of the world takes its
/// original's states until either changes.
#[test]
fn a_state_that_no_longer_fits_is_refused() {
    let scene = scenes::pyramid_2d(4);
    let mut world = scene.world;
    let state = world.save_state();
    let mut other = scenes::pyramid_2d(4).world;
    assert_eq!(other.restore_state(&state), Err(WorldError::StateMismatch));
    let mut twin = world.clone();
    for _ in 0..10 {
        twin.step(DT);
    }
    assert_eq!(twin.restore_state(&state), Ok(()));
    assert_eq!(motion_hash(&twin), motion_hash(&world));

    let before = motion_hash(&world);
    let ball = <tumble::D2 as Scene>::cube(0.2);
    let added = world
        .add_body(
            tumble::BodyDesc::dynamic().position(D2v(5.0, 5.0)),
            tumble::ColliderDesc::new(ball),
        )
        .unwrap();
    assert_eq!(world.restore_state(&state), Err(WorldError::StateMismatch));
    world.remove_body(added);
    assert_eq!(world.restore_state(&state), Err(WorldError::StateMismatch));
    let fresh = world.save_state();
    world
        .set_body_kind(scene.bodies[0], BodyKind::Fixed)
        .unwrap();
    assert_eq!(world.restore_state(&fresh), Err(WorldError::StateMismatch));
    assert_eq!(motion_hash(&world), before, "refusals change nothing");
}

/// The colliders of the pairs and whether they touch, in order.
fn pair_colliders<D: Scene>(world: &tumble::World<D>) -> Vec<String> {
    let pairs = world.contact_pairs().iter();
    pairs
        .map(|p| format!("{:?} {:?} {}", p.collider_a, p.collider_b, p.is_touching()))
        .collect()
}

/// A filter change saved before the step that applies it rolls back
/// alike. A weightless box rests 5 cm deep in a fixed one, colliding with
/// nothing, so neither moves and the broad phase never looks at them
/// again; it is then let collide (`changed`, saved). Stepped on, restored
/// and stepped again, saved after one step and restored from that, the
/// world ends in the same bits and pairs each time: after a restore the
/// broad phase holds the pairs found with the old filter, though its
/// groups are already the new ones, so the box's pairs are found anew
/// then too, and the saved pairs are among the broad phase's.
#[test]
fn a_filter_change_saved_before_its_step_rolls_back_alike() {
    const STILL: usize = 5;
    const AFTER: usize = 30;
    type D2 = tumble::D2;
    let mut world = tumble::World::<D2>::new(tumble::Settings::default());
    let (block, cube) = (<D2 as Scene>::cube(0.5), <D2 as Scene>::cube(0.25));
    let desc = tumble::BodyDesc::fixed().position(D2v(0.0, 0.0));
    world
        .add_body(desc, tumble::ColliderDesc::new(block))
        .unwrap();
    let desc = tumble::BodyDesc::dynamic()
        .position(D2v(0.0, 0.7))
        .gravity_scale(0.0);
    let floating = world
        .add_body(desc, tumble::ColliderDesc::new(cube))
        .unwrap();
    let collider = world.body(floating).unwrap().colliders()[0].handle();
    let none = tumble::CollisionFilter {
        category: 1,
        mask: 0,
    };
    world.set_collider_filter(collider, none).unwrap();
    for _ in 0..STILL {
        world.step(DT);
    }
    assert!(world.contact_pairs().is_empty());
    world
        .set_collider_filter(collider, tumble::CollisionFilter::default())
        .unwrap();
    let changed = world.save_state();
    let run = |world: &mut tumble::World<D2>, steps: usize| {
        for _ in 0..steps {
            world.step(DT);
        }
        (motion_hash(world), pair_colliders(world))
    };
    let straight = run(&mut world, AFTER);
    assert!(
        world.body(floating).unwrap().position().y > 0.75,
        "the box is pushed out"
    );
    assert_eq!(world.restore_state(&changed), Ok(()));
    run(&mut world, 1);
    let one_on = world.save_state();
    assert_eq!(run(&mut world, AFTER - 1), straight);
    assert_eq!(world.restore_state(&one_on), Ok(()));
    assert_eq!(run(&mut world, AFTER - 1), straight);
}

/// A ring of states holds what sleeps or rests once: on 1000 cubes that
/// have settled (most asleep), a state saved a step after another keeps
/// anew less than the target of 128 bytes per awake body plus 64
/// per contact point, though a state alone is larger; restoring from it
/// gives the world it was saved from. The figures go to
/// `benches/RESULTS.md` (the criterion bench times saving and restoring).
#[test]
fn a_ring_of_states_shares_what_rests() {
    let mut world = scenes::cube_pile_3d().world;
    for _ in 0..300 {
        world.step(DT);
    }
    let before = world.save_state();
    world.step(DT);
    let state = world.save_state();
    let hash = world.state_hash();
    let awake = world.bodies().filter(|(_, b)| !b.is_sleeping()).count();
    let (bytes, fresh, points) = (state.bytes(), state.fresh_bytes(), state.points());
    let target = 128 * awake + 64 * points;
    println!(
        "{} bodies ({awake} awake), {points} points: {bytes} B a state, {fresh} B anew a step after the last; target {target} B",
        world.body_count()
    );
    assert!(awake < world.body_count() / 2, "the pile mostly sleeps");
    assert!(fresh <= target, "{fresh} B anew against {target} B");
    assert!(fresh < bytes / 2, "most of the state is shared");
    // Sharing keeps each state whole: both restore exactly.
    world.step(DT);
    world.restore_state(&before).unwrap();
    world.step(DT);
    assert_eq!(world.state_hash(), hash);
    world.restore_state(&state).unwrap();
    assert_eq!(world.state_hash(), hash);
}

/// A recorded session (kicks and placements through `body_mut`, a body
/// added and removed, a joint added and its motor driven, controls, the
/// settings changed, a rollback) replays to the same hash after every
/// step; the same inputs on a slightly different start part at once.
#[test]
fn a_replay_matches_its_recording_and_finds_a_change() {
    use tumble::glam::Vec2;
    use tumble::{BodyDesc, ColliderDesc, JointDesc};
    let scene = scenes::random_pile_2d(5);
    let mut world = scene.world;
    for _ in 0..10 {
        world.step(DT);
    }
    let start = world.clone();
    world.start_recording();
    let (mut added, mut joint) = (None, None);
    let mut saved = None;
    for step in 0..200usize {
        input(&mut world, &scene.bodies, step);
        match step {
            40 => {
                let ball = <tumble::D2 as Scene>::cube(0.3);
                let desc = BodyDesc::dynamic().position(Vec2::new(1.0, 8.0));
                added = Some(world.add_body(desc, ColliderDesc::new(ball)).unwrap());
            }
            60 => {
                let (a, b) = (scene.bodies[0], scene.bodies[1]);
                let at = world.body(a).unwrap().position();
                let desc = JointDesc::revolute(a, b, at).drive(2.0, 50.0);
                joint = Some(world.add_joint(desc).unwrap());
            }
            80 => world
                .joint_mut(joint.unwrap())
                .unwrap()
                .set_drive_speed(-3.0),
            90 => {
                let collider = world.body(scene.bodies[2]).unwrap().colliders()[0].handle();
                world.set_collider_friction(collider, 0.1).unwrap();
                world.set_body_gravity_scale(scene.bodies[3], 0.5).unwrap();
            }
            110 => world.settings_mut().gravity = Vec2::new(1.0, -9.81),
            120 => {
                world.remove_body(added.unwrap());
                saved = Some(world.save_state());
            }
            150 => {
                world.restore_state(saved.as_ref().unwrap()).unwrap();
            }
            170 => world
                .set_body_kind(scene.bodies[4], BodyKind::Fixed)
                .unwrap(),
            _ => {}
        }
        world.step(DT);
    }
    let recording = world.stop_recording().unwrap();
    assert!(!world.is_recording());
    assert_eq!(recording.steps(), 200);
    let report = recording.replay();
    assert_eq!(report.steps, 200);
    assert_eq!(report.first_difference, None);
    // Written to bytes and read back (a bug report, another process), it
    // replays alike; cut or corrupted bytes are refused.
    let bytes = recording.to_bytes();
    let loaded = tumble::Recording::<tumble::D2>::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.replay(), report);
    println!("recording of 200 steps: {} bytes", bytes.len());
    for cut in [0, 7, 40, bytes.len() / 2, bytes.len() - 1] {
        assert!(tumble::Recording::<tumble::D2>::from_bytes(&bytes[..cut]).is_err());
    }
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 3] ^= 0x10;
    assert!(tumble::Recording::<tumble::D2>::from_bytes(&flipped).is_err());
    assert!(
        tumble::World::<tumble::D2>::from_bytes(&bytes).is_err(),
        "not a world"
    );
    // The same inputs from the start with one body a micrometre off.
    let mut other = start;
    let mut nudged = other.body_mut(scene.bodies[7]).unwrap();
    let p = nudged.position();
    nudged.set_position(p + Vec2::new(1e-6, 0.0)).unwrap();
    assert_eq!(recording.replay_on(other).first_difference, Some(0));
}
