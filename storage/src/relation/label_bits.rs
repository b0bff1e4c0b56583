//! A REL_VP partition's label summary: per label, one bit per vertex that
//! is set when a tuple giving the vertex that label is ever stored (ADR
//! 0183).
//!
//! Why: a label test probes the node's tuples (the S index's list head, the
//! tuples' rows, their version and flag columns), a few cache misses per
//! node even through the pipelined probe; a test over every message an
//! expand reached (SNB IC4: 28k probes to keep 9.5k posts) is then the
//! largest item of the plan. The bits of one label over a partition's
//! vertices fit in a few cache lines per thousand vertices, so a clear bit
//! answers "no" for one load that usually hits the cache.
//!
//! Why the answer is exact under MVCC although the bits carry no version:
//! a bit is a superset of every version. It is set before the tuple is
//! stored (under the partition's write lock, so before the commit that
//! could make the tuple visible is published) and never cleared (not when
//! the label is removed, nor when a rolled-back or dead tuple is
//! collected). So a clear bit proves that no version of such a tuple
//! exists in any snapshot, and a set bit only sends the test on to the
//! node's tuples as before, which decide by their stamps. A bit that a
//! concurrent writer sets while a reader reads the word either way is
//! harmless: its tuple is not committed yet, so no other snapshot sees it.
//!
//! Bounds: vertices without a dense number (`gui_map::dense_number`), and
//! labels past the first [`MAX_LABELS`] a partition sees, are not tracked
//! and always go on to the probe ([`LabelBits::may_have`] answers `true`).
//! A label's bits take one bit per dense number of the partition where
//! pages were touched (SNB SF0.1: ~7 KB per label and partition).
//!
//! Readers take no lock and write no shared word (as everywhere in the
//! relations): a partition's labels sit in a fixed table of once-set
//! slots, filled in order, so a reader finds a label, or the first empty
//! slot that proves it absent, by loads alone.
//!
//! Invariants: only the partition's writer (holding its write lock) sets
//! bits and fills slots, a slot before its bits and both before the tuple;
//! readers are pinned (module `pinned`).

use crate::atomic_pages::AtomicPages;
use crate::gui_map::dense_number;
use crate::ids::TAG_VERT;
use crate::pinned;
use std::sync::OnceLock;

/// Labels tracked per partition: a store with more labels than this keeps
/// probing the rest (each label's bits cost up to one bit per vertex).
pub(crate) const MAX_LABELS: usize = 64;

/// Words per page of a label's bits: 32 Ki vertices per 4 KiB page.
const PAGE_WORDS: usize = 512;

type Bits = AtomicPages<u64, PAGE_WORDS>;

/// One slot of a partition's label table: `(label gui, its bits)`, set once.
type Slot = OnceLock<Box<(u64, Bits)>>;

/// One partition's label bits (module docs).
pub(crate) struct LabelBits {
    /// log2 of the relation's partition count: the low bits of a vertex's
    /// dense number name its partition, the rest number it within.
    part_bits: u32,
    /// `MAX_LABELS` slots of `(label gui, its bits)`, filled in the order
    /// labels were first stored.
    labels: Box<[Slot]>,
}

/// A reader's hold on one label's bits in one partition.
pub(crate) enum LabelView<'a> {
    /// The label is tracked: its bits.
    Tracked(&'a Bits),
    /// Never stored in this partition while tracking had room: no vertex
    /// of the partition has it, in any version.
    Absent,
    /// Not tracked (the partition's table was full): every vertex may.
    Untracked,
}

impl LabelBits {
    pub(crate) fn new(partitions: usize) -> Self {
        LabelBits {
            part_bits: partitions.trailing_zeros(),
            labels: (0..MAX_LABELS).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The bit number of `node` within the partition, when it has one.
    #[inline]
    fn local(&self, node: u64) -> Option<usize> {
        dense_number(TAG_VERT, node).map(|dense| dense >> self.part_bits)
    }

    /// Records that a tuple giving `node` the label `label` is about to
    /// be stored (writer only, before the tuple is written).
    pub(crate) fn record(&self, node: u64, label: u64) {
        // The label is entered first, whatever the node: a vertex without a
        // dense number is then ruled in by `may_have`, never out.
        let bits = match self.view(label) {
            LabelView::Tracked(bits) => bits,
            LabelView::Untracked => return,
            LabelView::Absent => {
                // `view` said absent: the first empty slot is this
                // writer's to fill (no one else fills slots).
                let Some(slot) = self.labels.iter().find(|slot| slot.get().is_none()) else {
                    return;
                };
                &slot.get_or_init(|| Box::new((label, Bits::new(0)))).1
            }
        };
        let Some(local) = self.local(node) else {
            return;
        };
        let guard = pinned::assumed();
        let word = bits.get(local / 64, guard).unwrap_or(0);
        bits.set(local / 64, word | 1 << (local % 64));
    }

    /// A reader's hold on the bits of `label` (a literal gui).
    pub(crate) fn view(&self, label: u64) -> LabelView<'_> {
        for slot in self.labels.iter() {
            match slot.get() {
                Some(entry) if entry.0 == label => return LabelView::Tracked(&entry.1),
                Some(_) => {}
                None => return LabelView::Absent,
            }
        }
        LabelView::Untracked
    }

    /// Whether `node` may carry the label `view` was taken for: `false`
    /// proves no version of such a tuple exists. The caller is pinned.
    #[inline]
    pub(crate) fn may_have(&self, view: &LabelView<'_>, node: u64) -> bool {
        match view {
            LabelView::Untracked => true,
            LabelView::Absent => false,
            LabelView::Tracked(bits) => match self.local(node) {
                None => true,
                Some(local) => bits
                    .get(local / 64, pinned::assumed())
                    .is_some_and(|word| word & (1 << (local % 64)) != 0),
            },
        }
    }

    /// Bytes of the bits (memory accounting).
    pub(crate) fn bytes(&self) -> usize {
        let slots = self.labels.len() * size_of::<Slot>();
        let labels = self.labels.iter().filter_map(OnceLock::get);
        slots
            + labels
                .map(|entry| size_of::<(u64, Bits)>() + entry.1.bytes())
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::make_gui;

    fn vertex(counter: u32, hash: u16) -> u64 {
        make_gui(TAG_VERT, counter, hash)
    }

    #[test]
    fn a_recorded_label_may_be_had_and_an_unrecorded_one_may_not() {
        let bits = LabelBits::new(4);
        let _pin = crossbeam::epoch::pin();
        // Partition 1 of 4: hashes with low bits 01.
        let (a, b, c) = (vertex(0, 1), vertex(0, 5), vertex(9, 1));
        bits.record(a, 100);
        bits.record(c, 100);
        bits.record(b, 200);
        let l100 = bits.view(100);
        assert!(bits.may_have(&l100, a));
        assert!(!bits.may_have(&l100, b));
        assert!(bits.may_have(&l100, c));
        let l200 = bits.view(200);
        assert!(!bits.may_have(&l200, a) && bits.may_have(&l200, b));
        let never = bits.view(300);
        assert!(matches!(never, LabelView::Absent));
        assert!(!bits.may_have(&never, a));
    }

    #[test]
    fn vertices_without_a_dense_number_are_never_ruled_out() {
        let bits = LabelBits::new(1);
        let _pin = crossbeam::epoch::pin();
        let far = vertex(1 << 20, 7);
        bits.record(far, 1);
        let view = bits.view(1);
        assert!(bits.may_have(&view, far), "no dense number: untracked");
        assert!(!bits.may_have(&view, vertex(0, 7)));
        bits.record(vertex(0, 7), 1);
        assert!(bits.may_have(&bits.view(1), far));
        assert!(bits.may_have(&bits.view(1), vertex(0, 7)));
    }

    #[test]
    fn labels_past_the_table_are_untracked_and_never_ruled_out() {
        let bits = LabelBits::new(1);
        let _pin = crossbeam::epoch::pin();
        let node = vertex(0, 3);
        for label in 0..MAX_LABELS as u64 {
            bits.record(node, label);
        }
        let late = MAX_LABELS as u64 + 1;
        assert!(matches!(bits.view(late), LabelView::Untracked));
        assert!(bits.may_have(&bits.view(late), vertex(0, 4)));
        bits.record(vertex(0, 5), late);
        assert!(bits.may_have(&bits.view(late), vertex(0, 6)));
        assert!(!bits.may_have(&bits.view(0), vertex(0, 4)));
    }
}
