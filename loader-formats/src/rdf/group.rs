//! One RDF document's quads grouped into vertex and edge records
//! (docs/adr/0108-onegraph-rdf.md): a subject or object IRI is a vertex
//! whose id is the IRI itself (the id space of CSV `:ID` columns, so an
//! IRI written in both is one vertex); `rdf:type` objects are labels,
//! literal objects properties keyed by the predicate IRI (a predicate
//! repeated on a subject gives a list, as RDF's set of values), IRI and
//! blank-node objects edges typed by the predicate IRI. A quad in a named
//! graph marks its edge with a `~graph` property, and its vertex (for
//! labels and literals) with the graph in the vertex's `~graph` property.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use oxrdf::vocab::rdf;
use oxrdf::{GraphName, NamedOrBlankNode, Quad, Term};

use nereid_values::Value;

use super::literal::literal_value;
use crate::record::{NodeRecord, Record, RelationshipRecord};

/// The property key of named-graph membership: not an IRI, so no
/// predicate can take it.
pub const GRAPH_KEY: &str = "~graph";

type Fast = foldhash::fast::RandomState;

/// An edge as (subject, type, object, graph), the vertices by position.
type Edge = (usize, Arc<str>, usize, Option<Arc<str>>);

/// The records of one document, built quad by quad.
pub(crate) struct Grouped {
    /// Prefix of blank-node ids, unique per load.
    blank_scope: String,
    nodes: Vec<NodeRecord>,
    vertex: HashMap<String, usize, Fast>,
    rels: Vec<RelationshipRecord>,
    /// Every edge so far: RDF is a set.
    edges: HashSet<Edge, Fast>,
    names: Names,
}

/// Predicates, types and graphs repeat on most quads: interned, so the
/// records of a piece share one `Arc` per name.
#[derive(Default)]
pub(super) struct Names(HashMap<String, Arc<str>, Fast>);

impl Names {
    pub(super) fn name(&mut self, text: &str) -> Arc<str> {
        if let Some(name) = self.0.get(text) {
            return name.clone();
        }
        let name: Arc<str> = Arc::from(text);
        self.0.insert(text.to_owned(), name.clone());
        name
    }
}

impl Grouped {
    pub(crate) fn new(blank_scope: &str) -> Grouped {
        Grouped {
            blank_scope: blank_scope.to_owned(),
            nodes: Vec::new(),
            vertex: HashMap::default(),
            rels: Vec::new(),
            edges: HashSet::default(),
            names: Names::default(),
        }
    }

    /// Room for about `statements` more quads' vertices and edges.
    pub(crate) fn reserve(&mut self, statements: usize) {
        self.nodes.reserve(statements);
        self.rels.reserve(statements);
    }

    /// Adds one quad found on `line`.
    pub(crate) fn add(&mut self, quad: Quad, line: u64) {
        let subject = self.vertex(subject_id(&self.blank_scope, quad.subject), line);
        let graph = match quad.graph_name {
            GraphName::DefaultGraph => None,
            GraphName::NamedNode(n) => Some(self.name(n.as_str())),
            GraphName::BlankNode(b) => Some(self.name(&blank_id(&self.blank_scope, b.as_str()))),
        };
        let predicate = quad.predicate;
        match quad.object {
            Term::NamedNode(object) if predicate == rdf::TYPE => {
                let label = self.name(object.as_str());
                let labels = &mut self.nodes[subject].labels;
                if !labels.contains(&label) {
                    labels.push(label);
                }
                self.mark_graph(subject, graph);
            }
            Term::Literal(literal) => {
                let key = self.name(predicate.as_str());
                let value = literal_value(literal.as_ref());
                add_value(&mut self.nodes[subject].properties, key, value);
                self.mark_graph(subject, graph);
            }
            Term::NamedNode(object) => {
                let object = self.vertex(object.into_string(), line);
                self.edge(subject, predicate.as_str(), object, graph, line);
            }
            Term::BlankNode(object) => {
                let id = blank_id(&self.blank_scope, object.as_str());
                let object = self.vertex(id, line);
                self.edge(subject, predicate.as_str(), object, graph, line);
            }
        }
    }

    /// Every vertex record, then every edge record: each edge's ends are
    /// vertices of the same document, so they resolve within the load.
    pub(crate) fn into_records(self) -> impl Iterator<Item = Record> {
        let nodes = self.nodes.into_iter().map(Record::Node);
        nodes.chain(self.rels.into_iter().map(Record::Relationship))
    }

    fn vertex(&mut self, id: String, line: u64) -> usize {
        if let Some(&at) = self.vertex.get(&id) {
            return at;
        }
        let at = self.nodes.len();
        self.nodes.push(NodeRecord {
            id: id.clone(),
            id_space: None,
            labels: Vec::new(),
            properties: Vec::new(),
            line,
            number: None,
        });
        self.vertex.insert(id, at);
        at
    }

    fn edge(&mut self, s: usize, p: &str, o: usize, graph: Option<Arc<str>>, line: u64) {
        let rel_type = self.name(p);
        if !self.edges.insert((s, rel_type.clone(), o, graph.clone())) {
            return;
        }
        let properties = match graph {
            Some(g) => vec![(self.name(GRAPH_KEY), Value::String(g.to_string()))],
            None => Vec::new(),
        };
        self.rels.push(RelationshipRecord {
            id: None,
            start: self.nodes[s].id.clone(),
            start_space: None,
            end: self.nodes[o].id.clone(),
            end_space: None,
            rel_type,
            properties,
            line,
            end_numbers: None,
            decimal_ends: [None, None],
        });
    }

    fn mark_graph(&mut self, vertex: usize, graph: Option<Arc<str>>) {
        if let Some(g) = graph {
            let key = self.name(GRAPH_KEY);
            add_value(
                &mut self.nodes[vertex].properties,
                key,
                Value::String(g.to_string()),
            );
        }
    }

    fn name(&mut self, text: &str) -> Arc<str> {
        self.names.name(text)
    }
}

fn subject_id(scope: &str, subject: NamedOrBlankNode) -> String {
    match subject {
        NamedOrBlankNode::NamedNode(n) => n.into_string(),
        NamedOrBlankNode::BlankNode(b) => blank_id(scope, b.as_str()),
    }
}

/// `_:<scope>_<label>`: the same label in two loads names two vertices.
pub(super) fn blank_id(scope: &str, label: &str) -> String {
    format!("_:{scope}_{label}")
}

/// Adds `value` to the property `key` of `properties` with RDF's set
/// semantics: a first value is kept as it is, a second different one
/// makes a list of both, an equal one changes nothing.
pub fn add_value(properties: &mut Vec<(Arc<str>, Value)>, key: Arc<str>, value: Value) {
    match properties.iter_mut().find(|(k, _)| *k == key) {
        Some((_, existing)) => merge_value(existing, value),
        None => properties.push((key, value)),
    }
}

/// Merges `value` into `existing` as [`add_value`] does: equal values
/// (compared as stored, so `1` and `1.0` stay two) are kept once. A list
/// `value` (the values one document gave a key) merges element by element.
pub fn merge_value(existing: &mut Value, value: Value) {
    match value.into_list() {
        Ok(values) => {
            for value in values {
                merge_one(existing, value);
            }
        }
        Err(value) => merge_one(existing, value),
    }
}

fn merge_one(existing: &mut Value, value: Value) {
    let list = match existing {
        Value::List(list) => list,
        same if *same == value => return,
        other => {
            let first = std::mem::take(other);
            *other = Value::List(vec![first, value].into());
            return;
        }
    };
    if !list.contains(&value) {
        list.make_mut().push(value);
    }
}
