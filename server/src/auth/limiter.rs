//! Rate limiting of failed logins per client address.
//!
//! After `max_failures` consecutive failures from one address, every
//! attempt from it is refused without looking at the credentials until
//! `lock_time` has passed since the last failure. A success clears the
//! address. Time is passed in, so the rules are tested without clocks.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::{Duration, Instant};

/// Neo4j's defaults (`dbms.security.auth_max_failed_attempts`,
/// `dbms.security.auth_lock_time`).
pub const DEFAULT_MAX_FAILURES: u32 = 3;
pub const DEFAULT_LOCK_TIME: Duration = Duration::from_secs(5);

/// Addresses remembered at most; beyond that, expired entries are pruned
/// (and if all are live, the oldest goes), so a scan from many addresses
/// cannot grow memory without bound.
const MAX_TRACKED: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
}

#[derive(Debug)]
pub struct FailureLimiter {
    max_failures: u32,
    lock_time: Duration,
    by_address: HashMap<IpAddr, Failures>,
}

impl FailureLimiter {
    pub fn new(max_failures: u32, lock_time: Duration) -> Self {
        FailureLimiter {
            max_failures: max_failures.max(1),
            lock_time,
            by_address: HashMap::new(),
        }
    }

    /// Whether `address` is currently locked out.
    pub fn is_locked(&self, address: IpAddr, now: Instant) -> bool {
        self.by_address.get(&address).is_some_and(|f| {
            f.count >= self.max_failures && now.saturating_duration_since(f.last) < self.lock_time
        })
    }

    pub fn record_failure(&mut self, address: IpAddr, now: Instant) {
        if self.by_address.len() >= MAX_TRACKED && !self.by_address.contains_key(&address) {
            self.prune(now);
        }
        let lock_time = self.lock_time;
        let entry = self.by_address.entry(address).or_insert(Failures {
            count: 0,
            last: now,
        });
        // A failure after the lock expired starts a new count.
        if now.saturating_duration_since(entry.last) >= lock_time {
            entry.count = 0;
        }
        entry.count = entry.count.saturating_add(1);
        entry.last = now;
    }

    pub fn record_success(&mut self, address: IpAddr) {
        self.by_address.remove(&address);
    }

    fn prune(&mut self, now: Instant) {
        let lock_time = self.lock_time;
        self.by_address
            .retain(|_, f| now.saturating_duration_since(f.last) < lock_time);
        if self.by_address.len() >= MAX_TRACKED {
            if let Some(oldest) = self
                .by_address
                .iter()
                .min_by_key(|(_, f)| f.last)
                .map(|(a, _)| *a)
            {
                self.by_address.remove(&oldest);
            }
        }
    }
}

impl Default for FailureLimiter {
    fn default() -> Self {
        FailureLimiter::new(DEFAULT_MAX_FAILURES, DEFAULT_LOCK_TIME)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn locks_after_repeated_failures_until_the_lock_time_passes() {
        let mut limiter = FailureLimiter::new(3, Duration::from_secs(5));
        let t0 = Instant::now();
        for _ in 0..2 {
            limiter.record_failure(A, t0);
            assert!(!limiter.is_locked(A, t0));
        }
        limiter.record_failure(A, t0);
        assert!(limiter.is_locked(A, t0));
        assert!(limiter.is_locked(A, t0 + Duration::from_secs(4)));
        assert!(
            !limiter.is_locked(B, t0),
            "other addresses are not affected"
        );
        assert!(!limiter.is_locked(A, t0 + Duration::from_secs(5)));
        // The count restarts after the lock expired.
        limiter.record_failure(A, t0 + Duration::from_secs(6));
        assert!(!limiter.is_locked(A, t0 + Duration::from_secs(6)));
    }

    #[test]
    fn a_success_clears_the_address() {
        let mut limiter = FailureLimiter::new(2, Duration::from_secs(5));
        let t0 = Instant::now();
        limiter.record_failure(A, t0);
        limiter.record_success(A);
        limiter.record_failure(A, t0);
        assert!(!limiter.is_locked(A, t0));
    }

    #[test]
    fn memory_is_bounded() {
        let mut limiter = FailureLimiter::new(3, Duration::from_secs(5));
        let t0 = Instant::now();
        for i in 0..(MAX_TRACKED as u32 + 10) {
            limiter.record_failure(IpAddr::V4(i.into()), t0);
        }
        assert!(limiter.by_address.len() <= MAX_TRACKED);
    }
}
