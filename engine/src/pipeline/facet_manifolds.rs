//! The manifolds of a convex shape against a surface (mesh, heightfield or
//! chain): one incremental manifold per facet near the shape, all kept by
//! the one pair of colliders.
//!
//! Every step:
//! 1. Mid phase: the shape's box in the surface's frame, grown by the
//!    pair's margin, is looked up in the surface's BVH; the facets it meets
//!    are the pair's candidates, in facet order.
//! 2. The candidates keep their manifolds from the step before (matched by
//!    facet index, so their impulses warm-start); a new candidate starts an
//!    empty one; a facet no longer near drops its own.
//! 3. Each manifold is updated exactly as a convex pair's (refresh, merge,
//!    perturb, reduce, reuse while still: [`Manifold::update`]), against
//!    the facet as a convex shape; the narrow phase makes the facet
//!    one-sided and smooth across its joins (`narrow_phase::surface`).
//!
//! Each manifold with points is then one of the solver's inputs (the
//! world takes them, as it takes a convex pair's).
//!
//! A box on flat ground made of two triangles thus has up to two
//! manifolds, each holding the corners over its triangle: the solver
//! handles them as it handles a box bridging two boxes.

use super::dim::ManifoldDim;
use super::manifold::{Manifold, ManifoldTuning, PairView};
use crate::math::Pose;
use crate::shape::{Shape, Surface};

/// One side of a pair: its shape at its pose.
pub(crate) struct Side<'a, D: ManifoldDim> {
    pub shape: &'a Shape<D>,
    pub pose: Pose<D>,
}

/// The manifolds of a convex shape against the facets of a surface.
#[derive(Clone, Debug, Default)]
pub struct FacetManifolds<D: ManifoldDim> {
    /// Each near facet's index with its manifold, in facet order.
    manifolds: Vec<(u32, Manifold<D>)>,
    /// The previous step's manifolds while they are matched (kept for the
    /// allocation).
    spare: Vec<(u32, Manifold<D>)>,
    /// The facets near the shape this step (kept for the allocation).
    near: Vec<u32>,
}

impl<D: ManifoldDim> FacetManifolds<D> {
    /// Each near facet's index and its manifold, in facet order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &Manifold<D>)> {
        self.manifolds.iter().map(|(i, m)| (*i, m))
    }

    /// Forgets every manifold (the pair ended).
    pub(crate) fn clear(&mut self) {
        self.manifolds.clear();
    }

    /// Steps 1 to 3 for the pair of `a` and `b`, one of which is `surface`
    /// (`surface_is_a` says which).
    pub(crate) fn update(
        &mut self,
        [a, b]: [Side<'_, D>; 2],
        surface: &Surface<D>,
        surface_is_a: bool,
        tuning: ManifoldTuning,
    ) {
        let (on_surface, convex) = if surface_is_a { (&a, &b) } else { (&b, &a) };
        let convex_in_surface = on_surface.pose.inv_mul(&convex.pose);
        let reach = convex
            .shape
            .aabb(&convex_in_surface)
            .expanded(tuning.margin);
        surface.facets_in(&reach, &mut self.near);
        std::mem::swap(&mut self.manifolds, &mut self.spare);
        self.manifolds.clear();
        let mut old = 0;
        for &facet in &self.near {
            while old < self.spare.len() && self.spare[old].0 < facet {
                old += 1;
            }
            let kept = self.spare.get(old).filter(|(f, _)| *f == facet);
            let manifold = kept.map_or_else(Manifold::default, |(_, m)| m.clone());
            self.manifolds.push((facet, manifold));
        }
        self.spare.clear();
        for (facet, manifold) in &mut self.manifolds {
            let shape = Shape::facet(surface.facets()[*facet as usize]);
            let view = if surface_is_a {
                PairView {
                    shape_a: &shape,
                    pose_a: a.pose,
                    shape_b: b.shape,
                    pose_b: b.pose,
                }
            } else {
                PairView {
                    shape_a: a.shape,
                    pose_a: a.pose,
                    shape_b: &shape,
                    pose_b: b.pose,
                }
            };
            manifold.update(&view, tuning);
        }
    }

    /// Every manifold, in facet order.
    pub(crate) fn manifolds(&self) -> impl Iterator<Item = &Manifold<D>> {
        self.manifolds.iter().map(|(_, m)| m)
    }

    /// The `k`th manifold, to store its impulses.
    pub(crate) fn manifold_mut(&mut self, k: usize) -> Option<&mut Manifold<D>> {
        self.manifolds.get_mut(k).map(|(_, m)| m)
    }
}
