//! Input that would break the simulation is refused at the API boundary with
//! a typed error, and input that names a valid value is taken whatever its
//! scale: rotations, collider poses, mass properties and settings.

mod common;

use common::*;
use tumble::glam::{Quat, Vec2, Vec3, Vec4};
use tumble::shape::Shape;
use tumble::{BodyDesc, ColliderDesc, Pose, Settings, World, WorldError, D2, D3};

const DT: f32 = 1.0 / 60.0;

/// A rotation that is not about a coordinate axis, so that every component counts.
fn turn() -> Quat {
    Quat::from_axis_angle(Vec3::new(1.0, -2.0, 0.5).normalize(), 0.7)
}

/// `q`'s components times `scale` (exactly what a user would type).
fn scaled(q: Quat, scale: f32) -> Quat {
    Quat::from_vec4(Vec4::from(q) * scale)
}

/// True when `q` is a unit quaternion for the same rotation as the unit `expected`.
fn same_rotation(q: Quat, expected: Quat) -> bool {
    (q.length() - 1.0).abs() < 1e-6 && (Vec4::from(q) - Vec4::from(expected)).length() < 1e-6
}

#[test]
fn quaternions_of_any_finite_size_name_their_rotation_3d() {
    let unit = turn();
    let cube = || ColliderDesc::new(Shape::<D3>::cuboid(Vec3::new(0.5, 1.0, 1.5)).unwrap());
    let mut world = World::<D3>::new(Settings::default());
    let reference = world
        .add_body(BodyDesc::fixed().rotation(unit), cube())
        .unwrap();
    let reference_box = world
        .body(reference)
        .map(|b| b.shape().aabb(&b.pose()))
        .unwrap();
    for scale in [1e20, 1e30, 1e-25, 1e-30] {
        let q = scaled(unit, scale);
        let at = Vec3::new(1.0, 2.0, 3.0);
        let body = world
            .add_body(BodyDesc::fixed().position(at).rotation(q), cube())
            .unwrap_or_else(|e| panic!("a quaternion scaled by {scale} was refused: {e}"));
        let b = world.body(body).unwrap();
        assert!(
            same_rotation(b.rotation(), unit),
            "scaled by {scale}: {:?}, not {unit:?}",
            b.rotation()
        );
        let aabb = b.shape().aabb(&b.pose());
        assert!(
            (aabb.min - at - reference_box.min).length() < 1e-5
                && (aabb.max - at - reference_box.max).length() < 1e-5,
            "scaled by {scale}: the box is {aabb:?}"
        );

        let moved = world
            .add_body(BodyDesc::dynamic().position(at), cube())
            .unwrap();
        let mut b = world.body_mut(moved).unwrap();
        b.set_rotation(q).unwrap();
        assert!(same_rotation(b.rotation(), unit), "set_rotation, {scale}");

        let driven = world
            .add_body(BodyDesc::kinematic().position(at), cube())
            .unwrap();
        world
            .body_mut(driven)
            .unwrap()
            .set_kinematic_target(at, q)
            .unwrap();

        let pose = Pose::<D3>::new(at, q);
        assert!(
            pose.is_finite() && same_rotation(pose.rotation, unit),
            "Pose::new, {scale}: {pose:?}"
        );
        let (body, collider) = (BodyDesc::fixed(), cube().local_pose(Vec3::X, q));
        let placed = world.add_body(body, collider).unwrap();
        let local = world.body(placed).unwrap().colliders()[0].local_pose();
        assert!(same_rotation(local.rotation, unit), "local pose, {scale}");
        world.step(DT);
        let target = world.body(driven).unwrap().rotation();
        assert!(same_rotation(target, unit), "kinematic target, {scale}");
    }
}

#[test]
fn a_zero_or_non_finite_quaternion_is_refused_3d() {
    let cube = || ColliderDesc::new(Shape::<D3>::cuboid(Vec3::splat(0.5)).unwrap());
    let zero = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut world = World::<D3>::new(Settings::default());
    let dynamic = world.add_body(BodyDesc::dynamic(), cube()).unwrap();
    let kinematic = world.add_body(BodyDesc::kinematic(), cube()).unwrap();
    let nan = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    let inf = Quat::from_xyzw(0.0, f32::INFINITY, 0.0, 1.0);
    for (q, zero) in [(zero, true), (nan, false), (inf, false)] {
        let refused = |what| {
            if zero {
                WorldError::ZeroRotation { what }
            } else {
                WorldError::NotFinite { what }
            }
        };
        assert_eq!(
            world.add_body(BodyDesc::dynamic().rotation(q), cube()),
            Err(refused("body rotation")),
            "{q:?}"
        );
        let mut b = world.body_mut(dynamic).unwrap();
        assert_eq!(b.set_rotation(q), Err(refused("body rotation")));
        assert_eq!(b.rotation(), Quat::IDENTITY);
        let mut k = world.body_mut(kinematic).unwrap();
        assert_eq!(
            k.set_kinematic_target(Vec3::ZERO, q),
            Err(refused("kinematic target"))
        );
        assert!(!Pose::<D3>::new(Vec3::ZERO, q).is_finite(), "{q:?}");
        let placed = cube().local_pose(Vec3::ZERO, q);
        assert_eq!(
            world.add_body(BodyDesc::dynamic(), placed.clone()),
            Err(refused("collider local pose"))
        );
        assert_eq!(
            world.add_collider(dynamic, placed).map(|_| ()),
            Err(refused("collider local pose"))
        );
    }
    assert_eq!(world.body_count(), 2);
    assert_eq!(world.body(dynamic).unwrap().colliders().len(), 1);
    assert!(
        WorldError::ZeroRotation {
            what: "body rotation"
        }
        .to_string()
        .contains("zero quaternion"),
        "the message names the cause"
    );
}

#[test]
fn any_finite_angle_is_a_unit_rotation_2d() {
    let mut world = World::<D2>::new(Settings::default());
    for angle in [1e10, 1e30, f32::MAX, -f32::MAX, f32::MIN_POSITIVE] {
        let body = world
            .add_body(
                BodyDesc::dynamic().rotation(angle),
                ColliderDesc::new(D2::cube(0.5)),
            )
            .unwrap();
        let mut b = world.body_mut(body).unwrap();
        b.set_rotation(angle).unwrap();
        let r = b.pose().rotation;
        let pose = Pose::<D2>::new(Vec2::ZERO, angle).rotation;
        for r in [r, pose] {
            let length = Vec2::new(r.cos, r.sin).length();
            assert!(
                (length - 1.0).abs() < 1e-6,
                "angle {angle}: {r:?} has length {length}"
            );
        }
    }
}

fn non_finite_local_pose<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let body = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 1.0)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    let centre = world.body(body).unwrap().center_of_mass();
    let refused = Err(WorldError::NotFinite {
        what: "collider local pose",
    });
    for (translation, angle) in [
        (D::v(f32::NAN, 0.0), 0.0),
        (D::v(0.0, f32::INFINITY), 0.0),
        (D::v(0.0, f32::NEG_INFINITY), 0.0),
        (D::v(0.0, 0.5), f32::NAN),
        (D::v(0.0, 0.5), f32::INFINITY),
    ] {
        let collider = || ColliderDesc::new(D::cube(0.25)).local_pose(translation, D::tilt(angle));
        assert_eq!(
            world.add_body(BodyDesc::dynamic(), collider()).map(|_| ()),
            refused,
            "{}: add_body with {translation:?}, {angle}",
            D::NAME
        );
        assert_eq!(
            world.add_collider(body, collider()).map(|_| ()),
            refused.clone(),
            "{}: add_collider with {translation:?}, {angle}",
            D::NAME
        );
    }
    assert_eq!(world.body_count(), 2, "{}", D::NAME);
    let b = world.body(body).unwrap();
    assert_eq!(b.colliders().len(), 1, "{}", D::NAME);
    assert_eq!(b.center_of_mass(), centre, "{}", D::NAME);
    for _ in 0..60 {
        world.step(DT);
    }
    let at = world.body(body).unwrap().center_of_mass();
    assert!(
        D::height(at) > 0.49 && D::height(at) < 0.51,
        "{}: the body landed at {at:?}",
        D::NAME
    );
}

#[test]
fn a_non_finite_collider_local_pose_is_refused_2d() {
    non_finite_local_pose::<D2>();
}

#[test]
fn a_non_finite_collider_local_pose_is_refused_3d() {
    non_finite_local_pose::<D3>();
}

/// True for the refusal of a dynamic body's mass or inertia.
fn is_mass_refusal(e: &WorldError) -> bool {
    matches!(
        e,
        WorldError::MassOutOfRange {
            what: "mass" | "rotational inertia",
            ..
        }
    )
}

fn mass_out_of_range<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let unit = || ColliderDesc::new(Shape::<D>::ball(0.5).unwrap());
    let bad: Vec<(&str, ColliderDesc<D>)> = vec![
        ("ball 1e13", ColliderDesc::new(Shape::ball(1e13).unwrap())),
        ("ball 1e-14", ColliderDesc::new(Shape::ball(1e-14).unwrap())),
        ("cuboid 1e20", ColliderDesc::new(D::cuboid(1e20, 1e20))),
        ("cuboid 1e-15", ColliderDesc::new(D::cube(1e-15))),
        (
            "capsule 1e20",
            ColliderDesc::new(Shape::capsule(1e20, 1e20).unwrap()),
        ),
        (
            "capsule 1e-15",
            ColliderDesc::new(Shape::capsule(1e-15, 1e-15).unwrap()),
        ),
        ("hull 1e20", ColliderDesc::new(D::hull(1e20))),
        ("hull 1e-15", ColliderDesc::new(D::hull(1e-15))),
        ("density f32::MAX", unit().density(f32::MAX)),
        ("density 1e-40", unit().density(1e-40)),
    ];
    for (name, collider) in &bad {
        let refused = world.add_body(
            BodyDesc::dynamic().position(D::v(0.0, 2.0)),
            collider.clone(),
        );
        match refused {
            Err(e) => assert!(is_mass_refusal(&e), "{}: {name}: {e:?}", D::NAME),
            Ok(h) => panic!(
                "{}: {name} accepted with mass {}",
                D::NAME,
                world.body(h).unwrap().mass()
            ),
        }
        // A fixed body needs no mass, only a finite centre.
        match world.add_body(
            BodyDesc::fixed().position(D::v(50.0, 0.0)),
            collider.clone(),
        ) {
            Ok(h) => {
                let centre = world.body(h).unwrap().center_of_mass();
                assert!(
                    D::len(centre).is_finite(),
                    "{}: {name}: {centre:?}",
                    D::NAME
                );
                world.remove_body(h);
            }
            Err(e) => assert!(
                matches!(e, WorldError::MassOutOfRange { .. }),
                "{}: {name}: {e:?}",
                D::NAME
            ),
        }
    }
    assert_eq!(world.body_count(), 1, "{}", D::NAME);

    // A part so far out that the body's inertia overflows.
    let body = world
        .add_body(BodyDesc::dynamic().position(D::v(0.0, 0.5)), unit())
        .unwrap();
    let (mass, centre) = {
        let b = world.body(body).unwrap();
        (b.mass(), b.center_of_mass())
    };
    let far = unit().local_pose(D::v(1e20, 0.0), D::tilt(0.0));
    let e = world.add_collider(body, far).unwrap_err();
    assert!(is_mass_refusal(&e), "{}: {e:?}", D::NAME);
    let b = world.body(body).unwrap();
    assert_eq!(
        (b.colliders().len(), b.mass(), b.center_of_mass()),
        (1, mass, centre),
        "{}: the body is unchanged",
        D::NAME
    );
    // A tiny part of a body of ordinary size is fine: its mass is the rest's.
    let tiny =
        ColliderDesc::new(Shape::ball(1e-14).unwrap()).local_pose(D::v(0.5, 0.0), D::tilt(0.0));
    world.add_collider(body, tiny).unwrap();
    for _ in 0..30 {
        world.step(DT);
    }
    assert!(D::len(world.body(body).unwrap().position()).is_finite());
    assert!(e.to_string().contains("too large or too small"), "{e}");
}

#[test]
fn bodies_whose_mass_or_inertia_overflow_or_underflow_are_refused_2d() {
    mass_out_of_range::<D2>();
}

#[test]
fn bodies_whose_mass_or_inertia_overflow_or_underflow_are_refused_3d() {
    mass_out_of_range::<D3>();
}

/// Spin from an impulse `m · 1 m/s` along Y at the ball's rim on X: `r J / I`,
/// with `I = k m r²` (`k` = 1/2 for a disc, 2/5 for a ball).
fn small_and_large_balls_turn<D: Scene>(k: f32) {
    let mut world = World::<D>::new(Settings::default());
    for radius in [1e-3, 2e-3, 0.5, 1e3] {
        let ball = world
            .add_body(
                BodyDesc::dynamic(),
                ColliderDesc::new(Shape::ball(radius).unwrap()),
            )
            .unwrap_or_else(|e| panic!("{}: a ball of radius {radius}: {e}", D::NAME));
        let mut b = world.body_mut(ball).unwrap();
        let impulse = D::v(0.0, b.mass());
        b.apply_impulse(impulse, D::v(radius, 0.0)).unwrap();
        let spin = D::spin_z(b.angular_velocity());
        let expected = 1.0 / (k * radius);
        assert!(
            (spin - expected).abs() < 1e-4 * expected,
            "{}: a ball of radius {radius} spins at {spin} rad/s, not {expected}",
            D::NAME
        );
    }
}

#[test]
fn small_and_large_balls_turn_2d() {
    small_and_large_balls_turn::<D2>(0.5);
}

#[test]
fn small_and_large_balls_turn_3d() {
    small_and_large_balls_turn::<D3>(0.4);
}

/// The bits of every body's pose and velocity.
fn state<D: Scene>(world: &World<D>) -> Vec<u32> {
    world
        .bodies()
        .flat_map(|(_, b)| {
            let mut bits = D::bits(b.position());
            bits.extend(D::bits(b.linear_velocity()));
            bits.extend(D::bits(b.center_of_mass()));
            bits.push(D::rotational_energy(b).to_bits());
            bits
        })
        .collect()
}

/// A ground and a box falling onto it, some steps in.
fn falling_box<D: Scene>(settings: Settings<D>) -> World<D> {
    let mut world = World::<D>::new(settings);
    add_ground::<D>(&mut world, 0.0);
    world
        .add_body(
            BodyDesc::dynamic()
                .position(D::v(0.0, 1.0))
                .rotation(D::tilt(0.3)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    world
}

type Field<D> = fn(&mut Settings<D>) -> &mut f32;

/// Every number in the settings: its name, where it is, and whether zero is refused.
fn settings_fields<D: Scene>() -> Vec<(&'static str, Field<D>, bool)> {
    vec![
        ("settings.contact_hertz", |s| &mut s.contact_hertz, true),
        (
            "settings.contact_damping_ratio",
            |s| &mut s.contact_damping_ratio,
            false,
        ),
        (
            "settings.max_push_out_speed",
            |s| &mut s.max_push_out_speed,
            false,
        ),
        (
            "settings.restitution_threshold",
            |s| &mut s.restitution_threshold,
            false,
        ),
        ("settings.linear_slop", |s| &mut s.linear_slop, true),
        ("settings.max_step", |s| &mut s.max_step, true),
        (
            "settings.speculative_distance",
            |s| &mut s.speculative_distance,
            false,
        ),
        (
            "settings.contact_breaking_threshold",
            |s| &mut s.contact_breaking_threshold,
            true,
        ),
        (
            "settings.manifold_reuse_distance",
            |s| &mut s.manifold_reuse_distance,
            false,
        ),
        ("settings.aabb_margin", |s| &mut s.aabb_margin, false),
        ("settings.time_to_sleep", |s| &mut s.time_to_sleep, false),
        (
            "settings.linear_sleep_tolerance",
            |s| &mut s.linear_sleep_tolerance,
            false,
        ),
        (
            "settings.angular_sleep_tolerance",
            |s| &mut s.angular_sleep_tolerance,
            false,
        ),
    ]
}

/// Every refused setting, one at a time, with the error it gets.
fn bad_settings<D: Scene>() -> Vec<(Settings<D>, WorldError)> {
    let mut bad = Vec::new();
    for gravity in [D::v(f32::NAN, 0.0), D::v(0.0, f32::INFINITY)] {
        let settings = Settings {
            gravity,
            ..Settings::default()
        };
        let what = "settings.gravity";
        bad.push((settings, WorldError::NotFinite { what }));
    }
    for substeps in [0, tumble::settings::MAX_SUBSTEPS + 1, u32::MAX] {
        let settings = Settings {
            substeps,
            ..Settings::default()
        };
        let (what, value) = ("settings.substeps", substeps as f32);
        bad.push((settings, WorldError::OutOfRange { what, value }));
    }
    for max_steps_per_call in [0, tumble::settings::MAX_STEPS_PER_CALL + 1, u32::MAX] {
        let settings = Settings {
            max_steps_per_call,
            ..Settings::default()
        };
        let (what, value) = ("settings.max_steps_per_call", max_steps_per_call as f32);
        bad.push((settings, WorldError::OutOfRange { what, value }));
    }
    for (what, field, positive) in settings_fields::<D>() {
        let zero: &[f32] = if positive { &[0.0] } else { &[] };
        for &value in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.0, -1e-30]
            .iter()
            .chain(zero)
        {
            let mut settings = Settings::default();
            *field(&mut settings) = value;
            bad.push((settings, WorldError::OutOfRange { what, value }));
        }
    }
    bad
}

/// Errors compared with NaN values equal to each other.
fn same_error(a: &WorldError, b: &WorldError) -> bool {
    match (a, b) {
        (WorldError::OutOfRange { what, value }, WorldError::OutOfRange { what: w, value: v }) => {
            what == w && value.to_bits() == v.to_bits()
        }
        _ => a == b,
    }
}

fn bad_settings_are_refused<D: Scene>() {
    let mut world = falling_box::<D>(Settings::default());
    for _ in 0..10 {
        world.step(DT);
    }
    let cases = bad_settings::<D>();
    assert!(cases.len() > 60);
    for (settings, expected) in cases {
        let before = state(&world);
        *world.settings_mut() = settings;
        let refused = world.try_step(DT).unwrap_err();
        assert!(
            same_error(&refused, &expected),
            "{}: try_step gave {refused:?}, not {expected:?}",
            D::NAME
        );
        world.step(DT);
        assert_eq!(state(&world), before, "{}: {expected:?} stepped", D::NAME);
        assert!(same_error(&settings.validate().unwrap_err(), &expected));
        assert!(same_error(
            &World::<D>::try_new(settings).err().unwrap(),
            &expected
        ));
        assert!(!refused.to_string().is_empty());
    }
    *world.settings_mut() = Settings::default();
    let before = state(&world);
    world.try_step(DT).unwrap();
    assert_ne!(state(&world), before, "{}: valid settings step", D::NAME);
    let most = Settings {
        substeps: tumble::settings::MAX_SUBSTEPS,
        ..Settings::default()
    };
    assert!(most.validate().is_ok() && World::<D>::try_new(most).is_ok());
}

#[test]
fn every_bad_setting_is_refused_and_the_world_stays_as_it_was_2d() {
    bad_settings_are_refused::<D2>();
}

#[test]
fn every_bad_setting_is_refused_and_the_world_stays_as_it_was_3d() {
    bad_settings_are_refused::<D3>();
}

/// A world made with settings `try_new` would refuse: bodies can be added,
/// and it never steps, so nothing non-finite enters a body; once the
/// settings are set right it steps as any other.
fn made_with_bad_settings<D: Scene>() {
    for (settings, expected) in bad_settings::<D>() {
        let mut world = falling_box::<D>(settings);
        let before = state(&world);
        for _ in 0..30 {
            world.step(DT);
        }
        let refused = world.try_step(DT).unwrap_err();
        assert!(same_error(&refused, &expected), "{}: {refused:?}", D::NAME);
        assert_eq!(state(&world), before, "{}: {expected:?}", D::NAME);
        for (_, body) in world.bodies() {
            assert!(D::len(body.position()).is_finite() && D::angular_is_finite(body));
        }
        // Set right, it steps: the box lands on the ground added meanwhile.
        *world.settings_mut() = Settings::default();
        for _ in 0..120 {
            world.try_step(DT).unwrap();
        }
        let (_, falling) = world.bodies().last().unwrap();
        let height = D::height(falling.center_of_mass());
        assert!(
            (height - 0.5).abs() < 0.01,
            "{}: after {expected:?}, the box rests at {height}",
            D::NAME
        );
    }
}

#[test]
fn a_world_made_with_bad_settings_never_steps_2d() {
    made_with_bad_settings::<D2>();
}

#[test]
fn a_world_made_with_bad_settings_never_steps_3d() {
    made_with_bad_settings::<D3>();
}
