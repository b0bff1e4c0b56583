//! `db.checkpoint()`: takes a checkpoint now, like Neo4j's procedure of the
//! same name (one row: `success`, `message`), through the engine's
//! [`super::DatabaseHook`].

use super::database_hook::current_hook;
use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::Value;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "db.checkpoint",
    inputs: &[],
    outputs: &["success", "message"],
    description: "Takes a checkpoint now: the committed state is written to the checkpoint \
                  location and the log it covers is discarded.",
    mode: "DBMS",
    body: checkpoint,
}];

fn checkpoint(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let (success, message) = match current_hook() {
        Ok(hook) => match hook.checkpoint() {
            Ok(done) => (true, format!("Checkpoint completed: {done}")),
            Err(why) => (false, format!("Checkpoint failed: {why}")),
        },
        Err(_) => (
            false,
            "Checkpoints are not available in this context (no durable log).".to_string(),
        ),
    };
    Ok(vec![vec![Value::Bool(success), Value::String(message)]])
}
