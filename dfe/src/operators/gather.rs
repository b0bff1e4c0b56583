//! `Gather`: runs a chain of streaming operators on worker threads over
//! morsels of its producer's rows, and gives their rows back in the
//! producer's order (docs/adr/0139-morsel-driven-parallel-segments.md).
//!
//! The producer (the operator under the chain) runs on the calling
//! thread: each batch it emits is cut into morsels, numbered in order and
//! queued. A worker takes a morsel, builds its own copy of the chain over
//! it (a leaf emitting the morsel in place of the producer) and runs it to
//! its end with its own `ExecContext`: the query's snapshot, parameters,
//! stop signals and memory budget, its own regex cache and statistics.
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
use nereid_planner::Op;
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Morsels per worker the producer's batch is cut into: enough that a
/// worker slowed by a heavy morsel does not hold the others up.
const MORSELS_PER_WORKER: usize = 4;
/// Fewest rows in a morsel (building a chain per morsel has a cost).
const MIN_MORSEL_ROWS: usize = 4;
/// Morsels per worker queued or done but not yet emitted: bounds the rows
/// held beyond a serial run's.
const IN_FLIGHT_PER_WORKER: usize = 8;
/// Stack of a worker thread (pipelines recurse per operator; deeper
/// recursion grows the stack on demand through `nereid_stack`).
const WORKER_STACK: usize = 8 << 20;

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

/// What a worker sends back.
enum Report {
    /// The rows of morsel `seq` (or why it failed).
    Morsel(u64, ExecResult<Vec<Batch>>),
    /// The worker is done; its operators' statistics.
    Finished(Vec<OperatorStats>),
}

/// A worker's loop: take a morsel, run it, report; until the queue is
/// closed and empty, the query no longer wants rows (`abandoned`) or
/// nobody listens any more.
fn work(
    chain: &Chain,
    mut ctx: ExecContext,
    queue: &Mutex<Receiver<(u64, Batch)>>,
    abandoned: &AtomicBool,
    out: &Sender<Report>,
) {
    while !abandoned.load(Ordering::Relaxed) {
        let next = match queue.lock() {
            Ok(queue) => queue.recv(),
            Err(_) => break,
        };
        let Ok((seq, morsel)) = next else { break };
        let result = catch_unwind(AssertUnwindSafe(|| run_morsel(chain, morsel, &mut ctx)))
            .unwrap_or_else(|panic| Err(worker_panicked(panic.as_ref())));
        if out.send(Report::Morsel(seq, result)).is_err() {
            return;
        }
    }
    let _ = out.send(Report::Finished(std::mem::take(&mut ctx.stats)));
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

/// The workers of a started `Gather` and the morsels in flight.
struct Running {
    /// `None` once the producer is exhausted (closing the queue).
    queue: Option<SyncSender<(u64, Batch)>>,
    /// Set when the query stops taking rows: the workers leave the
    /// morsels still queued.
    abandoned: Arc<AtomicBool>,
    reports: Receiver<Report>,
    workers: Vec<JoinHandle<()>>,
    /// Workers that have not reported `Finished` yet.
    busy: usize,
    /// Morsels sent, and the number of the next one to emit.
    sent: u64,
    emitted: u64,
    /// Morsels done before their turn, with the budget their rows hold.
    done: BTreeMap<u64, (ExecResult<Vec<Batch>>, Reservation)>,
}

impl Drop for Running {
    /// Closes the queue and waits for the workers (each finishes at most
    /// the morsel it holds; a cancelled query's stop ends that too), so no
    /// thread outlives the query's transaction.
    fn drop(&mut self) {
        self.abandoned.store(true, Ordering::Relaxed);
        self.queue = None;
        // Drain so no worker blocks on a full report channel (unbounded:
        // it never does; draining only frees their rows sooner).
        while self.reports.try_recv().is_ok() {}
        for worker in self.workers.drain(..) {
            let _ = worker.join();
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

    /// Cuts `batch` into morsels of about equal size, in row order.
    fn morsels(&self, batch: Batch) -> Vec<Batch> {
        let rows = batch.active_len();
        let pieces = self.workers * MORSELS_PER_WORKER;
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

    fn start(&self, ctx: &ExecContext) -> ExecResult<Running> {
        let (queue, taken) = sync_channel(self.workers * IN_FLIGHT_PER_WORKER);
        let taken = Arc::new(Mutex::new(taken));
        let (report, reports) = channel();
        let abandoned = Arc::new(AtomicBool::new(false));
        let mut workers = Vec::with_capacity(self.workers);
        for n in 0..self.workers {
            let chain = Arc::clone(&self.chain);
            let taken = Arc::clone(&taken);
            let report = report.clone();
            let abandoned = Arc::clone(&abandoned);
            let worker_ctx = ctx.for_worker();
            let spawned = std::thread::Builder::new()
                .name(format!("nereid-query-worker-{n}"))
                .stack_size(WORKER_STACK)
                .spawn(move || work(&chain, worker_ctx, &taken, &abandoned, &report));
            match spawned {
                Ok(handle) => workers.push(handle),
                // No thread to be had: run with the workers started.
                Err(_) if !workers.is_empty() => break,
                Err(e) => {
                    return Err(ExecError::ExecutionFailed(format!(
                        "Cannot start a query worker thread: {e}"
                    )))
                }
            }
        }
        Ok(Running {
            queue: Some(queue),
            abandoned,
            reports,
            busy: workers.len(),
            workers,
            sent: 0,
            emitted: 0,
            done: BTreeMap::new(),
        })
    }

    /// Moves the next morsel's rows (in order) to `ready`; `false` once
    /// every morsel was emitted and the workers are done.
    fn advance(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        if self.running.is_none() {
            self.running = Some(self.start(ctx)?);
        }
        let limit = (self.workers * IN_FLIGHT_PER_WORKER) as u64;
        loop {
            let run = self.running.as_mut().expect("started above");
            if let Some((rows, held)) = run.done.remove(&run.emitted) {
                run.emitted += 1;
                self.ready.extend(rows?);
                self.held = Some(held);
                return Ok(true);
            }
            if run.queue.is_some() && run.sent - run.emitted < limit {
                match self.producer.next(ctx)? {
                    Some(batch) => {
                        for morsel in self.morsels(batch) {
                            let run = self.running.as_mut().expect("started above");
                            let queue = run.queue.as_ref().expect("open");
                            if queue.send((run.sent, morsel)).is_err() {
                                return Err(ExecError::ExecutionFailed(
                                    "The query's worker threads stopped early".into(),
                                ));
                            }
                            run.sent += 1;
                        }
                    }
                    None => run_mut(&mut self.running).queue = None,
                }
                continue;
            }
            if run.queue.is_none() && run.emitted == run.sent && run.busy == 0 {
                return Ok(false);
            }
            match run.reports.recv() {
                Ok(Report::Morsel(seq, rows)) => {
                    let mut held = ctx.reservation();
                    if let Ok(batches) = &rows {
                        held.grow(batches.iter().map(Batch::footprint).sum())?;
                    }
                    run.done.insert(seq, (rows, held));
                }
                Ok(Report::Finished(stats)) => {
                    run.busy -= 1;
                    ctx.add_stats(&stats);
                }
                Err(_) => {
                    return Err(ExecError::ExecutionFailed(
                        "The query's worker threads stopped early".into(),
                    ))
                }
            }
        }
    }

    /// PROFILE: the same morsels, run on the calling thread.
    fn advance_here(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        let Some(batch) = self.producer.next(ctx)? else {
            return Ok(false);
        };
        for morsel in self.morsels(batch) {
            let rows = run_morsel(&self.chain, morsel, ctx)?;
            self.ready.extend(rows);
        }
        Ok(true)
    }
}

fn run_mut(running: &mut Option<Running>) -> &mut Running {
    running.as_mut().expect("started")
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
