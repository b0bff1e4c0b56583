//! Untrusted query text through the parser, the analyser, the planner and
//! EXPLAIN rendering: each may refuse the query, none may panic. A stack
//! overflow aborts the fuzzer like any crash, so deep shapes are covered.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nereid_planner::{Catalog, ProcedureSignature};

/// Fixed estimates, no procedures: planning needs no store.
struct FixedCatalog;

impl Catalog for FixedCatalog {
    fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        label.map_or(1_000, |l| 10 + l.len() as u64)
    }

    fn procedure_signature(&self, _name: &str) -> Option<ProcedureSignature> {
        None
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(statement) = nereid_cypher::parse(text) else {
        return;
    };
    if nereid_cypher::analyze(&statement).is_err() {
        return;
    }
    if let Ok(plan) = nereid_planner::plan(&statement, &FixedCatalog) {
        let _ = nereid_planner::explain(&plan);
        let _ = nereid_planner::plan_tree(&plan, &FixedCatalog);
    }
});
