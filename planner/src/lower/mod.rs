//! AST → plan (before the rules: leaves their choices open, see `plan`).
//!
//! Clauses are lowered in order onto one growing plan; each variable gets its
//! slot when first bound. WITH and RETURN replace the scope with the
//! projected names.

mod call_subquery;
mod degree;
mod expr;
mod hints;
mod label_test;
mod merge;
mod pattern;
mod pattern_expr;
mod procedure_call;
mod procedure_snapshot;
mod projection;
mod scope;
mod shortest_path;
mod subquery;

use crate::error::PlanError;
use crate::expr::{Expr, Slot};
use crate::plan::{Op, SetItem};
use crate::Catalog;
use expr::lower_expr;
use nereid_cypher::ast::{self, Clause, Query, Statement};
use pattern::{lower_create, lower_match_part, MatchState};
use procedure_call::lower_call;
use procedure_snapshot::ProcedureSnapshot;
use projection::lower_projection;
use scope::{Scope, Slots, VarKind};

/// Result columns: (name, slot) in order.
type Columns = Vec<(String, Slot)>;

/// A lowered query.
pub(crate) struct Lowered {
    pub plan: Op,
    pub outputs: Vec<(String, Slot)>,
    pub slot_count: usize,
    /// The `USING` hints of every MATCH.
    pub hints: Vec<crate::index_query::IndexHint>,
}

/// Lowers `stmt`; again when a subquery expression asked for procedures the
/// pass could not resolve yet (see `procedure_snapshot.rs`).
pub(crate) fn lower(stmt: &Statement, catalog: &dyn Catalog) -> Result<Lowered, PlanError> {
    let procedures = ProcedureSnapshot::new(catalog);
    loop {
        let mut slots = Slots::default();
        let scope = Scope::new(&slots, &procedures);
        let lowered = lower_query(&stmt.query, &scope, &mut slots, catalog);
        if procedures.resolve_requested(catalog) {
            continue;
        }
        let (plan, outputs) = lowered?;
        return Ok(Lowered {
            plan,
            outputs,
            slot_count: slots.high_water(),
            hints: slots.hints(),
        });
    }
}

/// A query whose clauses start with `outer` in scope: empty for a
/// statement, the enclosing query's variables for a subquery.
pub(crate) fn lower_query(
    query: &Query,
    outer: &Scope,
    slots: &mut Slots,
    catalog: &dyn Catalog,
) -> Result<(Op, Columns), PlanError> {
    lower_query_typed(query, outer, slots, catalog).map(|(plan, columns, _)| (plan, columns))
}

/// [`lower_query`], also returning what each result column holds (a column
/// whose kind differs between UNION branches is a plain value), so that a
/// `CALL { }` can bind a returned node as a node.
pub(crate) fn lower_query_typed(
    query: &Query,
    outer: &Scope,
    slots: &mut Slots,
    catalog: &dyn Catalog,
) -> Result<(Op, Columns, Vec<VarKind>), PlanError> {
    match query {
        Query::Single(q) => lower_single(q, outer, slots, catalog),
        Query::Union { all, queries } => lower_union(*all, queries, outer, slots, catalog),
    }
}

/// `q1 UNION [ALL] q2 ...`: every branch writes its columns into the first
/// branch's result slots (matched by name); UNION adds a Distinct over them.
fn lower_union(
    all: bool,
    queries: &[ast::SingleQuery],
    outer: &Scope,
    slots: &mut Slots,
    catalog: &dyn Catalog,
) -> Result<(Op, Columns, Vec<VarKind>), PlanError> {
    let Some((first, rest)) = queries.split_first() else {
        return Ok((Op::Argument, Vec::new(), Vec::new()));
    };
    let (mut plan, outputs, mut kinds) = lower_single(first, outer, slots, catalog)?;
    // Each later part runs after the previous one ended and only its
    // projection into the first part's result slots is read afterwards, so
    // every part numbers its own slots from the same point (see `Slots`).
    let parts_start = slots.count();
    for query in rest {
        slots.rewind(parts_start);
        let (branch, columns, branch_kinds) = lower_single(query, outer, slots, catalog)?;
        for (kind, (name, _)) in kinds.iter_mut().zip(&outputs) {
            let same = columns
                .iter()
                .position(|(n, _)| n == name)
                .is_some_and(|i| branch_kinds[i] == *kind);
            if !same {
                *kind = VarKind::Value;
            }
        }
        let mut items = Vec::new();
        for (name, slot) in &outputs {
            let Some((_, from)) = columns.iter().find(|(n, _)| n == name) else {
                return Err(PlanError::semantic(
                    "All sub queries in an UNION must have the same return column names",
                    query.span.start,
                ));
            };
            items.push((*slot, Expr::Slot(*from)));
        }
        if columns.len() != outputs.len() {
            return Err(PlanError::semantic(
                "All sub queries in an UNION must have the same return column names",
                query.span.start,
            ));
        }
        plan = Op::Union {
            input: Box::new(plan),
            other: Box::new(Op::Project {
                input: Box::new(branch),
                items,
            }),
        };
    }
    // What follows the union (in an enclosing query) numbers its slots past
    // every part's, so it never meets a value a part left in a slot.
    slots.rewind(slots.high_water());
    if !all {
        plan = Op::Distinct {
            input: Box::new(plan),
            slots: outputs.iter().map(|(_, s)| *s).collect(),
        };
    }
    Ok((plan, outputs, kinds))
}

fn lower_single(
    single: &ast::SingleQuery,
    outer: &Scope,
    slots: &mut Slots,
    catalog: &dyn Catalog,
) -> Result<(Op, Columns, Vec<VarKind>), PlanError> {
    let mut scope = outer.clone();
    let mut plan = Op::Argument;
    let mut outputs = Vec::new();
    let mut after_write = false;
    for clause in &single.clauses {
        // Reads after writes see the writes: separate them with a barrier so
        // the read never interleaves with the writing operator's batches.
        if after_write && is_reading(clause) {
            plan = Op::Eager {
                input: Box::new(plan),
            };
            after_write = false;
        }
        match clause {
            Clause::Match(m) => {
                plan = lower_match(plan, m, &mut scope, slots)?;
            }
            Clause::Unwind(u) => {
                let expr = lower_expr(&u.expr, &scope, &mut None)?;
                let out = slots.fresh();
                scope.bind(&u.alias.name, out, VarKind::Value);
                plan = Op::Unwind {
                    input: Box::new(plan),
                    expr,
                    out,
                    dead: Vec::new(),
                };
            }
            Clause::LoadCsv(l) => {
                let source = lower_expr(&l.source, &scope, &mut None)?;
                let out = slots.fresh();
                scope.bind(&l.alias.name, out, VarKind::Value);
                let field_terminator = l
                    .field_terminator
                    .as_deref()
                    .and_then(|t| t.chars().next())
                    .unwrap_or(',');
                let (line, file) = (slots.fresh(), slots.fresh());
                scope.set_load_csv(line, file);
                plan = Op::LoadCsv {
                    input: Box::new(plan),
                    spec: Box::new(crate::plan::LoadCsvSpec {
                        source,
                        out,
                        headers: l.with_headers,
                        field_terminator,
                        line: Some(line),
                        file: Some(file),
                    }),
                };
            }
            Clause::With(w) => {
                let projected = lower_projection(plan, &w.projection, &scope, slots)?;
                plan = projected.plan;
                scope = projected.scope;
                if let Some(pred) = &w.where_ {
                    plan = Op::Filter {
                        input: Box::new(plan),
                        predicate: lower_expr(pred, &projected.where_scope, &mut None)?,
                    };
                }
            }
            Clause::Return(r) => {
                if r.star && scope.is_empty() {
                    return Err(PlanError::semantic(
                        "RETURN * is not allowed when there are no variables in scope",
                        r.span.start,
                    ));
                }
                let projected = lower_projection(plan, r, &scope, slots)?;
                plan = projected.plan;
                scope = projected.scope;
                outputs = projected.columns;
            }
            Clause::Create(c) => {
                plan = lower_create(plan, &c.pattern, &mut scope, slots)?;
                after_write = true;
            }
            Clause::Merge(m) => {
                plan = merge::lower_merge(plan, m, &mut scope, slots)?;
                after_write = true;
            }
            Clause::Set(s) => {
                let items = s
                    .items
                    .iter()
                    .map(|i| lower_set_item(i, &scope))
                    .collect::<Result<_, _>>()?;
                plan = Op::SetProperties {
                    input: Box::new(plan),
                    items,
                };
                after_write = true;
            }
            Clause::Remove(r) => {
                let items = r
                    .items
                    .iter()
                    .map(|i| lower_remove_item(i, &scope))
                    .collect::<Result<_, _>>()?;
                plan = Op::SetProperties {
                    input: Box::new(plan),
                    items,
                };
                after_write = true;
            }
            Clause::Delete(d) => {
                let items = d
                    .exprs
                    .iter()
                    .map(|e| lower_expr(e, &scope, &mut None))
                    .collect::<Result<_, _>>()?;
                plan = Op::Delete {
                    input: Box::new(plan),
                    items,
                    detach: d.detach,
                };
                after_write = true;
            }
            Clause::Foreach(f) => {
                plan = call_subquery::lower_foreach(plan, f, &scope, slots, catalog)?;
                after_write = true;
            }
            Clause::CallSubquery(c) => {
                let writes;
                (plan, writes) =
                    call_subquery::lower_call_subquery(plan, c, &mut scope, slots, catalog)?;
                after_write |= writes;
            }
            Clause::Call(c) => {
                let (p, cols) = lower_call(plan, c, &mut scope, slots, catalog, single)?;
                plan = p;
                if let Some(cols) = cols {
                    outputs = cols;
                }
            }
        }
    }
    let kinds = outputs
        .iter()
        .map(|(name, _)| scope.get(name).map_or(VarKind::Value, |(_, kind)| kind))
        .collect();
    Ok((plan, outputs, kinds))
}

fn is_reading(clause: &Clause) -> bool {
    matches!(
        clause,
        Clause::Match(_) | Clause::Merge(_) | Clause::Call(_) | Clause::CallSubquery(_)
    )
}

fn lower_match(
    plan: Op,
    m: &ast::Match,
    scope: &mut Scope,
    slots: &mut Slots,
) -> Result<Op, PlanError> {
    let clause_start = slots.count();
    if m.optional {
        // The inner plan runs once per outer row, starting from that row.
        let mut st = MatchState {
            scope,
            slots,
            rels: Vec::new(),
            bound: Vec::new(),
        };
        let mut inner = Op::Argument;
        for part in &m.pattern {
            inner = lower_match_part(inner, part, &mut st)?;
        }
        hints::resolve(&m.hints, st.scope, st.slots)?;
        inner = uniqueness(inner, &st.rels, st.slots);
        if let Some(pred) = &m.where_ {
            inner = where_filter(inner, lower_expr(pred, st.scope, &mut None)?, clause_start);
        }
        return Ok(Op::Optional {
            input: Box::new(plan),
            inner: Box::new(inner),
            nullable: st.bound,
            origin: None,
        });
    }
    let mut st = MatchState {
        scope,
        slots,
        rels: Vec::new(),
        bound: Vec::new(),
    };
    let mut plan = plan;
    for part in &m.pattern {
        plan = lower_match_part(plan, part, &mut st)?;
    }
    hints::resolve(&m.hints, st.scope, st.slots)?;
    plan = uniqueness(plan, &st.rels, st.slots);
    if let Some(pred) = &m.where_ {
        plan = where_filter(plan, lower_expr(pred, st.scope, &mut None)?, clause_start);
    }
    Ok(plan)
}

/// A MATCH's WHERE: the conjuncts about a shortest path of this clause go
/// into its search (the shortest path *among those that satisfy them*), the
/// rest filter the rows.
fn where_filter(plan: Op, predicate: Expr, clause_start: Slot) -> Op {
    let (plan, rest) = shortest_path::attach_path_predicates(plan, predicate, clause_start);
    match rest {
        Some(predicate) => Op::Filter {
            input: Box::new(plan),
            predicate,
        },
        None => plan,
    }
}

/// Relationship uniqueness within one MATCH: no relationship is matched
/// twice. Variable-length relationships hold lists: a single relationship
/// must not be in them, and two lists must not share one.
///
/// One filter per relationship against everything matched before it, not
/// one per pair: a pattern of k hops has k filters, so the plan stays
/// linear in the pattern's length (a pair each made a 200-hop chain 19,900
/// operators deep, and 1,000 variable-length hops half a million).
/// Earlier single relationships are a list literal, earlier
/// variable-length ones are concatenated to it: `NOT r IN earlier`, or for
/// a list `none(x IN earlier WHERE x IN r)`.
///
/// A relationship is tested only against the earlier ones that could be
/// the same relationship: two hops whose type lists share no type never
/// match one relationship (`(a)<-[:HAS_CREATOR]-(m)-[:REPLY_OF]->(p)`
/// needs no test that the two differ; SNB's IC4, IC5, IC11 and IC14 ran
/// such a test on every row).
pub(crate) fn uniqueness(mut plan: Op, rels: &[MatchedRel], slots: &Slots) -> Op {
    use crate::expr::{BinaryOp, Quantifier};
    let not_in = |x: Expr, list: Expr| {
        Expr::Not(Box::new(Expr::Binary {
            op: BinaryOp::In,
            lhs: Box::new(x),
            rhs: Box::new(list),
        }))
    };
    for (j, rel) in rels.iter().enumerate() {
        let (b, b_list) = (rel.slot, rel.list);
        let may_share: Vec<&MatchedRel> = rels[..j].iter().filter(|a| a.may_be(rel)).collect();
        let Some(earlier) = earlier_relationships(&may_share) else {
            continue;
        };
        let predicate = match (b_list, earlier) {
            (false, Earlier::One(a)) => Expr::Binary {
                op: BinaryOp::NotEqual,
                lhs: Box::new(Expr::Slot(a)),
                rhs: Box::new(Expr::Slot(b)),
            },
            (false, earlier) => not_in(Expr::Slot(b), earlier.into_list()),
            (true, Earlier::One(a)) => not_in(Expr::Slot(a), Expr::Slot(b)),
            (true, earlier) => {
                let var = slots.fresh();
                Expr::Quantifier {
                    kind: Quantifier::None,
                    var,
                    list: Box::new(earlier.into_list()),
                    predicate: Box::new(Expr::Binary {
                        op: BinaryOp::In,
                        lhs: Box::new(Expr::Slot(var)),
                        rhs: Box::new(Expr::Slot(b)),
                    }),
                }
            }
        };
        plan = Op::Filter {
            input: Box::new(plan),
            predicate,
        };
    }
    plan
}

/// A relationship a MATCH binds, as its uniqueness test sees it.
pub(crate) struct MatchedRel {
    pub slot: Slot,
    /// A variable-length relationship: its slot holds a list.
    pub list: bool,
    /// The static types it may have (`:A|B`); empty when any type may
    /// match (none written, a dynamic type, a type expression).
    pub types: Vec<String>,
}

impl MatchedRel {
    /// Whether a relationship matched here may also be matched by `other`:
    /// not when both name their types and no type is in both lists.
    fn may_be(&self, other: &MatchedRel) -> bool {
        self.types.is_empty()
            || other.types.is_empty()
            || self.types.iter().any(|t| other.types.contains(t))
    }
}

/// The relationships a MATCH bound before the current one.
enum Earlier {
    /// Exactly one single relationship.
    One(Slot),
    /// Anything else, as an expression evaluating to a list of them.
    List(Expr),
}

impl Earlier {
    fn into_list(self) -> Expr {
        match self {
            Earlier::One(a) => Expr::List(vec![Expr::Slot(a)]),
            Earlier::List(list) => list,
        }
    }
}

/// `rels` (slot, variable-length) as [`Earlier`]; `None` when empty. The
/// single relationships form a list literal, concatenated with each
/// variable-length list (a single list on its own is just its slot).
fn earlier_relationships(rels: &[&MatchedRel]) -> Option<Earlier> {
    let singles: Vec<Expr> = rels
        .iter()
        .filter(|r| !r.list)
        .map(|r| Expr::Slot(r.slot))
        .collect();
    if let ([Expr::Slot(a)], 1) = (singles.as_slice(), rels.len()) {
        return Some(Earlier::One(*a));
    }
    let mut parts: Vec<Expr> = rels
        .iter()
        .filter(|r| r.list)
        .map(|r| Expr::Slot(r.slot))
        .collect();
    if !singles.is_empty() {
        parts.insert(0, Expr::List(singles));
    }
    concatenation(parts).map(Earlier::List)
}

/// `parts[0] + parts[1] + ...` as a balanced tree of additions: as deep as
/// the logarithm of their number, not their number (an expression tree is
/// dropped and walked recursively; the parser bounds the trees it builds,
/// this one the planner builds).
fn concatenation(mut parts: Vec<Expr>) -> Option<Expr> {
    if parts.len() <= 1 {
        return parts.pop();
    }
    let right = parts.split_off(parts.len() / 2);
    Some(Expr::Binary {
        op: crate::expr::BinaryOp::Add,
        lhs: Box::new(concatenation(parts)?),
        rhs: Box::new(concatenation(right)?),
    })
}

fn variable(scope: &Scope, v: &ast::Ident) -> Result<Expr, PlanError> {
    match scope.get(&v.name) {
        Some((slot, _)) => Ok(Expr::Slot(slot)),
        None => Err(PlanError::semantic(
            format!("Variable `{}` not defined", v.name),
            v.span.start,
        )),
    }
}

fn lower_set_item(item: &ast::SetItem, scope: &Scope) -> Result<SetItem, PlanError> {
    Ok(match item {
        ast::SetItem::Property {
            target, key, value, ..
        } => SetItem::Property {
            target: lower_expr(target, scope, &mut None)?,
            key: key.clone(),
            value: lower_expr(value, scope, &mut None)?,
        },
        ast::SetItem::Replace {
            variable: v, value, ..
        } => SetItem::ReplaceProperties {
            target: variable(scope, v)?,
            map: lower_expr(value, scope, &mut None)?,
        },
        ast::SetItem::MergeProperties {
            variable: v, value, ..
        } => SetItem::MergeProperties {
            target: variable(scope, v)?,
            map: lower_expr(value, scope, &mut None)?,
        },
        ast::SetItem::Labels {
            variable: v,
            labels,
            dynamic,
            ..
        } => SetItem::AddLabels {
            target: variable(scope, v)?,
            labels: labels.clone(),
            dynamic: lower_exprs(dynamic, scope)?,
        },
    })
}

fn lower_remove_item(item: &ast::RemoveItem, scope: &Scope) -> Result<SetItem, PlanError> {
    Ok(match item {
        ast::RemoveItem::Property { target, key, .. } => SetItem::Property {
            target: lower_expr(target, scope, &mut None)?,
            key: key.clone(),
            value: Expr::Literal(nereid_values::Value::Null),
        },
        ast::RemoveItem::Labels {
            variable: v,
            labels,
            dynamic,
            ..
        } => SetItem::RemoveLabels {
            target: variable(scope, v)?,
            labels: labels.clone(),
            dynamic: lower_exprs(dynamic, scope)?,
        },
    })
}

fn lower_exprs(exprs: &[ast::Expr], scope: &Scope) -> Result<Vec<Expr>, PlanError> {
    exprs
        .iter()
        .map(|e| lower_expr(e, scope, &mut None))
        .collect()
}
