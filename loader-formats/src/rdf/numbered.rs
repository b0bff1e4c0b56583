//! A piece of an RDF document as numbered records, for a loader that
//! merges them by [`IriNumbers`] (docs/adr/0155-rdf-records-numbered-by-a-shared-dictionary.md):
//! the mapping of `group.rs` (labels, literal properties, edges typed by
//! the predicate, named graphs), but a vertex is its number, not its IRI.
//!
//! Only a subject that gets labels or properties in the piece has a node
//! record (one per piece, with its number and no id); an edge names both
//! ends by number. The loader makes a vertex of a number when it first
//! meets it, in a node record or at an edge's end, and reads its IRI from
//! the dictionary then. A triple repeated within the piece is left to the
//! loader's set of edges, which sees every piece.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use oxrdf::vocab::rdf;
use oxrdf::{GraphNameRef, NamedOrBlankNodeRef, QuadRef, TermRef};

use nereid_values::Value;

use super::group::{add_value, blank_id, Names, GRAPH_KEY};
use super::literal::literal_value;
use super::numbers::IriNumbers;
use crate::record::{NodeRecord, Record, RelationshipRecord};

type Fast = foldhash::fast::RandomState;

/// The numbered records of one piece, built quad by quad.
pub(crate) struct Numbered {
    blank_scope: String,
    numbers: Arc<IriNumbers>,
    nodes: Vec<NodeRecord>,
    /// Vertex number -> its record in `nodes`.
    record_of: HashMap<u64, usize, Fast>,
    rels: Vec<RelationshipRecord>,
    names: Names,
    /// A blank node's id, spelled.
    scratch: String,
    /// The last subject IRI and its number, and its record if it has one:
    /// a subject's triples usually follow each other, so most quads find
    /// their subject here, with no lock and no hash.
    last_subject: String,
    last_number: Option<u64>,
    last_record: Option<(u64, usize)>,
    /// The quads come from a parse that skipped oxttl's checks
    /// ([`Numbered::add`] makes them): with the IRIs and language tags it
    /// checked so far in this piece.
    checks: Option<Checked>,
}

/// What a checking group found valid so far in its piece.
#[derive(Default)]
struct Checked {
    iris: HashSet<String, Fast>,
    tags: HashSet<String, Fast>,
}

/// Whether `text` is in `set`, or passes `check` and is put there.
fn once(set: &mut HashSet<String, Fast>, text: &str, check: fn(&str) -> bool) -> bool {
    set.contains(text) || (check(text) && set.insert(text.to_owned()))
}

fn valid_iri(text: &str) -> bool {
    oxrdf::NamedNodeRef::new(text).is_ok()
}

fn valid_tag(tag: &str) -> bool {
    oxrdf::Literal::new_language_tagged_literal("", tag).is_ok()
}

impl Numbered {
    pub(crate) fn new(blank_scope: &str, numbers: Arc<IriNumbers>) -> Numbered {
        Numbered {
            blank_scope: blank_scope.to_owned(),
            numbers,
            nodes: Vec::new(),
            record_of: HashMap::default(),
            rels: Vec::new(),
            names: Names::default(),
            scratch: String::new(),
            last_subject: String::new(),
            last_number: None,
            last_record: None,
            checks: None,
        }
    }

    /// A group whose quads come from oxttl's lenient parse: [`Numbered::add`]
    /// refuses one that the strict parse would have refused.
    pub(crate) fn checking(mut self) -> Numbered {
        self.checks = Some(Checked::default());
        self
    }

    /// Room for about `statements` more quads' records: edges, and
    /// subjects at a few statements each, so that neither the records nor
    /// their index grow by copying themselves into fresh pages.
    pub(crate) fn reserve(&mut self, statements: usize) {
        self.rels.reserve(statements);
        self.nodes.reserve(statements / 4);
        self.record_of.reserve(statements / 4);
    }

    /// The load's dictionary (for the reader's hints ahead of `add`).
    pub(crate) fn numbers(&self) -> Arc<IriNumbers> {
        Arc::clone(&self.numbers)
    }

    /// Adds one quad found on `line`. A checking group answers false,
    /// adding nothing more, for a quad the strict parse refuses: an
    /// invalid IRI or language tag, a line break in a literal, a string
    /// typed `rdf:langString` (what oxttl's lenient mode lets through);
    /// the caller then parses the piece strictly for its error. The quad
    /// is borrowed: from oxttl's owned quads or from `lines.rs`, which
    /// borrows its terms from the piece's bytes.
    pub(crate) fn add(&mut self, quad: QuadRef<'_>, line: u64) -> bool {
        if !self.passes(quad) {
            return false;
        }
        let subject = match &quad.subject {
            NamedOrBlankNodeRef::NamedNode(n) => match self.subject(n.as_str()) {
                Some(number) => number,
                None => return false,
            },
            NamedOrBlankNodeRef::BlankNode(b) => self.blank(b.as_str()),
        };
        let graph = match quad.graph_name {
            GraphNameRef::DefaultGraph => None,
            GraphNameRef::NamedNode(n) => Some(self.names.name(n.as_str())),
            GraphNameRef::BlankNode(b) => {
                let id = blank_id(&self.blank_scope, b.as_str());
                Some(self.names.name(&id))
            }
        };
        let predicate = quad.predicate;
        match quad.object {
            TermRef::NamedNode(object) if predicate == rdf::TYPE => {
                let label = self.names.name(object.as_str());
                let labels = &mut self.record(subject, line).labels;
                if !labels.contains(&label) {
                    labels.push(label);
                }
                self.mark_graph(subject, graph, line);
            }
            TermRef::Literal(literal) => {
                let key = self.names.name(predicate.as_str());
                let value = literal_value(literal);
                add_value(&mut self.record(subject, line).properties, key, value);
                self.mark_graph(subject, graph, line);
            }
            TermRef::NamedNode(object) => {
                let object = match self.checks {
                    None => self.numbers.number(object.as_str()),
                    Some(_) => match self.numbers.number_of_iri(object.as_str()) {
                        Some(number) => number,
                        None => return false,
                    },
                };
                self.edge(subject, predicate.as_str(), object, graph, line);
            }
            TermRef::BlankNode(object) => {
                let object = self.blank(object.as_str());
                self.edge(subject, predicate.as_str(), object, graph, line);
            }
        }
        true
    }

    /// Whether a checking group takes `quad` (every other group does),
    /// subject and IRI objects aside: they are checked when numbered.
    fn passes(&mut self, quad: QuadRef<'_>) -> bool {
        let Some(checked) = &mut self.checks else {
            return true;
        };
        let iris = &mut checked.iris;
        if !once(iris, quad.predicate.as_str(), valid_iri) {
            return false;
        }
        if let GraphNameRef::NamedNode(g) = quad.graph_name {
            if !once(iris, g.as_str(), valid_iri) {
                return false;
            }
        }
        match quad.object {
            TermRef::NamedNode(label) if quad.predicate == rdf::TYPE => {
                once(iris, label.as_str(), valid_iri)
            }
            TermRef::Literal(literal) => {
                if literal.value().contains(['\n', '\r']) {
                    return false;
                }
                match literal.language() {
                    Some(tag) => once(&mut checked.tags, tag, valid_tag),
                    None => {
                        let datatype = literal.datatype();
                        datatype != rdf::LANG_STRING && once(iris, datatype.as_str(), valid_iri)
                    }
                }
            }
            _ => true,
        }
    }

    /// Every node record, then every edge record.
    pub(crate) fn into_records(self) -> impl Iterator<Item = Record> {
        let nodes = self.nodes.into_iter().map(Record::Node);
        nodes.chain(self.rels.into_iter().map(Record::Relationship))
    }

    /// The number of the subject IRI `iri`; `None` if a checking group
    /// finds it invalid.
    fn subject(&mut self, iri: &str) -> Option<u64> {
        match self.last_number {
            Some(number) if self.last_subject == iri => Some(number),
            _ => {
                let number = match self.checks {
                    None => self.numbers.number(iri),
                    Some(_) => self.numbers.number_of_iri(iri)?,
                };
                self.last_subject.clear();
                self.last_subject.push_str(iri);
                self.last_number = Some(number);
                Some(number)
            }
        }
    }

    fn blank(&mut self, label: &str) -> u64 {
        self.scratch.clear();
        self.scratch.push_str("_:");
        self.scratch.push_str(&self.blank_scope);
        self.scratch.push('_');
        self.scratch.push_str(label);
        self.numbers.number(&self.scratch)
    }

    /// The piece's record of vertex `number`, made on first use.
    fn record(&mut self, number: u64, line: u64) -> &mut NodeRecord {
        if let Some((last, at)) = self.last_record {
            if last == number {
                return &mut self.nodes[at];
            }
        }
        let nodes = &mut self.nodes;
        let at = *self.record_of.entry(number).or_insert_with(|| {
            nodes.push(NodeRecord {
                id: String::new(),
                id_space: None,
                labels: Vec::new(),
                properties: Vec::new(),
                line,
                number: Some(number),
            });
            nodes.len() - 1
        });
        self.last_record = Some((number, at));
        &mut self.nodes[at]
    }

    fn edge(&mut self, s: u64, p: &str, o: u64, graph: Option<Arc<str>>, line: u64) {
        let properties = match graph {
            Some(g) => vec![(self.names.name(GRAPH_KEY), Value::String(g.to_string()))],
            None => Vec::new(),
        };
        self.rels.push(RelationshipRecord {
            id: None,
            start: String::new(),
            start_space: None,
            end: String::new(),
            end_space: None,
            rel_type: self.names.name(p),
            properties,
            line,
            end_numbers: Some((s, o)),
            decimal_ends: [None, None],
        });
    }

    fn mark_graph(&mut self, vertex: u64, graph: Option<Arc<str>>, line: u64) {
        if let Some(g) = graph {
            let key = self.names.name(GRAPH_KEY);
            let properties = &mut self.record(vertex, line).properties;
            add_value(properties, key, Value::String(g.to_string()));
        }
    }
}
