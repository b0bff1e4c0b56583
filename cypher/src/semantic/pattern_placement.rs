//! Where a bare pattern may stand as an expression.
//!
//! A pattern used as an expression (`(a)-->()`) only answers whether the pattern exists, so
//! openCypher allows it only where a boolean is consumed: a WHERE predicate, an operand of
//! `NOT`/`AND`/`OR`/`XOR`, the argument of `exists()`, a `WHEN` condition of a generic CASE
//! and the WHERE of a comprehension or quantifier. Anywhere else (a projection item,
//! `size(...)`, the right-hand side of SET) it is `UnexpectedSyntax`; the way to get the
//! matches themselves is a pattern comprehension. Every expression a query holds is checked
//! (a WHERE at `Predicate`), because the planner lowers each bare pattern as a test.
//!
//! Invariant: the walk uses an explicit stack, so deep expressions cost no call stack.

use super::Analyzer;
use crate::ast::{BinaryOp, Expr, ExprKind, MapProjectionItem, UnaryOp};
use crate::error::{CypherError, Detail};

/// Whether an expression's value is consumed as a boolean predicate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    Predicate,
    Value,
}

impl Analyzer<'_> {
    /// Rejects patterns used as expressions outside predicate positions of `expr`, which
    /// itself stands at `position`.
    pub(crate) fn check_pattern_placement(
        &self,
        expr: &Expr,
        position: Position,
    ) -> Result<(), CypherError> {
        let mut stack = vec![(expr, position)];
        while let Some((expr, position)) = stack.pop() {
            if let ExprKind::PatternExpression(_) = &expr.kind {
                if position == Position::Value {
                    return Err(self.error(
                        Detail::UnexpectedSyntax,
                        "A pattern used as an expression only tests whether it exists, so it \
                         may only stand where a boolean is expected (a WHERE predicate, \
                         exists(...)); use a pattern comprehension such as [(a)-->(b) | b] \
                         for its matches",
                        expr.span,
                    ));
                }
            }
            push_children(expr, &mut stack);
        }
        Ok(())
    }
}

/// Pushes the direct sub-expressions of `expr` with the position each stands at (in reverse,
/// so errors come out left to right).
fn push_children<'e>(expr: &'e Expr, stack: &mut Vec<(&'e Expr, Position)>) {
    use Position::{Predicate, Value};
    let mut children: Vec<(&Expr, Position)> = Vec::new();
    match &expr.kind {
        ExprKind::Unary(UnaryOp::Not, operand) => children.push((operand, Predicate)),
        ExprKind::Binary(BinaryOp::And | BinaryOp::Or | BinaryOp::Xor, left, right) => {
            children.extend([(&**left, Predicate), (&**right, Predicate)]);
        }
        ExprKind::FunctionCall { name, args, .. } if name.eq_ignore_ascii_case("exists") => {
            children.extend(args.iter().map(|arg| (arg, Predicate)));
        }
        ExprKind::Case {
            operand,
            whens,
            else_,
        } => {
            // Only a generic CASE (no operand) consumes its WHEN conditions as booleans.
            let condition = if operand.is_some() { Value } else { Predicate };
            children.extend(operand.iter().map(|e| (&**e, Value)));
            for (when, then) in whens {
                children.extend([(when, condition), (then, Value)]);
            }
            children.extend(else_.iter().map(|e| (&**e, Value)));
        }
        ExprKind::ListComprehension {
            list,
            predicate,
            projection,
            ..
        } => {
            children.push((list, Value));
            children.extend(predicate.iter().map(|e| (&**e, Predicate)));
            children.extend(projection.iter().map(|e| (&**e, Value)));
        }
        ExprKind::Quantifier {
            list, predicate, ..
        } => children.extend([(&**list, Value), (&**predicate, Predicate)]),
        ExprKind::PatternComprehension {
            predicate,
            projection,
            ..
        } => {
            children.extend(predicate.iter().map(|e| (&**e, Predicate)));
            children.push((projection, Value));
        }
        ExprKind::MapProjection { items, .. } => {
            children.extend(items.iter().filter_map(|item| match item {
                MapProjectionItem::Literal(_, e) => Some((e, Value)),
                _ => None,
            }));
        }
        _ => children.extend(
            super::expr::children(expr)
                .into_iter()
                .map(|child| (child, Value)),
        ),
    }
    stack.extend(children.into_iter().rev());
}
