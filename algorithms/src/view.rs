//! The CSR view of one snapshot: the nodes a run covers (all, or those with
//! a label), in ascending id order so that a dense index maps back by
//! position, and the edges among them (all types, or some) as a [`Graph`],
//! with a numeric edge property as weights when asked.

use crate::csr::Graph;
use crate::error::AlgorithmError;
use nereid_storage::apl::{EdgePattern, Endpoint, ModeChoice};
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
        }
    }
}

/// One grid cell's kept edges as dense index pairs, and their
/// relationships when weights are to be read (empty otherwise).
type CellEdges = (Vec<(u32, u32)>, Vec<RelId>);

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
    /// pool: the edges one cell of the store's partition grid per task
    /// (both ends mapped to dense indices as they are read, through a
    /// direct-access [`NodeIndex`]: one array read per end), the weights
    /// in chunks, the CSR construction. Edges come in cell order whatever
    /// the thread count, so the view is the same for every run.
    pub fn build(txn: &Txn, spec: &ViewSpec) -> Result<GraphView, AlgorithmError> {
        let started = Instant::now();
        let mut nodes = txn.scan_nodes(spec.vertex_label.as_deref());
        nodes.par_sort_unstable();
        let index = NodeIndex::new(&nodes);
        let pattern = EdgePattern {
            src: Endpoint::Any,
            types: &spec.edge_labels,
            dst: Endpoint::Any,
        };
        let weighted = spec.weight_property.is_some();
        let per_cell: Vec<CellEdges> = (0..txn.apl().cells())
            .into_par_iter()
            .map(|cell| {
                let (mut edges, mut rels) = (Vec::new(), Vec::new());
                txn.apl()
                    .edges_in_cell(&pattern, cell, ModeChoice::Auto, |m| {
                        if let (Some(s), Some(d)) = (index.get(m.src), index.get(m.dst)) {
                            edges.push((s, d));
                            if weighted {
                                rels.push(m.rel);
                            }
                        }
                    });
                (edges, rels)
            })
            .collect();
        let (edges, rels): (Vec<_>, Vec<_>) = per_cell.into_iter().unzip();
        let edges = edges.concat();
        let weights = match &spec.weight_property {
            Some(key) => Some(read_weights(txn, &rels.concat(), key)?),
            None => None,
        };
        let graph = Graph::from_edges(nodes.len(), &edges, weights.as_deref());
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

/// Relationships whose weights one task reads.
const WEIGHT_CHUNK: usize = 1 << 16;

/// Each kept edge's weight: a number, never negative or NaN (read in
/// chunks in parallel; a bad edge fails the build, naming it).
fn read_weights(txn: &Txn, rels: &[RelId], key: &str) -> Result<Vec<f64>, AlgorithmError> {
    let chunks: Vec<Vec<f64>> = rels
        .par_chunks(WEIGHT_CHUNK)
        .map(|rels| {
            txn.rel_property_column(rels, key)
                .into_iter()
                .zip(rels)
                .map(|(value, &rel)| weight_of(value, rel, key))
                .collect::<Result<Vec<f64>, AlgorithmError>>()
        })
        .collect::<Result<Vec<Vec<f64>>, AlgorithmError>>()?;
    Ok(chunks.concat())
}

/// One relationship's weight from its property value.
fn weight_of(value: Option<Value>, rel: RelId, key: &str) -> Result<f64, AlgorithmError> {
    let weight = match value {
        Some(Value::Int(i)) => i as f64,
        Some(Value::Float(f)) => f,
        Some(other) => {
            return Err(AlgorithmError::WeightNotNumeric {
                property: key.to_string(),
                rel: rel.external(),
                found: other.type_name().to_string(),
            })
        }
        None => {
            return Err(AlgorithmError::WeightMissing {
                property: key.to_string(),
                rel: rel.external(),
            })
        }
    };
    if weight.is_nan() || weight < 0.0 {
        return Err(AlgorithmError::NegativeWeight {
            property: key.to_string(),
            rel: rel.external(),
        });
    }
    Ok(weight)
}
