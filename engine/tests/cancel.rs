//! Cancelling a running query through `QueryResult::cancel_handle` (what
//! a Bolt RESET does), against the real engine.

use nereid_engine::{Database, DbConfig, Params};
use std::sync::atomic::Ordering;

#[test]
fn a_cancelled_query_stops_at_its_next_batch() {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 1)).unwrap();
    // About a thousand batches: without cancellation the last pull would
    // succeed.
    let mut endless = db
        .run(
            None,
            "UNWIND range(1, 1000000) AS x RETURN x",
            Params::new(),
        )
        .unwrap();
    let mut seen = 0;
    assert!(endless.pull(3, &mut |_, _| seen += 1).unwrap());
    assert_eq!(seen, 3);
    let cancel = endless
        .cancel_handle()
        .expect("a running query can be cancelled");
    cancel.store(true, Ordering::Relaxed);
    let error = endless.pull(-1, &mut |_, _| {}).unwrap_err();
    assert!(error.message.contains("terminated"), "{error}");
    drop(endless);

    // The database goes on.
    let mut next = db.run(None, "RETURN 1 AS one", Params::new()).unwrap();
    let mut rows = Vec::new();
    next.pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .unwrap();
    assert_eq!(rows, vec![vec![nereid_values::Value::Int(1)]]);
}
