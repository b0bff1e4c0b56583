//! Restoring from an object store alone: the newest checkpoint plus the
//! shipped sealed segments. A `LocalDir` stands in for the S3 bucket here
//! (the logic is written once against `ObjectStore`; the S3 store itself is
//! exercised against a real S3-compatible server in
//! tests/e2e/test_s3_restore.py).

mod common;
use common::commit;

use nereid_storage::{Store, StoreConfig};
use nereid_values::{EntityResolver, Value};
use nereid_wal::{
    delete_shipped_before, load_newest_checkpoint_from, restore_segments, ship_sealed_segments,
    shipped_segments, take_checkpoint_to, Durability, LocalDir, ObjectStore, Wal, WalError,
    WalOptions,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

fn options() -> WalOptions {
    WalOptions {
        durability: Durability::Fsync,
        segment_bytes: 300,
        partitions: 1,
        faults: None,
    }
}

/// Opens a database on `data`, restoring from `bucket` when its log
/// directory is empty (what the server does with an s3:// URI).
fn open(data: &Path, bucket: &dyn ObjectStore) -> Result<(Arc<Store>, Wal), WalError> {
    let store = Store::new(StoreConfig { partitions: 2 });
    let after = load_newest_checkpoint_from(&store, bucket)?.map_or(0, |c| c.commit_ts);
    let wal_dir = data.join("wal");
    if !wal_dir.exists() {
        restore_segments(bucket, &wal_dir, after)?;
    }
    let (wal, _) = Wal::open_after(&wal_dir, &options(), after, |ts, ch| {
        store.replay(ts, ch).map_err(|e| e.to_string())
    })?;
    Ok((store, wal))
}

fn create(store: &Arc<Store>, wal: &Wal, i: i64) {
    commit(store, wal, |t| {
        let props = BTreeMap::from([("i".to_string(), Value::Int(i))]);
        t.create_node(&["N".to_string()], &props).unwrap();
    });
}

fn numbers(store: &Arc<Store>) -> Vec<i64> {
    let t = store.begin();
    let mut out: Vec<i64> = t
        .scan_nodes(None)
        .into_iter()
        .filter_map(|n| match t.node(n)?.properties.get("i") {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_fresh_machine_restores_the_checkpoint_and_the_shipped_segments() {
    let dir = tempfile::tempdir().unwrap();
    let bucket = LocalDir::new(dir.path().join("bucket"));
    let mut shipped = BTreeSet::new();
    let (store, wal) = open(&dir.path().join("machine-1"), &bucket).unwrap();
    for i in 0..10 {
        create(&store, &wal, i);
    }
    let info = take_checkpoint_to(&store, &bucket).unwrap();
    wal.discard_through(info.commit_ts).unwrap();
    for i in 10..40 {
        create(&store, &wal, i);
    }
    wal.seal_active().unwrap();
    let n = ship_sealed_segments(&wal, &bucket, &mut shipped).unwrap();
    assert!(n >= 2, "{n} segments shipped");
    // Shipping again uploads nothing new.
    assert_eq!(
        ship_sealed_segments(&wal, &bucket, &mut shipped).unwrap(),
        0
    );
    let (_, highest) = *shipped.last().unwrap();
    drop(wal);
    drop(store);

    let (store, wal) = open(&dir.path().join("machine-2"), &bucket).unwrap();
    assert_eq!(numbers(&store), (0..40).collect::<Vec<_>>());
    // The new machine continues numbering after every shipped segment.
    create(&store, &wal, 40);
    wal.seal_active().unwrap();
    let mut shipped_2 = BTreeSet::new();
    ship_sealed_segments(&wal, &bucket, &mut shipped_2).unwrap();
    // (It ships the restored segments again too: an identical overwrite.)
    let new: Vec<(u32, u32)> = shipped_2.difference(&shipped).copied().collect();
    assert!(
        !new.is_empty() && new.iter().all(|(_, n)| *n > highest),
        "{shipped_2:?}"
    );
    // A checkpoint covers everything: the shipped segments below the
    // oldest local one can go.
    let info = take_checkpoint_to(&store, &bucket).unwrap();
    wal.discard_through(info.commit_ts).unwrap();
    let mut all = shipped_segments(&bucket).unwrap();
    let deleted = delete_shipped_before(&bucket, &mut all, &wal.oldest_segments()).unwrap();
    assert!(deleted > 0);
    assert!(shipped_segments(&bucket).unwrap().is_empty());
    drop(wal);
    drop(store);

    let (store, _wal) = open(&dir.path().join("machine-3"), &bucket).unwrap();
    assert_eq!(numbers(&store), (0..41).collect::<Vec<_>>());
}

#[test]
fn a_gap_or_damage_in_the_shipped_segments_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let bucket = LocalDir::new(dir.path().join("bucket"));
    let mut shipped = BTreeSet::new();
    let (store, wal) = open(&dir.path().join("machine-1"), &bucket).unwrap();
    for i in 0..40 {
        create(&store, &wal, i);
    }
    wal.seal_active().unwrap();
    ship_sealed_segments(&wal, &bucket, &mut shipped).unwrap();
    drop(wal);
    drop(store);
    let numbers_shipped: Vec<u32> = shipped.iter().map(|(_, n)| *n).collect();
    assert!(numbers_shipped.len() >= 3);
    let middle = format!("wal/wal-{:06}.log", numbers_shipped[1]);

    // A flipped byte in a shipped segment: refused, naming the object.
    let mut bytes = bucket.get(&middle).unwrap().unwrap();
    let at = bytes.len() - 3;
    bytes[at] ^= 0x10;
    bucket.put(&middle, &bytes).unwrap();
    match open(&dir.path().join("machine-2"), &bucket) {
        Err(e @ WalError::Corrupt { .. }) => assert!(e.to_string().contains(&middle), "{e}"),
        Err(other) => panic!("unexpected error {other}"),
        Ok(_) => panic!("restored from a damaged segment"),
    }

    // A missing shipped segment: refused too.
    bucket.delete(&middle).unwrap();
    match open(&dir.path().join("machine-3"), &bucket) {
        Err(e) => assert!(e.to_string().contains("missing"), "{e}"),
        Ok(_) => panic!("restored across a missing segment"),
    }
}
