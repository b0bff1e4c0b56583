//! Checkpoints with the store and the log: take one while the log keeps
//! going, discard the segments it covers, restore = checkpoint + log after.

mod common;
use common::commit;

use nereid_storage::{Store, StoreConfig};
use nereid_values::{EntityResolver, NodeId, Value};
use nereid_wal::{load_newest_checkpoint, take_checkpoint, Durability, Wal, WalError, WalOptions};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

fn options() -> WalOptions {
    WalOptions {
        durability: Durability::Fsync,
        segment_bytes: 300,
        // Several partitions: checkpoint + merged replay must restore the
        // same store.
        partitions: 3,
        faults: None,
    }
}

fn open(root: &Path) -> Result<(Arc<Store>, Wal), WalError> {
    let store = Store::new(StoreConfig { partitions: 2 });
    let after =
        load_newest_checkpoint(&store, &root.join("checkpoints"))?.map_or(0, |c| c.commit_ts);
    let (wal, _) = Wal::open_after(&root.join("wal"), &options(), after, |ts, ch| {
        store.replay(ts, ch).map_err(|e| e.to_string())
    })?;
    Ok((store, wal))
}

fn props(i: i64) -> BTreeMap<String, Value> {
    BTreeMap::from([("i".to_string(), Value::Int(i))])
}

/// Every node with its properties and relationships, by id.
fn dump(store: &Arc<Store>) -> Vec<String> {
    let t = store.begin();
    let mut out: Vec<String> = t
        .scan_nodes(None)
        .into_iter()
        .map(|n| {
            format!(
                "{:?} {:?}",
                t.node(n),
                t.expand(n, nereid_values::Direction::Outgoing, &[])
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn restore_is_the_checkpoint_plus_the_log_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, wal) = open(dir.path()).unwrap();
    let mut ids: Vec<NodeId> = Vec::new();
    for i in 0..30 {
        commit(&store, &wal, |t| {
            let n = t.create_node(&["N".to_string()], &props(i)).unwrap();
            if let Some(&prev) = ids.last() {
                t.create_rel(prev, n, "NEXT", &props(i)).unwrap();
            }
            ids.push(n);
        });
    }
    commit(&store, &wal, |t| t.delete_node(ids[3], true).unwrap());
    let info = take_checkpoint(&store, &dir.path().join("checkpoints")).unwrap();
    assert_eq!(info.commit_ts, 31);
    assert_eq!((info.nodes, info.relationships), (29, 27));
    let deleted = wal.discard_through(info.commit_ts).unwrap();
    assert!(deleted > 0);
    for i in 30..35 {
        commit(&store, &wal, |t| {
            t.set_node_property(ids[0], "late", Value::Int(i)).unwrap();
            t.create_node(&[], &props(i)).unwrap();
        });
    }
    let expected = dump(&store);
    drop(wal);
    drop(store);

    let (store, wal) = open(dir.path()).unwrap();
    assert_eq!(dump(&store), expected);
    assert_eq!(store.visible_ts(), 36);
    // New ids do not collide with any id handed out before.
    commit(&store, &wal, |t| {
        let n = t.create_node(&[], &BTreeMap::new()).unwrap();
        assert!(!ids.contains(&n));
    });
    // A second checkpoint replaces the first.
    let second = take_checkpoint(&store, &dir.path().join("checkpoints")).unwrap();
    assert_eq!(second.commit_ts, 37);
    let dirs = std::fs::read_dir(dir.path().join("checkpoints"))
        .unwrap()
        .count();
    assert_eq!(dirs, 1);
}

#[test]
fn an_unfinished_checkpoint_is_ignored_and_a_damaged_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("checkpoints");
    let (store, wal) = open(dir.path()).unwrap();
    for i in 0..5 {
        commit(&store, &wal, |t| {
            t.create_node(&[], &props(i)).unwrap();
        });
    }
    let info = take_checkpoint(&store, &root).unwrap();
    drop(wal);
    drop(store);
    // An interrupted later attempt (no manifest) does not count.
    let partial = root.join("ckpt-00000000000000000099");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::write(partial.join("nodes-00000.ckp"), b"half").unwrap();
    let (store, _) = open(dir.path()).unwrap();
    assert_eq!(store.begin().scan_nodes(None).len(), 5);
    drop(store);

    let file = info.dir.join("nodes-00001.ckp");
    let mut bytes = std::fs::read(&file).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x04;
    std::fs::write(&file, &bytes).unwrap();
    match open(dir.path()) {
        Err(e @ WalError::CheckpointCorrupt { .. }) => {
            assert!(e.to_string().contains("nodes-00001.ckp"), "{e}")
        }
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("opened a damaged checkpoint"),
    }
}
