//! Which expressions give the same value when evaluated again on the same
//! row and do nothing else: what a rule may evaluate a second time (a
//! predicate implied lower in the plan, `implied_in_list`) or once for
//! several rows with the same inputs (`reuse_invariant`).

use super::{BinaryOp, Expr};
use nereid_functions::ScalarFunction;

/// Whether evaluating `e` again gives the same value and does nothing else:
/// literals, parameters, variables, property reads, arithmetic and
/// deterministic functions of those.
pub(crate) fn repeatable(e: &Expr) -> bool {
    nereid_stack::deeper(|| match e {
        Expr::Literal(_) | Expr::Param(_) | Expr::Slot(_) => true,
        Expr::Property { expr, .. } => repeatable(expr),
        Expr::List(items) => items.iter().all(repeatable),
        Expr::Map(entries) => entries.iter().all(|(_, v)| repeatable(v)),
        Expr::Negate(e) => repeatable(e),
        Expr::Binary { op, lhs, rhs } => {
            matches!(
                op,
                BinaryOp::Add
                    | BinaryOp::Subtract
                    | BinaryOp::Multiply
                    | BinaryOp::Divide
                    | BinaryOp::Modulo
            ) && repeatable(lhs)
                && repeatable(rhs)
        }
        Expr::Function { func, args } => {
            (deterministic(*func) || constructs_from(*func, args)) && args.iter().all(repeatable)
        }
        _ => false,
    })
}

/// A temporal value built from a given value (`datetime({epochMillis: x})`,
/// `date(s)`): without an argument the same functions read the clock.
fn constructs_from(func: ScalarFunction, args: &[Expr]) -> bool {
    use nereid_functions::TemporalFunction;
    matches!(
        func,
        ScalarFunction::Temporal(TemporalFunction::Construct(_))
    ) && args.len() == 1
}

/// Functions whose value depends only on their arguments (a short list on
/// purpose: anything not named here is left alone).
fn deterministic(func: ScalarFunction) -> bool {
    use ScalarFunction::*;
    matches!(func, Id | ElementId | StartNode | EndNode | ToInteger)
}
