//! `blocking(f)`: runs `f`, which sleeps until *another* thread's work is
//! done (a write waiting for another transaction's commit, ADR 0126),
//! telling the thread's pool first.
//!
//! Why: a pool with a fixed number of workers for some work (the server's
//! long lane, ADR 0082) deadlocks when every such worker sleeps waiting for
//! work that only such a worker can run. The pool installs a [`Pool`] on
//! its threads; while one of them sleeps inside `blocking`, the pool lets
//! another thread take its place. Threads without a pool (tests, embedding
//! programs) just run `f`. The hook is per thread, never global: a library
//! calling `blocking` does not know, or need, the pool.

use std::cell::RefCell;
use std::sync::Arc;

/// What a thread pool does when one of its threads starts and stops
/// sleeping on another thread's work.
pub trait Pool: Send + Sync {
    fn blocked(&self);
    fn unblocked(&self);
}

thread_local! {
    static POOL: RefCell<Option<Arc<dyn Pool>>> = const { RefCell::new(None) };
}

/// Makes `pool` the current thread's pool (a pool calls it on each of its
/// threads before it runs work).
pub fn install(pool: Arc<dyn Pool>) {
    POOL.with(|p| *p.borrow_mut() = Some(pool));
}

/// Runs `f`, which sleeps until another thread's work is done, with the
/// current thread's pool told (and told again when `f` returns or
/// unwinds).
pub fn blocking<R>(f: impl FnOnce() -> R) -> R {
    let Some(pool) = POOL.with(|p| p.borrow().clone()) else {
        return f();
    };
    pool.blocked();
    let _unblock = Unblock(pool);
    f()
}

struct Unblock(Arc<dyn Pool>);

impl Drop for Unblock {
    fn drop(&mut self) {
        self.0.unblocked();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicI64, Ordering};

    #[derive(Default)]
    struct Counting(AtomicI64, AtomicI64);

    impl Pool for Counting {
        fn blocked(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
        fn unblocked(&self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn the_installed_pool_is_told_around_the_sleep_and_others_are_not() {
        assert_eq!(blocking(|| 7), 7, "no pool: just runs");
        let pool = Arc::new(Counting::default());
        install(pool.clone());
        let seen = blocking(|| pool.0.load(Ordering::SeqCst) - pool.1.load(Ordering::SeqCst));
        assert_eq!(seen, 1, "told before the sleep");
        assert_eq!(pool.1.load(Ordering::SeqCst), 1, "and after it");
        let other = std::thread::spawn(|| blocking(|| 1)).join().unwrap();
        assert_eq!(other, 1);
        assert_eq!(
            pool.0.load(Ordering::SeqCst),
            1,
            "another thread has no pool"
        );
    }
}
