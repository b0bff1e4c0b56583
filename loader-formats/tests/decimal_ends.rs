//! A reader asked for decimal ends (`Reader::decimal_ends`) reads the same
//! relationships as one that is not: each end either as its number (its
//! text left empty), when that text is the number's canonical spelling, or
//! as its text, exactly as the plain reader gives it.

use nereid_loader_formats::{
    canonical_decimal, Format, Options, Reader, Record, RelationshipRecord,
};
use proptest::prelude::*;

fn read(csv: &str, decimal: bool) -> Vec<Result<RelationshipRecord, String>> {
    let mut reader = Reader::new(
        "r.csv",
        csv.as_bytes(),
        Format::OpenCypher,
        &Options::default(),
    )
    .expect("header");
    if decimal {
        reader = reader.decimal_ends();
    }
    reader
        .map(|item| match item {
            Ok(Record::Relationship(rel)) => Ok(rel),
            Ok(Record::Node(node)) => panic!("a node from a relationship file: {node:?}"),
            Err(e) => Err(e.to_string()),
        })
        .collect()
}

/// `decimal`'s record with its numbered ends spelled back as text.
fn spelled(mut rel: RelationshipRecord) -> RelationshipRecord {
    let [start, end] = std::mem::take(&mut rel.decimal_ends);
    if let Some(n) = start {
        assert!(rel.start.is_empty(), "a numbered start keeps no text");
        rel.start = n.to_string();
    }
    if let Some(n) = end {
        assert!(rel.end.is_empty(), "a numbered end keeps no text");
        rel.end = n.to_string();
    }
    rel
}

fn same_as_plain(csv: &str) {
    let plain = read(csv, false);
    let decimal = read(csv, true);
    assert_eq!(plain.len(), decimal.len());
    for (p, d) in plain.into_iter().zip(decimal) {
        match (p, d) {
            (Ok(p), Ok(d)) => {
                assert_eq!(
                    p.decimal_ends,
                    [None, None],
                    "the plain reader numbers nothing"
                );
                for (text, number) in [(&p.start, d.decimal_ends[0]), (&p.end, d.decimal_ends[1])] {
                    assert_eq!(canonical_decimal(text.as_bytes()), number, "{text:?}");
                }
                assert_eq!(spelled(d), p);
            }
            (p, d) => assert_eq!(p.err(), d.err()),
        }
    }
}

#[test]
fn snb_like_ends_come_as_numbers() {
    let csv = ":START_ID(Person),:END_ID(Person),:TYPE,creationDate:long\n\
               933,10995116278291,KNOWS,1289805829104\n\
               0,18446744073709551615,KNOWS,1\n";
    let rels = read(csv, true);
    let first = rels[0].as_ref().unwrap();
    assert_eq!(first.decimal_ends, [Some(933), Some(10995116278291)]);
    assert_eq!((first.start.as_str(), first.end.as_str()), ("", ""));
    assert_eq!(first.start_space.as_deref(), Some("Person"));
    let second = rels[1].as_ref().unwrap();
    assert_eq!(second.decimal_ends, [Some(0), Some(u64::MAX)]);
    same_as_plain(csv);
}

#[test]
fn other_ids_keep_their_text() {
    let csv = ":START_ID,:END_ID,:TYPE\n\
               007,a,T\n\
               +1,-1,T\n\
               18446744073709551616,12,T\n\
               \"5\",\" 5\",T\n\
               ,3,T\n\
               3,,T\n";
    let rels = read(csv, true);
    let first = rels[0].as_ref().unwrap();
    assert_eq!(first.decimal_ends, [None, None]);
    assert_eq!((first.start.as_str(), first.end.as_str()), ("007", "a"));
    let third = rels[2].as_ref().unwrap();
    assert_eq!(third.decimal_ends, [None, Some(12)]);
    assert_eq!(third.start, "18446744073709551616");
    same_as_plain(csv);
}

proptest! {
    #[test]
    fn reads_what_the_plain_reader_reads(
        ends in prop::collection::vec(
            (
                prop_oneof!["[0-9]{1,21}", "[0a-z(]{0,4}", any::<u64>().prop_map(|n| n.to_string())],
                prop_oneof!["[0-9]{1,21}", "[0a-z(]{0,4}", any::<u64>().prop_map(|n| n.to_string())],
            ),
            0..20,
        ),
    ) {
        let mut csv = String::from(":START_ID(S),:END_ID,:TYPE,w:long\n");
        for (start, end) in &ends {
            csv.push_str(&format!("{start},{end},T,1\n"));
        }
        same_as_plain(&csv);
    }
}

/// A reader asked for its ends' spaces apart (`Reader::end_spaces_apart`)
/// leaves them out of every record, and its header names them: put back,
/// the records are the plain reader's.
#[test]
fn end_spaces_apart_are_the_headers() {
    let csv = ":START_ID(Person),:END_ID,:TYPE,w:Int\n1,(x)2,KNOWS,3\n4,5,KNOWS,x\n6,7,LIKES,8\n";
    let open = || {
        Reader::new(
            "r.csv",
            csv.as_bytes(),
            Format::OpenCypher,
            &Options::default(),
        )
    };
    let spaces = open().unwrap().header().end_spaces();
    assert_eq!(spaces, [Some("Person".into()), None]);
    let plain: Vec<String> = open().unwrap().map(|r| format!("{r:?}")).collect();
    let apart: Vec<String> = open()
        .unwrap()
        .end_spaces_apart()
        .map(|r| {
            let r = r.map(|record| match record {
                Record::Relationship(mut rel) => {
                    assert_eq!((&rel.start_space, &rel.end_space), (&None, &None));
                    rel.start_space = spaces[0].clone();
                    rel.end_space = spaces[1].clone();
                    Record::Relationship(rel)
                }
                Record::Node(node) => panic!("{node:?}"),
            });
            format!("{r:?}")
        })
        .collect();
    assert_eq!(apart, plain);
    assert_eq!(plain.len(), 3);
}
