//! The first argument of an algorithm: the source nodes (a node, a list of
//! nodes, null for none), or, for an algorithm over the whole graph, the
//! configuration map itself.

use super::config::Config;
use super::context::call_failed;
use super::context::on_view;
use crate::error::ExecResult;
use nereid_algorithms::{AlgorithmError, GraphView, Stop};
use nereid_storage::Txn;
use nereid_values::{NodeId, Value};

/// The source nodes of `value`, in order, nulls skipped.
pub(super) fn source_nodes(procedure: &str, value: &Value) -> ExecResult<Vec<NodeId>> {
    let one = |v: &Value| match v {
        Value::Node(id) => Ok(Some(*id)),
        Value::Null => Ok(None),
        other => Err(call_failed(
            procedure,
            &format!("a source must be a node, not {}", other.type_name()),
        )),
    };
    match value {
        Value::List(items) => items.iter().filter_map(|v| one(v).transpose()).collect(),
        other => Ok(one(other)?.into_iter().collect()),
    }
}

/// `(sources, config)` of a whole-graph algorithm: `f(config)` runs over
/// every node (`None`), `f(sources, config)` reports the given ones.
pub(super) fn sources_or_all<'a>(
    procedure: &str,
    args: &'a [Value],
) -> ExecResult<(Option<Vec<NodeId>>, Option<&'a Value>)> {
    match args {
        [Value::Map(_), rest @ ..] if rest.iter().all(is_empty_config) => Ok((None, args.first())),
        [first, rest @ ..] => Ok((Some(source_nodes(procedure, first)?), rest.first())),
        [] => Ok((None, None)),
    }
}

fn is_empty_config(value: &Value) -> bool {
    match value {
        Value::Map(map) => map.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

/// The value of every vertex of the view, or of each source the view
/// holds (a source it does not hold, filtered out by `vertexLabel`, has
/// no value), with its node: `options` reads the algorithm's own options
/// (checked before any work), `kernel` computes one value per vertex.
fn node_values<T: Send>(
    txn: &Txn,
    config: &Config,
    sources: Option<&[NodeId]>,
    options: impl FnOnce(&Config) -> ExecResult<T>,
    kernel: impl FnOnce(&GraphView, T, Stop) -> Result<Vec<Value>, AlgorithmError> + Send,
) -> ExecResult<Vec<(NodeId, Value)>> {
    let options = options(config)?;
    let spec = config.view_spec(config.edge_weight()?)?;
    on_view(txn, config, &spec, |view, stop| {
        let values = kernel(view, options, stop)?;
        let reported: Vec<u32> = match sources {
            None => (0..view.graph().vertex_count() as u32).collect(),
            Some(nodes) => nodes
                .iter()
                .filter_map(|&node| view.index_of(node))
                .collect(),
        };
        Ok(reported
            .into_iter()
            .map(|v| (view.node(v), values[v as usize].clone()))
            .collect())
    })
}

/// The shape of every per-node algorithm: `f(config)` or
/// `f(sourceNodes, config)`, one row `[node, value]` per node (see
/// [`node_values`]).
pub(super) fn per_node<T: Send>(
    name: &'static str,
    txn: &Txn,
    args: &[Value],
    keys: &[&str],
    options: impl FnOnce(&Config) -> ExecResult<T>,
    kernel: impl FnOnce(&GraphView, T, Stop) -> Result<Vec<Value>, AlgorithmError> + Send,
) -> ExecResult<Vec<Vec<Value>>> {
    let (sources, config) = sources_or_all(name, args)?;
    let config = Config::parse(name, config, keys)?;
    let values = node_values(txn, &config, sources.as_deref(), options, kernel)?;
    Ok(values
        .into_iter()
        .map(|(node, value)| vec![Value::Node(node), value])
        .collect())
}

/// The `.mutate` variant of a [`per_node`] algorithm: the same options
/// plus `writeProperty`; each value is written to its node as that
/// property, inside the calling transaction (seen by the rest of it,
/// rolled back with it, logged when it commits). Yields one row,
/// `success = true`; a failed write fails the call, and the statement
/// with it.
pub(super) fn mutate<T: Send>(
    name: &'static str,
    txn: &Txn,
    args: &[Value],
    keys: &[&str],
    options: impl FnOnce(&Config) -> ExecResult<T>,
    kernel: impl FnOnce(&GraphView, T, Stop) -> Result<Vec<Value>, AlgorithmError> + Send,
) -> ExecResult<Vec<Vec<Value>>> {
    let (sources, config) = sources_or_all(name, args)?;
    let keys: Vec<&str> = keys.iter().copied().chain(["writeProperty"]).collect();
    let config = Config::parse(name, config, &keys)?;
    let property = config.write_property()?;
    for (node, value) in node_values(txn, &config, sources.as_deref(), options, kernel)? {
        txn.set_node_property(node, &property, value)?;
    }
    Ok(vec![vec![Value::Bool(true)]])
}
