//! The partitioned log: merge by commit timestamp, the first-gap rule,
//! changing the partition count between runs, and a model-based check that
//! recovery replays exactly the acknowledged prefix whatever each
//! partition's tail lost.

mod common;
use common::{append, change};

use nereid_wal::{RecoveryReport, Wal, WalError, WalOptions};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn options(partitions: u32) -> WalOptions {
    WalOptions {
        partitions,
        segment_bytes: 300,
        ..WalOptions::default()
    }
}

fn open(dir: &Path, partitions: u32) -> Result<(Wal, RecoveryReport, Vec<u64>), WalError> {
    let mut seen = Vec::new();
    let (wal, report) = Wal::open_after(dir, &options(partitions), 0, |ts, _| {
        seen.push(ts);
        Ok(())
    })?;
    Ok((wal, report, seen))
}

/// The segment files of partition `k`, ascending.
fn segments(dir: &Path, k: u32) -> Vec<PathBuf> {
    let pdir = if k == 0 {
        dir.to_path_buf()
    } else {
        dir.join(format!("p{k}"))
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(pdir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    files
}

/// Cuts `bytes` off the end of the last segment of partition `k`.
fn cut_tail(dir: &Path, k: u32, bytes: u64) {
    let last = segments(dir, k).pop().unwrap();
    let len = std::fs::metadata(&last).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&last).unwrap();
    f.set_len(len - bytes).unwrap();
}

#[test]
fn partitions_replay_merged_in_timestamp_order() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 4).unwrap();
    append(&wal, 1, 60);
    assert_eq!(wal.partitions(), 4);
    drop(wal);
    for k in 0..4 {
        assert!(!segments(dir.path(), k).is_empty(), "partition {k} written");
    }
    let (wal, report, seen) = open(dir.path(), 4).unwrap();
    assert_eq!(seen, (1..=60).collect::<Vec<_>>());
    assert_eq!((report.records, report.partitions), (60, 4));
    append(&wal, 61, 70);
    drop(wal);
    let (_, _, seen) = open(dir.path(), 4).unwrap();
    assert_eq!(seen, (1..=70).collect::<Vec<_>>());
}

#[test]
fn a_torn_partition_tail_ends_the_log_at_the_first_missing_commit() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 2).unwrap();
    append(&wal, 1, 9);
    drop(wal);
    // Commit 9 (odd handle: partition 1) is its partition's last record;
    // tear it. Commit 8 (partition 0) survives and so does everything
    // before: the log ends at 8.
    cut_tail(dir.path(), 1, 3);
    let (wal, report, seen) = open(dir.path(), 2).unwrap();
    assert_eq!(seen, (1..=8).collect::<Vec<_>>());
    assert!(report.truncated_bytes > 0);
    append(&wal, 9, 12);
    drop(wal);
    let (_, _, seen) = open(dir.path(), 2).unwrap();
    assert_eq!(seen, (1..=12).collect::<Vec<_>>());

    // Now tear commit 11 (partition 1): 12 (partition 0) is intact but was
    // never acknowledged, so it is dropped and cut from partition 0.
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 2).unwrap();
    append(&wal, 1, 12);
    drop(wal);
    cut_tail(dir.path(), 1, 1);
    let (wal, report, seen) = open(dir.path(), 2).unwrap();
    assert_eq!(seen, (1..=10).collect::<Vec<_>>());
    assert_eq!(report.dropped_records, 1);
    // New commits reuse 11 and 12; the old 12 must not come back.
    append(&wal, 11, 14);
    drop(wal);
    let (_, report, seen) = open(dir.path(), 2).unwrap();
    assert_eq!(seen, (1..=14).collect::<Vec<_>>());
    assert_eq!(report.dropped_records, 0);
}

#[test]
fn a_commit_missing_from_the_middle_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 2).unwrap();
    append(&wal, 1, 40);
    drop(wal);
    // Deleting partition 1's first segment loses commits that both
    // partitions continued past: not a torn tail.
    let first = segments(dir.path(), 1).remove(0);
    std::fs::remove_file(first).unwrap();
    let err = open(dir.path(), 2).err().expect("refused");
    assert!(
        matches!(&err, WalError::Corrupt { reason, .. } if reason.contains("missing")),
        "{err}"
    );
    // A partition that does not exist yet (more partitions configured)
    // never held a commit: it does not excuse the gap.
    let err = open(dir.path(), 3).err().expect("refused");
    assert!(
        matches!(&err, WalError::Corrupt { reason, .. } if reason.contains("missing")),
        "{err}"
    );
    assert!(
        !dir.path().join("p2").exists(),
        "nothing created on failure"
    );
}

#[test]
fn the_partition_count_may_change_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    // A log written unpartitioned is partition 0 of a partitioned one.
    let (wal, _, _) = open(dir.path(), 1).unwrap();
    append(&wal, 1, 10);
    drop(wal);
    let (wal, _, seen) = open(dir.path(), 4).unwrap();
    assert_eq!(seen, (1..=10).collect::<Vec<_>>());
    append(&wal, 11, 30);
    drop(wal);
    // Fewer partitions: the extra ones are still read, and drained by
    // checkpoints.
    let (wal, report, seen) = open(dir.path(), 2).unwrap();
    assert_eq!(seen, (1..=30).collect::<Vec<_>>());
    assert_eq!((report.partitions, wal.partitions()), (4, 4));
    append(&wal, 31, 40);
    wal.discard_through(40).unwrap();
    for k in 2..4 {
        assert_eq!(
            segments(dir.path(), k).len(),
            1,
            "partition {k} drained to one empty active segment"
        );
    }
    drop(wal);
    let mut seen = Vec::new();
    let (_, _) = Wal::open_after(dir.path(), &options(2), 40, |ts, _| {
        seen.push(ts);
        Ok(())
    })
    .unwrap();
    assert!(seen.is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Model: commits 1..=n spread over the partitions by handle; then any
    /// suffix of each partition's records is lost (torn tails). Recovery
    /// must replay exactly the longest prefix 1..=m whose every commit
    /// survived, and a second open must agree.
    #[test]
    fn recovery_replays_the_longest_surviving_prefix(
        partitions in 1u32..5,
        n in 1u64..40,
        handles in proptest::collection::vec(0u64..1000, 40),
        lost in proptest::collection::vec(0usize..6, 5),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let opts = WalOptions { partitions, segment_bytes: 1 << 20, ..WalOptions::default() };
        let (wal, _) = Wal::open_after(dir.path(), &opts, 0, |_, _| Ok(())).unwrap();
        let mut placed: Vec<Vec<(u64, u64)>> = vec![Vec::new(); partitions as usize];
        for ts in 1..=n {
            let handle = handles[(ts - 1) as usize];
            let lsn = wal.append(handle, ts, &change(ts)).unwrap();
            wal.wait_durable(lsn).unwrap();
            placed[lsn.partition as usize].push((ts, lsn.offset));
        }
        drop(wal);
        let mut survived = std::collections::BTreeSet::new();
        for (k, records) in placed.iter().enumerate() {
            let drop_n = lost[k].min(records.len());
            let keep = records.len() - drop_n;
            survived.extend(records[..keep].iter().map(|(ts, _)| *ts));
            if drop_n > 0 {
                // Offsets are stream positions past each record; the file
                // starts with a 24-byte header. Cut inside the first lost
                // record (a torn write).
                let end_of_kept = keep.checked_sub(1).map_or(0, |i| records[i].1);
                let path = segments(dir.path(), k as u32).pop().unwrap();
                let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
                f.set_len(24 + end_of_kept + 5).unwrap();
            }
        }
        let expected: Vec<u64> = (1..=n).take_while(|ts| survived.contains(ts)).collect();
        let (_, _, seen) = open(dir.path(), partitions).unwrap();
        prop_assert_eq!(&seen, &expected);
        let (_, report, seen) = open(dir.path(), partitions).unwrap();
        prop_assert_eq!(&seen, &expected);
        prop_assert_eq!(report.truncated_bytes, 0);
    }
}
