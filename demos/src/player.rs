//! The player of `player_2d`: a capsule with its rotation locked, walked by
//! setting its horizontal velocity and jumping with an impulse when a ray
//! cast down from its centre, with the player left out of the query, finds
//! ground under it. Impacts (contacts that started with an approach faster
//! than [`IMPACT_SPEED`]) are kept for a moment, to be drawn where they
//! struck, as large as their impulse.

use tumble::d2::{BodyHandle, ContactEvent, QueryFilter, ShapeKind, World};
use tumble::glam::Vec2;

/// Walking speed, m/s.
const WALK_SPEED: f32 = 5.0;
/// Most horizontal acceleration the player's legs give, m/s².
const WALK_ACCELERATION: f32 = 30.0;
/// Speed a jump gives, m/s (a jump about 0.9 m high).
const JUMP_SPEED: f32 = 4.2;
/// How far below its feet ground still counts as under the player, metres.
const GROUND_REACH: f32 = 0.08;
/// Approach speed above which a contact's start is an impact, m/s.
pub const IMPACT_SPEED: f32 = 1.0;
/// How long an impact stays drawn, seconds.
pub const IMPACT_LIFE: f32 = 0.5;
/// Seconds between the scripted player's jumps (headless runs).
const SCRIPT_JUMP_PERIOD: f32 = 1.5;

/// What the player's keys ask for this step.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerInput {
    /// Walk left.
    pub left: bool,
    /// Walk right.
    pub right: bool,
    /// Jump, if on the ground.
    pub jump: bool,
}

impl PlayerInput {
    /// A headless run's input at `time` seconds: walk right, jumping every
    /// [`SCRIPT_JUMP_PERIOD`].
    pub fn scripted(time: f32, dt: f32) -> Self {
        Self {
            left: false,
            right: true,
            jump: time % SCRIPT_JUMP_PERIOD < dt,
        }
    }
}

/// Where something struck, how hard, and how long ago.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Impact {
    /// The contact point, world space, metres.
    pub point: Vec2,
    /// The step's normal impulse there, N·s.
    pub impulse: f32,
    /// Seconds since it struck.
    pub age: f32,
}

/// The player's body and the impacts on show.
#[derive(Clone, Debug)]
pub struct Player {
    /// The player's body.
    pub body: BodyHandle,
    /// Recent impacts anywhere in the world.
    pub impacts: Vec<Impact>,
    /// Jumps taken.
    pub jumps: u32,
}

impl Player {
    /// The player of `world`: the body whose user number is `tag`, if any.
    pub fn find(world: &World, tag: u64) -> Option<Self> {
        let body = world
            .bodies()
            .find(|(_, b)| b.user_data() == tag)
            .map(|(h, _)| h)?;
        Some(Self {
            body,
            impacts: Vec::new(),
            jumps: 0,
        })
    }

    /// True when a ray down from the player's centre, the player left out,
    /// meets something within its feet plus [`GROUND_REACH`].
    pub fn grounded(&self, world: &World) -> bool {
        let Some(body) = world.body(self.body) else {
            return false;
        };
        let feet = match body.shape().kind() {
            ShapeKind::Capsule {
                half_height,
                radius,
            } => half_height + radius,
            _ => body.shape().bounding_radius(),
        };
        let filter = QueryFilter::default().excluding(self.body);
        world
            .cast_ray(body.position(), Vec2::NEG_Y, feet + GROUND_REACH, &filter)
            .is_some()
    }

    /// Before a step of `dt`: walk as `input` asks, and jump from the ground.
    /// The walk is a push towards the walking speed, no harder than
    /// [`WALK_ACCELERATION`] (a velocity set outright would shove whatever
    /// is in the way with no limit, and the crates it squeezes launch it).
    pub fn drive(&mut self, world: &mut World, input: PlayerInput, dt: f32) {
        let grounded = self.grounded(world);
        let Some(mut body) = world.body_mut(self.body) else {
            return;
        };
        let walk = (input.right as i32 - input.left as i32) as f32 * WALK_SPEED;
        let velocity = body.linear_velocity();
        let most = WALK_ACCELERATION * dt;
        let change = (walk - velocity.x).clamp(-most, most);
        let _ = body.apply_impulse_at_center(Vec2::new(body.mass() * change, 0.0));
        if input.jump && grounded {
            let lift = body.mass() * (JUMP_SPEED - velocity.y.max(0.0));
            if body.apply_impulse_at_center(Vec2::new(0.0, lift)).is_ok() {
                self.jumps += 1;
            }
        }
    }

    /// After a step of `dt`: the step's impacts join those on show, and
    /// old ones go.
    pub fn record_impacts(&mut self, world: &World, dt: f32) {
        for impact in &mut self.impacts {
            impact.age += dt;
        }
        self.impacts.retain(|i| i.age < IMPACT_LIFE);
        for event in world.contact_events() {
            if let ContactEvent::Started {
                point,
                impulse,
                approach_speed,
                ..
            } = *event
            {
                if approach_speed > IMPACT_SPEED {
                    self.impacts.push(Impact {
                        point,
                        impulse,
                        age: 0.0,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four seconds of the headless script in `player_2d`: the player walks
    /// into the crates and jumps, its rotation stays exactly zero, and the
    /// crates never launch it above a jump's height over what it stands on.
    #[test]
    fn the_scripted_player_walks_jumps_and_stays_upright() {
        let mut world = tumble_scenes::player_2d().world;
        let mut player = Player::find(&world, tumble_scenes::PLAYER).expect("a player");
        let dt = 1.0 / 60.0;
        let mut time = 0.0;
        let start = world.body(player.body).unwrap().position();
        let mut highest_speed_up = f32::NEG_INFINITY;
        for _ in 0..240 {
            player.drive(&mut world, PlayerInput::scripted(time, dt), dt);
            world.step(dt);
            player.record_impacts(&world, dt);
            time += dt;
            let body = world.body(player.body).unwrap();
            assert_eq!(body.rotation(), 0.0, "the player never tips");
            assert_eq!(body.angular_velocity(), 0.0);
            highest_speed_up = highest_speed_up.max(body.linear_velocity().y);
        }
        let end = world.body(player.body).unwrap().position();
        assert!(player.jumps >= 2, "jumped {} times", player.jumps);
        assert!(end.x > start.x + 5.0, "walked from {start} to {end}");
        assert!(
            highest_speed_up < JUMP_SPEED + 1.0,
            "launched upwards at {highest_speed_up} m/s"
        );
    }
}
