//! Reads every file given (directories: every file in them) and prints
//! rows, property values and the rate: a quick check of a converted data
//! set and of the parser's speed outside criterion.
//!
//! `cargo run --release -p nereid-loader-formats --example read -- [--csv] PATH...`

use std::path::PathBuf;
use std::time::Instant;

use nereid_loader_formats::{Format, Options, Reader, Record};

fn main() {
    let mut format = Format::OpenCypher;
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg == "--csv" {
            format = Format::NeptuneCsv;
            continue;
        }
        let path = PathBuf::from(arg);
        if path.is_dir() {
            let mut inner: Vec<PathBuf> = std::fs::read_dir(&path)
                .expect("read dir")
                .map(|e| e.expect("entry").path())
                .collect();
            inner.sort();
            files.extend(inner);
        } else {
            files.push(path);
        }
    }
    let started = Instant::now();
    let (mut rows, mut values, mut errors) = (0u64, 0u64, 0u64);
    for path in &files {
        let reader = match Reader::open(path, format, &Options::default()) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("{e}");
                errors += 1;
                continue;
            }
        };
        for item in reader {
            match item {
                Ok(Record::Node(n)) => {
                    rows += 1;
                    values += n.properties.len() as u64;
                }
                Ok(Record::Relationship(r)) => {
                    rows += 1;
                    values += r.properties.len() as u64;
                }
                Err(e) => {
                    errors += 1;
                    if errors <= 10 {
                        eprintln!("{e}");
                    }
                }
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} files, {rows} rows, {values} property values, {errors} errors in {seconds:.3} s: {:.2} M rows/s, {:.2} M values/s",
        files.len(),
        rows as f64 / seconds / 1e6,
        values as f64 / seconds / 1e6
    );
}
