//! The cannon of `door_3d`: from 1 s on, every [`PERIOD`] seconds, it fires
//! a ball from 7 m in front of the door (the body whose user number is
//! `tumble_scenes::joint_scenes::DOOR`) at a point on it, in turn near its
//! free edge, in its middle and high up, on an arc that strikes it at
//! [`SPEED`] m/s. Only the last [`KEPT`] balls are kept. The window and
//! headless runs fire alike.

use tumble::d3::{BodyDesc, BodyHandle, ColliderDesc, Shape, World};
use tumble::glam::Vec3;
use tumble_scenes::joint_scenes::{DOOR, DOOR_HINGE};

/// Seconds between shots.
pub const PERIOD: f32 = 1.5;
/// The first shot's time, seconds.
pub const FIRST: f32 = 1.0;
/// Horizontal speed of a shot, m/s.
pub const SPEED: f32 = 9.0;
/// Balls kept: older ones are removed.
pub const KEPT: usize = 12;
/// Radius of a ball, metres.
const RADIUS: f32 = 0.2;
/// Density of a ball, kg/m³ (0.27 kg).
const DENSITY: f32 = 8.0;
/// Where the balls are fired from, relative to the door's hinge.
const MUZZLE: Vec3 = Vec3::new(1.2, 0.3, 7.0);
/// The points aimed at in turn, relative to the hinge (the door is 0.96 m
/// wide and 2.06 m tall, its centre 0.48 m to the right of the hinge).
const AIMS: [Vec3; 3] = [
    Vec3::new(0.8, -0.2, 0.0),
    Vec3::new(0.5, 0.1, 0.0),
    Vec3::new(0.7, 0.6, 0.0),
];

/// The cannon: the balls it fired, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Cannon {
    /// The balls fired and kept, oldest first.
    pub balls: Vec<BodyHandle>,
    /// Shots fired.
    pub shots: usize,
}

impl Cannon {
    /// A cannon for `world` when it has a door to fire at.
    pub fn find(world: &World) -> Option<Self> {
        world
            .bodies()
            .any(|(_, b)| b.user_data() == DOOR)
            .then(Self::default)
    }

    /// Fires when a shot is due at `time` (seconds since the start, before
    /// the step of length `dt`).
    pub fn update(&mut self, world: &mut World, time: f32, dt: f32) {
        let due = FIRST + self.shots as f32 * PERIOD;
        if time + 0.5 * dt < due {
            return;
        }
        let aim = DOOR_HINGE + AIMS[self.shots % AIMS.len()];
        let from = DOOR_HINGE + MUZZLE;
        // On an arc that reaches the aim in `flight` seconds.
        let offset = aim - from;
        let flight = Vec3::new(offset.x, 0.0, offset.z).length() / SPEED;
        let gravity = world.settings().gravity;
        let velocity = offset / flight - gravity * (0.5 * flight);
        let shape = Shape::ball(RADIUS).expect("valid ball");
        if let Ok(ball) = world.add_body(
            BodyDesc::dynamic().position(from).linear_velocity(velocity),
            ColliderDesc::new(shape).density(DENSITY),
        ) {
            self.balls.push(ball);
        }
        self.shots += 1;
        while self.balls.len() > KEPT {
            let oldest = self.balls.remove(0);
            world.remove_body(oldest);
        }
    }
}
