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

/// A `CREATE` of nodes `n0`, `n1`, ... (each given as what follows its
/// variable in the pattern: labels and properties) and the relationships
/// `(source, target, type)` between them: the random graphs of the
/// differential tests. Not every test target including this module builds
/// one.
#[allow(dead_code)]
pub fn create_graph(
    nodes: impl IntoIterator<Item = String>,
    edges: &[(usize, usize, &str)],
) -> String {
    let mut parts: Vec<String> = nodes
        .into_iter()
        .enumerate()
        .map(|(i, node)| format!("(n{i}{node})"))
        .collect();
    parts.extend(
        edges
            .iter()
            .map(|(s, t, rel_type)| format!("(n{s})-[:{rel_type}]->(n{t})")),
    );
    format!("CREATE {}", parts.join(", "))
}
