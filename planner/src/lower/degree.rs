//! Counts of a node's relationships read as its degree.
//!
//! `COUNT { (n)<-[:T]-() }` and `size([(n)-[:T]-() | 1])` lower to the size
//! of a nested plan's list: an `Expand` from the outer row's `n`, a row per
//! relationship, counted afterwards (SNB IC14 asks it of persons with
//! thousands of messages). When the nested plan is exactly that one hop —
//! the far end fresh, unlabelled and untested, the relationship untested,
//! nothing after the expand — the count is the number of relationships the
//! expand would list, which the store counts in place ([`Expr::Degree`]).
//! A projection that could fail per row (`| 1 / 0`) keeps the list: the
//! count must not hide the error the rows would raise.

use crate::expr::Expr;
use crate::plan::Op;
use nereid_functions::ScalarFunction;

/// `size(list)`, as [`Expr::Degree`] when `list` is a one-hop pattern's
/// list that the degree counts exactly.
pub(crate) fn size_of(list: Expr) -> Expr {
    match degree_of(&list) {
        Some(degree) => degree,
        None => Expr::Function {
            func: ScalarFunction::Size,
            args: vec![list],
        },
    }
}

fn degree_of(list: &Expr) -> Option<Expr> {
    let Expr::PatternList {
        plan,
        projection,
        exists: false,
        ..
    } = list
    else {
        return None;
    };
    // Literals and slots never fail, so skipping their evaluation changes
    // nothing but the time.
    if !matches!(**projection, Expr::Literal(_) | Expr::Slot(_)) {
        return None;
    }
    let Op::Expand { input, spec } = &**plan else {
        return None;
    };
    let one_hop = matches!(**input, Op::Argument) && !spec.into && spec.far_end_in.is_none();
    one_hop.then(|| Expr::Degree {
        node: Box::new(Expr::Slot(spec.from)),
        dir: spec.dir,
        types: spec.types.clone(),
    })
}
