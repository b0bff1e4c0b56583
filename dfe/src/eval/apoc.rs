//! The APOC core functions ([`ApocFunction`]) with APOC's semantics: a
//! null list is an empty one (`apoc.coll.*`), a null map an empty one
//! (`apoc.map.merge`), values are told apart as APOC's Java objects are
//! (`1` and `1.0` are two set members), and an argument of the wrong kind
//! is APOC's `Failed to invoke function` (`ProcedureCallFailed`).

use crate::error::{ExecError, ExecResult};
use crate::graph::GraphRead;
use nereid_functions::ApocFunction;
use nereid_values::{compare_for_order, Value, NULL};
use std::collections::BTreeMap;

/// Calls `func` on one row's (already arity-checked) arguments.
pub fn call(func: ApocFunction, args: &[Value], graph: &dyn GraphRead) -> ExecResult<Value> {
    let arg = |i: usize| args.get(i).unwrap_or(&NULL);
    let failed = |reason: String| {
        ExecError::ProcedureCallFailed(format!(
            "Failed to invoke function `{}`: Caused by: {reason}",
            func.name()
        ))
    };
    let list = |value: &Value| -> ExecResult<Vec<Value>> {
        match value {
            Value::Null => Ok(Vec::new()),
            Value::List(items) => Ok(items.to_vec()),
            other => Err(failed(format!(
                "expected a list but was {}",
                other.type_name()
            ))),
        }
    };
    let map = |value: &Value| -> ExecResult<BTreeMap<String, Value>> {
        match value {
            Value::Null => Ok(BTreeMap::new()),
            Value::Map(map) => Ok(map.clone()),
            other => Err(failed(format!(
                "expected a map but was {}",
                other.type_name()
            ))),
        }
    };
    let entity_or_map = |value: &Value| {
        matches!(
            value,
            Value::Map(_)
                | Value::Node(_)
                | Value::Relationship(_)
                | Value::VirtualNode(_)
                | Value::VirtualRelationship(_)
        )
    };
    match func {
        ApocFunction::AnyProperty => match (arg(0), arg(1)) {
            (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
            (base, Value::String(key)) if entity_or_map(base) => {
                super::access::property(graph, base, key)
            }
            (base, Value::String(_)) => Err(failed(format!(
                "expected a node, relationship or map but was {}",
                base.type_name()
            ))),
            (_, key) => Err(failed(format!(
                "a key must be a string but was {}",
                key.type_name()
            ))),
        },
        ApocFunction::AnyProperties => {
            let base = arg(0);
            if base.is_null() {
                return Ok(Value::Null);
            }
            if !entity_or_map(base) {
                return Err(failed(format!(
                    "expected a node, relationship or map but was {}",
                    base.type_name()
                )));
            }
            let all = super::functions::properties(base, graph)?
                .into_map()
                .unwrap_or_default();
            if arg(1).is_null() {
                return Ok(Value::Map(all));
            }
            let wanted = list(arg(1))?;
            Ok(Value::Map(
                all.into_iter()
                    .filter(|(key, _)| {
                        wanted
                            .iter()
                            .any(|w| matches!(w, Value::String(s) if s == key))
                    })
                    .collect(),
            ))
        }
        ApocFunction::MapClean => {
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let keys = list(arg(1))?;
            let values = list(arg(2))?;
            Ok(clean(Value::Map(map(arg(0))?), &keys, &values))
        }
        ApocFunction::MapMerge => {
            let mut merged = map(arg(0))?;
            merged.extend(map(arg(1))?);
            Ok(Value::Map(merged))
        }
        ApocFunction::MapFromPairs => {
            let mut out = BTreeMap::new();
            for pair in list(arg(0))? {
                let pair = list(&pair)?;
                match pair.first() {
                    None | Some(Value::Null) => continue,
                    Some(Value::String(key)) => {
                        out.insert(key.clone(), pair.get(1).cloned().unwrap_or_default());
                    }
                    Some(other) => {
                        return Err(failed(format!(
                            "a key must be a string but was {}",
                            other.type_name()
                        )))
                    }
                }
            }
            Ok(Value::Map(out))
        }
        ApocFunction::CollFlatten => {
            let recursive = matches!(arg(1), Value::Bool(true));
            let mut out = Vec::new();
            flatten(list(arg(0))?, recursive, &mut out);
            Ok(Value::List(out.into()))
        }
        ApocFunction::CollToSet => {
            let mut out: Vec<Value> = Vec::new();
            for item in list(arg(0))? {
                if !out.iter().any(|seen| same(seen, &item)) {
                    out.push(item);
                }
            }
            Ok(Value::List(out.into()))
        }
        ApocFunction::CollSum => {
            if arg(0).is_null() {
                return Ok(Value::Null);
            }
            let mut sum = 0.0;
            for item in list(arg(0))? {
                sum += match item {
                    Value::Int(i) => i as f64,
                    Value::Float(f) => f,
                    other => {
                        return Err(failed(format!(
                            "expected a number but was {}",
                            other.type_name()
                        )))
                    }
                };
            }
            Ok(Value::Float(sum))
        }
        ApocFunction::CollSort => {
            let mut items = list(arg(0))?;
            items.sort_by(compare_for_order);
            Ok(Value::List(items.into()))
        }
        ApocFunction::TextJoin => {
            let (Value::List(items), Value::String(delimiter)) = (arg(0), arg(1)) else {
                return Ok(Value::Null);
            };
            let words = items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(s.clone()),
                    Value::Null => Ok("null".to_string()),
                    other => Err(failed(format!(
                        "expected a string but was {}",
                        other.type_name()
                    ))),
                })
                .collect::<ExecResult<Vec<_>>>()?;
            Ok(Value::from(words.join(delimiter)))
        }
    }
}

/// Identity as APOC's Java collections see it: structural, with an
/// INTEGER never equal to a FLOAT.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Int(_), Value::Float(_)) | (Value::Float(_), Value::Int(_)) => false,
        _ => a == b,
    }
}

/// `apoc.map.clean`: drops the entries whose key is in `keys` or whose
/// value is in `values`, in nested maps and in maps inside lists too.
fn clean(value: Value, keys: &[Value], values: &[Value]) -> Value {
    let clean_one = |v: Value| nereid_stack::deeper(|| clean(v, keys, values));
    match value.into_map() {
        Ok(map) => Value::Map(
            map.into_iter()
                .filter(|(key, v)| {
                    !keys
                        .iter()
                        .any(|k| matches!(k, Value::String(s) if s == key))
                        && !values.iter().any(|x| same(x, v))
                })
                .map(|(key, v)| (key, clean_one(v)))
                .collect(),
        ),
        Err(Value::List(ref items)) => {
            Value::List(items.iter().map(|item| clean_one(item.clone())).collect())
        }
        Err(other) => other,
    }
}

/// Splices the lists among `items` into `out`: one level, or every level
/// when `recursive`.
fn flatten(items: Vec<Value>, recursive: bool, out: &mut Vec<Value>) {
    for item in items {
        match item.into_list() {
            Ok(inner) if recursive => nereid_stack::deeper(|| flatten(inner.into_vec(), true, out)),
            Ok(inner) => out.extend(inner.into_vec()),
            Err(other) => out.push(other),
        }
    }
}
