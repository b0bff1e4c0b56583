//! Reopening logs: group commit results, torn tails, corruption, versions,
//! and the store round trip through the log.

mod common;
use common::change;

use nereid_storage::{Change, Store, StoreConfig};
use nereid_values::{EntityResolver, NodeId, Value};
use nereid_wal::{Durability, Lsn, Wal, WalError};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

type Replayed = Vec<(u64, Vec<Change>)>;

fn open(dir: &Path) -> Result<(Wal, nereid_wal::RecoveryReport, Replayed), WalError> {
    let mut seen = Vec::new();
    let (wal, report) = Wal::open(dir, Durability::Fsync, |ts, changes| {
        seen.push((ts, changes.to_vec()));
        Ok(())
    })?;
    Ok((wal, report, seen))
}

fn log_file(dir: &Path) -> PathBuf {
    dir.join("wal-000001.log")
}

/// Writes `n` records (ts 1..=n) and returns the file offsets where each starts.
fn write_records(dir: &Path, n: u64) -> Vec<u64> {
    let (wal, _, _) = open(dir).unwrap();
    let mut starts = vec![];
    // LSNs count bytes appended since open; the file starts with its header.
    let base = std::fs::metadata(log_file(dir)).unwrap().len();
    let mut prev = 0;
    for ts in 1..=n {
        starts.push(base + prev);
        let lsn = wal.append(100 + ts, ts, &change(ts)).unwrap();
        wal.wait_durable(lsn).unwrap();
        prev = lsn.offset;
    }
    wal.close().unwrap();
    starts
}

#[test]
fn empty_log_opens_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, report, seen) = open(dir.path()).unwrap();
    assert_eq!(
        report,
        nereid_wal::RecoveryReport {
            segments: 1,
            partitions: 1,
            ..Default::default()
        }
    );
    assert!(seen.is_empty());
    drop(wal);
    let (_, report, _) = open(dir.path()).unwrap();
    assert_eq!(report.records, 0);
}

#[test]
fn group_commit_acknowledges_every_thread_and_keeps_every_record() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path()).unwrap();
    // Stands in for the store's commit lock: timestamps in log order.
    let commit_lock = Mutex::new(0u64);
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| {
                for _ in 0..30 {
                    let lsn: Lsn = {
                        let mut last = commit_lock.lock().unwrap();
                        *last += 1;
                        wal.append(*last, *last, &change(*last)).unwrap()
                    };
                    wal.wait_durable(lsn).unwrap();
                }
            });
        }
    });
    wal.close().unwrap();
    let (_, report, seen) = open(dir.path()).unwrap();
    assert_eq!(report.records, 180);
    assert_eq!(report.last_commit_ts, 180);
    assert_eq!(report.truncated_bytes, 0);
    for (i, (ts, changes)) in seen.iter().enumerate() {
        assert_eq!(*ts, i as u64 + 1);
        assert_eq!(changes, &change(*ts));
    }
}

#[test]
fn a_torn_last_record_is_truncated_at_every_cut() {
    let dir = tempfile::tempdir().unwrap();
    let starts = write_records(dir.path(), 3);
    let full = std::fs::read(log_file(dir.path())).unwrap();
    let last = starts[2] as usize;
    for cut in last..full.len() {
        let copy = tempfile::tempdir().unwrap();
        std::fs::write(log_file(copy.path()), &full[..cut]).unwrap();
        let (wal, report, seen) = open(copy.path()).unwrap();
        assert_eq!(report.records, 2, "cut at {cut}");
        assert_eq!(report.truncated_bytes, (cut - last) as u64);
        assert_eq!(seen.last().map(|r| r.0), Some(2));
        // The log continues cleanly after the truncation point.
        let lsn = wal.append(9, 3, &change(33)).unwrap();
        wal.wait_durable(lsn).unwrap();
        wal.close().unwrap();
        let (_, report, seen) = open(copy.path()).unwrap();
        assert_eq!((report.records, report.truncated_bytes), (3, 0));
        assert_eq!(seen[2].1, change(33));
    }
}

#[test]
fn a_flipped_byte_before_the_tail_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let starts = write_records(dir.path(), 3);
    let full = std::fs::read(log_file(dir.path())).unwrap();
    for at in starts[1] as usize..starts[2] as usize {
        let mut damaged = full.clone();
        damaged[at] ^= 0x40;
        let copy = tempfile::tempdir().unwrap();
        std::fs::write(log_file(copy.path()), &damaged).unwrap();
        match open(copy.path()) {
            Err(WalError::Corrupt { offset, file, .. }) => {
                assert_eq!(offset, starts[1], "flip at {at}");
                assert_eq!(file, log_file(copy.path()));
            }
            Err(other) => panic!("flip at {at}: {other}"),
            Ok((_, report, _)) => panic!("flip at {at} opened with {report:?}"),
        }
        // The damaged file is left untouched for an operator.
        assert_eq!(std::fs::read(log_file(copy.path())).unwrap(), damaged);
    }
}

#[test]
fn header_magic_and_version_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    write_records(dir.path(), 1);
    let full = std::fs::read(log_file(dir.path())).unwrap();

    let mut v2 = full.clone();
    v2[8..12].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(log_file(dir.path()), &v2).unwrap();
    assert!(matches!(
        open(dir.path()),
        Err(WalError::UnsupportedVersion {
            found: 2,
            supported: 1,
            ..
        })
    ));

    let mut magic = full.clone();
    magic[..8].copy_from_slice(b"SQLITE3\0");
    std::fs::write(log_file(dir.path()), &magic).unwrap();
    assert!(matches!(open(dir.path()), Err(WalError::NotALog(_))));

    // A header torn while the log was being created is rewritten.
    std::fs::write(log_file(dir.path()), &full[..10]).unwrap();
    let (_, report, _) = open(dir.path()).unwrap();
    assert_eq!(report.records, 0);
    assert_eq!(std::fs::read(log_file(dir.path())).unwrap(), full[..24]);
}

#[test]
fn apply_failures_stop_recovery() {
    let dir = tempfile::tempdir().unwrap();
    write_records(dir.path(), 2);
    let result = Wal::open(dir.path(), Durability::Fsync, |ts, _| {
        if ts == 2 {
            Err("no such node".to_string())
        } else {
            Ok(())
        }
    });
    assert!(matches!(result, Err(WalError::Replay { .. })));
}

#[test]
fn entity_values_cannot_be_appended() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path()).unwrap();
    let bad = vec![Change::SetNodeProperty {
        id: NodeId(1),
        key: "k".into(),
        value: Value::Node(NodeId(2)),
    }];
    assert!(matches!(
        wal.append(1, 1, &bad),
        Err(WalError::Unencodable("Node"))
    ));
    // The log is still usable.
    let lsn = wal.append(1, 1, &change(1)).unwrap();
    wal.wait_durable(lsn).unwrap();
}

#[test]
fn a_store_survives_a_restart_through_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::new(StoreConfig::default());
    let (wal, _) = Wal::open(dir.path(), Durability::Fsync, |ts, ch| {
        store.replay(ts, ch).map_err(|e| e.to_string())
    })
    .unwrap();
    let commit = |txn: &nereid_storage::Txn| {
        let mut lsn = None;
        let ticket = txn
            .commit(|ts, changes| {
                lsn = Some(wal.append(ts, ts, changes)?);
                Ok::<(), WalError>(())
            })
            .unwrap();
        if let (Some(ticket), Some(lsn)) = (ticket, lsn) {
            wal.wait_durable(lsn).unwrap();
            ticket.publish();
        }
    };
    let t = store.begin();
    let props: BTreeMap<String, Value> = [
        ("name".to_string(), Value::from("Ann")),
        (
            "tags".to_string(),
            Value::List(vec![Value::from("a"), Value::Int(1)].into()),
        ),
    ]
    .into_iter()
    .collect();
    let a = t.create_node(&["Person".to_string()], &props).unwrap();
    let b = t.create_node(&[], &BTreeMap::new()).unwrap();
    let r = t.create_rel(a, b, "KNOWS", &BTreeMap::new()).unwrap();
    commit(&t);
    let t = store.begin();
    t.set_rel_property(r, "since", Value::Int(2020)).unwrap();
    t.set_node_property(a, "name", Value::Null).unwrap();
    commit(&t);
    drop(wal);

    let restarted = Store::new(StoreConfig::default());
    let (_, report) = Wal::open(dir.path(), Durability::Fsync, |ts, ch| {
        restarted.replay(ts, ch).map_err(|e| e.to_string())
    })
    .unwrap();
    assert_eq!(report.records, 2);
    let (before, after) = (store.begin(), restarted.begin());
    assert_eq!(before.node(a), after.node(a));
    assert_eq!(before.node(b), after.node(b));
    assert_eq!(before.relationship(r), after.relationship(r));
    assert_eq!(after.rel_property(r, "since"), Some(Value::Int(2020)));
    assert_eq!(restarted.visible_ts(), 2);
}
