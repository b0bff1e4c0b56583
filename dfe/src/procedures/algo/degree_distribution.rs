//! `neptune.algo.degreeDistribution`: the histogram of node degrees over
//! the whole graph (or the nodes with one of `vertexLabels`, and the
//! edges among them) and its summary, as Neptune Analytics documents it:
//! one row, one column `output`, a map of `distribution` (a list of
//! `[degree, count]` by increasing degree) and `statistics` (`maxDeg`,
//! `mean`, `minDeg`, `p50`, `p75`, `p90`, `p95`, `p99`, `p999`).
//!
//! With `binWidth` w a bin is named by its largest degree (0, then w, 2w,
//! ...: a degree d falls in bin `ceil(d / w) * w`), which is how
//! Neptune's documented sample reads; empty bins are left out, and
//! percentiles are nearest-rank. Those three details and the empty graph's
//! answer (no bins, null statistics) are our reading, not documented.

use super::config::Config;
use super::context::on_view;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{degree_distribution, DegreeDistribution, Direction};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;
use std::collections::BTreeMap;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.degreeDistribution",
    inputs: &[("config = {}", ProcedureType::Map)],
    outputs: &["output"],
    description: "Histogram of node degrees and its statistics (min, max, mean, percentiles).",
    mode: "READ",
    body: distribution,
}];

const KEYS: &[&str] = &["vertexLabels", "binWidth", "traversalDirection"];

/// The names of the statistics beside [`nereid_algorithms::PERCENTILES`].
const PERCENTILE_NAMES: [&str; 6] = ["p50", "p75", "p90", "p95", "p99", "p999"];

fn distribution(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let config = Config::parse(PROCEDURES[0].name, args.first(), KEYS)?;
    let width = config.integer("binWidth", 1)?.unwrap_or(1) as u64;
    let direction = config.direction(Direction::Both)?;
    // Neptune's `vertexLabels` (any of several) beside the common
    // `vertexLabel`: the view covers every node and the call counts those
    // with one of the labels.
    let mut labels = config.strings("vertexLabels")?;
    labels.extend(config.string("vertexLabel")?);
    let spec = nereid_algorithms::ViewSpec::new(config.strings("edgeLabels")?, None, None);
    let found = on_view(txn, &config, &spec, |view, stop| {
        let counted: Option<Vec<bool>> = (!labels.is_empty()).then(|| {
            let nodes: Vec<_> = (0..view.graph().vertex_count() as u32)
                .map(|v| view.node(v))
                .collect();
            let mut counted = vec![false; nodes.len()];
            for label in &labels {
                for (c, has) in counted
                    .iter_mut()
                    .zip(txn.node_has_label_column(&nodes, label))
                {
                    *c |= has;
                }
            }
            counted
        });
        degree_distribution(view.graph(), direction, counted.as_deref(), width, stop)
    })?;
    Ok(vec![vec![output(found)]])
}

fn output(found: Option<DegreeDistribution>) -> Value {
    let int = |i: u64| Value::Int(i as i64);
    let distribution = found.as_ref().map_or_else(Vec::new, |d| {
        d.bins
            .iter()
            .map(|&(bin, count)| Value::List(vec![int(bin), int(count)].into()))
            .collect()
    });
    let mut statistics = BTreeMap::new();
    let mut put = |key: &str, value: Value| statistics.insert(key.to_string(), value);
    match &found {
        Some(d) => {
            put("maxDeg", int(d.max));
            put("minDeg", int(d.min));
            put("mean", Value::Float(d.mean));
            for (name, &p) in PERCENTILE_NAMES.iter().zip(&d.percentiles) {
                put(name, int(p));
            }
        }
        None => {
            for name in ["maxDeg", "minDeg", "mean"].iter().chain(&PERCENTILE_NAMES) {
                put(name, Value::Null);
            }
        }
    }
    Value::Map(BTreeMap::from([
        ("distribution".to_string(), Value::List(distribution.into())),
        ("statistics".to_string(), Value::Map(statistics)),
    ]))
}
