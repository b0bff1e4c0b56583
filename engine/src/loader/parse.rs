//! Reading a load's files in parallel: each worker takes the next unread
//! file and parses it whole, turning each record at once into what the
//! load keeps of it (`prepare`: a relationship's ends resolved, its
//! strings dropped), so parsing, decompressing and resolving run on every
//! core while the store's bulk path applies the results afterwards in file
//! order (node files first, as `source::open_all` ordered them).
//!
//! Why whole files into memory: the bulk path stages a load in memory
//! anyway (one commit), and the items are dropped as soon as they are
//! staged; files are the unit of parallelism, which suits loads of many
//! files (SNB has one per label and type). Preparing in the worker keeps
//! what a file holds in memory small: on a VM, every fresh page a load
//! touches costs far more than the parsing (benches/RESULTS.md).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use nereid_loader_formats::{Error, Record};
use parking_lot::Mutex;

use super::apply::Ended;
use super::source::Input;

/// One file's items in file order: prepared records, and row errors in
/// place (a broken stream ends the file with its error).
pub(crate) struct Parsed<T> {
    pub(crate) name: String,
    pub(crate) items: Vec<Result<T, Error>>,
}

/// Rows between checks of the cancel flag.
const CANCEL_EVERY: usize = 4096;

/// Bytes a row of an uncompressed file takes at least, in the estimate
/// that reserves its records at once.
const ROW_BYTES: u64 = 16;

/// Address space reserved at most per file for its records.
const RESERVE_BYTES: usize = 256 << 20;

/// Rows to reserve for an uncompressed file: doubling a vector of a few
/// hundred megabytes writes (faults in, zeroes) it all again, while
/// address space reserved but never written costs no memory. Bounded, so
/// a huge file regrows instead; compressed files grow as they are read.
fn rows_to_reserve<T>(name: &str) -> usize {
    if !name.ends_with(".csv") {
        return 0;
    }
    let rows = std::fs::metadata(name).map_or(0, |m| m.len() / ROW_BYTES) as usize;
    rows.min(RESERVE_BYTES / std::mem::size_of::<Result<T, Error>>())
}

/// Parses `inputs` on up to `threads` threads, each record turned into
/// an item by the worker's own `preparer()` (so it can keep scratch
/// buffers); the result keeps the inputs' order.
pub(crate) fn parse_all<T, P>(
    inputs: Vec<Input>,
    threads: usize,
    cancel: &AtomicBool,
    preparer: impl Fn() -> P + Sync,
) -> Result<Vec<Parsed<T>>, Ended>
where
    T: Send,
    P: FnMut(Record) -> T,
{
    let count = inputs.len();
    let queue: Mutex<VecDeque<(usize, Input)>> =
        Mutex::new(inputs.into_iter().enumerate().collect());
    let done: Mutex<Vec<Option<Parsed<T>>>> = Mutex::new((0..count).map(|_| None).collect());
    let work = || {
        let mut prepare = preparer();
        loop {
            let Some((at, Input { name, reader, .. })) = queue.lock().pop_front() else {
                return;
            };
            let mut items = Vec::with_capacity(rows_to_reserve::<T>(&name));
            for item in reader {
                if items.len() % CANCEL_EVERY == 0 && cancel.load(Ordering::Relaxed) {
                    return;
                }
                items.push(item.map(&mut prepare));
            }
            done.lock()[at] = Some(Parsed { name, items });
        }
    };
    thread::scope(|scope| {
        for _ in 1..threads.clamp(1, count.max(1)) {
            scope.spawn(work);
        }
        work();
    });
    if cancel.load(Ordering::Relaxed) {
        return Err(Ended::Cancelled);
    }
    Ok(done.into_inner().into_iter().flatten().collect())
}
