//! The `dbms.*` procedures.

use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::Value;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "dbms.components",
    inputs: &[],
    outputs: &["name", "versions", "edition"],
    description: "List DBMS components and their versions.",
    mode: "DBMS",
    body: components,
}];

/// The server version drivers and tools read to pick features. Nereid
/// reports the Neo4j version whose Cypher and Bolt behaviour it follows.
pub(crate) const COMPATIBLE_NEO4J_VERSION: &str = "5.26.0";

fn components(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(vec![vec![
        Value::from("Neo4j Kernel"),
        Value::List(vec![Value::from(COMPATIBLE_NEO4J_VERSION)].into()),
        Value::from("community"),
    ]])
}
