//! The stick CLI: drops the 2 m x 2 cm stick of `tests/continuous.rs`
//! (spinning at 50 rad/s about Z, falling at 20 m/s onto the ground from
//! 1.5-4 m, turned at random about Z) in 3D, and says how low its centre
//! and its ends got, and how fast it spun about its long axis.
//!
//! `cargo run --release -p benches --bin stick -- --seed 0x9e3779b97f4a7c15 --drops 100`
//! (the test's draws; any other seed gives independent ones), `--trace K`
//! prints drop K step by step.

use tumble::glam::{Quat, Vec3};
use tumble::shape::Shape;
use tumble::{BodyDesc, ColliderDesc, Settings, World, D3};

const DT: f32 = 1.0 / 60.0;

/// The tests' xorshift draws (`tests/common`'s `Draw`).
struct Draw(u64);

impl Draw {
    fn unit(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
    fn between(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }
}

/// One drop: the lowest centre, the lowest end, the fastest spin about the
/// long axis; each step printed if `trace`.
fn drop_stick(height: f32, angle: f32, sign: f32, trace: bool) -> (f32, f32, f32) {
    let mut world = World::<D3>::new(Settings {
        sleep: false,
        ..Settings::default()
    });
    world
        .add_body(
            BodyDesc::fixed().position(Vec3::new(0.0, -0.5, 0.0)),
            ColliderDesc::new(Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap()),
        )
        .unwrap();
    let stick = world
        .add_body(
            BodyDesc::dynamic()
                .position(Vec3::new(0.0, height, 0.0))
                .rotation(Quat::from_rotation_z(angle))
                .linear_velocity(Vec3::new(0.0, -20.0, 0.0))
                .angular_velocity(Vec3::Z * 50.0 * sign),
            ColliderDesc::new(Shape::cuboid(Vec3::new(1.0, 0.01, 0.01)).unwrap()),
        )
        .unwrap();
    let (mut centre, mut end, mut roll) = (f32::INFINITY, f32::INFINITY, 0.0f32);
    for step in 0..90 {
        world.step(DT);
        let body = world.body(stick).unwrap();
        let pose = body.pose();
        centre = centre.min(body.position().y);
        let ends = [-1.0, 1.0].map(|x| pose.transform_point(Vec3::new(x, 0.0, 0.0)).y);
        end = end.min(ends[0]).min(ends[1]);
        let axis = body.rotation() * Vec3::X;
        let w = body.angular_velocity();
        let along = w.dot(axis);
        roll = roll.max(along.abs());
        let up = body.rotation() * Vec3::Y;
        if trace {
            for pair in world.contact_pairs() {
                for m in pair.manifolds() {
                    println!("   normal {:?}", m.normal);
                    for q in m.points() {
                        println!(
                            "     local_b {:?} sep {:.4} pn {:.4} pt {:?}",
                            q.local_b, q.separation, q.normal_impulse, q.tangent_impulse
                        );
                    }
                }
            }
            let v = body.linear_velocity();
            println!(
                "step {step:2}: centre {:.4} ends {:.4} {:.4} v ({:.2},{:.2},{:.2}) w ({:.2},{:.2},{:.2}) roll {along:.1} axis ({:.3},{:.3},{:.3}) up ({:.3},{:.3},{:.3})",
                body.position().y, ends[0], ends[1], v.x, v.y, v.z, w.x, w.y, w.z, axis.x, axis.y, axis.z, up.x, up.y, up.z
            );
        }
    }
    (centre, end, roll)
}

fn main() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut drops = 100;
    let mut trace = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().expect("a value");
        match arg.as_str() {
            "--seed" => {
                seed = u64::from_str_radix(value.trim_start_matches("0x"), 16).expect("hex seed")
            }
            "--drops" => drops = value.parse().expect("a count"),
            "--trace" => trace = Some(value.parse::<usize>().expect("a drop")),
            _ => panic!("unknown option {arg}"),
        }
    }
    let mut draw = Draw(seed);
    let (mut centre, mut end) = (f32::INFINITY, f32::INFINITY);
    let (mut below, mut spun, mut lowest) = (0, 0, 0);
    for k in 0..drops {
        let height = draw.between(1.5, 4.0);
        let angle = draw.between(0.0, core::f32::consts::TAU);
        let sign = if draw.unit() < 0.5 { -1.0 } else { 1.0 };
        let show = trace == Some(k);
        let (c, e, r) = drop_stick(height, angle, sign, show);
        if c <= 0.0 || e <= -0.01 {
            below += 1;
            println!("drop {k}: height {height:.3} angle {angle:.3} sign {sign}: centre {c:.4} end {e:.4} roll {r:.1}");
        }
        if r > 60.0 {
            spun += 1;
        }
        if c < centre {
            lowest = k;
        }
        centre = centre.min(c);
        end = end.min(e);
    }
    println!(
        "{drops} drops (seed {seed:#x}): {below} below (centre <= 0 or end <= -1 cm), {spun} rolled above 60 rad/s; lowest centre {centre:.4} m (drop {lowest}), lowest end {end:.4} m"
    );
}
