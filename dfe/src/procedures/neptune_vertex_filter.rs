//! Neptune Analytics' `vertexFilter` option of `vectors.topK.byEmbedding`:
//! a JSON document (a string, or the same structure as a Cypher map) that
//! restricts which nodes may be returned, tested on each candidate during
//! the search (`Txn::vector_query`'s accept test), so the answer is the
//! `topK` nearest *matching* nodes rather than the matching part of the
//! `topK` nearest.
//!
//! Shape, as Neptune documents it: joiners `andAll` / `orAll` hold arrays
//! of filters; every other filter is one operation naming a `property`
//! and a `value`, e.g. `{"equals": {"property": "~label", "value":
//! "Chunk"}}`. `~label` (a label test) is allowed only with `equals` and
//! `notEquals`, as Neptune's documentation says. The operation names are
//! those of the AWS filter family Neptune's example belongs to: `equals`,
//! `notEquals`, `greaterThan`, `greaterThanOrEquals`, `lessThan`,
//! `lessThanOrEquals`, `in`, `notIn`, `startsWith`, `stringContains`,
//! `listContains`.
//!
//! Comparisons are Cypher's (`1 = 1.0`; `<` only within one family). A
//! node without the property fails every operation but `notEquals` and
//! `notIn`, which it passes (it holds no value equal to the one named).

use super::neptune_vectors::failed;
use super::vector_prefilter::Prefilter;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::{Comparison, NodeId, Value};
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// The pseudo-property naming a node's labels.
const LABEL: &str = "~label";

/// A parsed `vertexFilter`.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum VertexFilter {
    All(Vec<VertexFilter>),
    Any(Vec<VertexFilter>),
    Test {
        op: TestOp,
        property: String,
        value: Value,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TestOp {
    Equals,
    NotEquals,
    GreaterThan,
    GreaterThanOrEquals,
    LessThan,
    LessThanOrEquals,
    In,
    NotIn,
    StartsWith,
    StringContains,
    ListContains,
}

impl TestOp {
    fn from_name(name: &str) -> Option<TestOp> {
        Some(match name {
            "equals" => TestOp::Equals,
            "notEquals" => TestOp::NotEquals,
            "greaterThan" => TestOp::GreaterThan,
            "greaterThanOrEquals" => TestOp::GreaterThanOrEquals,
            "lessThan" => TestOp::LessThan,
            "lessThanOrEquals" => TestOp::LessThanOrEquals,
            "in" => TestOp::In,
            "notIn" => TestOp::NotIn,
            "startsWith" => TestOp::StartsWith,
            "stringContains" => TestOp::StringContains,
            "listContains" => TestOp::ListContains,
            _ => return None,
        })
    }
}

impl VertexFilter {
    /// Parses the option's value: a JSON string or a map of that shape.
    pub(super) fn parse(value: &Value) -> ExecResult<VertexFilter> {
        match value {
            Value::String(text) => {
                let json: serde_json::Value = serde_json::from_str(text)
                    .map_err(|e| refusal(&format!("it is not JSON ({e})")))?;
                VertexFilter::from_value(&from_json(&json)?)
            }
            Value::Map(_) => VertexFilter::from_value(value),
            other => Err(refusal(&format!("expected a JSON string, was {other}"))),
        }
    }

    fn from_value(value: &Value) -> ExecResult<VertexFilter> {
        let Value::Map(map) = value else {
            return Err(refusal(&format!("expected an object, was {value}")));
        };
        let mut entries = map.iter();
        let (Some((name, body)), None) = (entries.next(), entries.next()) else {
            return Err(refusal("each filter object holds exactly one operation"));
        };
        match name.as_str() {
            "andAll" | "orAll" => {
                let Value::List(items) = body else {
                    return Err(refusal(&format!("{name} takes an array of filters")));
                };
                // A filter map built in a query may nest deeply: grow the
                // stack as the recursion goes.
                let parts = items
                    .iter()
                    .map(|item| nereid_stack::deeper(|| VertexFilter::from_value(item)))
                    .collect::<ExecResult<Vec<_>>>()?;
                Ok(if name == "andAll" {
                    VertexFilter::All(parts)
                } else {
                    VertexFilter::Any(parts)
                })
            }
            _ => {
                let op = TestOp::from_name(name)
                    .ok_or_else(|| refusal(&format!("unknown operation '{name}'")))?;
                test(op, name, body)
            }
        }
    }

    /// What every passing node has, from the filter's top-level `equals`
    /// operations (alone or under `andAll`): for a pre-filtered search.
    pub(super) fn prefilter(&self) -> Prefilter {
        let mut prefilter = Prefilter::default();
        let tests = match self {
            VertexFilter::All(parts) => parts.iter().collect(),
            single => vec![single],
        };
        for test in tests {
            if let VertexFilter::Test {
                op: TestOp::Equals,
                property,
                value,
            } = test
            {
                match value {
                    Value::String(label) if property == LABEL => {
                        prefilter.labels.push(label.to_string())
                    }
                    _ if property == LABEL => {}
                    _ => prefilter.equalities.push((property.clone(), value.clone())),
                }
            }
        }
        prefilter
    }

    /// Whether `node`, in `txn`'s view, passes the filter.
    pub(super) fn accepts(&self, txn: &Txn, node: NodeId) -> bool {
        match self {
            VertexFilter::All(parts) => parts
                .iter()
                .all(|p| nereid_stack::deeper(|| p.accepts(txn, node))),
            VertexFilter::Any(parts) => parts
                .iter()
                .any(|p| nereid_stack::deeper(|| p.accepts(txn, node))),
            VertexFilter::Test {
                op,
                property,
                value,
            } if property == LABEL => {
                let Value::String(label) = value else {
                    return false;
                };
                txn.node_has_label(node, label) == (*op == TestOp::Equals)
            }
            VertexFilter::Test {
                op,
                property,
                value,
            } => match txn.node_property(node, property) {
                Some(held) => passes(*op, &held, value),
                None => matches!(op, TestOp::NotEquals | TestOp::NotIn),
            },
        }
    }
}

/// One operation's body: `{"property": ..., "value": ...}`.
fn test(op: TestOp, name: &str, body: &Value) -> ExecResult<VertexFilter> {
    let Value::Map(fields) = body else {
        return Err(refusal(&format!("{name} takes {{property, value}}")));
    };
    if let Some(key) = fields.keys().find(|k| *k != "property" && *k != "value") {
        return Err(refusal(&format!("unknown field '{key}' in {name}")));
    }
    let Some(Value::String(property)) = fields.get("property") else {
        return Err(refusal(&format!("{name} needs a string 'property'")));
    };
    let value = fields
        .get("value")
        .cloned()
        .ok_or_else(|| refusal(&format!("{name} needs a 'value'")))?;
    if property == LABEL {
        if !matches!(op, TestOp::Equals | TestOp::NotEquals) {
            return Err(refusal(&format!(
                "~label can be tested only with equals or notEquals, not {name}"
            )));
        }
        if !matches!(value, Value::String(_)) {
            return Err(refusal("a ~label value must be a string"));
        }
    }
    if matches!(op, TestOp::In | TestOp::NotIn) && !matches!(value, Value::List(_)) {
        return Err(refusal(&format!("{name} takes an array 'value'")));
    }
    Ok(VertexFilter::Test {
        op,
        property: property.clone(),
        value,
    })
}

/// Whether a held value passes `op` against the filter's `value`.
fn passes(op: TestOp, held: &Value, value: &Value) -> bool {
    let equal = |a: &Value, b: &Value| a.cypher_eq(b) == Some(true);
    let ordered = |wanted: &[Ordering]| match held.cypher_cmp(value) {
        Comparison::Ordered(o) => wanted.contains(&o),
        Comparison::Undefined => false,
    };
    let listed = || match value {
        Value::List(items) => items.iter().any(|item| equal(held, item)),
        _ => false,
    };
    match op {
        TestOp::Equals => equal(held, value),
        TestOp::NotEquals => !equal(held, value),
        TestOp::GreaterThan => ordered(&[Ordering::Greater]),
        TestOp::GreaterThanOrEquals => ordered(&[Ordering::Greater, Ordering::Equal]),
        TestOp::LessThan => ordered(&[Ordering::Less]),
        TestOp::LessThanOrEquals => ordered(&[Ordering::Less, Ordering::Equal]),
        TestOp::In => listed(),
        TestOp::NotIn => !listed(),
        TestOp::StartsWith => match (held, value) {
            (Value::String(h), Value::String(v)) => h.starts_with(v.as_str()),
            _ => false,
        },
        TestOp::StringContains => match (held, value) {
            (Value::String(h), Value::String(v)) => h.contains(v.as_str()),
            _ => false,
        },
        TestOp::ListContains => match held {
            Value::List(items) => items.iter().any(|item| equal(item, value)),
            _ => false,
        },
    }
}

/// A JSON document as a Cypher value (integral numbers as integers).
fn from_json(json: &serde_json::Value) -> ExecResult<Value> {
    Ok(match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Value::Int(i),
            (None, Some(f)) => Value::Float(f),
            (None, None) => return Err(refusal(&format!("number {n} is out of range"))),
        },
        serde_json::Value::String(s) => Value::String(s.as_str().into()),
        serde_json::Value::Array(items) => Value::List(
            items
                .iter()
                .map(from_json)
                .collect::<ExecResult<Vec<_>>>()?
                .into(),
        ),
        serde_json::Value::Object(fields) => Value::Map(
            fields
                .iter()
                .map(|(k, v)| Ok((k.clone(), from_json(v)?)))
                .collect::<ExecResult<BTreeMap<_, _>>>()?,
        ),
    })
}

fn refusal(reason: &str) -> crate::error::ExecError {
    failed(format!("Invalid vertexFilter: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> ExecResult<VertexFilter> {
        VertexFilter::parse(&Value::String(text.into()))
    }

    #[test]
    fn parses_joiners_and_operations() {
        let filter = parse(
            r#"{"andAll": [{"equals": {"property": "~label", "value": "Chunk"}},
                           {"orAll": [{"greaterThan": {"property": "year", "value": 2000}},
                                      {"in": {"property": "lang", "value": ["en", "fr"]}}]}]}"#,
        )
        .expect("parses");
        let VertexFilter::All(parts) = filter else {
            panic!("andAll")
        };
        assert_eq!(parts.len(), 2);
        assert!(matches!(&parts[1], VertexFilter::Any(p) if p.len() == 2));
    }

    #[test]
    fn refuses_bad_documents() {
        for bad in [
            "not json",
            "[]",
            r#"{"equals": {"property": "a", "value": 1}, "notEquals": {"property": "a", "value": 1}}"#,
            r#"{"like": {"property": "a", "value": 1}}"#,
            r#"{"equals": {"property": "a"}}"#,
            r#"{"equals": {"value": 1}}"#,
            r#"{"equals": {"property": "a", "value": 1, "key": 2}}"#,
            r#"{"greaterThan": {"property": "~label", "value": "A"}}"#,
            r#"{"in": {"property": "a", "value": 1}}"#,
            r#"{"andAll": {"equals": {"property": "a", "value": 1}}}"#,
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn operations_compare_as_cypher_does() {
        let int = Value::Int(3);
        assert!(passes(TestOp::Equals, &int, &Value::Float(3.0)));
        assert!(!passes(TestOp::Equals, &int, &Value::String("3".into())));
        assert!(passes(TestOp::NotEquals, &int, &Value::String("3".into())));
        assert!(passes(TestOp::GreaterThanOrEquals, &int, &Value::Int(3)));
        assert!(!passes(TestOp::GreaterThan, &int, &Value::Int(3)));
        assert!(!passes(TestOp::LessThan, &int, &Value::String("9".into())));
        let list = Value::List(vec![Value::Int(1), Value::Int(3)].into());
        assert!(passes(TestOp::In, &int, &list));
        assert!(!passes(TestOp::NotIn, &int, &list));
        assert!(passes(TestOp::ListContains, &list, &Value::Int(1)));
        let text = Value::String("vector search".into());
        assert!(passes(
            TestOp::StartsWith,
            &text,
            &Value::String("vec".into())
        ));
        assert!(passes(
            TestOp::StringContains,
            &text,
            &Value::String("or s".into())
        ));
        assert!(!passes(
            TestOp::StartsWith,
            &int,
            &Value::String("3".into())
        ));
    }
}
