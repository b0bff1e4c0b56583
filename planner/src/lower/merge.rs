//! Lowering of MERGE: the pattern becomes a read plan run per input row
//! (see [`crate::plan::Op::Merge`]) plus the create items that fill the
//! very same slots when the read finds nothing, so the clauses after MERGE
//! see one set of variables either way.

use super::pattern::{
    bind_path, created_dynamic_labels, created_rel_type, match_element, property_list, MatchState,
};
use super::scope::{Scope, Slots};
use super::{lower_set_item, uniqueness};
use crate::error::PlanError;
use crate::expr::Slot;
use crate::plan::{CreateItem, Op};
use nereid_cypher::ast;
use nereid_values::Direction;

pub(crate) fn lower_merge(
    plan: Op,
    merge: &ast::Merge,
    scope: &mut Scope,
    slots: &mut Slots,
) -> Result<Op, PlanError> {
    let part = &merge.pattern;
    super::shortest_path::reject_in_update(part, "MERGE")?;
    let el = &part.element;
    let before = scope.clone();
    let mut st = MatchState {
        scope,
        slots,
        rels: Vec::new(),
        bound: Vec::new(),
    };
    let (pattern, node_slots, rel_slots) = match_element(Op::Argument, el, &mut st)?;
    let pattern = uniqueness(pattern, &st.rels, st.slots);

    let mut create = Vec::new();
    let mut created: Vec<Slot> = Vec::new();
    let nodes = std::iter::once(&el.start).chain(el.chain.iter().map(|(_, n)| n));
    for (node, &slot) in nodes.zip(&node_slots) {
        let already_bound = node
            .variable
            .as_ref()
            .is_some_and(|v| before.get(&v.name).is_some());
        if already_bound || created.contains(&slot) {
            continue;
        }
        created.push(slot);
        create.push(CreateItem::Node {
            out: slot,
            labels: node.labels.clone(),
            dynamic: created_dynamic_labels(node, st.scope)?,
            properties: property_list(&node.properties, st.scope)?,
        });
    }
    for (i, (rel, _)) in el.chain.iter().enumerate() {
        if rel.length.is_some() {
            return Err(PlanError::semantic(
                "Variable length relationships cannot be used in MERGE",
                rel.span.start,
            ));
        }
        let rel_type = created_rel_type(rel, "MERGE", st.scope)?;
        let (left, right) = (node_slots[i], node_slots[i + 1]);
        // An undirected MERGE creates the relationship left to right.
        let (from, to) = match rel.direction {
            Direction::Incoming => (right, left),
            Direction::Outgoing | Direction::Both => (left, right),
        };
        create.push(CreateItem::Rel {
            out: rel_slots[i],
            from,
            to,
            rel_type,
            properties: property_list(&rel.properties, st.scope)?,
        });
    }

    let scope = &mut *st.scope;
    let set_items = |items: &[ast::SetItem]| -> Result<Vec<_>, PlanError> {
        items.iter().map(|i| lower_set_item(i, scope)).collect()
    };
    let on_create = set_items(&merge.on_create)?;
    let on_match = set_items(&merge.on_match)?;
    let mut plan = Op::Merge {
        input: Box::new(plan),
        pattern: Box::new(pattern),
        create,
        on_create,
        on_match,
    };
    if let Some(var) = &part.variable {
        plan = bind_path(plan, var, &node_slots, &rel_slots, scope, st.slots);
    }
    Ok(plan)
}
