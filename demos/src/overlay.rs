//! The on-screen overlay: FPS, milliseconds per physics step with a rolling
//! graph, body / pair / manifold point counts, and the help panel with the
//! controls and the scene list.

use std::collections::VecDeque;

use macroquad::camera::set_default_camera;
use macroquad::color::Color;
use macroquad::shapes::{draw_line, draw_rectangle};
use macroquad::text::draw_text;
use macroquad::window::{screen_height, screen_width};

use crate::scenes::{self, DemoScene, SCENES};
use crate::sim::Counts;
use crate::style::Layers;

const TEXT: Color = Color::new(0.92, 0.93, 0.95, 1.0);
const DIM: Color = Color::new(0.62, 0.65, 0.70, 1.0);
const ACCENT: Color = Color::new(1.0, 0.78, 0.3, 1.0);
const PANEL: Color = Color::new(0.0, 0.0, 0.0, 0.55);
const BAR: Color = Color::new(0.35, 0.75, 0.95, 1.0);
const BUDGET: Color = Color::new(1.0, 0.35, 0.3, 0.9);
const FONT: f32 = 16.0;
/// Width of the statistics panel, pixels.
const STATS_WIDTH: f32 = 320.0;
/// Width of the help panel, pixels.
const PANEL_WIDTH: f32 = 430.0;
/// Scenes per line in the help panel.
const SCENE_COLUMNS: usize = 2;
const LINE: f32 = 16.0;
/// A frame at 60 Hz, milliseconds: the graph's reference line.
const FRAME_MS: f32 = 1000.0 / 60.0;

/// The last few step times, for the mean and the graph.
pub struct StepTimes {
    samples: VecDeque<f32>,
    capacity: usize,
}

impl StepTimes {
    /// Keeps the last `capacity` steps.
    pub fn new(capacity: usize) -> Self {
        Self {
            samples: VecDeque::with_capacity(capacity),
            capacity: capacity.max(1),
        }
    }

    /// Records one step's time, milliseconds.
    pub fn push(&mut self, ms: f64) {
        if self.samples.len() == self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(ms as f32);
    }

    /// Forgets every step (after a reset or a scene change).
    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// Mean of the kept steps, milliseconds (0 with none).
    pub fn mean(&self) -> f32 {
        if self.samples.is_empty() {
            0.0
        } else {
            self.samples.iter().sum::<f32>() / self.samples.len() as f32
        }
    }

    /// Slowest kept step, milliseconds (0 with none).
    pub fn max(&self) -> f32 {
        self.samples.iter().copied().fold(0.0, f32::max)
    }
}

/// What the overlay shows this frame.
pub struct Status<'a> {
    /// The scene on screen.
    pub scene: &'a DemoScene,
    /// Frames per second.
    pub fps: i32,
    /// Bodies, pairs and points after the last step.
    pub counts: Counts,
    /// Simulated time, seconds.
    pub time: f32,
    /// True while paused.
    pub paused: bool,
    /// The debug layers shown.
    pub layers: Layers,
    /// True to show the help panel.
    pub help: bool,
    /// The EPA inspector's lines, shown instead of the physics statistics.
    pub info: Vec<String>,
}

/// Lines of controls in the help panel.
const HELP_LINES: usize = 4;

/// Height of the help panel when `shown`, pixels (0 when hidden).
pub fn help_height(shown: bool) -> f32 {
    if shown {
        (HELP_LINES + SCENES.len().div_ceil(SCENE_COLUMNS)) as f32 * LINE + 16.0
    } else {
        0.0
    }
}

/// The inspector's text panel across the top.
fn info(lines: &[String]) {
    let width = screen_width() - 8.0;
    draw_rectangle(4.0, 6.0, width, lines.len() as f32 * LINE + 10.0, PANEL);
    for (i, line) in lines.iter().enumerate() {
        let color = if i == 0 { ACCENT } else { TEXT };
        draw_text(line, 10.0, 20.0 + i as f32 * LINE, FONT, color);
    }
}

/// Draws the overlay in screen pixels.
pub fn draw(status: &Status, times: &StepTimes) {
    set_default_camera();
    if !status.info.is_empty() {
        info(&status.info);
        if status.help {
            help(status);
        }
        return;
    }
    let lines = [
        format!(
            "{}   t = {:.2} s{}",
            status.scene.name,
            status.time,
            if status.paused { "   PAUSED" } else { "" }
        ),
        format!(
            "FPS {:3}   physics {:.2} ms/step (max {:.2})",
            status.fps,
            times.mean(),
            times.max()
        ),
        format!(
            "bodies {}  pairs {}  points {}",
            status.counts.bodies, status.counts.pairs, status.counts.points
        ),
    ];
    let (x, width) = (10.0, STATS_WIDTH);
    let graph_h = 32.0;
    draw_rectangle(
        x - 6.0,
        6.0,
        width,
        lines.len() as f32 * LINE + graph_h + 20.0,
        PANEL,
    );
    for (i, line) in lines.iter().enumerate() {
        let color = if i == 0 { ACCENT } else { TEXT };
        draw_text(line, x, 20.0 + i as f32 * LINE, FONT, color);
    }
    graph(
        times,
        x,
        14.0 + lines.len() as f32 * LINE,
        width - 12.0,
        graph_h,
    );
    if status.help {
        help(status);
    }
}

/// Step times as bars, newest on the right, scaled to the slowest kept
/// step; the red line marks a 60 Hz frame when it is in range.
fn graph(times: &StepTimes, x: f32, y: f32, w: f32, h: f32) {
    draw_rectangle(x, y, w, h, Color::new(1.0, 1.0, 1.0, 0.06));
    let top = (times.max() * 1.25).max(1.0);
    let bar = w / times.capacity as f32;
    let start = times.capacity - times.samples.len();
    for (i, &ms) in times.samples.iter().enumerate() {
        let bh = (ms / top * h).min(h);
        let bx = x + (start + i) as f32 * bar;
        draw_rectangle(bx, y + h - bh, bar.max(1.0), bh, BAR);
    }
    if FRAME_MS < top {
        let line_y = y + h - FRAME_MS / top * h;
        draw_line(x, line_y, x + w, line_y, 1.0, BUDGET);
    }
    draw_text(format!("{:.1} ms", top), x + w - 44.0, y + 12.0, 14.0, DIM);
}

fn on(flag: bool) -> &'static str {
    if flag {
        "on"
    } else {
        "off"
    }
}

/// The controls and the scene list, at the bottom left.
fn help(status: &Status) {
    let mouse = if status.scene.name == "bullets_3d" {
        "drag orbit  wheel zoom  click fire a bullet"
    } else if status.scene.is_3d() {
        "drag orbit  wheel zoom  click shoot a ball"
    } else {
        "drag pan  wheel zoom  click drop a box"
    };
    let lines: Vec<(String, Color)> = if status.scene.is_inspector() {
        let place = if status.scene.is_3d() {
            "drag a shape: move  else orbit  WASD RF move  QE ZX turn"
        } else {
            "left-drag move  right-drag or Q E turn"
        };
        vec![
            (status.scene.about.into(), ACCENT),
            (place.into(), TEXT),
            ("Tab shape  Left/Right EPA step  Home/End".into(), TEXT),
            (
                "1-9 0 - F1-F10 scene  Backspace reset  H help  Esc quit".into(),
                TEXT,
            ),
        ]
    } else {
        vec![
            (status.scene.about.into(), ACCENT),
            (
                "1-9 0 - F1-F10 scene  space pause  S step  R reset  Esc quit".into(),
                TEXT,
            ),
            (mouse.into(), TEXT),
            (
                format!(
                    "C contacts ({})  B bounds ({})  J joints ({})  H help",
                    on(status.layers.contacts),
                    on(status.layers.bounds),
                    on(status.layers.joints)
                ),
                TEXT,
            ),
        ]
    };
    let height = help_height(true) - 6.0;
    let top = screen_height() - height - 6.0;
    draw_rectangle(4.0, top, PANEL_WIDTH, height, PANEL);
    for (i, (line, color)) in lines.iter().enumerate() {
        draw_text(line, 10.0, top + 16.0 + i as f32 * LINE, FONT, *color);
    }
    let first_row = top + 16.0 + lines.len() as f32 * LINE;
    let column = (PANEL_WIDTH - 12.0) / SCENE_COLUMNS as f32;
    for (i, scene) in SCENES.iter().enumerate() {
        let current = scene.name == status.scene.name;
        let color = if current { ACCENT } else { DIM };
        let (row, col) = (i / SCENE_COLUMNS, i % SCENE_COLUMNS);
        draw_text(
            format!("{} {}", scenes::key(i).unwrap_or(" "), scene.name),
            10.0 + col as f32 * column,
            first_row + row as f32 * LINE,
            FONT,
            color,
        );
    }
}
