//! `CREATE VECTOR INDEX ... OPTIONS {indexConfig: {...}}`: the index's
//! dimensions and similarity from Neo4j's configuration keys. Without them
//! the index takes vectors of any length under cosine, as Neo4j 5 does.

use crate::error::{ExecError, ExecResult};
use nereid_storage::IndexKind;
use nereid_values::Value;
use nereid_vector::{Similarity, MAX_DIMENSIONS};

/// The vector index kind `options` (the command's `OPTIONS` map, or null)
/// asks for.
pub(super) fn vector_kind(options: &Value) -> ExecResult<IndexKind> {
    let mut dimensions = None;
    let mut similarity = Similarity::Cosine;
    match index_config_of(options).map_err(invalid)? {
        None | Some(Value::Null) => {}
        Some(Value::Map(config)) => {
            for (key, value) in config.iter() {
                match key.as_str() {
                    "vector.dimensions" => dimensions = Some(parse_dimensions(value)?),
                    "vector.similarity_function" => similarity = parse_similarity(value)?,
                    other => {
                        return Err(invalid(format!(
                            "Invalid index config key '{other}': a vector index takes \
                             'vector.dimensions' and 'vector.similarity_function'"
                        )))
                    }
                }
            }
        }
        Some(other) => return Err(invalid(format!("indexConfig must be a map, was {other}"))),
    }
    Ok(IndexKind::Vector {
        dimensions,
        similarity,
    })
}

/// The `indexConfig` entry of a schema command's `OPTIONS` (the map, or
/// null), if any; `Err` says why `OPTIONS` is not a map.
pub(super) fn index_config_of(options: &Value) -> Result<Option<&Value>, String> {
    match options {
        Value::Null => Ok(None),
        Value::Map(map) => Ok(map.get("indexConfig")),
        other => Err(format!("OPTIONS must be a map, was {other}")),
    }
}

fn parse_dimensions(value: &Value) -> ExecResult<u32> {
    match value {
        Value::Int(d) if (1..=MAX_DIMENSIONS as i64).contains(d) => Ok(*d as u32),
        other => Err(invalid(format!(
            "'vector.dimensions' must be an integer between 1 and {MAX_DIMENSIONS}, was {other}"
        ))),
    }
}

fn parse_similarity(value: &Value) -> ExecResult<Similarity> {
    match value {
        Value::String(s) => Similarity::from_name(s),
        _ => None,
    }
    .ok_or_else(|| {
        invalid(format!(
            "'vector.similarity_function' must be 'COSINE' or 'EUCLIDEAN', was {value}"
        ))
    })
}

fn invalid(why: String) -> ExecError {
    ExecError::Argument(format!("Failed to create vector index: {why}"))
}
