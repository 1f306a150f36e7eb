//! Saving and loading a whole world (the `serde` cargo feature): a world
//! saved at step N and loaded in another process steps on bit for bit as
//! the original would (`tests/persistence.rs`).
//!
//! What is saved is what a [`World`] clone holds that the next step reads:
//! bodies (records and sims, the sims in their places), colliders and their shapes, joints, settings, the broad phase's
//! tree, pairs and move buffer, every pair's manifolds with their warm-start
//! impulses, lever arms and last queries, the islands (awake and
//! sleeping, with each pair's link bit: `sleep.rs`), the
//! solver's body order and awake pairs (and their stale flags), the bodies
//! and colliders the game touched since the last step, the events of
//! the last step, and the structure stamp (`world/state.rs`), so that the
//! rollback states saved in a world restore into its loaded copy. Left out, as [`Default`], are the arrays kept between
//! steps only for their allocations (the contact and joint solvers', the
//! narrow phase's inputs, a surface pair's scratch lists) and the profile.
//!
//! [`World::to_bytes`] writes, little-endian:
//! 1. [`MAGIC`], 8 bytes;
//! 2. [`FORMAT_VERSION`], a `u32`;
//! 3. the dimension, a `u32` (2 or 3);
//! 4. the payload's length in bytes, a `u64`;
//! 5. the payload's FNV-1a 64 checksum, a `u64`;
//! 6. the payload: the world's serde form in postcard
//!    (<https://postcard.jamesmunns.com/wire-format>).
//!
//! A [`Recording`](super::Recording) saves in the same layout with
//! [`RECORDING_MAGIC`] (`Recording::to_bytes` / `from_bytes`): its start
//! world and its inputs.
//!
//! [`World::from_bytes`] checks the same in that order, each fault a
//! [`LoadError`]: the magic, the version, the dimension, the length
//! (shorter bytes are [`LoadError::Truncated`]), the checksum, then decodes
//! the payload and validates the world it holds (below). It never panics
//! on any bytes.
//!
//! The world's serde form, for other formats a game may use, is a struct
//! of `format_version`, `dimension` and `state`: deserialising checks the
//! version and the dimension, then validates the state, as loading bytes
//! does.
//!
//! Validation: a state that decodes may still name what is not there (any
//! serde format, or bytes written by other code). Before a loaded world is
//! handed out, everything a step indexes by is checked, and a fault is
//! [`LoadError::Malformed`] instead of a panic later:
//! 1. the settings pass [`Settings::validate`];
//! 2. the bodies and their sims name each other one to one; every body has
//!    a collider, finite pose, velocities, forces, mass and target, and its
//!    colliders have valid shapes (no surface on a dynamic body), finite
//!    places and materials in range;
//! 3. the colliders' handles, their bodies' lists and the broad phase's
//!    proxies name each other one to one (`pipeline/broad_phase/check.rs`
//!    checks the tree itself);
//! 4. the pairs are sorted by key, and a pair of live colliders names
//!    their bodies and places (a manifold refuses more points than it
//!    holds as it loads);
//! 5. the solver's body order and awake pairs, where not stale, name live
//!    bodies and pairs, each once, as their indexes say, and the solver's
//!    bodies' sims are at their places in its order;
//! 6. the islands and their bodies name each other: every dynamic body is
//!    in one island, awake or sleeping, and no other body is; a linked
//!    pair's bodies share an island;
//! 7. every joint joins two live bodies with parameters `add_joint` takes,
//!    and the count of joints per unpaired body pair is right.
//!
//! Slot maps (bodies, colliders, joints, islands) are saved with
//! their free lists in order ([`slot_map`]): the handles a loaded world
//! hands out for new bodies and joints are those the original would.
//!
//! Limits: a surface (mesh, heightfield, chain) shared by several
//! colliders is saved once per collider and loads as that many copies. A
//! format that cannot hold an infinite or NaN float (JSON) cannot carry a
//! world, which has some (an unbreakable joint's break force, an empty
//! box): use [`World::to_bytes`] or another binary format. Loading checks
//! what the step relies on, not that the world is one the API could have
//! built (a mass that does not match the shapes loads as it is). A slot
//! map whose slot was reused 2^31 times (its version wrapped) saves, but
//! may not load.

use core::fmt;
use core::marker::PhantomData;
use std::collections::HashMap;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};
use slotmap::{Key, SlotMap};

use super::{key_of, Bodies, BodySims, ColliderSlot, ContactPair, SolveBuffers, World, ASLEEP};
use crate::body::{Body, BodyDesc, BodyHandle, BodyKind, BodyRecord};
use crate::collider::{ColliderDesc, ColliderHandle};
use crate::dim::Dim;
use crate::events::{ContactEvent, SensorEvent};
use crate::joint::{Joint, JointEvent, JointHandle};
use crate::math::{Angular, Pose, Vector};
use crate::pipeline::broad_phase::{BroadPhase, ProxyId};
use crate::pipeline::joints::{JointFrame, JointImpulses, JointModel};
use crate::settings::Settings;
use crate::shape::{PolytopeShape, Shape, ShapeKind};
use crate::sleep::{AwakeIsland, AwakeIslands, SleepingIslands};

/// The first bytes of a saved world.
pub const MAGIC: [u8; 8] = *b"TUMBLEWS";

/// The first bytes of a saved recording: the same layout as a world's,
/// with this tag.
pub const RECORDING_MAGIC: [u8; 8] = *b"TUMBLERC";

/// The version of the saved layout. Any change to what a world saves, or
/// how (a field added, removed, reordered or retyped in any saved type, a
/// type's serde form changed), bumps it: a world saved by one version is
/// refused by another with [`LoadError::Version`], never misread.
pub const FORMAT_VERSION: u32 = 7;

/// Magic, version, dimension, payload length, checksum.
const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 8;

/// Why bytes did not load as a world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The bytes do not start with [`MAGIC`]: not a saved world.
    NotAWorld,
    /// The bytes do not start with [`RECORDING_MAGIC`]: not a saved
    /// recording ([`Recording::from_bytes`](crate::world::Recording::from_bytes)).
    NotARecording,
    /// Saved by another version of the format.
    Version {
        /// The version in the bytes.
        found: u32,
        /// [`FORMAT_VERSION`], the one this build reads.
        expected: u32,
    },
    /// A world of another dimension (a 2D world loaded as 3D, or back).
    Dimension {
        /// The dimension in the bytes.
        found: u32,
        /// The dimension asked for.
        expected: u32,
    },
    /// The bytes end before the header or the payload does.
    Truncated {
        /// Bytes the header says there are (or the header's length).
        needed: u64,
        /// Bytes given.
        got: u64,
    },
    /// The payload is not the one the checksum was taken of: corrupted.
    Checksum {
        /// The checksum in the header.
        stored: u64,
        /// The payload's checksum.
        computed: u64,
    },
    /// The payload does not decode, or decodes to a world that names what
    /// is not there (see the module docs' validation).
    Malformed {
        /// What is wrong.
        what: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotAWorld => write!(f, "not a saved tumble world (no magic)"),
            LoadError::NotARecording => write!(f, "not a saved tumble recording (no magic)"),
            LoadError::Version { found, expected } => write!(
                f,
                "saved in world format version {found}; this build reads version {expected}"
            ),
            LoadError::Dimension { found, expected } => {
                write!(f, "a {found}D world, loaded as a {expected}D one")
            }
            LoadError::Truncated { needed, got } => {
                write!(f, "truncated: {got} bytes of {needed}")
            }
            LoadError::Checksum { stored, computed } => write!(
                f,
                "the payload is corrupted: checksum {computed:016x}, saved {stored:016x}"
            ),
            LoadError::Malformed { what } => write!(f, "malformed world: {what}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// FNV-1a, 64 bits, over `bytes`. Without a checksum a flipped bit inside
/// a float decodes to another valid world that runs on, wrong; FNV-1a
/// catches every change confined to one byte (each byte's step is a
/// bijection of the state) and misses others with odds of about 2^-64, at
/// about a nanosecond per byte.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl<D: Dim> World<D> {
    /// The world as bytes: a header ([`MAGIC`], [`FORMAT_VERSION`], the
    /// dimension, the payload's length and checksum) and the payload (the
    /// module docs of `world/persist.rs` give the layout).
    /// [`World::from_bytes`] loads it, in this process or another, and the
    /// loaded world steps on bit for bit as this one would.
    pub fn to_bytes(&self) -> Vec<u8> {
        frame::<D, _>(&MAGIC, self, 64 * self.bodies.len())
    }

    /// The world that [`World::to_bytes`] saved, or why `bytes` are not
    /// one: not a world, another format version or dimension, truncated,
    /// corrupted (the checksum), or a payload that does not decode or
    /// names what is not there. Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<World<D>, LoadError> {
        let payload = unframe::<D>(&MAGIC, LoadError::NotAWorld, bytes)?;
        let (Unchecked(mut world), rest) = postcard::take_from_bytes::<Unchecked<D>>(payload)
            .map_err(|e| malformed(format!("the payload does not decode: {e}")))?;
        if !rest.is_empty() {
            return Err(malformed("the payload has bytes after the world"));
        }
        world.validate().map_err(malformed)?;
        world.regroup_proxies();
        Ok(world)
    }
}

/// `value` saved: the header (`magic`, [`FORMAT_VERSION`], the dimension,
/// the payload's length and checksum) and the postcard payload.
pub(crate) fn frame<D: Dim, T: Serialize>(magic: &[u8; 8], value: &T, capacity: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + capacity);
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(D::N as u32).to_le_bytes());
    bytes.extend_from_slice(&[0; 16]);
    let mut bytes = postcard::to_extend(value, bytes)
        .expect("a world always serialises: every value it holds has a serde form");
    let payload = &bytes[HEADER_LEN..];
    let (len, sum) = (payload.len() as u64, checksum(payload));
    bytes[16..24].copy_from_slice(&len.to_le_bytes());
    bytes[24..32].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// The payload of bytes [`frame`] wrote with `magic`, or why they are not
/// such: `not_it` without the magic, another version or dimension,
/// truncated, bytes after the payload, a checksum that does not match.
pub(crate) fn unframe<'b, D: Dim>(
    magic: &[u8; 8],
    not_it: LoadError,
    bytes: &'b [u8],
) -> Result<&'b [u8], LoadError> {
    let head = &bytes[..bytes.len().min(magic.len())];
    if head != &magic[..head.len()] {
        return Err(not_it);
    }
    let got = bytes.len() as u64;
    let Some(header) = bytes.get(..HEADER_LEN) else {
        return Err(LoadError::Truncated {
            needed: HEADER_LEN as u64,
            got,
        });
    };
    let word = |at: usize| u32::from_le_bytes([0, 1, 2, 3].map(|k| header[at + k]));
    let long = |at: usize| u64::from_le_bytes([0, 1, 2, 3, 4, 5, 6, 7].map(|k| header[at + k]));
    let (version, dimension, len, stored) = (word(8), word(12), long(16), long(24));
    if version != FORMAT_VERSION {
        return Err(LoadError::Version {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    if dimension != D::N as u32 {
        return Err(LoadError::Dimension {
            found: dimension,
            expected: D::N as u32,
        });
    }
    let payload = &bytes[HEADER_LEN..];
    let needed = (HEADER_LEN as u64).saturating_add(len);
    if (payload.len() as u64) < len {
        return Err(LoadError::Truncated { needed, got });
    }
    if payload.len() as u64 > len {
        return Err(malformed("bytes follow the payload"));
    }
    let computed = checksum(payload);
    if computed != stored {
        return Err(LoadError::Checksum { stored, computed });
    }
    Ok(payload)
}

pub(crate) fn malformed(what: impl Into<String>) -> LoadError {
    LoadError::Malformed { what: what.into() }
}

/// The state part of the serde form: what a world saves, as references
/// to its fields. A field of [`World`] left out here is rebuilt by the
/// step before it is read (the solvers' arrays kept for their
/// allocations, the profile) and loads as [`World::new`] makes it; a field
/// added to the world is so too until it is named here (and
/// [`FORMAT_VERSION`] bumped).
#[derive(Serialize)]
#[serde(bound = "", rename = "WorldState")]
struct State<'w, D: Dim> {
    settings: &'w Settings<D>,
    bodies: Slots<'w, BodyHandle, BodyRecord<D>>,
    sims: &'w BodySims<D>,
    colliders: Slots<'w, ColliderHandle, ColliderSlot>,
    broad_phase: &'w BroadPhase<D>,
    pairs: &'w [ContactPair<D>],
    contact_events: &'w [ContactEvent<D>],
    sensor_events: &'w [SensorEvent],
    buffers: &'w SolveBuffers<D>,
    sleep_islands: &'w SleepingIslands,
    islands: &'w AwakeIslands,
    touched: &'w [BodyHandle],
    refiltered: &'w [ColliderHandle],
    joints: Slots<'w, JointHandle, Joint<D>>,
    joint_events: &'w [JointEvent],
    unpaired: Entries<'w, (BodyHandle, BodyHandle), u32>,
    structure: u64,
}

/// [`State`], loaded.
#[derive(Deserialize)]
#[serde(bound = "", rename = "WorldState")]
struct LoadedState<D: Dim> {
    settings: Settings<D>,
    #[serde(deserialize_with = "slot_map::deserialize")]
    bodies: SlotMap<BodyHandle, BodyRecord<D>>,
    sims: BodySims<D>,
    #[serde(deserialize_with = "slot_map::deserialize")]
    colliders: SlotMap<ColliderHandle, ColliderSlot>,
    broad_phase: BroadPhase<D>,
    pairs: Vec<ContactPair<D>>,
    contact_events: Vec<ContactEvent<D>>,
    sensor_events: Vec<SensorEvent>,
    buffers: SolveBuffers<D>,
    sleep_islands: SleepingIslands,
    islands: AwakeIslands,
    touched: Vec<BodyHandle>,
    refiltered: Vec<ColliderHandle>,
    #[serde(deserialize_with = "slot_map::deserialize")]
    joints: SlotMap<JointHandle, Joint<D>>,
    joint_events: Vec<JointEvent>,
    #[serde(deserialize_with = "entries::deserialize")]
    unpaired: HashMap<(BodyHandle, BodyHandle), u32>,
    structure: u64,
}

impl<'w, D: Dim> State<'w, D> {
    fn of(world: &'w World<D>) -> Self {
        State {
            settings: &world.settings,
            bodies: Slots(&world.bodies),
            sims: &world.sims,
            colliders: Slots(&world.colliders),
            broad_phase: &world.broad_phase,
            pairs: &world.pairs,
            contact_events: &world.contact_events,
            sensor_events: &world.sensor_events,
            buffers: &world.buffers,
            sleep_islands: &world.sleep_islands,
            islands: &world.islands,
            touched: &world.touched,
            refiltered: &world.refiltered,
            joints: Slots(&world.joints),
            joint_events: &world.joint_events,
            unpaired: Entries(&world.unpaired),
            structure: world.structure,
        }
    }
}

impl<D: Dim> LoadedState<D> {
    /// The world of this state, the fields not saved as [`World::new`]
    /// makes them.
    fn into_world(self) -> World<D> {
        World {
            bodies: self.bodies,
            sims: self.sims,
            colliders: self.colliders,
            broad_phase: self.broad_phase,
            pairs: self.pairs,
            contact_events: self.contact_events,
            sensor_events: self.sensor_events,
            buffers: self.buffers,
            sleep_islands: std::sync::Arc::new(self.sleep_islands),
            islands: std::sync::Arc::new(self.islands),
            touched: self.touched,
            refiltered: self.refiltered,
            joints: self.joints,
            joint_events: self.joint_events,
            unpaired: self.unpaired,
            structure: self.structure,
            ..World::new(self.settings)
        }
    }
}

/// A slot map saved with its free list ([`slot_map`]).
struct Slots<'a, K: Key, V>(&'a SlotMap<K, V>);

impl<K: Key, V: Serialize + Clone + slot_map::Placeholder> Serialize for Slots<'_, K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        slot_map::serialize(self.0, serializer)
    }
}

/// A hash map saved as its sorted entries ([`entries`]).
struct Entries<'a, K, V>(&'a HashMap<K, V>);

impl<K: Serialize + Ord, V: Serialize> Serialize for Entries<'_, K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        entries::serialize(self.0, serializer)
    }
}

impl<D: Dim> Serialize for World<D> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut form = serializer.serialize_struct("World", 3)?;
        form.serialize_field("format_version", &FORMAT_VERSION)?;
        form.serialize_field("dimension", &(D::N as u32))?;
        form.serialize_field("state", &State::of(self))?;
        form.end()
    }
}

impl<'de, D: Dim> Deserialize<'de> for World<D> {
    /// The serde form's world: its version and dimension checked, then
    /// validated as [`World::from_bytes`] validates it.
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        let Unchecked(mut world) = Unchecked::deserialize(deserializer)?;
        world.validate().map_err(de::Error::custom)?;
        world.regroup_proxies();
        Ok(world)
    }
}

/// A world decoded, its version and dimension checked, not yet validated.
struct Unchecked<D: Dim>(World<D>);

const FIELDS: &[&str] = &["format_version", "dimension", "state"];

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    FormatVersion,
    Dimension,
    State,
}

impl<'de, D: Dim> Deserialize<'de> for Unchecked<D> {
    fn deserialize<De: Deserializer<'de>>(deserializer: De) -> Result<Self, De::Error> {
        deserializer
            .deserialize_struct("World", FIELDS, Form::<D>(PhantomData))
            .map(Unchecked)
    }
}

fn check_version<E: de::Error>(found: u32) -> Result<u32, E> {
    if found == FORMAT_VERSION {
        Ok(found)
    } else {
        Err(E::custom(LoadError::Version {
            found,
            expected: FORMAT_VERSION,
        }))
    }
}

fn check_dimension<D: Dim, E: de::Error>(found: u32) -> Result<u32, E> {
    if found == D::N as u32 {
        Ok(found)
    } else {
        Err(E::custom(LoadError::Dimension {
            found,
            expected: D::N as u32,
        }))
    }
}

/// The visitor of the serde form.
struct Form<D>(PhantomData<D>);

/// The state, decoded.
struct StateSeed<D>(PhantomData<D>);

impl<'de, D: Dim> DeserializeSeed<'de> for StateSeed<D> {
    type Value = World<D>;

    fn deserialize<De: Deserializer<'de>>(self, deserializer: De) -> Result<World<D>, De::Error> {
        LoadedState::deserialize(deserializer).map(LoadedState::into_world)
    }
}

impl<'de, D: Dim> Visitor<'de> for Form<D> {
    type Value = World<D>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a tumble world: format version, dimension, state")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<World<D>, A::Error> {
        let missing = |k| de::Error::invalid_length(k, &"a world's three fields");
        let version: u32 = seq.next_element()?.ok_or_else(|| missing(0))?;
        check_version(version)?;
        let dimension: u32 = seq.next_element()?.ok_or_else(|| missing(1))?;
        check_dimension::<D, _>(dimension)?;
        seq.next_element_seed(StateSeed(PhantomData))?
            .ok_or_else(|| missing(2))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<World<D>, A::Error> {
        let (mut version, mut dimension, mut state) = (None, None, None);
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::FormatVersion => version = Some(check_version(map.next_value()?)?),
                Field::Dimension => dimension = Some(check_dimension::<D, _>(map.next_value()?)?),
                Field::State => state = Some(map.next_value_seed(StateSeed(PhantomData))?),
            }
        }
        version.ok_or_else(|| de::Error::missing_field("format_version"))?;
        dimension.ok_or_else(|| de::Error::missing_field("dimension"))?;
        state.ok_or_else(|| de::Error::missing_field("state"))
    }
}

/// A slot map with its free list in order: slotmap's own serde form
/// rebuilds the free list lowest slot last, so a loaded world would hand
/// out other handles than the original for the next bodies added after
/// removals.
///
/// Saving:
/// 1. a copy of the map is filled with placeholders until a new slot is
///    made: the slots it fills are the free list, in order, and each key's
///    version tells its slot's (one less);
/// 2. every slot is written in slotmap's form (value and version), free
///    slots with their version less two, then the free list.
///
/// Loading:
/// 1. slotmap's form is read (its free list: free slots highest first);
/// 2. as many placeholders as the saved free list holds are inserted
///    (each free slot's version goes up one) and must land on exactly its
///    slots;
/// 3. they are removed in the saved list's reverse order (each version
///    up one more, back to the saved one), leaving the saved free list.
pub(crate) mod slot_map {
    use super::*;

    /// A value the adapter may put in a slot for a moment.
    pub(crate) trait Placeholder: Sized {
        /// Any value (`None` if none could be made).
        fn placeholder() -> Option<Self>;
    }

    #[derive(Serialize)]
    #[serde(rename = "SerdeSlot")]
    struct Slot<'a, V> {
        value: Option<&'a V>,
        version: u32,
    }

    #[derive(Serialize)]
    #[serde(rename = "SlotMap")]
    struct Saved<'a, V> {
        slots: Vec<Slot<'a, V>>,
        free: Vec<u32>,
    }

    #[derive(Deserialize)]
    #[serde(rename = "SlotMap")]
    struct Loaded<K: Key, V> {
        slots: SlotMap<K, V>,
        free: Vec<u32>,
    }

    /// A key's slot and version.
    fn split<K: Key>(key: K) -> (u32, u32) {
        let ffi = key.data().as_ffi();
        (ffi as u32, (ffi >> 32) as u32)
    }

    pub(crate) fn serialize<K, V, S>(map: &SlotMap<K, V>, serializer: S) -> Result<S::Ok, S::Error>
    where
        K: Key,
        V: Serialize + Clone + Placeholder,
        S: Serializer,
    {
        use serde::ser::Error;
        let placeholder = || V::placeholder().ok_or_else(|| S::Error::custom("no placeholder"));
        let mut probe = map.clone();
        let (mut free, mut versions) = (Vec::new(), Vec::new());
        // A new slot (version 1) comes once every free slot is taken; it is
        // the slot after the sentinel, the values and the free ones.
        let slot_count = loop {
            let (slot, version) = split(probe.insert(placeholder()?));
            if version == 1 && slot as usize == 1 + map.len() + free.len() {
                break slot as usize;
            }
            free.push(slot);
            versions.push(version.wrapping_sub(1));
        };
        let mut slots: Vec<Slot<V>> = (0..slot_count)
            .map(|_| Slot {
                value: None,
                version: 0,
            })
            .collect();
        for (key, value) in map.iter() {
            let (slot, version) = split(key);
            let saved = slots
                .get_mut(slot as usize)
                .ok_or_else(|| S::Error::custom("a key beyond the slots"))?;
            *saved = Slot {
                value: Some(value),
                version,
            };
        }
        for (&slot, &version) in free.iter().zip(&versions) {
            if let Some(saved) = slots.get_mut(slot as usize) {
                saved.version = version.wrapping_sub(2);
            }
        }
        Saved { slots, free }.serialize(serializer)
    }

    pub(crate) fn deserialize<'de, K, V, De>(deserializer: De) -> Result<SlotMap<K, V>, De::Error>
    where
        K: Key + Deserialize<'de>,
        V: Deserialize<'de> + Placeholder,
        De: Deserializer<'de>,
    {
        use serde::de::Error;
        let Loaded {
            slots: mut map,
            free,
        } = Loaded::<K, V>::deserialize(deserializer)?;
        if free.len() > u32::MAX as usize - map.len() {
            return Err(De::Error::custom("a free list longer than a slot map"));
        }
        let mut filled = HashMap::with_capacity(free.len());
        for _ in &free {
            let value = V::placeholder().ok_or_else(|| De::Error::custom("no placeholder"))?;
            let key = map.insert(value);
            filled.insert(split(key).0, key);
        }
        if filled.len() != free.len() || free.iter().any(|slot| !filled.contains_key(slot)) {
            return Err(De::Error::custom(
                "a slot map's free list is not its free slots",
            ));
        }
        for slot in free.iter().rev() {
            map.remove(filled[slot]);
        }
        Ok(map)
    }

    impl<D: Dim> Placeholder for BodyRecord<D> {
        fn placeholder() -> Option<Self> {
            let ball = ColliderDesc::new(Shape::ball(1.0).ok()?);
            let desc = BodyDesc::fixed();
            let (record, _) = crate::body::new_body(&desc, ColliderHandle::default(), ball).ok()?;
            Some(record)
        }
    }

    impl Placeholder for ColliderSlot {
        fn placeholder() -> Option<Self> {
            Some(ColliderSlot {
                handle: ColliderHandle::default(),
                body: BodyHandle::default(),
                index: 0,
                proxy: ProxyId::placeholder(),
            })
        }
    }

    impl<D: Dim> Placeholder for Joint<D> {
        fn placeholder() -> Option<Self> {
            Some(Joint {
                body_a: BodyHandle::default(),
                body_b: BodyHandle::default(),
                model: JointModel::Motor {
                    max_force: 0.0,
                    max_torque: 0.0,
                },
                frame: JointFrame {
                    anchor_a: D::Vector::ZERO,
                    anchor_b: D::Vector::ZERO,
                    axis_a: D::AngularVector::default(),
                    axis_b: D::AngularVector::default(),
                    reference: D::identity(),
                    slide_a: D::Vector::ZERO,
                },
                impulses: JointImpulses::default(),
                collide_connected: true,
                break_force: f32::INFINITY,
                break_torque: f32::INFINITY,
                reaction_force: D::Vector::ZERO,
                reaction_torque: D::AngularVector::default(),
            })
        }
    }

    impl Placeholder for AwakeIsland {
        fn placeholder() -> Option<Self> {
            Some(AwakeIsland::default())
        }
    }

    impl<T> Placeholder for Vec<T> {
        fn placeholder() -> Option<Self> {
            Some(Vec::new())
        }
    }
}

/// A hash map saved as its entries sorted by key (the same world gives the
/// same bytes; JSON's maps take only string keys).
pub(crate) mod entries {
    use super::*;

    pub(crate) fn serialize<K, V, S>(map: &HashMap<K, V>, serializer: S) -> Result<S::Ok, S::Error>
    where
        K: Serialize + Ord,
        V: Serialize,
        S: Serializer,
    {
        let mut entries: Vec<(&K, &V)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        serializer.collect_seq(entries)
    }

    pub(crate) fn deserialize<'de, K, V, De>(deserializer: De) -> Result<HashMap<K, V>, De::Error>
    where
        K: Deserialize<'de> + Eq + core::hash::Hash,
        V: Deserialize<'de>,
        De: Deserializer<'de>,
    {
        let entries: Vec<(K, V)> = Vec::deserialize(deserializer)?;
        Ok(entries.into_iter().collect())
    }
}

/// A fault of a loaded world: what is wrong.
type Fault = String;

fn require(ok: bool, fault: &str) -> Result<(), Fault> {
    if ok {
        Ok(())
    } else {
        Err(fault.to_string())
    }
}

fn finite_and_at_least(value: f32, least: f32) -> bool {
    value.is_finite() && value >= least
}

/// A shape as its constructors make it (a facet is only ever the narrow
/// phase's, never a collider's).
fn check_shape<D: Dim>(shape: &Shape<D>) -> Result<(), Fault> {
    let size = |v: f32| v.is_finite() && v > 0.0;
    let ok = match shape.kind() {
        ShapeKind::Ball { radius } => size(*radius),
        ShapeKind::Cuboid { half_extents } => {
            half_extents.is_finite() && half_extents.min_element() > 0.0
        }
        ShapeKind::Capsule {
            half_height,
            radius,
        } => size(*half_height) && size(*radius),
        ShapeKind::ConvexHull(hull) => {
            !hull.vertices().is_empty()
                && hull.vertices().iter().all(|v| v.is_finite())
                && finite_and_at_least(hull.bounding_radius(), 0.0)
                && finite_and_at_least(hull.thickness(), 0.0)
        }
        ShapeKind::Surface(_) => true,
        ShapeKind::Facet(_) => false,
    };
    require(ok, "a collider's shape is not one its constructors make")
}

fn finite_pose<D: Dim>(pose: &Pose<D>) -> bool {
    pose.is_finite()
}

/// A body's own values (its colliders' handles are checked with the
/// colliders).
fn check_body<D: Dim>(Body { record: body, sim }: Body<'_, D>) -> Result<(), Fault> {
    require(!body.colliders.is_empty(), "a body has no collider")?;
    require(
        finite_pose(&sim.pose)
            && sim.local_center.is_finite()
            && sim.linear_velocity.is_finite()
            && sim.angular_velocity.is_finite()
            && sim.force.is_finite()
            && sim.torque.is_finite()
            && body.kinematic_target.as_ref().is_none_or(finite_pose),
        "a body's pose, velocity, force or target is not finite",
    )?;
    require(
        finite_and_at_least(body.mass, 0.0)
            && finite_and_at_least(sim.inv_mass, 0.0)
            && finite_and_at_least(sim.linear_damping, 0.0)
            && finite_and_at_least(sim.angular_damping, 0.0)
            && sim.gravity_scale.is_finite()
            && finite_and_at_least(body.rest_time, 0.0)
            // Infinity is a share that never sweeps (`BodyDesc::fast_share`).
            && body.fast_share > 0.0,
        "a body's mass, damping, gravity scale, rest time or fast share is out of range",
    )?;
    for collider in &body.colliders {
        check_shape(&collider.shape)?;
        require(
            !(sim.kind == BodyKind::Dynamic && collider.shape.as_surface().is_some()),
            "a surface on a dynamic body",
        )?;
        require(
            finite_pose(&collider.local_pose)
                && collider.density.is_finite()
                && collider.density > 0.0
                && finite_and_at_least(collider.friction, 0.0)
                && (0.0..=1.0).contains(&collider.restitution),
            "a collider's place or material is out of range",
        )?;
    }
    Ok(())
}

/// A joint model's parameters as `World::add_joint` takes and leaves them.
fn check_model(model: &JointModel) -> bool {
    let mut settled = *model;
    let length = match *model {
        JointModel::Distance { length, .. } => length,
        _ => 0.0,
    };
    super::joints::settle_model(&mut settled, length).is_ok() && settled == *model
}

fn check_joint<D: Dim>(joint: &Joint<D>) -> Result<(), Fault> {
    let frame = &joint.frame;
    let impulses = &joint.impulses;
    require(
        check_model(&joint.model)
            && frame.anchor_a.is_finite()
            && frame.anchor_b.is_finite()
            && frame.axis_a.is_finite()
            && frame.axis_b.is_finite()
            && D::rotation_is_finite(frame.reference)
            && frame.slide_a.is_finite()
            && impulses.is_finite()
            && !(joint.break_force.is_nan() || joint.break_force <= 0.0)
            && !(joint.break_torque.is_nan() || joint.break_torque <= 0.0),
        "a joint's parameters, frame or impulses are out of range",
    )
}

/// Each item of `items` below `len`, none twice.
fn distinct_below(items: impl IntoIterator<Item = usize>, len: usize) -> bool {
    let mut seen = vec![false; len];
    items
        .into_iter()
        .all(|i| i < len && !std::mem::replace(&mut seen[i], true))
}

impl<D: Dim> World<D> {
    /// The first fault of a loaded world (the module docs' validation), or
    /// `Ok` when every step can run on it.
    fn validate(&self) -> Result<(), Fault> {
        self.settings
            .validate()
            .map_err(|e| format!("the settings: {e}"))?;
        require(
            self.sims.is_sound(&self.bodies),
            "the bodies and their sims do not name each other",
        )?;
        for (handle, body) in self.view().iter() {
            check_body(body)?;
            for (index, collider) in body.colliders().iter().enumerate() {
                let slot = self.colliders.get(collider.handle);
                require(
                    slot.is_some_and(|s| s.body == handle && s.index == index),
                    "a body's collider is not registered as its",
                )?;
            }
        }
        self.broad_phase.check()?;
        require(
            self.broad_phase.len() == self.colliders.len(),
            "the broad phase's proxies are not the colliders",
        )?;
        for (handle, slot) in &self.colliders {
            let body = self.bodies.get(slot.body);
            let collider = body.and_then(|b| b.colliders.get(slot.index));
            require(
                slot.handle == handle && collider.is_some_and(|c| c.handle == handle),
                "a collider's body does not hold it",
            )?;
            require(
                self.broad_phase.key_of(slot.proxy) == Some(key_of(handle)),
                "a collider's proxy is not its",
            )?;
        }
        self.check_pairs()?;
        self.check_buffers()?;
        require(
            self.sleep_islands.is_sound(&self.bodies) && self.islands.is_sound(&self.bodies),
            "the islands and their bodies disagree",
        )?;
        self.check_islands()?;
        let mut unpaired: HashMap<(BodyHandle, BodyHandle), u32> = HashMap::new();
        for joint in self.joints.values() {
            let (a, b) = (joint.body_a, joint.body_b);
            require(
                a != b && self.bodies.contains_key(a) && self.bodies.contains_key(b),
                "a joint does not join two live bodies",
            )?;
            check_joint(joint)?;
            if !joint.collide_connected {
                *unpaired.entry(super::joints::body_pair(a, b)).or_insert(0) += 1;
            }
        }
        require(
            unpaired == self.unpaired,
            "the unpaired bodies are not the joints'",
        )
    }

    /// Step 4 of the validation: the pairs.
    fn check_pairs(&self) -> Result<(), Fault> {
        let sorted = self.pairs.windows(2).all(|w| w[0].key() < w[1].key());
        require(sorted, "the pairs are not sorted by key")?;
        for pair in &self.pairs {
            let slots = (
                self.colliders.get(pair.collider_a),
                self.colliders.get(pair.collider_b),
            );
            if let (Some(a), Some(b)) = slots {
                require(
                    (a.body, a.index, b.body, b.index)
                        == (
                            pair.body_a,
                            pair.index_a as usize,
                            pair.body_b,
                            pair.index_b as usize,
                        ),
                    "a pair does not name its colliders' bodies",
                )?;
                require(
                    pair.surface.is_some() == Self::has_surface(pair, self.view()),
                    "a pair's surface contacts do not match its shapes",
                )?;
            }
        }
        Ok(())
    }

    /// Step 6 of the validation, past each set's own soundness: every
    /// dynamic body is in one island, awake or sleeping, and no other body
    /// is; a linked pair's bodies share an island.
    fn check_islands(&self) -> Result<(), Fault> {
        let (awake, sleeping) = (&self.islands, &self.sleep_islands);
        for (handle, body) in self.view().iter() {
            let count = usize::from(awake.island_of(handle).is_some())
                + usize::from(sleeping.island_of(handle).is_some());
            let wanted = usize::from(body.kind() == BodyKind::Dynamic);
            require(count == wanted, "a body is not in exactly one island")?;
        }
        for pair in self.pairs.iter().filter(|p| p.linked) {
            let (a, b) = (pair.body_a, pair.body_b);
            let shared = (awake.island_of(a).is_some() && awake.island_of(a) == awake.island_of(b))
                || (sleeping.island_of(a).is_some()
                    && sleeping.island_of(a) == sleeping.island_of(b));
            require(shared, "a linked pair's bodies are in two islands")?;
        }
        Ok(())
    }

    /// Whether either collider of a live pair is a surface.
    fn has_surface(pair: &ContactPair<D>, bodies: Bodies<'_, D>) -> bool {
        pair.colliders(bodies).is_some_and(|[(a, _), (b, _)]| {
            a.shape.as_surface().is_some() || b.shape.as_surface().is_some()
        })
    }

    /// Step 5 of the validation: the solver's bodies and the awake pairs,
    /// where a step reads them without building them first.
    fn check_buffers(&self) -> Result<(), Fault> {
        let buffers = &self.buffers;
        if !buffers.index_stale {
            let live = buffers.order.iter().all(|&h| self.bodies.contains_key(h));
            let (order, index) = (&buffers.order, &buffers.index);
            let indexed = index.len() == order.len()
                && order
                    .iter()
                    .enumerate()
                    .all(|(i, &h)| index.get(h) == Some(&i));
            // The solver reads sim `i` as body `i` of its order (`world/sims.rs`).
            let placed = order.len() <= self.sims.len()
                && order
                    .iter()
                    .enumerate()
                    .all(|(i, &h)| self.sims.owner(i as u32) == h);
            require(
                live && indexed && placed,
                "the solver's bodies are not live, not indexed or not in place",
            )?;
        }
        if !buffers.awake_pairs_stale {
            let (awake, slot, n) = (&buffers.awake_pairs, &buffers.slot, self.pairs.len());
            let placed = slot.len() == n
                && distinct_below(awake.iter().copied(), n)
                && awake
                    .iter()
                    .enumerate()
                    .all(|(j, &k)| slot[k] as usize == j)
                && slot.iter().filter(|&&s| s != ASLEEP).count() == awake.len();
            let surfaces = distinct_below(buffers.surface_pairs.iter().copied(), n)
                && buffers.surface_pairs.iter().all(|&k| slot[k] != ASLEEP);
            require(placed && surfaces, "the awake pairs are not the pairs")?;
        }
        Ok(())
    }
}
