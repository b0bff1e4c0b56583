//! The per-query memory budget.
//!
//! A query's text decides how much it allocates: `range(1, 60000000)`, a
//! list parameter of millions of elements, a sort over every row. Without a
//! bound, one query can take the whole process (and every session with it)
//! out of memory. Each cursor gets a [`MemoryBudget`]; what the query holds
//! for its whole run (its parameters, the rows a sort or an aggregation
//! buffers) is *charged* through a [`Reservation`] released when the holder
//! is dropped, and a value about to be built (a range, the copies of a list
//! literal for every row of a batch, a concatenation) is *checked* against
//! what is left before it is allocated. Going over fails the query with
//! [`ExecError::MemoryLimit`]; the caller rolls the transaction back, so
//! nothing is half-applied.
//!
//! The figures are estimates ([`Value::footprint`]): transient copies
//! (a batch column between operators) are checked one at a time, not summed.
//! A list value is shared by its copies ([`nereid_values::List`]): a copy
//! costs nothing, a list held by `k` values is charged a `k`-th of its size
//! to each, and a list only one value holds (just built: `collect`,
//! `range`, a comprehension) is charged in full
//! (docs/adr/0093-shared-list-values.md).

use crate::error::{ExecError, ExecResult};
use nereid_values::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The bytes one query may hold, shared by its cursor, its nested plans and
/// its evaluators.
#[derive(Debug, Default)]
pub struct MemoryBudget {
    /// 0: no limit (usage is still counted).
    limit: usize,
    used: AtomicUsize,
}

impl MemoryBudget {
    /// A budget of `limit` bytes; 0 means unlimited.
    pub fn new(limit: usize) -> Arc<MemoryBudget> {
        Arc::new(MemoryBudget {
            limit,
            used: AtomicUsize::new(0),
        })
    }

    /// The limit in bytes (0: none).
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes currently charged.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Fails unless `bytes` more would fit beside what is charged, without
    /// holding them: for values about to be built whose lifetime the budget
    /// does not follow (a batch column).
    pub fn check(&self, bytes: usize) -> ExecResult<()> {
        let used = self.used();
        if self.limit != 0 && used.saturating_add(bytes) > self.limit {
            return Err(self.exceeded(bytes, used));
        }
        Ok(())
    }

    /// Charges `bytes` until [`MemoryBudget::release`]; fails (charging
    /// nothing) when they do not fit.
    fn charge(&self, bytes: usize) -> ExecResult<()> {
        let before = self.used.fetch_add(bytes, Ordering::Relaxed);
        if self.limit != 0 && before.saturating_add(bytes) > self.limit {
            self.used.fetch_sub(bytes, Ordering::Relaxed);
            return Err(self.exceeded(bytes, before));
        }
        Ok(())
    }

    fn release(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::Relaxed);
    }

    fn exceeded(&self, requested: usize, used: usize) -> ExecError {
        ExecError::MemoryLimit {
            requested,
            used,
            limit: self.limit,
        }
    }
}

/// Bytes held against a budget until dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<MemoryBudget>,
    bytes: usize,
}

impl Reservation {
    /// An empty reservation against `budget`.
    pub fn new(budget: &Arc<MemoryBudget>) -> Reservation {
        Reservation {
            budget: Arc::clone(budget),
            bytes: 0,
        }
    }

    /// Holds `bytes` more; on failure holds what it held before.
    pub fn grow(&mut self, bytes: usize) -> ExecResult<()> {
        self.budget.charge(bytes)?;
        self.bytes += bytes;
        Ok(())
    }

    /// Holds the footprint of `values` more.
    pub fn grow_by_values<'v>(
        &mut self,
        values: impl IntoIterator<Item = &'v Value>,
    ) -> ExecResult<()> {
        let bytes = values
            .into_iter()
            .fold(0usize, |sum, v| sum.saturating_add(v.footprint()));
        self.grow(bytes)
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.release(self.bytes);
    }
}

/// Bytes of a column of `count` copies of `value` (what evaluating a
/// literal or parameter over `count` rows allocates: nothing for a list,
/// which every copy shares).
pub(crate) fn copies(value: &Value, count: usize) -> usize {
    value.clone_heap_footprint().saturating_mul(count)
}

/// Bytes of a column of values.
pub(crate) fn column(values: &[Value]) -> usize {
    values
        .iter()
        .fold(0usize, |sum, v| sum.saturating_add(v.footprint()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_hold_until_dropped_and_refuse_past_the_limit() {
        let budget = MemoryBudget::new(1000);
        let mut a = Reservation::new(&budget);
        a.grow(600).unwrap();
        assert_eq!(budget.used(), 600);
        assert!(budget.check(400).is_ok());
        assert!(matches!(
            budget.check(401),
            Err(ExecError::MemoryLimit {
                requested: 401,
                used: 600,
                limit: 1000
            })
        ));
        let mut b = Reservation::new(&budget);
        assert!(b.grow(500).is_err());
        assert_eq!(budget.used(), 600, "a refused charge holds nothing");
        b.grow(400).unwrap();
        drop(a);
        assert_eq!(budget.used(), 400);
        drop(b);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn zero_is_unlimited_but_still_counted() {
        let budget = MemoryBudget::new(0);
        let mut r = Reservation::new(&budget);
        r.grow(usize::MAX / 2).unwrap();
        assert!(budget.check(usize::MAX / 4).is_ok());
        assert_eq!(budget.used(), usize::MAX / 2);
    }
}
