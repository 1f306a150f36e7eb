//! The car of `car_2d`: a chassis and wheels on wheel joints whose drives
//! the Left/Right keys set (Right drives right, Left left, neither holds
//! the wheels still: a brake); headless and screenshot runs follow a
//! script (drive right, the speed the scene is built with).
//!
//! A new speed is set on each wheel joint's drive
//! (`Joint::set_drive_speed`), the chassis woken so a parked car drives off.

use tumble::d2::{BodyHandle, JointHandle, World};
use tumble::glam::Vec2;
use tumble::joint::JointModel;
use tumble_scenes::joint_scenes::CAR_DRIVE_SPEED;

use crate::player::PlayerInput;

/// The car's bodies and its wheel joints.
#[derive(Clone, Debug)]
pub struct Car {
    /// The chassis: every wheel joint's first body.
    pub chassis: BodyHandle,
    /// The wheel joints.
    pub wheels: Vec<JointHandle>,
    /// The drive speed the wheels have, rad/s about Z (negative: right).
    pub speed: f32,
}

impl Car {
    /// The car of `world`: its wheel joints (`JointModel::Wheel`), all on
    /// one chassis, if any.
    pub fn find(world: &World) -> Option<Self> {
        let mut wheels = world
            .joints()
            .filter(|(_, j)| matches!(j.model(), JointModel::Wheel { .. }));
        let (first, joint) = wheels.next()?;
        let chassis = joint.bodies()[0];
        let speed = match joint.model() {
            JointModel::Wheel {
                motor: Some(motor), ..
            } => motor.speed,
            _ => 0.0,
        };
        let mut handles = vec![first];
        handles.extend(
            wheels
                .filter(|(_, j)| j.bodies()[0] == chassis)
                .map(|(h, _)| h),
        );
        Some(Self {
            chassis,
            wheels: handles,
            speed,
        })
    }

    /// The drive speed `input` asks for, rad/s about Z.
    pub fn speed_for(input: PlayerInput) -> f32 {
        match (input.left, input.right) {
            (false, true) => -CAR_DRIVE_SPEED,
            (true, false) => CAR_DRIVE_SPEED,
            _ => 0.0,
        }
    }

    /// A scripted run's input: drive right.
    pub fn scripted() -> PlayerInput {
        PlayerInput {
            left: false,
            right: true,
            jump: false,
        }
    }

    /// Sets the wheels' drive to what `input` asks, if it changed.
    pub fn drive(&mut self, world: &mut World, input: PlayerInput) {
        let speed = Self::speed_for(input);
        if speed == self.speed {
            return;
        }
        for &wheel in &self.wheels {
            if let Some(joint) = world.joint_mut(wheel) {
                joint.set_drive_speed(speed);
            }
        }
        if let Some(mut chassis) = world.body_mut(self.chassis) {
            chassis.wake_up();
        }
        self.speed = speed;
    }

    /// The chassis' position, if it is still there.
    pub fn position(&self, world: &World) -> Option<Vec2> {
        world.body(self.chassis).map(|b| b.position())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scene drives right as built; a changed speed keeps the same
    /// wheel joints and the suspension's rest (the chassis does not sink),
    /// and the new drive turns the wheels the other way.
    #[test]
    fn the_car_drives_right_then_left_and_keeps_its_ride_height() {
        let mut world = tumble_scenes::joint_scenes::car_2d().world;
        let mut car = Car::find(&world).expect("a car");
        assert_eq!(car.wheels.len(), 2);
        assert_eq!(car.speed, -CAR_DRIVE_SPEED);
        let dt = 1.0 / 60.0;
        let start = car.position(&world).unwrap();
        for _ in 0..60 {
            car.drive(&mut world, Car::scripted());
            world.step(dt);
        }
        let moved = car.position(&world).unwrap();
        assert!(moved.x > start.x + 1.0, "drove right: {start} -> {moved}");
        let old = car.wheels.clone();
        let left = PlayerInput {
            left: true,
            ..Default::default()
        };
        // Many changes of speed: the ride height stays.
        for k in 0..240 {
            let input = if (k / 20) % 2 == 0 {
                left
            } else {
                PlayerInput::default()
            };
            car.drive(&mut world, input);
            world.step(dt);
        }
        car.drive(&mut world, left);
        for _ in 0..120 {
            world.step(dt);
        }
        assert_eq!(car.wheels, old, "the same joints");
        let back = car.position(&world).unwrap();
        assert!(back.x < moved.x - 1.0, "drove left: {moved} -> {back}");
        // On the flat start the chassis rides where it settled (2.5 cm
        // below where it was built).
        let sag = start.y - back.y;
        assert!((0.01..0.04).contains(&sag), "{start} -> {back}");
        for &wheel in &car.wheels {
            let [a, b] = world.joint_anchors(wheel).unwrap();
            assert!(
                (a - b).length() < 0.05,
                "suspension travel {}",
                (a - b).length()
            );
        }
    }
}
