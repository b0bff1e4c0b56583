//! One relationship property of one grid cell, read in one scan of the
//! cell's REL_EP partition: what a caller reading a whole graph with its
//! edges' weights (an algorithm's CSR view) looks its edges up in, beside
//! the same cell's edge scan, instead of searching the partition's sorted
//! runs once per relationship.
//!
//! A relationship's statement id is its cell's base plus a partition-local
//! number handed out in sequence, and its properties live in the same
//! cell: the values are kept in a vector indexed by that number.

use super::Apl;
use crate::ids::{make_sid, TAG_E};
use nereid_values::{RelId, Value};

/// The values of one property of the relationships of one cell, as the
/// snapshot sees them.
#[derive(Debug, Default)]
pub struct CellProperty {
    base: u64,
    values: Vec<Option<Value>>,
}

impl CellProperty {
    /// The value of a relationship of this cell (`None`: it has no such
    /// property, or it is not a visible relationship of the cell).
    pub fn get(&self, rel: RelId) -> Option<&Value> {
        let local = rel.0.checked_sub(self.base)?;
        self.values.get(usize::try_from(local).ok()?)?.as_ref()
    }
}

impl Apl<'_> {
    /// Property `key` of every visible relationship of grid cell `cell`
    /// (`cell <` [`Apl::cells`]; the same cells as
    /// [`Apl::edges_in_cell`]).
    pub fn rel_property_in_cell(&self, cell: usize, key: &str) -> CellProperty {
        let store = self.reader.store;
        let mut column = CellProperty {
            base: make_sid(TAG_E, cell, 0),
            values: Vec::new(),
        };
        let (Some(key_id), Some(scan)) = (store.keys.lookup(key), store.ep.scan(cell)) else {
            return column;
        };
        let base = column.base;
        let values = &mut column.values;
        // The relationships numbered so far: the cell's, in the usual case.
        values.reserve(store.e.next_local(cell) as usize);
        scan.key_values(&self.reader.view, key_id, |rel, o| {
            let Some(local) = rel.checked_sub(base).map(|l| l as usize) else {
                return;
            };
            if values.len() <= local {
                values.resize(local + 1, None);
            }
            values[local] = o.decode(&store.literals);
        });
        column
    }
}
