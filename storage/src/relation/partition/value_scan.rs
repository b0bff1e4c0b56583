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
        let types = [key];
        let mut examined = 0;
        // Whether the value of a visible slot whose P is `key` passes.
        let mut passes = |zone: &Zone, slot: usize| {
            let (flag, payload) = (zone.flag(slot), zone.object(slot));
            match test.and_then(|t| t.decide(flag, payload)) {
                Some(pass) => pass,
                None => fallback(Encoded {
                    o: TypedValue { flag, payload },
                    hint: zone.hint(slot),
                }),
            }
        };
        for (z, zone, len) in self.zones() {
            if !self.may_have_type(z, Some(&types)) || !zone.may_be_visible(view) {
                continue;
            }
            examined += len as u64;
            if let Some(p) = zone.frozen_predicates(view) {
                let mut sel = zone.live_selection(len);
                select_types(&mut sel, &p, &types);
                for slot in selected(&sel) {
                    if passes(zone, slot) {
                        sink(zone.subject(slot));
                    }
                }
                continue;
            }
            for slot in 0..len {
                if zone.predicate(slot) == key && zone.visible(slot, view) && passes(zone, slot) {
                    sink(zone.subject(slot));
                }
            }
        }
        examined
    }
}
