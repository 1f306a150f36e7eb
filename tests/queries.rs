//! Scene queries agree with a brute-force scan of every body, and with
//! answers worked out by hand.

mod common;

use common::*;
use tumble::pipeline::narrow_phase::cast::{contains_point, ray_cast};
use tumble::pipeline::narrow_phase::contact;
use tumble::shape::{Aabb, Shape};
use tumble::{
    BodyDesc, BodyHandle, ColliderDesc, CollisionFilter, Pose, QueryFilter, Settings, World,
};

struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (self.0 >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }
}

fn random_scene<D: Scene>(rng: &mut Lcg) -> (World<D>, Vec<BodyHandle>) {
    let mut world = World::<D>::new(Settings::default());
    let mut handles = Vec::new();
    for i in 0..80 {
        let shape = match i % 3 {
            0 => D::cube(0.2 + 0.3 * rng.next().abs()),
            1 => Shape::ball(0.2 + 0.3 * rng.next().abs()).unwrap(),
            _ => Shape::capsule(0.3, 0.2).unwrap(),
        };
        let at = D::v(rng.next() * 10.0, rng.next() * 10.0);
        let desc = BodyDesc::fixed()
            .position(at)
            .rotation(D::tilt(rng.next() * 3.0));
        handles.push(world.add_body(desc, ColliderDesc::new(shape)).unwrap());
    }
    (world, handles)
}

fn queries_match_brute_force<D: Scene>() {
    let mut rng = Lcg(17);
    let (world, handles) = random_scene::<D>(&mut rng);
    let all = QueryFilter::default();
    let mut hits = 0;
    for _ in 0..200 {
        let origin = D::v(rng.next() * 12.0, rng.next() * 12.0);
        let direction = D::v(rng.next(), rng.next());
        let unit = direction * (1.0 / D::len(direction));
        let brute = handles
            .iter()
            .filter_map(|&h| {
                let b = world.body(h).unwrap();
                ray_cast(b.shape(), &b.pose(), origin, unit, 30.0).map(|c| (c.distance, h))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let found = world
            .cast_ray(origin, direction, 30.0, &all)
            .map(|h| (h.distance, h.body));
        assert_eq!(found, brute, "{}: ray from {origin:?}", D::NAME);
        hits += usize::from(found.is_some());

        let point = D::v(rng.next() * 10.0, rng.next() * 10.0);
        let brute: Vec<_> = handles
            .iter()
            .copied()
            .filter(|&h| {
                contains_point(
                    world.body(h).unwrap().shape(),
                    &world.body(h).unwrap().pose(),
                    point,
                )
            })
            .collect();
        assert_eq!(
            world.bodies_at_point(point, &all),
            brute,
            "{}: point {point:?}",
            D::NAME
        );

        let probe = Shape::<D>::ball(0.2 + rng.next().abs()).unwrap();
        let pose = Pose::<D>::new(D::v(rng.next() * 10.0, rng.next() * 10.0), D::tilt(0.0));
        let brute: Vec<_> = handles
            .iter()
            .copied()
            .filter(|&h| {
                contact(
                    world.body(h).unwrap().shape(),
                    &world.body(h).unwrap().pose(),
                    &probe,
                    &pose,
                )
                .is_some()
            })
            .collect();
        assert_eq!(
            world.bodies_overlapping(&probe, &pose, &all),
            brute,
            "{}: overlap at {pose:?}",
            D::NAME
        );

        let corner = D::v(rng.next() * 10.0, rng.next() * 10.0);
        let aabb = Aabb::<D>::new(corner, corner + D::v(2.0, 2.0));
        let brute: Vec<_> = handles
            .iter()
            .copied()
            .filter(|&h| {
                world
                    .body(h)
                    .unwrap()
                    .shape()
                    .aabb(&world.body(h).unwrap().pose())
                    .overlaps(&aabb)
            })
            .collect();
        assert_eq!(
            world.bodies_in_aabb(&aabb, &all),
            brute,
            "{}: box {aabb:?}",
            D::NAME
        );
    }
    assert!(hits > 40, "{}: only {hits} rays hit", D::NAME);
}

#[test]
fn queries_agree_with_brute_force_2d() {
    queries_match_brute_force::<tumble::D2>();
}

#[test]
fn queries_agree_with_brute_force_3d() {
    queries_match_brute_force::<tumble::D3>();
}

fn by_hand<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let ball = world
        .add_body(
            BodyDesc::fixed().position(D::v(3.0, 2.0)),
            ColliderDesc::new(Shape::ball(0.5).unwrap()),
        )
        .unwrap();
    let all = QueryFilter::default();
    let down = world
        .cast_ray(D::v(0.0, 5.0), D::v(0.0, -1.0), 100.0, &all)
        .expect("the ground is below");
    assert!(
        (down.distance - 5.0).abs() < 1e-4 && D::len(down.normal - D::v(0.0, 1.0)) < 1e-4,
        "{}: {down:?}",
        D::NAME
    );
    let at_ball = world
        .cast_ray(D::v(0.0, 2.0), D::v(1.0, 0.0), 100.0, &all)
        .expect("the ball is ahead");
    assert_eq!(at_ball.body, ball);
    assert!(
        (at_ball.distance - 2.5).abs() < 1e-4 && D::len(at_ball.normal - D::v(-1.0, 0.0)) < 1e-3,
        "{}: {at_ball:?}",
        D::NAME
    );
    assert!(
        world
            .cast_ray(D::v(0.0, 2.0), D::v(-1.0, 0.0), 100.0, &all)
            .is_none(),
        "nothing to the left"
    );
    let cube = D::cube(0.5);
    let drop = world
        .cast_shape(
            &cube,
            &Pose::new(D::v(-3.0, 4.0), D::tilt(0.0)),
            D::v(0.0, -1.0),
            10.0,
            &all,
        )
        .expect("the cube lands");
    assert!((drop.distance - 3.5).abs() < 1e-3, "{}: {drop:?}", D::NAME);
    let none = QueryFilter::default().groups(CollisionFilter {
        category: 2,
        mask: 2,
    });
    assert!(
        world
            .cast_ray(D::v(0.0, 5.0), D::v(0.0, -1.0), 100.0, &none)
            .is_none(),
        "the filter excludes everything"
    );
    assert!(world
        .cast_ray(D::v(f32::NAN, 5.0), D::v(0.0, -1.0), 100.0, &all)
        .is_none());
}

#[test]
fn casts_worked_out_by_hand_2d() {
    by_hand::<tumble::D2>();
}

#[test]
fn casts_worked_out_by_hand_3d() {
    by_hand::<tumble::D3>();
}

/// A player standing above a sensor above the ground: a query from the
/// player's centre meets the player, unless the filter leaves it out; then
/// the sensor, unless sensors are left out too; then the ground.
fn filters_leave_out_a_body_and_sensors<D: Scene>() {
    let mut world = World::<D>::new(Settings::default());
    add_ground::<D>(&mut world, 0.0);
    let ground = world.bodies().next().expect("the ground").0;
    let player = world
        .add_body(
            BodyDesc::dynamic().position(D::v(0.0, 2.0)),
            ColliderDesc::new(D::cube(0.5)),
        )
        .unwrap();
    let sensor = world
        .add_body(
            BodyDesc::fixed().position(D::v(0.0, 1.0)),
            ColliderDesc::new(D::cube(0.2)).sensor(true),
        )
        .unwrap();
    let centre = D::v(0.0, 2.0);
    let down = D::v(0.0, -1.0);
    let all = QueryFilter::default();
    let not_player = QueryFilter::default().excluding(player);
    let solid_not_player = not_player.without_sensors();

    let ray = |filter: &QueryFilter| {
        let hit = world.cast_ray(centre, down, 10.0, filter).expect("a hit");
        (hit.body, hit.distance)
    };
    assert_eq!(ray(&all), (player, 0.0), "{}: from inside", D::NAME);
    let (body, distance) = ray(&not_player);
    assert!(
        body == sensor && (distance - 0.8).abs() < 1e-4,
        "{}",
        D::NAME
    );
    let hit = world
        .cast_ray(centre, down, 10.0, &solid_not_player)
        .expect("the ground is below");
    assert!(
        hit.body == ground
            && (hit.distance - 2.0).abs() < 1e-4
            && D::len(hit.normal - D::v(0.0, 1.0)) < 1e-4,
        "{}: {hit:?}",
        D::NAME
    );
    let bodies = |hits: Vec<tumble::QueryHit<D>>| hits.iter().map(|h| h.body).collect::<Vec<_>>();
    assert_eq!(
        bodies(world.cast_ray_all(centre, down, 10.0, &all)),
        vec![player, sensor, ground]
    );
    assert_eq!(
        bodies(world.cast_ray_all(centre, down, 10.0, &not_player)),
        vec![sensor, ground]
    );
    assert_eq!(
        bodies(world.cast_ray_all(centre, down, 10.0, &solid_not_player)),
        vec![ground]
    );

    let probe = Shape::<D>::ball(0.1).unwrap();
    let at = Pose::<D>::new(centre, D::tilt(0.0));
    let cast = |filter: &QueryFilter| {
        let hit = world
            .cast_shape(&probe, &at, down, 10.0, filter)
            .expect("a hit");
        (hit.body, hit.distance)
    };
    assert_eq!(cast(&all), (player, 0.0), "{}", D::NAME);
    let (body, distance) = cast(&not_player);
    assert!(
        body == sensor && (distance - 0.7).abs() < 1e-4,
        "{}",
        D::NAME
    );
    let (body, distance) = cast(&solid_not_player);
    assert!(
        body == ground && (distance - 1.9).abs() < 1e-4,
        "{}",
        D::NAME
    );

    assert_eq!(world.bodies_at_point(centre, &all), vec![player]);
    assert!(world.bodies_at_point(centre, &not_player).is_empty());
    assert_eq!(world.bodies_at_point(D::v(0.0, 1.0), &all), vec![sensor]);
    assert!(world
        .bodies_at_point(D::v(0.0, 1.0), &all.without_sensors())
        .is_empty());

    let mut everything = vec![ground, player, sensor];
    everything.sort();
    let aabb = Aabb::<D>::new(D::v(-1.0, -1.0), D::v(1.0, 3.0));
    assert_eq!(world.bodies_in_aabb(&aabb, &all), everything);
    assert_eq!(world.bodies_in_aabb(&aabb, &solid_not_player), vec![ground]);
    let big = Shape::<D>::ball(2.0).unwrap();
    let middle = Pose::<D>::new(D::v(0.0, 1.0), D::tilt(0.0));
    assert_eq!(world.bodies_overlapping(&big, &middle, &all), everything);
    assert_eq!(
        world.bodies_overlapping(&big, &middle, &solid_not_player),
        vec![ground]
    );

    // Collision groups alone: a query in group 2 meets nothing here.
    let group_2 = CollisionFilter {
        category: 2,
        mask: 2,
    };
    assert_eq!(QueryFilter::from(group_2), all.groups(group_2));
    assert!(world
        .cast_ray(centre, down, 10.0, &group_2.into())
        .is_none());
}

#[test]
fn filters_leave_out_a_body_and_sensors_2d() {
    filters_leave_out_a_body_and_sensors::<tumble::D2>();
}

#[test]
fn filters_leave_out_a_body_and_sensors_3d() {
    filters_leave_out_a_body_and_sensors::<tumble::D3>();
}
