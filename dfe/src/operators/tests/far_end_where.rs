//! An `Expand` handed its filters' comparisons (`ExpandSpec::far_end_where`)
//! leaves out only rows the filters above it would drop: with the filters
//! kept, the plan gives exactly the rows (or the failure) of the same plan
//! without the pre-test, for stored values of every kind (integers, floats,
//! strings, lists, absent) against constants of every kind (null
//! included), read through a projection's slot as `shared_property_read`
//! leaves it, on batches read row by row and set-at-a-time, before and
//! after the pre-test stops for keeping most neighbours.

use super::*;
use nereid_planner::{ExpandSpec, PropertyPredicate, PropertyTest};

/// 30 nodes with `v` of mixed kinds (every sixth without it), each linked
/// to the next five.
fn graph() -> (Arc<Txn>, Vec<NodeId>) {
    let store = Store::new(StoreConfig::default());
    let setup = store.begin();
    let nodes: Vec<NodeId> = (0..30)
        .map(|i: i64| {
            let v = match i % 6 {
                0 => None,
                1 => Some(Value::Float(i as f64 / 2.0)),
                2 => Some(Value::from("s")),
                3 => Some(Value::List(vec![Value::Int(i)].into())),
                _ => Some(Value::Int(i)),
            };
            let props: BTreeMap<String, Value> =
                v.map(|v| ("v".to_string(), v)).into_iter().collect();
            setup.create_node(&labels(&["N"]), &props).unwrap()
        })
        .collect();
    for i in 0..nodes.len() {
        for k in 1..=5 {
            let b = nodes[(i + k) % nodes.len()];
            setup
                .create_rel(nodes[i], b, "A", &BTreeMap::new())
                .unwrap();
        }
    }
    publish(&setup);
    (Arc::new(store.begin()), nodes)
}

/// `lo <= x.v AND x.v < hi` as two filters over a projection `$4 = $2.v`
/// over the expand.
fn filtered_expand(starts: &Value, lo: &Value, hi: &Value, dir: Direction, pre: bool) -> Op {
    let input = unwind(arg(), Expr::Literal(starts.clone()), 0);
    let tests = [
        PropertyPredicate {
            key: "v".into(),
            test: PropertyTest::Compare {
                op: BinaryOp::GreaterEqual,
                value: Expr::Literal(lo.clone()),
            },
        },
        PropertyPredicate {
            key: "v".into(),
            test: PropertyTest::Compare {
                op: BinaryOp::Less,
                value: Expr::Literal(hi.clone()),
            },
        },
    ];
    let expand = Op::Expand {
        input,
        spec: ExpandSpec {
            far_end_where: pre.then(|| Box::new(tests.to_vec())),
            ..hop(0, 1, 2, dir, &["A"])
        },
    };
    let projected = Op::Project {
        input: Box::new(expand),
        items: vec![(4, prop(2, "v"))],
    };
    let low = Op::Filter {
        input: Box::new(projected),
        predicate: bin(BinaryOp::GreaterEqual, slot(4), Expr::Literal(lo.clone())),
    };
    Op::Filter {
        input: Box::new(low),
        predicate: bin(BinaryOp::Greater, Expr::Literal(hi.clone()), slot(4)),
    }
}

#[test]
fn the_pre_tested_expand_keeps_the_filters_rows() {
    let (txn, nodes) = graph();
    // Each node eight times: over 2,048 neighbours tested, so the
    // pre-test also stops on a bound that keeps most (`TRIAL`).
    let mut starts: Vec<Value> = (0..8)
        .flat_map(|_| nodes.iter().map(|&n| Value::Node(n)))
        .collect();
    starts.push(Value::Null);
    let starts = Value::List(starts.into());
    let bounds = [
        (Value::Int(4), Value::Int(20)),
        (Value::Float(1.5), Value::Int(11)),
        (Value::Int(0), Value::Float(100.0)),
        (Value::from("a"), Value::from("z")),
        (Value::Null, Value::Int(20)),
        (Value::Int(30), Value::Int(3)),
        (
            Value::List(vec![Value::Int(0)].into()),
            Value::List(vec![Value::Int(99)].into()),
        ),
    ];
    let outputs = [("a", 0), ("b", 2), ("v", 4)];
    let mut kept = 0;
    for dir in [Direction::Outgoing, Direction::Incoming, Direction::Both] {
        for (lo, hi) in &bounds {
            let plain = run(
                plan(filtered_expand(&starts, lo, hi, dir, false), 5, &outputs),
                &txn,
            );
            let tested = run(
                plan(filtered_expand(&starts, lo, hi, dir, true), 5, &outputs),
                &txn,
            );
            match (plain, tested) {
                (Ok(plain), Ok(tested)) => {
                    kept += tested.len();
                    assert_eq!(tested, plain, "{dir:?} {lo:?} {hi:?}");
                }
                (Err(plain), Err(tested)) => {
                    assert_eq!(format!("{tested:?}"), format!("{plain:?}"), "{dir:?}")
                }
                (plain, tested) => panic!("{dir:?} {lo:?} {hi:?}: {plain:?} vs {tested:?}"),
            }
        }
    }
    // Not vacuous: rows are kept (and others left out).
    assert!(kept > 0);
}
