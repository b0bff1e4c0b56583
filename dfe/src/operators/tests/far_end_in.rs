//! An `Expand` handed its filter's list (`ExpandSpec::far_end_in`) leaves
//! out only rows the filter `to IN list` above it would drop: with the
//! filter kept, the plan gives exactly the rows (or the failure) of the
//! same plan without the pre-test, for lists of nodes with nulls and
//! other values in them, empty lists, a null list and a value that is not
//! a list, on batches read row by row and set-at-a-time.

use super::expand_batched::graph;
use super::*;
use nereid_planner::ExpandSpec;

fn filtered_expand(lists: &Value, starts: &Value, dir: Direction, far_end: bool) -> Op {
    let input = unwind(
        unwind(arg(), Expr::Literal(lists.clone()), 3),
        Expr::Literal(starts.clone()),
        0,
    );
    Op::Filter {
        input: Box::new(Op::Expand {
            input,
            spec: ExpandSpec {
                from: 0,
                rel: 1,
                to: 2,
                dir,
                types: labels(&["A"]),
                into: false,
                dead: Vec::new(),
                far_end_in: far_end.then(|| Box::new(slot(3))),
                far_end_adjacent: None,
                far_end_where: None,
            },
        }),
        predicate: bin(BinaryOp::In, slot(2), slot(3)),
    }
}

#[test]
fn the_pre_tested_expand_keeps_the_filters_rows_and_failures() {
    let (txn, nodes) = graph();
    let node = |i: usize| Value::Node(nodes[i]);
    let starts: Vec<Value> = nodes
        .iter()
        .map(|&n| Value::Node(n))
        .chain([Value::Null])
        .collect();
    let starts = Value::List(starts.into());
    let some: Vec<Value> = (0..nodes.len())
        .step_by(3)
        .map(node)
        .chain([Value::Null])
        .collect();
    let odd = vec![node(5), Value::from("x"), node(5), Value::Int(3), node(8)];
    let everyone: Vec<Value> = (0..nodes.len()).map(node).collect();
    let lists = |items: Vec<Value>| Value::List(items.into());
    let cases = [
        lists(vec![
            lists(some.clone()),
            lists(odd.clone()),
            lists(vec![]),
            Value::Null,
            lists(everyone),
        ]),
        lists(vec![lists(odd), Value::Int(7)]),
        lists(vec![Value::Null, lists(some)]),
    ];
    let outputs = [("a", 0), ("r", 1), ("b", 2)];
    for dir in [Direction::Outgoing, Direction::Incoming, Direction::Both] {
        for case in &cases {
            let plain = run(
                plan(filtered_expand(case, &starts, dir, false), 4, &outputs),
                &txn,
            );
            let tested = run(
                plan(filtered_expand(case, &starts, dir, true), 4, &outputs),
                &txn,
            );
            match (plain, tested) {
                (Ok(plain), Ok(tested)) => {
                    assert_eq!(tested, plain, "{dir:?} {case:?}");
                }
                (Err(plain), Err(tested)) => {
                    assert_eq!(format!("{tested:?}"), format!("{plain:?}"), "{dir:?}")
                }
                (plain, tested) => panic!("{dir:?} {case:?}: {plain:?} vs {tested:?}"),
            }
        }
    }
    // The cases are not vacuous: the first keeps rows, the second fails.
    let first = run(
        plan(
            filtered_expand(&cases[0], &starts, Direction::Both, true),
            4,
            &outputs,
        ),
        &txn,
    );
    assert!(!first.unwrap().is_empty());
    let second = run(
        plan(
            filtered_expand(&cases[1], &starts, Direction::Both, true),
            4,
            &outputs,
        ),
        &txn,
    );
    assert!(second.is_err());
}
