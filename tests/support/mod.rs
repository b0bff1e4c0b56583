//! What the engine-level property tests share: a query's rows as a sorted
//! list (a MATCH defines no order, so plans are compared as multisets) and
//! the summary of its EXPLAIN (the plan tree), on an empty database of its
//! own per case.

use nereid_engine::{Database, DbConfig, Params, Summary};
use std::sync::Arc;

/// An empty database (two partitions) in a directory that lives as long as
/// the returned guard.
pub fn fresh_database() -> (tempfile::TempDir, Arc<Database>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("database opens");
    (dir, db)
}

/// The rows of `query`, run auto-commit, each as its debug text, sorted.
pub fn sorted_rows(db: &Arc<Database>, query: &str) -> Vec<String> {
    let mut result = db
        .run(None, query, Params::new())
        .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    let mut out = Vec::new();
    result
        .pull(-1, &mut |row, _| out.push(format!("{row:?}")))
        .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    out.sort();
    out
}

/// The summary of `EXPLAIN query`.
pub fn explained(db: &Arc<Database>, query: &str) -> Summary {
    let mut result = db
        .run(None, &format!("EXPLAIN {query}"), Params::new())
        .expect("EXPLAIN runs");
    result.pull(-1, &mut |_, _| {}).expect("EXPLAIN pulls");
    result.summary()
}
