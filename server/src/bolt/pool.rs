//! The execution pool: a fixed set of OS threads that run database work
//! (parse, plan, execute, commit) so that the tokio I/O threads only move
//! bytes. One slow query occupies one pool thread and never stalls the
//! other connections' I/O.
//!
//! Invariant: a panicking job does not kill its thread; the caller gets
//! [`PoolError::Panicked`] instead of a result.

use crossbeam::channel::{unbounded, Sender};
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

/// A handle to the pool; cloning shares the same threads. The threads exit
/// once every handle is dropped and the queue is drained.
#[derive(Clone)]
pub struct ExecPool {
    jobs: Sender<Job>,
}

impl ExecPool {
    /// Starts `threads` worker threads (at least one).
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let (jobs, queue) = unbounded::<Job>();
        for i in 0..threads.max(1) {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("nereid-exec-{i}"))
                .stack_size(STACK_SIZE)
                .spawn(move || {
                    while let Ok(job) = queue.recv() {
                        job();
                    }
                })?;
        }
        Ok(ExecPool { jobs })
    }

    /// Queues `f` now; the receiver yields its result (or the panic
    /// message). Dropping the receiver does not cancel the job.
    pub fn submit<T, F>(&self, f: F) -> oneshot::Receiver<Result<T, PoolError>>
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
        // If no worker is left the job (and its sender) is dropped here and
        // the receiver reports the pool as closed.
        let _ = self.jobs.send(job);
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
    async fn panics_are_reported_and_the_thread_survives() {
        let pool = ExecPool::new(1).unwrap();
        let result: Result<(), _> = pool.run(|| panic!("boom")).await;
        assert_eq!(result, Err(PoolError::Panicked("boom".into())));
        assert_eq!(pool.run(|| 7).await, Ok(7));
    }
}
