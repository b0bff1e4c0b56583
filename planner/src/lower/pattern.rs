//! Lowering of MATCH and CREATE patterns.

use super::expr::lower_expr;
use super::label_test::{dynamic_test, label_test};
use super::scope::{Scope, Slots, VarKind};
use crate::error::PlanError;
use crate::expr::{BinaryOp, Expr, Slot};
use crate::plan::{CreateItem, ExpandSpec, Op, RelTypeName, SetItem, VarExpandSpec};
use nereid_cypher::ast::{self, ExprKind, NodePattern, PatternPart, RelPattern};
use nereid_values::Direction;

/// State shared by the parts of one MATCH clause.
pub(crate) struct MatchState<'a> {
    pub scope: &'a mut Scope,
    pub slots: &'a mut Slots,
    /// Relationships bound by this clause (for uniqueness).
    pub rels: Vec<super::MatchedRel>,
    /// Slots this clause bound (OPTIONAL MATCH nulls them when no match).
    pub bound: Vec<Slot>,
}

fn filter(plan: Op, predicate: Expr) -> Op {
    Op::Filter {
        input: Box::new(plan),
        predicate,
    }
}

fn eq(lhs: Expr, rhs: Expr) -> Expr {
    Expr::Binary {
        op: BinaryOp::Equal,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    }
}

/// Filters for an inline property map `{k: v, ...}` on the entity in `slot`.
fn property_filters(
    mut plan: Op,
    slot: Slot,
    props: &Option<ast::Expr>,
    scope: &Scope,
) -> Result<Op, PlanError> {
    let Some(props) = props else {
        return Ok(plan);
    };
    match &props.kind {
        ExprKind::Map(entries) => {
            for (key, value) in entries {
                let value = lower_expr(value, scope, &mut None)?;
                plan = filter(
                    plan,
                    eq(
                        Expr::Property {
                            expr: Box::new(Expr::Slot(slot)),
                            key: key.clone(),
                        },
                        value,
                    ),
                );
            }
            Ok(plan)
        }
        _ => Err(PlanError::unsupported(
            "A parameter as a property map in MATCH",
            props.span.start,
        )),
    }
}

/// Binds (or reuses) the node of a pattern, scanning when it is new.
pub(crate) fn match_node(
    mut plan: Op,
    node: &NodePattern,
    st: &mut MatchState<'_>,
) -> Result<(Op, Slot), PlanError> {
    let existing = node
        .variable
        .as_ref()
        .and_then(|v| st.scope.get(&v.name).map(|b| (v, b)));
    let slot = match existing {
        Some((v, (slot, kind))) => {
            if kind != VarKind::Node && kind != VarKind::Value {
                return Err(PlanError::semantic(
                    format!(
                        "Type mismatch: `{}` defined with conflicting type (expected Node)",
                        v.name
                    ),
                    v.span.start,
                ));
            }
            slot
        }
        None => {
            let slot = st.slots.fresh();
            if let Some(v) = &node.variable {
                st.scope.bind(&v.name, slot, VarKind::Node);
            }
            st.bound.push(slot);
            plan = Op::NodeScan {
                input: Box::new(plan),
                out: slot,
                labels: Vec::new(),
            };
            slot
        }
    };
    plan = node_filters(plan, slot, node, st.scope)?;
    Ok((plan, slot))
}

/// A node pattern's tests on its bound node, in the order written: plain
/// labels, dynamic labels, label expressions, then property equalities
/// (rules later fold them into scans and seeks).
fn node_filters(
    mut plan: Op,
    slot: Slot,
    node: &NodePattern,
    scope: &Scope,
) -> Result<Op, PlanError> {
    if !node.labels.is_empty() {
        plan = filter(
            plan,
            Expr::HasLabels {
                expr: Box::new(Expr::Slot(slot)),
                labels: node.labels.clone(),
            },
        );
    }
    let plan = entity_filters(plan, slot, &node.dynamic_labels, |e, d| {
        dynamic_test(e, d, scope)
    })?;
    let plan = entity_filters(plan, slot, &node.label_filters, |e, l| {
        label_test(e, l, scope)
    })?;
    property_filters(plan, slot, &node.properties, scope)
}

/// `(n:$(expr))`, `(n:A|B)`, `-[r:!T]->` in a MATCH (or MERGE's match):
/// a filter on the bound entity for each of `items`, built by `test`.
fn entity_filters<T>(
    mut plan: Op,
    slot: Slot,
    items: impl IntoIterator<Item = T>,
    test: impl Fn(&Expr, T) -> Result<Expr, PlanError>,
) -> Result<Op, PlanError> {
    let entity = Expr::Slot(slot);
    for item in items {
        plan = filter(plan, test(&entity, item)?);
    }
    Ok(plan)
}

fn is_bound(node: &NodePattern, scope: &Scope) -> bool {
    node.variable
        .as_ref()
        .is_some_and(|v| scope.get(&v.name).is_some())
}

/// Lowers one comma-separated part of a MATCH pattern onto `plan`.
pub(crate) fn lower_match_part(
    plan: Op,
    part: &PatternPart,
    st: &mut MatchState<'_>,
) -> Result<Op, PlanError> {
    if part.kind != ast::PathKind::Normal {
        return super::shortest_path::lower_shortest_part(plan, part, st);
    }
    let (mut plan, node_slots, rel_slots) = match_element(plan, &part.element, st)?;
    if let Some(path_var) = &part.variable {
        plan = bind_path(plan, path_var, &node_slots, &rel_slots, st.scope, st.slots);
        if let Some((s, _)) = st.scope.get(&path_var.name) {
            st.bound.push(s);
        }
    }
    Ok(plan)
}

/// The slot range a variable-length relationship covers: `(min, max)`.
fn length_bounds(length: (Option<u64>, Option<u64>)) -> (u64, Option<u64>) {
    (length.0.unwrap_or(1), length.1)
}

/// Lowers a pattern element onto `plan`; returns the slots of its nodes and
/// relationships in written order.
pub(crate) fn match_element(
    mut plan: Op,
    el: &ast::PatternElement,
    st: &mut MatchState<'_>,
) -> Result<(Op, Vec<Slot>, Vec<Slot>), PlanError> {
    // Written order: nodes[0] rels[0] nodes[1] ...
    let mut nodes: Vec<&NodePattern> = vec![&el.start];
    let mut rels: Vec<&RelPattern> = Vec::new();
    for (r, n) in &el.chain {
        rels.push(r);
        nodes.push(n);
    }
    // Start from a bound end when only the far end is bound (not across a
    // variable-length relationship, whose list must stay in written order).
    let reversed = !is_bound(nodes[0], st.scope)
        && rels.iter().all(|r| r.length.is_none())
        && nodes.len() > 1
        && nodes.last().is_some_and(|n| is_bound(n, st.scope));
    let order: Vec<usize> = if reversed {
        (0..nodes.len()).rev().collect()
    } else {
        (0..nodes.len()).collect()
    };

    let mut node_slots = vec![0; nodes.len()];
    let mut rel_slots = vec![0; rels.len()];
    let (p, first) = match_node(plan, nodes[order[0]], st)?;
    plan = p;
    node_slots[order[0]] = first;
    let mut current = first;
    for w in order.windows(2) {
        let (from_idx, to_idx) = (w[0], w[1]);
        let rel_idx = from_idx.min(to_idx);
        let rel = rels[rel_idx];
        let dir = if reversed {
            rel.direction.reversed()
        } else {
            rel.direction
        };
        // A relationship bound earlier is matched by expanding into a fresh
        // slot and keeping the rows where it equals the bound one.
        let mut bound_rel = None;
        let earlier = rel
            .variable
            .as_ref()
            .and_then(|v| st.scope.get(&v.name).map(|b| (v, b)));
        let rel_slot = match (&rel.variable, earlier) {
            (_, Some((v, (bound, kind)))) => {
                let expected = if rel.length.is_some() {
                    VarKind::Value
                } else {
                    VarKind::Relationship
                };
                if kind != expected && kind != VarKind::Value {
                    return Err(PlanError::semantic(
                        format!(
                            "Type mismatch: `{}` defined with conflicting type (expected Relationship)",
                            v.name
                        ),
                        v.span.start,
                    ));
                }
                bound_rel = Some(bound);
                st.slots.fresh()
            }
            (Some(v), None) => {
                let s = st.slots.fresh();
                let kind = if rel.length.is_some() {
                    VarKind::Value
                } else {
                    VarKind::Relationship
                };
                st.scope.bind(&v.name, s, kind);
                s
            }
            (None, None) => st.slots.fresh(),
        };
        st.bound.push(rel_slot);
        st.rels.push(super::MatchedRel {
            slot: rel_slot,
            list: rel.length.is_some(),
            // Static types only: `types` is empty beside a dynamic type or
            // a type expression, which may then match any type.
            types: rel.types.clone(),
        });
        let target = nodes[to_idx];
        let bound_target = target
            .variable
            .as_ref()
            .and_then(|v| st.scope.get(&v.name))
            .map(|(s, _)| s);
        let (to_slot, into) = match bound_target {
            Some(s) => (s, true),
            None => {
                let s = st.slots.fresh();
                if let Some(v) = &target.variable {
                    st.scope.bind(&v.name, s, VarKind::Node);
                }
                st.bound.push(s);
                (s, false)
            }
        };
        if let (Some(_), Some(dynamic)) = (rel.length, &rel.dynamic_type) {
            return Err(PlanError::unsupported(
                "A dynamic relationship type on a variable-length relationship",
                dynamic.expr.span.start,
            ));
        }
        if let (Some(_), Some(_)) = (rel.length, &rel.type_filter) {
            return Err(PlanError::unsupported(
                "A relationship type expression other than `:A|B` on a variable-length relationship",
                rel.span.start,
            ));
        }
        if let Some(length) = rel.length {
            let (min, max) = length_bounds(length);
            plan = Op::VarExpand {
                input: Box::new(plan),
                spec: VarExpandSpec {
                    from: current,
                    rels: rel_slot,
                    to: to_slot,
                    dir,
                    types: rel.types.clone(),
                    min,
                    max,
                    into,
                    properties: property_list(&rel.properties, st.scope)?,
                    rels_unread: false,
                    backwards: false,
                },
            };
            // A bound list of relationships is matched by enumerating the paths and
            // keeping the one that follows exactly that list, in order.
            if let Some(bound) = bound_rel {
                plan = filter(plan, eq(Expr::Slot(rel_slot), Expr::Slot(bound)));
            }
        } else {
            plan = Op::Expand {
                input: Box::new(plan),
                spec: ExpandSpec {
                    from: current,
                    rel: rel_slot,
                    to: to_slot,
                    dir,
                    types: rel.types.clone(),
                    into,
                    dead: Vec::new(),
                    far_end_in: None,
                    far_end_adjacent: None,
                    far_end_where: None,
                },
            };
            if let Some(bound) = bound_rel {
                plan = filter(plan, eq(Expr::Slot(rel_slot), Expr::Slot(bound)));
            }
            plan = entity_filters(plan, rel_slot, &rel.dynamic_type, |e, d| {
                dynamic_test(e, d, st.scope)
            })?;
            plan = entity_filters(plan, rel_slot, &rel.type_filter, |e, l| {
                label_test(e, l, st.scope)
            })?;
            plan = property_filters(plan, rel_slot, &rel.properties, st.scope)?;
        }
        plan = node_filters(plan, to_slot, target, st.scope)?;
        node_slots[to_idx] = to_slot;
        rel_slots[rel_idx] = rel_slot;
        current = to_slot;
    }
    Ok((plan, node_slots, rel_slots))
}

/// The `(key, value)` pairs of an inline property map (a literal map only).
pub(crate) fn property_list(
    props: &Option<ast::Expr>,
    scope: &Scope,
) -> Result<Vec<(String, Expr)>, PlanError> {
    let Some(props) = props else {
        return Ok(Vec::new());
    };
    match &props.kind {
        ExprKind::Map(entries) => entries
            .iter()
            .map(|(k, v)| Ok((k.clone(), lower_expr(v, scope, &mut None)?)))
            .collect(),
        _ => Err(PlanError::unsupported(
            "A parameter as a property map in a pattern",
            props.span.start,
        )),
    }
}

pub(crate) fn bind_path(
    plan: Op,
    var: &ast::Ident,
    nodes: &[Slot],
    rels: &[Slot],
    scope: &mut Scope,
    slots: &mut Slots,
) -> Op {
    let mut parts = vec![Expr::Slot(nodes[0])];
    for (r, n) in rels.iter().zip(&nodes[1..]) {
        parts.push(Expr::Slot(*r));
        parts.push(Expr::Slot(*n));
    }
    let slot = slots.fresh();
    scope.bind(&var.name, slot, VarKind::Path);
    Op::Project {
        input: Box::new(plan),
        items: vec![(slot, Expr::Path(parts))],
    }
}

/// Lowers a CREATE clause: one Create operator for all its parts, then the
/// named paths and parameter property maps.
pub(crate) fn lower_create(
    plan: Op,
    parts: &[PatternPart],
    scope: &mut Scope,
    slots: &mut Slots,
) -> Result<Op, PlanError> {
    let mut items = Vec::new();
    let mut sets = Vec::new();
    let mut paths = Vec::new();
    for part in parts {
        super::shortest_path::reject_in_update(part, "CREATE")?;
        let el = &part.element;
        let mut node_slots = vec![create_node(&el.start, scope, slots, &mut items, &mut sets)?];
        let mut rel_slots = Vec::new();
        for (rel, node) in &el.chain {
            let left = *node_slots.last().unwrap_or(&0);
            let right = create_node(node, scope, slots, &mut items, &mut sets)?;
            let rel_type = created_rel_type(rel, "CREATE", scope)?;
            let (from, to) = match rel.direction {
                Direction::Outgoing => (left, right),
                Direction::Incoming => (right, left),
                Direction::Both => {
                    return Err(PlanError::semantic(
                        "Only directed relationships are supported in CREATE",
                        rel.span.start,
                    ))
                }
            };
            if rel.length.is_some() {
                return Err(PlanError::semantic(
                    "Variable length relationships cannot be used in CREATE",
                    rel.span.start,
                ));
            }
            let out = match &rel.variable {
                Some(v) if scope.get(&v.name).is_some() => {
                    return Err(PlanError::semantic(
                        format!("Variable `{}` already declared", v.name),
                        v.span.start,
                    ))
                }
                Some(v) => {
                    let s = slots.fresh();
                    scope.bind(&v.name, s, VarKind::Relationship);
                    s
                }
                None => slots.fresh(),
            };
            let properties = create_properties(out, &rel.properties, scope, &mut sets)?;
            items.push(CreateItem::Rel {
                out,
                from,
                to,
                rel_type,
                properties,
            });
            node_slots.push(right);
            rel_slots.push(out);
        }
        if let Some(var) = &part.variable {
            paths.push((var, node_slots, rel_slots));
        }
    }
    let mut plan = Op::Create {
        input: Box::new(plan),
        items,
    };
    if !sets.is_empty() {
        plan = Op::SetProperties {
            input: Box::new(plan),
            items: sets,
        };
    }
    for (var, nodes, rels) in paths {
        plan = bind_path(plan, var, &nodes, &rels, scope, slots);
    }
    Ok(plan)
}

fn create_node(
    node: &NodePattern,
    scope: &mut Scope,
    slots: &mut Slots,
    items: &mut Vec<CreateItem>,
    sets: &mut Vec<SetItem>,
) -> Result<Slot, PlanError> {
    if let Some(v) = &node.variable {
        if let Some((slot, _)) = scope.get(&v.name) {
            if !node.labels.is_empty()
                || !node.dynamic_labels.is_empty()
                || node.properties.is_some()
            {
                return Err(PlanError::semantic(
                    format!("Variable `{}` already declared", v.name),
                    v.span.start,
                ));
            }
            return Ok(slot);
        }
    }
    let out = slots.fresh();
    if let Some(v) = &node.variable {
        scope.bind(&v.name, out, VarKind::Node);
    }
    let properties = create_properties(out, &node.properties, scope, sets)?;
    items.push(CreateItem::Node {
        out,
        labels: node.labels.clone(),
        dynamic: created_dynamic_labels(node, scope)?,
        properties,
    });
    Ok(out)
}

/// The label expressions of a node CREATE or MERGE makes (`$any` has no
/// meaning there: every name is added).
pub(crate) fn created_dynamic_labels(
    node: &NodePattern,
    scope: &Scope,
) -> Result<Vec<Expr>, PlanError> {
    node.dynamic_labels
        .iter()
        .map(|names| lower_expr(&names.expr, scope, &mut None))
        .collect()
}

/// The one type of a relationship CREATE or MERGE makes: written, or named
/// by `:$(expr)` for each row.
pub(crate) fn created_rel_type(
    rel: &RelPattern,
    verb: &str,
    scope: &Scope,
) -> Result<RelTypeName, PlanError> {
    match (rel.types.as_slice(), &rel.dynamic_type) {
        ([rel_type], None) => Ok(RelTypeName::Static(rel_type.clone())),
        ([], Some(dynamic)) => Ok(RelTypeName::Dynamic(lower_expr(
            &dynamic.expr,
            scope,
            &mut None,
        )?)),
        _ => Err(PlanError::semantic(
            format!("Exactly one relationship type must be specified for {verb}"),
            rel.span.start,
        )),
    }
}

/// A literal map becomes the created entity's properties; a parameter map is
/// applied right after creation with `SET x = $map`.
fn create_properties(
    slot: Slot,
    props: &Option<ast::Expr>,
    scope: &Scope,
    sets: &mut Vec<SetItem>,
) -> Result<Vec<(String, Expr)>, PlanError> {
    let Some(props) = props else {
        return Ok(Vec::new());
    };
    match &props.kind {
        ExprKind::Map(entries) => entries
            .iter()
            .map(|(k, v)| Ok((k.clone(), lower_expr(v, scope, &mut None)?)))
            .collect(),
        _ => {
            let map = lower_expr(props, scope, &mut None)?;
            sets.push(SetItem::ReplaceProperties {
                target: Expr::Slot(slot),
                map,
            });
            Ok(Vec::new())
        }
    }
}
