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
/// snapshot sees them, each as the caller mapped it (`T`; by default the
/// value itself, `None` where a relationship has none).
#[derive(Debug, Default)]
pub struct CellProperty<T = Option<Value>> {
    base: u64,
    values: Vec<T>,
}

impl<T> CellProperty<T> {
    /// The slot of a relationship of this cell (`None`: it is not a
    /// relationship the scan numbered; the slot holds the caller's
    /// `absent` when it has no such property or is not visible).
    pub fn slot(&self, rel: RelId) -> Option<&T> {
        let local = rel.0.checked_sub(self.base)?;
        self.values.get(usize::try_from(local).ok()?)
    }
}

impl CellProperty {
    /// The value of a relationship of this cell (`None`: it has no such
    /// property, or it is not a visible relationship of the cell).
    pub fn get(&self, rel: RelId) -> Option<&Value> {
        self.slot(rel)?.as_ref()
    }
}

impl Apl<'_> {
    /// Property `key` of every visible relationship of grid cell `cell`
    /// (`cell <` [`Apl::cells`]; the same cells as
    /// [`Apl::edges_in_cell`]).
    pub fn rel_property_in_cell(&self, cell: usize, key: &str) -> CellProperty {
        self.rel_property_in_cell_as(cell, key, None, Some)
    }

    /// [`Apl::rel_property_in_cell`] with each value mapped by `read` as
    /// it is decoded and `absent` where there is none: a caller that
    /// needs a number per relationship (a view's weights) keeps 8 bytes
    /// per relationship instead of a whole `Value`, whose fresh pages were
    /// most of a weighted view's build time.
    pub fn rel_property_in_cell_as<T: Clone>(
        &self,
        cell: usize,
        key: &str,
        absent: T,
        mut read: impl FnMut(Value) -> T,
    ) -> CellProperty<T> {
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
        // Sized once: growing by one slot per value cost a call per edge.
        values.resize(store.e.next_local(cell) as usize, absent.clone());
        scan.key_values(&self.reader.view, key_id, |rel, o| {
            let Some(local) = rel.checked_sub(base).map(|l| l as usize) else {
                return;
            };
            if values.len() <= local {
                values.resize(local + 1, absent.clone());
            }
            if let Some(value) = o.decode(&store.literals) {
                values[local] = read(value);
            }
        });
        column
    }
}
