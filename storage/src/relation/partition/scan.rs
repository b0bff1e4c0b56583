//! Relation scans without the partition's lock (ADR 0078).
//!
//! A scan reads only the zones (columns, stamps, freed bits) and the
//! directory's per-zone types, never an index, so it can run beside the
//! partition's writer: it pins the epoch (as every partition reader does
//! since ADR 0080), and every zone it reaches stays allocated until it
//! unpins (module `zones`). A long scan then neither waits for a commit nor holds one up.
//! What it sees is still exactly its snapshot: a slot's columns are
//! written before its stamp is published, and a zone that changes shape
//! is replaced, not changed under the reader (module `zone`).

use super::zone_may_have_type;
use crate::mvcc::View;
use crate::relation::select::{selected, ScanFilter};
use crate::relation::zone::{Zone, ZONE_TUPLES};
use crate::relation::zones::Zones;
use crossbeam::epoch::{self, Guard};
use std::sync::Arc;

/// Lock-free read access to one partition's zones.
pub(crate) struct PartitionScan {
    zones: Arc<Zones>,
    sid_base: u64,
    guard: Guard,
}

impl PartitionScan {
    pub(in crate::relation) fn new(zones: Arc<Zones>, sid_base: u64) -> Self {
        PartitionScan {
            zones,
            sid_base,
            guard: epoch::pin(),
        }
    }

    /// Number of tuple slots (visible or not): the cost of a scan.
    pub(crate) fn len(&self) -> usize {
        self.zones.len() as usize
    }

    /// Zone `z` and the slots of it below the length read at the start.
    pub(super) fn zones(&self) -> impl Iterator<Item = (usize, &Zone, usize)> {
        let len = self.zones.len() as usize;
        (0..len.div_ceil(ZONE_TUPLES)).map(move |z| {
            let slots = (len - z * ZONE_TUPLES).min(ZONE_TUPLES);
            (z, self.zones.pinned(z, &self.guard), slots)
        })
    }

    /// Whether zone `z` may hold a tuple whose P is one of `types`.
    #[inline]
    pub(super) fn may_have_type(&self, z: usize, types: Option<&[u32]>) -> bool {
        zone_may_have_type(&self.zones, z, types)
    }

    /// The relation scan's inner loop, zone by zone and column by column:
    /// for every slot that passes `filter` and is visible to `view`, calls
    /// `sink(sid, s, p, o payload)`, stopping when it returns false.
    /// Frozen zones with narrow S and O (the bulk of old data) are filtered
    /// as bit vectors (module `select`) with no per-slot dispatch and no
    /// atomics; other zones row by row, visibility last. A zone whose P is
    /// one excluded type throughout is passed over unread. Returns the
    /// slots visited (passed-over zones included) and whether the scan ran
    /// to the end.
    pub(crate) fn scan_visible(
        &self,
        view: &View,
        filter: &ScanFilter<'_>,
        mut sink: impl FnMut(u64, u64, u32, u64) -> bool,
    ) -> (u64, bool) {
        let scanned = |z: usize| self.may_have_type(z, filter.types);
        let count = self.len().div_ceil(ZONE_TUPLES);
        for (z, zone, len) in self.zones() {
            if !scanned(z) || !zone.may_be_visible(view) {
                continue;
            }
            let base = z * ZONE_TUPLES;
            if let Some(columns) = zone.frozen_narrow(view) {
                if let Some(next) = (z + 1..count).find(|&next| scanned(next)) {
                    // Each column is its own array; hardware prefetchers
                    // do not run ahead across them.
                    let next = self.zones.pinned(next, &self.guard);
                    next.prefetch_columns(filter.s.is_some(), filter.o.is_some());
                }
                let mut sel = zone.live_selection(len);
                filter.select_narrow(&mut sel, &columns);
                let ((s_high, s_low), (o_high, o_low)) = (columns.s, columns.o);
                for slot in selected(&sel) {
                    let (s, o) = (
                        s_high | u64::from(s_low[slot]),
                        o_high | u64::from(o_low[slot]),
                    );
                    let sid = self.sid_base | u64::from(columns.local.get(slot));
                    if !sink(sid, s, columns.p.get(slot), o) {
                        return ((base + slot + 1) as u64, false);
                    }
                }
                continue;
            }
            for slot in 0..len {
                let (s, p, o, local) = zone.row(slot);
                if filter.matches(s, p, o)
                    && zone.visible(slot, view)
                    && !sink(self.sid_base | u64::from(local), s, p, o)
                {
                    return ((base + slot + 1) as u64, false);
                }
            }
        }
        (self.len() as u64, true)
    }
}
