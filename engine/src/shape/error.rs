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
    /// Too few points: 3 for a polygon, 4 for a polyhedron, 2 for an open
    /// chain, 3 for a closed one.
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
    /// A surface was given nothing to be made of.
    EmptySurface {
        /// Which input was empty.
        what: &'static str,
    },
    /// A triangle named a vertex past the end of the vertex list.
    IndexOutOfRange {
        /// The index given.
        index: u32,
        /// How many vertices there are.
        vertices: usize,
    },
    /// A triangle named the same vertex twice.
    RepeatedIndex {
        /// Which triangle (its position in the index list).
        triangle: usize,
    },
    /// A heightfield's sample list does not hold rows × columns samples.
    WrongSampleCount {
        /// rows × columns (`usize::MAX` when that product overflows).
        expected: usize,
        /// How many samples were given.
        got: usize,
    },
    /// A heightfield needs at least 2 rows and 2 columns of samples.
    GridTooSmall {
        /// Rows given.
        rows: usize,
        /// Columns given.
        columns: usize,
    },
    /// Every facet of a surface spans no length (2D) or area (3D).
    AllFacetsDegenerate {
        /// How many facets were dropped: all of them.
        dropped: usize,
    },
    /// A surface would have more facets than `u32` indices can name.
    TooManyFacets {
        /// How many it would have.
        count: usize,
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
                write!(f, "at least {needed} points are needed (got {got})")
            }
            ShapeError::Degenerate { reason } => write!(f, "the points are degenerate: {reason}"),
            ShapeError::EmptySurface { what } => write!(f, "{what} must not be empty"),
            ShapeError::IndexOutOfRange { index, vertices } => write!(
                f,
                "vertex index {index} is out of range (there are {vertices} vertices)"
            ),
            ShapeError::RepeatedIndex { triangle } => {
                write!(f, "triangle {triangle} names the same vertex twice")
            }
            ShapeError::WrongSampleCount { expected, got } => write!(
                f,
                "a heightfield needs rows x columns = {expected} samples (got {got})"
            ),
            ShapeError::GridTooSmall { rows, columns } => write!(
                f,
                "a heightfield needs at least 2 x 2 samples (got {rows} x {columns})"
            ),
            ShapeError::AllFacetsDegenerate { dropped } => {
                write!(f, "all {dropped} facets span no length or area")
            }
            ShapeError::TooManyFacets { count } => write!(
                f,
                "a surface holds at most {} facets (got {count})",
                u32::MAX
            ),
        }
    }
}

impl std::error::Error for ShapeError {}
