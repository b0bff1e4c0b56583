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

use nereid_planner::{explain, plan, Catalog, ProcedureSignature, RelStatistics};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Default)]
struct DeclaredCatalog {
    nodes: u64,
    labels: HashMap<String, u64>,
    keys: HashMap<String, u64>,
    distinct: HashMap<String, u64>,
    rels: HashMap<String, RelStatistics>,
    no_characteristic_sets: bool,
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
}

#[test]
fn explain_under_declared_statistics() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/explain/statistics");
    let bless = std::env::var_os("NEREID_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/explain/statistics exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "plan"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let (head, expected) = text.split_once("\n----\n").unwrap_or((text.as_str(), ""));
        let declarations: Vec<&str> = head.lines().filter_map(|l| l.strip_prefix("//@")).collect();
        let query: String = head
            .lines()
            .filter(|l| !l.starts_with("//@"))
            .collect::<Vec<_>>()
            .join("\n");
        let catalog = DeclaredCatalog::parse(&declarations);
        let stmt = nereid_cypher::parse(query.trim()).expect("snapshot queries parse");
        let actual = match plan(&stmt, &catalog) {
            Ok(p) => explain(&p),
            Err(e) => format!("error: {e}\n"),
        };
        if bless {
            std::fs::write(&file, format!("{head}\n----\n{actual}")).expect("writable");
        } else if actual != expected {
            failures.push(format!(
                "{}:\nexpected:\n{expected}\nactual:\n{actual}",
                file.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
