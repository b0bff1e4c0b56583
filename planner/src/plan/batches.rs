//! The payloads of the two bulk-import operators: `CALL { } IN
//! TRANSACTIONS`'s batching and `LOAD CSV`'s source.

use crate::expr::{Expr, Slot};
pub use nereid_cypher::ast::OnError;

/// How an [`super::Op::Apply`] under `IN TRANSACTIONS` runs its body:
/// `rows` input rows at a time, each batch in a transaction of its own
/// committed before the next begins.
#[derive(Clone, Debug, PartialEq)]
pub struct TransactionBatches {
    /// Input rows per inner transaction (evaluated once; a positive
    /// integer, 1000 when the query names none).
    pub rows: Expr,
    pub on_error: OnError,
    /// `REPORT STATUS AS s`: where each row's transaction outcome goes.
    pub status: Option<Slot>,
}

/// `LOAD CSV`: the file `source` names, read record by record into `out`.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadCsvSpec {
    pub source: Expr,
    pub out: Slot,
    /// The first record names the fields: each row is a map.
    pub headers: bool,
    pub field_terminator: char,
    /// Where each row's `linenumber()` and `file()` go; `None` once the
    /// dead-slot pass found that nothing reads them.
    pub line: Option<Slot>,
    pub file: Option<Slot>,
}
