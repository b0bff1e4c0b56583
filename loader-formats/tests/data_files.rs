//! Runs every file under `tests/data/<format>/` through the reader and
//! compares what it yields (records and errors, one per line) with the
//! `.expected` file beside it. `NEREID_BLESS=1` rewrites the expectations;
//! review the diff before committing it. The RDF directories hold
//! hand-written cases in the spirit of the W3C N-Triples, N-Quads and
//! Turtle test suites: `valid_*` documents map to records, `invalid_*` ones
//! fail whole with a line and column.
//!
//! A file named `*.pipe.csv` is read with `|` as the field delimiter.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use nereid_loader_formats::{Error, Format, Options, RdfReader, RdfSyntax, Reader, Record};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// How the files of one directory are read.
#[derive(Clone, Copy)]
enum Kind {
    Csv(Format),
    Rdf(RdfSyntax),
}

/// What the reader makes of one file, as text.
fn render(path: &Path, kind: Kind) -> String {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let bytes = std::fs::read(path).unwrap();
    let mut out = String::new();
    let format = match kind {
        Kind::Csv(format) => format,
        Kind::Rdf(syntax) => {
            return match RdfReader::new(&name, &bytes[..], syntax, "t") {
                Ok(reader) => number_anonymous_blank_nodes(&render_records(reader, out)),
                Err(e) => format!("error {e}\n"),
            }
        }
    };
    let mut options = Options::default();
    if name.ends_with(".pipe.csv") {
        options.delimiter = b'|';
    }
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
    render_records(reader, out)
}

/// Turtle's anonymous blank nodes (`[ ]`, collections) get random ids from
/// the parser: each is renamed `_:t_anon<n>` in order of first appearance,
/// so the expectation is stable. Named blank nodes (`_:t_a`) keep theirs.
fn number_anonymous_blank_nodes(text: &str) -> String {
    let mut names: Vec<String> = Vec::new();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("_:t_") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 4..];
        let hex = after
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(after.len());
        if hex >= 16 {
            let id = &after[..hex];
            let n = match names.iter().position(|known| known == id) {
                Some(n) => n,
                None => {
                    names.push(id.to_string());
                    names.len() - 1
                }
            };
            write!(out, "_:t_anon{n}").unwrap();
            rest = &after[hex..];
        } else {
            out.push_str("_:t_");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// The records and errors, one per line (properties indented), after `out`.
fn render_records(reader: impl Iterator<Item = Result<Record, Error>>, mut out: String) -> String {
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
    for (dir, extension, kind) in [
        ("opencypher", "csv", Kind::Csv(Format::OpenCypher)),
        ("csv", "csv", Kind::Csv(Format::NeptuneCsv)),
        ("ntriples", "nt", Kind::Rdf(RdfSyntax::NTriples)),
        ("nquads", "nq", Kind::Rdf(RdfSyntax::NQuads)),
        ("turtle", "ttl", Kind::Rdf(RdfSyntax::Turtle)),
    ] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(data_dir().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == extension))
            .collect();
        files.sort();
        for path in files {
            count += 1;
            let got = render(&path, kind);
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

/// The errors `reader` yields, as text.
fn errors(reader: impl Iterator<Item = Result<Record, Error>>) -> Vec<String> {
    reader
        .filter_map(|item| item.err().map(|e| e.to_string()))
        .collect()
}

/// The bulk loader's numbering reader parses N-Triples and N-Quads with
/// oxttl's lenient parse and checks each distinct IRI and language tag
/// itself: it must refuse exactly what the plain (strict) reader refuses,
/// with the same error and place, and accept what it accepts.
#[test]
fn a_numbering_reader_refuses_what_the_plain_one_refuses() {
    let rdf_type = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
    let lang_string = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>";
    let mut docs: Vec<(String, Vec<u8>, RdfSyntax)> = [
        "<http://e/a> <http://e/p> \"a\nb\" .\n".to_owned(),
        "<http://e/a> <http://e/p> \"a\rb\" .\n".to_owned(),
        "<http://e/a> <http://e/p> \"\\uD83D\\uDE00\" .\n".to_owned(),
        "<http://e/a> <http://e/p> \"\\U0001F600 caf\\u00E9\" .\n".to_owned(),
        format!("<http://e/a> <http://e/p> \"x\"^^{lang_string} .\n"),
        "<http://e/a> <http://e/p> \"x\"^^<dt> .\n".to_owned(),
        "<http://e/a> <http://e/p> <b> .\n".to_owned(),
        "<a> <http://e/p> <http://e/b> .\n".to_owned(),
        "<http://e/a> <p> <http://e/b> .\n".to_owned(),
        format!("<http://e/a> {rdf_type} <T> .\n"),
        format!("<http://e/a> {rdf_type} <http://e/T> .\n<http://e/b> {rdf_type} <T> .\n"),
        "<http://e/a> <http://e/p> \"x\"@abcdefghi .\n".to_owned(),
        "<http://e/a> <http://e/p> \"x\"@en-GB .\n<http://e/a> <http://e/q> \"y\"@EN-gb .\n".to_owned(),
        "<http://e/a> <http://e/p> _:b .\n_:b <http://e/p> <_:c> .\n".to_owned(),
        "<http://e/a> <http://e/p> <http://e/b> .\n<http://e/c> <http://e/p> <http://e/b> .\n<http://e/d> <http://e/p> <http://e/x y> .\n".to_owned(),
        "<http://e/a> <http://e/p> <http://e/b%zz> .\n".to_owned(),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, text)| (format!("case{i}.nt"), text.into_bytes(), RdfSyntax::NTriples))
    .collect();
    docs.push((
        "graph.nq".to_owned(),
        b"<http://e/a> <http://e/p> <http://e/b> <g> .\n".to_vec(),
        RdfSyntax::NQuads,
    ));
    for (dir, extension, syntax) in [
        ("ntriples", "nt", RdfSyntax::NTriples),
        ("nquads", "nq", RdfSyntax::NQuads),
    ] {
        for entry in std::fs::read_dir(data_dir().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == extension) {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                docs.push((name, std::fs::read(&path).unwrap(), syntax));
            }
        }
    }
    let (mut refused, mut accepted) = (0, 0);
    for (name, bytes, syntax) in &docs {
        let plain = errors(RdfReader::new(name, &bytes[..], *syntax, "t").unwrap());
        let numbers = std::sync::Arc::new(nereid_loader_formats::IriNumbers::new());
        let reader = RdfReader::new(name, &bytes[..], *syntax, "t").unwrap();
        let numbered = errors(reader.numbered(numbers));
        assert_eq!(numbered, plain, "{name}");
        match plain.is_empty() {
            true => accepted += 1,
            false => refused += 1,
        }
    }
    assert!(
        refused >= 15 && accepted >= 5,
        "{refused} refused, {accepted} accepted"
    );
}
