//! A rigid placement: a rotation then a translation, `world = rotation * local + translation`.

use super::dim::{MathDim, Vector};

/// Where a shape or body is: `world = rotation * local + translation`.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct Pose<D: MathDim> {
    /// Position of the local origin in world space, metres.
    pub translation: D::Vector,
    /// Orientation of the local frame.
    pub rotation: D::Rotation,
}

impl<D: MathDim> Default for Pose<D> {
    fn default() -> Self {
        Self::identity()
    }
}

impl<D: MathDim> Pose<D> {
    /// A pose from a translation and a user rotation: an angle in radians
    /// (2D, counter-clockwise) or a quaternion (3D) of any finite, non-zero
    /// length, which stands for the unit quaternion along it. A zero or
    /// non-finite rotation gives a pose that is not [`Pose::is_finite`],
    /// which the world's queries refuse.
    pub fn new(translation: D::Vector, rotation: D::Orientation) -> Self {
        Self {
            translation,
            rotation: D::rotation_from_orientation(rotation),
        }
    }

    /// The identity pose: the local frame is the world frame.
    pub fn identity() -> Self {
        Self {
            translation: D::Vector::ZERO,
            rotation: D::identity(),
        }
    }

    /// A pure translation.
    pub fn from_translation(translation: D::Vector) -> Self {
        Self {
            translation,
            rotation: D::identity(),
        }
    }

    /// The rotation in the user's form (angle in 2D, quaternion in 3D).
    pub fn orientation(&self) -> D::Orientation {
        D::orientation_of(self.rotation)
    }

    /// Maps a local point to world space.
    #[inline]
    pub fn transform_point(&self, p: D::Vector) -> D::Vector {
        D::rotate(self.rotation, p) + self.translation
    }

    /// Maps a local direction to world space (no translation).
    #[inline]
    pub fn transform_vector(&self, v: D::Vector) -> D::Vector {
        D::rotate(self.rotation, v)
    }

    /// Maps a world point into this pose's local frame.
    #[inline]
    pub fn inverse_transform_point(&self, p: D::Vector) -> D::Vector {
        D::inverse_rotate(self.rotation, p - self.translation)
    }

    /// Maps a world direction into this pose's local frame.
    #[inline]
    pub fn inverse_transform_vector(&self, v: D::Vector) -> D::Vector {
        D::inverse_rotate(self.rotation, v)
    }

    /// `self * other`: the pose of `other`'s frame when `other` is given in `self`'s frame.
    pub fn mul(&self, other: &Self) -> Self {
        Self {
            translation: self.transform_point(other.translation),
            rotation: D::compose(self.rotation, other.rotation),
        }
    }

    /// `self⁻¹`: this pose's parent frame expressed in its own.
    pub fn inverse(&self) -> Self {
        self.inv_mul(&Self::identity())
    }

    /// `self⁻¹ * other`: `other` expressed in this pose's local frame.
    pub fn inv_mul(&self, other: &Self) -> Self {
        Self {
            translation: self.inverse_transform_point(other.translation),
            rotation: D::compose(D::invert(self.rotation), other.rotation),
        }
    }

    /// True when the translation and rotation hold no NaN or infinity.
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite() && D::rotation_is_finite(self.rotation)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{D2, D3};
    use super::*;
    use glam::{Quat, Vec2, Vec3};

    #[test]
    fn inv_mul_undoes_mul() {
        let a = Pose::<D3>::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.4));
        let b = Pose::<D3>::new(Vec3::new(-1.0, 0.5, 2.0), Quat::from_rotation_x(1.1));
        let rel = a.inv_mul(&b);
        let back = a.mul(&rel);
        assert!((back.translation - b.translation).length() < 1e-5);
        let p = Vec3::new(0.3, -0.2, 0.9);
        assert!((back.transform_point(p) - b.transform_point(p)).length() < 1e-5);
    }

    #[test]
    fn two_d_pose_round_trips() {
        let a = Pose::<D2>::new(Vec2::new(1.0, 2.0), 0.3);
        let p = Vec2::new(0.5, -0.25);
        assert!((a.inverse_transform_point(a.transform_point(p)) - p).length() < 1e-6);
    }
}

/// A [`Pose`] in plain `f32`s ([`MathDim::PackedRotation`]): the same bits
/// in 28 bytes instead of 32 in 3D, for compact saved states.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PackedPose<D: MathDim> {
    /// The pose's translation.
    pub translation: D::Vector,
    /// The pose's rotation, packed.
    pub rotation: D::PackedRotation,
}

impl<D: MathDim> From<Pose<D>> for PackedPose<D> {
    fn from(pose: Pose<D>) -> Self {
        Self {
            translation: pose.translation,
            rotation: D::pack_rotation(pose.rotation),
        }
    }
}

impl<D: MathDim> From<PackedPose<D>> for Pose<D> {
    fn from(packed: PackedPose<D>) -> Self {
        Self {
            translation: packed.translation,
            rotation: D::unpack_rotation(packed.rotation),
        }
    }
}
