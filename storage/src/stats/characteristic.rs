//! Characteristic sets (Poseidon paper, section on statistics; Neumann and
//! Moerkotte's characteristic sets): vertices grouped by the exact set of
//! *members* they have — labels, property keys and outgoing relationship
//! types — with, per group, the number of vertices and the distribution of
//! each member's multiplicity (how many outgoing `KNOWS` edges, ...).
//!
//! Maintained incrementally: every vertex keeps its *profile* (members with
//! multiplicities); a batch of tuple changes first removes the touched
//! vertices' old contribution from their set, updates the profiles, then
//! adds the new contribution. Multiplicities are kept as histograms, so
//! min/avg/max stay exact under deletions too.
//!
//! Invariant: `sets` is exactly the grouping of the profiles of existing
//! vertices (`live > 0`); a profile with `live <= 0` and no members is
//! dropped.

use foldhash::fast::FixedState;
use std::collections::{BTreeMap, HashMap, HashSet};

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

/// What one vertex has right now.
#[derive(Clone, Debug, Default)]
struct Profile {
    /// Existence tuples: 1 for a live vertex (may dip during a batch).
    live: i64,
    /// Members with their multiplicity, sorted by member, none zero.
    members: Vec<(Member, i64)>,
}

impl Profile {
    fn bump(&mut self, member: Member, delta: i64) {
        match self.members.binary_search_by(|(m, _)| m.cmp(&member)) {
            Ok(at) => {
                self.members[at].1 += delta;
                if self.members[at].1 == 0 {
                    self.members.remove(at);
                }
            }
            Err(at) => self.members.insert(at, (member, delta)),
        }
    }

    fn key(&self) -> Vec<Member> {
        self.members.iter().map(|(m, _)| *m).collect()
    }
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
#[derive(Clone, Debug, Default)]
pub(crate) struct CharacteristicSets {
    profiles: FastMap<u64, Profile>,
    sets: FastMap<Vec<Member>, SetAggregate>,
}

/// Vertices touched by the batch being applied.
pub(crate) type Dirty = HashSet<u64, FixedState>;

impl CharacteristicSets {
    /// Changes `vertex`'s existence count by `delta`.
    pub(crate) fn exists(&mut self, vertex: u64, delta: i64, dirty: &mut Dirty) {
        self.touch(vertex, dirty).live += delta;
    }

    /// Changes the multiplicity of `member` on `vertex` by `delta`.
    pub(crate) fn bump(&mut self, vertex: u64, member: Member, delta: i64, dirty: &mut Dirty) {
        self.touch(vertex, dirty).bump(member, delta);
    }

    /// Ends a batch: the touched vertices count in their (new) sets again.
    pub(crate) fn finish(&mut self, dirty: Dirty) {
        for vertex in dirty {
            let Some(profile) = self.profiles.get(&vertex) else {
                continue;
            };
            if profile.live > 0 {
                add(&mut self.sets, profile);
            } else if profile.members.is_empty() {
                self.profiles.remove(&vertex);
            }
        }
    }

    /// The sets, by sorted member list.
    pub(crate) fn sets(&self) -> &FastMap<Vec<Member>, SetAggregate> {
        &self.sets
    }

    /// The profile of `vertex`, taking its contribution out of its set the
    /// first time the batch touches it.
    fn touch(&mut self, vertex: u64, dirty: &mut Dirty) -> &mut Profile {
        if dirty.insert(vertex) {
            if let Some(profile) = self.profiles.get(&vertex) {
                if profile.live > 0 {
                    remove(&mut self.sets, profile);
                }
            }
        }
        self.profiles.entry(vertex).or_default()
    }
}

fn add(sets: &mut FastMap<Vec<Member>, SetAggregate>, profile: &Profile) {
    let aggregate = sets.entry(profile.key()).or_insert_with(|| SetAggregate {
        count: 0,
        multiplicities: vec![BTreeMap::new(); profile.members.len()],
    });
    aggregate.count += 1;
    for (histogram, (_, multiplicity)) in aggregate.multiplicities.iter_mut().zip(&profile.members)
    {
        *histogram.entry(*multiplicity).or_insert(0) += 1;
    }
}

fn remove(sets: &mut FastMap<Vec<Member>, SetAggregate>, profile: &Profile) {
    let key = profile.key();
    let Some(aggregate) = sets.get_mut(&key) else {
        return;
    };
    aggregate.count = aggregate.count.saturating_sub(1);
    for (histogram, (_, multiplicity)) in aggregate.multiplicities.iter_mut().zip(&profile.members)
    {
        if let Some(n) = histogram.get_mut(multiplicity) {
            *n -= 1;
            if *n == 0 {
                histogram.remove(multiplicity);
            }
        }
    }
    if aggregate.count == 0 {
        sets.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vertex_moves_between_sets_and_multiplicities_follow() {
        let mut cs = CharacteristicSets::default();
        let mut dirty = Dirty::default();
        cs.exists(1, 1, &mut dirty);
        cs.bump(1, Member::Key(5), 1, &mut dirty);
        cs.exists(2, 1, &mut dirty);
        cs.bump(2, Member::Key(5), 1, &mut dirty);
        cs.finish(dirty);
        assert_eq!(cs.sets()[&vec![Member::Key(5)]].count, 2);

        let mut dirty = Dirty::default();
        cs.bump(1, Member::OutType(3), 1, &mut dirty);
        cs.bump(1, Member::OutType(3), 1, &mut dirty);
        cs.finish(dirty);
        assert_eq!(cs.sets()[&vec![Member::Key(5)]].count, 1);
        let both = &cs.sets()[&vec![Member::Key(5), Member::OutType(3)]];
        assert_eq!(both.count, 1);
        assert_eq!(both.min_avg_max(1), (2, 2.0, 2));

        let mut dirty = Dirty::default();
        cs.bump(1, Member::OutType(3), -2, &mut dirty);
        cs.bump(1, Member::Key(5), -1, &mut dirty);
        cs.exists(1, -1, &mut dirty);
        cs.finish(dirty);
        assert_eq!(cs.sets().len(), 1);
        assert_eq!(cs.profiles.len(), 1);
    }
}
