//! An `Expand` handed the node of the `ExpandInto` above it
//! (`ExpandSpec::far_end_adjacent`) leaves out only rows that `ExpandInto`
//! would drop: with the `ExpandInto` kept, the plan gives exactly the rows
//! (or the failure) of the same plan without the pre-test, for every
//! direction of both hops, the `ExpandInto` written from either end, runs
//! of rows long enough for the set to be read, nulls, and a value that is
//! not a node.

use super::expand_batched::graph;
use super::*;
use nereid_planner::{AdjacentTo, ExpandSpec};

/// `(a)-[r:A]-(m)` from each start, then `(m)-[s:B]-(b)` into each end, the
/// `ExpandInto` written from `m` (`from_reached`) or from `b`.
fn tested_pair(
    ends: &Value,
    starts: &Value,
    dirs: (Direction, Direction),
    from_reached: bool,
    pre_test: bool,
) -> Op {
    let (first, second) = dirs;
    let input = unwind(
        unwind(arg(), Expr::Literal(ends.clone()), 3),
        Expr::Literal(starts.clone()),
        0,
    );
    let adjacent = AdjacentTo {
        node: 3,
        dir: second,
        types: labels(&["B"]),
    };
    let (into_from, into_to, into_dir) = if from_reached {
        (2, 3, second)
    } else {
        (3, 2, second.reversed())
    };
    let hop = |from, rel, to, dir, types: &[&str], into| ExpandSpec {
        from,
        rel,
        to,
        dir,
        types: labels(types),
        into,
        dead: Vec::new(),
        far_end_in: None,
        far_end_adjacent: None,
        far_end_where: None,
    };
    Op::Expand {
        input: Box::new(Op::Expand {
            input,
            spec: ExpandSpec {
                far_end_adjacent: pre_test.then(|| Box::new(adjacent)),
                ..hop(0, 1, 2, first, &["A"], false)
            },
        }),
        spec: hop(into_from, 5, into_to, into_dir, &["B"], true),
    }
}

#[test]
fn the_pre_tested_expand_keeps_the_expand_intos_rows_and_failures() {
    let (txn, nodes) = graph();
    let node = |i: usize| Value::Node(nodes[i]);
    let starts: Vec<Value> = (0..nodes.len()).map(node).chain([Value::Null]).collect();
    let starts = Value::List(starts.into());
    let lists = |items: Vec<Value>| Value::List(items.into());
    let cases = [
        lists((0..nodes.len()).map(node).chain([Value::Null]).collect()),
        lists(vec![node(5), Value::Int(3)]),
    ];
    let outputs = [("a", 0), ("r", 1), ("m", 2), ("b", 3), ("s", 5)];
    let all = [Direction::Outgoing, Direction::Incoming, Direction::Both];
    let mut kept = 0;
    for first in all {
        for second in all {
            for from_reached in [true, false] {
                for case in &cases {
                    let dirs = (first, second);
                    let run_with = |pre_test| {
                        run(
                            plan(
                                tested_pair(case, &starts, dirs, from_reached, pre_test),
                                6,
                                &outputs,
                            ),
                            &txn,
                        )
                    };
                    match (run_with(false), run_with(true)) {
                        (Ok(plain), Ok(tested)) => {
                            kept += plain.len();
                            assert_eq!(tested, plain, "{dirs:?} {from_reached} {case:?}");
                        }
                        (Err(plain), Err(tested)) => assert_eq!(
                            format!("{tested:?}"),
                            format!("{plain:?}"),
                            "{dirs:?} {from_reached}"
                        ),
                        (plain, tested) => panic!("{dirs:?} {case:?}: {plain:?} vs {tested:?}"),
                    }
                }
            }
        }
    }
    // Not vacuous: the pairs keep rows.
    assert!(kept > 100, "{kept}");
}
