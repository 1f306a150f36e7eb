//! The bodies' sims in one dense array, the solver's bodies first (Box2D
//! v3's awake solver set): what the step reads and writes of every body it
//! moves lies together, in the order the solver takes it, and a sleeping
//! body's sim lies past them, where no stage of the step goes.
//!
//! 1. A body's [`BodyRecord::sim`] is where its [`BodySim`] is; `owners`
//!    names each sim's body, so a sim can move and its body follow it.
//!    Handles never change: [`crate::World::body`] finds the sim through
//!    the record.
//! 2. A new body's sim is pushed at the end; a removed body's sim takes the
//!    last in its place ([`BodySims::remove`]).
//! 3. While the solver's bodies are not stale (`SolveBuffers::index_stale`),
//!    sim `i` is the body at place `i` of the solver's order for every
//!    place in it: [`BodySims::arrange`] puts them so when the order is
//!    built, each sleeping island's sims together after them (a set of its
//!    own, which no stage reads), and a body woken within the step takes
//!    the next place ([`BodySims::move_to`]). The solver then reads and writes
//!    `sims[..order.len()]` in place (`World::solve`), with no walk over
//!    the bodies and no pointer to follow: a world of sleeping bodies pays
//!    for the awake ones only (`sleeping_city` in the stress CLI). The
//!    places are checked after every step while bodies come, go, sleep
//!    and wake (`sims_follow_their_bodies_through_adds_removals_sleep_and_waking`)
//!    and when a saved world loads (`world/persist.rs`, validation step 5).
//!
//! Limits: arranging moves every sim, so a step in which a body comes,
//! goes, sleeps or wakes costs a pass over all sims, as building the
//! solver's order costs a pass over all bodies (Box2D v3 moves only the
//! island that sleeps or wakes; here the solver's order is the bodies'
//! order, on which the results depend).

use slotmap::SlotMap;

use crate::body::{Body, BodyHandle, BodyMut, BodyRecord, BodySim};
use crate::dim::Dim;

/// Every body's sim, and whose each is.
#[derive(Clone, Debug, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "")
)]
pub(crate) struct BodySims<D: Dim> {
    sims: Vec<BodySim<D>>,
    owners: Vec<BodyHandle>,
}

impl<D: Dim> BodySims<D> {
    /// How many sims (one per body).
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn len(&self) -> usize {
        self.sims.len()
    }

    /// The sims in their places.
    pub(crate) fn as_slice(&self) -> &[BodySim<D>] {
        &self.sims
    }

    /// The sims in their places, to change.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [BodySim<D>] {
        &mut self.sims
    }

    /// The body whose sim is at `place`.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn owner(&self, place: u32) -> BodyHandle {
        self.owners[place as usize]
    }

    /// The sim at `place`.
    pub(crate) fn get(&self, place: u32) -> &BodySim<D> {
        &self.sims[place as usize]
    }

    /// The sim at `place`, to change.
    pub(crate) fn get_mut(&mut self, place: u32) -> &mut BodySim<D> {
        &mut self.sims[place as usize]
    }

    /// Adds `body`'s sim at the end; its place.
    pub(crate) fn push(&mut self, body: BodyHandle, sim: BodySim<D>) -> u32 {
        self.sims.push(sim);
        self.owners.push(body);
        (self.sims.len() - 1) as u32
    }

    /// Takes the sim at `place` out, the last sim moving into its place
    /// (its body's record told so).
    pub(crate) fn remove(
        &mut self,
        place: u32,
        bodies: &mut SlotMap<BodyHandle, BodyRecord<D>>,
    ) -> BodySim<D> {
        let place_index = place as usize;
        let sim = self.sims.swap_remove(place_index);
        self.owners.swap_remove(place_index);
        if let Some(&moved) = self.owners.get(place_index) {
            bodies[moved].sim = place;
        }
        sim
    }

    /// Puts the sims of `order`'s bodies at places `0..order.len()`, in that
    /// order; after them each of `groups` (the sleeping islands) together,
    /// group by group; then any others in the order they were in.
    pub(crate) fn arrange<'g>(
        &mut self,
        order: &[BodyHandle],
        groups: impl Iterator<Item = &'g [BodyHandle]>,
        bodies: &mut SlotMap<BodyHandle, BodyRecord<D>>,
    ) {
        let mut taken = vec![false; self.sims.len()];
        let mut sims = Vec::with_capacity(self.sims.len());
        let mut owners = Vec::with_capacity(self.sims.len());
        let mut take = |h: BodyHandle| {
            let Some(body) = bodies.get(h) else {
                return;
            };
            let place = body.sim as usize;
            if !std::mem::replace(&mut taken[place], true) {
                sims.push(self.sims[place]);
                owners.push(h);
            }
        };
        order.iter().copied().for_each(&mut take);
        groups.flatten().copied().for_each(&mut take);
        for (place, (&sim, &h)) in self.sims.iter().zip(&self.owners).enumerate() {
            if !taken[place] {
                sims.push(sim);
                owners.push(h);
            }
        }
        for (place, &h) in owners.iter().enumerate() {
            bodies[h].sim = place as u32;
        }
        self.sims = sims;
        self.owners = owners;
    }

    /// Moves `body`'s sim to `place`, the sim there taking its old place.
    pub(crate) fn move_to(
        &mut self,
        body: BodyHandle,
        place: u32,
        bodies: &mut SlotMap<BodyHandle, BodyRecord<D>>,
    ) {
        let from = bodies[body].sim;
        if from == place {
            return;
        }
        self.sims.swap(from as usize, place as usize);
        self.owners.swap(from as usize, place as usize);
        let displaced = self.owners[from as usize];
        bodies[displaced].sim = from;
        bodies[body].sim = place;
    }

    /// True when the sims and the records name each other one to one.
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) fn is_sound(&self, bodies: &SlotMap<BodyHandle, BodyRecord<D>>) -> bool {
        self.sims.len() == self.owners.len()
            && self.owners.len() == bodies.len()
            && self.owners.iter().enumerate().all(|(place, &h)| {
                bodies
                    .get(h)
                    .is_some_and(|record| record.sim as usize == place)
            })
    }
}

/// The bodies to read: their records and sims, borrowed together.
#[derive(Copy, Clone)]
pub(crate) struct Bodies<'w, D: Dim> {
    pub(crate) records: &'w SlotMap<BodyHandle, BodyRecord<D>>,
    pub(crate) sims: &'w BodySims<D>,
}

impl<'w, D: Dim> Bodies<'w, D> {
    /// The body of `handle`, if it is there.
    pub(crate) fn get(self, handle: BodyHandle) -> Option<Body<'w, D>> {
        let record = self.records.get(handle)?;
        Some(Body {
            record,
            sim: self.sims.get(record.sim),
        })
    }

    /// The sim of `handle`'s body, if it is there.
    pub(crate) fn sim(self, handle: BodyHandle) -> Option<&'w BodySim<D>> {
        Some(self.sims.get(self.records.get(handle)?.sim))
    }

    /// Every body, in the bodies' order.
    pub(crate) fn iter(self) -> impl Iterator<Item = (BodyHandle, Body<'w, D>)> + 'w {
        let sims = self.sims;
        self.records.iter().map(move |(h, record)| {
            (
                h,
                Body {
                    record,
                    sim: sims.get(record.sim),
                },
            )
        })
    }
}

/// The body of `handle` to change, from its record and the sims, if it is there.
pub(crate) fn body_mut<'w, D: Dim>(
    records: &'w mut SlotMap<BodyHandle, BodyRecord<D>>,
    sims: &'w mut BodySims<D>,
    handle: BodyHandle,
) -> Option<BodyMut<'w, D>> {
    let record = records.get_mut(handle)?;
    let sim = sims.get_mut(record.sim);
    Some(BodyMut { record, sim })
}

#[cfg(test)]
mod tests {
    use crate::d2::{BodyDesc, ColliderDesc, Settings, Shape, World};
    use crate::BodyHandle;
    use glam::Vec2;

    /// The sims and the records name each other, and while the solver's
    /// order is built its bodies' sims are at their places in it, each
    /// sleeping island's together after them.
    fn check(world: &World) {
        assert!(world.sims.is_sound(&world.bodies));
        let buffers = &world.buffers;
        if buffers.index_stale {
            return;
        }
        for (i, &h) in buffers.order.iter().enumerate() {
            assert_eq!(
                world.sims.owner(i as u32),
                h,
                "sim {i} is the solver's body {i}"
            );
        }
        for group in world.sleep_islands.groups() {
            let mut places: Vec<u32> = group.iter().map(|&h| world.bodies[h].sim).collect();
            places.sort_unstable();
            assert!(
                places.windows(2).all(|w| w[1] == w[0] + 1),
                "an island's sims lie together"
            );
            assert!(places[0] as usize >= buffers.order.len());
        }
    }

    #[test]
    fn sims_follow_their_bodies_through_adds_removals_sleep_and_waking() {
        let mut world = World::new(Settings::default());
        let ground = Shape::cuboid(Vec2::new(40.0, 0.5)).unwrap();
        let floor = BodyDesc::fixed().position(Vec2::new(0.0, -0.5));
        world.add_body(floor, ColliderDesc::new(ground)).unwrap();
        let cube = Shape::cuboid(Vec2::splat(0.25)).unwrap();
        let mut boxes: Vec<BodyHandle> = Vec::new();
        let add = |world: &mut World, x: f32, y: f32| {
            let desc = BodyDesc::dynamic().position(Vec2::new(x, y));
            world
                .add_body(desc, ColliderDesc::new(cube.clone()))
                .unwrap()
        };
        for column in 0..8 {
            for row in 0..3 {
                let x = column as f32 * 3.0 - 12.0;
                boxes.push(add(&mut world, x, 0.25 + row as f32 * 0.5));
            }
        }
        let mut slept = false;
        for step in 0..400 {
            world.step(1.0 / 60.0);
            check(&world);
            slept |= !world.sleep_islands.is_empty();
            if step % 50 == 25 {
                world.remove_body(boxes.swap_remove(step % boxes.len()));
                check(&world);
            }
            if step % 70 == 40 {
                boxes.push(add(&mut world, (step % 7) as f32 * 3.0 - 10.0, 3.0));
            }
            if step == 300 {
                // A pile woken by the game rejoins the solver.
                let h = boxes[0];
                world.body_mut(h).unwrap().wake_up();
            }
            for &h in &boxes {
                let (body, sim) = (&world.bodies[h], world.sims.get(world.bodies[h].sim));
                assert_eq!(world.body(h).unwrap().position(), sim.pose.translation);
                assert_eq!(world.sims.owner(body.sim), h);
            }
        }
        assert!(slept, "piles fell asleep while bodies came and went");
    }
}
