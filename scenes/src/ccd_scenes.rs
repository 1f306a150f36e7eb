//! Continuous collision demo scenes (see the README's "Continuous
//! collision"): bodies fast enough to pass a thin wall in one step, which
//! the continuous pass moves back to where they first touch it.
//!
//! - [`bullets_3d`]: a shooting range. A gun (a fixed barrel whose user
//!   number is [`GUN`]) stands at one end; 10 m in front of it stand two
//!   thin walls (fixed boxes 1 cm and 2 cm thick) and, between them, a
//!   stack of eight boxes, with a thin backstop (1 cm) 4 m behind them.
//!   Whoever runs the scene fires the bullets ([`bullet_3d`]: 5 cm balls,
//!   `BodyDesc::bullet(true)`), in turn at the targets of [`BULLET_SHOTS`]
//!   at 150 to 300 m/s (the demo: one every 0.3 s). No bullet should end
//!   behind the wall it was fired at ([`BulletShot::stop_x`]).
//! - [`pinball_2d`]: a closed table ([`TABLE_HALF_WIDTH`] x
//!   [`TABLE_HEIGHT`], walls 2 cm thick) with pegs and thin slanted walls
//!   in it, and [`PINBALL_BALLS`] balls (bullets, so they also meet each
//!   other swept) launched at 20 to 50 m/s, restitution 0.9. No ball
//!   should leave the table.

use tumble::d2;
use tumble::d3;
use tumble::glam::{Vec2, Vec3};
use tumble::{BodyHandle, Settings, World, D2, D3};

use crate::Scene;

/// The user number that marks [`bullets_3d`]'s gun (its barrel).
pub const GUN: u64 = 0x0047_554e;
/// Where [`bullets_3d`]'s bullets leave the gun: 0.25 m in front of the
/// barrel's end.
pub const GUN_MUZZLE: Vec3 = Vec3::new(-5.25, 1.0, 0.0);
/// Radius of a bullet, metres (5 cm across).
pub const BULLET_RADIUS: f32 = 0.025;
/// Density of a bullet, kg/m³ (13 g).
pub const BULLET_DENSITY: f32 = 200.0;
/// Where the targets stand along x: the walls' and the stack's middle.
pub const TARGET_X: f32 = 4.0;
/// The first thin wall's half thickness (1 cm thick), at z = -1.6.
pub const WALL_A_HALF: f32 = 0.005;
/// The second thin wall's half thickness (2 cm thick), at z = 1.6.
pub const WALL_B_HALF: f32 = 0.01;
/// Where the backstop stands along x (1 cm thick, 6 m wide, 4 m high).
pub const BACKSTOP_X: f32 = 8.0;
/// The backstop's half thickness.
pub const BACKSTOP_HALF: f32 = 0.005;
/// Half the size of a box of the stack (0.4 m cubes, density 20: 1.28 kg).
const STACK_HALF: f32 = 0.2;

/// One shot of [`bullets_3d`]'s gun: where it aims, how fast, and how far
/// along x the bullet may go.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BulletShot {
    /// The point aimed at.
    pub aim: Vec3,
    /// Speed at the muzzle, m/s.
    pub speed: f32,
    /// The front face of the wall the bullet is fired at (the backstop's
    /// for a shot at the stack): its centre must not pass it within the
    /// wall's span ([`BulletShot::behind`]).
    pub stop_x: f32,
    /// The middle of that wall along z.
    pub wall_z: f32,
    /// Half that wall's width along z.
    pub wall_half_width: f32,
    /// The height of that wall's top.
    pub wall_top: f32,
}

impl BulletShot {
    /// How far a bullet whose centre is at `at` is behind the wall it was
    /// fired at, metres: past its front face along x while in front of or
    /// behind the wall itself (within its width and height); 0 or less when
    /// not. (A bullet that glances off and slides past a wall's edge is not
    /// behind it.)
    pub fn behind(&self, at: Vec3) -> f32 {
        let within = (at.z - self.wall_z).abs() < self.wall_half_width && at.y < self.wall_top;
        if within {
            at.x - self.stop_x
        } else {
            0.0
        }
    }
}

/// The gun's shots, in turn: at the 1 cm wall, the stack low, the 2 cm
/// wall, the stack in its middle, the 1 cm wall low, the stack high.
pub const BULLET_SHOTS: [BulletShot; 6] = [
    BulletShot {
        aim: Vec3::new(TARGET_X, 1.2, -1.6),
        speed: 150.0,
        stop_x: TARGET_X - WALL_A_HALF,
        wall_z: -1.6,
        wall_half_width: 0.6,
        wall_top: 2.0,
    },
    BulletShot {
        aim: Vec3::new(TARGET_X, 0.2, 0.0),
        speed: 200.0,
        stop_x: BACKSTOP_X - BACKSTOP_HALF,
        wall_z: 0.0,
        wall_half_width: 3.0,
        wall_top: 4.0,
    },
    BulletShot {
        aim: Vec3::new(TARGET_X, 1.5, 1.6),
        speed: 300.0,
        stop_x: TARGET_X - WALL_B_HALF,
        wall_z: 1.6,
        wall_half_width: 0.6,
        wall_top: 2.0,
    },
    BulletShot {
        aim: Vec3::new(TARGET_X, 0.9, 0.1),
        speed: 250.0,
        stop_x: BACKSTOP_X - BACKSTOP_HALF,
        wall_z: 0.0,
        wall_half_width: 3.0,
        wall_top: 4.0,
    },
    BulletShot {
        aim: Vec3::new(TARGET_X, 0.5, -1.4),
        speed: 300.0,
        stop_x: TARGET_X - WALL_A_HALF,
        wall_z: -1.6,
        wall_half_width: 0.6,
        wall_top: 2.0,
    },
    BulletShot {
        aim: Vec3::new(TARGET_X, 1.4, -0.1),
        speed: 180.0,
        stop_x: BACKSTOP_X - BACKSTOP_HALF,
        wall_z: 0.0,
        wall_half_width: 3.0,
        wall_top: 4.0,
    },
];

/// Half the width of [`pinball_2d`]'s table inside its walls, metres.
pub const TABLE_HALF_WIDTH: f32 = 8.0;
/// Height of [`pinball_2d`]'s table inside its walls, metres (from y = 0).
pub const TABLE_HEIGHT: f32 = 10.0;
/// Half the thickness of the table's walls (2 cm thick).
const TABLE_WALL_HALF: f32 = 0.01;
/// Balls of [`pinball_2d`].
pub const PINBALL_BALLS: usize = 12;
/// Radius of a pinball ball, metres.
pub const PINBALL_RADIUS: f32 = 0.12;
/// The thin walls inside [`pinball_2d`]'s table, 2 cm thick: centre,
/// angle (radians) and half length. Six slanted walls, then a V near the
/// top opening downwards.
pub const PINBALL_WALLS: [(Vec2, f32, f32); 8] = [
    (Vec2::new(-5.0, 3.0), 0.5, 1.2),
    (Vec2::new(5.0, 3.0), -0.5, 1.2),
    (Vec2::new(-2.5, 6.0), -0.5, 1.2),
    (Vec2::new(2.5, 6.0), 0.5, 1.2),
    (Vec2::new(-5.5, 8.0), -0.3, 1.2),
    (Vec2::new(5.5, 8.0), 0.3, 1.2),
    (Vec2::new(-0.55, 8.3), -0.7, 0.7),
    (Vec2::new(0.55, 8.3), 0.7, 0.7),
];
/// Restitution of the balls and the table's walls and pegs.
pub const PINBALL_RESTITUTION: f32 = 0.9;

/// A bullet for [`bullets_3d`]: a dynamic 5 cm ball at `from` moving at
/// `velocity`, swept against dynamic bodies too (`bullet(true)`).
pub fn bullet_3d(world: &mut World<D3>, from: Vec3, velocity: Vec3) -> Option<BodyHandle> {
    let shape = d3::Shape::ball(BULLET_RADIUS).ok()?;
    world
        .add_body(
            d3::BodyDesc::dynamic()
                .position(from)
                .linear_velocity(velocity)
                .bullet(true),
            d3::ColliderDesc::new(shape).density(BULLET_DENSITY),
        )
        .ok()
}

/// A fixed box of half extents `half` centred at `at`, with user number
/// `user`.
fn fixed_box_3d(world: &mut World<D3>, at: Vec3, half: Vec3, user: u64) -> BodyHandle {
    world
        .add_body(
            d3::BodyDesc::fixed().position(at).user_data(user),
            d3::ColliderDesc::new(d3::Shape::cuboid(half).expect("valid box")),
        )
        .expect("valid box")
}

/// 3D: a shooting range on a fixed ground (40 m square, its top at y = 0).
/// The gun: a fixed barrel (1 x 0.16 x 0.16 m, user number [`GUN`], its
/// end 0.25 m behind [`GUN_MUZZLE`]) on a post. At x = [`TARGET_X`]: a
/// wall 1 cm thick at z = -1.6 and one 2 cm thick at z = 1.6 (1.2 m wide,
/// 2 m high, fixed boxes standing on the ground) and between them a stack
/// of eight 0.4 m boxes (density 20, two wide, four high). At x =
/// [`BACKSTOP_X`] a backstop 1 cm thick, 6 m wide and 4 m high. No bullet
/// yet: see [`bullet_3d`] and [`BULLET_SHOTS`]. `bodies`: the stack's boxes.
pub fn bullets_3d() -> Scene<D3> {
    let mut world = World::new(Settings::default());
    fixed_box_3d(
        &mut world,
        Vec3::new(0.0, -0.5, 0.0),
        Vec3::new(20.0, 0.5, 20.0),
        0,
    );
    let barrel_half = Vec3::new(0.5, 0.08, 0.08);
    let barrel_end = GUN_MUZZLE.x - 0.25;
    fixed_box_3d(
        &mut world,
        Vec3::new(barrel_end - barrel_half.x, GUN_MUZZLE.y, 0.0),
        barrel_half,
        GUN,
    );
    let post_half = Vec3::new(0.08, (GUN_MUZZLE.y - barrel_half.y) * 0.5, 0.08);
    fixed_box_3d(
        &mut world,
        Vec3::new(barrel_end - 0.8, post_half.y, 0.0),
        post_half,
        0,
    );
    for (z, half) in [(-1.6, WALL_A_HALF), (1.6, WALL_B_HALF)] {
        fixed_box_3d(
            &mut world,
            Vec3::new(TARGET_X, 1.0, z),
            Vec3::new(half, 1.0, 0.6),
            0,
        );
    }
    fixed_box_3d(
        &mut world,
        Vec3::new(BACKSTOP_X, 2.0, 0.0),
        Vec3::new(BACKSTOP_HALF, 2.0, 3.0),
        0,
    );
    let shape = d3::Shape::cuboid(Vec3::splat(STACK_HALF)).expect("valid box");
    let mut bodies = Vec::new();
    for row in 0..4 {
        for z in [-1.0, 1.0] {
            let at = Vec3::new(
                TARGET_X,
                STACK_HALF + row as f32 * 2.0 * STACK_HALF,
                z * (STACK_HALF + 0.005),
            );
            let body = world
                .add_body(
                    d3::BodyDesc::dynamic().position(at),
                    d3::ColliderDesc::new(shape.clone()).density(20.0),
                )
                .expect("valid box");
            bodies.push(body);
        }
    }
    Scene { world, bodies }
}

/// A fixed 2D box of half extents `half` at `at` turned by `angle`, with
/// the pinball's restitution.
fn fixed_box_2d(world: &mut World<D2>, at: Vec2, angle: f32, half: Vec2) {
    world
        .add_body(
            d2::BodyDesc::fixed().position(at).rotation(angle),
            d2::ColliderDesc::new(d2::Shape::cuboid(half).expect("valid wall"))
                .restitution(PINBALL_RESTITUTION),
        )
        .expect("valid wall");
}

/// 2D: a pinball table. A closed box, [`TABLE_HALF_WIDTH`] to each side
/// of x = 0 and [`TABLE_HEIGHT`] high from y = 0 inside, of fixed walls
/// 2 cm thick; inside it three staggered rows of pegs (fixed balls of
/// radius 0.15 m), six thin slanted walls (2.4 m x 2 cm) and a thin V
/// near the top ([`PINBALL_WALLS`]). [`PINBALL_BALLS`] balls (radius
/// [`PINBALL_RADIUS`], bullets) start low in the table, launched at 20 to
/// 50 m/s in different directions. Everything has restitution
/// [`PINBALL_RESTITUTION`]. `bodies`: the balls.
pub fn pinball_2d() -> Scene<D2> {
    let mut world = World::new(Settings::default());
    let (w, h, t) = (TABLE_HALF_WIDTH, TABLE_HEIGHT, TABLE_WALL_HALF);
    // Floor, ceiling, left and right, overlapping at the corners.
    fixed_box_2d(
        &mut world,
        Vec2::new(0.0, -t),
        0.0,
        Vec2::new(w + 2.0 * t, t),
    );
    fixed_box_2d(
        &mut world,
        Vec2::new(0.0, h + t),
        0.0,
        Vec2::new(w + 2.0 * t, t),
    );
    for side in [-1.0, 1.0] {
        fixed_box_2d(
            &mut world,
            Vec2::new(side * (w + t), h * 0.5),
            0.0,
            Vec2::new(t, h * 0.5 + 2.0 * t),
        );
    }
    for (at, angle, half) in PINBALL_WALLS {
        fixed_box_2d(&mut world, at, angle, Vec2::new(half, t));
    }
    let peg = d2::Shape::ball(0.15).expect("valid peg");
    for row in 0..3 {
        for i in 0..7 {
            let x = -6.0 + 2.0 * i as f32 + if row % 2 == 1 { 1.0 } else { 0.0 };
            let y = 4.5 + 1.5 * row as f32 - if row == 1 { 0.4 } else { 0.0 };
            if x.abs() > w - 0.5 {
                continue;
            }
            world
                .add_body(
                    d2::BodyDesc::fixed().position(Vec2::new(x, y)),
                    d2::ColliderDesc::new(peg.clone()).restitution(PINBALL_RESTITUTION),
                )
                .expect("valid peg");
        }
    }
    let ball = d2::Shape::ball(PINBALL_RADIUS).expect("valid ball");
    let mut bodies = Vec::new();
    for k in 0..PINBALL_BALLS {
        let f = k as f32;
        let at = Vec2::new(-7.0 + f * (14.0 / (PINBALL_BALLS - 1) as f32), 1.2);
        // Upwards mostly, fanned left and right; 20 to 50 m/s.
        let angle = 0.35 + 2.4 * ((f * 0.618).fract());
        let speed = 20.0 + 30.0 * ((f * 0.377 + 0.1).fract());
        let velocity = Vec2::new(angle.cos(), angle.sin()) * speed;
        let body = world
            .add_body(
                d2::BodyDesc::dynamic()
                    .position(at)
                    .linear_velocity(velocity)
                    .bullet(true),
                d2::ColliderDesc::new(ball.clone())
                    .restitution(PINBALL_RESTITUTION)
                    .friction(0.1),
            )
            .expect("valid ball");
        bodies.push(body);
    }
    Scene { world, bodies }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ccd_scenes_build() {
        let range = bullets_3d();
        assert_eq!(range.bodies.len(), 8);
        assert!(range.world.bodies().any(|(_, b)| b.user_data() == GUN));
        let table = pinball_2d();
        assert_eq!(table.bodies.len(), PINBALL_BALLS);
        for &ball in &table.bodies {
            let body = table.world.body(ball).expect("a ball");
            let speed = body.linear_velocity().length();
            assert!((20.0..=50.0).contains(&speed), "speed {speed}");
        }
    }
}
