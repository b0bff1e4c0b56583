//! Updating operators and procedure calls.

use super::*;

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
                dynamic: Vec::new(),
                properties: vec![("i".into(), slot(0)), ("gone".into(), lit(Value::Null))],
            },
            CreateItem::Node {
                out: 3,
                labels: labels(&["B"]),
                dynamic: Vec::new(),
                properties: vec![("from".into(), prop(1, "i"))],
            },
            CreateItem::Rel {
                out: 2,
                from: 1,
                to: 3,
                rel_type: nereid_planner::RelTypeName::Static("T".into()),
                properties: vec![("w".into(), bin(BinaryOp::Multiply, slot(0), lit(10)))],
            },
        ],
    };
    let rows = run(plan(root, 4, &[("a", 1), ("r", 2), ("b", 3)]), &txn).unwrap();
    assert_eq!(rows.len(), 2);
    for (i, row) in rows.iter().enumerate() {
        let (Value::Node(a), Value::Relationship(r), Value::Node(b)) = (&row[0], &row[1], &row[2])
        else {
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
            dynamic: Vec::new(),
            properties: vec![("m".into(), Expr::Map(vec![]))],
        }],
    };
    assert!(matches!(
        run(plan(root, 1, &[]), &txn),
        Err(ExecError::Type(_))
    ));
}

#[test]
fn set_and_remove_properties_and_labels() {
    let txn = new_txn();
    let n = txn
        .create_node(
            &labels(&["A"]),
            &props(&[("a", Value::Int(1)), ("b", Value::Int(2))]),
        )
        .unwrap();
    let node = || Expr::Literal(Value::Node(n));
    let set = |items: Vec<SetItem>| {
        let root = Op::SetProperties {
            input: arg(),
            items,
        };
        run(plan(root, 1, &[]), &txn)
    };
    let map = |pairs: Vec<(&str, Expr)>| {
        Expr::Map(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    };

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
            value: bin(
                BinaryOp::Add,
                Expr::Property {
                    expr: Box::new(node()),
                    key: "c".into(),
                },
                lit(1),
            ),
        },
        SetItem::Property {
            target: node(),
            key: "a".into(),
            value: lit(Value::Null),
        },
        SetItem::AddLabels {
            target: node(),
            labels: labels(&["B"]),
            dynamic: Vec::new(),
        },
        SetItem::RemoveLabels {
            target: node(),
            labels: labels(&["A"]),
            dynamic: Vec::new(),
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
        props(&[
            ("b", Value::Int(2)),
            ("c", Value::Int(3)),
            ("d", Value::Int(4))
        ])
    );
    assert_eq!(txn.node_labels(n), labels(&["B"]));

    set(vec![SetItem::MergeProperties {
        target: node(),
        map: map(vec![("b", lit(Value::Null)), ("e", lit("x"))]),
    }])
    .unwrap();
    assert_eq!(
        txn.node_properties(n),
        props(&[
            ("c", Value::Int(3)),
            ("d", Value::Int(4)),
            ("e", Value::from("x"))
        ])
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
        Err(ExecError::Storage(StorageError::DeleteConnectedNode(
            ids[0].external()
        )))
    );
    assert!(matches!(
        delete(vec![lit(1)], false),
        Err(ExecError::Type(_))
    ));
    delete(vec![lit(Value::Null)], false).unwrap();

    // Path ann -KNOWS-> bob: deleting it removes both relationships' ends
    // only after the path's relationship; bob still has KNOWS to cid, so
    // only a DETACH delete succeeds.
    let (knows, _) = txn.expand(ids[0], Direction::Outgoing, &labels(&["KNOWS"]))[0];
    let path = Expr::Path(vec![
        node(0),
        Expr::Literal(Value::Relationship(knows)),
        node(1),
    ]);
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
    let rel = txn
        .create_rel(lonely, other, "R", &BTreeMap::new())
        .unwrap();
    let lonely = Expr::Literal(Value::Node(lonely));
    delete(
        vec![
            lonely.clone(),
            Expr::Literal(Value::Relationship(rel)),
            lonely,
        ],
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
        yields: yields
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect(),
        filter: None,
    };
    assert_eq!(
        run(
            plan(call("db.ping", vec![("success", 0)]), 1, &[("success", 0)]),
            &txn
        )
        .unwrap(),
        vec![vec![Value::Bool(true)]]
    );
    let rows = run(
        plan(
            call(
                "dbms.components",
                vec![("name", 0), ("versions", 1), ("edition", 2)],
            ),
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
            Value::List(vec![Value::from("5.26.0")].into()),
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
