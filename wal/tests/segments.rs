//! Segment rotation, discarding segments behind a checkpoint, replay after a
//! checkpoint timestamp, and the interval durability mode.

mod common;
use common::append;

use nereid_wal::{Durability, RecoveryReport, Wal, WalError, WalOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn options(durability: Durability) -> WalOptions {
    WalOptions {
        durability,
        segment_bytes: 200,
        partitions: 1,
        faults: None,
    }
}

fn open(dir: &Path, after: u64) -> Result<(Wal, RecoveryReport, Vec<u64>), WalError> {
    let mut seen = Vec::new();
    let (wal, report) = Wal::open_after(dir, &options(Durability::Fsync), after, |ts, _| {
        seen.push(ts);
        Ok(())
    })?;
    Ok((wal, report, seen))
}

fn segments(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    files
}

#[test]
fn segments_rotate_and_all_replay_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 0).unwrap();
    append(&wal, 1, 40);
    wal.close().unwrap();
    let files = segments(dir.path());
    assert!(files.len() > 3, "{files:?}");
    let (_, report, seen) = open(dir.path(), 0).unwrap();
    assert_eq!(seen, (1..=40).collect::<Vec<_>>());
    assert_eq!(report.segments, files.len() as u64);
}

#[test]
fn discarding_behind_a_checkpoint_keeps_what_replay_needs() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 0).unwrap();
    append(&wal, 1, 40);
    let before = segments(dir.path()).len();
    let deleted = wal.discard_through(25).unwrap();
    assert!(deleted > 0 && deleted < before, "{deleted} of {before}");
    append(&wal, 41, 45);
    wal.close().unwrap();
    // A checkpoint at 25 plus the remaining log gives everything after 25.
    let (_, report, seen) = open(dir.path(), 25).unwrap();
    assert_eq!(seen, (26..=45).collect::<Vec<_>>());
    assert_eq!(report.records, 20);
    // Without the checkpoint the deleted records are missed, loudly.
    match open(dir.path(), 0) {
        Err(WalError::Corrupt { reason, .. }) => assert!(reason.contains("missing"), "{reason}"),
        other => panic!(
            "expected a missing-records error, got {:?}",
            other.map(|r| r.1)
        ),
    }
}

#[test]
fn a_missing_middle_segment_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 0).unwrap();
    append(&wal, 1, 40);
    wal.close().unwrap();
    let files = segments(dir.path());
    std::fs::remove_file(&files[1]).unwrap();
    let err = open(dir.path(), 0).err().expect("refuses to open");
    assert!(err.to_string().contains("segment 2 is missing"), "{err}");
}

#[test]
fn damage_at_the_end_of_a_sealed_segment_is_corruption_not_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let (wal, _, _) = open(dir.path(), 0).unwrap();
    append(&wal, 1, 40);
    wal.close().unwrap();
    let first = segments(dir.path())[0].clone();
    let mut bytes = std::fs::read(&first).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&first, &bytes).unwrap();
    match open(dir.path(), 0) {
        Err(WalError::Corrupt { file, reason, .. }) => {
            assert_eq!(file, first);
            assert!(reason.contains("sealed"), "{reason}");
        }
        other => panic!("expected corruption, got {:?}", other.map(|r| r.1)),
    }
}

#[test]
fn interval_durability_acknowledges_and_replays() {
    let dir = tempfile::tempdir().unwrap();
    let interval = Durability::Interval(Duration::from_millis(20));
    let (wal, _) = Wal::open_after(dir.path(), &options(interval), 0, |_, _| Ok(())).unwrap();
    append(&wal, 1, 30);
    // Acknowledged means written to the OS: visible to a reader of the files
    // even before the interval's fsync (a process crash keeps it).
    let (_, _, seen) = {
        let copy = tempfile::tempdir().unwrap();
        for f in segments(dir.path()) {
            std::fs::copy(&f, copy.path().join(f.file_name().unwrap())).unwrap();
        }
        open(copy.path(), 0).unwrap()
    };
    assert_eq!(seen, (1..=30).collect::<Vec<_>>());
    wal.close().unwrap();
    let (_, _, seen) = open(dir.path(), 0).unwrap();
    assert_eq!(seen.len(), 30);
}

#[test]
fn durability_settings_parse() {
    assert_eq!("fsync".parse::<Durability>(), Ok(Durability::Fsync));
    assert_eq!(
        "interval:50".parse::<Durability>(),
        Ok(Durability::Interval(Duration::from_millis(50)))
    );
    for bad in ["", "interval:", "interval:0", "interval:x", "always"] {
        assert!(bad.parse::<Durability>().is_err(), "{bad}");
    }
    assert_eq!(
        Durability::Interval(Duration::from_millis(7)).to_string(),
        "interval:7"
    );
}
