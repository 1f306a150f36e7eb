//! Collisions between free bodies in zero gravity: velocity exchange,
//! momentum and energy.

mod common;

use common::*;
use tumble::shape::Shape;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, Settings, World};

const DT: f32 = 1.0 / 60.0;

fn weightless<D: Scene>() -> World<D> {
    World::new(Settings {
        gravity: D::v(0.0, 0.0),
        sleep: false,
        ..Settings::default()
    })
}

fn elastic_ball<D: Scene>(world: &mut World<D>, at: D::Vector, velocity: D::Vector) -> BodyHandle {
    let ball = ColliderDesc::new(Shape::ball(0.5).unwrap())
        .restitution(1.0)
        .friction(0.0);
    world
        .add_body(
            BodyDesc::dynamic().position(at).linear_velocity(velocity),
            ball,
        )
        .unwrap()
}

fn head_on<D: Scene>() {
    let mut world = weightless::<D>();
    let a = elastic_ball::<D>(&mut world, D::v(-2.0, 0.0), D::v(2.0, 0.0));
    let b = elastic_ball::<D>(&mut world, D::v(2.0, 0.0), D::v(-2.0, 0.0));
    for _ in 0..120 {
        world.step(DT);
    }
    let (va, vb) = (
        world.body(a).unwrap().linear_velocity(),
        world.body(b).unwrap().linear_velocity(),
    );
    println!("{}: after the collision va {va:?} vb {vb:?}", D::NAME);
    assert!(D::len(va - D::v(-2.0, 0.0)) <= 0.02, "va {va:?}");
    assert!(D::len(vb - D::v(2.0, 0.0)) <= 0.02, "vb {vb:?}");
}

#[test]
fn equal_balls_exchange_velocities_2d() {
    head_on::<tumble::D2>();
}

#[test]
fn equal_balls_exchange_velocities_3d() {
    head_on::<tumble::D3>();
}

fn momentum<D: Scene>(world: &World<D>) -> D::Vector {
    world.bodies().fold(D::v(0.0, 0.0), |sum, (_, b)| {
        sum + b.linear_velocity() * b.mass()
    })
}

fn kinetic_energy<D: Scene>(world: &World<D>) -> f32 {
    world
        .bodies()
        .map(|(_, b)| {
            0.5 * b.mass() * D::len(b.linear_velocity()).powi(2) + D::rotational_energy(b)
        })
        .sum()
}

/// True when some pair is in contact this step.
fn touching<D: Scene>(world: &World<D>) -> bool {
    world
        .contact_pairs()
        .iter()
        .any(|p| p.manifold.points().iter().any(|q| q.separation < 0.0))
}

/// A swarm of balls and boxes, spread on a grid and thrown at each other.
fn swarm<D: Scene>(world: &mut World<D>, restitution: f32) {
    let mut seed = 7u32;
    let mut random = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 - 0.5
    };
    for i in 0..6 {
        for j in 0..6 {
            let at = D::v(i as f32 * 1.6 - 4.0, j as f32 * 1.6 - 4.0);
            let velocity = D::v(random() * 8.0, random() * 8.0);
            let shape = if (i + j) % 2 == 0 {
                Shape::ball(0.4).unwrap()
            } else {
                D::cube(0.35)
            };
            let collider = ColliderDesc::new(shape)
                .restitution(restitution)
                .friction(0.3);
            world
                .add_body(
                    BodyDesc::dynamic().position(at).linear_velocity(velocity),
                    collider,
                )
                .unwrap();
        }
    }
}

fn momentum_is_kept<D: Scene>() {
    let mut world = weightless::<D>();
    swarm::<D>(&mut world, 0.5);
    let start = momentum(&world);
    let scale: f32 = world
        .bodies()
        .map(|(_, b)| b.mass() * D::len(b.linear_velocity()))
        .sum();
    let mut worst: f32 = 0.0;
    let mut touching_steps = 0;
    for _ in 0..300 {
        world.step(DT);
        worst = worst.max(D::len(momentum(&world) - start) / scale);
        touching_steps += usize::from(touching(&world));
    }
    assert!(
        touching_steps > 10,
        "the swarm hardly collided ({touching_steps} steps)"
    );
    println!(
        "{}: largest momentum change {worst:.2e} of the total |m v|",
        D::NAME
    );
    assert!(worst <= 1e-4, "momentum drifted by {worst}");
}

#[test]
fn collisions_keep_momentum_2d() {
    momentum_is_kept::<tumble::D2>();
}

#[test]
fn collisions_keep_momentum_3d() {
    momentum_is_kept::<tumble::D3>();
}

fn closed_box_gains_no_energy<D: Scene>() {
    let mut world = weightless::<D>();
    D::add_closed_box(&mut world, 6.0);
    swarm::<D>(&mut world, 1.0);
    let start = kinetic_energy(&world);
    let mut highest: f32 = 0.0;
    let mut touching_steps = 0;
    for _ in 0..600 {
        world.step(DT);
        highest = highest.max(kinetic_energy(&world));
        touching_steps += usize::from(touching(&world));
    }
    assert!(
        touching_steps > 10,
        "the balls hardly collided ({touching_steps} steps)"
    );
    println!(
        "{}: energy {start:.3} J at start, at most {highest:.3} J",
        D::NAME
    );
    assert!(
        highest <= 1.01 * start,
        "gained energy: {highest} from {start}"
    );
}

#[test]
fn bouncing_balls_in_a_closed_box_gain_no_energy_2d() {
    closed_box_gains_no_energy::<tumble::D2>();
}

#[test]
fn bouncing_balls_in_a_closed_box_gain_no_energy_3d() {
    closed_box_gains_no_energy::<tumble::D3>();
}
