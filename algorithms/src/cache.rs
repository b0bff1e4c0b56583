//! Views kept between calls. A view is valid exactly for the snapshot it
//! was read from, so it is keyed by the snapshot's read timestamp and its
//! spec: every call reading the same unchanged graph shares one build, and
//! the first call after a commit builds afresh. A transaction that has
//! written sees its own changes, which no other snapshot shares: its views
//! are built for it alone and never cached.

use crate::error::AlgorithmError;
use crate::pool::Pools;
use crate::view::{GraphView, ViewSpec};
use nereid_storage::Txn;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Views kept at most; the oldest is dropped first.
const CAPACITY: usize = 4;

/// One database's cached views (and the worker pools its calls use).
#[derive(Default)]
pub struct ViewCache {
    entries: Mutex<Vec<(u64, ViewSpec, Arc<GraphView>)>>,
    builds: AtomicU64,
    pools: Pools,
}

impl ViewCache {
    pub fn new() -> ViewCache {
        ViewCache::default()
    }

    /// The view of `txn`'s snapshot for `spec`, built (on the current
    /// rayon pool) unless cached.
    pub fn view(&self, txn: &Txn, spec: &ViewSpec) -> Result<Arc<GraphView>, AlgorithmError> {
        let cacheable = txn.is_read_only();
        let key = txn.read_ts();
        if cacheable {
            let entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((_, _, view)) = entries.iter().find(|(ts, s, _)| *ts == key && s == spec) {
                return Ok(view.clone());
            }
        }
        self.builds.fetch_add(1, Ordering::Relaxed);
        let view = Arc::new(GraphView::build(txn, spec)?);
        if cacheable {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            if entries.len() == CAPACITY {
                entries.remove(0);
            }
            entries.push((key, spec.clone(), view.clone()));
        }
        Ok(view)
    }

    /// The worker pools this database's algorithm calls run on.
    pub fn pools(&self) -> &Pools {
        &self.pools
    }

    /// Views built so far (cached or not): a cache hit does not count.
    pub fn builds(&self) -> u64 {
        self.builds.load(Ordering::Relaxed)
    }
}
