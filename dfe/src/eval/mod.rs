//! Vectorised expression evaluation: an [`Expr`] is evaluated over a set of
//! rows of a [`Batch`] into one column (one value per requested row).
//!
//! Conditional forms (`AND`, `OR`, `CASE`, `coalesce`) evaluate their later
//! operands only on the rows that still need them, so that e.g.
//! `CASE WHEN x = 0 THEN 0 ELSE 1 / x END` never divides by zero.

mod access;
pub(crate) mod adjacency_memo;
mod apoc;
mod arithmetic;
mod budgeted;
pub(crate) mod compare;
mod conversions;
mod degree;
pub(crate) mod dynamic_names;
mod functions;
mod logic;
mod math;
mod node_facts_memo;
mod pattern;
mod pattern_batch;
mod pattern_memo;
mod range;
mod regex_cache;
mod reused;
mod scoped;
mod spatial;
mod temporal;
mod text;
mod vector;

pub use temporal::{from_text as temporal_from_text, StatementTime};

pub use pattern::SubplanEnv;
pub use pattern_memo::PatternMemo;
pub use range::IntRange;
pub use regex_cache::RegexCache;

use crate::batch::Batch;
use crate::error::{ExecError, ExecResult};
use crate::graph::GraphRead;
use crate::{MemoryBudget, Params};
use nereid_planner::{BinaryOp, Expr, ScalarFunction};
use nereid_values::Value;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Evaluates expressions against the graph snapshot and the query parameters.
pub struct Evaluator<'a> {
    graph: &'a dyn GraphRead,
    params: &'a Params,
    regexes: &'a mut RegexCache,
    /// The clock reading that `datetime()`, `date.statement()` & co. return:
    /// fixed per statement so that every call in it agrees.
    statement_time: StatementTime,
    /// What running a nested plan (pattern expressions) needs; `None` for an
    /// evaluator outside a query's execution.
    subplans: Option<SubplanEnv>,
    /// The query's memory budget (see `budgeted.rs`); `None` outside a
    /// query's execution.
    budget: Option<&'a MemoryBudget>,
}

impl<'a> Evaluator<'a> {
    pub fn new(graph: &'a dyn GraphRead, params: &'a Params, regexes: &'a mut RegexCache) -> Self {
        Evaluator {
            graph,
            params,
            regexes,
            statement_time: StatementTime::now(),
            subplans: None,
            budget: None,
        }
    }

    /// Checks the values this evaluator builds against `budget`.
    pub(crate) fn with_budget(mut self, budget: &'a MemoryBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Pins the current time seen by temporal functions (the statement's start).
    pub fn at_statement_time(mut self, time: StatementTime) -> Self {
        self.statement_time = time;
        self
    }

    /// The statement's memo when this evaluator runs inside a nested plan
    /// (whose label tests and node properties it remembers:
    /// `node_facts_memo.rs`).
    fn nested_memo(&self) -> Option<std::sync::Arc<PatternMemo>> {
        self.subplans
            .as_ref()
            .filter(|env| env.nested)
            .and_then(|env| env.memo.clone())
    }

    /// Lets this evaluator run the nested plans of pattern expressions.
    pub(crate) fn with_subplans(mut self, env: SubplanEnv) -> Self {
        self.subplans = Some(env);
        self
    }

    /// Evaluates `expr` for the physical rows `rows` of `batch`; the result
    /// has one value per entry of `rows`, in the same order.
    pub fn eval(&mut self, expr: &Expr, batch: &Batch, rows: &[usize]) -> ExecResult<Vec<Value>> {
        nereid_stack::deeper(|| {
            let column = self.eval_level(expr, batch, rows)?;
            self.check_built(expr, &column)?;
            Ok(column)
        })
    }

    /// One level of [`Evaluator::eval`]: the recursion goes through it,
    /// which guards the stack.
    fn eval_level(&mut self, expr: &Expr, batch: &Batch, rows: &[usize]) -> ExecResult<Vec<Value>> {
        match expr {
            Expr::Literal(value) => self.copies(value, rows.len()),
            Expr::Param(name) => match self.params.get(name) {
                Some(value) => self.copies(value, rows.len()),
                None => Err(ExecError::ParameterMissing(name.clone())),
            },
            Expr::Slot(slot) => Ok(rows
                .iter()
                .map(|&r| batch.value(*slot, r).clone())
                .collect()),
            Expr::Property { expr, key } => {
                let bases = self.eval(expr, batch, rows)?;
                let graph = self.graph;
                match self.nested_memo().filter(|m| m.properties.worthwhile()) {
                    Some(memo) => access::property_column_with(graph, &bases, key, |nodes| {
                        memo.properties.column(nodes, key, |missing| {
                            graph.node_property_column(missing, key)
                        })
                    }),
                    None => access::property_column(graph, &bases, key),
                }
            }
            Expr::HasLabels { expr, labels } => {
                let bases = self.eval(expr, batch, rows)?;
                let graph = self.graph;
                match self.nested_memo().filter(|m| m.labels.worthwhile()) {
                    Some(memo) => {
                        access::has_labels_column_with(graph, &bases, labels, |nodes, label| {
                            memo.labels.column(nodes, label, |missing| {
                                graph.node_has_label_column(missing, label)
                            })
                        })
                    }
                    None => access::has_labels_column(graph, &bases, labels),
                }
            }
            Expr::HasAnyLabel(expr) => self
                .eval(expr, batch, rows)?
                .iter()
                .map(|base| access::has_any_label(self.graph, base))
                .collect(),
            Expr::HasDynamicNames { expr, names, any } => {
                let bases = self.eval(expr, batch, rows)?;
                let names = self.eval(names, batch, rows)?;
                bases
                    .iter()
                    .zip(names)
                    .map(|(base, names)| {
                        dynamic_names::has_dynamic_names(self.graph, base, names, *any)
                    })
                    .collect()
            }
            Expr::List(items) => {
                let columns = self.eval_all(items, batch, rows)?;
                Ok(transpose(columns, rows.len())
                    .into_iter()
                    .map(|items| Value::List(items.into()))
                    .collect())
            }
            Expr::Map(entries) => {
                let exprs: Vec<Expr> = entries.iter().map(|(_, e)| e.clone()).collect();
                let columns = self.eval_all(&exprs, batch, rows)?;
                Ok(transpose(columns, rows.len())
                    .into_iter()
                    .map(|values| {
                        let map: BTreeMap<String, Value> =
                            entries.iter().map(|(k, _)| k.clone()).zip(values).collect();
                        Value::Map(map)
                    })
                    .collect())
            }
            Expr::Not(inner) => self
                .eval(inner, batch, rows)?
                .iter()
                .map(logic::not)
                .collect(),
            Expr::Negate(inner) => self
                .eval(inner, batch, rows)?
                .into_iter()
                .map(arithmetic::negate)
                .collect(),
            Expr::Binary { op, lhs, rhs } => self.eval_binary(*op, lhs, rhs, batch, rows),
            Expr::IsNull { expr, negated } => Ok(self
                .eval(expr, batch, rows)?
                .iter()
                .map(|v| Value::Bool(v.is_null() != *negated))
                .collect()),
            Expr::Function {
                func: ScalarFunction::Coalesce,
                args,
            } => self.eval_coalesce(args, batch, rows),
            Expr::Function {
                func: ScalarFunction::Temporal(func),
                args,
            } => {
                let columns = self.eval_all(args, batch, rows)?;
                let now = self.statement_time;
                transpose(columns, rows.len())
                    .into_iter()
                    .map(|row_args| temporal::call(*func, &row_args, now))
                    .collect()
            }
            Expr::Function {
                func: ScalarFunction::Range,
                args,
            } => {
                let columns = self.eval_all(args, batch, rows)?;
                self.range_lists(transpose(columns, rows.len()))
            }
            Expr::Function { func, args } => {
                functions::check_arity(*func, args.len())?;
                if *func == ScalarFunction::Rand {
                    if let Some(memo) = self.subplans.as_ref().and_then(|env| env.memo.as_ref()) {
                        memo.mark_volatile();
                    }
                }
                let columns = self.eval_all(args, batch, rows)?;
                let graph = self.graph;
                transpose(columns, rows.len())
                    .into_iter()
                    .map(|row_args| functions::call(*func, row_args, graph))
                    .collect()
            }
            Expr::Case {
                operand,
                whens,
                otherwise,
            } => self.eval_case(operand.as_deref(), whens, otherwise.as_deref(), batch, rows),
            Expr::Index { expr, index } => {
                let bases = self.eval(expr, batch, rows)?;
                let indexes = self.eval(index, batch, rows)?;
                let graph = self.graph;
                bases
                    .iter()
                    .zip(&indexes)
                    .map(|(b, i)| access::index(graph, b, i))
                    .collect()
            }
            Expr::Slice { expr, from, to } => {
                let bases = self.eval(expr, batch, rows)?;
                let froms = self.eval_optional(from.as_deref(), batch, rows)?;
                let tos = self.eval_optional(to.as_deref(), batch, rows)?;
                bases
                    .iter()
                    .enumerate()
                    .map(|(i, base)| {
                        access::slice(
                            base,
                            froms.as_ref().and_then(|f| f.get(i)),
                            tos.as_ref().and_then(|t| t.get(i)),
                        )
                    })
                    .collect()
            }
            Expr::Path(parts) => {
                let columns = self.eval_all(parts, batch, rows)?;
                let graph = self.graph;
                transpose(columns, rows.len())
                    .into_iter()
                    .map(|parts| access::path(graph, parts))
                    .collect()
            }
            Expr::ListComprehension {
                var,
                list,
                predicate,
                projection,
            } => self.eval_list_comprehension(
                *var,
                list,
                predicate.as_deref(),
                projection.as_deref(),
                batch,
                rows,
            ),
            Expr::Quantifier {
                kind,
                var,
                list,
                predicate,
            } => self.eval_quantifier(*kind, *var, list, predicate, batch, rows),
            Expr::Reduce {
                acc,
                init,
                var,
                list,
                step,
            } => self.eval_reduce(*acc, init, *var, list, step, batch, rows),
            Expr::PatternList {
                plan,
                projection,
                exists,
                reads,
            } => self.eval_pattern_list(plan, projection, *exists, reads, batch, rows),
            Expr::Reused { expr, reads } => self.eval_reused(expr, reads, batch, rows),
            Expr::Degree { node, dir, types } => self.eval_degree(node, *dir, types, batch, rows),
            Expr::MapProjection {
                base,
                all_properties,
                items,
            } => {
                let bases = self.eval(base, batch, rows)?;
                let exprs: Vec<Expr> = items.iter().map(|(_, e)| e.clone()).collect();
                let columns = transpose(self.eval_all(&exprs, batch, rows)?, rows.len());
                let graph = self.graph;
                bases
                    .into_iter()
                    .zip(columns)
                    .map(|(base, values)| {
                        access::map_projection(graph, base, *all_properties, items, values)
                    })
                    .collect()
            }
        }
    }

    /// Fails once the statement was cancelled or its deadline passed: for
    /// loops inside one expression, which run between batch checks.
    pub(crate) fn check_cancelled(&self) -> ExecResult<()> {
        match &self.subplans {
            Some(env) => env.stop.check(),
            None => Ok(()),
        }
    }

    /// Evaluates `expr` for a single physical row.
    pub fn eval_row(&mut self, expr: &Expr, batch: &Batch, row: usize) -> ExecResult<Value> {
        Ok(self
            .eval(expr, batch, &[row])?
            .into_iter()
            .next()
            .unwrap_or_default())
    }

    fn eval_all(
        &mut self,
        exprs: &[Expr],
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Vec<Value>>> {
        exprs.iter().map(|e| self.eval(e, batch, rows)).collect()
    }

    fn eval_optional(
        &mut self,
        expr: Option<&Expr>,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Option<Vec<Value>>> {
        expr.map(|e| self.eval(e, batch, rows)).transpose()
    }

    fn eval_binary(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let left = self.eval(lhs, batch, rows)?;
        match op {
            // The right side is only needed where the left side does not decide.
            BinaryOp::And => self.short_circuit(left, rhs, batch, rows, false, logic::and),
            BinaryOp::Or => self.short_circuit(left, rhs, batch, rows, true, logic::or),
            _ => {
                let right = self.eval(rhs, batch, rows)?;
                left.into_iter()
                    .zip(right)
                    .map(|(a, b)| {
                        if op == BinaryOp::Add {
                            self.check_concatenation(&a, &b)?;
                        }
                        self.apply_binary(op, a, b)
                    })
                    .collect()
            }
        }
    }

    /// `AND` / `OR`: rows whose left value equals `decisive` keep it; the
    /// right operand is evaluated for the others only.
    fn short_circuit(
        &mut self,
        mut left: Vec<Value>,
        rhs: &Expr,
        batch: &Batch,
        rows: &[usize],
        decisive: bool,
        combine: fn(&Value, &Value) -> ExecResult<Value>,
    ) -> ExecResult<Vec<Value>> {
        let pending: Vec<usize> = (0..left.len())
            .filter(|&i| !matches!(left[i], Value::Bool(b) if b == decisive))
            .collect();
        if pending.is_empty() {
            return Ok(left);
        }
        let pending_rows: Vec<usize> = pending.iter().map(|&i| rows[i]).collect();
        let right = self.eval(rhs, batch, &pending_rows)?;
        for (i, b) in pending.into_iter().zip(right) {
            left[i] = combine(&left[i], &b)?;
        }
        Ok(left)
    }

    fn apply_binary(&mut self, op: BinaryOp, a: Value, b: Value) -> ExecResult<Value> {
        use BinaryOp as B;
        match op {
            B::And => logic::and(&a, &b),
            B::Or => logic::or(&a, &b),
            B::Xor => logic::xor(&a, &b),
            B::Add => arithmetic::add(a, b),
            B::Subtract => arithmetic::subtract(a, b),
            B::Multiply => arithmetic::multiply(a, b),
            B::Divide => arithmetic::divide(a, b),
            B::Modulo => arithmetic::modulo(a, b),
            B::Power => arithmetic::power(a, b),
            B::Equal => Ok(compare::equal(&a, &b)),
            B::NotEqual => Ok(compare::not_equal(&a, &b)),
            B::Less => Ok(compare::ordering(&a, &b, Ordering::is_lt)),
            B::LessEqual => Ok(compare::ordering(&a, &b, Ordering::is_le)),
            B::Greater => Ok(compare::ordering(&a, &b, Ordering::is_gt)),
            B::GreaterEqual => Ok(compare::ordering(&a, &b, Ordering::is_ge)),
            B::In => compare::in_list(&a, &b),
            B::StartsWith => Ok(compare::string_predicate(&a, &b, |x, y| x.starts_with(y))),
            B::EndsWith => Ok(compare::string_predicate(&a, &b, |x, y| x.ends_with(y))),
            B::Contains => Ok(compare::string_predicate(&a, &b, |x, y| x.contains(y))),
            B::RegexMatch => self.regexes.matches(&a, &b),
        }
    }

    /// `coalesce(a, b, ...)`: later arguments only for rows still null.
    fn eval_coalesce(
        &mut self,
        args: &[Expr],
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let mut out = vec![Value::Null; rows.len()];
        let mut pending: Vec<usize> = (0..rows.len()).collect();
        for arg in args {
            if pending.is_empty() {
                break;
            }
            let pending_rows: Vec<usize> = pending.iter().map(|&i| rows[i]).collect();
            let values = self.eval(arg, batch, &pending_rows)?;
            let mut still_null = Vec::new();
            for (i, value) in pending.into_iter().zip(values) {
                if value.is_null() {
                    still_null.push(i);
                } else {
                    out[i] = value;
                }
            }
            pending = still_null;
        }
        Ok(out)
    }

    /// Both CASE forms. A branch's value is evaluated only for the rows that
    /// take it.
    fn eval_case(
        &mut self,
        operand: Option<&Expr>,
        whens: &[(Expr, Expr)],
        otherwise: Option<&Expr>,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let operands = self.eval_optional(operand, batch, rows)?;
        let mut out = vec![Value::Null; rows.len()];
        let mut pending: Vec<usize> = (0..rows.len()).collect();
        for (condition, value) in whens {
            if pending.is_empty() {
                break;
            }
            let pending_rows: Vec<usize> = pending.iter().map(|&i| rows[i]).collect();
            let tests = self.eval(condition, batch, &pending_rows)?;
            let (mut taken, mut rest) = (Vec::new(), Vec::new());
            for (i, test) in pending.into_iter().zip(tests) {
                let hit = match &operands {
                    Some(ops) => ops[i].cypher_eq(&test) == Some(true),
                    None => matches!(test, Value::Bool(true)),
                };
                if hit {
                    taken.push(i);
                } else {
                    rest.push(i);
                }
            }
            let taken_rows: Vec<usize> = taken.iter().map(|&i| rows[i]).collect();
            for (i, v) in taken.into_iter().zip(self.eval(value, batch, &taken_rows)?) {
                out[i] = v;
            }
            pending = rest;
        }
        if let (Some(otherwise), false) = (otherwise, pending.is_empty()) {
            let pending_rows: Vec<usize> = pending.iter().map(|&i| rows[i]).collect();
            for (i, v) in pending
                .into_iter()
                .zip(self.eval(otherwise, batch, &pending_rows)?)
            {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

/// Turns argument-major columns into row-major argument lists.
fn transpose(columns: Vec<Vec<Value>>, row_count: usize) -> Vec<Vec<Value>> {
    let mut rows: Vec<Vec<Value>> = (0..row_count)
        .map(|_| Vec::with_capacity(columns.len()))
        .collect();
    for column in columns {
        for (row, value) in rows.iter_mut().zip(column) {
            row.push(value);
        }
    }
    rows
}

#[cfg(test)]
mod tests;
