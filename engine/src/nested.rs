//! Queries given as text to a procedure and run inside the calling
//! transaction (`apoc.when`, `apoc.do.when`, `apoc.case`, `apoc.do.case`,
//! through [`nereid_dfe::DatabaseHook::run_nested`]). They are planned from
//! the plan cache and checked like a client's statement (parameters,
//! privileges); what they write is the calling transaction's, so it commits
//! or rolls back with it. Refused here: a write where the procedure only
//! reads, and anything that commits by itself.

use std::collections::BTreeMap;
use std::sync::Arc;

use nereid_dfe::{ExecError, ExecResult, Txn};
use nereid_values::Value;

use crate::db::{Database, DbError, Params};
use crate::transactions::Client;

impl Database {
    /// `query`'s rows, as maps from its column names, run in `txn` as
    /// `client`; `stopped` is asked between rows.
    pub(crate) fn run_nested(
        self: &Arc<Self>,
        txn: &Arc<Txn>,
        query: &str,
        params: Params,
        writes: bool,
        client: &Client,
        stopped: &dyn Fn() -> bool,
    ) -> ExecResult<Vec<BTreeMap<String, Value>>> {
        let failed = |e: DbError| ExecError::ProcedureCallFailed(e.message);
        let planned = self.plan(query, &params).map_err(failed)?;
        let plan = planned.plan;
        if planned.explain || planned.profile {
            return Err(refused("EXPLAIN and PROFILE have no rows to give"));
        }
        nereid_dfe::check_parameters(&plan, &params)?;
        let query_type = crate::query_type::of(&plan);
        if !writes && matches!(query_type, "w" | "rw" | "s") {
            return Err(refused(
                "this procedure only reads, and the query writes (use the apoc.do form)",
            ));
        }
        if plan.commits_in_batches()
            || plan.calls_procedure(nereid_dfe::NEPTUNE_LOAD)
            || plan.calls_procedure(nereid_dfe::PERIODIC_ITERATE)
        {
            return Err(refused(
                "a query run by a procedure cannot commit by itself",
            ));
        }
        crate::privileges::check(&plan, query_type, client).map_err(failed)?;
        let columns: Vec<String> = plan.outputs.iter().map(|(n, _)| n.clone()).collect();
        let mut cursor = self.configured_cursor(plan, Arc::clone(txn), Arc::new(params), client)?;
        let mut rows = Vec::new();
        while let Some(row) = cursor.next_row()? {
            rows.push(columns.iter().cloned().zip(row).collect());
            if stopped() {
                return Err(ExecError::Cancelled);
            }
        }
        Ok(rows)
    }
}

fn refused(why: &str) -> ExecError {
    ExecError::ProcedureCallFailed(why.to_string())
}
