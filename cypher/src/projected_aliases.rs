//! Reading a projected expression again after DISTINCT or an aggregation.
//!
//! After `WITH DISTINCT a.name AS name` or `WITH a.name AS name, count(*) AS cnt` the
//! variable `a` is gone, yet openCypher lets the clause's WHERE and ORDER BY still say
//! `a.name` (or repeat `count(*)`): such a sub-expression *is* the projected value. This pass
//! rewrites each of them into the alias (`a.name + 'C'` becomes `name + 'C'`), so analysis and
//! planning only ever see variables that are in scope.
//!
//! Only property accesses and aggregate calls are replaced, only with an explicit alias, and
//! only when the whole WHERE or ORDER BY item then reads nothing but the projection's columns:
//! otherwise the item is left as written, so `me.age + you.age + count(*)` (a larger
//! projected expression around an aggregate) stays an `AmbiguousAggregationExpression` and
//! an unprojected variable stays an `UndefinedVariable`. Expressions that bind their own
//! variables (comprehensions, quantifiers, `reduce`, patterns, map projections) are not
//! entered, and an item containing one is left alone.
//!
//! Invariant: the walk uses an explicit stack, so long operator chains cost no call stack.

use crate::ast::{Clause, Expr, ExprKind, Projection, Query, Statement};
use crate::semantic::is_aggregate_name;

/// Rewrites the WHERE and ORDER BY of every DISTINCT or aggregating projection in `stmt`.
pub(crate) fn substitute(stmt: &mut Statement) {
    let source = std::mem::take(&mut stmt.source);
    let queries = match &mut stmt.query {
        Query::Single(query) => vec![query],
        Query::Union { queries, .. } => queries.iter_mut().collect(),
    };
    for query in queries {
        for clause in &mut query.clauses {
            let (projection, where_) = match clause {
                Clause::With(with) => (&mut with.projection, with.where_.as_mut()),
                Clause::Return(projection) => (projection, None),
                _ => continue,
            };
            let aliases = aliases(projection, &source);
            if aliases.is_empty() {
                continue;
            }
            let columns: Vec<&str> = projection.items.iter().map(|i| i.column_name()).collect();
            for sort in &mut projection.order_by {
                substitute_item(&mut sort.expr, &aliases, &columns, &source);
            }
            if let Some(predicate) = where_ {
                substitute_item(predicate, &aliases, &columns, &source);
            }
        }
    }
    stmt.source = source;
}

/// `(expression text, alias)` of the replaceable items of a DISTINCT or aggregating
/// projection; empty for any other projection (its old variables stay visible).
fn aliases(projection: &Projection, source: &str) -> Vec<(String, String)> {
    let aggregating = projection
        .items
        .iter()
        .any(|item| crate::semantic::contains_aggregation(&item.expr));
    if projection.star || (!projection.distinct && !aggregating) {
        return Vec::new();
    }
    projection
        .items
        .iter()
        .filter(|item| replaceable(&item.expr))
        .filter_map(|item| {
            let alias = item.alias.as_ref()?;
            Some((text(&item.expr, source).to_string(), alias.name.clone()))
        })
        .collect()
}

/// Property accesses and aggregate calls.
fn replaceable(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Property(..) | ExprKind::CountStar => true,
        ExprKind::FunctionCall { name, .. } => is_aggregate_name(name),
        _ => false,
    }
}

fn text<'s>(expr: &Expr, source: &'s str) -> &'s str {
    source
        .get(expr.span.start..expr.span.end)
        .unwrap_or("")
        .trim()
}

/// Replaces the projected sub-expressions of `item` when the result reads only `columns`.
fn substitute_item(item: &mut Expr, aliases: &[(String, String)], columns: &[&str], source: &str) {
    let mut candidate = item.clone();
    if replace(&mut candidate, aliases, columns, source) {
        *item = candidate;
    }
}

/// Replaces, in `root`, every replaceable sub-expression written like a projected one;
/// returns whether the result reads nothing but `columns` (no other variable, no construct
/// that was not entered).
fn replace(root: &mut Expr, aliases: &[(String, String)], columns: &[&str], source: &str) -> bool {
    let mut only_columns = true;
    let mut stack = vec![root];
    while let Some(expr) = stack.pop() {
        if replaceable(expr) {
            let written = text(expr, source);
            if let Some((_, alias)) = aliases.iter().find(|(t, _)| t == written) {
                expr.kind = ExprKind::Variable(alias.clone());
                continue;
            }
        }
        match &mut expr.kind {
            ExprKind::Variable(name) => only_columns &= columns.contains(&name.as_str()),
            ExprKind::Literal(_) | ExprKind::Parameter(_) | ExprKind::CountStar => {}
            ExprKind::Property(inner, _)
            | ExprKind::Unary(_, inner)
            | ExprKind::IsNull(inner)
            | ExprKind::IsNotNull(inner)
            | ExprKind::HasLabels(inner, _)
            | ExprKind::HasLabelExpr(inner, _) => stack.push(inner),
            ExprKind::List(items) | ExprKind::FunctionCall { args: items, .. } => {
                stack.extend(items.iter_mut())
            }
            ExprKind::Map(entries) => stack.extend(entries.iter_mut().map(|(_, v)| v)),
            ExprKind::Binary(_, left, right) | ExprKind::Index(left, right) => {
                stack.push(left);
                stack.push(right);
            }
            ExprKind::Case {
                operand,
                whens,
                else_,
            } => {
                stack.extend(operand.iter_mut().map(|e| &mut **e));
                for (when, then) in whens {
                    stack.push(when);
                    stack.push(then);
                }
                stack.extend(else_.iter_mut().map(|e| &mut **e));
            }
            ExprKind::Slice(list, from, to) => {
                stack.push(list);
                stack.extend(from.iter_mut().map(|e| &mut **e));
                stack.extend(to.iter_mut().map(|e| &mut **e));
            }
            _ => only_columns = false,
        }
    }
    only_columns
}

#[cfg(test)]
mod tests {
    use crate::ast::{Clause, ExprKind, Query};

    fn order_by_kind(query: &str) -> ExprKind {
        let stmt = crate::parse(query).unwrap();
        let Query::Single(single) = &stmt.query else {
            panic!("single query expected")
        };
        let Some(Clause::With(with)) = single.clauses.get(1) else {
            panic!("WITH expected")
        };
        with.projection.order_by[0].expr.kind.clone()
    }

    #[test]
    fn property_of_an_aggregating_projection_reads_its_alias() {
        let kind =
            order_by_kind("MATCH (a) WITH a.name AS name, count(*) AS c ORDER BY a.name RETURN c");
        assert_eq!(kind, ExprKind::Variable("name".into()));
    }

    #[test]
    fn plain_projection_keeps_the_property() {
        let kind = order_by_kind("MATCH (a) WITH a.name AS name ORDER BY a.name RETURN name");
        assert!(matches!(kind, ExprKind::Property(..)));
    }

    #[test]
    fn an_item_reading_unprojected_variables_is_left_as_written() {
        let kind =
            order_by_kind("MATCH (a) WITH count(a.x) AS c ORDER BY a.y + count(a.x) RETURN c");
        let ExprKind::Binary(_, _, right) = kind else {
            panic!("binary expected")
        };
        assert!(matches!(right.kind, ExprKind::FunctionCall { .. }));
    }

    #[test]
    fn larger_projected_expressions_are_not_replaced() {
        let kind = order_by_kind(
            "MATCH (a) WITH a.x + a.y AS s, count(*) AS c ORDER BY a.x + a.y + count(*) RETURN c",
        );
        let ExprKind::Binary(_, left, right) = kind else {
            panic!("binary expected")
        };
        assert!(matches!(left.kind, ExprKind::Binary(..)));
        assert!(matches!(right.kind, ExprKind::CountStar));
    }
}
