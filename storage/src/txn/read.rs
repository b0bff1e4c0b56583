//! Reads through one MVCC view: the snapshot at `read_ts` plus the viewing
//! transaction's own writes.

use crate::dictionary::RecordHint;
use crate::ids::{edge_cell, vertex_partition};
use crate::mvcc::View;
use crate::predicates::{PRED_EXISTS, PRED_LABEL};
use crate::relation::{Partition, RelKind, Relation, Tuple, TupleRef};
use crate::store::Store;
use crate::typed_value::{Encoded, TypedValue, F_STRING};
use nereid_values::{Direction, NodeId, RelId, Value};
use std::collections::{BTreeMap, HashSet};

/// A visible REL_E tuple.
#[derive(Copy, Clone, Debug)]
pub(crate) struct EdgeTuple {
    pub(crate) at: TupleRef,
    pub(crate) src: u64,
    pub(crate) type_id: u32,
    pub(crate) dst: u64,
}

/// Read access to the store through a view.
/// Whether `(p, o)` gives a node the label `label_gui` (a label tuple's O
/// is the label name's string gui).
fn is_label(p: u32, o: TypedValue, label_gui: u64) -> bool {
    p == PRED_LABEL && o == TypedValue::string_gui(label_gui)
}

pub(crate) struct Reader<'a> {
    pub(crate) store: &'a Store,
    pub(crate) view: View,
}

impl Reader<'_> {
    pub(super) fn visible(&self, t: &Tuple) -> bool {
        t.visible(&self.view)
    }

    fn vertex_part(&self, node: u64) -> usize {
        vertex_partition(node, self.store.partitions)
    }

    /// Visible REL_VP tuples of `node` matching `pred`, in insertion order.
    pub(crate) fn node_tuples(
        &self,
        node: u64,
        mut pred: impl FnMut(u32, TypedValue) -> bool,
    ) -> Vec<(TupleRef, u32, TypedValue)> {
        let part_no = self.vertex_part(node);
        let Some(part) = self.store.vp.read(part_no) else {
            return Vec::new();
        };
        part.by_subject(node)
            .filter(|(_, t)| pred(t.p, t.o) && self.visible(t))
            .map(|(index, t)| {
                let at = TupleRef {
                    kind: RelKind::Vp,
                    part: part_no,
                    index,
                };
                (at, t.p, t.o)
            })
            .collect()
    }

    /// The first visible REL_VP tuple of `node` matching `pred` (no
    /// allocation: the point-read path).
    pub(crate) fn first_node_tuple(
        &self,
        node: u64,
        mut pred: impl FnMut(u32, TypedValue) -> bool,
    ) -> Option<(TupleRef, u32, Encoded)> {
        let part_no = self.vertex_part(node);
        let part = self.store.vp.read(part_no)?;
        let (index, t) = part
            .by_subject(node)
            .find(|(_, t)| pred(t.p, t.o) && self.visible(t))?;
        let at = TupleRef {
            kind: RelKind::Vp,
            part: part_no,
            index,
        };
        Some((at, t.p, t.encoded()))
    }

    /// The visible existence tuple of a node.
    pub(crate) fn exists_tuple(&self, node: u64) -> Option<TupleRef> {
        self.first_node_tuple(node, |p, _| p == PRED_EXISTS)
            .map(|(at, _, _)| at)
    }

    pub(crate) fn node_exists(&self, node: u64) -> bool {
        self.exists_tuple(node).is_some()
    }

    /// True when `node` has an existence tuple whose deletion carries `stamp`
    /// (e.g. this transaction's marker).
    pub(crate) fn node_deleted_with(&self, node: u64, stamp: u64) -> bool {
        let Some(part) = self.store.vp.read(self.vertex_part(node)) else {
            return false;
        };
        let deleted = part
            .by_subject(node)
            .any(|(_, t)| t.p == PRED_EXISTS && t.end() == stamp);
        deleted
    }

    pub(crate) fn node_labels(&self, node: u64) -> Vec<String> {
        self.node_tuples(node, |p, _| p == PRED_LABEL)
            .into_iter()
            .filter_map(|(_, _, o)| self.store.literals.resolve_str(o.payload))
            .collect()
    }

    pub(crate) fn label_tuple(&self, node: u64, label_gui: u64) -> Option<TupleRef> {
        if !self.may_have_label(node, label_gui) {
            return None;
        }
        self.first_node_tuple(node, |p, o| is_label(p, o, label_gui))
            .map(|(at, _, _)| at)
    }

    /// Whether `t` is a visible tuple giving its node the label `label_gui`.
    pub(crate) fn is_visible_label(&self, t: &Tuple<'_>, label_gui: u64) -> bool {
        is_label(t.p, t.o, label_gui) && self.visible(t)
    }

    pub(crate) fn node_has_label(&self, node: u64, label: &str) -> bool {
        match self.store.literals.lookup(label.as_bytes()) {
            Some(gui) => self.label_tuple(node, gui).is_some(),
            None => false,
        }
    }

    /// [`Reader::node_has_label`] of each of `nodes`, aligned with it: the
    /// label resolved once, the nodes the label bits rule out answered
    /// without a probe ([`Reader::sampled_label_candidates`]: unless a
    /// sample shows they rule out few) and the rest read through the
    /// pipelined probe ([`Reader::first_node_tuples`]), for a filter
    /// testing a label on a batch of rows, e.g. after an expand.
    pub(crate) fn node_has_label_column(&self, nodes: &[u64], label: &str) -> Vec<bool> {
        let Some(gui) = self.store.literals.lookup(label.as_bytes()) else {
            return vec![false; nodes.len()];
        };
        let probe = |nodes: &[u64]| {
            self.first_node_tuples(nodes, false, |t| {
                self.is_visible_label(t, gui).then_some(())
            })
        };
        let Some((candidates, places)) = self.sampled_label_candidates(nodes, gui) else {
            return probe(nodes).into_iter().map(|f| f.is_some()).collect();
        };
        let mut out = vec![false; nodes.len()];
        for (place, found) in places.into_iter().zip(probe(&candidates)) {
            out[place] = found.is_some();
        }
        out
    }

    /// For each of `nodes`, aligned with it, what `pick` returns for the
    /// first of the node's REL_VP tuples it returns something for (as
    /// [`Reader::first_node_tuple`] finds it), through
    /// [`Reader::first_tuples`] (`values`: `pick` reads stored values).
    fn first_node_tuples<T>(
        &self,
        nodes: &[u64],
        values: bool,
        pick: impl FnMut(&Tuple<'_>) -> Option<T>,
    ) -> Vec<Option<T>> {
        let parts = self.store.partitions;
        let part_of = |node| Some(vertex_partition(node, parts));
        self.first_tuples(&self.store.vp, nodes, values, part_of, pick)
    }

    /// For each of `keys` (subjects of `relation`), aligned with it, what
    /// `pick` returns for the first of the key's tuples (S-index order) it
    /// returns something for: the keys grouped by partition (`part_of`, a
    /// counting sort; a key without a partition finds nothing), each
    /// partition read once, each group read through
    /// `Partition::first_by_subjects`, whose software pipeline overlaps the
    /// misses of neighbouring keys. Nodes' labels and properties and
    /// relationships' properties are read in columns this way (`values`:
    /// `pick` reads the stored values, as `first_by_subjects` takes it).
    fn first_tuples<T>(
        &self,
        relation: &Relation,
        keys: &[u64],
        values: bool,
        part_of: impl Fn(u64) -> Option<usize>,
        mut pick: impl FnMut(&Tuple<'_>) -> Option<T>,
    ) -> Vec<Option<T>> {
        let parts = relation.partitions();
        // Slot `parts` collects the keys without a partition (never read).
        let of = |key| part_of(key).filter(|&p| p < parts).unwrap_or(parts);
        let mut starts = vec![0usize; parts + 2];
        for &key in keys {
            starts[of(key) + 1] += 1;
        }
        for p in 0..=parts {
            starts[p + 1] += starts[p];
        }
        // Per partition, its keys and their places in `keys`.
        let mut next = starts.clone();
        let mut grouped = vec![0u64; keys.len()];
        let mut places = vec![0usize; keys.len()];
        for (place, &key) in keys.iter().enumerate() {
            let p = of(key);
            grouped[next[p]] = key;
            places[next[p]] = place;
            next[p] += 1;
        }
        let mut found: Vec<Option<T>> = std::iter::repeat_with(|| None).take(keys.len()).collect();
        for part_no in 0..parts {
            let range = starts[part_no]..starts[part_no + 1];
            if range.is_empty() {
                continue;
            }
            let Some(part) = relation.read(part_no) else {
                continue;
            };
            let picked = part.first_by_subjects(&grouped[range.clone()], values, &mut pick);
            for (&place, value) in places[range].iter().zip(picked) {
                found[place] = value;
            }
        }
        found
    }

    pub(crate) fn node_property_tuple(
        &self,
        node: u64,
        key_id: u32,
    ) -> Option<(TupleRef, Encoded)> {
        self.first_node_tuple(node, |p, _| p == key_id)
            .map(|(at, _, o)| (at, o))
    }

    pub(crate) fn node_property(&self, node: u64, key: &str) -> Option<Value> {
        let key_id = self.store.keys.lookup(key)?;
        self.node_property_of(node, key_id)
    }

    /// [`Reader::node_property`] with the key already resolved.
    fn node_property_of(&self, node: u64, key_id: u32) -> Option<Value> {
        let (_, o) = self.node_property_tuple(node, key_id)?;
        o.decode(&self.store.literals)
    }

    /// [`Reader::node_property`] of each of `nodes`, aligned with it: the
    /// key resolved once, the stored values found through the pipelined
    /// probe ([`Reader::first_node_tuples`]), then decoded (decoding a
    /// string takes the dictionary's lock, which would stall the loads
    /// still in flight).
    pub(crate) fn node_property_column(&self, nodes: &[u64], key: &str) -> Vec<Option<Value>> {
        let Some(key_id) = self.store.keys.lookup(key) else {
            return vec![None; nodes.len()];
        };
        self.first_node_tuples(nodes, true, |t| {
            (t.p == key_id && self.visible(t)).then(|| t.encoded())
        })
        .into_iter()
        .map(|found| found.and_then(|o| o.decode(&self.store.literals)))
        .collect()
    }

    /// Every visible property of `node` (the point-read path: the tuples
    /// off the S index into a small vector, then decoded into the map).
    pub(crate) fn node_properties(&self, node: u64) -> BTreeMap<String, Value> {
        // The tuples first, decoded after: decoding a string takes the
        // dictionary's lock, and a locked instruction would wait for the
        // loads of the tuples still in flight instead of letting all of
        // them miss together.
        let mut found: Vec<(u32, Encoded)> = Vec::with_capacity(8);
        {
            let Some(part) = self.store.vp.read(self.vertex_part(node)) else {
                return BTreeMap::new();
            };
            found.extend(
                part.by_subject(node)
                    .filter(|(_, t)| t.p != PRED_EXISTS && t.p != PRED_LABEL && self.visible(t))
                    .map(|(_, t)| (t.p, t.encoded())),
            );
        }
        self.decoded_properties(&mut found)
    }

    /// `node`'s visible labels (in the order they were added, as
    /// [`Reader::node_labels`]) and properties as stored (key id, value,
    /// undecoded; the tuples [`Reader::node_properties`] decodes) from one
    /// pass over its tuples: a checkpoint exports both of every node, and
    /// each was a probe of the S index of its own. (The export reads into
    /// reused buffers, [`Reader::node_labels_and_stored_into`]; the tests
    /// hold its walk to this.)
    #[cfg(test)]
    pub(crate) fn node_labels_and_stored(&self, node: u64) -> (Vec<String>, Vec<(u32, Encoded)>) {
        match self.store.vp.read(self.vertex_part(node)) {
            Some(part) => self.labels_and_stored(part.by_subject(node).map(|(_, t)| t)),
            None => (Vec::new(), Vec::new()),
        }
    }

    /// [`Reader::node_labels_and_stored`] of a node's REL_VP `tuples`
    /// (all of them, in insertion order; the invisible ones are skipped),
    /// however the caller found them: by an S-index probe, or by a
    /// checkpoint's walk of the partition (module `snapshot::node_walk`).
    #[cfg(test)]
    pub(crate) fn labels_and_stored<'t>(
        &self,
        tuples: impl Iterator<Item = Tuple<'t>>,
    ) -> (Vec<String>, Vec<(u32, Encoded)>) {
        let (mut labels, mut found) = (Vec::new(), Vec::with_capacity(8));
        self.labels_and_stored_into(tuples, &mut labels, &mut found);
        (labels.into_iter().map(str::to_owned).collect(), found)
    }
}

impl<'a> Reader<'a> {
    /// [`Reader::labels_and_stored`] appended to `labels` (borrowed from
    /// the store's dictionary) and `found`: a checkpoint's export reuses
    /// both buffers from node to node instead of allocating a vector and
    /// a `String` per label for each of a loaded graph's nodes.
    pub(crate) fn labels_and_stored_into<'t>(
        &self,
        tuples: impl Iterator<Item = Tuple<'t>>,
        labels: &mut impl Extend<&'a str>,
        found: &mut Vec<(u32, Encoded)>,
    ) {
        let store: &'a Store = self.store;
        for t in tuples {
            if t.p == PRED_EXISTS || !self.visible(&t) {
                continue;
            }
            if t.p == PRED_LABEL {
                labels.extend(store.literals.str_of(t.o.payload));
            } else {
                found.push((t.p, t.encoded()));
            }
        }
    }

    /// [`Reader::node_labels_and_stored`] into buffers, as
    /// [`Reader::labels_and_stored_into`].
    pub(crate) fn node_labels_and_stored_into(
        &self,
        node: u64,
        labels: &mut impl Extend<&'a str>,
        found: &mut Vec<(u32, Encoded)>,
    ) {
        let store: &'a Store = self.store;
        if let Some(part) = store.vp.read(self.vertex_part(node)) {
            let tuples = part.by_subject(node).map(|(_, t)| t);
            self.labels_and_stored_into(tuples, labels, found);
        }
    }
}

impl Reader<'_> {
    /// The property map of `found` (key ids and stored values; reordered).
    pub(crate) fn decoded_properties(
        &self,
        found: &mut [(u32, Encoded)],
    ) -> BTreeMap<String, Value> {
        let mut properties = BTreeMap::new();
        // Literal values last, their records fetched meanwhile: the map
        // work of the inline values overlaps those misses.
        found.sort_by_key(|(_, o)| o.hint != RecordHint::NONE);
        for (_, o) in found.iter() {
            self.store.literals.prefetch_hinted(o.hint);
        }
        for &mut (p, o) in found {
            if let (Some(name), Some(value)) =
                (self.store.keys.name(p), o.decode(&self.store.literals))
            {
                properties.insert(name.to_string(), value);
            }
        }
        properties
    }

    /// The gui of `label` (`Some(None)` for no label); `None` when the
    /// label was never written, so no node carries it.
    pub(crate) fn label_gui(&self, label: Option<&str>) -> Option<Option<u64>> {
        match label {
            Some(l) => self.store.literals.lookup(l.as_bytes()).map(Some),
            None => Some(None),
        }
    }

    /// Visible nodes, optionally only those labelled `label`: an O-index
    /// probe per partition for a label, a relation scan of REL_VP otherwise.
    /// Order: partition by partition, insertion order within one.
    pub(crate) fn scan_nodes(&self, label: Option<&str>) -> Vec<NodeId> {
        let Some(label_gui) = self.label_gui(label) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for part_no in 0..self.store.vp.partitions() {
            let Some(part) = self.store.vp.read(part_no) else {
                continue;
            };
            match label_gui {
                Some(gui) => out.extend(
                    part.by_object(gui)
                        .filter(|(_, t)| self.is_visible_label(t, gui))
                        .map(|(_, t)| NodeId(t.s)),
                ),
                None => out.extend(
                    part.scan()
                        .filter(|(_, t)| t.p == PRED_EXISTS && self.visible(t))
                        .map(|(_, t)| NodeId(t.s)),
                ),
            }
        }
        out
    }

    /// Visible nodes whose property `key` is the string `value` (and that
    /// carry `label`, when given): an O-index probe of REL_VP per
    /// partition, since every string is a dictionary gui and REL_VP indexes
    /// its O guis. A string never interned, or a key never used, finds
    /// nothing at the cost of one dictionary lookup. Order: partition by
    /// partition, insertion order within one.
    pub(crate) fn nodes_with_string_property(
        &self,
        label: Option<&str>,
        key: &str,
        value: &str,
    ) -> Vec<NodeId> {
        let (Some(key_id), Some(gui)) = (
            self.store.keys.lookup(key),
            self.store.literals.lookup(value.as_bytes()),
        ) else {
            return Vec::new();
        };
        let Some(label_gui) = self.label_gui(label) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut found = Vec::new();
        for part_no in 0..self.store.vp.partitions() {
            let Some(part) = self.store.vp.read(part_no) else {
                continue;
            };
            found.clear();
            found.extend(
                part.by_object(gui)
                    .filter(|(_, t)| t.p == key_id && t.o.flag == F_STRING && self.visible(t))
                    .map(|(_, t)| t.s),
            );
            if let Some(label_gui) = label_gui {
                self.keep_labelled(&part, &mut found, label_gui);
            }
            out.extend(found.iter().map(|&node| NodeId(node)));
        }
        out
    }

    /// Keeps the nodes of `nodes` (all of REL_VP partition `part`, which
    /// the caller reads: a node's tuples all live in its
    /// partition) that visibly carry the label `label_gui`: by probing each
    /// node's own tuples when they are few next to the label's O-index
    /// list, else by a set built from that list.
    pub(crate) fn keep_labelled(&self, part: &Partition, nodes: &mut Vec<u64>, label_gui: u64) {
        if nodes.is_empty() {
            return;
        }
        let labels = |t: &Tuple<'_>| self.is_visible_label(t, label_gui);
        if nodes.len() * 8 < part.object_list_len(label_gui) {
            nodes.retain(|&node| part.by_subject(node).any(|(_, t)| labels(&t)));
        } else {
            let labelled: HashSet<u64, foldhash::fast::RandomState> = part
                .by_object(label_gui)
                .filter(|(_, t)| labels(t))
                .map(|(_, t)| t.s)
                .collect();
            nodes.retain(|node| labelled.contains(node));
        }
    }

    /// The REL_E tuple of a relationship id, visible or not.
    pub(crate) fn edge_any(&self, rel: u64) -> Option<(EdgeTuple, u64)> {
        let part_no = self.store.e.partition_of_sid(rel)?;
        let part = self.store.e.read(part_no)?;
        let (index, t) = part.by_statement(rel)?;
        let edge = EdgeTuple {
            at: TupleRef {
                kind: RelKind::E,
                part: part_no,
                index,
            },
            src: t.s,
            type_id: t.p,
            dst: t.o.payload,
        };
        Some((edge, t.end()))
    }

    /// The visible REL_E tuple of a relationship id.
    pub(crate) fn edge(&self, rel: u64) -> Option<EdgeTuple> {
        let (edge, _) = self.edge_any(rel)?;
        let visible = self.store.with_tuple(edge.at, |t| self.visible(t))?;
        visible.then_some(edge)
    }

    pub(crate) fn rel_endpoints(&self, rel: RelId) -> Option<(NodeId, NodeId, String)> {
        let edge = self.edge(rel.0)?;
        let name = self.store.types.name(edge.type_id)?;
        Some((NodeId(edge.src), NodeId(edge.dst), name.to_string()))
    }

    /// Relationships of `node`; see `Txn::expand` for the self-loop rule.
    pub(crate) fn expand(
        &self,
        node: u64,
        dir: Direction,
        types: &[String],
    ) -> Vec<(RelId, NodeId)> {
        let mut out = Vec::new();
        self.each_relationship(node, dir, types, |rel, other| out.push((rel, other)));
        out
    }

    /// How many relationships [`Reader::expand`] would list for the same
    /// arguments, counted in place: the same visibility test on the same
    /// tuples (so the snapshot's and the transaction's own writes count as
    /// the expand would see them), without building the list. A count of a
    /// node's relationships (`COUNT { (n)-[:T]->() }`) needs nothing else.
    pub(crate) fn degree(&self, node: u64, dir: Direction, types: &[String]) -> u64 {
        let mut count = 0u64;
        self.each_relationship(node, dir, types, |_, _| count += 1);
        count
    }

    /// An upper bound of how many relationships of `node` in `dir` (of any
    /// type) [`Reader::expand`] could list: the lengths of the node's
    /// adjacency lists in its grid cells, read without a tuple. A caller
    /// weighing a read of all of them against other work needs no more.
    pub(crate) fn degree_bound(&self, node: u64, dir: Direction) -> u64 {
        let p = self.store.partitions;
        let home = vertex_partition(node, p);
        let mut bound = 0usize;
        for other in 0..p {
            if matches!(dir, Direction::Outgoing | Direction::Both) {
                if let Some(part) = self.store.e.read(home * p + other) {
                    bound += part.subject_list_len(node);
                }
            }
            if matches!(dir, Direction::Incoming | Direction::Both) {
                if let Some(part) = self.store.e.read(other * p + home) {
                    bound += part.object_list_len(node);
                }
            }
        }
        bound as u64
    }

    /// Feeds each visible relationship of `node` in `dir` (of `types`, when
    /// named) to `sink` as `(relationship, other end)`; a self-loop once,
    /// also in `Both`.
    fn each_relationship(
        &self,
        node: u64,
        dir: Direction,
        types: &[String],
        mut sink: impl FnMut(RelId, NodeId),
    ) {
        let Some(type_ids) = self.type_ids(types) else {
            return;
        };
        let p = self.store.partitions;
        let home = vertex_partition(node, p);
        if matches!(dir, Direction::Outgoing | Direction::Both) {
            for column in 0..p {
                let Some(part) = self.store.e.read(home * p + column) else {
                    continue;
                };
                let mut listed = |(_, t): (u32, Tuple<'_>)| {
                    if self.visible(&t) {
                        sink(RelId(t.i), NodeId(t.o.payload));
                    }
                };
                if type_ids.is_empty() {
                    part.by_subject(node).for_each(&mut listed);
                } else {
                    // Only the wanted types' stretch of a sorted list.
                    part.by_subject_of_types(node, &type_ids)
                        .for_each(&mut listed);
                }
            }
        }
        if matches!(dir, Direction::Incoming | Direction::Both) {
            for row in 0..p {
                let Some(part) = self.store.e.read(row * p + home) else {
                    continue;
                };
                let mut listed = |(_, t): (u32, Tuple<'_>)| {
                    // In `Both`, a self-loop was already listed as outgoing.
                    if !(dir == Direction::Both && t.s == node) && self.visible(&t) {
                        sink(RelId(t.i), NodeId(t.s));
                    }
                };
                if type_ids.is_empty() {
                    part.by_object(node).for_each(&mut listed);
                } else {
                    part.by_object_of_types(node, &type_ids)
                        .for_each(&mut listed);
                }
            }
        }
    }

    /// The ids of the named relationship types, each once (empty for no
    /// restriction); `None` when types were named and none exists, so
    /// nothing can match.
    fn type_ids(&self, types: &[String]) -> Option<Vec<u32>> {
        let mut ids: Vec<u32> = types
            .iter()
            .filter_map(|t| self.store.types.lookup(t))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        (types.is_empty() || !ids.is_empty()).then_some(ids)
    }

    /// [`Reader::expand`] of `node` kept to the relationships whose other
    /// end is `other`, found without listing the rest: one grid cell per
    /// direction, and there the source's sorted adjacency prefix binary
    /// searched (`Partition::by_subject_object`).
    pub(crate) fn expand_into(
        &self,
        node: u64,
        other: u64,
        dir: Direction,
        types: &[String],
    ) -> Vec<(RelId, NodeId)> {
        let Some(type_ids) = self.type_ids(types) else {
            return Vec::new();
        };
        let types = (!type_ids.is_empty()).then_some(type_ids.as_slice());
        let mut out = Vec::new();
        let mut between = |src: u64, dst: u64| {
            let cell = edge_cell(src, dst, self.store.partitions);
            if let Some(part) = self.store.e.read(cell) {
                part.by_subject_object(src, dst, types, |_, t| {
                    if self.visible(&t) {
                        out.push((RelId(t.i), NodeId(other)));
                    }
                });
            }
        };
        if matches!(dir, Direction::Outgoing | Direction::Both) {
            between(node, other);
        }
        // In `Both`, a self-loop was already listed as outgoing.
        let listed = dir == Direction::Both && node == other;
        if matches!(dir, Direction::Incoming | Direction::Both) && !listed {
            between(other, node);
        }
        out
    }

    /// Visible REL_EP tuples of a relationship matching `pred`.
    pub(crate) fn rel_tuples(
        &self,
        rel: u64,
        pred: impl FnMut(u32) -> bool,
    ) -> Vec<(TupleRef, u32, Encoded)> {
        let mut out = Vec::new();
        self.each_rel_tuple(rel, pred, |item| {
            out.push(item);
            true
        });
        out
    }

    /// Feeds the visible REL_EP tuples of a relationship matching `pred`
    /// to `sink` until it returns false (no allocation).
    fn each_rel_tuple(
        &self,
        rel: u64,
        mut pred: impl FnMut(u32) -> bool,
        mut sink: impl FnMut((TupleRef, u32, Encoded)) -> bool,
    ) {
        let Some((crate::ids::TAG_E, part_no, _)) = crate::ids::split_sid(rel) else {
            return;
        };
        let Some(part) = self.store.ep.read(part_no) else {
            return;
        };
        for (index, t) in part.by_subject(rel) {
            if pred(t.p) && self.visible(&t) {
                let at = TupleRef {
                    kind: RelKind::Ep,
                    part: part_no,
                    index,
                };
                if !sink((at, t.p, t.encoded())) {
                    return;
                }
            }
        }
    }

    pub(crate) fn rel_property_tuple(&self, rel: u64, key_id: u32) -> Option<(TupleRef, Encoded)> {
        let mut found = None;
        self.each_rel_tuple(
            rel,
            |p| p == key_id,
            |(at, _, o)| {
                found = Some((at, o));
                false
            },
        );
        found
    }

    /// [`Reader::rel_property`] of each of `rels`, aligned with it, the key
    /// resolved once and the stored values found through the pipelined
    /// probe ([`Reader::first_tuples`]; a filter on a relationship property
    /// after an expand, e.g. SNB IC5's `membership.joinDate`, read them one
    /// miss chain at a time). Reads each relationship's property tuples
    /// only: a relationship and its properties are created, and deleted,
    /// together, so a visible property tuple means a visible relationship.
    pub(crate) fn rel_property_column(&self, rels: &[u64], key: &str) -> Vec<Option<Value>> {
        let Some(key_id) = self.store.keys.lookup(key) else {
            return vec![None; rels.len()];
        };
        // A relationship's properties are in the EP partition its SID
        // names; a key that is not a relationship's SID finds nothing, as in
        // `each_rel_tuple`.
        let part_of = |rel| match crate::ids::split_sid(rel) {
            Some((crate::ids::TAG_E, part_no, _)) => Some(part_no),
            _ => None,
        };
        self.first_tuples(&self.store.ep, rels, true, part_of, |t| {
            (t.p == key_id && self.visible(t)).then(|| t.encoded())
        })
        .into_iter()
        .map(|found| found.and_then(|o| o.decode(&self.store.literals)))
        .collect()
    }

    pub(crate) fn rel_property(&self, rel: u64, key: &str) -> Option<Value> {
        let key_id = self.store.keys.lookup(key)?;
        let (_, o) = self.rel_property_tuple(rel, key_id)?;
        o.decode(&self.store.literals)
    }

    /// Every visible property of `rel`, decoded as a node's are (string
    /// records prefetched before the map is built).
    pub(crate) fn rel_properties(&self, rel: u64) -> BTreeMap<String, Value> {
        let mut found = self.rel_stored_properties(rel);
        self.decoded_properties(&mut found)
    }

    /// A relationship's properties as stored: (key id, value), undecoded.
    pub(crate) fn rel_stored_properties(&self, rel: u64) -> Vec<(u32, Encoded)> {
        let mut found: Vec<(u32, Encoded)> = Vec::with_capacity(8);
        self.each_rel_tuple(
            rel,
            |_| true,
            |(_, p, o)| {
                found.push((p, o));
                true
            },
        );
        found
    }
}

/// The REL_E grid cell (and REL_EP partition) of an edge.
pub(crate) fn cell_of(store: &Store, src: u64, dst: u64) -> usize {
    edge_cell(src, dst, store.partitions)
}

#[cfg(test)]
mod tests {
    use crate::ids::{split_sid, vertex_partition};
    use crate::predicates::{PRED_EXISTS, PRED_LABEL};
    use crate::relation::Relation;
    use crate::store::Store;
    use crate::typed_value::F_STRING;
    use crate::{BulkNode, BulkRel, StoreConfig};
    use nereid_values::{NodeId, RelId, Value};
    use std::collections::BTreeMap;

    /// `(string value, hint names its record)` for each string property of
    /// `subject` in partition `part` of `relation`.
    fn string_hints(
        store: &Store,
        relation: &Relation,
        part: usize,
        subject: u64,
    ) -> Vec<(String, bool)> {
        let part = relation.read(part).unwrap();
        let mut out: Vec<(String, bool)> = part
            .by_subject(subject)
            .filter(|(_, t)| t.p != PRED_EXISTS && t.p != PRED_LABEL && t.o.flag == F_STRING)
            .map(|(_, t)| {
                let value = store.literals.resolve_str(t.o.payload).unwrap();
                (value, store.literals.hint_names(t.o.payload, t.hint()))
            })
            .collect();
        out.sort();
        out
    }

    fn node_hints(store: &Store, node: NodeId) -> Vec<(String, bool)> {
        let part = vertex_partition(node.0, store.partitions);
        string_hints(store, &store.vp, part, node.0)
    }

    fn rel_hints(store: &Store, rel: RelId) -> Vec<(String, bool)> {
        let (_, part, _) = split_sid(rel.0).unwrap();
        string_hints(store, &store.ep, part, rel.0)
    }

    fn assert_hinted(hints: Vec<(String, bool)>, expected: &[&str]) {
        let values: Vec<&str> = hints.iter().map(|(v, _)| v.as_str()).collect();
        assert_eq!(values, expected);
        assert!(hints.iter().all(|(_, named)| *named), "{hints:?}");
    }

    #[test]
    fn every_write_path_stores_the_hint_of_a_string_value() {
        let store = Store::new(StoreConfig { partitions: 4 });
        let bulk_props = [("name", Value::from("bulk")), ("n", Value::Int(1))];
        let bulk = store
            .bulk_load_nodes(&[BulkNode {
                labels: &["L"],
                properties: &bulk_props,
            }])
            .unwrap()[0];
        let txn = store.begin();
        let props = BTreeMap::from([
            ("name".to_string(), Value::from("created")),
            ("other".to_string(), Value::from("bulk")),
        ]);
        let created = txn.create_node(&["L".to_string()], &props).unwrap();
        txn.set_node_property(bulk, "later", Value::from("set"))
            .unwrap();
        assert_hinted(node_hints(&store, bulk), &["bulk", "set"]);
        assert_hinted(node_hints(&store, created), &["bulk", "created"]);
        let read = txn.node_properties(created);
        assert_eq!(read.get("name"), Some(&Value::from("created")));
        assert_eq!(txn.node_property(bulk, "later"), Some(Value::from("set")));
        commit(&txn);

        let since = [("since", Value::from("bulk edge"))];
        let bulk_rel = store
            .bulk_load_rels(&[BulkRel {
                src: bulk,
                dst: created,
                rel_type: "T",
                properties: &since,
            }])
            .unwrap()[0];
        let txn = store.begin();
        let props = BTreeMap::from([("since".to_string(), Value::from("txn edge"))]);
        let created_rel = txn.create_rel(created, bulk, "T", &props).unwrap();
        txn.set_rel_property(bulk_rel, "note", Value::from("set on edge"))
            .unwrap();
        assert_hinted(rel_hints(&store, bulk_rel), &["bulk edge", "set on edge"]);
        assert_hinted(rel_hints(&store, created_rel), &["txn edge"]);
        assert_eq!(
            txn.rel_property(bulk_rel, "note"),
            Some(Value::from("set on edge"))
        );
        assert_eq!(
            txn.rel_properties(created_rel).get("since"),
            Some(&Value::from("txn edge"))
        );
    }

    fn commit(txn: &crate::Txn) {
        let ticket = txn
            .commit(|_, _| Ok::<(), std::convert::Infallible>(()))
            .unwrap();
        ticket.unwrap().publish();
    }
}
