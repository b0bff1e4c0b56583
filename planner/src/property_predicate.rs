//! Predicates a scan can take over: `x.key <op> constant` (a literal or
//! parameter; `=`, `<>`, `<`, `<=`, `>`, `>=`, mirrored forms too) and
//! `x.key IS NOT NULL` on the entity a scan binds. Recognised once, here,
//! for the rules that push them into the relationship-type scan
//! (`rules/rel_type_scan.rs`) and the node property scan
//! (`rules/node_property_scan.rs`), which test stored values with the
//! executor's own comparison.

use crate::expr::{BinaryOp, Expr, Slot};
use crate::plan::{PropertyPredicate, PropertyTest};

/// The pushed form of `predicate` if it is `x.key <op> constant` on the
/// entity in `slot`, the mirrored `constant <op> x.key`, or
/// `x.key IS NOT NULL`.
pub(crate) fn pushable(predicate: &Expr, slot: Slot) -> Option<PropertyPredicate> {
    match predicate {
        Expr::IsNull {
            expr,
            negated: true,
        } => Some(PropertyPredicate {
            key: property_of(expr, slot)?,
            test: PropertyTest::IsNotNull,
        }),
        Expr::Binary { op, lhs, rhs } => {
            let (key, value, op) = match (property_of(lhs, slot), property_of(rhs, slot)) {
                (Some(key), None) if is_constant(rhs) => (key, rhs, *op),
                (None, Some(key)) if is_constant(lhs) => (key, lhs, mirrored(*op)?),
                _ => return None,
            };
            comparison(op)?;
            Some(PropertyPredicate {
                key,
                test: PropertyTest::Compare {
                    op,
                    value: (**value).clone(),
                },
            })
        }
        _ => None,
    }
}

/// `key` when `expr` is `x.key` on the entity in `slot`.
pub(crate) fn property_of(expr: &Expr, slot: Slot) -> Option<String> {
    match expr {
        Expr::Property { expr, key } if **expr == Expr::Slot(slot) => Some(key.clone()),
        _ => None,
    }
}

fn is_constant(expr: &Expr) -> bool {
    matches!(expr, Expr::Literal(_) | Expr::Param(_))
}

fn comparison(op: BinaryOp) -> Option<BinaryOp> {
    use BinaryOp::*;
    matches!(
        op,
        Equal | NotEqual | Less | LessEqual | Greater | GreaterEqual
    )
    .then_some(op)
}

/// `c <op> x` as `x <op'> c`.
pub(crate) fn mirrored(op: BinaryOp) -> Option<BinaryOp> {
    use BinaryOp::*;
    Some(match op {
        Less => Greater,
        LessEqual => GreaterEqual,
        Greater => Less,
        GreaterEqual => LessEqual,
        Equal | NotEqual => op,
        _ => return None,
    })
}
