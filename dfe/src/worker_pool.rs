//! One process-wide pool of long-lived query worker threads, shared by
//! every `Gather` (docs/adr/0153-shared-query-worker-pool.md).
//!
//! Starting threads per run cost a parallel chain of a few milliseconds
//! more than it gained (SNB IC4: 1.15x slower with two query threads than
//! with one). The pool's threads are started on demand, up to the most any
//! `Gather` asked for (the `--query-threads` setting less the calling
//! thread, which works on its own segment too), and then stay parked on a
//! condition variable between jobs: handing a job over costs one wake-up.
//!
//! The pool knows nothing of queries: a job is a closure. Jobs run in the
//! order they were handed over; a job that panics is caught so the thread
//! goes on serving. These threads are not the server's session threads, so
//! a busy pool never holds up a Bolt session: the callers always keep
//! working on their own segments (`Gather` runs morsels no job took).

use std::collections::VecDeque;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, OnceLock};

/// Stack of a worker thread (pipelines recurse per operator; deeper
/// recursion grows the stack on demand through `nereid_stack`).
const WORKER_STACK: usize = 8 << 20;

type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Threads started, and how many of them wait for a job.
    threads: usize,
    idle: usize,
}

#[derive(Default)]
struct Pool {
    queue: Mutex<Queue>,
    wake: Condvar,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(Pool::default)
}

/// Hands `job` to the pool, starting a thread when none waits and fewer
/// than `threads` run. Fails only when no thread runs and none can be
/// started: the job is not kept then, so the caller knows it never runs.
pub(crate) fn submit(threads: usize, job: impl FnOnce() + Send + 'static) -> io::Result<()> {
    let pool = pool();
    let mut queue = pool.queue.lock().unwrap_or_else(|e| e.into_inner());
    queue.jobs.push_back(Box::new(job));
    if queue.idle >= queue.jobs.len() || queue.threads >= threads.max(1) {
        pool.wake.notify_one();
        return Ok(());
    }
    let name = format!("nereid-query-worker-{}", queue.threads);
    match std::thread::Builder::new()
        .name(name)
        .stack_size(WORKER_STACK)
        .spawn(|| serve(pool))
    {
        Ok(_) => {
            queue.threads += 1;
            Ok(())
        }
        Err(_) if queue.threads > 0 => {
            pool.wake.notify_one();
            Ok(())
        }
        Err(e) => {
            queue.jobs.pop_back();
            Err(e)
        }
    }
}

/// A pool thread's life: run jobs as they come, wait when there are none.
fn serve(pool: &'static Pool) {
    let mut queue = pool.queue.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if let Some(job) = queue.jobs.pop_front() {
            drop(queue);
            // A job reports its own failures; a panic escaping it must not
            // take the thread (and the jobs queued behind it) down.
            let _ = catch_unwind(AssertUnwindSafe(job));
            queue = pool.queue.lock().unwrap_or_else(|e| e.into_inner());
            continue;
        }
        queue.idle += 1;
        queue = pool.wake.wait(queue).unwrap_or_else(|e| e.into_inner());
        queue.idle -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn jobs_run_on_threads_that_stay() {
        let (done, finished) = channel();
        for round in 0..3 {
            for n in 0..4 {
                let done = done.clone();
                submit(2, move || {
                    let name = std::thread::current().name().map(str::to_string);
                    done.send((round * 4 + n, name)).unwrap();
                })
                .unwrap();
            }
            for _ in 0..4 {
                let (_, name) = finished.recv().unwrap();
                assert!(name.unwrap().starts_with("nereid-query-worker-"));
            }
        }
        let queue = pool().queue.lock().unwrap();
        assert!(
            queue.threads <= 2,
            "{} threads for at most 2",
            queue.threads
        );
    }

    #[test]
    fn a_panicking_job_leaves_the_thread_serving() {
        let (done, finished) = channel();
        submit(1, || panic!("job fails")).unwrap();
        submit(1, move || done.send(()).unwrap()).unwrap();
        finished.recv().unwrap();
    }
}
