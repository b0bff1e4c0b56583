//! The names of `:$(expr)` (Cypher 5.26): a value read as label or type
//! names, refused as Neo4j refuses it, and the test of a MATCH pattern's
//! dynamic labels or type against an entity.

use crate::error::{ExecError, ExecResult};
use crate::graph::GraphRead;
use nereid_values::Value;

/// What the names name; only the messages differ.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum NameKind {
    Label,
    RelationshipType,
}

/// The names `value` holds: a string, or a list of strings. Null, a
/// non-string and a null inside the list are type errors; an empty name
/// or one with a null byte is no token name (Neo4j's `TokenNameError`).
pub(crate) fn names_of(value: Value, kind: NameKind) -> ExecResult<Vec<String>> {
    let items: Vec<Value> = match value.into_list() {
        Ok(items) => items.into_iter().collect(),
        Err(single) => vec![single],
    };
    items
        .into_iter()
        .map(|item| match item.into_string() {
            Ok(name) if name.is_empty() || name.contains('\0') => {
                Err(ExecError::TokenName(format!(
                    "'{name}' is not a valid token name. Token names cannot be empty or contain any null-bytes."
                )))
            }
            Ok(name) => Ok(name),
            Err(_) => Err(ExecError::Type(match kind {
                NameKind::Label => "Expected node label to be a string or list of strings.",
                NameKind::RelationshipType => {
                    "Expected relationship type to be a string or list of strings."
                }
            }
            .to_string())),
        })
        .collect()
}

/// The one type `value` names for a relationship CREATE or MERGE makes.
pub(crate) fn single_type(value: Value) -> ExecResult<String> {
    let mut names = names_of(value, NameKind::RelationshipType)?;
    if names.len() != 1 {
        return Err(ExecError::ExecutionFailed(format!(
            "Exactly one relationship type must be specified, but {} were found.",
            names.len()
        )));
    }
    Ok(names.remove(0))
}

/// Whether `entity` matches `(n:$(names))` / `-[r:$(names)]->`: a node
/// carries every name (one of them with `any`); a relationship's type is
/// every name (one of them with `any`), so `$all` of two types matches
/// nothing and an empty list everything, as in Neo4j. Null stays null.
pub(crate) fn has_dynamic_names(
    graph: &dyn GraphRead,
    entity: &Value,
    names: Value,
    any: bool,
) -> ExecResult<Value> {
    let (carried, kind) = match entity {
        Value::Null => return Ok(Value::Null),
        Value::Node(id) => (graph.node_labels(*id), NameKind::Label),
        Value::Relationship(id) => (
            graph.rel_type(*id).into_iter().collect(),
            NameKind::RelationshipType,
        ),
        other => return Err(crate::error::type_mismatch("Node or Relationship", other)),
    };
    let names = names_of(names, kind)?;
    let has = |name: &String| carried.contains(name);
    Ok(Value::Bool(if any {
        names.iter().any(has)
    } else {
        names.iter().all(has)
    }))
}
