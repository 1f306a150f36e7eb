//! A set of world coordinate axes: which of a body's directions of motion
//! or of rotation are locked.

use core::ops::BitOr;

/// A set of the world's coordinate axes, combined with `|`:
/// `Axes::X | Axes::Z`. A 2D world has the axes X and Y to move along and
/// turns about Z only; the axes it does not have are ignored.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Axes {
    /// The world X axis.
    pub x: bool,
    /// The world Y axis.
    pub y: bool,
    /// The world Z axis.
    pub z: bool,
}

impl Axes {
    /// No axis.
    pub const NONE: Self = Self::new(false, false, false);
    /// The X axis.
    pub const X: Self = Self::new(true, false, false);
    /// The Y axis.
    pub const Y: Self = Self::new(false, true, false);
    /// The Z axis.
    pub const Z: Self = Self::new(false, false, true);
    /// Every axis.
    pub const ALL: Self = Self::new(true, true, true);

    /// The axes whose flags are set.
    pub const fn new(x: bool, y: bool, z: bool) -> Self {
        Self { x, y, z }
    }

    /// True when no axis is in the set.
    pub const fn is_empty(self) -> bool {
        !(self.x || self.y || self.z)
    }

    /// The axes in both sets.
    pub const fn and(self, other: Self) -> Self {
        Self::new(self.x && other.x, self.y && other.y, self.z && other.z)
    }

    /// The flags as an array, X first.
    pub const fn to_array(self) -> [bool; 3] {
        [self.x, self.y, self.z]
    }
}

impl BitOr for Axes {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        Self::new(self.x || other.x, self.y || other.y, self.z || other.z)
    }
}
