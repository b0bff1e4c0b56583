//! Edges of some types, or nodes of a label, filtered on one of their
//! properties, with the test run on the stored value: the
//! relationship-type scan with a pushed predicate (`MATCH (a)-[r:T]->(b)
//! WHERE r.w < 10`) and the node property scan (`MATCH (n:L) WHERE n.age >
//! 30`).
//!
//! Edge properties live in REL_EP in the grid cell of their edge, with the
//! edge's statement id as S. Per cell the layer scans REL_EP for tuples of
//! the property key (`PartitionScan::scan_values`: zones of other keys passed
//! over, integers and floats compared on their stored bits when the caller
//! gives a [`ValueTest`], other values decoded for the caller's test); only the survivors are
//! joined to their REL_E tuple through the cell's I-index (the I-join),
//! checked for type and visibility, and reported. An edge without the
//! property has no REL_EP tuple for it, so it never matches: a comparison
//! with an absent (null) property is never true.
//!
//! The test is the caller's (the executor passes its own comparison, so
//! the semantics are exactly those of its filter); storage only supplies
//! the value.
//!
//! Locks: none. The REL_EP cell is scanned, then the REL_E cell's I index
//! probed for the passing edges, both without the partitions' locks
//! (ADR 0078, ADR 0080).

use super::{AccessReport, Apl, EdgeMatch, ValueTest};
use crate::relation::PartitionScan;
use crate::relation::Tuple;
use nereid_values::{NodeId, RelId, Value};

impl Apl<'_> {
    /// Calls `sink` for every visible edge of one of `types` (any type when
    /// empty) whose property `key` is present and passes `test`. Where
    /// `fast` decides a stored value (module `value_test`: an integer or a
    /// float compared with a constant of its type) it must agree with
    /// `test`; the scan then skips decoding it and calling `test`.
    pub fn edges_with_property(
        &self,
        types: &[String],
        key: &str,
        fast: Option<ValueTest>,
        mut test: impl FnMut(&Value) -> bool,
        mut sink: impl FnMut(EdgeMatch),
    ) -> AccessReport {
        let mut report = AccessReport::default();
        let types = self.type_ids(types);
        let store = self.reader.store;
        let Some(key_id) = store.keys.lookup(key) else {
            return report;
        };
        if types.as_ref().is_some_and(Vec::is_empty) {
            return report;
        }
        let mut passed: Vec<u64> = Vec::new();
        for cell in 0..store.ep.partitions() {
            passed.clear();
            if let Some(part) = store.ep.scan(cell) {
                self.scan_passing(&part, key_id, fast, &mut test, &mut passed, &mut report);
            }
            if passed.is_empty() {
                continue;
            }
            let Some(edges) = store.e.read(cell) else {
                continue;
            };
            for &sid in &passed {
                let Some((_, t)) = edges.by_statement(sid) else {
                    continue;
                };
                if type_matches(types.as_deref(), &t) && self.visible(&t) {
                    report.matches += 1;
                    sink(EdgeMatch {
                        rel: RelId(t.i),
                        src: NodeId(t.s),
                        dst: NodeId(t.o.payload),
                    });
                }
            }
        }
        report
    }
}

impl Apl<'_> {
    /// Appends to `passed` the S of every visible tuple of `part` with P
    /// `key_id` whose value passes (`fast` where it decides, else `test`
    /// on the decoded value), counting the scan in `report`.
    fn scan_passing(
        &self,
        part: &PartitionScan,
        key_id: u32,
        fast: Option<ValueTest>,
        test: &mut impl FnMut(&Value) -> bool,
        passed: &mut Vec<u64>,
        report: &mut AccessReport,
    ) {
        let literals = &self.reader.store.literals;
        report.scan_partitions += 1;
        report.tuples_examined += part.scan_values(
            &self.reader.view,
            key_id,
            fast.as_ref(),
            |o| o.decode(literals).is_some_and(|v| test(&v)),
            |s| passed.push(s),
        );
    }
}

fn type_matches(types: Option<&[u32]>, t: &Tuple) -> bool {
    match types {
        None => true,
        Some(list) => list.contains(&t.p),
    }
}

impl Apl<'_> {
    /// Calls `sink` for every visible node carrying `label` (any node when
    /// `None`) whose property `key` is present and passes `test` (`fast`
    /// as for [`Apl::edges_with_property`]): per REL_VP partition, a value
    /// scan of the key's tuples, then, for a label, the survivors kept to
    /// the labelled nodes of that partition (`Reader::keep_labelled`).
    pub fn nodes_with_property(
        &self,
        label: Option<&str>,
        key: &str,
        fast: Option<ValueTest>,
        mut test: impl FnMut(&Value) -> bool,
        mut sink: impl FnMut(NodeId),
    ) -> AccessReport {
        let mut report = AccessReport::default();
        let store = self.reader.store;
        let Some(key_id) = store.keys.lookup(key) else {
            return report;
        };
        let Some(label_gui) = self.reader.label_gui(label) else {
            return report;
        };
        let mut passed: Vec<u64> = Vec::new();
        for part_no in 0..store.vp.partitions() {
            let Some(scan) = store.vp.scan(part_no) else {
                continue;
            };
            passed.clear();
            self.scan_passing(&scan, key_id, fast, &mut test, &mut passed, &mut report);
            drop(scan);
            if let (Some(gui), Some(part)) = (label_gui, store.vp.read(part_no)) {
                self.reader.keep_labelled(&part, &mut passed, gui);
            }
            report.matches += passed.len() as u64;
            passed.iter().for_each(|&node| sink(NodeId(node)));
        }
        report
    }
}
