//! Executor costs that depend on the shape of the rows rather than on the
//! store: rows carrying a collected list through expands (LDBC SNB IC5's
//! `WITH forum, collect(friend) AS friends MATCH (forum)-->(post)-->(c)
//! WHERE c IN friends`). Every expand copies its input row into each of its
//! output rows, so what a copy of a list costs decides the run time.

use criterion::{criterion_group, criterion_main, Criterion};
use nereid_engine::{Database, DbConfig, Params};
use std::sync::Arc;

/// Hubs, and the fan-out of each hub's relationships.
const HUBS: usize = 200;
const FAN_OUT: usize = 50;

fn open(dir: &tempfile::TempDir) -> Arc<Database> {
    let config = DbConfig::new(dir.path().to_path_buf(), 2);
    let db = Database::open(&config).expect("opens");
    let create = format!(
        "UNWIND range(1, {HUBS}) AS h CREATE (a:Hub {{h: h}}) \
         WITH a UNWIND range(1, {FAN_OUT}) AS i CREATE (a)-[:R]->(:Leaf {{i: i}})"
    );
    run(&db, &create);
    db
}

/// Runs and pulls `query` auto-commit; the number of rows.
fn run(db: &Arc<Database>, query: &str) -> usize {
    let mut result = db.run(None, query, Params::new()).expect("plans");
    let mut rows = 0;
    result.pull(-1, &mut |_, _| rows += 1).expect("runs");
    rows
}

/// 10,000 rows, each a copy of a row carrying a 100-element list, made by a
/// scan under an argument and then an expand; against the same expands
/// without the list.
fn expand_rows_with_list(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let with_list = "WITH range(1, 100) AS l MATCH (a:Hub)-[:R]->(b) \
                     RETURN size(l) AS n, count(*) AS c";
    let without = "WITH 100 AS l MATCH (a:Hub)-[:R]->(b) RETURN l AS n, count(*) AS c";
    assert_eq!(run(&db, with_list), 1);
    c.bench_function("dfe/expand_rows_with_list", |b| {
        b.iter(|| run(&db, with_list))
    });
    c.bench_function("dfe/expand_rows_without_list", |b| {
        b.iter(|| run(&db, without))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = expand_rows_with_list
}
criterion_main!(benches);
