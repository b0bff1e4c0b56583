//! The snapshot loop shared by the EXPLAIN snapshot tests: every `*.plan`
//! file in a directory holds a head (the query, possibly preceded by
//! declarations), a line `----`, and the expected text. `NEREID_BLESS=1`
//! rewrites the expectations instead of comparing.

use nereid_planner::{explain, plan, Catalog, Op};
use std::path::PathBuf;

/// The EXPLAIN text of `query` planned against `catalog`, or the error.
/// Every plan must leave no choice open (the executor refuses those).
pub fn explain_text(query: &str, catalog: &dyn Catalog) -> String {
    let stmt = nereid_cypher::parse(query.trim()).expect("snapshot queries parse");
    match plan(&stmt, catalog) {
        Ok(p) => {
            assert_resolved(&p.root, query);
            explain(&p)
        }
        Err(e) => format!("error: {e}\n"),
    }
}

/// Fails when an operator of `op`'s tree still leaves a choice open.
fn assert_resolved(op: &Op, query: &str) {
    assert_eq!(op.unresolved(), None, "{query}: {op:?}");
    for child in op.input().into_iter().chain(op.nested()) {
        assert_resolved(child, query);
    }
}

/// Checks (or blesses) every snapshot in `dir` (relative to the crate);
/// `render` turns a file's head into the actual text.
pub fn check_snapshots(dir: &str, render: impl Fn(&str) -> String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(dir);
    let bless = std::env::var_os("NEREID_BLESS").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "plan"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no snapshots in {}", dir.display());
    let mut failures = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable");
        let (head, expected) = text.split_once("\n----\n").unwrap_or((text.as_str(), ""));
        let head = head.trim_end();
        let actual = render(head);
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
