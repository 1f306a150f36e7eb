//! A value as one SIMD word (`Vec4`): the form in which the solver keeps
//! vectors and rotations so that four of them transpose into lanes.

use glam::{Quat, Vec2, Vec3, Vec4};

use super::rot2::Rot2;

/// A value as one SIMD word, its components first and zeros after: the
/// form the solver keeps a body's velocity and pose in, so that four
/// bodies' words transpose into lanes without a trip through memory.
pub trait SimdWord: Copy {
    /// The value as a word.
    fn to_word(self) -> Vec4;
    /// The value of a word.
    fn from_word(word: Vec4) -> Self;
}

impl SimdWord for f32 {
    #[inline]
    fn to_word(self) -> Vec4 {
        Vec4::new(self, 0.0, 0.0, 0.0)
    }
    #[inline]
    fn from_word(word: Vec4) -> Self {
        word.x
    }
}

impl SimdWord for Vec2 {
    #[inline]
    fn to_word(self) -> Vec4 {
        Vec4::new(self.x, self.y, 0.0, 0.0)
    }
    #[inline]
    fn from_word(word: Vec4) -> Self {
        Vec2::new(word.x, word.y)
    }
}

impl SimdWord for Vec3 {
    #[inline]
    fn to_word(self) -> Vec4 {
        self.extend(0.0)
    }
    #[inline]
    fn from_word(word: Vec4) -> Self {
        word.truncate()
    }
}

impl SimdWord for Rot2 {
    #[inline]
    fn to_word(self) -> Vec4 {
        Vec4::new(self.cos, self.sin, 0.0, 0.0)
    }
    #[inline]
    fn from_word(word: Vec4) -> Self {
        Rot2 {
            cos: word.x,
            sin: word.y,
        }
    }
}

impl SimdWord for Quat {
    #[inline]
    fn to_word(self) -> Vec4 {
        self.into()
    }
    #[inline]
    fn from_word(word: Vec4) -> Self {
        Quat::from_vec4(word)
    }
}

/// True when `a` and `b` have the same bits in every component (unlike
/// `==`, which takes -0.0 for 0.0 and never NaN for itself): what a saved
/// copy may stand for.
pub fn same_bits<W: SimdWord>(a: W, b: W) -> bool {
    let (a, b) = (a.to_word().to_array(), b.to_word().to_array());
    a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits())
}
