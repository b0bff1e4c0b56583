//! `min(n.p)` / `max(n.p)` read from a range index's end (planner rule
//! `min_max_from_index`, dfe `NodeIndexMinMax`) against the aggregate
//! over the label scan (`USING SCAN`), through random histories of
//! mixed-type writes: in a snapshot held across later commits, in a
//! transaction with its own uncommitted writes, and in a fresh one. The
//! values include what the index orders apart from `ORDER BY` or groups
//! together (`1` and `1.0`, `0.0` and `-0.0`, NaN, integers beyond 2^53
//! and the float they round to, lists, dates, booleans, strings).

use nereid_engine::{Database, DbConfig, Params, Transaction};
use proptest::prelude::*;
use std::sync::Arc;

const VALUES: &[&str] = &[
    "1",
    "1.0",
    "2",
    "-3",
    "0",
    "0.0",
    "-0.0",
    "0.0 / 0.0",
    "1.0 / 0.0",
    "-1.0 / 0.0",
    "9007199254740993",
    "9007199254740992",
    "9007199254740992.0",
    "2.5",
    "'a'",
    "'b'",
    "''",
    "true",
    "false",
    "[1, 2]",
    "[]",
    "date('2020-01-01')",
    "duration('P1D')",
    "null",
];

#[derive(Clone, Debug)]
enum Write {
    Create(usize),
    CreateOther(usize),
    Set(usize, usize),
    Delete(usize),
    Unlabel(usize),
}

impl Write {
    fn query(&self) -> String {
        let nth = |k: usize| format!("MATCH (n:L) WITH n ORDER BY id(n) SKIP {k} LIMIT 1");
        match self {
            Write::Create(v) => format!("CREATE (:L {{p: {}}})", VALUES[*v]),
            Write::CreateOther(v) => format!("CREATE (:M {{p: {}}})", VALUES[*v]),
            Write::Set(k, v) => format!("{} SET n.p = {}", nth(*k), VALUES[*v]),
            Write::Delete(k) => format!("{} DETACH DELETE n", nth(*k)),
            Write::Unlabel(k) => format!("{} REMOVE n:L", nth(*k)),
        }
    }
}

fn write() -> impl Strategy<Value = Write> {
    let value = 0..VALUES.len();
    prop_oneof![
        4 => value.clone().prop_map(Write::Create),
        1 => value.clone().prop_map(Write::CreateOther),
        3 => (0..6usize, value).prop_map(|(k, v)| Write::Set(k, v)),
        1 => (0..6usize).prop_map(Write::Delete),
        1 => (0..6usize).prop_map(Write::Unlabel),
    ]
}

fn run(db: &Arc<Database>, tx: Option<&Transaction>, query: &str) -> Vec<String> {
    let mut result = db
        .run(tx, query, Params::new())
        .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(format!("{row:?}")))
        .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    rows
}

/// Each aggregate alone, and both in one row, through the index and
/// through the scan, in `tx`.
fn check(db: &Arc<Database>, tx: Option<&Transaction>, when: &str) {
    for f in [
        "min(n.p) AS v",
        "max(n.p) AS v",
        "max(n.p) AS hi, min(n.p) AS lo",
    ] {
        let indexed = run(db, tx, &format!("MATCH (n:L) RETURN {f}"));
        let scanned = run(db, tx, &format!("MATCH (n:L) USING SCAN n:L RETURN {f}"));
        assert_eq!(indexed, scanned, "{f} {when}");
    }
}

fn uses_the_index(db: &Arc<Database>) -> bool {
    let mut result = db
        .run(
            None,
            "EXPLAIN MATCH (n:L) RETURN min(n.p), max(n.p)",
            Params::new(),
        )
        .expect("explains");
    result.pull(-1, &mut |_, _| {}).expect("pulls");
    format!("{:?}", result.summary()).contains("NodeIndexScan")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn index_ends_equal_the_scan_aggregate(
        committed in prop::collection::vec(write(), 0..10),
        later in prop::collection::vec(write(), 0..6),
        own in prop::collection::vec(write(), 0..6),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
        run(&db, None, "CREATE INDEX l_p FOR (n:L) ON (n.p)");
        run(&db, None, "CALL db.awaitIndexes(60)");
        prop_assert!(uses_the_index(&db));
        for w in &committed {
            run(&db, None, &w.query());
        }
        let held = db.begin();
        check(&db, Some(&held), "in a fresh snapshot");
        for w in &later {
            run(&db, None, &w.query());
        }
        check(&db, Some(&held), "in a snapshot held across commits");
        let writer = db.begin();
        for w in &own {
            run(&db, Some(&writer), &w.query());
        }
        check(&db, Some(&writer), "with own uncommitted writes");
        check(&db, None, "after every commit");
        db.rollback(writer);
        db.rollback(held);
    }
}
