//! Reading a load's CSV files in parallel: each worker takes the largest
//! unread input (`nereid_fan_out`), a file or a piece of a large one, and
//! parses it whole, turning each record at once into the row the store
//! takes (`prepare`: a node's id spelled as its vertex key,
//! a relationship's ends resolved, its strings dropped), so parsing,
//! decompressing and resolving run on every core, and the store's bulk
//! path takes each file's rows where the worker put them, in file order
//! (node files first, as `source::open_all` ordered them).
//!
//! Why rows and failures apart: a file's rows are one vector of exactly
//! what the store takes, with no room for an error in each (an error is
//! larger than a row) and no second copy on the way in; the few failures
//! keep their place by the number of rows before them, so they are
//! reported in file order as before (docs/adr/0127-rows-staged-in-place.md).
//! Files are the unit of parallelism, cut into pieces only when large
//! (docs/adr/0203-load-read-in-pieces-largest-first.md): every piece is
//! a row vector more, and on a VM every fresh page a load touches costs
//! more than the parsing (benches/RESULTS.md).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};

use nereid_fan_out::fan_out;
use nereid_loader_formats::Record;

use super::apply::{report, Ended, Failure, RowError};
use super::progress::Progress;
use super::source::{EndSpaces, Input, Piece};

/// One file's prepared rows in file order, and its failures, each after
/// the number of rows that came before it (a broken stream ends the file
/// with its error).
pub(crate) struct Parsed<T> {
    pub(crate) name: String,
    pub(crate) rows: Vec<T>,
    pub(crate) failures: Vec<(usize, Failure)>,
    /// The property values of its rows, counted as they were made (a
    /// later pass over a file's rows reads them from memory again).
    pub(crate) values: usize,
    /// The piece of its file it holds, if the file was read in pieces.
    piece: Option<Piece>,
    /// The lines of its file before its first (a piece's rows and errors
    /// count lines from the piece's first until [`stitch`] learns it).
    pub(crate) line_shift: u64,
    /// Whether it is the last of its file's pieces kept (or a whole file).
    ends_file: bool,
}

/// A prepared row: how many property values it loads.
pub(crate) trait Row {
    fn values(&self) -> usize;
}

/// Rows between checks of the cancel flag.
const CANCEL_EVERY: usize = 4096;

/// Records a worker reads before it prepares the first of them: far
/// enough for the cache misses `ahead` asked for to complete meanwhile,
/// near enough that the lines are still cached when used.
const READ_AHEAD: usize = 8;

/// Bytes a row of an uncompressed file takes at least, in the estimate
/// that reserves its rows at once.
const ROW_BYTES: u64 = 16;

/// Address space reserved at most per file for its rows.
const RESERVE_BYTES: usize = 256 << 20;

/// Rows to reserve for an uncompressed file (or piece) of `size` bytes: doubling a vector of a few
/// hundred megabytes writes (faults in, zeroes) it all again, while
/// address space reserved but never written costs no memory. Bounded, so
/// a huge file regrows instead; compressed files grow as they are read.
fn rows_to_reserve<T>(name: &str, size: u64) -> usize {
    if !name.ends_with(".csv") {
        return 0;
    }
    let rows = (size / ROW_BYTES) as usize;
    rows.min(RESERVE_BYTES / std::mem::size_of::<T>().max(1))
}

/// Parses `inputs` on up to `threads` threads, each record turned into
/// a row by the worker's own `preparer()` (so it can keep scratch
/// buffers), which is also handed its file's [`EndSpaces`]; the result
/// keeps the inputs' order. `ahead`, if given, sees each record
/// [`READ_AHEAD`] records before it is prepared (to prefetch what
/// preparing it will read: a relationship's ends in the load's id index);
/// without it each record is prepared as soon as it is read.
pub(crate) fn parse_all<T, P>(
    inputs: Vec<Input>,
    threads: usize,
    cancel: &AtomicBool,
    preparer: impl Fn() -> P + Sync,
    ahead: Option<&Ahead<'_>>,
) -> Result<Vec<Parsed<T>>, Ended>
where
    T: Row + Send,
    P: FnMut(Record, &EndSpaces) -> Result<T, RowError>,
{
    let worker = || {
        let mut prepare = preparer();
        move |input: Input| parse_one(input, cancel, &mut prepare, ahead)
    };
    let parsed = fan_out(inputs, threads, |input| input.size, worker);
    if cancel.load(Ordering::Relaxed) {
        return Err(Ended::Cancelled);
    }
    Ok(stitch(parsed))
}

/// Keeps of a file read in pieces the pieces that began at a row, as the
/// reader of the piece before each found (`nereid_loader_formats::Reached`;
/// the others' rows are the ones that reader read on), and moves each
/// kept piece's lines on by the lines before it. Whole files pass as
/// they are.
fn stitch<T>(parsed: Vec<Parsed<T>>) -> Vec<Parsed<T>> {
    let mut kept: Vec<Parsed<T>> = Vec::with_capacity(parsed.len());
    // The start of the next piece to keep, and the lines before it.
    let mut next: Option<(u64, u64)> = None;
    for mut file in parsed {
        let Some(piece) = &file.piece else {
            kept.push(file);
            continue;
        };
        if piece.index > 0 {
            match next {
                Some((start, lines)) if start == piece.start => file.line_shift = lines,
                // Its start lay inside a row of the piece before.
                _ => continue,
            }
        }
        let reached = piece.reached.get();
        next = reached.map(|r| (r.offset, file.line_shift + r.line - 1));
        file.ends_file = reached.is_none();
        for (_, failure) in &mut file.failures {
            failure.shift_lines(file.line_shift);
        }
        kept.push(file);
    }
    kept
}

/// What sees a record a few records before it is prepared.
pub(crate) type Ahead<'a> = dyn Fn(&Record, &EndSpaces) + Sync + 'a;

/// One file's rows and failures; `None` when the load was cancelled.
///
/// Why two loops: a record is ~200 bytes, and each pass through the
/// read-ahead queue moves it twice more; only the files that prefetch
/// need the queue (benches/RESULTS.md, session 38). Why a CSV file's
/// reader is iterated as itself ([`super::source::Deferred::csv`]): each
/// layer between the reader and [`Rows::take`] copied every record once
/// more (session 39).
fn parse_one<T, P>(
    Input {
        name,
        reader,
        size,
        piece,
        end_spaces,
        ..
    }: Input,
    cancel: &AtomicBool,
    prepare: &mut P,
    ahead: Option<&Ahead<'_>>,
) -> Option<Parsed<T>>
where
    T: Row,
    P: FnMut(Record, &EndSpaces) -> Result<T, RowError>,
{
    let mut rows = Rows {
        rows: Vec::with_capacity(rows_to_reserve::<T>(&name, size)),
        failures: Vec::new(),
        values: 0,
        cancel,
        prepare,
        end_spaces: &end_spaces,
    };
    let mut reader = reader;
    let read = match reader.csv() {
        Some(csv) => rows.read(csv, ahead),
        None => rows.read(&mut reader, ahead),
    };
    read.then_some(Parsed {
        name,
        rows: rows.rows,
        failures: rows.failures,
        values: rows.values,
        piece,
        line_shift: 0,
        ends_file: true,
    })
}

/// What a worker has made of a file's records so far.
struct Rows<'a, T, P> {
    rows: Vec<T>,
    failures: Vec<(usize, Failure)>,
    values: usize,
    cancel: &'a AtomicBool,
    prepare: &'a mut P,
    end_spaces: &'a EndSpaces,
}

impl<T, P> Rows<'_, T, P>
where
    T: Row,
    P: FnMut(Record, &EndSpaces) -> Result<T, RowError>,
{
    /// Takes every record of `records`, each seen by `ahead` (if given)
    /// [`READ_AHEAD`] records before it is prepared; false when the load
    /// was cancelled.
    fn read(
        &mut self,
        records: &mut impl Iterator<Item = ReadItem>,
        ahead: Option<&Ahead<'_>>,
    ) -> bool {
        match ahead {
            None => {
                // Not `enumerate`: its pairs were one more copy of each
                // record.
                for n in 0.. {
                    let Some(item) = records.next() else { break };
                    if !self.take(n, item) {
                        return false;
                    }
                }
            }
            Some(ahead) => {
                let mut pending = VecDeque::with_capacity(READ_AHEAD);
                for n in 0.. {
                    while pending.len() < READ_AHEAD {
                        let Some(item) = records.next() else { break };
                        if let Ok(record) = &item {
                            ahead(record, self.end_spaces);
                        }
                        pending.push_back(item);
                    }
                    let Some(item) = pending.pop_front() else {
                        break;
                    };
                    if !self.take(n, item) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Prepares record number `n` into a row (or a failure); false when
    /// the load was cancelled.
    #[inline(always)]
    fn take(&mut self, n: usize, item: ReadItem) -> bool {
        if n.is_multiple_of(CANCEL_EVERY) && self.cancel.load(Ordering::Relaxed) {
            return false;
        }
        let row = match item {
            Ok(record) => (self.prepare)(record, self.end_spaces).map_err(Failure::Row),
            Err(e) => Err(Failure::Read(e)),
        };
        match row {
            Ok(row) => {
                self.values += row.values();
                self.rows.push(row);
            }
            Err(failure) => self.failures.push((self.rows.len(), failure)),
        }
        true
    }
}

/// What a reader yields.
type ReadItem = Result<Record, nereid_loader_formats::Error>;

/// Hands every row of `files` in order to `visit`, and reports the files'
/// failures in their places with the load's error policy
/// ([`report`]); a row `visit` refuses is a failure too (the caller
/// leaves it out of the load).
pub(crate) fn walk<'a, T>(
    files: &'a [Parsed<T>],
    fail_on_error: bool,
    progress: &Progress,
    cancel: &AtomicBool,
    mut visit: impl FnMut(&'a T) -> Result<(), RowError>,
) -> Result<(), Ended> {
    for file in files {
        let mut failures = file.failures.iter().peekable();
        let mut report_before = |at: usize| -> Result<(), Ended> {
            while let Some((_, failure)) = failures.next_if(|(before, _)| *before <= at) {
                // A broken stream ends its file: no rows come after it.
                report(&file.name, failure, fail_on_error, progress)?;
            }
            Ok(())
        };
        for (at, row) in file.rows.iter().enumerate() {
            report_before(at)?;
            if at % CANCEL_EVERY == 0 && cancel.load(Ordering::Relaxed) {
                return Err(Ended::Cancelled);
            }
            if let Err(refused) = visit(row) {
                let refused = Failure::Row(refused.shifted(file.line_shift));
                report(&file.name, &refused, fail_on_error, progress)?;
            }
        }
        report_before(file.rows.len())?;
        let items = file.rows.len() + file.failures.len();
        Progress::add(&progress.records, items as u64);
        Progress::add(&progress.files_done, u64::from(file.ends_file));
    }
    Ok(())
}
