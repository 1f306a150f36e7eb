//! Four lanes of a vector: one value per point of a contact manifold, kept
//! component by component (`x` of every point in one `Vec4`, then `y`, ...),
//! so that the solver treats a manifold's points together with SIMD
//! arithmetic. A manifold's unused lanes hold zeros.

use core::fmt::Debug;

use glam::{Vec2, Vec3, Vec4};

/// Four values of `V`, lane by lane.
pub trait Lanes<V>: Copy + Debug + Default + Send + Sync + 'static {
    /// Lane `i` set to `v`.
    fn set(&mut self, i: usize, v: V);
    /// Lane `i`.
    fn get(&self, i: usize) -> V;
    /// Per lane: the lane's dot product with `v`.
    fn dot(&self, v: V) -> Vec4;
    /// `Σᵢ wᵢ · laneᵢ`.
    fn weighted_sum(&self, w: Vec4) -> V;
}

/// Four scalars (a 2D angular quantity per point).
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes1(Vec4);

/// Four 2D vectors.
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes2 {
    x: Vec4,
    y: Vec4,
}

/// Four 3D vectors.
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes3 {
    x: Vec4,
    y: Vec4,
    z: Vec4,
}

impl Lanes<f32> for Lanes1 {
    #[inline]
    fn set(&mut self, i: usize, v: f32) {
        self.0[i] = v;
    }
    #[inline]
    fn get(&self, i: usize) -> f32 {
        self.0[i]
    }
    #[inline]
    fn dot(&self, v: f32) -> Vec4 {
        self.0 * v
    }
    #[inline]
    fn weighted_sum(&self, w: Vec4) -> f32 {
        (self.0 * w).element_sum()
    }
}

impl Lanes<Vec2> for Lanes2 {
    #[inline]
    fn set(&mut self, i: usize, v: Vec2) {
        self.x[i] = v.x;
        self.y[i] = v.y;
    }
    #[inline]
    fn get(&self, i: usize) -> Vec2 {
        Vec2::new(self.x[i], self.y[i])
    }
    #[inline]
    fn dot(&self, v: Vec2) -> Vec4 {
        self.x * v.x + self.y * v.y
    }
    #[inline]
    fn weighted_sum(&self, w: Vec4) -> Vec2 {
        Vec2::new((self.x * w).element_sum(), (self.y * w).element_sum())
    }
}

impl Lanes<Vec3> for Lanes3 {
    #[inline]
    fn set(&mut self, i: usize, v: Vec3) {
        self.x[i] = v.x;
        self.y[i] = v.y;
        self.z[i] = v.z;
    }
    #[inline]
    fn get(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }
    #[inline]
    fn dot(&self, v: Vec3) -> Vec4 {
        self.x * v.x + self.y * v.y + self.z * v.z
    }
    #[inline]
    fn weighted_sum(&self, w: Vec4) -> Vec3 {
        Vec3::new(
            (self.x * w).element_sum(),
            (self.y * w).element_sum(),
            (self.z * w).element_sum(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_dot_and_sum_agree_with_the_vectors() {
        let points = [
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(-1.0, 0.5, 0.0),
            Vec3::new(0.0, 0.0, 2.0),
        ];
        let mut lanes = Lanes3::default();
        for (i, &p) in points.iter().enumerate() {
            lanes.set(i, p);
        }
        let v = Vec3::new(0.5, -1.0, 2.0);
        let dots = lanes.dot(v);
        for (i, &p) in points.iter().enumerate() {
            assert_eq!(lanes.get(i), p);
            assert_eq!(dots[i], p.dot(v));
        }
        assert_eq!(dots[3], 0.0, "an unused lane stays zero");
        let w = Vec4::new(1.0, 2.0, -1.0, 5.0);
        let sum = lanes.weighted_sum(w);
        assert_eq!(sum, points[0] + points[1] * 2.0 - points[2]);
        let mut flat = Lanes2::default();
        flat.set(1, Vec2::new(3.0, 4.0));
        assert_eq!(flat.dot(Vec2::new(1.0, 1.0)), Vec4::new(0.0, 7.0, 0.0, 0.0));
        let mut spin = Lanes1::default();
        spin.set(2, 2.0);
        assert_eq!(spin.weighted_sum(Vec4::splat(3.0)), 6.0);
    }
}
