//! `HashJoin` on hand-built plans: Cypher equality on the keys (null never
//! matches, `1` matches `1.0`), both sides hashed, left outer rows, and a
//! build side over the query's memory budget.

use super::*;
use nereid_planner::HashJoinSpec;

/// UNWIND `left` AS $0 joined with UNWIND `right` AS $1 on $0 = $1.
fn join(left: Vec<Value>, right: Vec<Value>, outer: bool, build_left: bool) -> Op {
    let list = |values: Vec<Value>| lit(Value::List(values.into()));
    Op::HashJoin {
        input: unwind(arg(), list(left), 0),
        right: unwind(arg(), list(right), 1),
        spec: Box::new(HashJoinSpec {
            left_keys: vec![slot(0)],
            right_keys: vec![slot(1)],
            right_slots: vec![1],
            outer,
            build_left,
            estimated_rows: 0,
        }),
    }
}

fn values() -> (Vec<Value>, Vec<Value>) {
    let left = vec![
        Value::Int(1),
        Value::Null,
        Value::Float(2.0),
        Value::String("a".into()),
        Value::Float(f64::NAN),
        Value::Int(7),
    ];
    let right = vec![
        Value::Float(1.0),
        Value::Int(2),
        Value::Null,
        Value::Int(1),
        Value::String("a".into()),
        Value::Float(f64::NAN),
    ];
    (left, right)
}

fn sorted(mut rows: Vec<Vec<Value>>) -> Vec<String> {
    let mut out: Vec<String> = rows.drain(..).map(|r| format!("{r:?}")).collect();
    out.sort();
    out
}

#[test]
fn inner_join_matches_under_cypher_equality_from_either_side() {
    let (left, right) = values();
    let expected = sorted(vec![
        vec![Value::Int(1), Value::Float(1.0)],
        vec![Value::Int(1), Value::Int(1)],
        vec![Value::Float(2.0), Value::Int(2)],
        vec![Value::String("a".into()), Value::String("a".into())],
    ]);
    for build_left in [false, true] {
        let txn = new_txn();
        let root = join(left.clone(), right.clone(), false, build_left);
        let rows = run(plan(root, 2, &[("l", 0), ("r", 1)]), &txn).expect("runs");
        assert_eq!(sorted(rows), expected, "build_left {build_left}");
    }
}

#[test]
fn right_side_hashed_keeps_the_left_order() {
    let txn = new_txn();
    let left: Vec<Value> = (0..3000).map(|i| Value::Int(i % 7)).collect();
    let right: Vec<Value> = (0..7).rev().map(Value::Int).collect();
    let rows = run(
        plan(join(left.clone(), right, false, false), 2, &[("l", 0)]),
        &txn,
    )
    .unwrap();
    let got: Vec<Value> = rows.into_iter().map(|r| r[0].clone()).collect();
    assert_eq!(got, left);
}

#[test]
fn left_outer_join_keeps_unmatched_rows_once() {
    let (left, right) = values();
    let txn = new_txn();
    let rows = run(
        plan(join(left, right, true, false), 2, &[("l", 0), ("r", 1)]),
        &txn,
    )
    .unwrap();
    let expected = sorted(vec![
        vec![Value::Int(1), Value::Float(1.0)],
        vec![Value::Int(1), Value::Int(1)],
        vec![Value::Null, Value::Null],
        vec![Value::Float(2.0), Value::Int(2)],
        vec![Value::String("a".into()), Value::String("a".into())],
        vec![Value::Float(f64::NAN), Value::Null],
        vec![Value::Int(7), Value::Null],
    ]);
    assert_eq!(sorted(rows), expected);
}

#[test]
fn many_matches_per_row_come_in_bounded_batches() {
    let txn = new_txn();
    let left = vec![Value::Int(1); 3];
    let right = vec![Value::Int(1); BATCH_SIZE * 2 + 5];
    let rows = run(plan(join(left, right, false, false), 2, &[("l", 0)]), &txn).unwrap();
    assert_eq!(rows.len(), 3 * (BATCH_SIZE * 2 + 5));
}

#[test]
fn a_build_side_over_the_budget_fails_with_the_memory_error() {
    let txn = new_txn();
    // The rows alone stream under the limit (the control)...
    let streamed = unwind(arg(), range(1, 400_000), 1);
    let cursor = Cursor::new(
        plan(*streamed, 2, &[("r", 1)]),
        Arc::clone(&txn),
        Params::new(),
    )
    .with_memory_limit(LIMIT)
    .expect("no parameters to charge");
    assert_eq!(drain(cursor).map(|n| n.len()), Ok(400_000));
    // ... but not when hashed.
    let root = Op::HashJoin {
        input: unwind(arg(), range(1, 10), 0),
        right: unwind(arg(), range(1, 400_000), 1),
        spec: Box::new(HashJoinSpec {
            left_keys: vec![slot(0)],
            right_keys: vec![slot(1)],
            right_slots: vec![1],
            outer: false,
            build_left: false,
            estimated_rows: 0,
        }),
    };
    let cursor = Cursor::new(plan(root, 2, &[("l", 0)]), Arc::clone(&txn), Params::new())
        .with_memory_limit(LIMIT)
        .expect("no parameters to charge");
    let outcome = drain(cursor);
    assert!(
        matches!(outcome, Err(ExecError::MemoryLimit { .. })),
        "{:?}",
        outcome.map(|rows| rows.len())
    );
}

const LIMIT: usize = 24 << 20;

fn drain(mut cursor: Cursor) -> Result<Vec<Vec<Value>>, ExecError> {
    let mut rows = Vec::new();
    while let Some(row) = cursor.next_row()? {
        rows.push(row);
    }
    Ok(rows)
}
