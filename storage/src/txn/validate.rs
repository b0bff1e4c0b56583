//! Commit-time validation: the write-write conflicts that the delete CAS
//! alone cannot detect. All checks look for tuples committed after our
//! snapshot (`begin` is a commit timestamp above `read_ts`) or deletions
//! committed by others. Runs under the commit mutex, so commits that
//! validate are serialised with the commits they are checked against.

use super::state::{FreshKey, TxnCore, TxnState};
use crate::error::{Result, StorageError};
use crate::ids::vertex_partition;
use crate::mvcc::is_commit_ts;
use crate::predicates::PRED_EXISTS;
use crate::relation::{PartitionView, RelKind, Relation, Tuple};
use crate::store::Store;
use crate::typed_value::TypedValue;
use nereid_values::{NodeId, RelId};
use std::collections::{HashMap, HashSet};

pub(crate) fn validate(store: &Store, core: &TxnCore, st: &TxnState) -> Result<()> {
    let newer = |t: &Tuple| {
        let begin = t.begin();
        is_commit_ts(begin) && begin > core.read_ts()
    };
    let conflict = |what: String| Err(StorageError::WriteConflict(what));

    // Two transactions both inserting the same property or label.
    for (&(kind, part, s), keys) in &fresh_by_subject(&st.fresh) {
        let Some(part) = store.relation(kind).read(part) else {
            continue;
        };
        let clash = part
            .by_subject(s)
            .any(|(_, t)| newer(&t) && keys.contains(t.p, t.o));
        if clash {
            return conflict(format!("a property or label concurrently set on {s:#x}"));
        }
    }

    // Entities we wrote to must not have been deleted by a concurrent commit.
    for &node in &st.touched_nodes {
        let part = store.vp.read(vertex_partition(node, store.partitions));
        let alive = part.is_some_and(|part| {
            part.by_subject(node).any(|(_, t)| {
                t.p == PRED_EXISTS && is_commit_ts(t.begin()) && !is_commit_ts(t.end())
            })
        });
        if !alive {
            return conflict(format!(
                "node {} deleted concurrently",
                NodeId(node).external()
            ));
        }
    }
    for &rel in &st.touched_rels {
        let alive = edge_part(&store.e, rel).is_some_and(|part| {
            part.by_statement(rel)
                .is_some_and(|(_, t)| !is_commit_ts(t.end()))
        });
        if !alive {
            return conflict(format!(
                "relationship {} deleted concurrently",
                RelId(rel).external()
            ));
        }
    }

    // Entities we deleted must not have gained tuples from a concurrent commit.
    let p = store.partitions;
    for &node in &st.deleted_nodes {
        let home = vertex_partition(node, p);
        let mut gained = store
            .vp
            .read(home)
            .is_some_and(|part| part.by_subject(node).any(|(_, t)| newer(&t)));
        for other in 0..p {
            gained = gained
                || store
                    .e
                    .read(home * p + other)
                    .is_some_and(|part| part.by_subject(node).any(|(_, t)| newer(&t)))
                || store
                    .e
                    .read(other * p + home)
                    .is_some_and(|part| part.by_object(node).any(|(_, t)| newer(&t)));
        }
        if gained {
            return conflict(format!(
                "node {} changed concurrently",
                NodeId(node).external()
            ));
        }
    }
    for &rel in &st.deleted_rels {
        let gained = store
            .e
            .partition_of_sid(rel)
            .and_then(|part_no| store.ep.read(part_no))
            .is_some_and(|part| part.by_subject(rel).any(|(_, t)| newer(&t)));
        if gained {
            return conflict(format!(
                "relationship {} changed concurrently",
                RelId(rel).external()
            ));
        }
    }
    Ok(())
}

/// The fresh keys of one subject: properties by P, labels by P and O.
#[derive(Default)]
struct SubjectKeys {
    any_o: HashSet<u32>,
    with_o: HashSet<(u32, TypedValue)>,
}

impl SubjectKeys {
    fn contains(&self, p: u32, o: TypedValue) -> bool {
        self.any_o.contains(&p) || self.with_o.contains(&(p, o))
    }
}

/// The fresh keys grouped by subject, so that each subject's list is walked
/// once however many keys were added to it (a walk per key made a commit
/// of `SET n += $map` quadratic in the map's size).
fn fresh_by_subject(fresh: &[FreshKey]) -> HashMap<(RelKind, usize, u64), SubjectKeys> {
    let mut subjects: HashMap<_, SubjectKeys> = HashMap::new();
    for key in fresh {
        let keys = subjects.entry((key.kind, key.part, key.s)).or_default();
        match key.o {
            None => keys.any_o.insert(key.p),
            Some(o) => keys.with_o.insert((key.p, o)),
        };
    }
    subjects
}

fn edge_part(e: &Relation, rel: u64) -> Option<PartitionView<'_>> {
    e.read(e.partition_of_sid(rel)?)
}
