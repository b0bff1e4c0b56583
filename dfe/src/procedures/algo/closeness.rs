//! `neptune.algo.closenessCentrality` (and `.mutate`): how close each node
//! is to the others — one over the sum of its hop distances to the nodes
//! it reaches along `traversalDirection`, or, with `normalize` (the
//! default), one over their mean. The distances are taken to `numSources`
//! sources (required): every node when it is at least the node count,
//! which is exact, otherwise a fixed sample, which estimates. The searches
//! run 64 at a time as bit vectors (`nereid_algorithms::closeness`).

use super::config::Config;
use super::sources::{mutate, per_node};
use super::{MUTATE_OUTPUTS, SOURCES_AND_CONFIG};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{closeness, sample_sources, AlgorithmError, Direction, GraphView, Stop};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.closenessCentrality",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "score"],
        description: "Closeness centrality of the given nodes (or of every node), from `numSources` BFS sources.",
        mode: "READ",
        body: scores,
    },
    Procedure {
        name: "neptune.algo.closenessCentrality.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes the closeness centrality of the given nodes (or of every node) to `writeProperty`.",
        mode: "WRITE",
        body: scores_written,
    },
];

const KEYS: &[&str] = &["numSources", "normalize", "traversalDirection"];

/// The sample is the same on every call, so repeated calls agree.
const SAMPLE_SEED: u64 = 0x636c_6f73_656e_6573;

struct Options {
    sources: usize,
    normalize: bool,
    direction: Direction,
}

fn scores(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(PROCEDURES[0].name, txn, args, KEYS, options, kernel)
}

fn scores_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(PROCEDURES[1].name, txn, args, KEYS, options, kernel)
}

fn options(config: &Config) -> ExecResult<Options> {
    let sources = config
        .integer("numSources", 1)?
        .ok_or_else(|| config.failed("configuration key `numSources` is required"))?;
    Ok(Options {
        sources: usize::try_from(sources).unwrap_or(usize::MAX),
        normalize: config.boolean("normalize")?.unwrap_or(true),
        direction: config.direction(Direction::Out)?,
    })
}

fn kernel(view: &GraphView, options: Options, stop: Stop) -> Result<Vec<Value>, AlgorithmError> {
    let n = view.graph().vertex_count();
    let sources = sample_sources(n, options.sources, SAMPLE_SEED);
    Ok(closeness(view.graph(), &sources, options.direction, stop)?
        .into_iter()
        .map(|reach| Value::Float(reach.score(options.normalize)))
        .collect())
}
