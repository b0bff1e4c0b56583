//! `shared_property_read`: a property that several stacked filters read is
//! read from the store once per row. LDBC IC3 keeps each message of a
//! date window with `message.creationDate >= $startDate AND
//! message.creationDate < $endDate`; pushed down, that is two filters, and
//! each asked the store for the date of every message it saw (two property
//! reads per message, ~150,000 messages a run). After this rule a
//! projection under the lower filter reads the date into a slot of its own
//! and both filters compare that slot.
//!
//! Exact for the same reason as rule `filter_reads_projection`: a property
//! read gives the same value from the same row wherever it stands in a run
//! of filters (filters neither bind nor change slots, and nothing between
//! them writes), so the slot holds, on every row that reaches an upper
//! filter, what that filter would have read. The read moves only to just
//! under the lowest filter that evaluates it on every row it sees (not
//! behind a short-circuit `AND` / `OR` operand), so no row pays for a read
//! it would not have made, and a read that fails (a property of a number)
//! fails on the same rows as before. A property a projection inside the run
//! already computed is read from that projection's slot.
//!
//! Needs a slot past the lowered plan's ([`Catalog::fresh_slot`]); without
//! one the plan is left as it is. It runs after `choose_operators`, so the
//! filters a scan or seek was chosen from are not split by a projection
//! before that choice is made.

use super::filter_reads_projection::{substitute, unconditional};
use super::{transform_up, RewriteRule};
use crate::expr::{Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct SharedPropertyRead;

impl RewriteRule for SharedPropertyRead {
    fn name(&self) -> &'static str {
        "shared_property_read"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter { input, predicate } => share_reads(*input, predicate, catalog),
            other => other,
        })
    }
}

/// One operator of a run of filters and projections, top-down.
enum Layer {
    Filter(Expr),
    Project(Vec<(Slot, Expr)>),
}

/// The filter `predicate` over `input`, with each property of a slot it
/// reads taken from a slot that the run of filters and projections under
/// it computes (a projection made for it when a lower filter reads it on
/// every row).
fn share_reads(input: Op, mut predicate: Expr, catalog: &dyn Catalog) -> Op {
    let (mut layers, base) = unstack(input);
    for target in property_reads(&predicate) {
        if let Some(slot) = computed_in(&layers, &target) {
            predicate = substitute(predicate, &target, slot);
            continue;
        }
        // The lowest filter of the run that reads `target` on every row,
        // above any projection that binds the slot `target` reads.
        let reach = layers
            .iter()
            .position(|l| binds_read_slot(l, &target))
            .unwrap_or(layers.len());
        let Some(lowest) = layers[..reach]
            .iter()
            .rposition(|l| matches!(l, Layer::Filter(p) if unconditional(p, &target)))
        else {
            continue;
        };
        let Some(slot) = catalog.fresh_slot() else {
            break;
        };
        for layer in &mut layers[..=lowest] {
            if let Layer::Filter(p) = layer {
                *p = substitute(std::mem::replace(p, Expr::Slot(slot)), &target, slot);
            }
        }
        layers.insert(lowest + 1, Layer::Project(vec![(slot, target.clone())]));
        predicate = substitute(predicate, &target, slot);
    }
    let op = layers
        .into_iter()
        .rev()
        .fold(base, |input, layer| match layer {
            Layer::Filter(predicate) => Op::Filter {
                input: Box::new(input),
                predicate,
            },
            Layer::Project(items) => Op::Project {
                input: Box::new(input),
                items,
            },
        });
    Op::Filter {
        input: Box::new(op),
        predicate,
    }
}

/// The filters and projections on top of `op` (top-down) and what lies
/// under them. Only projections of properties of slots count: they bind
/// slots no other operator of the run reads before them, so the run's
/// reads keep their meaning wherever the rule moves a read within it.
fn unstack(op: Op) -> (Vec<Layer>, Op) {
    let mut layers = Vec::new();
    let mut op = op;
    loop {
        op = match op {
            Op::Filter { input, predicate } => {
                layers.push(Layer::Filter(predicate));
                *input
            }
            Op::Project { input, items } if items.iter().all(|(_, e)| slot_property(e)) => {
                layers.push(Layer::Project(items));
                *input
            }
            other => return (layers, other),
        };
    }
}

/// The slot a projection of the run computes `target` into, when no
/// projection above it binds the slot `target` reads (so the value is
/// still the one above).
fn computed_in(layers: &[Layer], target: &Expr) -> Option<Slot> {
    for layer in layers {
        if let Layer::Project(items) = layer {
            if let Some((slot, _)) = items.iter().find(|(_, e)| e == target) {
                return Some(*slot);
            }
        }
        if binds_read_slot(layer, target) {
            return None;
        }
    }
    None
}

/// Whether `layer` is a projection binding the slot `target` reads.
fn binds_read_slot(layer: &Layer, target: &Expr) -> bool {
    let (Layer::Project(items), Expr::Property { expr, .. }) = (layer, target) else {
        return false;
    };
    matches!(**expr, Expr::Slot(read) if items.iter().any(|(slot, _)| *slot == read))
}

/// Whether `e` is `slot.key`.
fn slot_property(e: &Expr) -> bool {
    matches!(e, Expr::Property { expr, .. } if matches!(**expr, Expr::Slot(_)))
}

/// The distinct `slot.key` reads `e` evaluates on every row (those
/// [`substitute`] reaches that [`unconditional`] also holds), in order.
fn property_reads(e: &Expr) -> Vec<Expr> {
    let mut found: Vec<Expr> = Vec::new();
    collect(e, e, &mut found);
    found
}

fn collect(whole: &Expr, e: &Expr, found: &mut Vec<Expr>) {
    if slot_property(e) {
        if unconditional(whole, e) && !found.contains(e) {
            found.push(e.clone());
        }
        return;
    }
    match e {
        Expr::Binary { lhs, rhs, .. } => {
            collect(whole, lhs, found);
            collect(whole, rhs, found);
        }
        Expr::Not(inner) | Expr::Negate(inner) => collect(whole, inner, found),
        Expr::IsNull { expr, .. } => collect(whole, expr, found),
        _ => {}
    }
}
