//! The statistics by name: what the store offers a planner. Ids are
//! resolved through the dictionaries here, so callers never see store ids.
//! A name the store has never seen has no statistics (zero / `None`).

use super::characteristic::Member;
use super::sketches::{estimate_of, DistinctEstimate};
use super::Staleness;
use crate::store::Store;

/// A member of a characteristic set, by name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StatMember {
    Label(String),
    Key(String),
    OutType(String),
}

/// One member of a set with its multiplicity over the set's vertices.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberStatistics {
    pub member: StatMember,
    pub min: u64,
    pub avg: f64,
    pub max: u64,
}

/// Vertices sharing exactly one set of labels, property keys and outgoing
/// relationship types.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacteristicSet {
    pub count: u64,
    /// Sorted by member.
    pub members: Vec<MemberStatistics>,
}

/// Statistics of one relationship type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelTypeStatistics {
    /// Exact number of relationships of the type.
    pub count: u64,
    /// Distinct start nodes (an upper-biased estimate after deletions).
    pub distinct_sources: DistinctEstimate,
    /// Distinct end nodes (likewise).
    pub distinct_targets: DistinctEstimate,
}

impl Store {
    fn member_id(&self, member: &StatMember) -> Option<Member> {
        Some(match member {
            StatMember::Label(l) => Member::Label(self.literals.lookup(l.as_bytes())?),
            StatMember::Key(k) => Member::Key(self.keys.lookup(k)?),
            StatMember::OutType(t) => Member::OutType(self.types.lookup(t)?),
        })
    }

    fn member_name(&self, member: Member) -> Option<StatMember> {
        Some(match member {
            Member::Label(gui) => StatMember::Label(self.literals.resolve_str(gui)?),
            Member::Key(id) => StatMember::Key(self.keys.name(id)?.to_string()),
            Member::OutType(id) => StatMember::OutType(self.types.name(id)?.to_string()),
        })
    }

    /// Vertices having every one of `members` (and possibly more), summed
    /// over the characteristic sets that contain them all. Exact for the
    /// latest stamped commit; `members` empty gives every vertex.
    pub fn estimate_nodes_having(&self, members: &[StatMember]) -> u64 {
        let mut ids = Vec::with_capacity(members.len());
        for member in members {
            match self.member_id(member) {
                Some(id) => ids.push(id),
                None => return 0,
            }
        }
        self.stats.read(|stats| {
            stats
                .sets
                .sets()
                .iter()
                .filter(|(set, _)| ids.iter().all(|m| set.binary_search(m).is_ok()))
                .map(|(_, aggregate)| aggregate.count)
                .sum()
        })
    }

    /// Count and distinct endpoints of the relationships of `rel_type`.
    pub fn rel_type_statistics(&self, rel_type: &str) -> Option<RelTypeStatistics> {
        let id = self.types.lookup(rel_type)?;
        self.stats.read(|stats| {
            let sketch = stats.sketches.edge_types.get(id)?;
            Some(RelTypeStatistics {
                count: sketch.count.max(0) as u64,
                distinct_sources: estimate_of(&sketch.sources),
                distinct_targets: estimate_of(&sketch.targets),
            })
        })
    }

    /// Number of relationships of `rel_type` (of every type when `None`).
    pub fn estimate_relationships(&self, rel_type: Option<&str>) -> u64 {
        match rel_type {
            Some(t) => self.rel_type_statistics(t).map_or(0, |s| s.count),
            None => self.stats.read(|stats| {
                let total: i64 = stats.sketches.edge_types.values().map(|s| s.count).sum();
                total.max(0) as u64
            }),
        }
    }

    /// Distinct values stored under vertex property `key`.
    pub fn distinct_node_values(&self, key: &str) -> Option<DistinctEstimate> {
        let id = self.keys.lookup(key)?;
        self.stats
            .read(|stats| stats.sketches.node_values.get(id).map(estimate_of))
    }

    /// How far the distinct-value sketches have drifted since the
    /// statistics were last built (a rebuild's trigger, see
    /// [`Staleness::is_outdated`]).
    pub fn statistics_staleness(&self) -> Staleness {
        self.stats.read(|stats| stats.staleness)
    }

    /// Distinct values stored under relationship property `key`.
    pub fn distinct_rel_values(&self, key: &str) -> Option<DistinctEstimate> {
        let id = self.keys.lookup(key)?;
        self.stats
            .read(|stats| stats.sketches.rel_values.get(id).map(estimate_of))
    }

    /// Every characteristic set, sorted by members (for inspection and
    /// tests; planners ask [`Store::estimate_nodes_having`]).
    pub fn characteristic_sets(&self) -> Vec<CharacteristicSet> {
        let raw: Vec<(Vec<Member>, super::characteristic::SetAggregate)> = self.stats.read(|s| {
            s.sets
                .sets()
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        });
        let mut out: Vec<CharacteristicSet> = raw
            .into_iter()
            .map(|(members, aggregate)| {
                let mut named: Vec<MemberStatistics> = members
                    .iter()
                    .enumerate()
                    .filter_map(|(index, m)| {
                        let (min, avg, max) = aggregate.min_avg_max(index);
                        Some(MemberStatistics {
                            member: self.member_name(*m)?,
                            min: min.max(0) as u64,
                            avg,
                            max: max.max(0) as u64,
                        })
                    })
                    .collect();
                named.sort_by(|a, b| a.member.cmp(&b.member));
                CharacteristicSet {
                    count: aggregate.count,
                    members: named,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            let ka: Vec<&StatMember> = a.members.iter().map(|m| &m.member).collect();
            let kb: Vec<&StatMember> = b.members.iter().map(|m| &m.member).collect();
            ka.cmp(&kb)
        });
        out
    }
}
