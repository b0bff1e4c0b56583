//! Operator tests on a real in-memory store, with plans built by hand.

use crate::{Cursor, ExecError, Params, BATCH_SIZE};
use nereid_planner::{
    Aggregate, AggregateFunction, BinaryOp, CreateItem, Expr, Op, PhysicalPlan, ScalarFunction,
    SetItem, SortKey,
};
use nereid_storage::{StorageError, Store, StoreConfig, Txn};
use nereid_values::{Direction, NodeId, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

fn new_txn() -> Arc<Txn> {
    Arc::new(Store::new(StoreConfig::default()).begin())
}

fn plan(root: Op, slot_count: usize, outputs: &[(&str, usize)]) -> Arc<PhysicalPlan> {
    Arc::new(PhysicalPlan {
        root,
        slot_count,
        outputs: outputs.iter().map(|(n, s)| (n.to_string(), *s)).collect(),
        writes: false,
        reads: true,
    })
}

fn run_with(plan: Arc<PhysicalPlan>, txn: &Arc<Txn>, params: Params) -> Result<Vec<Vec<Value>>, ExecError> {
    let mut cursor = Cursor::new(plan, Arc::clone(txn), params);
    let mut rows = Vec::new();
    while let Some(row) = cursor.next_row()? {
        rows.push(row);
    }
    Ok(rows)
}

fn run(plan: Arc<PhysicalPlan>, txn: &Arc<Txn>) -> Result<Vec<Vec<Value>>, ExecError> {
    run_with(plan, txn, Params::new())
}

fn arg() -> Box<Op> {
    Box::new(Op::Argument)
}
fn lit(v: impl Into<Value>) -> Expr {
    Expr::Literal(v.into())
}
fn slot(s: usize) -> Expr {
    Expr::Slot(s)
}
fn prop(s: usize, key: &str) -> Expr {
    Expr::Property {
        expr: Box::new(slot(s)),
        key: key.to_string(),
    }
}
fn bin(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    }
}
fn range(from: i64, to: i64) -> Expr {
    Expr::Function {
        func: ScalarFunction::Range,
        args: vec![lit(from), lit(to)],
    }
}
fn unwind(input: Box<Op>, expr: Expr, out: usize) -> Box<Op> {
    Box::new(Op::Unwind { input, expr, out })
}
fn ints(rows: &[i64]) -> Vec<Vec<Value>> {
    rows.iter().map(|&i| vec![Value::Int(i)]).collect()
}
fn props(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}
fn labels(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}
fn count_star() -> Aggregate {
    Aggregate {
        func: AggregateFunction::Count,
        arg: None,
        distinct: false,
    }
}

/// Three people (ages 25, 35, 45) and a city; people 0 and 1 know each
/// other's successor, person 0 lives in the city.
fn people(txn: &Txn) -> Vec<NodeId> {
    let mut ids = Vec::new();
    for (name, age) in [("ann", 25), ("bob", 35), ("cid", 45)] {
        let p = props(&[("name", Value::from(name)), ("age", Value::Int(age))]);
        ids.push(txn.create_node(&labels(&["Person"]), &p).unwrap());
    }
    let city = txn
        .create_node(&labels(&["City"]), &props(&[("name", Value::from("rome"))]))
        .unwrap();
    ids.push(city);
    txn.create_rel(ids[0], ids[1], "KNOWS", &props(&[("since", Value::Int(2000))]))
        .unwrap();
    txn.create_rel(ids[1], ids[2], "KNOWS", &BTreeMap::new()).unwrap();
    txn.create_rel(ids[0], city, "LIVES_IN", &BTreeMap::new()).unwrap();
    ids
}

#[test]
fn unwind_of_a_million_produces_only_one_batch_for_the_first_rows() {
    let txn = new_txn();
    let p = plan(*unwind(arg(), range(1, 1_000_000), 0), 1, &[("x", 0)]);
    let mut cursor = Cursor::new(p, txn, Params::new());
    for expected in 1..=100 {
        assert_eq!(cursor.next_row().unwrap(), Some(vec![Value::Int(expected)]));
    }
    let unwind_rows = cursor
        .operator_stats()
        .iter()
        .find(|s| s.name == "Unwind")
        .map(|s| s.rows);
    assert_eq!(unwind_rows, Some(BATCH_SIZE as u64));
}

#[test]
fn unwind_of_a_list_value_is_lazy_too_and_handles_null_and_scalars() {
    let txn = new_txn();
    let mut params = Params::new();
    params.insert(
        "xs".into(),
        Value::List((0..5000).map(Value::Int).collect()),
    );
    let p = plan(*unwind(arg(), Expr::Param("xs".into()), 0), 1, &[("x", 0)]);
    let mut cursor = Cursor::new(p, Arc::clone(&txn), params);
    assert_eq!(cursor.next_row().unwrap(), Some(vec![Value::Int(0)]));
    assert_eq!(cursor.operator_stats()[0].rows, BATCH_SIZE as u64);

    let p = plan(*unwind(arg(), lit(Value::Null), 0), 1, &[("x", 0)]);
    assert_eq!(run(p, &txn).unwrap(), Vec::<Vec<Value>>::new());
    let p = plan(*unwind(arg(), lit(7), 0), 1, &[("x", 0)]);
    assert_eq!(run(p, &txn).unwrap(), ints(&[7]));
}

#[test]
fn limit_stops_pulling_its_input() {
    let txn = new_txn();
    let root = Op::Limit {
        input: unwind(arg(), range(1, 1_000_000_000), 0),
        count: lit(3),
    };
    let mut cursor = Cursor::new(plan(root, 1, &[("x", 0)]), txn, Params::new());
    let mut rows = Vec::new();
    while let Some(row) = cursor.next_row().unwrap() {
        rows.push(row);
    }
    assert_eq!(rows, ints(&[1, 2, 3]));
    // Limit (id 0) passed 3 rows; Unwind (id 1) produced one batch only.
    assert_eq!(cursor.operator_stats()[0].rows, 3);
    assert_eq!(cursor.operator_stats()[1].rows, BATCH_SIZE as u64);
}

#[test]
fn skip_and_limit_validate_their_count() {
    let txn = new_txn();
    for count in [lit(-1), lit(1.5), lit("3"), Expr::Param("n".into())] {
        let root = Op::Skip {
            input: unwind(arg(), range(1, 3), 0),
            count: count.clone(),
        };
        let mut params = Params::new();
        params.insert("n".into(), Value::Int(-2));
        let err = run_with(plan(root, 1, &[("x", 0)]), &txn, params).unwrap_err();
        assert!(matches!(err, ExecError::Argument(_)), "{count:?}: {err:?}");
    }
    let root = Op::Limit {
        input: Box::new(Op::Skip {
            input: unwind(arg(), range(1, 10), 0),
            count: lit(2),
        }),
        count: Expr::Param("n".into()),
    };
    let mut params = Params::new();
    params.insert("n".into(), Value::Int(3));
    assert_eq!(
        run_with(plan(root, 1, &[("x", 0)]), &txn, params).unwrap(),
        ints(&[3, 4, 5])
    );
}

#[test]
fn label_scan_filter_and_project() {
    let txn = new_txn();
    people(&txn);
    // MATCH (n:Person) WHERE n.age > 30 RETURN n.name AS name ORDER BY name
    let root = Op::Sort {
        input: Box::new(Op::Project {
            input: Box::new(Op::Filter {
                input: Box::new(Op::NodeByLabelScan {
                    input: arg(),
                    out: 0,
                    label: "Person".into(),
                }),
                predicate: bin(BinaryOp::Greater, prop(0, "age"), lit(30)),
            }),
            items: vec![(1, prop(0, "name"))],
        }),
        keys: vec![SortKey {
            expr: slot(1),
            ascending: true,
        }],
    };
    let rows = run(plan(root, 2, &[("name", 1)]), &txn).unwrap();
    assert_eq!(rows, vec![vec![Value::from("bob")], vec![Value::from("cid")]]);
}

#[test]
fn scans_emit_batch_by_batch_and_chain_as_cartesian_products() {
    let txn = new_txn();
    for _ in 0..3000 {
        txn.create_node(&[], &BTreeMap::new()).unwrap();
    }
    let root = Op::AllNodesScan {
        input: arg(),
        out: 0,
    };
    let mut cursor = Cursor::new(plan(root, 1, &[("n", 0)]), Arc::clone(&txn), Params::new());
    assert!(cursor.next_row().unwrap().is_some());
    assert_eq!(cursor.operator_stats()[0].rows, BATCH_SIZE as u64);

    // MATCH (a:X), (b:X) RETURN count(*) with two X nodes: 4 rows.
    txn.create_node(&labels(&["X"]), &BTreeMap::new()).unwrap();
    txn.create_node(&labels(&["X"]), &BTreeMap::new()).unwrap();
    let scan = |input: Box<Op>, out| {
        Box::new(Op::NodeByLabelScan {
            input,
            out,
            label: "X".into(),
        })
    };
    let root = Op::Aggregate {
        input: scan(scan(arg(), 0), 1),
        keys: vec![],
        aggregates: vec![(2, count_star())],
    };
    assert_eq!(run(plan(root, 3, &[("c", 2)]), &txn).unwrap(), ints(&[4]));
}

#[test]
fn expand_follows_direction_types_and_into() {
    let txn = new_txn();
    let ids = people(&txn);
    let expand = |dir, types: &[&str], into: bool| Op::Expand {
        input: Box::new(Op::Project {
            input: arg(),
            items: vec![
                (0, Expr::Literal(Value::Node(ids[0]))),
                (2, Expr::Literal(Value::Node(ids[1]))),
            ],
        }),
        from: 0,
        rel: 1,
        to: 2,
        dir,
        types: labels(types),
        into,
    };
    let other_ends = |op: Op| {
        let mut rows = run(plan(op, 3, &[("to", 2)]), &txn).unwrap();
        rows.sort_by(|a, b| nereid_values::compare_for_order(&a[0], &b[0]));
        rows
    };
    let node = |i: usize| vec![Value::Node(ids[i])];
    let mut both = vec![node(1), node(3)];
    both.sort_by(|a, b| nereid_values::compare_for_order(&a[0], &b[0]));
    assert_eq!(other_ends(expand(Direction::Outgoing, &[], false)), both);
    assert_eq!(
        other_ends(expand(Direction::Outgoing, &["KNOWS"], false)),
        vec![node(1)]
    );
    assert!(other_ends(expand(Direction::Incoming, &[], false)).is_empty());
    assert!(other_ends(expand(Direction::Both, &["LIVES_IN"], true)).is_empty());
    assert_eq!(
        other_ends(expand(Direction::Both, &[], true)),
        vec![node(1)]
    );

    // A null `from` yields no rows; a non-node is a type error.
    let from = |value: Value| Op::Expand {
        input: Box::new(Op::Project {
            input: arg(),
            items: vec![(0, Expr::Literal(value))],
        }),
        from: 0,
        rel: 1,
        to: 2,
        dir: Direction::Both,
        types: vec![],
        into: false,
    };
    assert!(run(plan(from(Value::Null), 3, &[("r", 1)]), &txn).unwrap().is_empty());
    assert!(matches!(
        run(plan(from(Value::Int(1)), 3, &[("r", 1)]), &txn),
        Err(ExecError::Type(_))
    ));
}

#[test]
fn entity_functions_read_through_the_transaction() {
    let txn = new_txn();
    let ids = people(&txn);
    // MATCH (a)-[r:KNOWS]->(b) WHERE a.name = 'ann' RETURN type(r), r.since, labels(b), elementId(r) ...
    let f = |func, s| Expr::Function {
        func,
        args: vec![slot(s)],
    };
    let root = Op::Project {
        input: Box::new(Op::Expand {
            input: Box::new(Op::Project {
                input: arg(),
                items: vec![(0, Expr::Literal(Value::Node(ids[0])))],
            }),
            from: 0,
            rel: 1,
            to: 2,
            dir: Direction::Outgoing,
            types: labels(&["KNOWS"]),
            into: false,
        }),
        items: vec![
            (3, f(ScalarFunction::Type, 1)),
            (4, prop(1, "since")),
            (5, f(ScalarFunction::Labels, 2)),
            (6, f(ScalarFunction::ElementId, 1)),
            (7, f(ScalarFunction::StartNode, 1)),
            (8, f(ScalarFunction::Properties, 2)),
            (
                9,
                Expr::HasLabels {
                    expr: Box::new(slot(2)),
                    labels: labels(&["Person"]),
                },
            ),
            (10, f(ScalarFunction::ElementId, 0)),
            (11, prop(2, "missing")),
        ],
    };
    let rows = run(plan(root, 12, &[("t", 3), ("s", 4), ("l", 5), ("e", 6), ("sn", 7), ("p", 8), ("h", 9), ("ne", 10), ("m", 11)]), &txn).unwrap();
    let rel_id = txn.expand(ids[0], Direction::Outgoing, &labels(&["KNOWS"]))[0].0;
    assert_eq!(
        rows,
        vec![vec![
            Value::from("KNOWS"),
            Value::Int(2000),
            Value::List(vec![Value::from("Person")]),
            Value::String(nereid_storage::rel_element_id(rel_id)),
            Value::Node(ids[0]),
            Value::Map(props(&[("name", Value::from("bob")), ("age", Value::Int(35))])),
            Value::Bool(true),
            Value::String(txn.node_key(ids[0]).unwrap()),
            Value::Null,
        ]]
    );
}

#[test]
fn aggregation_groups_and_handles_empty_input() {
    let txn = new_txn();
    // UNWIND [] AS x RETURN count(*), count(x), collect(x), sum(x), avg(x), min(x), max(x)
    let agg = |func, distinct| Aggregate {
        func,
        arg: Some(slot(0)),
        distinct,
    };
    let all = vec![
        (1, count_star()),
        (2, agg(AggregateFunction::Count, false)),
        (3, agg(AggregateFunction::Collect, false)),
        (4, agg(AggregateFunction::Sum, false)),
        (5, agg(AggregateFunction::Avg, false)),
        (6, agg(AggregateFunction::Min, false)),
        (7, agg(AggregateFunction::Max, false)),
    ];
    let outputs = [("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5), ("f", 6), ("g", 7)];
    let root = Op::Aggregate {
        input: unwind(arg(), Expr::List(vec![]), 0),
        keys: vec![],
        aggregates: all.clone(),
    };
    assert_eq!(
        run(plan(root, 8, &outputs), &txn).unwrap(),
        vec![vec![
            Value::Int(0),
            Value::Int(0),
            Value::List(vec![]),
            Value::Int(0),
            Value::Null,
            Value::Null,
            Value::Null
        ]]
    );
    // With a grouping key and no input: no rows.
    let root = Op::Aggregate {
        input: unwind(arg(), Expr::List(vec![]), 0),
        keys: vec![(1, slot(0))],
        aggregates: vec![(2, count_star())],
    };
    assert_eq!(run(plan(root, 3, &[("k", 1)]), &txn).unwrap(), Vec::<Vec<Value>>::new());

    // UNWIND range(1, 2500) AS x RETURN x % 3 AS k, count(*), sum(x), count(DISTINCT x % 2)
    let root = Op::Sort {
        input: Box::new(Op::Aggregate {
            input: unwind(arg(), range(1, 2500), 0),
            keys: vec![(1, bin(BinaryOp::Modulo, slot(0), lit(3)))],
            aggregates: vec![
                (2, count_star()),
                (3, agg(AggregateFunction::Sum, false)),
                (
                    4,
                    Aggregate {
                        func: AggregateFunction::Count,
                        arg: Some(bin(BinaryOp::Modulo, slot(0), lit(2))),
                        distinct: true,
                    },
                ),
            ],
        }),
        keys: vec![SortKey {
            expr: slot(1),
            ascending: true,
        }],
    };
    let rows = run(plan(root, 5, &[("k", 1), ("c", 2), ("s", 3), ("d", 4)]), &txn).unwrap();
    let expect = |k: i64| {
        let xs: Vec<i64> = (1..=2500).filter(|x| x % 3 == k).collect();
        vec![
            Value::Int(k),
            Value::Int(xs.len() as i64),
            Value::Int(xs.iter().sum()),
            Value::Int(2),
        ]
    };
    assert_eq!(rows, vec![expect(0), expect(1), expect(2)]);
}

#[test]
fn sort_is_stable_and_descending_puts_nulls_first_and_top_agrees() {
    let txn = new_txn();
    // UNWIND [[2,'a'],[null,'b'],[1,'c'],[2,'d'],[1,'e']] AS p
    let pairs = [(Value::Int(2), "a"), (Value::Null, "b"), (Value::Int(1), "c"), (Value::Int(2), "d"), (Value::Int(1), "e")];
    let list = Expr::Literal(Value::List(
        pairs
            .iter()
            .map(|(k, t)| Value::List(vec![k.clone(), Value::from(*t)]))
            .collect(),
    ));
    let key = Expr::Index {
        expr: Box::new(slot(0)),
        index: Box::new(lit(0)),
    };
    let tag = Expr::Index {
        expr: Box::new(slot(0)),
        index: Box::new(lit(1)),
    };
    let sorted = |ascending: bool, limit: Option<i64>| {
        let keys = vec![SortKey {
            expr: key.clone(),
            ascending,
        }];
        let input = unwind(arg(), list.clone(), 0);
        let sorted = match limit {
            None => Op::Sort { input, keys },
            Some(n) => Op::Top {
                input,
                keys,
                limit: lit(n),
            },
        };
        let root = Op::Project {
            input: Box::new(sorted),
            items: vec![(1, tag.clone())],
        };
        run(plan(root, 2, &[("t", 1)]), &txn)
            .unwrap()
            .into_iter()
            .map(|r| r[0].as_str().unwrap_or("?").to_string())
            .collect::<Vec<_>>()
            .join("")
    };
    assert_eq!(sorted(true, None), "ceadb");
    assert_eq!(sorted(false, None), "badce");
    assert_eq!(sorted(true, Some(3)), "cea");
    assert_eq!(sorted(false, Some(2)), "ba");
    assert_eq!(sorted(true, Some(0)), "");
    assert_eq!(sorted(true, Some(99)), "ceadb");
}

#[test]
fn distinct_and_eager() {
    let txn = new_txn();
    let list = Expr::Literal(Value::List(vec![
        Value::Int(1),
        Value::Float(1.0),
        Value::Null,
        Value::Int(2),
        Value::Null,
    ]));
    let root = Op::Eager {
        input: Box::new(Op::Distinct {
            input: unwind(arg(), list, 0),
            slots: vec![0],
        }),
    };
    assert_eq!(
        run(plan(root, 1, &[("x", 0)]), &txn).unwrap(),
        vec![vec![Value::Int(1)], vec![Value::Null], vec![Value::Int(2)]]
    );
}

#[test]
fn optional_emits_inner_rows_or_the_row_with_nulls() {
    let txn = new_txn();
    let ids = people(&txn);
    // MATCH (n:Person) OPTIONAL MATCH (n)-[r:KNOWS]->(m) RETURN n.name, m.name
    let root = Op::Sort {
        input: Box::new(Op::Project {
            input: Box::new(Op::Optional {
                input: Box::new(Op::NodeByLabelScan {
                    input: arg(),
                    out: 0,
                    label: "Person".into(),
                }),
                inner: Box::new(Op::Expand {
                    input: arg(),
                    from: 0,
                    rel: 1,
                    to: 2,
                    dir: Direction::Outgoing,
                    types: labels(&["KNOWS"]),
                    into: false,
                }),
                nullable: vec![1, 2],
            }),
            items: vec![(3, prop(0, "name")), (4, prop(2, "name"))],
        }),
        keys: vec![SortKey {
            expr: slot(3),
            ascending: true,
        }],
    };
    let mut cursor = Cursor::new(
        plan(root, 5, &[("n", 3), ("m", 4)]),
        Arc::clone(&txn),
        Params::new(),
    );
    let mut rows = Vec::new();
    while let Some(row) = cursor.next_row().unwrap() {
        rows.push(row);
    }
    let s = |x: &str| Value::from(x);
    assert_eq!(
        rows,
        vec![
            vec![s("ann"), s("bob")],
            vec![s("bob"), s("cid")],
            vec![s("cid"), Value::Null],
        ]
    );
    // The inner Expand (numbered after Optional's input) ran for each of the three people.
    let names: Vec<&str> = cursor.operator_stats().iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        ["Sort", "Project", "Optional", "NodeByLabelScan", "Argument", "Expand", "Argument"]
    );
    assert_eq!(cursor.operator_stats()[5].rows, 2);
    assert_eq!(cursor.operator_stats()[6].rows, 3);
    assert_eq!(ids.len(), 4);
}

#[test]
fn create_binds_new_entities_and_skips_null_properties() {
    let txn = new_txn();
    // UNWIND [1, 2] AS i CREATE (a:A {i: i, gone: null})-[r:T {w: i * 10}]->(b:B {from: a.i}) RETURN a, r, b
    let root = Op::Create {
        input: unwind(arg(), Expr::List(vec![lit(1), lit(2)]), 0),
        items: vec![
            CreateItem::Node {
                out: 1,
                labels: labels(&["A"]),
                properties: vec![("i".into(), slot(0)), ("gone".into(), lit(Value::Null))],
            },
            CreateItem::Node {
                out: 3,
                labels: labels(&["B"]),
                properties: vec![("from".into(), prop(1, "i"))],
            },
            CreateItem::Rel {
                out: 2,
                from: 1,
                to: 3,
                rel_type: "T".into(),
                properties: vec![("w".into(), bin(BinaryOp::Multiply, slot(0), lit(10)))],
            },
        ],
    };
    let rows = run(plan(root, 4, &[("a", 1), ("r", 2), ("b", 3)]), &txn).unwrap();
    assert_eq!(rows.len(), 2);
    for (i, row) in rows.iter().enumerate() {
        let (Value::Node(a), Value::Relationship(r), Value::Node(b)) = (&row[0], &row[1], &row[2]) else {
            panic!("unexpected row {row:?}");
        };
        let i = i as i64 + 1;
        assert_eq!(txn.node_properties(*a), props(&[("i", Value::Int(i))]));
        assert_eq!(txn.node_properties(*b), props(&[("from", Value::Int(i))]));
        assert_eq!(txn.rel_endpoints(*r), Some((*a, *b, "T".to_string())));
        assert_eq!(txn.rel_property(*r, "w"), Some(Value::Int(i * 10)));
    }
    assert_eq!(txn.stats().nodes_created, 4);

    // Storing a map is a type error.
    let root = Op::Create {
        input: arg(),
        items: vec![CreateItem::Node {
            out: 0,
            labels: vec![],
            properties: vec![("m".into(), Expr::Map(vec![]))],
        }],
    };
    assert!(matches!(run(plan(root, 1, &[]), &txn), Err(ExecError::Type(_))));
}

#[test]
fn set_and_remove_properties_and_labels() {
    let txn = new_txn();
    let n = txn
        .create_node(&labels(&["A"]), &props(&[("a", Value::Int(1)), ("b", Value::Int(2))]))
        .unwrap();
    let node = || Expr::Literal(Value::Node(n));
    let set = |items: Vec<SetItem>| {
        let root = Op::SetProperties {
            input: arg(),
            items,
        };
        run(plan(root, 1, &[]), &txn)
    };
    let map = |pairs: Vec<(&str, Expr)>| Expr::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect());

    set(vec![
        SetItem::Property {
            target: node(),
            key: "c".into(),
            value: lit(3),
        },
        // A later item sees the earlier one: d = c + 1.
        SetItem::Property {
            target: node(),
            key: "d".into(),
            value: bin(BinaryOp::Add, Expr::Property { expr: Box::new(node()), key: "c".into() }, lit(1)),
        },
        SetItem::Property {
            target: node(),
            key: "a".into(),
            value: lit(Value::Null),
        },
        SetItem::AddLabels {
            target: node(),
            labels: labels(&["B"]),
        },
        SetItem::RemoveLabels {
            target: node(),
            labels: labels(&["A"]),
        },
        SetItem::Property {
            target: lit(Value::Null),
            key: "x".into(),
            value: lit(1),
        },
    ])
    .unwrap();
    assert_eq!(
        txn.node_properties(n),
        props(&[("b", Value::Int(2)), ("c", Value::Int(3)), ("d", Value::Int(4))])
    );
    assert_eq!(txn.node_labels(n), labels(&["B"]));

    set(vec![SetItem::MergeProperties {
        target: node(),
        map: map(vec![("b", lit(Value::Null)), ("e", lit("x"))]),
    }])
    .unwrap();
    assert_eq!(
        txn.node_properties(n),
        props(&[("c", Value::Int(3)), ("d", Value::Int(4)), ("e", Value::from("x"))])
    );

    set(vec![SetItem::ReplaceProperties {
        target: node(),
        map: map(vec![("z", lit(true)), ("n", lit(Value::Null))]),
    }])
    .unwrap();
    assert_eq!(txn.node_properties(n), props(&[("z", Value::Bool(true))]));

    let err = set(vec![SetItem::Property {
        target: node(),
        key: "bad".into(),
        value: lit(Value::Node(n)),
    }]);
    assert!(matches!(err, Err(ExecError::Type(_))));
    let err = set(vec![SetItem::Property {
        target: lit(1),
        key: "x".into(),
        value: lit(1),
    }]);
    assert!(matches!(err, Err(ExecError::Type(_))));
}

#[test]
fn delete_nodes_relationships_and_paths() {
    let txn = new_txn();
    let ids = people(&txn);
    let delete = |items: Vec<Expr>, detach: bool| {
        let root = Op::Delete {
            input: arg(),
            items,
            detach,
        };
        run(plan(root, 1, &[]), &txn)
    };
    let node = |i: usize| Expr::Literal(Value::Node(ids[i]));

    assert_eq!(
        delete(vec![node(0)], false),
        Err(ExecError::Storage(StorageError::DeleteConnectedNode(ids[0].external())))
    );
    assert!(matches!(delete(vec![lit(1)], false), Err(ExecError::Type(_))));
    delete(vec![lit(Value::Null)], false).unwrap();

    // Path ann -KNOWS-> bob: deleting it removes both relationships' ends
    // only after the path's relationship; bob still has KNOWS to cid, so
    // only a DETACH delete succeeds.
    let (knows, _) = txn.expand(ids[0], Direction::Outgoing, &labels(&["KNOWS"]))[0];
    let path = Expr::Path(vec![node(0), Expr::Literal(Value::Relationship(knows)), node(1)]);
    assert!(matches!(
        delete(vec![path.clone()], false),
        Err(ExecError::Storage(StorageError::DeleteConnectedNode(_)))
    ));
    delete(vec![path], true).unwrap();
    assert!(!txn.node_exists(ids[0]));
    assert!(!txn.node_exists(ids[1]));
    assert!(txn.node_exists(ids[2]));

    // The same node twice, and a relationship listed after its node.
    let lonely = txn.create_node(&[], &BTreeMap::new()).unwrap();
    let other = txn.create_node(&[], &BTreeMap::new()).unwrap();
    let rel = txn.create_rel(lonely, other, "R", &BTreeMap::new()).unwrap();
    let lonely = Expr::Literal(Value::Node(lonely));
    delete(
        vec![lonely.clone(), Expr::Literal(Value::Relationship(rel)), lonely],
        false,
    )
    .unwrap();
    assert!(!txn.rel_exists(rel));
}

#[test]
fn procedures_yield_into_slots() {
    let txn = new_txn();
    let call = |name: &str, yields: Vec<(&str, usize)>| Op::ProcedureCall {
        input: arg(),
        name: name.to_string(),
        args: vec![],
        yields: yields.into_iter().map(|(n, s)| (n.to_string(), s)).collect(),
    };
    assert_eq!(
        run(plan(call("db.ping", vec![("success", 0)]), 1, &[("success", 0)]), &txn).unwrap(),
        vec![vec![Value::Bool(true)]]
    );
    let rows = run(
        plan(
            call("dbms.components", vec![("name", 0), ("versions", 1), ("edition", 2)]),
            3,
            &[("name", 0), ("versions", 1), ("edition", 2)],
        ),
        &txn,
    )
    .unwrap();
    assert_eq!(
        rows,
        vec![vec![
            Value::from("Neo4j Kernel"),
            Value::List(vec![Value::from("5.26.0")]),
            Value::from("community")
        ]]
    );
    assert_eq!(
        run(plan(call("db.nope", vec![]), 1, &[]), &txn),
        Err(ExecError::ProcedureNotFound("db.nope".into()))
    );
    assert!(matches!(
        run(plan(call("db.ping", vec![("nope", 0)]), 1, &[]), &txn),
        Err(ExecError::Argument(_))
    ));
}

#[test]
fn errors_end_the_cursor_and_next_batch_returns_rows() {
    let txn = new_txn();
    let root = Op::Project {
        input: unwind(arg(), range(0, 3), 0),
        items: vec![(1, bin(BinaryOp::Divide, lit(6), slot(0)))],
    };
    let mut cursor = Cursor::new(plan(root, 2, &[("y", 1)]), Arc::clone(&txn), Params::new());
    assert_eq!(
        cursor.next_row(),
        Err(ExecError::Arithmetic("/ by zero".into()))
    );
    assert_eq!(cursor.next_row(), Ok(None));

    let p = plan(*unwind(arg(), range(1, 2500), 0), 1, &[("x", 0)]);
    let mut cursor = Cursor::new(p, txn, Params::new());
    assert_eq!(cursor.columns(), vec!["x".to_string()]);
    assert_eq!(cursor.next_row().unwrap(), Some(vec![Value::Int(1)]));
    let mut sizes = Vec::new();
    while let Some(rows) = cursor.next_batch().unwrap() {
        sizes.push(rows.len());
    }
    assert_eq!(sizes, vec![BATCH_SIZE - 1, BATCH_SIZE, 2500 - 2 * BATCH_SIZE]);
}
