//! `apoc.create.addLabels` / `removeLabels` / `setProperty` /
//! `setProperties`: SET and REMOVE with labels and keys given as values
//! (LlamaIndex's and neo4j-graphrag's writers label entities by a type
//! they read from data). Each takes a node or a list of nodes and yields
//! every node it changed, in the order given; all arguments are checked
//! before the first write, so a refused call writes nothing.

use super::apoc_args::{arg, failed, names, nodes, properties};
use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::{NodeId, Value};
use std::collections::BTreeMap;

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "apoc.create.addLabels",
        inputs: &[
            ("nodes", ProcedureType::Any),
            ("labels", ProcedureType::List),
        ],
        outputs: &["node"],
        description: "Adds the given labels to the given NODE values.",
        mode: "WRITE",
        body: add_labels,
    },
    Procedure {
        name: "apoc.create.removeLabels",
        inputs: &[
            ("nodes", ProcedureType::Any),
            ("labels", ProcedureType::List),
        ],
        outputs: &["node"],
        description: "Removes the given labels from the given NODE values.",
        mode: "WRITE",
        body: remove_labels,
    },
    Procedure {
        name: "apoc.create.setProperty",
        inputs: &[
            ("nodes", ProcedureType::Any),
            ("key", ProcedureType::String),
            ("value", ProcedureType::Any),
        ],
        outputs: &["node"],
        description: "Sets the given property to the given NODE values.",
        mode: "WRITE",
        body: set_property,
    },
    Procedure {
        name: "apoc.create.setProperties",
        inputs: &[
            ("nodes", ProcedureType::Any),
            ("keys", ProcedureType::List),
            ("values", ProcedureType::List),
        ],
        outputs: &["node"],
        description: "Sets the given properties to the given NODE values.",
        mode: "WRITE",
        body: set_properties,
    },
];

fn yielded(ids: Vec<NodeId>) -> Vec<Vec<Value>> {
    ids.into_iter().map(|id| vec![Value::Node(id)]).collect()
}

fn add_labels(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    change_labels("apoc.create.addLabels", txn, args, Txn::add_label)
}

fn remove_labels(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    change_labels("apoc.create.removeLabels", txn, args, Txn::remove_label)
}

/// Applies `change` (add or remove) for every label on every node.
fn change_labels(
    procedure: &str,
    txn: &Txn,
    args: &[Value],
    change: fn(&Txn, NodeId, &str) -> nereid_storage::Result<()>,
) -> ExecResult<Vec<Vec<Value>>> {
    let ids = nodes(procedure, arg(args, 0))?;
    let labels = names(procedure, arg(args, 1))?;
    for &id in &ids {
        for label in &labels {
            change(txn, id, label)?;
        }
    }
    Ok(yielded(ids))
}

/// Writes `values` (null removes) on every node of `ids`.
fn write_all(txn: &Txn, ids: &[NodeId], values: BTreeMap<String, Value>) -> ExecResult<()> {
    for &id in ids {
        txn.set_node_properties(id, values.clone())?;
    }
    Ok(())
}

fn set_property(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.setProperty";
    let ids = nodes(NAME, arg(args, 0))?;
    let Value::String(key) = arg(args, 1) else {
        return Err(failed(NAME, "the property key must be a string"));
    };
    let entry = BTreeMap::from([(key.clone(), arg(args, 2).clone())]);
    let values = properties(NAME, &Value::Map(entry))?;
    write_all(txn, &ids, values)?;
    Ok(yielded(ids))
}

fn set_properties(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    const NAME: &str = "apoc.create.setProperties";
    let ids = nodes(NAME, arg(args, 0))?;
    let keys = names(NAME, arg(args, 1))?;
    let values: &[Value] = match arg(args, 2) {
        Value::List(values) => values,
        _ => &[],
    };
    if keys.len() != values.len() {
        return Err(failed(
            NAME,
            format!(
                "{} keys but {} values: each key needs one value",
                keys.len(),
                values.len()
            ),
        ));
    }
    let entries = keys.into_iter().zip(values.iter().cloned()).collect();
    let values = properties(NAME, &Value::Map(entries))?;
    write_all(txn, &ids, values)?;
    Ok(yielded(ids))
}
