//! `neptune.algo.wcc` and `neptune.algo.scc`: weakly and strongly
//! connected components. A component is named by the `id()` of its
//! smallest node, so the answer does not depend on how the work was split.

use super::config::Config;
use super::sources::{mutate, per_node};
use super::{MUTATE_OUTPUTS, SOURCES_AND_CONFIG};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{scc, wcc, Graph, GraphView};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.wcc",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "component"],
        description: "Weakly connected component of every node (or of the source nodes given).",
        mode: "READ",
        body: weak,
    },
    Procedure {
        name: "neptune.algo.scc",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "component"],
        description: "Strongly connected component of every node (or of the source nodes given).",
        mode: "READ",
        body: strong,
    },
    Procedure {
        name: "neptune.algo.wcc.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes every node's weakly connected component to `writeProperty`.",
        mode: "WRITE",
        body: weak_written,
    },
    Procedure {
        name: "neptune.algo.scc.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes every node's strongly connected component to `writeProperty`.",
        mode: "WRITE",
        body: strong_written,
    },
];

fn weak(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(
        PROCEDURES[0].name,
        txn,
        args,
        &[],
        no_options,
        |view, (), _| Ok(named(view, wcc)),
    )
}

fn strong(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(
        PROCEDURES[1].name,
        txn,
        args,
        &[],
        no_options,
        |view, (), _| Ok(named(view, scc)),
    )
}

fn weak_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(
        PROCEDURES[2].name,
        txn,
        args,
        &[],
        no_options,
        |view, (), _| Ok(named(view, wcc)),
    )
}

fn strong_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(
        PROCEDURES[3].name,
        txn,
        args,
        &[],
        no_options,
        |view, (), _| Ok(named(view, scc)),
    )
}

fn no_options(_: &Config) -> ExecResult<()> {
    Ok(())
}

/// Each vertex's component, as the `id()` of the node naming it.
fn named(view: &GraphView, kernel: fn(&Graph) -> Vec<u32>) -> Vec<Value> {
    kernel(view.graph())
        .into_iter()
        .map(|c| Value::Int(view.node(c).external()))
        .collect()
}
