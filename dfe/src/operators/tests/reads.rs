//! Reading operators: scans, expand, filter, aggregation, sorting, optional.

use super::*;
use nereid_planner::ExpandSpec;

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
    assert_eq!(
        rows,
        vec![vec![Value::from("bob")], vec![Value::from("cid")]]
    );
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
        spec: ExpandSpec {
            from: 0,
            rel: 1,
            to: 2,
            dir,
            types: labels(types),
            into,
            dead: Vec::new(),
            far_end_in: None,
            far_end_adjacent: None,
            far_end_where: None,
        },
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
        spec: ExpandSpec {
            from: 0,
            rel: 1,
            to: 2,
            dir: Direction::Both,
            types: vec![],
            into: false,
            dead: Vec::new(),
            far_end_in: None,
            far_end_adjacent: None,
            far_end_where: None,
        },
    };
    assert!(run(plan(from(Value::Null), 3, &[("r", 1)]), &txn)
        .unwrap()
        .is_empty());
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
            spec: knows_out(),
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
    let rows = run(
        plan(
            root,
            12,
            &[
                ("t", 3),
                ("s", 4),
                ("l", 5),
                ("e", 6),
                ("sn", 7),
                ("p", 8),
                ("h", 9),
                ("ne", 10),
                ("m", 11),
            ],
        ),
        &txn,
    )
    .unwrap();
    let rel_id = txn.expand(ids[0], Direction::Outgoing, &labels(&["KNOWS"]))[0].0;
    assert_eq!(
        rows,
        vec![vec![
            Value::from("KNOWS"),
            Value::Int(2000),
            Value::List(vec![Value::from("Person")].into()),
            Value::String(nereid_storage::rel_element_id(rel_id)),
            Value::Node(ids[0]),
            Value::Map(props(&[
                ("name", Value::from("bob")),
                ("age", Value::Int(35))
            ])),
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
        percentile: None,
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
    let outputs = [
        ("a", 1),
        ("b", 2),
        ("c", 3),
        ("d", 4),
        ("e", 5),
        ("f", 6),
        ("g", 7),
    ];
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
            Value::List(vec![].into()),
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
    assert_eq!(
        run(plan(root, 3, &[("k", 1)]), &txn).unwrap(),
        Vec::<Vec<Value>>::new()
    );

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
                        percentile: None,
                    },
                ),
            ],
        }),
        keys: vec![SortKey {
            expr: slot(1),
            ascending: true,
        }],
    };
    let rows = run(
        plan(root, 5, &[("k", 1), ("c", 2), ("s", 3), ("d", 4)]),
        &txn,
    )
    .unwrap();
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
    let pairs = [
        (Value::Int(2), "a"),
        (Value::Null, "b"),
        (Value::Int(1), "c"),
        (Value::Int(2), "d"),
        (Value::Int(1), "e"),
    ];
    let list = Expr::Literal(Value::List(
        pairs
            .iter()
            .map(|(k, t)| Value::List(vec![k.clone(), Value::from(*t)].into()))
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
                admit: None,
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
    let list = Expr::Literal(Value::List(
        vec![
            Value::Int(1),
            Value::Float(1.0),
            Value::Null,
            Value::Int(2),
            Value::Null,
        ]
        .into(),
    ));
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
                    spec: knows_out(),
                }),
                nullable: vec![1, 2],
                origin: None,
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
        [
            "Sort",
            "Project",
            "Optional",
            "NodeByLabelScan",
            "Argument",
            "Expand",
            "Argument"
        ]
    );
    assert_eq!(cursor.operator_stats()[5].rows, 2);
    assert_eq!(cursor.operator_stats()[6].rows, 3);
    assert_eq!(ids.len(), 4);
}

/// A chain `Union(Union(a, b), c)` runs as one operator over its parts: the
/// rows in part order, and each Union of the chain counted as the nested
/// operators would count it (PROFILE's numbers).
#[test]
fn union_chain_rows_and_counts() {
    let txn = new_txn();
    let part = |n: i64| {
        let values = Value::List((0..n).map(|i| Value::Int(n * 10 + i)).collect());
        unwind(arg(), lit(values), 0)
    };
    let root = Op::Union {
        input: Box::new(Op::Union {
            input: part(1),
            other: part(2),
        }),
        other: part(3),
    };
    let mut cursor = Cursor::new(plan(root, 1, &[("x", 0)]), Arc::clone(&txn), Params::new());
    let mut rows = Vec::new();
    while let Some(row) = cursor.next_row().unwrap() {
        rows.push(row[0].clone());
    }
    let expected: Vec<Value> = [10, 20, 21, 30, 31, 32]
        .into_iter()
        .map(Value::Int)
        .collect();
    assert_eq!(rows, expected);
    let stats: Vec<(&str, u64)> = cursor
        .operator_stats()
        .iter()
        .map(|s| (s.name, s.rows))
        .collect();
    assert_eq!(
        stats,
        [
            ("Union", 6),
            ("Union", 3),
            ("Unwind", 1),
            ("Argument", 1),
            ("Unwind", 2),
            ("Argument", 1),
            ("Unwind", 3),
            ("Argument", 1),
        ]
    );
}

/// `($0)-[$1:KNOWS]->($2)`.
fn knows_out() -> ExpandSpec {
    ExpandSpec {
        from: 0,
        rel: 1,
        to: 2,
        dir: Direction::Outgoing,
        types: labels(&["KNOWS"]),
        into: false,
        dead: Vec::new(),
        far_end_in: None,
        far_end_adjacent: None,
        far_end_where: None,
    }
}
