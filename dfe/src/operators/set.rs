//! `SetProperties`: SET and REMOVE items, applied row by row and item by
//! item (a later item sees the effect of an earlier one). Null targets are
//! ignored; a null property value removes the property.

use super::writes::{check_storable, RowWriter};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{type_mismatch, ExecResult};
use crate::eval::dynamic_names::{names_of, NameKind};
use nereid_planner::SetItem;
use nereid_storage::Txn;
use nereid_values::{NodeId, RelId, Value};
use std::collections::BTreeMap;

pub(crate) struct SetProperties {
    pub(crate) items: Vec<SetItem>,
}

/// A node or relationship whose properties are written.
#[derive(Copy, Clone)]
enum Entity {
    Node(NodeId),
    Rel(RelId),
}

impl Entity {
    /// `None` for null (ignored), an error for non-entities.
    fn from_value(value: &Value) -> ExecResult<Option<Entity>> {
        match value {
            Value::Null => Ok(None),
            Value::Node(id) => Ok(Some(Entity::Node(*id))),
            Value::Relationship(id) => Ok(Some(Entity::Rel(*id))),
            other => Err(type_mismatch("Node or Relationship", other)),
        }
    }

    fn set(self, txn: &Txn, key: &str, value: Value) -> ExecResult<()> {
        check_storable(key, &value)?;
        match self {
            Entity::Node(id) => txn.set_node_property(id, key, value)?,
            Entity::Rel(id) => txn.set_rel_property(id, key, value)?,
        }
        Ok(())
    }

    /// Sets (null: removes) many keys in one storage call, which reads the
    /// entity's properties once: one call per key walked them per key, and
    /// a map of 100,000 keys took a minute.
    fn set_all(
        self,
        txn: &Txn,
        properties: impl IntoIterator<Item = (String, Value)>,
    ) -> ExecResult<()> {
        match self {
            Entity::Node(id) => txn.set_node_properties(id, properties)?,
            Entity::Rel(id) => txn.set_rel_properties(id, properties)?,
        }
        Ok(())
    }

    fn properties(self, txn: &Txn) -> BTreeMap<String, Value> {
        match self {
            Entity::Node(id) => txn.node_properties(id),
            Entity::Rel(id) => txn.rel_properties(id),
        }
    }
}

/// The properties a `SET t = x` / `SET t += x` right-hand side stands for:
/// a map, or the properties of a node or relationship. Null is no map.
fn source_map(value: Value, txn: &Txn) -> ExecResult<BTreeMap<String, Value>> {
    match value.into_map() {
        Ok(map) => Ok(map),
        Err(Value::Null) => Ok(BTreeMap::new()),
        Err(Value::Node(id)) => Ok(txn.node_properties(id)),
        Err(Value::Relationship(id)) => Ok(txn.rel_properties(id)),
        Err(other) => Err(type_mismatch("Map", &other)),
    }
}

/// The static labels and those the dynamic expressions name for this row
/// (`SET n:$(expr)`, `CREATE (n:$(expr))`): each a string or a list of
/// strings, as in Neo4j 5.26; anything else is refused before any is
/// written.
pub(crate) fn with_dynamic(
    labels: &[String],
    dynamic: &[nereid_planner::Expr],
    ctx: &mut ExecContext,
    batch: &Batch,
    row: usize,
) -> ExecResult<Vec<String>> {
    let mut all = labels.to_vec();
    for expr in dynamic {
        let value = ctx.evaluator().eval_row(expr, batch, row)?;
        all.extend(names_of(value, NameKind::Label)?);
    }
    Ok(all)
}

fn node_target(value: &Value) -> ExecResult<Option<NodeId>> {
    match value {
        Value::Null => Ok(None),
        Value::Node(id) => Ok(Some(*id)),
        other => Err(type_mismatch("Node", other)),
    }
}

impl RowWriter for SetProperties {
    fn write_row(
        &mut self,
        batch: &mut Batch,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<()> {
        for item in &self.items {
            match item {
                SetItem::Property { target, key, value } => {
                    let target = ctx.evaluator().eval_row(target, batch, row)?;
                    let value = ctx.evaluator().eval_row(value, batch, row)?;
                    if let Some(entity) = Entity::from_value(&target)? {
                        entity.set(&ctx.txn, key, value)?;
                    }
                }
                SetItem::ReplaceProperties { target, map } => {
                    let target = ctx.evaluator().eval_row(target, batch, row)?;
                    let map = ctx.evaluator().eval_row(map, batch, row)?;
                    let Some(entity) = Entity::from_value(&target)? else {
                        continue;
                    };
                    let new = source_map(map, &ctx.txn)?;
                    for (key, value) in &new {
                        check_storable(key, value)?;
                    }
                    let removed: Vec<(String, Value)> = entity
                        .properties(&ctx.txn)
                        .into_keys()
                        .filter(|key| !new.contains_key(key))
                        .map(|key| (key, Value::Null))
                        .collect();
                    entity.set_all(&ctx.txn, removed.into_iter().chain(new))?;
                }
                SetItem::MergeProperties { target, map } => {
                    let target = ctx.evaluator().eval_row(target, batch, row)?;
                    let map = ctx.evaluator().eval_row(map, batch, row)?;
                    let Some(entity) = Entity::from_value(&target)? else {
                        continue;
                    };
                    let new = source_map(map, &ctx.txn)?;
                    for (key, value) in &new {
                        check_storable(key, value)?;
                    }
                    entity.set_all(&ctx.txn, new)?;
                }
                SetItem::AddLabels {
                    target,
                    labels,
                    dynamic,
                } => {
                    let target = ctx.evaluator().eval_row(target, batch, row)?;
                    let labels = with_dynamic(labels, dynamic, ctx, batch, row)?;
                    if let Some(id) = node_target(&target)? {
                        for label in &labels {
                            ctx.txn.add_label(id, label)?;
                        }
                    }
                }
                SetItem::RemoveLabels {
                    target,
                    labels,
                    dynamic,
                } => {
                    let target = ctx.evaluator().eval_row(target, batch, row)?;
                    let labels = with_dynamic(labels, dynamic, ctx, batch, row)?;
                    if let Some(id) = node_target(&target)? {
                        for label in &labels {
                            ctx.txn.remove_label(id, label)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
