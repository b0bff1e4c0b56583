//! Pipelining: operators compute about one batch ahead, and errors end the cursor.

use super::*;

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
    assert_eq!(
        sizes,
        vec![BATCH_SIZE - 1, BATCH_SIZE, 2500 - 2 * BATCH_SIZE]
    );
}

#[test]
fn cursors_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<Cursor>();
}

#[test]
fn a_failing_row_comes_after_the_rows_before_it() {
    // UNWIND [1, 0, 2] AS x RETURN 10 / x: the 10 is delivered, then the
    // failure (Neo4j streams per row; testkit checks it).
    let txn = new_txn();
    let list = lit(Value::List(
        vec![Value::Int(1), Value::Int(0), Value::Int(2)].into(),
    ));
    let root = Op::Project {
        input: unwind(arg(), list.clone(), 0),
        items: vec![(1, bin(BinaryOp::Divide, lit(10), slot(0)))],
    };
    let mut cursor = Cursor::new(plan(root, 2, &[("y", 1)]), Arc::clone(&txn), Params::new());
    assert_eq!(cursor.next_row(), Ok(Some(vec![Value::Int(10)])));
    assert_eq!(
        cursor.next_row(),
        Err(ExecError::Arithmetic("/ by zero".into()))
    );
    assert_eq!(cursor.next_row(), Ok(None));

    // A filter keeps the passing rows before the failing one.
    let list = lit(Value::List(
        [3, 1, 2, 0, 3].into_iter().map(Value::Int).collect(),
    ));
    let root = Op::Filter {
        input: unwind(arg(), list, 0),
        predicate: bin(
            BinaryOp::Greater,
            bin(BinaryOp::Divide, lit(6), slot(0)),
            lit(2),
        ),
    };
    let mut cursor = Cursor::new(plan(root, 1, &[("x", 0)]), txn, Params::new());
    assert_eq!(cursor.next_row(), Ok(Some(vec![Value::Int(1)])));
    assert_eq!(cursor.next_row(), Ok(Some(vec![Value::Int(2)])));
    assert!(matches!(cursor.next_row(), Err(ExecError::Arithmetic(_))));
    assert_eq!(cursor.next_row(), Ok(None));
}
