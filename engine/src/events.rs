//! What happened in a step that a game reacts to: contacts that started or
//! stopped touching, and what entered or left a sensor.

use crate::body::BodyHandle;
use crate::collider::ColliderHandle;
use crate::dim::Dim;

/// Two colliding bodies started or stopped touching this step.
///
/// A pair starts touching in the step in which one of its points overlaps
/// or pushes (takes a normal impulse): a ball struck by a speculative
/// contact starts touching in the step of the impact, not once it has come
/// to rest (`a_dropped_ball_starts_touching_in_its_impact_step_with_the_impact_impulse_3d`).
/// It stops touching once no point is within the speculative distance
/// ([`crate::Settings::speculative_distance`]), so a body settling with a
/// small hop does not stop and start again.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub enum ContactEvent<D: Dim> {
    /// The pair touches now and did not at the end of the last step.
    Started {
        /// The first body of the pair.
        body_a: BodyHandle,
        /// The second body of the pair.
        body_b: BodyHandle,
        /// The first body's collider.
        collider_a: ColliderHandle,
        /// The second body's collider.
        collider_b: ColliderHandle,
        /// Where the pair pushed hardest (the point of largest impulse, or
        /// the deepest one if none pushed), midway between the two
        /// surfaces, world space, metres.
        point: D::Vector,
        /// Unit contact normal, from A towards B.
        normal: D::Vector,
        /// Total normal impulse between them over the whole step (every
        /// substep and the bounce), N·s: for an impact `m (v_in + v_out)`,
        /// what impact sounds and damage scale with.
        impulse: f32,
        /// The fastest the two closed along the normal at a contact point
        /// during the step, m/s (>= 0).
        approach_speed: f32,
    },
    /// The pair touched at the end of the last step and does not now (or one
    /// of them was removed; its handles are then stale).
    Stopped {
        /// The first body of the pair.
        body_a: BodyHandle,
        /// The second body of the pair.
        body_b: BodyHandle,
        /// The first body's collider.
        collider_a: ColliderHandle,
        /// The second body's collider.
        collider_b: ColliderHandle,
    },
}

/// A body entered or left a sensor this step: one event for the two bodies,
/// however many of their colliders overlap (`World::record_all`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
