//! A scene's world being stepped at a fixed 1/60 s, in 2D or 3D, and the
//! numbers the overlay and the headless runner report about it.

use std::time::Instant;

use tumble::shape::Aabb;
use tumble::{Angular, BodyKind, Dim, Vector, World, D2, D3};

use crate::cannon::Cannon;
use crate::car::Car;
use crate::gun::Gun;
use crate::inspector::Inspector;
use crate::player::{Player, PlayerInput};
use crate::scenes::{DemoScene, SceneKind};

/// The fixed time step, seconds.
pub const DT: f32 = 1.0 / 60.0;

/// The reference scenes run with sleeping off, for timing; the demo lets
/// resting bodies sleep (and tints them).
fn with_sleep<D: Dim>(mut world: World<D>) -> World<D> {
    world.settings_mut().sleep = true;
    world
}

/// A 2D or a 3D world, or an inspector's state.
pub enum SimWorld {
    /// A 2D world.
    D2(World<D2>),
    /// A 3D world.
    D3(World<D3>),
    /// The 2D EPA inspector: two shapes, never stepped.
    Inspector2d(Box<Inspector<D2>>),
    /// The 3D EPA inspector.
    Inspector3d(Box<Inspector<D3>>),
}

/// Counts of what a world holds after a step.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Bodies, fixed ones included.
    pub bodies: usize,
    /// Pairs in contact: with manifold points (touching or within the
    /// speculative distance).
    pub pairs: usize,
    /// Manifold points over all pairs: the contacts the solver sees.
    pub points: usize,
}

/// A scene being simulated.
pub struct Sim {
    /// The scene it was built from.
    pub scene: &'static DemoScene,
    /// Its world.
    pub world: SimWorld,
    /// Simulated time, seconds.
    pub time: f32,
    /// Steps taken.
    pub steps: u64,
    /// The scene's player, if it has one (`tumble_scenes::player_2d`).
    pub player: Option<Player>,
    /// The scene's car, if it has one (`car_2d`).
    pub car: Option<Car>,
    /// The scene's cannon, if it has a door to fire at (`door_3d`).
    pub cannon: Option<Cannon>,
    /// The scene's gun, if it has one (`bullets_3d`).
    pub gun: Option<Gun>,
    /// What the player's (or the car's) keys ask this step.
    pub input: PlayerInput,
    /// The player or car follows a script instead of keys (headless runs).
    pub scripted: bool,
}

impl Sim {
    /// The scene, freshly built.
    pub fn new(scene: &'static DemoScene) -> Self {
        let world = match scene.kind {
            SceneKind::D2(build) => SimWorld::D2(with_sleep(build().world)),
            SceneKind::D3(build) => SimWorld::D3(with_sleep(build().world)),
            SceneKind::Inspector2d => SimWorld::Inspector2d(Box::default()),
            SceneKind::Inspector3d => SimWorld::Inspector3d(Box::default()),
        };
        let player = match &world {
            SimWorld::D2(w) => Player::find(w, tumble_scenes::PLAYER),
            _ => None,
        };
        let car = match &world {
            SimWorld::D2(w) if player.is_none() => Car::find(w),
            _ => None,
        };
        let cannon = match &world {
            SimWorld::D3(w) => Cannon::find(w),
            _ => None,
        };
        let gun = match &world {
            SimWorld::D3(w) => Gun::find(w),
            _ => None,
        };
        Self {
            scene,
            world,
            time: 0.0,
            steps: 0,
            player,
            car,
            cannon,
            gun,
            input: PlayerInput::default(),
            scripted: false,
        }
    }

    /// Rebuilds the scene from the start.
    pub fn reset(&mut self) {
        let scripted = self.scripted;
        *self = Self::new(self.scene);
        self.scripted = scripted;
    }

    /// One step of [`DT`]; returns the wall-clock time it took, milliseconds.
    /// The inspectors do not step: time stands still there.
    pub fn step(&mut self) -> f64 {
        let start = Instant::now();
        match &mut self.world {
            SimWorld::D2(w) => match (&mut self.player, &mut self.car) {
                (Some(player), _) => {
                    let input = if self.scripted {
                        PlayerInput::scripted(self.time, DT)
                    } else {
                        self.input
                    };
                    player.drive(w, input, DT);
                    w.step(DT);
                    player.record_impacts(w, DT);
                }
                (None, Some(car)) => {
                    let input = if self.scripted {
                        Car::scripted()
                    } else {
                        self.input
                    };
                    car.drive(w, input);
                    w.step(DT);
                }
                (None, None) => w.step(DT),
            },
            SimWorld::D3(w) => {
                if let Some(cannon) = &mut self.cannon {
                    cannon.update(w, self.time, DT);
                }
                if let Some(gun) = &mut self.gun {
                    gun.update(w, self.time, DT);
                }
                w.step(DT)
            }
            SimWorld::Inspector2d(_) | SimWorld::Inspector3d(_) => return 0.0,
        }
        self.time += DT;
        self.steps += 1;
        start.elapsed().as_secs_f64() * 1e3
    }

    /// Bodies, contact pairs and manifold points.
    pub fn counts(&self) -> Counts {
        match &self.world {
            SimWorld::D2(w) => counts_of(w),
            SimWorld::D3(w) => counts_of(w),
            SimWorld::Inspector2d(i) => inspector_counts(i.contact.is_some()),
            SimWorld::Inspector3d(i) => inspector_counts(i.contact.is_some()),
        }
    }

    /// Kinetic energy of every dynamic body, linear plus rotational, joules.
    pub fn kinetic_energy(&self) -> f32 {
        match &self.world {
            SimWorld::D2(w) => kinetic_energy_of(w),
            SimWorld::D3(w) => kinetic_energy_of(w),
            SimWorld::Inspector2d(_) | SimWorld::Inspector3d(_) => 0.0,
        }
    }

    /// Lowest point of any dynamic body, metres along Y (the ground's top is
    /// at 0 in every scene); `None` without dynamic bodies.
    pub fn lowest_point(&self) -> Option<f32> {
        match &self.world {
            SimWorld::D2(w) => dynamic_bounds(w).map(|b| b.min.y),
            SimWorld::D3(w) => dynamic_bounds(w).map(|b| b.min.y),
            SimWorld::Inspector2d(_) | SimWorld::Inspector3d(_) => None,
        }
    }

    /// Removes dynamic bodies that fell below `y` (off the ground's edge);
    /// returns how many.
    pub fn remove_fallen(&mut self, y: f32) -> usize {
        match &mut self.world {
            SimWorld::D2(w) => remove_below(w, |p| p.y < y),
            SimWorld::D3(w) => remove_below(w, |p| p.y < y),
            SimWorld::Inspector2d(_) | SimWorld::Inspector3d(_) => 0,
        }
    }
}

/// The inspector's two shapes, as counts: one pair and one point when they touch.
fn inspector_counts(touching: bool) -> Counts {
    Counts {
        bodies: 2,
        pairs: touching as usize,
        points: touching as usize,
    }
}

/// Bodies, pairs and manifold points of a world (a pair with a surface
/// counts once, with the points of all its facets' manifolds).
pub fn counts_of<D: Dim>(world: &World<D>) -> Counts {
    let pairs = world.contact_pairs();
    let points =
        |p: &tumble::ContactPair<D>| -> usize { p.manifolds().map(|m| m.points().len()).sum() };
    Counts {
        bodies: world.body_count(),
        pairs: pairs.iter().filter(|p| points(p) > 0).count(),
        points: pairs.iter().map(points).sum(),
    }
}

/// Kinetic energy of a world's dynamic bodies, `½mv² + ½ωᵀIω`, joules.
pub fn kinetic_energy_of<D: Dim>(world: &World<D>) -> f32 {
    world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic && b.mass() > 0.0)
        .map(|(_, b)| {
            let unit = b.shape().mass_properties(1.0);
            let props = b.shape().mass_properties(b.mass() / unit.mass);
            let inertia = D::rotate_inertia(b.pose().rotation, props.inertia);
            let w = b.angular_velocity();
            let linear = 0.5 * b.mass() * b.linear_velocity().length_squared();
            linear + 0.5 * D::mul_inertia(inertia, w).dot(w)
        })
        .sum()
}

/// The box around every dynamic body, or `None` when there is none.
pub fn dynamic_bounds<D: Dim>(world: &World<D>) -> Option<Aabb<D>> {
    world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic)
        .map(|(_, b)| b.shape().aabb(&b.pose()))
        .reduce(|a, b| a.union(&b))
}

fn remove_below<D: Dim>(world: &mut World<D>, below: impl Fn(D::Vector) -> bool) -> usize {
    let fallen: Vec<_> = world
        .bodies()
        .filter(|(_, b)| b.kind() == BodyKind::Dynamic && below(b.position()))
        .map(|(h, _)| h)
        .collect();
    for &h in &fallen {
        world.remove_body(h);
    }
    fallen.len()
}
