//! The CSR view of one snapshot: the nodes a run covers (all, or those with
//! a label), in ascending id order so that a dense index maps back by
//! position, and the edges among them (all types, or some) as a [`Graph`],
//! with a numeric edge property as weights when asked.

use crate::csr::{CellEdges, Graph};
use crate::error::AlgorithmError;
use crate::weight_order::RowOrder;
use nereid_storage::apl::{CellProperty, EdgeMatch, EdgePattern, Endpoint, ModeChoice};
use nereid_storage::{NodeIndex, Txn};
use nereid_values::{NodeId, RelId, Value};
use rayon::prelude::*;
use std::time::{Duration, Instant};

/// What a view holds; equal specs over one snapshot give equal views.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ViewSpec {
    /// Edge types to keep, sorted and distinct; empty: every type.
    pub edge_labels: Vec<String>,
    /// Only nodes with this label (and edges between two of them).
    pub vertex_label: Option<String>,
    /// The edge property read as each edge's weight.
    pub weight_property: Option<String>,
    /// How rows are ordered (by weight only when weighted): the egonet's
    /// weight-sorted view is a view of its own.
    pub row_order: RowOrder,
}

impl ViewSpec {
    pub fn new(
        mut edge_labels: Vec<String>,
        vertex_label: Option<String>,
        weight_property: Option<String>,
    ) -> ViewSpec {
        edge_labels.sort();
        edge_labels.dedup();
        ViewSpec {
            edge_labels,
            vertex_label,
            weight_property,
            row_order: RowOrder::Target,
        }
    }

    /// This spec with rows in `order`.
    pub fn with_row_order(self, order: RowOrder) -> ViewSpec {
        ViewSpec {
            row_order: order,
            ..self
        }
    }
}

/// A graph built from one snapshot, and the nodes its indices stand for.
#[derive(Debug)]
pub struct GraphView {
    nodes: Vec<NodeId>,
    index: NodeIndex,
    graph: Graph,
    build_time: Duration,
}

impl GraphView {
    /// Reads the snapshot `txn` sees, in parallel on the current rayon
    /// pool: the edges and their weights one cell of the store's partition
    /// grid per task (both ends mapped to dense indices as they are read,
    /// through a direct-access [`NodeIndex`]: one array read per end), then
    /// the CSR construction from the cells' pieces where they lie (never
    /// concatenated). Edges come in cell order whatever
    /// the thread count, so the view is the same for every run.
    pub fn build(txn: &Txn, spec: &ViewSpec) -> Result<GraphView, AlgorithmError> {
        let started = Instant::now();
        let (nodes, index) = NodeIndex::ascending(txn.scan_nodes(spec.vertex_label.as_deref()));
        let pattern = EdgePattern {
            src: Endpoint::Any,
            types: &spec.edge_labels,
            dst: Endpoint::Any,
        };
        let per_cell: Vec<CellEdges> = (0..txn.apl().cells())
            .into_par_iter()
            .map(|cell| read_cell(txn, &pattern, &index, cell, spec))
            .collect::<Result<_, _>>()?;
        let weighted = spec.weight_property.is_some();
        let graph = Graph::from_cells(nodes.len(), per_cell, weighted, spec.row_order);
        Ok(GraphView {
            nodes,
            index,
            graph,
            build_time: started.elapsed(),
        })
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The dense index of `node`, if the view holds it.
    pub fn index_of(&self, node: NodeId) -> Option<u32> {
        self.index.get(node)
    }

    pub fn node(&self, index: u32) -> NodeId {
        self.nodes[index as usize]
    }

    /// How long reading the snapshot and building the CSR took.
    pub fn build_time(&self) -> Duration {
        self.build_time
    }
}

/// Edges a cell's reader holds back while their ends' index slots load:
/// a cell yields its edges in storage order, so each end's lookup is a
/// random read of the index (megabytes at a million nodes), and waiting
/// for them one by one was most of the read's time.
const LOOKAHEAD: usize = 16;

/// One grid cell's edges among the view's nodes, both ends mapped to
/// dense indices, each with its weight when the spec names a weight
/// property: the cell's weights are read in one scan of its property
/// partition first, then looked up by relationship as the edges come.
fn read_cell(
    txn: &Txn,
    pattern: &EdgePattern<'_>,
    index: &NodeIndex,
    cell: usize,
    spec: &ViewSpec,
) -> Result<CellEdges, AlgorithmError> {
    let apl = txn.apl();
    // Sized once: growth by doubling touches about twice the final size
    // in fresh pages, which the kernel zeroes (half a weighted build's
    // time on the 2-core VM before this).
    let slots = apl.cell_slots(cell);
    let mut kept = Kept {
        txn,
        index,
        weights_of: spec
            .weight_property
            .as_deref()
            .map(|key| (key, apl.rel_property_in_cell_as(cell, key, LOOK_UP, usable))),
        edges: Vec::with_capacity(slots),
        weights: Vec::with_capacity(if spec.weight_property.is_some() {
            slots
        } else {
            0
        }),
        failed: None,
        last_src: None,
    };
    // The last `LOOKAHEAD` edges, by arrival number modulo `LOOKAHEAD`.
    let mut held: [Option<EdgeMatch>; LOOKAHEAD] = [None; LOOKAHEAD];
    let mut arrived = 0usize;
    let mut last_src = None;
    apl.edges_in_cell(pattern, cell, ModeChoice::Auto, |m| {
        // A cell lists a source's edges together when they were loaded
        // together: its slot is loaded once for the run.
        if last_src != Some(m.src) {
            index.prefetch(m.src);
            last_src = Some(m.src);
        }
        index.prefetch(m.dst);
        if let Some(due) = held[arrived % LOOKAHEAD].replace(m) {
            kept.keep(due);
        }
        arrived += 1;
    });
    for due in (arrived..arrived + LOOKAHEAD).filter_map(|i| held[i % LOOKAHEAD]) {
        kept.keep(due);
    }
    match kept.failed {
        Some(e) => Err(e),
        None => {
            // A cell holding mostly other types (or deleted edges) would
            // keep its unused slots until the CSR is built: a copy is
            // cheaper past half.
            let (mut edges, mut weights) = (kept.edges, kept.weights);
            if edges.len() < edges.capacity() / 2 {
                edges.shrink_to_fit();
                weights.shrink_to_fit();
            }
            Ok((edges, weights))
        }
    }
}

/// A weight slot whose value is not a usable weight (none, not a number,
/// negative or NaN): the edge's value is looked up again, to name it in
/// the error. Any negative number would do: no usable weight is one.
const LOOK_UP: f64 = -1.0;

/// A property value as a weight slot: the weight, or [`LOOK_UP`].
fn usable(value: Value) -> f64 {
    classify(Some(&value)).unwrap_or(LOOK_UP)
}

/// Why a property value is not a usable weight.
enum Unusable {
    Missing,
    NotNumeric(&'static str),
    Negative,
}

/// A weight from a property value: a number, neither negative nor NaN.
/// The one rule both the cell's column ([`usable`]) and the error
/// ([`weight_of`]) apply.
fn classify(value: Option<&Value>) -> Result<f64, Unusable> {
    let weight = match value {
        Some(&Value::Int(i)) => i as f64,
        Some(&Value::Float(f)) => f,
        Some(other) => return Err(Unusable::NotNumeric(other.type_name())),
        None => return Err(Unusable::Missing),
    };
    if weight.is_nan() || weight < 0.0 {
        return Err(Unusable::Negative);
    }
    Ok(weight)
}

/// What one cell's reader keeps: the edges among the view's nodes, as
/// dense index pairs, and their weights.
struct Kept<'a> {
    txn: &'a Txn,
    index: &'a NodeIndex,
    weights_of: Option<(&'a str, CellProperty<f64>)>,
    edges: Vec<(u32, u32)>,
    weights: Vec<f64>,
    failed: Option<AlgorithmError>,
    /// The last source looked up, and its dense index: see [`read_cell`].
    last_src: Option<(NodeId, Option<u32>)>,
}

impl Kept<'_> {
    fn keep(&mut self, m: EdgeMatch) {
        let src = match self.last_src {
            Some((node, s)) if node == m.src => s,
            _ => {
                let s = self.index.get(m.src);
                self.last_src = Some((m.src, s));
                s
            }
        };
        let (Some(s), Some(d)) = (src, self.index.get(m.dst)) else {
            return;
        };
        self.edges.push((s, d));
        let Some((key, column)) = &self.weights_of else {
            return;
        };
        match column.slot(m.rel) {
            Some(&w) if w >= 0.0 => self.weights.push(w),
            // Only the first failure is reported.
            _ if self.failed.is_some() => {}
            _ => {
                let value = self.txn.rel_property(m.rel, key);
                match weight_of(value.as_ref(), m.rel, key) {
                    Ok(w) => self.weights.push(w),
                    Err(e) => self.failed = Some(e),
                }
            }
        }
    }
}

/// One relationship's weight from its property value.
fn weight_of(value: Option<&Value>, rel: RelId, key: &str) -> Result<f64, AlgorithmError> {
    classify(value).map_err(|why| {
        let (property, rel) = (key.to_string(), rel.external());
        match why {
            Unusable::NotNumeric(found) => AlgorithmError::WeightNotNumeric {
                property,
                rel,
                found: found.to_string(),
            },
            Unusable::Missing => AlgorithmError::WeightMissing { property, rel },
            Unusable::Negative => AlgorithmError::NegativeWeight { property, rel },
        }
    })
}
