//! `neptune.algo.pageRank`: PageRank over the whole graph (or its
//! `vertexLabel`/`edgeLabels` view), reported for every node or for the
//! source nodes given.

use super::config::Config;
use super::context::on_view;
use super::sources::{per_node_rows, sources_or_all};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{pagerank, Direction, PageRankOptions};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.pageRank",
    inputs: &[
        ("sourceNodes", ProcedureType::Any),
        ("config = {}", ProcedureType::Map),
    ],
    outputs: &["node", "rank"],
    description: "PageRank of every node (or of the source nodes given).",
    mode: "READ",
    body: page_rank,
}];

const KEYS: &[&str] = &[
    "numOfIterations",
    "dampingFactor",
    "tolerance",
    "traversalDirection",
];

fn page_rank(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let (sources, config) = sources_or_all(name, args)?;
    let config = Config::parse(name, config, KEYS)?;
    let options = PageRankOptions {
        direction: config.direction(Direction::Out)?,
        damping: config.number("dampingFactor", 0.0..=1.0)?.unwrap_or(0.85),
        iterations: config
            .integer("numOfIterations", 1)?
            .map_or(20, |i| i.min(u32::MAX as i64) as u32),
        tolerance: config.number("tolerance", 0.0..=1.0)?.unwrap_or(0.0),
    };
    let spec = config.view_spec(None)?;
    on_view(txn, &config, &spec, |view| {
        let rank = pagerank(view.graph(), &options);
        per_node_rows(view, sources.as_deref(), |v| Value::Float(rank[v as usize]))
    })
}
