//! Tumble demos: the scenes a person looks at, drawn with macroquad, and a
//! headless runner for machines without a display.
//!
//! - [`scenes`]: the demo's scene list (built by `tumble-scenes`);
//! - [`sim`]: a 2D or 3D world being stepped, with its statistics;
//! - [`headless`]: steps a scene without a window and prints a report;
//! - [`app`]: the macroquad window: input, stepping, drawing;
//! - [`camera`], [`draw_2d`], [`draw_3d`], [`overlay`]: the window's parts;
//! - [`player`], [`car`], [`cannon`], [`gun`]: what drives `player_2d`,
//!   `car_2d`, `door_3d` and `bullets_3d` (keys in the window, a script
//!   headless);
//! - [`bridge`]: the one place where tumble's glam meets macroquad's;
//! - [`style`]: colours and the debug layers shown.
//!
//! Nothing in [`headless`], [`scenes`] or [`sim`] touches macroquad, so the
//! headless runner works (and is tested) where no display exists.

pub mod app;
pub mod bridge;
pub mod camera;
pub mod cannon;
pub mod car;
pub mod draw_2d;
pub mod draw_3d;
pub mod gun;
pub mod headless;
pub mod inspector;
pub mod inspector_view;
pub mod overlay;
pub mod player;
pub mod scenes;
pub mod sim;
pub mod style;
