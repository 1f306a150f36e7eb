//! What happened in a step that a game reacts to: contacts that started or
//! stopped touching, and what entered or left a sensor.

use crate::body::BodyHandle;

/// Two colliding bodies started or stopped touching this step.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ContactEvent {
    /// The pair touches now and did not at the end of the last step.
    Started {
        /// The first body of the pair.
        body_a: BodyHandle,
        /// The second body of the pair.
        body_b: BodyHandle,
        /// Total normal impulse between them in this step, N·s.
        impulse: f32,
    },
    /// The pair touched at the end of the last step and does not now (or one
    /// of them was removed; its handle is then stale).
    Stopped {
        /// The first body of the pair.
        body_a: BodyHandle,
        /// The second body of the pair.
        body_b: BodyHandle,
    },
}

/// A body entered or left a sensor this step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SensorEvent {
    /// `visitor` overlaps `sensor` now and did not before.
    Entered {
        /// The sensor's body.
        sensor: BodyHandle,
        /// The body that came in.
        visitor: BodyHandle,
    },
    /// `visitor` overlapped `sensor` before and does not now (or was removed).
    Left {
        /// The sensor's body.
        sensor: BodyHandle,
        /// The body that went out.
        visitor: BodyHandle,
    },
}
