//! Colours, and which debug layers are shown.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use macroquad::color::Color;
use tumble::BodyHandle;

/// Which debug layers the window draws over the bodies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layers {
    /// Manifold points and normals (key C).
    pub contacts: bool,
    /// Each body's bounding box (key B).
    pub bounds: bool,
    /// Each joint's anchors and the line between them (key J; on at the
    /// start).
    pub joints: bool,
}

impl Default for Layers {
    /// Joints shown, contacts and bounding boxes not.
    fn default() -> Self {
        Self {
            contacts: false,
            bounds: false,
            joints: true,
        }
    }
}

/// Background of the window.
pub const BACKGROUND: Color = Color::new(0.11, 0.12, 0.15, 1.0);
/// Fixed bodies (the ground).
pub const GROUND: Color = Color::new(0.42, 0.44, 0.47, 1.0);
/// A surface's wireframe (with the contact or bounding-box layer).
pub const WIRE: Color = Color::new(0.12, 0.16, 0.12, 1.0);
/// Grid lines drawn on the ground.
pub const GRID: Color = Color::new(0.33, 0.35, 0.38, 1.0);
/// Contact points.
pub const CONTACT_POINT: Color = Color::new(1.0, 0.2, 0.15, 1.0);
/// Contact normals.
pub const CONTACT_NORMAL: Color = Color::new(1.0, 0.85, 0.1, 1.0);
/// The ticks on the front of chain segments (with the contacts, key C).
pub const FACET_NORMAL: Color = Color::new(0.45, 0.85, 1.0, 1.0);
/// Bounding boxes.
pub const BOUNDS: Color = Color::new(0.3, 0.95, 0.5, 0.8);
/// A joint's anchor on its first body (A).
pub const JOINT_A: Color = Color::new(0.2, 0.95, 0.95, 1.0);
/// A joint's anchor on its second body (B).
pub const JOINT_B: Color = Color::new(0.95, 0.35, 0.95, 1.0);
/// The line between a joint's two anchors.
pub const JOINT_LINE: Color = Color::new(1.0, 1.0, 1.0, 0.9);

const PALETTE: [Color; 8] = [
    Color::new(0.90, 0.49, 0.25, 1.0),
    Color::new(0.29, 0.60, 0.86, 1.0),
    Color::new(0.95, 0.77, 0.30, 1.0),
    Color::new(0.45, 0.75, 0.45, 1.0),
    Color::new(0.80, 0.40, 0.55, 1.0),
    Color::new(0.55, 0.50, 0.85, 1.0),
    Color::new(0.35, 0.78, 0.76, 1.0),
    Color::new(0.86, 0.86, 0.82, 1.0),
];

/// A body's colour: stable for the body's lifetime, varied between bodies,
/// dimmed while the body sleeps.
pub fn body_color(handle: BodyHandle, sleeping: bool) -> Color {
    let mut hasher = DefaultHasher::new();
    handle.hash(&mut hasher);
    let color = PALETTE[(hasher.finish() % PALETTE.len() as u64) as usize];
    if sleeping {
        scaled(color, 0.55)
    } else {
        color
    }
}

/// The colour of a surface (terrain) at `height`, 0 at its lowest and 1 at
/// its highest: grass green in the valleys to a dry ochre on the tops.
pub fn terrain(height: f32) -> Color {
    let (low, high) = (
        Color::new(0.36, 0.52, 0.32, 1.0),
        Color::new(0.62, 0.56, 0.40, 1.0),
    );
    let t = height.clamp(0.0, 1.0);
    Color::new(
        low.r + (high.r - low.r) * t,
        low.g + (high.g - low.g) * t,
        low.b + (high.b - low.b) * t,
        1.0,
    )
}

/// `color` with its red, green and blue scaled by `k` (alpha kept).
pub fn scaled(color: Color, k: f32) -> Color {
    Color::new(color.r * k, color.g * k, color.b * k, color.a)
}
