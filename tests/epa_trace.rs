//! The traced contact query: EPA's last iteration is the contact, and the
//! closest face never comes nearer the origin as the polytope grows.

use tumble::glam::{Quat, Vec2, Vec3};

/// A small deterministic generator, uniform in [-1, 1).
struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

/// The last iteration's distance is the depth, and no iteration's closest
/// face is nearer than the one before (a rounding's worth aside).
fn check_distances(distances: &[f32], depth: f32, label: &str) {
    let last = *distances.last().expect("EPA ran");
    assert!(
        (last.max(0.0) - depth).abs() <= 1e-5,
        "{label}: last iteration {last} vs depth {depth}"
    );
    for pair in distances.windows(2) {
        assert!(
            pair[1] >= pair[0] - 1e-5,
            "{label}: the closest face came nearer: {} then {}",
            pair[0],
            pair[1]
        );
    }
}

#[test]
fn epa_trace_ends_at_the_contact_and_never_comes_nearer_3d() {
    use tumble::d3::{contact, contact_traced, Pose, Shape};
    let mut rng = Lcg(3);
    let mut traced = 0;
    for case in 0..300 {
        let a = if case % 2 == 0 {
            Shape::cuboid(Vec3::new(
                0.3 + rng.next().abs(),
                0.3 + rng.next().abs(),
                0.3 + rng.next().abs(),
            ))
            .unwrap()
        } else {
            Shape::convex_hull(
                &(0..12)
                    .map(|_| Vec3::new(rng.next(), rng.next(), rng.next()))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        let b = Shape::cuboid(Vec3::new(
            0.2 + rng.next().abs(),
            0.2 + rng.next().abs(),
            0.2 + rng.next().abs(),
        ))
        .unwrap();
        let q = |rng: &mut Lcg| {
            Quat::from_xyzw(rng.next(), rng.next(), rng.next(), rng.next()).normalize()
        };
        let pa = Pose::new(
            Vec3::new(rng.next(), rng.next(), rng.next()) * 3.0,
            q(&mut rng),
        );
        let pb = Pose::new(
            pa.translation + Vec3::new(rng.next(), rng.next(), rng.next()),
            q(&mut rng),
        );
        let (hit, trace) = contact_traced(&a, &pa, &b, &pb);
        assert_eq!(hit, contact(&a, &pa, &b, &pb), "traced and untraced differ");
        let Some(hit) = hit else { continue };
        if trace.epa_steps.is_empty() {
            continue;
        }
        traced += 1;
        let last = trace.epa_steps.last().unwrap();
        let distances: Vec<f32> = trace.epa_steps.iter().map(|s| s.distance).collect();
        check_distances(&distances, hit.depth, &format!("3D case {case}"));
        assert!(
            (last.normal - hit.normal).length() < 1e-5,
            "3D case {case}: last normal is not the contact's"
        );
        for step in &trace.epa_steps {
            assert!(step.closest < step.faces.len() && step.faces.iter().all(|f| f.len() == 3));
        }
    }
    assert!(traced > 100, "only {traced} cases ran EPA");
}

#[test]
fn epa_trace_ends_at_the_contact_and_never_comes_nearer_2d() {
    use tumble::d2::{contact, contact_traced, Pose, Shape};
    let mut rng = Lcg(5);
    let mut traced = 0;
    for case in 0..300 {
        let a = if case % 2 == 0 {
            Shape::cuboid(Vec2::new(0.3 + rng.next().abs(), 0.3 + rng.next().abs())).unwrap()
        } else {
            Shape::convex_polygon(
                &(0..8)
                    .map(|_| Vec2::new(rng.next(), rng.next()))
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        let b = Shape::cuboid(Vec2::new(0.2 + rng.next().abs(), 0.2 + rng.next().abs())).unwrap();
        let pa = Pose::new(Vec2::new(rng.next(), rng.next()) * 3.0, rng.next() * 3.0);
        let pb = Pose::new(
            pa.translation + Vec2::new(rng.next(), rng.next()),
            rng.next() * 3.0,
        );
        let (hit, trace) = contact_traced(&a, &pa, &b, &pb);
        assert_eq!(hit, contact(&a, &pa, &b, &pb), "traced and untraced differ");
        let Some(hit) = hit else { continue };
        if trace.epa_steps.is_empty() {
            continue;
        }
        traced += 1;
        let last = trace.epa_steps.last().unwrap();
        let distances: Vec<f32> = trace.epa_steps.iter().map(|s| s.distance).collect();
        check_distances(&distances, hit.depth, &format!("2D case {case}"));
        assert!(
            (last.normal - hit.normal).length() < 1e-5,
            "2D case {case}: last normal is not the contact's"
        );
        for step in &trace.epa_steps {
            assert!(step.closest < step.faces.len() && step.faces.iter().all(|f| f.len() == 2));
        }
    }
    assert!(traced > 100, "only {traced} cases ran EPA");
}
