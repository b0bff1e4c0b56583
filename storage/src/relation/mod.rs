//! Partitioned SPOI relations with their per-partition adjacency indexes.
//!
//! A partition (module `partition`) holds its tuples in zones of 1024 slots
//! laid out column by column (PAX; module `zone`) with a version vector per
//! zone that is dropped once the zone's tuples are old enough for every
//! snapshot ("fast MVCC"), plus three indexes: S -> tuple positions,
//! O -> tuple positions (only for O values that are guis) and
//! I (SID) -> position. Index lists keep insertion order; a relation scan
//! sees slot order.
//!
//! The S and O indexes are direct-access arrays where keys are dense by
//! construction, hash maps otherwise, with their lists packed in one arena
//! (modules `adjacency`, `list_arena`); the I-index is a direct-access
//! array by partition-local number. Readers take no lock: zones (ADR 0078)
//! and indexes (ADR 0080) are read by pinned readers beside the one writer
//! (module `pinned`); [`Relation::read`] hands out a pinned view, and
//! relation scans ([`Relation::scan`]) pin the same way. Each partition
//! still has a lock, a [`ReadMostly`]: inserting and collecting take it
//! exclusively; stamping a tuple (deleting, committing, rolling back)
//! takes it shared ([`Relation::stamp`]), because collection freezes and
//! frees what it finds unstamped, and a write may replace the zone a stamp
//! would go to.

mod column;
mod label_bits;
mod partition;
mod select;
mod subject_index;
mod zone;
mod zones;

pub(crate) use label_bits::{LabelBits, LabelView};
use partition::PartitionWriter;
use partition::Stamping;
pub(crate) use partition::{Partition, PartitionScan};
pub(crate) use select::{dense_position, GuiBits, ScanFilter};
pub(crate) use zone::Tuple;

use crate::adjacency::KeyKind;
use crate::dictionary::RecordHint;
use crate::error::{Result, StorageError};
use crate::ids::{make_sid, split_sid, LOCAL_BITS, TAG_VP};
use crate::pinned;
use crate::predicates::PRED_LABEL;
use crate::read_mostly::{ReadGuard, ReadMostly, WriteGuard};
use crate::typed_value::{Encoded, TypedValue};
use crossbeam::epoch::{self, Guard};
use std::sync::Arc;

/// A tuple staged for a bulk append: `(S, P, O)` and O's record hint in
/// 32 bytes where a `(u64, u32, Encoded)` takes 40 (a large load stages
/// millions, written once and read back from memory twice: the append and
/// the statistics).
#[derive(Copy, Clone, Debug)]
pub(crate) struct Staged {
    pub(crate) s: u64,
    payload: u64,
    pub(crate) p: u32,
    hint: RecordHint,
    flag: u8,
}

impl Staged {
    #[inline]
    pub(crate) fn new(s: u64, p: u32, o: impl Into<Encoded>) -> Self {
        let o = o.into();
        Staged {
            s,
            payload: o.o.payload,
            p,
            hint: o.hint,
            flag: o.o.flag,
        }
    }

    #[inline]
    fn encoded(&self) -> Encoded {
        Encoded {
            o: self.o(),
            hint: self.hint,
        }
    }

    #[inline]
    pub(crate) fn o(&self) -> TypedValue {
        TypedValue {
            flag: self.flag,
            payload: self.payload,
        }
    }
}

/// Which relation a tuple reference points into.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum RelKind {
    /// REL_VP: vertex properties, labels, existence.
    Vp,
    /// REL_E: edges.
    E,
    /// REL_EP: edge properties.
    Ep,
}

/// A stable reference to one tuple.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct TupleRef {
    pub(crate) kind: RelKind,
    pub(crate) part: usize,
    pub(crate) index: u32,
}

/// One relation, split into partitions.
pub(crate) struct Relation {
    tag: u8,
    /// What readers use, without a lock.
    parts: Vec<Partition>,
    /// Each partition's writer state, behind the partition's lock.
    writers: Vec<ReadMostly<PartitionWriter>>,
    /// REL_VP only: each partition's label bits (module `label_bits`),
    /// set by the partition's writer before it stores a label tuple.
    labels: Vec<LabelBits>,
}

/// A partition for a reader: pinned for as long as the view lives, so
/// nothing it reaches is freed under it (module `pinned`).
pub(crate) struct PartitionView<'a> {
    partition: &'a Partition,
    _guard: Guard,
}

impl std::ops::Deref for PartitionView<'_> {
    type Target = Partition;

    #[inline]
    fn deref(&self) -> &Partition {
        self.partition
    }
}

/// A partition whose tuples may be stamped: a [`PartitionView`] that also
/// holds the partition's lock shared (module docs).
pub(crate) struct StampView<'a> {
    view: PartitionView<'a>,
    _lock: ReadGuard<'a, PartitionWriter>,
}

impl std::ops::Deref for StampView<'_> {
    type Target = Partition;

    #[inline]
    fn deref(&self) -> &Partition {
        &self.view
    }
}

/// The key kinds of a relation's S and O indexes.
#[derive(Copy, Clone, Debug)]
pub(crate) struct IndexKeys {
    pub(crate) s: KeyKind,
    pub(crate) o: KeyKind,
    /// S lists keep a prefix sorted by (P, O) (edges: a lookup of the
    /// edges between two vertices is a binary search).
    pub(crate) sorted_s: bool,
}

impl Relation {
    pub(crate) fn new(tag: u8, partitions: usize, keys: IndexKeys) -> Self {
        let (parts, writers) = (0..partitions)
            .map(|part| Partition::new(make_sid(tag, part, 0), keys))
            .map(|(partition, writer)| (partition, ReadMostly::new(writer)))
            .unzip();
        let labels = match tag {
            TAG_VP => (0..partitions)
                .map(|_| LabelBits::new(partitions))
                .collect(),
            _ => Vec::new(),
        };
        Relation {
            tag,
            parts,
            writers,
            labels,
        }
    }

    pub(crate) fn partitions(&self) -> usize {
        self.parts.len()
    }

    /// Read access to one partition, without its lock (`None` for an
    /// out-of-range number, e.g. from a malformed id).
    #[inline]
    pub(crate) fn read(&self, part: usize) -> Option<PartitionView<'_>> {
        let partition = self.parts.get(part)?;
        Some(PartitionView {
            partition,
            _guard: epoch::pin(),
        })
    }

    /// Access to one partition for stamping its tuples (module docs).
    pub(crate) fn stamp(&self, part: usize) -> Option<StampView<'_>> {
        let lock = self.writers.get(part)?.read();
        Some(StampView {
            view: self.read(part)?,
            _lock: lock,
        })
    }

    /// Bytes of `(zones, indexes)` over every partition
    /// ([`Partition::bytes`]), each read pinned and without its lock; the
    /// label bits count as indexes.
    pub(crate) fn bytes(&self) -> (usize, usize) {
        let labels: usize = self.labels.iter().map(LabelBits::bytes).sum();
        (0..self.parts.len())
            .filter_map(|part| self.read(part))
            .map(|view| view.bytes())
            .fold((0, labels), |(z, i), (zones, indexes)| {
                (z + zones, i + indexes)
            })
    }

    /// The label bits of partition `part` (REL_VP; `None` for another
    /// relation or an out-of-range number). Read them pinned, e.g. beside
    /// a [`PartitionView`] of the same partition.
    #[inline]
    pub(crate) fn label_bits(&self, part: usize) -> Option<&LabelBits> {
        self.labels.get(part)
    }

    /// Enters a tuple about to be stored in `part` into the partition's
    /// label bits when it is a label tuple (writer only).
    #[inline]
    fn note_label(&self, part: usize, s: u64, p: u32, o: &Encoded) {
        if p == PRED_LABEL {
            if let Some(bits) = self.labels.get(part) {
                bits.record(s, o.o.payload);
            }
        }
    }

    /// Scan access to one partition's zones, without its lock (`None` for
    /// an out-of-range number).
    pub(crate) fn scan(&self, part: usize) -> Option<PartitionScan> {
        let zones = self.parts.get(part)?.zones();
        Some(PartitionScan::new(
            Arc::clone(zones),
            make_sid(self.tag, part, 0),
        ))
    }

    /// The next partition-local statement number of `part` (0 when out of range).
    pub(crate) fn next_local(&self, part: usize) -> u32 {
        self.writers.get(part).map_or(0, |w| w.read().next_local)
    }

    /// Moves the statement counter of `part` to at least `next` (restore).
    pub(crate) fn advance_next_local(&self, part: usize, next: u32) {
        if let Some(w) = self.writers.get(part) {
            let mut w = w.write();
            w.next_local = w.next_local.max(next);
        }
    }

    /// The partition a SID of this relation lives in, if the SID is well formed.
    pub(crate) fn partition_of_sid(&self, sid: u64) -> Option<usize> {
        let (tag, part, _) = split_sid(sid)?;
        (tag == self.tag && part < self.parts.len()).then_some(part)
    }

    /// Appends a tuple stamped `begin`. The SID is allocated from the
    /// partition's counter, or `forced` (log replay), after which the counter
    /// continues past it. Returns the tuple's position and SID.
    pub(crate) fn insert(
        &self,
        part: usize,
        s: u64,
        p: u32,
        o: impl Into<Encoded>,
        forced: Option<u64>,
        begin: u64,
    ) -> Result<(u32, u64)> {
        let lock = self
            .writers
            .get(part)
            .ok_or_else(|| StorageError::Replay(format!("partition {part} out of range")))?;
        let partition = &self.parts[part];
        let _pin = epoch::pin();
        let mut writer = lock.write();
        let sid = match forced {
            Some(sid) => {
                let local = match split_sid(sid) {
                    Some((tag, sid_part, local)) if tag == self.tag && sid_part == part => local,
                    _ => {
                        return Err(StorageError::Replay(format!(
                            "statement id {sid:#x} does not belong to partition {part} \
                             (was the partition count changed?)"
                        )))
                    }
                };
                if partition.by_statement(sid).is_some() {
                    return Err(StorageError::Replay(format!(
                        "statement id {sid:#x} used twice"
                    )));
                }
                writer.next_local = writer.next_local.max(local.saturating_add(1));
                sid
            }
            None => {
                let local = writer.next_local;
                if local >= (1 << LOCAL_BITS) {
                    return Err(StorageError::CapacityExceeded("tuples per partition"));
                }
                writer.next_local = local + 1;
                make_sid(self.tag, part, local)
            }
        };
        let o = o.into();
        self.note_label(part, s, p, &o);
        let index = partition.push(&mut writer, s, p, o, sid, Stamping::Versioned(begin))?;
        unlock(writer);
        Ok((index, sid))
    }

    /// Collects dead versions in every partition (module `gc`).
    pub(crate) fn collect(&self, watermark: u64) -> u64 {
        let _pin = epoch::pin();
        self.parts
            .iter()
            .zip(&self.writers)
            .map(|(partition, w)| {
                let mut writer = w.write();
                let freed = partition.collect(&mut writer, watermark);
                unlock(writer);
                freed
            })
            .sum()
    }

    /// Tuple slots in use (not on a free list).
    pub(crate) fn versions(&self) -> u64 {
        self.writers.iter().map(|w| w.read().in_use() as u64).sum()
    }

    /// `(frozen, versioned)` zones over all partitions.
    pub(crate) fn zone_states(&self) -> (usize, usize) {
        self.parts
            .iter()
            .map(|p| p.zone_states())
            .fold((0, 0), |(f, v), (f2, v2)| (f + f2, v + v2))
    }

    /// True when `part` can take `count` more tuples.
    pub(crate) fn has_room(&self, part: usize, count: usize) -> bool {
        self.writers.get(part).is_some_and(|w| w.read().fits(count))
    }

    /// How many tuples ahead [`Relation::insert_committed_batch`] prefetches
    /// index heads.
    const HEADS_AHEAD: usize = 16;

    /// Tuples [`Relation::insert_committed_batch`] appends per hold of the
    /// write lock: ~2 ms of appends into fresh zones (8,192 held it 7 ms
    /// on average, up to 20 ms; bench `reader_latency`).
    const BULK_HOLD: usize = 2048;

    /// Appends already committed tuples (the bulk path), SIDs from the
    /// partition's counter, every tuple stamped `begin`. Returns the SID of
    /// the first tuple: the others follow it in input order (the batch's
    /// local numbers are reserved together up front, and `fits` keeps them
    /// within the local bits). Capacity is checked at that reservation, so
    /// a failed batch leaves nothing behind, and nothing can fail after it.
    ///
    /// The write lock is taken per [`Relation::BULK_HOLD`] tuples, not for
    /// the whole batch: readers of the partition wait for one chunk at
    /// most (a partition's share of a million-vertex load held it for
    /// ~140 ms; bench `reader_latency`). Nobody sees the batch early: its
    /// zones are frozen at `begin` and its other tuples stamped with it, a
    /// commit timestamp not published before the whole load is in.
    /// Transactions may append between chunks; they take later local
    /// numbers, so the batch's stay consecutive.
    pub(crate) fn insert_committed_batch(
        &self,
        part: usize,
        tuples: &[Staged],
        begin: u64,
    ) -> Result<u64> {
        let lock = self
            .writers
            .get(part)
            .ok_or(StorageError::CapacityExceeded("partition number"))?;
        let partition = &self.parts[part];
        let _pin = epoch::pin();
        let first_local = {
            let mut writer = lock.write();
            if !writer.fits(tuples.len()) {
                return Err(StorageError::CapacityExceeded("tuples per partition"));
            }
            let first = writer.next_local;
            writer.next_local += tuples.len() as u32;
            first
        };
        let mut local = first_local;
        for chunk in tuples.chunks(Self::BULK_HOLD) {
            let mut writer = lock.write();
            for (k, t) in chunk.iter().enumerate() {
                // The index heads of a batch's keys are random misses (vertex
                // guis scatter by hash): fetch them a few tuples early.
                if let Some(later) = chunk.get(k + Self::HEADS_AHEAD) {
                    partition.prefetch_heads(later.s, later.o());
                }
                let sid = make_sid(self.tag, part, local);
                local += 1;
                let o = t.encoded();
                self.note_label(part, t.s, t.p, &o);
                partition.push(&mut writer, t.s, t.p, o, sid, Stamping::Bulk(begin))?;
            }
            unlock(writer);
        }
        {
            let _writer = lock.write();
            partition.shrink_indexes();
        }
        Ok(make_sid(self.tag, part, first_local))
    }
}

/// Releases a partition's write lock, then hands the zones it replaced to
/// the epoch collector (module `zones`: not under the lock, where the
/// collector's frees would hold writers up) and drops what the collector
/// has put in the graveyard (module `pinned`).
fn unlock(mut writer: WriteGuard<'_, PartitionWriter>) {
    let retired = writer.take_retired();
    drop(writer);
    drop(retired);
    pinned::bury();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{TAG_E, TAG_VP};

    /// Edges' index keys (vertex guis of 2 partitions per dimension).
    pub(super) const EDGE_KEYS: IndexKeys = IndexKeys {
        s: KeyKind::Vertex { part_bits: 1 },
        o: KeyKind::Vertex { part_bits: 1 },
        sorted_s: true,
    };

    #[test]
    fn insert_indexes_by_s_o_and_i() {
        let rel = Relation::new(TAG_E, 4, EDGE_KEYS);
        let (i0, sid0) = rel
            .insert(2, 10, 0, TypedValue::vertex(20), None, 1)
            .unwrap();
        let (i1, sid1) = rel
            .insert(2, 10, 0, TypedValue::vertex(30), None, 1)
            .unwrap();
        assert_ne!(sid0, sid1);
        assert_eq!(rel.partition_of_sid(sid1), Some(2));
        let part = rel.read(2).unwrap();
        let by_s: Vec<u32> = part.by_subject(10).map(|(i, _)| i).collect();
        assert_eq!(by_s, vec![i0, i1]);
        assert_eq!(
            part.by_object(30).map(|(i, _)| i).collect::<Vec<_>>(),
            vec![i1]
        );
        assert_eq!(
            part.by_statement(sid0).map(|(i, t)| (i, t.s)),
            Some((i0, 10))
        );
        assert!(rel.read(4).is_none());
    }

    #[test]
    fn forced_sids_advance_the_counter_and_are_checked() {
        let rel = Relation::new(TAG_E, 4, EDGE_KEYS);
        let forced = make_sid(TAG_E, 1, 41);
        rel.insert(1, 1, 0, TypedValue::NONE, Some(forced), 1)
            .unwrap();
        let (_, next) = rel.insert(1, 1, 0, TypedValue::NONE, None, 1).unwrap();
        assert_eq!(split_sid(next), Some((TAG_E, 1, 42)));
        assert!(rel
            .insert(1, 1, 0, TypedValue::NONE, Some(forced), 1)
            .is_err());
        assert!(rel
            .insert(2, 1, 0, TypedValue::NONE, Some(forced), 1)
            .is_err());
        let wrong_tag = make_sid(TAG_VP, 1, 50);
        assert!(rel
            .insert(1, 1, 0, TypedValue::NONE, Some(wrong_tag), 1)
            .is_err());
        assert_eq!(rel.partition_of_sid(wrong_tag), None);
    }

    proptest::proptest! {
        /// REL_EP's subject index, in its sorted form while subjects arrive
        /// in order and explicit after, lists exactly the live tuples of
        /// each subject: through appends in and out of order, deletions
        /// collected by GC and freed slots reused.
        #[test]
        fn subject_index_lists_the_live_tuples_of_each_subject(
            ops in proptest::collection::vec((0u8..10, 0u32..3, 0u32..40), 1..300)
        ) {
            use crate::ids::TAG_EP;
            let rel = Relation::new(TAG_EP, 1, IndexKeys { s: KeyKind::Statement, o: KeyKind::Hashed, sorted_s: false });
            let key = |k: u32| make_sid(TAG_E, 0, k);
            let mut live: Vec<(u32, u64)> = Vec::new();
            let mut next_key = 0;
            let mut ts = 1;
            for (op, step, any) in ops {
                match op {
                    0..=6 => {
                        next_key += step;
                        let (index, _) = rel
                            .insert(0, key(next_key), 2, TypedValue::NONE, None, 1)
                            .unwrap();
                        live.push((index, key(next_key)));
                    }
                    7 => {
                        let (index, _) = rel.insert(0, key(any), 2, TypedValue::NONE, None, 1).unwrap();
                        live.push((index, key(any)));
                    }
                    _ if live.is_empty() => {}
                    _ => {
                        let (index, _) = live.swap_remove(any as usize % live.len());
                        ts += 2;
                        rel.read(0).unwrap().tuple(index).unwrap().set_end(ts);
                        rel.collect(ts);
                    }
                }
                let part = rel.read(0).unwrap();
                let keys: Vec<u64> = (0..=next_key.max(40)).map(key).collect();
                let mut batched: Vec<(u64, u32)> = Vec::new();
                part.by_subjects(&keys, None, |k, t| {
                    batched.push((k, (t.i & ((1 << LOCAL_BITS) - 1)) as u32));
                    true
                });
                let mut expected_batched: Vec<(u64, u32)> = Vec::new();
                for &k in &keys {
                    let mut expected: Vec<u32> =
                        live.iter().filter(|(_, s)| *s == k).map(|(i, _)| *i).collect();
                    let mut got: Vec<u32> = part.by_subject(k).map(|(i, _)| i).collect();
                    expected.sort_unstable();
                    got.sort_unstable();
                    proptest::prop_assert_eq!(&got, &expected);
                    expected_batched.extend(got.iter().map(|&i| {
                        (k, (part.tuple(i).unwrap().i & ((1 << LOCAL_BITS) - 1)) as u32)
                    }));
                }
                batched.sort_unstable();
                expected_batched.sort_unstable();
                proptest::prop_assert_eq!(batched, expected_batched);
            }
        }
    }

    #[test]
    fn subject_index_stays_implicit_for_ordered_appends() {
        use crate::ids::TAG_EP;
        let rel = Relation::new(
            TAG_EP,
            1,
            IndexKeys {
                s: KeyKind::Statement,
                o: KeyKind::Hashed,
                sorted_s: false,
            },
        );
        for k in 0..3000u32 {
            for _ in 0..(k % 3) {
                rel.insert(0, make_sid(TAG_E, 0, k), 2, TypedValue::NONE, None, 1)
                    .unwrap();
            }
        }
        let part = rel.read(0).unwrap();
        assert!(part.subject_index_is_sorted());
        assert_eq!(part.by_subject(make_sid(TAG_E, 0, 2999)).count(), 2);
        assert_eq!(part.by_subject(make_sid(TAG_E, 0, 3000)).count(), 0);
        drop(part);
        rel.insert(0, make_sid(TAG_E, 0, 5), 2, TypedValue::NONE, None, 1)
            .unwrap();
        let part = rel.read(0).unwrap();
        assert!(!part.subject_index_is_sorted());
        assert_eq!(part.by_subject(make_sid(TAG_E, 0, 5)).count(), 3);
    }

    #[test]
    fn batched_probes_list_what_key_by_key_probes_list() {
        use crate::ids::{make_gui, TAG_VERT};
        let rel = Relation::new(TAG_E, 2, EDGE_KEYS);
        // Vertex guis of partition 0 (even hashes), some with two edges,
        // some with none; more keys than a batch and than the sort
        // threshold, given out of order and with a malformed one.
        let vertex = |n: u32| make_gui(TAG_VERT, n / 1000, ((n % 1000) * 2) as u16);
        for n in 0..400 {
            for k in 0..(n % 3) {
                rel.insert(0, vertex(n), 0, TypedValue::vertex(vertex(n + k)), None, 1)
                    .unwrap();
            }
        }
        let mut keys: Vec<u64> = (0..500).rev().map(vertex).collect();
        keys.push(vertex(7) | 1 << 50);
        let part = rel.read(0).unwrap();
        for subject_side in [true, false] {
            let mut expected: Vec<(u64, u32)> = Vec::new();
            for &key in &keys {
                let found: Vec<(u32, Tuple<'_>)> = if subject_side {
                    part.by_subject(key).collect()
                } else {
                    part.by_object(key).collect()
                };
                expected.extend(found.iter().map(|(_, t)| (key, t.i as u32)));
            }
            let mut got: Vec<(u64, u32)> = Vec::new();
            let sink = |key: u64, t: Tuple<'_>| {
                got.push((key, t.i as u32));
                true
            };
            let completed = if subject_side {
                part.by_subjects(&keys, None, sink)
            } else {
                part.by_objects(&keys, None, sink)
            };
            assert!(completed);
            assert!(!expected.is_empty());
            expected.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, expected);
        }
        let mut seen = 0;
        assert!(!part.by_subjects(&keys, None, |_, _| {
            seen += 1;
            seen < 5
        }));
        assert_eq!(seen, 5);
    }

    #[test]
    fn typed_probes_pass_over_zones_of_other_types_only() {
        use crate::ids::{make_gui, TAG_VERT};
        use zone::ZONE_TUPLES;
        let rel = Relation::new(TAG_E, 2, EDGE_KEYS);
        let vertex = |n: u32| make_gui(TAG_VERT, 0, (n * 2) as u16);
        // Zone 0 holds type 0 only, zone 1 type 1 only, zone 2 both.
        for slot in 0..3 * ZONE_TUPLES as u32 {
            let p = match slot as usize / ZONE_TUPLES {
                0 => 0,
                1 => 1,
                _ => slot % 2,
            };
            let o = TypedValue::vertex(vertex(slot % 7));
            rel.insert(0, vertex(slot % 50), p, o, None, 1).unwrap();
        }
        let part = rel.read(0).unwrap();
        let keys: Vec<u64> = (0..50).map(vertex).collect();
        let zone_of = |t: &Tuple<'_>| (t.i & ((1 << LOCAL_BITS) - 1)) as usize / ZONE_TUPLES;
        let every: Vec<(u32, usize, u64)> = keys
            .iter()
            .flat_map(|&k| part.by_subject(k))
            .map(|(_, t)| (t.p, zone_of(&t), t.i))
            .collect();
        for types in [
            None,
            Some(&[0u32][..]),
            Some(&[1]),
            Some(&[0, 1]),
            Some(&[2]),
        ] {
            let mut got: Vec<(u32, usize, u64)> = Vec::new();
            part.by_subjects(&keys, types, |_, t| {
                got.push((t.p, zone_of(&t), t.i));
                true
            });
            let wanted = |p: u32| types.is_none_or(|types| types.contains(&p));
            // Every tuple of a wanted type, and others only from the mixed
            // zone (some of which a sorted list's narrowing to the wanted
            // types passes over: module `partition::typed`).
            let mut expected: Vec<_> = every
                .iter()
                .filter(|&&(p, _, _)| wanted(p))
                .copied()
                .collect();
            let mut wanted_got: Vec<_> = got
                .iter()
                .filter(|&&(p, _, _)| wanted(p))
                .copied()
                .collect();
            wanted_got.sort_unstable();
            expected.sort_unstable();
            assert_eq!(wanted_got, expected, "types {types:?}");
            assert!(
                got.iter().all(|&(p, zone, _)| wanted(p) || zone == 2),
                "types {types:?}"
            );
        }
    }
}
