//! The explicit transactions of the Query API (`/query/v2/tx`): each kept
//! under a random id between requests, expiring when idle for
//! [`IDLE_LIMIT`] (then rolled back by the sweeper), at most
//! [`MAX_OPEN`] at once so that clients cannot pile up snapshots.

use parking_lot::Mutex;
use rand_core::{OsRng, RngCore};
use std::collections::HashMap;
use std::time::{Duration, Instant, SystemTime};

/// How long a transaction may sit between requests (Neo4j's default).
pub(crate) const IDLE_LIMIT: Duration = Duration::from_secs(60);

/// Open transactions at most; more are refused as transient.
pub(crate) const MAX_OPEN: usize = 1024;

pub(crate) struct OpenTransactions<T> {
    open: Mutex<HashMap<String, Entry<T>>>,
}

struct Entry<T> {
    tx: T,
    expires: Instant,
}

impl<T> OpenTransactions<T> {
    pub(crate) fn new() -> Self {
        OpenTransactions {
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps `tx` under `id` (a new random one when `None`) until it idles
    /// out; its id and when it expires. `Err(tx)` when too many are open.
    pub(crate) fn keep(&self, id: Option<String>, tx: T) -> Result<(String, SystemTime), T> {
        let mut open = self.open.lock();
        if open.len() >= MAX_OPEN {
            return Err(tx);
        }
        let id = id.unwrap_or_else(|| loop {
            let candidate = format!("{:016x}", OsRng.next_u64());
            if !open.contains_key(&candidate) {
                break candidate;
            }
        });
        let expires = Instant::now() + IDLE_LIMIT;
        open.insert(id.clone(), Entry { tx, expires });
        Ok((id, SystemTime::now() + IDLE_LIMIT))
    }

    /// Takes the transaction out for a request (a concurrent request for
    /// the same id finds none); `None` when unknown or expired.
    pub(crate) fn take(&self, id: &str) -> Option<T> {
        let entry = self.open.lock().remove(id)?;
        (entry.expires > Instant::now()).then_some(entry.tx)
    }

    /// Removes every transaction idle past its limit (for rolling back).
    pub(crate) fn expired(&self) -> Vec<T> {
        let now = Instant::now();
        let mut open = self.open.lock();
        let ids: Vec<String> = open
            .iter()
            .filter(|(_, e)| e.expires <= now)
            .map(|(id, _)| id.clone())
            .collect();
        ids.into_iter()
            .filter_map(|id| open.remove(&id).map(|e| e.tx))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_transactions_are_taken_once() {
        let open = OpenTransactions::new();
        let (id, _) = open.keep(None, 7).ok().unwrap();
        assert_eq!(open.take(&id), Some(7));
        assert_eq!(open.take(&id), None);
        assert!(open.expired().is_empty());
    }

    #[test]
    fn the_number_open_is_bounded() {
        let open = OpenTransactions::new();
        for i in 0..MAX_OPEN {
            assert!(open.keep(None, i).is_ok());
        }
        assert_eq!(open.keep(None, 0).err(), Some(0));
    }
}
