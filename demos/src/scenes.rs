//! The demo's scenes: names, one line each, and their builders from
//! `tumble-scenes`, sized so a window steps them in real time (the engine is
//! not optimised yet: a 385-cube pyramid takes several ms per step).
//!
//! The keys of the top row, 1..9, 0 and -, pick scenes in this order
//! ([`KEYS`]). The EPA inspectors are not worlds: their [`SceneKind`]
//! variants hold no builder.

use tumble::{D2, D3};
use tumble_scenes::Scene;

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

/// One entry of the scene list.
#[derive(Debug)]
pub struct DemoScene {
    /// Name used by `--scene`.
    pub name: &'static str,
    /// One line saying what it is.
    pub about: &'static str,
    /// Its builder.
    pub kind: SceneKind,
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
pub const KEYS: [&str; 11] = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", "-"];

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
    },
    DemoScene {
        name: "mixed_shapes_3d",
        about: "3D: 150 balls, capsules, convex hulls and boxes",
        kind: SceneKind::D3(tumble_scenes::mixed_shapes_3d),
    },
    DemoScene {
        name: "pyramid_3d",
        about: "3D: square pyramid of base 8, 204 cubes",
        kind: SceneKind::D3(|| tumble_scenes::square_pyramid_3d(8)),
    },
    DemoScene {
        name: "tower_3d",
        about: "3D: a tower of 20 cubes",
        kind: SceneKind::D3(|| tumble_scenes::tower_3d(20)),
    },
    DemoScene {
        name: "pyramid_2d",
        about: "2D: pyramid of base 30, 465 boxes",
        kind: SceneKind::D2(|| tumble_scenes::pyramid_2d(30)),
    },
    DemoScene {
        name: "falling_boxes_2d",
        about: "2D: 400 boxes dropped in a loose grid",
        kind: SceneKind::D2(tumble_scenes::falling_boxes_2d),
    },
    DemoScene {
        name: "player_2d",
        about: "2D: a capsule player (Left/Right walk, Up jumps), crates and a ball; impacts flash",
        kind: SceneKind::D2(tumble_scenes::player_2d),
    },
    DemoScene {
        name: "epa_inspector_2d",
        about: "2D: EPA step by step on two shapes you drag and turn",
        kind: SceneKind::Inspector2d,
    },
    DemoScene {
        name: "epa_inspector_3d",
        about: "3D: EPA's polytope step by step on two shapes you move",
        kind: SceneKind::Inspector3d,
    },
    DemoScene {
        name: "terrain_3d",
        about: "3D: 200 balls, capsules, boxes and hulls rained on a 64 m heightfield",
        kind: SceneKind::D3(|| tumble_scenes::terrain_3d(65, 200)),
    },
    DemoScene {
        name: "chains_2d",
        about: "2D: 104 boxes and balls on chains: slopes, steps and a floating cup",
        kind: SceneKind::D2(tumble_scenes::chains_2d),
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
        assert!(SCENES.len() <= KEYS.len(), "keys 1..9, 0 and - pick scenes");
        assert_eq!(key(9), Some("0"));
        assert_eq!(key(SCENES.len() - 1), Some("-"));
    }
}
