//! Operator tests on a real in-memory store, with plans built by hand.

mod expand_batched;
mod far_end_adjacent;
mod far_end_in;
mod far_end_where;
mod hash_join;
mod laziness;
mod optional_batched;
mod reads;
mod top_admit;
mod writes;

use crate::{Cursor, ExecError, Params, BATCH_SIZE};
use nereid_planner::{
    Aggregate, AggregateFunction, BinaryOp, CreateItem, Expr, Op, PhysicalPlan, ScalarFunction,
    SetItem, SortKey,
};
use nereid_storage::{StorageError, Store, StoreConfig, Txn};
use nereid_values::{Direction, NodeId, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

pub(super) fn new_txn() -> Arc<Txn> {
    Arc::new(Store::new(StoreConfig::default()).begin())
}

pub(super) fn plan(root: Op, slot_count: usize, outputs: &[(&str, usize)]) -> Arc<PhysicalPlan> {
    Arc::new(PhysicalPlan {
        root,
        slot_count,
        outputs: outputs.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
        writes: false,
        reads: true,
        missing_hints: Vec::new(),
        parameters: Vec::new(),
        probes: Vec::new(),
    })
}

pub(super) fn run_with(
    plan: Arc<PhysicalPlan>,
    txn: &Arc<Txn>,
    params: Params,
) -> Result<Vec<Vec<Value>>, ExecError> {
    let mut cursor = Cursor::new(plan, Arc::clone(txn), params);
    let mut rows = Vec::new();
    while let Some(row) = cursor.next_row()? {
        rows.push(row);
    }
    Ok(rows)
}

pub(super) fn run(plan: Arc<PhysicalPlan>, txn: &Arc<Txn>) -> Result<Vec<Vec<Value>>, ExecError> {
    run_with(plan, txn, Params::new())
}

pub(super) fn arg() -> Box<Op> {
    Box::new(Op::Argument)
}
pub(super) fn lit(v: impl Into<Value>) -> Expr {
    Expr::Literal(v.into())
}
pub(super) fn slot(s: usize) -> Expr {
    Expr::Slot(s)
}
pub(super) fn prop(s: usize, key: &str) -> Expr {
    Expr::Property {
        expr: Box::new(slot(s)),
        key: key.to_string(),
    }
}
pub(super) fn bin(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    }
}
pub(super) fn range(from: i64, to: i64) -> Expr {
    Expr::Function {
        func: ScalarFunction::Range,
        args: vec![lit(from), lit(to)],
    }
}
pub(super) fn unwind(input: Box<Op>, expr: Expr, out: usize) -> Box<Op> {
    Box::new(Op::Unwind {
        input,
        expr,
        out,
        dead: Vec::new(),
    })
}
pub(super) fn ints(rows: &[i64]) -> Vec<Vec<Value>> {
    rows.iter().map(|&i| vec![Value::Int(i)]).collect()
}
pub(super) fn props(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}
pub(super) fn labels(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}
pub(super) fn count_star() -> Aggregate {
    Aggregate {
        func: AggregateFunction::Count,
        arg: None,
        distinct: false,
        percentile: None,
    }
}

/// Three people (ages 25, 35, 45) and a city; people 0 and 1 know each
/// other's successor, person 0 lives in the city.
pub(super) fn people(txn: &Txn) -> Vec<NodeId> {
    let mut ids = Vec::new();
    for (name, age) in [("ann", 25), ("bob", 35), ("cid", 45)] {
        let p = props(&[("name", Value::from(name)), ("age", Value::Int(age))]);
        ids.push(txn.create_node(&labels(&["Person"]), &p).unwrap());
    }
    let city = txn
        .create_node(&labels(&["City"]), &props(&[("name", Value::from("rome"))]))
        .unwrap();
    ids.push(city);
    txn.create_rel(
        ids[0],
        ids[1],
        "KNOWS",
        &props(&[("since", Value::Int(2000))]),
    )
    .unwrap();
    txn.create_rel(ids[1], ids[2], "KNOWS", &BTreeMap::new())
        .unwrap();
    txn.create_rel(ids[0], city, "LIVES_IN", &BTreeMap::new())
        .unwrap();
    ids
}

/// One hop of `types` that binds its other end, without pre-tests.
pub(super) fn hop(
    from: usize,
    rel: usize,
    to: usize,
    dir: Direction,
    types: &[&str],
) -> nereid_planner::ExpandSpec {
    nereid_planner::ExpandSpec {
        from,
        rel,
        to,
        dir,
        types: labels(types),
        into: false,
        dead: Vec::new(),
        far_end_in: None,
        far_end_adjacent: None,
        far_end_where: None,
    }
}

/// Commits `setup` (the graph a test reads) and makes it visible.
pub(super) fn publish(setup: &Txn) {
    let ticket = setup
        .commit(|_, _| Ok::<(), ()>(()))
        .ok()
        .flatten()
        .expect("commit");
    ticket.publish();
}
