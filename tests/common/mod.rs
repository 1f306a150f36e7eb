//! Scene helpers shared by the scenario tests: one trait, two dimensions.

#![allow(dead_code)]

use tumble::glam::{Quat, Vec2, Vec3};
use tumble::shape::Shape;
use tumble::{BodyDesc, ColliderDesc, Dim, World, D2, D3};

/// What the tests need to say in either dimension. "Height" is Y; "sideways"
/// is the distance from the Y axis.
pub trait Scene: Dim {
    const NAME: &'static str;
    /// The point (x, y) (z = 0 in 3D).
    fn v(x: f32, y: f32) -> Self::Vector;
    /// A cube (square) of half side `h`.
    fn cube(h: f32) -> Shape<Self>;
    /// A box `half_width` wide (in x and z) and `half_height` tall.
    fn cuboid(half_width: f32, half_height: f32) -> Shape<Self>;
    fn height(v: Self::Vector) -> f32;
    fn sideways(v: Self::Vector) -> f32;
    fn len(v: Self::Vector) -> f32;
    /// A rotation by `angle` about Z.
    fn tilt(angle: f32) -> Self::Angle;
}

impl Scene for D2 {
    const NAME: &'static str = "2D";
    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }
    fn cube(h: f32) -> Shape<D2> {
        Shape::cuboid(Vec2::splat(h)).unwrap()
    }
    fn cuboid(half_width: f32, half_height: f32) -> Shape<D2> {
        Shape::cuboid(Vec2::new(half_width, half_height)).unwrap()
    }
    fn height(v: Vec2) -> f32 {
        v.y
    }
    fn sideways(v: Vec2) -> f32 {
        v.x.abs()
    }
    fn len(v: Vec2) -> f32 {
        v.length()
    }
    fn tilt(angle: f32) -> f32 {
        angle
    }
}

impl Scene for D3 {
    const NAME: &'static str = "3D";
    fn v(x: f32, y: f32) -> Vec3 {
        Vec3::new(x, y, 0.0)
    }
    fn cube(h: f32) -> Shape<D3> {
        Shape::cuboid(Vec3::splat(h)).unwrap()
    }
    fn cuboid(half_width: f32, half_height: f32) -> Shape<D3> {
        Shape::cuboid(Vec3::new(half_width, half_height, half_width)).unwrap()
    }
    fn height(v: Vec3) -> f32 {
        v.y
    }
    fn sideways(v: Vec3) -> f32 {
        Vec2::new(v.x, v.z).length()
    }
    fn len(v: Vec3) -> f32 {
        v.length()
    }
    fn tilt(angle: f32) -> Quat {
        Quat::from_rotation_z(angle)
    }
}

/// A fixed ground box whose top face is at `top`.
pub fn add_ground<D: Scene>(world: &mut World<D>, top: f32) {
    world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, top - 0.5)),
            ColliderDesc::new(D::cuboid(100.0, 0.5)),
        )
        .unwrap();
}
