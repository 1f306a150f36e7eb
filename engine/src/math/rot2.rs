//! A 2D rotation stored as its cosine and sine, so rotating a vector costs no
//! trigonometry.

use glam::Vec2;

/// A rotation about Z by an angle, stored as (cos, sin). Counter-clockwise is positive.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rot2 {
    /// Cosine of the angle.
    pub cos: f32,
    /// Sine of the angle.
    pub sin: f32,
}

impl Rot2 {
    /// The zero rotation.
    pub const IDENTITY: Rot2 = Rot2 { cos: 1.0, sin: 0.0 };

    /// The rotation by `angle` radians, counter-clockwise.
    pub fn from_angle(angle: f32) -> Rot2 {
        let (sin, cos) = libm::sincosf(angle);
        Rot2 { cos, sin }
    }

    /// The angle in radians, in (-pi, pi].
    pub fn angle(self) -> f32 {
        libm::atan2f(self.sin, self.cos)
    }

    /// Rotates `v`.
    #[inline]
    pub fn rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(
            self.cos * v.x - self.sin * v.y,
            self.sin * v.x + self.cos * v.y,
        )
    }

    /// Rotates `v` by the inverse rotation.
    #[inline]
    pub fn inverse_rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(
            self.cos * v.x + self.sin * v.y,
            -self.sin * v.x + self.cos * v.y,
        )
    }

    /// The inverse rotation.
    #[inline]
    pub fn inverse(self) -> Rot2 {
        Rot2 {
            cos: self.cos,
            sin: -self.sin,
        }
    }

    /// The same rotation rescaled to unit length, undoing drift from integration.
    pub fn normalize(self) -> Rot2 {
        let len = (self.cos * self.cos + self.sin * self.sin).sqrt();
        if len > 0.0 && len.is_finite() {
            Rot2 {
                cos: self.cos / len,
                sin: self.sin / len,
            }
        } else {
            Rot2::IDENTITY
        }
    }
}

impl core::ops::Mul for Rot2 {
    type Output = Rot2;

    /// The composition `self * other`: rotate by `other`, then by `self`.
    #[inline]
    fn mul(self, other: Rot2) -> Rot2 {
        Rot2 {
            cos: self.cos * other.cos - self.sin * other.sin,
            sin: self.sin * other.cos + self.cos * other.sin,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_round_trips() {
        let r = Rot2::from_angle(0.7);
        let v = Vec2::new(1.5, -2.0);
        assert!((r.inverse_rotate(r.rotate(v)) - v).length() < 1e-6);
        assert!(((r * r.inverse()).angle()).abs() < 1e-6);
        assert!((r.angle() - 0.7).abs() < 1e-6);
    }
}
