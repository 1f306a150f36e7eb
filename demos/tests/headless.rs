//! Every demo scene runs headless for a short while and reports sensible
//! numbers; the binary runs headless, and exits 0, when no display exists.

use std::process::Command;

use demos::headless;
use demos::scenes::SCENES;
use demos::sim::{Sim, DT};

/// Half a second: long enough for every falling scene to reach the ground.
const SECONDS: f32 = 0.5;

#[test]
fn every_scene_reports_sensible_numbers() {
    for scene in SCENES.iter().filter(|s| !s.is_inspector()) {
        let mut out = Vec::new();
        let summary = headless::run(scene, SECONDS, &mut out).expect("writes to memory");
        let text = String::from_utf8(out).expect("utf-8");
        let name = scene.name;
        assert_eq!(summary.steps, 30, "{name}");
        assert!(
            text.starts_with(&format!("scene {name} (headless)")),
            "{text}"
        );
        assert!(
            text.lines().last().unwrap().starts_with("done: 30 steps"),
            "{text}"
        );
        let last = summary.samples.last().expect("a final sample");
        assert!(
            (last.time - 30.0 * DT).abs() < 1e-4,
            "{name}: t = {}",
            last.time
        );
        let built = Sim::new(scene).counts().bodies;
        assert!(built > 1, "{name}: {built} bodies");
        assert_eq!(last.counts.bodies, built, "{name}: no body lost");
        assert!(last.counts.pairs > 0, "{name}: nothing touches");
        assert!(
            last.kinetic.is_finite() && last.kinetic >= 0.0 && last.kinetic < 1e6,
            "{name}: kinetic {}",
            last.kinetic
        );
        assert!(
            summary.mean_ms.is_finite()
                && summary.mean_ms > 0.0
                && summary.max_ms >= summary.mean_ms,
            "{name}: {} / {} ms",
            summary.mean_ms,
            summary.max_ms
        );
        let lowest = last.lowest.expect("dynamic bodies");
        assert!(lowest > -0.1, "{name}: a body sank to y = {lowest}");
    }
}

#[test]
fn resting_scenes_stay_at_rest_and_falling_ones_fall() {
    for scene in SCENES.iter().filter(|s| !s.is_inspector()) {
        let mut sim = Sim::new(scene);
        let start = sim.kinetic_energy();
        // The pinball's balls and the wall's ball are launched as built.
        let launched = ["pinball_2d", "flush_wall_3d"];
        if !launched.contains(&scene.name) {
            assert_eq!(start, 0.0, "{}: starts at rest", scene.name);
        }
        for _ in 0..10 {
            sim.step();
        }
        let e = sim.kinetic_energy();
        // Scenes that drop their bodies (a rain over a level included) or
        // swing or drive them from the start. (Unscripted, as here, the car brakes:
        // it rests.)
        let drops = [
            "falling",
            "mixed",
            "terrain",
            "chains",
            "rope_bridge",
            "chain_2d",
            "ragdoll",
            "pinball",
            "fan",
        ];
        if drops.iter().any(|word| scene.name.contains(word)) || launched.contains(&scene.name) {
            // (The ragdolls are light: 0.37 J after 10 steps.)
            assert!(e > 0.1, "{}: falling, kinetic {e}", scene.name);
        } else {
            // Stacks built touching: only settling, far less than a fall.
            let per_body = e / sim.counts().bodies as f32;
            assert!(per_body < 0.05, "{}: kinetic {e} J", scene.name);
        }
    }
}

#[test]
fn inspector_scenes_print_their_trace_and_do_not_step() {
    let inspectors: Vec<_> = SCENES.iter().filter(|s| s.is_inspector()).collect();
    assert_eq!(inspectors.len(), 2);
    for scene in inspectors {
        let name = scene.name;
        let mut out = Vec::new();
        let summary = headless::run(scene, SECONDS, &mut out).expect("writes to memory");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(summary.steps, 0, "{name}");
        assert!(
            text.starts_with(&format!("scene {name} (headless)")),
            "{text}"
        );
        assert!(text.contains("GJK simplex: "), "{text}");
        let epa: Vec<&str> = text.lines().filter(|l| l.starts_with("EPA ")).collect();
        assert!(!epa.is_empty(), "{name}: EPA ran\n{text}");
        // Face distances grow towards the depth.
        let distances: Vec<f32> = epa
            .iter()
            .map(|l| {
                let d = l.split("closest face distance ").nth(1).expect("distance");
                d.split(',').next().unwrap().parse().expect("a number")
            })
            .collect();
        assert!(distances.windows(2).all(|w| w[1] >= w[0] - 1e-4), "{text}");
        let depth_line = text
            .lines()
            .find(|l| l.starts_with("contact: depth "))
            .expect("a contact");
        let depth: f32 = depth_line["contact: depth ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .expect("a number");
        assert!((depth - distances.last().unwrap()).abs() < 1e-3, "{text}");
        assert!(text.contains("witness points: A "), "{text}");
        assert!(
            text.lines()
                .last()
                .unwrap()
                .starts_with(&format!("done: {} EPA iterations", epa.len())),
            "{text}"
        );
        let sim = Sim::new(scene);
        assert_eq!(sim.counts().bodies, 2, "{name}");
        assert_eq!(sim.kinetic_energy(), 0.0, "{name}");
    }
}

fn demos() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_demos"));
    command.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    command
}

#[test]
fn without_a_display_the_binary_runs_headless_and_exits_0() {
    let output = demos()
        .args(["--scene", "tower_3d", "--seconds", "1.5"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("scene tower_3d (headless)"), "{text}");
    // One line per simulated second, one at the end, and the summary.
    assert!(lines[1].starts_with("t=  1.00s bodies=21 pairs="), "{text}");
    assert!(lines[2].starts_with("t=  1.50s"), "{text}");
    assert!(lines[3].starts_with("done: 90 steps"), "{text}");
    assert_eq!(lines.len(), 4, "{text}");
}

#[test]
fn a_screenshot_without_a_display_still_exits_0() {
    let output = demos()
        .args([
            "--seconds",
            "0.1",
            "--frames",
            "5",
            "--screenshot",
            "/nonexistent/x.png",
        ])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    assert!(String::from_utf8_lossy(&output.stderr).contains("no display"));
}

#[test]
fn list_names_every_scene_and_bad_arguments_fail() {
    let output = demos().arg("--list").output().expect("runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    for scene in SCENES {
        assert!(text.contains(scene.name), "{text}");
    }
    let bad = demos().args(["--scene", "nope"]).output().expect("runs");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn the_inspector_runs_headless_from_the_command_line() {
    let output = demos()
        .args(["--scene", "epa_inspector_3d"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("contact: depth "), "{text}");
    assert!(text.contains("EPA iterations shown, 0 steps"), "{text}");
}

#[test]
fn a_display_that_cannot_be_opened_falls_back_to_headless() {
    let output = demos()
        .env("DISPLAY", ":987")
        .args(["--scene", "pyramid_2d", "--seconds", "0.1"])
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("done: 6 steps"), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot open a window"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn the_level_scenes_run_headless_and_count_their_surface_contacts() {
    for name in ["terrain_3d", "chains_2d"] {
        let output = demos()
            .args(["--scene", name, "--headless", "--seconds", "1"])
            .output()
            .expect("runs");
        assert!(output.status.success(), "{output:?}");
        let text = String::from_utf8_lossy(&output.stdout);
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with(&format!("scene {name} (headless)")),
            "{text}"
        );
        assert!(lines[1].starts_with("t=  1.00s"), "{text}");
        assert!(lines[2].starts_with("done: 60 steps"), "{text}");
        // After a second most of the first layer lies on the level: the
        // pairs with a surface count, with their facets' points.
        let pairs: usize = lines[1]
            .split("pairs=")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .expect("a pair count");
        assert!(pairs >= 20, "{name}: {pairs} pairs\n{text}");
    }
}

/// The points of `pairs` that lie on a surface: in its facets' manifolds
/// only, the pair's own manifold left empty.
fn surface_points<D: tumble::Dim>(pairs: &[tumble::ContactPair<D>]) -> usize {
    pairs
        .iter()
        .filter(|p| p.facet_manifolds().next().is_some())
        .map(|p| {
            assert!(p.manifold.points().is_empty());
            p.manifolds().map(|m| m.points().len()).sum::<usize>()
        })
        .sum()
}

#[test]
fn contacts_with_a_surface_are_counted_from_its_facets_manifolds() {
    use demos::sim::SimWorld;
    for name in ["terrain_3d", "chains_2d"] {
        let mut sim = Sim::new(demos::scenes::find(name).expect("a scene"));
        for _ in 0..60 {
            sim.step();
        }
        let on_surfaces = match &sim.world {
            SimWorld::D2(w) => surface_points(w.contact_pairs()),
            SimWorld::D3(w) => surface_points(w.contact_pairs()),
            _ => unreachable!("a world"),
        };
        assert!(
            on_surfaces >= 20,
            "{name}: {on_surfaces} points on the level"
        );
        assert!(sim.counts().points >= on_surfaces, "{name}");
    }
}
