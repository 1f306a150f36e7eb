//! Scene helpers shared by the scenario tests: one trait, two dimensions.

#![allow(dead_code)]

use tumble::glam::{Quat, Vec2, Vec3};
use tumble::shape::Shape;
use tumble::{BodyDesc, BodyHandle, ColliderDesc, Dim, JointDesc, JointHandle, Settings, World};
use tumble::{D2, D3};

/// What the tests need to say in either dimension. "Height" is Y; "sideways"
/// is the distance from the Y axis.
pub trait Scene: Dim {
    const NAME: &'static str;
    /// The point (x, y) (z = 0 in 3D).
    fn v(x: f32, y: f32) -> Self::Vector;
    /// The point (x, y, z); z is dropped in 2D.
    fn xyz(x: f32, y: f32, z: f32) -> Self::Vector;
    /// How far the body has turned from its start, radians (any axis).
    fn turned(body: tumble::Body<Self>, start: Self::Orientation) -> f32;
    /// A cube (square) of half side `h`.
    fn cube(h: f32) -> Shape<Self>;
    /// A box `half_width` wide (in x and z) and `half_height` tall.
    fn cuboid(half_width: f32, half_height: f32) -> Shape<Self>;
    /// A box of half extents (x, y, z); z is dropped in 2D.
    fn cuboid_xyz(x: f32, y: f32, z: f32) -> Shape<Self>;
    /// A spin of `w` rad/s about Z.
    fn spin(w: f32) -> Self::AngularVector;
    fn height(v: Self::Vector) -> f32;
    fn sideways(v: Self::Vector) -> f32;
    /// Length of the horizontal part of a displacement.
    fn horizontal(v: Self::Vector) -> f32 {
        Self::sideways(v)
    }
    fn len(v: Self::Vector) -> f32;
    fn dot(a: Self::Vector, b: Self::Vector) -> f32;
    /// A rotation by `angle` about Z.
    fn tilt(angle: f32) -> Self::Orientation;
    /// The raw bits of a vector's components.
    fn bits(v: Self::Vector) -> Vec<u32>;
    /// True when the body's rotation and angular velocity are finite.
    fn angular_is_finite(body: tumble::Body<Self>) -> bool;
    /// Kinetic energy of the body's spin, J.
    fn rotational_energy(body: tumble::Body<Self>) -> f32;
    /// Fixed walls around the origin, `half` metres from it on every side.
    fn add_closed_box(world: &mut World<Self>, half: f32);
    /// A convex hull (a polygon in 2D) around the origin, `size` metres across.
    fn hull(size: f32) -> Shape<Self>;
    /// The spin's component about Z (all of it in 2D).
    fn spin_z(w: Self::AngularVector) -> f32;
    /// A rotation as typed: the angle `values[0]` in 2D, the quaternion
    /// `values` (x, y, z, w), not normalised, in 3D.
    fn raw_rotation(values: [f32; 4]) -> Self::Orientation;
}

impl Scene for D2 {
    const NAME: &'static str = "2D";
    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }
    fn xyz(x: f32, y: f32, _z: f32) -> Vec2 {
        Vec2::new(x, y)
    }
    fn turned(body: tumble::Body<D2>, start: f32) -> f32 {
        (body.rotation() - start).abs()
    }
    fn cube(h: f32) -> Shape<D2> {
        Shape::cuboid(Vec2::splat(h)).unwrap()
    }
    fn cuboid(half_width: f32, half_height: f32) -> Shape<D2> {
        Shape::cuboid(Vec2::new(half_width, half_height)).unwrap()
    }
    fn cuboid_xyz(x: f32, y: f32, _z: f32) -> Shape<D2> {
        Shape::cuboid(Vec2::new(x, y)).unwrap()
    }
    fn spin(w: f32) -> f32 {
        w
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
    fn dot(a: Vec2, b: Vec2) -> f32 {
        a.dot(b)
    }
    fn tilt(angle: f32) -> f32 {
        angle
    }
    fn bits(v: Vec2) -> Vec<u32> {
        v.to_array().map(f32::to_bits).to_vec()
    }
    fn angular_is_finite(body: tumble::Body<D2>) -> bool {
        body.rotation().is_finite() && body.angular_velocity().is_finite()
    }
    fn rotational_energy(body: tumble::Body<D2>) -> f32 {
        let m = body.shape().mass_properties(1.0);
        let inertia = m.inertia * body.mass() / m.mass;
        0.5 * inertia * body.angular_velocity().powi(2)
    }
    fn add_closed_box(world: &mut World<D2>, half: f32) {
        for (center, size) in [
            (Vec2::new(0.0, half + 0.5), Vec2::new(half + 1.0, 0.5)),
            (Vec2::new(0.0, -half - 0.5), Vec2::new(half + 1.0, 0.5)),
            (Vec2::new(half + 0.5, 0.0), Vec2::new(0.5, half + 1.0)),
            (Vec2::new(-half - 0.5, 0.0), Vec2::new(0.5, half + 1.0)),
        ] {
            let wall = ColliderDesc::new(Shape::cuboid(size).unwrap())
                .restitution(1.0)
                .friction(0.3);
            world
                .add_body(BodyDesc::fixed().position(center), wall)
                .unwrap();
        }
    }
    fn hull(size: f32) -> Shape<D2> {
        let points = [
            (-0.5, -0.4),
            (0.5, -0.5),
            (0.4, 0.5),
            (-0.3, 0.4),
            (0.0, 0.1),
        ];
        Shape::convex_polygon(&points.map(|(x, y)| Vec2::new(x, y) * size)).unwrap()
    }
    fn spin_z(w: f32) -> f32 {
        w
    }
    fn raw_rotation(values: [f32; 4]) -> f32 {
        values[0]
    }
}

impl Scene for D3 {
    const NAME: &'static str = "3D";
    fn v(x: f32, y: f32) -> Vec3 {
        Vec3::new(x, y, 0.0)
    }
    fn xyz(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }
    fn turned(body: tumble::Body<D3>, start: Quat) -> f32 {
        // The turn's vector part has length sin(angle / 2): exact for the
        // small turns the tests bound, where acos of its w rounds to zero.
        let turn = body.rotation() * start.inverse();
        2.0 * turn.xyz().length().min(1.0).asin()
    }
    fn cube(h: f32) -> Shape<D3> {
        Shape::cuboid(Vec3::splat(h)).unwrap()
    }
    fn cuboid(half_width: f32, half_height: f32) -> Shape<D3> {
        Shape::cuboid(Vec3::new(half_width, half_height, half_width)).unwrap()
    }
    fn cuboid_xyz(x: f32, y: f32, z: f32) -> Shape<D3> {
        Shape::cuboid(Vec3::new(x, y, z)).unwrap()
    }
    fn spin(w: f32) -> Vec3 {
        Vec3::Z * w
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
    fn dot(a: Vec3, b: Vec3) -> f32 {
        a.dot(b)
    }
    fn tilt(angle: f32) -> Quat {
        Quat::from_rotation_z(angle)
    }
    fn bits(v: Vec3) -> Vec<u32> {
        v.to_array().map(f32::to_bits).to_vec()
    }
    fn angular_is_finite(body: tumble::Body<D3>) -> bool {
        body.rotation().is_finite() && body.angular_velocity().is_finite()
    }
    fn rotational_energy(body: tumble::Body<D3>) -> f32 {
        let m = body.shape().mass_properties(1.0);
        let inertia = m.inertia * (body.mass() / m.mass);
        let w = body.rotation().inverse() * body.angular_velocity();
        0.5 * w.dot(inertia * w)
    }
    fn add_closed_box(world: &mut World<D3>, half: f32) {
        for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
            for side in [-1.0, 1.0] {
                let size = Vec3::splat(half + 1.0) - axis * (half + 0.5);
                let wall = ColliderDesc::new(Shape::cuboid(size).unwrap())
                    .restitution(1.0)
                    .friction(0.3);
                world
                    .add_body(BodyDesc::fixed().position(axis * side * (half + 0.5)), wall)
                    .unwrap();
            }
        }
    }
    fn hull(size: f32) -> Shape<D3> {
        let points = [
            (-0.5, -0.4, -0.5),
            (0.5, -0.5, -0.4),
            (0.4, 0.5, -0.5),
            (-0.3, 0.4, 0.5),
            (0.5, 0.4, 0.4),
            (0.0, 0.1, 0.0),
        ];
        Shape::convex_hull(&points.map(|(x, y, z)| Vec3::new(x, y, z) * size)).unwrap()
    }
    fn spin_z(w: Vec3) -> f32 {
        w.z
    }
    fn raw_rotation(values: [f32; 4]) -> Quat {
        Quat::from_array(values)
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

/// A fixed body at `at` (a small cube nobody touches).
pub fn pivot<D: Scene>(world: &mut World<D>, at: D::Vector) -> BodyHandle {
    world
        .add_body(
            BodyDesc::fixed().position(at),
            ColliderDesc::new(D::cube(0.05)),
        )
        .unwrap()
}

/// A chain of `links` links of `shape` hinged end to end (revolute joints
/// about Z), the first to `top` at `start`, each next hinge `step` further
/// and each link's centre half a step past its first hinge; the last link
/// of density `end_density`, the others 1. The links and the joints.
pub fn hinged_chain<D: Scene>(
    world: &mut World<D>,
    top: BodyHandle,
    start: D::Vector,
    step: D::Vector,
    links: usize,
    shape: &Shape<D>,
    end_density: f32,
) -> (Vec<BodyHandle>, Vec<JointHandle>) {
    let mut previous = top;
    let (mut bodies, mut joints) = (Vec::new(), Vec::new());
    for i in 0..links {
        let density = if i == links - 1 { end_density } else { 1.0 };
        let anchor = start + step * i as f32;
        let link = world
            .add_body(
                BodyDesc::dynamic().position(anchor + step * 0.5),
                ColliderDesc::new(shape.clone()).density(density),
            )
            .unwrap();
        joints.push(
            world
                .add_joint(JointDesc::revolute(previous, link, anchor))
                .unwrap(),
        );
        bodies.push(link);
        previous = link;
    }
    (bodies, joints)
}

/// The distances between each joint's two anchors, summed, metres.
pub fn anchors_apart<D: Scene>(world: &World<D>, joints: &[JointHandle]) -> f32 {
    joints
        .iter()
        .map(|&j| {
            let [a, b] = world.joint_anchors(j).unwrap();
            D::len(b - a)
        })
        .sum()
}

/// The bodies' kinetic energy plus their potential energy in 9.81 m/s²
/// of gravity down Y, from height 0, J.
pub fn energy<D: Scene>(world: &World<D>, bodies: &[BodyHandle]) -> f32 {
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
}

/// A 2D-style pyramid of unit boxes in the XY plane, `base` wide, resting on
/// the ground; returns the handles.
pub fn add_pyramid<D: Scene>(world: &mut World<D>, base: usize) -> Vec<tumble::BodyHandle> {
    let mut handles = Vec::new();
    for row in 0..base {
        for i in 0..base - row {
            let x = (i as f32 - (base - row - 1) as f32 * 0.5) * 1.0;
            let y = 0.5 + row as f32;
            handles.push(
                world
                    .add_body(
                        BodyDesc::dynamic().position(D::v(x, y)),
                        ColliderDesc::new(D::cube(0.5)),
                    )
                    .unwrap(),
            );
        }
    }
    handles
}

/// Largest sideways (horizontal) displacement of the bodies from `start`.
pub fn largest_drift<D: Scene>(
    world: &World<D>,
    handles: &[tumble::BodyHandle],
    start: &[D::Vector],
) -> f32 {
    handles
        .iter()
        .zip(start)
        .map(|(&h, &p0)| D::horizontal(world.body(h).unwrap().position() - p0))
        .fold(0.0, f32::max)
}

/// Positions of the bodies now.
pub fn positions<D: Scene>(world: &World<D>, handles: &[tumble::BodyHandle]) -> Vec<D::Vector> {
    handles
        .iter()
        .map(|&h| world.body(h).unwrap().position())
        .collect()
}

/// A small deterministic generator (xorshift) for random poses and speeds.
pub struct Draw(pub u64);

impl Draw {
    /// A number in [0, 1).
    pub fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A number in [low, high).
    pub fn between(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }
}

/// FNV-1a over the bits of every 3D body's position and rotation, in the
/// bodies' order (`engine/tests/determinism.rs`'s pose hash).
pub fn pose_hash_3d(world: &World<D3>) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for (_, body) in world.bodies() {
        let (p, q) = (body.position(), body.rotation());
        for x in [p.x, p.y, p.z, q.x, q.y, q.z, q.w] {
            for byte in x.to_bits().to_le_bytes() {
                hash = (hash ^ byte as u64).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    hash
}

/// A flat triangle mesh of `nx` x `nz` quads, `size` metres square each,
/// centred on the origin at height 0, front up (counter-clockwise seen from
/// above); with `alternate`, every other quad is split along its other
/// diagonal, its triangles starting at other corners.
pub fn grid_mesh(nx: usize, nz: usize, size: f32, alternate: bool) -> Shape<D3> {
    let mut vertices = Vec::new();
    for j in 0..=nz {
        for i in 0..=nx {
            vertices.push(Vec3::new(
                (i as f32 - nx as f32 / 2.0) * size,
                0.0,
                (j as f32 - nz as f32 / 2.0) * size,
            ));
        }
    }
    let at = |i: usize, j: usize| (j * (nx + 1) + i) as u32;
    let mut indices = Vec::new();
    for j in 0..nz {
        for i in 0..nx {
            let (a, b, c, d) = (at(i, j), at(i, j + 1), at(i + 1, j + 1), at(i + 1, j));
            if alternate && (i + j) % 2 == 1 {
                indices.push([b, c, d]);
                indices.push([d, a, b]);
            } else {
                indices.push([a, b, c]);
                indices.push([a, c, d]);
            }
        }
    }
    Shape::triangle_mesh(&vertices, &indices).unwrap()
}

/// The default settings with sleeping off (most bars are measured awake).
pub fn awake<D: Dim>() -> Settings<D> {
    Settings {
        sleep: false,
        ..Settings::default()
    }
}

/// `f` run on a rayon pool of `threads` threads.
pub fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}
