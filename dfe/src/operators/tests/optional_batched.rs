//! An `Optional` run once per input batch (`origin` set) must give exactly
//! the rows of the same `Optional` run row by row, in the same order:
//! outer rows with several inner rows, with none (null-extended), nulls
//! and repeated outer rows, over several input batches.

use super::expand_batched::graph;
use super::*;

#[test]
fn batched_optional_equals_row_by_row() {
    let (txn, nodes) = graph();
    let mut starts: Vec<Value> = Vec::new();
    for round in 0..60 {
        starts.extend(nodes.iter().skip(round % 7).map(|&n| Value::Node(n)));
        starts.push(Value::Null);
    }
    assert!(starts.len() > 2 * BATCH_SIZE, "several input batches");
    // UNWIND $starts AS a
    // OPTIONAL MATCH (a)-[r1:A]->(b)<-[r2]-(c) WHERE c <> a AND r1 <> r2
    let optional = |origin: Option<usize>| Op::Optional {
        input: unwind(arg(), Expr::Literal(Value::List(starts.clone().into())), 0),
        inner: Box::new(Op::Filter {
            input: Box::new(Op::Filter {
                input: Box::new(Op::Expand {
                    input: Box::new(Op::Expand {
                        input: arg(),
                        spec: hop(0, 1, 2, Direction::Outgoing, &["A"]),
                    }),
                    spec: hop(2, 3, 4, Direction::Incoming, &[]),
                }),
                predicate: bin(BinaryOp::NotEqual, slot(4), slot(0)),
            }),
            predicate: bin(BinaryOp::NotEqual, slot(1), slot(3)),
        }),
        nullable: vec![1, 2, 3, 4],
        origin,
    };
    let outputs = [("a", 0), ("r1", 1), ("b", 2), ("r2", 3), ("c", 4)];
    let row_by_row = run(plan(optional(None), 5, &outputs), &txn).unwrap();
    let batched = run(plan(optional(Some(5)), 6, &outputs), &txn).unwrap();
    assert!(row_by_row.iter().any(|r| r[1].is_null() && !r[0].is_null()));
    assert!(row_by_row.iter().any(|r| !r[4].is_null()));
    assert_eq!(batched, row_by_row);
}
