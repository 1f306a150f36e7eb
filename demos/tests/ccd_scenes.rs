//! The continuous collision scenes (`bullets_3d`, `pinball_2d`) run
//! headless for a few seconds, as the demo runs them (sleeping on, the gun
//! firing on its schedule): no NaN, no bullet ever behind the wall it was
//! fired at (the backstop for shots at the stack), no ball ever outside
//! the pinball table. `cargo test --release -p demos --test ccd_scenes --
//! --nocapture` prints what was measured.

use demos::scenes::find;
use demos::sim::{Sim, SimWorld};
use tumble::glam::{Vec2, Vec3};
use tumble::{BodyKind, Dim, Vector, World};
use tumble_scenes::ccd_scenes::{
    BULLET_RADIUS, BULLET_SHOTS, PINBALL_BALLS, PINBALL_RADIUS, PINBALL_WALLS, TABLE_HALF_WIDTH,
    TABLE_HEIGHT,
};

/// Seconds each scene runs.
const SECONDS: f32 = 6.0;

fn sim(name: &str) -> Sim {
    let mut sim = Sim::new(find(name).expect("a scene"));
    sim.scripted = true;
    sim
}

fn all_finite<D: Dim>(world: &World<D>, name: &str, time: f32) {
    for (handle, body) in world.bodies() {
        assert!(
            body.position().is_finite() && body.linear_velocity().is_finite(),
            "{name}: body {handle:?} not finite at t = {time}"
        );
    }
}

#[test]
fn no_bullet_ends_behind_the_wall_it_was_fired_at() {
    let mut sim = sim("bullets_3d");
    // The least room left between a bullet's centre and the face it must
    // stay in front of, for shots at a wall and shots at the stack.
    let (mut wall_room, mut stack_room) = (f32::INFINITY, f32::INFINITY);
    let mut fastest = 0.0f32;
    let mut hit_walls = 0;
    let steps = (SECONDS * 60.0) as usize;
    for _ in 0..steps {
        sim.step();
        let SimWorld::D3(world) = &sim.world else {
            panic!("a 3D world")
        };
        all_finite(world, "bullets_3d", sim.time);
        let gun = sim.gun.as_ref().expect("a gun");
        for (bullet, shot) in &gun.bullets {
            let body = world.body(*bullet).expect("a bullet kept");
            fastest = fastest.max(body.linear_velocity().length());
            let behind = shot.behind(body.position());
            assert!(
                behind <= 0.0,
                "bullets_3d: a bullet fired at {:?} at {} m/s is {} m behind x = {} at t = {}",
                shot.aim,
                shot.speed,
                behind,
                shot.stop_x,
                sim.time
            );
            // Room left in front of the wall, while over against it.
            if shot.behind(body.position() - Vec3::X * 100.0) != 0.0 {
                let room = shot.stop_x - body.position().x;
                if shot.stop_x < 5.0 {
                    wall_room = wall_room.min(room);
                } else {
                    stack_room = stack_room.min(room);
                }
            }
        }
    }
    let gun = sim.gun.as_ref().expect("a gun");
    let SimWorld::D3(world) = &sim.world else {
        unreachable!()
    };
    // A bullet fired at a wall ends in front of it, stopped there.
    for (bullet, shot) in &gun.bullets {
        let body = world.body(*bullet).expect("a bullet");
        if shot.stop_x < 5.0 && body.position().x > shot.stop_x - 1.0 {
            hit_walls += 1;
        }
    }
    let shots = gun.shots;
    let walls = gun.bullets.iter().filter(|(_, s)| s.stop_x < 5.0).count();
    println!(
        "bullets_3d: {shots} shots ({walls} at walls, {hit_walls} of them ending within 1 m in front of its face), \
         fastest {fastest:.1} m/s; least room in front of a wall {wall_room:.4} m \
         (bullet radius {BULLET_RADIUS}), in front of the backstop {stack_room:.4} m"
    );
    assert!(shots >= 16, "{shots} shots");
    assert!(fastest > 250.0, "fastest {fastest}");
    assert_eq!(BULLET_SHOTS.len(), 6);
    assert!(
        hit_walls * 2 >= walls,
        "{hit_walls} of {walls} bullets at the walls stopped there"
    );
    // The stack was hit: some box moved.
    let moved = world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic && b.mass() > 0.5)
        .filter(|(_, b)| (b.position().x - tumble_scenes::ccd_scenes::TARGET_X).abs() > 0.05)
        .count();
    println!("bullets_3d: {moved} of the stack's 8 boxes moved more than 5 cm along x");
    assert!(moved > 0, "the stack was hit");
}

/// Whether the segments `a0`-`a1` and `b0`-`b1` cross.
fn crosses(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> bool {
    let side = |p: Vec2, q: Vec2, r: Vec2| (q - p).perp_dot(r - p);
    let (d1, d2) = (side(b0, b1, a0), side(b0, b1, a1));
    let (d3, d4) = (side(a0, a1, b0), side(a0, a1, b1));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// Distance from `p` to the segment `a`-`b`.
fn to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
    (a + (b - a) * t - p).length()
}

#[test]
fn no_pinball_leaves_the_table_or_passes_a_thin_wall() {
    let mut sim = sim("pinball_2d");
    let walls: Vec<(Vec2, Vec2)> = PINBALL_WALLS
        .iter()
        .map(|&(at, angle, half)| {
            let along = Vec2::from_angle(angle) * half;
            (at - along, at + along)
        })
        .collect();
    // The least distance from a ball's centre to the table's inner faces,
    // and to an inner thin wall's middle line.
    let mut room = f32::INFINITY;
    let mut wall_room = f32::INFINITY;
    let mut fastest = 0.0f32;
    let mut last: Vec<Vec2> = Vec::new();
    let steps = (SECONDS * 60.0) as usize;
    for _ in 0..steps {
        sim.step();
        let SimWorld::D2(world) = &sim.world else {
            panic!("a 2D world")
        };
        all_finite(world, "pinball_2d", sim.time);
        let balls: Vec<_> = world
            .bodies()
            .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
            .collect();
        assert_eq!(balls.len(), PINBALL_BALLS, "no ball lost");
        let now: Vec<Vec2> = balls.iter().map(|(_, b)| b.position()).collect();
        for (k, (handle, body)) in balls.iter().enumerate() {
            let p = now[k];
            fastest = fastest.max(body.linear_velocity().length());
            let inside = (TABLE_HALF_WIDTH - p.x.abs())
                .min(p.y)
                .min(TABLE_HEIGHT - p.y);
            assert!(
                inside > 0.0,
                "pinball_2d: ball {handle:?} at {p:?}, {} m outside the table at t = {}",
                -inside,
                sim.time
            );
            room = room.min(inside);
            for &(a, b) in &walls {
                wall_room = wall_room.min(to_segment(p, a, b));
                if let Some(&before) = last.get(k) {
                    assert!(
                        !crosses(before, p, a, b),
                        "pinball_2d: ball {handle:?} passed the wall {a:?}-{b:?} from \
                         {before:?} to {p:?} at t = {}",
                        sim.time
                    );
                }
            }
        }
        last = now;
    }
    let kinetic = sim.kinetic_energy();
    println!(
        "pinball_2d: fastest ball {fastest:.1} m/s; least distance from a centre to the \
         table's walls {room:.4} m, to a thin wall's middle line {wall_room:.4} m \
         (radius {PINBALL_RADIUS}); kinetic at {SECONDS} s {kinetic:.2} J"
    );
    assert!(fastest >= 45.0, "fastest {fastest}");
    assert!(room > PINBALL_RADIUS * 0.5, "a ball {room} m from a wall");
    assert!(
        wall_room > PINBALL_RADIUS * 0.5,
        "a ball {wall_room} m from a thin wall's middle"
    );
}
