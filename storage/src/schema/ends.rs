//! Reading an index from one end: the values of the entities it holds, in
//! key order from the lowest (or the highest) entry, each decided in the
//! reader's view as a seek decides its candidates (the entity's current
//! key must be exactly the entry's), so a caller sees exactly the values
//! a scan of the label would read, own writes included, in key order.
//! What `min`/`max` read (dfe's `NodeIndexMinMax`), stopping early.

use super::image::{key_of, resolved_values, Resolved};
use super::index::PropertyIndex;
use crate::txn::Reader;
use nereid_values::Value;
use std::ops::Bound;

/// Hands `visit` the key values of `index`'s visible entities from the
/// lowest entry up (`descending`: from the highest down) until it answers
/// `false`. `None` (nothing read) while the index holds a date beyond
/// chrono's range: that class sits apart from `ORDER BY`'s order of
/// classes, so key order is not value order across it.
pub(crate) fn from_end(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    descending: bool,
    visit: &mut dyn FnMut(&[Value]) -> bool,
) -> Option<()> {
    if index.wide.load(std::sync::atomic::Ordering::Relaxed) > 0 {
        return None;
    }
    let resolved = Resolved::of(reader.store, index);
    index.scan(
        Bound::Unbounded,
        Bound::Unbounded,
        descending,
        |candidate, entity| {
            let Some(values) = resolved_values(reader, index, &resolved, entity) else {
                return true;
            };
            let current = key_of(index.def.kind, &values);
            if current.is_some_and(|k| k.bytes == candidate) {
                visit(&values)
            } else {
                true
            }
        },
    );
    Some(())
}
