//! Pyramids: stacks under load stand without drifting.

mod common;

use common::*;
use tumble::glam::Vec3;
use tumble::{BodyDesc, ColliderDesc, Settings, World, D2, D3};

const DT: f32 = 1.0 / 60.0;

#[test]
fn pyramid_of_820_boxes_stands_2d() {
    let mut world = World::<D2>::new(Settings::default());
    add_ground::<D2>(&mut world, 0.0);
    let boxes = add_pyramid::<D2>(&mut world, 40);
    assert_eq!(boxes.len(), 820);
    let start = positions(&world, &boxes);
    for _ in 0..500 {
        world.step(DT);
    }
    let drift = largest_drift(&world, &boxes, &start);
    println!("2D pyramid of 820: largest sideways drift {drift:.4} m");
    assert!(drift < 0.03, "drift {drift}");
}

#[test]
fn square_pyramid_of_385_cubes_stands_3d() {
    let mut world = World::<D3>::new(Settings::default());
    add_ground::<D3>(&mut world, 0.0);
    let cube = D3::cube(0.5);
    let mut boxes = Vec::new();
    for layer in 0..10 {
        let side = 10 - layer;
        for i in 0..side {
            for k in 0..side {
                let offset = (side - 1) as f32 * 0.5;
                let p = Vec3::new(i as f32 - offset, 0.5 + layer as f32, k as f32 - offset);
                boxes.push(
                    world
                        .add_body(
                            BodyDesc::dynamic().position(p),
                            ColliderDesc::new(cube.clone()),
                        )
                        .unwrap(),
                );
            }
        }
    }
    assert_eq!(boxes.len(), 385);
    let start = positions(&world, &boxes);
    for _ in 0..500 {
        world.step(DT);
    }
    let drift = largest_drift(&world, &boxes, &start);
    println!("3D square pyramid of 385: largest sideways drift {drift:.5} m");
    assert!(drift < 0.01, "drift {drift}");
}
