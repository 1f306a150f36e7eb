//! The demo's scenes: names, one line each, and their builders from
//! `tumble-scenes`, sized so a window steps them in real time (the engine is
//! not optimised yet: a 385-cube pyramid takes several ms per step).
//!
//! The keys of the top row, 1..9, 0 and -, then F1..F6 (the joint scenes)
//! and F7, F8 (the continuous collision scenes) pick scenes in this order
//! ([`KEYS`]). The EPA inspectors are not worlds: their [`SceneKind`]
//! variants hold no builder.

use tumble::{D2, D3};
use tumble_scenes::{ccd_scenes, joint_scenes, Scene};

/// How a scene is built and shown.
#[derive(Copy, Clone, Debug)]
pub enum SceneKind {
    /// A 2D world, drawn with an orthographic 2D camera.
    D2(fn() -> Scene<D2>),
    /// A 3D world, drawn with an orbiting perspective camera.
    D3(fn() -> Scene<D3>),
    /// The 2D EPA inspector: two shapes placed by hand, not stepped.
    Inspector2d,
    /// The 3D EPA inspector.
    Inspector3d,
}

/// What a scene's camera frames at the start.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Framing {
    /// The dynamic bodies and the surfaces (a level), from the default
    /// angle (a level's, in 3D, when there is a surface).
    Bodies,
    /// The dynamic bodies and the fixed set pieces: every fixed body less
    /// than [`STAGE_SIZE`] across (stairs, posts, a door frame; not the
    /// ground). In 3D seen from `yaw` about Y and `pitch` above the
    /// horizontal, radians.
    Stage {
        /// The camera's angle about Y, radians.
        yaw: f32,
        /// The camera's angle above the horizontal, radians.
        pitch: f32,
    },
    /// 2D: the scene's car, [`FOLLOW_WIDTH`] metres across, followed as it
    /// drives.
    FollowCar,
}

/// Fixed bodies at least this wide (along their bounding box's longest
/// side, metres) are the ground, not a set piece ([`Framing::Stage`]).
pub const STAGE_SIZE: f32 = 20.0;

/// How much of the world a camera following a car shows across, metres.
pub const FOLLOW_WIDTH: f32 = 16.0;

/// One entry of the scene list.
#[derive(Debug)]
pub struct DemoScene {
    /// Name used by `--scene`.
    pub name: &'static str,
    /// One line saying what it is.
    pub about: &'static str,
    /// Its builder.
    pub kind: SceneKind,
    /// What its camera frames at the start.
    pub framing: Framing,
}

impl DemoScene {
    /// True for 3D scenes.
    pub fn is_3d(&self) -> bool {
        matches!(self.kind, SceneKind::D3(_) | SceneKind::Inspector3d)
    }

    /// True for the EPA inspectors, which are not physics scenes.
    pub fn is_inspector(&self) -> bool {
        matches!(self.kind, SceneKind::Inspector2d | SceneKind::Inspector3d)
    }
}

/// The key that picks each scene, in the order of [`SCENES`].
pub const KEYS: [&str; 23] = [
    "1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-", "F1", "F2", "F3", "F4", "F5", "F6",
    "F7", "F8", "F9", "F10", "F11", "F12",
];

/// The key that picks scene number `index` (from 0) of [`SCENES`], if any.
pub fn key(index: usize) -> Option<&'static str> {
    KEYS.get(index).copied()
}

/// Every demo scene; the first is the default.
pub static SCENES: &[DemoScene] = &[
    DemoScene {
        name: "falling_boxes",
        about: "3D: 294 turned cubes dropped in a staggered grid",
        kind: SceneKind::D3(tumble_scenes::falling_boxes_small_3d),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "mixed_shapes_3d",
        about: "3D: 150 balls, capsules, convex hulls and boxes",
        kind: SceneKind::D3(tumble_scenes::mixed_shapes_3d),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "pyramid_3d",
        about: "3D: square pyramid of base 8, 204 cubes",
        kind: SceneKind::D3(|| tumble_scenes::square_pyramid_3d(8)),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "tower_3d",
        about: "3D: a tower of 20 cubes",
        kind: SceneKind::D3(|| tumble_scenes::tower_3d(20)),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "pyramid_2d",
        about: "2D: pyramid of base 30, 465 boxes",
        kind: SceneKind::D2(|| tumble_scenes::pyramid_2d(30)),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "falling_boxes_2d",
        about: "2D: 400 boxes dropped in a loose grid",
        kind: SceneKind::D2(tumble_scenes::falling_boxes_2d),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "player_2d",
        about: "2D: a capsule player (Left/Right walk, Up jumps), crates and a ball; impacts flash",
        kind: SceneKind::D2(tumble_scenes::player_2d),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "epa_inspector_2d",
        about: "2D: EPA step by step on two shapes you drag and turn",
        kind: SceneKind::Inspector2d,
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "epa_inspector_3d",
        about: "3D: EPA's polytope step by step on two shapes you move",
        kind: SceneKind::Inspector3d,
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "terrain_3d",
        about: "3D: 200 balls, capsules, boxes and hulls rained on a 64 m heightfield",
        kind: SceneKind::D3(|| tumble_scenes::terrain_3d(65, 200)),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "chains_2d",
        about: "2D: 104 boxes and balls on chains: slopes, steps and a floating cup",
        kind: SceneKind::D2(tumble_scenes::chains_2d),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "rope_bridge_3d",
        about: "3D: a rope bridge of 12 planks on hinges between two posts; 8 boxes fall on it",
        kind: SceneKind::D3(joint_scenes::rope_bridge_3d),
        framing: Framing::Stage {
            yaw: 0.55,
            pitch: 0.32,
        },
    },
    DemoScene {
        name: "chain_2d",
        about: "2D: a chain of 20 hinged links and a heavy ball swings into a stack of boxes",
        kind: SceneKind::D2(joint_scenes::chain_2d),
        framing: Framing::Stage {
            yaw: 0.0,
            pitch: 0.0,
        },
    },
    DemoScene {
        name: "ragdoll_stairs_3d",
        about: "3D: 4 ragdolls (11 bodies, 10 joints each) dropped on stairs",
        kind: SceneKind::D3(joint_scenes::ragdoll_stairs_3d),
        framing: Framing::Stage {
            yaw: 1.2,
            pitch: 0.4,
        },
    },
    DemoScene {
        name: "car_2d",
        about: "2D: a car on sprung, driven wheel joints over bumps (Left/Right drive)",
        kind: SceneKind::D2(joint_scenes::car_2d),
        framing: Framing::FollowCar,
    },
    DemoScene {
        name: "door_3d",
        about: "3D: a door on a limited hinge with a closer; balls are fired at it",
        kind: SceneKind::D3(joint_scenes::door_3d),
        framing: Framing::Stage {
            yaw: 1.1,
            pitch: 0.75,
        },
    },
    DemoScene {
        name: "fan_3d",
        about: "3D: a fan of four blades welded to a light hub, driven on a hinge; balls fall on it",
        kind: SceneKind::D3(joint_scenes::fan_3d),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "bullets_3d",
        about: "3D: a gun fires 5 cm bullets at 150-300 m/s into thin walls and a stack of boxes",
        kind: SceneKind::D3(ccd_scenes::bullets_3d),
        framing: Framing::Stage {
            yaw: 0.75,
            pitch: 0.35,
        },
    },
    DemoScene {
        name: "pinball_2d",
        about: "2D: 12 balls at 20-50 m/s bounce among thin walls and pegs in a closed table",
        kind: SceneKind::D2(ccd_scenes::pinball_2d),
        framing: Framing::Stage {
            yaw: 0.0,
            pitch: 0.0,
        },
    },
    DemoScene {
        name: "flush_wall_3d",
        about: "3D: a wall of 200 flush cubes, 10 wide and 20 high, struck by a ball at 2 s",
        kind: SceneKind::D3(tumble_scenes::flush_wall_3d),
        framing: Framing::Bodies,
    },
    DemoScene {
        name: "tile_map_2d",
        about: "2D: the player (Left/Right walk, Up jumps) on a level of flush tiles, each its own body",
        kind: SceneKind::D2(tumble_scenes::tile_map_2d),
        framing: Framing::Stage {
            yaw: 0.0,
            pitch: 0.0,
        },
    },
];

/// The default scene: the 3D falling boxes.
pub fn default_scene() -> &'static DemoScene {
    &SCENES[0]
}

/// The scene called `name`, if any.
pub fn find(name: &str) -> Option<&'static DemoScene> {
    SCENES.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_the_default_is_falling_boxes() {
        assert_eq!(default_scene().name, "falling_boxes");
        for (i, a) in SCENES.iter().enumerate() {
            assert!(SCENES[i + 1..].iter().all(|b| b.name != a.name));
            assert!(std::ptr::eq(find(a.name).expect("found"), a));
        }
        assert!(
            SCENES.len() <= KEYS.len(),
            "keys 1..9, 0, - and F1..F9 pick scenes"
        );
        assert_eq!(key(9), Some("0"));
        assert_eq!(key(10), Some("-"));
        assert_eq!(key(SCENES.len() - 1), Some("F10"));
        assert_eq!(find("car_2d").map(|s| s.framing), Some(Framing::FollowCar));
    }
}
