//! Four values side by side, one per SIMD lane: scalars in a `Vec4`, and
//! vectors, rotations and inertias component by component (`x` of every
//! lane in one `Vec4`, then `y`, ...). The solver puts four contact
//! manifolds in the lanes and solves them with one stream of SIMD
//! arithmetic; a lane with nothing in it holds zeros.

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Mul, Sub, SubAssign};

use glam::{Mat3, Mat4, Quat, Vec2, Vec3, Vec4};

use crate::math::Rot2;

/// Four words as the columns of a matrix, transposed: row `k` holds
/// component `k` of every word (a handful of shuffles, all in registers).
#[inline]
pub(crate) fn transpose(words: [Vec4; 4]) -> Mat4 {
    Mat4::from_cols(words[0], words[1], words[2], words[3]).transpose()
}

/// Per lane, the square root, correctly rounded as `f32::sqrt` is, in one
/// SIMD instruction where glam keeps a `Vec4` in a SIMD register (its
/// `Vec4::sqrt` takes the four roots one by one).
#[inline]
pub(crate) fn sqrt_lanes(v: Vec4) -> Vec4 {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled (the `cfg` above).
        Vec4::from(unsafe { core::arch::x86_64::_mm_sqrt_ps(v.into()) })
    }
    #[cfg(all(target_arch = "x86", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is enabled (the `cfg` above).
        Vec4::from(unsafe { core::arch::x86::_mm_sqrt_ps(v.into()) })
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        Vec4::from(core::arch::wasm32::f32x4_sqrt(v.into()))
    }
    #[cfg(not(any(
        all(
            any(target_arch = "x86_64", target_arch = "x86"),
            target_feature = "sse2"
        ),
        all(target_arch = "wasm32", target_feature = "simd128")
    )))]
    {
        v.sqrt()
    }
}

/// A matrix's columns.
#[inline]
pub(crate) fn columns(m: Mat4) -> [Vec4; 4] {
    [m.x_axis, m.y_axis, m.z_axis, m.w_axis]
}

/// Values of `V`, one per lane.
pub trait Lanes<V>:
    Copy
    + Debug
    + Default
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + AddAssign
    + SubAssign
    + Mul<Vec4, Output = Self>
    + Mul<Output = Self>
{
    /// Lane `i` set to `v` (through memory: for building lanes in place).
    fn set(&mut self, i: usize, v: V);
    /// Lane `i`.
    fn get(&self, i: usize) -> V;
    /// Lanes from four [`SimdWord`]s, lane `i` from word `i`.
    fn from_words(words: [Vec4; 4]) -> Self;
    /// Each lane as a [`SimdWord`].
    fn to_words(&self) -> [Vec4; 4];
    /// Every lane the value of `word` (a [`SimdWord`]).
    fn splat_word(word: Vec4) -> Self;
    /// Per lane, the dot product with the same lane of `other`.
    fn dot(&self, other: &Self) -> Vec4;
}

/// Rotations, one per lane.
pub trait RotationLanes<R, V>: Copy + Debug + Default + Send + Sync + 'static {
    /// Lanes from four [`SimdWord`]s, lane `i` from word `i`.
    fn from_words(words: [Vec4; 4]) -> Self;
    /// Per lane, `v` turned by the inverse of the lane's rotation.
    fn inverse_rotate(&self, v: &V) -> V;
    /// Per lane, `v` turned by the lane's rotation.
    fn rotate(&self, v: &V) -> V;
    /// Each lane as a [`SimdWord`].
    fn to_words(&self) -> [Vec4; 4];
}

/// Symmetric inverse inertias, one per lane.
pub trait InertiaLanes<I, A>: Copy + Debug + Default + Send + Sync + 'static {
    /// Lane `i` set to `inertia` (symmetric; its upper triangle is read).
    fn set(&mut self, i: usize, inertia: I);
    /// Every lane `inertia`.
    fn splat(inertia: I) -> Self;
    /// Per lane, the inertia applied to `a`.
    fn mul(&self, a: &A) -> A;
}

/// Scalars (a 2D angular quantity per lane).
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes1(pub Vec4);

/// 2D vectors.
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes2 {
    /// Every lane's `x`.
    pub x: Vec4,
    /// Every lane's `y`.
    pub y: Vec4,
}

/// 3D vectors.
#[derive(Copy, Clone, Debug, Default)]
pub struct Lanes3 {
    /// Every lane's `x`.
    pub x: Vec4,
    /// Every lane's `y`.
    pub y: Vec4,
    /// Every lane's `z`.
    pub z: Vec4,
}

/// Implements the lane-wise arithmetic of a lanes type with fields `$f`.
macro_rules! lane_ops {
    ($t:ident { $($f:tt),+ }) => {
        impl Add for $t {
            type Output = Self;
            #[inline]
            fn add(self, o: Self) -> Self {
                $t { $($f: self.$f + o.$f),+ }
            }
        }
        impl Sub for $t {
            type Output = Self;
            #[inline]
            fn sub(self, o: Self) -> Self {
                $t { $($f: self.$f - o.$f),+ }
            }
        }
        impl AddAssign for $t {
            #[inline]
            fn add_assign(&mut self, o: Self) {
                $(self.$f += o.$f;)+
            }
        }
        impl SubAssign for $t {
            #[inline]
            fn sub_assign(&mut self, o: Self) {
                $(self.$f -= o.$f;)+
            }
        }
        impl Mul<Vec4> for $t {
            type Output = Self;
            #[inline]
            fn mul(self, w: Vec4) -> Self {
                $t { $($f: self.$f * w),+ }
            }
        }
        /// Component by component, lane by lane.
        impl Mul for $t {
            type Output = Self;
            #[inline]
            fn mul(self, o: Self) -> Self {
                $t { $($f: self.$f * o.$f),+ }
            }
        }
    };
}
lane_ops!(Lanes1 { 0 });
lane_ops!(Lanes2 { x, y });
lane_ops!(Lanes3 { x, y, z });

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
    fn from_words(words: [Vec4; 4]) -> Self {
        Lanes1(transpose(words).x_axis)
    }
    #[inline]
    fn to_words(&self) -> [Vec4; 4] {
        columns(transpose([self.0, Vec4::ZERO, Vec4::ZERO, Vec4::ZERO]))
    }
    #[inline]
    fn splat_word(word: Vec4) -> Self {
        Lanes1(Vec4::splat(word.x))
    }
    #[inline]
    fn dot(&self, other: &Self) -> Vec4 {
        self.0 * other.0
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
    fn from_words(words: [Vec4; 4]) -> Self {
        let rows = transpose(words);
        Lanes2 {
            x: rows.x_axis,
            y: rows.y_axis,
        }
    }
    #[inline]
    fn to_words(&self) -> [Vec4; 4] {
        columns(transpose([self.x, self.y, Vec4::ZERO, Vec4::ZERO]))
    }
    #[inline]
    fn splat_word(word: Vec4) -> Self {
        Lanes2 {
            x: Vec4::splat(word.x),
            y: Vec4::splat(word.y),
        }
    }
    #[inline]
    fn dot(&self, o: &Self) -> Vec4 {
        self.x * o.x + self.y * o.y
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
    fn from_words(words: [Vec4; 4]) -> Self {
        let rows = transpose(words);
        Lanes3 {
            x: rows.x_axis,
            y: rows.y_axis,
            z: rows.z_axis,
        }
    }
    #[inline]
    fn to_words(&self) -> [Vec4; 4] {
        columns(transpose([self.x, self.y, self.z, Vec4::ZERO]))
    }
    #[inline]
    fn splat_word(word: Vec4) -> Self {
        Lanes3 {
            x: Vec4::splat(word.x),
            y: Vec4::splat(word.y),
            z: Vec4::splat(word.z),
        }
    }
    #[inline]
    fn dot(&self, o: &Self) -> Vec4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
}

impl Lanes3 {
    /// Per lane, `self × o`.
    #[inline]
    pub(crate) fn cross(&self, o: &Self) -> Self {
        Lanes3 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }
}

/// 2D rotations as cosine and sine.
#[derive(Copy, Clone, Debug, Default)]
pub struct Rot2Lanes {
    cos: Vec4,
    sin: Vec4,
}

impl Rot2Lanes {
    /// Rotations of cosines `cos` and sines `sin`.
    #[inline]
    pub(crate) fn new(cos: Vec4, sin: Vec4) -> Self {
        Rot2Lanes { cos, sin }
    }

    /// Every lane's cosine.
    #[inline]
    pub(crate) fn cos(&self) -> Vec4 {
        self.cos
    }

    /// Every lane's sine.
    #[inline]
    pub(crate) fn sin(&self) -> Vec4 {
        self.sin
    }
}

impl RotationLanes<Rot2, Lanes2> for Rot2Lanes {
    #[inline]
    fn from_words(words: [Vec4; 4]) -> Self {
        let rows = transpose(words);
        Rot2Lanes {
            cos: rows.x_axis,
            sin: rows.y_axis,
        }
    }
    #[inline]
    fn inverse_rotate(&self, v: &Lanes2) -> Lanes2 {
        Lanes2 {
            x: self.cos * v.x + self.sin * v.y,
            y: self.cos * v.y - self.sin * v.x,
        }
    }
    /// As [`Rot2::rotate`], lane by lane.
    #[inline]
    fn rotate(&self, v: &Lanes2) -> Lanes2 {
        Lanes2 {
            x: self.cos * v.x - self.sin * v.y,
            y: self.sin * v.x + self.cos * v.y,
        }
    }
    #[inline]
    fn to_words(&self) -> [Vec4; 4] {
        columns(transpose([self.cos, self.sin, Vec4::ZERO, Vec4::ZERO]))
    }
}

/// Unit quaternions: vector part `(x, y, z)` and scalar part `w`.
#[derive(Copy, Clone, Debug, Default)]
pub struct QuatLanes {
    axis: Lanes3,
    w: Vec4,
}

impl QuatLanes {
    /// Quaternions of vector parts `axis` and scalar parts `w`.
    #[inline]
    pub(crate) fn new(axis: Lanes3, w: Vec4) -> Self {
        QuatLanes { axis, w }
    }

    /// Every lane's vector part.
    #[inline]
    pub(crate) fn axis(&self) -> &Lanes3 {
        &self.axis
    }

    /// Every lane's scalar part.
    #[inline]
    pub(crate) fn w(&self) -> Vec4 {
        self.w
    }
}

impl RotationLanes<Quat, Lanes3> for QuatLanes {
    #[inline]
    fn from_words(words: [Vec4; 4]) -> Self {
        let rows = transpose(words);
        QuatLanes {
            axis: Lanes3 {
                x: rows.x_axis,
                y: rows.y_axis,
                z: rows.z_axis,
            },
            w: rows.w_axis,
        }
    }
    /// The conjugate's rotation: with `u` the conjugate's vector part `-axis`,
    /// `t = 2 u × v` and `v' = v + w t + u × t`.
    #[inline]
    fn inverse_rotate(&self, v: &Lanes3) -> Lanes3 {
        let t = v.cross(&self.axis) * Vec4::splat(2.0);
        *v + t * self.w - self.axis.cross(&t)
    }
    /// With `t = 2 axis × v`, `v' = v + w t + axis × t`.
    #[inline]
    fn rotate(&self, v: &Lanes3) -> Lanes3 {
        let t = self.axis.cross(v) * Vec4::splat(2.0);
        *v + t * self.w + self.axis.cross(&t)
    }
    #[inline]
    fn to_words(&self) -> [Vec4; 4] {
        columns(transpose([self.axis.x, self.axis.y, self.axis.z, self.w]))
    }
}

/// 2D inverse inertias are scalars.
impl InertiaLanes<f32, Lanes1> for Lanes1 {
    #[inline]
    fn set(&mut self, i: usize, inertia: f32) {
        self.0[i] = inertia;
    }
    #[inline]
    fn splat(inertia: f32) -> Self {
        Lanes1(Vec4::splat(inertia))
    }
    #[inline]
    fn mul(&self, a: &Lanes1) -> Lanes1 {
        Lanes1(self.0 * a.0)
    }
}

/// Symmetric 3x3 inverse inertias: the diagonal and the three entries above it.
#[derive(Copy, Clone, Debug, Default)]
pub struct SymmetricLanes3 {
    xx: Vec4,
    yy: Vec4,
    zz: Vec4,
    xy: Vec4,
    xz: Vec4,
    yz: Vec4,
}

impl SymmetricLanes3 {
    /// The symmetric matrices of diagonal `xx, yy, zz` and upper entries
    /// `xy, xz, yz`.
    #[inline]
    pub(crate) fn new(xx: Vec4, yy: Vec4, zz: Vec4, xy: Vec4, xz: Vec4, yz: Vec4) -> Self {
        SymmetricLanes3 {
            xx,
            yy,
            zz,
            xy,
            xz,
            yz,
        }
    }

    /// The entries: the diagonal `xx, yy, zz`, then `xy, xz, yz`.
    #[inline]
    pub(crate) fn entries(&self) -> [Vec4; 6] {
        [self.xx, self.yy, self.zz, self.xy, self.xz, self.yz]
    }
}

impl InertiaLanes<Mat3, Lanes3> for SymmetricLanes3 {
    #[inline]
    fn set(&mut self, i: usize, m: Mat3) {
        self.xx[i] = m.x_axis.x;
        self.yy[i] = m.y_axis.y;
        self.zz[i] = m.z_axis.z;
        self.xy[i] = m.y_axis.x;
        self.xz[i] = m.z_axis.x;
        self.yz[i] = m.z_axis.y;
    }
    #[inline]
    fn splat(m: Mat3) -> Self {
        SymmetricLanes3 {
            xx: Vec4::splat(m.x_axis.x),
            yy: Vec4::splat(m.y_axis.y),
            zz: Vec4::splat(m.z_axis.z),
            xy: Vec4::splat(m.y_axis.x),
            xz: Vec4::splat(m.z_axis.x),
            yz: Vec4::splat(m.z_axis.y),
        }
    }
    #[inline]
    fn mul(&self, a: &Lanes3) -> Lanes3 {
        Lanes3 {
            x: self.xx * a.x + self.xy * a.y + self.xz * a.z,
            y: self.xy * a.x + self.yy * a.y + self.yz * a.z,
            z: self.xz * a.x + self.yz * a.y + self.zz * a.z,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::SimdWord;

    fn vectors() -> [Vec3; 4] {
        [
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(-1.0, 0.5, 0.0),
            Vec3::new(0.0, 0.0, 2.0),
            Vec3::new(0.3, -0.7, 0.1),
        ]
    }

    fn lanes3(v: [Vec3; 4]) -> Lanes3 {
        let mut lanes = Lanes3::default();
        for (i, &p) in v.iter().enumerate() {
            lanes.set(i, p);
        }
        let words = Lanes3::from_words(v.map(Vec3::to_word));
        assert_eq!(lanes.dot(&lanes), words.dot(&lanes));
        assert_eq!(words.to_words().map(Vec3::from_word), v);
        lanes
    }

    #[test]
    fn lanes_dot_and_arithmetic_agree_with_the_vectors() {
        let (p, q) = (vectors(), vectors().map(|v| Vec3::new(v.z, v.y, v.x) * 0.5));
        let (lp, lq) = (lanes3(p), lanes3(q));
        let w = Vec4::new(1.0, 2.0, -1.0, 5.0);
        let (dots, sum, scaled) = (lp.dot(&lq), lp + lq, lp * w);
        for i in 0..4 {
            assert_eq!(lp.get(i), p[i]);
            assert_eq!(dots[i], p[i].dot(q[i]));
            assert_eq!(sum.get(i), p[i] + q[i]);
            assert_eq!(scaled.get(i), p[i] * w[i]);
        }
        let mut flat = Lanes2::default();
        flat.set(1, Vec2::new(3.0, 4.0));
        assert_eq!(flat.dot(&flat), Vec4::new(0.0, 25.0, 0.0, 0.0));
    }

    #[test]
    fn rotations_turn_back_each_lane() {
        let turns = [
            Quat::from_rotation_x(0.3),
            Quat::from_axis_angle(Vec3::new(1.0, 2.0, -1.0).normalize(), 2.5),
            Quat::IDENTITY,
            Quat::from_rotation_z(-1.2),
        ];
        let back =
            QuatLanes::from_words(turns.map(Quat::to_word)).inverse_rotate(&lanes3(vectors()));
        for (i, (turn, v)) in turns.iter().zip(vectors()).enumerate() {
            let expected = turn.inverse() * v;
            assert!((back.get(i) - expected).length() < 1e-5, "lane {i}");
        }
        let r = Rot2Lanes::from_words(
            [
                Rot2::IDENTITY,
                Rot2::IDENTITY,
                Rot2::from_angle(0.7),
                Rot2::IDENTITY,
            ]
            .map(Rot2::to_word),
        );
        let mut v = Lanes2::default();
        v.set(2, Vec2::new(1.0, -2.0));
        let expected = Rot2::from_angle(0.7).inverse_rotate(Vec2::new(1.0, -2.0));
        assert!((r.inverse_rotate(&v).get(2) - expected).length() < 1e-6);
    }

    #[test]
    fn symmetric_inertia_applies_like_the_matrix() {
        let m = Mat3::from_cols(
            Vec3::new(2.0, 0.1, -0.3),
            Vec3::new(0.1, 1.5, 0.2),
            Vec3::new(-0.3, 0.2, 3.0),
        );
        let mut lanes = SymmetricLanes3::default();
        lanes.set(3, m);
        let a = lanes3(vectors());
        let turned = lanes.mul(&a);
        assert!((turned.get(3) - m * vectors()[3]).length() < 1e-6);
        assert_eq!(turned.get(0), Vec3::ZERO, "an empty lane stays zero");
    }
}
