//! `neptune.algo.bfs`, `.bfs.parents` and `.bfs.levels`: a breadth-first
//! search from each source node in turn (each its own search, as Neptune
//! runs them), yielding every node reached with the source, and its
//! BFS-tree parent or its level. A source is reached at level 0 and is its
//! own parent.

use super::config::Config;
use super::context::on_view;
use super::sources::source_nodes;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{bfs, Direction, UNREACHED};
use nereid_storage::Txn;
use nereid_values::Value;

const KEYS: &[&str] = &["maxDepth", "traversalDirection"];

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.bfs",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["source", "node"],
        description: "Breadth-first search from each source node: every node it reaches.",
        mode: "READ",
        body: nodes,
    },
    Procedure {
        name: "neptune.algo.bfs.parents",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["source", "node", "parent"],
        description:
            "Breadth-first search from each source node: every node reached and its parent.",
        mode: "READ",
        body: parents,
    },
    Procedure {
        name: "neptune.algo.bfs.levels",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["source", "node", "level"],
        description:
            "Breadth-first search from each source node: every node reached and its hop count.",
        mode: "READ",
        body: levels,
    },
];

/// What a row carries besides the source and the node.
#[derive(Copy, Clone)]
enum Extra {
    Nothing,
    Parent,
    Level,
}

fn nodes(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    search(PROCEDURES[0].name, txn, args, Extra::Nothing)
}

fn parents(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    search(PROCEDURES[1].name, txn, args, Extra::Parent)
}

fn levels(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    search(PROCEDURES[2].name, txn, args, Extra::Level)
}

fn search(
    name: &'static str,
    txn: &Txn,
    args: &[Value],
    extra: Extra,
) -> ExecResult<Vec<Vec<Value>>> {
    let config = Config::parse(name, args.get(1), KEYS)?;
    let sources = source_nodes(name, args.first().unwrap_or(&Value::Null))?;
    let direction = config.direction(Direction::Out)?;
    let max_depth = config
        .integer("maxDepth", 0)?
        .map(|d| d.min(u32::MAX as i64) as u32);
    let spec = config.view_spec(None)?;
    if sources.is_empty() {
        return Ok(Vec::new());
    }
    on_view(txn, &config, &spec, |view, stop| {
        let mut rows = Vec::new();
        for &source in &sources {
            let row = |node, parent, level: u32| {
                let mut row = vec![Value::Node(source), Value::Node(node)];
                match extra {
                    Extra::Nothing => {}
                    Extra::Parent => row.push(Value::Node(parent)),
                    Extra::Level => row.push(Value::Int(level.into())),
                }
                row
            };
            // A source outside the view (`vertexLabel`) still reaches itself.
            let Some(start) = view.index_of(source) else {
                rows.push(row(source, source, 0));
                continue;
            };
            let tree = bfs(view.graph(), start, direction, max_depth, stop)?;
            for (v, (&level, &parent)) in tree.level.iter().zip(&tree.parent).enumerate() {
                if level != UNREACHED {
                    rows.push(row(view.node(v as u32), view.node(parent), level));
                }
            }
        }
        Ok(rows)
    })
}
