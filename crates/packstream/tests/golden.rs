//! Byte-for-byte checks against the vectors captured from Neo4j 5.26.30
//! (bolt-protocol.md §5 and §13).

use nereid_packstream::marker::tag;
use nereid_packstream::{
    encode, encode_result_value, from_slice, to_vec, PackMap, PackValue, StructFormat,
};
use nereid_values::{EntityResolver, List, NodeData, NodeId, RelData, RelId, Value};
use std::collections::BTreeMap;

const UUID: &str = "7666574c-0000-4000-8000-000000000000";

/// Node 0 `(:P {name:'a'})`, node 1 `()`, relationship 0 `[:K {w:1}]` 0→1.
struct Golden;

fn node_eid(n: u64) -> String {
    format!("4:{UUID}:{n}")
}

impl EntityResolver for Golden {
    fn node(&self, id: NodeId) -> Option<NodeData> {
        let (labels, properties) = match id.0 {
            0 => (
                vec!["P".to_string()],
                BTreeMap::from([("name".to_string(), Value::from("a"))]),
            ),
            1 => (vec![], BTreeMap::new()),
            _ => return None,
        };
        Some(NodeData {
            id,
            element_id: node_eid(id.0),
            labels,
            properties,
        })
    }
    fn relationship(&self, id: RelId) -> Option<RelData> {
        (id.0 == 0).then(|| RelData {
            id,
            element_id: format!("5:{UUID}:0"),
            start: NodeId(0),
            start_element_id: node_eid(0),
            end: NodeId(1),
            end_element_id: node_eid(1),
            rel_type: "K".into(),
            properties: BTreeMap::from([("w".to_string(), Value::Int(1))]),
        })
    }
}

fn s(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    nereid_packstream::encode::write_string(&mut out, text).unwrap();
    out
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn temporal_structs(format: StructFormat) -> Vec<u8> {
    let date = PackValue::Struct {
        tag: tag::DATE,
        fields: vec![PackValue::Int(1)],
    };
    // 1970-01-01T02:15:00.000000042+01:00 = 4500 s UTC, 42 ns, +3600.
    let datetime = if format.utc_datetime {
        PackValue::Struct {
            tag: tag::DATE_TIME,
            fields: vec![4500.into(), 42.into(), 3600.into()],
        }
    } else {
        PackValue::Struct {
            tag: tag::LEGACY_DATE_TIME,
            fields: vec![8100.into(), 42.into(), 3600.into()],
        }
    };
    let mut out = to_vec(&date).unwrap();
    encode(&datetime, &mut out).unwrap();
    out
}

fn record_fields(format: StructFormat) -> Vec<u8> {
    let mut out = vec![0x95];
    encode_result_value(&Value::Node(NodeId(0)), &Golden, format, &mut out).unwrap();
    encode_result_value(&Value::Relationship(RelId(0)), &Golden, format, &mut out).unwrap();
    out.extend(temporal_structs(format));
    let list = Value::List(List::from(vec![
        Value::Int(1),
        Value::Int(-1),
        Value::Int(200),
        Value::from("x"),
        Value::Float(1.5),
    ]));
    encode_result_value(&list, &Golden, format, &mut out).unwrap();
    out
}

#[test]
fn record_vector_bolt_5_8() {
    let format = StructFormat::for_version(5, 8, false);
    let eid = |e: String| cat(&[&[0xD0, 0x28], e.as_bytes()]);
    let expected = cat(&[
        &[0x95],
        &[0xB4, 0x4E, 0x00, 0x91, 0x81, b'P', 0xA1, 0x84],
        b"name",
        &[0x81, b'a'],
        &eid(node_eid(0)),
        &[
            0xB8, 0x52, 0x00, 0x00, 0x01, 0x81, b'K', 0xA1, 0x81, b'w', 0x01,
        ],
        &eid(format!("5:{UUID}:0")),
        &eid(node_eid(0)),
        &eid(node_eid(1)),
        &[0xB1, 0x44, 0x01],
        &[0xB3, 0x49, 0xC9, 0x11, 0x94, 0x2A, 0xC9, 0x0E, 0x10],
        &[0x95, 0x01, 0xFF, 0xC9, 0x00, 0xC8, 0x81, b'x'],
        &[0xC1, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0],
    ]);
    assert_eq!(node_eid(0).len(), 0x28);
    assert_eq!(record_fields(format), expected);
}

#[test]
fn record_vector_bolt_4_4_without_utc_patch() {
    let format = StructFormat::for_version(4, 4, false);
    assert!(!format.utc_datetime && !format.element_ids);
    let expected = cat(&[
        &[0x95],
        &[0xB3, 0x4E, 0x00, 0x91, 0x81, b'P', 0xA1, 0x84],
        b"name",
        &[0x81, b'a'],
        &[
            0xB5, 0x52, 0x00, 0x00, 0x01, 0x81, b'K', 0xA1, 0x81, b'w', 0x01,
        ],
        &[0xB1, 0x44, 0x01],
        &[0xB3, 0x46, 0xC9, 0x1F, 0xA4, 0x2A, 0xC9, 0x0E, 0x10],
        &[0x95, 0x01, 0xFF, 0xC9, 0x00, 0xC8, 0x81, b'x'],
        &[0xC1, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0],
    ]);
    assert_eq!(record_fields(format), expected);
    assert!(StructFormat::for_version(4, 4, true).utc_datetime);
    assert!(!StructFormat::for_version(4, 2, true).utc_datetime);
}

#[test]
fn hello_success_vector_decodes_and_reencodes() {
    let bytes = cat(&[
        &[0xB1, 0x70, 0xA3],
        &s("server"),
        &s("Neo4j/5.26.30"),
        &s("connection_id"),
        &s("bolt-6"),
        &s("hints"),
        &[0xA2, 0xD0, 0x1F],
        b"connection.recv_timeout_seconds",
        &[0x78],
        &s("ssr.enabled"),
        &[0xC3],
    ]);
    let hints = PackMap::new()
        .with("connection.recv_timeout_seconds", 120)
        .with("ssr.enabled", true);
    let meta = PackMap::new()
        .with("server", "Neo4j/5.26.30")
        .with("connection_id", "bolt-6")
        .with("hints", hints);
    let value = PackValue::Struct {
        tag: 0x70,
        fields: vec![meta.into()],
    };
    assert_eq!(to_vec(&value).unwrap(), bytes);
    assert_eq!(from_slice(&bytes).unwrap(), value);
}

#[test]
fn run_and_pull_vectors() {
    let query = "x".repeat(162);
    let run = PackValue::Struct {
        tag: 0x10,
        fields: vec![
            query.clone().into(),
            PackMap::new().into(),
            PackMap::new().into(),
        ],
    };
    let bytes = to_vec(&run).unwrap();
    assert_eq!(bytes.len(), 0xA8);
    assert_eq!(&bytes[..4], &[0xB3, 0x10, 0xD0, 0xA2]);
    assert_eq!(&bytes[bytes.len() - 2..], &[0xA0, 0xA0]);
    let pull = PackValue::Struct {
        tag: 0x3F,
        fields: vec![PackMap::new().with("n", -1).into()],
    };
    assert_eq!(
        to_vec(&pull).unwrap(),
        vec![0xB1, 0x3F, 0xA1, 0x81, 0x6E, 0xFF]
    );
}

#[test]
fn paths_index_relationships_one_based_and_signed_by_direction() {
    use nereid_values::PathValue;
    let format = StructFormat::for_version(4, 4, false);
    // (1)<-[0]-(0)-[0]->(1): rel 0 is traversed backwards, then forwards;
    // nodes repeat and the relationship repeats.
    let path = Value::Path(Box::new(PathValue {
        nodes: vec![NodeId(1), NodeId(0), NodeId(1)],
        rels: vec![RelId(0), RelId(0)],
    }));
    let mut out = Vec::new();
    encode_result_value(&path, &Golden, format, &mut out).unwrap();
    let decoded = from_slice(&out).unwrap();
    let PackValue::Struct { tag: 0x50, fields } = decoded else {
        panic!("not a path: {decoded:?}")
    };
    assert_eq!(fields[0].as_list().map(<[_]>::len), Some(2));
    assert_eq!(fields[1].as_list().map(<[_]>::len), Some(1));
    assert_eq!(
        fields[2],
        PackValue::List(vec![(-1).into(), 1.into(), 1.into(), 0.into()])
    );

    let zero = Value::Path(Box::new(PathValue {
        nodes: vec![NodeId(0)],
        rels: vec![],
    }));
    let mut out = Vec::new();
    encode_result_value(&zero, &Golden, format, &mut out).unwrap();
    assert_eq!(&out[..2], &[0xB3, 0x50]);
    assert_eq!(&out[out.len() - 2..], &[0x90, 0x90]);

    let invisible = Value::Path(Box::new(PathValue {
        nodes: vec![NodeId(0), NodeId(7)],
        rels: vec![RelId(0)],
    }));
    let mut out = Vec::new();
    encode_result_value(&invisible, &Golden, format, &mut out).unwrap();
    assert_eq!(out, vec![0xC0]);

    let mut out = Vec::new();
    encode_result_value(&Value::Node(NodeId(9)), &Golden, format, &mut out).unwrap();
    assert_eq!(out, vec![0xC0]);
}

/// Virtual entities (APOC's meta graph) are Node / Relationship structures
/// built from their own data: negative ids, `virtual:` element ids.
#[test]
fn virtual_entities_encode_as_nodes_and_relationships() {
    use nereid_values::{VirtualNode, VirtualRelationship};
    use std::sync::Arc;
    let properties = BTreeMap::from([("count".to_string(), Value::Int(2))]);
    let node = Arc::new(VirtualNode::new(vec!["P".to_string()], properties.clone()));
    let rel = VirtualRelationship::new(node.clone(), "K".to_string(), node.clone(), properties);
    let (node_id, rel_id) = (node.id, rel.id);
    let format = StructFormat::for_version(5, 8, false);
    let mut out = Vec::new();
    encode_result_value(&Value::VirtualNode(node.clone()), &Golden, format, &mut out).unwrap();
    let PackValue::Struct { tag: t, fields } = from_slice(&out).unwrap() else {
        panic!("a node is a structure");
    };
    assert_eq!(t, tag::NODE);
    assert_eq!(fields[0], PackValue::Int(node_id));
    assert!(node_id < 0);
    assert_eq!(
        fields[1],
        PackValue::List(vec![PackValue::String("P".into())])
    );
    assert_eq!(fields[3], PackValue::String(node.element_id()));
    let mut out = Vec::new();
    let value = Value::VirtualRelationship(Arc::new(rel));
    encode_result_value(&value, &Golden, format, &mut out).unwrap();
    let PackValue::Struct { tag: t, fields } = from_slice(&out).unwrap() else {
        panic!("a relationship is a structure");
    };
    assert_eq!(t, tag::RELATIONSHIP);
    assert_eq!(fields.len(), 8);
    assert_eq!(fields[0], PackValue::Int(rel_id));
    assert_eq!(
        (&fields[1], &fields[2]),
        (&PackValue::Int(node_id), &PackValue::Int(node_id))
    );
    assert_eq!(fields[3], PackValue::String("K".into()));
    assert_eq!(fields[6], PackValue::String(node.element_id()));
}
