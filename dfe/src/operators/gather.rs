//! `Gather`: runs a chain of streaming operators on worker threads over
//! morsels of its producer's rows, and gives their rows back in the
//! producer's order (docs/adr/0139-morsel-driven-parallel-segments.md).
//!
//! The producer (the operator under the chain) runs on the calling
//! thread: each batch it emits is cut into morsels, numbered in order and
//! queued. Jobs on the shared worker pool (`crate::worker_pool`, ADR 0153)
//! and the calling thread itself take morsels in turn; each builds its own
//! copy of the chain over a morsel (a leaf emitting the morsel in place of
//! the producer) and runs it to its end, a job with its own
//! `ExecContext`: the query's snapshot, parameters, stop signals and
//! memory budget, its own regex cache and statistics. No thread is
//! started per run, and a query whose jobs wait behind other queries'
//! runs its morsels on its own thread.
//! The calling thread emits the morsels' rows strictly in their numbers'
//! order, so whatever lies above sees the rows, the order and, should a
//! morsel fail, the first error of a serial run.
//!
//! Under PROFILE the chain runs on the calling thread (same morsels, no
//! workers): the store-call counter is one per transaction, and workers
//! would charge each other's calls to one another's operators.

use super::argument::{Argument, Leaf};
use super::build::{build_on, build_with_inputs};
use super::Operator;
use crate::batch::Batch;
use crate::context::{ExecContext, OperatorStats};
use crate::error::{ExecError, ExecResult};
use crate::memory::Reservation;
use crate::worker_pool;
use nereid_planner::Op;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// Morsels per worker the producer's batch is cut into: enough that a
/// worker slowed by a heavy morsel does not hold the others up.
const MORSELS_PER_WORKER: usize = 4;
/// Fewest rows in a morsel (building a chain per morsel has a cost).
const MIN_MORSEL_ROWS: usize = 4;
/// Morsels per worker queued or done but not yet emitted: bounds the rows
/// held beyond a serial run's.
const IN_FLIGHT_PER_WORKER: usize = 8;

/// The chain a worker runs: the `Gather`'s input (a copy of the plan from
/// there down), the number of its top operator and how many operators it
/// holds above the producer.
struct Chain {
    top: Op,
    id: usize,
    len: usize,
}

impl Chain {
    /// The chain's operators over one morsel, numbered as in the plan.
    fn build_over(&self, morsel: Batch) -> Box<dyn Operator> {
        let leaf = RefCell::new(Some(morsel));
        build_down(&self.top, self.id, self.len, &leaf)
    }
}

/// Builds `op` and the `depth - 1` operators under it, then a leaf that
/// emits the morsel (uncounted: its rows were counted as the producer's).
fn build_down(
    op: &Op,
    id: usize,
    depth: usize,
    morsel: &RefCell<Option<Batch>>,
) -> Box<dyn Operator> {
    if depth == 0 {
        let rows = morsel.borrow_mut().take();
        return Box::new(Argument::new(rows.map_or(Leaf::Nulls, Leaf::Batch)));
    }
    build_with_inputs(op, id, &Leaf::Nulls, &|input, input_id| {
        nereid_stack::deeper(|| build_down(input, input_id, depth - 1, morsel))
    })
}

/// Runs the chain over one morsel to its end.
fn run_morsel(chain: &Chain, morsel: Batch, ctx: &mut ExecContext) -> ExecResult<Vec<Batch>> {
    let mut pipeline = chain.build_over(morsel);
    let mut out = Vec::new();
    while let Some(batch) = pipeline.next(ctx)? {
        out.push(batch);
    }
    Ok(out)
}

/// What a pool job sends back.
enum Report {
    /// The rows of morsel `seq` (or why it failed).
    Morsel(u64, ExecResult<Vec<Batch>>),
    /// The job is done and has dropped its context; its operators'
    /// statistics.
    Finished(Vec<OperatorStats>),
}

/// What the calling thread and its pool jobs share: the chain, the
/// morsels no one has taken yet (lowest number first) and whether the
/// query still wants rows.
struct Shared {
    chain: Arc<Chain>,
    morsels: Mutex<VecDeque<(u64, Batch)>>,
    abandoned: AtomicBool,
    /// Jobs taking morsels now (not yet past their last look at the
    /// queue): the caller hands over a new job only when fewer are.
    live: AtomicUsize,
}

impl Shared {
    /// The next morsel no one has taken, unless the query stopped wanting
    /// rows.
    fn take(&self) -> Option<(u64, Batch)> {
        if self.abandoned.load(Ordering::Relaxed) {
            return None;
        }
        self.morsels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop_front()
    }

    /// Whether no morsel waits (or the query no longer wants rows).
    fn is_empty(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed)
            || self
                .morsels
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_empty()
    }

    fn queued(&self) -> usize {
        self.morsels.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// A pool job: run the morsels queued, report each, and end once none is
/// left (the caller hands over another job when it queues more), so a job
/// never holds a pool thread while it waits for the producer.
fn work(shared: &Shared, mut ctx: ExecContext, out: &Sender<Report>) {
    'taking: loop {
        while let Some((seq, morsel)) = shared.take() {
            let result = run_guarded(&shared.chain, morsel, &mut ctx);
            if out.send(Report::Morsel(seq, result)).is_err() {
                break 'taking;
            }
        }
        shared.live.fetch_sub(1, Ordering::SeqCst);
        // A morsel queued while this job still counted as live got no job
        // of its own: take it on rather than leave it to the caller.
        if shared.is_empty() {
            break;
        }
        shared.live.fetch_add(1, Ordering::SeqCst);
    }
    let stats = std::mem::take(&mut ctx.stats);
    // The snapshot goes before the caller hears this job is done: no job
    // holds the query's transaction once its `Gather` is gone.
    drop(ctx);
    let _ = out.send(Report::Finished(stats));
}

/// Runs a morsel; a panic ends that morsel (and so the query) with an
/// error, not the thread running it.
fn run_guarded(chain: &Chain, morsel: Batch, ctx: &mut ExecContext) -> ExecResult<Vec<Batch>> {
    catch_unwind(AssertUnwindSafe(|| run_morsel(chain, morsel, ctx)))
        .unwrap_or_else(|panic| Err(worker_panicked(panic.as_ref())))
}

/// The error a panicking worker's morsel ends with: the query fails, the
/// server and the other queries go on.
fn worker_panicked(panic: &(dyn std::any::Any + Send)) -> ExecError {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".to_string());
    ExecError::ExecutionFailed(format!("A query worker thread failed: {message}"))
}

/// A started `Gather`: its jobs on the pool and the morsels in flight.
struct Running {
    shared: Arc<Shared>,
    /// `false` once the producer is exhausted.
    producing: bool,
    report: Sender<Report>,
    reports: Receiver<Report>,
    /// Jobs handed to the pool that have not reported `Finished` yet.
    busy: usize,
    /// Morsels sent, and the number of the next one to emit.
    sent: u64,
    emitted: u64,
    /// Morsels done before their turn, with the budget their rows hold.
    done: BTreeMap<u64, (ExecResult<Vec<Batch>>, Reservation)>,
}

impl Drop for Running {
    /// Leaves the queued morsels and waits for the jobs handed over (each
    /// finishes at most the morsel it holds; a cancelled query's stop ends
    /// that too), so no job outlives the query's transaction.
    fn drop(&mut self) {
        self.shared.abandoned.store(true, Ordering::Relaxed);
        self.shared
            .morsels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        while self.busy > 0 {
            match self.reports.recv() {
                Ok(Report::Finished(_)) => self.busy -= 1,
                Ok(Report::Morsel(..)) => {}
                Err(_) => break,
            }
        }
    }
}

pub(crate) struct Gather {
    producer: Box<dyn Operator>,
    chain: Arc<Chain>,
    workers: usize,
    running: Option<Running>,
    /// Rows of the morsel being emitted, with the budget they hold.
    ready: VecDeque<Batch>,
    held: Option<Reservation>,
}

impl Gather {
    /// `top` is the Gather's input (numbered `id`), `len` the operators of
    /// the chain above the producer.
    pub(crate) fn new(top: &Op, id: usize, len: usize, workers: usize, argument: &Leaf) -> Gather {
        let mut producer = top;
        for _ in 0..len {
            producer = producer.input().expect("a chain operator has an input");
        }
        Gather {
            producer: build_on(producer, id + len, argument),
            chain: Arc::new(Chain {
                top: top.clone(),
                id,
                len,
            }),
            workers: workers.max(1),
            running: None,
            ready: VecDeque::new(),
            held: None,
        }
    }

    /// Moves the next morsel's rows (in order) to `ready`; `false` once
    /// every morsel was emitted and the pool jobs are done. The calling
    /// thread runs the producer, then any morsel no job has taken: it is
    /// one of the `workers`, and the query goes on at its own pace when
    /// the pool is busy with other queries.
    fn advance(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        let helpers = self.workers - 1;
        let limit = (self.workers * IN_FLIGHT_PER_WORKER) as u64;
        let pieces = self.workers * MORSELS_PER_WORKER;
        let run = self
            .running
            .get_or_insert_with(|| Running::new(Arc::clone(&self.chain)));
        loop {
            if let Some((rows, held)) = run.done.remove(&run.emitted) {
                run.emitted += 1;
                self.ready.extend(rows?);
                self.held = Some(held);
                return Ok(true);
            }
            if run.producing && run.sent - run.emitted < limit {
                match self.producer.next(ctx)? {
                    Some(batch) => {
                        run.queue(morsels(batch, pieces));
                        run.hand_over(helpers, ctx);
                    }
                    None => run.producing = false,
                }
                continue;
            }
            while let Ok(report) = run.reports.try_recv() {
                run.receive(report, ctx)?;
            }
            if run.done.contains_key(&run.emitted) {
                continue;
            }
            if let Some((seq, morsel)) = run.shared.take() {
                let rows = run_morsel(&run.shared.chain, morsel, ctx);
                run.keep(seq, rows, ctx)?;
                continue;
            }
            if !run.producing && run.emitted == run.sent && run.busy == 0 {
                return Ok(false);
            }
            // Every morsel left is in a job's hands: wait for one.
            let report = run.reports.recv().map_err(|_| {
                ExecError::ExecutionFailed("The query's worker threads stopped early".into())
            })?;
            run.receive(report, ctx)?;
        }
    }

    /// PROFILE: the same morsels, run on the calling thread.
    fn advance_here(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        let Some(batch) = self.producer.next(ctx)? else {
            return Ok(false);
        };
        for morsel in morsels(batch, self.workers * MORSELS_PER_WORKER) {
            let rows = run_morsel(&self.chain, morsel, ctx)?;
            self.ready.extend(rows);
        }
        Ok(true)
    }
}

/// Cuts `batch` into about `pieces` morsels of about equal size, in row
/// order.
fn morsels(batch: Batch, pieces: usize) -> Vec<Batch> {
    let rows = batch.active_len();
    let size = rows.div_ceil(pieces).max(MIN_MORSEL_ROWS);
    if rows <= size {
        return vec![batch];
    }
    let slot_count = batch.slot_count();
    batch
        .selection()
        .chunks(size)
        .map(|piece| Batch::from_rows(slot_count, piece.iter().map(|&row| batch.row(row))))
        .collect()
}

impl Running {
    fn new(chain: Arc<Chain>) -> Running {
        let (report, reports) = channel();
        Running {
            shared: Arc::new(Shared {
                chain,
                morsels: Mutex::new(VecDeque::new()),
                abandoned: AtomicBool::new(false),
                live: AtomicUsize::new(0),
            }),
            producing: true,
            report,
            reports,
            busy: 0,
            sent: 0,
            emitted: 0,
            done: BTreeMap::new(),
        }
    }

    /// Numbers the morsels and queues them for whoever takes them first.
    fn queue(&mut self, morsels: Vec<Batch>) {
        let mut queued = self
            .shared
            .morsels
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for morsel in morsels {
            queued.push_back((self.sent, morsel));
            self.sent += 1;
        }
    }

    /// Hands the pool a job per queued morsel, up to `helpers` jobs at a
    /// time. A pool that cannot start a thread leaves the morsels to the
    /// calling thread.
    fn hand_over(&mut self, helpers: usize, ctx: &ExecContext) {
        let wanted = helpers.min(self.shared.queued());
        while self.shared.live.load(Ordering::SeqCst) < wanted {
            self.shared.live.fetch_add(1, Ordering::SeqCst);
            let shared = Arc::clone(&self.shared);
            let out = self.report.clone();
            let job_ctx = ctx.for_worker();
            match worker_pool::submit(helpers, move || work(&shared, job_ctx, &out)) {
                Ok(()) => self.busy += 1,
                Err(_) => {
                    self.shared.live.fetch_sub(1, Ordering::SeqCst);
                    break;
                }
            }
        }
    }

    fn receive(&mut self, report: Report, ctx: &mut ExecContext) -> ExecResult<()> {
        match report {
            Report::Morsel(seq, rows) => self.keep(seq, rows, ctx),
            Report::Finished(stats) => {
                self.busy -= 1;
                ctx.add_stats(&stats);
                Ok(())
            }
        }
    }

    /// Holds morsel `seq`'s rows until their turn, charged to the query's
    /// memory budget meanwhile.
    fn keep(
        &mut self,
        seq: u64,
        rows: ExecResult<Vec<Batch>>,
        ctx: &ExecContext,
    ) -> ExecResult<()> {
        let mut held = ctx.reservation();
        if let Ok(batches) = &rows {
            held.grow(batches.iter().map(Batch::footprint).sum())?;
        }
        self.done.insert(seq, (rows, held));
        Ok(())
    }
}

impl Operator for Gather {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        loop {
            if let Some(batch) = self.ready.pop_front() {
                return Ok(Some(batch));
            }
            self.held = None;
            let more = if ctx.profiling || self.workers < 2 {
                self.advance_here(ctx)?
            } else {
                self.advance(ctx)?
            };
            if !more {
                self.running = None;
                return Ok(None);
            }
        }
    }
}
