//! The gun of `bullets_3d`: from [`FIRST`] s on, every [`PERIOD`] seconds,
//! it fires a bullet (`tumble_scenes::ccd_scenes::bullet_3d`: a 5 cm ball,
//! `bullet(true)`) from the muzzle at the next target of
//! `tumble_scenes::ccd_scenes::BULLET_SHOTS` in turn, at 150 to 300 m/s,
//! aimed a little high for gravity's drop. Only the last [`KEPT`] bullets
//! are kept. The window and headless runs fire alike; in the window a click
//! fires one more from the camera ([`Gun::fire_from`]).

use tumble::d3::{BodyHandle, World};
use tumble::glam::Vec3;
use tumble_scenes::ccd_scenes::{bullet_3d, BulletShot, BULLET_SHOTS, GUN, GUN_MUZZLE};

/// Seconds between shots.
pub const PERIOD: f32 = 0.3;
/// The first shot's time, seconds.
pub const FIRST: f32 = 1.0;
/// Speed of a bullet fired by a click, m/s.
pub const CLICK_SPEED: f32 = 200.0;
/// Bullets kept: older ones are removed.
pub const KEPT: usize = 60;

/// The gun: the bullets it fired, oldest first.
#[derive(Clone, Debug, Default)]
pub struct Gun {
    /// The bullets fired on schedule and kept, oldest first, each with the
    /// shot it was fired as.
    pub bullets: Vec<(BodyHandle, BulletShot)>,
    /// Bullets fired by clicks and kept, oldest first.
    pub clicked: Vec<BodyHandle>,
    /// Shots fired on schedule.
    pub shots: usize,
}

impl Gun {
    /// A gun for `world` when it has one (a body whose user number is
    /// `GUN`).
    pub fn find(world: &World) -> Option<Self> {
        world
            .bodies()
            .any(|(_, b)| b.user_data() == GUN)
            .then(Self::default)
    }

    /// Fires when a shot is due at `time` (seconds since the start, before
    /// the step of length `dt`).
    pub fn update(&mut self, world: &mut World, time: f32, dt: f32) {
        let due = FIRST + self.shots as f32 * PERIOD;
        if time + 0.5 * dt < due {
            return;
        }
        let shot = BULLET_SHOTS[self.shots % BULLET_SHOTS.len()];
        let offset = shot.aim - GUN_MUZZLE;
        let flight = offset.length() / shot.speed;
        let gravity = world.settings().gravity;
        let velocity = offset / flight - gravity * (0.5 * flight);
        if let Some(bullet) = bullet_3d(world, GUN_MUZZLE, velocity) {
            self.bullets.push((bullet, shot));
        }
        self.shots += 1;
        while self.bullets.len() > KEPT {
            let (oldest, _) = self.bullets.remove(0);
            world.remove_body(oldest);
        }
    }

    /// Fires a bullet from `from` along `direction` at [`CLICK_SPEED`].
    pub fn fire_from(&mut self, world: &mut World, from: Vec3, direction: Vec3) {
        let velocity = direction.normalize_or_zero() * CLICK_SPEED;
        if let Some(bullet) = bullet_3d(world, from, velocity) {
            self.clicked.push(bullet);
        }
        while self.clicked.len() > KEPT {
            let oldest = self.clicked.remove(0);
            world.remove_body(oldest);
        }
    }
}
