//! Why a shape could not be built.

use core::fmt;

/// A shape constructor's refusal, one variant per cause.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeError {
    /// A size or point had a NaN or infinite component.
    NotFinite {
        /// Which input.
        what: &'static str,
    },
    /// A size was zero or negative.
    NonPositiveSize {
        /// Which input.
        what: &'static str,
        /// The value given.
        value: f32,
    },
    /// Too few points for a hull: 3 for a polygon, 4 for a polyhedron.
    TooFewPoints {
        /// How many are needed at least.
        needed: usize,
        /// How many were given.
        got: usize,
    },
    /// The points span no area (2D: all on one line) or no volume (3D: all on one plane).
    Degenerate {
        /// What they collapse to.
        reason: &'static str,
    },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::NotFinite { what } => {
                write!(f, "{what} must be finite (got NaN or infinity)")
            }
            ShapeError::NonPositiveSize { what, value } => {
                write!(f, "{what} must be greater than zero (got {value})")
            }
            ShapeError::TooFewPoints { needed, got } => {
                write!(
                    f,
                    "a convex hull needs at least {needed} points (got {got})"
                )
            }
            ShapeError::Degenerate { reason } => write!(f, "the points are degenerate: {reason}"),
        }
    }
}

impl std::error::Error for ShapeError {}
