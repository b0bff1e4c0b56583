//! Lowering of `shortestPath(...)` and `allShortestPaths(...)` pattern parts,
//! and the hand-over of the MATCH's path predicates to the search.
//!
//! The search needs both ends bound: an end the query has not bound yet is
//! scanned first (with its labels and properties as filters), so the search
//! runs once per pair of candidate ends, as Neo4j plans it.

use super::pattern::{match_node, MatchState};
use super::scope::VarKind;
use crate::error::PlanError;
use crate::expr::{slots_of, BinaryOp, Expr, Quantifier, Slot};
use crate::plan::Op;
use crate::shortest_path::{ElementFilter, ShortestPathSpec};
use nereid_cypher::ast::{self, PathKind, PatternPart};
use nereid_functions::ScalarFunction;

/// The function name as the user wrote it, for messages.
fn function_name(kind: PathKind) -> &'static str {
    match kind {
        PathKind::AllShortest => "allShortestPaths",
        _ => "shortestPath",
    }
}

/// Neo4j's refusal of a shortest-path pattern in an updating clause
/// (`clause` is `CREATE` or `MERGE`); `None` for a plain pattern part.
pub(crate) fn reject_in_update(part: &PatternPart, clause: &str) -> Result<(), PlanError> {
    if part.kind == PathKind::Normal {
        return Ok(());
    }
    Err(PlanError::semantic(
        format!(
            "{}(...) cannot be used in a {clause} clause, but only in a MATCH clause.",
            function_name(part.kind)
        ),
        part.span.start,
    ))
}

/// Lowers one `[p =] shortestPath((a)-[r:T*min..max]-(b))` part onto `plan`.
pub(crate) fn lower_shortest_part(
    plan: Op,
    part: &PatternPart,
    st: &mut MatchState<'_>,
) -> Result<Op, PlanError> {
    let name = function_name(part.kind);
    let el = &part.element;
    let [(rel, end)] = el.chain.as_slice() else {
        return Err(PlanError::semantic(
            format!("{name}(...) requires a pattern containing a single relationship"),
            part.span.start,
        ));
    };
    // A relationship without `*` is a search of exactly one hop (Neo4j
    // deprecates the form but runs it).
    let (min, max) = match rel.length {
        None => (1, Some(1)),
        Some((min, max)) => (min.unwrap_or(1), max),
    };
    if min > 1 {
        return Err(PlanError::semantic(
            format!("{name}(...) does not support a minimal length different from 0 or 1"),
            rel.span.start,
        ));
    }
    if rel.dynamic_type.is_some() || rel.type_filter.is_some() {
        return Err(PlanError::unsupported(
            format!("{name}(...) with a relationship type expression other than `:A|B`"),
            rel.span.start,
        ));
    }
    if rel.properties.is_some() {
        return Err(PlanError::semantic(
            format!("{name}(...) contains properties. This is currently not supported."),
            rel.span.start,
        ));
    }
    let (plan, from) = match_node(plan, &el.start, st)?;
    let (plan, to) = match_node(plan, end, st)?;
    let rels = fresh_variable(rel.variable.as_ref(), VarKind::Value, st)?;
    let path = match &part.variable {
        Some(var) => Some(fresh_variable(Some(var), VarKind::Path, st)?),
        None => None,
    };
    Ok(Op::ShortestPath {
        input: Box::new(plan),
        spec: Box::new(ShortestPathSpec {
            from,
            to,
            rels,
            path,
            dir: rel.direction,
            types: rel.types.clone(),
            min,
            max,
            all: part.kind == PathKind::AllShortest,
            predicate: None,
            rel_filters: Vec::new(),
            node_filters: Vec::new(),
        }),
    })
}

/// A new slot for a variable the search binds (a fresh one when the pattern
/// leaves it anonymous); binding an existing name again is refused.
fn fresh_variable(
    var: Option<&ast::Ident>,
    kind: VarKind,
    st: &mut MatchState<'_>,
) -> Result<Slot, PlanError> {
    if let Some(v) = var {
        if st.scope.get(&v.name).is_some() {
            return Err(PlanError::semantic(
                format!("Variable `{}` already declared", v.name),
                v.span.start,
            ));
        }
    }
    let slot = st.slots.fresh();
    if let Some(v) = var {
        st.scope.bind(&v.name, slot, kind);
    }
    st.bound.push(slot);
    Ok(slot)
}

/// Splits a MATCH's WHERE into its `AND` conjuncts and moves each one that
/// reads a shortest path (or its relationship list) bound by this clause into
/// that search; returns the plan and the conjuncts left for an ordinary
/// filter (`None` when all were moved).
///
/// A conjunct moves only if every slot it reads is bound when the search runs:
/// slots are allocated in binding order, so that is every slot up to the
/// search's own. `clause_start` is the first slot this clause allocated, so
/// searches of earlier clauses are left alone.
pub(crate) fn attach_path_predicates(
    mut plan: Op,
    predicate: Expr,
    clause_start: Slot,
) -> (Op, Option<Expr>) {
    let mut conjuncts = Vec::new();
    split_and(predicate, &mut conjuncts);
    let mut remaining = Vec::new();
    for conjunct in conjuncts {
        if let Err(conjunct) = attach(&mut plan, conjunct, clause_start) {
            remaining.push(conjunct);
        }
    }
    let rest = remaining.into_iter().reduce(|lhs, rhs| Expr::Binary {
        op: BinaryOp::And,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    });
    (plan, rest)
}

fn split_and(expr: Expr, out: &mut Vec<Expr>) {
    match expr {
        Expr::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
        } => {
            nereid_stack::deeper(|| split_and(*lhs, out));
            nereid_stack::deeper(|| split_and(*rhs, out));
        }
        other => out.push(other),
    }
}

/// Gives `conjunct` to the first search of this clause (walking down the
/// input chain) that it concerns; hands it back when there is none.
fn attach(plan: &mut Op, conjunct: Expr, clause_start: Slot) -> Result<(), Expr> {
    let mut reads = Vec::new();
    slots_of(&conjunct, &mut reads);
    let mut node = Some(plan);
    while let Some(op) = node {
        if let Op::ShortestPath { spec, .. } = op {
            let own = spec.bound_here();
            let last = own.iter().copied().max().unwrap_or(spec.rels);
            let concerns = reads.iter().any(|s| own.contains(s));
            if spec.rels >= clause_start && concerns && reads.iter().all(|&s| s <= last) {
                let conjunct = match element_filter(spec, conjunct) {
                    Ok(()) => return Ok(()),
                    Err(conjunct) => conjunct,
                };
                spec.predicate = Some(match spec.predicate.take() {
                    None => conjunct,
                    Some(earlier) => Expr::Binary {
                        op: BinaryOp::And,
                        lhs: Box::new(earlier),
                        rhs: Box::new(conjunct),
                    },
                });
                return Ok(());
            }
        }
        node = op.input_mut();
    }
    Err(conjunct)
}

/// Takes `all/none(x IN <the path's relationships or nodes> WHERE body)` as a
/// per-element filter of the search, when `body` does not read the path
/// itself; hands anything else back.
fn element_filter(spec: &mut ShortestPathSpec, conjunct: Expr) -> Result<(), Expr> {
    let Expr::Quantifier {
        kind: kind @ (Quantifier::All | Quantifier::None),
        var,
        list,
        predicate,
    } = &conjunct
    else {
        return Err(conjunct);
    };
    let own = spec.bound_here();
    let mut reads = Vec::new();
    slots_of(predicate, &mut reads);
    if reads.iter().any(|s| own.contains(s)) {
        return Err(conjunct);
    }
    let of_path = |func: ScalarFunction| match list.as_ref() {
        Expr::Function { func: f, args } => {
            *f == func && matches!(args.as_slice(), [Expr::Slot(s)] if Some(*s) == spec.path)
        }
        _ => false,
    };
    let on_rels = matches!(list.as_ref(), Expr::Slot(s) if *s == spec.rels)
        || of_path(ScalarFunction::Relationships);
    let on_nodes = of_path(ScalarFunction::Nodes);
    let filter = ElementFilter {
        var: *var,
        body: (**predicate).clone(),
        expect: *kind == Quantifier::All,
    };
    match (on_rels, on_nodes) {
        (true, _) => spec.rel_filters.push(filter),
        (_, true) => spec.node_filters.push(filter),
        _ => return Err(conjunct),
    }
    Ok(())
}
