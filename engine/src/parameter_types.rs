//! Parameters whose type Neo4j checks when it compiles a query, not when a
//! row reaches them, failing as `Type mismatch for parameter 'p': expected
//! ... but was ...` with the parameter's position before anything runs (a
//! client sees the failure on RUN, nothing is written):
//! - a whole `SKIP $n` / `LIMIT $n` holding no number (a float or a negative
//!   integer is a number, refused when the clause runs, as Neo4j does);
//! - a whole dynamic label or type that CREATE, MERGE, SET or REMOVE writes
//!   (`:$($p)`) holding an integer, a boolean or a map (Neo4j's compile-time
//!   types; a float, a list or null is refused when the clause runs).
//!
//! Plans do not depend on parameter values (`plan_cache.rs`), so the check
//! runs on every execution against the positions kept with the plan.

use crate::db::{DbError, Params};
use crate::status;
use nereid_cypher::ast::{CheckedParameter, ParameterRole};
use nereid_cypher::{CypherError, ErrorKind};
use nereid_values::Value;

/// Fails on the first recorded parameter whose value Neo4j refuses there.
pub(crate) fn check_parameters(
    used: &[CheckedParameter],
    params: &Params,
    query: &str,
) -> Result<(), DbError> {
    for parameter in used {
        let Some(value) = params.get(&parameter.name) else {
            continue;
        };
        let expected = match parameter.role {
            ParameterRole::RowCount
                if !matches!(value, Value::Int(_) | Value::Float(_) | Value::Null) =>
            {
                "Integer"
            }
            ParameterRole::TokenNames
                if matches!(value, Value::Int(_) | Value::Bool(_) | Value::Map(_)) =>
            {
                "String or List<String>"
            }
            _ => continue,
        };
        let description = format!(
            "Type mismatch for parameter '{}': expected {expected} but was {}",
            parameter.name,
            neo4j_type_name(value)
        );
        let error = CypherError::at(
            ErrorKind::Semantic,
            &description,
            query,
            parameter.span.start,
        );
        return Err(status::from_cypher(error));
    }
    Ok(())
}

/// A parameter's type as Neo4j's compiler names it (a map could be an
/// entity's properties; a list's items are not looked at).
fn neo4j_type_name(value: &Value) -> &'static str {
    match value {
        Value::Map(_) => "Map, Node or Relationship",
        Value::List(_) => "List<T>",
        other => other.type_name(),
    }
}
