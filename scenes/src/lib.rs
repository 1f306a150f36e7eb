//! Scene builders shared by demos, benches and tests, after the Box2D v3 and
//! Box3D benchmark scenes: unit boxes (1 m), density 1, friction 0.6, on a
//! fixed ground whose top face is at y = 0.

pub mod ccd_scenes;
pub mod joint_scenes;
pub mod ragdoll;

use tumble::d2;
use tumble::d3;
use tumble::glam::{Quat, Vec2, Vec3};
use tumble::{
    BodyDesc, BodyHandle, ColliderDesc, CollisionFilter, Dim, JointDesc, Settings, World, D2, D3,
};

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
        name: "falling_boxes_small",
        about: "3D: 294 turned unit cubes dropped in a loose, staggered 7 x 6 x 7 grid",
        build: Build::D3(falling_boxes_small_3d),
    },
    SceneEntry {
        name: "mixed_shapes_3d",
        about: "3D: 150 balls, capsules, hulls and boxes dropped in a loose grid",
        build: Build::D3(mixed_shapes_3d),
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
        name: "flush_wall_3d",
        about: "3D: a wall of 200 flush 0.5 m cubes, 10 wide and 20 high, struck by a ball at 2 s (sleeping on)",
        build: Build::D3(flush_wall_3d),
    },
    SceneEntry {
        name: "tile_map_2d",
        about: "2D: player_2d's player on a level of 1 m tiles, each its own fixed body, laid flush (sleeping on)",
        build: Build::D2(tile_map_2d),
    },
    SceneEntry {
        name: "falling_boxes_2d",
        about: "2D: 400 boxes dropped in a loose grid",
        build: Build::D2(falling_boxes_2d),
    },
    SceneEntry {
        name: "player_2d",
        about: "2D: a capsule player with its rotation locked, a step, a ramp, crates and a ball",
        build: Build::D2(player_2d),
    },
    SceneEntry {
        name: "sleeping_city",
        about: "3D: 20,000 cubes asleep on the ground beside 100 kept awake (sleeping on)",
        build: Build::D3(|| sleeping_city(true)),
    },
    SceneEntry {
        name: "sleeping_city_awake_only",
        about: "3D: sleeping_city's 100 awake cubes alone, the bar its city is measured against",
        build: Build::D3(|| sleeping_city(false)),
    },
    SceneEntry {
        name: "terrain_3d",
        about: "3D: 200 mixed bodies rained on a 64 m heightfield of 65 x 65 samples",
        build: Build::D3(|| terrain_3d(65, 200)),
    },
    SceneEntry {
        name: "terrain_mesh_3d",
        about: "3D: terrain_3d with the same terrain as a triangle mesh",
        build: Build::D3(|| terrain_mesh_3d(65, 200)),
    },
    SceneEntry {
        name: "flat_ground_3d",
        about: "3D: terrain_3d's 200 bodies on one flat fixed box",
        build: Build::D3(|| flat_ground_3d(200)),
    },
    SceneEntry {
        name: "terrain_stress_3d",
        about: "3D: 1000 mixed bodies rained on a 64 m heightfield of 129 x 129 samples",
        build: Build::D3(|| terrain_3d(129, 1000)),
    },
    SceneEntry {
        name: "terrain_mesh_stress_3d",
        about: "3D: terrain_stress_3d with the same terrain as a triangle mesh",
        build: Build::D3(|| terrain_mesh_3d(129, 1000)),
    },
    SceneEntry {
        name: "flat_ground_stress_3d",
        about: "3D: terrain_stress_3d's 1000 bodies on one flat fixed box",
        build: Build::D3(|| flat_ground_3d(1000)),
    },
    SceneEntry {
        name: "cube_pile_3d",
        about: "3D: 1000 unit cubes dropped from a jittered 10 x 10 x 10 grid, sleeping on",
        build: Build::D3(cube_pile_3d),
    },
    SceneEntry {
        name: "chains_2d",
        about: "2D: 104 boxes and balls on a level of chains: slopes, steps, a floating cup",
        build: Build::D2(chains_2d),
    },
    SceneEntry {
        name: "ragdoll_pile_3d",
        about: "3D: 200 ragdolls (2200 bodies, 2000 joints, each a tree) dropped in a heap",
        build: Build::D3(ragdoll_pile_3d),
    },
    SceneEntry {
        name: "joint_grid_2d",
        about: "2D: Box2D's joint grid, 100 x 100 balls joined by 19,800 hinges, hung from 7",
        build: Build::D2(joint_grid_2d),
    },
    SceneEntry {
        name: "joint_grid_3d",
        about: "3D: joint_grid_2d's grid in the XY plane, hinges about Z",
        build: Build::D3(joint_grid_3d),
    },
];

/// The scene called `name`, if any.
pub fn find(name: &str) -> Option<&'static SceneEntry> {
    SCENES.iter().find(|s| s.name == name)
}

/// The reference scenes run with sleeping off, as Box2D's and Box3D's
/// benchmarks do: every body is stepped every step.
fn settings<D: Dim>() -> Settings<D> {
    Settings {
        sleep: false,
        ..Settings::default()
    }
}

fn world_2d(ground_half_width: f32) -> World<D2> {
    ground_2d(settings(), ground_half_width)
}

/// A world with a fixed ground `ground_half_width` to each side of x = 0.
fn ground_2d(settings: Settings<D2>, ground_half_width: f32) -> World<D2> {
    let mut world = World::new(settings);
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
    ground_3d(settings(), ground_half_width)
}

/// A world with a fixed square ground `ground_half_width` to each side of
/// the origin.
fn ground_3d(settings: Settings<D3>, ground_half_width: f32) -> World<D3> {
    let mut world = World::new(settings);
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

fn add_turned_3d(world: &mut World<D3>, shape: d3::Shape, at: Vec3, rotation: Quat) -> BodyHandle {
    world
        .add_body(
            d3::BodyDesc::dynamic().position(at).rotation(rotation),
            d3::ColliderDesc::new(shape),
        )
        .expect("valid body")
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
    // Box2D's layout: 20 rows, each of 20 pyramids on its own ground strip,
    // the rows stacked 12 m apart so no pyramid reaches the next strip.
    let mut world = World::new(settings());
    let mut bodies = Vec::new();
    for row in 0..20 {
        let floor = row as f32 * 12.0;
        let strip = d2::Shape::cuboid(Vec2::new(115.0, 0.5)).expect("valid ground");
        world
            .add_body(
                d2::BodyDesc::fixed().position(Vec2::new(0.0, floor - 0.5)),
                d2::ColliderDesc::new(strip),
            )
            .expect("valid ground");
        for column in 0..20 {
            let x0 = (column as f32 - 9.5) * 11.0;
            let pyramid: Vec<_> = pyramid_centres(10, x0)
                .map(|(x, y)| add_box_2d(&mut world, Vec2::new(x, floor + y)))
                .collect();
            bodies.extend(pyramid);
        }
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

/// Side of a flush wall's cubes, m, and their density, kg/m³ (62.5 kg
/// each): the bricks of a destruction sandbox.
const WALL_CUBE_SIDE: f32 = 0.5;
const WALL_CUBE_DENSITY: f32 = 500.0;

/// 3D: a wall one cube thick, 10 wide and 20 high, of 0.5 m cubes laid
/// exactly flush on the ground, with sleeping on as a game has it: it
/// stands and falls asleep within a second
/// (`tests/compositions.rs`); a 1000 kg ball flying without gravity at
/// 6 m/s reaches its middle at 2 s and knocks a hole through it.
pub fn flush_wall_3d() -> Scene<D3> {
    let mut world = ground_3d(Settings::default(), 30.0);
    let (columns, rows) = (10, 20);
    let cube = d3::Shape::cuboid(Vec3::splat(WALL_CUBE_SIDE / 2.0)).expect("valid cube");
    let mut bodies = Vec::new();
    for row in 0..rows {
        for column in 0..columns {
            let at = Vec3::new(
                (column as f32 - (columns - 1) as f32 / 2.0) * WALL_CUBE_SIDE,
                (row as f32 + 0.5) * WALL_CUBE_SIDE,
                0.0,
            );
            let collider = d3::ColliderDesc::new(cube.clone()).density(WALL_CUBE_DENSITY);
            bodies.push(
                world
                    .add_body(d3::BodyDesc::dynamic().position(at), collider)
                    .expect("valid cube"),
            );
        }
    }
    let (radius, speed, seconds) = (0.6f32, 6.0, 2.0);
    let ball = d3::Shape::ball(radius).expect("valid ball");
    let density = 1000.0 / (4.0 / 3.0 * core::f32::consts::PI * radius.powi(3));
    bodies.push(
        world
            .add_body(
                d3::BodyDesc::dynamic()
                    .position(Vec3::new(0.0, 2.5, -speed * seconds - radius))
                    .linear_velocity(Vec3::new(0.0, 0.0, speed))
                    .gravity_scale(0.0),
                d3::ColliderDesc::new(ball).density(density),
            )
            .expect("valid ball"),
    );
    Scene { world, bodies }
}

/// 3D: 294 cubes, randomly turned, dropped in a loose 7 x 6 x 7 grid whose
/// odd layers are shifted by half a cell, so cubes land on the corners of
/// those below and tumble: the falling boxes at a size an interactive window
/// steps in real time.
pub fn falling_boxes_small_3d() -> Scene<D3> {
    let (nx, ny, nz) = (7, 6, 7);
    let mut world = world_3d(30.0);
    let mut rng = Lcg(0xb0c5);
    let shape = d3::Shape::cuboid(Vec3::splat(0.5)).expect("valid cube");
    let mut bodies = Vec::new();
    for j in 0..ny {
        let shift = if j % 2 == 1 { 1.0 } else { 0.0 };
        for i in 0..nx {
            for k in 0..nz {
                let at = Vec3::new(
                    i as f32 * 2.0 - (nx - 1) as f32 + shift,
                    1.0 + j as f32 * 2.0,
                    k as f32 * 2.0 - (nz - 1) as f32 + shift,
                );
                let rotation = random_rotation(&mut rng);
                bodies.push(add_turned_3d(&mut world, shape.clone(), at, rotation));
            }
        }
    }
    Scene { world, bodies }
}

/// A small deterministic pseudo-random sequence in `[0, 1)`, so scenes are
/// the same on every run without a dependency.
struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 / (1u32 << 24) as f32
    }

    /// A value in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

/// A rotation about a random axis by a random angle.
fn random_rotation(rng: &mut Lcg) -> Quat {
    let axis = Vec3::new(
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    )
    .normalize_or(Vec3::X);
    Quat::from_axis_angle(axis, rng.range(0.0, std::f32::consts::TAU))
}

/// The shapes of [`mixed_shapes_3d`], in the order they repeat.
fn mixed_shapes(rng: &mut Lcg) -> Vec<d3::Shape> {
    let rock = random_rock(rng);
    let wedge = [
        Vec3::new(-0.6, -0.3, -0.4),
        Vec3::new(0.6, -0.3, -0.4),
        Vec3::new(-0.6, -0.3, 0.4),
        Vec3::new(0.6, -0.3, 0.4),
        Vec3::new(-0.6, 0.35, -0.4),
        Vec3::new(0.6, 0.35, -0.4),
    ];
    let octahedron = [
        Vec3::X * 0.55,
        Vec3::NEG_X * 0.55,
        Vec3::Y * 0.7,
        Vec3::NEG_Y * 0.7,
        Vec3::Z * 0.55,
        Vec3::NEG_Z * 0.55,
    ];
    vec![
        d3::Shape::ball(0.5).expect("valid ball"),
        d3::Shape::capsule(0.4, 0.3).expect("valid capsule"),
        d3::Shape::convex_hull(&rock).expect("valid rock"),
        d3::Shape::cuboid(Vec3::new(0.6, 0.3, 0.4)).expect("valid box"),
        d3::Shape::ball(0.35).expect("valid ball"),
        d3::Shape::convex_hull(&wedge).expect("valid wedge"),
        d3::Shape::cuboid(Vec3::splat(0.45)).expect("valid cube"),
        d3::Shape::capsule(0.25, 0.4).expect("valid capsule"),
        d3::Shape::convex_hull(&octahedron).expect("valid octahedron"),
    ]
}

/// 3D: 150 bodies of mixed shapes (balls, capsules, convex hulls, boxes)
/// dropped in a loose 5 x 6 x 5 grid with random orientations.
pub fn mixed_shapes_3d() -> Scene<D3> {
    let mut world = world_3d(30.0);
    let mut rng = Lcg(0x5eed);
    let shapes = mixed_shapes(&mut rng);
    let mut bodies = Vec::new();
    let mut n = 0;
    for j in 0..6 {
        for i in 0..5 {
            for k in 0..5 {
                let at = Vec3::new(
                    i as f32 * 2.0 - 4.0 + rng.range(-0.2, 0.2),
                    1.2 + j as f32 * 2.0,
                    k as f32 * 2.0 - 4.0 + rng.range(-0.2, 0.2),
                );
                let rotation = random_rotation(&mut rng);
                let shape = shapes[n % shapes.len()].clone();
                n += 1;
                bodies.push(add_turned_3d(&mut world, shape, at, rotation));
            }
        }
    }
    Scene { world, bodies }
}

/// The user number that marks [`player_2d`]'s player.
pub const PLAYER: u64 = 0x504c_4159;

/// The player of [`player_2d`] and [`tile_map_2d`]: a capsule 1.6 m tall
/// of 100 kg/m³ standing at x = -6 with its rotation locked, its user
/// number [`PLAYER`], its collider's friction `friction`.
fn add_player_2d(world: &mut World<D2>, friction: f32) -> BodyHandle {
    world
        .add_body(
            d2::BodyDesc::dynamic()
                .position(Vec2::new(-6.0, 0.8))
                .fixed_rotation()
                .user_data(PLAYER),
            d2::ColliderDesc::new(d2::Shape::capsule(0.45, 0.35).expect("valid capsule"))
                .density(100.0)
                .friction(friction),
        )
        .expect("valid player")
}

/// 2D, sleeping on: a small level for a player. A capsule 1.6 m tall with
/// its rotation locked (it never tips, whatever it shoves), on a ground
/// with a step, a ramp and a ledge, beside a stack of light crates and a
/// heavy ball. The player is the body whose user number is [`PLAYER`]
/// (the first in `bodies`); a game drives it by setting its horizontal
/// velocity and, when a ray cast down from its centre with it left out
/// finds the ground, jumping with an impulse.
pub fn player_2d() -> Scene<D2> {
    let mut world = ground_2d(Settings::default(), 30.0);
    let fixed = |world: &mut World<D2>, at: Vec2, half: Vec2, angle: f32| {
        let shape = d2::Shape::cuboid(half).expect("valid block");
        world
            .add_body(
                d2::BodyDesc::fixed().position(at).rotation(angle),
                d2::ColliderDesc::new(shape),
            )
            .expect("valid block");
    };
    fixed(&mut world, Vec2::new(4.0, 0.15), Vec2::new(1.0, 0.15), 0.0);
    fixed(&mut world, Vec2::new(9.0, 0.6), Vec2::new(3.0, 0.1), 0.2);
    fixed(&mut world, Vec2::new(14.0, 1.1), Vec2::new(2.0, 0.2), 0.0);
    let player = add_player_2d(&mut world, 0.4);
    let mut bodies = vec![player];
    let crate_ = d2::Shape::cuboid(Vec2::splat(0.3)).expect("valid crate");
    for row in 0..4 {
        for i in 0..(4 - row) {
            let at = Vec2::new(
                -1.5 + i as f32 * 0.62 + row as f32 * 0.31,
                0.3 + row as f32 * 0.6,
            );
            let body = world
                .add_body(
                    d2::BodyDesc::dynamic().position(at),
                    d2::ColliderDesc::new(crate_.clone()).density(60.0),
                )
                .expect("valid crate");
            bodies.push(body);
        }
    }
    let ball = world
        .add_body(
            d2::BodyDesc::dynamic().position(Vec2::new(14.0, 1.8)),
            d2::ColliderDesc::new(d2::Shape::ball(0.5).expect("valid ball"))
                .density(200.0)
                .restitution(0.3),
        )
        .expect("valid ball");
    bodies.push(ball);
    Scene { world, bodies }
}

/// 2D, sleeping on: a level of 1 m tiles, each its own fixed body, laid
/// flush as a tile-map editor lays them: a floor of 60 tiles, a raised run
/// of 8 and a floating platform of 6, with [`player_2d`]'s player (the
/// first in `bodies`, its user number [`PLAYER`]) and a few crates. The
/// player walks across the seams as across one box
/// (`a_player_walks_over_flush_tiles_as_over_one_box`,
/// `tests/compositions.rs`).
pub fn tile_map_2d() -> Scene<D2> {
    let mut world = World::new(Settings::default());
    let tile = d2::Shape::cuboid(Vec2::splat(0.5)).expect("valid tile");
    let mut lay = |x: f32, y: f32| {
        world
            .add_body(
                d2::BodyDesc::fixed().position(Vec2::new(x, y)),
                d2::ColliderDesc::new(tile.clone()).friction(0.6),
            )
            .expect("valid tile");
    };
    for i in 0..60 {
        lay(i as f32 - 20.0, -0.5);
    }
    for i in 0..8 {
        lay(i as f32 + 6.0, 0.5);
    }
    for i in 0..6 {
        lay(i as f32 + 20.0, 2.5);
    }
    let player = add_player_2d(&mut world, 0.6);
    let mut bodies = vec![player];
    let crate_ = d2::Shape::cuboid(Vec2::splat(0.3)).expect("valid crate");
    for i in 0..3 {
        let at = Vec2::new(-2.0 + i as f32 * 0.6, 0.3);
        bodies.push(
            world
                .add_body(
                    d2::BodyDesc::dynamic().position(at),
                    d2::ColliderDesc::new(crate_.clone()).density(60.0),
                )
                .expect("valid crate"),
        );
    }
    Scene { world, bodies }
}

/// Cubes of [`sleeping_city`]'s city along each side of its square.
const CITY_SIDE: usize = 142;

/// 3D, sleeping on: with `city`, a city of 142 x 142 (20,164) unit cubes
/// asleep on the ground, each alone (1 m gaps: one island each), stepped
/// here until every one sleeps; beside it, 100 cubes that never sleep,
/// dropped in a 10 x 10 grid 1 m above a patch of ground of their own, 20 m
/// from the city, so nothing they do wakes it. Without `city`, those 100
/// alone: what a step should cost, whatever sleeps beside them.
pub fn sleeping_city(city: bool) -> Scene<D3> {
    let half = CITY_SIDE as f32 + 60.0;
    let mut world = ground_3d(Settings::default(), half);
    let mut bodies = Vec::new();
    if city {
        for i in 0..CITY_SIDE {
            for k in 0..CITY_SIDE {
                let at = Vec3::new(
                    i as f32 * 2.0 - half + 10.0,
                    0.5,
                    k as f32 * 2.0 - half + 10.0,
                );
                bodies.push(add_box_3d(&mut world, at));
            }
        }
        // Each cube rests from the start and sleeps after `time_to_sleep`
        // (0.5 s); twice that is ample.
        for _ in 0..60 {
            world.step(1.0 / 60.0);
        }
        debug_assert!(bodies
            .iter()
            .all(|&b| world.body(b).is_some_and(|b| b.is_sleeping())));
    }
    let shape = d3::Shape::cuboid(Vec3::splat(0.5)).expect("valid cube");
    for i in 0..10 {
        for k in 0..10 {
            let at = Vec3::new(half - 30.0 + i as f32 * 2.0, 1.5, k as f32 * 2.0);
            let body = world
                .add_body(
                    d3::BodyDesc::dynamic().position(at).can_sleep(false),
                    d3::ColliderDesc::new(shape.clone()),
                )
                .expect("valid cube");
            bodies.push(body);
        }
    }
    Scene { world, bodies }
}

/// 3D: 1000 unit cubes dropped from a jittered 10 x 10 x 10 grid onto the
/// ground ([`cube_pile_sized_3d`]): the rollback and persistence
/// measurements' scene.
pub fn cube_pile_3d() -> Scene<D3> {
    cube_pile_sized_3d(10, 10, 10)
}

/// 3D: `nx * ny * nz` unit cubes dropped from a jittered grid 1.3 m apart
/// onto the ground, each turned a little about Y; sleeping on, so that
/// after a few seconds the settled parts of the pile sleep and the rest
/// still moves. The engine's determinism test builds the same pile
/// (`engine/tests/determinism.rs`, which cannot use this crate).
pub fn cube_pile_sized_3d(nx: usize, ny: usize, nz: usize) -> Scene<D3> {
    let mut world = ground_3d(Settings::default(), 50.0);
    let mut rng = Lcg(1);
    let mut jitter = move || (rng.next() - 0.5) * 0.2;
    let mut bodies = Vec::new();
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                let at = Vec3::new(
                    i as f32 * 1.3 - 6.0 + jitter(),
                    1.0 + j as f32 * 1.3,
                    k as f32 * 1.3 - 6.0 + jitter(),
                );
                let turn = Quat::from_rotation_y(jitter());
                let cube = d3::Shape::cuboid(Vec3::splat(0.5)).expect("valid cube");
                bodies.push(add_turned_3d(&mut world, cube, at, turn));
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

/// Half width of the random piles' ground, metres: a fixed box 1 m thick
/// whose top face is at y = 0, square in [`random_pile_3d`];
/// [`random_pile_2d_sized`] and [`random_sliver_pile_2d`] widen it with
/// their size.
pub const PILE_GROUND_HALF_WIDTH: f32 = 30.0;

/// 2D: a pile of 150 bodies, boxes and random convex polygons of 3 to 6
/// corners about 1 m across, turned at random, dropped from a loose 10 x 15
/// grid; sleeping on. The seed picks sizes, shapes and turns.
/// [`random_pile_2d_sized`] at size 1.
pub fn random_pile_2d(seed: u32) -> Scene<D2> {
    random_pile_2d_sized(seed, 1.0)
}

/// [`random_pile_2d`] `size` (> 0) times larger: every body, the grid it
/// drops from (its lowest row at `size` metres, rows `1.5 * size` apart)
/// and the ground's width; the ground stays 1 m thick, its top at y = 0.
/// The same seed gives the same shapes and turns at any size, and at size
/// 1 exactly [`random_pile_2d`]'s pile.
pub fn random_pile_2d_sized(seed: u32, size: f32) -> Scene<D2> {
    pile_2d(seed, size, |rng, boxed| {
        if boxed {
            d2::Shape::cuboid(Vec2::new(rng.range(0.2, 0.5), rng.range(0.2, 0.5)) * size)
        } else {
            let corners: Vec<Vec2> = random_polygon(rng).iter().map(|&c| c * size).collect();
            d2::Shape::convex_polygon(&corners)
        }
    })
}

/// 2D: [`random_pile_2d_sized`]'s grid, ground and turns with slivers and
/// thin triangles: where that pile has a box, a sliver 0.4 to 1 m long and
/// 1 to 6 cm thick; where it has a polygon, a triangle on a base 0.4 to
/// 1 m long, 3 to 15 cm high (both times `size`). The thin bodies the
/// continuous-collision issue names: at size 1.6 they weigh 10 to 150 g
/// (slivers) and 15 to 190 g (triangles) at the default density.
pub fn random_sliver_pile_2d(seed: u32, size: f32) -> Scene<D2> {
    pile_2d(seed, size, |rng, boxed| {
        if boxed {
            d2::Shape::cuboid(Vec2::new(rng.range(0.2, 0.5), rng.range(0.005, 0.03)) * size)
        } else {
            let corners = [
                Vec2::new(-rng.range(0.2, 0.5), 0.0),
                Vec2::new(rng.range(0.2, 0.5), 0.0),
                Vec2::new(rng.range(-0.3, 0.3), rng.range(0.03, 0.15)),
            ];
            let centroid = (corners[0] + corners[1] + corners[2]) / 3.0;
            let corners = corners.map(|c| (c - centroid) * size);
            d2::Shape::convex_polygon(&corners)
        }
    })
}

/// The random 2D piles' scene: 150 bodies from `shape` (told whether the
/// grid wants a box there, every other cell), each turned at random,
/// dropped from a loose 10 x 15 grid `size` times 1.5 m apart over a
/// ground [`PILE_GROUND_HALF_WIDTH`] times `size` to each side.
fn pile_2d(
    seed: u32,
    size: f32,
    mut shape: impl FnMut(&mut Lcg, bool) -> Result<d2::Shape, d2::ShapeError>,
) -> Scene<D2> {
    let mut world = ground_2d(Settings::default(), PILE_GROUND_HALF_WIDTH * size);
    let mut rng = Lcg(seed);
    let mut bodies = Vec::new();
    for j in 0..15 {
        for i in 0..10 {
            let at = Vec2::new(i as f32 * 1.5 - 6.75, 1.0 + j as f32 * 1.5) * size;
            let shape = shape(&mut rng, (i + j) % 2 == 0).expect("valid shape");
            let handle = world
                .add_body(
                    d2::BodyDesc::dynamic()
                        .position(at)
                        .rotation(rng.range(0.0, std::f32::consts::TAU)),
                    d2::ColliderDesc::new(shape),
                )
                .expect("valid body");
            bodies.push(handle);
        }
    }
    Scene { world, bodies }
}

/// 3 to 6 corners at random angles, 0.3 to 0.6 m from the centre.
fn random_polygon(rng: &mut Lcg) -> Vec<Vec2> {
    let corners = 3 + (rng.next() * 4.0) as usize;
    let step = std::f32::consts::TAU / corners as f32;
    (0..corners)
        .map(|k| {
            let angle = (k as f32 + rng.range(-0.3, 0.3)) * step;
            Vec2::from_angle(angle) * rng.range(0.3, 0.6)
        })
        .collect()
}

/// 3D: a pile of 200 bodies, boxes and 14-point hull rocks about 1 m
/// across, turned at random, dropped from a loose 5 x 8 x 5 grid; sleeping
/// on. The seed picks sizes, rocks and turns.
pub fn random_pile_3d(seed: u32) -> Scene<D3> {
    let mut world = ground_3d(Settings::default(), PILE_GROUND_HALF_WIDTH);
    let mut rng = Lcg(seed);
    let mut bodies = Vec::new();
    for j in 0..8 {
        for i in 0..5 {
            for k in 0..5 {
                let at = Vec3::new(
                    i as f32 * 1.6 - 3.2,
                    1.0 + j as f32 * 1.6,
                    k as f32 * 1.6 - 3.2,
                );
                let shape = if (i + j + k) % 2 == 0 {
                    d3::Shape::cuboid(Vec3::new(
                        rng.range(0.2, 0.5),
                        rng.range(0.2, 0.5),
                        rng.range(0.2, 0.5),
                    ))
                } else {
                    d3::Shape::convex_hull(&random_rock(&mut rng))
                }
                .expect("valid shape");
                let rotation = random_rotation(&mut rng);
                bodies.push(add_turned_3d(&mut world, shape, at, rotation));
            }
        }
    }
    Scene { world, bodies }
}

/// 14 points in random directions, 0.45 to 0.65 m from the centre.
fn random_rock(rng: &mut Lcg) -> Vec<Vec3> {
    (0..14)
        .map(|_| {
            let dir = Vec3::new(
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            );
            dir.normalize_or(Vec3::Y) * rng.range(0.45, 0.65)
        })
        .collect()
}

/// Side of the terrain scenes' square, metres.
pub const TERRAIN_SIZE: f32 = 64.0;

/// Horizontal distance between neighbouring drop points of the terrain
/// scenes' rain, metres.
const RAIN_SPACING: f32 = 3.5;

/// Height between layers of the terrain scenes' rain, metres.
const RAIN_LAYER: f32 = 2.5;

/// Height of the lowest layer of the rain over the ground under it, metres
/// (body centres; the largest body reaches 0.7 m from its centre).
const RAIN_CLEARANCE: f32 = 1.6;

/// The terrain scenes' ground, metres above y = 0, at `x`, `z` (metres,
/// the terrain centred on the origin): rolling hills from a few sines and
/// cosines, never below 0 and up to about 6 m, on a rim that rises 5 m
/// along the last eighth of each side, so that what rolls stays on it.
pub fn terrain_height(x: f32, z: f32) -> f32 {
    let hills = 1.4 * (0.11 * x + 0.6).sin() * (0.09 * z - 0.3).cos()
        + 0.9 * (0.07 * (x + z) + 1.7).sin()
        + 0.5 * (0.23 * x - 0.19 * z + 2.1).cos()
        + 0.25 * (0.41 * x + 0.37 * z).sin();
    // The amplitudes sum to 3.05: the hills never dip below 0.
    let edge = x.abs().max(z.abs()) / (0.5 * TERRAIN_SIZE);
    let t = ((edge - 0.75) / 0.25).clamp(0.0, 1.0);
    3.05 + hills + 5.0 * t * t * (3.0 - 2.0 * t)
}

/// The heights of the terrain sampled on a `samples` x `samples` grid
/// spanning [`TERRAIN_SIZE`] in X and Z, row-major (rows along Z), as
/// `Shape::heightfield` takes them with scale (`TERRAIN_SIZE`, 1,
/// `TERRAIN_SIZE`).
pub fn terrain_heights(samples: usize) -> Vec<f32> {
    let cells = (samples.max(2) - 1) as f32;
    let at = |i: usize| (i as f32 / cells - 0.5) * TERRAIN_SIZE;
    (0..samples)
        .flat_map(|r| (0..samples).map(move |c| terrain_height(at(c), at(r))))
        .collect()
}

/// The terrain of `samples` x `samples` heights as an indexed triangle
/// mesh, vertex for vertex and triangle for triangle the heightfield's
/// (`Surface::heightfield`): vertex `r * samples + c` at the sample
/// (r, c), computed as the heightfield computes it, and two triangles per
/// cell, (r, c), (r + 1, c), (r, c + 1) then (r, c + 1), (r + 1, c),
/// (r + 1, c + 1): split along the same diagonal, in the same order, front up.
pub fn terrain_mesh(samples: usize) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let heights = terrain_heights(samples);
    let cells = samples.max(2) - 1;
    let vertices = (0..samples)
        .flat_map(|r| (0..samples).map(move |c| (r, c)))
        .map(|(r, c)| {
            Vec3::new(
                (c as f32 / cells as f32 - 0.5) * TERRAIN_SIZE,
                heights[r * samples + c],
                (r as f32 / cells as f32 - 0.5) * TERRAIN_SIZE,
            )
        })
        .collect();
    let index = |r: usize, c: usize| (r * samples + c) as u32;
    let triangles = (0..cells)
        .flat_map(|r| (0..cells).map(move |c| (r, c)))
        .flat_map(|(r, c)| {
            [
                [index(r, c), index(r + 1, c), index(r, c + 1)],
                [index(r, c + 1), index(r + 1, c), index(r + 1, c + 1)],
            ]
        })
        .collect();
    (vertices, triangles)
}

/// The ground the terrain scenes' rain falls on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum RainGround {
    /// The terrain as a heightfield.
    HeightField,
    /// The same terrain as a triangle mesh.
    TriangleMesh,
    /// One flat fixed box, its top at y = 0.
    Flat,
}

/// A world (sleeping off) with `ground` ([`RainGround`]; a terrain of
/// `samples` x `samples` heights) and `count` bodies of
/// [`mixed_shapes_3d`]'s shapes, turned at random, dropped over it: layers
/// of up to 13 x 13 drop points [`RAIN_SPACING`] apart (a little jittered),
/// the lowest [`RAIN_CLEARANCE`] over the highest ground near each point,
/// the next ones [`RAIN_LAYER`] higher. The drop points, shapes and turns
/// are the same on every ground, heights measured from the ground.
fn rain_3d(ground: RainGround, samples: usize, count: usize) -> Scene<D3> {
    let mut world = World::new(settings());
    let shape = match ground {
        RainGround::HeightField => d3::Shape::heightfield(
            &terrain_heights(samples),
            samples,
            samples,
            Vec3::new(TERRAIN_SIZE, 1.0, TERRAIN_SIZE),
        ),
        RainGround::TriangleMesh => {
            let (vertices, triangles) = terrain_mesh(samples);
            d3::Shape::triangle_mesh(&vertices, &triangles)
        }
        RainGround::Flat => {
            let half = 0.5 * TERRAIN_SIZE;
            d3::Shape::cuboid(Vec3::new(half, 0.5, half))
        }
    }
    .expect("valid ground");
    let at = if ground == RainGround::Flat {
        Vec3::new(0.0, -0.5, 0.0)
    } else {
        Vec3::ZERO
    };
    world
        .add_body(
            d3::BodyDesc::fixed().position(at),
            d3::ColliderDesc::new(shape),
        )
        .expect("valid ground");
    let ground_under = |x: f32, z: f32| -> f32 {
        if ground == RainGround::Flat {
            return 0.0;
        }
        // The highest of the terrain under the body's footprint.
        let mut highest = f32::NEG_INFINITY;
        for dx in [-1.0, 0.0, 1.0] {
            for dz in [-1.0, 0.0, 1.0] {
                highest = highest.max(terrain_height(x + dx, z + dz));
            }
        }
        highest
    };
    let max_side = (0.75 * TERRAIN_SIZE / RAIN_SPACING) as usize;
    let side = ((count as f32 / 2.0).sqrt().ceil() as usize).clamp(1, max_side);
    let per_layer = side * side;
    let mut rng = Lcg(0x7e22);
    let shapes = mixed_shapes(&mut rng);
    let mut bodies = Vec::with_capacity(count);
    for n in 0..count {
        let (layer, cell) = (n / per_layer, n % per_layer);
        let offset = (side - 1) as f32 * 0.5;
        let x = ((cell % side) as f32 - offset) * RAIN_SPACING + rng.range(-0.4, 0.4);
        let z = ((cell / side) as f32 - offset) * RAIN_SPACING + rng.range(-0.4, 0.4);
        let y = ground_under(x, z) + RAIN_CLEARANCE + layer as f32 * RAIN_LAYER;
        let rotation = random_rotation(&mut rng);
        let shape = shapes[n % shapes.len()].clone();
        bodies.push(add_turned_3d(
            &mut world,
            shape,
            Vec3::new(x, y, z),
            rotation,
        ));
    }
    Scene { world, bodies }
}

/// 3D: a fixed heightfield of `samples` x `samples` heights
/// ([`terrain_heights`]: smooth hills a few metres high, [`TERRAIN_SIZE`]
/// on a side, centred on the origin) and a rain of `count` balls, capsules,
/// boxes and hulls dropped over it (the demo's: 65 samples, 64 x 64 cells
/// of 1 m, 200 bodies; the stress scene's: 129 samples, 1000 bodies).
pub fn terrain_3d(samples: usize, count: usize) -> Scene<D3> {
    rain_3d(RainGround::HeightField, samples, count)
}

/// 3D: [`terrain_3d`] with the terrain built as a triangle mesh
/// ([`terrain_mesh`]: the same triangles), to time a mesh against a
/// heightfield.
pub fn terrain_mesh_3d(samples: usize, count: usize) -> Scene<D3> {
    rain_3d(RainGround::TriangleMesh, samples, count)
}

/// 3D: [`terrain_3d`]'s rain of `count` bodies on one flat fixed box
/// [`TERRAIN_SIZE`] on a side (top at y = 0), dropped from the same heights
/// over the ground: what a step costs without a surface.
pub fn flat_ground_3d(count: usize) -> Scene<D3> {
    rain_3d(RainGround::Flat, 2, count)
}

/// The ground line of [`chains_2d`], left to right (the chain takes it
/// reversed, right to left, so that its front faces up): a wall at each
/// end, slopes, a flat with two steps up, a slope down, a ramp to a
/// plateau and a step down, between x = -20 and 20, never below y = 0.
const CHAIN_GROUND: [(f32, f32); 19] = [
    (-20.0, 10.0),
    (-19.5, 4.0),
    (-16.0, 1.5),
    (-12.0, 0.0),
    (-8.0, 0.0),
    (-8.0, 0.8),
    (-5.5, 0.8),
    (-5.5, 1.6),
    (-3.0, 1.6),
    (1.0, 0.0),
    (4.0, 0.0),
    (7.5, 1.5),
    (10.0, 1.5),
    (10.0, 0.6),
    (13.0, 0.6),
    (15.5, 0.2),
    (17.5, 1.5),
    (19.3, 4.5),
    (20.0, 10.0),
];

/// The closed loop of [`chains_2d`], counter-clockwise (solid inside): a
/// cup 5 m wide and 2.5 m high with walls and floor 0.4 m thick, its
/// bottom 5 m up, over the ground's second step.
const CHAIN_CUP: [(f32, f32); 8] = [
    (-3.5, 5.0),
    (1.5, 5.0),
    (1.5, 7.5),
    (1.1, 7.5),
    (1.1, 5.4),
    (-3.1, 5.4),
    (-3.1, 7.5),
    (-3.5, 7.5),
];

/// Rows of bodies dropped in [`chains_2d`].
const CHAIN_ROWS: usize = 4;
/// Bodies in each row of [`chains_2d`].
const CHAIN_ROW_BODIES: usize = 26;
/// Distance between [`chains_2d`]'s bodies, across and up, metres: more
/// than the diagonal of the largest box.
const CHAIN_SPACING: f32 = 1.3;

/// Height of [`CHAIN_GROUND`] at `x` (the top of a vertical step).
fn chain_ground_height(x: f32) -> f32 {
    let mut height = f32::NEG_INFINITY;
    for pair in CHAIN_GROUND.windows(2) {
        let [(x0, y0), (x1, y1)] = [pair[0], pair[1]];
        if x0 <= x && x <= x1 {
            let y = if x1 > x0 {
                y0 + (y1 - y0) * (x - x0) / (x1 - x0)
            } else {
                y0.max(y1)
            };
            height = height.max(y);
        }
    }
    height
}

/// 2D, sleeping off: a level of chains (one-sided polylines): a ground line
/// with walls, slopes, steps, a ramp and a plateau ([`CHAIN_GROUND`],
/// given right to left so that its front faces up), and a closed
/// counter-clockwise loop, a cup floating 5 m up ([`CHAIN_CUP`], solid
/// inside), each on a fixed body at the origin; 104 boxes (half sides
/// 0.25 to 0.45 m) and balls (radius 0.3 to 0.45 m), turned at random,
/// dropped over it in four staggered rows of 26, 1.3 m apart across, the
/// lowest 1.2 m over the ground (or the cup's rim) under it, each body at
/// least 1.3 m above those below it.
pub fn chains_2d() -> Scene<D2> {
    let mut world = World::new(settings());
    let ground: Vec<Vec2> = CHAIN_GROUND
        .iter()
        .rev()
        .map(|&(x, y)| Vec2::new(x, y))
        .collect();
    let cup: Vec<Vec2> = CHAIN_CUP.iter().map(|&(x, y)| Vec2::new(x, y)).collect();
    for (points, closed) in [(ground, false), (cup, true)] {
        let shape = d2::Shape::chain(&points, closed).expect("valid chain");
        world
            .add_body(d2::BodyDesc::fixed(), d2::ColliderDesc::new(shape))
            .expect("valid chain");
    }
    let mut rng = Lcg(0xc4a1);
    let mut bodies = Vec::new();
    let mut placed: Vec<Vec2> = Vec::new();
    for row in 0..CHAIN_ROWS {
        for i in 0..CHAIN_ROW_BODIES {
            let shift = if row % 2 == 1 { 0.5 } else { 0.0 };
            let x = (i as f32 + shift - (CHAIN_ROW_BODIES - 1) as f32 * 0.5) * CHAIN_SPACING;
            let (left, right) = (CHAIN_CUP[0].0, CHAIN_CUP[1].0);
            let floor = if (left - 0.7..=right + 0.7).contains(&x) {
                CHAIN_CUP[2].1
            } else {
                chain_ground_height(x - 0.7).max(chain_ground_height(x + 0.7))
            };
            // Above the ground and a spacing above every body placed
            // near it in the rows below.
            let y = placed
                .iter()
                .filter(|p: &&Vec2| (p.x - x).abs() < CHAIN_SPACING)
                .map(|p| p.y + CHAIN_SPACING)
                .fold(floor + 1.2, f32::max);
            placed.push(Vec2::new(x, y));
            let shape = if (i + row) % 3 == 0 {
                d2::Shape::ball(rng.range(0.3, 0.45))
            } else {
                d2::Shape::cuboid(Vec2::new(rng.range(0.25, 0.45), rng.range(0.25, 0.45)))
            }
            .expect("valid shape");
            let body = world
                .add_body(
                    d2::BodyDesc::dynamic()
                        .position(Vec2::new(x, y))
                        .rotation(rng.range(0.0, std::f32::consts::TAU)),
                    d2::ColliderDesc::new(shape),
                )
                .expect("valid body");
            bodies.push(body);
        }
    }
    Scene { world, bodies }
}

/// Ragdolls in [`ragdoll_pile_3d`]: along X, along Z, and layers.
const PILE_RAGDOLLS: (usize, usize, usize) = (5, 5, 8);

/// 3D: [`PILE_RAGDOLLS`] ragdolls (`ragdoll::add_ragdoll`: 11 bodies and
/// 10 joints each, every ragdoll a joint tree) lying in layers 0.6 m
/// apart, each layer turned a quarter turn from the one below, dropped on
/// the ground with sleeping off: the joints' direct solve beside thousands
/// of contacts. `bodies`: the ragdolls' parts, pelvis first each.
pub fn ragdoll_pile_3d() -> Scene<D3> {
    let mut world = world_3d(30.0);
    let (nx, nz, layers) = PILE_RAGDOLLS;
    let mut bodies = Vec::new();
    for layer in 0..layers {
        // Lying on its back, head along +X, or along +Z every other layer.
        let lie = Quat::from_rotation_x(-core::f32::consts::FRAC_PI_2);
        let rotation = if layer % 2 == 0 {
            Quat::from_rotation_z(-core::f32::consts::FRAC_PI_2) * lie
        } else {
            Quat::from_rotation_y(core::f32::consts::FRAC_PI_2)
                * Quat::from_rotation_z(-core::f32::consts::FRAC_PI_2)
                * lie
        };
        for i in 0..nx {
            for k in 0..nz {
                let at = Vec3::new(
                    (i as f32 - (nx - 1) as f32 * 0.5) * 2.2,
                    0.5 + layer as f32 * 0.6,
                    (k as f32 - (nz - 1) as f32 * 0.5) * 2.2,
                );
                bodies.extend(ragdoll::add_ragdoll(&mut world, at, rotation));
            }
        }
    }
    Scene { world, bodies }
}

/// Rows and columns of [`joint_grid_2d`] and [`joint_grid_3d`].
const JOINT_GRID_SIDE: usize = 100;

/// 2D, sleeping off: Box2D v3's joint grid benchmark (`CreateJointGrid` in
/// Box2D's `shared/benchmarks.c`, before that `benchmark/joint_grid.c`),
/// a test of joints alone. 100 x 100 balls (radius 0.4 m, density 1),
/// 1 m apart, column `k` at x = `k` and row `i` at y = -`i` (the top row
/// at y = 0); each ball hinged (a revolute joint, no limit, motor or
/// spring) to the ball above it and to the one on its left, at the
/// midpoint between them: 9,900 + 9,900 = 19,800 joints. As in Box2D, only
/// the middle seven balls of the top row (columns 47 to 53) are fixed,
/// the sheet hanging from them; balls hinged at four points make a nearly
/// rigid "rotating squares" linkage, so it hangs and vibrates rather than
/// draping like a cloth. No ball touches any other (collision filter
/// category 2, mask everything but 2; there is no ground), so the step is
/// the joints' alone. Gravity is on (-9.81; Box2D's current benchmark keeps its
/// default gravity, its first version had none). `bodies` holds the 9,993
/// dynamic balls, in creation order (column by column, top to bottom).
pub fn joint_grid_2d() -> Scene<D2> {
    joint_grid(JOINT_GRID_SIDE, Vec2::new)
}

/// 3D, sleeping off: [`joint_grid_2d`]'s grid of balls (spheres) in the XY
/// plane at z = 0, each revolute joint hinged about Z (tumble's default
/// axis), so the grid moves in its plane as the 2D one does, at the cost of
/// 3D joints (five locked degrees of freedom each instead of two).
pub fn joint_grid_3d() -> Scene<D3> {
    joint_grid(JOINT_GRID_SIDE, |x, y| Vec3::new(x, y, 0.0))
}

/// [`joint_grid_2d`] in either dimension, `side` x `side` balls; `point`
/// makes the point (x, y) of the grid's plane.
fn joint_grid<D: Dim>(side: usize, point: fn(f32, f32) -> D::Vector) -> Scene<D> {
    let mut world = World::new(settings());
    let ball = tumble::shape::Shape::<D>::ball(0.4).expect("valid ball");
    // Box2D's filter: in group 2, colliding with every group but 2.
    let filter = CollisionFilter {
        category: 2,
        mask: !2,
    };
    let pinned = side / 2 - 3..=side / 2 + 3;
    let mut grid: Vec<BodyHandle> = Vec::with_capacity(side * side);
    let mut bodies = Vec::with_capacity(side * side);
    for k in 0..side {
        for i in 0..side {
            let (x, y) = (k as f32, -(i as f32));
            let desc = if i == 0 && pinned.contains(&k) {
                BodyDesc::fixed()
            } else {
                BodyDesc::dynamic()
            };
            let body = world
                .add_body(
                    desc.position(point(x, y)),
                    ColliderDesc::new(ball.clone()).filter(filter),
                )
                .expect("valid ball");
            if i > 0 {
                let above = grid[grid.len() - 1];
                world
                    .add_joint(JointDesc::revolute(above, body, point(x, y + 0.5)))
                    .expect("valid hinge");
            }
            if k > 0 {
                let left = grid[grid.len() - side];
                world
                    .add_joint(JointDesc::revolute(left, body, point(x - 0.5, y)))
                    .expect("valid hinge");
            }
            grid.push(body);
            if !(i == 0 && pinned.contains(&k)) {
                bodies.push(body);
            }
        }
    }
    Scene { world, bodies }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tumble::shape::{ShapeKind, SupportMap};

    #[test]
    fn every_entry_builds_and_names_are_unique() {
        for (i, entry) in SCENES.iter().enumerate() {
            assert!(SCENES[i + 1..].iter().all(|e| e.name != entry.name));
            assert!(find(entry.name).is_some());
        }
    }

    #[test]
    fn the_ragdoll_pile_lands_with_its_joints_holding() {
        let Scene { mut world, bodies } = ragdoll_pile_3d();
        assert_eq!((bodies.len(), world.joints().count()), (2200, 2000));
        for _ in 0..60 {
            world.step(1.0 / 60.0);
        }
        let widest = world
            .joints()
            .map(|(handle, _)| {
                let [a, b] = world.joint_anchors(handle).expect("a joint");
                (b - a).length()
            })
            .fold(0.0f32, f32::max);
        assert!(widest < 0.01, "a joint {widest} m apart");
        for &b in &bodies {
            let y = world.body(b).expect("a body").position().y;
            assert!(y.is_finite() && y > -0.1, "a part at y = {y}");
        }
    }

    #[test]
    fn the_small_falling_boxes_and_the_mixed_shapes() {
        assert_eq!(falling_boxes_small_3d().bodies.len(), 294);
        let scene = mixed_shapes_3d();
        assert_eq!(scene.bodies.len(), 150);
        let mut kinds = [0usize; 4];
        for &h in &scene.bodies {
            let body = scene.world.body(h).expect("live");
            kinds[match body.shape().kind() {
                ShapeKind::Ball { .. } => 0,
                ShapeKind::Capsule { .. } => 1,
                ShapeKind::ConvexHull(_) => 2,
                ShapeKind::Cuboid { .. } => 3,
                ShapeKind::Surface(_) | ShapeKind::Facet(_) => unreachable!("a dynamic body"),
            }] += 1;
        }
        assert!(kinds.iter().all(|&n| n >= 30), "{kinds:?}");
        // Built apart: no two bodies' boxes overlap by more than a hair.
        let boxes: Vec<_> = scene
            .bodies
            .iter()
            .map(|&h| {
                let b = scene.world.body(h).expect("live");
                b.shape().aabb(&b.pose()).expanded(-0.05)
            })
            .collect();
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.min.y > 0.0, "body {i} starts in the ground");
            assert!(boxes[i + 1..].iter().all(|b| !a.overlaps(b)), "body {i}");
        }
    }

    #[test]
    fn random_piles_start_above_the_ground() {
        for seed in [1, 2, 3] {
            let pile = random_pile_2d(seed);
            assert_eq!(pile.bodies.len(), 150);
            for &h in &pile.bodies {
                let b = pile.world.body(h).expect("live");
                assert!(b.shape().aabb(&b.pose()).min.y > 0.0, "seed {seed}");
            }
            let pile = random_pile_3d(seed);
            assert_eq!(pile.bodies.len(), 200);
            for &h in &pile.bodies {
                let b = pile.world.body(h).expect("live");
                assert!(b.shape().aabb(&b.pose()).min.y > 0.0, "seed {seed}");
            }
        }
    }

    /// The sized and sliver piles start apart and above the ground.
    #[test]
    fn sized_and_sliver_piles_start_apart_above_the_ground() {
        for seed in [1, 2, 3] {
            for pile in [
                random_pile_2d_sized(seed, 1.6),
                random_sliver_pile_2d(seed, 1.0),
                random_sliver_pile_2d(seed, 1.6),
            ] {
                assert_eq!(pile.bodies.len(), 150);
                let boxes: Vec<_> = pile
                    .bodies
                    .iter()
                    .map(|&h| {
                        let b = pile.world.body(h).expect("live");
                        b.shape().aabb(&b.pose())
                    })
                    .collect();
                assert!(boxes.iter().all(|b| b.min.y > 0.0), "seed {seed}");
                assert!(apart(&boxes, 0.0), "seed {seed}");
            }
        }
    }

    /// No two of `boxes` overlap once each is shrunk by `margin` metres.
    fn apart<D: Dim>(boxes: &[tumble::shape::Aabb<D>], margin: f32) -> bool {
        let shrunk: Vec<_> = boxes.iter().map(|b| b.expanded(-margin)).collect();
        shrunk
            .iter()
            .enumerate()
            .all(|(i, a)| shrunk[i + 1..].iter().all(|b| !a.overlaps(b)))
    }

    #[test]
    fn the_terrain_mesh_is_the_heightfield_triangle_for_triangle() {
        let field = terrain_3d(17, 1);
        let mesh = terrain_mesh_3d(17, 1);
        let surface = |scene: &Scene<D3>| {
            let (_, ground) = scene.world.bodies().next().expect("the ground");
            ground.shape().as_surface().expect("a surface").clone()
        };
        let (field, mesh) = (surface(&field), surface(&mesh));
        assert_eq!(field.facets().len(), 16 * 16 * 2);
        assert_eq!(field.dropped_facets(), 0);
        assert_eq!(mesh.facets().len(), field.facets().len());
        for (a, b) in field.facets().iter().zip(mesh.facets()) {
            assert_eq!(a.corners(), b.corners());
            assert_eq!(a.joins(), b.joins());
            assert!(a.normal().y > 0.5, "front up");
        }
        let heights = terrain_heights(65);
        let lowest = heights.iter().copied().fold(f32::INFINITY, f32::min);
        let highest = heights.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert!(lowest >= 0.0 && highest < 12.0, "{lowest} to {highest}");
    }

    #[test]
    fn the_terrain_rain_starts_apart_and_above_the_ground() {
        for (scene, flat) in [
            (terrain_3d(65, 200), false),
            (terrain_mesh_3d(33, 300), false),
            (flat_ground_3d(200), true),
        ] {
            let boxes: Vec<_> = scene
                .bodies
                .iter()
                .map(|&h| {
                    let b = scene.world.body(h).expect("live");
                    assert_eq!(b.kind(), tumble::BodyKind::Dynamic);
                    b.shape().aabb(&b.pose())
                })
                .collect();
            assert!(boxes.len() >= 200);
            assert!(apart(&boxes, 0.02));
            for b in &boxes {
                let ground = if flat {
                    0.0
                } else {
                    let (min, max) = (b.min, b.max);
                    let mid = (min + max) * 0.5;
                    [min.x, max.x]
                        .into_iter()
                        .flat_map(|x| [min.z, max.z].map(|z| terrain_height(x, z)))
                        .fold(terrain_height(mid.x, mid.z), f32::max)
                };
                assert!(b.min.y > ground + 0.2, "{b:?} over {ground}");
            }
        }
    }

    #[test]
    fn the_chain_level_faces_up_and_its_bodies_start_apart_above_it() {
        let scene = chains_2d();
        assert_eq!(scene.bodies.len(), CHAIN_ROWS * CHAIN_ROW_BODIES);
        let surfaces: Vec<_> = scene
            .world
            .bodies()
            .filter_map(|(_, b)| b.shape().as_surface().cloned())
            .collect();
        assert_eq!(surfaces.len(), 2);
        // The ground's flat pieces face up, the cup's floor (outside) down.
        let ups = surfaces[0]
            .facets()
            .iter()
            .filter(|f| f.normal().y > 0.99)
            .count();
        assert!(ups >= 6, "{ups}");
        assert!(surfaces[1]
            .facets()
            .iter()
            .any(|f| f.normal().y < -0.99 && f.corners()[0].y == CHAIN_CUP[0].1));
        let boxes: Vec<_> = scene
            .bodies
            .iter()
            .map(|&h| {
                let b = scene.world.body(h).expect("live");
                b.shape().aabb(&b.pose())
            })
            .collect();
        assert!(apart(&boxes, 0.02));
        for b in &boxes {
            let ground = chain_ground_height(b.min.x).max(chain_ground_height(b.max.x));
            assert!(b.min.y > ground + 0.2, "{b:?} over {ground}");
        }
    }

    #[test]
    fn the_rain_lands_on_the_terrain_and_stays_above_it() {
        for mut scene in [terrain_3d(65, 200), terrain_mesh_3d(65, 200)] {
            for _ in 0..180 {
                scene.world.step(1.0 / 60.0);
            }
            for &h in &scene.bodies {
                let b = scene.world.body(h).expect("live");
                // The lowest point of the body and the terrain under it
                // (the terrain's slope is below 1 where bodies land).
                let p = b.position();
                let low = b.shape().aabb(&b.pose()).min.y;
                let lowest = b.pose().transform_point(
                    b.shape()
                        .support(b.pose().inverse_transform_vector(Vec3::NEG_Y)),
                );
                let below = terrain_height(lowest.x, lowest.z) - low;
                assert!(below < 0.05, "{p} sank {below} m into the terrain");
                assert!(p.y > terrain_height(p.x, p.z), "{p} under the terrain");
                assert!(b.linear_velocity().length() < 20.0, "{p}");
            }
        }
    }

    /// The largest distance between a joint's two world anchors, metres.
    fn largest_joint_gap<D: Dim>(world: &World<D>) -> f32 {
        world
            .joints()
            .map(|(h, _)| {
                let [a, b] = world.joint_anchors(h).expect("live joint");
                tumble::Vector::length(b - a)
            })
            .fold(0.0, f32::max)
    }

    #[test]
    fn the_joint_grid_is_box2ds_and_its_hinges_start_closed() {
        let (grid_2d, grid_3d) = (joint_grid_2d(), joint_grid_3d());
        assert_eq!(grid_2d.bodies.len(), 100 * 100 - 7);
        assert_eq!(grid_3d.bodies.len(), 100 * 100 - 7);
        assert_eq!(grid_2d.world.joints().count(), 2 * 100 * 99);
        assert_eq!(grid_3d.world.joints().count(), 2 * 100 * 99);
        let fixed_2d = grid_2d
            .world
            .bodies()
            .filter(|(_, b)| b.kind() == tumble::BodyKind::Fixed);
        let fixed_3d = grid_3d
            .world
            .bodies()
            .filter(|(_, b)| b.kind() == tumble::BodyKind::Fixed);
        assert_eq!((fixed_2d.count(), fixed_3d.count()), (7, 7));
        // Each hinge at the midpoint of its two balls, 1 m apart.
        for (h, joint) in grid_2d.world.joints() {
            let [a, b] = joint
                .bodies()
                .map(|b| grid_2d.world.body(b).expect("live").position());
            let [pa, pb] = grid_2d.world.joint_anchors(h).expect("live joint");
            assert!((b - a).length() == 1.0 && pa == pb && pa == (a + b) * 0.5);
        }
        assert_eq!(largest_joint_gap(&grid_3d.world), 0.0);
    }

    #[test]
    fn a_small_joint_grid_hangs_together() {
        // Box2D's debug size, 20 x 20, for 5 s.
        let mut grid_2d = joint_grid::<D2>(20, Vec2::new);
        let mut grid_3d = joint_grid::<D3>(20, |x, y| Vec3::new(x, y, 0.0));
        for _ in 0..300 {
            grid_2d.world.step(1.0 / 60.0);
            grid_3d.world.step(1.0 / 60.0);
        }
        let gap_2d = largest_joint_gap(&grid_2d.world);
        let gap_3d = largest_joint_gap(&grid_3d.world);
        assert!(gap_2d < 0.01, "{gap_2d}");
        assert!(gap_3d < 0.01, "{gap_3d}");
        for &h in &grid_3d.bodies {
            let p = grid_3d.world.body(h).expect("live").position();
            assert!(p.is_finite() && p.z.abs() < 1e-4, "{p}");
        }
    }
}
