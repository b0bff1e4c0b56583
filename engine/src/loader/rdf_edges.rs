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

/// An edge of a load in the overflow set: its ends' slots (the loader's
/// four-byte number of each vertex it met, start in the high half) and
/// the number of its type and named graph ([`EdgeKinds`]).
type EdgeKey = (u64, u32);

/// How many edges of one start are kept in its chain; more go to the set.
const CHAIN: usize = 8;

/// The RDF edges of a bulk load so far, by their ends' slots. Most starts
/// have a few edges, usually read one after the other: each start of the
/// load's own keeps its first [`CHAIN`] edges in a chain (a head per start,
/// the edges appended to one vector), so a test reads a head in a small
/// array and a few recent entries, where a hash set of every edge missed
/// the cache at random and grew by rehashing (the loader thread's largest
/// table, zeroed afresh at each doubling). A start's further edges, edges
/// from committed vertices, and edges past `u32` positions go to the set.
#[derive(Default)]
pub(super) struct LoadEdges {
    /// Per position of a load's vertex: its chain's last edge in `chained`
    /// plus one (0: no edge yet).
    heads: Vec<u32>,
    chained: Vec<Chained>,
    overflow: HashSet<EdgeKey, foldhash::fast::RandomState>,
    kinds: EdgeKinds,
}

/// An edge in a start's chain.
#[derive(Clone, Copy)]
struct Chained {
    dst: u32,
    kind: u32,
    /// The start's edge before this one, plus one (0: none).
    before: u32,
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
        self.is_new_in_load(src, [src_slot, dst_slot], kind)
    }

    /// Whether the load has no edge of `kind` between the vertices of
    /// `slots` yet (recording it if so); `src` is the start's vertex.
    fn is_new_in_load(&mut self, src: BulkEnd, slots: [u32; 2], kind: u32) -> bool {
        let [src_slot, dst_slot] = slots;
        if let BulkEnd::Loaded(position) = src {
            if let Some(new) = self.chain(position, dst_slot, kind) {
                return new;
            }
        }
        let ends = u64::from(src_slot) << 32 | u64::from(dst_slot);
        self.overflow.insert((ends, kind))
    }

    /// Whether the edge from the load's vertex at `position` is new by its
    /// chain (added to it if so); `None` when the chain is full (the
    /// edge is then tested in the set, which holds the start's others).
    fn chain(&mut self, position: usize, dst: u32, kind: u32) -> Option<bool> {
        if self.heads.len() <= position {
            self.heads.resize(position + 1, 0);
        }
        let mut at = self.heads[position];
        let mut length = 0;
        while at != 0 {
            let edge = self.chained[at as usize - 1];
            if edge.dst == dst && edge.kind == kind {
                return Some(false);
            }
            at = edge.before;
            length += 1;
        }
        let index = u32::try_from(self.chained.len() + 1).ok()?;
        if length == CHAIN {
            return None;
        }
        self.chained.push(Chained {
            dst,
            kind,
            before: self.heads[position],
        });
        self.heads[position] = index;
        Some(true)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The chains and their overflow set answer as one set of every edge
    /// would: starts of many edges (past a chain), repeats before and
    /// after a chain fills, several kinds, committed starts.
    #[test]
    fn chains_and_their_overflow_are_one_set_of_edges() {
        let mut edges = LoadEdges::default();
        let mut model = HashSet::new();
        let mut state = 26u64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let r = state >> 33;
            let position = (r % 40) as usize;
            // One start in ten is committed (its slot flagged as `Ends` flags it).
            let (src, src_slot) = if r.is_multiple_of(10) {
                (
                    BulkEnd::Existing(NodeId(position as u64)),
                    1 << 31 | position as u32,
                )
            } else {
                (BulkEnd::Loaded(position), position as u32 + 1)
            };
            let dst = ((r >> 8) % 30) as u32 + 1;
            let kind = ((r >> 16) % 3) as u32;
            let expected = model.insert((src_slot, dst, kind));
            assert_eq!(edges.is_new_in_load(src, [src_slot, dst], kind), expected);
        }
        assert!(edges.chained.len() <= 40 * CHAIN);
        assert!(!edges.overflow.is_empty());
    }
}
