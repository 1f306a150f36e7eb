//! Islands and sleep: bodies that rest, with everything they touch, stop
//! being simulated until something disturbs them (Box2D v3's `island.c`
//! and `solver_set.c`).
//!
//! 1. Islands are kept, not found anew: every dynamic body belongs to one
//!    island, awake ([`AwakeIslands`]) or asleep ([`SleepingIslands`]), and
//!    a new dynamic body starts an island of its own. Fixed bodies join
//!    none, so a floor does not make one island of everything on it.
//! 2. Links merge islands: a contact pair between two dynamic bodies is
//!    *linked* while it has points (the pairs the solver takes), and a
//!    joint while both its bodies are dynamic. When a pair starts to have
//!    points after the solve, or a joint is added, the smaller island
//!    joins the larger (the smaller key wins a tie), so an island holds
//!    every component of the touching graph it ever met
//!    (`islands_hold_the_touching_components`, the union-find oracle).
//! 3. Links that go only count: a pair losing its points or ending, a
//!    joint removed, a body removed or made fixed or kinematic add one to
//!    its island's `removed`. Such an island may have come apart; it is
//!    split (a depth-first search over its bodies and links) only when it
//!    is the *sleep candidate*: the island of the body that has rested
//!    longest, among bodies that have rested `time_to_sleep` in islands
//!    with removals. One island is split a step; its pieces are weighed
//!    again the next step (`a_box_sliding_off_a_pile_lets_the_pile_sleep_after_one_split`
//!    in `tests/sleeping.rs`).
//! 4. Rest: each awake dynamic body slower than the tolerances gathers
//!    rest time (its spin counts as rest below the angular tolerance, or
//!    while its farthest point moves slower than the linear one:
//!    `a_slow_spin_sleeps_by_the_speed_of_the_farthest_point`).
//! 5. An awake island with no removals, whose every body has rested
//!    `time_to_sleep`, and which no moving kinematic body touches (a pair
//!    with points) or is joined to, falls asleep whole (velocities zeroed)
//!    and moves to [`SleepingIslands`]: its bodies leave the solver and no
//!    stage of the step looks at them or their pairs again.
//! 6. Waking: before the solver, a sleeping island that an awake dynamic
//!    body or moving kinematic one touches (a pair with points) or is
//!    joined to wakes whole and moves back among the awake islands as it
//!    was, so a box landing on a sleeping pile wakes the pile it touches
//!    (`a_pile_of_1000_boxes_falls_asleep_and_wakes_when_hit` in
//!    `tests/sleeping.rs`). The woken bodies are solved in that step with
//!    all their contacts, those with what woke them included
//!    (`World::add_woken_inputs`): a pile asleep on a kinematic platform
//!    that starts moving is carried from the first step
//!    (`a_sleeping_pile_on_a_kinematic_platform_driven_up_by_targets_is_carried_from_the_first_step`).
//!    A body the game wakes (an impulse, a force, a placement) wakes its
//!    island at the start of the next step. Any change of an island's
//!    links wakes it first, so a sleeping island never changes.
//!
//! Removing a body wakes what touched it
//! (`removing_a_sleeping_box_ends_its_pairs_and_wakes_only_its_column`);
//! so does moving it with `set_position` or `set_rotation`, and a fixed
//! body moved so also wakes what its box now meets
//! (`World::wake_beside_teleported`;
//! `a_moved_fixed_platform_catches_and_drops_boxes_2d`/`_3d` in
//! `tests/game_api.rs`).
//!
//! Islands are state that depends on history (an island is split only as
//! a candidate), so both sets and each pair's `linked` flag are saved
//! (`world/persist.rs`) and kept in rollback states (`world/state.rs`).
//! Every order is defined: links are applied in pair order, the islands
//! are weighed in their packed order (`AwakeIslands::order`), the
//! candidate is the first of
//! the longest rested, and a split's pieces follow the island's body list.
//!
//! Limits: a split looks through the awake pairs for the island's links
//! (no per-body contact lists), so a step with a split costs a walk over
//! the awake pairs; only one island is split a step, so several settling
//! islands that lost contacts fall asleep one step apart each.

use slotmap::{new_key_type, SecondaryMap, SlotMap};
use std::sync::Arc;

use crate::body::{BodyHandle, BodyKind, BodySim};
use crate::dim::Dim;
use crate::math::{Angular, Vector};
use crate::world::World;

/// A body joins islands when it is dynamic, or kinematic and moving (then
/// it only ever keeps the islands it touches awake, and wakes them).
fn joins<D: Dim>(body: &BodySim<D>) -> bool {
    match body.kind {
        BodyKind::Dynamic => true,
        BodyKind::Kinematic => moving_kinematic(body),
        BodyKind::Fixed => false,
    }
}

/// A kinematic body with any velocity: it keeps what it touches awake.
fn moving_kinematic<D: Dim>(body: &BodySim<D>) -> bool {
    body.kind == BodyKind::Kinematic
        && (body.linear_velocity.length_squared() > 0.0
            || body.angular_velocity.dot(body.angular_velocity) > 0.0)
}

new_key_type! {
    /// A sleeping island.
    pub(crate) struct IslandKey;
    /// An awake island.
    pub(crate) struct AwakeKey;
}

/// An awake island: its bodies, and how many of its links went since it
/// was made or last split.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct AwakeIsland {
    bodies: Vec<BodyHandle>,
    /// Links removed (pairs that lost their points, joints, bodies): above
    /// zero the island may have come apart and is split before it sleeps.
    removed: u32,
    /// Its place in [`AwakeIslands::order`].
    slot: u32,
}

/// The awake islands, kept from step to step: merged when a link comes,
/// split only as the sleep candidate. Every awake dynamic body is in one.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct AwakeIslands {
    #[cfg_attr(feature = "serde", serde(with = "crate::world::persist::slot_map"))]
    islands: SlotMap<AwakeKey, AwakeIsland>,
    /// Each member's island and its place in the island's list (a removal
    /// takes the last member into its place).
    place: SecondaryMap<BodyHandle, (AwakeKey, u32)>,
    /// The islands, packed, in the order the step weighs them: a slot
    /// map's walk passes its free slots too, and after a city of islands
    /// falls asleep those are thousands (0.008 against 0.001 ms a step in
    /// sleeping_city). A removal takes the last island into its place.
    order: Vec<AwakeKey>,
}

impl AwakeIslands {
    /// Bytes held by the islands and the body-to-island map (lengths, not
    /// capacities).
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        let members: usize = self.islands.values().map(|i| i.bodies.len()).sum();
        self.islands.len() * size_of::<(AwakeKey, AwakeIsland)>()
            + members * size_of::<BodyHandle>()
            + self.place.len() * size_of::<(BodyHandle, (AwakeKey, u32))>()
    }

    /// The awake island `body` belongs to, if any.
    pub(crate) fn island_of(&self, body: BodyHandle) -> Option<AwakeKey> {
        self.place.get(body).map(|&(key, _)| key)
    }

    /// A new island of `bodies` (none of them in one), no removals.
    fn insert(&mut self, bodies: Vec<BodyHandle>) -> AwakeKey {
        let key = self.islands.insert(AwakeIsland {
            bodies: Vec::new(),
            removed: 0,
            slot: self.order.len() as u32,
        });
        self.order.push(key);
        for (i, &h) in bodies.iter().enumerate() {
            self.place.insert(h, (key, i as u32));
        }
        self.islands[key].bodies = bodies;
        key
    }

    /// `island` goes, its members' places left as they are.
    fn drop_island(&mut self, island: AwakeKey) -> Option<AwakeIsland> {
        let gone = self.islands.remove(island)?;
        let slot = gone.slot as usize;
        if self.order.get(slot) == Some(&island) {
            self.order.swap_remove(slot);
            if let Some(&moved) = self.order.get(slot) {
                self.islands[moved].slot = slot as u32;
            }
        }
        Some(gone)
    }

    /// The bodies of `island`, which is no longer awake.
    fn take(&mut self, island: AwakeKey) -> Vec<BodyHandle> {
        let bodies = self
            .drop_island(island)
            .map(|i| i.bodies)
            .unwrap_or_default();
        for &h in &bodies {
            self.place.remove(h);
        }
        bodies
    }

    /// `body` leaves its island, which counts a removal (or goes, empty).
    fn remove(&mut self, body: BodyHandle) {
        let Some((key, at)) = self.place.remove(body) else {
            return;
        };
        let Some(island) = self.islands.get_mut(key) else {
            return;
        };
        let at = at as usize;
        if at < island.bodies.len() {
            island.bodies.swap_remove(at);
            if let Some(&moved) = island.bodies.get(at) {
                self.place.insert(moved, (key, at as u32));
            }
        }
        island.removed = island.removed.saturating_add(1);
        if island.bodies.is_empty() {
            self.drop_island(key);
        }
    }

    /// One link of `body`'s island went.
    fn count_removal(&mut self, body: BodyHandle) {
        if let Some(island) = self.island_of(body) {
            let island = &mut self.islands[island];
            island.removed = island.removed.saturating_add(1);
        }
    }

    /// The islands of `a` and `b` become one: the smaller's bodies join
    /// the larger's list (the smaller key keeps a tie), with its removals.
    fn merge(&mut self, a: BodyHandle, b: BodyHandle) {
        let (Some(ka), Some(kb)) = (self.island_of(a), self.island_of(b)) else {
            return;
        };
        if ka == kb {
            return;
        }
        let (la, lb) = (self.islands[ka].bodies.len(), self.islands[kb].bodies.len());
        let (big, small) = if la > lb || (la == lb && ka < kb) {
            (ka, kb)
        } else {
            (kb, ka)
        };
        let Some(gone) = self.drop_island(small) else {
            return;
        };
        let island = &mut self.islands[big];
        for &h in &gone.bodies {
            self.place.insert(h, (big, island.bodies.len() as u32));
            island.bodies.push(h);
        }
        island.removed = island.removed.saturating_add(gone.removed);
    }

    /// For a loaded world (`world/persist.rs`): every island's members are
    /// live bodies placed where they stand, each once, and no island is
    /// empty.
    #[cfg(feature = "serde")]
    pub(crate) fn is_sound<V>(&self, bodies: &SlotMap<BodyHandle, V>) -> bool {
        let count = self.islands.values().map(|i| i.bodies.len()).sum::<usize>();
        count == self.place.len()
            && self.order.len() == self.islands.len()
            && self.order.iter().enumerate().all(|(i, &key)| {
                self.islands
                    .get(key)
                    .is_some_and(|island| island.slot as usize == i)
            })
            && self.islands.iter().all(|(key, island)| {
                !island.bodies.is_empty()
                    && island.bodies.iter().enumerate().all(|(i, &h)| {
                        bodies.contains_key(h) && self.place.get(h) == Some(&(key, i as u32))
                    })
            })
    }
}

/// Islands that sleep, each kept whole until something wakes it: waking
/// one member wakes them all, without looking at any other body.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub(crate) struct SleepingIslands {
    #[cfg_attr(feature = "serde", serde(with = "crate::world::persist::slot_map"))]
    members: SlotMap<IslandKey, Vec<BodyHandle>>,
    island_of: SecondaryMap<BodyHandle, IslandKey>,
}

impl SleepingIslands {
    /// Bytes held by the islands' member lists and the body-to-island map
    /// (their lengths, not their capacities).
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        let members: usize = self.members.values().map(Vec::len).sum();
        self.members.len() * size_of::<(IslandKey, Vec<BodyHandle>)>()
            + members * size_of::<BodyHandle>()
            + self.island_of.len() * size_of::<(BodyHandle, IslandKey)>()
    }

    /// True when no island sleeps.
    pub(crate) fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The sleeping island `body` belongs to, if any.
    pub(crate) fn island_of(&self, body: BodyHandle) -> Option<IslandKey> {
        self.island_of.get(body).copied()
    }

    /// Each island's bodies, island by island.
    pub(crate) fn groups(&self) -> impl Iterator<Item = &[BodyHandle]> {
        self.members.values().map(Vec::as_slice)
    }

    /// Puts `bodies` to sleep together as one island.
    fn add(&mut self, bodies: Vec<BodyHandle>) {
        let key = self.members.insert(Vec::new());
        for &h in &bodies {
            self.island_of.insert(h, key);
        }
        self.members[key] = bodies;
    }

    /// The members of `island`, which no longer sleeps.
    fn take(&mut self, island: IslandKey) -> Vec<BodyHandle> {
        let members = self.members.remove(island).unwrap_or_default();
        for &h in &members {
            self.island_of.remove(h);
        }
        members
    }

    /// For a loaded world (`world/persist.rs`): every island's members are
    /// live bodies that name it as theirs, and every body named belongs to
    /// the island named.
    #[cfg(feature = "serde")]
    pub(crate) fn is_sound<V>(&self, bodies: &SlotMap<BodyHandle, V>) -> bool {
        let count = self.members.values().map(Vec::len).sum::<usize>();
        count == self.island_of.len()
            && self.members.iter().all(|(key, members)| {
                members
                    .iter()
                    .all(|&h| bodies.contains_key(h) && self.island_of.get(h) == Some(&key))
            })
    }
}

/// The pieces of an island of `count` bodies joined by `links` (pairs of
/// places in its list): a depth-first search from each body not yet
/// reached, in list order, each piece's places in the order reached.
/// Each body is pushed once, so the search ends after `count` pushes.
fn pieces(count: usize, links: &[(usize, usize)]) -> Vec<Vec<usize>> {
    // Each body's neighbours, contiguous: `start[i]..start[i + 1]`.
    let mut start = vec![0usize; count + 1];
    for &(a, b) in links {
        start[a + 1] += 1;
        start[b + 1] += 1;
    }
    for i in 0..count {
        start[i + 1] += start[i];
    }
    let mut filled = start.clone();
    let mut neighbours = vec![0usize; start[count]];
    for &(a, b) in links {
        neighbours[filled[a]] = b;
        filled[a] += 1;
        neighbours[filled[b]] = a;
        filled[b] += 1;
    }
    let mut reached = vec![false; count];
    let mut pieces = Vec::new();
    let mut stack = Vec::new();
    for seed in 0..count {
        if reached[seed] {
            continue;
        }
        reached[seed] = true;
        stack.push(seed);
        let mut piece = Vec::new();
        while let Some(i) = stack.pop() {
            piece.push(i);
            for &j in &neighbours[start[i]..start[i + 1]] {
                if !reached[j] {
                    reached[j] = true;
                    stack.push(j);
                }
            }
        }
        pieces.push(piece);
    }
    pieces
}

impl<D: Dim> World<D> {
    /// True for a live dynamic body.
    fn is_dynamic(&self, body: BodyHandle) -> bool {
        bodies_of!(self)
            .sim(body)
            .is_some_and(|b| b.kind == BodyKind::Dynamic)
    }

    /// A dynamic body in no island starts one of its own (a body added, or
    /// made dynamic).
    pub(crate) fn start_island(&mut self, body: BodyHandle) {
        let placed =
            self.islands.island_of(body).is_some() || self.sleep_islands.island_of(body).is_some();
        if self.is_dynamic(body) && !placed {
            Arc::make_mut(&mut self.islands).insert(vec![body]);
        }
    }

    /// `body` (still live) leaves its island, being removed or made fixed
    /// or kinematic: the island, woken first if it slept, counts a removal.
    pub(crate) fn leave_island(&mut self, body: BodyHandle) {
        self.wake_islands_of(&[body]);
        if self.islands.island_of(body).is_some() {
            Arc::make_mut(&mut self.islands).remove(body);
        }
    }

    /// A link between `a` and `b` came (a pair got points, a joint was
    /// added): between two dynamic bodies, their islands (woken first if
    /// they slept) merge.
    pub(crate) fn link(&mut self, a: BodyHandle, b: BodyHandle) {
        if !(self.is_dynamic(a) && self.is_dynamic(b)) {
            return;
        }
        self.wake_islands_of(&[a, b]);
        self.start_island(a);
        self.start_island(b);
        Arc::make_mut(&mut self.islands).merge(a, b);
    }

    /// A link between `a` and `b` went (a pair lost its points or ended, a
    /// joint was removed): their island, woken first if it slept, counts a
    /// removal and may be split when it is the sleep candidate.
    pub(crate) fn unlink(&mut self, a: BodyHandle, b: BodyHandle) {
        for h in [a, b] {
            self.wake_islands_of(&[h]);
            if self.islands.island_of(h).is_some() {
                Arc::make_mut(&mut self.islands).count_removal(h);
                return;
            }
        }
    }

    /// After the solve: each pair whose points came or went (listed by the
    /// solve in pair order) links or unlinks its bodies.
    fn link_changed_pairs(&mut self) {
        let bodies = bodies_of!(self);
        let mut changes = Vec::new();
        for &k in &self.buffers.changed {
            let Some(pair) = self.pairs.get_mut(k) else {
                continue;
            };
            let links = pair.links(bodies);
            if links != pair.linked {
                pair.linked = links;
                changes.push((links, pair.body_a, pair.body_b));
            }
        }
        for (links, a, b) in changes {
            if links {
                self.link(a, b);
            } else {
                self.unlink(a, b);
            }
        }
    }

    /// Wakes the whole sleeping islands of `bodies`, which become awake
    /// islands as they were, marking the solver's bodies stale; returns
    /// the bodies that woke, island by island in the order of `bodies`.
    pub(crate) fn wake_islands_of(&mut self, bodies: &[BodyHandle]) -> Vec<BodyHandle> {
        let mut woken = Vec::new();
        if self.sleep_islands.is_empty() {
            return woken;
        }
        for &h in bodies {
            let Some(island) = self.sleep_islands.island_of(h) else {
                continue;
            };
            let members = Arc::make_mut(&mut self.sleep_islands).take(island);
            let members_len = members.len();
            let mut awake = Vec::with_capacity(members_len);
            for member in members {
                if let Some(body) = self.bodies.get_mut(member) {
                    if body.sleeping {
                        body.wake_up();
                    }
                    woken.push(member);
                    let dynamic = self.sims.get(body.sim).kind == BodyKind::Dynamic;
                    if dynamic && self.islands.island_of(member).is_none() {
                        awake.push(member);
                    }
                }
            }
            // A member gone or no longer dynamic (made fixed as it slept)
            // left a gap: the island may have come apart.
            let lost = awake.len() < members_len;
            if !awake.is_empty() {
                let islands = Arc::make_mut(&mut self.islands);
                let key = islands.insert(awake);
                islands.islands[key].removed = u32::from(lost);
            }
        }
        // The woken bodies join the solver at its next rebuild (those woken
        // within a step's solve are also appended at once).
        self.buffers.index_stale |= !woken.is_empty();
        woken
    }

    /// Step 6: wakes the sleeping islands an awake body now touches (an
    /// awake pair with points between a body that joins islands and a
    /// sleeping one), and gives their bodies places in the solver after
    /// the others; true when a body woke.
    pub(crate) fn wake_touched_islands(&mut self) -> bool {
        let bodies = bodies_of!(self);
        let pairs = &self.pairs;
        let touched: Vec<BodyHandle> = self
            .buffers
            .awake_pairs
            .iter()
            .map(|&k| &pairs[k])
            .filter(|p| !p.is_sensor() && p.has_points())
            .filter_map(|p| {
                let (a, b) = (bodies.get(p.body_a)?, bodies.get(p.body_b)?);
                let (a_sleeps, b_sleeps) = (a.record.sleeping, b.record.sleeping);
                if a_sleeps && !b_sleeps && joins(b.sim) {
                    Some(p.body_a)
                } else if b_sleeps && !a_sleeps && joins(a.sim) {
                    Some(p.body_b)
                } else {
                    None
                }
            })
            .collect();
        let mut touched = touched;
        // A sleeping body joined to an awake one wakes with its island.
        for (a, b) in self.joined_bodies() {
            let (Some(body_a), Some(body_b)) = (bodies.get(a), bodies.get(b)) else {
                continue;
            };
            let (a_sleeps, b_sleeps) = (body_a.record.sleeping, body_b.record.sleeping);
            if a_sleeps && !b_sleeps && joins(body_b.sim) {
                touched.push(a);
            } else if b_sleeps && !a_sleeps && joins(body_a.sim) {
                touched.push(b);
            }
        }
        // The solver's bodies stay as they are for this step, the woken
        // ones appended below; the step marks them for the rebuild once it
        // has solved (`World::step_once`).
        let stale = self.buffers.index_stale;
        let woken = self.wake_islands_of(&touched);
        let buffers = &mut self.buffers;
        buffers.index_stale = stale;
        for &h in &woken {
            if !buffers.index.contains_key(h) {
                // Its sim takes the place after the solver's bodies
                // (`world/sims.rs`).
                let place = buffers.order.len();
                self.sims.move_to(h, place as u32, &mut self.bodies);
                buffers.index.insert(h, place);
                buffers.order.push(h);
                self.awake_joints_stale = true;
            }
        }
        !woken.is_empty()
    }

    /// The awake islands a moving kinematic body touches (a pair with
    /// points) or is joined to, sorted: they stay awake.
    fn islands_kept_by_kinematics(&self) -> Vec<AwakeKey> {
        let bodies = self.view();
        let movers: Vec<BodyHandle> = self
            .buffers
            .order
            .iter()
            .copied()
            .filter(|&h| bodies.sim(h).is_some_and(moving_kinematic))
            .collect();
        let mut kept = Vec::new();
        if movers.is_empty() {
            return kept;
        }
        for &mover in &movers {
            for other in self.bodies_touching(mover) {
                kept.extend(self.islands.island_of(other));
            }
        }
        for (a, b) in self.joined_bodies() {
            let moves = |h| bodies.sim(h).is_some_and(moving_kinematic);
            if moves(a) {
                kept.extend(self.islands.island_of(b));
            }
            if moves(b) {
                kept.extend(self.islands.island_of(a));
            }
        }
        kept.sort_unstable();
        kept.dedup();
        kept
    }

    /// Splits `island` into the pieces its links still hold together
    /// (rule 3): its links are the linked awake pairs between its bodies,
    /// in pair order, then the joints between them, in joint order. The
    /// pieces start with no removals; one piece keeps the island's key.
    fn split_island(&mut self, key: AwakeKey) {
        let Some(island) = self.islands.islands.get(key) else {
            return;
        };
        let count = island.bodies.len();
        let place = &self.islands.place;
        let local = |h: BodyHandle| match place.get(h) {
            Some(&(k, at)) if k == key && (at as usize) < count => Some(at as usize),
            _ => None,
        };
        // A linked pair's bodies are in one island and awake with it, so
        // its links are among the awake pairs.
        let every_pair = self.buffers.awake_pairs_stale;
        let candidates: Box<dyn Iterator<Item = usize>> = if every_pair {
            Box::new(0..self.pairs.len())
        } else {
            Box::new(self.buffers.awake_pairs.iter().copied())
        };
        let mut by_pair: Vec<(usize, usize, usize)> = candidates
            .filter_map(|k| {
                let pair = self.pairs.get(k).filter(|p| p.linked)?;
                Some((k, local(pair.body_a)?, local(pair.body_b)?))
            })
            .collect();
        by_pair.sort_unstable();
        let mut links: Vec<(usize, usize)> = by_pair.iter().map(|&(_, a, b)| (a, b)).collect();
        links.extend(
            self.joined_bodies()
                .filter_map(|(a, b)| Some((local(a)?, local(b)?))),
        );
        let pieces = pieces(count, &links);
        let islands = Arc::make_mut(&mut self.islands);
        if pieces.len() <= 1 {
            islands.islands[key].removed = 0;
            return;
        }
        let members = islands.take(key);
        for piece in pieces {
            islands.insert(piece.into_iter().map(|i| members[i]).collect());
        }
    }

    /// After the solve: links follow the pairs' points; then, with
    /// sleeping on, rest times, the sleep candidate split, and the
    /// islands that rested long enough fall asleep, each kept whole.
    pub(crate) fn fall_asleep(&mut self, dt: f32) {
        self.link_changed_pairs();
        let settings = *self.settings();
        if !settings.sleep {
            return;
        }
        let (linear, angular) = (
            settings.linear_sleep_tolerance,
            settings.angular_sleep_tolerance,
        );
        for &h in &self.buffers.order {
            let Some(body) = self.bodies.get_mut(h) else {
                continue;
            };
            let sim = self.sims.get(body.sim);
            if sim.kind != BodyKind::Dynamic || body.sleeping {
                continue;
            }
            // Spin counts as rest below the angular tolerance, or while it
            // moves the body's farthest point slower than the linear one
            // (Box2D v3's measure; `a_slow_spin_sleeps_by_the_speed_of_the_farthest_point`).
            let spin = angular.max(linear / body.extent());
            let resting = sim.linear_velocity.length_squared() <= linear * linear
                && sim.angular_velocity.dot(sim.angular_velocity) <= spin * spin;
            body.rest_time = if resting && body.can_sleep {
                body.rest_time + dt
            } else {
                0.0
            };
        }
        let kept = self.islands_kept_by_kinematics();
        let time_to_sleep = settings.time_to_sleep;
        let bodies = &self.bodies;
        // A body gone from the bodies (never, while islands are sound)
        // holds no island awake.
        let rest = |h: BodyHandle| bodies.get(h).map_or(time_to_sleep, |b| b.rest_time);
        let mut candidate: Option<(f32, AwakeKey)> = None;
        let mut asleep = Vec::new();
        let awake = &self.islands;
        let weighed = awake
            .order
            .iter()
            .filter_map(|&k| Some((k, awake.islands.get(k)?)));
        for (key, island) in weighed {
            if island.removed > 0 {
                // It may have come apart: a candidate for the split, by
                // its longest rested body (the first island keeps a tie).
                for &h in &island.bodies {
                    let r = rest(h);
                    if r >= time_to_sleep && candidate.is_none_or(|(best, _)| r > best) {
                        candidate = Some((r, key));
                    }
                }
                continue;
            }
            if kept.binary_search(&key).is_err()
                && island.bodies.iter().all(|&h| rest(h) >= time_to_sleep)
            {
                asleep.push(key);
            }
        }
        if let Some((_, key)) = candidate {
            self.split_island(key);
        }
        for key in asleep {
            let members = Arc::make_mut(&mut self.islands).take(key);
            for &h in &members {
                if let Some(body) = self.bodies.get_mut(h) {
                    body.sleeping = true;
                    let sim = self.sims.get_mut(body.sim);
                    sim.linear_velocity = D::Vector::ZERO;
                    sim.angular_velocity = D::AngularVector::default();
                }
            }
            Arc::make_mut(&mut self.sleep_islands).add(members);
            self.buffers.index_stale = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::d2::{BodyDesc, ColliderDesc, JointDesc, Shape, World};
    use crate::glam::Vec2;
    use crate::settings::Settings;

    const DT: f32 = 1.0 / 60.0;

    /// A world with a fixed floor whose top is at y = 0.
    fn floored() -> World {
        let mut world = World::new(Settings::default());
        let floor = Shape::cuboid(Vec2::new(100.0, 0.5)).unwrap();
        world
            .add_body(
                BodyDesc::fixed().position(Vec2::new(0.0, -0.5)),
                ColliderDesc::new(floor),
            )
            .unwrap();
        world
    }

    /// A unit box at `at`.
    fn add_box(world: &mut World, at: Vec2, can_sleep: bool) -> BodyHandle {
        let cube = Shape::cuboid(Vec2::splat(0.5)).unwrap();
        world
            .add_body(
                BodyDesc::dynamic().position(at).can_sleep(can_sleep),
                ColliderDesc::new(cube),
            )
            .unwrap()
    }

    /// Which island `body` is in: awake or asleep, and its key's bits.
    fn island(world: &World, body: BodyHandle) -> Option<(bool, u64)> {
        use slotmap::Key;
        let awake = world.islands.island_of(body);
        let asleep = world.sleep_islands.island_of(body);
        match (awake, asleep) {
            (Some(k), None) => Some((true, k.data().as_ffi())),
            (None, Some(k)) => Some((false, k.data().as_ffi())),
            _ => None,
        }
    }

    /// Union-find over dense indices, the smaller root kept: the oracle.
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }

    /// The rules the kept islands must hold, checked against union-find
    /// over the touching graph (pairs with points and joints between
    /// dynamic bodies): each dynamic body is in exactly one island and no
    /// other body in any; each component of the graph lies in one island;
    /// an awake pair's link bit says whether it links; the awake sets'
    /// lists and places agree. Returns the count of islands.
    fn check_islands(world: &World) -> usize {
        let handles: Vec<BodyHandle> = world.bodies.keys().collect();
        let at = |h: BodyHandle| handles.iter().position(|&x| x == h);
        for (&h, (_, body)) in handles.iter().zip(world.view().iter()) {
            let dynamic = body.kind() == BodyKind::Dynamic;
            assert_eq!(island(world, h).is_some(), dynamic, "{h:?} in an island");
            if let Some((awake, _)) = island(world, h) {
                assert_eq!(awake, !body.is_sleeping(), "{h:?}'s island and flag agree");
            }
        }
        let mut parent: Vec<usize> = (0..handles.len()).collect();
        let dynamic = |h| world.is_dynamic(h);
        let mut edges: Vec<(BodyHandle, BodyHandle)> = world
            .pairs
            .iter()
            .filter(|p| !p.is_sensor() && p.has_points())
            .map(|p| (p.body_a, p.body_b))
            .collect();
        edges.extend(world.joined_bodies());
        for (a, b) in edges {
            if dynamic(a) && dynamic(b) {
                let (ra, rb) = (
                    root(&mut parent, at(a).unwrap()),
                    root(&mut parent, at(b).unwrap()),
                );
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
        let mut island_of_root: Vec<Option<(bool, u64)>> = vec![None; handles.len()];
        let mut islands = Vec::new();
        for (i, &h) in handles.iter().enumerate() {
            let Some(island) = island(world, h) else {
                continue;
            };
            islands.push(island);
            let r = root(&mut parent, i);
            let held = island_of_root[r].get_or_insert(island);
            assert_eq!(*held, island, "a component in two islands");
        }
        for &k in &world.buffers.awake_pairs {
            let pair = &world.pairs[k];
            assert_eq!(pair.linked, pair.links(world.view()), "pair {k}'s link bit");
        }
        let awake = &world.islands;
        assert_eq!(awake.order.len(), awake.islands.len());
        for (key, island) in awake.islands.iter() {
            assert_eq!(awake.order[island.slot as usize], key);
            assert!(!island.bodies.is_empty());
            for (i, &h) in island.bodies.iter().enumerate() {
                assert_eq!(awake.place.get(h), Some(&(key, i as u32)));
            }
        }
        islands.sort_unstable();
        islands.dedup();
        islands.len()
    }

    /// A draw in [0, 1) from a linear congruential sequence.
    fn draw(seed: &mut u32) -> f32 {
        *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (*seed >> 8) as f32 / (1u32 << 24) as f32
    }

    /// Random boxes dropped in clumps, joined now and then, some removed,
    /// made fixed or kinematic (and dynamic again), pushed, their joints
    /// removed: after every step the kept islands hold every component of
    /// the touching graph (the union-find oracle), and splits happen (the
    /// count of islands drops by merges and rises by splits).
    #[test]
    fn islands_hold_the_touching_components() {
        for seed in 1..=3u32 {
            let mut seed = seed;
            let mut world = floored();
            let mut bodies = Vec::new();
            let mut joints = Vec::new();
            let (mut last, mut rises) = (0, 0);
            for step in 0..600 {
                let mut added = 0;
                if step % 20 == 0 && step < 400 {
                    let x = draw(&mut seed) * 16.0 - 8.0;
                    for k in 0..4 {
                        let at = Vec2::new(x + draw(&mut seed) * 0.3, 1.0 + k as f32 * 1.1);
                        bodies.push(add_box(&mut world, at, true));
                        added += 1;
                    }
                }
                let n = bodies.len();
                if n > 2 && step % 37 == 5 {
                    let (a, b) = (bodies[step % n], bodies[(step * 7 + 1) % n]);
                    let anchor = world.body(a).map(|b| b.position()).unwrap_or_default();
                    if let Ok(j) = world.add_joint(JointDesc::revolute(a, b, anchor)) {
                        joints.push(j);
                    }
                }
                if !joints.is_empty() && step % 53 == 11 {
                    world.remove_joint(joints.swap_remove(step % joints.len()));
                }
                if n > 4 && step % 61 == 17 {
                    world.remove_body(bodies.swap_remove(step % n));
                }
                if n > 4 && step % 43 == 7 {
                    let h = bodies[(step * 3) % n];
                    let kind = if step % 2 == 0 {
                        BodyKind::Fixed
                    } else {
                        BodyKind::Kinematic
                    };
                    world.set_body_kind(h, kind).unwrap();
                    if step % 3 == 0 {
                        world.set_body_kind(h, BodyKind::Dynamic).unwrap();
                    }
                }
                if n > 4 && step % 47 == 3 {
                    let h = bodies[(step * 5) % n];
                    world.set_body_kind(h, BodyKind::Dynamic).unwrap();
                    if let Some(mut body) = world.body_mut(h) {
                        body.apply_impulse_at_center(Vec2::new(4.0, 6.0)).unwrap();
                    }
                }
                world.step(DT);
                let count = check_islands(&world);
                if count > last + added {
                    rises += 1;
                }
                last = count;
            }
            let asleep = bodies
                .iter()
                .filter(|&&h| world.body(h).is_some_and(|b| b.is_sleeping()))
                .count();
            assert!(asleep > 0, "some islands fall asleep");
            assert!(rises > 0, "some islands split");
        }
    }

    /// A box that lands on another joins its island in the step they
    /// touch; apart, they were two.
    #[test]
    fn a_contact_that_begins_merges_two_islands() {
        let mut world = floored();
        let below = add_box(&mut world, Vec2::new(0.0, 0.5), true);
        let above = add_box(&mut world, Vec2::new(0.0, 3.0), true);
        world.step(DT);
        assert_ne!(island(&world, below), island(&world, above));
        let mut merged = false;
        for _ in 0..60 {
            world.step(DT);
            if island(&world, below) == island(&world, above) {
                merged = true;
                break;
            }
        }
        assert!(merged, "the boxes share an island once touching");
        check_islands(&world);
    }

    /// Joining two boxes far apart makes one island at once; removing the
    /// joint counts a removal, and the island splits in two once it is
    /// the sleep candidate, then both halves sleep.
    #[test]
    fn a_joint_merges_islands_and_its_removal_splits_them_when_they_rest() {
        let mut world = floored();
        let a = add_box(&mut world, Vec2::new(-5.0, 0.5), true);
        let b = add_box(&mut world, Vec2::new(5.0, 0.5), true);
        world.step(DT);
        assert_ne!(island(&world, a), island(&world, b));
        let (anchor_a, anchor_b) = (Vec2::new(-5.0, 0.5), Vec2::new(5.0, 0.5));
        let joint = world
            .add_joint(JointDesc::distance(a, b, anchor_a, anchor_b))
            .unwrap();
        assert_eq!(island(&world, a), island(&world, b), "joined at once");
        world.step(DT);
        world.remove_joint(joint).unwrap();
        let key = world.islands.island_of(a).unwrap();
        assert!(world.islands.islands[key].removed > 0);
        assert_eq!(island(&world, a), island(&world, b), "not split yet");
        for _ in 0..60 {
            world.step(DT);
        }
        assert!(world.body(a).unwrap().is_sleeping() && world.body(b).unwrap().is_sleeping());
        assert_ne!(
            island(&world, a),
            island(&world, b),
            "split, then asleep apart"
        );
        check_islands(&world);
    }

    /// A box pushed off a resting pile, kept awake, left the pile's island
    /// with a removal: once the pile's bodies have rested `time_to_sleep`
    /// the island is the candidate and splits in that step, and the pile
    /// sleeps in the next while the box stays awake.
    #[test]
    fn a_pile_sleeps_one_step_after_the_split_that_frees_it_of_a_sliding_box() {
        let mut world = floored();
        let pile: Vec<BodyHandle> = (0..3)
            .map(|k| add_box(&mut world, Vec2::new(0.0, 0.5 + k as f32), true))
            .collect();
        let slider = add_box(&mut world, Vec2::new(0.0, 3.5), false);
        for _ in 0..30 {
            world.step(DT);
        }
        assert!(pile
            .iter()
            .all(|&h| island(&world, h) == island(&world, slider)));
        world
            .body_mut(slider)
            .unwrap()
            .set_linear_velocity(Vec2::new(4.0, 0.0))
            .unwrap();
        let time_to_sleep = world.settings().time_to_sleep;
        let rested = |world: &World| {
            pile.iter()
                .all(|&h| world.body(h).unwrap().record.rest_time >= time_to_sleep)
        };
        let (mut rested_at, mut asleep_at) = (None, None);
        for step in 0..300 {
            world.step(DT);
            check_islands(&world);
            if rested_at.is_none() && rested(&world) {
                rested_at = Some(step);
            }
            if world.body(pile[0]).unwrap().is_sleeping() {
                asleep_at = Some(step);
                break;
            }
        }
        let rested_at = rested_at.expect("the pile rests");
        let asleep_at = asleep_at.expect("the pile sleeps");
        assert!(
            asleep_at <= rested_at + 1,
            "rested at step {rested_at}, asleep at {asleep_at}"
        );
        assert!(pile.iter().all(|&h| world.body(h).unwrap().is_sleeping()));
        assert!(!world.body(slider).unwrap().is_sleeping());
        let x = world.body(slider).unwrap().position().x;
        assert!(x > 1.5, "the box left the pile: x = {x}");
    }

    /// A column of three asleep: its middle box made fixed and dynamic
    /// again between two steps leaves and rejoins the column's island
    /// (its pairs link again after the solve); made fixed for good, the
    /// woken column counts the gap and sleeps as two islands, above and
    /// below the fixed box.
    #[test]
    fn a_body_made_fixed_and_dynamic_again_between_steps_rejoins_its_pile() {
        let mut world = floored();
        let column: Vec<BodyHandle> = (0..3)
            .map(|k| add_box(&mut world, Vec2::new(0.0, 0.5 + k as f32), true))
            .collect();
        for _ in 0..60 {
            world.step(DT);
        }
        assert!(column.iter().all(|&h| world.body(h).unwrap().is_sleeping()));
        let middle = column[1];
        world.set_body_kind(middle, BodyKind::Fixed).unwrap();
        world.set_body_kind(middle, BodyKind::Dynamic).unwrap();
        world.step(DT);
        check_islands(&world);
        assert!(column
            .iter()
            .all(|&h| island(&world, h) == island(&world, column[0])));
        for _ in 0..60 {
            world.step(DT);
        }
        assert!(column.iter().all(|&h| world.body(h).unwrap().is_sleeping()));
        world.set_body_kind(middle, BodyKind::Fixed).unwrap();
        let key = world.islands.island_of(column[0]).unwrap();
        assert!(world.islands.islands[key].removed > 0, "the gap counts");
        for _ in 0..60 {
            world.step(DT);
            check_islands(&world);
        }
        let (below, above) = (column[0], column[2]);
        assert!(
            world.body(below).unwrap().is_sleeping() && world.body(above).unwrap().is_sleeping()
        );
        assert_ne!(island(&world, below), island(&world, above));
    }

    /// The pieces of six bodies, a chain of three, a pair and one alone:
    /// the list order seeds the search.
    #[test]
    fn pieces_follow_the_links_in_list_order() {
        let found = pieces(6, &[(0, 2), (2, 4), (1, 5)]);
        assert_eq!(found, vec![vec![0, 2, 4], vec![1, 5], vec![3]]);
        assert_eq!(pieces(0, &[]), Vec::<Vec<usize>>::new());
    }
}
