//! `db.schema.visualization`: the schema as a graph of virtual entities,
//! as Neo4j Browser and Bloom draw it. One node per label, with `name`, the
//! label's indexes (each its property keys joined with `,`; indexes that
//! back a constraint are shown as the constraint) and its constraints (in
//! Neo4j's description form); one relationship per (start label, type, end
//! label) met, with `name`. Neo4j reads its count store and may show pairs
//! that do not occur; the counting here is exact (`apoc_meta_graph.rs`).

use super::apoc_meta_graph::{count, virtual_graph, Selection};
use super::schema_names::{constraint_type, shown_id};
use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::{ConstraintInfo, EntityKind, SchemaView, Txn};
use nereid_values::Value;
use std::collections::BTreeMap;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "db.schema.visualization",
    inputs: &[],
    outputs: &["nodes", "relationships"],
    description: "Visualizes the schema of the data based on available statistics. A new node is returned for each label. The properties represented on the node include: `name` (label name), `indexes` (list of indexes), and `constraints` (list of constraints). A relationship of a given type is returned for all possible combinations of start and end nodes. The properties represented on the relationship include: `name` (type name). Note that this may include additional relationships that do not exist in the data due to the information available in the count store. ",
    mode: "READ",
    body: visualization,
}];

fn visualization(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let schema = txn.schema();
    Ok(vec![virtual_graph(
        count(txn, &Selection::default()),
        |label, _| {
            BTreeMap::from([
                ("name".to_string(), Value::from(label)),
                ("indexes".to_string(), indexes_of(&schema, label)),
                ("constraints".to_string(), constraints_of(&schema, label)),
            ])
        },
        |rel_type, _| BTreeMap::from([("name".to_string(), Value::from(rel_type))]),
    )])
}

/// The node indexes on `label` that back no constraint, as their keys.
fn indexes_of(schema: &SchemaView, label: &str) -> Value {
    let keys: Vec<Value> = schema
        .indexes
        .iter()
        .filter(|i| i.owning_constraint.is_none() && i.def.entity == EntityKind::Node)
        .filter(|i| i.def.labels().any(|l| l == label))
        .map(|i| Value::from(i.def.keys.join(",").as_str()))
        .collect();
    Value::List(keys.into())
}

/// The node constraints on `label`, described as Neo4j describes them.
fn constraints_of(schema: &SchemaView, label: &str) -> Value {
    let described: Vec<Value> = schema
        .constraints
        .iter()
        .filter(|c| c.def.entity == EntityKind::Node && c.def.label == label)
        .map(|c| Value::from(describe(schema, c).as_str()))
        .collect();
    Value::List(described.into())
}

fn describe(schema: &SchemaView, c: &ConstraintInfo) -> String {
    let owned = c
        .owned_index
        .as_ref()
        .and_then(|name| schema.indexes.iter().find(|i| &i.def.name == name))
        .map(|i| format!(", ownedIndex={}", shown_id(i.id)))
        .unwrap_or_default();
    format!(
        "Constraint( id={}, name='{}', type='{}', schema=(:{} {{{}}}){owned} )",
        shown_id(c.id),
        c.def.name,
        constraint_type(&c.def),
        c.def.label,
        c.def.keys.join(", "),
    )
}
