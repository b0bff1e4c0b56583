//! `.gz` and `.zst` inputs read like plain ones, chosen by name or by their
//! first bytes, and a truncated compressed file is reported as such.

use std::io::Write;

use nereid_loader_formats::{Error, Format, Options, Reader, Record};

/// Enough rows that a zstd stream holds several blocks.
const ROWS: usize = 100_000;

fn plain() -> Vec<u8> {
    let mut text = String::from("id:ID,n:long,:LABEL\n");
    for i in 0..ROWS {
        text.push_str(&format!("{i},{},L\n", i * 7));
    }
    text.into_bytes()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn zstd(bytes: &[u8]) -> Vec<u8> {
    zstd::encode_all(bytes, 1).unwrap()
}

fn read(name: &str, bytes: &[u8]) -> (usize, Option<Error>) {
    let reader = Reader::new(name, bytes, Format::OpenCypher, &Options::default()).unwrap();
    let mut count = 0;
    for item in reader {
        match item {
            Ok(Record::Node(_)) => count += 1,
            Ok(other) => panic!("{other:?}"),
            Err(e) => return (count, Some(e)),
        }
    }
    (count, None)
}

#[test]
fn compressed_files_read_by_name_or_magic() {
    let plain = plain();
    for (name, bytes) in [
        ("a.csv.gz", gzip(&plain)),
        ("a.csv.zst", zstd(&plain)),
        ("gzip-without-extension", gzip(&plain)),
        ("zstd-without-extension", zstd(&plain)),
        ("a.csv", plain.clone()),
    ] {
        let (count, error) = read(name, &bytes);
        assert!(error.is_none(), "{name}: {error:?}");
        assert_eq!(count, ROWS, "{name}");
    }
}

#[test]
fn a_truncated_stream_is_a_fatal_error_with_a_line() {
    let plain = plain();
    for (name, bytes) in [("a.csv.gz", gzip(&plain)), ("a.csv.zst", zstd(&plain))] {
        let cut = &bytes[..bytes.len() * 3 / 4];
        let (count, error) = read(name, cut);
        assert!(count > 0 && count < ROWS, "{name}: {count}");
        match error {
            Some(e @ Error::Truncated { .. }) => {
                assert!(!e.is_row_error());
                let (line, _) = e.location().unwrap();
                assert!(line > 1, "{name}: {e}");
            }
            other => panic!("{name}: {other:?}"),
        }
    }
}
