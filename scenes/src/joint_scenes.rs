//! Joint demo scenes, each a world with sleeping on, as a game would have
//! it (resting bodies sleep, joined bodies sleep and wake together), on a
//! fixed ground whose top is at y = 0 (a chain polyline for the car):
//!
//! - [`rope_bridge_3d`]: a rope bridge. [`BRIDGE_PLANKS`] planks hinged
//!   end to end (revolute joints about Z, across the bridge) hang between
//!   two fixed posts 10 m apart, laid on a sagging arc so that the bridge
//!   has slack (a taut chain of hinges could only hold by stretching), and
//!   [`BRIDGE_BOXES`] boxes fall on it one after another.
//! - [`chain_2d`]: a wrecking ball. A chain of [`CHAIN_LINKS`] capsule links,
//!   each hinged to the next at its ends, hangs from a fixed point 12 m up;
//!   a heavy ball (about 80 times a link) is hinged to its end. It starts
//!   straight, 69 degrees from the vertical, and swings down through a
//!   stack of boxes.
//! - [`ragdoll_stairs_3d`]: [`STAIR_RAGDOLLS`] ragdolls
//!   ([`crate::ragdoll::add_ragdoll`]: 11 bodies, 10 joints each) dropped in
//!   different poses on a landing and a flight of stairs built of fixed
//!   boxes, tumbling down.
//! - [`car_2d`]: a car on a bumpy track (a chain polyline with small
//!   bumps, hills and humps, walls at both ends). Its chassis holds two
//!   wheels on wheel joints (`JointDesc::wheel`): a suspension along the
//!   chassis' Y on a 5 Hz spring, damping ratio 0.7, and an axle driven at
//!   [`CAR_DRIVE_SPEED`] with at most [`CAR_DRIVE_TORQUE`] each, to the
//!   right as built. A game changes the drive speed (the demo's arrow keys).
//! - [`door_3d`]: a door in a frame: a slab on a revolute joint
//!   about Y at its left edge, limited to [0, [`DOOR_OPEN`]] radians (shut
//!   against its stop to wide open) with a closer (a 0.5 Hz spring towards
//!   shut). Balls fired at it (by whoever runs the scene: the demo fires one
//!   every 1.5 s) push it open, fly through and knock over the crates
//!   behind it. The door is the body whose user number is [`DOOR`].

use tumble::d2;
use tumble::d3;
use tumble::glam::{Quat, Vec2, Vec3};
use tumble::{BodyHandle, JointDesc, Settings, World, D2, D3};

use crate::ragdoll::add_ragdoll;
use crate::Scene;

/// Planks of [`rope_bridge_3d`].
pub const BRIDGE_PLANKS: usize = 12;
/// Boxes dropped on [`rope_bridge_3d`]'s bridge.
pub const BRIDGE_BOXES: usize = 8;
/// A plank's density, kg/m^3 (3.1 kg a plank): as in Box2D's bridge sample,
/// the deck outweighs what falls on it. With planks lighter than the boxes
/// (density 1, 0.16 kg against 0.43) each landing drove a plank down and
/// the slack deck threw the boxes already on it up to 3.6 m/s upwards
/// (`benches/RESULTS.md`, "Rope bridge: why the deck throws boxes").
const PLANK_DENSITY: f32 = 20.0;
/// How far apart along the bridge the boxes fall, metres.
const BOX_SPACING: f32 = 0.6;
/// Distance between the bridge's posts, metres.
const BRIDGE_SPAN: f32 = 10.0;
/// Distance between a plank's two hinges, metres (12 x 0.9 m = 10.8 m of
/// bridge over a 10 m span: 8 % of slack, about 1.7 m of sag).
const BRIDGE_LINK: f32 = 0.9;
/// Height of the bridge's ends (the posts' tops), metres.
const BRIDGE_HEIGHT: f32 = 4.0;
/// Half the bridge's width, metres.
const BRIDGE_HALF_WIDTH: f32 = 0.8;

/// Links of [`chain_2d`]'s chain.
pub const CHAIN_LINKS: usize = 20;
/// Distance between a link's two hinges, metres.
const CHAIN_LINK: f32 = 0.5;
/// Where [`chain_2d`]'s chain hangs from.
const CHAIN_PIVOT: Vec2 = Vec2::new(0.0, 12.0);
/// The chain's angle from the vertical at the start, radians (to the left).
const CHAIN_START_ANGLE: f32 = 1.2;
/// Radius of the ball at the chain's end, metres.
const CHAIN_BALL_RADIUS: f32 = 0.7;

/// Ragdolls of [`ragdoll_stairs_3d`].
pub const STAIR_RAGDOLLS: usize = 4;
/// Height of one stair, metres.
const STAIR_RISE: f32 = 0.3;
/// Depth of one stair, metres.
const STAIR_RUN: f32 = 0.6;
/// Stairs below the landing, the lowest [`STAIR_RISE`] above the ground.
const STAIRS: usize = 7;
/// Half the stairs' width, metres.
const STAIR_HALF_WIDTH: f32 = 2.0;

/// The speed [`car_2d`]'s wheels are driven at, rad/s (radius 0.4 m:
/// 4.8 m/s); negative about Z drives the car to the right.
pub const CAR_DRIVE_SPEED: f32 = 12.0;
/// The most torque each of [`car_2d`]'s wheel drives gives, N·m.
pub const CAR_DRIVE_TORQUE: f32 = 6.0;
/// Radius of the car's wheels, metres.
const CAR_WHEEL_RADIUS: f32 = 0.4;
/// Where the car's track ends, metres along x (it starts at -15).
const CAR_TRACK_END: f32 = 150.0;

/// The user number that marks [`door_3d`]'s door.
pub const DOOR: u64 = 0x444f_4f52;
/// How far [`door_3d`]'s door opens, radians (about 100 degrees).
pub const DOOR_OPEN: f32 = 1.75;
/// Where the door's hinge is: its left edge, half way up.
pub const DOOR_HINGE: Vec3 = Vec3::new(-0.5, 1.07, 0.0);

/// A world with sleeping on and a fixed ground box `half` to each side of
/// x = 0, its top at y = 0; the ground's handle.
fn ground_2d(half: f32) -> (World<D2>, BodyHandle) {
    let mut world = World::new(Settings::default());
    let ground = world
        .add_body(
            d2::BodyDesc::fixed().position(Vec2::new(0.0, -0.5)),
            d2::ColliderDesc::new(d2::Shape::cuboid(Vec2::new(half, 0.5)).expect("valid ground")),
        )
        .expect("valid ground");
    (world, ground)
}

/// A world with sleeping on and a fixed square ground `half` to each side
/// of the origin, its top at y = 0.
fn ground_3d(half: f32) -> World<D3> {
    let mut world = World::new(Settings::default());
    world
        .add_body(
            d3::BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            d3::ColliderDesc::new(
                d3::Shape::cuboid(Vec3::new(half, 0.5, half)).expect("valid ground"),
            ),
        )
        .expect("valid ground");
    world
}

/// A fixed box of half extents `half` centred at `at`.
fn fixed_box_3d(world: &mut World<D3>, at: Vec3, half: Vec3) -> BodyHandle {
    world
        .add_body(
            d3::BodyDesc::fixed().position(at),
            d3::ColliderDesc::new(d3::Shape::cuboid(half).expect("valid box")),
        )
        .expect("valid box")
}

/// A dynamic box of half extents `half` at `at`, turned by `rotation`.
fn box_3d(world: &mut World<D3>, at: Vec3, rotation: Quat, half: Vec3, density: f32) -> BodyHandle {
    world
        .add_body(
            d3::BodyDesc::dynamic().position(at).rotation(rotation),
            d3::ColliderDesc::new(d3::Shape::cuboid(half).expect("valid box")).density(density),
        )
        .expect("valid box")
}

/// The `links + 1` ends of `links` chords of length `link`, equal, on a
/// circular arc hanging from (-`span` / 2, 0) to (`span` / 2, 0): a chain
/// longer than its span, laid with its slack as sag.
fn sagging_arc(span: f32, link: f32, links: usize) -> Vec<Vec2> {
    let n = links as f32;
    // Each chord turns by `turn`; the ends' chord is the span:
    // span / link = sin(n turn / 2) / sin(turn / 2), falling from n at 0.
    let ratio = (span / link).min(n - 1e-3);
    let (mut low, mut high) = (1e-6f32, std::f32::consts::TAU / n);
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if (n * mid * 0.5).sin() / (mid * 0.5).sin() > ratio {
            low = mid;
        } else {
            high = mid;
        }
    }
    let turn = 0.5 * (low + high);
    let radius = link / (2.0 * (turn * 0.5).sin());
    let half = n * turn * 0.5;
    let centre = Vec2::new(0.0, radius * half.cos());
    (0..=links)
        .map(|k| {
            let angle = -half + k as f32 * turn;
            centre + Vec2::new(angle.sin(), -angle.cos()) * radius
        })
        .collect()
}

/// 3D: a rope bridge of [`BRIDGE_PLANKS`] planks (0.84 x 0.12 x 1.6 m),
/// each hinged to the next (revolute joints about Z at the middle of the
/// gap between them), the end ones to two fixed posts whose tops are 4 m
/// up and 10 m apart; the planks hang on a sagging arc (10.8 m of bridge).
/// [`BRIDGE_BOXES`] boxes (0.6 m, density 2, 0.43 kg) are dropped on it
/// in turn, [`BOX_SPACING`] apart from the middle out, the first 0.4 m
/// above the deck, each next one 0.45 m higher.
/// `bodies`: the planks, then the boxes.
pub fn rope_bridge_3d() -> Scene<D3> {
    let mut world = ground_3d(20.0);
    let post_half = Vec3::new(0.3, BRIDGE_HEIGHT * 0.5, BRIDGE_HALF_WIDTH + 0.2);
    let end = BRIDGE_SPAN * 0.5;
    let left = fixed_box_3d(
        &mut world,
        Vec3::new(-end - post_half.x, post_half.y, 0.0),
        post_half,
    );
    let right = fixed_box_3d(
        &mut world,
        Vec3::new(end + post_half.x, post_half.y, 0.0),
        post_half,
    );
    let hinges: Vec<Vec3> = sagging_arc(BRIDGE_SPAN, BRIDGE_LINK, BRIDGE_PLANKS)
        .into_iter()
        .map(|p| Vec3::new(p.x, p.y + BRIDGE_HEIGHT, 0.0))
        .collect();
    let plank_half = Vec3::new(BRIDGE_LINK * 0.5 - 0.03, 0.06, BRIDGE_HALF_WIDTH);
    let mut bodies = Vec::new();
    let mut previous = left;
    for pair in hinges.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let along = b - a;
        let rotation = Quat::from_rotation_z(along.y.atan2(along.x));
        // The deck's top on the hinges' line: the plank hangs below it.
        let centre = (a + b) * 0.5 - rotation * Vec3::new(0.0, plank_half.y, 0.0);
        let plank = box_3d(&mut world, centre, rotation, plank_half, PLANK_DENSITY);
        world
            .add_joint(JointDesc::revolute(previous, plank, a).axis(Vec3::Z))
            .expect("valid hinge");
        bodies.push(plank);
        previous = plank;
    }
    world
        .add_joint(JointDesc::revolute(previous, right, hinges[BRIDGE_PLANKS]).axis(Vec3::Z))
        .expect("valid hinge");
    // The deck's height at x: the hinges' polyline.
    let deck = |x: f32| {
        hinges
            .windows(2)
            .find(|p| x <= p[1].x)
            .map(|p| {
                let t = ((x - p[0].x) / (p[1].x - p[0].x)).clamp(0.0, 1.0);
                p[0].y + (p[1].y - p[0].y) * t
            })
            .unwrap_or(BRIDGE_HEIGHT)
    };
    let half = Vec3::splat(0.3);
    for i in 0..BRIDGE_BOXES {
        // Across the bridge from the middle outwards, each a little turned.
        let k = i as f32;
        let x = if i % 2 == 0 {
            BOX_SPACING * k
        } else {
            -BOX_SPACING * k
        };
        let z = [0.0, 0.4, -0.4][i % 3];
        let y = deck(x) + 0.4 + half.y + 0.45 * k;
        let rotation = Quat::from_rotation_y(0.4 * k) * Quat::from_rotation_x(0.1 * k);
        bodies.push(box_3d(&mut world, Vec3::new(x, y, z), rotation, half, 2.0));
    }
    Scene { world, bodies }
}

/// 2D: a wrecking ball. [`CHAIN_LINKS`] capsule links (0.5 m between
/// their hinges, radius 0.06 m, density 10) hang from a fixed point 12 m
/// up, each hinged (revolute) to the next at their ends; a ball of radius
/// 0.7 m and density 30 (46 kg, about 78 links) is hinged to the last one.
/// The chain starts straight, 1.2 rad (69 degrees) to the left of the
/// vertical, and swings down through a pyramid of ten 0.8 m boxes (density
/// 5) on the right. `bodies`: the links, the ball, then the boxes.
pub fn chain_2d() -> Scene<D2> {
    let (mut world, _) = ground_2d(40.0);
    let pivot = world
        .add_body(
            d2::BodyDesc::fixed().position(CHAIN_PIVOT),
            d2::ColliderDesc::new(d2::Shape::cuboid(Vec2::splat(0.2)).expect("valid pivot")),
        )
        .expect("valid pivot");
    // Along the chain, from the pivot.
    let down = Vec2::new(-CHAIN_START_ANGLE.sin(), -CHAIN_START_ANGLE.cos());
    // A capsule's length is along its Y: turned to point along the chain.
    let angle = -CHAIN_START_ANGLE;
    let link = d2::Shape::capsule(CHAIN_LINK * 0.5 - 0.06, 0.06).expect("valid link");
    let mut bodies = Vec::new();
    let mut previous = pivot;
    for k in 0..CHAIN_LINKS {
        let centre = CHAIN_PIVOT + down * (k as f32 + 0.5) * CHAIN_LINK;
        let body = world
            .add_body(
                d2::BodyDesc::dynamic().position(centre).rotation(angle),
                d2::ColliderDesc::new(link.clone()).density(10.0),
            )
            .expect("valid link");
        let hinge = CHAIN_PIVOT + down * k as f32 * CHAIN_LINK;
        world
            .add_joint(JointDesc::revolute(previous, body, hinge))
            .expect("valid hinge");
        bodies.push(body);
        previous = body;
    }
    let end = CHAIN_PIVOT + down * CHAIN_LINKS as f32 * CHAIN_LINK;
    let ball = world
        .add_body(
            d2::BodyDesc::dynamic().position(end + down * CHAIN_BALL_RADIUS),
            d2::ColliderDesc::new(d2::Shape::ball(CHAIN_BALL_RADIUS).expect("valid ball"))
                .density(30.0),
        )
        .expect("valid ball");
    world
        .add_joint(JointDesc::revolute(previous, ball, end))
        .expect("valid hinge");
    bodies.push(ball);
    let crate_ = d2::Shape::cuboid(Vec2::splat(0.4)).expect("valid box");
    for row in 0..4 {
        for i in 0..4 - row {
            let at = Vec2::new(
                2.6 + (i as f32 + row as f32 * 0.5) * 0.82,
                0.4 + row as f32 * 0.8,
            );
            let body = world
                .add_body(
                    d2::BodyDesc::dynamic().position(at),
                    d2::ColliderDesc::new(crate_.clone()).density(5.0),
                )
                .expect("valid box");
            bodies.push(body);
        }
    }
    Scene { world, bodies }
}

/// 3D: [`STAIR_RAGDOLLS`] ragdolls dropped on stairs: a landing 2.4 m high
/// (x from -2.5 to 0) and [`STAIRS`] stairs down along +X (0.3 m rise,
/// 0.6 m run, 4 m wide), fixed boxes standing on the ground. One ragdoll
/// stands at the landing's edge leaning out over the stairs, one lies
/// across the upper stairs head first, one falls on its back over the
/// middle stairs, one head down over the lower ones, each a little above
/// the stairs under it. `bodies`: the ragdolls' parts, pelvis first each.
pub fn ragdoll_stairs_3d() -> Scene<D3> {
    let mut world = ground_3d(20.0);
    let landing = STAIRS as f32 * STAIR_RISE + STAIR_RISE;
    fixed_box_3d(
        &mut world,
        Vec3::new(-1.25, landing * 0.5, 0.0),
        Vec3::new(1.25, landing * 0.5, STAIR_HALF_WIDTH),
    );
    for i in 0..STAIRS {
        let top = landing - (i + 1) as f32 * STAIR_RISE;
        fixed_box_3d(
            &mut world,
            Vec3::new((i as f32 + 0.5) * STAIR_RUN, top * 0.5, 0.0),
            Vec3::new(STAIR_RUN * 0.5, top * 0.5, STAIR_HALF_WIDTH),
        );
    }
    // The stairs' top at x.
    let stair_top = |x: f32| {
        if x < 0.0 {
            landing
        } else {
            let i = (x / STAIR_RUN).floor() as usize;
            (landing - (i + 1) as f32 * STAIR_RISE).max(0.0)
        }
    };
    let poses = [
        // Standing at the landing's edge, leaning out (feet 0.92 m below
        // the pelvis).
        (
            Vec3::new(-0.35, 0.0, -1.1),
            Quat::from_rotation_z(-0.35),
            0.97,
        ),
        // Lying across the upper stairs, head first down them.
        (
            Vec3::new(1.0, 0.0, 0.9),
            Quat::from_rotation_y(0.3) * Quat::from_rotation_z(-1.45),
            0.6,
        ),
        // On its back over the middle stairs.
        (
            Vec3::new(2.2, 0.0, -0.6),
            Quat::from_rotation_y(-0.5) * Quat::from_rotation_x(-1.5),
            0.7,
        ),
        // Head down over the lower stairs.
        (Vec3::new(3.4, 0.0, 0.7), Quat::from_rotation_z(2.7), 1.2),
    ];
    let mut bodies = Vec::new();
    for (at, rotation, above) in poses.into_iter().take(STAIR_RAGDOLLS) {
        // Above the highest stair under the ragdoll's reach.
        let top = (-4..=4)
            .map(|k| stair_top(at.x + k as f32 * 0.25))
            .fold(0.0f32, f32::max);
        let pelvis = Vec3::new(at.x, top + above, at.z);
        bodies.extend(add_ragdoll(&mut world, pelvis, rotation));
    }
    Scene { world, bodies }
}

/// The height of [`car_2d`]'s track at `x`, metres: flat to x = 5, small
/// bumps every 2.5 m (0.15 m) to 30, a hill 2.5 m high to 60, humps every
/// 4 m (0.35 m) to 90, a hill 1.5 m high to 105, flat after.
pub fn car_track_height(x: f32) -> f32 {
    use std::f32::consts::PI;
    let bump = |x: f32, from: f32, period: f32, height: f32| {
        height * (PI * (x - from) / period).sin().powi(2)
    };
    match x {
        x if (5.0..30.0).contains(&x) => bump(x, 5.0, 2.5, 0.15),
        x if (30.0..60.0).contains(&x) => bump(x, 30.0, 30.0, 2.5),
        x if (60.0..90.0).contains(&x) => bump(x, 60.0, 4.0, 0.35),
        x if (90.0..105.0).contains(&x) => bump(x, 90.0, 15.0, 1.5),
        _ => 0.0,
    }
}

/// 2D: a car on a bumpy track. The track is a chain polyline
/// ([`car_track_height`], a point every 0.25 m from x = -15 to 150, walls
/// 6 m high at both ends). The car: a chassis (a six-sided hull 3.2 m
/// long, density 1) at x = 0 and two wheels (balls of radius 0.4 m,
/// density 2, friction 1.2) under it 2.2 m apart, each on a wheel joint:
/// suspension along the chassis' Y on a 5 Hz spring with damping ratio 0.7
/// (the chassis settles 2.5 cm lower: the spring's frequency is that of
/// the joint's effective mass, the chassis' share and the wheel together,
/// not of the chassis' share alone), axle driven at -[`CAR_DRIVE_SPEED`] (to the
/// right) with at most [`CAR_DRIVE_TORQUE`]. `bodies`: the chassis, then
/// the rear and front wheels.
pub fn car_2d() -> Scene<D2> {
    let mut world = World::new(Settings::default());
    let mut points = vec![Vec2::new(-15.0, 6.0)];
    let samples = ((CAR_TRACK_END + 15.0) / 0.25) as usize;
    points.extend((0..=samples).map(|i| {
        let x = -15.0 + i as f32 * 0.25;
        Vec2::new(x, car_track_height(x))
    }));
    points.push(Vec2::new(CAR_TRACK_END, 6.0));
    // Right to left: each segment's front (its right) faces up.
    points.reverse();
    world
        .add_body(
            d2::BodyDesc::fixed(),
            d2::ColliderDesc::new(d2::Shape::chain(&points, false).expect("valid track")),
        )
        .expect("valid track");
    let hull: Vec<Vec2> = [
        (-1.6, -0.35),
        (1.6, -0.35),
        (1.6, 0.05),
        (0.1, 0.6),
        (-1.1, 0.6),
        (-1.6, 0.2),
    ]
    .map(|(x, y)| Vec2::new(x, y))
    .to_vec();
    let chassis = world
        .add_body(
            d2::BodyDesc::dynamic().position(Vec2::new(0.0, 0.95)),
            d2::ColliderDesc::new(d2::Shape::convex_polygon(&hull).expect("valid chassis")),
        )
        .expect("valid chassis");
    let mut bodies = vec![chassis];
    let wheel = d2::Shape::ball(CAR_WHEEL_RADIUS).expect("valid wheel");
    for x in [-1.1, 1.1] {
        let at = Vec2::new(x, CAR_WHEEL_RADIUS);
        let body = world
            .add_body(
                d2::BodyDesc::dynamic().position(at),
                d2::ColliderDesc::new(wheel.clone())
                    .density(2.0)
                    .friction(1.2),
            )
            .expect("valid wheel");
        world
            .add_joint(
                JointDesc::wheel(chassis, body, at, Vec2::Y)
                    .spring(5.0, 0.7)
                    .drive(-CAR_DRIVE_SPEED, CAR_DRIVE_TORQUE),
            )
            .expect("valid wheel joint");
        bodies.push(body);
    }
    Scene { world, bodies }
}

/// 3D: a door in a frame. A frame (two jambs and a lintel, fixed boxes
/// 2.4 m high, 1.4 m wide) standing across the Z axis at z = 0; in it a door slab
/// (0.96 x 2.06 x 0.08 m, density 6: 0.95 kg) whose user number is
/// [`DOOR`], 4 cm above the ground, on a revolute joint about Y at its
/// left edge ([`DOOR_HINGE`], to the left jamb) limited to [0,
/// [`DOOR_OPEN`]]: shut against its stop, it opens away from +z (where
/// balls come from) to about 100 degrees; a closer (a 0.5 Hz spring,
/// damping ratio 0.3, towards shut) swings it back. Behind it, 2.5 m
/// back, a stack of six crates (0.5 m) for the balls that go through.
/// `bodies`: the door, then the crates.
pub fn door_3d() -> Scene<D3> {
    let mut world = ground_3d(20.0);
    let depth = 0.15;
    let jamb = fixed_box_3d(
        &mut world,
        Vec3::new(-0.6, 1.1, 0.0),
        Vec3::new(0.1, 1.1, depth),
    );
    fixed_box_3d(
        &mut world,
        Vec3::new(0.6, 1.1, 0.0),
        Vec3::new(0.1, 1.1, depth),
    );
    fixed_box_3d(
        &mut world,
        Vec3::new(0.0, 2.3, 0.0),
        Vec3::new(0.7, 0.1, depth),
    );
    let door = world
        .add_body(
            d3::BodyDesc::dynamic()
                .position(Vec3::new(0.0, DOOR_HINGE.y, 0.0))
                .user_data(DOOR),
            d3::ColliderDesc::new(
                d3::Shape::cuboid(Vec3::new(0.48, 1.03, 0.04)).expect("valid door"),
            )
            .density(6.0),
        )
        .expect("valid door");
    world
        .add_joint(
            JointDesc::revolute(jamb, door, DOOR_HINGE)
                .axis(Vec3::Y)
                .limits(0.0, DOOR_OPEN)
                .spring(0.5, 0.3),
        )
        .expect("valid hinge");
    let mut bodies = vec![door];
    let half = Vec3::splat(0.25);
    for (i, (x, y)) in [
        (-0.28, 0.0),
        (0.28, 0.0),
        (0.84, 0.0),
        (0.0, 1.0),
        (0.56, 1.0),
        (0.28, 2.0),
    ]
    .into_iter()
    .enumerate()
    {
        let at = Vec3::new(x, 0.25 + y * 0.5, -2.5);
        let turn = Quat::from_rotation_y(0.05 * i as f32);
        bodies.push(box_3d(&mut world, at, turn, half, 2.0));
    }
    Scene { world, bodies }
}

/// The fan's drive speed, rad/s, and the most torque it spends, N·m.
pub const FAN_SPEED: f32 = 3.0;
pub const FAN_TORQUE: f32 = 2000.0;

/// 3D: a welded fan. A 13.5 kg hub (0.6 x 0.6 x 0.3 m) on a hinge about Z
/// at a fixed post 3 m up, driven at [`FAN_SPEED`] with at most
/// [`FAN_TORQUE`]; four 7.7 kg blades (1.6 x 0.05 x 0.3 m), each welded to
/// the hub's rim, turning in the XY plane; 12 balls (0.2 m) dropped on it
/// in turn. The hub is light in rotation against its blades, which once
/// pulled the welds apart (issue 35; the joint tree is now solved
/// directly). `bodies`: the hub, the blades, then the balls.
pub fn fan_3d() -> Scene<D3> {
    // Ground wide enough to catch the balls the blades fling.
    let mut world = ground_3d(60.0);
    let centre = Vec3::new(0.0, 3.0, 0.0);
    let post = fixed_box_3d(
        &mut world,
        centre - Vec3::new(0.0, 0.0, 0.45),
        Vec3::new(0.1, 0.1, 0.2),
    );
    let hub_half = Vec3::new(0.3, 0.3, 0.15);
    let hub = box_3d(
        &mut world,
        centre,
        Quat::IDENTITY,
        hub_half,
        13.5 / (8.0 * hub_half.x * hub_half.y * hub_half.z),
    );
    world
        .add_joint(
            JointDesc::revolute(post, hub, centre)
                .axis(Vec3::Z)
                .drive(FAN_SPEED, FAN_TORQUE),
        )
        .expect("valid hinge");
    let blade_half = Vec3::new(0.8, 0.025, 0.15);
    let mut bodies = vec![hub];
    for k in 0..4 {
        let angle = k as f32 * core::f32::consts::FRAC_PI_2;
        let out = Vec3::new(angle.cos(), angle.sin(), 0.0);
        let blade = box_3d(
            &mut world,
            centre + out * (hub_half.x + blade_half.x),
            Quat::from_rotation_z(angle),
            blade_half,
            7.7 / (8.0 * blade_half.x * blade_half.y * blade_half.z),
        );
        world
            .add_joint(JointDesc::weld(hub, blade, centre + out * hub_half.x))
            .expect("valid weld");
        bodies.push(blade);
    }
    // The first ball just above the right blade, the others higher.
    for i in 0..12 {
        let x = 1.1 - (i % 4) as f32;
        let at = Vec3::new(x, 3.35 + 0.8 * i as f32, 0.0);
        let ball = world
            .add_body(
                d3::BodyDesc::dynamic().position(at),
                d3::ColliderDesc::new(d3::Shape::ball(0.2).expect("valid ball")).density(300.0),
            )
            .expect("valid ball");
        bodies.push(ball);
    }
    Scene { world, bodies }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bridge_arc_has_equal_links_and_spans_its_posts() {
        let points = sagging_arc(BRIDGE_SPAN, BRIDGE_LINK, BRIDGE_PLANKS);
        assert_eq!(points.len(), BRIDGE_PLANKS + 1);
        assert!(
            (points[0] - Vec2::new(-5.0, 0.0)).length() < 1e-3,
            "{points:?}"
        );
        assert!((points[BRIDGE_PLANKS] - Vec2::new(5.0, 0.0)).length() < 1e-3);
        for pair in points.windows(2) {
            assert!(((pair[1] - pair[0]).length() - BRIDGE_LINK).abs() < 1e-3);
        }
        let sag = -points[BRIDGE_PLANKS / 2].y;
        assert!((1.0..2.5).contains(&sag), "sag {sag}");
    }

    #[test]
    fn the_joint_scenes_build_with_their_joints() {
        let bridge = rope_bridge_3d();
        assert_eq!(bridge.world.joints().count(), BRIDGE_PLANKS + 1);
        assert_eq!(bridge.bodies.len(), BRIDGE_PLANKS + BRIDGE_BOXES);
        let chain = chain_2d();
        assert_eq!(chain.world.joints().count(), CHAIN_LINKS + 1);
        let stairs = ragdoll_stairs_3d();
        assert_eq!(stairs.world.joints().count(), 10 * STAIR_RAGDOLLS);
        assert_eq!(stairs.bodies.len(), 11 * STAIR_RAGDOLLS);
        let car = car_2d();
        assert_eq!(car.world.joints().count(), 2);
        let door = door_3d();
        assert_eq!(door.world.joints().count(), 1);
        assert!(door.world.bodies().any(|(_, b)| b.user_data() == DOOR));
        // Every joint's anchors start together.
        for [a, b] in bridge
            .world
            .joints()
            .map(|(h, _)| bridge.world.joint_anchors(h).unwrap())
        {
            assert!((a - b).length() < 1e-4);
        }
    }
}
