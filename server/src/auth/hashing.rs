//! The server-wide budget for password verifications.
//!
//! Why: a verification is an Argon2id hash, tens of milliseconds of CPU and
//! 19 MiB on purpose. The per-address lock-out ([`super::limiter`]) does
//! not bound the sum: rotating source addresses gave 617 attempts in 15 s,
//! which took every execution thread and pushed other clients' `RETURN 1`
//! from 8 ms to 554 ms. Two bounds apply to every client together:
//! - a rate (a token bucket holding one second's worth): an attempt
//!   waits for its token, or is refused at once with
//!   `Security.AuthenticationRateLimit` when the wait would exceed the
//!   queue limit, so a flood is answered cheaply instead of queueing
//!   without end;
//! - a concurrency limit: at most this many hashes run at once, so logins
//!   can never hold every execution thread.

use super::AuthError;
use parking_lot::Mutex;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long an attempt may wait for its turn before it is refused.
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(5);

/// Verifications per second by default: at ~50 ms each, half a core.
pub const DEFAULT_RATE: u32 = 10;

/// Hashes at once by default: a quarter of the cores, at least one, so that
/// queries always keep most of the execution pool.
pub fn default_concurrency() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 4).max(1))
}

#[derive(Debug)]
pub struct HashBudget {
    running: Arc<Semaphore>,
    /// Verifications per second.
    rate: f64,
    /// Tokens a quiet server saves up (one second's worth).
    burst: f64,
    max_wait: Duration,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    /// Negative when attempts are queued for tokens not yet earned.
    tokens: f64,
    updated: Instant,
}

/// Held while one verification runs.
#[derive(Debug)]
pub struct HashPermit {
    _running: OwnedSemaphorePermit,
}

impl HashBudget {
    /// At most `concurrency` hashes at once and `per_second` on average;
    /// an attempt that would wait longer than `max_wait` is refused.
    pub fn new(concurrency: usize, per_second: u32, max_wait: Duration) -> Self {
        let rate = f64::from(per_second.max(1));
        HashBudget {
            running: Arc::new(Semaphore::new(concurrency.max(1))),
            rate,
            burst: rate,
            max_wait,
            bucket: Mutex::new(Bucket {
                tokens: rate,
                updated: Instant::now(),
            }),
        }
    }

    /// Waits for this attempt's turn; `AuthError::Busy` when the queue is
    /// already longer than the maximal wait.
    pub async fn acquire(&self) -> Result<HashPermit, AuthError> {
        let wait = self.take_token(Instant::now())?;
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
        let running = self
            .running
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| AuthError::Busy)?;
        Ok(HashPermit { _running: running })
    }

    /// Takes a token at `now`, possibly one not yet earned; returns how
    /// long to wait until it is. (Time is passed in for the tests.)
    fn take_token(&self, now: Instant) -> Result<Duration, AuthError> {
        let mut bucket = self.bucket.lock();
        let earned = now.saturating_duration_since(bucket.updated).as_secs_f64() * self.rate;
        bucket.tokens = (bucket.tokens + earned).min(self.burst);
        bucket.updated = now;
        let after = bucket.tokens - 1.0;
        let wait = if after >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-after / self.rate)
        };
        if wait > self.max_wait {
            return Err(AuthError::Busy);
        }
        bucket.tokens = after;
        Ok(wait)
    }
}

impl Default for HashBudget {
    fn default() -> Self {
        HashBudget::new(default_concurrency(), DEFAULT_RATE, DEFAULT_MAX_WAIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_attempts_queue_then_are_refused() {
        let budget = HashBudget::new(1, 4, Duration::from_millis(500));
        let t0 = Instant::now();
        for _ in 0..4 {
            assert_eq!(budget.take_token(t0), Ok(Duration::ZERO));
        }
        // Two more fit within the 500 ms queue (one per 250 ms) ...
        assert_eq!(budget.take_token(t0), Ok(Duration::from_millis(250)));
        assert_eq!(budget.take_token(t0), Ok(Duration::from_millis(500)));
        // ... the next would wait 750 ms and is refused without a token.
        assert_eq!(budget.take_token(t0), Err(AuthError::Busy));
        let later = t0 + Duration::from_secs(2);
        assert_eq!(budget.take_token(later), Ok(Duration::ZERO));
    }

    #[tokio::test]
    async fn hashes_run_one_at_a_time_under_a_concurrency_of_one() {
        let budget = HashBudget::new(1, 100, Duration::from_secs(1));
        let first = budget.acquire().await.unwrap();
        let second = tokio::time::timeout(Duration::from_millis(50), budget.acquire()).await;
        assert!(second.is_err(), "the second hash waits for the first");
        drop(first);
        budget.acquire().await.unwrap();
    }
}
