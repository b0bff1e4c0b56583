//! Per-query execution state shared by all operators of one cursor.

use crate::eval::{Evaluator, PatternMemo, RegexCache, StatementTime, SubplanEnv};
use crate::memory::{MemoryBudget, Reservation};
use crate::procedures::ProcedureRegistry;
use crate::stop::StopSignals;
use crate::Params;
use nereid_storage::Txn;
use nereid_values::Value;
use std::sync::Arc;

/// Rows emitted by one operator of the plan (in plan pre-order), for
/// PROFILE-style reporting and for checking that execution stays lazy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorStats {
    /// The operator kind (`Op` variant name).
    pub name: &'static str,
    /// Active rows emitted so far (summed over re-instantiations under
    /// `Optional`).
    pub rows: u64,
    /// Under PROFILE only (zero otherwise): store calls made while this
    /// operator and its inputs produced their batches, and the time that
    /// took in nanoseconds; both include the operator's inputs (the
    /// reporter subtracts them to give each operator its own).
    pub db_hits: u64,
    pub time_ns: u64,
}

/// What every operator can reach while producing a batch.
pub struct ExecContext {
    pub(crate) txn: Arc<Txn>,
    /// Shared with nested plans' contexts (a large list parameter is
    /// never copied per pattern expression).
    pub(crate) params: Arc<Params>,
    pub(crate) regexes: RegexCache,
    /// Columns per row (the plan's slot count).
    pub(crate) slot_count: usize,
    /// Target number of rows per emitted batch.
    pub(crate) batch_size: usize,
    pub(crate) stats: Vec<OperatorStats>,
    /// "Now" for the temporal functions, read once per statement.
    pub(crate) statement_time: StatementTime,
    /// The database's procedures (`CALL`).
    pub(crate) procedures: Arc<ProcedureRegistry>,
    /// How `db.checkpoint()` and `neptune.load` reach the engine (none
    /// in-process without one).
    pub(crate) database_hook: Option<Arc<dyn crate::DatabaseHook>>,
    /// Where `LOAD CSV` opens files (none: it is refused).
    pub(crate) files: Option<Arc<dyn crate::FileSource>>,
    /// How `CALL { } IN TRANSACTIONS` commits its batches (none: refused).
    pub(crate) inner_transactions: Option<Arc<dyn crate::InnerTransactions>>,
    /// The transaction's metadata (`tx.getMetaData()`), from the server.
    pub(crate) tx_metadata: Option<Arc<crate::TxMetadata>>,
    /// What schema commands of the statement did not do, for its summary.
    pub(crate) notices: crate::procedures::Notices,
    /// The cancel flag (set from another thread: RESET, a client that
    /// left) and the transaction's deadline: every operator checks them
    /// before each batch it produces, so one that drains its input (sort,
    /// aggregation, eager) stops too.
    pub(crate) stop: StopSignals,
    /// The query's memory budget, shared with its nested plans.
    pub(crate) memory: Arc<MemoryBudget>,
    /// The parameters' footprint, held for the whole query.
    pub(crate) params_charge: Option<Reservation>,
    /// PROFILE: operators measure their time and store calls.
    pub(crate) profiling: bool,
    /// Remembered answers of pattern expressions (a read-only statement
    /// without procedure calls only; see `eval/pattern_memo.rs`).
    pub(crate) memo: Option<Arc<PatternMemo>>,
    /// A nested plan's context: its expands remember nodes' relationships
    /// in `memo` (see `eval/adjacency_memo.rs`), since other arguments of
    /// the same nested plan walk the same nodes again.
    pub(crate) nested: bool,
}

impl ExecContext {
    pub(crate) fn new(
        txn: Arc<Txn>,
        params: Arc<Params>,
        slot_count: usize,
        batch_size: usize,
        stats: Vec<OperatorStats>,
    ) -> ExecContext {
        ExecContext {
            txn,
            params,
            regexes: RegexCache::default(),
            slot_count,
            batch_size: batch_size.max(1),
            stats,
            statement_time: StatementTime::now(),
            procedures: Arc::new(ProcedureRegistry::new()),
            database_hook: None,
            files: None,
            inner_transactions: None,
            tx_metadata: None,
            notices: Default::default(),
            stop: StopSignals::default(),
            memory: MemoryBudget::new(0),
            params_charge: None,
            profiling: false,
            memo: None,
            nested: false,
        }
    }

    /// A context for a worker thread of a parallel segment: the same
    /// snapshot, parameters, statement time, stop signals, memory budget
    /// and pattern memo; its own regex cache and zeroed statistics (added
    /// to this context's by [`ExecContext::add_stats`] when it is done).
    pub(crate) fn for_worker(&self) -> ExecContext {
        let stats = self
            .stats
            .iter()
            .map(|s| OperatorStats {
                rows: 0,
                db_hits: 0,
                time_ns: 0,
                ..s.clone()
            })
            .collect();
        ExecContext {
            statement_time: self.statement_time,
            procedures: Arc::clone(&self.procedures),
            database_hook: self.database_hook.clone(),
            files: self.files.clone(),
            inner_transactions: self.inner_transactions.clone(),
            tx_metadata: self.tx_metadata.clone(),
            stop: self.stop.clone(),
            memory: Arc::clone(&self.memory),
            memo: self.memo.clone(),
            ..ExecContext::new(
                Arc::clone(&self.txn),
                Arc::clone(&self.params),
                self.slot_count,
                self.batch_size,
                stats,
            )
        }
    }

    /// Adds a worker's statistics (see [`ExecContext::for_worker`]).
    pub(crate) fn add_stats(&mut self, worker: &[OperatorStats]) {
        for (mine, theirs) in self.stats.iter_mut().zip(worker) {
            mine.rows += theirs.rows;
            mine.db_hits += theirs.db_hits;
            mine.time_ns += theirs.time_ns;
        }
    }

    /// An evaluator over this query's snapshot and parameters.
    pub(crate) fn evaluator(&mut self) -> Evaluator<'_> {
        let subplans = SubplanEnv {
            txn: Arc::clone(&self.txn),
            batch_size: self.batch_size,
            statement_time: self.statement_time,
            procedures: Arc::clone(&self.procedures),
            stop: self.stop.clone(),
            params: Arc::clone(&self.params),
            memory: Arc::clone(&self.memory),
            memo: self.memo.clone(),
            nested: self.nested,
        };
        Evaluator::new(&*self.txn, &self.params, &mut self.regexes)
            .at_statement_time(self.statement_time)
            .with_budget(&self.memory)
            .with_subplans(subplans)
    }

    /// Fails once the query was cancelled or its deadline passed (see
    /// [`ExecContext::stop`]).
    pub(crate) fn check_stop(&self) -> crate::ExecResult<()> {
        self.stop.check()
    }

    /// Puts the query under `budget` and charges it the parameters'
    /// footprint (held until the context is dropped).
    pub(crate) fn set_budget(&mut self, budget: Arc<MemoryBudget>) -> crate::ExecResult<()> {
        let mut charge = Reservation::new(&budget);
        charge.grow_by_values(self.params.values())?;
        self.memory = budget;
        self.params_charge = Some(charge);
        Ok(())
    }

    /// A reservation against this query's budget, for an operator's buffer.
    pub(crate) fn reservation(&self) -> Reservation {
        Reservation::new(&self.memory)
    }

    /// A row with every slot null.
    pub(crate) fn null_row(&self) -> Vec<Value> {
        vec![Value::Null; self.slot_count]
    }

    /// [`ExecContext::record_rows`] for each of a range of operators (the
    /// levels of a UNION chain a batch passes, one add per level).
    pub(crate) fn record_rows_in(&mut self, operators: std::ops::Range<usize>, rows: usize) {
        let end = operators.end.min(self.stats.len());
        let start = operators.start.min(end);
        for stats in &mut self.stats[start..end] {
            stats.rows += rows as u64;
        }
    }

    pub(crate) fn record_work(&mut self, operator: usize, db_hits: u64, time_ns: u64) {
        if let Some(stats) = self.stats.get_mut(operator) {
            stats.db_hits += db_hits;
            stats.time_ns += time_ns;
        }
    }

    pub(crate) fn record_rows(&mut self, operator: usize, rows: usize) {
        if let Some(stats) = self.stats.get_mut(operator) {
            stats.rows += rows as u64;
        }
    }
}
