//! A ragdoll (3D): 11 bodies held by 10 joints, for the joint tests, the
//! stairs demo and stress runs.
//!
//! Pelvis, chest, head; upper and lower arms; thighs and shins.
//! The spine, neck, shoulders and hips are ball joints within a cone and a
//! twist range about the part's length; the elbows and knees hinges with
//! limits (they bend one way, as limbs do). The limbs'
//! parts do not collide with the part they hang from; the rest of the body
//! collides with itself.

use tumble::glam::{Quat, Vec3};
use tumble::shape::Shape;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, JointDesc, World, D3};

/// The parts' density, kg/m³: a body's (about water's), so a ragdoll of
/// these sizes weighs some 76 kg, as a person does, against the 1 kg/m³
/// default that made it 76 g, flung by any ball.
const BODY_DENSITY: f32 = 1000.0;

/// How far an elbow or knee bends from straight, radians: 150 degrees.
const LIMB_BEND: f32 = 150.0 * core::f32::consts::PI / 180.0;

/// A ragdoll standing about 1.8 m tall, its pelvis at `at`, turned by
/// `rotation` about the pelvis; its bodies (pelvis first).
pub fn add_ragdoll(world: &mut World<D3>, at: Vec3, rotation: Quat) -> Vec<BodyHandle> {
    let place = |p: Vec3| at + rotation * p;
    let mut bodies = Vec::new();
    let mut add = |world: &mut World<D3>, p: Vec3, shape: Shape<D3>| {
        let body = world
            .add_body(
                BodyDesc::dynamic().position(place(p)).rotation(rotation),
                ColliderDesc::new(shape).friction(0.6).density(BODY_DENSITY),
            )
            .expect("a ragdoll part");
        bodies.push(body);
        body
    };
    let capsule = |half: f32, radius: f32| Shape::capsule(half, radius).expect("a capsule");
    let block = |x: f32, y: f32, z: f32| Shape::cuboid(Vec3::new(x, y, z)).expect("a box");
    let pelvis = add(world, Vec3::ZERO, block(0.16, 0.1, 0.1));
    let chest = add(world, Vec3::new(0.0, 0.36, 0.0), block(0.18, 0.22, 0.1));
    let head = add(
        world,
        Vec3::new(0.0, 0.75, 0.0),
        Shape::ball(0.12).expect("a ball"),
    );
    let mut limbs = Vec::new();
    for side in [-1.0f32, 1.0] {
        let upper_arm = add(
            world,
            Vec3::new(side * 0.33, 0.44, 0.0),
            capsule(0.11, 0.05),
        );
        let lower_arm = add(
            world,
            Vec3::new(side * 0.33, 0.16, 0.0),
            capsule(0.1, 0.045),
        );
        let thigh = add(
            world,
            Vec3::new(side * 0.09, -0.32, 0.0),
            capsule(0.14, 0.065),
        );
        let shin = add(
            world,
            Vec3::new(side * 0.09, -0.72, 0.0),
            capsule(0.14, 0.055),
        );
        limbs.push((side, upper_arm, lower_arm, thigh, shin));
    }
    let joint = |world: &mut World<D3>, desc: JointDesc<D3>| {
        world.add_joint(desc).expect("a ragdoll joint");
    };
    let (up, down) = (rotation * Vec3::Y, rotation * Vec3::NEG_Y);
    let ball = |a, b, at: Vec3, axis: Vec3, cone: f32, twist: f32| {
        JointDesc::spherical(a, b, place(at))
            .axis(axis)
            .cone(cone)
            .twist_limits(-twist, twist)
    };
    joint(
        world,
        ball(pelvis, chest, Vec3::new(0.0, 0.12, 0.0), up, 0.5, 0.5),
    );
    joint(
        world,
        ball(chest, head, Vec3::new(0.0, 0.6, 0.0), up, 0.6, 0.8),
    );
    let sideways = rotation * Vec3::X;
    for (side, upper_arm, lower_arm, thigh, shin) in limbs {
        let elbow = place(Vec3::new(side * 0.33, 0.3, 0.0));
        let knee = place(Vec3::new(side * 0.09, -0.52, 0.0));
        let shoulder = Vec3::new(side * 0.33, 0.58, 0.0);
        let hip = Vec3::new(side * 0.09, -0.12, 0.0);
        joint(world, ball(chest, upper_arm, shoulder, down, 1.6, 0.8));
        joint(
            world,
            JointDesc::revolute(upper_arm, lower_arm, elbow)
                .axis(sideways)
                .limits(0.0, LIMB_BEND),
        );
        joint(world, ball(pelvis, thigh, hip, down, 1.2, 0.5));
        joint(
            world,
            JointDesc::revolute(thigh, shin, knee)
                .axis(sideways)
                .limits(-LIMB_BEND, 0.0),
        );
    }
    bodies
}
