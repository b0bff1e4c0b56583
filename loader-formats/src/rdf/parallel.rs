//! One N-Triples or N-Quads document parsed on several threads while it is
//! read: the input is read in pieces of about [`PIECE_BYTES`], each cut
//! just after its last line feed (a statement of either syntax never spans
//! lines: its strings escape line breaks), each piece parsed and grouped by
//! subject on a worker thread, and the groups handed back in document order
//! as they are ready (docs/adr/0150-rdf-parsed-in-pieces-while-read.md).
//!
//! No copy of the whole document is ever held: a few pieces are in flight
//! at a time, their buffers reused. A consumer that merges each group as it
//! comes (the bulk loader) holds only the merged rows and the groups in
//! flight, not every group of the document.
//!
//! A subject whose triples straddle a cut, or an object named in several
//! pieces, gives one vertex record per piece: the loader merges records of
//! one IRI (as it merges them across files), so the graph is the one a
//! single pass gives. An error's line is counted from the document's
//! start; the column needs nothing, since pieces start at a line.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use oxttl::{NQuadsParser, NTriplesParser, TurtleSyntaxError};

use super::{in_default_graph, lines, Group, Grouping};

/// Bytes a piece holds at least (unless the document ends first): a
/// document of one piece is parsed on the reading thread, where starting
/// threads would cost more than it saves. Larger pieces name fewer vertex
/// records twice (an object met in several pieces is a record in each);
/// smaller ones hold less memory in flight.
pub(super) const PIECE_BYTES: usize = 8 << 20;

/// Bytes a statement line takes, in the estimate that reserves a piece's
/// records at once (too many reserves address space no page is written
/// in; too few regrows the vectors, copying them).
const LINE_BYTES: usize = 128;

/// What reading or parsing a document failed on.
pub(super) enum PieceError {
    /// A syntax error and the line its piece starts on (0-based).
    Syntax {
        error: TurtleSyntaxError,
        lines_before: u64,
    },
    Io(std::io::Error),
}

/// A piece to parse: its place in the document and its bytes.
struct Job {
    at: u64,
    bytes: Vec<u8>,
}

/// A parsed piece: its place, its line count, its bytes (for reuse) and
/// its group or error.
struct Done {
    at: u64,
    lines: u64,
    bytes: Vec<u8>,
    /// A worker's panic is carried here and resumed by the reading
    /// thread, which would otherwise wait for the piece forever.
    parsed: std::thread::Result<Result<Group, TurtleSyntaxError>>,
}

/// The worker threads of one document and their queues.
struct Workers {
    jobs: Option<Sender<Job>>,
    /// Set when the document is no longer wanted: pieces still queued are
    /// left unparsed.
    stop: Arc<AtomicBool>,
    done: Receiver<Done>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    fn start(threads: usize, quads: bool, grouping: &Grouping) -> Workers {
        let (jobs, queue) = channel::<Job>();
        let (finished, done) = channel();
        let queue = Arc::new(Mutex::new(queue));
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..threads)
            .map(|_| {
                let queue = queue.clone();
                let stop = stop.clone();
                let finished = finished.clone();
                let grouping = grouping.clone();
                std::thread::spawn(move || loop {
                    let job = match queue.lock() {
                        Ok(queue) => queue.recv(),
                        Err(_) => return,
                    };
                    let Ok(Job { at, bytes }) = job else { return };
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let parse = || parse_piece(&bytes, quads, &grouping);
                    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(parse));
                    let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
                    let done = Done {
                        at,
                        lines,
                        bytes,
                        parsed,
                    };
                    if finished.send(done).is_err() {
                        return;
                    }
                })
            })
            .collect();
        Workers {
            jobs: Some(jobs),
            stop,
            done,
            threads,
        }
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        // Each worker ends after its current piece.
        self.stop.store(true, Ordering::Relaxed);
        self.jobs = None;
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

/// A document's groups in document order, parsed while it is read.
/// Iterate it; it ends after the first error.
pub(super) struct Pieces<'a> {
    input: Box<dyn Read + Send + 'a>,
    quads: bool,
    grouping: Grouping,
    threads: usize,
    /// Bytes a piece holds at least ([`PIECE_BYTES`]).
    piece_bytes: usize,
    /// Bytes read after the last line feed of the last piece cut.
    carry: Vec<u8>,
    /// Buffers of parsed pieces, reused for the next ones.
    spare: Vec<Vec<u8>>,
    /// The input is read to its end.
    read_all: bool,
    workers: Option<Workers>,
    /// Pieces handed out, and the next one to hand back.
    sent: u64,
    next: u64,
    /// Pieces parsed ahead of their turn.
    early: BTreeMap<u64, Done>,
    lines_before: u64,
    ended: bool,
}

impl<'a> Pieces<'a> {
    /// Parses `input` (N-Quads when `quads`, else N-Triples) into groups
    /// of `grouping` on up to `threads` worker threads.
    pub(super) fn new(
        input: Box<dyn Read + Send + 'a>,
        quads: bool,
        grouping: Grouping,
        threads: usize,
    ) -> Pieces<'a> {
        Pieces {
            input,
            quads,
            grouping,
            threads: threads.max(1),
            piece_bytes: PIECE_BYTES,
            carry: Vec::new(),
            spare: Vec::new(),
            read_all: false,
            workers: None,
            sent: 0,
            next: 0,
            early: BTreeMap::new(),
            lines_before: 0,
            ended: false,
        }
    }

    /// Pieces of about `bytes` instead of [`PIECE_BYTES`].
    #[cfg(test)]
    pub(super) fn with_piece_bytes(mut self, bytes: usize) -> Pieces<'a> {
        self.piece_bytes = bytes;
        self
    }

    /// The next piece of the input, cut after its last line feed (the
    /// last piece ends where the input does); `None` at the end.
    fn read_piece(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        if self.read_all {
            return Ok(None);
        }
        let mut bytes = self.spare.pop().unwrap_or_default();
        bytes.clear();
        bytes.reserve(self.piece_bytes + self.piece_bytes / 8);
        bytes.append(&mut self.carry);
        // Where the search for the last line feed starts: bytes before it
        // were searched already (a line longer than a piece).
        let mut searched = 0;
        loop {
            let want = match bytes.len() < self.piece_bytes {
                true => self.piece_bytes - bytes.len(),
                false => bytes.len() / 4,
            };
            let got = (&mut self.input)
                .take(want.max(4 << 10) as u64)
                .read_to_end(&mut bytes)?;
            if got == 0 {
                self.read_all = true;
                break;
            }
            if bytes.len() < self.piece_bytes {
                continue;
            }
            match memchr::memrchr(b'\n', &bytes[searched..]) {
                Some(feed) => {
                    let end = searched + feed + 1;
                    self.carry.extend_from_slice(&bytes[end..]);
                    bytes.truncate(end);
                    break;
                }
                None => searched = bytes.len(),
            }
        }
        Ok((!bytes.is_empty()).then_some(bytes))
    }

    /// Hands out pieces until enough are in flight; answers the one piece
    /// of a document that is no longer than a piece, parsed here.
    fn fill(&mut self) -> std::io::Result<Option<Done>> {
        while self.sent - self.next < 2 * self.threads as u64 {
            let Some(bytes) = self.read_piece()? else {
                break;
            };
            if self.sent == 0 && self.read_all {
                let parsed = Ok(parse_piece(&bytes, self.quads, &self.grouping));
                self.sent = 1;
                return Ok(Some(Done {
                    at: 0,
                    lines: 0,
                    bytes,
                    parsed,
                }));
            }
            let (threads, quads) = (self.threads, self.quads);
            let grouping = &self.grouping;
            let workers = self
                .workers
                .get_or_insert_with(|| Workers::start(threads, quads, grouping));
            let job = Job {
                at: self.sent,
                bytes,
            };
            match &workers.jobs {
                Some(jobs) if jobs.send(job).is_ok() => {}
                _ => return Err(stopped()),
            }
            self.sent += 1;
        }
        Ok(None)
    }

    /// The piece whose turn it is, waiting for it if needed.
    fn next_done(&mut self) -> std::io::Result<Option<Done>> {
        if let Some(done) = self.fill()? {
            return Ok(Some(done));
        }
        if self.next == self.sent {
            return Ok(None);
        }
        loop {
            if let Some(done) = self.early.remove(&self.next) {
                return Ok(Some(done));
            }
            let Some(workers) = &self.workers else {
                return Ok(None);
            };
            match workers.done.recv() {
                Ok(done) if done.at == self.next => return Ok(Some(done)),
                Ok(done) => {
                    self.early.insert(done.at, done);
                }
                Err(_) => return Err(stopped()),
            }
        }
    }
}

impl Iterator for Pieces<'_> {
    type Item = Result<Group, PieceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        let done = match self.next_done() {
            Ok(Some(done)) => done,
            Ok(None) => {
                self.ended = true;
                self.workers = None;
                self.spare = Vec::new();
                return None;
            }
            Err(e) => {
                self.ended = true;
                self.workers = None;
                return Some(Err(PieceError::Io(e)));
            }
        };
        self.next += 1;
        let lines_before = self.lines_before;
        self.lines_before += done.lines;
        self.spare.push(done.bytes);
        let parsed = done
            .parsed
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        match parsed {
            Ok(group) => Some(Ok(group)),
            Err(error) => {
                self.ended = true;
                self.workers = None;
                Some(Err(PieceError::Syntax {
                    error,
                    lines_before,
                }))
            }
        }
    }
}

fn stopped() -> std::io::Error {
    std::io::Error::other("the RDF parse workers stopped")
}

fn parse_piece(piece: &[u8], quads: bool, grouping: &Grouping) -> Result<Group, TurtleSyntaxError> {
    if let Some(group) = parse_borrowed(piece, quads, grouping) {
        return Ok(group);
    }
    if let Some(group) = parse_lenient(piece, quads, grouping) {
        return Ok(group);
    }
    let mut grouped = grouping.start();
    grouped.reserve(piece.len() / LINE_BYTES);
    if quads {
        for quad in NQuadsParser::new().for_slice(piece) {
            grouped.add(quad?, 0);
        }
    } else {
        for triple in NTriplesParser::new().for_slice(piece) {
            grouped.add(in_default_graph(triple?), 0);
        }
    }
    Ok(grouped)
}

/// A piece read by `lines.rs`, its terms borrowed from the piece, for a
/// numbered group (which checks each distinct IRI and language tag once,
/// as for [`parse_lenient`]); `None` when the piece holds anything that
/// reader leaves to oxttl, or anything the group refuses.
fn parse_borrowed(piece: &[u8], quads: bool, grouping: &Grouping) -> Option<Group> {
    let Some(Group::Numbered(mut numbered)) = grouping.start_checking() else {
        return None;
    };
    numbered.reserve(piece.len() / LINE_BYTES);
    let numbers = numbered.numbers();
    let ahead = |iri: &str| numbers.prefetch(iri);
    lines::each_statement_ahead(piece, quads, ahead, |quad| numbered.add(quad, 0))
        .then_some(Group::Numbered(numbered))
}

/// A piece parsed by oxttl's lenient parse, for a numbered group, which
/// checks each distinct IRI and language tag once instead of at every
/// mention (IRI checks were a quarter of a worker's time); `None` when
/// anything fails or may differ from the strict parse, which then parses
/// the piece again for its error and its place (or finds it valid).
/// Lenient oxttl also reads a `\u` escape pair of UTF-16 surrogates,
/// which the strict parse refuses: a piece with `\uD` or `\ud` in it is
/// left to the strict one.
fn parse_lenient(piece: &[u8], quads: bool, grouping: &Grouping) -> Option<Group> {
    let mut grouped = grouping.start_checking()?;
    if memchr::memmem::find(piece, b"\\uD").is_some()
        || memchr::memmem::find(piece, b"\\ud").is_some()
    {
        return None;
    }
    grouped.reserve(piece.len() / LINE_BYTES);
    if quads {
        for quad in NQuadsParser::new().lenient().for_slice(piece) {
            if !grouped.add(quad.ok()?, 0) {
                return None;
            }
        }
    } else {
        for triple in NTriplesParser::new().lenient().for_slice(piece) {
            if !grouped.add(in_default_graph(triple.ok()?), 0) {
                return None;
            }
        }
    }
    Some(grouped)
}
