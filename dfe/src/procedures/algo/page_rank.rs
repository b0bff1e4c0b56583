//! `neptune.algo.pageRank`: PageRank over the whole graph (or its
//! `vertexLabel`/`edgeLabels` view), reported for every node or for the
//! source nodes given.
//!
//! Personalised PageRank takes Neptune's `sourceNodes` (the nodes the
//! random surfer jumps to, instead of any node) and `sourceWeights` (each
//! one's share of the jumps, in the same order; equal shares when left
//! out, which is our choice: Neptune names the pair without saying). A
//! source outside the view (`vertexLabel`) is ignored; when none is left
//! the call fails.

use super::config::Config;
use super::sources::{mutate, per_node, source_nodes};
use super::{MUTATE_OUTPUTS, SOURCES_AND_CONFIG};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{
    pagerank, personalized_pagerank, AlgorithmError, Direction, GraphView, PageRankOptions, Stop,
};
use nereid_storage::Txn;
use nereid_values::{NodeId, Value};

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.pageRank",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "rank"],
        description: "PageRank of every node (or of the source nodes given).",
        mode: "READ",
        body: page_rank,
    },
    Procedure {
        name: "neptune.algo.pageRank.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes every node's PageRank to `writeProperty`.",
        mode: "WRITE",
        body: page_rank_written,
    },
];

const KEYS: &[&str] = &[
    "numOfIterations",
    "dampingFactor",
    "tolerance",
    "traversalDirection",
    "sourceNodes",
    "sourceWeights",
];

/// How one call runs: the kernel's options and the personalization
/// sources with their weights (empty: plain PageRank).
struct Options {
    kernel: PageRankOptions,
    sources: Vec<(NodeId, f64)>,
}

fn page_rank(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(PROCEDURES[0].name, txn, args, KEYS, options, kernel)
}

fn page_rank_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(PROCEDURES[1].name, txn, args, KEYS, options, kernel)
}

fn options(config: &Config) -> ExecResult<Options> {
    Ok(Options {
        kernel: kernel_options(config)?,
        sources: personalization(config)?,
    })
}

/// `sourceNodes` paired with `sourceWeights` (checked: as many weights as
/// nodes, not all zero).
fn personalization(config: &Config) -> ExecResult<Vec<(NodeId, f64)>> {
    let nodes = match config.get("sourceNodes") {
        Some(value) => source_nodes(config.procedure(), value)?,
        None => Vec::new(),
    };
    let weights = config.non_negative_numbers("sourceWeights")?;
    if nodes.is_empty() {
        return match weights {
            Some(_) => Err(config.failed("configuration key `sourceWeights` needs `sourceNodes`")),
            None => Ok(Vec::new()),
        };
    }
    let weights = weights.unwrap_or_else(|| vec![1.0; nodes.len()]);
    if weights.len() != nodes.len() {
        return Err(config.failed(&format!(
            "configuration key `sourceWeights` must have one weight per source node ({}), not {}",
            nodes.len(),
            weights.len()
        )));
    }
    if weights.iter().sum::<f64>() <= 0.0 {
        return Err(config.failed("configuration key `sourceWeights` must not be all zero"));
    }
    Ok(nodes.into_iter().zip(weights).collect())
}

fn kernel_options(config: &Config) -> ExecResult<PageRankOptions> {
    Ok(PageRankOptions {
        direction: config.direction(Direction::Out)?,
        damping: config.number("dampingFactor", 0.0..=1.0)?.unwrap_or(0.85),
        iterations: config
            .integer("numOfIterations", 1)?
            .map_or(20, |i| i.min(u32::MAX as i64) as u32),
        tolerance: config.number("tolerance", 0.0..=1.0)?.unwrap_or(0.0),
    })
}

fn kernel(view: &GraphView, options: Options, stop: Stop) -> Result<Vec<Value>, AlgorithmError> {
    let ranks = if options.sources.is_empty() {
        pagerank(view.graph(), &options.kernel, stop)?
    } else {
        let sources: Vec<(u32, f64)> = options
            .sources
            .iter()
            .filter_map(|&(node, weight)| Some((view.index_of(node)?, weight)))
            .filter(|&(_, weight)| weight > 0.0)
            .collect();
        if sources.is_empty() {
            return Err(AlgorithmError::NoSourceInView);
        }
        personalized_pagerank(view.graph(), &options.kernel, &sources, stop)?
    };
    Ok(ranks.into_iter().map(Value::Float).collect())
}
