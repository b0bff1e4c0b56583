//! Graph algorithms called from Cypher against the real engine: the CSR
//! view is built once per unchanged snapshot and spec, shared by every
//! call and every row of a query, and built again after a commit; a bad
//! option is a ProcedureCallFailed naming it. (Answers against the
//! Graphalytics outputs: algorithms/tests and tests/e2e.)

use nereid_engine::{Database, DbConfig, Params};
use nereid_values::Value;
use std::sync::Arc;

fn rows(db: &Arc<Database>, query: &str) -> Vec<Vec<Value>> {
    let mut result = db
        .run(None, query, Params::new())
        .unwrap_or_else(|e| panic!("{query}: {e}"));
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .unwrap();
    rows
}

/// The error `query` ends with, whether it fails before or while running.
fn failure(db: &Arc<Database>, query: &str) -> nereid_engine::DbError {
    match db.run(None, query, Params::new()) {
        Err(e) => e,
        Ok(mut result) => result.pull(-1, &mut |_, _| {}).unwrap_err(),
    }
}

fn open() -> (tempfile::TempDir, Arc<Database>) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).unwrap();
    // Two chains a -> b -> c and d -> e, plus an `X` edge c -> d.
    rows(
        &db,
        "CREATE (a:N {k: 'a'})-[:R {w: 1}]->(b:N {k: 'b'})-[:R {w: 2.5}]->(c:N {k: 'c'}), \
         (d:N {k: 'd'})-[:R {w: 1}]->(e:M {k: 'e'}), (c)-[:X {w: 1}]->(d)",
    );
    (dir, db)
}

#[test]
fn one_view_serves_every_call_until_the_graph_changes() {
    let (_dir, db) = open();
    let built = db.algorithm_views_built();
    let components = "CALL neptune.algo.wcc({edgeLabels: ['R']}) YIELD node, component \
                      RETURN node.k AS k, component ORDER BY k";
    let first = rows(&db, components);
    assert_eq!(first.len(), 5);
    assert_eq!(first[0][1], first[2][1]);
    assert_ne!(first[0][1], first[3][1]);
    assert_eq!(db.algorithm_views_built(), built + 1);
    // The same spec on the same snapshot: no build, even from every row
    // of a MATCH.
    assert_eq!(rows(&db, components), first);
    let levels = rows(
        &db,
        "MATCH (n:N) CALL neptune.algo.bfs.levels(n, {edgeLabels: ['R']}) YIELD node, level \
         RETURN n.k AS source, node.k AS k, level ORDER BY source, k",
    );
    assert_eq!(levels.len(), 3 + 2 + 1 + 2);
    assert_eq!(db.algorithm_views_built(), built + 1);
    // Another spec is another view.
    let all = rows(
        &db,
        "CALL neptune.algo.wcc({}) YIELD component RETURN count(DISTINCT component) AS c",
    );
    assert_eq!(all, vec![vec![Value::Int(1)]]);
    assert_eq!(db.algorithm_views_built(), built + 2);
    // A commit makes a new snapshot: the view is read again and sees it.
    rows(
        &db,
        "MATCH (e {k: 'e'}) CREATE (e)-[:R {w: 1}]->(:N {k: 'f'})",
    );
    let after = rows(&db, components);
    assert_eq!(after.len(), 6);
    assert_eq!(db.algorithm_views_built(), built + 3);
}

#[test]
fn a_transaction_that_wrote_sees_its_own_writes_in_an_uncached_view() {
    let (_dir, db) = open();
    let tx = db.begin();
    let run = |query: &str| {
        let mut result = db.run(Some(&tx), query, Params::new()).unwrap();
        let mut rows = Vec::new();
        result
            .pull(-1, &mut |row, _| rows.push(row.to_vec()))
            .unwrap();
        rows
    };
    run("MATCH (c {k: 'c'}) CREATE (c)-[:R {w: 1}]->(:N {k: 'new'})");
    let built = db.algorithm_views_built();
    let reached = run(
        "MATCH (a {k: 'a'}) CALL neptune.algo.bfs(a, {edgeLabels: ['R']}) YIELD node RETURN count(node) AS c",
    );
    assert_eq!(reached, vec![vec![Value::Int(4)]]);
    run("MATCH (a {k: 'a'}) CALL neptune.algo.bfs(a, {edgeLabels: ['R']}) YIELD node RETURN count(node) AS c");
    assert_eq!(db.algorithm_views_built(), built + 2);
    db.rollback(tx);
}

#[test]
fn bad_options_fail_the_call_naming_the_option() {
    let (_dir, db) = open();
    let cases = [
        ("CALL neptune.algo.wcc({edgeLabel: ['R']}) YIELD node RETURN node", "edgeLabel"),
        ("MATCH (n) CALL neptune.algo.bfs(n, {maxDepth: -1}) YIELD node RETURN node", "maxDepth"),
        ("MATCH (n) CALL neptune.algo.bfs(n, {traversalDirection: 'up'}) YIELD node RETURN node", "traversalDirection"),
        ("MATCH (n) CALL neptune.algo.sssp.deltaStepping(n, {edgeWeightType: 'float'}) YIELD node RETURN node", "edgeWeightProperty"),
        (
            "MATCH (n) CALL neptune.algo.sssp.bellmanFord(n, {edgeWeightProperty: 'nope', edgeWeightType: 'int'}) YIELD node RETURN node",
            "nope",
        ),
        ("CALL neptune.algo.pageRank({dampingFactor: 'high'}) YIELD node RETURN node", "dampingFactor"),
    ];
    for (query, named) in cases {
        let error = failure(&db, query);
        assert_eq!(
            error.status.code(),
            "Neo.ClientError.Procedure.ProcedureCallFailed",
            "{query}"
        );
        assert!(error.message.contains(named), "{query}: {}", error.message);
    }
}

/// The weights a view reads are those of the calling transaction's
/// snapshot with its own writes: a changed weight, a new relationship's
/// weight, a deleted relationship gone, a removed weight a failure that
/// names the property (the view reads a cell's weights in one scan of its
/// property partition, beside the edges).
#[test]
fn weights_are_read_as_the_transaction_sees_them() {
    let (_dir, db) = open();
    let tx = db.begin();
    let run = |query: &str| {
        let mut result = db.run(Some(&tx), query, Params::new())?;
        let mut rows = Vec::new();
        result.pull(-1, &mut |row, _| rows.push(row.to_vec()))?;
        Ok::<_, nereid_engine::DbError>(rows)
    };
    let distances = "MATCH (a {k: 'a'}) CALL neptune.algo.sssp.deltaStepping(a, \
                     {edgeWeightProperty: 'w', edgeWeightType: 'double'}) YIELD node, distance \
                     RETURN node.k AS k, distance ORDER BY k";
    let before = run(distances).unwrap();
    let at = |rows: &[Vec<Value>], k: &str| {
        rows.iter()
            .find(|r| r[0] == Value::String(k.into()))
            .map(|r| r[1].clone())
    };
    assert_eq!(at(&before, "c"), Some(Value::Float(3.5)));
    assert_eq!(at(&before, "e"), Some(Value::Float(5.5)));
    run("MATCH (:N {k: 'b'})-[r:R]->(:N {k: 'c'}) SET r.w = 10").unwrap();
    run("MATCH (a {k: 'a'}), (d {k: 'd'}) CREATE (a)-[:R {w: 0.25}]->(d)").unwrap();
    run("MATCH (:N {k: 'c'})-[x:X]->() DELETE x").unwrap();
    let after = run(distances).unwrap();
    assert_eq!(at(&after, "c"), Some(Value::Float(11.0)));
    assert_eq!(at(&after, "d"), Some(Value::Float(0.25)));
    assert_eq!(at(&after, "e"), Some(Value::Float(1.25)));
    run("MATCH (:N {k: 'a'})-[r:R]->(:N {k: 'b'}) REMOVE r.w").unwrap();
    let error = run(distances).unwrap_err();
    assert_eq!(
        error.status.code(),
        "Neo.ClientError.Procedure.ProcedureCallFailed"
    );
    assert!(error.message.contains('w'), "{}", error.message);
    db.rollback(tx);
}

/// A weight that cannot be one fails the call and says what it is: a
/// negative number, NaN, a string (the view keeps only usable weights per
/// relationship and looks a failing one up again to name it).
#[test]
fn unusable_weights_fail_the_call_saying_why() {
    let cases = [
        ("-2", "negative or NaN"),
        ("0.0 / 0.0", "negative or NaN"),
        ("'heavy'", "is a String, not a number"),
    ];
    for (weight, said) in cases {
        let (_dir, db) = open();
        rows(
            &db,
            &format!("MATCH (:N {{k: 'b'}})-[r:R]->(:N {{k: 'c'}}) SET r.w = {weight}"),
        );
        let query = "MATCH (a {k: 'a'}) CALL neptune.algo.sssp.deltaStepping(a, \
                     {edgeWeightProperty: 'w', edgeWeightType: 'double'}) YIELD node, distance \
                     RETURN node.k, distance";
        let error = failure(&db, query);
        assert_eq!(
            error.status.code(),
            "Neo.ClientError.Procedure.ProcedureCallFailed",
            "{weight}"
        );
        assert!(
            error.message.contains(said) && error.message.contains("`w`"),
            "{weight}: {}",
            error.message
        );
    }
}
