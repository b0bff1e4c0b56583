//! Helpers shared by the log's integration tests. Each test binary uses a
//! subset, hence the `dead_code` allowance.
#![allow(dead_code)]

use nereid_storage::{Change, Store, Txn};
use nereid_values::{NodeId, Value};
use nereid_wal::{Wal, WalError};
use std::sync::Arc;

/// The changes of synthetic commit `i`: one property set, distinct per `i`
/// by its value.
pub fn change(i: u64) -> Vec<Change> {
    vec![Change::SetNodeProperty {
        id: NodeId(i),
        key: "k".into(),
        value: Value::Int(i as i64),
    }]
}

/// Appends synthetic commits `from..=to` (handle = timestamp, so
/// partitions take turns) and waits for each to be durable.
pub fn append(wal: &Wal, from: u64, to: u64) {
    for ts in from..=to {
        let lsn = wal.append(ts, ts, &change(ts)).unwrap();
        wal.wait_durable(lsn).unwrap();
    }
}

/// Runs `f` in a transaction and commits it through `wal` the way the
/// server does: log append inside the commit, durable before publishing.
pub fn commit(store: &Arc<Store>, wal: &Wal, f: impl FnOnce(&Txn)) {
    let txn = store.begin();
    f(&txn);
    let mut lsn = None;
    let ticket = txn
        .commit(|ts, changes| {
            lsn = Some(wal.append(ts, ts, changes)?);
            Ok::<(), WalError>(())
        })
        .unwrap()
        .unwrap();
    wal.wait_durable(lsn.unwrap()).unwrap();
    ticket.publish();
}
