//! EXPLAIN snapshots: each `tests/explain/*.plan` file holds a query, a line
//! `----`, and the expected EXPLAIN text. Run with `NEREID_BLESS=1` to
//! rewrite the expectations after a deliberate planner change (then review
//! the diff).

mod common;

use common::{check_snapshots, explain_text};
use nereid_planner::{explain, plan, Catalog, ProcedureField, ProcedureSignature, ProcedureType};

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
            filters_candidates: false,
        })
    }
}

#[test]
fn explain_snapshots() {
    check_snapshots("tests/explain", |query| explain_text(query, &FixedCatalog));
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
