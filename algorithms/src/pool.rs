//! Where kernels run: a rayon pool of the caller's size, separate from
//! the engine's execution pool and from Bolt's I/O threads, so a long
//! algorithm competes for cores but never blocks a connection's thread.

use crate::error::AlgorithmError;

/// Runs `work` on `threads` workers (0: one per core).
pub fn run_with_threads<R: Send>(
    threads: usize,
    work: impl FnOnce() -> R + Send,
) -> Result<R, AlgorithmError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("nereid-algo-{i}"))
        .build()
        .map_err(|e| AlgorithmError::ThreadPool {
            threads,
            reason: e.to_string(),
        })?;
    Ok(pool.install(work))
}
