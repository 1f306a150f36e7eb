//! Rollback (`World::save_state` / `World::restore_state`): a game loop that
//! saves every step and, as a fighting game does when a late input arrives,
//! rolls back eight steps and simulates them again must end every step in
//! the same bits as a plain run, in 2D and 3D, with sleeping islands, joints,
//! surfaces, bullets and kinematic bodies, and across a filter change; a
//! state that no longer fits its world is refused.

mod common;

use common::{in_pool, Scene};
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

/// A world of a ground and a box of half side `half` (2D).
fn box_on_ground(half: f32) -> tumble::World<tumble::D2> {
    use tumble::{BodyDesc, ColliderDesc};
    type D2 = tumble::D2;
    let mut world = tumble::World::<D2>::new(tumble::Settings::default());
    let ground = ColliderDesc::new(<D2 as Scene>::cuboid(5.0, 0.5));
    let desc = BodyDesc::fixed().position(D2v(0.0, -0.5));
    world.add_body(desc, ground).unwrap();
    let desc = BodyDesc::dynamic().position(D2v(0.0, 1.0));
    let cube = ColliderDesc::new(<D2 as Scene>::cube(half));
    world.add_body(desc, cube).unwrap();
    world
}

/// A state fits a world of its structure: the same bodies and colliders,
/// with the same shapes, in the same slots. A clone, a copy loaded from
/// bytes and a world built by the same calls take it; another world (more
/// bodies, or the same calls with a box a millimetre larger), an added
/// body, an added and removed one, an added or removed collider are
/// refused and change nothing. A kind change is a control, not structure:
/// the state takes it back.
#[test]
fn a_state_that_no_longer_fits_is_refused() {
    let scene = scenes::pyramid_2d(4);
    let mut world = scene.world;
    let state = world.save_state();
    let before = motion_hash(&world);
    let stepped = |mut world: tumble::World<tumble::D2>| {
        for _ in 0..10 {
            world.step(DT);
        }
        world
    };
    let mut twin = stepped(world.clone());
    let mut loaded = stepped(tumble::World::from_bytes(&world.to_bytes()).unwrap());
    let mut alike = stepped(scenes::pyramid_2d(4).world);
    for (copy, how) in [
        (&mut twin, "clone"),
        (&mut loaded, "loaded"),
        (&mut alike, "alike"),
    ] {
        assert_eq!(copy.restore_state(&state), Ok(()), "{how}");
        assert_eq!(motion_hash(copy), before, "{how}");
    }
    let mut other = scenes::pyramid_2d(5).world;
    assert_eq!(other.restore_state(&state), Err(WorldError::StateMismatch));
    let small = box_on_ground(0.5).save_state();
    assert_eq!(box_on_ground(0.5).restore_state(&small), Ok(()));
    let mut larger = box_on_ground(0.501);
    assert_eq!(larger.restore_state(&small), Err(WorldError::StateMismatch));

    world
        .set_body_kind(scene.bodies[0], BodyKind::Fixed)
        .unwrap();
    world.step(DT);
    assert_eq!(world.restore_state(&state), Ok(()), "a kind change");
    assert_eq!(
        world.body(scene.bodies[0]).unwrap().kind(),
        BodyKind::Dynamic
    );
    assert_eq!(motion_hash(&world), before);

    let ball = <tumble::D2 as Scene>::cube(0.2);
    let added = world
        .add_body(
            tumble::BodyDesc::dynamic().position(D2v(5.0, 5.0)),
            tumble::ColliderDesc::new(ball.clone()),
        )
        .unwrap();
    assert_eq!(world.restore_state(&state), Err(WorldError::StateMismatch));
    world.remove_body(added);
    assert_eq!(world.restore_state(&state), Err(WorldError::StateMismatch));
    // The loaded copy takes the structure of its own changes alone.
    loaded
        .add_body(
            tumble::BodyDesc::dynamic().position(D2v(5.0, 5.0)),
            tumble::ColliderDesc::new(ball.clone()),
        )
        .unwrap();
    assert_eq!(loaded.restore_state(&state), Err(WorldError::StateMismatch));
    let fresh = world.save_state();
    let part = world
        .add_collider(scene.bodies[1], tumble::ColliderDesc::new(ball))
        .unwrap();
    assert_eq!(world.restore_state(&fresh), Err(WorldError::StateMismatch));
    let compound = world.save_state();
    world.remove_collider(part).unwrap();
    assert_eq!(
        world.restore_state(&compound),
        Err(WorldError::StateMismatch)
    );
    let after = motion_hash(&world);
    assert_eq!(world.restore_state(&state), Err(WorldError::StateMismatch));
    assert_eq!(motion_hash(&world), after, "refusals change nothing");
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

/// The frame the game saves at, and the frame it runs to, in the bar's
/// rollback of runtime changes.
const SAVE_FRAME: usize = 10;
const END_FRAME: usize = 30;
/// Frames the game runs on past [`END_FRAME`], changing controls, before
/// the late input for [`SAVE_FRAME`] sends it back.
const AHEAD: usize = 8;
/// Boxes dropped on the platform.
const BOXES: usize = 6;

/// What the game's controls reach in [`arcade`]'s level.
struct Arcade {
    /// A one-way platform, let through and shut by its filter.
    platform: tumble::ColliderHandle,
    /// A pick-up under the platform: a sensor, made solid now and then.
    pickup: tumble::ColliderHandle,
    boxes: Vec<BodyHandle>,
    box_colliders: Vec<tumble::ColliderHandle>,
    /// A ball made kinematic, fixed and dynamic again in turn.
    ball: BodyHandle,
}

/// A small arcade level: the ground, a one-way platform, [`BOXES`] boxes
/// dropped on it, a pick-up under it and a ball rolling on the ground.
fn arcade<D: Scene>() -> (tumble::World<D>, Arcade) {
    use tumble::{BodyDesc, ColliderDesc};
    let mut world = tumble::World::<D>::new(tumble::Settings::default());
    let first_collider =
        |world: &tumble::World<D>, body| world.body(body).unwrap().colliders()[0].handle();
    let ground = BodyDesc::fixed().position(D::v(0.0, -0.5));
    world
        .add_body(ground, ColliderDesc::new(D::cuboid(20.0, 0.5)))
        .unwrap();
    let desc = BodyDesc::fixed().position(D::v(0.0, 2.0));
    let platform = world
        .add_body(desc, ColliderDesc::new(D::cuboid(3.0, 0.1)))
        .unwrap();
    let desc = BodyDesc::fixed().position(D::v(0.5, 0.6));
    let pickup = ColliderDesc::new(D::cuboid(0.6, 0.6)).sensor(true);
    let pickup = world.add_body(desc, pickup).unwrap();
    let mut boxes = Vec::new();
    for i in 0..BOXES {
        let at = D::v(-1.5 + 0.6 * i as f32, 2.4 + 0.25 * i as f32);
        let desc = BodyDesc::dynamic()
            .position(at)
            .rotation(D::tilt(0.1 * i as f32));
        boxes.push(
            world
                .add_body(desc, ColliderDesc::new(D::cube(0.25)))
                .unwrap(),
        );
    }
    let ball = tumble::shape::Shape::<D>::ball(0.3).unwrap();
    let desc = BodyDesc::dynamic()
        .position(D::v(-4.0, 0.3))
        .linear_velocity(D::v(2.0, 0.0));
    let ball = world.add_body(desc, ColliderDesc::new(ball)).unwrap();
    let level = Arcade {
        platform: first_collider(&world, platform),
        pickup: first_collider(&world, pickup),
        box_colliders: boxes.iter().map(|&b| first_collider(&world, b)).collect(),
        boxes,
        ball,
    };
    (world, level)
}

/// The game's input at `frame`: every control, at frames of its own, each
/// undone at later frames (a one-way platform let through and shut, a
/// pick-up made solid and a sensor again, boxes made sensors and solid,
/// friction, restitution and density, the ball made kinematic, fixed and
/// dynamic, a box made fixed and dynamic, locks, damping, gravity scale
/// and mass), a kick every third frame and the ball driven while
/// kinematic.
fn arcade_input<D: Scene>(world: &mut tumble::World<D>, level: &Arcade, frame: usize) {
    use tumble::{Axes, CollisionFilter, Locks};
    let f = frame;
    let shut = CollisionFilter {
        category: 1,
        mask: 0,
    };
    if f % 8 == 1 {
        let filter = if (f / 8).is_multiple_of(2) {
            shut
        } else {
            CollisionFilter::default()
        };
        world.set_collider_filter(level.platform, filter).unwrap();
    }
    if f % 5 == 2 {
        let sensor = (f / 5) % 2 == 1;
        world.set_collider_sensor(level.pickup, sensor).unwrap();
    }
    let sensor_box = level.box_colliders[(f / 7) % BOXES];
    match f % 7 {
        3 => world.set_collider_sensor(sensor_box, true).unwrap(),
        5 => world.set_collider_sensor(sensor_box, false).unwrap(),
        _ => {}
    }
    if f % 4 == 3 {
        let friction = 0.2 + 0.3 * ((f / 4) % 3) as f32;
        let restitution = 0.5 * ((f / 4) % 2) as f32;
        let rubbed = level.box_colliders[f % BOXES];
        world.set_collider_friction(rubbed, friction).unwrap();
        world
            .set_collider_restitution(level.platform, restitution)
            .unwrap();
    }
    if f.is_multiple_of(7) && f > 0 {
        let density = 1.0 + (f % 3) as f32;
        let heavy = level.box_colliders[(f / 7) % BOXES];
        world.set_collider_density(heavy, density).unwrap();
    }
    if f % 9 == 4 {
        let kinds = [BodyKind::Kinematic, BodyKind::Fixed, BodyKind::Dynamic];
        world.set_body_kind(level.ball, kinds[(f / 9) % 3]).unwrap();
    }
    match f {
        16 => world
            .set_body_kind(level.boxes[0], BodyKind::Fixed)
            .unwrap(),
        20 => world
            .set_body_kind(level.boxes[0], BodyKind::Dynamic)
            .unwrap(),
        _ => {}
    }
    if f % 8 == 5 {
        let locks = if (f / 8).is_multiple_of(2) {
            Locks {
                translation: Axes::NONE,
                rotation: Axes::ALL,
            }
        } else {
            Locks::default()
        };
        world.set_body_locks(level.boxes[1], locks).unwrap();
    }
    if f % 6 == 4 {
        let b = &level.boxes;
        world
            .set_body_linear_damping(b[2], (f % 4) as f32 * 0.5)
            .unwrap();
        world
            .set_body_angular_damping(b[3], (f % 5) as f32 * 0.3)
            .unwrap();
        let scale = [1.0, 0.4, -0.3][(f / 6) % 3];
        world.set_body_gravity_scale(b[4], scale).unwrap();
    }
    if f % 10 == 8 {
        let heavy = level.boxes[5];
        if (f / 10).is_multiple_of(2) {
            world.set_body_mass(heavy, 2.0 + (f / 10) as f32).unwrap();
        } else {
            world.reset_body_mass(heavy).unwrap();
        }
    }
    if f.is_multiple_of(3) {
        let mut body = world.body_mut(level.boxes[f % BOXES]).unwrap();
        if body.kind() == BodyKind::Dynamic {
            let side = if f.is_multiple_of(2) { 1.0 } else { -1.0 };
            let mass = body.mass();
            body.apply_impulse_at_center(D::v(side, 3.0) * mass)
                .unwrap();
        }
    }
    let mut ball = world.body_mut(level.ball).unwrap();
    if ball.kind() == BodyKind::Kinematic {
        let at = D::v(-3.0 + 0.1 * f as f32, 0.6);
        ball.set_kinematic_target(at, D::tilt(0.05 * f as f32))
            .unwrap();
    }
}

/// Every body's and collider's controls as the game reads them back, in
/// the bodies' order (Debug prints each f32 in the shortest form that
/// reads back to the same bits).
fn controls_of<D: Scene>(world: &tumble::World<D>) -> Vec<String> {
    let mut controls = Vec::new();
    for (_, b) in world.bodies() {
        controls.push(format!(
            "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            b.kind(),
            b.locks(),
            b.linear_damping(),
            b.angular_damping(),
            b.gravity_scale(),
            b.mass(),
            b.center_of_mass()
        ));
        for c in b.colliders() {
            controls.push(format!(
                "{:?} {} {:?} {:?} {:?}",
                c.filter(),
                c.is_sensor(),
                c.friction(),
                c.restitution(),
                c.density()
            ));
        }
    }
    controls
}

/// The game's frames `frames` from where `world` is: the input, the step,
/// the state hash after it.
fn play<D: Scene>(
    world: &mut tumble::World<D>,
    level: &Arcade,
    frames: std::ops::Range<usize>,
) -> Vec<u64> {
    frames
        .map(|frame| {
            arcade_input(world, level, frame);
            world.step(DT);
            world.state_hash()
        })
        .collect()
}

/// The bar of issue 34 item 9 in `D` on `threads` threads: a state saved
/// at [`SAVE_FRAME`], the game run to [`END_FRAME`] and [`AHEAD`] frames
/// on with every control changed and changed back at various frames;
/// restored, the controls read back as they were at the save, and the same
/// inputs give each frame's hash of the first run, in the world itself and
/// in a copy loaded from its bytes. Returns the first run's hashes.
fn controls_roll_back<D: Scene>(threads: usize) -> Vec<u64> {
    in_pool(threads, || {
        let (mut world, level) = arcade::<D>();
        play(&mut world, &level, 0..SAVE_FRAME);
        let state = world.save_state();
        let saved = controls_of(&world);
        let straight = play(&mut world, &level, SAVE_FRAME..END_FRAME);
        play(&mut world, &level, END_FRAME..END_FRAME + AHEAD);
        assert_ne!(
            controls_of(&world),
            saved,
            "{}: the controls moved on",
            D::NAME
        );
        let bytes = world.to_bytes();
        let mut loaded = tumble::World::<D>::from_bytes(&bytes).unwrap();
        for (world, how) in [(&mut world, "in place"), (&mut loaded, "loaded copy")] {
            let name = format!("{} on {threads} threads, {how}", D::NAME);
            assert_eq!(world.restore_state(&state), Ok(()), "{name}");
            assert_eq!(controls_of(world), saved, "{name}: the controls");
            let again = play(world, &level, SAVE_FRAME..END_FRAME);
            let first = straight.iter().zip(&again).position(|(a, b)| a != b);
            assert_eq!(
                first, None,
                "{name}: first frame after the save that differs"
            );
        }
        straight
    })
}

/// Issue 34 item 9: a rollback takes back filters, sensor flags, friction,
/// restitution, density, mass, kinds, locks, damping and gravity scale
/// changed (and changed back) since the state, restores into a copy of
/// its world loaded from bytes, and the world goes on as the run that
/// never rolled back, in 2D and 3D, on 1 and 2 threads alike.
#[test]
fn a_rollback_takes_back_filters_sensors_materials_and_kinds() {
    let one = controls_roll_back::<tumble::D2>(1);
    assert_eq!(controls_roll_back::<tumble::D2>(2), one, "2D: threads");
    let one = controls_roll_back::<tumble::D3>(1);
    assert_eq!(controls_roll_back::<tumble::D3>(2), one, "3D: threads");
}

/// One frame of the arcade's game loop, saving into `ring`: the
/// controls of odd frames are called before the frame's save (the state
/// holds them waiting for their step) unless `restored` (the state
/// restored holds them already), those of even frames after it.
fn arcade_frame<D: Scene>(
    world: &mut tumble::World<D>,
    level: &Arcade,
    ring: &mut [WorldState<D>],
    frame: usize,
    restored: bool,
) {
    let odd = frame % 2 == 1;
    if odd && !restored {
        arcade_input(world, level, frame);
    }
    world.save_state_into(&mut ring[frame % ring.len()]);
    if !odd {
        arcade_input(world, level, frame);
    }
    world.step(DT);
}

/// The game loop of [`run`] in the arcade level, every control changing
/// ([`arcade_frame`]): rolling back [`ROLLBACK`] steps after every step
/// and simulating them again ends every frame in the bits of the plain
/// run, also where the state rolled back to holds controls waiting for
/// their step.
fn arcade_rolls_back<D: Scene>(frames: usize) {
    let run = |rollback: bool| {
        let (mut world, level) = arcade::<D>();
        let mut ring: Vec<WorldState<D>> = (0..=ROLLBACK).map(|_| WorldState::default()).collect();
        let mut hashes = Vec::with_capacity(frames);
        for frame in 0..frames {
            arcade_frame(&mut world, &level, &mut ring, frame, false);
            if rollback && frame >= ROLLBACK {
                let from = frame - ROLLBACK;
                let state = ring[from % ring.len()].clone();
                world.restore_state(&state).unwrap();
                for again in from..=frame {
                    arcade_frame(&mut world, &level, &mut ring, again, again == from);
                }
            }
            hashes.push(world.state_hash());
        }
        hashes
    };
    let (plain, rolled) = (run(false), run(true));
    let first = plain.iter().zip(&rolled).position(|(a, b)| a != b);
    assert_eq!(first, None, "{}: first frame that differs", D::NAME);
}

#[test]
fn rolling_back_eight_steps_across_controls_gives_the_plain_run() {
    arcade_rolls_back::<tumble::D2>(150);
    arcade_rolls_back::<tumble::D3>(150);
}
