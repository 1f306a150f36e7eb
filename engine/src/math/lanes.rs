//! A contact manifold's points side by side, one per lane: scalars in a
//! [`Wide`] value (`Vec2` in 2D, whose manifolds hold two points; `Vec4` in
//! 3D, four) and vectors component by component (`x` of every point in one
//! wide value, then `y`, ...), so that the solver treats a manifold's points
//! together with SIMD arithmetic. A manifold's unused lanes hold zeros.

use core::fmt::Debug;
use core::ops::{Add, Index, IndexMut, Mul, Neg, Sub};

use glam::{Vec2, Vec3, Vec4};

/// One `f32` per lane.
pub trait Wide:
    Copy
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Mul<f32, Output = Self>
    + Neg<Output = Self>
    + Index<usize, Output = f32>
    + IndexMut<usize>
{
    /// Every lane `v`.
    fn splat(v: f32) -> Self;
    /// Per lane, the larger; where `self` is NaN, `other`.
    fn max(self, other: Self) -> Self;
    /// Per lane, the smaller; where `self` is NaN, `other`.
    fn min(self, other: Self) -> Self;
    /// The sum of the lanes.
    fn element_sum(self) -> f32;
    /// True when every lane is zero.
    fn is_zero(self) -> bool;
    /// Per lane: `if_positive` where `self > 0`, else `otherwise`.
    fn select_positive(self, if_positive: Self, otherwise: Self) -> Self;
}

macro_rules! impl_wide {
    ($t:ty) => {
        impl Wide for $t {
            #[inline]
            fn splat(v: f32) -> Self {
                <$t>::splat(v)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                <$t>::max(self, other)
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                <$t>::min(self, other)
            }
            #[inline]
            fn element_sum(self) -> f32 {
                <$t>::element_sum(self)
            }
            #[inline]
            fn is_zero(self) -> bool {
                self.cmpeq(<$t>::ZERO).all()
            }
            #[inline]
            fn select_positive(self, if_positive: Self, otherwise: Self) -> Self {
                <$t>::select(self.cmpgt(<$t>::ZERO), if_positive, otherwise)
            }
        }
    };
}
impl_wide!(Vec2);
impl_wide!(Vec4);

/// Values of `V`, one per lane of `W`.
pub trait Lanes<V, W: Wide>: Copy + Debug + Default + Send + Sync + 'static {
    /// Lane `i` set to `v`.
    fn set(&mut self, i: usize, v: V);
    /// Lane `i`.
    fn get(&self, i: usize) -> V;
    /// Per lane: the lane's dot product with `v`.
    fn dot(&self, v: V) -> W;
    /// `Σᵢ wᵢ · laneᵢ`.
    fn weighted_sum(&self, w: W) -> V;
}

/// Scalars (a 2D angular quantity per point).
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes1<W>(W);

/// 2D vectors.
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes2<W> {
    x: W,
    y: W,
}

/// 3D vectors.
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes3<W> {
    x: W,
    y: W,
    z: W,
}

impl<W: Wide> Lanes<f32, W> for Lanes1<W> {
    #[inline]
    fn set(&mut self, i: usize, v: f32) {
        self.0[i] = v;
    }
    #[inline]
    fn get(&self, i: usize) -> f32 {
        self.0[i]
    }
    #[inline]
    fn dot(&self, v: f32) -> W {
        self.0 * v
    }
    #[inline]
    fn weighted_sum(&self, w: W) -> f32 {
        (self.0 * w).element_sum()
    }
}

impl<W: Wide> Lanes<Vec2, W> for Lanes2<W> {
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
    fn dot(&self, v: Vec2) -> W {
        self.x * v.x + self.y * v.y
    }
    #[inline]
    fn weighted_sum(&self, w: W) -> Vec2 {
        Vec2::new((self.x * w).element_sum(), (self.y * w).element_sum())
    }
}

impl<W: Wide> Lanes<Vec3, W> for Lanes3<W> {
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
    fn dot(&self, v: Vec3) -> W {
        self.x * v.x + self.y * v.y + self.z * v.z
    }
    #[inline]
    fn weighted_sum(&self, w: W) -> Vec3 {
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
        let mut lanes = Lanes3::<Vec4>::default();
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
        assert_eq!(
            lanes.weighted_sum(w),
            points[0] + points[1] * 2.0 - points[2]
        );
        let mut flat = Lanes2::<Vec2>::default();
        flat.set(1, Vec2::new(3.0, 4.0));
        assert_eq!(flat.dot(Vec2::new(1.0, 1.0)), Vec2::new(0.0, 7.0));
        let mut spin = Lanes1::<Vec2>::default();
        spin.set(1, 2.0);
        assert_eq!(spin.weighted_sum(Vec2::splat(3.0)), 6.0);
    }

    #[test]
    fn wide_selects_and_keeps_nan_out_of_max() {
        let x = Vec4::new(1.0, -1.0, 0.0, f32::NAN);
        let picked = x.select_positive(Vec4::splat(10.0), Vec4::splat(20.0));
        assert_eq!(picked, Vec4::new(10.0, 20.0, 20.0, 20.0));
        let clamped = Wide::max(x, Vec4::ZERO);
        assert_eq!(
            clamped,
            Vec4::new(1.0, 0.0, 0.0, 0.0),
            "a NaN lane gives the bound"
        );
        assert!(Vec2::ZERO.is_zero() && !Vec2::new(0.0, 1.0).is_zero());
    }
}
