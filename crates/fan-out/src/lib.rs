//! Work items run on a few threads, the heaviest first, their results
//! kept in the items' order: a bulk load's files or pieces of them
//! (docs/adr/0203-load-read-in-pieces-largest-first.md), and its edge
//! cells as they are ordered (storage's bulk path). Shared by the engine
//! and the store, which does not depend on the engine.
//!
//! Why the heaviest first: a load's files differ in size by three orders
//! of magnitude (SNB: 1.6 KB to 18 MB), and with files taken in name
//! order a large one taken last leaves the other cores idle while one
//! thread finishes it. Taking them by decreasing weight (longest
//! processing time first) leaves at the end only small items, which
//! even out the threads' finishing times.

use std::thread;

use parking_lot::Mutex;

/// Runs `work` (each thread's own, made by `worker()`, so it can keep
/// scratch state) on every item of `items` on up to `threads` threads
/// (this one included), items of larger `weight` first; the results come
/// in the items' order. A `None` from `work` (cancelled) leaves that
/// result out.
pub fn fan_out<I, O, W>(
    items: Vec<I>,
    threads: usize,
    weight: impl Fn(&I) -> u64,
    worker: impl Fn() -> W + Sync,
) -> Vec<O>
where
    I: Send,
    O: Send,
    W: FnMut(I) -> Option<O>,
{
    let count = items.len();
    let mut queue: Vec<(u64, usize, I)> = items
        .into_iter()
        .enumerate()
        .map(|(at, item)| (weight(&item), at, item))
        .collect();
    // Popped from the end: the lightest go to the front; among equals
    // the earlier item goes first (a stable order, so runs repeat).
    queue.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let queue = Mutex::new(queue);
    let done: Mutex<Vec<Option<O>>> = Mutex::new((0..count).map(|_| None).collect());
    let run = || {
        let mut work = worker();
        loop {
            let Some((_, at, item)) = queue.lock().pop() else {
                return;
            };
            let out = work(item);
            done.lock()[at] = out;
        }
    };
    thread::scope(|scope| {
        for _ in 1..threads.clamp(1, count.max(1)) {
            scope.spawn(run);
        }
        run();
    });
    done.into_inner().into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_keep_the_items_order_whatever_ran_first() {
        for threads in [1, 2, 5] {
            let items: Vec<u64> = vec![3, 90, 1, 90, 7, 0, 42];
            let started = AtomicUsize::new(0);
            let order = Mutex::new(Vec::new());
            let out = fan_out(
                items.clone(),
                threads,
                |i| *i,
                || {
                    |i: u64| {
                        started.fetch_add(1, Ordering::Relaxed);
                        order.lock().push(i);
                        Some(i * 2)
                    }
                },
            );
            assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
            assert_eq!(started.load(Ordering::Relaxed), items.len());
            if threads == 1 {
                // One thread takes them strictly by decreasing weight.
                assert_eq!(order.into_inner(), vec![90, 90, 42, 7, 3, 1, 0]);
            }
        }
    }

    #[test]
    fn a_none_is_left_out() {
        let out = fan_out(
            (0..10).collect(),
            2,
            |_| 1,
            || |i: u32| (!i.is_multiple_of(3)).then_some(i),
        );
        assert_eq!(out, vec![1, 2, 4, 5, 7, 8]);
    }
}
