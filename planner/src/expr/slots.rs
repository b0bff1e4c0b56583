//! Which slots an expression reads: what rules ask before moving an
//! expression past the operator that binds a slot.

use super::{Expr, Slot};

/// The slots an expression reads.
pub fn slots_of(expr: &Expr, out: &mut Vec<Slot>) {
    nereid_stack::deeper(|| slots_of_level(expr, out))
}

/// One level of [`slots_of`]: the recursion goes through it, which guards
/// the stack.
fn slots_of_level(expr: &Expr, out: &mut Vec<Slot>) {
    use Expr::*;
    match expr {
        Literal(_) | Param(_) => {}
        Slot(s) => out.push(*s),
        Property { expr, .. }
        | HasLabels { expr, .. }
        | HasAnyLabel(expr)
        | Not(expr)
        | Negate(expr) => slots_of(expr, out),
        IsNull { expr, .. } => slots_of(expr, out),
        HasDynamicNames { expr, names, .. } => {
            slots_of(expr, out);
            slots_of(names, out);
        }
        List(items) | Path(items) => items.iter().for_each(|e| slots_of(e, out)),
        // The local variables (`var`, `acc`) are written inside the
        // expression, never read from the row, so they are not reported.
        ListComprehension {
            var,
            list,
            predicate,
            projection,
        } => {
            slots_of(list, out);
            let mut inner = Vec::new();
            if let Some(p) = predicate {
                slots_of(p, &mut inner);
            }
            if let Some(p) = projection {
                slots_of(p, &mut inner);
            }
            out.extend(inner.into_iter().filter(|s| s != var));
        }
        Quantifier {
            var,
            list,
            predicate,
            ..
        } => {
            slots_of(list, out);
            let mut inner = Vec::new();
            slots_of(predicate, &mut inner);
            out.extend(inner.into_iter().filter(|s| s != var));
        }
        Reduce {
            acc,
            init,
            var,
            list,
            step,
        } => {
            slots_of(init, out);
            slots_of(list, out);
            let mut inner = Vec::new();
            slots_of(step, &mut inner);
            out.extend(inner.into_iter().filter(|s| s != var && s != acc));
        }
        MapProjection { base, items, .. } => {
            slots_of(base, out);
            items.iter().for_each(|(_, e)| slots_of(e, out));
        }
        Map(items) => items.iter().for_each(|(_, e)| slots_of(e, out)),
        PatternList { reads, .. } => out.extend(reads.iter().copied()),
        Degree { node, .. } => slots_of(node, out),
        Reused { reads, .. } => out.extend(reads.iter().copied()),
        Binary { lhs, rhs, .. } => {
            slots_of(lhs, out);
            slots_of(rhs, out);
        }
        Function { args, .. } => args.iter().for_each(|e| slots_of(e, out)),
        Case {
            operand,
            whens,
            otherwise,
        } => {
            if let Some(o) = operand {
                slots_of(o, out);
            }
            for (w, t) in whens {
                slots_of(w, out);
                slots_of(t, out);
            }
            if let Some(o) = otherwise {
                slots_of(o, out);
            }
        }
        Index { expr, index } => {
            slots_of(expr, out);
            slots_of(index, out);
        }
        Slice { expr, from, to } => {
            slots_of(expr, out);
            if let Some(f) = from {
                slots_of(f, out);
            }
            if let Some(t) = to {
                slots_of(t, out);
            }
        }
    }
}
