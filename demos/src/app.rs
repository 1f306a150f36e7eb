//! The macroquad window: reads the controls, steps the world at a fixed
//! 1/60 s, draws it in 2D or 3D with the overlay, and optionally saves a
//! screenshot after a number of frames.
//!
//! Only [`run`] (through `macroquad::Window::from_config`) opens a window;
//! `main` calls it only when a display exists.

use std::f32::consts::TAU;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use macroquad::conf::Conf;
use macroquad::input::{
    is_key_down, is_key_pressed, is_mouse_button_down, is_mouse_button_pressed,
    is_mouse_button_released, mouse_position, mouse_wheel, KeyCode, MouseButton,
};
use macroquad::math::{vec2, vec3, Vec2};
use macroquad::miniquad::conf::{LinuxBackend, Platform};
use macroquad::texture::get_screen_data;
use macroquad::time::get_frame_time;
use macroquad::window::{clear_background, next_frame, screen_height, screen_width};
use tumble::glam;
use tumble::{d2, d3, BodyKind};

use crate::bridge;
use crate::camera::{OrbitCamera, PanCamera};
use crate::draw_2d::{self, Painter2d};
use crate::draw_3d::{self, Painter3d};
use crate::inspector_view::{self, InspectorInput};
use crate::overlay::{self, Status, StepTimes};
use crate::player::PlayerInput;
use crate::scenes::{DemoScene, Framing, FOLLOW_WIDTH, SCENES, STAGE_SIZE};
use crate::sim::{dynamic_bounds, Sim, SimWorld, DT};
use crate::style::{self, Layers};

/// Most steps taken in one frame when the window falls behind real time.
const MAX_STEPS_PER_FRAME: u32 = 3;
/// Bodies that fall below this height (off the ground) are removed, metres.
const FALLEN: f32 = -30.0;
/// A press that moves less than this is a click, not a drag, pixels.
const CLICK_SLOP: f32 = 4.0;
/// Speed of a shot ball, m/s.
const SHOT_SPEED: f32 = 25.0;

/// The process exit code the window leaves (1 when a screenshot failed).
static EXIT_CODE: AtomicI32 = AtomicI32::new(0);
/// Set once the window is open and [`run`] has started.
static STARTED: AtomicBool = AtomicBool::new(false);

/// What the window is asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    /// The first scene shown.
    pub scene: &'static DemoScene,
    /// Close after this many frames.
    pub frames: Option<u64>,
    /// Save the screen here (PNG) after the last frame.
    pub screenshot: Option<PathBuf>,
    /// Window size, pixels.
    pub size: (i32, i32),
    /// Debug layers shown at the start.
    pub layers: Layers,
}

impl Config {
    /// The macroquad configuration for this window.
    pub fn window_conf(&self) -> Conf {
        Conf {
            miniquad_conf: macroquad::miniquad::conf::Conf {
                window_title: format!("tumble demos: {}", self.scene.name),
                window_width: self.size.0,
                window_height: self.size.1,
                window_resizable: true,
                sample_count: 4,
                platform: Platform {
                    linux_backend: linux_backend(),
                    ..Default::default()
                },
                ..Default::default()
            },
            // Room for one full batch of the 3D painter per draw call.
            draw_call_vertex_capacity: draw_3d::BATCH_VERTICES + 4_000,
            draw_call_index_capacity: draw_3d::BATCH_INDICES + 6_000,
            ..Default::default()
        }
    }
}

/// X11 first when an X display is named (XWayland included), Wayland first
/// when only a Wayland one is.
fn linux_backend() -> LinuxBackend {
    let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if !set("DISPLAY") && set("WAYLAND_DISPLAY") {
        LinuxBackend::WaylandWithX11Fallback
    } else {
        LinuxBackend::X11WithWaylandFallback
    }
}

/// The exit code once the window has closed.
pub fn exit_code() -> i32 {
    EXIT_CODE.load(Ordering::Relaxed)
}

/// True once a window opened and [`run`] started: a failure before that
/// means no window could be had.
pub fn started() -> bool {
    STARTED.load(Ordering::Relaxed)
}

/// How the scene is looked at.
enum View {
    D2(PanCamera),
    D3(OrbitCamera),
    /// The 2D inspector lays out its own views.
    Fixed,
}

/// A mouse press being followed: a click or a drag.
struct Press {
    start: Vec2,
    dragging: bool,
}

/// The window's state between frames.
struct App {
    sim: Sim,
    view: View,
    painter_2d: Painter2d,
    painter_3d: Painter3d,
    times: StepTimes,
    paused: bool,
    layers: Layers,
    help: bool,
    press: Option<Press>,
    last_mouse: Vec2,
    accumulator: f32,
    /// Steps since fallen bodies were last removed.
    since_cleanup: u32,
    frame_time: f32,
    quit: bool,
    inspector_input: InspectorInput,
}

/// The camera that frames a freshly built scene: its dynamic bodies and
/// its surfaces (the level they fall on), and with [`Framing::Stage`] its
/// set pieces; a car followed from close.
fn framing(sim: &Sim) -> View {
    let framing = sim.scene.framing;
    match &sim.world {
        SimWorld::D2(w) => {
            if let (Framing::FollowCar, Some(at)) =
                (framing, sim.car.as_ref().and_then(|car| car.position(w)))
            {
                let at = bridge::vec2(at);
                let half = vec2(FOLLOW_WIDTH * 0.4, FOLLOW_WIDTH * 0.2);
                return View::D2(PanCamera::framing(
                    at - half,
                    at + half,
                    screen_width(),
                    screen_height(),
                ));
            }
            let (min, max) = framed_bounds(w, framing)
                .map(|b| (bridge::vec2(b.min), bridge::vec2(b.max)))
                .unwrap_or((vec2(-10.0, 0.0), vec2(10.0, 10.0)));
            View::D2(PanCamera::framing(
                min,
                max,
                screen_width(),
                screen_height(),
            ))
        }
        SimWorld::Inspector2d(_) => View::Fixed,
        SimWorld::Inspector3d(_) => {
            let mut camera = OrbitCamera::framing(
                vec3(-1.6, -1.6, -1.6),
                vec3(1.6, 1.6, 1.6),
                screen_width() / screen_height(),
            );
            // The Minkowski inset takes the right of the screen: shapes to the left.
            camera.target += camera.basis().0 * camera.distance * 0.3;
            View::D3(camera)
        }
        SimWorld::D3(w) => {
            let (min, max) = framed_bounds(w, framing)
                .map(|b| (bridge::vec3(b.min), bridge::vec3(b.max)))
                .unwrap_or((vec3(-5.0, 0.0, -5.0), vec3(5.0, 5.0, 5.0)));
            let aspect = screen_width() / screen_height();
            if let Framing::Stage { yaw, pitch } = framing {
                View::D3(OrbitCamera::framing_from(min, max, aspect, yaw, pitch))
            } else if has_surface(w) {
                // A level seen more from above and less across its diagonal.
                View::D3(OrbitCamera::framing_from(
                    min,
                    max,
                    aspect,
                    LEVEL_YAW,
                    LEVEL_PITCH,
                ))
            } else {
                View::D3(OrbitCamera::framing(min, max, aspect))
            }
        }
    }
}

/// The camera's angle about Y over a world with a surface (a level), radians.
const LEVEL_YAW: f32 = 0.3;
/// The camera's angle above the horizontal over a level, radians.
const LEVEL_PITCH: f32 = 0.62;

/// True when some body of `world` is a surface (a level).
fn has_surface<D: tumble::Dim>(world: &tumble::World<D>) -> bool {
    world
        .bodies()
        .any(|(_, b)| b.shape().as_surface().is_some())
}

/// The box around every dynamic body and every surface, and with
/// [`Framing::Stage`] every other fixed (or kinematic) body less than
/// [`STAGE_SIZE`] across; if any.
fn framed_bounds<D: tumble::Dim>(
    world: &tumble::World<D>,
    framing: Framing,
) -> Option<tumble::shape::Aabb<D>> {
    use tumble::Vector as _;
    let stage = matches!(framing, Framing::Stage { .. });
    let fixed = world
        .bodies()
        .filter(|(_, b)| b.kind() != BodyKind::Dynamic)
        .map(|(_, b)| (b.shape().as_surface().is_some(), b.shape().aabb(&b.pose())))
        .filter(|(surface, aabb)| {
            *surface || (stage && (aabb.max - aabb.min).max_element() < STAGE_SIZE)
        })
        .map(|(_, aabb)| aabb);
    fixed
        .chain(dynamic_bounds(world))
        .reduce(|a, b| a.union(&b))
}

impl App {
    fn new(scene: &'static DemoScene) -> Self {
        let sim = Sim::new(scene);
        let view = framing(&sim);
        Self {
            sim,
            view,
            painter_2d: Painter2d::new(),
            painter_3d: Painter3d::new(),
            times: StepTimes::new(180),
            paused: false,
            layers: Layers::default(),
            help: true,
            press: None,
            last_mouse: Vec2::from(mouse_position()),
            accumulator: 0.0,
            since_cleanup: 0,
            frame_time: DT,
            quit: false,
            inspector_input: InspectorInput::default(),
        }
    }

    fn load(&mut self, scene: &'static DemoScene) {
        let scripted = self.sim.scripted;
        self.sim = Sim::new(scene);
        self.sim.scripted = scripted;
        self.view = framing(&self.sim);
        self.times.clear();
        self.accumulator = 0.0;
    }

    fn step(&mut self) {
        self.sim.input = PlayerInput {
            left: is_key_down(KeyCode::Left),
            right: is_key_down(KeyCode::Right),
            jump: is_key_down(KeyCode::Up),
        };
        let ms = self.sim.step();
        self.times.push(ms);
        self.since_cleanup += 1;
        if self.since_cleanup >= 60 {
            self.since_cleanup = 0;
            self.sim.remove_fallen(FALLEN);
        }
    }

    /// Keys and mouse.
    fn input(&mut self) {
        let keys = [
            KeyCode::Key1,
            KeyCode::Key2,
            KeyCode::Key3,
            KeyCode::Key4,
            KeyCode::Key5,
            KeyCode::Key6,
            KeyCode::Key7,
            KeyCode::Key8,
            KeyCode::Key9,
            KeyCode::Key0,
            KeyCode::Minus,
            KeyCode::F1,
            KeyCode::F2,
            KeyCode::F3,
            KeyCode::F4,
            KeyCode::F5,
            KeyCode::F6,
            KeyCode::F7,
            KeyCode::F8,
            KeyCode::F9,
            KeyCode::F10,
        ];
        for (key, scene) in keys.iter().zip(SCENES) {
            if is_key_pressed(*key) {
                self.load(scene);
            }
        }
        if self.sim.scene.is_inspector() {
            self.inspector_keys();
            return;
        }
        if is_key_pressed(KeyCode::Space) {
            self.paused = !self.paused;
        }
        if is_key_pressed(KeyCode::S) {
            self.paused = true;
            self.step();
        }
        if is_key_pressed(KeyCode::R) {
            self.sim.reset();
            self.times.clear();
        }
        if is_key_pressed(KeyCode::C) {
            self.layers.contacts = !self.layers.contacts;
        }
        if is_key_pressed(KeyCode::B) {
            self.layers.bounds = !self.layers.bounds;
        }
        if is_key_pressed(KeyCode::J) {
            self.layers.joints = !self.layers.joints;
        }
        if is_key_pressed(KeyCode::H) {
            self.help = !self.help;
        }
        if is_key_pressed(KeyCode::Escape) {
            self.quit = true;
        }
        self.mouse();
    }

    /// The inspectors' controls: not the physics keys (R, F, S... place shapes there).
    fn inspector_keys(&mut self) {
        if is_key_pressed(KeyCode::H) {
            self.help = !self.help;
        }
        if is_key_pressed(KeyCode::Escape) {
            self.quit = true;
        }
        if is_key_pressed(KeyCode::Backspace) {
            self.load(self.sim.scene);
        }
        let dt = get_frame_time().min(0.1);
        let help = overlay::help_height(self.help);
        match (&mut self.sim.world, &mut self.view) {
            (SimWorld::Inspector2d(i), _) => self.inspector_input.update_2d(i, help, dt),
            (SimWorld::Inspector3d(i), View::D3(camera)) => {
                self.inspector_input.update_3d(i, camera, dt)
            }
            _ => {}
        }
    }

    fn mouse(&mut self) {
        let pos = Vec2::from(mouse_position());
        let delta = pos - self.last_mouse;
        self.last_mouse = pos;
        if is_mouse_button_pressed(MouseButton::Left) {
            self.press = Some(Press {
                start: pos,
                dragging: false,
            });
        }
        let mut drag =
            is_mouse_button_down(MouseButton::Right) || is_mouse_button_down(MouseButton::Middle);
        if let Some(press) = &mut self.press {
            if (pos - press.start).length() > CLICK_SLOP {
                press.dragging = true;
            }
            drag |= press.dragging && is_mouse_button_down(MouseButton::Left);
        }
        if drag && delta != Vec2::ZERO {
            match &mut self.view {
                View::D2(camera) => camera.pan(delta),
                View::D3(camera) => camera.orbit(delta),
                View::Fixed => {}
            }
        }
        if is_mouse_button_released(MouseButton::Left) {
            if let Some(press) = self.press.take() {
                if !press.dragging {
                    self.click(pos);
                }
            }
        }
        let wheel = mouse_wheel().1;
        if wheel != 0.0 {
            let steps = wheel.signum();
            match &mut self.view {
                View::D2(camera) => camera.zoom_at(steps, pos),
                View::D3(camera) => camera.zoom(steps),
                View::Fixed => {}
            }
        }
    }

    /// A click: shoot a ball from the camera (3D; a bullet where there is a
    /// gun) or drop a box at the cursor (2D).
    fn click(&mut self, pixel: Vec2) {
        match (&mut self.sim.world, &self.view) {
            (SimWorld::D3(world), View::D3(camera)) => {
                let (eye, dir) = camera.ray(pixel);
                let (eye, dir) = (bridge::to_vec3(eye), bridge::to_vec3(dir));
                if let Some(gun) = &mut self.sim.gun {
                    gun.fire_from(world, eye + dir, dir);
                    return;
                }
                let shape = d3::Shape::ball(0.35).expect("valid ball");
                let _ = world.add_body(
                    d3::BodyDesc::dynamic()
                        .position(eye + dir)
                        .linear_velocity(dir * SHOT_SPEED),
                    d3::ColliderDesc::new(shape).density(4.0),
                );
            }
            (SimWorld::D2(world), View::D2(camera)) => {
                let at = bridge::to_vec2(camera.screen_to_world(pixel));
                let angle = (self.sim.steps as f32 * 0.37) % TAU;
                let shape = d2::Shape::cuboid(glam::Vec2::splat(0.5)).expect("valid box");
                let _ = world.add_body(
                    d2::BodyDesc::dynamic().position(at).rotation(angle),
                    d2::ColliderDesc::new(shape),
                );
            }
            _ => {}
        }
    }

    /// Steps for the time that passed: one step per frame when `fixed`,
    /// otherwise as many as real time asks, at most [`MAX_STEPS_PER_FRAME`].
    fn advance(&mut self, fixed: bool) {
        let dt = get_frame_time();
        self.frame_time += (dt - self.frame_time) * 0.1;
        if self.paused || self.sim.scene.is_inspector() {
            self.accumulator = 0.0;
            return;
        }
        if fixed {
            self.step();
            return;
        }
        self.accumulator += dt.min(0.25);
        let mut taken = 0;
        while self.accumulator >= DT && taken < MAX_STEPS_PER_FRAME {
            self.step();
            self.accumulator -= DT;
            taken += 1;
        }
        if taken == MAX_STEPS_PER_FRAME {
            // Behind real time: drop the backlog rather than spiral.
            self.accumulator = self.accumulator.min(DT);
        }
    }

    /// A camera following a car eases towards it, a little above it.
    fn follow(&mut self) {
        if self.sim.scene.framing != Framing::FollowCar {
            return;
        }
        let (SimWorld::D2(world), View::D2(camera), Some(car)) =
            (&self.sim.world, &mut self.view, &self.sim.car)
        else {
            return;
        };
        if let Some(at) = car.position(world) {
            let target = bridge::vec2(at) + vec2(0.0, 0.5);
            camera.centre += (target - camera.centre) * 0.1;
        }
    }

    fn draw(&mut self) {
        clear_background(style::BACKGROUND);
        match (&self.sim.world, &self.view) {
            (SimWorld::D2(world), View::D2(camera)) => {
                self.painter_2d.draw(world, camera, self.layers);
                if let Some(player) = &self.sim.player {
                    draw_2d::draw_impacts(&player.impacts, camera.pixel());
                }
            }
            (SimWorld::D3(world), View::D3(camera)) => {
                self.painter_3d.draw(world, camera, self.layers)
            }
            (SimWorld::Inspector2d(i), _) => {
                inspector_view::draw_2d(i, overlay::help_height(self.help))
            }
            (SimWorld::Inspector3d(i), View::D3(camera)) => inspector_view::draw_3d(
                i,
                camera,
                &mut self.painter_3d,
                overlay::help_height(self.help),
            ),
            _ => {}
        }
        let info = match &self.sim.world {
            SimWorld::Inspector2d(i) => inspector_view::info(self.sim.scene.name, i),
            SimWorld::Inspector3d(i) => inspector_view::info(self.sim.scene.name, i),
            SimWorld::D2(_) | SimWorld::D3(_) => Vec::new(),
        };
        let status = Status {
            scene: self.sim.scene,
            fps: (1.0 / self.frame_time.max(1e-4)).round() as i32,
            counts: self.sim.counts(),
            time: self.sim.time,
            paused: self.paused,
            layers: self.layers,
            help: self.help,
            info,
        };
        overlay::draw(&status, &self.times);
    }
}

/// Saves the screen as a PNG; false (with a message) when it cannot.
fn save_screenshot(path: &std::path::Path) -> bool {
    // `export_png` panics on failure: make sure the file can be written first.
    if let Err(e) = std::fs::File::create(path) {
        eprintln!("demos: cannot write {}: {e}", path.display());
        return false;
    }
    let Some(name) = path.to_str() else {
        eprintln!("demos: screenshot path is not UTF-8: {}", path.display());
        return false;
    };
    get_screen_data().export_png(name);
    println!(
        "saved {} ({}x{})",
        path.display(),
        screen_width(),
        screen_height()
    );
    true
}

/// The window's main loop; returns when the window closes, Esc is pressed or
/// the frame count is reached.
pub async fn run(config: Config) {
    STARTED.store(true, Ordering::Relaxed);
    let mut app = App::new(config.scene);
    app.layers = config.layers;
    let fixed = config.frames.is_some();
    // A run of a set number of frames (a screenshot) has no one at the
    // keys: the player follows the headless script.
    app.sim.scripted = fixed;
    let mut frame = 0u64;
    loop {
        app.input();
        app.advance(fixed);
        app.follow();
        app.draw();
        frame += 1;
        if config.frames.is_some_and(|n| frame >= n) {
            if let Some(path) = &config.screenshot {
                if !save_screenshot(path) {
                    EXIT_CODE.store(1, Ordering::Relaxed);
                }
            }
            break;
        }
        if app.quit {
            break;
        }
        next_frame().await;
    }
}
