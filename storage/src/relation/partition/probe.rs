//! Index probes for many keys ("group prefetching" with a pipeline).
//!
//! Each probe is a chain of dependent cache misses: the key's index head,
//! its list (unless the list is inline or consecutive), the zone header of
//! each listed tuple, then the tuple's columns. Done key by key, the chains
//! run one after another and the processor waits on every link. Here keys
//! go in batches: the heads of a batch are read together (independent
//! loads the processor overlaps; the next batch's heads are prefetched
//! meanwhile), the batch's arena lists are prefetched before any is
//! walked, and the listed tuples are read through a software pipeline: the
//! zone header of the tuple [`HEADERS_AHEAD`] places on, the columns of the
//! one [`ROWS_AHEAD`] places on, then this one. Prefetching every row of a
//! batch at once asks for more lines than the processor has miss buffers,
//! and it drops the rest. The distances are short because each hit asks
//! for about six lines (the zone header's hot two, four columns): in
//! A/B runs on the benchmark graph, 4-6 headers and 2-3 rows ahead beat 16
//! and 8 by 10-15% on a 1k frontier, and no prefetching at all lost 20-30%. (A
//! pipeline running across batch boundaries, one key at a time through
//! queues, measured slower: the per-hit queue work cost more than the
//! refills it saved.)

use super::typed::narrow_to_types;
use super::{type_allows, Partition};
use crate::list_arena::Positions;
use crate::relation::zone::{split, Tuple, Zone};

const BATCH: usize = 32;
const HEADERS_AHEAD: usize = 6;
const ROWS_AHEAD: usize = 3;

/// A large set of keys is visited in ascending order: index heads are then
/// read front to back, and so are the tuples of bulk-loaded data (clustered
/// by source). Smaller sets keep the caller's order.
const SORT_FROM: usize = 256;

impl Partition {
    /// The tuples `lookup` lists under each of `keys` (a sorted prefix,
    /// narrowed to `types` by `narrow_to_types`, and the rest) that pass `exact`
    /// (less those whose zone rules out `types`: see
    /// `zone_may_have_type`), through `f(key, tuple)` until it
    /// returns false; returns whether it ran to the end. `ahead(key)`
    /// prefetches what `lookup(key)` will read first (the index head).
    pub(super) fn batched<'a>(
        &'a self,
        lookup: impl Fn(u64) -> (Positions<'a>, Positions<'a>),
        ahead: impl Fn(u64),
        keys: &[u64],
        types: Option<&[u32]>,
        exact: impl Fn(u64, &Tuple<'a>) -> bool,
        mut f: impl FnMut(u64, Tuple<'a>) -> bool,
    ) -> bool {
        let sorted;
        let keys = if keys.len() >= SORT_FROM && !keys.is_sorted() {
            let mut owned = keys.to_vec();
            owned.sort_unstable();
            sorted = owned;
            &sorted[..]
        } else {
            keys
        };
        let zones = self.zones_now();
        let len = zones.len();
        // Per hit: its key, zone (looked up once) and slot.
        let mut hits: Vec<(u64, &'a Zone, usize)> = Vec::new();
        for (b, batch) in keys.chunks(BATCH).enumerate() {
            let lists: [(Positions<'a>, Positions<'a>); BATCH] = std::array::from_fn(|k| {
                batch
                    .get(k)
                    .map_or((Positions::NONE, Positions::NONE), |&key| lookup(key))
            });
            for (prefix, tail) in &lists {
                prefix.prefetch();
                tail.prefetch();
            }
            for &key in keys.iter().skip((b + 1) * BATCH).take(BATCH) {
                ahead(key);
            }
            // Read after the lookups: they cover every listed position.
            let listed_zones = self.zones_now();
            hits.clear();
            for (&key, (prefix, tail)) in batch.iter().zip(lists) {
                let list = narrow_to_types(prefix, types, listed_zones).chain(tail);
                for i in list.filter(|&i| i < len) {
                    let (z, slot) = split(i);
                    if type_allows(zones.types(z), types) {
                        hits.push((key, zones.zone(z), slot));
                    }
                }
            }
            hits.iter()
                .take(HEADERS_AHEAD)
                .for_each(|&(_, zone, _)| zone.prefetch_header());
            hits.iter()
                .take(ROWS_AHEAD)
                .for_each(|&(_, zone, slot)| zone.prefetch_row(slot));
            for (n, &(key, zone, slot)) in hits.iter().enumerate() {
                if let Some(&(_, later, _)) = hits.get(n + HEADERS_AHEAD) {
                    later.prefetch_header();
                }
                if let Some(&(_, later, slot)) = hits.get(n + ROWS_AHEAD) {
                    later.prefetch_row(slot);
                }
                let t = zone.tuple(slot, self.sid_base);
                if exact(key, &t) && !f(key, t) {
                    return false;
                }
            }
        }
        true
    }
}
