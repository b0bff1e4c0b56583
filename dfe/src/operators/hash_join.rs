//! `HashJoin`: the rows of the left input joined with the rows of the right
//! plan on equal keys (planner rule `hash_join`, docs/adr/0144-hash-join.md).
//!
//! One side (the planner's choice: the one estimated smaller) is read whole
//! and its batches kept as they came, with a hash table from each row's key
//! to its (batch, row); the other side streams, its keys evaluated a batch
//! at a time, and each of its rows is looked up once. The kept batches, the
//! keys and the table's entries are charged to the query's memory budget,
//! so a build side too large for it ends the query with the memory error.
//!
//! Equality is Cypher's `=`: a key holding a null anywhere (or NaN) never
//! matches, and `1` matches `1.0` (the values' hashing already treats
//! integral floats as integers); a candidate from the table is confirmed
//! with `cypher_eq`. An output row is always the left row with the right
//! side's slots taken from the right row, in the streaming side's order
//! and, per streaming row, the hashed side's order; a left outer join
//! (right side hashed) keeps a left row without a match once, its right
//! slots null.

use super::{drain, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::memory::Reservation;
use nereid_planner::{Expr, HashJoinSpec};
use nereid_values::Value;
use std::collections::HashMap;

/// Bytes a table entry costs besides its key's values (the position, the
/// bucket's vector and the map's slot).
const ENTRY_BYTES: usize = 48;

pub(crate) struct HashJoin {
    left: Box<dyn Operator>,
    right: Box<dyn Operator>,
    spec: HashJoinSpec,
    table: Option<Table>,
    probe: Option<Probe>,
    /// The streaming side ended.
    done: bool,
}

/// The hashed side.
struct Table {
    batches: Vec<Batch>,
    /// Key -> positions (batch, physical row) in arrival order.
    index: HashMap<Vec<Value>, Vec<(u32, u32)>>,
    /// The batches', keys' and entries' charge.
    _held: Reservation,
}

/// The streaming batch being joined.
struct Probe {
    batch: Batch,
    /// Per active row (selection order): its key, `None` when it can match
    /// nothing.
    keys: Vec<Option<Vec<Value>>>,
    /// Position in the selection, and in that row's matches.
    position: usize,
    matched: usize,
}

impl HashJoin {
    pub(crate) fn new(
        left: Box<dyn Operator>,
        right: Box<dyn Operator>,
        spec: HashJoinSpec,
    ) -> HashJoin {
        HashJoin {
            left,
            right,
            spec,
            table: None,
            probe: None,
            done: false,
        }
    }

    /// Reads the hashed side whole.
    fn build(&mut self, ctx: &mut ExecContext) -> ExecResult<Table> {
        let (side, exprs) = if self.spec.build_left {
            (&mut self.left, &self.spec.left_keys)
        } else {
            (&mut self.right, &self.spec.right_keys)
        };
        let (batches, mut held) = drain(side.as_mut(), ctx)?;
        let mut index: HashMap<Vec<Value>, Vec<(u32, u32)>> = HashMap::new();
        for (b, batch) in batches.iter().enumerate() {
            let keys = keys_of(batch, exprs, ctx)?;
            let mut bytes = 0usize;
            for (key, &row) in keys.into_iter().zip(batch.selection()) {
                let Some(key) = key else { continue };
                let position = (position(b), position(row));
                match index.get_mut(&key) {
                    Some(bucket) => bucket.push(position),
                    None => {
                        bytes = bytes.saturating_add(crate::memory::column(&key));
                        index.insert(key, vec![position]);
                    }
                }
                bytes = bytes.saturating_add(ENTRY_BYTES);
            }
            held.grow(bytes)?;
        }
        Ok(Table {
            batches,
            index,
            _held: held,
        })
    }

    /// The next streaming batch with its keys; `None` at the end.
    fn next_probe(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Probe>> {
        let (side, exprs) = if self.spec.build_left {
            (&mut self.right, &self.spec.right_keys)
        } else {
            (&mut self.left, &self.spec.left_keys)
        };
        let Some(batch) = side.next(ctx)? else {
            return Ok(None);
        };
        let keys = keys_of(&batch, exprs, ctx)?;
        Ok(Some(Probe {
            batch,
            keys,
            position: 0,
            matched: 0,
        }))
    }
}

fn position(index: usize) -> u32 {
    u32::try_from(index).expect("batches and their rows are counted in u32")
}

/// Each active row's key (selection order): `None` when a part of it is
/// not equal to itself under Cypher's `=` (null, NaN, a list holding a
/// null), since such a key matches nothing.
fn keys_of(
    batch: &Batch,
    exprs: &[Expr],
    ctx: &mut ExecContext,
) -> ExecResult<Vec<Option<Vec<Value>>>> {
    let rows = batch.selection();
    let mut columns = Vec::with_capacity(exprs.len());
    for expr in exprs {
        columns.push(ctx.evaluator().eval(expr, batch, rows)?.into_iter());
    }
    Ok(rows
        .iter()
        .map(|_| {
            let key: Vec<Value> = columns
                .iter_mut()
                .map(|c| c.next().unwrap_or_default())
                .collect();
            key.iter()
                .all(|v| v.cypher_eq(v) == Some(true))
                .then_some(key)
        })
        .collect())
}

/// Whether two keys are equal under Cypher's `=` (the table found them
/// equal as grouping keys).
fn equal(a: &[Value], b: &[Value]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.cypher_eq(y) == Some(true))
}

impl Operator for HashJoin {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.table.is_none() {
            let table = self.build(ctx)?;
            // Nothing to join with: an inner join has no rows, and the
            // streaming side need not be read.
            if table.index.is_empty() && !self.spec.outer {
                self.done = true;
            }
            self.table = Some(table);
        }
        let mut out = Batch::new(ctx.slot_count);
        while !self.done && out.active_len() < ctx.batch_size {
            if self.probe.is_none() {
                self.probe = self.next_probe(ctx)?;
                if self.probe.is_none() {
                    self.done = true;
                    break;
                }
            }
            let (Some(table), Some(probe)) = (&self.table, &mut self.probe) else {
                break;
            };
            join_rows(table, probe, &self.spec, &mut out, ctx.batch_size);
            if probe.position >= probe.keys.len() {
                self.probe = None;
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }
}

/// Joins the probe's rows from where it stopped until `out` holds `limit`
/// rows or the probe is used up.
fn join_rows(table: &Table, probe: &mut Probe, spec: &HashJoinSpec, out: &mut Batch, limit: usize) {
    while probe.position < probe.keys.len() {
        let row = probe.batch.selection()[probe.position];
        let matches: &[(u32, u32)] = match &probe.keys[probe.position] {
            Some(key) => match table.index.get_key_value(key) {
                Some((found, bucket)) if equal(found, key) => bucket,
                _ => &[],
            },
            None => &[],
        };
        while probe.matched < matches.len() {
            if out.active_len() >= limit {
                return;
            }
            let (b, r) = matches[probe.matched];
            let stored = &table.batches[b as usize];
            let r = r as usize;
            if spec.build_left {
                // The stored row is the left one.
                let overrides = take_slots(&probe.batch, row, spec);
                out.push_extended(stored, r, &overrides);
            } else {
                let overrides = take_slots(stored, r, spec);
                out.push_extended(&probe.batch, row, &overrides);
            }
            probe.matched += 1;
        }
        if matches.is_empty() && spec.outer {
            if out.active_len() >= limit {
                return;
            }
            let nulls: Vec<(usize, Value)> =
                spec.right_slots.iter().map(|&s| (s, Value::Null)).collect();
            out.push_extended(&probe.batch, row, &nulls);
        }
        probe.position += 1;
        probe.matched = 0;
    }
}

/// The right side's slots of a right row.
fn take_slots(right: &Batch, row: usize, spec: &HashJoinSpec) -> Vec<(usize, Value)> {
    spec.right_slots
        .iter()
        .map(|&s| (s, right.value(s, row).clone()))
        .collect()
}
