//! The borrowing reader gives the quads oxttl's strict parse gives, for
//! every statement shape it takes, and stops on what it leaves to oxttl.

use oxrdf::Quad;
use oxttl::{NQuadsParser, NTriplesParser};
use proptest::prelude::*;

use std::cell::RefCell;

use super::lines::{each_statement, each_statement_ahead};

/// The quads of `doc` by the borrowing reader; `None` where it stops.
fn borrowed(doc: &str, quads: bool) -> Option<Vec<Quad>> {
    let mut read = Vec::new();
    each_statement(doc.as_bytes(), quads, |quad| {
        read.push(quad.into_owned());
        true
    })
    .then_some(read)
}

fn strict(doc: &str, quads: bool) -> Vec<Quad> {
    if quads {
        let parsed = NQuadsParser::new().for_slice(doc.as_bytes());
        parsed.collect::<Result<_, _>>().unwrap()
    } else {
        let parsed = NTriplesParser::new().for_slice(doc.as_bytes());
        let triples: Vec<_> = parsed.collect::<Result<_, _>>().unwrap();
        triples.into_iter().map(super::in_default_graph).collect()
    }
}

/// Statements of every shape the reader takes, each valid N-Triples.
const TAKEN: &[&str] = &[
    "<http://e/s> <http://e/p> <http://e/o> .",
    "<http://e/s><http://e/p><http://e/o>.",
    "\t<http://e/s>  <http://e/p>\t<http://e/o>  .  # trailing comment",
    "_:a <http://e/p> _:b.c .",
    "_:a1 <http://e/p> _:b_-2.",
    "<http://e/s> <http://e/p> \"plain\" .",
    "<http://e/s> <http://e/p> \"\" .",
    "<http://e/s> <http://e/p> \"caf\u{e9} \u{1F600}\" .",
    "<http://e/s> <http://e/p> \"tab\\there \\\"quoted\\\" back\\\\slash \\' \\b\\f\" .",
    "<http://e/s> <http://e/p> \"chat\"@fr .",
    "<http://e/s> <http://e/p> \"colour\"@en-GB .",
    "<http://e/s> <http://e/p> \"Hallo\"@DE-de-1996 .",
    "<http://e/s> <http://e/p> \"5\"^^<http://www.w3.org/2001/XMLSchema#integer> .",
    "<http://e/s> <http://e/p> \"s\"^^<http://www.w3.org/2001/XMLSchema#string> .",
    "<http://e/s> <http://e/p> \"x\"^^<http://e/dt>.",
    "<http://\u{e9}.example/s\u{e9}> <http://e/p> <http://e/o?q=1&r=2#f> .",
    "# a comment line",
    "",
    "   ",
];

#[test]
fn each_statement_shape_reads_as_the_strict_parse_reads_it() {
    for statement in TAKEN {
        for ending in ["\n", "\r\n", ""] {
            let doc = format!("{statement}{ending}");
            assert_eq!(borrowed(&doc, false), Some(strict(&doc, false)), "{doc:?}");
        }
    }
    let doc = TAKEN.join("\n");
    assert_eq!(borrowed(&doc, false), Some(strict(&doc, false)));
}

#[test]
fn n_quads_graphs_read_as_the_strict_parse_reads_them() {
    let doc = "<http://e/s> <http://e/p> <http://e/o> <http://e/g> .\n\
               <http://e/s> <http://e/p> \"v\"@en _:g .\n\
               <http://e/s> <http://e/p> \"v\"^^<http://e/dt> <http://e/g>.\n\
               _:s <http://e/p> _:o .\n";
    assert_eq!(borrowed(doc, true), Some(strict(doc, true)));
    // A graph is no N-Triples term.
    assert_eq!(
        borrowed(
            "<http://e/s> <http://e/p> <http://e/o> <http://e/g> .",
            false
        ),
        None
    );
}

/// What the reader leaves to oxttl: escapes it does not decode, labels
/// beyond ASCII, terms where they may not stand, broken statements.
const LEFT: &[&str] = &[
    "<http://e/\\u00E9> <http://e/p> <http://e/o> .",
    "<http://e/s> <http://e/p> \"\\u00E9\" .",
    "<http://e/s> <http://e/p> \"\\U0001F600\" .",
    "<http://e/s> <http://e/p> \"\\uD83D\\uDE00\" .",
    "<http://e/s> <http://e/p> \"bad \\q escape\" .",
    "_:\u{e9}t\u{e9} <http://e/p> <http://e/o> .",
    "_:a\u{e9} <http://e/p> <http://e/o> .",
    "<http://e/s> _:p <http://e/o> .",
    "\"lit\" <http://e/p> <http://e/o> .",
    "<http://e/s> <http://e/p> <http://e/o>",
    "<http://e/s> <http://e/p> <http://e/o> . <http://e/s> <http://e/p> <http://e/o> .",
    "<http://e/s> <http://e/p> <http://e/o> . junk",
    "<http://e/s> <http://e/p> \"unterminated .",
    "<http://e/s> <http://e/p> \"x\"@ .",
    "<http://e/s> <http://e/p> \"x\"@1a .",
    "<http://e/s> <http://e/p> \"x\" ^^<http://e/dt> .",
    "<http://e/s> <http://e/p> \"x\"^^ <http://e/dt> .",
    "<http://e/s> <http://e/p> \"x\"^^\"y\" .",
    "<http://e/s> <http://e/p> <http://e/has space> .",
    "<http://e/s> <http://e/p> <http://e/o{x}> .",
    "<http://e/s> <http://e/p> <http://e/o> <http://e/o2> <http://e/g> .",
    "<http://e/s> <http://e/p> <<( <http://e/a> <http://e/b> <http://e/c> )>> .",
    "\u{feff}<http://e/s> <http://e/p> <http://e/o> .",
    "<http://e/s> <http://e/p> <http://e/o> .\r<http://e/s> <http://e/p> <http://e/o> .",
    "@prefix e: <http://e/> .",
    "<http://e/s> <http://e/p> _: .",
    "<http://e/s> <http://e/p> _:.a .",
];

#[test]
fn what_it_does_not_take_is_left_to_oxttl() {
    for statement in LEFT {
        let doc = format!("<http://e/a> <http://e/b> <http://e/c> .\n{statement}\n");
        assert_eq!(borrowed(&doc, false), None, "{statement:?}");
        assert_eq!(borrowed(&doc, true), None, "{statement:?}");
    }
    assert_eq!(borrowed("\u{ff}", false), None);
    let invalid_utf8 = [b'<', 0xff, b'>'];
    assert!(!each_statement(&invalid_utf8, false, |_| true));
}

#[test]
fn a_refusing_callback_stops_the_reading() {
    let doc = "<http://e/s> <http://e/p> <http://e/o> .\n".repeat(3);
    let mut seen = 0;
    assert!(!each_statement(doc.as_bytes(), false, |_| {
        seen += 1;
        seen < 2
    }));
    assert_eq!(seen, 2);
}

#[test]
fn iris_are_named_ahead_of_their_statements_which_keep_their_order() {
    let mut doc = String::new();
    for i in 0..40 {
        let s = i / 3;
        doc.push_str(&format!("<http://e/s{s}> <http://e/p> <http://e/o{i}> .\n"));
        if i % 13 == 12 {
            doc.push_str("<http://e/x> <http://e/p> \"esc\\\"aped\" .\n");
        }
        if i % 11 == 10 {
            doc.push_str(
                "<http://e/y> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://e/T> .\n",
            );
        }
    }
    let log = RefCell::new(Vec::new());
    let mut read = Vec::new();
    let whole = each_statement_ahead(
        doc.as_bytes(),
        false,
        |iri| log.borrow_mut().push(format!("ahead {iri}")),
        |quad| {
            log.borrow_mut().push(format!("add {}", quad.object));
            read.push(quad.into_owned());
            true
        },
    );
    assert!(whole);
    assert_eq!(read, strict(&doc, false));
    let log = log.into_inner();
    let at = |entry: String| log.iter().position(|e| *e == entry);
    for i in 0..40 {
        let named = at(format!("ahead http://e/o{i}")).expect("every object IRI is named");
        let added = at(format!("add <http://e/o{i}>")).unwrap();
        assert!(named < added, "o{i}: {log:?}");
    }
    // The first statements wait until eight more are named; a label is not
    // named, and a subject is named once per run of its statements.
    assert_eq!(log.iter().position(|e| e.starts_with("add")), Some(9 + 3));
    assert_eq!(at("ahead http://e/T".to_owned()), None);
    let named_s0 = log.iter().filter(|e| *e == "ahead http://e/s0").count();
    assert_eq!(named_s0, 1);
    assert_eq!(
        at("ahead http://e/x".to_owned()),
        None,
        "a rewritten statement is added at once"
    );
}

proptest! {
    /// Any document of statements built from random literal texts and
    /// labels reads as the strict parse reads it, or is left to oxttl.
    #[test]
    fn random_statements_read_as_the_strict_parse_or_are_left(
        texts in prop::collection::vec("[ -~\u{e9}\u{1F600}\t]{0,12}", 1..8),
        labels in prop::collection::vec("[A-Za-z0-9_.\\-]{1,6}", 1..8),
    ) {
        let mut doc = String::new();
        for (i, text) in texts.iter().enumerate() {
            let label = &labels[i % labels.len()];
            doc.push_str(&format!("_:{label} <http://e/p{i}> \"{text}\" .\n"));
        }
        let strict_parse: Result<Vec<_>, _> =
            NTriplesParser::new().for_slice(doc.as_bytes()).collect();
        match (borrowed(&doc, false), strict_parse) {
            (Some(read), Ok(triples)) => {
                let quads: Vec<Quad> = triples.into_iter().map(super::in_default_graph).collect();
                prop_assert_eq!(read, quads);
            }
            (Some(read), Err(e)) => prop_assert!(false, "read {:?} where oxttl refuses: {}", read, e),
            (None, _) => {}
        }
    }
}
