//! A document cut into chunks: cuts fall after line feeds, the chunks
//! together hold every statement once, and an error deep in a later chunk
//! names its line in the whole document.

use super::parallel::{chunk_ends, parse};
use crate::record::Record;

/// `people` subjects of three triples each, one per line: a few MiB.
fn document(people: usize) -> String {
    let mut doc = String::new();
    for i in 0..people {
        let s = format!("<http://example.org/p/{i}>");
        doc.push_str(&format!(
            "{s} <http://example.org/name> \"Person number {i}\" .\n"
        ));
        doc.push_str(&format!(
            "{s} <http://example.org/knows> <http://example.org/p/{}> .\n",
            (i * 7) % people
        ));
        doc.push_str(&format!("{s} <http://example.org/knows> _:b{} .\n", i % 10));
    }
    doc
}

#[test]
fn chunks_end_after_line_feeds_and_cover_the_document() {
    let doc = document(40_000);
    let bytes = doc.as_bytes();
    let ends = chunk_ends(bytes, 4);
    assert_eq!(ends.len(), 4, "{} bytes", bytes.len());
    assert_eq!(*ends.last().unwrap(), bytes.len());
    for &end in &ends[..ends.len() - 1] {
        assert_eq!(bytes[end - 1], b'\n');
    }
    // A small document is one chunk, whatever the threads.
    assert_eq!(chunk_ends(b"<a:s> <a:p> <a:o> .\n", 8), vec![20]);
}

#[test]
fn chunks_parsed_apart_hold_every_statement_once() {
    let people = 40_000;
    let doc = document(people);
    let one = parse(doc.as_bytes(), false, "L", 1).ok().unwrap();
    let four = parse(doc.as_bytes(), false, "L", 4).ok().unwrap();
    assert_eq!((one.len(), four.len()), (1, 4));
    let count = |groups: Vec<super::group::Grouped>| {
        let (mut names, mut edges, mut blank) = (0, 0, 0);
        for record in groups.into_iter().flat_map(|g| g.into_records()) {
            match record {
                Record::Node(n) => names += n.properties.len(),
                Record::Relationship(r) => {
                    edges += 1;
                    blank += usize::from(r.end.starts_with("_:L_b"));
                }
            }
        }
        (names, edges, blank)
    };
    assert_eq!(count(one), (people, 2 * people, people));
    assert_eq!(count(four), (people, 2 * people, people));
}

#[test]
fn an_error_in_a_later_chunk_names_its_line_in_the_document() {
    let mut doc = document(40_000);
    doc.push_str("<http://example.org/x> <http://example.org/p> <not an iri> .\n");
    let lines = doc.lines().count() as u64;
    let Err(e) = parse(doc.as_bytes(), false, "L", 4) else {
        panic!("the last line is broken");
    };
    assert_eq!(e.lines_before + e.error.location().start.line + 1, lines);
    assert!(e.lines_before > 0, "the error is in a later chunk");
}

#[test]
fn the_reader_reports_a_deep_error_with_file_line_and_column() {
    let mut doc = document(40_000);
    let line = doc.lines().count() + 1;
    doc.push_str("<http://example.org/x> <http://example.org/p> <not an iri> .\n");
    let reader = super::RdfReader::new("big.nt", doc.as_bytes(), super::RdfSyntax::NTriples, "L");
    let items: Vec<_> = reader.unwrap().collect();
    assert_eq!(items.len(), 1, "an error and no records");
    let message = items[0].as_ref().err().unwrap().to_string();
    assert!(message.starts_with(&format!("big.nt:{line}:")), "{message}");
}
