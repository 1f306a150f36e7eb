//! Continuous collision against fixed and kinematic geometry (Box2D v3's
//! continuous pass): a body that moves far in a step is moved back to where
//! it first touches the level, so it lands on a wall or floor, never behind
//! it; the bodies joined to it by joints are moved back with it, so the
//! pass never undoes what the joints hold.
//!
//! 1. After the solve, an awake dynamic body is *fast* when the space it
//!    reaches in the step goes further than its share
//!    (`BodyDesc::fast_share`, default [`FAST_SHARE`]) of its thinnest
//!    collider's thickness: the speculative contacts may have missed
//!    something it passed. It reaches as far as its centre of mass moved,
//!    plus what its turn about that centre adds: its farthest point's arc
//!    (Box2D v3's rule), but never more than its spin reach
//!    (`BodyRecord::spin_reach`: its extent less the ball about its centre
//!    of mass one of its shapes holds, which it covers at every angle). A
//!    ball rolling turns without reaching anywhere new: a wheel is fast by
//!    its speed, not by its spin
//!    (`a_wheel_on_a_hinge_rolls_on_a_box_as_without_continuous_collision_*`
//!    in `tests/machines.rs`); a stick's ends reach far when it spins
//!    (`a_spinning_stick_never_passes_the_ground_*`).
//! 2. Each of its colliders sweeps from its pose at the step's start to its
//!    pose at the end (centre of mass in a line, turning steadily); the
//!    fixed and kinematic colliders in the swept box are its candidates.
//! 3. Each candidate's time of impact (`narrow_phase::toi`) with a target
//!    separation of the linear slop: the earliest, if any, is where the
//!    body stops (its velocity is kept: the next step's speculative
//!    contact meets the surface it now faces;
//!    `a_fast_ball_never_passes_a_thin_wall_*`). A candidate already within
//!    the target at the start (the floor a fast body slides on, the ground
//!    a spinning stick's end touches) has no first touch to find: there the
//!    body stops at the latest time its overlap with the candidate is no
//!    deeper than at the start plus the slop or its core's radius (below),
//!    whichever is more (bisection on EPA's depth), so a stick landing on
//!    one end cannot swing its other end through the ground
//!    (`a_spinning_stick_never_passes_the_ground_*`). Deeper by less than
//!    its core's radius, its core stays clear and the next step's contacts
//!    take the overlap back: a fast wheel rolling on the ground it touches
//!    goes on (Box2D v3 likewise skips a chain segment its centroid closes
//!    on by less than its core distance;
//!    `a_fast_wheel_on_a_hinge_rolls_over_hills_as_without_continuous_collision_3d`).
//!    The overlap
//!    is read where the sweep ends, and a body that goes right through a
//!    solid collider has none there: against a solid collider the body
//!    also stops where its core (a ball at its inner point, [`CORE_SHARE`]
//!    of its thickness in radius; Box2D v3's fallback to a circle at the
//!    centroid) comes within the target, or half its gap if nearer, and
//!    loses its centre's velocity into the collider
//!    (`thin_fast_bodies_never_get_their_centres_into_a_solid_box_*`).
//!    Against a surface at rest (mesh, heightfield, chain) the time of
//!    impact and overlap search run over the facets the sweep can reach
//!    (`narrow_phase::surface_sweep`), not the whole surface at every
//!    advance: a body landing on a terrain costs a few facet queries
//!    (`benches/RESULTS.md`, level geometry).
//! 4. Bullets (`BodyDesc::bullet`) go after the other fast bodies, swept
//!    also against every dynamic body where it ended the step and against
//!    other fast bullets along their own sweeps, so two bullets meeting
//!    head on stop where they touch (Box2D skips bullet pairs;
//!    `a_bullet_hits_the_first_box_it_meets_*`,
//!    `two_bullets_meeting_head_on_collide_*`).
//! 5. The bodies that stop (in step 3, then in step 4) take with them every
//!    dynamic body joined to them through awake joints: each such group
//!    stops at the earliest share of the step any of its bodies stops at,
//!    every body of it at that share of its own sweep from its start to
//!    where it is. The joints held at the start and after the solve, and
//!    hold between (to the chord of each body's arc): a wheel stopped
//!    alone would be torn off its axle by up to its step's motion, and
//!    the joint solver pulling it back next step throws the machine
//!    (`a_car_drives_over_a_bump_with_its_wheels_on_*`,
//!    `a_ragdoll_dropped_from_5_m_keeps_its_joints_*`). Box2D v3 moves
//!    each body alone. The groups are found (union-find over the solver's
//!    bodies) only in a step where a body stops and joints are awake.
//!
//! Each body reads only fixed geometry, its own sweep and its joints, and
//! the bodies are visited in solver order: the result does not depend on
//! threads. Guarded by `tests/continuous.rs` and `tests/machines.rs`.
//!
//! Limits: a kinematic collider is taken where it ends the step. A group
//! is held back as a whole, so a machine whose one part meets the level
//! loses the rest of that step's motion with it (the next step's contacts
//! go on from there). A body joined to a fixed or kinematic one is not
//! held with it, and joints are followed only between awake dynamic
//! bodies. A body's fast test reads the space it reaches, not what it
//! might meet: a wheel faster than half its thickness a step is swept,
//! and the overlap rule of step 3 may still hold it (its group with it)
//! back now and then (at 30 m/s a wheel travels 0.5-1 % less than with
//! continuous collision off).

use super::{collider_of, World};
use crate::body::{Body, BodyHandle, BodyKind};
use crate::dim::Dim;
use crate::math::{Pose, Vector};
use crate::pipeline::integrate::{BodyState, SolverBody};
use crate::pipeline::narrow_phase::surface_sweep::SurfaceSweep;
use crate::pipeline::narrow_phase::toi::{time_of_impact, Impact, Sweep};
use crate::pipeline::narrow_phase::{contact, distance, speculative_contact};
use crate::shape::{Aabb, Shape};
use slotmap::SecondaryMap;

/// A body is fast, unless its own share is set, when it reaches more than
/// this share of its thinnest collider's thickness beyond where it stood
/// in a step (step 1; Box2D v3's safety factor):
/// below it the speculative margin, which grows with the closing speed,
/// keeps the body out of anything it approaches.
pub(crate) const FAST_SHARE: f32 = 0.5;

/// Bisections of the overlap search (`deepening`): the step is cut to
/// 1/1024 of itself, under a millimetre for anything slower than 60 m/s.
const OVERLAP_BISECTIONS: usize = 10;

/// The radius of a shape's core (`core_impact`, and the overlap a body
/// touching a collider may gain in its sweep, step 3), as a share of its
/// thickness: Box2D v3's core is a quarter of the least distance from the
/// centroid to the surface, about half the thickness.
const CORE_SHARE: f32 = 0.125;

/// The share of its gap a core nearer than the target may close in a
/// step (`core_impact`).
const CORE_GAP_SHARE: f32 = 0.5;

/// The time-of-impact search's tolerance, as a share of the target
/// separation (Box2D's quarter of the linear slop).
const TOLERANCE_SHARE: f32 = 0.25;

impl<D: Dim> World<D> {
    /// Steps 1 to 5 (module docs) for the solved bodies `order` (their
    /// places in it `index`), whose poses at the step's start are `starts`
    /// (centres of mass and rotations) and whose motions over the step are
    /// `solved`, in the same order.
    pub(crate) fn continuous_pass(
        &mut self,
        order: &[BodyHandle],
        index: &SecondaryMap<BodyHandle, usize>,
        starts: &[SolverBody<D>],
        solved: &[D::BodyState],
    ) {
        let target = self.settings.linear_slop;
        let tolerance = TOLERANCE_SHARE * target;
        let mut fast: Vec<(BodyHandle, Pose<D>, Sweep<D>)> = Vec::new();
        let bodies = self.view();
        for ((&handle, start), solved) in order.iter().zip(starts).zip(solved) {
            let Some(Body { record, sim }) = bodies.get(handle) else {
                continue;
            };
            if sim.kind != BodyKind::Dynamic || record.sleeping {
                continue;
            }
            let allowed = record.fast_share * record.thinnest();
            let (extent, spin_reach) = (record.extent(), record.spin_reach());
            // Most bodies are slow: a bound from the solver's own record of
            // the step's motion first (the centre's displacement, the
            // turn's chord, which is at least 2/π of its angle).
            let (moved_centre, turn) = solved.motion();
            let chord = D::turn_chord(D::identity(), turn);
            let bound = moved_centre.length()
                + (chord * core::f32::consts::FRAC_PI_2 * extent).min(spin_reach);
            if bound <= allowed {
                continue;
            }
            let start_pose = start_pose(start, sim.local_center);
            let sweep = Sweep::between(&start_pose, &sim.pose, sim.local_center);
            let moved = (sweep.center[1] - sweep.center[0]).length()
                + (D::turn_angle(sweep.rotation[0], sweep.rotation[1]) * extent).min(spin_reach);
            if moved.is_nan() || moved <= allowed {
                continue;
            }
            fast.push((handle, start_pose, sweep));
        }
        if fast.is_empty() {
            return;
        }
        // Non-bullets first, against fixed and kinematic geometry; then
        // bullets, against that and every dynamic body where it ended,
        // other fast bullets along their sweeps (Box2D v3's order).
        for bullets in [false, true] {
            let mut stops = Vec::new();
            for (handle, start, _) in &fast {
                if self.bodies[*handle].bullet != bullets {
                    continue;
                }
                if let Some(stop) = self.first_impact(*handle, start, &fast, target, tolerance) {
                    stops.push((*handle, stop));
                }
            }
            let stops = self.joined_stops(stops, order, index);
            for (handle, Stop { at, core }) in stops {
                let Some(&i) = index.get(handle) else {
                    continue;
                };
                if let Some(body) = self.body_parts_mut(handle) {
                    // Along its sweep from its start to where it is now
                    // (where the solve left it, or where a bullet's group
                    // stopped it before).
                    let start = start_pose(&starts[i], body.sim.local_center);
                    let sweep = Sweep::between(&start, &body.sim.pose, body.sim.local_center);
                    body.sim.pose = sweep.pose_at(at);
                    if let Some(CoreStop {
                        normal,
                        other_velocity,
                    }) = core
                    {
                        let v = &mut body.sim.linear_velocity;
                        let approach = (*v - other_velocity).dot(normal);
                        if approach < 0.0 {
                            *v -= normal * approach;
                        }
                    }
                }
            }
        }
    }

    /// Step 5 (module docs): the bodies `stops` stop, each at its share of
    /// its sweep, with every dynamic body joined to one of them through
    /// awake joints (`order` and `index` being the solver's bodies and
    /// their places in it): each group at its earliest share. Groups are
    /// found only when a body stops and joints are awake.
    fn joined_stops(
        &self,
        mut stops: Vec<(BodyHandle, Stop<D>)>,
        order: &[BodyHandle],
        index: &SecondaryMap<BodyHandle, usize>,
    ) -> Vec<(BodyHandle, Stop<D>)> {
        if stops.is_empty() || self.awake_joints.is_empty() {
            return stops;
        }
        // Union-find over the solver's places, each group named by its
        // least place (the same groups whatever the joints' order).
        fn root(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        let mut parent: Vec<usize> = (0..order.len()).collect();
        let bodies = self.view();
        let place = |h: BodyHandle| {
            let body = bodies.get(h)?;
            let moving = body.sim.kind == BodyKind::Dynamic && !body.record.sleeping;
            moving.then(|| index.get(h).copied()).flatten()
        };
        for &handle in &self.awake_joints {
            let Some(joint) = self.joints.get(handle) else {
                continue;
            };
            if let (Some(a), Some(b)) = (place(joint.body_a), place(joint.body_b)) {
                let (a, b) = (root(&mut parent, a), root(&mut parent, b));
                parent[a.max(b)] = a.min(b);
            }
        }
        let mut earliest = vec![1.0f32; order.len()];
        let mut stopped = vec![false; order.len()];
        for (handle, stop) in &stops {
            if let Some(&i) = index.get(*handle) {
                let group = root(&mut parent, i);
                earliest[group] = earliest[group].min(stop.at);
                stopped[i] = true;
            }
        }
        for (handle, stop) in &mut stops {
            if let Some(&i) = index.get(*handle) {
                stop.at = earliest[root(&mut parent, i)];
            }
        }
        for (i, &handle) in order.iter().enumerate() {
            let at = earliest[root(&mut parent, i)];
            if !stopped[i] && at < 1.0 {
                stops.push((handle, Stop { at, core: None }));
            }
        }
        stops
    }

    /// The earliest time of impact of `body`'s colliders, sweeping from
    /// `start` to where the body is now, with the colliders in their swept
    /// boxes it is swept against (fixed and kinematic ones; for a bullet,
    /// dynamic ones too, a fast bullet along its sweep in `fast`); `None`
    /// if none is met within the step.
    fn first_impact(
        &self,
        handle: BodyHandle,
        start: &Pose<D>,
        fast: &[(BodyHandle, Pose<D>, Sweep<D>)],
        target: f32,
        tolerance: f32,
    ) -> Option<Stop<D>> {
        let bodies = self.view();
        let Body { record, sim } = bodies.get(handle)?;
        let end = sim.pose;
        let mut first: Option<Stop<D>> = None;
        for collider in record.colliders.iter().filter(|c| !c.sensor) {
            let (from, to) = (collider.world_pose(start), collider.world_pose(&end));
            let local_center = collider
                .local_pose
                .inverse_transform_point(sim.local_center);
            let own = Sweep::between(&from, &to, local_center);
            let swept: Aabb<D> = collider.shape.aabb(&from).union(&collider.shape.aabb(&to));
            let mut candidates = Vec::new();
            self.broad_phase.query(&swept, |key| {
                candidates.push(key);
                true
            });
            candidates.sort_unstable();
            for key in candidates {
                let Some(slot) = self.colliders.get(collider_of(key)) else {
                    continue;
                };
                let Some(other_body) = bodies.get(slot.body) else {
                    continue;
                };
                let dynamic = other_body.sim.kind == BodyKind::Dynamic;
                if slot.body == handle || (dynamic && !record.bullet) {
                    continue;
                }
                let Some(other) = other_body.colliders().get(slot.index) else {
                    continue;
                };
                if other.sensor || !collider.filter.admits(&other.filter) {
                    continue;
                }
                if self.unpaired(handle, slot.body) {
                    continue;
                }
                let pose = other.world_pose(&other_body.sim.pose);
                // A fast bullet is met along its own sweep; anything else
                // where it stands.
                let moving = fast
                    .iter()
                    .find(|(h, _, _)| *h == slot.body && other_body.record.bullet)
                    .map(|(_, other_start, _)| {
                        let from = other.world_pose(other_start);
                        let centre = other
                            .local_pose
                            .inverse_transform_point(other_body.sim.local_center);
                        Sweep::between(&from, &pose, centre)
                    });
                // A surface at rest is swept facet by facet, over the
                // facets the sweep can reach (`SurfaceSweep`): a body
                // landing on a terrain queries a few facets, not the whole
                // surface at every advance.
                let surface = match (other.shape.as_surface(), moving) {
                    (Some(surface), None) => Some(SurfaceSweep::new(
                        surface,
                        &pose,
                        &collider.shape,
                        &own,
                        target + tolerance,
                    )),
                    _ => None,
                };
                if surface.as_ref().is_some_and(SurfaceSweep::is_empty) {
                    continue;
                }
                let still = moving.unwrap_or_else(|| Sweep::between(&pose, &pose, D::Vector::ZERO));
                let impact = match &surface {
                    Some(surface) => surface.time_of_impact(target, tolerance),
                    None => time_of_impact(
                        &other.shape,
                        &still,
                        &collider.shape,
                        &own,
                        target,
                        tolerance,
                    ),
                };
                let stop = match impact {
                    // Already touching at the start (a fast body sliding
                    // on the floor, a spinning stick whose end is down):
                    // the contacts hold the shape, and only deeper overlap
                    // is kept out.
                    Impact::At(t) if t <= 0.0 => {
                        if moving.is_some() {
                            continue;
                        }
                        // Deeper by less than its core's radius, its core
                        // stays clear and the contacts take the overlap
                        // back (Box2D v3 skips a chain segment the centroid
                        // closes on by less than its core distance).
                        let slack = target.max(CORE_SHARE * collider.shape.thickness());
                        let deeper = match &surface {
                            Some(surface) => deepening(|t| surface.depth_at(t), slack),
                            None => deepening(
                                |t| {
                                    contact(&other.shape, &pose, &collider.shape, &own.pose_at(t))
                                        .map_or(0.0, |c| c.depth.max(0.0))
                                },
                                slack,
                            ),
                        }
                        .map(|at| Stop { at, core: None });
                        // A surface's depth is read behind its facets'
                        // planes, which a body cannot pass unseen; a solid
                        // collider's is not, and its core keeps the body
                        // from passing it.
                        let core = match &surface {
                            Some(_) => None,
                            None => core_impact(
                                &other.shape,
                                &still,
                                &collider.shape,
                                &own,
                                target,
                                tolerance,
                            ),
                        }
                        .map(|(at, normal)| Stop {
                            at,
                            core: Some(CoreStop {
                                normal,
                                other_velocity: other_body.sim.linear_velocity,
                            }),
                        });
                        match (deeper, core) {
                            (Some(a), Some(b)) if b.at < a.at => b,
                            (Some(a), _) => a,
                            (None, Some(b)) => b,
                            (None, None) => continue,
                        }
                    }
                    Impact::At(at) | Impact::Capped(at) => Stop { at, core: None },
                    Impact::Never => continue,
                };
                if first.as_ref().is_none_or(|f| stop.at < f.at) {
                    first = Some(stop);
                }
            }
        }
        first
    }
}

/// A body's pose at the step's start, from the solver's record of it
/// (centre of mass and rotation) and its centre of mass, local.
fn start_pose<D: Dim>(start: &SolverBody<D>, local_center: D::Vector) -> Pose<D> {
    Pose {
        translation: start.center - D::rotate(start.rotation, local_center),
        rotation: start.rotation,
    }
}

/// Where a fast body stops in its sweep.
struct Stop<D: Dim> {
    /// The share of the sweep.
    at: f32,
    /// Set when its core stopped it (`core_impact`).
    core: Option<CoreStop<D>>,
}

/// A body stopped by its core meeting a solid collider loses its centre's
/// velocity into the collider, as a contact at its core would take it: the
/// body's own contacts may not (a thin body spinning fast, its contact at
/// an end moving away from the collider while its centre moves in), and
/// a body stopped with its velocity kept would be stopped again every
/// step, pinned to the collider.
struct CoreStop<D: Dim> {
    /// Unit normal from the collider to the core, world.
    normal: D::Vector,
    /// The collider's body's velocity, m/s.
    other_velocity: D::Vector,
}

/// For a shape already touching a solid collider (not a surface) at the
/// start of its sweep, the first share of the sweep at which a ball at its
/// inner point, [`CORE_SHARE`] of its thickness in radius, comes within
/// `target` of it, if that ball is apart from it at the start (Box2D v3's
/// fallback to a small circle about the shape's centroid). Its overlap
/// alone (`deepening`) is read where the sweep ends, and a body that goes
/// right through the collider in the step has none there; its core cannot
/// go through unmet
/// (`fast_thin_bodies_stop_at_a_fixed_box_wall_as_at_a_mesh_wall`).
fn core_impact<D: Dim>(
    other: &Shape<D>,
    other_sweep: &Sweep<D>,
    shape: &Shape<D>,
    sweep: &Sweep<D>,
    target: f32,
    tolerance: f32,
) -> Option<(f32, D::Vector)> {
    let core = Shape::ball(CORE_SHARE * shape.thickness()).ok()?;
    let inner = shape.inner_point();
    let [from, to] = [0.0, 1.0].map(|t| {
        let pose = sweep.pose_at(t);
        Pose {
            translation: pose.transform_point(inner),
            rotation: pose.rotation,
        }
    });
    let core_sweep = Sweep::between(&from, &to, sweep.local_center - inner);
    // A core nearer than the target (stopped so a step before, its body
    // still driven in) stops at half its gap, so it never reaches the
    // collider, step after step.
    let gap = distance(other, &other_sweep.pose_at(0.0), &core, &from);
    let core_target = target.min(CORE_GAP_SHARE * gap);
    if core_target <= 0.0 {
        return None;
    }
    let core_tolerance = tolerance.min(TOLERANCE_SHARE * core_target);
    let t = match time_of_impact(
        other,
        other_sweep,
        &core,
        &core_sweep,
        core_target,
        core_tolerance,
    ) {
        Impact::At(t) | Impact::Capped(t) if t > 0.0 => t,
        _ => return None,
    };
    // The direction the core meets the collider in, from the collider.
    let reach = core_target + core_tolerance;
    let normal = speculative_contact(
        other,
        &other_sweep.pose_at(t),
        &core,
        &core_sweep.pose_at(t),
        2.0 * reach,
    )?
    .normal;
    Some((t, normal))
}

/// For a shape already touching fixed geometry at the start of its sweep,
/// its overlap with it at share `t` of the sweep being `depth(t)`: the
/// latest share of the sweep, found by bisection, at which its overlap is
/// no deeper than at the start plus `slack`; `None` when it never gets
/// that deep in the step.
fn deepening(depth: impl Fn(f32) -> f32, slack: f32) -> Option<f32> {
    let allowed = depth(0.0) + slack;
    if depth(1.0) <= allowed {
        return None;
    }
    let (mut low, mut high) = (0.0f32, 1.0f32);
    for _ in 0..OVERLAP_BISECTIONS {
        let mid = 0.5 * (low + high);
        if depth(mid) <= allowed {
            low = mid;
        } else {
            high = mid;
        }
    }
    (low > 0.0).then_some(low)
}
