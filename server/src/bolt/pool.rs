//! The execution pool: a fixed set of OS threads that run database work
//! (parse, plan, execute, commit) so that the tokio I/O threads only move
//! bytes. One slow query occupies one pool thread and never stalls the
//! other connections' I/O.
//!
//! Two lanes keep short work from waiting behind long queries
//! (docs/adr/0082-cancellation-and-time-sliced-pulls.md): results are
//! pulled in time slices of a few milliseconds, each a job of its own, and
//! a query whose slice ran out of time queues its next slice in the *long*
//! lane. Every worker takes *fresh* work first, and one more worker takes
//! only fresh work, so a new query starts while every other thread is busy
//! with long ones.
//!
//! Invariant: a panicking job does not kill its thread; the caller gets
//! [`PoolError::Panicked`] instead of a result.

use crossbeam::channel::{unbounded, Receiver, Sender};
use std::panic::{catch_unwind, AssertUnwindSafe};
use thiserror::Error;
use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Stack size of pool threads: query evaluation recurses over expressions.
const STACK_SIZE: usize = 16 * 1024 * 1024;

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
}

impl ExecPool {
    /// Starts `threads` workers (at least one) that take from both lanes,
    /// fresh first, and one that takes only fresh work.
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let (fresh, fresh_queue) = unbounded::<Job>();
        let (long, long_queue) = unbounded::<Job>();
        for i in 0..threads.max(1) {
            let (fresh_queue, long_queue) = (fresh_queue.clone(), long_queue.clone());
            spawn_worker(format!("nereid-exec-{i}"), move || {
                next_job(&fresh_queue, &long_queue)
            })?;
        }
        spawn_worker("nereid-exec-fresh".into(), move || fresh_queue.recv().ok())?;
        Ok(ExecPool { fresh, long })
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

fn spawn_worker(
    name: String,
    mut next: impl FnMut() -> Option<Job> + Send + 'static,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(name)
        .stack_size(STACK_SIZE)
        .spawn(move || {
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
    async fn panics_are_reported_and_the_thread_survives() {
        let pool = ExecPool::new(1).unwrap();
        let result: Result<(), _> = pool.run(|| panic!("boom")).await;
        assert_eq!(result, Err(PoolError::Panicked("boom".into())));
        assert_eq!(pool.run(|| 7).await, Ok(7));
    }
}
