//! `Expand` over a batch of many rows reads the start nodes set-at-a-time
//! (`Txn::expand_column`); its rows must be exactly those of the row-by-row
//! read, in the same order: each row's relationships as `Txn::expand`
//! lists them, rows in input order.

use super::*;
use nereid_planner::ExpandSpec;
use nereid_values::RelId;

/// A small multigraph with committed and uncommitted parts: parallel
/// edges, self-loops, two types, a deleted relationship, and start rows
/// with repeated nodes and nulls.
pub(super) fn graph() -> (Arc<Txn>, Vec<NodeId>) {
    graph_with_strides(&[1, 7])
}

/// The same multigraph with one relationship per node and stride in
/// `strides` (`graph` has two: a few relationships per node).
fn graph_with_strides(strides: &[usize]) -> (Arc<Txn>, Vec<NodeId>) {
    let store = Store::new(StoreConfig::default());
    let setup = store.begin();
    let nodes: Vec<NodeId> = (0..40)
        .map(|_| {
            setup
                .create_node(&labels(&["N"]), &BTreeMap::new())
                .unwrap()
        })
        .collect();
    let mut deleted: Option<RelId> = None;
    for i in 0..nodes.len() {
        for &k in strides {
            let (a, b) = (nodes[i], nodes[(i * k + 3) % nodes.len()]);
            let t = if (i + k) % 3 == 0 { "A" } else { "B" };
            let r = setup.create_rel(a, b, t, &BTreeMap::new()).unwrap();
            deleted.get_or_insert(r);
        }
        if i % 5 == 0 {
            setup
                .create_rel(nodes[i], nodes[i], "A", &BTreeMap::new())
                .unwrap();
        }
    }
    publish(&setup);
    let txn = Arc::new(store.begin());
    txn.delete_rel(deleted.unwrap()).unwrap();
    txn.create_rel(nodes[2], nodes[5], "A", &BTreeMap::new())
        .unwrap();
    txn.create_rel(nodes[5], nodes[5], "B", &BTreeMap::new())
        .unwrap();
    (txn, nodes)
}

#[test]
fn set_at_a_time_expand_equals_row_by_row() {
    // 57 rows of at most a few relationships each: after the first rows,
    // the batch is read set-at-a-time.
    let (txn, nodes) = graph();
    assert_expand_equals_row_by_row(&txn, &nodes);
}

#[test]
fn set_at_a_time_expand_of_denser_rows_equals_row_by_row() {
    // ~10-25 relationships per row (12 out and 12 in per node, fewer or
    // more by type and direction): the fan-outs (SNB IC5's forums, ~10
    // posts each) that were read row by row before the limit went from 8
    // to 32 per probed row and are now read set-at-a-time.
    let strides: Vec<usize> = (1..=12).map(|k| 2 * k + 1).collect();
    let (txn, nodes) = graph_with_strides(&strides);
    assert_expand_equals_row_by_row(&txn, &nodes);
}

/// `Expand` over every node, some again and a null, in each direction and
/// for several type lists, gives each row's relationships as `Txn::expand`
/// lists them, rows in input order.
fn assert_expand_equals_row_by_row(txn: &Arc<Txn>, nodes: &[NodeId]) {
    // Rows: every node, then some again, and nulls among them.
    let mut starts: Vec<Value> = nodes.iter().map(|&n| Value::Node(n)).collect();
    starts.extend([Value::Null, Value::Node(nodes[5]), Value::Node(nodes[0])]);
    starts.extend(nodes.iter().rev().step_by(3).map(|&n| Value::Node(n)));
    let types: [&[&str]; 4] = [&[], &["A"], &["A", "B"], &["MISSING"]];
    for dir in [Direction::Outgoing, Direction::Incoming, Direction::Both] {
        for t in types {
            let root = Op::Expand {
                input: unwind(arg(), Expr::Literal(Value::List(starts.clone().into())), 0),
                spec: ExpandSpec {
                    from: 0,
                    rel: 1,
                    to: 2,
                    dir,
                    types: labels(t),
                    into: false,
                    dead: Vec::new(),
                    far_end_in: None,
                    far_end_adjacent: None,
                    far_end_where: None,
                },
            };
            let rows = run(plan(root, 3, &[("a", 0), ("r", 1), ("b", 2)]), txn).unwrap();
            let expected: Vec<Vec<Value>> = starts
                .iter()
                .filter_map(|v| match v {
                    Value::Node(n) => Some(*n),
                    _ => None,
                })
                .flat_map(|n| {
                    txn.expand(n, dir, &labels(t))
                        .into_iter()
                        .map(move |(r, o)| {
                            vec![Value::Node(n), Value::Relationship(r), Value::Node(o)]
                        })
                })
                .collect();
            assert_eq!(rows, expected, "{dir:?} {t:?}");
        }
    }
}
