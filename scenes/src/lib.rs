//! Scene builders shared by demos, benches and tests, after the Box2D v3 and
//! Box3D benchmark scenes: unit boxes (1 m), density 1, friction 0.6, on a
//! fixed ground whose top face is at y = 0.

use tumble::d2;
use tumble::d3;
use tumble::glam::{Vec2, Vec3};
use tumble::{BodyHandle, Dim, Settings, World, D2, D3};

/// A world and the dynamic bodies whose stability is measured.
pub struct Scene<D: Dim> {
    /// The world, ready to step.
    pub world: World<D>,
    /// The dynamic bodies, in creation order.
    pub bodies: Vec<BodyHandle>,
}

/// A scene's name, dimension and builder.
pub struct SceneEntry {
    /// Name used on command lines.
    pub name: &'static str,
    /// One line saying what it is.
    pub about: &'static str,
    /// The builder.
    pub build: Build,
}

/// A builder of a 2D or a 3D scene.
#[derive(Copy, Clone)]
pub enum Build {
    /// A 2D scene.
    D2(fn() -> Scene<D2>),
    /// A 3D scene.
    D3(fn() -> Scene<D3>),
}

/// Every scene, by name.
pub const SCENES: &[SceneEntry] = &[
    SceneEntry {
        name: "falling_boxes",
        about: "3D: 4000 unit cubes dropped in a loose grid",
        build: Build::D3(falling_boxes_3d),
    },
    SceneEntry {
        name: "large_pyramid_2d",
        about: "2D: pyramid of base 100, 5050 boxes",
        build: Build::D2(|| pyramid_2d(100)),
    },
    SceneEntry {
        name: "many_pyramids_2d",
        about: "2D: 20 x 20 pyramids of base 10, 22000 boxes",
        build: Build::D2(many_pyramids_2d),
    },
    SceneEntry {
        name: "large_pyramid_3d",
        about: "3D: 2D-style pyramid of base 100, 5050 cubes",
        build: Build::D3(|| pyramid_3d(100)),
    },
    SceneEntry {
        name: "many_pyramids_3d",
        about: "3D: 14 x 14 pyramids of base 10, 10780 cubes",
        build: Build::D3(many_pyramids_3d),
    },
    SceneEntry {
        name: "square_pyramid_3d",
        about: "3D: square pyramid of base 10, 385 cubes",
        build: Build::D3(|| square_pyramid_3d(10)),
    },
    SceneEntry {
        name: "tower_2d",
        about: "2D: a tower of 20 boxes",
        build: Build::D2(|| tower_2d(20)),
    },
    SceneEntry {
        name: "tower_3d",
        about: "3D: a tower of 20 cubes",
        build: Build::D3(|| tower_3d(20)),
    },
    SceneEntry {
        name: "pyramid_2d",
        about: "2D: pyramid of base 40, 820 boxes",
        build: Build::D2(|| pyramid_2d(40)),
    },
    SceneEntry {
        name: "falling_boxes_2d",
        about: "2D: 400 boxes dropped in a loose grid",
        build: Build::D2(falling_boxes_2d),
    },
];

/// The scene called `name`, if any.
pub fn find(name: &str) -> Option<&'static SceneEntry> {
    SCENES.iter().find(|s| s.name == name)
}

fn world_2d(ground_half_width: f32) -> World<D2> {
    let mut world = World::new(Settings::default());
    let ground = d2::Shape::cuboid(Vec2::new(ground_half_width, 0.5)).expect("valid ground");
    world
        .add_body(
            d2::BodyDesc::fixed().position(Vec2::new(0.0, -0.5)),
            d2::ColliderDesc::new(ground),
        )
        .expect("valid ground");
    world
}

fn world_3d(ground_half_width: f32) -> World<D3> {
    let mut world = World::new(Settings::default());
    let ground = d3::Shape::cuboid(Vec3::new(ground_half_width, 0.5, ground_half_width))
        .expect("valid ground");
    world
        .add_body(
            d3::BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            d3::ColliderDesc::new(ground),
        )
        .expect("valid ground");
    world
}

fn add_box_2d(world: &mut World<D2>, at: Vec2) -> BodyHandle {
    let shape = d2::Shape::cuboid(Vec2::splat(0.5)).expect("valid box");
    world
        .add_body(
            d2::BodyDesc::dynamic().position(at),
            d2::ColliderDesc::new(shape),
        )
        .expect("valid box")
}

fn add_box_3d(world: &mut World<D3>, at: Vec3) -> BodyHandle {
    let shape = d3::Shape::cuboid(Vec3::splat(0.5)).expect("valid cube");
    world
        .add_body(
            d3::BodyDesc::dynamic().position(at),
            d3::ColliderDesc::new(shape),
        )
        .expect("valid cube")
}

/// Centres of a 2D-style pyramid of `base` unit boxes, centred on x = `x0`.
fn pyramid_centres(base: usize, x0: f32) -> impl Iterator<Item = (f32, f32)> {
    (0..base).flat_map(move |row| {
        (0..base - row).map(move |i| {
            (
                x0 + i as f32 - (base - row - 1) as f32 * 0.5,
                0.5 + row as f32,
            )
        })
    })
}

/// 2D: a pyramid of `base` boxes on the ground.
pub fn pyramid_2d(base: usize) -> Scene<D2> {
    let mut world = world_2d(base as f32 + 20.0);
    let bodies = pyramid_centres(base, 0.0)
        .map(|(x, y)| add_box_2d(&mut world, Vec2::new(x, y)))
        .collect();
    Scene { world, bodies }
}

/// 3D: the same pyramid of cubes, in the XY plane.
pub fn pyramid_3d(base: usize) -> Scene<D3> {
    let mut world = world_3d(base as f32 + 20.0);
    let bodies = pyramid_centres(base, 0.0)
        .map(|(x, y)| add_box_3d(&mut world, Vec3::new(x, y, 0.0)))
        .collect();
    Scene { world, bodies }
}

/// 2D: 20 x 20 pyramids of base 10, 22000 boxes, in rows.
pub fn many_pyramids_2d() -> Scene<D2> {
    let mut world = world_2d(2000.0);
    let mut bodies = Vec::new();
    for p in 0..400 {
        let x0 = (p as f32 - 199.5) * 11.0;
        bodies.extend(
            pyramid_centres(10, x0)
                .map(|(x, y)| add_box_2d(&mut world, Vec2::new(x, y)))
                .collect::<Vec<_>>(),
        );
    }
    Scene { world, bodies }
}

/// 3D: 14 x 14 pyramids of base 10 on a grid, 10780 cubes.
pub fn many_pyramids_3d() -> Scene<D3> {
    let mut world = world_3d(100.0);
    let mut bodies = Vec::new();
    for pi in 0..14 {
        for pk in 0..14 {
            let (x0, z0) = ((pi as f32 - 6.5) * 12.0, (pk as f32 - 6.5) * 3.0);
            bodies.extend(
                pyramid_centres(10, x0)
                    .map(|(x, y)| add_box_3d(&mut world, Vec3::new(x, y, z0)))
                    .collect::<Vec<_>>(),
            );
        }
    }
    Scene { world, bodies }
}

/// 3D: a square pyramid: layers of `base`², (`base`-1)², ... cubes.
pub fn square_pyramid_3d(base: usize) -> Scene<D3> {
    let mut world = world_3d(base as f32 + 20.0);
    let mut bodies = Vec::new();
    for layer in 0..base {
        let side = base - layer;
        let offset = (side - 1) as f32 * 0.5;
        for i in 0..side {
            for k in 0..side {
                let at = Vec3::new(i as f32 - offset, 0.5 + layer as f32, k as f32 - offset);
                bodies.push(add_box_3d(&mut world, at));
            }
        }
    }
    Scene { world, bodies }
}

/// 2D: a tower of `count` boxes.
pub fn tower_2d(count: usize) -> Scene<D2> {
    let mut world = world_2d(20.0);
    let bodies = (0..count)
        .map(|i| add_box_2d(&mut world, Vec2::new(0.0, 0.5 + i as f32)))
        .collect();
    Scene { world, bodies }
}

/// 3D: a tower of `count` cubes.
pub fn tower_3d(count: usize) -> Scene<D3> {
    let mut world = world_3d(20.0);
    let bodies = (0..count)
        .map(|i| add_box_3d(&mut world, Vec3::new(0.0, 0.5 + i as f32, 0.0)))
        .collect();
    Scene { world, bodies }
}

/// 3D: 4000 cubes dropped in a loose 20 x 10 x 20 grid.
pub fn falling_boxes_3d() -> Scene<D3> {
    let mut world = world_3d(60.0);
    let mut bodies = Vec::new();
    for i in 0..20 {
        for j in 0..10 {
            for k in 0..20 {
                let at = Vec3::new(
                    i as f32 * 2.0 - 19.0,
                    1.0 + j as f32 * 2.0,
                    k as f32 * 2.0 - 19.0,
                );
                bodies.push(add_box_3d(&mut world, at));
            }
        }
    }
    Scene { world, bodies }
}

/// 2D: 400 boxes dropped in a loose 20 x 20 grid.
pub fn falling_boxes_2d() -> Scene<D2> {
    let mut world = world_2d(40.0);
    let mut bodies = Vec::new();
    for i in 0..20 {
        for j in 0..20 {
            bodies.push(add_box_2d(
                &mut world,
                Vec2::new(i as f32 * 1.5 - 14.25, 1.0 + j as f32 * 1.5),
            ));
        }
    }
    Scene { world, bodies }
}
