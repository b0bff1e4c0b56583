//! `apoc.periodic.iterate`'s engine side ([`nereid_dfe::DatabaseHook::
//! run_batches`]): the iterate query streams from a snapshot of its own;
//! every `batch_size` rows the action runs in a new transaction, committed
//! through the log before the next batch starts, as `CALL { } IN
//! TRANSACTIONS` commits its batches. A failing batch is rolled back and
//! counted; the call goes on with the next (APOC's behaviour). Both queries
//! run as the calling client, so privileges apply as to any statement.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use nereid_dfe::{BatchMode, BatchPlan, BatchReport, ExecError, ExecResult};
use nereid_storage::WriteStats;
use nereid_values::Value;

use crate::db::{Database, DbError, Params};
use crate::transactions::Client;

impl Database {
    pub(crate) fn run_batches(
        self: &Arc<Self>,
        plan: &BatchPlan,
        client: &Client,
        stopped: &dyn Fn() -> bool,
    ) -> ExecResult<BatchReport> {
        let started = Instant::now();
        let failed = |e: DbError| ExecError::ProcedureCallFailed(e.message);
        let source = self.begin_as(Params::new(), client.clone());
        let mut rows = self
            .run_as(
                Some(&source),
                &plan.iterate,
                plan.params.clone(),
                None,
                Params::new(),
                client,
            )
            .map_err(failed)?;
        let columns = rows.fields().to_vec();
        let mut report = BatchReport::default();
        let mut written = WriteStats::default();
        loop {
            if stopped() {
                report.was_terminated = true;
                break;
            }
            let mut batch: Vec<BTreeMap<String, Value>> = Vec::with_capacity(plan.batch_size);
            let more = rows
                .pull(plan.batch_size as i64, &mut |row, _| {
                    batch.push(columns.iter().cloned().zip(row.iter().cloned()).collect())
                })
                .map_err(failed)?;
            if !batch.is_empty() {
                let size = batch.len() as u64;
                report.batches += 1;
                report.total += size;
                match self.run_batch(plan, &columns, batch, client) {
                    Ok(stats) => {
                        report.committed_operations += size;
                        written = &written + &stats;
                    }
                    Err(e) => {
                        report.failed_operations += size;
                        report.failed_batches += 1;
                        *report.error_messages.entry(e.message).or_default() += 1;
                    }
                }
            }
            if !more {
                break;
            }
        }
        drop(rows);
        self.rollback(source);
        report.seconds = started.elapsed().as_secs_f64();
        report.update_statistics = statistics(&written);
        Ok(report)
    }

    /// The action over one batch in a transaction of its own, committed
    /// (or rolled back when any of it fails); what it wrote.
    fn run_batch(
        self: &Arc<Self>,
        plan: &BatchPlan,
        columns: &[String],
        batch: Vec<BTreeMap<String, Value>>,
        client: &Client,
    ) -> Result<WriteStats, DbError> {
        let tx = self.begin_as(Params::new(), client.clone());
        let mut stats = WriteStats::default();
        let mut run = |query: &str, params: Params| -> Result<(), DbError> {
            let mut result = self.run_as(Some(&tx), query, params, None, Params::new(), client)?;
            result.pull(-1, &mut |_, _| {})?;
            stats = &stats + &result.summary().stats;
            Ok(())
        };
        let outcome = match plan.mode {
            BatchMode::Single => batch.into_iter().try_for_each(|row| {
                let mut params = plan.params.clone();
                params.extend(row);
                run(&plan.action, params)
            }),
            BatchMode::Batch | BatchMode::BatchSingle => {
                let mut params = plan.params.clone();
                params.insert("_count".into(), Value::Int(batch.len() as i64));
                params.insert(
                    "_batch".into(),
                    Value::List(batch.into_iter().map(Value::Map).collect()),
                );
                let action = if plan.mode == BatchMode::Batch {
                    with_batch_columns(columns, &plan.action)
                } else {
                    plan.action.clone()
                };
                run(&action, params)
            }
        };
        match outcome {
            Ok(()) => self.commit(tx).map(|_| stats),
            Err(e) => {
                self.rollback(tx);
                Err(e)
            }
        }
    }
}

/// APOC's batch form: `UNWIND $_batch AS _batch WITH _batch.c AS c, ...`
/// before the action, so the iterate query's columns are its variables.
fn with_batch_columns(columns: &[String], action: &str) -> String {
    let quoted = |name: &str| format!("`{}`", name.replace('`', "``"));
    let bound: Vec<String> = columns
        .iter()
        .map(|c| format!("_batch.{} AS {}", quoted(c), quoted(c)))
        .collect();
    if bound.is_empty() {
        format!("UNWIND $_batch AS _batch {action}")
    } else {
        format!(
            "UNWIND $_batch AS _batch WITH {} {action}",
            bound.join(", ")
        )
    }
}

/// The committed writes under Neo4j's counter names (APOC reports the
/// graph's counters only).
fn statistics(stats: &WriteStats) -> BTreeMap<String, i64> {
    stats
        .graph_counters()
        .into_iter()
        .map(|(name, n)| (name.to_string(), n as i64))
        .collect()
}
