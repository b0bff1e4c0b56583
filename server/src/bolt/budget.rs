//! The server-wide budget of bytes held in Bolt messages that were
//! received (wholly or in part) but not yet handled.
//!
//! Why: the per-message limit bounds one connection, not the sum. Before
//! this budget, 45 clients each streaming an unterminated 60 MiB message
//! held 2.9 GB. Every reader charges its chunks to one shared counter as it
//! buffers them; the charge is released when the request is handled or the
//! connection goes away (on drop, so no path can leak it). A chunk that
//! would take the counter over the limit is not read: that connection gets
//! a transient failure and is closed, and everyone else goes on.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use thiserror::Error;

/// The default budget; at least two of the largest messages always fit
/// (see [`default_budget`]).
pub const DEFAULT_MAX_BUFFERED_BYTES: usize = 512 * 1024 * 1024;

/// The default for a given per-message limit: a budget smaller than two
/// maximal messages would refuse a lone client's legal message whenever
/// another one is being received.
pub fn default_budget(max_message_size: usize) -> usize {
    DEFAULT_MAX_BUFFERED_BYTES.max(max_message_size.saturating_mul(2))
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("the server is already buffering its maximum of {limit} bytes of incoming messages")]
pub struct BudgetExhausted {
    pub limit: usize,
}

/// The shared counter.
#[derive(Debug)]
pub struct BufferBudget {
    limit: usize,
    used: AtomicUsize,
}

impl BufferBudget {
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(BufferBudget {
            limit,
            used: AtomicUsize::new(0),
        })
    }

    /// Bytes charged right now, across all connections.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Acquire)
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    fn try_take(&self, bytes: usize) -> Result<(), BudgetExhausted> {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(bytes).filter(|&total| total <= self.limit)
            })
            .map(|_| ())
            .map_err(|_| BudgetExhausted { limit: self.limit })
    }

    fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// The bytes one message holds in the budget; released on drop.
#[derive(Debug)]
pub struct Charge {
    budget: Arc<BufferBudget>,
    bytes: usize,
}

impl Charge {
    /// An empty charge against `budget`.
    pub fn new(budget: &Arc<BufferBudget>) -> Self {
        Charge {
            budget: budget.clone(),
            bytes: 0,
        }
    }

    /// Charges `bytes` more, or nothing if they do not fit.
    pub fn add(&mut self, bytes: usize) -> Result<(), BudgetExhausted> {
        self.budget.try_take(bytes)?;
        self.bytes += bytes;
        Ok(())
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget.give_back(self.bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_are_bounded_in_sum_and_released_on_drop() {
        let budget = BufferBudget::new(100);
        let mut a = Charge::new(&budget);
        let mut b = Charge::new(&budget);
        a.add(60).unwrap();
        assert_eq!(b.add(41), Err(BudgetExhausted { limit: 100 }));
        assert_eq!(b.bytes(), 0, "a refused chunk is not charged");
        b.add(40).unwrap();
        assert_eq!(budget.used(), 100);
        drop(a);
        assert_eq!(budget.used(), 40);
        b.add(60).unwrap();
        drop(b);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn the_default_fits_two_maximal_messages() {
        assert_eq!(default_budget(1024), DEFAULT_MAX_BUFFERED_BYTES);
        assert_eq!(default_budget(1 << 30), 2 << 30);
    }
}
