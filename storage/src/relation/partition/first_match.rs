//! The first tuple a test picks among each key's S-index tuples, for many
//! keys: a label test or a property read on a batch of nodes.
//!
//! A point read is a chain of four dependent misses (the key's index head,
//! its arena list, the zone header of a listed tuple, the tuple's
//! columns). Prefetching the heads of a whole batch first (what the label
//! and property columns did before) removes only the first link: profiles
//! of SNB IC14 put ~23% of its time on the other three, one node at a time.
//! Here the keys go through a software pipeline, each link started a few
//! keys before it is needed ([`HEAD_AHEAD`] ... [`ROW_AHEAD`]), so the
//! misses of neighbouring keys overlap. Unlike `Partition::batched`
//! (every tuple of every key, for expands), a node's search stops at its
//! first match, and only its first [`FIRST_ROWS`] tuples are prefetched:
//! the existence and label tuples come first in a node's list, and its
//! properties share their cache lines (columns of 4-8 bytes per slot).

use super::Partition;
use crate::list_arena::Positions;
use crate::relation::zone::{split, Tuple};

/// Keys ahead of the one being read whose index head is prefetched.
const HEAD_AHEAD: usize = 12;
/// ... whose list is looked up (its head arrived) and prefetched.
const LIST_AHEAD: usize = 9;
/// ... whose first tuples' zone headers are prefetched.
const ZONE_AHEAD: usize = 6;
/// ... whose first tuples' columns are prefetched (zone header arrived).
const ROW_AHEAD: usize = 3;
/// Tuples per key whose zone header and columns are prefetched.
const FIRST_ROWS: usize = 4;

impl Partition {
    /// For each of `keys`, aligned with it, what `pick` returns for the
    /// first of the key's tuples (S-index order) it returns something for.
    /// With `values`, `pick` reads the stored values (`Tuple::encoded`), so
    /// their record hints are prefetched too: in profiles of SNB IC3 and
    /// IC9 (`message.creationDate` over ~150k messages) the hint's load
    /// was the largest single stall of the property column.
    pub(crate) fn first_by_subjects<T>(
        &self,
        keys: &[u64],
        values: bool,
        mut pick: impl FnMut(&Tuple<'_>) -> Option<T>,
    ) -> Vec<Option<T>> {
        let zones = self.zones_now();
        let len = zones.len();
        let exact = self.subject_is();
        let n = keys.len();
        let mut lists: Vec<Positions<'_>> = Vec::with_capacity(n);
        let mut found = Vec::with_capacity(n);
        for step in 0..n + HEAD_AHEAD {
            // The key `ahead` places after the one read at this step.
            let at = |ahead: usize| (step + ahead).checked_sub(HEAD_AHEAD).filter(|&k| k < n);
            if let Some(k) = at(HEAD_AHEAD) {
                self.by_s.prefetch(keys[k]);
            }
            if let Some(k) = at(LIST_AHEAD) {
                let list = self.by_s.get(keys[k], &self.zones);
                list.prefetch();
                lists.push(list);
            }
            if let Some(k) = at(ZONE_AHEAD) {
                let mut last = usize::MAX;
                for (z, _) in first_rows(&lists[k], len) {
                    if z != last {
                        zones.zone(z).prefetch_header();
                        last = z;
                    }
                }
            }
            if let Some(k) = at(ROW_AHEAD) {
                for (z, slot) in first_rows(&lists[k], len) {
                    let zone = zones.zone(z);
                    zone.prefetch_row(slot);
                    if values {
                        zone.prefetch_hint(slot);
                    }
                }
            }
            if let Some(k) = at(0) {
                let key = keys[k];
                let first = lists[k].clone().filter(|&i| i < len).find_map(|i| {
                    let (z, slot) = split(i);
                    let t = zones.zone(z).tuple(slot, self.sid_base);
                    if exact(key, &t) {
                        pick(&t)
                    } else {
                        None
                    }
                });
                found.push(first);
            }
        }
        found
    }
}

/// `(zone, slot)` of the first [`FIRST_ROWS`] positions of `positions`
/// below `len`.
fn first_rows<'a>(
    positions: &Positions<'a>,
    len: u32,
) -> impl Iterator<Item = (usize, usize)> + 'a {
    positions
        .clone()
        .take(FIRST_ROWS)
        .filter(move |&i| i < len)
        .map(split)
}
