//! `Create`: creates the nodes and relationships of a CREATE pattern for
//! each row and binds them to their slots. Items are created in order, so a
//! later item's properties may read an earlier item of the same row.

use super::writes::{check_storable, RowWriter};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::eval::dynamic_names::single_type;
use nereid_planner::{CreateItem, Expr, RelTypeName};
use nereid_values::Value;
use std::collections::BTreeMap;

pub(crate) struct Create {
    pub(crate) items: Vec<CreateItem>,
}

/// Evaluates a property map for one row: null values are skipped (a null
/// property does not exist), unstorable values are type errors.
fn property_map(
    properties: &[(String, Expr)],
    batch: &Batch,
    row: usize,
    ctx: &mut ExecContext,
) -> ExecResult<BTreeMap<String, Value>> {
    let mut map = BTreeMap::new();
    for (key, expr) in properties {
        let value = ctx.evaluator().eval_row(expr, batch, row)?;
        check_storable(key, &value)?;
        if !value.is_null() {
            map.insert(key.clone(), value);
        }
    }
    Ok(map)
}

fn endpoint(
    batch: &Batch,
    slot: usize,
    row: usize,
    rel_type: &str,
) -> ExecResult<nereid_values::NodeId> {
    match batch.value(slot, row) {
        Value::Node(id) => Ok(*id),
        Value::Null => Err(ExecError::Argument(format!(
            "Failed to create relationship of type `{rel_type}`: an endpoint node is missing (null)"
        ))),
        other => Err(crate::error::type_mismatch("Node", other)),
    }
}

impl RowWriter for Create {
    fn write_row(
        &mut self,
        batch: &mut Batch,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<()> {
        for item in &self.items {
            match item {
                CreateItem::Node {
                    out,
                    labels,
                    dynamic,
                    properties,
                } => {
                    let labels = super::set::with_dynamic(labels, dynamic, ctx, batch, row)?;
                    let properties = property_map(properties, batch, row, ctx)?;
                    let id = ctx.txn.create_node(&labels, &properties)?;
                    batch.set(*out, row, Value::Node(id));
                }
                CreateItem::Rel {
                    out,
                    from,
                    to,
                    rel_type,
                    properties,
                } => {
                    let rel_type = match rel_type {
                        RelTypeName::Static(name) => name.clone(),
                        RelTypeName::Dynamic(expr) => {
                            single_type(ctx.evaluator().eval_row(expr, batch, row)?)?
                        }
                    };
                    let src = endpoint(batch, *from, row, &rel_type)?;
                    let dst = endpoint(batch, *to, row, &rel_type)?;
                    let properties = property_map(properties, batch, row, ctx)?;
                    let id = ctx.txn.create_rel(src, dst, &rel_type, &properties)?;
                    batch.set(*out, row, Value::Relationship(id));
                }
            }
        }
        Ok(())
    }
}
