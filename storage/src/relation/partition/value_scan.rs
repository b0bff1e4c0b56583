//! The relation scan of a value relation (REL_EP, REL_VP) for one property
//! key with a test on the value: zone by zone, column by column, passing
//! over zones whose tuples all have another key, with the comparison
//! decided on the stored type flag and bits where a [`ValueTest`] can
//! (module `apl::value_test`), so the common case builds no tuple view,
//! decodes no value and calls no closure per tuple. In a frozen zone the
//! key is found as a bit vector over the P column (module `select`) and
//! only those slots are read further; other zones go row by row. (Deciding
//! the selected slots' values 64 at a time as well, without a branch per
//! slot, measured no faster: `storage/value_scan_vertex_property` 12.3 ms
//! either way, 13.2 ms without the bit vector.)

use super::PartitionScan;
use crate::mvcc::View;
use crate::relation::select::{select_types, selected};
use crate::relation::zone::Zone;
use crate::typed_value::{Encoded, TypedValue};
use crate::value_test::ValueTest;

impl PartitionScan {
    /// Calls `sink(s)` for every tuple visible to `view` whose P is `key`
    /// and whose O passes: `test` where it decides the value's type,
    /// `fallback` otherwise. Returns the slots examined (passed-over zones
    /// not counted).
    pub(crate) fn scan_values(
        &self,
        view: &View,
        key: u32,
        test: Option<&ValueTest>,
        mut fallback: impl FnMut(Encoded) -> bool,
        mut sink: impl FnMut(u64),
    ) -> u64 {
        self.scan_key(view, key, |zone, slot| {
            let (flag, payload) = (zone.flag(slot), zone.object(slot));
            let passes = match test.and_then(|t| t.decide(flag, payload)) {
                Some(pass) => pass,
                None => fallback(encoded(zone, slot)),
            };
            if passes {
                sink(zone.subject(slot));
            }
        })
    }

    /// Calls `sink(s, o)` for every tuple visible to `view` whose P is
    /// `key`: every value of one property in the partition, in one pass.
    pub(crate) fn key_values(&self, view: &View, key: u32, mut sink: impl FnMut(u64, Encoded)) {
        self.scan_key(view, key, |zone, slot| {
            sink(zone.subject(slot), encoded(zone, slot))
        });
    }

    /// Calls `visit(zone, slot)` for every slot visible to `view` whose P
    /// is `key`, passing over zones that hold none. Returns the slots
    /// examined.
    fn scan_key(&self, view: &View, key: u32, mut visit: impl FnMut(&Zone, usize)) -> u64 {
        let types = [key];
        let mut examined = 0;
        for (z, zone, len) in self.zones() {
            if !self.may_have_type(z, Some(&types)) || !zone.may_be_visible(view) {
                continue;
            }
            examined += len as u64;
            if let Some(p) = zone.frozen_predicates(view) {
                let mut sel = zone.live_selection(len);
                select_types(&mut sel, &p, &types);
                for slot in selected(&sel) {
                    visit(zone, slot);
                }
                continue;
            }
            for slot in 0..len {
                if zone.predicate(slot) == key && zone.visible(slot, view) {
                    visit(zone, slot);
                }
            }
        }
        examined
    }
}

/// The stored O of `slot` with its hint.
fn encoded(zone: &Zone, slot: usize) -> Encoded {
    Encoded {
        o: TypedValue {
            flag: zone.flag(slot),
            payload: zone.object(slot),
        },
        hint: zone.hint(slot),
    }
}
