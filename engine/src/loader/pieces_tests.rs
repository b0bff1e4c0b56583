//! A file read in pieces (`source.rs`, `parse::stitch`) gives exactly
//! the rows and failures, in order and with the same lines and columns,
//! of one reader of the whole file: random files with quoted fields
//! holding line breaks, delimiters and doubled quotes, quotes inside
//! unquoted fields, CRLF and blank lines, bad values, text after a
//! closing quote and a quote never closed, cut into pieces of random
//! sizes.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use nereid_loader_formats::{Format, InputFormat, Record};

use super::apply::{Failure, RowError};
use super::parse::{parse_all, Parsed, Row};
use super::source::{open_all, Bulk, EndSpaces, InputFile};

/// A record as compared: its line moved on by its piece's lines before
/// it, and everything else it holds.
struct Seen(String);

impl Row for Seen {
    fn values(&self) -> usize {
        1
    }
}

fn seen(record: Record, _: &EndSpaces) -> Result<Seen, RowError> {
    Ok(Seen(format!("{record:?}")))
}

/// Every row and failure of `files` in order, lines as the load reports
/// them (a row's line moved on by its piece's `line_shift`).
fn outcome(files: &[Parsed<Seen>]) -> Vec<String> {
    let mut out = Vec::new();
    for file in files {
        let mut failures = file.failures.iter().peekable();
        for at in 0..=file.rows.len() {
            while let Some((_, failure)) = failures.next_if(|(before, _)| *before <= at) {
                out.push(match failure {
                    Failure::Read(e) => format!("error {e}"),
                    Failure::Row(_) => unreachable!("`seen` refuses nothing"),
                });
            }
            if let Some(row) = file.rows.get(at) {
                out.push(format!("+{} {}", file.line_shift, row.0));
            }
        }
    }
    out
}

/// Lines of a record read relative to its piece, moved to the file's:
/// the `line: n` in its debug text.
fn absolute(entry: &str) -> String {
    let Some(rest) = entry.strip_prefix('+') else {
        return entry.to_string();
    };
    let (shift, record) = rest.split_once(' ').unwrap();
    let shift: u64 = shift.parse().unwrap();
    let at = record.find("line: ").unwrap() + "line: ".len();
    let digits = record[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let line: u64 = record[at..at + digits].parse().unwrap();
    format!(
        "{}{}{}",
        &record[..at],
        line + shift,
        &record[at + digits..]
    )
}

fn read(path: &std::path::Path, piece_bytes: Option<u64>) -> (usize, Vec<String>) {
    let bytes = Arc::default();
    let format = InputFormat::Csv(Format::OpenCypher);
    let file = InputFile::Local(path.to_path_buf());
    let bulk = Bulk {
        piece_bytes: piece_bytes.unwrap_or(u64::MAX),
        workers: 1,
    };
    let inputs = open_all(&[file], format, "b", &bytes, false, None, Some(bulk)).unwrap();
    let pieces = inputs.len();
    let parsed = match parse_all(inputs, 2, &AtomicBool::new(false), || seen, None) {
        Ok(parsed) => parsed,
        Err(_) => panic!("not cancelled"),
    };
    (
        pieces,
        outcome(&parsed).iter().map(|e| absolute(e)).collect(),
    )
}

struct Random(u64);

impl Random {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A field of the `text` column: plain, quoted with the troublesome
/// bytes inside, or broken.
fn text(random: &mut Random) -> String {
    match random.below(12) {
        0 => "\"two\nlines, \"\"quoted\"\"\n\"".into(),
        1 => "\"\n\n\"".into(),
        2 => "a\"b".into(),
        3 => "\"closed\"x".into(),
        4 => "\"\"".into(),
        5 => "\"a,\r\nb\"".into(),
        _ => format!("t{}", random.below(1000)),
    }
}

fn file_text(random: &mut Random, rows: u64) -> String {
    let mut out = String::from(":ID(P),:LABEL,text,n:Int\n");
    for id in 0..rows {
        let n = match random.below(20) {
            0 => "x".to_string(),
            _ => random.below(100).to_string(),
        };
        out.push_str(&format!("{id},P,{},{n}", text(random)));
        out.push_str(match random.below(10) {
            0 => "\r\n",
            1 => "\n\n",
            _ => "\n",
        });
    }
    if random.below(8) == 0 {
        out.push_str("999,P,\"never closed\n1000,P,a,1\n");
    }
    out
}

#[test]
fn a_file_read_in_pieces_reads_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.csv");
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    let mut split = 0;
    for case in 0..150 {
        let rows = 1 + random.below(80);
        let text = file_text(&mut random, rows);
        std::fs::write(&path, &text).unwrap();
        let (one, whole) = read(&path, None);
        assert_eq!(one, 1);
        let piece_bytes = 1 + random.below(text.len() as u64 / 2 + 1);
        let (pieces, in_pieces) = read(&path, Some(piece_bytes));
        split += usize::from(pieces > 1);
        assert_eq!(
            in_pieces, whole,
            "case {case}, pieces of {piece_bytes}:\n{text}"
        );
    }
    assert!(split > 100, "only {split} cases were read in pieces");
}
