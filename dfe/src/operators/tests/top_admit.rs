//! A `Top` with an `admit` predicate (rule `top_admits_filter`) keeps
//! exactly the rows, in the order, of the same `Top` over a filter of that
//! predicate: ties (in input order), nulls in the key and in the
//! predicate, limits from 0 past the input, both directions.

use super::*;
use nereid_planner::SortKey;

#[test]
fn an_admitting_top_equals_a_top_over_the_filter() {
    // Keys with many ties and some nulls, in a scrambled order.
    let values: Vec<Value> = (0..300u64)
        .map(|i| {
            let v = (i * 7919 + 13) % 23;
            if v == 5 {
                Value::Null
            } else {
                Value::Int(v as i64)
            }
        })
        .collect();
    // Rows (outer, key): `outer` tells apart rows with equal keys.
    let input = || {
        unwind(
            unwind(arg(), range(0, 2), 1),
            Expr::Literal(Value::List(values.clone().into())),
            0,
        )
    };
    // Null for keys 11 and 12 (`$0 < 13` is null for a null key too).
    let predicate = bin(
        BinaryOp::Or,
        bin(BinaryOp::Less, slot(0), lit(11)),
        bin(BinaryOp::Greater, slot(0), lit(12)),
    );
    let predicate = bin(
        BinaryOp::And,
        predicate,
        bin(BinaryOp::NotEqual, slot(1), lit(1)),
    );
    for ascending in [true, false] {
        for limit in [0i64, 1, 7, 40, 500, 1000] {
            let keys = vec![SortKey {
                expr: slot(0),
                ascending,
            }];
            let filtered = Op::Top {
                input: Box::new(Op::Filter {
                    input: input(),
                    predicate: predicate.clone(),
                }),
                keys: keys.clone(),
                limit: lit(limit),
                admit: None,
            };
            let admitting = Op::Top {
                input: input(),
                keys,
                limit: lit(limit),
                admit: Some(Box::new(predicate.clone())),
            };
            let outputs = [("k", 0), ("o", 1)];
            let expected = run(plan(filtered, 2, &outputs), &new_txn()).unwrap();
            let got = run(plan(admitting, 2, &outputs), &new_txn()).unwrap();
            assert_eq!(got, expected, "ascending {ascending} limit {limit}");
            assert!(limit == 0 || !got.is_empty());
        }
    }
}
