//! Predicates that name nodes by id: `id(n) = e`, `e = id(n)`, `id(n) IN
//! list` and the same with `elementId(n)`, where `e` does not read `n`.
//! Recognised once, here, for the rule that turns them into seeks
//! (`rules/id_seek.rs`) and for the estimate that counts them
//! (`cardinality.rs`), so the two never disagree on what is a seek.

use crate::expr::{slots_of, BinaryOp, Expr, Slot};
use nereid_functions::ScalarFunction;

/// What to look up: the list of ids and whether they are element ids.
pub(crate) struct Seek {
    pub(crate) ids: Expr,
    pub(crate) element: bool,
}

/// `(n, seek)` when `predicate` is `id(n) = e`, `e = id(n)` or
/// `id(n) IN e` (or the same with `elementId`) with `e` not reading `n`.
pub(crate) fn seekable(predicate: &Expr) -> Option<(Slot, Seek)> {
    let Expr::Binary { op, lhs, rhs } = predicate else {
        return None;
    };
    let ((slot, element), other, list) = match op {
        BinaryOp::Equal => match (id_of(lhs), id_of(rhs)) {
            (Some(id), _) => (id, rhs, false),
            (None, Some(id)) => (id, lhs, false),
            (None, None) => return None,
        },
        BinaryOp::In => (id_of(lhs)?, rhs, true),
        _ => return None,
    };
    let mut reads = Vec::new();
    slots_of(other, &mut reads);
    if reads.contains(&slot) {
        return None;
    }
    let ids = if list {
        (**other).clone()
    } else {
        Expr::List(vec![(**other).clone()])
    };
    Some((slot, Seek { ids, element }))
}

/// `(slot, element)` when `e` is `id(slot)` or `elementId(slot)`.
fn id_of(e: &Expr) -> Option<(Slot, bool)> {
    let Expr::Function { func, args } = e else {
        return None;
    };
    let element = match func {
        ScalarFunction::Id => false,
        ScalarFunction::ElementId => true,
        _ => return None,
    };
    match args.as_slice() {
        [Expr::Slot(slot)] => Some((*slot, element)),
        _ => None,
    }
}
