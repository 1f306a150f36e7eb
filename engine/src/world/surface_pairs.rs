//! Pairs with a surface: a convex collider against a mesh, heightfield or
//! chain keeps one manifold per facet near it
//! ([`FacetManifolds`]), and gives the solver one input per manifold with
//! points.
//!
//! 1. The narrow phase updates the facets' manifolds and takes their
//!    inputs into the pair (`ContactPair::update_surface`), while the pair
//!    is in the cache; the pair's own slot among the solver's inputs stays
//!    empty.
//! 2. Before the solve, the awake surface pairs' inputs follow every other
//!    input, pair by pair in the awake pairs' order, each pair noting
//!    where its own start (`World::append_facet_inputs`), so the solver's
//!    order, and so its results, never depend on threads.
//! 3. After the solve, each pair stores its inputs' impulses back into its
//!    facets' manifolds (`SurfaceContacts::store`).

use super::{ContactPair, World};
use crate::collider::Collider;
use crate::dim::Dim;
use crate::math::Pose;
use crate::pipeline::facet_manifolds::{FacetManifolds, Side};
use crate::pipeline::manifold::{Manifold, ManifoldTuning};
use crate::pipeline::solver::{ContactSolver, ManifoldInput};

/// A surface pair's manifolds and their solver inputs.
#[derive(Clone, Debug, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub(crate) struct SurfaceContacts<D: Dim> {
    pub(crate) manifolds: FacetManifolds<D>,
    /// This step's inputs: the manifold each stands for (its place among
    /// the manifolds) and the input.
    #[cfg_attr(feature = "serde", serde(skip))]
    inputs: Vec<(u32, ManifoldInput<D>)>,
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

    /// The inputs of the manifolds with points, `input` making each.
    pub(crate) fn take_inputs(&mut self, input: impl Fn(&Manifold<D>) -> Option<ManifoldInput<D>>) {
        self.inputs.clear();
        for (k, manifold) in self.manifolds.manifolds().enumerate() {
            if manifold.points().is_empty() {
                continue;
            }
            if let Some(made) = input(manifold) {
                self.inputs.push((k as u32, made));
            }
        }
    }

    /// Step 3: the solved impulses back into the manifolds; true when any
    /// input was solved.
    pub(crate) fn store(&mut self, solver: &ContactSolver<D>) -> bool {
        let mut any = false;
        for (n, (k, _)) in self.inputs.iter().enumerate() {
            let slot = self.first_input + n;
            if let (true, Some(manifold)) = (
                solver.solved(slot),
                self.manifolds.manifold_mut(*k as usize),
            ) {
                solver.store_impulses(slot, manifold);
                any = true;
            }
        }
        any
    }
}

impl<D: Dim> ContactPair<D> {
    /// Step 1 for a pair with a surface: its facets' manifolds updated and
    /// their inputs taken, `input` making each from a manifold. Does
    /// nothing for a pair without one.
    pub(crate) fn update_surface(
        &mut self,
        [(a, pose_a), (b, pose_b)]: [(&Collider<D>, Pose<D>); 2],
        tuning: ManifoldTuning,
        input: impl Fn(&Manifold<D>) -> Option<ManifoldInput<D>>,
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
            .update(sides, surface, surface_is_a, tuning);
        contacts.take_inputs(input);
    }
}

impl<D: Dim> World<D> {
    /// Step 2: the awake surface pairs' inputs after all the others.
    pub(crate) fn append_facet_inputs(&mut self) {
        let buffers = &mut self.buffers;
        for &k in &buffers.surface_pairs {
            let Some(contacts) = self.pairs[k].surface.as_deref_mut() else {
                continue;
            };
            contacts.first_input = buffers.inputs.len();
            buffers
                .inputs
                .extend(contacts.inputs.iter().map(|(_, input)| Some(input.clone())));
        }
    }
}
