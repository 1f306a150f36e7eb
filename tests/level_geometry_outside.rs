//! Level geometry probed from outside: meshes, heightfields and chains
//! with sizes, scales and poses the team's own tests do not use, and their
//! interplay with queries, continuous collision, kinematic bodies, sleep,
//! saving and rollback.

mod common;

use common::awake;

use tumble::glam::{Quat, Vec2, Vec3};
use tumble::shape::Shape;
use tumble::{d2, d3, BodyDesc, ColliderDesc, QueryFilter, Settings};

const DT: f32 = 1.0 / 60.0;

/// Heights of a non-uniform test terrain: `rows` x `columns` samples.
fn bumpy(rows: usize, columns: usize) -> Vec<f32> {
    (0..rows * columns)
        .map(|k| {
            let (r, c) = ((k / columns) as f32, (k % columns) as f32);
            0.3 * (0.8 * r).sin() + 0.2 * (1.3 * c).cos() + 0.05 * ((r * c) % 3.0)
        })
        .collect()
}

/// The height of a heightfield at local (x, z), from its samples and the
/// documented split of each cell along (r + 1, c)-(r, c + 1); also the
/// facet index, two per cell in row-major order.
fn field_height(
    heights: &[f32],
    rows: usize,
    columns: usize,
    scale: Vec3,
    x: f32,
    z: f32,
) -> (f32, u32) {
    let u = (x / scale.x + 0.5) * (columns - 1) as f32;
    let v = (z / scale.z + 0.5) * (rows - 1) as f32;
    let (c, r) = (
        (u.floor() as usize).min(columns - 2),
        (v.floor() as usize).min(rows - 2),
    );
    let (fu, fv) = (u - c as f32, v - r as f32);
    let h = |r: usize, c: usize| heights[r * columns + c] * scale.y;
    let cell = (r * (columns - 1) + c) as u32;
    if fu + fv <= 1.0 {
        // Triangle (r, c), (r + 1, c), (r, c + 1).
        let y = h(r, c) + fu * (h(r, c + 1) - h(r, c)) + fv * (h(r + 1, c) - h(r, c));
        (y, 2 * cell)
    } else {
        let (gu, gv) = (1.0 - fu, 1.0 - fv);
        let y = h(r + 1, c + 1)
            + gu * (h(r + 1, c) - h(r + 1, c + 1))
            + gv * (h(r, c + 1) - h(r + 1, c + 1));
        (y, 2 * cell + 1)
    }
}

#[test]
fn rays_down_a_rotated_non_uniform_heightfield_hit_the_interpolated_height() {
    let (rows, columns) = (7, 11);
    let scale = Vec3::new(25.0, 3.5, 6.0);
    let heights = bumpy(rows, columns);
    let field = Shape::heightfield(&heights, rows, columns, scale).unwrap();
    let mut world = d3::World::new(Settings::default());
    let turn = Quat::from_rotation_y(0.7);
    let at = Vec3::new(4.0, -2.0, -9.0);
    let ground = world
        .add_body(
            BodyDesc::fixed().position(at).rotation(turn),
            ColliderDesc::new(field),
        )
        .unwrap();
    let mut draw = common::Draw(0x1234_5678_9abc_def1);
    let mut worst = 0.0f32;
    for _ in 0..500 {
        let lx = draw.between(-0.49, 0.49) * scale.x;
        let lz = draw.between(-0.49, 0.49) * scale.z;
        let (ly, facet) = field_height(&heights, rows, columns, scale, lx, lz);
        let top = at + turn * Vec3::new(lx, 10.0, lz);
        let down = turn * Vec3::NEG_Y;
        let hit = world
            .cast_ray(top, down, 30.0, &QueryFilter::default())
            .unwrap_or_else(|| panic!("missed at local ({lx}, {lz})"));
        assert_eq!(hit.body, ground);
        let expected = at + turn * Vec3::new(lx, ly, lz);
        let off = (hit.point - expected).length();
        worst = worst.max(off);
        assert!(off < 1e-4, "hit {:?}, expected {expected:?}", hit.point);
        // On a cell's diagonal either triangle is right.
        let u = (lx / scale.x + 0.5) * (columns - 1) as f32;
        let v = (lz / scale.z + 0.5) * (rows - 1) as f32;
        let on_seam =
            ((u.fract() + v.fract()) - 1.0).abs() < 1e-3 || u.fract() < 1e-3 || v.fract() < 1e-3;
        if !on_seam {
            assert_eq!(hit.facet, Some(facet), "at local ({lx}, {lz})");
        }
        assert!(hit.normal.dot(turn * Vec3::Y) > 0.0);
        // From below, the one-sided terrain is not there.
        let below = at + turn * Vec3::new(lx, -10.0, lz);
        let up = world.cast_ray(below, turn * Vec3::Y, 30.0, &QueryFilter::default());
        assert!(up.is_none(), "hit from behind: {up:?}");
    }
    println!("rays on the rotated terrain: worst {worst:.2e} m");
}

#[test]
fn a_ball_cast_from_behind_a_floor_mesh_does_not_hit_it() {
    // A ball whose centre is under a one-sided floor meets nothing from it
    // in the step and falls through; a cast of it must agree (a facet the
    // moving shape's inner point is behind is not met, as in contacts:
    // `narrow_phase::surface::surface_cast`).
    let mut world = d3::World::new(Settings::default());
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, 1.0, 0.0)),
            ColliderDesc::new(common::grid_mesh(4, 4, 2.0, false)),
        )
        .unwrap();
    let ball = Shape::ball(0.5).unwrap();
    let filter = QueryFilter::default();
    // Centre 0.2 m under the floor, the ball poking through, cast down.
    let start = tumble::Pose::from_translation(Vec3::new(0.3, 0.8, 0.1));
    let down = world.cast_shape(&ball, &start, Vec3::NEG_Y, 5.0, &filter);
    assert!(down.is_none(), "hit from behind: {down:?}");
    // The same ball dropped there falls through.
    let body = world
        .add_body(
            BodyDesc::dynamic().position(start.translation),
            ColliderDesc::new(ball.clone()),
        )
        .unwrap();
    for _ in 0..30 {
        world.step(DT);
    }
    assert!(world.body(body).unwrap().position().y < 0.0);
}

#[test]
fn a_ball_cast_from_behind_a_chain_does_not_hit_it() {
    // The 2D twin: a chain floor (front up: solid on the right of its
    // direction, so running right to left), a ball poking up through it.
    let mut world = d2::World::new(Settings::default());
    let floor = Shape::chain(
        &[
            Vec2::new(4.0, 1.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(-4.0, 1.0),
        ],
        false,
    )
    .unwrap();
    world
        .add_body(BodyDesc::fixed(), ColliderDesc::new(floor))
        .unwrap();
    let ball = Shape::ball(0.5).unwrap();
    let filter = QueryFilter::default();
    let under = tumble::Pose::from_translation(Vec2::new(0.3, 0.8));
    let down = world.cast_shape(&ball, &under, Vec2::NEG_Y, 5.0, &filter);
    assert!(down.is_none(), "hit from behind: {down:?}");
    // From above it is met, at its height over the floor less its radius.
    let above = tumble::Pose::from_translation(Vec2::new(0.3, 3.0));
    let hit = world
        .cast_shape(&ball, &above, Vec2::NEG_Y, 5.0, &filter)
        .expect("hit from above");
    assert!((hit.distance - 1.5).abs() < 1e-4, "{}", hit.distance);
}

#[test]
fn a_ball_cast_down_onto_a_floor_mesh_hits_at_the_right_distance() {
    let mut world = d3::World::new(Settings::default());
    let turn = Quat::from_rotation_y(0.3);
    world
        .add_body(
            BodyDesc::fixed()
                .position(Vec3::new(-5.0, 2.0, 3.0))
                .rotation(turn),
            ColliderDesc::new(common::grid_mesh(6, 6, 0.7, true)),
        )
        .unwrap();
    let ball = Shape::ball(0.2).unwrap();
    let filter = QueryFilter::default();
    let mut draw = common::Draw(0x5eed_0000_1111_2222);
    for _ in 0..300 {
        let local = Vec3::new(draw.between(-1.9, 1.9), 0.0, draw.between(-1.9, 1.9));
        let from = Vec3::new(-5.0, 2.0, 3.0) + turn * local + Vec3::new(0.0, 3.0, 0.0);
        let pose = tumble::Pose::from_translation(from);
        let hit = world
            .cast_shape(&ball, &pose, Vec3::NEG_Y, 10.0, &filter)
            .unwrap_or_else(|| panic!("missed at {local:?}"));
        assert!((hit.distance - 2.8).abs() < 1e-4, "{hit:?}");
        assert!(hit.normal.dot(Vec3::Y) > 0.9999, "{hit:?}");
        assert!((hit.point.y - 2.0).abs() < 1e-4, "{hit:?}");
    }
}

/// A body sliding frictionless over `ground` whose top is the plane y = 0
/// of the frame `at`, `turn` (the ground placed at local `offset` of that
/// frame), gravity turned with the frame: starts at local `start`, turned
/// by `body_turn` in the frame, with local velocity `velocity`; after
/// `steps` steps returns its local end position and the largest speed it
/// gained along the ground's normal, after the first step.
#[allow(clippy::too_many_arguments)]
fn slide_on(
    ground: Shape<tumble::D3>,
    offset: Vec3,
    (at, turn): (Vec3, Quat),
    body: Shape<tumble::D3>,
    body_turn: Quat,
    start: Vec3,
    velocity: Vec3,
    steps: usize,
) -> (Vec3, f32) {
    let mut world = d3::World::new(Settings {
        gravity: turn * Vec3::new(0.0, -9.81, 0.0),
        ..awake()
    });
    world
        .add_body(
            BodyDesc::fixed()
                .position(at + turn * offset)
                .rotation(turn),
            ColliderDesc::new(ground).friction(0.0),
        )
        .unwrap();
    let handle = world
        .add_body(
            BodyDesc::dynamic()
                .position(at + turn * start)
                .rotation(turn * body_turn)
                .linear_velocity(turn * velocity),
            ColliderDesc::new(body).friction(0.0),
        )
        .unwrap();
    let up = turn * Vec3::Y;
    let mut worst = 0.0f32;
    for step in 0..steps {
        world.step(DT);
        let v = world.body(handle).unwrap().linear_velocity();
        if step > 0 {
            worst = worst.max(v.dot(up).abs());
        }
    }
    let end = world.body(handle).unwrap().position();
    (turn.inverse() * (end - at), worst)
}

#[test]
fn bodies_slide_over_tilted_translated_surfaces_as_over_a_box() {
    // A floor tilted 25 degrees about a skew axis, far from the origin,
    // gravity turned with it: bodies slide across it as on flat ground.
    let frame = (
        Vec3::new(120.0, -40.0, 75.0),
        Quat::from_axis_angle(Vec3::new(1.0, 0.0, 0.4).normalize(), 0.44),
    );
    let heights = vec![0.25; 9 * 23];
    let grounds: [(&str, Shape<tumble::D3>, f32); 3] = [
        (
            "mixed-diagonal mesh 0.35 m",
            common::grid_mesh(24, 24, 0.35, true),
            0.0,
        ),
        ("mesh 2.5 m quads", common::grid_mesh(4, 4, 2.5, false), 0.0),
        (
            "heightfield 9x23, 1.1 x 0.25 m cells",
            Shape::heightfield(&heights, 9, 23, Vec3::new(24.2, 4.0, 6.0)).unwrap(),
            1.0,
        ),
    ];
    let bodies: [(&str, Shape<tumble::D3>, f32, Quat); 3] = [
        (
            "1.3 m cube",
            Shape::cuboid(Vec3::splat(0.65)).unwrap(),
            0.65,
            Quat::IDENTITY,
        ),
        (
            "3 cm cube",
            Shape::cuboid(Vec3::splat(0.015)).unwrap(),
            0.015,
            Quat::IDENTITY,
        ),
        (
            "capsule lying along X",
            Shape::capsule(0.3, 0.12).unwrap(),
            0.12,
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        ),
    ];
    let velocity = Vec3::new(4.0, 0.0, -0.35);
    let steps = 100;
    for (gname, ground, top) in &grounds {
        for (bname, body, lift, body_turn) in &bodies {
            let start = Vec3::new(-3.5, *lift, 0.4);
            let offset = Vec3::new(0.0, -top, 0.0);
            let (end, kick) = slide_on(
                ground.clone(),
                offset,
                frame,
                body.clone(),
                *body_turn,
                start,
                velocity,
                steps,
            );
            // Frictionless on flat ground: a straight line at the start's height.
            let expected = start + velocity * (steps as f32 * DT);
            let along = (end - expected).with_y(0.0).length();
            let sunk = expected.y - end.y;
            println!(
                "{gname}, {bname}: {along:.2e} m off the line, {sunk:.2e} m sunk, normal speed {kick:.2e}"
            );
            assert!(kick < 2e-3, "{gname}, {bname}: normal speed {kick}");
            assert!(along < 2e-3, "{gname}, {bname}: {along} m off its line");
            assert!(sunk.abs() < 2e-3, "{gname}, {bname}: {sunk} m sunk");
        }
    }
}

// ---------------------------------------------------------------- 2D chains

fn chain_line(segment: f32) -> Shape<tumble::D2> {
    // A ground line (right to left) cut into segments, with repeated
    // points here and there (dropped segments), 4 m long.
    let mut points = Vec::new();
    let n = (4.0 / segment).round() as usize;
    for i in 0..=n {
        let x = 2.0 - i as f32 * segment;
        points.push(Vec2::new(x, 0.0));
        if i % 97 == 0 {
            points.push(Vec2::new(x, 0.0));
        }
    }
    Shape::chain(&points, false).unwrap()
}

/// A frictionless 0.4 x 0.2 m box sliding at 5 m/s for 0.5 s over
/// `ground` (top at y = -1, from x = 1 to 5); its end and largest vertical
/// speed after the first step.
fn slide_chain(chain: Shape<tumble::D2>, at: Vec2) -> (Vec2, f32) {
    let mut world = d2::World::new(awake());
    world
        .add_body(
            BodyDesc::fixed().position(at),
            ColliderDesc::new(chain).friction(0.0),
        )
        .unwrap();
    let body = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec2::new(1.3, -0.9))
                .linear_velocity(Vec2::new(5.0, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec2::new(0.2, 0.1)).unwrap()).friction(0.0),
        )
        .unwrap();
    let mut kick = 0.0f32;
    for step in 0..30 {
        world.step(DT);
        let b = world.body(body).unwrap();
        if step > 0 {
            kick = kick.max(b.linear_velocity().y.abs());
        }
    }
    (world.body(body).unwrap().position(), kick)
}

#[test]
fn a_box_slides_over_a_chain_of_millimetre_segments_as_over_a_box() {
    let chain = chain_line(0.001);
    assert!(chain.as_surface().unwrap().dropped_facets() > 0);
    let (end, kick) = slide_chain(chain, Vec2::new(3.0, -1.0));
    let box_ground = Shape::cuboid(Vec2::new(2.0, 0.5)).unwrap();
    let (box_end, box_kick) = slide_chain(box_ground, Vec2::new(3.0, -1.5));
    println!(
        "1 mm chain: end {end:?} (box {box_end:?}), vertical speed {kick:.2e} (box {box_kick:.2e})"
    );
    assert!(kick < box_kick + 1e-3, "vertical kick {kick} m/s");
    assert!(
        (end - box_end).length() < 1e-3,
        "{end:?} against {box_end:?}"
    );
}

#[test]
fn bodies_dropped_into_a_sharp_chain_valley_stay_above_it() {
    // A V valley 30 degrees wide at the bottom, the chain's front inside
    // (right to left, then up): bodies dropped and thrown in must stay in.
    let half = 15f32.to_radians();
    let (s, c) = (half.sin(), half.cos());
    let points = [
        Vec2::new(3.0 * s, 3.0 * c),
        Vec2::ZERO,
        Vec2::new(-3.0 * s, 3.0 * c),
    ];
    // Runs right-top to the bottom to left-top: the front (right of the
    // direction) faces into the V.
    let chain = Shape::chain(&points, false).unwrap();
    let mut draw = common::Draw(0xfeed_f00d_1234_0001);
    for k in 0..40 {
        let mut world = d2::World::new(awake());
        world
            .add_body(BodyDesc::fixed(), ColliderDesc::new(chain.clone()))
            .unwrap();
        let shape = match k % 3 {
            0 => Shape::ball(draw.between(0.02, 0.3)).unwrap(),
            1 => {
                Shape::cuboid(Vec2::new(draw.between(0.02, 0.2), draw.between(0.02, 0.2))).unwrap()
            }
            _ => Shape::capsule(draw.between(0.05, 0.3), draw.between(0.02, 0.1)).unwrap(),
        };
        let speed = draw.between(0.0, 60.0);
        let aim = draw.between(-0.3, 0.3);
        let body = world
            .add_body(
                BodyDesc::dynamic()
                    .position(Vec2::new(draw.between(-0.3, 0.3), 2.0))
                    .rotation(draw.between(0.0, 6.0))
                    .linear_velocity(Vec2::new(aim.sin(), -aim.cos()) * speed)
                    .angular_velocity(draw.between(-20.0, 20.0)),
                ColliderDesc::new(shape),
            )
            .unwrap();
        for step in 0..180 {
            world.step(DT);
            let p = world.body(body).unwrap().position();
            // Inside the V: above both arms' lines.
            let inside = p.y * s - p.x.abs() * c;
            assert!(
                inside > -1e-3 || p.y > 2.9,
                "body {k} at {speed:.1} m/s left the valley at step {step}: {p:?}"
            );
        }
    }
}

#[test]
fn a_chain_is_one_sided_from_behind_and_solid_from_the_front() {
    // A closed counter-clockwise square: solid inside, colliding outside.
    let square = [
        Vec2::new(-1.0, -1.0),
        Vec2::new(1.0, -1.0),
        Vec2::new(1.0, 1.0),
        Vec2::new(-1.0, 1.0),
        Vec2::new(-1.0, -1.0), // the first point again, as a closed loop often is
    ];
    let chain = Shape::chain(&square, true).unwrap();
    let mut world = d2::World::new(Settings {
        gravity: Vec2::ZERO,
        ..awake()
    });
    world
        .add_body(
            BodyDesc::fixed()
                .position(Vec2::new(5.0, 2.0))
                .rotation(0.4),
            ColliderDesc::new(chain),
        )
        .unwrap();
    let turn = tumble::Rot2::from_angle(0.4);
    let centre = Vec2::new(5.0, 2.0);
    let out = world
        .add_body(
            BodyDesc::dynamic()
                .position(centre + turn.rotate(Vec2::new(-3.0, 0.3)))
                .linear_velocity(turn.rotate(Vec2::new(30.0, 0.0))),
            ColliderDesc::new(Shape::ball(0.1).unwrap()),
        )
        .unwrap();
    let inside = world
        .add_body(
            BodyDesc::dynamic()
                .position(centre + turn.rotate(Vec2::new(0.0, -0.3)))
                .linear_velocity(turn.rotate(Vec2::new(30.0, 0.0))),
            ColliderDesc::new(Shape::ball(0.1).unwrap()),
        )
        .unwrap();
    for _ in 0..30 {
        world.step(DT);
    }
    let local = |h| turn.inverse_rotate(world.body(h).unwrap().position() - centre);
    assert!(
        local(out).x < -1.05,
        "the outside ball got in: {:?}",
        local(out)
    );
    assert!(
        local(inside).x > 5.0,
        "the inside ball was held: {:?}",
        local(inside)
    );
    // Rays: from outside in, a hit on the facing side; from inside out, none.
    let f = QueryFilter::default();
    let hit = world
        .cast_ray(
            centre + turn.rotate(Vec2::new(-3.0, 0.5)),
            turn.rotate(Vec2::X),
            10.0,
            &f,
        )
        .expect("the ray from outside meets the left side");
    assert!((hit.distance - 2.0).abs() < 1e-4, "{hit:?}");
    assert!(hit.normal.dot(turn.rotate(Vec2::NEG_X)) > 0.9999, "{hit:?}");
    assert!(world
        .cast_ray(centre, turn.rotate(Vec2::X), 10.0, &f)
        .is_none());
}

// ---------------------------------------------------------- ledges (bugs)

/// A frictionless box (half side 0.2) sliding at `speed` off the free end
/// of a 4 m flat chain segment (2D) whose end is at x = 2: the centre x at
/// which it first turns faster than 0.05 rad/s, and how often its spin
/// changed sign before its centre reached the end.
fn tip_off_2d(ground: Shape<tumble::D2>, at: Vec2, speed: f32) -> (f32, usize) {
    let mut world = d2::World::new(awake());
    world
        .add_body(
            BodyDesc::fixed().position(at),
            ColliderDesc::new(ground).friction(0.0),
        )
        .unwrap();
    let body = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec2::new(1.5, 0.2))
                .linear_velocity(Vec2::new(speed, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec2::splat(0.2)).unwrap()).friction(0.0),
        )
        .unwrap();
    let (mut tip, mut flips, mut last) = (f32::INFINITY, 0, 0.0f32);
    for _ in 0..90 {
        world.step(DT);
        let b = world.body(body).unwrap();
        let w = b.angular_velocity();
        if w.abs() > 0.05 {
            tip = tip.min(b.position().x);
            if w * last < 0.0 && b.position().x < 2.0 {
                flips += 1;
            }
            last = w;
        }
    }
    (tip, flips)
}

/// As [`tip_off_2d`] in 3D: a cube off the free border x = 2 of `ground`.
fn tip_off_3d(ground: Shape<tumble::D3>, at: Vec3, speed: f32) -> (f32, usize) {
    let mut world = d3::World::new(awake());
    world
        .add_body(
            BodyDesc::fixed().position(at),
            ColliderDesc::new(ground).friction(0.0),
        )
        .unwrap();
    let body = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(1.5, 0.2, 0.3))
                .linear_velocity(Vec3::new(speed, 0.0, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec3::splat(0.2)).unwrap()).friction(0.0),
        )
        .unwrap();
    let (mut tip, mut flips, mut last) = (f32::INFINITY, 0, 0.0f32);
    for _ in 0..90 {
        world.step(DT);
        let b = world.body(body).unwrap();
        let w = b.angular_velocity().z;
        if w.abs() > 0.05 {
            tip = tip.min(b.position().x);
            if w * last < 0.0 && b.position().x < 2.0 {
                flips += 1;
            }
            last = w;
        }
    }
    (tip, flips)
}

#[test]
fn a_box_sliding_off_a_ledge_tips_only_once_its_centre_is_past_it() {
    // On a box ground the cube starts to turn once its centre passes the
    // edge (x = 2; from the step it crosses it in, and before it is 10 cm
    // past it). Off the free end
    // of one chain segment, two triangles or one heightfield cell longer
    // than the box it must do the same, never rocking before: its manifold
    // keeps its corners over the facet and the points where its face
    // crosses the free border every step (`narrow_phase::surface::face_contacts`).
    for speed in [0.5f32, 1.0, 2.0] {
        let step = speed * DT;
        let at_the_edge = |tip: f32| tip > 2.0 - step - 1e-3 && tip < 2.1;
        let (box_tip, flips) = tip_off_2d(
            Shape::cuboid(Vec2::new(2.0, 0.5)).unwrap(),
            Vec2::new(0.0, -0.5),
            speed,
        );
        println!("2D {speed} m/s, box ground: turns at x = {box_tip:.3}, {flips} flips");
        assert!(at_the_edge(box_tip) && flips == 0);
        let chain = Shape::chain(&[Vec2::new(2.0, 0.0), Vec2::new(-2.0, 0.0)], false).unwrap();
        let (tip, flips) = tip_off_2d(chain, Vec2::ZERO, speed);
        println!("2D {speed} m/s, one chain segment: turns at x = {tip:.3}, {flips} flips");
        assert!(
            at_the_edge(tip) && flips == 0,
            "chain: turns at {tip} (box ground {box_tip}), {flips} flips"
        );
        let (box_tip, flips) = tip_off_3d(
            Shape::cuboid(Vec3::new(2.0, 0.5, 2.0)).unwrap(),
            Vec3::new(0.0, -0.5, 0.0),
            speed,
        );
        println!("3D {speed} m/s, box ground: turns at x = {box_tip:.3}, {flips} flips");
        assert!(at_the_edge(box_tip) && flips == 0);
        let heights = [0.0; 4];
        for (name, ground) in [
            ("two triangles", common::grid_mesh(1, 1, 4.0, false)),
            (
                "one heightfield cell",
                Shape::heightfield(&heights, 2, 2, Vec3::new(4.0, 1.0, 4.0)).unwrap(),
            ),
        ] {
            let (tip, flips) = tip_off_3d(ground, Vec3::ZERO, speed);
            println!("3D {speed} m/s, {name}: turns at x = {tip:.3}, {flips} flips");
            assert!(
                at_the_edge(tip) && flips == 0,
                "{name}: turns at {tip} (box ground {box_tip}), {flips} flips"
            );
        }
    }
}

// ------------------------------------------- continuous collision (walls)

/// A vertical wall quad in the plane x = `x`, `half` metres each way in
/// y and z, its front facing -X (towards bodies coming from the left).
fn wall_mesh(x: f32, half: f32) -> Shape<tumble::D3> {
    let v = [
        Vec3::new(x, -half, -half),
        Vec3::new(x, -half, half),
        Vec3::new(x, half, half),
        Vec3::new(x, half, -half),
    ];
    Shape::triangle_mesh(&v, &[[0, 1, 2], [0, 2, 3]]).unwrap()
}

/// Fires `count` thin fast bodies (balls, flat boxes, capsules) at 60-400
/// m/s at a wall whose front is the plane x = 0 (`wall` posed at `at`),
/// from random angles; how many had their centre past the front while
/// over the wall (|y|, |z| < 59 m), for each kind.
fn shots_through(wall: &Shape<tumble::D3>, at: Vec3, count: usize) -> [usize; 3] {
    let mut draw = common::Draw(0x0bad_cafe_dead_beef);
    let mut through = [0; 3];
    for k in 0..count {
        let mut world = d3::World::new(Settings {
            gravity: Vec3::ZERO,
            ..awake()
        });
        world
            .add_body(
                BodyDesc::fixed().position(at),
                ColliderDesc::new(wall.clone()),
            )
            .unwrap();
        let shape = match k % 3 {
            0 => Shape::ball(0.03).unwrap(),
            1 => Shape::cuboid(Vec3::new(0.02, 0.08, 0.05)).unwrap(),
            _ => Shape::capsule(0.1, 0.02).unwrap(),
        };
        let speed = draw.between(60.0, 400.0);
        let yaw = draw.between(-1.0, 1.0);
        let pitch = draw.between(-0.8, 0.8);
        let dir = Vec3::new(
            yaw.cos() * pitch.cos(),
            pitch.sin(),
            yaw.sin() * pitch.cos(),
        );
        let target = Vec3::new(0.0, draw.between(-1.2, 1.2), draw.between(-1.2, 1.2));
        let spin = draw.between(-30.0, 30.0);
        let body = world
            .add_body(
                BodyDesc::dynamic()
                    .position(target - dir * 2.0)
                    .rotation(Quat::from_rotation_y(yaw) * Quat::from_rotation_x(pitch))
                    .linear_velocity(dir * speed)
                    .angular_velocity(Vec3::new(spin, 0.0, 10.0)),
                ColliderDesc::new(shape),
            )
            .unwrap();
        let mut behind = false;
        for _ in 0..12 {
            world.step(DT);
            let p = world.body(body).unwrap().position();
            behind |= p.x > 0.0 && p.y.abs() < 59.0 && p.z.abs() < 59.0;
        }
        if behind {
            through[k % 3] += 1;
        }
    }
    through
}

#[test]
fn fast_thin_bodies_stop_at_a_one_sided_mesh_wall_and_pass_it_from_behind() {
    let wall = wall_mesh(0.0, 60.0);
    assert!(wall.as_surface().unwrap().facets()[0].normal().x < -0.99);
    let through = shots_through(&wall, Vec3::ZERO, 120);
    println!("mesh wall: centres past it (balls, boxes, capsules) {through:?} of 40 each");
    assert_eq!(through, [0, 0, 0]);
    // From behind the wall is not there.
    let mut world = d3::World::new(Settings {
        gravity: Vec3::ZERO,
        ..awake()
    });
    world
        .add_body(BodyDesc::fixed(), ColliderDesc::new(wall))
        .unwrap();
    let body = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(2.0, 0.3, -0.4))
                .linear_velocity(Vec3::new(-150.0, 0.0, 0.0)),
            ColliderDesc::new(Shape::capsule(0.1, 0.02).unwrap()),
        )
        .unwrap();
    for _ in 0..6 {
        world.step(DT);
    }
    assert!(world.body(body).unwrap().position().x < -10.0);
}

#[test]
fn fast_thin_bodies_stop_at_a_fixed_box_wall_as_at_a_mesh_wall() {
    // The same shots as at the mesh wall, at a 1 m thick fixed box whose
    // front is the same plane: 2 of 40 flat boxes and 17 of 40 capsules
    // end with their centre inside it or beyond. Cause, as traced: the
    // shot's first step stops it at the wall by its time of impact; in the
    // next step it starts touching, so `World`'s continuous pass
    // (`world/continuous.rs`) takes the `Impact::At(t <= 0)` branch and
    // calls `deepening`, which compares the overlap at the end of the
    // sweep only (`depth(1.0) <= allowed` gives `None`, no clamp): a body
    // that goes right through the box in that step has no overlap at its
    // end, and is let through. A capsule at 200 m/s straight at the box
    // (rotation below) ends 1.2 m past its front after two steps, beyond
    // its back, still at 74 m/s, and 6.2 m past it after six. Surfaces are not affected:
    // `SurfaceSweep::depth_at` measures depth behind the facet's plane.
    let wall = Shape::cuboid(Vec3::new(0.5, 60.0, 60.0)).unwrap();
    let mut world = d3::World::new(Settings {
        gravity: Vec3::ZERO,
        ..awake()
    });
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.5, 0.0, 0.0)),
            ColliderDesc::new(wall.clone()),
        )
        .unwrap();
    let body = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(-2.0, 0.0, 0.0))
                .rotation(Quat::from_rotation_y(0.31) * Quat::from_rotation_x(0.527))
                .linear_velocity(Vec3::new(200.0, 0.0, 0.0)),
            ColliderDesc::new(Shape::capsule(0.1, 0.02).unwrap()),
        )
        .unwrap();
    let through = shots_through(&wall, Vec3::new(0.5, 0.0, 0.0), 120);
    println!("box wall: centres past its front (balls, boxes, capsules) {through:?} of 40 each");
    let mut deepest = f32::NEG_INFINITY;
    for _ in 0..6 {
        world.step(DT);
        deepest = deepest.max(world.body(body).unwrap().position().x);
    }
    println!("capsule at 200 m/s into a 1 m box: centre reached x = {deepest:.3}");
    assert!(deepest < 0.0, "centre reached x = {deepest}");
    assert_eq!(through, [0, 0, 0]);
}

// ------------------------------- kinematic, sleep, saving, rollback, threads

/// A cube resting 1 s on a kinematic mesh platform, which is then driven
/// by target poses up at 1 m/s and sideways at 0.5 m/s for 1.5 s: the
/// deepest the cube sank into it, and how far the cube ended from the
/// platform's motion.
fn carried(sleep: bool) -> (f32, f32) {
    let mut world = d3::World::new(Settings {
        sleep,
        ..Settings::default()
    });
    let platform = world
        .add_body(
            BodyDesc::kinematic().position(Vec3::new(0.0, 1.0, 0.0)),
            ColliderDesc::new(common::grid_mesh(3, 3, 1.0, true)).friction(0.9),
        )
        .unwrap();
    let cube = world
        .add_body(
            BodyDesc::dynamic().position(Vec3::new(0.2, 1.25, -0.1)),
            ColliderDesc::new(Shape::cuboid(Vec3::splat(0.25)).unwrap()).friction(0.9),
        )
        .unwrap();
    for _ in 0..60 {
        world.step(DT);
    }
    let rest = world.body(cube).unwrap().position();
    let mut sunk = 0.0f32;
    for step in 1..=90 {
        let t = step as f32 * DT;
        world
            .body_mut(platform)
            .unwrap()
            .set_kinematic_target(Vec3::new(0.5 * t, 1.0 + t, 0.0), Quat::IDENTITY)
            .unwrap();
        world.step(DT);
        let p = world.body(cube).unwrap().position();
        let q = world.body(platform).unwrap().position();
        sunk = sunk.max(0.25 - (p.y - q.y));
    }
    let p = world.body(cube).unwrap().position();
    let q = world.body(platform).unwrap().position();
    let off = (p - rest) - (q - Vec3::new(0.0, 1.0, 0.0));
    (sunk, off.length())
}

#[test]
fn a_kinematic_mesh_platform_carries_a_box_up_and_sideways() {
    let (sunk, off) = carried(false);
    println!("carried, sleep off: sank {sunk:.2e} m, off the platform's motion by {off:.2e} m");
    assert!(sunk < 5e-3, "sank {sunk} m");
    assert!(off < 0.02, "off by {off} m");
}

/// With sleep on, the cube is asleep when the platform starts, and is
/// solved against it in the step it wakes. Before, in that first step it
/// got gravity's velocity (-0.1635 m/s) and no contact impulse, and ended
/// 1.8 cm inside the platform (the same with a kinematic box platform):
/// the pair of the platform and the cube, awake because the platform is,
/// had no solver input in the step the cube woke (`World::add_woken_inputs`).
#[test]
fn a_kinematic_mesh_platform_carries_a_sleeping_box_up_without_it_sinking() {
    let (sunk, off) = carried(true);
    println!("carried, sleep on: sank {sunk:.2e} m, off the platform's motion by {off:.2e} m");
    assert!(sunk < 5e-3, "sank {sunk} m");
    assert!(off < 0.02, "off by {off} m");
}

#[test]
fn a_box_on_a_steep_rotated_heightfield_slope_settles_and_sleeps() {
    // A plane 32 degrees steep as a heightfield with unequal cells, turned
    // about Y and moved; friction 0.8 holds a box (tan 32 = 0.62).
    let (rows, columns) = (6, 13);
    let scale = Vec3::new(12.0, 1.0, 5.0);
    let slope = 32f32.to_radians().tan();
    let heights: Vec<f32> = (0..rows * columns)
        .map(|k| ((k % columns) as f32 / (columns - 1) as f32 - 0.5) * scale.x * slope)
        .collect();
    let field = Shape::heightfield(&heights, rows, columns, scale).unwrap();
    let turn = Quat::from_rotation_y(1.1);
    let at = Vec3::new(-30.0, 5.0, 12.0);
    let mut world = d3::World::new(Settings::default());
    world
        .add_body(
            BodyDesc::fixed().position(at).rotation(turn),
            ColliderDesc::new(field).friction(0.8),
        )
        .unwrap();
    let angle = slope.atan();
    let up = Vec3::new(-angle.sin(), angle.cos(), 0.0);
    let local = Vec3::new(0.7, 0.7 * slope, 0.4) + up * 0.2;
    let cube = world
        .add_body(
            BodyDesc::dynamic()
                .position(at + turn * local)
                .rotation(turn * Quat::from_rotation_z(angle)),
            ColliderDesc::new(Shape::cuboid(Vec3::splat(0.2)).unwrap()).friction(0.8),
        )
        .unwrap();
    let start = world.body(cube).unwrap().position();
    let mut asleep_at = None;
    for step in 0..240 {
        world.step(DT);
        if asleep_at.is_none() && world.body(cube).unwrap().is_sleeping() {
            asleep_at = Some(step);
        }
    }
    let end = world.body(cube).unwrap().position();
    println!(
        "on the slope: moved {:.2e} m, asleep at step {asleep_at:?}",
        (end - start).length()
    );
    assert!((end - start).length() < 0.01, "slid {:?}", end - start);
    assert!(
        asleep_at.is_some_and(|s| s < 120),
        "asleep at {asleep_at:?}"
    );
}

/// A world of level geometry: a heightfield, a turned mesh with mixed
/// diagonals and a mesh wall, with 30 bodies of every kind dropped and
/// thrown onto them.
fn level_world() -> d3::World {
    let mut world = d3::World::new(Settings::default());
    let heights = bumpy(9, 17);
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -1.0, 0.0)),
            ColliderDesc::new(
                Shape::heightfield(&heights, 9, 17, Vec3::new(16.0, 2.0, 8.0)).unwrap(),
            ),
        )
        .unwrap();
    world
        .add_body(
            BodyDesc::fixed()
                .position(Vec3::new(0.0, 0.5, 7.0))
                .rotation(Quat::from_rotation_x(-0.3)),
            ColliderDesc::new(common::grid_mesh(6, 6, 1.0, true)),
        )
        .unwrap();
    world
        .add_body(BodyDesc::fixed(), ColliderDesc::new(wall_mesh(7.5, 3.0)))
        .unwrap();
    let mut draw = common::Draw(0x1357_9bdf_2468_ace0);
    for k in 0..30 {
        let shape = match k % 3 {
            0 => Shape::ball(draw.between(0.1, 0.4)).unwrap(),
            1 => Shape::cuboid(Vec3::splat(draw.between(0.1, 0.3))).unwrap(),
            _ => Shape::capsule(0.2, 0.1).unwrap(),
        };
        world
            .add_body(
                BodyDesc::dynamic()
                    .position(Vec3::new(
                        draw.between(-6.0, 6.0),
                        draw.between(1.0, 4.0),
                        draw.between(-3.0, 8.0),
                    ))
                    .rotation(Quat::from_rotation_y(draw.between(0.0, 6.0)))
                    .linear_velocity(Vec3::new(draw.between(-30.0, 30.0), -10.0, 0.0)),
                ColliderDesc::new(shape),
            )
            .unwrap();
    }
    world
}

#[test]
fn a_level_of_surfaces_saves_loads_rolls_back_and_runs_alike_on_one_and_two_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut world = level_world();
            for _ in 0..90 {
                world.step(DT);
            }
            world.state_hash()
        })
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two, "1 and 2 threads differ");
    assert_eq!(one, run(1), "two runs differ");

    let mut world = level_world();
    for _ in 0..40 {
        world.step(DT);
    }
    let bytes = world.to_bytes();
    let mut loaded = d3::World::from_bytes(&bytes).unwrap();
    let state = world.save_state();
    let mut hashes = Vec::new();
    for _ in 0..50 {
        world.step(DT);
        loaded.step(DT);
        assert_eq!(
            world.state_hash(),
            loaded.state_hash(),
            "the loaded world parted"
        );
        hashes.push(world.state_hash());
    }
    assert_eq!(world.state_hash(), one, "saving changed the run");
    world.restore_state(&state).unwrap();
    for (k, hash) in hashes.iter().enumerate() {
        world.step(DT);
        assert_eq!(world.state_hash(), *hash, "rollback parted at step {k}");
    }
    // And nothing ended under the terrain or the mesh.
    let mut nan = 0;
    for (_, body) in world.bodies() {
        if !body.position().is_finite() {
            nan += 1;
        }
    }
    assert_eq!(nan, 0);
}
