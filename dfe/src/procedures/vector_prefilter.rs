//! The pre-filtered strategy of a filtered node vector query (issue 28,
//! docs/adr/0128-pre-filtered-vector-search.md): when the `YIELD ... WHERE`
//! predicate requires a label or an indexed property value of the node, the
//! nodes it names are a superset of the answers; when they are few enough,
//! scoring each of them exactly is cheaper than a filtered walk of the
//! HNSW graph, which must visit about `ef / s` candidates (`s` the filter's
//! selectivity) before `k` pass.
//!
//! Cost model, with `N` nodes of the index's label and `C` candidates: the
//! walk costs about `WALK · ef · N / C`, the pre-filter `SCORE · C` (each
//! candidate's vector read from the store, scored, and the predicate
//! tested). So the pre-filter runs when `C² < (WALK / SCORE) · ef · N`.
//! Measured over Bolt on 50,000 x 128 vectors (benches/RESULTS.md, session
//! 23): the walk took 2.7 ms at 10% and 19.6 ms at 1% selectivity (about
//! 2.5 µs per unit of `N / C` at `ef = 100`), the pre-filter about 3 µs a
//! candidate; the ratio is near 1, so the crossover is near
//! `C = sqrt(ef · N)`: 2,200 nodes of 50,000 (4.5%) at `k = 10`. The counts
//! are exact (the label's count in the reader's view; the index seek stops
//! one past the bound), not estimates.

use nereid_storage::{EntityKind, IndexKind, IndexSeek, IndexState, KeyPredicate, Txn};
use nereid_values::Value;

/// The walk's cost per unit of `ef · N / C` over the pre-filter's cost per
/// candidate (measured; see the module documentation).
const WALK_TO_SCORE: f64 = 1.0;
/// The graph search's smallest width (`storage`'s `SEARCH_WIDTH`).
const MIN_WIDTH: f64 = 100.0;

/// What a candidate must have, by the filter: labels, and property values
/// (evaluated for the input row).
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Prefilter {
    pub(crate) labels: Vec<String>,
    pub(crate) equalities: Vec<(String, Value)>,
}

impl Prefilter {
    pub(crate) fn is_empty(&self) -> bool {
        self.labels.is_empty() && self.equalities.is_empty()
    }

    /// The candidate nodes for the node vector index `index` when scoring
    /// them all is the cheaper strategy for the `k` best; `None` to walk
    /// the graph.
    pub(crate) fn candidates(&self, txn: &Txn, index: &str, k: i64) -> Option<Vec<u64>> {
        if self.is_empty() {
            return None;
        }
        let schema = txn.schema();
        let vector_index = schema.indexes.iter().find(|i| {
            i.def.name == index && i.def.entity == EntityKind::Node && i.def.kind.is_vector()
        })?;
        let indexed = txn.count_nodes(Some(&vector_index.def.label)) as f64;
        let width = (2.0 * k as f64).max(MIN_WIDTH);
        let bound = (WALK_TO_SCORE * width * indexed).sqrt() as u64;
        let mut best: Option<Vec<u64>> = None;
        let mut best_len = bound;
        for label in &self.labels {
            let count = txn.count_nodes(Some(label));
            if count < best_len {
                best_len = count;
                best = Some(
                    txn.scan_nodes(Some(label))
                        .into_iter()
                        .map(|n| n.0)
                        .collect(),
                );
            }
        }
        for (key, value) in &self.equalities {
            if value.is_null() {
                // `n.key = null` holds for no node.
                return Some(Vec::new());
            }
            let labels = std::iter::once(&vector_index.def.label).chain(&self.labels);
            for label in labels {
                let Some(range) = schema.indexes.iter().find(|i| {
                    i.state == IndexState::Online
                        && i.def.kind == IndexKind::Range
                        && i.def.entity == EntityKind::Node
                        && &i.def.label == label
                        && i.def.keys.len() == 1
                        && &i.def.keys[0] == key
                }) else {
                    continue;
                };
                let seek = IndexSeek {
                    equal: vec![value.clone()],
                    next: KeyPredicate::All,
                    descending: false,
                    limit: Some(best_len as usize),
                };
                let Some(found) = txn.seek_nodes(&range.def.name, &seek) else {
                    continue;
                };
                if (found.len() as u64) < best_len {
                    best_len = found.len() as u64;
                    best = Some(found.into_iter().map(|n| n.0).collect());
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_storage::{IndexDef, Store, StoreConfig};
    use nereid_vector::Similarity;
    use std::collections::BTreeMap;
    use std::time::Duration;

    /// 4,000 `:Doc` nodes with 2-d vectors under a vector index; every
    /// 200th also `:En` with `lang: 'en'` (20), under a range index on
    /// `Doc.lang`.
    fn store() -> std::sync::Arc<Store> {
        let store = Store::new(StoreConfig::default());
        let setup = store.begin();
        let index = |name: &str, kind, key: &str| IndexDef {
            name: name.into(),
            kind,
            entity: EntityKind::Node,
            label: "Doc".into(),
            more_labels: Vec::new(),
            keys: vec![key.into()],
        };
        let vector = IndexKind::Vector {
            dimensions: Some(2),
            similarity: Similarity::Euclidean,
        };
        setup
            .create_index(index("docs", vector, "embedding"), false)
            .unwrap();
        setup
            .create_index(index("doc_lang", IndexKind::Range, "lang"), false)
            .unwrap();
        let ticket = setup.commit(|_, _| Ok::<(), ()>(())).ok().flatten();
        ticket.expect("commit").publish();
        let setup = store.begin();
        for i in 0..4000 {
            let en = i % 200 == 0;
            let mut props = BTreeMap::new();
            let v = vec![Value::Float(i as f64), Value::Float(1.0)];
            props.insert("embedding".to_string(), Value::List(v.into()));
            props.insert(
                "lang".to_string(),
                Value::from(if en { "en" } else { "fr" }),
            );
            let mut labels = vec!["Doc".to_string()];
            if en {
                labels.push("En".into());
            }
            setup.create_node(&labels, &props).unwrap();
        }
        let ticket = setup.commit(|_, _| Ok::<(), ()>(())).ok().flatten();
        ticket.expect("commit").publish();
        assert!(store.await_indexes(Duration::from_secs(60)));
        store
    }

    #[test]
    fn few_candidates_are_scored_many_are_left_to_the_graph() {
        let store = store();
        let txn = store.begin();
        let with = |labels: &[&str], equalities: &[(&str, Value)]| Prefilter {
            labels: labels.iter().map(|l| l.to_string()).collect(),
            equalities: equalities
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        };
        let count = |p: Prefilter| p.candidates(&txn, "docs", 10).map(|c| c.len());
        assert_eq!(count(with(&["En"], &[])), Some(20));
        assert_eq!(count(with(&[], &[("lang", Value::from("en"))])), Some(20));
        assert_eq!(count(with(&[], &[("lang", Value::Null)])), Some(0));
        // 3,980 of 4,000 (the bound is sqrt(100 * 4000) = 632).
        assert_eq!(count(with(&[], &[("lang", Value::from("fr"))])), None);
        assert_eq!(count(with(&["Doc"], &[])), None);
        // No index on the key: only the label narrows.
        assert_eq!(
            count(with(&["En"], &[("title", Value::from("x"))])),
            Some(20)
        );
        assert_eq!(count(with(&[], &[("title", Value::from("x"))])), None);
        assert_eq!(count(Prefilter::default()), None);
        // The candidates, scored, give the exact answer among them.
        let en = with(&["En"], &[]).candidates(&txn, "docs", 10).unwrap();
        let query = Value::List(vec![Value::Float(1000.0), Value::Float(1.0)].into());
        let found = txn
            .vector_query_among("docs", EntityKind::Node, 3, &query, &en, &mut |_, _| true)
            .unwrap();
        let labels: Vec<bool> = found
            .iter()
            .map(|(id, _)| txn.node_has_label(nereid_values::NodeId(*id), "En"))
            .collect();
        assert_eq!(labels, [true, true, true]);
        let nearest: Vec<f64> = found
            .iter()
            .map(
                |(id, _)| match &txn.node_property(nereid_values::NodeId(*id), "embedding") {
                    Some(Value::List(v)) => match v.iter().next() {
                        Some(Value::Float(x)) => *x,
                        _ => f64::NAN,
                    },
                    _ => f64::NAN,
                },
            )
            .collect();
        assert_eq!(nearest, [1000.0, 800.0, 1200.0]);
    }
}
