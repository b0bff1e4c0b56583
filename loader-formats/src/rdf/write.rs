//! The graph written back as N-Triples or N-Quads, the inverse of the
//! load's mapping (docs/adr/0108-onegraph-rdf.md): a vertex id that is an
//! absolute IRI is that IRI, one spelt `_:label` a blank node; labels are
//! `rdf:type` triples, property values literals (one triple per element
//! of a list), relationships triples typed by their type. A vertex's or
//! relationship's `~graph` names its quads' graph in N-Quads. Names that
//! are not IRIs (ids, labels, keys and types of property-graph data) are
//! written as `urn:nereid:<percent-encoded name>`; relationship
//! properties other than `~graph` have no place in RDF (the engine's
//! export refuses a graph that has them: ADR 0113) and are not written.

use std::collections::BTreeMap;
use std::io::{self, Write};

use oxrdf::vocab::{rdf, xsd};
use oxrdf::{BlankNode, GraphName, Literal, NamedNode, NamedOrBlankNode, QuadRef, Term};
use oxttl::{NQuadsSerializer, NTriplesParser};

use nereid_values::Value;

use super::group::GRAPH_KEY;
use super::RdfSyntax;

/// Writes vertices and relationships as quads (N-Quads) or triples.
pub struct RdfWriter<W: Write> {
    out: oxttl::nquads::WriterNQuadsSerializer<W>,
    quads: bool,
    written: u64,
}

impl<W: Write> RdfWriter<W> {
    /// `None` for Turtle, which is read but not written.
    pub fn new(out: W, syntax: RdfSyntax) -> Option<RdfWriter<W>> {
        let quads = match syntax {
            RdfSyntax::NTriples => false,
            RdfSyntax::NQuads => true,
            RdfSyntax::Turtle => return None,
        };
        Some(RdfWriter {
            out: NQuadsSerializer::new().for_writer(out),
            quads,
            written: 0,
        })
    }

    /// A vertex's labels and properties.
    pub fn vertex(
        &mut self,
        id: &str,
        labels: &[String],
        properties: &BTreeMap<String, Value>,
    ) -> io::Result<()> {
        let subject = vertex_term(id);
        let graph = self.graph(properties);
        for label in labels {
            let object = Term::NamedNode(name_iri(label));
            self.quad(&subject, &rdf::TYPE.into_owned(), &object, &graph)?;
        }
        for (key, value) in properties {
            if key == GRAPH_KEY {
                continue;
            }
            let predicate = name_iri(key);
            let values = match value {
                Value::List(items) => items.iter().collect::<Vec<_>>(),
                one => vec![one],
            };
            for value in values {
                let object = Term::Literal(literal(value));
                self.quad(&subject, &predicate, &object, &graph)?;
            }
        }
        Ok(())
    }

    /// A relationship from `start` to `end` (vertex ids).
    pub fn edge(
        &mut self,
        start: &str,
        rel_type: &str,
        end: &str,
        properties: &BTreeMap<String, Value>,
    ) -> io::Result<()> {
        let graph = self.graph(properties);
        let object: Term = match vertex_term(end) {
            NamedOrBlankNode::NamedNode(n) => n.into(),
            NamedOrBlankNode::BlankNode(b) => b.into(),
        };
        self.quad(&vertex_term(start), &name_iri(rel_type), &object, &graph)
    }

    /// The statements written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    pub fn finish(self) -> W {
        self.out.finish()
    }

    /// The graph of an entity's quads: its one `~graph`, when writing
    /// N-Quads; the default graph otherwise.
    fn graph(&self, properties: &BTreeMap<String, Value>) -> GraphName {
        match properties.get(GRAPH_KEY) {
            Some(Value::String(g)) if self.quads => match vertex_term(g) {
                NamedOrBlankNode::NamedNode(n) => GraphName::NamedNode(n),
                NamedOrBlankNode::BlankNode(b) => GraphName::BlankNode(b),
            },
            _ => GraphName::DefaultGraph,
        }
    }

    fn quad(
        &mut self,
        subject: &NamedOrBlankNode,
        predicate: &NamedNode,
        object: &Term,
        graph: &GraphName,
    ) -> io::Result<()> {
        self.written += 1;
        self.out.serialize_quad(QuadRef::new(
            subject.as_ref(),
            predicate.as_ref(),
            object.as_ref(),
            graph.as_ref(),
        ))
    }
}

fn vertex_term(id: &str) -> NamedOrBlankNode {
    if let Some(label) = id.strip_prefix("_:") {
        if let Ok(blank) = BlankNode::new(label) {
            return blank.into();
        }
    }
    name_iri(id).into()
}

/// `name` when it is an absolute IRI, else `urn:nereid:<name encoded>`.
fn name_iri(name: &str) -> NamedNode {
    if let Ok(iri) = NamedNode::new(name) {
        return iri;
    }
    let mut iri = String::from("urn:nereid:");
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            iri.push(byte as char);
        } else {
            iri.push_str(&format!("%{byte:02X}"));
        }
    }
    NamedNode::new_unchecked(iri)
}

/// The literal a property value is written as: the XSD type it was
/// loaded from, or the literal a kept N-Triples spelling spells.
fn literal(value: &Value) -> Literal {
    let typed = |text: String, datatype| Literal::new_typed_literal(text, datatype);
    match value {
        Value::String(s) => kept_literal(s).unwrap_or_else(|| Literal::new_simple_literal(s)),
        Value::Int(i) => typed(i.to_string(), xsd::INTEGER),
        Value::Float(f) => typed(float(*f), xsd::DOUBLE),
        Value::Bool(b) => typed(b.to_string(), xsd::BOOLEAN),
        Value::Date(d) => typed(d.format("%Y-%m-%d").to_string(), xsd::DATE),
        Value::LocalDateTime(d) => {
            typed(d.format("%Y-%m-%dT%H:%M:%S%.f").to_string(), xsd::DATE_TIME)
        }
        Value::DateTime(d) => {
            let local = d.local.format("%Y-%m-%dT%H:%M:%S%.f");
            typed(format!("{local}{}", offset(d.offset)), xsd::DATE_TIME)
        }
        other => Literal::new_simple_literal(other.to_string()),
    }
}

/// A string holding a literal's N-Triples spelling (`"chat"@fr`), as the
/// load keeps literals it has no Cypher value for.
fn kept_literal(text: &str) -> Option<Literal> {
    if !text.starts_with('"') || text.contains('\n') {
        return None;
    }
    let line = format!("<urn:x:s> <urn:x:p> {text} .\n");
    let mut triples = NTriplesParser::new().for_slice(&line);
    match triples.next()? {
        Ok(triple) if triples.next().is_none() => match triple.object {
            Term::Literal(literal) => Some(literal),
            _ => None,
        },
        _ => None,
    }
}

fn float(f: f64) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "INF" } else { "-INF" }.into()
    } else {
        format!("{f:?}")
    }
}

fn offset(seconds: i32) -> String {
    if seconds == 0 {
        return "Z".into();
    }
    let sign = if seconds < 0 { '-' } else { '+' };
    let s = seconds.unsigned_abs();
    format!("{sign}{:02}:{:02}", s / 3600, s % 3600 / 60)
}
