//! Rapier worlds that mirror a built tumble scene body for body, so the stress
//! CLI can time both engines on exactly the same reference scenes.
//!
//! Every body of the tumble world is copied: its kind (fixed, dynamic or
//! kinematic), position and rotation, and each collider's shape, local pose,
//! friction and restitution. Density is the body's mass over its shapes'
//! mass at density 1 (uniform bodies, as in every reference scene).
//! Each collider's collision filter becomes rapier collision groups (tumble's
//! category and mask are rapier's memberships and filter, tested alike).
//! Gravity and the time step come from the caller; sleeping is off on every
//! body; everything else is rapier's default.
//!
//! Joints: each plain revolute joint (no limits, motor or spring) becomes a
//! rapier impulse joint, a `RevoluteJoint`, with the same anchors (tumble's
//! world anchors, from `World::joint_anchors`, in each rapier body's frame)
//! and contacts between its bodies enabled only if tumble's
//! `collide_connected` is set. In 3D its axis is tumble's default, world Z,
//! in each body's frame: tumble does not show a joint's axis, so a 3D hinge
//! made with another `.axis(..)` would be mirrored wrongly (no reference
//! scene has one). Every other joint kind, and revolute joints with limits,
//! a motor or a spring, are [`Unsupported`] for now.

use std::collections::HashMap;

use tumble::joint::JointModel;
use tumble::shape::ShapeKind;
use tumble::{BodyHandle, BodyKind, Dim, D2, D3};
use tumble_scenes::Scene;

/// A mirror could not be built.
#[derive(Debug)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

/// Uniform density of a tumble body: its mass over its shapes' mass at density 1.
fn density_of<D: Dim>(body: &tumble::Body<D>) -> f32 {
    let unit: f32 = body
        .colliders()
        .iter()
        .map(|c| c.shape().mass_properties(1.0).mass)
        .sum();
    if unit > 0.0 {
        body.mass() / unit
    } else {
        1.0
    }
}

/// The bodies of `scene`: every body of the world (ground included), and for
/// each the index of the measured bodies in that order.
fn all_bodies<D: Dim>(scene: &Scene<D>) -> (Vec<BodyHandle>, Vec<usize>) {
    let all: Vec<BodyHandle> = scene.world.bodies().map(|(h, _)| h).collect();
    let measured = scene
        .bodies
        .iter()
        .map(|h| {
            all.iter()
                .position(|a| a == h)
                .expect("measured body in world")
        })
        .collect();
    (all, measured)
}

/// The largest and the mean of `gaps` (NaN if any is), `None` if empty.
pub fn gaps(gaps: &[f32]) -> Option<[f32; 2]> {
    if gaps.is_empty() {
        return None;
    }
    let largest = gaps.iter().copied().fold(0.0, |m: f32, g| {
        if g.is_nan() || m.is_nan() {
            f32::NAN
        } else {
            m.max(g)
        }
    });
    let mean = gaps.iter().sum::<f32>() / gaps.len() as f32;
    Some([largest, mean])
}

macro_rules! mirror {
    ($module:ident, $rapier:ident, $conv:ident, $dim:ty, $doc:literal) => {
        #[doc = $doc]
        pub mod $module {
            use super::$conv::{cuboid, pose, position, revolute, vector};
            use super::*;
            use $rapier::prelude::*;

            /// A rapier world and the handles of the measured bodies.
            pub struct World {
                gravity: Vector,
                params: IntegrationParameters,
                pipeline: PhysicsPipeline,
                islands: IslandManager,
                broad_phase: BroadPhaseBvh,
                narrow_phase: NarrowPhase,
                bodies: RigidBodySet,
                colliders: ColliderSet,
                impulse_joints: ImpulseJointSet,
                multibody_joints: MultibodyJointSet,
                soft_bodies: SoftBodySet,
                ccd: CCDSolver,
                /// The bodies mirroring the tumble scene's measured bodies, in order.
                pub measured: Vec<RigidBodyHandle>,
            }

            impl World {
                /// A rapier world with the same bodies as `scene`, stepped by `dt`
                /// under the tumble world's gravity.
                pub fn mirror(scene: &Scene<$dim>, dt: f32) -> Result<Self, Unsupported> {
                    let mut bodies = RigidBodySet::new();
                    let mut colliders = ColliderSet::new();
                    let (all, measured) = all_bodies(scene);
                    let mut handles = Vec::with_capacity(all.len());
                    for &h in &all {
                        let body = scene.world.body(h).expect("live");
                        let builder = match body.kind() {
                            BodyKind::Dynamic => RigidBodyBuilder::dynamic(),
                            BodyKind::Fixed => RigidBodyBuilder::fixed(),
                            BodyKind::Kinematic => RigidBodyBuilder::kinematic_velocity_based(),
                        };
                        let rb = builder.pose(pose(&body.pose())).can_sleep(false).build();
                        let handle = bodies.insert(rb);
                        let density = density_of(&body);
                        for c in body.colliders() {
                            let shape = match c.shape().kind() {
                                ShapeKind::Ball { radius } => ColliderBuilder::ball(*radius),
                                ShapeKind::Cuboid { half_extents } => cuboid(*half_extents),
                                ShapeKind::Capsule {
                                    half_height,
                                    radius,
                                } => ColliderBuilder::capsule_y(*half_height, *radius),
                                ShapeKind::ConvexHull(_) => {
                                    return Err(Unsupported(
                                        "the rapier mirror has no convex hulls".into(),
                                    ))
                                }
                                ShapeKind::Surface(_) | ShapeKind::Facet(_) => {
                                    return Err(Unsupported(
                                        "the rapier mirror has no surfaces".into(),
                                    ))
                                }
                            };
                            let filter = c.filter();
                            let groups = InteractionGroups::new(
                                Group::from_bits_retain(filter.category),
                                Group::from_bits_retain(filter.mask),
                                InteractionTestMode::And,
                            );
                            let collider = shape
                                .position(pose(&c.local_pose()))
                                .collision_groups(groups)
                                .density(density)
                                .friction(c.friction())
                                .restitution(c.restitution())
                                .sensor(c.is_sensor())
                                .build();
                            colliders.insert_with_parent(collider, handle, &mut bodies);
                        }
                        handles.push(handle);
                    }
                    let index: HashMap<BodyHandle, RigidBodyHandle> =
                        all.iter().copied().zip(handles.iter().copied()).collect();
                    let mut impulse_joints = ImpulseJointSet::new();
                    for (h, joint) in scene.world.joints() {
                        match joint.model() {
                            JointModel::Revolute {
                                limits: None,
                                motor: None,
                                spring: None,
                                ..
                            } => {}
                            JointModel::Revolute { .. } => {
                                return Err(Unsupported(
                                    "the rapier mirror has no revolute limits, motors or springs"
                                        .into(),
                                ))
                            }
                            other => {
                                return Err(Unsupported(format!(
                                    "the rapier mirror has revolute joints only, not {other:?}"
                                )))
                            }
                        }
                        let [a, b] = joint.bodies();
                        let [anchor_a, anchor_b] =
                            scene.world.joint_anchors(h).expect("live joint");
                        let (h1, h2) = (index[&a], index[&b]);
                        let (p1, p2) = (*bodies[h1].position(), *bodies[h2].position());
                        let hinge = revolute(&p1, &p2)
                            .local_anchor1(p1.inverse_transform_point(vector(anchor_a)))
                            .local_anchor2(p2.inverse_transform_point(vector(anchor_b)))
                            .contacts_enabled(joint.collides_connected())
                            .build();
                        impulse_joints.insert(h1, h2, hinge, true);
                    }
                    let params = IntegrationParameters {
                        dt,
                        ..IntegrationParameters::default()
                    };
                    Ok(Self {
                        gravity: vector(scene.world.settings().gravity),
                        params,
                        pipeline: PhysicsPipeline::new(),
                        islands: IslandManager::new(),
                        broad_phase: BroadPhaseBvh::new(),
                        narrow_phase: NarrowPhase::new(),
                        bodies,
                        colliders,
                        impulse_joints,
                        multibody_joints: MultibodyJointSet::new(),
                        soft_bodies: SoftBodySet::new(),
                        ccd: CCDSolver::new(),
                        measured: measured.into_iter().map(|i| handles[i]).collect(),
                    })
                }

                /// One step of `dt`.
                pub fn step(&mut self) {
                    self.pipeline.step(
                        self.gravity,
                        &self.params,
                        &mut self.islands,
                        &mut self.broad_phase,
                        &mut self.narrow_phase,
                        &mut self.bodies,
                        &mut self.colliders,
                        &mut self.impulse_joints,
                        &mut self.multibody_joints,
                        &mut self.soft_bodies,
                        &mut self.ccd,
                        &(),
                        &(),
                    );
                }

                /// The largest and the mean distance between each joint's two
                /// world anchors (its error), metres; `None` without joints.
                pub fn joint_gaps(&self) -> Option<[f32; 2]> {
                    let gaps: Vec<f32> = self
                        .impulse_joints
                        .iter()
                        .map(|(_, j)| {
                            let a = self.bodies[j.body1()]
                                .position()
                                .transform_point(j.data.local_anchor1());
                            let b = self.bodies[j.body2()]
                                .position()
                                .transform_point(j.data.local_anchor2());
                            (a - b).length()
                        })
                        .collect();
                    super::gaps(&gaps)
                }

                /// Positions of the measured bodies, as `[x, y, z]` (z = 0 in 2D).
                pub fn positions(&self) -> Vec<[f32; 3]> {
                    self.measured
                        .iter()
                        .map(|&h| position(self.bodies[h].translation()))
                        .collect()
                }
            }
        }
    };
}

mirror!(d2, rapier2d, conv_d2, D2, "2D mirrors, in rapier2d.");
mirror!(d3, rapier3d, conv_d3, D3, "3D mirrors, in rapier3d.");

// Conversions from tumble's glam to rapier's (another glam version), by components.

mod conv_d2 {
    use rapier2d::prelude::{ColliderBuilder, Pose, RevoluteJointBuilder, Vector};
    use tumble::glam::Vec2;
    use tumble::{MathDim, D2};

    pub fn vector(v: Vec2) -> Vector {
        Vector::new(v.x, v.y)
    }

    pub fn pose(p: &tumble::Pose<D2>) -> Pose {
        Pose::new(vector(p.translation), D2::orientation_of(p.rotation))
    }

    pub fn cuboid(half: Vec2) -> ColliderBuilder {
        ColliderBuilder::cuboid(half.x, half.y)
    }

    pub fn position(v: Vector) -> [f32; 3] {
        [v.x, v.y, 0.0]
    }

    /// A hinge between bodies at `_p1` and `_p2` (in 2D, about Z).
    pub fn revolute(_p1: &Pose, _p2: &Pose) -> RevoluteJointBuilder {
        RevoluteJointBuilder::new()
    }
}

mod conv_d3 {
    use rapier3d::prelude::{ColliderBuilder, Pose, RevoluteJointBuilder, Rotation, Vector};
    use tumble::glam::Vec3;
    use tumble::{MathDim, D3};

    pub fn vector(v: Vec3) -> Vector {
        Vector::new(v.x, v.y, v.z)
    }

    pub fn pose(p: &tumble::Pose<D3>) -> Pose {
        let q = D3::orientation_of(p.rotation);
        Pose::from_parts(
            vector(p.translation),
            Rotation::from_xyzw(q.x, q.y, q.z, q.w).normalize(),
        )
    }

    pub fn cuboid(half: Vec3) -> ColliderBuilder {
        ColliderBuilder::cuboid(half.x, half.y, half.z)
    }

    pub fn position(v: Vector) -> [f32; 3] {
        [v.x, v.y, v.z]
    }

    /// A hinge between bodies at `p1` and `p2` about tumble's default axis,
    /// world Z, in each body's frame.
    pub fn revolute(p1: &Pose, p2: &Pose) -> RevoluteJointBuilder {
        let mut hinge = RevoluteJointBuilder::new(p1.rotation.inverse() * Vector::Z);
        hinge
            .0
            .data
            .set_local_axis2(p2.rotation.inverse() * Vector::Z);
        hinge
    }
}
