//! Narrow phase: exact contact between two convex shapes.
//!
//! How [`contact`] works:
//! 1. Express B in A's local frame, so f32 keeps its precision far from the
//!    world origin (`far_from_the_origin_matches_near_it`).
//! 2. Run GJK ([`gjk`]) on the shapes' *cores* (a ball's centre, a capsule's
//!    segment, a polytope itself). When the cores are apart by more than the
//!    summed radii there is no contact; when they are apart by less, the
//!    closest core points and the normal of the closest feature give the
//!    contact exactly.
//! 3. When the cores overlap, EPA ([`epa_2d`], [`epa_3d`]) expands GJK's
//!    simplex to the closest face of the cores' Minkowski difference. That
//!    difference is always a polytope (possibly flat, as for two crossing
//!    segments, where EPA reports the flat set's normal), so EPA converges
//!    exactly and never has to chase a curved surface; concentric balls,
//!    whose difference is round, would need millions of faces
//!    (`nearly_concentric_balls_and_boxes`).
//! 4. Push each witness out by its shape's radius; map back to world space.
//!
//! Conventions: the normal points from A to B; moving B by `depth * normal`
//! separates the pair. `point_a` lies on A's surface, `point_b` on B's, and
//! `point_a - point_b = depth * normal`.
//!
//! Accuracy is guarded by `corpus_3d_meets_the_bar` and
//! `corpus_2d_meets_the_bar` (`tests/narrowphase_corpus.rs`: exact f64
//! answers for 5000 pairs) and EPA's progress by `tests/epa_trace.rs`.

mod box_faces;
pub mod cast;
mod dim;
pub(crate) mod edge_contact;
pub mod epa_2d;
pub mod epa_3d;
mod epa_start;
pub mod gjk;
pub(crate) mod perturb;
mod simplex;
pub mod simplex_2d;
pub mod simplex_3d;
pub mod surface;
pub(crate) mod surface_sweep;
pub mod toi;
pub mod trace;

pub(crate) use box_faces::MAX_CLIPPED;
pub use dim::NarrowPhaseDim;
pub use simplex::{Simplex, SupportPoint};
pub use trace::{EpaStep, Trace};

use crate::math::{Pose, Vector};
use crate::shape::{Shape, SupportMap};
use gjk::GjkResult;

/// Relative tolerance of the iterative algorithms, times the pair's size:
/// about eight times f32's epsilon (1.19e-7), so rounding at the pair's
/// scale does not keep GJK and EPA from meeting it, while their answers
/// stay within the corpus bar (depth p99 5e-5 of the size:
/// `tests/narrowphase_corpus.rs`).
const RELATIVE_TOLERANCE: f32 = 1e-6;

/// The contact between two overlapping shapes, in world space.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ShapeContact<D: NarrowPhaseDim> {
    /// Penetration depth in metres, >= 0: the length of the shortest
    /// translation of B that separates the pair.
    pub depth: f32,
    /// Unit normal from A towards B: moving B by `depth * normal` separates them.
    pub normal: D::Vector,
    /// Witness point on A's surface (the deepest point of A inside B).
    pub point_a: D::Vector,
    /// Witness point on B's surface; `point_a - point_b = depth * normal`.
    pub point_b: D::Vector,
}

/// Two shapes at their poses: a pair as the manifold and perturbation see it.
pub(crate) struct PairView<'a, D: NarrowPhaseDim> {
    pub shape_a: &'a Shape<D>,
    pub pose_a: Pose<D>,
    pub shape_b: &'a Shape<D>,
    pub pose_b: Pose<D>,
}

/// EPA's answer in the frame it ran in (A's local frame).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Penetration<V> {
    /// Distance from the origin to the closest face of the Minkowski difference A - B.
    pub depth: f32,
    /// That face's outward unit normal: from A towards B.
    pub normal: V,
    /// Witness on A.
    pub point_a: V,
    /// Witness on B.
    pub point_b: V,
    /// EPA iterations used.
    pub iterations: u32,
}

/// The support function of the Minkowski difference A - B, with both shapes'
/// own support points kept for the witnesses.
pub trait PairSupport<V> {
    /// The vertex of A - B farthest along `dir`.
    fn support_point(&self, dir: V) -> SupportPoint<V>;
}

/// Two support maps in A's local frame; B placed by `b_in_a`.
pub(crate) struct MinkowskiPair<'s, D: NarrowPhaseDim, A, B> {
    a: &'s A,
    b: &'s B,
    b_in_a: Pose<D>,
}

impl<'s, D: NarrowPhaseDim, A: SupportMap<D::Vector>, B: SupportMap<D::Vector>>
    MinkowskiPair<'s, D, A, B>
{
    pub(crate) fn new(a: &'s A, b: &'s B, b_in_a: Pose<D>) -> Self {
        Self { a, b, b_in_a }
    }
}

impl<D: NarrowPhaseDim, A: SupportMap<D::Vector>, B: SupportMap<D::Vector>> PairSupport<D::Vector>
    for MinkowskiPair<'_, D, A, B>
{
    #[inline]
    fn support_point(&self, dir: D::Vector) -> SupportPoint<D::Vector> {
        let a = self.a.support(dir);
        let b = self
            .b_in_a
            .transform_point(self.b.support(self.b_in_a.inverse_transform_vector(-dir)));
        SupportPoint { w: a - b, a, b }
    }
}

/// A shape seen without its radius: the core GJK runs on.
struct Core<'s, D: NarrowPhaseDim>(&'s Shape<D>);

impl<D: NarrowPhaseDim> SupportMap<D::Vector> for Core<'_, D> {
    #[inline]
    fn support(&self, dir: D::Vector) -> D::Vector {
        self.0.core_support(dir)
    }
}

/// The size that scales the pair's tolerances.
struct PairScale {
    /// Larger bounding radius of the two shapes.
    size: f32,
}

impl PairScale {
    fn new<D: NarrowPhaseDim>(a: &Shape<D>, b: &Shape<D>) -> Self {
        Self {
            size: a.bounding_radius().max(b.bounding_radius()),
        }
    }

    fn tolerance(&self) -> f32 {
        RELATIVE_TOLERANCE * self.size
    }
}

/// The contact between `a` at `pose_a` and `b` at `pose_b`, or `None` when
/// they do not overlap. See the module docs for conventions.
///
/// Poses holding NaN or infinities give `None`.
pub fn contact<D: NarrowPhaseDim>(
    a: &Shape<D>,
    pose_a: &Pose<D>,
    b: &Shape<D>,
    pose_b: &Pose<D>,
) -> Option<ShapeContact<D>> {
    speculative_contact(a, pose_a, b, pose_b, 0.0)
}

/// Like [`contact`], but also reports pairs up to `margin` metres apart, with
/// a negative depth (minus the distance): what a solver needs to stop bodies
/// before they meet.
pub fn speculative_contact<D: NarrowPhaseDim>(
    a: &Shape<D>,
    pose_a: &Pose<D>,
    b: &Shape<D>,
    pose_b: &Pose<D>,
    margin: f32,
) -> Option<ShapeContact<D>> {
    speculative_query(a, pose_a, b, pose_b, margin).ok()
}

/// [`speculative_contact`], or, for a pair farther apart than `margin`, a
/// lower bound on their distance in metres (0 for a pose that is not
/// finite): how far the pair may move before it can come within the margin.
pub(crate) fn speculative_query<D: NarrowPhaseDim>(
    a: &Shape<D>,
    pose_a: &Pose<D>,
    b: &Shape<D>,
    pose_b: &Pose<D>,
    margin: f32,
) -> Result<ShapeContact<D>, f32> {
    if !(pose_a.is_finite() && pose_b.is_finite()) {
        return Err(0.0);
    }
    let b_in_a = pose_a.inv_mul(pose_b);
    let local = match surface::query_with_surfaces(a, b, &b_in_a, margin) {
        Some(result) => result?,
        None => query_local(a, b, &b_in_a, margin, &mut ())?,
    };
    Ok(surface::to_world(local, pose_a))
}

/// [`contact`] with its workings: GJK's final simplex and every EPA
/// iteration, for inspectors. Minkowski-difference points (A − B) are turned
/// into world orientation; being differences, they carry no translation.
pub fn contact_traced<D: NarrowPhaseDim>(
    a: &Shape<D>,
    pose_a: &Pose<D>,
    b: &Shape<D>,
    pose_b: &Pose<D>,
) -> (Option<ShapeContact<D>>, Trace<D::Vector>) {
    let mut trace = Trace::default();
    if !(pose_a.is_finite() && pose_b.is_finite()) {
        return (None, trace);
    }
    let local = query_local(a, b, &pose_a.inv_mul(pose_b), 0.0, &mut trace).ok();
    let turn = |v: D::Vector| pose_a.transform_vector(v);
    trace.gjk_simplex.iter_mut().for_each(|v| *v = turn(*v));
    for step in &mut trace.epa_steps {
        step.vertices.iter_mut().for_each(|v| *v = turn(*v));
        step.normal = turn(step.normal);
        step.support = turn(step.support);
    }
    let contact = local.map(|p| ShapeContact {
        depth: p.depth,
        normal: turn(p.normal),
        point_a: pose_a.transform_point(p.point_a),
        point_b: pose_a.transform_point(p.point_b),
    });
    (contact, trace)
}

/// [`speculative_contact`] in A's local frame, with B placed by `b_in_a`,
/// reporting GJK's simplex and EPA's iterations to `observer`; for a pair
/// farther apart than `margin`, a lower bound on the distance between the
/// shapes.
fn query_local<D: NarrowPhaseDim, O: trace::Observer<D::Vector>>(
    a: &Shape<D>,
    b: &Shape<D>,
    b_in_a: &Pose<D>,
    margin: f32,
    observer: &mut O,
) -> Result<Penetration<D::Vector>, f32> {
    let scale = PairScale::new(a, b);
    let reach = a.radius() + b.radius() + margin;
    let (core_a, core_b) = (Core(a), Core(b));
    let cores = MinkowskiPair::new(&core_a, &core_b, *b_in_a);
    let radii = a.radius() + b.radius();
    let core = match gjk::gjk::<D, _>(&cores, -b_in_a.translation, reach, scale.tolerance()) {
        GjkResult::Apart { lower_bound } => return Err((lower_bound - radii).max(0.0)),
        GjkResult::Separated(closest) if closest.distance > reach => {
            return Err((closest.distance - radii).max(0.0))
        }
        GjkResult::Separated(closest) => Penetration {
            depth: -closest.distance,
            normal: closest.normal,
            point_a: closest.point_a,
            point_b: closest.point_b,
            iterations: 0,
        },
        GjkResult::Overlapping(simplex) => {
            if O::ENABLED {
                let points: Vec<D::Vector> = simplex.vertices().iter().map(|p| p.w).collect();
                observer.gjk_simplex(&points);
            }
            D::epa(&cores, &simplex, scale.tolerance(), observer)
        }
    };
    Ok(grow_by_radii(core, a.radius(), b.radius()))
}

/// The contact of the full shapes from that of their cores (`depth < 0` when
/// the cores are apart): each witness moves out by its shape's radius. The
/// depth is negative only when the shapes are apart (speculative contacts).
fn grow_by_radii<V: Vector>(core: Penetration<V>, radius_a: f32, radius_b: f32) -> Penetration<V> {
    Penetration {
        depth: core.depth + radius_a + radius_b,
        normal: core.normal,
        point_a: core.point_a + core.normal * radius_a,
        point_b: core.point_b - core.normal * radius_b,
        iterations: core.iterations,
    }
}

/// How far [`distance`] looks for the facets of a surface, metres: far
/// beyond any level, yet small enough that boxes grown by it stay finite.
const SURFACE_DISTANCE_REACH: f32 = 1e18;

/// The distance between `a` at `pose_a` and `b` at `pose_b` in metres; 0 when
/// they overlap, infinity when a pose holds NaN or infinities. Against a
/// surface, the distance to the nearest facet whose front faces the shape
/// (infinity when none does).
pub fn distance<D: NarrowPhaseDim>(
    a: &Shape<D>,
    pose_a: &Pose<D>,
    b: &Shape<D>,
    pose_b: &Pose<D>,
) -> f32 {
    if !(pose_a.is_finite() && pose_b.is_finite()) {
        return f32::INFINITY;
    }
    let b_in_a = pose_a.inv_mul(pose_b);
    if let Some(result) = surface::query_with_surfaces(a, b, &b_in_a, SURFACE_DISTANCE_REACH) {
        return result.map_or(f32::INFINITY, |p| (-p.depth).max(0.0));
    }
    let scale = PairScale::new(a, b);
    let (core_a, core_b) = (Core(a), Core(b));
    let cores = MinkowskiPair::new(&core_a, &core_b, b_in_a);
    match gjk::gjk::<D, _>(
        &cores,
        -b_in_a.translation,
        f32::INFINITY,
        scale.tolerance(),
    ) {
        GjkResult::Separated(closest) => (closest.distance - a.radius() - b.radius()).max(0.0),
        GjkResult::Overlapping(_) => 0.0,
        GjkResult::Apart { .. } => f32::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{D2, D3};
    use glam::{Quat, Vec2, Vec3};

    fn pose3(t: Vec3, q: Quat) -> Pose<D3> {
        Pose::new(t, q)
    }

    fn hit3(a: &Shape<D3>, pa: Pose<D3>, b: &Shape<D3>, pb: Pose<D3>) -> ShapeContact<D3> {
        let c = contact(a, &pa, b, &pb).expect("overlapping");
        assert_finite_contact(&c);
        c
    }

    fn assert_finite_contact<D: NarrowPhaseDim>(c: &ShapeContact<D>) {
        assert!(
            c.depth.is_finite()
                && c.normal.is_finite()
                && c.point_a.is_finite()
                && c.point_b.is_finite()
        );
        assert!((c.normal.length() - 1.0).abs() < 1e-5);
        let gap = (c.point_a - c.point_b - c.normal * c.depth).length();
        assert!(gap < 1e-4, "witnesses disagree with depth·normal by {gap}");
    }

    fn unit_box() -> Shape<D3> {
        Shape::cuboid(Vec3::splat(0.5)).unwrap()
    }

    #[test]
    fn box_resting_on_box_gives_face_normal() {
        let ground = Shape::<D3>::cuboid(Vec3::new(5.0, 0.5, 5.0)).unwrap();
        let c = hit3(
            &ground,
            Pose::identity(),
            &unit_box(),
            pose3(Vec3::new(0.3, 0.99, -0.2), Quat::IDENTITY),
        );
        assert!((c.depth - 0.01).abs() < 1e-5);
        assert!((c.normal - Vec3::Y).length() < 1e-5);
    }

    #[test]
    fn epa_grows_a_segment_through_the_origin() {
        // GJK can stop on a segment through the origin (two boxes on their centre line).
        let b = unit_box();
        let pair = MinkowskiPair::new(&b, &b, Pose::<D3>::identity());
        let mut simplex = Simplex::single(pair.support_point(Vec3::ONE));
        simplex.push(pair.support_point(-Vec3::ONE));
        let p = epa_3d::penetration(&pair, &simplex, 1e-6);
        assert!((p.depth - 1.0).abs() < 1e-5, "depth {}", p.depth);
        assert!(
            p.normal.abs().max_element() > 0.99999,
            "normal {:?} is a face normal",
            p.normal
        );
    }

    #[test]
    fn epa_grows_a_triangle_and_a_point() {
        let b = unit_box();
        let pair = MinkowskiPair::new(&b, &b, Pose::<D3>::identity());
        let mut triangle = Simplex::single(pair.support_point(Vec3::new(1.0, 1.0, 0.1)));
        triangle.push(pair.support_point(Vec3::new(-1.0, 0.1, 1.0)));
        triangle.push(pair.support_point(Vec3::new(0.1, -1.0, -1.0)));
        let p = epa_3d::penetration(&pair, &triangle, 1e-6);
        assert!((p.depth - 1.0).abs() < 1e-5);
        // Touching at a vertex: the only point is the origin.
        let offset = pose3(Vec3::ONE, Quat::IDENTITY);
        let touching = MinkowskiPair::new(&b, &b, offset);
        let corner = touching.support_point(Vec3::ONE);
        assert!(corner.w.length() < 1e-6);
        let p = epa_3d::penetration(&touching, &Simplex::single(corner), 1e-6);
        assert!(p.depth < 1e-5 && p.normal.is_finite());
    }

    #[test]
    fn nearly_aligned_cubes_give_the_face_normal_and_depth() {
        // Rotations of 1e-7 rad leave GJK on a segment through the origin and
        // a sliver face with a noisy normal stops EPA early: the polytope's
        // closest face (depth 0 along a diagonal) is then only a lower bound,
        // and `best_separating` must still find the face normal and depth.
        let a = pose3(
            Vec3::new(19.0, 1.506_499_2, 11.0),
            Quat::from_xyzw(1.111_161_5e-7, -2.861_492_2e-15, 1.161_123_8e-7, 1.0),
        );
        let b = pose3(
            Vec3::new(19.0, 2.498_966_5, 11.0),
            Quat::from_xyzw(-1.508_278_9e-7, -1.290_315_7e-14, -1.320_565_7e-7, 1.0),
        );
        let c = hit3(&unit_box(), a, &unit_box(), b);
        assert!(
            (c.normal - Vec3::Y).length() < 1e-4,
            "normal {:?}",
            c.normal
        );
        let overlap = 1.0 - (2.498_966_5 - 1.506_499_2);
        assert!((c.depth - overlap).abs() < 1e-4, "depth {}", c.depth);
        let across = (c.point_a - a.translation).reject_from(Vec3::Y);
        assert!(
            across.abs().max_element() <= 0.5 + 1e-4,
            "point {:?}",
            c.point_a
        );
    }

    #[test]
    fn balls_on_their_centre_line_keep_the_normal_on_the_line() {
        let ball = Shape::<D3>::ball(1.0).unwrap();
        let c = hit3(
            &ball,
            Pose::identity(),
            &ball,
            pose3(Vec3::new(0.0, 0.0, 1.5), Quat::IDENTITY),
        );
        assert!((c.depth - 0.5).abs() < 1e-6);
        assert!((c.normal - Vec3::Z).length() < 1e-6);
        let c = hit3(
            &unit_box(),
            Pose::identity(),
            &unit_box(),
            pose3(Vec3::new(0.0, 0.0, 0.75), Quat::IDENTITY),
        );
        assert!((c.depth - 0.25).abs() < 1e-6);
        assert!((c.normal - Vec3::Z).length() < 1e-6);
    }

    #[test]
    fn shapes_against_their_own_copy() {
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        let p = pose3(Vec3::new(1.0, 2.0, 3.0), q);
        let cuboid = Shape::<D3>::cuboid(Vec3::new(0.25, 0.8, 0.7)).unwrap();
        assert!((hit3(&cuboid, p, &cuboid, p).depth - 0.5).abs() < 1e-5);
        let ball = Shape::<D3>::ball(0.8).unwrap();
        assert!((hit3(&ball, p, &ball, p).depth - 1.6).abs() < 1e-5);
        let capsule = Shape::<D3>::capsule(0.5, 0.3).unwrap();
        let c = hit3(&capsule, p, &capsule, p);
        assert!((c.depth - 0.6).abs() < 1e-5);
        assert!(
            c.normal.dot(q * Vec3::Y).abs() < 1e-4,
            "normal across the axis"
        );
        let hull = Shape::<D3>::convex_hull(&[
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        ])
        .unwrap();
        let c = hit3(&hull, p, &hull, p);
        assert!(c.depth > 0.0 && c.depth < 1.0);
    }

    #[test]
    fn nearly_concentric_balls_and_boxes() {
        let offset = Vec3::new(-2.4e-5, -6.3e-5, 2.4e-5);
        let ball = Shape::<D3>::ball(0.875).unwrap();
        let c = hit3(
            &ball,
            Pose::identity(),
            &ball,
            pose3(offset, Quat::IDENTITY),
        );
        assert!((c.depth - (1.75 - offset.length())).abs() < 1e-5);
        let cuboid = Shape::<D3>::cuboid(Vec3::new(0.25, 0.8, 0.7)).unwrap();
        let q = Quat::from_rotation_y(0.4);
        let c = hit3(&cuboid, pose3(Vec3::ZERO, q), &cuboid, pose3(q * offset, q));
        assert!(
            (c.depth - (0.5 - offset.x.abs())).abs() < 1e-5,
            "depth {}",
            c.depth
        );
    }

    #[test]
    fn thin_boxes() {
        let plate = Shape::<D3>::cuboid(Vec3::new(1.0, 0.001, 1.0)).unwrap();
        let c = hit3(
            &plate,
            Pose::identity(),
            &plate,
            pose3(Vec3::new(0.3, 0.0015, 0.2), Quat::from_rotation_y(0.3)),
        );
        assert!((c.depth - 0.0005).abs() < 1e-6);
        assert!(c.normal.y > 0.99999);
    }

    #[test]
    fn size_ratio_of_a_thousand() {
        let big = Shape::<D3>::cuboid(Vec3::splat(500.0)).unwrap();
        let small = Shape::<D3>::cuboid(Vec3::splat(0.5)).unwrap();
        let c = hit3(
            &big,
            Pose::identity(),
            &small,
            pose3(Vec3::new(120.0, 500.3, -40.0), Quat::IDENTITY),
        );
        assert!((c.depth - 0.2).abs() < 1e-4, "depth {}", c.depth);
        assert!((c.normal - Vec3::Y).length() < 1e-5);
    }

    #[test]
    fn far_from_the_origin_matches_near_it() {
        let q = Quat::from_rotation_z(0.2);
        let near = hit3(
            &unit_box(),
            Pose::identity(),
            &unit_box(),
            pose3(Vec3::new(0.2, 0.9, 0.1), q),
        );
        let far_origin = Vec3::new(1000.0, -1000.0, 500.0);
        let far = hit3(
            &unit_box(),
            pose3(far_origin, Quat::IDENTITY),
            &unit_box(),
            pose3(far_origin + Vec3::new(0.2, 0.9, 0.1), q),
        );
        assert!((near.depth - far.depth).abs() < 1e-4);
        assert!((near.normal - far.normal).length() < 1e-4);
    }

    #[test]
    fn nearly_coplanar_hull_faces() {
        let mut points = vec![];
        for i in 0..6 {
            for j in 0..6 {
                let (x, z) = (i as f32 / 5.0 - 0.5, j as f32 / 5.0 - 0.5);
                points.push(Vec3::new(x, 0.5 + 1e-6 * libm::sinf(x * 7.0 + z * 3.0), z));
                points.push(Vec3::new(x, -0.5, z));
            }
        }
        let hull = Shape::<D3>::convex_hull(&points).unwrap();
        let c = hit3(
            &hull,
            Pose::identity(),
            &unit_box(),
            pose3(Vec3::new(0.1, 0.98, 0.05), Quat::from_rotation_y(0.2)),
        );
        assert!((c.depth - 0.02).abs() < 1e-5);
        assert!(c.normal.y > 0.99999);
    }

    #[test]
    fn tilted_box_on_a_wide_ground() {
        // Long thin Minkowski features (a 40 m ground against a 1 m box):
        // GJK must not stall on an edge and call the pair apart.
        for half_width in [20.0, 100.0] {
            let ground = Shape::<D3>::cuboid(Vec3::new(half_width, 0.5, half_width)).unwrap();
            let ground_pose = pose3(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY);
            for axis in [
                Vec3::new(1.0, 0.0, 1.0),
                Vec3::new(1.0, 0.0, -1.0),
                Vec3::new(-1.0, 0.0, 1.0),
                Vec3::new(-1.0, 0.0, -1.0),
            ] {
                let tilt = Quat::from_axis_angle(axis.normalize(), 0.023);
                let c = hit3(
                    &ground,
                    ground_pose,
                    &unit_box(),
                    pose3(Vec3::new(0.0, 0.5, 0.0), tilt),
                );
                assert!(c.depth > 0.01, "depth {} for tilt about {axis:?}", c.depth);
                assert!((c.normal - Vec3::Y).length() < 1e-4);
            }
        }
    }

    #[test]
    fn cube_pressed_into_an_aligned_cube() {
        // A cube straight above another, pressed in: GJK's simplex can end
        // as a segment through the origin, so EPA starts with the origin on
        // an edge of its tetrahedron and a new face may be closer than the
        // one it replaces: EPA must expand on past it (`Polytope::expand`),
        // since stopping there answers a diagonal normal.
        let rotation_a = Quat::from_xyzw(7.138797e-8, 4.4425533e-14, 6.0369466e-8, 1.0).normalize();
        let rotation_b =
            Quat::from_xyzw(-2.2118087e-7, 1.739566e-14, -2.2475737e-7, 1.0).normalize();
        for (x, z) in [(7.0, -11.0), (0.0, 0.0), (-19.0, 3.0)] {
            for depth in [0.002, 0.0199, 0.05, 0.2] {
                let a = pose3(Vec3::new(x, 0.5, z), rotation_a);
                let b = pose3(Vec3::new(x, 1.5 - depth, z), rotation_b);
                let c = hit3(&unit_box(), a, &unit_box(), b);
                assert!(
                    (c.normal - Vec3::Y).length() < 1e-4,
                    "normal {:?} at ({x}, {z}), depth {depth}",
                    c.normal
                );
                assert!(
                    (c.depth - depth).abs() < 1e-4,
                    "depth {} for {depth}",
                    c.depth
                );
            }
        }
    }

    #[test]
    fn epa_at_its_cap_returns_a_finite_lower_bound() {
        // A negative tolerance can never be met: EPA runs to its cap or until
        // the polytope cannot grow, and must still answer.
        let hull = Shape::<D3>::convex_hull(
            &(0..200)
                .map(|i| {
                    let t = i as f32 * 2.399_963;
                    let y = 1.0 - 2.0 * (i as f32 + 0.5) / 200.0;
                    let r = (1.0 - y * y).sqrt();
                    Vec3::new(r * libm::cosf(t), y, r * libm::sinf(t))
                })
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let pair = MinkowskiPair::new(
            &hull,
            &hull,
            pose3(Vec3::new(0.01, 0.0, 0.0), Quat::IDENTITY),
        );
        let GjkResult::Overlapping(simplex) = gjk::gjk::<D3, _>(&pair, Vec3::X, 0.0, 1e-6) else {
            panic!("overlapping")
        };
        let p = epa_3d::penetration(&pair, &simplex, -1.0);
        assert!(p.depth.is_finite() && p.normal.is_finite() && p.point_a.is_finite());
        assert!(p.depth <= 2.0 && p.iterations <= epa_3d::MAX_ITERATIONS);
    }

    #[test]
    fn bad_poses_give_no_contact_and_no_nan() {
        let b = unit_box();
        assert!(contact(
            &b,
            &Pose::identity(),
            &b,
            &pose3(Vec3::new(f32::NAN, 0.0, 0.0), Quat::IDENTITY)
        )
        .is_none());
        assert_eq!(
            distance(
                &b,
                &Pose::identity(),
                &b,
                &pose3(Vec3::splat(f32::INFINITY), Quat::IDENTITY)
            ),
            f32::INFINITY
        );
        let huge = pose3(Vec3::splat(1e30), Quat::IDENTITY);
        if let Some(c) = contact(&b, &huge, &b, &huge) {
            assert!(c.depth.is_finite() && c.normal.is_finite());
        }
    }

    #[test]
    fn distance_between_separated_shapes() {
        let d = distance(
            &unit_box(),
            &Pose::identity(),
            &Shape::ball(0.5).unwrap(),
            &pose3(Vec3::new(2.0, 0.0, 0.0), Quat::IDENTITY),
        );
        assert!((d - 1.0).abs() < 1e-6);
        let c = Shape::<D3>::capsule(0.5, 0.25).unwrap();
        let d = distance(
            &c,
            &Pose::identity(),
            &c,
            &pose3(Vec3::new(1.5, 0.3, 0.0), Quat::IDENTITY),
        );
        assert!((d - 1.0).abs() < 1e-6);
    }

    fn hit2(a: &Shape<D2>, pa: Pose<D2>, b: &Shape<D2>, pb: Pose<D2>) -> ShapeContact<D2> {
        let c = contact(a, &pa, b, &pb).expect("overlapping");
        assert_finite_contact(&c);
        c
    }

    #[test]
    fn two_d_box_pressed_into_an_aligned_box() {
        // The twin of `cube_pressed_into_an_aligned_cube`.
        let b = Shape::<D2>::cuboid(Vec2::splat(0.5)).unwrap();
        for x in [7.0, 0.0, -19.0] {
            for depth in [0.002, 0.0199, 0.05, 0.2] {
                let pa = Pose::new(Vec2::new(x, 0.499_974_4), 1.5e-7);
                let pb = Pose::new(Vec2::new(x, 1.499_974_4 - depth), -2.2e-7);
                let c = hit2(&b, pa, &b, pb);
                assert!(
                    (c.normal - Vec2::Y).length() < 1e-4,
                    "{:?} at {x}, {depth}",
                    c.normal
                );
                assert!(
                    (c.depth - depth).abs() < 1e-4,
                    "depth {} for {depth}",
                    c.depth
                );
            }
        }
    }

    #[test]
    fn two_d_box_resting_and_touching() {
        let ground = Shape::<D2>::cuboid(Vec2::new(5.0, 0.5)).unwrap();
        let b = Shape::<D2>::cuboid(Vec2::splat(0.5)).unwrap();
        let c = hit2(
            &ground,
            Pose::identity(),
            &b,
            Pose::new(Vec2::new(0.3, 0.99), 0.0),
        );
        assert!((c.depth - 0.01).abs() < 1e-5);
        assert!((c.normal - Vec2::Y).length() < 1e-5);
        // Exactly touching: either no contact or a zero-depth one.
        if let Some(c) = contact(
            &ground,
            &Pose::identity(),
            &b,
            &Pose::new(Vec2::new(0.0, 1.0), 0.0),
        ) {
            assert!(c.depth < 1e-5);
        }
    }

    #[test]
    fn two_d_epa_grows_a_segment_through_the_origin() {
        let b = Shape::<D2>::cuboid(Vec2::new(0.5, 0.25)).unwrap();
        let pair = MinkowskiPair::new(&b, &b, Pose::<D2>::identity());
        let mut simplex = Simplex::single(pair.support_point(Vec2::ONE));
        simplex.push(pair.support_point(-Vec2::ONE));
        let p = epa_2d::penetration(&pair, &simplex, 1e-6);
        assert!((p.depth - 0.5).abs() < 1e-6);
        assert!(p.normal.y.abs() > 0.99999);
    }

    #[test]
    fn two_d_own_copy_and_concentric() {
        let p = Pose::<D2>::new(Vec2::new(3.0, -1.0), 0.7);
        let disc = Shape::<D2>::ball(0.4).unwrap();
        assert!((hit2(&disc, p, &disc, p).depth - 0.8).abs() < 1e-5);
        let capsule = Shape::<D2>::capsule(0.5, 0.2).unwrap();
        assert!((hit2(&capsule, p, &capsule, p).depth - 0.4).abs() < 1e-5);
        let polygon = Shape::<D2>::convex_polygon(&[
            Vec2::new(-1.0, -0.5),
            Vec2::new(1.0, -0.5),
            Vec2::new(0.0, 0.5),
        ])
        .unwrap();
        let c = hit2(&polygon, p, &polygon, p);
        assert!(c.depth > 0.0);
        // Far from the origin and thin.
        let plate = Shape::<D2>::cuboid(Vec2::new(1.0, 0.001)).unwrap();
        let far = Vec2::new(1000.0, -1000.0);
        let c = hit2(
            &plate,
            Pose::new(far, 0.0),
            &plate,
            Pose::new(far + Vec2::new(0.3, 0.0015), 0.0),
        );
        assert!((c.depth - 0.0005).abs() < 1e-4);
    }
}
