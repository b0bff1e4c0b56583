//! Built-in procedures (`CALL name(args)`), one module per namespace.
//!
//! A procedure declares its output columns and returns its result rows in
//! that column order; `YIELD` picks columns by name.

mod checkpoint;
mod db;
mod dbms;
mod function_docs;
mod schema;
mod show;

pub(crate) use checkpoint::with_hook as with_checkpoint_hook;
pub use checkpoint::CheckpointHook;
pub use show::{set_advertised_address, DEFAULT_DATABASE, SYSTEM_DATABASE};

use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::Value;

/// The body of a procedure: arguments in, rows (in `outputs` order) out.
pub(crate) type ProcedureBody = fn(&Txn, &[Value]) -> ExecResult<Vec<Vec<Value>>>;

/// A registered procedure.
pub(crate) struct Procedure {
    /// Fully qualified name, e.g. `db.ping`.
    pub name: &'static str,
    /// Number of arguments it takes.
    pub arity: usize,
    /// Output column names.
    pub outputs: &'static [&'static str],
    /// One sentence for `SHOW PROCEDURES`.
    pub description: &'static str,
    /// Neo4j's procedure mode: `READ`, `WRITE`, `DBMS`, ...
    pub mode: &'static str,
    pub body: ProcedureBody,
}

/// Every namespace's procedures.
const NAMESPACES: &[&[Procedure]] = &[
    db::PROCEDURES,
    checkpoint::PROCEDURES,
    dbms::PROCEDURES,
    schema::PROCEDURES,
    show::PROCEDURES,
];

/// The procedure called `name` (exact, case-sensitive as in Neo4j).
pub(crate) fn lookup(name: &str) -> Option<&'static Procedure> {
    NAMESPACES
        .iter()
        .flat_map(|procedures| procedures.iter())
        .find(|p| p.name == name)
}
