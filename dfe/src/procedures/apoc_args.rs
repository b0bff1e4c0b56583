//! Reading the arguments of the APOC procedures the way APOC does: a
//! failure is `ProcedureCallFailed` with APOC's "Failed to invoke
//! procedure" wording, which clients match on, and is raised before
//! anything is written.

use crate::error::ExecError;
use nereid_values::{NodeId, Value};
use std::collections::BTreeMap;

/// APOC's failure of `procedure` because of `reason`.
pub(super) fn failed(procedure: &str, reason: impl std::fmt::Display) -> ExecError {
    ExecError::ProcedureCallFailed(format!(
        "Failed to invoke procedure `{procedure}`: Caused by: java.lang.IllegalArgumentException: {reason}"
    ))
}

/// A list of label (or type) names: strings, none null or empty.
pub(super) fn names(procedure: &str, value: &Value) -> Result<Vec<String>, ExecError> {
    let items: &[Value] = match value {
        Value::Null => &[],
        Value::List(items) => items,
        other => {
            return Err(failed(
                procedure,
                format!("expected a list of strings but was {}", other.type_name()),
            ))
        }
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(name) if !name.is_empty() => Ok(name.clone()),
            _ => Err(failed(
                procedure,
                "The list of label names may not contain any `NULL` or empty `String` values.",
            )),
        })
        .collect()
}

/// A map of properties to write: null is the empty map, values must be
/// storable or null (which removes the property; a create leaves it out).
pub(super) fn properties(
    procedure: &str,
    value: &Value,
) -> Result<BTreeMap<String, Value>, ExecError> {
    let map = match value {
        Value::Null => return Ok(BTreeMap::new()),
        Value::Map(map) => map,
        other => {
            return Err(failed(
                procedure,
                format!("expected a map but was {}", other.type_name()),
            ))
        }
    };
    let mut out = BTreeMap::new();
    for (key, value) in map {
        if !value.is_null() && !value.is_storable() {
            return Err(failed(
                procedure,
                format!(
                    "Property values can only be of primitive types or arrays thereof; cannot store a {} in property `{key}`",
                    value.type_name()
                ),
            ));
        }
        out.insert(key.clone(), value.clone());
    }
    Ok(out)
}

/// The nodes an `apoc.create.*` call acts on: a node, or a list of nodes
/// (nulls skipped), as APOC accepts them.
pub(super) fn nodes(procedure: &str, value: &Value) -> Result<Vec<NodeId>, ExecError> {
    let node = |value: &Value| match value {
        Value::Node(id) => Ok(Some(*id)),
        Value::Null => Ok(None),
        other => Err(failed(
            procedure,
            format!("expected a node but was {}", other.type_name()),
        )),
    };
    match value {
        Value::List(items) => items.iter().filter_map(|v| node(v).transpose()).collect(),
        single => Ok(node(single)?.into_iter().collect()),
    }
}

/// The node argument of a merge, which must be there.
pub(super) fn node(procedure: &str, what: &str, value: &Value) -> Result<NodeId, ExecError> {
    match value {
        Value::Node(id) => Ok(*id),
        other => Err(failed(
            procedure,
            format!("the {what} must be a node but was {}", other.type_name()),
        )),
    }
}

/// The argument at `index` (the planner fills defaults, so it is there).
pub(super) fn arg(args: &[Value], index: usize) -> &Value {
    args.get(index).unwrap_or(&nereid_values::NULL)
}
