//! [`MaybeSerde`]: the bound the dimension traits put on the types they
//! name (vectors, rotations, inertias, hulls, per-point arrays), so that
//! everything generic over a dimension can derive serde's traits.
//!
//! With the `serde` cargo feature it is serde's `Serialize` and
//! `DeserializeOwned`; without it, a bound every type meets. Either way
//! every type that meets the parts implements it (blanket impls), so a
//! dimension's associated types need nothing but their own derives.

/// Serialisable and deserialisable with the `serde` feature; any type
/// without it.
#[cfg(feature = "serde")]
pub trait MaybeSerde: serde::Serialize + serde::de::DeserializeOwned {}

#[cfg(feature = "serde")]
impl<T: serde::Serialize + serde::de::DeserializeOwned> MaybeSerde for T {}

/// Serialisable and deserialisable with the `serde` feature; any type
/// without it.
#[cfg(not(feature = "serde"))]
pub trait MaybeSerde {}

#[cfg(not(feature = "serde"))]
impl<T> MaybeSerde for T {}
