//! Lowering of AST expressions to resolved plan expressions.

use super::label_test::label_test;
use super::scope::{Scope, VarKind};
use crate::error::PlanError;
use crate::expr::{BinaryOp, Expr, Quantifier, Slot};
use crate::plan::Aggregate;
use nereid_cypher::ast::{self, ExprKind, Literal, UnaryOp};
use nereid_functions::{AggregateFunction, LoadCsvFunction, ScalarFunction};
use nereid_values::Value;

/// Where aggregate calls found in an expression go. `None` means aggregates
/// are not allowed here.
pub(crate) type AggregateSink<'a> = Option<&'a mut dyn FnMut(Aggregate) -> Slot>;

pub(crate) fn lower_expr(
    e: &ast::Expr,
    scope: &Scope,
    aggs: &mut AggregateSink<'_>,
) -> Result<Expr, PlanError> {
    nereid_stack::deeper(|| lower_expr_level(e, scope, aggs))
}

/// One level of [`lower_expr`]: the recursion goes through it, which guards
/// the stack.
fn lower_expr_level(
    e: &ast::Expr,
    scope: &Scope,
    aggs: &mut AggregateSink<'_>,
) -> Result<Expr, PlanError> {
    let at = e.span.start;
    Ok(match &e.kind {
        ExprKind::Literal(l) => Expr::Literal(match l {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Integer(i) => Value::Int(*i),
            Literal::Float(f) => Value::Float(*f),
            Literal::String(s) => Value::String(s.clone()),
        }),
        ExprKind::Parameter(name) => Expr::Param(name.clone()),
        ExprKind::Variable(name) => match scope.get(name) {
            Some((slot, _)) => Expr::Slot(slot),
            None => {
                return Err(PlanError::semantic(
                    format!("Variable `{name}` not defined"),
                    at,
                ))
            }
        },
        ExprKind::Property(inner, key) => Expr::Property {
            expr: Box::new(lower_expr(inner, scope, aggs)?),
            key: key.clone(),
        },
        ExprKind::List(items) => fold_list(lower_all(items, scope, aggs)?),
        ExprKind::Map(entries) => fold_map(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), lower_expr(v, scope, aggs)?)))
                .collect::<Result<_, PlanError>>()?,
        ),
        ExprKind::Unary(op, inner) => {
            let inner = lower_expr(inner, scope, aggs)?;
            match op {
                UnaryOp::Not => Expr::Not(Box::new(inner)),
                UnaryOp::Negate => match inner {
                    Expr::Literal(Value::Int(i)) => Expr::Literal(Value::Int(-i)),
                    Expr::Literal(Value::Float(f)) => Expr::Literal(Value::Float(-f)),
                    other => Expr::Negate(Box::new(other)),
                },
                // Unary plus is the identity on numbers; keep the type check
                // by multiplying with 1 (errors on non-numbers at run time).
                UnaryOp::Plus => Expr::Binary {
                    op: BinaryOp::Multiply,
                    lhs: Box::new(inner),
                    rhs: Box::new(Expr::Literal(Value::Int(1))),
                },
            }
        }
        ExprKind::Binary(op, l, r) => Expr::Binary {
            op: binary_op(*op),
            lhs: Box::new(lower_expr(l, scope, aggs)?),
            rhs: Box::new(lower_expr(r, scope, aggs)?),
        },
        ExprKind::IsNull(inner) => Expr::IsNull {
            expr: Box::new(lower_expr(inner, scope, aggs)?),
            negated: false,
        },
        ExprKind::IsNotNull(inner) => Expr::IsNull {
            expr: Box::new(lower_expr(inner, scope, aggs)?),
            negated: true,
        },
        ExprKind::HasLabels(inner, labels) => Expr::HasLabels {
            expr: Box::new(lower_expr(inner, scope, aggs)?),
            labels: labels.clone(),
        },
        ExprKind::HasLabelExpr(inner, labels) => {
            let entity = lower_expr(inner, scope, aggs)?;
            label_test(&entity, labels, scope)?
        }
        ExprKind::FunctionCall {
            name,
            distinct,
            args,
        } => lower_call(name, *distinct, args, scope, aggs, at)?,
        ExprKind::CountStar => aggregate(
            Aggregate {
                func: AggregateFunction::Count,
                arg: None,
                distinct: false,
                percentile: None,
            },
            aggs,
            "count(*)",
            at,
        )?,
        ExprKind::Case {
            operand,
            whens,
            else_,
        } => Expr::Case {
            operand: match operand {
                Some(o) => Some(Box::new(lower_expr(o, scope, aggs)?)),
                None => None,
            },
            whens: whens
                .iter()
                .map(|(w, t)| Ok((lower_expr(w, scope, aggs)?, lower_expr(t, scope, aggs)?)))
                .collect::<Result<_, PlanError>>()?,
            otherwise: match else_ {
                Some(o) => Some(Box::new(lower_expr(o, scope, aggs)?)),
                None => None,
            },
        },
        ExprKind::Index(base, index) => Expr::Index {
            expr: Box::new(lower_expr(base, scope, aggs)?),
            index: Box::new(lower_expr(index, scope, aggs)?),
        },
        ExprKind::Slice(base, from, to) => Expr::Slice {
            expr: Box::new(lower_expr(base, scope, aggs)?),
            from: match from {
                Some(f) => Some(Box::new(lower_expr(f, scope, aggs)?)),
                None => None,
            },
            to: match to {
                Some(t) => Some(Box::new(lower_expr(t, scope, aggs)?)),
                None => None,
            },
        },
        ExprKind::ListComprehension {
            variable,
            list,
            predicate,
            projection,
        } => {
            let list = Box::new(lower_expr(list, scope, aggs)?);
            let (var, inner) = local_scope(scope, &variable.name);
            let lower_local = |e: &Option<Box<ast::Expr>>| -> Result<_, PlanError> {
                match e {
                    Some(e) => Ok(Some(Box::new(lower_expr(e, &inner, &mut None)?))),
                    None => Ok(None),
                }
            };
            Expr::ListComprehension {
                var,
                list,
                predicate: lower_local(predicate)?,
                projection: lower_local(projection)?,
            }
        }
        ExprKind::Quantifier {
            kind,
            variable,
            list,
            predicate,
        } => {
            let list = Box::new(lower_expr(list, scope, aggs)?);
            let (var, inner) = local_scope(scope, &variable.name);
            Expr::Quantifier {
                kind: match kind {
                    ast::QuantifierKind::All => Quantifier::All,
                    ast::QuantifierKind::Any => Quantifier::Any,
                    ast::QuantifierKind::None => Quantifier::None,
                    ast::QuantifierKind::Single => Quantifier::Single,
                },
                var,
                list,
                predicate: Box::new(lower_expr(predicate, &inner, &mut None)?),
            }
        }
        ExprKind::Reduce(r) => {
            let init = Box::new(lower_expr(&r.init, scope, aggs)?);
            let list = Box::new(lower_expr(&r.list, scope, aggs)?);
            let (acc, with_acc) = local_scope(scope, &r.accumulator.name);
            let (var, inner) = local_scope(&with_acc, &r.variable.name);
            Expr::Reduce {
                acc,
                init,
                var,
                list,
                step: Box::new(lower_expr(&r.step, &inner, &mut None)?),
            }
        }
        // The analyser allows a bare pattern only where a boolean is consumed
        // (`semantic/pattern_placement.rs`: a WHERE, NOT/AND/OR/XOR, exists(),
        // a generic CASE's WHEN, a comprehension's or quantifier's WHERE), so
        // wherever it reaches lowering it asks whether the pattern matches.
        ExprKind::PatternExpression(element) => {
            super::pattern_expr::lower_pattern_list(element, None, None, None, scope)?
        }
        ExprKind::Subquery(kind, query) => super::subquery::lower_subquery(*kind, query, scope)?,
        ExprKind::PatternComprehension {
            variable,
            pattern,
            predicate,
            projection,
        } => super::pattern_expr::lower_pattern_list(
            pattern,
            variable.as_ref(),
            predicate.as_deref(),
            Some(projection),
            scope,
        )?,
        ExprKind::MapProjection { variable, items } => {
            let base = match scope.get(&variable.name) {
                Some((slot, _)) => Expr::Slot(slot),
                None => {
                    return Err(PlanError::semantic(
                        format!("Variable `{}` not defined", variable.name),
                        variable.span.start,
                    ))
                }
            };
            let mut all_properties = false;
            let mut lowered = Vec::new();
            for item in items {
                match item {
                    ast::MapProjectionItem::AllProperties => all_properties = true,
                    ast::MapProjectionItem::Property(key) => lowered.push((
                        key.clone(),
                        Expr::Property {
                            expr: Box::new(base.clone()),
                            key: key.clone(),
                        },
                    )),
                    ast::MapProjectionItem::Literal(key, e) => {
                        lowered.push((key.clone(), lower_expr(e, scope, aggs)?))
                    }
                    ast::MapProjectionItem::Variable(v) => lowered.push((
                        v.name.clone(),
                        lower_expr(
                            &ast::Expr::new(ExprKind::Variable(v.name.clone()), v.span),
                            scope,
                            aggs,
                        )?,
                    )),
                }
            }
            Expr::MapProjection {
                base: Box::new(base),
                all_properties,
                items: lowered,
            }
        }
    })
}

/// A child scope binding `name` to a fresh slot (an expression-local
/// variable, shadowing any outer variable of the same name).
fn local_scope(scope: &Scope, name: &str) -> (Slot, Scope) {
    let slot = scope.fresh_slot();
    let mut inner = scope.clone();
    inner.bind(name, slot, VarKind::Value);
    (slot, inner)
}

pub(crate) fn lower_all(
    items: &[ast::Expr],
    scope: &Scope,
    aggs: &mut AggregateSink<'_>,
) -> Result<Vec<Expr>, PlanError> {
    items.iter().map(|e| lower_expr(e, scope, aggs)).collect()
}

fn lower_call(
    name: &str,
    distinct: bool,
    args: &[ast::Expr],
    scope: &Scope,
    aggs: &mut AggregateSink<'_>,
    at: usize,
) -> Result<Expr, PlanError> {
    if let Some(func) = AggregateFunction::from_name(name) {
        let (expected, max) = func.arity();
        if args.len() < expected || args.len() > max {
            return Err(PlanError::semantic(
                format!("Function `{name}` expects {expected} argument(s)"),
                at,
            ));
        }
        // An aggregate's argument is evaluated per input row: no nested
        // aggregates (the analyser reports those first).
        let arg = lower_expr(&args[0], scope, &mut None)?;
        let percentile = match args.get(1) {
            Some(p) => Some(lower_expr(p, scope, &mut None)?),
            None => None,
        };
        return aggregate(
            Aggregate {
                func,
                arg: Some(arg),
                distinct,
                percentile,
            },
            aggs,
            name,
            at,
        );
    }
    if let Some(func) = LoadCsvFunction::from_name(name) {
        return load_csv_function(func, args, scope, at);
    }
    let Some(func) = ScalarFunction::from_name(name) else {
        return Err(PlanError::semantic(
            format!("Unknown function '{name}'"),
            at,
        ));
    };
    // `exists(pattern)`: the lowered pattern is already the test, whereas the
    // function asks whether its argument is null, which a boolean never is.
    if let (ScalarFunction::Exists, [arg]) = (func, args) {
        if let ExprKind::PatternExpression(_) = arg.kind {
            return lower_expr(arg, scope, aggs);
        }
    }
    let (min, max) = func.arity();
    if args.len() < min || args.len() > max {
        return Err(PlanError::semantic(
            format!("Function `{name}` called with {} argument(s)", args.len()),
            at,
        ));
    }
    let mut args = lower_all(args, scope, aggs)?;
    if func == ScalarFunction::Size && args.len() == 1 {
        return Ok(super::degree::size_of(args.remove(0)));
    }
    Ok(Expr::Function { func, args })
}

/// `linenumber()` / `file()`: the current `LOAD CSV` row's slot, or null
/// outside `LOAD CSV` (as in Neo4j).
fn load_csv_function(
    func: LoadCsvFunction,
    args: &[ast::Expr],
    scope: &Scope,
    at: usize,
) -> Result<Expr, PlanError> {
    if !args.is_empty() {
        return Err(PlanError::semantic(
            format!("Function `{func:?}` takes no arguments"),
            at,
        ));
    }
    Ok(match (scope.load_csv(), func) {
        (Some((line, _)), LoadCsvFunction::LineNumber) => Expr::Slot(line),
        (Some((_, file)), LoadCsvFunction::File) => Expr::Slot(file),
        (None, _) => Expr::Literal(Value::Null),
    })
}

fn aggregate(
    agg: Aggregate,
    aggs: &mut AggregateSink<'_>,
    name: &str,
    at: usize,
) -> Result<Expr, PlanError> {
    match aggs {
        Some(sink) => Ok(Expr::Slot(sink(agg))),
        None => Err(PlanError::semantic(
            format!("Invalid use of aggregating function {name}(...) in this context"),
            at,
        )),
    }
}

fn binary_op(op: ast::BinaryOp) -> BinaryOp {
    use ast::BinaryOp as A;
    match op {
        A::Or => BinaryOp::Or,
        A::Xor => BinaryOp::Xor,
        A::And => BinaryOp::And,
        A::Eq => BinaryOp::Equal,
        A::Ne => BinaryOp::NotEqual,
        A::Lt => BinaryOp::Less,
        A::Le => BinaryOp::LessEqual,
        A::Gt => BinaryOp::Greater,
        A::Ge => BinaryOp::GreaterEqual,
        A::Add => BinaryOp::Add,
        A::Sub => BinaryOp::Subtract,
        A::Mul => BinaryOp::Multiply,
        A::Div => BinaryOp::Divide,
        A::Mod => BinaryOp::Modulo,
        A::Pow => BinaryOp::Power,
        A::In => BinaryOp::In,
        A::StartsWith => BinaryOp::StartsWith,
        A::EndsWith => BinaryOp::EndsWith,
        A::Contains => BinaryOp::Contains,
        A::RegexMatch => BinaryOp::RegexMatch,
    }
}

/// True when the expression contains an aggregate call (outside nested
/// scopes, which the engine does not lower yet).
pub(crate) fn contains_aggregate(e: &ast::Expr) -> bool {
    nereid_stack::deeper(|| contains_aggregate_level(e))
}

/// One level of [`contains_aggregate`]: the recursion goes through it, which guards
/// the stack.
fn contains_aggregate_level(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::CountStar => true,
        ExprKind::FunctionCall { name, args, .. } => {
            AggregateFunction::from_name(name).is_some() || args.iter().any(contains_aggregate)
        }
        ExprKind::Property(inner, _)
        | ExprKind::Unary(_, inner)
        | ExprKind::IsNull(inner)
        | ExprKind::IsNotNull(inner)
        | ExprKind::HasLabels(inner, _)
        | ExprKind::HasLabelExpr(inner, _) => contains_aggregate(inner),
        ExprKind::Binary(_, l, r) | ExprKind::Index(l, r) => {
            contains_aggregate(l) || contains_aggregate(r)
        }
        ExprKind::List(items) => items.iter().any(contains_aggregate),
        ExprKind::ListComprehension { list, .. } | ExprKind::Quantifier { list, .. } => {
            contains_aggregate(list)
        }
        ExprKind::Reduce(r) => contains_aggregate(&r.init) || contains_aggregate(&r.list),
        ExprKind::MapProjection { items, .. } => items.iter().any(|i| match i {
            ast::MapProjectionItem::Literal(_, e) => contains_aggregate(e),
            _ => false,
        }),
        ExprKind::Map(entries) => entries.iter().any(|(_, v)| contains_aggregate(v)),
        ExprKind::Case {
            operand,
            whens,
            else_,
        } => {
            operand.as_deref().is_some_and(contains_aggregate)
                || whens
                    .iter()
                    .any(|(w, t)| contains_aggregate(w) || contains_aggregate(t))
                || else_.as_deref().is_some_and(contains_aggregate)
        }
        ExprKind::Slice(b, f, t) => {
            contains_aggregate(b)
                || f.as_deref().is_some_and(contains_aggregate)
                || t.as_deref().is_some_and(contains_aggregate)
        }
        _ => false,
    }
}

/// A list of literals becomes one literal list value: evaluated, it is a
/// copy of one value instead of one column per element transposed into rows,
/// and the plan holds one `Value` per element instead of an `Expr` each
/// (a literal of a million elements cost ~330 bytes per element).
fn fold_list(items: Vec<Expr>) -> Expr {
    if !items.iter().all(|item| matches!(item, Expr::Literal(_))) {
        return Expr::List(items);
    }
    Expr::Literal(Value::List(
        items
            .into_iter()
            .map(|item| match item {
                Expr::Literal(value) => value,
                _ => Value::Null,
            })
            .collect(),
    ))
}

/// A map of literals becomes one literal map value (see [`fold_list`]); a
/// repeated key keeps its last value, as evaluating the map would.
fn fold_map(entries: Vec<(String, Expr)>) -> Expr {
    if !entries.iter().all(|(_, e)| matches!(e, Expr::Literal(_))) {
        return Expr::Map(entries);
    }
    Expr::Literal(Value::Map(
        entries
            .into_iter()
            .map(|(key, e)| match e {
                Expr::Literal(value) => (key, value),
                _ => (key, Value::Null),
            })
            .collect(),
    ))
}
