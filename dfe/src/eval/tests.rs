//! Table-driven tests of expression evaluation over an empty graph.

use super::*;
use crate::graph::GraphRead;
use nereid_values::{NodeId, RelId};

/// A graph with no entities: expression tests here need no store.
struct EmptyGraph;

impl GraphRead for EmptyGraph {
    fn degree(&self, _: NodeId, _: nereid_values::Direction, _: &[String]) -> u64 {
        0
    }
    fn node_labels(&self, _: NodeId) -> Vec<String> {
        Vec::new()
    }
    fn node_has_label(&self, _: NodeId, _: &str) -> bool {
        false
    }
    fn node_property(&self, _: NodeId, _: &str) -> Option<Value> {
        None
    }
    fn node_properties(&self, _: NodeId) -> BTreeMap<String, Value> {
        BTreeMap::new()
    }
    fn node_element_id(&self, _: NodeId) -> Option<String> {
        None
    }
    fn rel_endpoints(&self, _: RelId) -> Option<(NodeId, NodeId, String)> {
        None
    }
    fn rel_property(&self, _: RelId, _: &str) -> Option<Value> {
        None
    }
    fn rel_properties(&self, _: RelId) -> BTreeMap<String, Value> {
        BTreeMap::new()
    }
    fn rel_element_id(&self, _: RelId) -> Option<String> {
        None
    }
    fn node_deleted(&self, _: NodeId) -> bool {
        false
    }
    fn rel_deleted(&self, _: RelId) -> bool {
        false
    }
    fn rel_type(&self, _: RelId) -> Option<String> {
        None
    }
}

fn lit(v: impl Into<Value>) -> Expr {
    Expr::Literal(v.into())
}
fn null() -> Expr {
    Expr::Literal(Value::Null)
}
fn int(i: i64) -> Expr {
    lit(i)
}
fn bin(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    }
}
fn func(f: ScalarFunction, args: Vec<Expr>) -> Expr {
    Expr::Function { func: f, args }
}
fn list(items: Vec<Expr>) -> Expr {
    Expr::List(items)
}
fn ints(values: &[i64]) -> Value {
    Value::List(values.iter().map(|&i| Value::Int(i)).collect())
}
fn map(entries: &[(&str, Value)]) -> Value {
    Value::Map(
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

/// What an expression should produce.
enum Want {
    Is(Value),
    TypeError,
    ArgumentError,
    ArithmeticError(&'static str),
    MissingParam,
}

fn params() -> Params {
    let mut p = Params::new();
    p.insert("x".to_string(), Value::Int(5));
    p.insert("m".to_string(), map(&[("a", Value::Int(1))]));
    p
}

/// Evaluates against a one-row batch: slot 0 = 10, slot 1 = null, slot 2 = [1, 2, 3].
fn evaluate(expr: &Expr) -> ExecResult<Value> {
    let params = params();
    let mut regexes = RegexCache::default();
    let mut evaluator = Evaluator::new(&EmptyGraph, &params, &mut regexes);
    let batch = Batch::from_rows(3, [vec![Value::Int(10), Value::Null, ints(&[1, 2, 3])]]);
    evaluator.eval_row(expr, &batch, 0)
}

fn check(cases: Vec<(Expr, Want)>) {
    for (expr, want) in cases {
        let got = evaluate(&expr);
        match (&want, &got) {
            (Want::Is(v), Ok(g)) if v == g && v.type_name() == g.type_name() => {}
            (Want::TypeError, Err(ExecError::Type(_))) => {}
            (Want::ArgumentError, Err(ExecError::Argument(_))) => {}
            (Want::ArithmeticError(m), Err(ExecError::Arithmetic(g))) if m == g => {}
            (Want::MissingParam, Err(ExecError::ParameterMissing(_))) => {}
            _ => panic!("{expr:?}: got {got:?}"),
        }
    }
}

use BinaryOp as B;
use ScalarFunction as F;
use Want::*;

#[test]
fn three_valued_logic_and_comparisons() {
    check(vec![
        (bin(B::And, lit(false), null()), Is(Value::Bool(false))),
        (bin(B::And, lit(true), null()), Is(Value::Null)),
        (bin(B::Or, null(), lit(true)), Is(Value::Bool(true))),
        (bin(B::Xor, lit(true), lit(false)), Is(Value::Bool(true))),
        (Expr::Not(Box::new(null())), Is(Value::Null)),
        (bin(B::And, lit(1), lit(true)), TypeError),
        // The right side of a decided AND is not evaluated.
        (
            bin(B::And, lit(false), bin(B::Divide, int(1), int(0))),
            Is(Value::Bool(false)),
        ),
        (bin(B::Equal, int(1), lit(1.0)), Is(Value::Bool(true))),
        (bin(B::Equal, int(1), null()), Is(Value::Null)),
        (bin(B::NotEqual, int(1), lit("1")), Is(Value::Bool(true))),
        (bin(B::Less, int(1), lit("a")), Is(Value::Null)),
        (
            bin(B::GreaterEqual, lit(2.5), int(2)),
            Is(Value::Bool(true)),
        ),
        (bin(B::Less, lit("a"), lit("b")), Is(Value::Bool(true))),
        (
            bin(
                B::Equal,
                list(vec![int(1), null()]),
                list(vec![int(1), null()]),
            ),
            Is(Value::Null),
        ),
        (bin(B::In, int(2), Expr::Slot(2)), Is(Value::Bool(true))),
        (
            bin(B::In, int(4), list(vec![int(1), null()])),
            Is(Value::Null),
        ),
        (bin(B::In, int(4), int(4)), TypeError),
        (
            Expr::IsNull {
                expr: Box::new(Expr::Slot(1)),
                negated: false,
            },
            Is(Value::Bool(true)),
        ),
        (
            Expr::IsNull {
                expr: Box::new(Expr::Slot(0)),
                negated: true,
            },
            Is(Value::Bool(true)),
        ),
    ]);
}

#[test]
fn arithmetic_and_concatenation() {
    check(vec![
        (bin(B::Add, Expr::Slot(0), int(1)), Is(Value::Int(11))),
        (bin(B::Add, int(1), lit(0.5)), Is(Value::Float(1.5))),
        (
            bin(B::Add, int(i64::MAX), int(1)),
            ArithmeticError("integer overflow"),
        ),
        (bin(B::Divide, int(7), int(2)), Is(Value::Int(3))),
        (bin(B::Divide, int(7), int(0)), ArithmeticError("/ by zero")),
        (
            bin(B::Divide, lit(1.0), int(0)),
            Is(Value::Float(f64::INFINITY)),
        ),
        (bin(B::Modulo, int(-7), int(3)), Is(Value::Int(-1))),
        (bin(B::Power, int(2), int(3)), Is(Value::Float(8.0))),
        (bin(B::Subtract, int(1), Expr::Slot(1)), Is(Value::Null)),
        (bin(B::Multiply, lit("a"), int(2)), TypeError),
        (Expr::Negate(Box::new(lit("a"))), TypeError),
        (bin(B::Add, lit("a"), lit("b")), Is(Value::from("ab"))),
        (bin(B::Add, Expr::Slot(2), int(4)), Is(ints(&[1, 2, 3, 4]))),
        (
            bin(B::Add, Expr::Slot(2), list(vec![int(4), int(5)])),
            Is(ints(&[1, 2, 3, 4, 5])),
        ),
    ]);
}

#[test]
fn string_predicates_and_regex() {
    check(vec![
        (
            bin(B::StartsWith, lit("abc"), lit("ab")),
            Is(Value::Bool(true)),
        ),
        (
            bin(B::EndsWith, lit("abc"), lit("bc")),
            Is(Value::Bool(true)),
        ),
        (
            bin(B::Contains, lit("abc"), lit("x")),
            Is(Value::Bool(false)),
        ),
        (bin(B::Contains, lit("abc"), int(1)), Is(Value::Null)),
        (bin(B::StartsWith, null(), lit("a")), Is(Value::Null)),
        (
            bin(B::RegexMatch, lit("abc"), lit("a.*")),
            Is(Value::Bool(true)),
        ),
        (
            bin(B::RegexMatch, lit("abc"), lit("b")),
            Is(Value::Bool(false)),
        ),
        (bin(B::RegexMatch, lit("abc"), lit("[")), ArgumentError),
    ]);
}

#[test]
fn access_parameters_and_case() {
    let prop = |base: Expr, key: &str| Expr::Property {
        expr: Box::new(base),
        key: key.to_string(),
    };
    let index = |base: Expr, i: Expr| Expr::Index {
        expr: Box::new(base),
        index: Box::new(i),
    };
    check(vec![
        (prop(Expr::Param("m".into()), "a"), Is(Value::Int(1))),
        (prop(Expr::Param("m".into()), "b"), Is(Value::Null)),
        (prop(Expr::Slot(1), "a"), Is(Value::Null)),
        (prop(Expr::Slot(0), "a"), TypeError),
        (
            prop(Expr::Literal(Value::Node(NodeId(1))), "a"),
            Is(Value::Null),
        ),
        (Expr::Param("x".into()), Is(Value::Int(5))),
        (Expr::Param("nope".into()), MissingParam),
        (index(Expr::Slot(2), int(-1)), Is(Value::Int(3))),
        (index(Expr::Slot(2), int(3)), Is(Value::Null)),
        (index(Expr::Slot(2), lit("a")), TypeError),
        (index(Expr::Param("m".into()), lit("a")), Is(Value::Int(1))),
        (index(Expr::Slot(0), int(0)), TypeError),
        (
            Expr::Slice {
                expr: Box::new(Expr::Slot(2)),
                from: Some(Box::new(int(1))),
                to: None,
            },
            Is(ints(&[2, 3])),
        ),
        (
            Expr::Map(vec![("k".into(), Expr::Slot(0)), ("n".into(), null())]),
            Is(map(&[("k", Value::Int(10)), ("n", Value::Null)])),
        ),
        // Generic CASE: later branches are not evaluated once one matched.
        (
            Expr::Case {
                operand: None,
                whens: vec![
                    (bin(B::Equal, Expr::Slot(0), int(10)), lit("ten")),
                    (lit(true), bin(B::Divide, int(1), int(0))),
                ],
                otherwise: None,
            },
            Is(Value::from("ten")),
        ),
        (
            Expr::Case {
                operand: Some(Box::new(Expr::Slot(0))),
                whens: vec![(int(1), lit("one")), (lit(10.0), lit("ten"))],
                otherwise: Some(Box::new(lit("other"))),
            },
            Is(Value::from("ten")),
        ),
        (
            Expr::Case {
                operand: Some(Box::new(Expr::Slot(1))),
                whens: vec![(null(), lit("null"))],
                otherwise: Some(Box::new(lit("other"))),
            },
            Is(Value::from("other")),
        ),
        (
            Expr::HasLabels {
                expr: Box::new(Expr::Slot(1)),
                labels: vec!["A".into()],
            },
            Is(Value::Null),
        ),
        (
            Expr::HasLabels {
                expr: Box::new(Expr::Slot(0)),
                labels: vec!["A".into()],
            },
            TypeError,
        ),
        (
            Expr::Path(vec![
                lit(Value::Node(NodeId(1))),
                lit(Value::Relationship(RelId(2))),
                lit(Value::Node(NodeId(3))),
            ]),
            Is(Value::Path(Box::new(nereid_values::PathValue {
                nodes: vec![NodeId(1), NodeId(3)],
                rels: vec![RelId(2)],
            }))),
        ),
        (
            Expr::Path(vec![lit(Value::Node(NodeId(1))), lit(1)]),
            TypeError,
        ),
    ]);
}

#[test]
fn scalar_functions() {
    let path = Expr::Path(vec![
        lit(Value::Node(NodeId(1))),
        lit(Value::Relationship(RelId(2))),
        lit(Value::Node(NodeId(3))),
    ]);
    check(vec![
        (
            func(F::Id, vec![lit(Value::Node(NodeId((3 << 60) | 7)))]),
            Is(Value::Int(7)),
        ),
        (func(F::Id, vec![null()]), Is(Value::Null)),
        (func(F::Id, vec![int(1)]), TypeError),
        (func(F::Size, vec![lit("héllo")]), Is(Value::Int(5))),
        (func(F::Size, vec![Expr::Slot(2)]), Is(Value::Int(3))),
        (func(F::Size, vec![int(1)]), TypeError),
        (func(F::Length, vec![path.clone()]), Is(Value::Int(1))),
        (
            func(F::Nodes, vec![path.clone()]),
            Is(Value::List(
                vec![Value::Node(NodeId(1)), Value::Node(NodeId(3))].into(),
            )),
        ),
        (
            func(F::Relationships, vec![path]),
            Is(Value::List(vec![Value::Relationship(RelId(2))].into())),
        ),
        (
            func(
                F::Coalesce,
                vec![
                    null(),
                    Expr::Slot(1),
                    int(3),
                    bin(B::Divide, int(1), int(0)),
                ],
            ),
            Is(Value::Int(3)),
        ),
        (func(F::Coalesce, vec![null()]), Is(Value::Null)),
        (func(F::ToString, vec![lit(2.0)]), Is(Value::from("2.0"))),
        (func(F::ToInteger, vec![lit("12")]), Is(Value::Int(12))),
        (func(F::ToInteger, vec![lit("twelve")]), Is(Value::Null)),
        (func(F::ToInteger, vec![Expr::Slot(2)]), TypeError),
        (func(F::ToFloat, vec![int(2)]), Is(Value::Float(2.0))),
        (
            func(F::ToBoolean, vec![lit("false")]),
            Is(Value::Bool(false)),
        ),
        (func(F::Head, vec![Expr::Slot(2)]), Is(Value::Int(1))),
        (func(F::Last, vec![Expr::Slot(2)]), Is(Value::Int(3))),
        (func(F::Head, vec![list(vec![])]), Is(Value::Null)),
        (func(F::Tail, vec![Expr::Slot(2)]), Is(ints(&[2, 3]))),
        (func(F::Tail, vec![list(vec![])]), Is(ints(&[]))),
        (
            func(F::Range, vec![int(1), int(5), int(2)]),
            Is(ints(&[1, 3, 5])),
        ),
        (func(F::Range, vec![int(1), int(5), int(0)]), ArgumentError),
        (func(F::Range, vec![int(1), lit(5.0)]), TypeError),
        (func(F::Abs, vec![int(-3)]), Is(Value::Int(3))),
        (
            func(F::Abs, vec![int(i64::MIN)]),
            ArithmeticError("integer overflow"),
        ),
        (func(F::ToUpper, vec![lit("aB")]), Is(Value::from("AB"))),
        (func(F::ToLower, vec![lit("aB")]), Is(Value::from("ab"))),
        (func(F::Trim, vec![lit("  x ")]), Is(Value::from("x"))),
        (func(F::Trim, vec![int(1)]), TypeError),
        (
            func(F::Keys, vec![Expr::Param("m".into())]),
            Is(Value::List(vec![Value::from("a")].into())),
        ),
        (
            func(F::Properties, vec![Expr::Param("m".into())]),
            Is(map(&[("a", Value::Int(1))])),
        ),
        (func(F::Properties, vec![int(1)]), TypeError),
        (func(F::Exists, vec![Expr::Slot(1)]), Is(Value::Bool(false))),
        (func(F::Exists, vec![Expr::Slot(0)]), Is(Value::Bool(true))),
        (func(F::Labels, vec![int(1)]), TypeError),
        (func(F::Type, vec![lit(Value::Node(NodeId(1)))]), TypeError),
        (func(F::StartNode, vec![null()]), Is(Value::Null)),
        (func(F::Size, vec![]), ArgumentError),
    ]);
}

#[test]
fn evaluation_is_per_row_over_a_selection() {
    let params = Params::new();
    let mut regexes = RegexCache::default();
    let mut evaluator = Evaluator::new(&EmptyGraph, &params, &mut regexes);
    let batch = Batch::from_rows(1, (0..6).map(|i| vec![Value::Int(i)]));
    // CASE WHEN x = 0 THEN 0 ELSE 12 / x END over rows 0, 2, 3
    let expr = Expr::Case {
        operand: None,
        whens: vec![(bin(B::Equal, Expr::Slot(0), int(0)), int(0))],
        otherwise: Some(Box::new(bin(B::Divide, int(12), Expr::Slot(0)))),
    };
    assert_eq!(
        evaluator.eval(&expr, &batch, &[0, 2, 3]).unwrap(),
        vec![Value::Int(0), Value::Int(6), Value::Int(4)]
    );
}
