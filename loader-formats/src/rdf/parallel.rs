//! One N-Triples or N-Quads document parsed on several threads: the bytes
//! are cut into chunks after line feeds (a statement of either syntax
//! never spans lines: its strings escape line breaks), each chunk is
//! parsed and grouped by subject on its own thread, and the groups are
//! yielded in document order.
//!
//! A subject whose triples straddle a cut, or an object named in several
//! chunks, gives one vertex record per chunk: the loader merges records of
//! one IRI (as it merges them across files), so the graph is the one a
//! single pass gives. An error's line is counted from the document's
//! start; the column needs nothing, since chunks start at a line.

use oxttl::{NQuadsParser, NTriplesParser, TurtleSyntaxError};

use super::group::Grouped;
use super::in_default_graph;

/// Bytes a chunk holds at least: a smaller document is parsed on one
/// thread, where starting threads would cost more than it saves.
const MIN_CHUNK_BYTES: usize = 1 << 20;

/// Bytes a statement line takes, in the estimate that reserves a chunk's
/// records at once (too many reserves address space no page is written
/// in; too few regrows the vectors, copying them).
const LINE_BYTES: usize = 128;

/// Where each chunk of `bytes` ends when cut into about `chunks` pieces,
/// every end just after a line feed (the last one at the end).
pub(super) fn chunk_ends(bytes: &[u8], chunks: usize) -> Vec<usize> {
    let chunks = (bytes.len() / MIN_CHUNK_BYTES).clamp(1, chunks.max(1));
    let step = bytes.len() / chunks;
    let mut ends = Vec::with_capacity(chunks);
    let mut start = 0;
    for _ in 1..chunks {
        let from = start + step;
        let Some(feed) = bytes
            .get(from..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        else {
            break;
        };
        start = from + feed + 1;
        ends.push(start);
    }
    if ends.last() != Some(&bytes.len()) {
        ends.push(bytes.len());
    }
    ends
}

/// A syntax error and the line its chunk starts on (0-based).
pub(super) struct ChunkError {
    pub(super) error: TurtleSyntaxError,
    pub(super) lines_before: u64,
}

/// Parses `bytes` (N-Quads when `quads`, else N-Triples) on up to
/// `threads` threads into one group per chunk, in document order; or the
/// error that comes first in the document.
pub(super) fn parse(
    bytes: &[u8],
    quads: bool,
    blank_scope: &str,
    threads: usize,
) -> Result<Vec<Grouped>, ChunkError> {
    let ends = chunk_ends(bytes, threads);
    let starts = std::iter::once(0).chain(ends.iter().copied());
    let chunks: Vec<&[u8]> = starts.zip(&ends).map(|(s, &e)| &bytes[s..e]).collect();
    let parse_one = |chunk: &[u8]| parse_chunk(chunk, quads, blank_scope);
    let results: Vec<Result<Grouped, TurtleSyntaxError>> = match chunks.as_slice() {
        [one] => vec![parse_one(one)],
        _ => std::thread::scope(|scope| {
            let running: Vec<_> = chunks
                .iter()
                .map(|&chunk| scope.spawn(move || parse_one(chunk)))
                .collect();
            running
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        }),
    };
    let mut groups = Vec::with_capacity(results.len());
    for (at, result) in results.into_iter().enumerate() {
        match result {
            Ok(group) => groups.push(group),
            Err(error) => {
                let before = &bytes[..ends[at] - chunks[at].len()];
                let lines_before = before.iter().filter(|&&b| b == b'\n').count() as u64;
                return Err(ChunkError {
                    error,
                    lines_before,
                });
            }
        }
    }
    Ok(groups)
}

fn parse_chunk(chunk: &[u8], quads: bool, blank_scope: &str) -> Result<Grouped, TurtleSyntaxError> {
    let mut grouped = Grouped::new(blank_scope);
    grouped.reserve(chunk.len() / LINE_BYTES);
    if quads {
        for quad in NQuadsParser::new().for_slice(chunk) {
            grouped.add(quad?, 0);
        }
    } else {
        for triple in NTriplesParser::new().for_slice(chunk) {
            grouped.add(in_default_graph(triple?), 0);
        }
    }
    Ok(grouped)
}
