//! `property_seek`: `WHERE n.key = e` on the node a scan binds, with `e` a
//! string literal or anything known only at run time (a parameter, another
//! variable's property), turns the scan into a seek through the store's
//! index of string values, so `MATCH (u:User {email: $email})` costs an
//! index probe instead of a scan of every `User`.
//!
//! The store indexes every string property value (strings are dictionary
//! guis, and REL_VP has an O index over guis), so no index needs creating;
//! other values are inline and unindexed. The seek is therefore a superset
//! and the filter stays: when `e` turns out not to be a string, the seek
//! falls back to the scan it replaced, and the filter decides as before
//! (null, numbers, lists). A literal that is not a string is left to the
//! scan.
//!
//! Preconditions: only filters lie between the predicate and the scan (the
//! pushdown rule has put it there), and `e` does not read the scanned slot.
//! Runs after `id_seek`: a seek by id names fewer nodes.

use super::{replace_scan_under_filters, transform_up, RewriteRule};
use crate::expr::{slots_of, Expr, Slot};
use crate::plan::Op;
use crate::Catalog;
use nereid_values::Value;

pub struct PropertySeek;

impl RewriteRule for PropertySeek {
    fn name(&self) -> &'static str {
        "property_seek"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter { input, predicate } => {
                let input = match seekable(&predicate) {
                    Some((slot, key, value)) => {
                        match replace_scan_under_filters(*input, slot, |input, labels| {
                            Op::NodeByPropertySeek {
                                input,
                                out: slot,
                                key,
                                value,
                                labels,
                            }
                        }) {
                            Ok(seek) | Err(seek) => seek,
                        }
                    }
                    None => *input,
                };
                Op::Filter {
                    input: Box::new(input),
                    predicate,
                }
            }
            other => other,
        })
    }
}

/// `(n, key, e)` when `predicate` is `n.key = e` or `e = n.key`, `e` does
/// not read `n` and is not a literal other than a string.
fn seekable(predicate: &Expr) -> Option<(Slot, String, Expr)> {
    let (lhs, rhs) = predicate.as_equality()?;
    let ((slot, key), value) = match (property_of(lhs), property_of(rhs)) {
        (Some(property), _) => (property, rhs),
        (None, Some(property)) => (property, lhs),
        (None, None) => return None,
    };
    if let Expr::Literal(literal) = value {
        if !matches!(literal, Value::String(_)) {
            return None;
        }
    }
    let mut reads = Vec::new();
    slots_of(value, &mut reads);
    (!reads.contains(&slot)).then(|| (slot, key, value.clone()))
}

/// `(slot, key)` when `e` is `slot.key`.
fn property_of(e: &Expr) -> Option<(Slot, String)> {
    match e {
        Expr::Property { expr, key } => match **expr {
            Expr::Slot(slot) => Some((slot, key.clone())),
            _ => None,
        },
        _ => None,
    }
}
