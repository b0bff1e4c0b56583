//! A document read in pieces: cuts fall after line feeds, the pieces
//! together hold every statement once whatever their size and the
//! threads, an error deep in a later piece names its line in the whole
//! document, and a streamed reader yields records before such an error.

use super::parallel::{PieceError, Pieces};
use super::Group;
use super::{RdfReader, RdfSyntax};
use crate::record::Record;

/// `people` subjects of three triples each, one per line.
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

fn pieces(doc: &str, threads: usize, piece_bytes: usize) -> Pieces<'_> {
    Pieces::new(
        Box::new(doc.as_bytes()),
        false,
        super::Grouping::of("L", None),
        threads,
    )
    .with_piece_bytes(piece_bytes)
}

fn groups(doc: &str, threads: usize, piece_bytes: usize) -> Vec<Group> {
    let parsed: Result<Vec<_>, _> = pieces(doc, threads, piece_bytes).collect();
    parsed.ok().unwrap()
}

/// (property values, edges, edges to a blank node) of `groups`.
fn count(groups: Vec<Group>) -> (usize, usize, usize) {
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
}

#[test]
fn pieces_parsed_apart_hold_every_statement_once() {
    let people = 5_000;
    let doc = document(people);
    let one = groups(&doc, 1, doc.len() + 1);
    let many = groups(&doc, 3, 20_000);
    assert_eq!(one.len(), 1);
    assert!(many.len() > 10, "{} pieces", many.len());
    assert_eq!(count(one), (people, 2 * people, people));
    assert_eq!(count(many), (people, 2 * people, people));
}

#[test]
fn a_line_longer_than_a_piece_is_read_whole() {
    let long = "x".repeat(300_000);
    let doc = format!(
        "<http://example.org/a> <http://example.org/p> \"{long}\" .\n{}",
        document(100)
    );
    let parsed = groups(&doc, 2, 1_000);
    assert_eq!(count(parsed), (101, 200, 100));
}

#[test]
fn an_error_in_a_later_piece_names_its_line_in_the_document() {
    let mut doc = document(5_000);
    doc.push_str("<http://example.org/x> <http://example.org/p> <not an iri> .\n");
    doc.push_str(&document(10));
    let line = document(5_000).lines().count() as u64 + 1;
    let mut parsed = pieces(&doc, 4, 20_000);
    let error = parsed.find_map(Result::err);
    let Some(PieceError::Syntax {
        error,
        lines_before,
    }) = error
    else {
        panic!("a syntax error");
    };
    assert_eq!(lines_before + error.location().start.line + 1, line);
    assert!(lines_before > 0, "the error is in a later piece");
    assert!(parsed.next().is_none(), "nothing after the error");
}

#[test]
fn the_reader_reports_a_deep_error_with_file_line_and_column() {
    let mut doc = document(40_000);
    let line = doc.lines().count() + 1;
    doc.push_str("<http://example.org/x> <http://example.org/p> <not an iri> .\n");
    let reader = RdfReader::new("big.nt", doc.as_bytes(), RdfSyntax::NTriples, "L");
    let items: Vec<_> = reader.unwrap().collect();
    assert_eq!(items.len(), 1, "an error and no records");
    let message = items[0].as_ref().err().unwrap().to_string();
    assert!(message.starts_with(&format!("big.nt:{line}:")), "{message}");
}

#[test]
fn a_streamed_reader_yields_records_before_a_deep_error_then_ends() {
    let mut doc = document(40_000);
    let line = doc.lines().count() + 1;
    doc.push_str("<http://example.org/x> <http://example.org/p> <not an iri> .\n");
    let reader = RdfReader::new("big.nt", doc.as_bytes(), RdfSyntax::NTriples, "L").unwrap();
    let items: Vec<_> = reader.streamed().collect();
    let (last, records) = items.split_last().unwrap();
    assert!(!records.is_empty() && records.iter().all(Result::is_ok));
    let message = last.as_ref().err().unwrap().to_string();
    assert!(message.starts_with(&format!("big.nt:{line}:")), "{message}");
}

/// A document's graph as sorted facts: `V iri`, `L iri label`,
/// `P iri key value`, `E start type end`, ids spelled whether the records
/// name them or number them.
fn facts(records: Vec<Record>, numbers: Option<&super::IriNumbers>) -> Vec<String> {
    let spell = |id: &str, number: Option<u64>| match (numbers, number) {
        (Some(n), Some(number)) => n.text(number).unwrap().to_string(),
        _ => id.to_owned(),
    };
    let mut facts = std::collections::BTreeSet::new();
    for record in records {
        match record {
            Record::Node(n) => {
                let id = spell(&n.id, n.number);
                for label in &n.labels {
                    facts.insert(format!("L {id} {label}"));
                }
                for (k, v) in &n.properties {
                    facts.insert(format!("P {id} {k} {v:?}"));
                }
                facts.insert(format!("V {id}"));
            }
            Record::Relationship(r) => {
                let (s, e) = r.end_numbers.unzip();
                let (s, e) = (spell(&r.start, s), spell(&r.end, e));
                facts.insert(format!("E {s} {} {e} {:?}", r.rel_type, r.properties));
                facts.insert(format!("V {s}"));
                facts.insert(format!("V {e}"));
            }
        }
    }
    facts.into_iter().collect()
}

#[test]
fn numbered_records_spell_the_graph_of_spelled_ones() {
    let mut doc = document(5_000);
    let p1 = "<http://example.org/p/1>";
    doc.push_str(&format!(
        "{p1} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/T> .\n"
    ));
    doc.push_str(&format!(
        "{p1} <http://example.org/name> \"Person number 1\" .\n"
    ));
    doc.push_str(&format!(
        "{p1} <http://example.org/knows> <http://example.org/p/7> .\n"
    ));
    let records = |groups: Vec<Group>| groups.into_iter().flat_map(|g| g.into_records()).collect();
    let spelled = facts(records(groups(&doc, 1, doc.len() + 1)), None);
    // In pieces on three threads, and as Turtle on this one.
    let numbers = std::sync::Arc::new(super::IriNumbers::new());
    let grouping = super::Grouping::of("L", Some(numbers.clone()));
    let parsed = Pieces::new(Box::new(doc.as_bytes()), false, grouping, 3).with_piece_bytes(20_000);
    let numbered: Vec<Record> = records(parsed.collect::<Result<Vec<_>, _>>().ok().unwrap());
    assert!(numbered.iter().all(|r| match r {
        Record::Node(n) => n.id.is_empty() && n.number.is_some(),
        Record::Relationship(r) =>
            r.start.is_empty() && r.end.is_empty() && r.end_numbers.is_some(),
    }));
    assert_eq!(facts(numbered, Some(&numbers)), spelled);
    let reader = RdfReader::new("d.ttl", doc.as_bytes(), RdfSyntax::Turtle, "L").unwrap();
    let turtle = reader
        .numbered(numbers.clone())
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    assert_eq!(facts(turtle, Some(&numbers)), spelled);
}
