use std::sync::Arc;

use nereid_values::Value;

use super::{RdfReader, RdfSyntax};
use crate::record::{NodeRecord, Record, RelationshipRecord};
use crate::Error;

fn read(
    syntax: RdfSyntax,
    text: &str,
) -> Result<(Vec<NodeRecord>, Vec<RelationshipRecord>), Error> {
    let reader = RdfReader::new("doc", text.as_bytes(), syntax, "L1")?;
    let (mut nodes, mut rels) = (Vec::new(), Vec::new());
    for record in reader {
        match record? {
            Record::Node(n) => nodes.push(n),
            Record::Relationship(r) => rels.push(r),
        }
    }
    Ok((nodes, rels))
}

fn node<'a>(nodes: &'a [NodeRecord], id: &str) -> &'a NodeRecord {
    nodes.iter().find(|n| n.id == id).expect(id)
}

fn prop(node: &NodeRecord, key: &str) -> Value {
    let found = node.properties.iter().find(|(k, _)| &**k == key);
    found.map(|(_, v)| v.clone()).unwrap_or(Value::Null)
}

const EX: &str = "http://example.org/";

#[test]
fn ntriples_map_to_vertices_labels_properties_and_edges() {
    let doc = r#"
<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Person> .
<http://example.org/alice> <http://example.org/name> "Alice" .
<http://example.org/alice> <http://example.org/knows> <http://example.org/bob> .
<http://example.org/alice> <http://example.org/nick> "Al" .
<http://example.org/alice> <http://example.org/nick> "Ally" .
<http://example.org/alice> <http://example.org/nick> "Al" .
<http://example.org/alice> <http://example.org/knows> <http://example.org/bob> .
<http://example.org/bob> <http://example.org/age> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
"#;
    let (nodes, rels) = read(RdfSyntax::NTriples, doc).unwrap();
    assert_eq!(nodes.len(), 2);
    let alice = node(&nodes, &format!("{EX}alice"));
    assert_eq!(alice.id_space, None);
    assert_eq!(alice.labels, vec![Arc::<str>::from(format!("{EX}Person"))]);
    assert_eq!(
        prop(alice, &format!("{EX}name")),
        Value::String("Alice".into())
    );
    // A repeated predicate is a list; a repeated triple counts once.
    assert_eq!(
        prop(alice, &format!("{EX}nick")),
        Value::List(vec![Value::String("Al".into()), Value::String("Ally".into())].into())
    );
    let bob = node(&nodes, &format!("{EX}bob"));
    assert_eq!(prop(bob, &format!("{EX}age")), Value::Int(42));
    assert_eq!(rels.len(), 1);
    assert_eq!(&*rels[0].rel_type, format!("{EX}knows"));
    assert_eq!(rels[0].start, format!("{EX}alice"));
    assert_eq!(rels[0].end, format!("{EX}bob"));
}

#[test]
fn blank_nodes_are_scoped_by_the_load() {
    let doc = "_:b1 <http://example.org/p> _:b2 .\n_:b1 <http://example.org/q> \"x\" .\n";
    let (nodes, rels) = read(RdfSyntax::NTriples, doc).unwrap();
    assert_eq!(nodes.len(), 2);
    assert_eq!(rels[0].start, "_:L1_b1");
    assert_eq!(rels[0].end, "_:L1_b2");
}

#[test]
fn named_graphs_mark_edges_and_vertices() {
    let doc = r#"
<http://example.org/a> <http://example.org/p> <http://example.org/b> <http://example.org/g1> .
<http://example.org/a> <http://example.org/name> "A" <http://example.org/g1> .
<http://example.org/a> <http://example.org/p> <http://example.org/b> .
"#;
    let (nodes, rels) = read(RdfSyntax::NQuads, doc).unwrap();
    // The same edge in two graphs is two edges.
    assert_eq!(rels.len(), 2);
    let graph = Value::String(format!("{EX}g1"));
    assert_eq!(
        rels[0].properties,
        vec![(Arc::from("~graph"), graph.clone())]
    );
    assert!(rels[1].properties.is_empty());
    assert_eq!(prop(node(&nodes, &format!("{EX}a")), "~graph"), graph);
}

#[test]
fn turtle_prefixes_and_abbreviations() {
    let doc = r#"
@prefix ex: <http://example.org/> .
ex:alice a ex:Person, ex:Agent ; ex:name "Alice"@en ; ex:score 1.5, 2 .
"#;
    let (nodes, _) = read(RdfSyntax::Turtle, doc).unwrap();
    let alice = node(&nodes, &format!("{EX}alice"));
    assert_eq!(alice.labels.len(), 2);
    assert_eq!(
        prop(alice, &format!("{EX}name")),
        Value::String("\"Alice\"@en".into())
    );
    assert_eq!(
        prop(alice, &format!("{EX}score")),
        Value::List(vec![Value::Float(1.5), Value::Int(2)].into())
    );
}

fn syntax_error(syntax: RdfSyntax, doc: &str) -> (u64, u64, String) {
    match read(syntax, doc) {
        Err(Error::RdfSyntax {
            line,
            column,
            message,
            ..
        }) => (line, column, message),
        other => panic!("expected a syntax error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn bad_documents_fail_whole_with_line_and_column() {
    let doc = "<http://example.org/a> <http://example.org/p> \"ok\" .\n<http://example.org/a> <http://example.org/p> .\n";
    let (line, column, _) = syntax_error(RdfSyntax::NTriples, doc);
    assert_eq!(line, 2);
    assert!(column > 1);
    let (line, _, message) = syntax_error(
        RdfSyntax::Turtle,
        "\n\nundefined:a <http://example.org/p> 1 .\n",
    );
    assert_eq!(line, 3);
    assert!(message.contains("undefined"), "{message}");
    let (line, _, _) = syntax_error(
        RdfSyntax::NTriples,
        "<not an iri> <http://example.org/p> \"x\" .\n",
    );
    assert_eq!(line, 1);
    let (line, _, _) = syntax_error(
        RdfSyntax::NTriples,
        "<relative> <http://example.org/p> \"x\" .\n",
    );
    assert_eq!(line, 1);
}

#[test]
fn compressed_documents_are_read() {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"<http://example.org/a> <http://example.org/p> \"x\" .\n")
        .unwrap();
    let bytes = gz.finish().unwrap();
    let reader = RdfReader::new("doc.nt.gz", &bytes[..], RdfSyntax::NTriples, "L").unwrap();
    assert_eq!(reader.count(), 1);
}

#[test]
fn written_values_read_back_equal() {
    use std::collections::BTreeMap;
    let doc = r#"
<http://example.org/a> <http://example.org/i> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://example.org/a> <http://example.org/f> "-INF"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://example.org/a> <http://example.org/f> "0.1"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://example.org/a> <http://example.org/d> "2024-02-29"^^<http://www.w3.org/2001/XMLSchema#date> .
<http://example.org/a> <http://example.org/t> "2024-02-29T10:00:00.5-03:30"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://example.org/a> <http://example.org/l> "2024-02-29T10:00:00"^^<http://www.w3.org/2001/XMLSchema#dateTime> .
<http://example.org/a> <http://example.org/s> "say \"hi\"\n"@en-GB .
<http://example.org/a> <http://example.org/y> "2024"^^<http://www.w3.org/2001/XMLSchema#gYear> .
<http://example.org/a> <http://example.org/p> "\"quoted\" plain" .
"#;
    let (nodes, _) = read(RdfSyntax::NTriples, doc).unwrap();
    let mut writer = super::RdfWriter::new(Vec::new(), RdfSyntax::NTriples).unwrap();
    let properties: BTreeMap<String, Value> = nodes[0]
        .properties
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    writer.vertex(&nodes[0].id, &[], &properties).unwrap();
    let text = String::from_utf8(writer.finish()).unwrap();
    let (again, _) = read(RdfSyntax::NTriples, &text).unwrap();
    assert_eq!(again[0].properties.len(), nodes[0].properties.len());
    for (key, value) in &nodes[0].properties {
        assert_eq!(&prop(&again[0], key), value, "{key}: {text}");
    }
}

#[test]
fn names_that_are_not_iris_are_written_as_urns() {
    use std::collections::BTreeMap;
    let mut writer = super::RdfWriter::new(Vec::new(), RdfSyntax::NQuads).unwrap();
    let properties = BTreeMap::from([
        ("name".to_string(), Value::String("Acme".into())),
        (
            "~graph".to_string(),
            Value::String("http://example.org/g".into()),
        ),
    ]);
    writer
        .vertex("(Company)7", &["Company".into()], &properties)
        .unwrap();
    let text = String::from_utf8(writer.finish()).unwrap();
    assert!(text.contains("<urn:nereid:%28Company%297> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <urn:nereid:Company> <http://example.org/g> ."), "{text}");
    assert!(
        text.contains("<urn:nereid:name> \"Acme\" <http://example.org/g> ."),
        "{text}"
    );
    assert!(!text.contains("~graph"), "{text}");
}
