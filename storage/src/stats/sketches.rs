//! Distinct-value sketches: one HyperLogLog per vertex property key, per
//! relationship property key, and per relationship type for its distinct
//! sources and targets, plus exact relationship counts per type.
//!
//! HyperLogLog can only grow: a deleted value stays counted until the next
//! [`crate::Store::rebuild_statistics`], so between rebuilds the distinct
//! counts are upper-biased by the values deleted since (the planner reads
//! them as selectivities, where over-estimating distinctness only makes an
//! equality look more selective than it is). Counts are exact.
//!
//! The sketches hash with the crate's fixed-seed MurmurHash3, so the same
//! data gives the same sketch in every process.

use crate::typed_value::TypedValue;
use datasketches::common::NumStdDev;
use datasketches::hll::{HllSketch, HllType};
/// Values by store id (property key or relationship type), looked up once
/// per value written: ids are small and dense (the predicate table hands
/// them out in order), so a vector indexed by id, not a hash map.
#[derive(Clone, Debug)]
pub(crate) struct IdMap<V>(Vec<Option<V>>);

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap(Vec::new())
    }
}

impl<V> IdMap<V> {
    pub(crate) fn get(&self, id: u32) -> Option<&V> {
        self.0.get(id as usize)?.as_ref()
    }

    fn get_or_insert_with(&mut self, id: u32, new: impl FnOnce() -> V) -> &mut V {
        let index = id as usize;
        if index >= self.0.len() {
            self.0.resize_with(index + 1, || None);
        }
        self.0[index].get_or_insert_with(new)
    }

    pub(crate) fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().flatten()
    }

    /// Bytes of the vector, plus `each` per value held (memory accounting:
    /// O(ids), which are few).
    fn bytes(&self, each: usize) -> usize {
        self.0.capacity() * size_of::<Option<V>>() + self.values().count() * each
    }
}

/// log2 of the register count: 4096 registers, a relative standard error
/// of about 1.04 / 64 = 1.6 %, at most 4 KiB per sketch (small sketches
/// stay in the sparse list/set modes).
pub(crate) const LG_K: u8 = 12;

/// An estimate with its 3-standard-deviation bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistinctEstimate {
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
}

/// What a sketch hashes for a value: its payload with the type flag
/// folded into the top byte, one 64-bit word (hashing the flag and the
/// payload as two writes cost a few percent of a bulk load). Values of two
/// types whose words coincide count once, which a distinct-count estimate
/// with a 1.6 % standard error cannot notice.
fn sketched(value: TypedValue) -> u64 {
    value.payload ^ u64::from(value.flag) << 56
}

fn new_sketch() -> HllSketch {
    HllSketch::new(LG_K, HllType::Hll8).expect("LG_K is within the accepted 4..=21")
}

pub(crate) fn estimate_of(sketch: &HllSketch) -> DistinctEstimate {
    DistinctEstimate {
        estimate: sketch.estimate(),
        lower: sketch.lower_bound(NumStdDev::Three),
        upper: sketch.upper_bound(NumStdDev::Three),
    }
}

/// Statistics of one relationship type.
#[derive(Clone, Debug)]
pub(crate) struct EdgeTypeSketch {
    pub(crate) count: i64,
    pub(crate) sources: HllSketch,
    pub(crate) targets: HllSketch,
    /// The source last added to `sources`: a vertex's edges of one type
    /// mostly come together (a bulk load's cells are ordered by type and
    /// source), and adding a value again leaves a sketch as it was, so a
    /// repeat is not hashed again.
    last_source: Option<u64>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Sketches {
    pub(crate) node_values: IdMap<HllSketch>,
    pub(crate) rel_values: IdMap<HllSketch>,
    pub(crate) edge_types: IdMap<EdgeTypeSketch>,
}

/// Bytes a sketch keeps at most (4096 one-byte registers; a sparse one
/// keeps less): an upper bound, as a sketch's own size is not exposed.
const SKETCH_BYTES: usize = 1 << LG_K;

impl Sketches {
    /// Bytes of the sketches (memory accounting, O(ids)).
    pub(crate) fn bytes(&self) -> usize {
        self.node_values.bytes(SKETCH_BYTES)
            + self.rel_values.bytes(SKETCH_BYTES)
            + self.edge_types.bytes(2 * SKETCH_BYTES)
    }

    /// A vertex property value was written under `key`.
    pub(crate) fn node_value(&mut self, key: u32, value: TypedValue) {
        self.node_values
            .get_or_insert_with(key, new_sketch)
            .update(sketched(value));
    }

    /// A relationship property value was written under `key`.
    pub(crate) fn rel_value(&mut self, key: u32, value: TypedValue) {
        self.rel_values
            .get_or_insert_with(key, new_sketch)
            .update(sketched(value));
    }

    /// A relationship of `type_id` from `src` to `dst` was inserted
    /// (`delta` 1) or deleted (-1).
    pub(crate) fn edge(&mut self, type_id: u32, src: u64, dst: u64, delta: i64) {
        let entry = self
            .edge_types
            .get_or_insert_with(type_id, || EdgeTypeSketch {
                count: 0,
                sources: new_sketch(),
                targets: new_sketch(),
                last_source: None,
            });
        entry.count += delta;
        if delta > 0 {
            if entry.last_source != Some(src) {
                entry.sources.update(src);
                entry.last_source = Some(src);
            }
            entry.targets.update(dst);
        }
    }
}
