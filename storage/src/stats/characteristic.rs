//! Characteristic sets (Poseidon paper, section on statistics; Neumann and
//! Moerkotte's characteristic sets): vertices grouped by the exact set of
//! *members* they have — labels, property keys and outgoing relationship
//! types — with, per group, the number of vertices and the distribution of
//! each member's multiplicity (how many outgoing `KNOWS` edges, ...).
//!
//! Maintained incrementally and exactly: every vertex has a *profile*
//! (members with multiplicities, module `profile_table`), stored once per
//! distinct profile and referenced from the vertex by a `u32` id (a
//! [`GuiMap`]). A batch of tuple changes works on a copy of one vertex's
//! profile at a time; when the next vertex's delta arrives the copy is
//! interned as the vertex's new profile (see [`Batch`]). At the batch's end
//! the sets move by the difference (old profile out, new one in, summed per
//! profile so a batch of a million alike vertices touches each set once)
//! and the old profiles' references are dropped. Multiplicities are kept as histograms, so
//! min/avg/max stay exact under deletions too.
//!
//! Invariant: between batches `sets` is exactly the grouping of the profiles
//! of existing vertices (`live > 0`), counted once per vertex holding them; a
//! vertex whose profile is empty (`live <= 0`, no members) holds no id.

use super::profile_table::{Profile, ProfileTable};
use crate::gui_map::GuiMap;
use crate::ids::TAG_VERT;
use foldhash::fast::FixedState;
use std::collections::{BTreeMap, HashMap};

/// Vertex guis and member lists are hashed often and never by an
/// adversary-chosen key alone (guis are murmur3 hashes already), so a fast
/// fixed-seed hash replaces SipHash here.
type FastMap<K, V> = HashMap<K, V, FixedState>;

/// One member of a characteristic set, by store id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Member {
    /// A label (literal gui of its name).
    Label(u64),
    /// A vertex property key (predicate id).
    Key(u32),
    /// An outgoing relationship type (predicate id).
    OutType(u32),
}

/// The vertices sharing one set of members.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SetAggregate {
    pub(crate) count: u64,
    /// Per member (aligned with the set's sorted members): multiplicity ->
    /// number of vertices with it.
    pub(crate) multiplicities: Vec<BTreeMap<i64, u64>>,
}

impl SetAggregate {
    /// `(min, avg, max)` multiplicity of member number `index`.
    pub(crate) fn min_avg_max(&self, index: usize) -> (i64, f64, i64) {
        let Some(histogram) = self.multiplicities.get(index) else {
            return (0, 0.0, 0);
        };
        let min = histogram.keys().next().copied().unwrap_or(0);
        let max = histogram.keys().next_back().copied().unwrap_or(0);
        let total: i64 = histogram.iter().map(|(m, n)| m * *n as i64).sum();
        let avg = if self.count == 0 {
            0.0
        } else {
            total as f64 / self.count as f64
        };
        (min, avg, max)
    }
}

/// Profiles of every vertex and the sets they group into.
#[derive(Clone, Debug)]
pub(crate) struct CharacteristicSets {
    /// Vertex gui -> profile id (0: none).
    vertices: GuiMap,
    profiles: ProfileTable,
    sets: FastMap<Vec<Member>, SetAggregate>,
    /// Bytes the sets allocate beside the map's own table: member lists
    /// and histograms (memory accounting, kept as they change).
    set_bytes: usize,
}

impl Default for CharacteristicSets {
    fn default() -> Self {
        CharacteristicSets {
            vertices: GuiMap::new(TAG_VERT),
            profiles: ProfileTable::default(),
            sets: FastMap::default(),
            set_bytes: 0,
        }
    }
}

/// Bytes one histogram entry takes: key and count, and about a pointer of
/// tree overhead.
const HISTOGRAM_ENTRY: usize = 3 * size_of::<u64>();

/// Bytes a set of `members` members allocates when it is created: its key
/// and its (empty) histograms.
fn set_bytes(members: usize) -> usize {
    members * (size_of::<Member>() + size_of::<BTreeMap<i64, u64>>())
}

/// A touched vertex during a batch: the profile id it held before and its
/// profile as the batch changes it.
#[derive(Debug)]
struct Pending {
    vertex: u64,
    old: u32,
    profile: Profile,
}

/// The batch being applied: the vertex whose tuples are arriving, and what
/// the vertices settled so far left to do at the end.
///
/// Deltas usually arrive grouped by vertex (a commit's tuples per vertex,
/// a bulk load's batches, which are ordered by subject), so a vertex is
/// *settled* (its new profile interned, its id moved) as soon as the next
/// vertex's delta arrives, instead of keeping every touched vertex in a
/// map until the end. A vertex that comes back later in the batch is simply
/// settled again from the id its first run gave it: the result is the
/// same, only the intermediate profile is interned and released.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    current: Option<Pending>,
    /// Net change of the number of live vertices holding each profile.
    moves: FastMap<u32, i64>,
    /// Profile ids let go of, released at the end so that no id in
    /// `moves` is freed and reused before the sets move.
    released: Vec<u32>,
    /// A member list to build the next working copy in (the settled
    /// vertex's, whose profile the table already holds or copied): a
    /// vertex costs no allocation.
    spare: Vec<(Member, i64)>,
}

impl CharacteristicSets {
    /// Changes `vertex`'s existence count by `delta`.
    pub(crate) fn exists(&mut self, vertex: u64, delta: i64, batch: &mut Batch) {
        self.pending(vertex, batch).live += delta;
    }

    /// Changes the multiplicity of `member` on `vertex` by `delta`.
    pub(crate) fn bump(&mut self, vertex: u64, member: Member, delta: i64, batch: &mut Batch) {
        self.pending(vertex, batch).bump(member, delta);
    }

    /// Ends a batch: the touched vertices hold their new profiles and count
    /// in their new sets.
    pub(crate) fn finish(&mut self, mut batch: Batch) {
        if let Some(pending) = batch.current.take() {
            self.settle(pending, &mut batch);
        }
        for (id, delta) in batch.moves {
            if let Some(profile) = self.profiles.get(id) {
                shift(&mut self.sets, &mut self.set_bytes, profile, delta);
            }
        }
        for old in batch.released {
            self.profiles.release(old);
        }
    }

    /// Starts loading `vertex`'s profile id slot into the cache.
    pub(crate) fn prefetch(&self, vertex: u64) {
        self.vertices.prefetch(vertex);
    }

    /// Bytes of the vertex map, the profiles and the sets (memory
    /// accounting, O(1)).
    pub(crate) fn bytes(&self) -> usize {
        let table = self.sets.capacity() * (size_of::<(Vec<Member>, SetAggregate)>() + 1);
        self.vertices.bytes() + self.profiles.bytes() + table + self.set_bytes
    }

    /// The sets, by sorted member list.
    pub(crate) fn sets(&self) -> &FastMap<Vec<Member>, SetAggregate> {
        &self.sets
    }

    /// The batch's working copy of `vertex`'s profile (settling the
    /// previous vertex when this is another one).
    fn pending<'b>(&mut self, vertex: u64, batch: &'b mut Batch) -> &'b mut Profile {
        // The same vertex as the tuple before (a vertex's tuples come
        // together): its working copy stays where it is, not moved out and
        // back per tuple.
        if batch.current.as_ref().is_none_or(|p| p.vertex != vertex) {
            if let Some(previous) = batch.current.take() {
                self.settle(previous, batch);
            }
            let old = self.vertices.get(vertex);
            let mut members = std::mem::take(&mut batch.spare);
            members.clear();
            let mut live = 0;
            if let Some(profile) = self.profiles.get(old) {
                members.extend_from_slice(&profile.members);
                live = profile.live;
            }
            return &mut batch
                .current
                .insert(Pending {
                    vertex,
                    old,
                    profile: Profile { live, members },
                })
                .profile;
        }
        match &mut batch.current {
            Some(same) => &mut same.profile,
            None => unreachable!("the vertex's working copy was just found"),
        }
    }

    /// Gives `pending.vertex` its new profile id and records the move.
    fn settle(&mut self, pending: Pending, batch: &mut Batch) {
        let Pending {
            vertex,
            old,
            profile,
        } = pending;
        if self.profiles.get(old) == Some(&profile) {
            batch.spare = profile.members;
            return;
        }
        let live = profile.live > 0;
        // Acquire before releasing, so an id is never freed and reused
        // while `moves` still refers to it.
        let new = self.profiles.acquire(&profile);
        batch.spare = profile.members;
        if live {
            *batch.moves.entry(new).or_insert(0) += 1;
        }
        if self.profiles.get(old).is_some_and(|p| p.live > 0) {
            *batch.moves.entry(old).or_insert(0) -= 1;
        }
        batch.released.push(old);
        self.vertices.set(vertex, new);
    }
}

/// Moves `delta` vertices with `profile` into (positive) or out of
/// (negative) its set; a set left without vertices is dropped. `bytes`
/// follows what the sets allocate ([`CharacteristicSets::bytes`]).
fn shift(
    sets: &mut FastMap<Vec<Member>, SetAggregate>,
    bytes: &mut usize,
    profile: &Profile,
    delta: i64,
) {
    if delta == 0 {
        return;
    }
    let key = profile.set_key();
    let aggregate = sets.entry(key).or_insert_with(|| {
        *bytes += set_bytes(profile.members.len());
        SetAggregate {
            count: 0,
            multiplicities: vec![BTreeMap::new(); profile.members.len()],
        }
    });
    aggregate.count = aggregate.count.saturating_add_signed(delta);
    for (histogram, (_, multiplicity)) in aggregate.multiplicities.iter_mut().zip(&profile.members)
    {
        let before = histogram.len();
        let n = histogram.entry(*multiplicity).or_insert(0);
        *n = n.saturating_add_signed(delta);
        if *n == 0 {
            histogram.remove(multiplicity);
        }
        *bytes = (*bytes + histogram.len() * HISTOGRAM_ENTRY) - before * HISTOGRAM_ENTRY;
    }
    if aggregate.count == 0 {
        if let Some(gone) = sets.remove(&profile.set_key()) {
            let histograms: usize = gone.multiplicities.iter().map(BTreeMap::len).sum();
            *bytes -= set_bytes(gone.multiplicities.len()) + histograms * HISTOGRAM_ENTRY;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{make_gui, TAG_VERT};

    #[test]
    fn a_vertex_moves_between_sets_and_multiplicities_follow() {
        let (v1, v2) = (make_gui(TAG_VERT, 0, 1), make_gui(TAG_VERT, 0, 2));
        let mut cs = CharacteristicSets::default();
        let mut batch = Batch::default();
        cs.exists(v1, 1, &mut batch);
        cs.bump(v1, Member::Key(5), 1, &mut batch);
        cs.exists(v2, 1, &mut batch);
        cs.bump(v2, Member::Key(5), 1, &mut batch);
        cs.finish(batch);
        assert_eq!(cs.sets()[&vec![Member::Key(5)]].count, 2);
        assert_eq!(cs.profiles.len(), 1, "both vertices share one profile");

        let mut batch = Batch::default();
        cs.bump(v1, Member::OutType(3), 1, &mut batch);
        cs.bump(v1, Member::OutType(3), 1, &mut batch);
        cs.finish(batch);
        assert_eq!(cs.sets()[&vec![Member::Key(5)]].count, 1);
        let both = &cs.sets()[&vec![Member::Key(5), Member::OutType(3)]];
        assert_eq!(both.count, 1);
        assert_eq!(both.min_avg_max(1), (2, 2.0, 2));
        assert_eq!(cs.profiles.len(), 2);

        let mut batch = Batch::default();
        cs.bump(v1, Member::OutType(3), -2, &mut batch);
        cs.bump(v1, Member::Key(5), -1, &mut batch);
        cs.exists(v1, -1, &mut batch);
        cs.finish(batch);
        assert_eq!(cs.sets().len(), 1);
        assert_eq!(cs.vertices.len(), 1);
        assert_eq!(
            cs.profiles.len(),
            1,
            "the deleted vertex's profile is freed"
        );
        assert_eq!(cs.vertices.get(v1), 0);
    }

    #[test]
    fn a_batch_that_changes_nothing_keeps_ids_and_sets() {
        let v = make_gui(TAG_VERT, 0, 9);
        let mut cs = CharacteristicSets::default();
        let mut batch = Batch::default();
        cs.exists(v, 1, &mut batch);
        cs.bump(v, Member::Label(7), 1, &mut batch);
        cs.finish(batch);
        let id = cs.vertices.get(v);

        let mut batch = Batch::default();
        cs.bump(v, Member::Key(1), 1, &mut batch);
        cs.bump(v, Member::Key(1), -1, &mut batch);
        cs.finish(batch);
        assert_eq!(cs.vertices.get(v), id);
        assert_eq!(cs.profiles.refs(id), 1);
        assert_eq!(cs.sets()[&vec![Member::Label(7)]].count, 1);
    }

    #[test]
    fn members_without_existence_are_kept_but_not_counted() {
        let v = make_gui(TAG_VERT, 2, 9);
        let mut cs = CharacteristicSets::default();
        let mut batch = Batch::default();
        cs.bump(v, Member::Key(1), 1, &mut batch);
        cs.finish(batch);
        assert!(cs.sets().is_empty());
        assert_eq!(cs.vertices.len(), 1);

        let mut batch = Batch::default();
        cs.exists(v, 1, &mut batch);
        cs.finish(batch);
        assert_eq!(cs.sets()[&vec![Member::Key(1)]].count, 1);
    }

    #[test]
    fn many_alike_vertices_share_one_profile_and_count_once_each() {
        let mut cs = CharacteristicSets::default();
        let mut batch = Batch::default();
        for n in 0..1000u32 {
            let v = make_gui(TAG_VERT, n >> 8, (n & 0xff) as u16);
            cs.exists(v, 1, &mut batch);
            cs.bump(v, Member::Label(1), 1, &mut batch);
            cs.bump(v, Member::OutType(2), i64::from(n % 3 + 1), &mut batch);
        }
        cs.finish(batch);
        assert_eq!(cs.profiles.len(), 3);
        let set = &cs.sets()[&vec![Member::Label(1), Member::OutType(2)]];
        assert_eq!(set.count, 1000);
        assert_eq!(set.multiplicities[1].values().sum::<u64>(), 1000);
        assert_eq!(set.min_avg_max(1).0, 1);
        assert_eq!(set.min_avg_max(1).2, 3);
    }
}
