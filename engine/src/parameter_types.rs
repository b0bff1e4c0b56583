//! Parameters whose type Neo4j checks when it compiles a query, not when a
//! row reaches them: a `SKIP $n` / `LIMIT $n` given a string or a boolean
//! fails as `Type mismatch for parameter 'n': expected Integer but was
//! String` with the parameter's position, before anything runs (a client
//! sees the failure on RUN, nothing is written). A float or a negative
//! integer is a number and is refused when the clause runs, as Neo4j does.
//!
//! Plans do not depend on parameter values (`plan_cache.rs`), so the check
//! runs on every execution against the positions kept with the plan.

use crate::db::{DbError, Params};
use crate::status;
use nereid_cypher::ast::Span;
use nereid_cypher::{CypherError, ErrorKind};
use nereid_values::Value;

/// Fails on the first `SKIP` / `LIMIT` parameter that holds no number.
pub(crate) fn check_row_counts(
    used: &[(String, Span)],
    params: &Params,
    query: &str,
) -> Result<(), DbError> {
    for (name, span) in used {
        let Some(value) = params.get(name) else {
            continue;
        };
        if matches!(value, Value::Int(_) | Value::Float(_) | Value::Null) {
            continue;
        }
        let description = format!(
            "Type mismatch for parameter '{name}': expected Integer but was {}",
            value.type_name()
        );
        let error = CypherError::at(ErrorKind::Semantic, &description, query, span.start);
        return Err(status::from_cypher(error));
    }
    Ok(())
}
