//! Where kernels run: a rayon pool of the caller's size, separate from
//! the engine's execution pool and from Bolt's I/O threads, so a long
//! algorithm competes for cores but never blocks a connection's thread.
//! [`Pools`] keeps one pool per size, so a call made for every row of a
//! query does not start threads each time.

use crate::error::AlgorithmError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Pools by thread count, kept for reuse (one set per database).
#[derive(Default)]
pub struct Pools {
    pools: Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>,
}

impl Pools {
    /// Runs `work` on a pool of `threads` workers (0: one per core),
    /// started on first use.
    pub fn run<R: Send>(
        &self,
        threads: usize,
        work: impl FnOnce() -> R + Send,
    ) -> Result<R, AlgorithmError> {
        let pool = {
            let mut pools = self.pools.lock().unwrap_or_else(|p| p.into_inner());
            match pools.get(&threads) {
                Some(pool) => pool.clone(),
                None => {
                    let pool = Arc::new(build(threads)?);
                    pools.insert(threads, pool.clone());
                    pool
                }
            }
        };
        Ok(pool.install(work))
    }
}

fn build(threads: usize) -> Result<rayon::ThreadPool, AlgorithmError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("nereid-algo-{i}"))
        .build()
        .map_err(|e| AlgorithmError::ThreadPool {
            threads,
            reason: e.to_string(),
        })
}

/// Runs `work` on a fresh pool of `threads` workers (0: one per core),
/// for one-off callers (benchmarks, tools).
pub fn run_with_threads<R: Send>(
    threads: usize,
    work: impl FnOnce() -> R + Send,
) -> Result<R, AlgorithmError> {
    Ok(build(threads)?.install(work))
}
