//! Tracing the narrow phase: GJK's last simplex and every EPA iteration, for
//! inspectors and tests. The untraced path passes `()`, whose `ENABLED` is
//! false, so the tracing code compiles away there.

/// Receives what GJK and EPA do.
pub trait Observer<V> {
    /// False for the no-op observer: nothing is built for it.
    const ENABLED: bool;
    /// GJK's final simplex (vertices of the Minkowski difference).
    fn gjk_simplex(&mut self, simplex: &[V]);
    /// One EPA iteration.
    fn epa_step(&mut self, step: EpaStep<V>);
}

impl<V> Observer<V> for () {
    const ENABLED: bool = false;
    fn gjk_simplex(&mut self, _: &[V]) {}
    fn epa_step(&mut self, _: EpaStep<V>) {}
}

/// One EPA iteration: the polygon (2D) or polytope (3D) as it stood, its
/// closest face, and the support point found along that face's normal.
#[derive(Clone, Debug, PartialEq)]
pub struct EpaStep<V> {
    /// Vertices of the Minkowski difference A − B.
    pub vertices: Vec<V>,
    /// Faces as indices into `vertices`: edges (2 indices) in 2D,
    /// triangles (3, counter-clockwise from outside) in 3D.
    pub faces: Vec<Vec<u32>>,
    /// Index into `faces` of the face closest to the origin.
    pub closest: usize,
    /// That face's distance from the origin, metres (EPA's depth so far).
    pub distance: f32,
    /// That face's outward unit normal (from A towards B).
    pub normal: V,
    /// The support point along `normal`; the iteration ends EPA when it is
    /// no farther than the face.
    pub support: V,
}

/// Everything [`Observer`] saw, kept.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace<V> {
    /// GJK's final simplex.
    pub gjk_simplex: Vec<V>,
    /// EPA's iterations, first to last; empty when EPA did not run.
    pub epa_steps: Vec<EpaStep<V>>,
}

impl<V: Copy> Observer<V> for Trace<V> {
    const ENABLED: bool = true;
    fn gjk_simplex(&mut self, simplex: &[V]) {
        self.gjk_simplex = simplex.to_vec();
    }
    fn epa_step(&mut self, step: EpaStep<V>) {
        self.epa_steps.push(step);
    }
}
