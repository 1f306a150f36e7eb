//! Pairs with a surface: a convex collider against a mesh, heightfield or
//! chain keeps one manifold per normal cluster of the facets it meets on
//! their face, and one per facet whose contact a query decides
//! ([`FacetManifolds`]), and gives the solver one input per normal: the
//! manifolds whose normals agree are one input, as a convex pair's
//! manifold is (Box3D's mesh clusters).
//!
//! 1. The narrow phase updates the pair's manifolds and takes their inputs
//!    into the pair (`ContactPair::update_surface`), while the pair is in
//!    the cache; the pair's own slot among the solver's inputs stays
//!    empty. A manifold on a seam with another collider is turned after
//!    it, and the pair's inputs are taken again (`world::seams`).
//! 2. Taking them ([`SurfaceContacts::take_inputs`]), the facets'
//!    manifolds in facet order and then the clusters', each manifold with
//!    points joins the first input whose first normal is within
//!    [`CLUSTER_COSINE`] of its own, or starts one
//!    (`facets_with_one_normal_are_one_input`,
//!    `facets_bent_sharply_are_one_input_each`).
//! 3. An input's normal is its manifolds' normals summed, each weighted by
//!    its points, and made unit: a body in a valley or on a ridge is pushed
//!    along the mean, not along whichever manifold comes first.
//! 4. Points two manifolds share (within the merging radius: a corner on
//!    a queried facet's edge and in a cluster, a ridge two facets query)
//!    are one, the deeper; an input of more points than a manifold holds
//!    keeps those the manifold's reduction would keep
//!    (`manifold::spread_choice`). Each input point remembers its manifold
//!    and its place there.
//! 5. Before the solve, the awake surface pairs' inputs follow every other
//!    input, pair by pair in the awake pairs' order, each pair noting
//!    where its own start (`World::append_facet_inputs`), so the solver's
//!    order, and so its results, never depend on threads.
//! 6. After the solve, each pair stores its inputs' impulses back into the
//!    manifolds' points they came from (`SurfaceContacts::store`); a point
//!    an input left out keeps the impulses it had, and pushed nothing.
//!
//! Limits: within an input, and within a cluster, every point is pushed
//! along the one normal, up to [`CLUSTER_COSINE`]'s angle from its facet's
//! own, and keeps the separation measured along its manifold's normal.

use super::{ContactPair, World};
use crate::collider::Collider;
use crate::dim::Dim;
use crate::math::{Pose, Vector};
use crate::pipeline::facet_manifolds::{FacetBuffers, FacetManifolds, Side};
use crate::pipeline::manifold::{spread_choice, ManifoldPoint, ManifoldTuning, LEVEL_SHARE};
use crate::pipeline::solver::{ContactSolver, ManifoldInput, PushTally};

/// How close (cosine) a facet manifold's normal must be to a cluster's
/// first to join it: Box3D's mesh clustering threshold, 5 degrees. Gently
/// bent terrain (a few degrees from cell to cell) then gives a resting body
/// one input, as flat ground does; a sharper bend keeps its own.
const CLUSTER_COSINE: f32 = 0.996;

/// Where an input's point came from.
#[derive(Copy, Clone, Debug, Default)]
struct Source {
    /// The manifold's place among the facets' manifolds.
    manifold: u32,
    /// The point's place in it.
    point: u32,
}

/// A surface pair's manifolds and their solver inputs.
#[derive(Clone, Debug, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub(crate) struct SurfaceContacts<D: Dim> {
    pub(crate) manifolds: FacetManifolds<D>,
    /// This step's inputs (read again only to be handed to the solver,
    /// `World::append_facet_inputs`).
    #[cfg_attr(feature = "serde", serde(skip))]
    inputs: Vec<ManifoldInput<D>>,
    /// Where each input came from, input by input, the first one here
    /// and the others in `more_taken`: what `store` reads. Most pairs make
    /// one input from one manifold, and `store` then reads nothing of the
    /// pair beyond this struct and that manifold (each other allocation
    /// of the pair is a cache miss there, after the solve: `store` was
    /// 0.2 ms of a 3 ms terrain step, `benches/RESULTS.md`, session 24).
    #[cfg_attr(feature = "serde", serde(skip))]
    first_taken: Taken,
    #[cfg_attr(feature = "serde", serde(skip))]
    more_taken: Vec<Taken>,
    /// The points' sources of the inputs gathered from their manifolds
    /// (not [`Taken::alone`]), input by input.
    #[cfg_attr(feature = "serde", serde(skip))]
    sources: Vec<Source>,
    /// Each manifold's cluster, or [`NO_CLUSTER`], from `take_inputs` to
    /// `store`; filled only when a cluster has more than one manifold
    /// (the only ones `Taken::members` reads it for).
    #[cfg_attr(feature = "serde", serde(skip))]
    member_of: Vec<u32>,
    /// Where this pair's inputs start among the solver's.
    #[cfg_attr(feature = "serde", serde(skip))]
    first_input: usize,
}

impl<D: Dim> SurfaceContacts<D> {
    /// The manifolds alone, for the world's rollback state: the inputs
    /// are taken anew in the step that uses them.
    pub(crate) fn saved(&self) -> Self {
        Self {
            manifolds: self.manifolds.kept(),
            ..Self::default()
        }
    }

    /// Takes the manifolds of `saved`, in place (its memory kept).
    pub(crate) fn restore(&mut self, saved: &Self) {
        self.manifolds.restore(&saved.manifolds);
        self.inputs.clear();
    }

    /// Bytes of the manifolds.
    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.manifolds.bytes()
    }

    /// Contact points of all the facets' manifolds.
    pub(crate) fn point_count(&self) -> usize {
        self.manifolds.point_count()
    }

    /// Forgets every manifold (the pair ended).
    pub(crate) fn clear(&mut self) {
        self.manifolds.clear();
        self.inputs.clear();
    }

    /// Steps 2 to 4's inputs, `input` making each from a
    /// normal and points; `merge` is the pair's merging radius, metres
    /// (`ManifoldTuning::merge`), which the reduction's level is a share of.
    pub(crate) fn take_inputs(
        &mut self,
        merge: f32,
        buffers: &mut InputBuffers<D>,
        input: impl Fn(D::Vector, &[ManifoldPoint<D::Vector>]) -> Option<ManifoldInput<D>>,
    ) {
        self.inputs.clear();
        self.sources.clear();
        self.more_taken.clear();
        let InputBuffers {
            clusters,
            candidates,
            world,
            member_of,
        } = buffers;
        // a, b: clusters by normal, in the manifolds' order.
        clusters.clear();
        member_of.clear();
        for (k, manifold) in self.manifolds.manifolds().enumerate() {
            let count = manifold.points().len();
            if count == 0 {
                member_of.push(NO_CLUSTER);
                continue;
            }
            let normal = manifold.normal;
            let weighted = normal * count as f32;
            match clusters
                .iter()
                .position(|c| c.first.dot(normal) > CLUSTER_COSINE)
            {
                Some(c) => {
                    clusters[c].sum += weighted;
                    clusters[c].members += 1;
                    member_of.push(c as u32);
                }
                None => {
                    member_of.push(clusters.len() as u32);
                    clusters.push(Cluster {
                        first: normal,
                        sum: weighted,
                        first_member: k as u32,
                        members: 1,
                    });
                }
            }
        }
        self.member_of.clear();
        if clusters.iter().any(|c| c.members > 1) {
            self.member_of.extend_from_slice(member_of);
        }
        // c, d: each cluster's points, reduced, as one input.
        for (c, cluster) in clusters.iter().enumerate() {
            let mut taken = Taken {
                cluster: c as u32,
                first_source: self.sources.len() as u32,
                first_member: cluster.first_member,
                members: cluster.members,
                len: 0,
            };
            let length = cluster.sum.length();
            // Members within 5 degrees of one another never cancel out.
            let normal = if length > 0.0 {
                cluster.sum * (1.0 / length)
            } else {
                cluster.first
            };
            // A cluster of one manifold (97% of `terrain_stress_3d`'s) no
            // two of whose points are one is its points as they are: the
            // input the gathering below would make, without copying them
            // (the pose hashes of `terrain_stress_3d` and `terrain_3d`
            // guard it).
            let alone = match taken.members {
                1 => self
                    .manifolds
                    .manifold(taken.first_member as usize)
                    .filter(|m| all_apart(m.points(), merge)),
                _ => None,
            };
            let made = match alone {
                Some(manifold) => {
                    // Its points are its sources, in order: none kept.
                    taken.first_source = ALONE;
                    input(normal, manifold.points())
                }
                None => {
                    candidates.clear();
                    for k in taken.members(member_of) {
                        let Some(manifold) = self.manifolds.manifold(k) else {
                            continue;
                        };
                        for (j, p) in manifold.points().iter().enumerate() {
                            let source = Source {
                                manifold: k as u32,
                                point: j as u32,
                            };
                            // Where the solver applies it, relative to A's
                            // origin (one frame for all the pair's points).
                            // A point two facets share (a corner on their
                            // common edge, a contact on a ridge both query)
                            // is one point: the deeper of the two.
                            let same = candidates.iter().position(|(_, q)| same_point(q, p, merge));
                            match same {
                                Some(i) if p.separation < candidates[i].1.separation => {
                                    candidates[i] = (source, *p);
                                }
                                Some(_) => {}
                                None => candidates.push((source, *p)),
                            }
                        }
                    }
                    let (chosen, count) = if candidates.len() > D::MAX_MANIFOLD_POINTS {
                        world.clear();
                        world.extend(candidates.iter().map(|(_, p)| p.lever_a));
                        let separation = |i: usize| candidates[i].1.separation;
                        spread_choice::<D>(world, separation, LEVEL_SHARE * merge)
                    } else {
                        let mut all = D::PerPoint::<usize>::default();
                        for (slot, i) in all.as_mut().iter_mut().zip(0..candidates.len()) {
                            *slot = i;
                        }
                        (all, candidates.len())
                    };
                    let mut points = D::PerPoint::<ManifoldPoint<D::Vector>>::default();
                    for (slot, &i) in points.as_mut().iter_mut().zip(&chosen.as_ref()[..count]) {
                        let (source, point) = candidates[i];
                        *slot = point;
                        self.sources.push(source);
                    }
                    input(normal, &points.as_ref()[..count])
                }
            };
            match made {
                Some(made) => {
                    taken.len = made.len() as u32;
                    if self.inputs.is_empty() {
                        self.first_taken = taken;
                    } else {
                        self.more_taken.push(taken);
                    }
                    self.inputs.push(made);
                }
                None if taken.alone() => {}
                None => self.sources.truncate(taken.first_source as usize),
            }
        }
    }

    /// Step 6: the solved impulses back into the facets' points; true when
    /// any input was solved.
    pub(crate) fn store(&mut self, solver: &ContactSolver<D>) -> bool {
        let member_of = &self.member_of;
        let mut any = false;
        let count = self.inputs.len();
        let taken = core::iter::once(&self.first_taken).chain(&self.more_taken);
        for (n, &taken) in taken.take(count).enumerate() {
            let slot = self.first_input + n;
            if !solver.solved(slot) {
                continue;
            }
            any = true;
            let len = taken.len as usize;
            let sources = if taken.alone() {
                &[]
            } else {
                &self.sources[taken.first_source as usize..][..len]
            };
            // Every member pushed only through its points the input holds:
            // one whose points the cluster left out pushed nothing
            // (`a_facet_whose_points_a_cluster_leaves_out_pushed_nothing`).
            for k in taken.members(member_of) {
                let Some(manifold) = self.manifolds.manifold_mut(k) else {
                    continue;
                };
                let mut tally = PushTally::default();
                for i in 0..len {
                    // An input alone is its manifold's points in order.
                    let source = match sources.get(i) {
                        Some(&source) => source,
                        None => Source {
                            manifold: k as u32,
                            point: i as u32,
                        },
                    };
                    if source.manifold as usize != k {
                        continue;
                    }
                    let Some(solved) = solver.solved_point(slot, i) else {
                        continue;
                    };
                    // Taken from the manifold's points this step, and
                    // none has gone since (the narrow phase alone changes
                    // a surface pair's manifolds).
                    if let Some(point) = manifold.point_in_use_mut(source.point as usize) {
                        solved.store_into(point);
                    }
                    tally.add(source.point as usize, &solved);
                }
                manifold.set_pushed(tally.pushed);
            }
        }
        any
    }
}

#[cfg(test)]
impl<D: Dim> SurfaceContacts<D> {
    /// The manifolds (their places among the facets' manifolds) that some
    /// point of an input came from.
    fn input_members(&self) -> Vec<u32> {
        let taken = core::iter::once(&self.first_taken).chain(&self.more_taken);
        let mut members = Vec::new();
        for taken in taken.take(self.inputs.len()) {
            if taken.alone() {
                members.push(taken.first_member);
            } else {
                let sources = &self.sources[taken.first_source as usize..][..taken.len as usize];
                members.extend(sources.iter().map(|s| s.manifold));
            }
        }
        members
    }
}

/// True when step 4 takes `p` and the earlier `q` for one point: within
/// the merging radius `merge` of each other where the solver applies them.
fn same_point<V: Vector>(q: &ManifoldPoint<V>, p: &ManifoldPoint<V>, merge: f32) -> bool {
    (q.lever_a - p.lever_a).length_squared() <= merge * merge
}

/// True when no two of `points` are one point (step 4), so that an input
/// of them alone takes them all as they are.
fn all_apart<V: Vector>(points: &[ManifoldPoint<V>], merge: f32) -> bool {
    (1..points.len()).all(|j| !points[..j].iter().any(|q| same_point(q, &points[j], merge)))
}

/// What an input was taken from.
#[derive(Copy, Clone, Debug, Default)]
struct Taken {
    /// Its cluster (`SurfaceContacts::member_of`).
    cluster: u32,
    /// Where its points' sources start in `SurfaceContacts::sources`, or
    /// [`ALONE`].
    first_source: u32,
    /// The cluster's first manifold and how many it has.
    first_member: u32,
    members: u32,
    /// The input's points.
    len: u32,
}

/// [`Taken::first_source`] of an input that is one manifold's points as
/// they are, in order (step 4's shortcut), which keeps no sources.
const ALONE: u32 = u32::MAX;

impl Taken {
    /// True when the input is its one manifold's points, in order.
    fn alone(self) -> bool {
        self.first_source == ALONE
    }

    /// The places of the cluster's manifolds among the facets' manifolds,
    /// in order; a cluster of one manifold (most) reads no `member_of`.
    fn members(self, member_of: &[u32]) -> impl Iterator<Item = usize> + '_ {
        let first = self.first_member as usize;
        let rest = if self.members > 1 {
            member_of.get(first + 1..).unwrap_or_default()
        } else {
            &[]
        };
        let later = rest
            .iter()
            .enumerate()
            .filter(move |&(_, &c)| c == self.cluster)
            .map(move |(j, _)| first + 1 + j);
        core::iter::once(first).chain(later.take(self.members as usize - 1))
    }
}

/// A manifold with no points: in no cluster.
const NO_CLUSTER: u32 = u32::MAX;

/// A cluster of facet manifolds with about one normal.
#[derive(Copy, Clone, Debug)]
struct Cluster<V> {
    /// Its first member's normal, which later members are compared with.
    first: V,
    /// The members' normals, each times its points.
    sum: V,
    /// Its first member's place among the manifolds, and how many it has.
    first_member: u32,
    members: u32,
}

/// Working memory of [`SurfaceContacts::take_inputs`]: any pair's, so that
/// one set per thread serves every surface pair of a step and stays in
/// cache.
#[derive(Clone, Debug)]
pub(crate) struct InputBuffers<D: Dim> {
    clusters: Vec<Cluster<D::Vector>>,
    /// A cluster's points, each with its source (one of two points
    /// within the merging radius, the deeper).
    candidates: Vec<(Source, ManifoldPoint<D::Vector>)>,
    /// Where the candidates are, when there are more than an input holds.
    world: Vec<D::Vector>,
    /// Each manifold's cluster, or [`NO_CLUSTER`] (copied into the pair
    /// when a cluster has more than one).
    member_of: Vec<u32>,
}

impl<D: Dim> Default for InputBuffers<D> {
    fn default() -> Self {
        Self {
            clusters: Vec::new(),
            candidates: Vec::new(),
            world: Vec::new(),
            member_of: Vec::new(),
        }
    }
}

/// What a surface pair's step fills and leaves behind, any pair's: the
/// facet manifolds' update's buffers and the inputs'.
#[derive(Clone, Debug)]
pub(crate) struct SurfaceBuffers<D: Dim> {
    pub(crate) facets: FacetBuffers<D>,
    pub(crate) inputs: InputBuffers<D>,
}

impl<D: Dim> Default for SurfaceBuffers<D> {
    fn default() -> Self {
        Self {
            facets: FacetBuffers::default(),
            inputs: InputBuffers::default(),
        }
    }
}

impl<D: Dim> ContactPair<D> {
    /// Step 1 for a pair with a surface: its facets' manifolds updated
    /// (`buffers`: the update's, any pair's) and their inputs taken, `input`
    /// making each from a manifold. Does nothing for a pair without one.
    pub(crate) fn update_surface(
        &mut self,
        [(a, pose_a), (b, pose_b)]: [(&Collider<D>, Pose<D>); 2],
        tuning: ManifoldTuning,
        buffers: &mut SurfaceBuffers<D>,
        input: impl Fn(D::Vector, &[ManifoldPoint<D::Vector>]) -> Option<ManifoldInput<D>>,
    ) {
        let Some(contacts) = self.surface.as_deref_mut() else {
            return;
        };
        let (surface, surface_is_a) = match (a.shape.as_surface(), b.shape.as_surface()) {
            (Some(s), None) => (s, true),
            (None, Some(s)) => (s, false),
            // Two surfaces (never paired: neither is dynamic) meet nothing.
            _ => return,
        };
        let sides = [
            Side {
                shape: &a.shape,
                pose: pose_a,
            },
            Side {
                shape: &b.shape,
                pose: pose_b,
            },
        ];
        contacts
            .manifolds
            .update(sides, surface, surface_is_a, tuning, &mut buffers.facets);
        contacts.take_inputs(tuning.merge, &mut buffers.inputs, input);
    }
}

impl<D: Dim> World<D> {
    /// Step 5: the awake surface pairs' inputs after all the others.
    pub(crate) fn append_facet_inputs(&mut self) {
        let buffers = &mut self.buffers;
        for &k in &buffers.surface_pairs {
            let Some(contacts) = self.pairs[k].surface.as_deref_mut() else {
                continue;
            };
            contacts.first_input = buffers.inputs.len();
            buffers
                .inputs
                .extend(contacts.inputs.iter().map(|input| Some(input.clone())));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::math::D3;
    use crate::shape::Shape;
    use crate::{BodyDesc, ColliderDesc, Settings, World};
    use glam::Vec3;

    /// The points of each solver input of the world's surface pairs after
    /// `body` was dropped from over `x` onto a fixed mesh of `vertices` and
    /// `indices` and left a second to settle.
    fn settled_inputs(
        vertices: &[Vec3],
        indices: &[[u32; 3]],
        body: Shape<D3>,
        x: f32,
    ) -> Vec<usize> {
        let mut world = World::<D3>::new(Settings {
            sleep: false,
            ..Settings::default()
        });
        let mesh = Shape::triangle_mesh(vertices, indices).unwrap();
        world
            .add_body(BodyDesc::fixed(), ColliderDesc::new(mesh))
            .unwrap();
        world
            .add_body(
                BodyDesc::dynamic().position(Vec3::new(x, 0.6, 0.07)),
                ColliderDesc::new(body),
            )
            .unwrap();
        for _ in 0..60 {
            world.step(1.0 / 60.0);
        }
        world
            .pairs
            .iter()
            .filter_map(|p| p.surface.as_deref())
            .flat_map(|s| s.inputs.iter().map(|input| input.len()))
            .collect()
    }

    /// A mesh of two planes meeting along the Z axis, each rising at
    /// `slope` (rise over run) away from it, in 0.5 m quads.
    fn valley(slope: f32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let n = 8;
        let mut vertices = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                let x = (i as f32 - n as f32 / 2.0) * 0.5;
                let z = (j as f32 - n as f32 / 2.0) * 0.5;
                vertices.push(Vec3::new(x, x.abs() * slope, z));
            }
        }
        let at = |i: usize, j: usize| (j * (n + 1) + i) as u32;
        let mut indices = Vec::new();
        for j in 0..n {
            for i in 0..n {
                indices.push([at(i, j), at(i, j + 1), at(i + 1, j + 1)]);
                indices.push([at(i, j), at(i + 1, j + 1), at(i + 1, j)]);
            }
        }
        (vertices, indices)
    }

    #[test]
    fn facets_with_one_normal_are_one_input() {
        // A 1 m cube over eight triangles of flat ground: its four corners
        // in one input, as on one box.
        let (vertices, indices) = valley(0.0);
        let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
        assert_eq!(settled_inputs(&vertices, &indices, cube, 0.13), vec![4]);
    }

    #[test]
    fn facets_bent_sharply_are_one_input_each() {
        // A ball resting in a valley of 20 degree slopes touches both: two
        // normals 40 degrees apart, each its own input.
        let (vertices, indices) = valley(0.364);
        let ball = Shape::ball(0.3).unwrap();
        assert_eq!(settled_inputs(&vertices, &indices, ball, 0.0), vec![1, 1]);
    }

    #[test]
    fn a_facet_whose_points_a_cluster_leaves_out_pushed_nothing() {
        // A 1 m box resting on a gentle dome of 0.25 m cells: the facets
        // under it give more points than one input holds.
        let n = 17;
        let at = |i: usize| (i as f32 - 8.0) * 0.25;
        let heights: Vec<f32> = (0..n * n)
            .map(|k| {
                let (x, z) = (at(k % n), at(k / n));
                1.0 - (x * x + z * z) / 16.0
            })
            .collect();
        let dome = Shape::heightfield(&heights, n, n, Vec3::new(4.0, 1.0, 4.0)).unwrap();
        let mut world = World::<D3>::new(Settings {
            sleep: false,
            ..Settings::default()
        });
        world
            .add_body(BodyDesc::fixed(), ColliderDesc::new(dome))
            .unwrap();
        world
            .add_body(
                BodyDesc::dynamic().position(Vec3::new(0.03, 1.3, -0.02)),
                ColliderDesc::new(Shape::cuboid(Vec3::new(0.5, 0.25, 0.5)).unwrap()),
            )
            .unwrap();
        let mut left_out = 0;
        for _ in 0..60 {
            world.step(1.0 / 60.0);
            let contacts = world
                .pairs
                .iter()
                .find_map(|p| p.surface.as_deref())
                .unwrap();
            let solved = contacts.input_members();
            for (k, m) in contacts.manifolds.manifolds().enumerate() {
                if !m.points().is_empty() && !solved.contains(&(k as u32)) {
                    left_out += 1;
                    assert_eq!(m.total_normal_impulse(), 0.0, "facet manifold {k}");
                }
            }
        }
        assert!(left_out > 0, "no facet's points were left out");
    }
}
