//! Scalar functions ([`ScalarFunction`]) over already evaluated arguments.
//!
//! `coalesce` is also evaluated lazily by the evaluator (later arguments are
//! only computed for rows still null); the eager version here is equivalent.

use super::conversions::{map_string, to_boolean, to_float, to_integer, to_string};
use super::range::IntRange;
use super::{math, spatial, temporal, text};
use crate::error::{overflow, type_mismatch, ExecError, ExecResult};
use crate::graph::GraphRead;
use nereid_planner::ScalarFunction;
use nereid_values::Value;

/// Calls `func` on one row's arguments.
pub fn call(func: ScalarFunction, args: Vec<Value>, graph: &dyn GraphRead) -> ExecResult<Value> {
    use ScalarFunction as F;
    let (min, max) = func.arity();
    if args.len() < min || args.len() > max {
        return Err(ExecError::Argument(format!(
            "Function {func:?} called with {} argument(s)",
            args.len()
        )));
    }
    if func == F::Coalesce {
        return Ok(args.into_iter().find(|v| !v.is_null()).unwrap_or_default());
    }
    if func == F::Range {
        return IntRange::from_args(&args)?.into_list();
    }
    match func {
        // The evaluator routes temporal calls with its statement time; a
        // direct call reads the clock.
        F::Temporal(t) => return temporal::call(t, &args, temporal::StatementTime::now()),
        F::Spatial(s) => return spatial::call(s, &args),
        F::Substring => return text::substring(&args),
        F::Replace => return text::replace(&args),
        F::Split => return text::split(&args),
        F::Left => return text::side(&args, true),
        F::Right => return text::side(&args, false),
        F::Round => return math::round(&args),
        F::Atan2 => return math::atan2(&args),
        F::E => return Ok(Value::Float(std::f64::consts::E)),
        F::Pi => return Ok(Value::Float(std::f64::consts::PI)),
        F::Rand => return Ok(math::rand()),
        _ => {}
    }
    // Every other function takes exactly one argument.
    let arg = args.into_iter().next().unwrap_or_default();
    match func {
        F::Id => id(&arg),
        F::ElementId => element_id(&arg, graph),
        F::Labels => labels(&arg, graph),
        F::Type => rel_type(&arg, graph),
        F::Properties => properties(&arg, graph),
        F::Keys => keys(&arg, graph),
        F::Size => size(&arg),
        F::Length => length(&arg),
        F::ToString => to_string(&arg),
        F::ToInteger => to_integer(&arg),
        F::ToFloat => to_float(&arg),
        F::ToBoolean => to_boolean(&arg),
        F::Head => list_part(arg, |items| items.into_iter().next()),
        F::Last => list_part(arg, |items| items.into_iter().last()),
        F::Tail => list_part(arg, |items| {
            Some(Value::List(items.into_iter().skip(1).collect()))
        }),
        F::Abs => abs(&arg),
        F::StartNode => endpoint(&arg, graph, true),
        F::EndNode => endpoint(&arg, graph, false),
        F::Nodes => path_part(&arg, true),
        F::Relationships => path_part(&arg, false),
        F::ToUpper => map_string(&arg, str::to_uppercase),
        F::ToLower => map_string(&arg, str::to_lowercase),
        F::Trim => map_string(&arg, |s| s.trim().to_string()),
        F::Exists => Ok(Value::Bool(!arg.is_null())),
        F::LTrim => map_string(&arg, |s| s.trim_start().to_string()),
        F::RTrim => map_string(&arg, |s| s.trim_end().to_string()),
        F::Reverse => text::reverse(&arg),
        F::Sign => math::sign(&arg),
        F::IsEmpty => is_empty(&arg),
        F::Ceil
        | F::Floor
        | F::Sqrt
        | F::Exp
        | F::Log
        | F::Log10
        | F::Sin
        | F::Cos
        | F::Tan
        | F::Cot
        | F::Asin
        | F::Acos
        | F::Atan
        | F::Haversin
        | F::Degrees
        | F::Radians => math::unary(func, &arg),
        F::Coalesce
        | F::Range
        | F::Substring
        | F::Replace
        | F::Split
        | F::Left
        | F::Right
        | F::Round
        | F::Atan2
        | F::E
        | F::Pi
        | F::Rand
        | F::Temporal(_)
        | F::Spatial(_) => Ok(Value::Null),
    }
}

/// `isEmpty(x)` on strings, lists and maps.
fn is_empty(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::String(s) => Ok(Value::Bool(s.is_empty())),
        Value::List(items) => Ok(Value::Bool(items.is_empty())),
        Value::Map(map) => Ok(Value::Bool(map.is_empty())),
        other => Err(type_mismatch("String, List or Map", other)),
    }
}

fn id(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Node(n) => Ok(Value::Int(n.external())),
        Value::Relationship(r) => Ok(Value::Int(r.external())),
        other => Err(type_mismatch("Node or Relationship", other)),
    }
}

fn element_id(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    let found = match arg {
        Value::Null => None,
        Value::Node(n) => graph.node_element_id(*n),
        Value::Relationship(r) => graph.rel_element_id(*r),
        other => return Err(type_mismatch("Node or Relationship", other)),
    };
    Ok(found.map(Value::String).unwrap_or_default())
}

fn labels(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Node(n) => Ok(Value::List(
            graph
                .node_labels(*n)
                .into_iter()
                .map(Value::String)
                .collect(),
        )),
        other => Err(type_mismatch("Node", other)),
    }
}

fn rel_type(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Relationship(r) => Ok(graph
            .rel_endpoints(*r)
            .map(|(_, _, t)| Value::String(t))
            .unwrap_or_default()),
        other => Err(type_mismatch("Relationship", other)),
    }
}

fn properties(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Node(n) => Ok(Value::Map(graph.node_properties(*n))),
        Value::Relationship(r) => Ok(Value::Map(graph.rel_properties(*r))),
        Value::Map(m) => Ok(Value::Map(m.clone())),
        other => Err(type_mismatch("Map, Node or Relationship", other)),
    }
}

fn keys(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    let names: Vec<String> = match arg {
        Value::Null => return Ok(Value::Null),
        Value::Node(n) => graph.node_properties(*n).into_keys().collect(),
        Value::Relationship(r) => graph.rel_properties(*r).into_keys().collect(),
        Value::Map(m) => m.keys().cloned().collect(),
        other => return Err(type_mismatch("Map, Node or Relationship", other)),
    };
    Ok(Value::List(names.into_iter().map(Value::String).collect()))
}

fn size(arg: &Value) -> ExecResult<Value> {
    let n = match arg {
        Value::Null => return Ok(Value::Null),
        Value::String(s) => s.chars().count(),
        Value::List(items) => items.len(),
        other => return Err(type_mismatch("String or List", other)),
    };
    Ok(Value::Int(i64::try_from(n).map_err(|_| overflow())?))
}

fn length(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Path(p) => Ok(Value::Int(
            i64::try_from(p.rels.len()).map_err(|_| overflow())?,
        )),
        other => Err(type_mismatch("Path", other)),
    }
}

/// `head`, `last`, `tail`: null for null, `pick` on lists (null if it finds nothing).
fn list_part(arg: Value, pick: fn(Vec<Value>) -> Option<Value>) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::List(items) => Ok(pick(items).unwrap_or_default()),
        other => Err(type_mismatch("List", &other)),
    }
}

fn abs(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Int(i) => i.checked_abs().map(Value::Int).ok_or_else(overflow),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        other => Err(type_mismatch("Number", other)),
    }
}

fn endpoint(arg: &Value, graph: &dyn GraphRead, start: bool) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Relationship(r) => Ok(graph
            .rel_endpoints(*r)
            .map(|(s, e, _)| Value::Node(if start { s } else { e }))
            .unwrap_or_default()),
        other => Err(type_mismatch("Relationship", other)),
    }
}

fn path_part(arg: &Value, nodes: bool) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Path(p) if nodes => Ok(Value::List(
            p.nodes.iter().copied().map(Value::Node).collect(),
        )),
        Value::Path(p) => Ok(Value::List(
            p.rels.iter().copied().map(Value::Relationship).collect(),
        )),
        other => Err(type_mismatch("Path", other)),
    }
}
