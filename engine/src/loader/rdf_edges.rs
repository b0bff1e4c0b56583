//! RDF's set semantics for edges across files and loads: a triple (or a
//! quad: the same triple in another named graph is another edge) that is
//! already an edge of the graph, or of the load, adds nothing. Neptune
//! keeps one copy of a statement loaded twice; a document alone already
//! gives one record per triple (`loader-formats`' `rdf/group.rs`), this
//! module does it for what one document cannot see
//! (docs/adr/0113-streamed-export-and-rdf-sets.md).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use nereid_loader_formats::{RelationshipRecord, GRAPH_KEY};
use nereid_storage::{BulkEnd, Txn};
use nereid_values::{Direction, NodeId, Value};

use super::apply::{endpoint, RowError};

type Properties = [(Arc<str>, Value)];

/// The named graph of an RDF edge record (its `~graph`), if any.
fn graph_of(properties: &Properties) -> Option<&str> {
    properties.iter().find_map(|(k, v)| match v {
        Value::String(g) if &**k == GRAPH_KEY => Some(g.as_str()),
        _ => None,
    })
}

/// Whether the graph `txn` sees (its own writes included) has an edge
/// `src -[rel_type]-> dst` in `graph`: one binary search in `src`'s
/// adjacency, then the few parallel edges' `~graph`.
fn has_edge(txn: &Txn, src: NodeId, dst: NodeId, rel_type: &str, graph: Option<&str>) -> bool {
    let types = [rel_type.to_owned()];
    txn.expand_into(src, dst, Direction::Outgoing, &types)
        .into_iter()
        .any(|(rel, _)| match &txn.rel_property(rel, GRAPH_KEY) {
            Some(Value::String(g)) => Some(g.as_str()) == graph,
            _ => graph.is_none(),
        })
}

/// Whether an RDF edge record, applied in a transaction, is an edge the
/// transaction already sees (committed, or written earlier in the load).
pub(super) fn already_there(txn: &Txn, rel: &RelationshipRecord) -> Result<bool, RowError> {
    let at = RowError::at(rel.line);
    let src = endpoint(txn, rel.start_space.as_deref(), &rel.start).map_err(at)?;
    let dst = endpoint(txn, rel.end_space.as_deref(), &rel.end).map_err(at)?;
    Ok(has_edge(
        txn,
        src,
        dst,
        &rel.rel_type,
        graph_of(&rel.properties),
    ))
}

/// An edge of a load: its ends' slots (the loader's four-byte number of
/// each vertex it met, start in the high half) and the number of its type
/// and named graph ([`EdgeKinds`]). Numbers, not names: the key is
/// hashed and compared without reading a string, and takes 16 bytes
/// (the set holds one key per edge of the load; with 8-byte ends it took
/// 24, and the set was the loader thread's largest table to grow).
type EdgeKey = (u64, u32);

/// The RDF edges of a bulk load so far, by resolved ends.
#[derive(Default)]
pub(super) struct LoadEdges {
    seen: HashSet<EdgeKey, foldhash::fast::RandomState>,
    kinds: EdgeKinds,
}

impl LoadEdges {
    /// Whether the edge between `ends` (each a vertex and its slot, the
    /// one number the loader gave it) is new: neither an earlier edge of
    /// the load nor, when both ends are committed vertices, an edge of
    /// the graph.
    pub(super) fn is_new(
        &mut self,
        txn: &Txn,
        ends: [(BulkEnd, u32); 2],
        rel_type: &Arc<str>,
        properties: &Properties,
    ) -> bool {
        let [(src, src_slot), (dst, dst_slot)] = ends;
        let graph = graph_of(properties);
        if let (BulkEnd::Existing(s), BulkEnd::Existing(d)) = (src, dst) {
            if has_edge(txn, s, d, rel_type, graph) {
                return false;
            }
        }
        let kind = self.kinds.number(rel_type, graph);
        let ends = u64::from(src_slot) << 32 | u64::from(dst_slot);
        self.seen.insert((ends, kind))
    }
}

/// A type's named graphs (`None`: the default graph) and their numbers.
type GraphNumbers = Vec<(Option<Box<str>>, u32)>;

/// Numbers for the (type, named graph) pairs of a load's edges. A
/// document's reader shares one name among its edges of a type, so the
/// last type is recognised by its pointer, without hashing its name.
#[derive(Default)]
struct EdgeKinds {
    by_type: HashMap<Arc<str>, GraphNumbers, foldhash::fast::RandomState>,
    /// The last pair numbered: its type, graph and number.
    last: Option<(Arc<str>, Option<Box<str>>, u32)>,
    count: u32,
}

impl EdgeKinds {
    fn number(&mut self, rel_type: &Arc<str>, graph: Option<&str>) -> u32 {
        if let Some((t, g, n)) = &self.last {
            if Arc::ptr_eq(t, rel_type) && g.as_deref() == graph {
                return *n;
            }
        }
        let graphs = self.by_type.entry(rel_type.clone()).or_default();
        let n = match graphs.iter().find(|(g, _)| g.as_deref() == graph) {
            Some(&(_, n)) => n,
            None => {
                let n = self.count;
                self.count += 1;
                graphs.push((graph.map(Box::from), n));
                n
            }
        };
        self.last = Some((rel_type.clone(), graph.map(Box::from), n));
        n
    }
}
