//! `db.index.fulltext.listAvailableAnalyzers()`: the analyzers a full-text
//! index may be created with, with Neo4j's descriptions and their stop
//! words.

use super::Procedure;
use crate::error::ExecResult;
use nereid_fulltext::Analyzer;
use nereid_storage::Txn;
use nereid_values::Value;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "db.index.fulltext.listAvailableAnalyzers",
    inputs: &[],
    outputs: &["analyzer", "description", "stopwords"],
    description: "List the available analyzers that the full-text indexes can be configured with.",
    mode: "READ",
    body: list,
}];

fn list(_: &Txn, _: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(Analyzer::ALL
        .iter()
        .map(|a| {
            vec![
                Value::from(a.name()),
                Value::from(a.description()),
                Value::List(a.stopwords().iter().map(|w| Value::from(*w)).collect()),
            ]
        })
        .collect())
}
