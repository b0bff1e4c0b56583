//! Scalar functions ([`ScalarFunction`]) over already evaluated arguments.
//!
//! `coalesce` is also evaluated lazily by the evaluator (later arguments are
//! only computed for rows still null); the eager version here is equivalent.

use super::conversions::{map_string, to_boolean, to_float, to_integer, to_string};
use super::range::IntRange;
use super::{apoc, math, spatial, temporal, text, vector};
use crate::error::{deleted_entity, invalid_argument_value, overflow, ExecError, ExecResult};
use crate::graph::GraphRead;
use nereid_planner::ScalarFunction;
use nereid_values::Value;
use std::collections::BTreeMap;

/// Fails unless `func` takes `count` arguments (the planner checks calls it
/// lowers; a plan built otherwise is checked here, once per batch: the
/// arity is looked up in the function catalogue).
pub fn check_arity(func: ScalarFunction, count: usize) -> ExecResult<()> {
    let (min, max) = func.arity();
    if count < min || count > max {
        return Err(ExecError::Argument(format!(
            "Function {func:?} called with {count} argument(s)"
        )));
    }
    Ok(())
}

/// Calls `func` on one row's arguments (as many as [`check_arity`] accepts).
pub fn call(func: ScalarFunction, args: Vec<Value>, graph: &dyn GraphRead) -> ExecResult<Value> {
    use ScalarFunction as F;
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
        F::Vector(v) => return vector::call(v, &args),
        F::Apoc(a) => return apoc::call(a, &args, graph),
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
        F::Head => list_part(arg, |items| items.first().cloned()),
        F::Last => list_part(arg, |items| items.last().cloned()),
        F::Tail => list_part(arg, |items| {
            Some(Value::List(items.get(1..).unwrap_or_default().into()))
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
        | F::Spatial(_)
        | F::Vector(_)
        | F::Apoc(_) => Ok(Value::Null),
    }
}

/// `isEmpty(x)` on strings, lists and maps.
fn is_empty(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::String(s) => Ok(Value::Bool(s.is_empty())),
        Value::List(items) => Ok(Value::Bool(items.is_empty())),
        Value::Map(map) => Ok(Value::Bool(map.is_empty())),
        other => Err(invalid_argument_value("String, List or Map", other)),
    }
}

fn id(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Node(n) => Ok(Value::Int(n.external())),
        Value::Relationship(r) => Ok(Value::Int(r.external())),
        Value::VirtualNode(n) => Ok(Value::Int(n.id)),
        Value::VirtualRelationship(r) => Ok(Value::Int(r.id)),
        other => Err(invalid_argument_value("Node or Relationship", other)),
    }
}

fn element_id(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    let found = match arg {
        Value::Null => None,
        Value::Node(n) => graph.node_element_id(*n),
        Value::Relationship(r) => graph.rel_element_id(*r),
        Value::VirtualNode(n) => Some(n.element_id()),
        Value::VirtualRelationship(r) => Some(r.element_id()),
        other => return Err(invalid_argument_value("Node or Relationship", other)),
    };
    Ok(found.map(Value::String).unwrap_or_default())
}

fn labels(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Node(n) => {
            let labels = graph.node_labels(*n);
            if labels.is_empty() && graph.node_deleted(*n) {
                return Err(deleted_entity("labels", arg));
            }
            Ok(Value::List(labels.into_iter().map(Value::String).collect()))
        }
        Value::VirtualNode(n) => Ok(Value::List(
            n.labels.iter().cloned().map(Value::String).collect(),
        )),
        other => Err(invalid_argument_value("Node", other)),
    }
}

fn rel_type(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Relationship(r) => Ok(graph.rel_type(*r).map(Value::String).unwrap_or_default()),
        Value::VirtualRelationship(r) => Ok(Value::String(r.rel_type.clone())),
        other => Err(invalid_argument_value("Relationship", other)),
    }
}

/// The property map of an entity; `DeletedEntityAccess` when this
/// transaction deleted it.
fn entity_properties(arg: &Value, graph: &dyn GraphRead) -> ExecResult<BTreeMap<String, Value>> {
    let (map, deleted) = match arg {
        Value::Node(n) => (graph.node_properties(*n), graph.node_deleted(*n)),
        Value::Relationship(r) => (graph.rel_properties(*r), graph.rel_deleted(*r)),
        Value::VirtualNode(n) => (n.properties.clone(), false),
        Value::VirtualRelationship(r) => (r.properties.clone(), false),
        _ => (BTreeMap::new(), false),
    };
    if map.is_empty() && deleted {
        return Err(deleted_entity("properties", arg));
    }
    Ok(map)
}

pub(super) fn properties(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Node(_)
        | Value::Relationship(_)
        | Value::VirtualNode(_)
        | Value::VirtualRelationship(_) => Ok(Value::Map(entity_properties(arg, graph)?)),
        Value::Map(m) => Ok(Value::Map(m.clone())),
        other => Err(invalid_argument_value("Map, Node or Relationship", other)),
    }
}

fn keys(arg: &Value, graph: &dyn GraphRead) -> ExecResult<Value> {
    let names: Vec<String> = match arg {
        Value::Null => return Ok(Value::Null),
        Value::Node(_)
        | Value::Relationship(_)
        | Value::VirtualNode(_)
        | Value::VirtualRelationship(_) => entity_properties(arg, graph)?.into_keys().collect(),
        Value::Map(m) => m.keys().cloned().collect(),
        other => return Err(invalid_argument_value("Map, Node or Relationship", other)),
    };
    Ok(Value::List(names.into_iter().map(Value::String).collect()))
}

fn size(arg: &Value) -> ExecResult<Value> {
    let n = match arg {
        Value::Null => return Ok(Value::Null),
        Value::String(s) => s.chars().count(),
        Value::List(items) => items.len(),
        other => return Err(invalid_argument_value("String or List", other)),
    };
    Ok(Value::Int(i64::try_from(n).map_err(|_| overflow())?))
}

fn length(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Path(p) => Ok(Value::Int(
            i64::try_from(p.rels.len()).map_err(|_| overflow())?,
        )),
        other => Err(invalid_argument_value("Path", other)),
    }
}

/// `head`, `last`, `tail`: null for null, `pick` on lists (null if it finds nothing).
fn list_part(arg: Value, pick: fn(&[Value]) -> Option<Value>) -> ExecResult<Value> {
    match &arg {
        Value::Null => Ok(Value::Null),
        Value::List(items) => Ok(pick(items).unwrap_or_default()),
        other => Err(invalid_argument_value("List", other)),
    }
}

fn abs(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Int(i) => i.checked_abs().map(Value::Int).ok_or_else(overflow),
        Value::Float(f) => Ok(Value::Float(f.abs())),
        other => Err(invalid_argument_value("Number", other)),
    }
}

fn endpoint(arg: &Value, graph: &dyn GraphRead, start: bool) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Relationship(r) => Ok(graph
            .rel_endpoints(*r)
            .map(|(s, e, _)| Value::Node(if start { s } else { e }))
            .unwrap_or_default()),
        Value::VirtualRelationship(r) => Ok(Value::VirtualNode(if start {
            r.start.clone()
        } else {
            r.end.clone()
        })),
        other => Err(invalid_argument_value("Relationship", other)),
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
        other => Err(invalid_argument_value("Path", other)),
    }
}
