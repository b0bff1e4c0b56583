//! `db.index.fulltext.awaitEventuallyConsistentIndexRefresh()`: Neo4j
//! waits here until eventually consistent full-text indexes have caught up
//! with committed writes. Nereid's full-text indexes are maintained by the
//! writing transactions themselves (docs/adr/0125), so every index is
//! always caught up and the call returns at once.

use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::Value;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "db.index.fulltext.awaitEventuallyConsistentIndexRefresh",
    inputs: &[],
    outputs: &[],
    description: "Wait for the updates from recently committed transactions to be applied to any eventually-consistent full-text indexes.",
    mode: "READ",
    body: refreshed,
}];

fn refreshed(_: &Txn, _: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(Vec::new())
}
