//! `CREATE FULLTEXT INDEX ... OPTIONS {indexConfig: {...}}`: the analyzer
//! and `fulltext.eventually_consistent` from Neo4j's configuration keys.
//! Without them the index uses `standard-no-stop-words` and is not
//! eventually consistent, as Neo4j 5's defaults are.

use super::vector_options::index_config_of;
use crate::error::{ExecError, ExecResult};
use nereid_fulltext::Analyzer;
use nereid_storage::IndexKind;
use nereid_values::Value;

/// The full-text index kind `options` (the command's `OPTIONS` map, or
/// null) asks for.
pub(super) fn fulltext_kind(options: &Value) -> ExecResult<IndexKind> {
    let mut analyzer = Analyzer::StandardNoStopWords;
    let mut eventually_consistent = false;
    match index_config_of(options).map_err(invalid)? {
        None | Some(Value::Null) => {}
        Some(Value::Map(config)) => {
            for (key, value) in config.iter() {
                match (key.as_str(), value) {
                    ("fulltext.analyzer", Value::String(name)) => {
                        // Neo4j's status and words for an unknown analyzer.
                        analyzer = Analyzer::from_name(name).ok_or_else(|| {
                            ExecError::ExecutionFailed(format!(
                                "No such full-text analyzer: '{name}'."
                            ))
                        })?;
                    }
                    ("fulltext.eventually_consistent", Value::Bool(b)) => {
                        eventually_consistent = *b;
                    }
                    ("fulltext.analyzer" | "fulltext.eventually_consistent", other) => {
                        return Err(invalid(format!("Invalid value for '{key}': {other}")))
                    }
                    // Neo4j's status and words for a key it does not know.
                    (other, _) => {
                        return Err(ExecError::ExecutionFailed(format!(
                            "Invalid index config key '{other}', it was not recognized as an index setting."
                        )))
                    }
                }
            }
        }
        Some(other) => return Err(invalid(format!("indexConfig must be a map, was {other}"))),
    }
    Ok(IndexKind::Fulltext {
        analyzer,
        eventually_consistent,
    })
}

fn invalid(why: String) -> ExecError {
    ExecError::Argument(format!("Failed to create fulltext index: {why}"))
}
