//! Scene builders shared by demos, benches and tests, after the Box2D v3 and
//! Box3D benchmark scenes: unit boxes (1 m), density 1, friction 0.6, on a
//! fixed ground whose top face is at y = 0.

use tumble::d2;
use tumble::d3;
use tumble::glam::{Quat, Vec2, Vec3};
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
    let player = world
        .add_body(
            d2::BodyDesc::dynamic()
                .position(Vec2::new(-6.0, 0.8))
                .fixed_rotation()
                .user_data(PLAYER),
            d2::ColliderDesc::new(d2::Shape::capsule(0.45, 0.35).expect("valid capsule"))
                .density(100.0)
                .friction(0.4),
        )
        .expect("valid player");
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

/// 2D: a pile of 150 bodies, boxes and random convex polygons of 3 to 6
/// corners about 1 m across, turned at random, dropped from a loose 10 x 15
/// grid; sleeping on. The seed picks sizes, shapes and turns.
pub fn random_pile_2d(seed: u32) -> Scene<D2> {
    let mut world = ground_2d(Settings::default(), 30.0);
    let mut rng = Lcg(seed);
    let mut bodies = Vec::new();
    for j in 0..15 {
        for i in 0..10 {
            let at = Vec2::new(i as f32 * 1.5 - 6.75, 1.0 + j as f32 * 1.5);
            let shape = if (i + j) % 2 == 0 {
                d2::Shape::cuboid(Vec2::new(rng.range(0.2, 0.5), rng.range(0.2, 0.5)))
            } else {
                d2::Shape::convex_polygon(&random_polygon(&mut rng))
            }
            .expect("valid shape");
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
    let mut world = ground_3d(Settings::default(), 30.0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use tumble::shape::ShapeKind;

    #[test]
    fn every_entry_builds_and_names_are_unique() {
        for (i, entry) in SCENES.iter().enumerate() {
            assert!(SCENES[i + 1..].iter().all(|e| e.name != entry.name));
            assert!(find(entry.name).is_some());
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
}
