//! EXPLAIN snapshots: each `tests/explain/*.plan` file holds a query, a line
//! `----`, and the expected EXPLAIN text. Run with `NEREID_BLESS=1` to
//! rewrite the expectations after a deliberate planner change (then review
//! the diff).

use nereid_planner::{explain, plan, Catalog, ProcedureField, ProcedureSignature, ProcedureType};
use std::path::PathBuf;

/// Fixed estimates so snapshots do not depend on data.
struct FixedCatalog;

impl Catalog for FixedCatalog {
    fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        match label {
            None => 1000,
            Some("Rare") => 1,
            Some(_) => 100,
        }
    }

    fn procedure_signature(&self, name: &str) -> Option<ProcedureSignature> {
        (name == "db.ping").then(|| ProcedureSignature {
            name: name.to_string(),
            inputs: Vec::new(),
            outputs: vec![ProcedureField::new("success", ProcedureType::Boolean)],
        })
    }
}

#[test]
fn explain_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/explain");
    let bless = std::env::var_os("NEREID_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/explain exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "plan"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let (query, expected) = text.split_once("\n----\n").unwrap_or((text.as_str(), ""));
        let query = query.trim();
        let stmt = nereid_cypher::parse(query).expect("snapshot queries parse");
        let actual = match plan(&stmt, &FixedCatalog) {
            Ok(p) => explain(&p),
            Err(e) => format!("error: {e}\n"),
        };
        if bless {
            std::fs::write(&file, format!("{query}\n----\n{actual}")).expect("writable");
        } else if actual != expected {
            failures.push(format!(
                "{}:\nexpected:\n{expected}\nactual:\n{actual}",
                file.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A catalog that fails the test if asked for estimates.
struct NoEstimates;

impl Catalog for NoEstimates {
    fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        panic!("estimate asked for {label:?} though a single label leaves no choice")
    }

    fn procedure_signature(&self, _name: &str) -> Option<ProcedureSignature> {
        None
    }
}

#[test]
fn a_single_label_scan_needs_no_estimate() {
    let stmt = nereid_cypher::parse("MATCH (n:Person) RETURN n").expect("parses");
    let planned = plan(&stmt, &NoEstimates).expect("plans");
    assert!(explain(&planned).contains("NodeByLabelScan $0:Person"));
}
