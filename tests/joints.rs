//! Joints: pendulums keep their period, chains hold together, hinges obey
//! their springs, motors and limits, welds hold (issue: joints).

mod common;

use common::*;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, JointDesc, Settings, World};

const DT: f32 = 1.0 / 60.0;

fn awake<D: Scene>() -> Settings<D> {
    Settings {
        sleep: false,
        ..Settings::default()
    }
}

/// A fixed body at `at` (a small cube nobody touches).
fn pivot<D: Scene>(world: &mut World<D>, at: D::Vector) -> BodyHandle {
    world
        .add_body(
            BodyDesc::fixed().position(at),
            ColliderDesc::new(D::cube(0.05)),
        )
        .unwrap()
}

/// A pendulum: a 5 cm ball on a rigid 1 m distance joint, released at 10
/// degrees; its period and the share of its amplitude it keeps over 10
/// swings.
fn pendulum<D: Scene>() -> (f32, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 2.0));
    let angle = 10f32.to_radians();
    let length = 1.0;
    let start = D::v(length * angle.sin(), 2.0 - length * angle.cos());
    let bob = world
        .add_body(
            BodyDesc::dynamic().position(start),
            ColliderDesc::new(tumble::shape::Shape::ball(0.05).unwrap()),
        )
        .unwrap();
    world
        .add_joint(JointDesc::distance(top, bob, D::v(0.0, 2.0), start))
        .unwrap();
    // Swings are counted at the bob's turning points on the starting side,
    // where its speed along X turns from positive to negative.
    let mut turns = Vec::new();
    let mut peaks = Vec::new();
    let mut last_vx = 0.0f32;
    let mut t = 0.0;
    while turns.len() < 11 && t < 40.0 {
        world.step(DT);
        t += DT;
        let b = world.body(bob).unwrap();
        let vx = D::dot(b.linear_velocity(), D::v(1.0, 0.0));
        if last_vx > 0.0 && vx <= 0.0 {
            // Interpolate the crossing within the step.
            let f = last_vx / (last_vx - vx);
            turns.push(t - DT + f * DT);
            peaks.push(D::dot(b.position(), D::v(1.0, 0.0)));
        }
        last_vx = vx;
    }
    let period = (turns[10] - turns[0]) / 10.0;
    let kept = peaks[10] / (length * angle.sin());
    (period, kept)
}

fn check_pendulum<D: Scene>() {
    let (period, kept) = pendulum::<D>();
    let expected = 2.0 * core::f32::consts::PI * (1.0f32 / 9.81).sqrt();
    println!(
        "{}: pendulum period {period:.4} s (2 pi sqrt(L/g) {expected:.4}), amplitude kept {kept:.4}",
        D::NAME
    );
    assert!((period / expected - 1.0).abs() < 0.01, "period {period}");
    assert!(kept > 0.98, "amplitude kept {kept}");
}

#[test]
fn a_pendulum_keeps_its_period_and_amplitude_2d() {
    check_pendulum::<tumble::D2>();
}

#[test]
fn a_pendulum_keeps_its_period_and_amplitude_3d() {
    check_pendulum::<tumble::D3>();
}

/// A chain of 20 links (0.5 m boxes, 1:1 masses, or the last `end_mass`
/// times heavier) hinged end to end below a fixed pivot, hanging straight
/// down from rest: the summed distance between each hinge's two anchors
/// after 10 s.
fn hanging_chain<D: Scene>(end_mass: f32) -> f32 {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 10.0));
    let (links, half) = (20, 0.25);
    let mut previous = top;
    let mut joints = Vec::new();
    for i in 0..links {
        let density = if i == links - 1 { end_mass } else { 1.0 };
        let center = D::v(0.0, 10.0 - (2 * i + 1) as f32 * half);
        let link = world
            .add_body(
                BodyDesc::dynamic().position(center),
                ColliderDesc::new(D::cuboid(0.05, half)).density(density),
            )
            .unwrap();
        let anchor = D::v(0.0, 10.0 - 2.0 * i as f32 * half);
        joints.push(
            world
                .add_joint(JointDesc::revolute(previous, link, anchor))
                .unwrap(),
        );
        previous = link;
    }
    for _ in 0..600 {
        world.step(DT);
    }
    joints
        .iter()
        .map(|&j| {
            let [a, b] = world.joint_anchors(j).unwrap();
            D::len(b - a)
        })
        .sum()
}

fn check_hanging_chain<D: Scene>() {
    let even = hanging_chain::<D>(1.0);
    let heavy = hanging_chain::<D>(100.0);
    println!(
        "{}: chain of 20 hanging 10 s, anchors apart in all: 1:1 {even:.2e} m, 100:1 end {heavy:.2e} m",
        D::NAME
    );
    assert!(even < 1e-3, "1:1 chain apart {even}");
    assert!(heavy < 1e-2, "100:1 chain apart {heavy}");
}

#[test]
fn a_chain_of_twenty_links_holds_together_2d() {
    check_hanging_chain::<tumble::D2>();
}

#[test]
fn a_chain_of_twenty_links_holds_together_3d() {
    check_hanging_chain::<tumble::D3>();
}

/// The same chain (1:1) released horizontal: its energy (kinetic plus
/// potential) at each step, and the largest summed anchor separation.
fn released_chain<D: Scene>() -> (Vec<f32>, f32) {
    let mut world = World::<D>::new(awake::<D>());
    let top = pivot(&mut world, D::v(0.0, 10.0));
    let (links, half) = (20, 0.25);
    let mut previous = top;
    let (mut joints, mut bodies) = (Vec::new(), Vec::new());
    for i in 0..links {
        let link = world
            .add_body(
                BodyDesc::dynamic().position(D::v((2 * i + 1) as f32 * half, 10.0)),
                ColliderDesc::new(D::cuboid(half, 0.05)),
            )
            .unwrap();
        let anchor = D::v(2.0 * i as f32 * half, 10.0);
        joints.push(
            world
                .add_joint(JointDesc::revolute(previous, link, anchor))
                .unwrap(),
        );
        bodies.push(link);
        previous = link;
    }
    let energy = |world: &World<D>| -> f32 {
        bodies
            .iter()
            .map(|&h| {
                let b = world.body(h).unwrap();
                let v = b.linear_velocity();
                0.5 * b.mass() * D::dot(v, v)
                    + b.mass() * 9.81 * D::height(b.position())
                    + D::rotational_energy(b)
            })
            .sum()
    };
    let mut energies = vec![energy(&world)];
    let mut worst = 0.0f32;
    for _ in 0..600 {
        world.step(DT);
        energies.push(energy(&world));
        let apart: f32 = joints
            .iter()
            .map(|&j| {
                let [a, b] = world.joint_anchors(j).unwrap();
                D::len(b - a)
            })
            .sum();
        worst = worst.max(apart);
    }
    (energies, worst)
}

fn check_released_chain<D: Scene>() {
    let (energies, worst) = released_chain::<D>();
    let start = energies[0];
    let top = energies.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let kinetic_scale = start.abs().max(1.0);
    println!(
        "{}: chain of 20 released: energy start {start:.3} J, highest {top:.3} J, end {:.3} J; anchors apart at most {worst:.2e} m in all",
        D::NAME,
        energies[energies.len() - 1]
    );
    // Never above the start: a rise of a ten-thousandth of it would be the
    // solver adding energy, beyond rounding.
    assert!(
        top <= start + 1e-4 * kinetic_scale,
        "energy rose to {top} from {start}"
    );
}

#[test]
fn a_released_chain_never_gains_energy_2d() {
    check_released_chain::<tumble::D2>();
}

#[test]
fn a_released_chain_never_gains_energy_3d() {
    check_released_chain::<tumble::D3>();
}
