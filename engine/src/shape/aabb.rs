//! Axis-aligned bounding boxes: what the broad phase sorts and overlaps.

use super::ShapeDim;
use crate::math::Vector;

/// An axis-aligned box in world space, `min <= max` component-wise (metres).
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct Aabb<D: ShapeDim> {
    /// Lowest corner.
    pub min: D::Vector,
    /// Highest corner.
    pub max: D::Vector,
}

impl<D: ShapeDim> Aabb<D> {
    /// The box from its two corners.
    pub fn new(min: D::Vector, max: D::Vector) -> Self {
        Self { min, max }
    }

    /// The cube (square in 2D) of half side `half` around `center`.
    pub fn around(center: D::Vector, half: f32) -> Self {
        let h = D::Vector::splat(half);
        Self {
            min: center - h,
            max: center + h,
        }
    }

    /// The tight box of a convex set given by its world-space support function.
    pub fn of_support(support: impl Fn(D::Vector) -> D::Vector) -> Self {
        let mut min = D::Vector::ZERO;
        let mut max = D::Vector::ZERO;
        for &axis in D::Vector::axes() {
            max += axis * support(axis).dot(axis);
            min += axis * support(-axis).dot(axis);
        }
        Self { min, max }
    }

    /// The box's centre.
    pub fn center(&self) -> D::Vector {
        (self.min + self.max) * 0.5
    }

    /// The box grown by `margin` on every side.
    pub fn expanded(&self, margin: f32) -> Self {
        let m = D::Vector::splat(margin);
        Self {
            min: self.min - m,
            max: self.max + m,
        }
    }

    /// The box swept along `displacement`: what it covers moving that far.
    /// A displacement that is not finite sweeps nothing.
    pub fn swept(&self, displacement: D::Vector) -> Self {
        if !displacement.is_finite() {
            return *self;
        }
        Self {
            min: self.min + displacement.min(D::Vector::ZERO),
            max: self.max + displacement.max(D::Vector::ZERO),
        }
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Self) -> Self {
        Self {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// True when the boxes share any point (touching counts).
    pub fn overlaps(&self, other: &Self) -> bool {
        (self.max - other.min).min_element() >= 0.0 && (other.max - self.min).min_element() >= 0.0
    }

    /// The world box around this local box placed at `pose`.
    pub fn transformed(&self, pose: &crate::math::Pose<D>) -> Self {
        let center = pose.transform_point((self.min + self.max) * 0.5);
        let half = (self.max - self.min) * 0.5;
        // Each turned axis, scaled by its half extent, spans |axis| on the world axes.
        let extent = D::Vector::axes()
            .iter()
            .fold(D::Vector::ZERO, |sum, &axis| {
                sum + D::rotate(pose.rotation, axis).abs() * axis.dot(half)
            });
        Self::new(center - extent, center + extent)
    }

    /// True when `other` lies wholly inside this box.
    pub fn contains(&self, other: &Self) -> bool {
        (other.min - self.min).min_element() >= 0.0 && (self.max - other.max).min_element() >= 0.0
    }
}
