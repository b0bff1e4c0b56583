//! EXPLAIN snapshots under declared statistics: each
//! `tests/explain/statistics/*.plan` file starts with `//@` lines that set
//! the catalog's statistics, then the query, a line `----` and the expected
//! EXPLAIN text. The same query under different statistics shows the
//! planner's choices flip. `NEREID_BLESS=1` rewrites the expectations.
//!
//! Declarations: `//@ nodes N` (all nodes), `//@ label L N`, `//@ key K N`
//! (nodes having key K), `//@ distinct K N` (distinct values of K),
//! `//@ rel T COUNT SOURCES TARGETS`. Nodes having labels and keys are
//! estimated as the smallest of their declared counts (all nodes when none
//! is declared); `//@ no-characteristic-sets` answers `None` there instead.
//! `//@ index NAME range|text node|rel LABEL KEY[,KEY...] [unique]` lists
//! an online index (the snapshots under `tests/explain/indexes`).
//! `//@ threads N` lets a query run on N threads (rule `parallel_gather`).

mod common;

use common::{check_snapshots, explain_text};
use nereid_planner::{
    Catalog, IndexDescriptor, IndexEntity, IndexKind, ProcedureSignature, RelStatistics,
};
use std::collections::HashMap;

#[derive(Default)]
struct DeclaredCatalog {
    nodes: u64,
    labels: HashMap<String, u64>,
    keys: HashMap<String, u64>,
    distinct: HashMap<String, u64>,
    rels: HashMap<String, RelStatistics>,
    no_characteristic_sets: bool,
    indexes: Vec<IndexDescriptor>,
    threads: usize,
}

impl DeclaredCatalog {
    fn parse(lines: &[&str]) -> DeclaredCatalog {
        let mut c = DeclaredCatalog::default();
        for line in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let n = |i: usize| -> u64 { words[i].parse().expect("a number") };
            match words.as_slice() {
                ["nodes", _] => c.nodes = n(1),
                ["label", l, _] => drop(c.labels.insert(l.to_string(), n(2))),
                ["key", k, _] => drop(c.keys.insert(k.to_string(), n(2))),
                ["distinct", k, _] => drop(c.distinct.insert(k.to_string(), n(2))),
                ["rel", t, _, _, _] => drop(c.rels.insert(
                    t.to_string(),
                    RelStatistics {
                        count: n(2),
                        distinct_sources: n(3),
                        distinct_targets: n(4),
                    },
                )),
                ["no-characteristic-sets"] => c.no_characteristic_sets = true,
                ["threads", _] => c.threads = usize::try_from(n(1)).expect("a thread count"),
                ["index", name, kind, entity, label, keys, rest @ ..] => {
                    c.indexes.push(IndexDescriptor {
                        name: name.to_string(),
                        kind: match *kind {
                            "range" => IndexKind::Range,
                            "text" => IndexKind::Text,
                            other => panic!("unknown index kind {other}"),
                        },
                        entity: match *entity {
                            "node" => IndexEntity::Node,
                            "rel" => IndexEntity::Relationship,
                            other => panic!("unknown entity {other}"),
                        },
                        label: label.to_string(),
                        keys: keys.split(',').map(str::to_string).collect(),
                        unique: rest == ["unique"],
                    })
                }
                other => panic!("unknown declaration {other:?}"),
            }
        }
        c
    }
}

impl Catalog for DeclaredCatalog {
    fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        match label {
            None => self.nodes,
            Some(l) => self.labels.get(l).copied().unwrap_or(0),
        }
    }

    fn procedure_signature(&self, _name: &str) -> Option<ProcedureSignature> {
        None
    }

    fn estimate_nodes_having(&self, labels: &[String], keys: &[String]) -> Option<u64> {
        if self.no_characteristic_sets {
            return None;
        }
        let counts = labels
            .iter()
            .map(|l| self.labels.get(l).copied().unwrap_or(0))
            .chain(
                keys.iter()
                    .map(|k| self.keys.get(k).copied().unwrap_or(self.nodes)),
            );
        Some(counts.min().unwrap_or(self.nodes))
    }

    fn distinct_node_values(&self, key: &str) -> Option<u64> {
        self.distinct.get(key).copied()
    }

    fn relationship_statistics(&self, rel_type: &str) -> Option<RelStatistics> {
        self.rels.get(rel_type).copied()
    }

    fn indexes(&self) -> Vec<IndexDescriptor> {
        self.indexes.clone()
    }

    fn query_threads(&self) -> usize {
        self.threads.max(1)
    }
}

/// The EXPLAIN text of a snapshot head: `//@` declarations, then the query.
fn render(head: &str) -> String {
    let declarations: Vec<&str> = head.lines().filter_map(|l| l.strip_prefix("//@")).collect();
    let query: String = head
        .lines()
        .filter(|l| !l.starts_with("//@"))
        .collect::<Vec<_>>()
        .join("\n");
    explain_text(&query, &DeclaredCatalog::parse(&declarations))
}

#[test]
fn explain_under_declared_statistics() {
    check_snapshots("tests/explain/statistics", render);
}

/// Every index operator and the plans made when no index serves the query
/// (rules `node_index_seek`, `rel_index_seek`, `index_order`).
#[test]
fn explain_with_indexes() {
    check_snapshots("tests/explain/indexes", render);
}
