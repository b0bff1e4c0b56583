//! `Merge` (MERGE): for each input row, in order, the pattern's read plan
//! runs with the row as its argument; its matches are emitted (after ON
//! MATCH SET), or when there are none the pattern is created (then ON
//! CREATE SET) and that one row emitted.
//!
//! The input is drained first, like every updating operator. Rows are then
//! handled one after the other, each read running after the previous row's
//! writes: a later row finds what an earlier row created, as openCypher
//! requires (`UNWIND [1, 1] AS x MERGE (:N {x: x})` creates one node).

use super::create::Create;
use super::set::SetProperties;
use super::writes::RowWriter;
use super::{build, drain, Operator, RowEmitter};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use nereid_planner::{CreateItem, Op, OwnedPlan, SetItem};
use nereid_values::Value;

pub(crate) struct Merge {
    input: Box<dyn Operator>,
    /// Owned, so dropped without recursion (`OwnedPlan`).
    pattern: OwnedPlan,
    /// Statistics id of the pattern plan's root (see `build`).
    pattern_first_id: usize,
    create: Create,
    on_create: SetProperties,
    on_match: SetProperties,
    output: Option<RowEmitter>,
}

impl Merge {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        pattern: Op,
        pattern_first_id: usize,
        create: Vec<CreateItem>,
        on_create: Vec<SetItem>,
        on_match: Vec<SetItem>,
    ) -> Merge {
        Merge {
            input,
            pattern: OwnedPlan::new(pattern),
            pattern_first_id,
            create: Create { items: create },
            on_create: SetProperties { items: on_create },
            on_match: SetProperties { items: on_match },
            output: None,
        }
    }

    /// The output rows of one input row.
    fn merge_row(&mut self, row: Vec<Value>, ctx: &mut ExecContext) -> ExecResult<Vec<Vec<Value>>> {
        let mut reader = build(&self.pattern, self.pattern_first_id, Some(row.clone()));
        let matched: Vec<Vec<Value>> = drain(reader.as_mut(), ctx)?
            .0
            .into_iter()
            .flat_map(Batch::into_active_rows)
            .collect();
        if matched.is_empty() {
            let mut batch = Batch::from_rows(ctx.slot_count, [row]);
            self.check_no_null_property(&batch, ctx)?;
            self.create.write_row(&mut batch, 0, ctx)?;
            self.on_create.write_row(&mut batch, 0, ctx)?;
            return Ok(batch.into_active_rows());
        }
        if self.on_match.items.is_empty() {
            return Ok(matched);
        }
        let mut batch = Batch::from_rows(ctx.slot_count, matched);
        for r in 0..batch.physical_len() {
            self.on_match.write_row(&mut batch, r, ctx)?;
        }
        Ok(batch.into_active_rows())
    }

    /// MERGE cannot create an entity with a null property: the pattern
    /// could never match what it created.
    fn check_no_null_property(&self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        for item in &self.create.items {
            let (properties, what) = match item {
                CreateItem::Node { properties, .. } => (properties, "node"),
                CreateItem::Rel { properties, .. } => (properties, "relationship"),
            };
            for (key, expr) in properties {
                if ctx.evaluator().eval_row(expr, batch, 0)?.is_null() {
                    return Err(ExecError::Semantic(format!(
                        "MergeReadOwnWrites: Cannot merge the following {what} because of null property value for '{key}'"
                    )));
                }
            }
        }
        Ok(())
    }
}

impl Operator for Merge {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.output.is_none() {
            let (batches, _held) = drain(self.input.as_mut(), ctx)?;
            let rows: Vec<Vec<Value>> = batches
                .into_iter()
                .flat_map(Batch::into_active_rows)
                .collect();
            let mut out = Vec::new();
            for row in rows {
                out.extend(self.merge_row(row, ctx)?);
            }
            self.output = Some(RowEmitter::new(out));
        }
        Ok(self.output.as_mut().and_then(|o| o.next_batch(ctx)))
    }
}
