//! Runs every file under `tests/data/<format>/` through the reader and
//! compares what it yields (records and errors, one per line) with the
//! `.expected` file beside it. `NEREID_BLESS=1` rewrites the expectations;
//! review the diff before committing it.
//!
//! A file named `*.pipe.csv` is read with `|` as the field delimiter.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use nereid_loader_formats::{Format, Options, Reader, Record};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// What the reader makes of one file, as text.
fn render(path: &Path, format: Format) -> String {
    let mut options = Options::default();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    if name.ends_with(".pipe.csv") {
        options.delimiter = b'|';
    }
    let bytes = std::fs::read(path).unwrap();
    let mut out = String::new();
    let reader = match Reader::new(&name, &bytes[..], format, &options) {
        Ok(r) => r,
        Err(e) => return format!("error {e}\n"),
    };
    for p in reader.header().properties() {
        writeln!(
            out,
            "property {} {:?}{} {:?}",
            p.name,
            p.value_type,
            if p.array { "[]" } else { "" },
            p.cardinality
        )
        .unwrap();
    }
    for item in reader {
        match item {
            Ok(Record::Node(n)) => {
                writeln!(
                    out,
                    "node line {} id {:?} space {:?} labels {:?}",
                    n.line, n.id, n.id_space, n.labels
                )
                .unwrap();
                for (k, v) in n.properties {
                    writeln!(out, "  {k} = {v:?}").unwrap();
                }
            }
            Ok(Record::Relationship(r)) => {
                writeln!(
                    out,
                    "relationship line {} id {:?} ({:?} {:?})-[{}]->({:?} {:?})",
                    r.line, r.id, r.start_space, r.start, r.rel_type, r.end_space, r.end
                )
                .unwrap();
                for (k, v) in r.properties {
                    writeln!(out, "  {k} = {v:?}").unwrap();
                }
            }
            Err(e) => writeln!(
                out,
                "error{} {e}",
                if e.is_row_error() { "" } else { " (fatal)" }
            )
            .unwrap(),
        }
    }
    out
}

#[test]
fn every_data_file_reads_as_expected() {
    let bless = std::env::var_os("NEREID_BLESS").is_some();
    let mut failures = Vec::new();
    let mut count = 0;
    for (dir, format) in [
        ("opencypher", Format::OpenCypher),
        ("csv", Format::NeptuneCsv),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "csv"))
            .collect();
        files.sort();
        for path in files {
            count += 1;
            let got = render(&path, format);
            let expected_path = path.with_extension("expected");
            if bless {
                std::fs::write(&expected_path, &got).unwrap();
                continue;
            }
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if got != expected {
                failures.push(format!(
                    "{}:\n--- expected\n{expected}--- got\n{got}",
                    path.display()
                ));
            }
        }
    }
    assert!(count > 20, "only {count} data files found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
