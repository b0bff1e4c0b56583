//! One uncompressed file read as pieces by several readers at once
//! (docs/adr/0203-load-read-in-pieces-largest-first.md).
//!
//! Why pieces are checked, not trusted: a piece starts at the first line
//! start after a cut, but a quoted field may hold line breaks, so that
//! line start may lie inside a row, and whether it does depends on every
//! byte before it (a quote inside an unquoted field is data, so no count
//! of quotes decides it). Instead, the reader of the piece before reads
//! on until the first row that begins at or past the next piece's start
//! ([`Reader::stop_at`]): when that row begins exactly there, the next
//! piece began at a row, and its rows are the file's; when it begins past
//! it, the next piece is thrown away and this reader's rows stand for it
//! (it goes on to the piece after). Rows are exactly those of one reader
//! of the whole file, the common case (no line break inside a field near
//! a cut) reading each byte once. A piece's lines count from its own
//! first line, until the reader before it tells which line that is
//! ([`Reached::line`], [`crate::Error::shift_lines`]).

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::sync::{Arc, OnceLock};

use crate::reader::{Names, Reader};
use crate::split::Splitter;

/// Where a reader of a piece stopped: before the row beginning at file
/// offset `offset` (another piece's start), which begins on physical
/// line `line` counted from the reader's first line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reached {
    pub offset: u64,
    pub line: u64,
}

/// The starts of the pieces after a reader's, and where it stopped.
pub(crate) struct PieceEnd {
    /// The stream's first byte's file offset.
    origin: u64,
    /// The later pieces' starts, the nearest last.
    ahead: Vec<u64>,
    reached: Arc<OnceLock<Reached>>,
}

impl<'a> Reader<'a> {
    /// This (uncompressed) file's rows from `input`, which holds the
    /// file's bytes from offset `start` on; lines are counted from 1 at
    /// `start`. The header stays the one this reader read.
    pub fn rows_from<'b, R: Read + Send + 'b>(self, input: R, start: u64) -> Reader<'b> {
        let delimiter = self.splitter.delimiter();
        let quote = self.splitter.quote();
        Reader {
            file: self.file,
            splitter: Splitter::new(Box::new(input), delimiter, quote),
            compressed: false,
            format: self.format,
            array_delimiter: self.array_delimiter,
            header: self.header,
            header_names: self.header_names,
            names: Names::new(),
            decimal_ends: self.decimal_ends,
            spaces_apart: self.spaces_apart,
            done: false,
            piece: Some(PieceEnd {
                origin: start,
                ahead: Vec::new(),
                reached: Arc::default(),
            }),
        }
    }

    /// Ends the rows before the first row that begins at one of `starts`
    /// (the later pieces' file offsets, ascending), recording where in
    /// `reached`; a row that begins past a start without one beginning at
    /// it passes that start by. Nothing is recorded when the file (or its
    /// stream) ends first.
    pub fn stop_at(mut self, starts: &[u64], reached: Arc<OnceLock<Reached>>) -> Self {
        let origin = self.piece.as_ref().map_or(0, |p| p.origin);
        self.piece = Some(PieceEnd {
            origin,
            ahead: starts.iter().rev().copied().collect(),
            reached,
        });
        self
    }

    /// Whether the next row begins at a later piece's start (recorded).
    pub(crate) fn stops_here(&mut self) -> bool {
        let Some(piece) = &mut self.piece else {
            return false;
        };
        let at = piece.origin + self.splitter.offset();
        while let Some(&start) = piece.ahead.last() {
            if at < start {
                return false;
            }
            piece.ahead.pop();
            if at == start {
                let line = self.splitter.line();
                let _ = piece.reached.set(Reached { offset: at, line });
                return true;
            }
        }
        false
    }
}

/// The starts of `pieces` pieces of `file` (of `size` bytes) after its
/// first, which starts at 0: each the first line start at or after an
/// equal cut, ascending, none repeated, none at the end of the file (so
/// there may be fewer).
pub fn piece_starts(file: &File, size: u64, pieces: u64) -> io::Result<Vec<u64>> {
    let mut starts: Vec<u64> = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    for k in 1..pieces {
        let cut = size * k / pieces;
        let mut at = cut
            .saturating_sub(1)
            .max(starts.last().copied().unwrap_or(0));
        let start = loop {
            let n = file.read_at(&mut chunk, at)?;
            if n == 0 {
                break None;
            }
            if let Some(i) = memchr::memchr(b'\n', &chunk[..n]) {
                break Some(at + i as u64 + 1);
            }
            at += n as u64;
        };
        match start {
            Some(start) if start < size && starts.last() < Some(&start) => starts.push(start),
            Some(_) => {}
            None => break,
        }
    }
    Ok(starts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Format, Options, Record};

    const TEXT: &str = ":ID,name\n1,a\n2,\"b\nb\"\n3,c\n";

    #[test]
    fn pieces_start_at_line_starts() {
        let path = std::env::temp_dir().join(format!("pieces-{}.csv", std::process::id()));
        std::fs::write(&path, TEXT).unwrap();
        let file = File::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let size = TEXT.len() as u64;
        let starts = piece_starts(&file, size, 4).unwrap();
        for &start in &starts {
            assert_eq!(TEXT.as_bytes()[start as usize - 1], b'\n', "{start}");
        }
        assert!(starts.windows(2).all(|w| w[0] < w[1]), "{starts:?}");
        assert!(starts.iter().all(|&s| s < size));
        // Every line start is found by a cut just before it.
        let all = piece_starts(&file, size, size).unwrap();
        assert_eq!(all, [9, 13, 18, 21]);
    }

    fn ids(reader: Reader<'_>) -> Vec<String> {
        reader
            .map(|r| match r.unwrap() {
                Record::Node(n) => format!("{}@{}", n.id, n.line),
                Record::Relationship(_) => unreachable!(),
            })
            .collect()
    }

    #[test]
    fn a_reader_stops_at_the_first_row_beginning_at_a_later_start() {
        let open = || {
            Reader::new(
                "f.csv",
                TEXT.as_bytes(),
                Format::OpenCypher,
                &Options::default(),
            )
        };
        // 18 lies inside the quoted field of row 2: passed by; 21 is row 3.
        let reached = Arc::default();
        let first = open().unwrap().stop_at(&[18, 21], Arc::clone(&reached));
        assert_eq!(ids(first), ["1@2", "2@3"]);
        assert_eq!(
            reached.get(),
            Some(&Reached {
                offset: 21,
                line: 5
            })
        );
        // The piece from 21 counts its lines from 1.
        let rest = open().unwrap().rows_from(&TEXT.as_bytes()[21..], 21);
        assert_eq!(ids(rest), ["3@1"]);
        // A start no row begins at records nothing.
        let reached = Arc::default();
        let all = open().unwrap().stop_at(&[18], Arc::clone(&reached));
        assert_eq!(ids(all), ["1@2", "2@3", "3@5"]);
        assert_eq!(reached.get(), None);
    }
}
