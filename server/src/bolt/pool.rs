//! The execution pool: a fixed set of OS threads that run database work
//! (parse, plan, execute, commit) so that the tokio I/O threads only move
//! bytes. One slow query occupies one pool thread and never stalls the
//! other connections' I/O.
//!
//! Short work never waits behind long queries
//! (docs/adr/0082-cancellation-and-time-sliced-pulls.md): results are
//! pulled in time slices of a few milliseconds, each a job of its own, and
//! a query whose slice ran out of time queues its next slice in the *long*
//! lane, which only the base workers serve (so long work runs at most that
//! many at once). Fresh work (requests, first slices) is taken first by
//! every worker, and when no worker is idle a fresh job gets a new worker
//! (up to [`MAX_EXTRA_WORKERS`] more, each leaving after
//! [`EXTRA_IDLE_EXIT`] without work): a slice cannot be interrupted inside
//! an operator that drains its input (a sort, a count over a cartesian
//! product), and the operating system's scheduler then shares the cores
//! between it and the new query.
//!
//! A worker that sleeps on another thread's work (a write waiting for
//! another transaction's commit, docs/adr/0126-waiting-for-uncommitted-writes.md)
//! says so through `nereid_blocking`: a base worker then gets a substitute
//! that serves both lanes until it wakes, and an extra worker frees its
//! place under [`MAX_EXTRA_WORKERS`], so sleeping transactions never hold
//! the lanes their holders' work needs.
//!
//! Invariant: a panicking job does not kill its thread; the caller gets
//! [`PoolError::Panicked`] instead of a result.

use crossbeam::channel::{unbounded, Receiver, RecvTimeoutError, Sender};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Stack size of pool threads: query evaluation recurses over expressions.
const STACK_SIZE: usize = 16 * 1024 * 1024;

/// Workers started for fresh work while every worker is busy, at most.
/// Each holds one query's slice: this many queries can run at once beyond
/// the base workers before fresh work queues.
pub const MAX_EXTRA_WORKERS: usize = 64;

/// An extra worker without work for this long leaves.
const EXTRA_IDLE_EXIT: Duration = Duration::from_secs(10);

#[derive(Debug, Error, Clone, PartialEq)]
pub enum PoolError {
    #[error("internal error while executing: {0}")]
    Panicked(String),
    #[error("the execution pool is shut down")]
    Closed,
}

/// Which queue a job waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Requests and the first slices of a query: taken first.
    Fresh,
    /// The later slices of a query that used up a whole slice.
    Long,
}

/// A handle to the pool; cloning shares the same threads. The threads exit
/// once every handle is dropped and the queues are drained.
#[derive(Clone)]
pub struct ExecPool {
    fresh: Sender<Job>,
    long: Sender<Job>,
    workers: Arc<Workers>,
    fresh_queue: Receiver<Job>,
}

/// Counts of the pool's workers.
#[derive(Default)]
struct Workers {
    /// Workers waiting for a job.
    idle: AtomicUsize,
    /// Extra workers running.
    extra: AtomicUsize,
    /// Base workers asleep on other threads' work, and their substitutes.
    substitution: parking_lot::Mutex<Substitution>,
}

#[derive(Default)]
struct Substitution {
    blocked: usize,
    substitutes: usize,
}

/// A substitute without work looks this often whether it is still needed.
const SUBSTITUTE_CHECK: Duration = Duration::from_secs(1);

/// The queues every base worker and substitute takes from.
struct Queues {
    fresh: Receiver<Job>,
    long: Receiver<Job>,
    workers: Arc<Workers>,
}

/// What a base worker (or substitute) does when it sleeps on another
/// thread's work: starts a substitute unless enough run.
struct Lend(Arc<Queues>);

impl nereid_blocking::Pool for Lend {
    fn blocked(&self) {
        let mut s = self.0.workers.substitution.lock();
        s.blocked += 1;
        if s.substitutes >= s.blocked {
            return;
        }
        s.substitutes += 1;
        drop(s);
        if let Err(e) = spawn_substitute(Arc::clone(&self.0)) {
            self.0.workers.substitution.lock().substitutes -= 1;
            tracing::warn!("cannot start a substitute execution thread: {e}");
        }
    }

    fn unblocked(&self) {
        self.0.workers.substitution.lock().blocked -= 1;
    }
}

/// What an extra worker does when it sleeps: frees its place under the
/// extra workers' cap, and takes it back when it wakes.
struct FreePlace(Arc<Workers>);

impl nereid_blocking::Pool for FreePlace {
    fn blocked(&self) {
        self.0.extra.fetch_sub(1, Ordering::AcqRel);
    }

    fn unblocked(&self) {
        self.0.extra.fetch_add(1, Ordering::AcqRel);
    }
}

/// A worker like a base one, for as long as more base workers sleep than
/// substitutes run.
fn spawn_substitute(queues: Arc<Queues>) -> std::io::Result<()> {
    let hook: Arc<dyn nereid_blocking::Pool> = Arc::new(Lend(Arc::clone(&queues)));
    spawn_worker("nereid-exec-substitute".into(), Some(hook), move || loop {
        let workers = &queues.workers;
        {
            let mut s = workers.substitution.lock();
            if s.substitutes > s.blocked {
                s.substitutes -= 1;
                return None;
            }
        }
        workers.idle.fetch_add(1, Ordering::AcqRel);
        let job = next_job_within(&queues.fresh, &queues.long, SUBSTITUTE_CHECK);
        workers.idle.fetch_sub(1, Ordering::AcqRel);
        ensure_fresh_worker(&queues.fresh, workers);
        match job {
            Ok(job) => return Some(job),
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => {
                workers.substitution.lock().substitutes -= 1;
                return None;
            }
        }
    })
}

impl ExecPool {
    /// Starts `threads` workers (at least one) that take from both lanes,
    /// fresh first; extra workers for fresh work start when needed.
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let (fresh, fresh_queue) = unbounded::<Job>();
        let (long, long_queue) = unbounded::<Job>();
        let workers = Arc::new(Workers::default());
        let queues = Arc::new(Queues {
            fresh: fresh_queue.clone(),
            long: long_queue.clone(),
            workers: Arc::clone(&workers),
        });
        for i in 0..threads.max(1) {
            let (fresh_queue, long_queue) = (fresh_queue.clone(), long_queue.clone());
            let counts = Arc::clone(&workers);
            let hook: Arc<dyn nereid_blocking::Pool> = Arc::new(Lend(Arc::clone(&queues)));
            spawn_worker(format!("nereid-exec-{i}"), Some(hook), move || {
                counts.idle.fetch_add(1, Ordering::AcqRel);
                let job = next_job(&fresh_queue, &long_queue);
                counts.idle.fetch_sub(1, Ordering::AcqRel);
                ensure_fresh_worker(&fresh_queue, &counts);
                job
            })?;
        }
        Ok(ExecPool {
            fresh,
            long,
            workers,
            fresh_queue,
        })
    }

    /// Starts an extra worker for fresh work when more fresh jobs wait than
    /// workers are idle (and fewer than [`MAX_EXTRA_WORKERS`] run).
    fn ensure_fresh_worker(&self) {
        ensure_fresh_worker(&self.fresh_queue, &self.workers);
    }

    /// Queues `f` now in the fresh lane; the receiver yields its result
    /// (or the panic message). Dropping the receiver does not cancel the
    /// job.
    pub fn submit<T, F>(&self, f: F) -> oneshot::Receiver<Result<T, PoolError>>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.submit_in(Lane::Fresh, f)
    }

    /// Queues `f` now in `lane`.
    pub fn submit_in<T, F>(&self, lane: Lane, f: F) -> oneshot::Receiver<Result<T, PoolError>>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = oneshot::channel();
        let job: Job = Box::new(move || {
            let outcome = catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".to_string());
                PoolError::Panicked(message)
            });
            let _ = done.send(outcome);
        });
        let queue = match lane {
            Lane::Fresh => &self.fresh,
            Lane::Long => &self.long,
        };
        // If no worker is left the job (and its sender) is dropped here and
        // the receiver reports the pool as closed.
        let _ = queue.send(job);
        if lane == Lane::Fresh {
            self.ensure_fresh_worker();
        }
        result
    }

    /// Runs `f` on the pool and waits for it without blocking the caller's
    /// thread.
    pub async fn run<T, F>(&self, f: F) -> Result<T, PoolError>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        self.submit(f).await.unwrap_or(Err(PoolError::Closed))
    }

    /// Drops `value` on the pool: dropping a result stream or transaction
    /// may release storage resources, which is database work.
    pub fn dispose<T: Send + 'static>(&self, value: T) {
        drop(self.submit(move || drop(value)));
    }
}

/// Starts an extra worker for fresh work when more fresh jobs wait in
/// `queue` than workers are idle (and fewer than [`MAX_EXTRA_WORKERS`]
/// run). Called by whoever changes either side: a submitter after queueing
/// fresh work, and a base worker or substitute after taking a job — a
/// worker still counts as idle between taking a job and saying so, and a
/// fresh job queued in that moment, seen by its submitter beside an
/// "idle" worker that had in fact just taken long work, waited behind that
/// work (a flaky pool test, session 38). Whichever of the two looks last
/// sees the worker busy.
fn ensure_fresh_worker(queue: &Receiver<Job>, counts: &Arc<Workers>) {
    // Each side changed one count and reads the other: without a full
    // fence both reads could see the old values.
    std::sync::atomic::fence(Ordering::SeqCst);
    if queue.len() <= counts.idle.load(Ordering::Acquire) {
        return;
    }
    let claimed = counts
        .extra
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < MAX_EXTRA_WORKERS).then_some(n + 1)
        });
    if claimed.is_err() {
        return;
    }
    let queue = queue.clone();
    let counts = Arc::clone(counts);
    let hook: Arc<dyn nereid_blocking::Pool> = Arc::new(FreePlace(Arc::clone(&counts)));
    let extra = Arc::clone(&counts);
    let started = spawn_worker("nereid-exec-extra".into(), Some(hook), move || {
        extra.idle.fetch_add(1, Ordering::AcqRel);
        let job = queue.recv_timeout(EXTRA_IDLE_EXIT);
        extra.idle.fetch_sub(1, Ordering::AcqRel);
        match job {
            Ok(job) => Some(job),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                extra.extra.fetch_sub(1, Ordering::AcqRel);
                None
            }
        }
    });
    if let Err(e) = started {
        counts.extra.fetch_sub(1, Ordering::AcqRel);
        tracing::warn!("cannot start an execution thread: {e}");
    }
}

fn spawn_worker(
    name: String,
    hook: Option<Arc<dyn nereid_blocking::Pool>>,
    mut next: impl FnMut() -> Option<Job> + Send + 'static,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(name)
        .stack_size(STACK_SIZE)
        .spawn(move || {
            if let Some(hook) = hook {
                nereid_blocking::install(hook);
            }
            while let Some(job) = next() {
                job();
            }
        })?;
    Ok(())
}

/// The next job: fresh work if any is queued, else whichever lane has work
/// first; `None` once both lanes are closed and drained.
fn next_job(fresh: &Receiver<Job>, long: &Receiver<Job>) -> Option<Job> {
    if let Ok(job) = fresh.try_recv() {
        return Some(job);
    }
    crossbeam::channel::select! {
        recv(fresh) -> job => job.ok().or_else(|| long.recv().ok()),
        recv(long) -> job => job.ok().or_else(|| fresh.recv().ok()),
    }
}

/// [`next_job`] waiting at most `wait`.
fn next_job_within(
    fresh: &Receiver<Job>,
    long: &Receiver<Job>,
    wait: Duration,
) -> Result<Job, RecvTimeoutError> {
    if let Ok(job) = fresh.try_recv() {
        return Ok(job);
    }
    crossbeam::channel::select! {
        recv(fresh) -> job => job.map_err(|_| RecvTimeoutError::Disconnected),
        recv(long) -> job => job.map_err(|_| RecvTimeoutError::Disconnected),
        default(wait) => Err(RecvTimeoutError::Timeout),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_blocked_job_does_not_block_the_others() {
        let pool = ExecPool::new(2).unwrap();
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let blocked = pool.submit(move || gate.recv_timeout(Duration::from_secs(10)).is_ok());
        let quick = tokio::time::timeout(Duration::from_secs(5), pool.run(|| 41 + 1)).await;
        assert_eq!(quick, Ok(Ok(42)), "the second thread must serve other jobs");
        release.send(()).unwrap();
        assert_eq!(blocked.await, Ok(Ok(true)));
    }

    #[tokio::test]
    async fn fresh_work_runs_while_every_worker_is_busy_with_long_work() {
        let pool = ExecPool::new(1).unwrap();
        let (release, gate) = crossbeam::channel::unbounded::<()>();
        let long: Vec<_> = (0..3)
            .map(|_| {
                let gate = gate.clone();
                pool.submit_in(Lane::Long, move || {
                    gate.recv_timeout(Duration::from_secs(10)).is_ok()
                })
            })
            .collect();
        let quick = tokio::time::timeout(Duration::from_secs(5), pool.run(|| 6 * 7)).await;
        assert_eq!(
            quick,
            Ok(Ok(42)),
            "the fresh lane must not wait behind long work"
        );
        for _ in 0..3 {
            release.send(()).unwrap();
        }
        for job in long {
            assert_eq!(job.await, Ok(Ok(true)));
        }
    }

    #[tokio::test]
    async fn fresh_work_gets_a_worker_while_every_worker_runs_a_long_slice() {
        let pool = ExecPool::new(1).unwrap();
        let (release, gate) = crossbeam::channel::unbounded::<()>();
        // Slices that cannot be interrupted (a sort draining its input),
        // all in the fresh lane: more of them than workers.
        let busy: Vec<_> = (0..3)
            .map(|_| {
                let gate = gate.clone();
                pool.submit(move || gate.recv_timeout(Duration::from_secs(10)).is_ok())
            })
            .collect();
        let quick = tokio::time::timeout(Duration::from_secs(5), pool.run(|| 6 * 7)).await;
        assert_eq!(quick, Ok(Ok(42)), "fresh work must get a worker of its own");
        for _ in 0..3 {
            release.send(()).unwrap();
        }
        for job in busy {
            assert_eq!(job.await, Ok(Ok(true)));
        }
    }

    #[tokio::test]
    async fn long_work_runs_while_every_base_worker_sleeps_on_other_work() {
        let pool = ExecPool::new(1).unwrap();
        let (release, gate) = crossbeam::channel::unbounded::<()>();
        // The one base worker sleeps (as a write waiting for another
        // transaction) until a long-lane job, which only base workers
        // serve, releases it.
        let sleeper = pool.submit_in(Lane::Long, move || {
            nereid_blocking::blocking(|| gate.recv_timeout(Duration::from_secs(10)).is_ok())
        });
        let waker = pool.submit_in(Lane::Long, move || release.send(()).is_ok());
        let woke = tokio::time::timeout(Duration::from_secs(5), waker).await;
        assert_eq!(
            woke,
            Ok(Ok(Ok(true))),
            "a substitute must serve the long lane"
        );
        assert_eq!(sleeper.await, Ok(Ok(true)));
    }

    #[tokio::test]
    async fn panics_are_reported_and_the_thread_survives() {
        let pool = ExecPool::new(1).unwrap();
        let result: Result<(), _> = pool.run(|| panic!("boom")).await;
        assert_eq!(result, Err(PoolError::Panicked("boom".into())));
        assert_eq!(pool.run(|| 7).await, Ok(7));
    }
}
