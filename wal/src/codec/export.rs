//! A checkpoint chunk's entities written straight from the store's
//! export ([`Exported`]), in the bytes the `Change` form encodes to: a
//! node or relationship is a `CreateNode`/`CreateRel` record, its
//! properties in ascending key name, a string value copied from the
//! dictionary's bytes. No property map, key name or string value is
//! built for an entity (ADR 0185); what recovery decodes is unchanged.

use super::names::NameOut;
use super::{put_bytes, put_change, put_node_head, put_rel_head, put_value, put_varint, V_STRING};
use nereid_storage::{Exported, ExportedProperties, ValueRef};

/// Appends `items` as a change list, names written by `names`.
pub(super) fn encode_exported<'a>(
    items: &'a [Exported<'_>],
    out: &mut Vec<u8>,
    names: &mut impl NameOut<'a>,
) -> Result<(), &'static str> {
    put_varint(out, items.len() as u64);
    // An entity's property bytes, before their count is known (a value
    // that does not decode is left out, as the map left it out).
    let mut props = Vec::new();
    for item in items {
        match item {
            Exported::Change(change) => put_change(out, change, names)?,
            Exported::Node(node) => {
                put_node_head(out, node.id.0, node.key, node.labels.iter().copied(), names);
                put_properties(out, &node.properties, names, &mut props)?;
            }
            Exported::Rel(rel) => {
                put_rel_head(out, [rel.id.0, rel.src.0, rel.dst.0], rel.rel_type, names);
                put_properties(out, &rel.properties, names, &mut props)?;
            }
        }
    }
    Ok(())
}

/// An entity's properties as `put_map` writes its map: count, then each
/// (name, value) in ascending name.
fn put_properties<'a>(
    out: &mut Vec<u8>,
    properties: &ExportedProperties<'a>,
    names: &mut impl NameOut<'a>,
    props: &mut Vec<u8>,
) -> Result<(), &'static str> {
    props.clear();
    let count = properties.each(|name, value| {
        names.put(props, name);
        match value {
            ValueRef::Str(s) => {
                props.push(V_STRING);
                put_bytes(props, s);
                Ok(())
            }
            ValueRef::Value(v) => put_value(props, &v, 0),
        }
    })?;
    put_varint(out, count as u64);
    out.extend_from_slice(props);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::names::{
        decode_numbered_chunk, encode_exported_chunk, encode_numbered_chunk, ChunkIds,
    };
    use nereid_storage::{BulkNode, BulkRel, Change, Exported, Store, StoreConfig, Txn};
    use nereid_values::Value;
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn commit(store: &Arc<Store>, f: impl FnOnce(&Txn)) {
        let txn = store.begin();
        f(&txn);
        let ticket = txn.commit(|_, _| Ok::<(), ()>(())).unwrap().unwrap();
        ticket.publish();
    }

    /// Every partition's export at `at`, encoded both ways: the exported
    /// entities' chunk must be byte for byte the chunk of the changes the
    /// export produced before, and decode to them.
    fn check_both_forms(store: &Store, at: u64) -> (usize, usize) {
        let mut counts = (0, 0);
        let parts = (0..store.node_partitions()).map(|p| (true, p));
        let cells = (0..store.rel_partitions()).map(|c| (false, c));
        for (nodes, part) in parts.chain(cells) {
            let (records, changes): (Vec<Exported>, Vec<Change>) = if nodes {
                let r = store.export_node_records(at, part).collect();
                (r, store.export_nodes(at, part).collect())
            } else {
                let r = store.export_rel_records(at, part).collect();
                (r, store.export_rels(at, part).collect())
            };
            let (mut a, mut b, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
            encode_exported_chunk(&records, &mut a, &mut scratch).unwrap();
            encode_numbered_chunk(&changes, ChunkIds::Differenced, &mut b, &mut scratch).unwrap();
            assert_eq!(a, b, "nodes {nodes}, partition {part}");
            assert_eq!(
                decode_numbered_chunk(&a, ChunkIds::Differenced).unwrap(),
                changes
            );
            let with_props = |c: &Change| match c {
                Change::CreateNode { properties, .. } | Change::CreateRel { properties, .. } => {
                    !properties.is_empty()
                }
                _ => false,
            };
            let counted = if nodes { &mut counts.0 } else { &mut counts.1 };
            *counted += changes.iter().filter(|c| with_props(c)).count();
        }
        counts
    }

    #[test]
    fn exported_entities_encode_to_the_bytes_of_their_changes() {
        let store = Store::new(StoreConfig { partitions: 2 });
        let list = Value::List(vec![Value::Int(1), Value::from("two")].into());
        let props = [
            ("s", Value::from("a string")),
            ("i", Value::Int(-7)),
            ("f", Value::Float(0.25)),
            ("b", Value::Bool(true)),
            ("l", list),
            ("e", Value::from("")),
            ("u", Value::from("ünïcode")),
        ];
        let bulk: Vec<BulkNode> = (0..40)
            .map(|i| BulkNode {
                labels: if i % 3 == 0 { &["A", "B"] } else { &["C"] },
                properties: &props[..i % props.len()],
            })
            .collect();
        let nodes = store.bulk_load_nodes(&bulk).unwrap();
        let rel_props = [("w", Value::Int(3)), ("name", Value::from("r"))];
        let rels: Vec<BulkRel> = (0..60)
            .map(|i| BulkRel {
                src: nodes[i % nodes.len()],
                dst: nodes[(i * 7) % nodes.len()],
                rel_type: if i % 2 == 0 { "KNOWS" } else { "LIKES" },
                properties: &rel_props[..i % 3],
            })
            .collect();
        let rel_ids = store.bulk_load_rels(&rels).unwrap();
        // Pinned: the later commit's old versions stay readable at it.
        let pin = store.pin_snapshot();
        let loaded = pin.ts();
        // Later writes: properties set, overwritten and removed away from
        // an entity's first tuples (the export's probes, not its walks).
        commit(&store, |t| {
            for (i, &id) in nodes.iter().enumerate().step_by(3) {
                t.set_node_property(id, "s", Value::from(format!("late {i}")))
                    .unwrap();
                t.set_node_property(id, "aa", Value::Int(i as i64)).unwrap();
                t.set_node_property(id, "i", Value::Null).unwrap();
            }
            for &id in rel_ids.iter().step_by(4) {
                t.set_rel_property(id, "w", Value::from("now a string"))
                    .unwrap();
            }
            t.delete_rel(rel_ids[1]).unwrap();
            let mut map = BTreeMap::new();
            map.insert("z".to_string(), Value::Bytes(vec![0, 1, 2]));
            t.create_node(&["D".to_string()], &map).unwrap();
        });
        let after = store.visible_ts();
        let (node_props, rel_props) = check_both_forms(&store, loaded);
        assert!(
            node_props > 30 && rel_props > 30,
            "{node_props} {rel_props}"
        );
        let (node_props, rel_props) = check_both_forms(&store, after);
        assert!(
            node_props > 30 && rel_props > 30,
            "{node_props} {rel_props}"
        );
    }
}
