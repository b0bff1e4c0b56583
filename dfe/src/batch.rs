//! Columnar batches: the unit of data exchanged between operators.
//!
//! A batch holds `slot_count` columns of equal physical length plus a
//! *selection vector* listing the physical rows that are still active.
//! Filters only shrink the selection instead of copying columns; operators
//! that build new rows start a fresh batch with every row selected.
//!
//! Invariants: every column has at most `len` values, the rows past its end
//! being null (a slot nothing above reads, or not bound yet, costs nothing
//! per row: copying a row skips it); `selection` is strictly increasing and
//! each entry is `< len`.

use nereid_planner::Slot;
use nereid_values::Value;

/// A set of rows stored column by column.
#[derive(Clone, Debug)]
pub struct Batch {
    columns: Vec<Vec<Value>>,
    len: usize,
    selection: Vec<usize>,
    /// Rows to reserve in a column when its first value arrives (see
    /// [`Batch::with_capacity`]).
    room: usize,
}

/// Equal rows and selection; reserved room, and whether a null is stored
/// or past a column's end, are not content.
impl PartialEq for Batch {
    fn eq(&self, other: &Batch) -> bool {
        (self.len, &self.selection, self.columns.len())
            == (other.len, &other.selection, other.columns.len())
            && (0..self.columns.len()).all(|slot| {
                (0..self.len).all(|row| self.value(slot, row) == other.value(slot, row))
            })
    }
}

/// Stores `value` into physical row `row` of `column`, storing the nulls
/// before it first (the column may end before `row`); a column's first
/// value reserves `room` rows (see [`Batch::with_capacity`]).
fn put(column: &mut Vec<Value>, row: usize, room: usize, value: Value) {
    if let Some(cell) = column.get_mut(row) {
        *cell = value;
        return;
    }
    if column.capacity() == 0 && room > 0 {
        column.reserve(room);
    }
    if column.len() < row {
        column.resize(row, Value::Null);
    }
    column.push(value);
}

impl Batch {
    /// An empty batch with `slot_count` columns.
    pub fn new(slot_count: usize) -> Batch {
        Batch {
            columns: vec![Vec::new(); slot_count],
            len: 0,
            selection: Vec::new(),
            room: 0,
        }
    }

    /// An empty batch that reserves room for `rows` rows in a column when
    /// its first value arrives (an operator filling a batch row by row then
    /// never regrows a column). Not before: every operator of a pipeline
    /// holds its empty output batch while it pulls its input, and a 200-hop
    /// pattern is hundreds of operators over hundreds of slots (3.7 GB
    /// reserved at once for rows that never came); nor in a column that
    /// stays null.
    pub fn with_capacity(slot_count: usize, rows: usize) -> Batch {
        Batch {
            room: rows,
            ..Batch::new(slot_count)
        }
    }

    /// Reserves the selection's room [`Batch::with_capacity`] promised,
    /// before the first row (each column reserves its own in [`put`]).
    fn reserve_room(&mut self) {
        if self.len == 0 && self.room > 0 {
            self.selection.reserve(self.room);
        }
    }

    /// A batch from rows (each of `slot_count` values; missing values are null).
    pub fn from_rows(slot_count: usize, rows: impl IntoIterator<Item = Vec<Value>>) -> Batch {
        let mut batch = Batch::new(slot_count);
        for row in rows {
            batch.push_row(row);
        }
        batch
    }

    /// Bytes the batch's values occupy (every physical row), for the query's
    /// memory budget.
    pub fn footprint(&self) -> usize {
        self.columns
            .iter()
            .map(|column| crate::memory::column(column))
            .fold(0usize, usize::saturating_add)
    }

    /// Number of columns (the plan's slot count).
    pub fn slot_count(&self) -> usize {
        self.columns.len()
    }

    /// Physical row indexes that are active, in order.
    pub fn selection(&self) -> &[usize] {
        &self.selection
    }

    /// Number of active rows.
    pub fn active_len(&self) -> usize {
        self.selection.len()
    }

    /// True when no row is active.
    pub fn is_empty(&self) -> bool {
        self.selection.is_empty()
    }

    /// Physical number of rows (active or not).
    pub fn physical_len(&self) -> usize {
        self.len
    }

    /// Replaces the selection; the new one must be a strictly increasing
    /// subset of physical rows (operators only ever narrow it).
    pub fn set_selection(&mut self, selection: Vec<usize>) {
        debug_assert!(selection.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(selection.iter().all(|&r| r < self.len));
        self.selection = selection;
    }

    /// Keeps only the first `n` active rows.
    pub fn truncate_active(&mut self, n: usize) {
        self.selection.truncate(n);
    }

    /// Drops the first `n` active rows.
    pub fn skip_active(&mut self, n: usize) {
        let n = n.min(self.selection.len());
        self.selection.drain(..n);
    }

    /// The value in `slot` of physical row `row`; null for an out-of-range
    /// slot so that a malformed plan cannot crash the server.
    pub fn value(&self, slot: usize, row: usize) -> &Value {
        const NULL: &Value = &Value::Null;
        self.columns
            .get(slot)
            .and_then(|column| column.get(row))
            .unwrap_or(NULL)
    }

    /// Overwrites the value in `slot` of physical row `row` (ignored when out
    /// of range, which only a malformed plan can cause).
    pub fn set(&mut self, slot: usize, row: usize, value: Value) {
        if row >= self.len {
            return;
        }
        if let Some(column) = self.columns.get_mut(slot) {
            if row < column.len() || !matches!(value, Value::Null) {
                put(column, row, self.room, value);
            }
        }
    }

    /// Appends an active row; shorter rows are padded with nulls, longer
    /// ones truncated to the slot count.
    pub fn push_row(&mut self, row: Vec<Value>) {
        self.reserve_room();
        let (at, room) = (self.len, self.room);
        for (column, value) in self.columns.iter_mut().zip(row) {
            if !matches!(value, Value::Null) {
                put(column, at, room, value);
            }
        }
        self.selection.push(self.len);
        self.len += 1;
    }

    /// Appends a copy of physical row `row` of `source` with `overrides`
    /// written into their slots.
    pub fn push_extended(&mut self, source: &Batch, row: usize, overrides: &[(usize, Value)]) {
        let mut owned = overrides.to_vec();
        self.push_extended_taking(source, row, &mut owned, &[]);
    }

    /// [`Batch::push_extended`] moving the overriding values out of
    /// `overrides` (leaving nulls): each column gets its override moved
    /// in, or the source's value cloned, so nothing is cloned twice or
    /// dropped at once (the row producers' hot path: a scan's node, an
    /// expand's relationship and node). A slot marked in `dropped` (indexed
    /// by slot; shorter than the row leaves the rest unmarked) and not
    /// overridden is left null: nothing above reads it, and copying a list
    /// into every row unwound from it costs its size per row.
    pub fn push_extended_taking(
        &mut self,
        source: &Batch,
        row: usize,
        overrides: &mut [(usize, Value)],
        dropped: &[bool],
    ) {
        let copied =
            (0..self.columns.len()).filter(|&slot| !dropped.get(slot).copied().unwrap_or(false));
        self.push_copying(source, row, copied, overrides);
    }

    /// The slots of this batch a row copy must visit: those holding a value
    /// in some row (a column no row wrote stays empty) and not marked in
    /// `dropped` (as in [`Batch::push_extended_taking`]). Computed once per
    /// input batch by operators that copy its rows many times, so a copy
    /// visits the few live columns of a wide row, not all of them (a nested
    /// plan's rows are as wide as the whole statement's).
    pub fn copied_slots(&self, dropped: &[bool]) -> Vec<usize> {
        self.columns
            .iter()
            .enumerate()
            .filter(|(slot, column)| {
                !column.is_empty() && !dropped.get(*slot).copied().unwrap_or(false)
            })
            .map(|(slot, _)| slot)
            .collect()
    }

    /// [`Batch::push_extended_taking`] copying only `slots` of the source
    /// row (from [`Batch::copied_slots`] of `source`): any other slot of the
    /// new row is null unless overridden.
    pub fn push_extended_slots(
        &mut self,
        source: &Batch,
        row: usize,
        slots: &[usize],
        overrides: &mut [(usize, Value)],
    ) {
        self.push_copying(source, row, slots.iter().copied(), overrides);
    }

    /// A new row: `slots` of the source row copied, then `overrides`
    /// moved in.
    fn push_copying(
        &mut self,
        source: &Batch,
        row: usize,
        slots: impl Iterator<Item = usize>,
        overrides: &mut [(usize, Value)],
    ) {
        self.reserve_room();
        let (at, room) = (self.len, self.room);
        for slot in slots {
            let (Some(column), Some(value)) = (
                self.columns.get_mut(slot),
                source.columns.get(slot).and_then(|c| c.get(row)),
            ) else {
                continue;
            };
            // A null is left past the column's end: nothing to copy.
            if !matches!(value, Value::Null) {
                put(column, at, room, value.clone());
            }
        }
        // In order, so the last override of a slot wins, as when
        // overwriting in turn.
        for (slot, value) in overrides.iter_mut() {
            if let Some(column) = self.columns.get_mut(*slot) {
                let value = std::mem::take(value);
                if column.len() > at || !matches!(value, Value::Null) {
                    put(column, at, room, value);
                }
            }
        }
        self.selection.push(self.len);
        self.len += 1;
    }

    /// Bytes a copy of `slots` (from [`Batch::copied_slots`]) of physical
    /// row `row` allocates on the heap (0 for a row of scalars, entities and
    /// lists, which a copy shares).
    pub fn row_heap_footprint_of(&self, row: usize, slots: &[usize]) -> usize {
        slots
            .iter()
            .filter_map(|&slot| self.columns.get(slot).and_then(|c| c.get(row)))
            .map(Value::clone_heap_footprint)
            .fold(0usize, usize::saturating_add)
    }

    /// The values of physical row `row`, one per slot.
    pub fn row(&self, row: usize) -> Vec<Value> {
        self.columns
            .iter()
            .map(|column| column.get(row).cloned().unwrap_or(Value::Null))
            .collect()
    }

    /// The values of `slots` in physical row `row`, every other slot null:
    /// the argument row of a nested plan that reads only those.
    pub fn row_of(&self, row: usize, slots: &[Slot]) -> Vec<Value> {
        let mut values = vec![Value::Null; self.columns.len()];
        for &slot in slots {
            if let (Some(value), Some(column)) = (values.get_mut(slot), self.columns.get(slot)) {
                *value = column.get(row).cloned().unwrap_or(Value::Null);
            }
        }
        values
    }

    /// The active rows, materialised (for operators that must buffer rows).
    pub fn into_active_rows(self) -> Vec<Vec<Value>> {
        self.selection.iter().map(|&r| self.row(r)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_narrows_without_copying() {
        let mut batch =
            Batch::from_rows(2, (0..5).map(|i| vec![Value::Int(i), Value::Int(i * 10)]));
        batch.set_selection(vec![1, 3, 4]);
        batch.skip_active(1);
        assert_eq!(batch.selection(), &[3, 4]);
        assert_eq!(batch.physical_len(), 5);
        assert_eq!(
            batch.into_active_rows(),
            vec![
                vec![Value::Int(3), Value::Int(30)],
                vec![Value::Int(4), Value::Int(40)]
            ]
        );
    }

    #[test]
    fn push_extended_copies_and_overrides() {
        let source = Batch::from_rows(3, [vec![Value::Int(1), Value::Int(2)]]);
        let mut out = Batch::new(3);
        out.push_extended(&source, 0, &[(2, Value::from("x"))]);
        assert_eq!(
            out.row(0),
            vec![Value::Int(1), Value::Int(2), Value::from("x")]
        );
        assert_eq!(out.value(7, 0), &Value::Null);
    }

    #[test]
    fn dropped_slots_are_neither_copied_nor_counted() {
        let text = Value::String("x".repeat(100));
        let source = Batch::from_rows(3, [vec![text, Value::Int(2)]]);
        let dropped = [true];
        let footprint =
            |b: &Batch, dropped: &[bool]| b.row_heap_footprint_of(0, &b.copied_slots(dropped));
        assert_eq!(footprint(&source, &dropped), 0);
        assert!(footprint(&source, &[]) > 0);
        // A list is shared by its copies: copying it allocates nothing.
        let list = Value::List((0..100).map(Value::Int).collect());
        let shared = Batch::from_rows(1, [vec![list]]);
        assert_eq!(footprint(&shared, &[]), 0);
        let mut out = Batch::new(3);
        out.push_extended_taking(&source, 0, &mut [(2, Value::Int(7))], &dropped);
        assert_eq!(out.row(0), vec![Value::Null, Value::Int(2), Value::Int(7)]);
        // Overriding a dropped slot still writes it.
        out.push_extended_taking(&source, 0, &mut [(0, Value::Int(1))], &dropped);
        assert_eq!(out.row(1), vec![Value::Int(1), Value::Int(2), Value::Null]);
    }

    #[test]
    fn copying_the_written_slots_makes_the_same_rows_as_copying_all() {
        // Slot 1 is never written, slot 3 only by a later row, slot 2 dropped.
        let mut source = Batch::new(5);
        source.push_row(vec![
            Value::Int(1),
            Value::Null,
            Value::from("x"),
            Value::Null,
        ]);
        source.push_row(vec![
            Value::Int(2),
            Value::Null,
            Value::from("y"),
            Value::Int(7),
        ]);
        let dropped = [false, false, true];
        let slots = source.copied_slots(&dropped);
        assert_eq!(slots, vec![0, 3]);
        for row in 0..2 {
            let (mut all, mut some) = (Batch::new(5), Batch::new(5));
            all.push_extended_taking(&source, row, &mut [(4, Value::Int(9))], &dropped);
            some.push_extended_slots(&source, row, &slots, &mut [(4, Value::Int(9))]);
            assert_eq!(all.row(0), some.row(0));
        }
    }

    #[test]
    fn null_cells_are_not_stored_yet_read_and_written_as_any() {
        // Row 0 nulls in slot 1; row 1 a value there: the column holds nulls
        // up to it once written.
        let mut batch = Batch::from_rows(
            3,
            [
                vec![Value::Int(1), Value::Null, Value::Null],
                vec![Value::Int(2), Value::Int(20)],
            ],
        );
        assert_eq!(batch.value(1, 0), &Value::Null);
        assert_eq!(batch.value(1, 1), &Value::Int(20));
        assert_eq!(batch.value(2, 1), &Value::Null);
        // A write into a column never filled lands in its row.
        batch.set(2, 1, Value::from("x"));
        assert_eq!(
            batch.row(1),
            vec![Value::Int(2), Value::Int(20), Value::from("x")]
        );
        assert_eq!(batch.row(0), vec![Value::Int(1), Value::Null, Value::Null]);
        // Past the rows a write is ignored, as for a malformed slot.
        batch.set(2, 5, Value::Int(5));
        assert_eq!(batch.physical_len(), 2);
        // A copy of a row with a null, then overrides (the last one of a
        // slot wins; a null override clears a copied value).
        let mut out = Batch::new(3);
        out.push_extended_taking(
            &batch,
            0,
            &mut [(1, Value::Int(7)), (1, Value::Int(8)), (0, Value::Null)],
            &[],
        );
        out.push_extended_taking(&batch, 1, &mut [], &[false, true]);
        assert_eq!(out.row(0), vec![Value::Null, Value::Int(8), Value::Null]);
        assert_eq!(
            out.row(1),
            vec![Value::Int(2), Value::Null, Value::from("x")]
        );
        // Stored and unstored nulls are the same content.
        let stored = Batch::from_rows(2, [vec![Value::Null, Value::Int(1)]]);
        let mut unstored = Batch::new(2);
        unstored.push_row(vec![]);
        unstored.set(1, 0, Value::Int(1));
        assert_eq!(stored, unstored);
    }
}
