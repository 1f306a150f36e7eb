//! The mathematical part of what differs between 2D and 3D: vectors,
//! rotations, angular quantities and inertias, behind [`MathDim`].
//!
//! The engine is written once over a dimension; `D2` and `D3` are the two.
//! Each layer adds what it needs on top of this trait: `ShapeDim` (hulls,
//! mass), `NarrowPhaseDim` (simplex, EPA), `ManifoldDim` (manifold sizes)
//! and the solver's own; `tumble::Dim` is their sum.

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};

use glam::{Mat3, Quat, Vec2, Vec3, Vec4};

use super::word::SimdWord;
use super::{Axes, MaybeSerde, Rot2};

/// Vector operations shared by [`Vec2`] and [`Vec3`]: the generic code's view
/// of glam.
pub trait Vector:
    SimdWord
    + Copy
    + Debug
    + Default
    + PartialEq
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<f32, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign<f32>
    + 'static
{
    /// The zero vector.
    const ZERO: Self;
    /// Dot product.
    fn dot(self, other: Self) -> f32;
    /// Squared Euclidean length.
    fn length_squared(self) -> f32 {
        self.dot(self)
    }
    /// Euclidean length.
    fn length(self) -> f32 {
        self.length_squared().sqrt()
    }
    /// Component-wise minimum.
    fn min(self, other: Self) -> Self;
    /// Component-wise maximum.
    fn max(self, other: Self) -> Self;
    /// Component-wise absolute value.
    fn abs(self) -> Self;
    /// Largest component.
    fn max_element(self) -> f32;
    /// Smallest component.
    fn min_element(self) -> f32;
    /// The vector with every component equal to `v`.
    fn splat(v: f32) -> Self;
    /// True when no component is NaN or infinite.
    fn is_finite(self) -> bool;
    /// Each component's magnitude with the sign of `sign`'s component.
    fn copysign(self, sign: Self) -> Self;
    /// The unit vector along the local Y axis (the capsule axis).
    fn unit_y() -> Self;
    /// The coordinate axes' unit vectors.
    fn axes() -> &'static [Self];
}

macro_rules! impl_vector {
    ($t:ty, $y:expr) => {
        impl Vector for $t {
            const ZERO: Self = <$t>::ZERO;
            #[inline]
            fn dot(self, other: Self) -> f32 {
                <$t>::dot(self, other)
            }
            #[inline]
            fn min(self, other: Self) -> Self {
                <$t>::min(self, other)
            }
            #[inline]
            fn max(self, other: Self) -> Self {
                <$t>::max(self, other)
            }
            #[inline]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline]
            fn max_element(self) -> f32 {
                <$t>::max_element(self)
            }
            #[inline]
            fn min_element(self) -> f32 {
                <$t>::min_element(self)
            }
            #[inline]
            fn splat(v: f32) -> Self {
                <$t>::splat(v)
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline]
            fn copysign(self, sign: Self) -> Self {
                <$t>::copysign(self, sign)
            }
            #[inline]
            fn unit_y() -> Self {
                $y
            }
            #[inline]
            fn axes() -> &'static [Self] {
                &<$t>::AXES
            }
        }
    };
}
impl_vector!(Vec2, Vec2::Y);
impl_vector!(Vec3, Vec3::Y);

/// Angular quantities (angular velocity, torque, angular impulse): `f32` about
/// Z in 2D, a `Vec3` in 3D.
pub trait Angular:
    SimdWord
    + Copy
    + Debug
    + Default
    + PartialEq
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<f32, Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + 'static
{
    /// Dot product (plain product in 2D).
    fn dot(self, other: Self) -> f32;
    /// True when no component is NaN or infinite.
    fn is_finite(self) -> bool;
}

impl Angular for f32 {
    #[inline]
    fn dot(self, other: Self) -> f32 {
        self * other
    }
    #[inline]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
}

impl Angular for Vec3 {
    #[inline]
    fn dot(self, other: Self) -> f32 {
        Vec3::dot(self, other)
    }
    #[inline]
    fn is_finite(self) -> bool {
        Vec3::is_finite(self)
    }
}

/// A spatial dimension's mathematics: [`D2`] or [`D3`]. Vectors, rotations,
/// angular quantities and inertias, and the operations on them.
pub trait MathDim: Copy + Clone + Debug + Default + PartialEq + Send + Sync + 'static {
    /// Number of spatial dimensions (2 or 3).
    const N: usize;
    /// Directions across a contact normal, for friction (1 in 2D, 2 in 3D).
    const TANGENTS: usize;
    /// A point or a displacement, in metres.
    type Vector: Vector + MaybeSerde;
    /// A rotation as the engine stores it: [`Rot2`] (cosine, sine) or a unit [`Quat`].
    type Rotation: Copy + Debug + PartialEq + Send + Sync + SimdWord + MaybeSerde + 'static;
    /// An orientation as users give and read it: an angle in radians (2D)
    /// or a [`Quat`] (3D) of any finite, non-zero length, standing for the
    /// unit one along it. The engine stores it as a [`MathDim::Rotation`].
    type Orientation: Copy + Debug + PartialEq + Send + Sync + MaybeSerde + 'static;
    /// Angular velocity: radians per second about Z (2D, `f32`) or an axis-rate vector (3D).
    type AngularVector: Angular + MaybeSerde;
    /// Rotational inertia about the centre of mass: a scalar (2D) or a 3x3 tensor (3D), kg·m².
    type Inertia: Copy + Debug + PartialEq + Send + Sync + MaybeSerde + 'static;
    /// A stored rotation in plain `f32`s, the same bits without the SIMD
    /// alignment a quaternion carries (16 bytes): for compact saved
    /// states ([`PackedPose`](super::PackedPose)).
    type PackedRotation: Copy + Debug + PartialEq + Send + Sync + MaybeSerde + 'static;

    /// The world axes a body moves along: X and Y in 2D, all three in 3D.
    const TRANSLATION_AXES: Axes;
    /// The world axes a body turns about: Z in 2D, all three in 3D.
    const ROTATION_AXES: Axes;

    /// `v` with its components along the `locked` axes set to zero (set,
    /// not multiplied: an infinity or NaN there is gone too).
    fn lock_linear(v: Self::Vector, locked: Axes) -> Self::Vector;
    /// `w` with its components about the `locked` axes set to zero.
    fn lock_angular(w: Self::AngularVector, locked: Axes) -> Self::AngularVector;
    /// A world-space inverse inertia with the rows and columns of the
    /// `locked` axes set to zero: no angular impulse turns the body about
    /// them, and none about them turns it about another axis.
    fn lock_inverse_inertia(inverse: Self::Inertia, locked: Axes) -> Self::Inertia;
    /// `inertia` times `factor` (a body's inertia when its mass is scaled
    /// by `factor` and its mass distributed alike).
    fn scale_inertia(inertia: Self::Inertia, factor: f32) -> Self::Inertia;
    /// A user's inertia about the centre of mass as the world keeps it: in
    /// 2D a finite, positive moment; in 3D a finite tensor, symmetric to
    /// rounding (each entry within [`INERTIA_SYMMETRY_TOLERANCE`] of the
    /// largest from its mirror image; its symmetric part is kept, which the
    /// solver reads), and positive definite. Otherwise the value to blame,
    /// kg·m²: a moment (diagonal entry) that is not finite and positive,
    /// else the largest asymmetry, else the smallest moment.
    fn user_inertia(inertia: Self::Inertia) -> Result<Self::Inertia, f32>;

    /// The identity rotation.
    fn identity() -> Self::Rotation;
    /// `r` packed, bit for bit.
    fn pack_rotation(r: Self::Rotation) -> Self::PackedRotation;
    /// The rotation [`MathDim::pack_rotation`] packed, bit for bit.
    fn unpack_rotation(packed: Self::PackedRotation) -> Self::Rotation;
    /// The stored rotation for a user's rotation: in 2D the rotation by any
    /// finite angle; in 3D the unit quaternion along any finite, non-zero
    /// quaternion, however long or short (see `unit_quaternion`). A zero
    /// or non-finite rotation gives a non-finite one, which
    /// [`MathDim::rotation_is_finite`] reports.
    fn rotation_from_orientation(orientation: Self::Orientation) -> Self::Rotation;
    /// The user's form of a stored rotation.
    fn orientation_of(rotation: Self::Rotation) -> Self::Orientation;
    /// True when every component of the user's rotation is finite.
    fn orientation_is_finite(orientation: Self::Orientation) -> bool;
    /// True when every component of a stored rotation is finite (no
    /// trigonometry: this runs for every pair query).
    fn rotation_is_finite(rotation: Self::Rotation) -> bool;
    /// Rotates `v` by `r`.
    fn rotate(r: Self::Rotation, v: Self::Vector) -> Self::Vector;
    /// Rotates `v` by the inverse of `r`.
    fn inverse_rotate(r: Self::Rotation, v: Self::Vector) -> Self::Vector;
    /// The composition `a * b`: rotate by `b`, then by `a`.
    fn compose(a: Self::Rotation, b: Self::Rotation) -> Self::Rotation;
    /// The inverse rotation.
    fn invert(r: Self::Rotation) -> Self::Rotation;
    /// `r` turned further by `turn` (`turn * r`), renormalised: a step's
    /// turn added onto the rotation the step began from.
    fn turn_by(r: Self::Rotation, turn: Self::Rotation) -> Self::Rotation;

    /// `r × v`: the angular quantity of a linear one applied at lever `r`.
    fn cross(r: Self::Vector, v: Self::Vector) -> Self::AngularVector;
    /// `ω × r`: the velocity of lever `r` spinning at `ω`.
    fn angular_cross(w: Self::AngularVector, r: Self::Vector) -> Self::Vector;
    /// A part's inertia, turned by `rotation` and moved `offset` away from
    /// the axis: about the body's centre (parallel axis theorem).
    fn inertia_about(
        inertia: Self::Inertia,
        rotation: Self::Rotation,
        mass: f32,
        offset: Self::Vector,
    ) -> Self::Inertia;
    /// The sum of two inertias.
    fn add_inertia(a: Self::Inertia, b: Self::Inertia) -> Self::Inertia;
    /// The zero inertia (inverse of a body that cannot turn).
    fn zero_inertia() -> Self::Inertia;
    /// True when two inertias have the same bits in every entry (unlike
    /// `==`, which takes -0.0 for 0.0): what a saved copy may stand for.
    fn same_inertia_bits(a: Self::Inertia, b: Self::Inertia) -> bool;
    /// The inverse of an inertia (zero stays zero: a body that cannot turn).
    fn invert_inertia(inertia: Self::Inertia) -> Self::Inertia;
    /// The inverse of a dynamic body's inertia, if the solver can use it:
    /// the inertia finite and positive (definite), its inverse finite and
    /// non-zero. Otherwise the moment of inertia to blame, kg·m²: one that
    /// is not finite and positive, else the smallest.
    fn usable_inverse_inertia(inertia: Self::Inertia) -> Result<Self::Inertia, f32>;
    /// A local inverse inertia seen in world space under rotation `r`.
    fn rotate_inertia(r: Self::Rotation, local: Self::Inertia) -> Self::Inertia;
    /// Applies an (inverse) inertia to an angular quantity.
    fn mul_inertia(inertia: Self::Inertia, a: Self::AngularVector) -> Self::AngularVector;
    /// The rotation after spinning at `w` for `dt` seconds, renormalised.
    fn integrate_rotation(r: Self::Rotation, w: Self::AngularVector, dt: f32) -> Self::Rotation;
    /// The angular velocity that turns `from` into `to` in `dt` seconds, the short way round.
    fn angular_velocity_between(
        from: Self::Rotation,
        to: Self::Rotation,
        dt: f32,
    ) -> Self::AngularVector;
    /// How far turning from `from` to `to` moves a point at unit distance
    /// from the axis: the chord `2 sin(θ/2)`, no more than the angle θ.
    fn turn_chord(from: Self::Rotation, to: Self::Rotation) -> f32;
    /// The rotation a share `t` (0 to 1) of the way from `from` to `to`,
    /// turning at a steady rate the short way round (slerp).
    fn interpolate(from: Self::Rotation, to: Self::Rotation, t: f32) -> Self::Rotation;
    /// The angle, radians in [0, π], of the turn from `from` to `to`.
    fn turn_angle(from: Self::Rotation, to: Self::Rotation) -> f32;
    /// Unit tangents across unit normal `n`, the first [`MathDim::TANGENTS`] of them.
    fn tangents(n: Self::Vector) -> [Self::Vector; 2];
    /// Small rotations that tilt a shape across normal `n` by `angle`, for
    /// manifold perturbation: two in 2D (±angle), four in 3D (about axes
    /// 90 degrees apart around `n`); the count.
    fn tilts(n: Self::Vector, angle: f32) -> ([Self::Rotation; 4], usize);
}

/// Two dimensions: `Vec2` points, rotations by an angle about Z.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct D2;

/// Three dimensions: `Vec3` points, rotations by unit quaternions.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct D3;

impl MathDim for D2 {
    const N: usize = 2;
    const TANGENTS: usize = 1;
    type Vector = Vec2;
    type Rotation = Rot2;
    type Orientation = f32;
    type AngularVector = f32;
    type Inertia = f32;
    type PackedRotation = Rot2;

    const TRANSLATION_AXES: Axes = Axes::new(true, true, false);
    const ROTATION_AXES: Axes = Axes::Z;
    fn lock_linear(mut v: Vec2, locked: Axes) -> Vec2 {
        if locked.x {
            v.x = 0.0;
        }
        if locked.y {
            v.y = 0.0;
        }
        v
    }
    fn lock_angular(w: f32, locked: Axes) -> f32 {
        if locked.z {
            0.0
        } else {
            w
        }
    }
    fn lock_inverse_inertia(inverse: f32, locked: Axes) -> f32 {
        Self::lock_angular(inverse, locked)
    }
    fn scale_inertia(inertia: f32, factor: f32) -> f32 {
        inertia * factor
    }
    fn user_inertia(inertia: f32) -> Result<f32, f32> {
        if inertia.is_finite() && inertia > 0.0 {
            Ok(inertia)
        } else {
            Err(inertia)
        }
    }
    fn identity() -> Rot2 {
        Rot2::IDENTITY
    }
    fn pack_rotation(r: Rot2) -> Rot2 {
        r
    }
    fn unpack_rotation(packed: Rot2) -> Rot2 {
        packed
    }
    fn rotation_from_orientation(orientation: f32) -> Rot2 {
        Rot2::from_angle(orientation)
    }
    fn orientation_of(rotation: Rot2) -> f32 {
        rotation.angle()
    }
    fn orientation_is_finite(orientation: f32) -> bool {
        orientation.is_finite()
    }
    #[inline]
    fn rotation_is_finite(rotation: Rot2) -> bool {
        rotation.cos.is_finite() && rotation.sin.is_finite()
    }
    #[inline]
    fn rotate(r: Rot2, v: Vec2) -> Vec2 {
        r.rotate(v)
    }
    #[inline]
    fn inverse_rotate(r: Rot2, v: Vec2) -> Vec2 {
        r.inverse_rotate(v)
    }
    #[inline]
    fn compose(a: Rot2, b: Rot2) -> Rot2 {
        a * b
    }
    #[inline]
    fn turn_by(r: Rot2, turn: Rot2) -> Rot2 {
        (turn * r).normalize()
    }
    #[inline]
    fn invert(r: Rot2) -> Rot2 {
        r.inverse()
    }
    #[inline]
    fn cross(r: Vec2, v: Vec2) -> f32 {
        r.perp_dot(v)
    }
    #[inline]
    fn angular_cross(w: f32, r: Vec2) -> Vec2 {
        r.perp() * w
    }
    fn inertia_about(inertia: f32, _rotation: Rot2, mass: f32, offset: Vec2) -> f32 {
        inertia + mass * offset.length_squared()
    }
    fn add_inertia(a: f32, b: f32) -> f32 {
        a + b
    }
    fn zero_inertia() -> f32 {
        0.0
    }
    fn same_inertia_bits(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits()
    }
    fn invert_inertia(inertia: f32) -> f32 {
        if inertia > 0.0 {
            1.0 / inertia
        } else {
            0.0
        }
    }
    fn usable_inverse_inertia(inertia: f32) -> Result<f32, f32> {
        let inverse = Self::invert_inertia(inertia);
        if inertia.is_finite() && inertia > 0.0 && inverse.is_finite() {
            Ok(inverse)
        } else {
            Err(inertia)
        }
    }
    #[inline]
    fn rotate_inertia(_r: Rot2, local: f32) -> f32 {
        local
    }
    #[inline]
    fn mul_inertia(inertia: f32, a: f32) -> f32 {
        inertia * a
    }
    fn integrate_rotation(r: Rot2, w: f32, dt: f32) -> Rot2 {
        // First order on the unit circle, then back onto it (Box2D's b2IntegrateRotation).
        let h = w * dt;
        Rot2 {
            cos: r.cos - h * r.sin,
            sin: r.sin + h * r.cos,
        }
        .normalize()
    }
    fn angular_velocity_between(from: Rot2, to: Rot2, dt: f32) -> f32 {
        (to * from.inverse()).angle() / dt
    }
    fn interpolate(from: Rot2, to: Rot2, t: f32) -> Rot2 {
        let angle = (to * from.inverse()).angle();
        Rot2::from_angle(angle * t) * from
    }
    fn turn_angle(from: Rot2, to: Rot2) -> f32 {
        (to * from.inverse()).angle().abs()
    }
    fn turn_chord(from: Rot2, to: Rot2) -> f32 {
        let turn = to * from.inverse();
        // |(cos θ, sin θ) - (1, 0)| = 2 sin(θ/2).
        (Vec2::new(turn.cos, turn.sin) - Vec2::X).length()
    }
    fn tangents(n: Vec2) -> [Vec2; 2] {
        [-n.perp(), Vec2::ZERO]
    }
    fn tilts(_n: Vec2, angle: f32) -> ([Rot2; 4], usize) {
        let r = Rot2::from_angle(angle);
        ([r, r.inverse(), Rot2::IDENTITY, Rot2::IDENTITY], 2)
    }
}

impl MathDim for D3 {
    const N: usize = 3;
    const TANGENTS: usize = 2;
    type Vector = Vec3;
    type Rotation = Quat;
    type Orientation = Quat;
    type AngularVector = Vec3;
    type Inertia = Mat3;
    type PackedRotation = [f32; 4];

    const TRANSLATION_AXES: Axes = Axes::ALL;
    const ROTATION_AXES: Axes = Axes::ALL;
    fn lock_linear(v: Vec3, locked: Axes) -> Vec3 {
        let keep = locked.to_array().map(|locked| !locked);
        Vec3::select(glam::BVec3::from_array(keep), v, Vec3::ZERO)
    }
    fn lock_angular(w: Vec3, locked: Axes) -> Vec3 {
        Self::lock_linear(w, locked)
    }
    fn lock_inverse_inertia(inverse: Mat3, locked: Axes) -> Mat3 {
        // Columns, then rows: the matrix is symmetric, so zeroing a column's
        // entries along the locked axes zeroes the rows too.
        let column = |c: Vec3, locked_column: bool| {
            if locked_column {
                Vec3::ZERO
            } else {
                Self::lock_linear(c, locked)
            }
        };
        Mat3::from_cols(
            column(inverse.x_axis, locked.x),
            column(inverse.y_axis, locked.y),
            column(inverse.z_axis, locked.z),
        )
    }
    fn scale_inertia(inertia: Mat3, factor: f32) -> Mat3 {
        inertia * factor
    }
    fn user_inertia(inertia: Mat3) -> Result<Mat3, f32> {
        let moments = inertia.diagonal();
        if let Some(bad) = moments
            .to_array()
            .into_iter()
            .find(|m| !(m.is_finite() && *m > 0.0))
        {
            return Err(bad);
        }
        if let Some(bad) = inertia.to_cols_array().into_iter().find(|m| !m.is_finite()) {
            return Err(bad);
        }
        let largest = inertia
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f32::max);
        let asymmetry = (inertia - inertia.transpose())
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f32::max);
        if asymmetry > INERTIA_SYMMETRY_TOLERANCE * largest {
            return Err(asymmetry);
        }
        let symmetric = (inertia + inertia.transpose()) * 0.5;
        // Sylvester's criterion on the tensor divided by the power of two
        // at or below its largest entry (exact), so that the minors, products
        // of up to three moments, neither underflow nor overflow.
        let power = f32::from_bits(largest.to_bits() & EXPONENT_BITS);
        let m = symmetric * (1.0 / power);
        let (a, b) = (m.x_axis, m.y_axis);
        let minor = a.x * b.y - a.y * b.x;
        let definite = a.x > 0.0 && minor > 0.0 && m.determinant() > 0.0;
        if definite {
            Ok(symmetric)
        } else {
            Err(moments.min_element())
        }
    }
    fn identity() -> Quat {
        Quat::IDENTITY
    }
    fn pack_rotation(r: Quat) -> [f32; 4] {
        r.to_array()
    }
    fn unpack_rotation(packed: [f32; 4]) -> Quat {
        Quat::from_array(packed)
    }
    fn rotation_from_orientation(orientation: Quat) -> Quat {
        unit_quaternion(orientation).unwrap_or(Quat::NAN)
    }
    fn orientation_of(rotation: Quat) -> Quat {
        rotation
    }
    fn orientation_is_finite(orientation: Quat) -> bool {
        orientation.is_finite()
    }
    #[inline]
    fn rotation_is_finite(rotation: Quat) -> bool {
        // A stored rotation is a unit quaternion; the length test also
        // refuses a zero one placed in a hand-built `Pose`.
        rotation.is_finite() && rotation.length_squared() > 1e-12
    }
    #[inline]
    fn rotate(r: Quat, v: Vec3) -> Vec3 {
        r * v
    }
    #[inline]
    fn inverse_rotate(r: Quat, v: Vec3) -> Vec3 {
        r.inverse() * v
    }
    #[inline]
    fn compose(a: Quat, b: Quat) -> Quat {
        a * b
    }
    #[inline]
    fn turn_by(r: Quat, turn: Quat) -> Quat {
        (turn * r).normalize()
    }
    #[inline]
    fn invert(r: Quat) -> Quat {
        r.inverse()
    }
    #[inline]
    fn cross(r: Vec3, v: Vec3) -> Vec3 {
        r.cross(v)
    }
    #[inline]
    fn angular_cross(w: Vec3, r: Vec3) -> Vec3 {
        w.cross(r)
    }
    fn inertia_about(inertia: Mat3, rotation: Quat, mass: f32, offset: Vec3) -> Mat3 {
        let turn = Mat3::from_quat(rotation);
        let d = offset;
        let shift = Mat3::from_diagonal(Vec3::splat(d.length_squared()))
            - Mat3::from_cols(d * d.x, d * d.y, d * d.z);
        turn * inertia * turn.transpose() + shift * mass
    }
    fn add_inertia(a: Mat3, b: Mat3) -> Mat3 {
        a + b
    }
    fn zero_inertia() -> Mat3 {
        Mat3::ZERO
    }
    fn same_inertia_bits(a: Mat3, b: Mat3) -> bool {
        let (a, b) = (a.to_cols_array(), b.to_cols_array());
        a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits())
    }
    fn invert_inertia(inertia: Mat3) -> Mat3 {
        // The determinant is a product of three moments: for a body of a
        // few millimetres it underflows although the inverse is an
        // ordinary number. So the tensor is first divided by the power of
        // two at or below its largest entry (exact, and commuting with
        // every rounding step of the inverse: an inverse that was
        // computable before gives the same bits).
        let largest = inertia
            .abs()
            .to_cols_array()
            .into_iter()
            .fold(0.0, f32::max);
        if !(inertia.is_finite() && largest >= f32::MIN_POSITIVE) {
            return Mat3::ZERO;
        }
        let power = f32::from_bits(largest.to_bits() & EXPONENT_BITS);
        let scaled = inertia * (1.0 / power);
        let det = scaled.determinant();
        if det.abs() > f32::MIN_POSITIVE && det.is_finite() {
            scaled.inverse() * (1.0 / power)
        } else {
            Mat3::ZERO
        }
    }
    fn usable_inverse_inertia(inertia: Mat3) -> Result<Mat3, f32> {
        let moments = inertia.diagonal();
        let inverse = Self::invert_inertia(inertia);
        let usable = inertia.is_finite()
            && moments.min_element() > 0.0
            && inverse.is_finite()
            && inverse.diagonal().min_element() > 0.0;
        if usable {
            Ok(inverse)
        } else {
            let bad = |m: &f32| !(m.is_finite() && *m > 0.0);
            Err(moments
                .to_array()
                .into_iter()
                .find(bad)
                .unwrap_or(moments.min_element()))
        }
    }
    #[inline]
    fn rotate_inertia(r: Quat, local: Mat3) -> Mat3 {
        let m = Mat3::from_quat(r);
        m * local * m.transpose()
    }
    #[inline]
    fn mul_inertia(inertia: Mat3, a: Vec3) -> Vec3 {
        inertia * a
    }
    fn integrate_rotation(r: Quat, w: Vec3, dt: f32) -> Quat {
        // q' = q + dt/2 (w, 0) q, renormalised.
        let dq = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * r;
        let q = Quat::from_xyzw(
            r.x + 0.5 * dt * dq.x,
            r.y + 0.5 * dt * dq.y,
            r.z + 0.5 * dt * dq.z,
            r.w + 0.5 * dt * dq.w,
        );
        let len = q.length();
        if len > 0.0 && len.is_finite() {
            q * (1.0 / len)
        } else {
            r
        }
    }
    fn angular_velocity_between(from: Quat, to: Quat, dt: f32) -> Vec3 {
        let turn = to * from.inverse();
        let turn = if turn.w < 0.0 { -turn } else { turn };
        let (axis, angle) = turn.to_axis_angle();
        axis * (angle / dt)
    }
    fn interpolate(from: Quat, to: Quat, t: f32) -> Quat {
        // glam's `slerp`, but with libm's sines: glam's SSE2 build takes
        // them from its own polynomial and its other builds from libm, so
        // its results differ across platforms.
        let (to, dot) = match from.dot(to) {
            dot if dot < 0.0 => (-to, -dot),
            dot => (to, dot),
        };
        if dot > 1.0 - f32::EPSILON {
            // Nearly the same rotation: no sine to divide by.
            return (from * (1.0 - t) + to * t).normalize();
        }
        let theta = libm::acosf(dot);
        let (a, b) = (libm::sinf(theta * (1.0 - t)), libm::sinf(theta * t));
        (from * a + to * b) * (1.0 / libm::sinf(theta))
    }
    fn turn_angle(from: Quat, to: Quat) -> f32 {
        let turn = to * from.inverse();
        2.0 * libm::atan2f(turn.xyz().length(), turn.w.abs())
    }
    fn turn_chord(from: Quat, to: Quat) -> f32 {
        // The turn's vector part has length sin(θ/2).
        2.0 * (to * from.inverse()).xyz().length()
    }
    fn tangents(n: Vec3) -> [Vec3; 2] {
        // Continuous near the axes, where resting normals live, so that the
        // friction impulses kept from the last step still point the same way.
        let reference = if n.x.abs() < 0.57 { Vec3::X } else { Vec3::Y };
        let t1 = (reference - n * n.dot(reference)).normalize();
        [t1, n.cross(t1)]
    }
    fn tilts(n: Vec3, angle: f32) -> ([Quat; 4], usize) {
        // Diagonal axes: a box whose edges follow the tangent basis then
        // shows a corner, not an edge's midpoint, to each tilt.
        let (u, v) = n.any_orthonormal_pair();
        let (d, e) = (
            (u + v) * core::f32::consts::FRAC_1_SQRT_2,
            (u - v) * core::f32::consts::FRAC_1_SQRT_2,
        );
        let about = |axis: Vec3| Quat::from_axis_angle(axis, angle);
        ([about(d), about(e), about(-d), about(-e)], 4)
    }
}

/// How far a user's 3D inertia tensor may differ from its transpose, as a
/// share of its largest entry: rounding in a tensor built as `R · I · Rᵀ`
/// leaves it a few ulps from symmetric; more is a mistake.
pub const INERTIA_SYMMETRY_TOLERANCE: f32 = 1e-5;

/// The bits of an `f32` that hold its exponent: masked out of a positive
/// normal number they give the largest power of two at or below it.
const EXPONENT_BITS: u32 = 0x7f80_0000;

/// `2^64`: multiplying by it is exact and lifts any subnormal `f32` (below
/// `2^-126`) into the normal range.
const SUBNORMAL_LIFT: f32 = 18_446_744_073_709_551_616.0;

/// The unit quaternion along `q`, or `None` when `q` is zero or has a NaN or
/// infinite component: then it names no rotation.
///
/// [`Quat::normalize`] alone squares the components, which overflows to
/// infinity from about `1.8e19` (giving a zero quaternion) and underflows to
/// zero below about `1e-19` (giving infinities). So `q` is first divided by
/// the largest power of two at or below its largest component: exact,
/// leaving that component in `[1, 2)` and the squared length in `[1, 16)`.
/// Scaling by a power of two commutes with every rounding step of the
/// normalisation, so a quaternion whose squared length neither overflows
/// nor underflows normalises bit for bit as [`Quat::normalize`] does.
fn unit_quaternion(q: Quat) -> Option<Quat> {
    let mut v = Vec4::from(q);
    if !v.is_finite() {
        return None;
    }
    let mut largest = v.abs().max_element();
    if largest == 0.0 {
        return None;
    }
    if largest < f32::MIN_POSITIVE {
        v *= SUBNORMAL_LIFT;
        largest *= SUBNORMAL_LIFT;
    }
    let power = f32::from_bits(largest.to_bits() & EXPONENT_BITS);
    Some(Quat::from_vec4((v / power).normalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inertia_inverts_bit_for_bit_as_before_and_at_any_scale() {
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32
        };
        for _ in 0..10_000 {
            // A body's inertia: positive moments turned by a rotation.
            let moments = Vec3::new(next(), next(), next()) * 10.0 + Vec3::splat(0.01);
            let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5 + 1e-3).normalize();
            let turn = Mat3::from_quat(Quat::from_axis_angle(axis, next() * 6.0));
            let inertia = turn * Mat3::from_diagonal(moments) * turn.transpose();
            assert_eq!(
                D3::invert_inertia(inertia)
                    .to_cols_array()
                    .map(f32::to_bits),
                inertia.inverse().to_cols_array().map(f32::to_bits),
                "{inertia:?}"
            );
        }
        // A ball of radius 1 mm at density 1: the determinant underflows.
        let moment = 1.675_516_7e-15;
        let inverse = D3::invert_inertia(Mat3::from_diagonal(Vec3::splat(moment)));
        assert!(
            (inverse.x_axis.x * moment - 1.0).abs() < 1e-6,
            "{inverse:?}"
        );
        assert!(D3::usable_inverse_inertia(Mat3::from_diagonal(Vec3::splat(moment))).is_ok());
        for bad in [0.0, 1e-40, f32::INFINITY, f32::NAN] {
            let inertia = Mat3::from_diagonal(Vec3::new(1.0, bad, 1.0));
            assert!(D3::usable_inverse_inertia(inertia).is_err(), "{bad}");
            assert!(D2::usable_inverse_inertia(bad).is_err(), "{bad}");
        }
        assert_eq!(D3::invert_inertia(Mat3::ZERO), Mat3::ZERO);
    }

    #[test]
    fn quaternions_normalise_bit_for_bit_as_before_and_at_any_scale() {
        // Unit and ordinary quaternions: exactly what `Quat::normalize` gives.
        let mut seed = 1u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as f32 / (1 << 24) as f32 * 2.0 - 1.0
        };
        for i in 0..10_000 {
            let raw = Quat::from_xyzw(next(), next(), next(), next());
            let q = if i % 2 == 0 {
                raw.normalize()
            } else {
                raw * 7.5
            };
            let ours = D3::rotation_from_orientation(q);
            assert_eq!(
                Vec4::from(ours).to_array().map(f32::to_bits),
                Vec4::from(q.normalize()).to_array().map(f32::to_bits),
                "{q:?}"
            );
        }
        for q in [Quat::IDENTITY, Quat::from_rotation_y(0.3), -Quat::IDENTITY] {
            assert_eq!(D3::rotation_from_orientation(q), q.normalize());
        }
        // Any finite, non-zero size: the same direction.
        let unit = Quat::from_axis_angle(Vec3::new(1.0, -2.0, 0.5).normalize(), 0.7);
        for scale in [f32::MAX / 2.0, 1e30, 1e20, 1e-20, 1e-30, 1e-37] {
            let q = Quat::from_vec4(Vec4::from(unit) * scale);
            let ours = Vec4::from(D3::rotation_from_orientation(q));
            assert!(
                (ours - Vec4::from(unit)).length() < 1e-6,
                "{scale}: {ours:?}"
            );
        }
        let largest = Quat::from_xyzw(f32::MAX, -f32::MAX, f32::MAX, f32::MAX);
        let ours = Vec4::from(D3::rotation_from_orientation(largest));
        assert!((ours - Vec4::new(0.5, -0.5, 0.5, 0.5)).length() < 1e-6);
        // Subnormal components: the smallest positive f32 along one axis.
        let tiny = f32::from_bits(1);
        assert_eq!(
            D3::rotation_from_orientation(Quat::from_xyzw(0.0, -tiny, 0.0, 0.0)),
            Quat::from_xyzw(0.0, -1.0, 0.0, 0.0)
        );
        let ours = Vec4::from(D3::rotation_from_orientation(Quat::from_xyzw(
            3.0 * tiny,
            0.0,
            4.0 * tiny,
            0.0,
        )));
        assert!((ours - Vec4::new(0.6, 0.0, 0.8, 0.0)).length() < 1e-6);
        // Nothing to normalise.
        for q in [
            Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            Quat::from_xyzw(-0.0, 0.0, -0.0, 0.0),
            Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
            Quat::from_xyzw(0.0, f32::INFINITY, 0.0, 1.0),
        ] {
            assert!(
                !D3::rotation_is_finite(D3::rotation_from_orientation(q)),
                "{q:?}"
            );
        }
    }

    #[test]
    fn turn_chord_is_how_far_a_unit_point_moves() {
        let chord = |angle: f32| 2.0 * libm::sinf(angle / 2.0);
        let d2 = D2::turn_chord(Rot2::from_angle(0.3), Rot2::from_angle(1.0));
        assert!((d2 - chord(0.7)).abs() < 1e-6);
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        let from = Quat::from_axis_angle(Vec3::Y, 0.4);
        let to = Quat::from_axis_angle(axis, 2.5) * from;
        assert!((D3::turn_chord(from, to) - chord(2.5)).abs() < 1e-5);
        assert!((D3::turn_chord(from, -to) - chord(2.5)).abs() < 1e-5);
    }

    #[test]
    #[allow(clippy::disallowed_methods)] // glam's slerp as the reference
    fn interpolation_is_slerp_the_short_way() {
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        let from = Quat::from_axis_angle(Vec3::Y, 0.4);
        for (to, turn) in [
            (Quat::from_axis_angle(axis, 2.5) * from, 2.5),
            // The same rotation as its negation: still the short way.
            (-(Quat::from_axis_angle(axis, 0.3) * from), 0.3),
            // Nearly no turn: the normalised lerp.
            (Quat::from_axis_angle(axis, 1e-4) * from, 1e-4),
        ] {
            for t in [0.0, 0.25, 0.5, 1.0] {
                let ours = D3::interpolate(from, to, t);
                assert!(ours.is_normalized(), "{ours:?}");
                assert!(ours.abs_diff_eq(from.slerp(to, t), 1e-5), "t {t}");
                assert!(
                    (D3::turn_angle(from, ours) - turn * t).abs() < 1e-4,
                    "t {t}"
                );
            }
        }
    }
}
