//! Side effects as the TCK defines them: differences between two snapshots of the graph, not
//! the engine's own write counters (which a buggy engine could get wrong in the same way as
//! its writes).
//!
//! A snapshot holds the node ids, the relationship ids, the set of distinct label names in use
//! and the set of `(entity, key, value)` property triples. `+x` counts what the second snapshot
//! has and the first has not, `-x` the reverse; so overwriting a property is `+properties 1,
//! -properties 1`, and a second node with an existing label adds no label.

use crate::materialise::from_value;
use nereid_engine::{Database, Params};
use nereid_values::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

#[derive(Default)]
pub struct Snapshot {
    nodes: BTreeSet<u64>,
    rels: BTreeSet<u64>,
    labels: BTreeSet<String>,
    /// `(entity, key, value in TCK notation)`, entity being `n<id>` or `r<id>`.
    properties: BTreeSet<(String, String, String)>,
}

/// The eight counters of a `the side effects should be:` table.
pub const KINDS: [&str; 8] = [
    "+nodes",
    "-nodes",
    "+relationships",
    "-relationships",
    "+labels",
    "-labels",
    "+properties",
    "-properties",
];

impl Snapshot {
    /// Reads the whole graph with two auto-commit queries.
    pub fn take(db: &Arc<Database>) -> Result<Snapshot, String> {
        let mut snap = Snapshot::default();
        let pull = |query: &str, snap: &mut Snapshot| -> Result<(), String> {
            let mut result = db
                .run(None, query, Params::new())
                .map_err(|e| format!("snapshot query `{query}` failed: {e}"))?;
            result
                .pull(-1, &mut |row, resolver| match row.first() {
                    Some(Value::Node(id)) => {
                        snap.nodes.insert(id.0);
                        if let Some(n) = resolver.node(*id) {
                            snap.labels.extend(n.labels.iter().cloned());
                            for (k, v) in &n.properties {
                                let v = from_value(v, resolver).to_string();
                                snap.properties.insert((format!("n{}", id.0), k.clone(), v));
                            }
                        }
                    }
                    Some(Value::Relationship(id)) => {
                        snap.rels.insert(id.0);
                        if let Some(r) = resolver.relationship(*id) {
                            for (k, v) in &r.properties {
                                let v = from_value(v, resolver).to_string();
                                snap.properties.insert((format!("r{}", id.0), k.clone(), v));
                            }
                        }
                    }
                    _ => {}
                })
                .map_err(|e| format!("snapshot query `{query}` failed: {e}"))?;
            Ok(())
        };
        pull("MATCH (n) RETURN n", &mut snap)?;
        pull("MATCH ()-[r]->() RETURN r", &mut snap)?;
        Ok(snap)
    }

    /// The counters from `self` (before) to `after`, keyed as in [`KINDS`].
    pub fn diff(&self, after: &Snapshot) -> BTreeMap<&'static str, usize> {
        fn count<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> usize {
            a.difference(b).count()
        }
        let values = [
            count(&after.nodes, &self.nodes),
            count(&self.nodes, &after.nodes),
            count(&after.rels, &self.rels),
            count(&self.rels, &after.rels),
            count(&after.labels, &self.labels),
            count(&self.labels, &after.labels),
            count(&after.properties, &self.properties),
            count(&self.properties, &after.properties),
        ];
        KINDS.iter().copied().zip(values).collect()
    }
}
