//! World settings, with Box2D v3's defaults.

use crate::error::WorldError;
use crate::math::{MathDim, Vector};

/// The most solver substeps a step may take. Each substep solves every
/// contact again, so a step costs about one contact solve per substep: 64
/// substeps (sixteen times the default) run a 60 Hz step's solver at
/// 3840 Hz. A count beyond that only slows the step, and a huge one
/// stalls it (`u32::MAX` would take days).
pub const MAX_SUBSTEPS: u32 = 64;

/// The most steps one call to `step` splits a long time step into: a 1 s
/// hitch at the default `max_step` would take 30, and a game stalled by a
/// hitch must not stall longer catching up (the spiral of death). Past it
/// the world runs slow for that frame.
pub const MAX_STEPS_PER_CALL: u32 = 64;

/// How a world steps. Public fields; [`Settings::default`] gives Box2D v3's
/// tuning for 60 Hz steps of metre-sized bodies. [`Settings::validate`]
/// says which values a world steps with.
#[derive(Copy, Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub struct Settings<D: MathDim> {
    /// Gravity, m/s². Default: 9.81 down the Y axis.
    pub gravity: D::Vector,
    /// Solver substeps per step. Default 4.
    pub substeps: u32,
    /// The longest step the world takes at once, seconds. A call to `step`
    /// with a longer `dt` (a frame hitch) takes as many equal steps of at
    /// most this as `dt` needs, up to `max_steps_per_call`; a step of a
    /// second through gravity's pull moves a resting body metres into the
    /// ground before any contact acts (`a_one_second_hitch_leaves_resting_bodies_on_the_ground_3d`).
    /// Default 1/30 s: a 60 Hz game's steps are taken as they are.
    pub max_step: f32,
    /// At most this many steps per call, 1 to [`MAX_STEPS_PER_CALL`]; a
    /// `dt` longer than this many `max_step`s is cut to them, and the world
    /// runs slower than the game's clock for that frame. Default 8: a 1 s
    /// hitch simulates 8/30 s.
    pub max_steps_per_call: u32,
    /// Contact stiffness, Hz: how fast overlap is pushed out. Default 30.
    pub contact_hertz: f32,
    /// Contact damping ratio. Default 10 (heavily damped, no bounce from the spring).
    pub contact_damping_ratio: f32,
    /// Fastest speed at which overlap is pushed out, m/s. Default 3.
    pub max_push_out_speed: f32,
    /// Approach speed above which restitution applies, m/s. Default 1.
    pub restitution_threshold: f32,
    /// Box2D's length tolerance, metres (default 0.005). Overlap is pushed
    /// out softly from the first millimetre, as in Box2D v3, so this only
    /// sets the default speculative distance.
    pub linear_slop: f32,
    /// Contacts are kept and solved speculatively at least this far apart,
    /// metres; a pair closing faster gets as far as it can close in the
    /// step (relative speed plus each body's spin times its reach, times
    /// dt). Default 4 × slop.
    pub speculative_distance: f32,
    /// A manifold point is dropped when it separates or slides this far,
    /// and a new point replaces a kept one this close, metres. Default
    /// 0.02. Between shapes thinner than 8 cm the sliding and merging
    /// distance is a quarter of the thinner one's thickness instead, so a
    /// centimetre cube keeps its four corners.
    pub contact_breaking_threshold: f32,
    /// A pair's GJK/EPA query is skipped, and its manifold's points only
    /// refreshed, while no point of one collider has moved this far relative
    /// to the other since the last query, metres. Default 0.1 × slop; zero
    /// queries every pair every step.
    pub manifold_reuse_distance: f32,
    /// Broad-phase boxes are grown by this much so pairs persist, metres.
    /// Default 0.1. A change applies to boxes stored from the next step on
    /// (a box is stored anew when its collider leaves the old one).
    pub aabb_margin: f32,
    /// Let bodies at rest fall asleep (Box2D's default: on). Turn it off to
    /// time every body every step.
    pub sleep: bool,
    /// How long an island must rest before it sleeps, seconds. Default 0.5.
    pub time_to_sleep: f32,
    /// Below this speed a body counts as resting, m/s. Default 0.05.
    pub linear_sleep_tolerance: f32,
    /// Below this spin a body counts as resting, rad/s; so does a spin that
    /// moves the body's farthest point slower than `linear_sleep_tolerance`
    /// (Box2D v3's measure), the looser bound while that point is within
    /// about 1.4 m of the centre of mass. Default 2 degrees a second.
    pub angular_sleep_tolerance: f32,
}

impl<D: MathDim> Default for Settings<D> {
    fn default() -> Self {
        let linear_slop = 0.005;
        Self {
            gravity: D::Vector::unit_y() * -9.81,
            substeps: 4,
            max_step: 1.0 / 30.0,
            max_steps_per_call: 8,
            contact_hertz: 30.0,
            contact_damping_ratio: 10.0,
            max_push_out_speed: 3.0,
            restitution_threshold: 1.0,
            linear_slop,
            speculative_distance: 4.0 * linear_slop,
            contact_breaking_threshold: 0.02,
            manifold_reuse_distance: 0.1 * linear_slop,
            aabb_margin: 0.1,
            sleep: true,
            time_to_sleep: 0.5,
            linear_sleep_tolerance: 0.05,
            angular_sleep_tolerance: 2f32.to_radians(),
        }
    }
}

impl<D: MathDim> Settings<D> {
    /// Checks every field, as [`crate::World::try_new`] and each
    /// [`crate::World::try_step`] do: a world steps only with settings that
    /// pass. Every number must be finite (a NaN gravity froze every body; a
    /// NaN speculative distance dropped them through the ground), and:
    ///
    /// - `substeps` in `1..=`[`MAX_SUBSTEPS`];
    /// - `contact_hertz`, `linear_slop` and `contact_breaking_threshold`
    ///   greater than zero: a contact with no stiffness never pushes overlap
    ///   out, and a zero tolerance or breaking distance drops every contact
    ///   point as soon as it moves;
    /// - every other number zero or more: they are distances, speeds,
    ///   durations, tolerances and a damping ratio, and a negative one has
    ///   no meaning (a negative speculative distance also lets bodies fall
    ///   through the ground).
    ///
    /// Errors on the first field that fails, in declaration order:
    /// [`WorldError::NotFinite`] for `"settings.gravity"`, else
    /// [`WorldError::OutOfRange`] naming `"settings.<field>"` with its value.
    pub fn validate(&self) -> Result<(), WorldError> {
        if !self.gravity.is_finite() {
            return Err(WorldError::NotFinite {
                what: "settings.gravity",
            });
        }
        if !(1..=MAX_SUBSTEPS).contains(&self.substeps) {
            return Err(WorldError::OutOfRange {
                what: "settings.substeps",
                value: self.substeps as f32,
            });
        }
        if !(1..=MAX_STEPS_PER_CALL).contains(&self.max_steps_per_call) {
            return Err(WorldError::OutOfRange {
                what: "settings.max_steps_per_call",
                value: self.max_steps_per_call as f32,
            });
        }
        // (name, value, zero refused)
        let numbers = [
            ("settings.max_step", self.max_step, true),
            ("settings.contact_hertz", self.contact_hertz, true),
            (
                "settings.contact_damping_ratio",
                self.contact_damping_ratio,
                false,
            ),
            (
                "settings.max_push_out_speed",
                self.max_push_out_speed,
                false,
            ),
            (
                "settings.restitution_threshold",
                self.restitution_threshold,
                false,
            ),
            ("settings.linear_slop", self.linear_slop, true),
            (
                "settings.speculative_distance",
                self.speculative_distance,
                false,
            ),
            (
                "settings.contact_breaking_threshold",
                self.contact_breaking_threshold,
                true,
            ),
            (
                "settings.manifold_reuse_distance",
                self.manifold_reuse_distance,
                false,
            ),
            ("settings.aabb_margin", self.aabb_margin, false),
            ("settings.time_to_sleep", self.time_to_sleep, false),
            (
                "settings.linear_sleep_tolerance",
                self.linear_sleep_tolerance,
                false,
            ),
            (
                "settings.angular_sleep_tolerance",
                self.angular_sleep_tolerance,
                false,
            ),
        ];
        for (what, value, positive) in numbers {
            let in_range = if positive { value > 0.0 } else { value >= 0.0 };
            if !(value.is_finite() && in_range) {
                return Err(WorldError::OutOfRange { what, value });
            }
        }
        Ok(())
    }
}
