//! Tumble demos: arguments and mode selection.
//!
//! ```text
//! demos [--scene NAME] [--list] [--headless] [--seconds S]
//!       [--frames N] [--screenshot FILE.png] [--size WxH]
//!       [--contacts] [--bounds] [--no-joints]
//! ```
//!
//! With a display (`DISPLAY` or `WAYLAND_DISPLAY` set on Linux) it opens a
//! macroquad window; without one, or with `--headless`, it steps the scene
//! for `--seconds` simulated seconds and prints a report, never touching
//! macroquad. `--frames N` closes the window after N frames (one physics
//! step each), and `--screenshot FILE.png` saves the last one.

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::process::ExitCode;

use demos::app::{self, Config};
use demos::headless;
use demos::scenes::{self, DemoScene, SCENES};
use demos::style::Layers;

const USAGE: &str = "\
usage: demos [--scene NAME] [--list] [--headless] [--seconds S]
             [--frames N] [--screenshot FILE.png] [--size WxH]
             [--contacts] [--bounds] [--no-joints]

  --scene NAME         scene to show (default falling_boxes; --list names them)
  --list               list the scenes and exit
  --headless           never open a window (also the default without a display)
  --seconds S          headless: simulated seconds to run (default 10)
  --frames N           window: close after N frames, one physics step each
  --screenshot FILE    window: save the last frame as a PNG (needs --frames; default 120)
  --size WxH           window size in pixels (default 1280x720, 800x450 for screenshots)
  --contacts           window: start with contact points and normals shown (key C)
  --bounds             window: start with bounding boxes shown (key B)
  --no-joints          window: start with joints hidden (key J; shown by default)";

/// The parsed command line.
#[derive(Debug)]
struct Options {
    scene: &'static DemoScene,
    list: bool,
    help: bool,
    headless: bool,
    seconds: f32,
    frames: Option<u64>,
    screenshot: Option<PathBuf>,
    size: Option<(i32, i32)>,
    layers: Layers,
}

fn number<T: std::str::FromStr>(flag: &str, value: Option<String>) -> Result<T, String> {
    let value = value.ok_or(format!("{flag} needs a value"))?;
    value
        .parse()
        .map_err(|_| format!("{flag}: not a valid number: {value}"))
}

fn parse(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        scene: scenes::default_scene(),
        list: false,
        help: false,
        headless: false,
        seconds: 10.0,
        frames: None,
        screenshot: None,
        size: None,
        layers: Layers::default(),
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scene" => {
                let name = args.next().ok_or("--scene needs a name")?;
                options.scene =
                    scenes::find(&name).ok_or(format!("no scene {name} (try --list)"))?;
            }
            "--list" => options.list = true,
            "--help" | "-h" => options.help = true,
            "--headless" => options.headless = true,
            "--contacts" => options.layers.contacts = true,
            "--bounds" => options.layers.bounds = true,
            "--no-joints" => options.layers.joints = false,
            "--seconds" => {
                let s: f32 = number("--seconds", args.next())?;
                if !(s.is_finite() && (0.0..=86_400.0).contains(&s)) {
                    return Err(format!("--seconds: must be between 0 and 86400, got {s}"));
                }
                options.seconds = s;
            }
            "--frames" => {
                let n: u64 = number("--frames", args.next())?;
                if n == 0 {
                    return Err("--frames: must be at least 1".into());
                }
                options.frames = Some(n);
            }
            "--screenshot" => {
                let path = PathBuf::from(args.next().ok_or("--screenshot needs a file")?);
                let png = path
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("png"));
                if !png {
                    return Err(format!("--screenshot: {} must end in .png", path.display()));
                }
                options.screenshot = Some(path);
            }
            "--size" => {
                let value = args.next().ok_or("--size needs WxH")?;
                let size = value
                    .split_once(['x', 'X'])
                    .and_then(|(w, h)| Some((w.parse().ok()?, h.parse().ok()?)))
                    .filter(|&(w, h): &(i32, i32)| {
                        (64..=8192).contains(&w) && (64..=8192).contains(&h)
                    })
                    .ok_or(format!("--size: expected WxH in pixels, got {value}"))?;
                options.size = Some(size);
            }
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if options.screenshot.is_some() && options.frames.is_none() {
        options.frames = Some(120);
    }
    Ok(options)
}

/// True when a window can be opened: on Linux and the BSDs, when an X11 or
/// Wayland display is named; elsewhere, always.
fn display_available() -> bool {
    let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    let needs_env = cfg!(all(
        unix,
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_os = "android")
    ));
    !needs_env || set("DISPLAY") || set("WAYLAND_DISPLAY")
}

fn main() -> ExitCode {
    let options = match parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("demos: {e}");
            return ExitCode::from(2);
        }
    };
    if options.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if options.list {
        for (i, scene) in SCENES.iter().enumerate() {
            let key = scenes::key(i).unwrap_or(" ");
            println!("{key:<2}  {:18} {}", scene.name, scene.about);
        }
        return ExitCode::SUCCESS;
    }
    if options.headless || !display_available() {
        if !options.headless && (options.frames.is_some() || options.screenshot.is_some()) {
            eprintln!(
                "demos: no display (DISPLAY and WAYLAND_DISPLAY unset): running headless, no screenshot"
            );
        }
        return run_headless(options.scene, options.seconds);
    }
    let size = options.size.unwrap_or(if options.screenshot.is_some() {
        (800, 450)
    } else {
        (1280, 720)
    });
    let (scene, seconds) = (options.scene, options.seconds);
    let config = Config {
        scene,
        frames: options.frames,
        screenshot: options.screenshot,
        size,
        layers: options.layers,
    };
    if open_window(config) {
        return ExitCode::from(app::exit_code().clamp(0, 255) as u8);
    }
    run_headless(scene, seconds)
}

/// The headless runner on standard output.
fn run_headless(scene: &'static DemoScene, seconds: f32) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match headless::run(scene, seconds, &mut out) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demos: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the window; false when none could be opened (a `DISPLAY` naming no
/// server, say), which miniquad reports by panicking before the app starts.
/// That panic is caught and kept quiet; any later one goes on as usual.
fn open_window(config: Config) -> bool {
    let conf = config.window_conf();
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if app::started() {
            default_hook(info);
        }
    }));
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        macroquad::Window::from_config(conf, app::run(config))
    }));
    // Back to the default hook for whatever runs next.
    drop(std::panic::take_hook());
    match result {
        Ok(()) => true,
        Err(payload) if app::started() => std::panic::resume_unwind(payload),
        Err(payload) => {
            let why = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown error".into());
            eprintln!("demos: cannot open a window ({why}): running headless");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn defaults() {
        let o = parse(args("")).unwrap();
        assert_eq!(o.scene.name, "falling_boxes");
        assert_eq!(o.seconds, 10.0);
        assert!(!o.headless && !o.list && o.frames.is_none());
    }

    #[test]
    fn screenshot_implies_frames_and_checks_the_extension() {
        let o = parse(args(
            "--scene pyramid_2d --screenshot /tmp/a.png --size 640x360",
        ))
        .unwrap();
        assert_eq!(o.scene.name, "pyramid_2d");
        assert_eq!(o.frames, Some(120));
        assert_eq!(o.size, Some((640, 360)));
        assert!(parse(args("--screenshot /tmp/a.jpg")).is_err());
    }

    #[test]
    fn rejects_bad_values() {
        for bad in [
            "--scene nope",
            "--seconds -1",
            "--seconds NaN",
            "--seconds",
            "--frames 0",
            "--size 10x10",
            "--size big",
            "--bogus",
        ] {
            assert!(parse(args(bad)).is_err(), "{bad}");
        }
    }
}
