//! How a session stops the query of a pool job it is waiting for.
//!
//! A PULL's slice knows its query's cancel flag before the job starts. A
//! RUN that pulls its first slice at once (a PULL was queued right behind
//! it, `run.rs`) only learns the flag inside the job, once the query is
//! open; a RESET or a departed client may come before that. So the session
//! records the request to stop, the job publishes the flag, and whichever
//! comes second applies the stop: both sides write their half before
//! reading the other's (sequentially consistent), so at least one of them
//! sees both.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

#[derive(Default)]
pub(super) struct Stopper {
    requested: AtomicBool,
    flag: OnceLock<Arc<AtomicBool>>,
}

impl Stopper {
    /// A stopper for a query whose flag is already known (`None`: a result
    /// that cannot be stopped).
    pub(super) fn of(flag: Option<Arc<AtomicBool>>) -> Stopper {
        let stopper = Stopper::default();
        stopper.publish(flag);
        stopper
    }

    /// From the job: the query's cancel flag. True when a stop was already
    /// requested (the flag is then set).
    pub(super) fn publish(&self, flag: Option<Arc<AtomicBool>>) -> bool {
        if let Some(flag) = flag {
            let _ = self.flag.set(flag);
        }
        let requested = self.requested.load(Ordering::SeqCst);
        if requested {
            self.raise();
        }
        requested
    }

    /// From the session: stops the query at its next batch, now or as soon
    /// as the job publishes its flag.
    pub(super) fn stop(&self) {
        self.requested.store(true, Ordering::SeqCst);
        self.raise();
    }

    fn raise(&self) {
        if let Some(flag) = self.flag.get() {
            flag.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_before_the_flag_is_applied_when_it_is_published() {
        let stopper = Stopper::default();
        stopper.stop();
        let flag = Arc::new(AtomicBool::new(false));
        assert!(stopper.publish(Some(flag.clone())));
        assert!(flag.load(Ordering::SeqCst));
    }

    #[test]
    fn a_stop_after_the_flag_sets_it_at_once() {
        let flag = Arc::new(AtomicBool::new(false));
        let stopper = Stopper::of(Some(flag.clone()));
        assert!(!flag.load(Ordering::SeqCst));
        stopper.stop();
        assert!(flag.load(Ordering::SeqCst));
    }

    #[test]
    fn without_a_flag_a_stop_is_only_remembered() {
        let stopper = Stopper::of(None);
        stopper.stop();
        assert!(stopper.publish(None));
    }
}
