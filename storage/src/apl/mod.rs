//! The access-pattern layer (APL): one interface for reading edges of the
//! store by pattern, which decides per partition how to read them.
//!
//! A pattern binds each endpoint of an edge to nothing ([`Endpoint::Any`])
//! or to a set of vertices ([`Endpoint::In`], a constant being a set of
//! one) and restricts the edge type. For every REL_E grid cell the pattern
//! can touch, the layer chooses (module `choose`) between probing the
//! adjacency index of the bound side and scanning the whole cell with the
//! bound sides as bitmap filters, stops early once a LIMIT is reached, and
//! reports which modes it used. It estimates a pattern's cardinality by
//! sampling without executing it (module `estimate`).
//!
//! Invariant: both modes return exactly the visible tuples matching the
//! pattern (only the order may differ); the proptest `apl_modes` checks it.

mod bfs;
mod cell_property;
mod choose;
mod estimate;
mod expand_many;
mod property_scan;
mod vertex_set;

pub use crate::value_test::{Comparison, ValueTest};
pub use bfs::{BfsLevel, BfsReport};
pub use cell_property::CellProperty;
pub use choose::{AccessMode, ModeChoice};
pub use expand_many::Neighbour;
pub use vertex_set::VertexSet;

use crate::relation::{GuiBits, Partition, PartitionScan, ScanFilter, Tuple};
use crate::txn::Reader;
use choose::{choose, Side};
use nereid_values::{NodeId, RelId};

/// What one endpoint of an edge pattern is bound to.
#[derive(Copy, Clone)]
pub enum Endpoint<'a> {
    Any,
    In(&'a VertexSet),
}

/// An edge pattern `(src)-[:types]->(dst)`; an empty type list means any type.
#[derive(Copy, Clone)]
pub struct EdgePattern<'a> {
    pub src: Endpoint<'a>,
    pub types: &'a [String],
    pub dst: Endpoint<'a>,
}

/// One matching edge.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EdgeMatch {
    pub rel: RelId,
    pub src: NodeId,
    pub dst: NodeId,
}

/// How a pattern was read: partitions per mode and tuples examined.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessReport {
    pub index_partitions: usize,
    pub scan_partitions: usize,
    /// Partitions skipped because a bound side has no member in them.
    pub skipped_partitions: usize,
    pub tuples_examined: u64,
    pub matches: u64,
    /// True when a LIMIT stopped the read before every partition was read.
    pub stopped_early: bool,
}

/// The APL over one transaction's view (see [`crate::Txn::apl`]).
pub struct Apl<'t> {
    pub(crate) reader: Reader<'t>,
}

/// Resolved type restriction: `None` = any type; an empty list = a type
/// that does not exist (nothing matches).
type TypeIds = Option<Vec<u32>>;

impl<'t> Apl<'t> {
    /// An empty vertex set sized for this store.
    pub fn vertex_set(&self) -> VertexSet {
        VertexSet::new(self.reader.store.partitions)
    }

    /// A vertex set holding `nodes`.
    pub fn vertex_set_of(&self, nodes: impl IntoIterator<Item = NodeId>) -> VertexSet {
        let mut set = self.vertex_set();
        for n in nodes {
            set.insert(n);
        }
        set
    }

    fn type_ids(&self, types: &[String]) -> TypeIds {
        if types.is_empty() {
            return None;
        }
        Some(
            types
                .iter()
                .filter_map(|t| self.reader.store.types.lookup(t))
                .collect(),
        )
    }

    /// Calls `sink` for every visible edge matching `pattern`, at most
    /// `limit` times, choosing the access mode per grid cell (or as forced
    /// by `choice`).
    pub fn edges(
        &self,
        pattern: &EdgePattern<'_>,
        limit: Option<u64>,
        choice: ModeChoice,
        mut sink: impl FnMut(EdgeMatch),
    ) -> AccessReport {
        let mut report = AccessReport::default();
        let types = self.type_ids(pattern.types);
        if types.as_ref().is_some_and(Vec::is_empty) || limit == Some(0) {
            return report;
        }
        let p = self.reader.store.partitions;
        let limit = limit.unwrap_or(u64::MAX);
        for cell in 0..p * p {
            if report.matches >= limit {
                report.stopped_early = true;
                break;
            }
            self.read_cell(
                pattern,
                types.as_deref(),
                cell,
                limit,
                choice,
                &mut report,
                &mut sink,
            );
        }
        report
    }

    /// The number of cells of the partition grid (see [`Apl::edges_in_cell`]).
    pub fn cells(&self) -> usize {
        self.reader.store.partitions * self.reader.store.partitions
    }

    /// The tuple slots of grid cell `cell` (visible or not, of every
    /// type): an upper bound of what [`Apl::edges_in_cell`] yields there,
    /// for a caller that sizes its buffers once instead of growing them.
    pub fn cell_slots(&self, cell: usize) -> usize {
        self.reader.store.e.scan(cell).map_or(0, |scan| scan.len())
    }

    /// [`Apl::edges`] kept to one cell of the partition grid (`cell < `
    /// [`Apl::cells`]), without a limit. The cells are disjoint and
    /// together hold every edge, so a caller that reads all of a large
    /// graph (an algorithm's CSR view) reads them in parallel, one `Apl`
    /// per thread.
    pub fn edges_in_cell(
        &self,
        pattern: &EdgePattern<'_>,
        cell: usize,
        choice: ModeChoice,
        mut sink: impl FnMut(EdgeMatch),
    ) -> AccessReport {
        let mut report = AccessReport::default();
        let types = self.type_ids(pattern.types);
        if types.as_ref().is_some_and(Vec::is_empty) || cell >= self.cells() {
            return report;
        }
        let types = types.as_deref();
        self.read_cell(
            pattern,
            types,
            cell,
            u64::MAX,
            choice,
            &mut report,
            &mut sink,
        );
        report
    }

    /// Reads the matches of `pattern` in grid cell `cell` into `sink`,
    /// choosing the access mode for the cell.
    #[allow(clippy::too_many_arguments)]
    fn read_cell(
        &self,
        pattern: &EdgePattern<'_>,
        types: Option<&[u32]>,
        cell: usize,
        limit: u64,
        choice: ModeChoice,
        report: &mut AccessReport,
        sink: &mut impl FnMut(EdgeMatch),
    ) {
        let store = self.reader.store;
        let p = store.partitions;
        let (row, column) = (cell / p, cell % p);
        let src_probes = bound_in(pattern.src, row);
        let dst_probes = bound_in(pattern.dst, column);
        if src_probes == Some(0) || dst_probes == Some(0) {
            report.skipped_partitions += 1;
            return;
        }
        let Some(part) = store.e.read(cell) else {
            return;
        };
        // Probe the bound side with fewer members in this cell.
        let side = match (src_probes, dst_probes) {
            (Some(s), Some(d)) if d < s => Some((Side::Object, d, column)),
            (Some(s), _) => Some((Side::Subject, s, row)),
            (None, Some(d)) => Some((Side::Object, d, column)),
            (None, None) => None,
        };
        let mode = match side {
            Some((side, probes, _)) => choose(&part, side, probes, choice),
            None => AccessMode::RelationScan,
        };
        let mut cell_read = CellRead {
            apl: self,
            pattern,
            types,
            limit,
            report,
            sink,
        };
        match (mode, side) {
            (AccessMode::IndexScan, Some((side, _, part_1d))) => {
                cell_read.index_scan(&part, side, part_1d)
            }
            _ => {
                // A relation scan needs no index: it reads the zones
                // alone (`PartitionScan`).
                drop(part);
                if let Some(scan) = store.e.scan(cell) {
                    cell_read.relation_scan(&scan);
                }
            }
        }
    }

    /// Estimated number of visible edges matching `pattern` (sampling; see
    /// module `estimate`).
    pub fn estimate_edges(&self, pattern: &EdgePattern<'_>) -> f64 {
        estimate::edges(self, pattern, self.type_ids(pattern.types).as_deref())
    }

    fn visible(&self, t: &Tuple) -> bool {
        t.visible(&self.reader.view)
    }
}

/// Members of a bound endpoint in 1D partition `part`; `None` when unbound.
fn bound_in(endpoint: Endpoint<'_>, part: usize) -> Option<usize> {
    match endpoint {
        Endpoint::Any => None,
        Endpoint::In(set) => Some(set.in_partition(part).len()),
    }
}

/// The membership bitmap of a bound endpoint (bit-vector scans).
fn endpoint_bits(endpoint: Endpoint<'_>) -> Option<GuiBits<'_>> {
    match endpoint {
        Endpoint::Any => None,
        Endpoint::In(set) => Some(set.bits()),
    }
}

fn matches_endpoint(endpoint: Endpoint<'_>, gui: u64) -> bool {
    match endpoint {
        Endpoint::Any => true,
        Endpoint::In(set) => set.contains_gui(gui),
    }
}

/// The reading of one grid cell.
struct CellRead<'r, 'a, 't, F> {
    apl: &'r Apl<'t>,
    pattern: &'r EdgePattern<'a>,
    types: Option<&'r [u32]>,
    limit: u64,
    report: &'r mut AccessReport,
    sink: &'r mut F,
}

impl<F: FnMut(EdgeMatch)> CellRead<'_, '_, '_, F> {
    /// Checks everything but visibility last (the atomics are the dearest).
    /// `probed` is the side the index probe found `t` by: the probe already
    /// matched that endpoint exactly (the tuple's key is a member of the
    /// set probed), so its membership test is skipped.
    #[inline]
    fn consider(&mut self, t: &Tuple, probed: Side) -> bool {
        self.report.tuples_examined += 1;
        let type_ok = match self.types {
            None => true,
            Some([only]) => t.p == *only,
            Some(list) => list.contains(&t.p),
        };
        if type_ok
            && (probed == Side::Subject || matches_endpoint(self.pattern.src, t.s))
            && (probed == Side::Object || matches_endpoint(self.pattern.dst, t.o.payload))
            && self.apl.visible(t)
        {
            (self.sink)(EdgeMatch {
                rel: RelId(t.i),
                src: NodeId(t.s),
                dst: NodeId(t.o.payload),
            });
            self.report.matches += 1;
        }
        self.report.matches < self.limit
    }

    /// Scans the cell column by column; same tests as [`CellRead::consider`].
    fn relation_scan(&mut self, part: &PartitionScan) {
        self.report.scan_partitions += 1;
        let filter = ScanFilter {
            types: self.types,
            s: endpoint_bits(self.pattern.src),
            o: endpoint_bits(self.pattern.dst),
        };
        let (limit, report, sink) = (self.limit, &mut *self.report, &mut *self.sink);
        let (visited, completed) =
            part.scan_visible(&self.apl.reader.view, &filter, |sid, s, _, o| {
                (sink)(EdgeMatch {
                    rel: RelId(sid),
                    src: NodeId(s),
                    dst: NodeId(o),
                });
                report.matches += 1;
                report.matches < limit
            });
        report.tuples_examined += visited;
        if !completed {
            report.stopped_early = true;
        }
    }

    fn index_scan(&mut self, part: &Partition, side: Side, part_1d: usize) {
        self.report.index_partitions += 1;
        let endpoint = match side {
            Side::Subject => self.pattern.src,
            Side::Object => self.pattern.dst,
        };
        let Endpoint::In(set) = endpoint else {
            return;
        };
        let keys = set.in_partition(part_1d);
        let types = self.types;
        let completed = match side {
            Side::Subject => part.by_subjects(keys, types, |_, t| self.consider(&t, side)),
            Side::Object => part.by_objects(keys, types, |_, t| self.consider(&t, side)),
        };
        if !completed {
            self.report.stopped_early = true;
        }
    }
}
