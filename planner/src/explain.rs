//! EXPLAIN output: a plan as an indented operator tree, leaf last.
//! The text is stable (snapshot-tested), so keep changes deliberate.

use crate::expr::{Expr, Slot};
use crate::index_query::{IndexCondition, IndexKind, IndexQuery, SeekArg};
use crate::plan::{
    CreateItem, ExpandSpec, HashJoinSpec, Op, PhysicalPlan, PropertyPredicate, PropertyTest,
    RelTypeName, SetItem, VarExpandSpec,
};
use crate::row_estimate::Estimator;
use crate::shortest_path::ShortestPathSpec;
use crate::Catalog;
use nereid_values::Direction;
use std::fmt::Write;

pub fn explain(plan: &PhysicalPlan) -> String {
    let mut out = String::new();
    let cols: Vec<String> = plan
        .outputs
        .iter()
        .map(|(n, s)| format!("{n}=${s}"))
        .collect();
    let _ = writeln!(out, "ProduceResults [{}]", cols.join(", "));
    render(&plan.root, 1, &mut out);
    out
}

/// One operator of a plan as clients see it (the `plan` entry of an EXPLAIN
/// result's summary): its name, the rest of its EXPLAIN line, the result
/// columns (root only), and its children: the input first, then a nested
/// plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanNode {
    pub operator_type: String,
    pub details: String,
    pub identifiers: Vec<String>,
    /// The rows the planner's estimate gives the operator in one run
    /// (Neo4j's `EstimatedRows`; a nested plan's per run of it).
    pub estimated_rows: f64,
    pub children: Vec<PlanNode>,
}

/// A plan tree is as deep as the plan: its children are dropped on a
/// guarded stack, one level at a time.
impl Drop for PlanNode {
    fn drop(&mut self) {
        let children = std::mem::take(&mut self.children);
        if !children.is_empty() {
            nereid_stack::deeper(|| drop(children));
        }
    }
}

/// The plan as a tree of [`PlanNode`]s, rooted at `ProduceResults`; the
/// same names and details as [`explain`]'s text, with each operator's
/// estimated rows from `catalog`'s statistics.
pub fn plan_tree(plan: &PhysicalPlan, catalog: &dyn Catalog) -> PlanNode {
    let cols: Vec<String> = plan
        .outputs
        .iter()
        .map(|(n, s)| format!("{n}=${s}"))
        .collect();
    let estimator = Estimator::new(catalog);
    PlanNode {
        operator_type: "ProduceResults".into(),
        details: cols.join(", "),
        identifiers: plan.outputs.iter().map(|(n, _)| n.clone()).collect(),
        estimated_rows: estimator.rows(&plan.root),
        children: vec![node(&plan.root, &estimator)],
    }
}

fn node(op: &Op, estimator: &Estimator<'_>) -> PlanNode {
    let line = describe(op);
    let (operator_type, details) = match line.split_once(' ') {
        Some((name, rest)) => (name.to_string(), rest.to_string()),
        None => (line, String::new()),
    };
    let children = op
        .input()
        .into_iter()
        .chain(op.nested())
        .map(|child| nereid_stack::deeper(|| node(child, estimator)))
        .collect();
    PlanNode {
        operator_type,
        details,
        identifiers: Vec::new(),
        estimated_rows: estimator.rows(op),
        children,
    }
}

fn render(op: &Op, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    let line = describe(op);
    let _ = writeln!(out, "{pad}{line}");
    if let Some(nested) = op.nested() {
        let label = match op {
            Op::Merge { .. } => "pattern",
            Op::Union { .. } => "other",
            Op::HashJoin { spec, .. } if spec.build_left => "probe",
            Op::HashJoin { .. } => "build",
            _ => "inner",
        };
        let _ = writeln!(out, "{pad}  {label}:");
        nereid_stack::deeper(|| render(nested, depth + 2, out));
    }
    if let Some(input) = op.input() {
        nereid_stack::deeper(|| render(input, depth + 1, out));
    }
}

/// `HashJoin` with its key pairs (left = right), the kind and the side
/// hashed, the slots the right side adds, and the estimated rows.
fn hash_join(spec: &HashJoinSpec) -> String {
    let keys: Vec<String> = spec
        .left_keys
        .iter()
        .zip(&spec.right_keys)
        .map(|(l, r)| format!("{} = {}", expr(l), expr(r)))
        .collect();
    format!(
        "HashJoin{} on {} adding {} build {} estimated rows {}",
        if spec.outer { " left outer" } else { "" },
        keys.join(" AND "),
        slot_list(&spec.right_slots),
        if spec.build_left { "left" } else { "right" },
        spec.estimated_rows
    )
}

fn describe(op: &Op) -> String {
    match op {
        Op::Argument => "Argument".into(),
        Op::NodeScan { out, labels, .. } => format!("NodeScan ${out}{}", labels_text(labels)),
        Op::AllNodesScan { out, .. } => format!("AllNodesScan ${out}"),
        Op::NodeByLabelScan { out, label, .. } => format!("NodeByLabelScan ${out}:{label}"),
        Op::NodeCountFromStore { out, label, .. } => {
            let label = label.as_ref().map(|l| format!(":{l}")).unwrap_or_default();
            format!("NodeCountFromCountStore ${out}=count(({label}))")
        }
        Op::NodeIndexMinMax {
            extremes,
            node,
            index,
            ..
        } => {
            let keys = index.keys.join(", ");
            let aggregates: Vec<String> = extremes
                .iter()
                .map(|(out, max)| {
                    let f = if *max { "max" } else { "min" };
                    format!("${out}={f}(${node}.{keys})")
                })
                .collect();
            let ends = match (
                extremes.iter().any(|(_, max)| !max),
                extremes.iter().any(|(_, max)| *max),
            ) {
                (true, true) => "from both ends",
                (false, _) => "from the high end",
                (true, false) => "from the low end",
            };
            format!(
                "NodeIndexScan {} RANGE INDEX {} :{} {ends}",
                aggregates.join(", "),
                index.name,
                index.label,
            )
        }
        Op::RelCountFromStore { out, types, .. } => {
            let t = types_text(types);
            format!("RelationshipCountFromCountStore ${out}=count(()-[{t}]->())")
        }
        Op::NodeByIdSeek {
            out, ids, element, ..
        } => {
            let kind = if *element {
                "NodeByElementIdSeek"
            } else {
                "NodeByIdSeek"
            };
            format!("{kind} ${out} IN {}", expr(ids))
        }
        Op::NodeByPropertySeek {
            out,
            labels,
            key,
            value,
            ..
        } => {
            let labels = labels_text(labels);
            format!("NodeByPropertySeek ${out}{labels}({key} = {})", expr(value))
        }
        Op::Expand { spec, .. } => expand(spec),
        Op::RelTypeScan {
            from,
            rel,
            to,
            dir,
            types,
            predicate,
            ..
        } => {
            let (l, r) = arrows(*dir);
            let kind = if *dir == Direction::Both {
                "UndirectedRelationshipTypeScan"
            } else {
                "DirectedRelationshipTypeScan"
            };
            let mut text = format!("{kind} (${from}){l}[${rel}:{}]{r}(${to})", types.join("|"));
            if let Some(p) = predicate {
                text.push_str(&pushed(*rel, p));
            }
            text
        }
        Op::NodeIndexSeek { out, query, .. } => {
            let (conditions, index) = index_query(query);
            format!(
                "{} ${out}:{}({conditions}){index}",
                query.node_operator(),
                query.index.label,
            )
        }
        Op::RelIndexSeek {
            from,
            rel,
            to,
            dir,
            query,
            ..
        } => {
            let (l, r) = arrows(*dir);
            let (conditions, index) = index_query(query);
            format!(
                "{} (${from}){l}[${rel}:{}({conditions})]{r}(${to}){index}",
                query.relationship_operator(*dir != Direction::Both),
                query.index.label,
            )
        }
        Op::NodePropertyScan {
            out,
            labels,
            predicate,
            ..
        } => {
            let labels = labels_text(labels);
            format!("NodePropertyScan ${out}{labels}{}", pushed(*out, predicate))
        }
        Op::Filter { predicate, .. } => format!("Filter {}", expr(predicate)),
        Op::Project { items, .. } => format!("Project {}", assignments(items)),
        Op::Aggregate {
            keys, aggregates, ..
        } => {
            let aggs: Vec<String> = aggregates
                .iter()
                .map(|(s, a)| {
                    let arg = a.arg.as_ref().map(expr).unwrap_or_else(|| "*".into());
                    let d = if a.distinct { "DISTINCT " } else { "" };
                    format!("${s}={:?}({d}{arg})", a.func).to_lowercase()
                })
                .collect();
            format!(
                "Aggregate keys [{}] aggregates [{}]",
                assignments(keys),
                aggs.join(", ")
            )
        }
        Op::Distinct { slots, .. } => format!("Distinct {}", slot_list(slots)),
        Op::Sort { keys, .. } => format!("Sort {}", sort_keys(keys)),
        Op::Top {
            keys, limit, admit, ..
        } => {
            let admit = admit
                .as_ref()
                .map_or(String::new(), |a| format!(" admitting {}", expr(a)));
            format!("Top {} limit {}{admit}", sort_keys(keys), expr(limit))
        }
        Op::Skip { count, .. } => format!("Skip {}", expr(count)),
        Op::Limit { count, .. } => format!("Limit {}", expr(count)),
        Op::Unwind { expr: e, out, .. } => format!("Unwind {} AS ${out}", expr(e)),
        Op::Optional {
            nullable, origin, ..
        } => match origin {
            Some(slot) => format!("Optional nullable {} by batch ${slot}", slot_list(nullable)),
            None => format!("Optional nullable {}", slot_list(nullable)),
        },
        Op::Apply {
            returned,
            unit,
            transactions,
            ..
        } => {
            let apply = match unit {
                true => "Apply unit".into(),
                false => format!("Apply returning {}", slot_list(returned)),
            };
            match transactions {
                None => apply,
                Some(t) => format!(
                    "{apply} in transactions of {} rows on error {:?}{}",
                    expr(&t.rows),
                    t.on_error,
                    t.status.map_or(String::new(), |s| format!(" status ${s}"))
                ),
            }
        }
        Op::LoadCsv { spec, .. } => format!(
            "LoadCsv{} {} AS ${}",
            if spec.headers { " with headers" } else { "" },
            expr(&spec.source),
            spec.out
        ),
        Op::Eager { .. } => "Eager".into(),
        Op::Gather { workers, chain, .. } => {
            format!("Gather workers={workers}, parallel operators={chain}")
        }
        Op::VarExpand { spec, .. } => var_expand(spec),
        Op::ShortestPath { spec, .. } => shortest_path(spec),
        Op::Merge {
            create,
            on_create,
            on_match,
            ..
        } => {
            let mut text = format!("Merge create {}", create_items(create));
            if !on_create.is_empty() {
                text.push_str(&format!(" on create {}", set_items(on_create)));
            }
            if !on_match.is_empty() {
                text.push_str(&format!(" on match {}", set_items(on_match)));
            }
            text
        }
        Op::Union { .. } => "Union".into(),
        Op::HashJoin { spec, .. } => hash_join(spec),
        Op::Create { items, .. } => format!("Create {}", create_items(items)),
        Op::SetProperties { items, .. } => format!("SetProperties {}", set_items(items)),
        Op::Delete { items, detach, .. } => {
            let d = if *detach { "DetachDelete" } else { "Delete" };
            let parts: Vec<String> = items.iter().map(expr).collect();
            format!("{d} {}", parts.join(", "))
        }
        Op::ProcedureCall {
            name,
            args,
            yields,
            filter,
            ..
        } => {
            let a: Vec<String> = args.iter().map(expr).collect();
            let y: Vec<String> = yields.iter().map(|(n, s)| format!("{n}=${s}")).collect();
            let mut text = format!(
                "ProcedureCall {name}({}) yield {}",
                a.join(", "),
                y.join(", ")
            );
            if let Some(f) = filter {
                text.push_str(&format!(" filtering candidates by {}", expr(f)));
            }
            text
        }
    }
}

/// ` WHERE $slot.key <test>` of a predicate pushed into a scan.
fn pushed(slot: Slot, p: &PropertyPredicate) -> String {
    let test = match &p.test {
        PropertyTest::IsNotNull => "IS NOT NULL".to_string(),
        PropertyTest::Compare { op, value } => format!("{op:?} {}", expr(value)),
    };
    format!(" WHERE ${slot}.{} {test}", p.key)
}

/// `Expand ($0)-[$1:T]->($2)`, `ExpandInto` when both ends are bound.
fn expand(spec: &ExpandSpec) -> String {
    let (l, r) = arrows(spec.dir);
    let kind = if spec.into { "ExpandInto" } else { "Expand" };
    let far_end = match &spec.far_end_in {
        Some(list) => format!(" far end In {}", expr(list)),
        None => String::new(),
    };
    let adjacent = match &spec.far_end_adjacent {
        Some(a) => {
            let (l, r) = arrows(a.dir);
            format!(" far end {l}[{}]{r}(${})", types_text(&a.types), a.node)
        }
        None => String::new(),
    };
    let tested: String = spec
        .far_end_where
        .iter()
        .flat_map(|tests| tests.iter())
        .map(|p| format!(" far end{}", pushed(spec.to, p)))
        .collect();
    format!(
        "{kind} (${}){l}[${}{}]{r}(${}){far_end}{adjacent}{tested}",
        spec.from,
        spec.rel,
        types_text(&spec.types),
        spec.to
    )
}

/// `VarExpand ($0)-[$1:T*1..3 {k: v}]->($2)`, `VarExpandInto` when both
/// ends are bound.
fn var_expand(spec: &VarExpandSpec) -> String {
    let (l, r) = arrows(spec.dir);
    let max = spec.max.map(|m| m.to_string()).unwrap_or_default();
    let kind = if spec.into {
        "VarExpandInto"
    } else {
        "VarExpand"
    };
    let backwards = if spec.backwards { " backwards" } else { "" };
    format!(
        "{kind} (${}){l}[${}{}*{}..{max}{}]{r}(${}){backwards}",
        spec.from,
        spec.rels,
        types_text(&spec.types),
        spec.min,
        props(&spec.properties),
        spec.to
    )
}

/// `:A|B`, or nothing for any type.
fn types_text(types: &[String]) -> String {
    if types.is_empty() {
        String::new()
    } else {
        format!(":{}", types.join("|"))
    }
}

/// `ShortestPath ($0)-[$2:T*1..]-($1) path $3 where <predicate>`.
fn shortest_path(spec: &ShortestPathSpec) -> String {
    let (l, r) = arrows(spec.dir);
    let t = types_text(&spec.types);
    let max = spec.max.map(|m| m.to_string()).unwrap_or_default();
    let kind = if spec.all {
        "AllShortestPaths"
    } else {
        "ShortestPath"
    };
    let mut text = format!(
        "{kind} (${}){l}[${}{t}*{}..{max}]{r}(${})",
        spec.from, spec.rels, spec.min, spec.to
    );
    if let Some(path) = spec.path {
        text.push_str(&format!(" path ${path}"));
    }
    for (what, filters) in [("rels", &spec.rel_filters), ("nodes", &spec.node_filters)] {
        for f in filters {
            let quantifier = if f.expect { "all" } else { "none" };
            text.push_str(&format!(
                " {what} {quantifier} ${}: {}",
                f.var,
                expr(&f.body)
            ));
        }
    }
    if let Some(predicate) = &spec.predicate {
        text.push_str(&format!(" where {}", expr(predicate)));
    }
    text
}

fn arrows(dir: Direction) -> (&'static str, &'static str) {
    match dir {
        Direction::Outgoing => ("-", "->"),
        Direction::Incoming => ("<-", "-"),
        Direction::Both => ("-", "-"),
    }
}

fn create_items(items: &[CreateItem]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|i| match i {
            CreateItem::Node {
                out,
                labels,
                dynamic,
                properties,
            } => format!(
                "(${out}{}{}{})",
                labels_text(labels),
                dynamic_text(dynamic),
                props(properties)
            ),
            CreateItem::Rel {
                out,
                from,
                to,
                rel_type,
                properties,
            } => {
                let rel_type = match rel_type {
                    RelTypeName::Static(name) => name.clone(),
                    RelTypeName::Dynamic(e) => format!("$({})", expr(e)),
                };
                format!(
                    "(${from})-[${out}:{rel_type}{}]->(${to})",
                    props(properties)
                )
            }
        })
        .collect();
    parts.join(", ")
}

fn set_items(items: &[SetItem]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|i| match i {
            SetItem::Property { target, key, value } => {
                format!("{}.{key} = {}", expr(target), expr(value))
            }
            SetItem::ReplaceProperties { target, map } => {
                format!("{} = {}", expr(target), expr(map))
            }
            SetItem::MergeProperties { target, map } => {
                format!("{} += {}", expr(target), expr(map))
            }
            SetItem::AddLabels {
                target,
                labels,
                dynamic,
            } => {
                format!(
                    "{}{}{}",
                    expr(target),
                    labels_text(labels),
                    dynamic_text(dynamic)
                )
            }
            SetItem::RemoveLabels {
                target,
                labels,
                dynamic,
            } => {
                format!(
                    "REMOVE {}{}{}",
                    expr(target),
                    labels_text(labels),
                    dynamic_text(dynamic)
                )
            }
        })
        .collect();
    parts.join(", ")
}

fn labels_text(labels: &[String]) -> String {
    labels.iter().map(|l| format!(":{l}")).collect()
}

fn props(p: &[(String, Expr)]) -> String {
    if p.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = p.iter().map(|(k, v)| format!("{k}: {}", expr(v))).collect();
    format!(" {{{}}}", parts.join(", "))
}

/// `:$(expr)` for each dynamic label.
fn dynamic_text(dynamic: &[Expr]) -> String {
    dynamic.iter().map(|e| format!(":$({})", expr(e))).collect()
}

fn slot_list(slots: &[usize]) -> String {
    let parts: Vec<String> = slots.iter().map(|s| format!("${s}")).collect();
    parts.join(", ")
}

fn assignments(items: &[(usize, Expr)]) -> String {
    let parts: Vec<String> = items
        .iter()
        .map(|(s, e)| format!("${s}={}", expr(e)))
        .collect();
    parts.join(", ")
}

fn sort_keys(keys: &[crate::plan::SortKey]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .map(|k| {
            format!(
                "{} {}",
                expr(&k.expr),
                if k.ascending { "ASC" } else { "DESC" }
            )
        })
        .collect();
    parts.join(", ")
}

/// Compact expression text: slots print as `$n`.
pub(crate) fn expr(e: &Expr) -> String {
    nereid_stack::deeper(|| expr_level(e))
}

/// One level of [`expr`]: the recursion goes through it, which guards
/// the stack.
fn expr_level(e: &Expr) -> String {
    match e {
        Expr::Literal(v) => v.to_string(),
        Expr::Param(p) => format!("${{{p}}}"),
        Expr::Slot(s) => format!("${s}"),
        Expr::Property { expr: inner, key } => format!("{}.{key}", expr(inner)),
        Expr::HasLabels {
            expr: inner,
            labels,
        } => format!("{}{}", expr(inner), labels_text(labels)),
        Expr::HasAnyLabel(inner) => format!("{}:%", expr(inner)),
        Expr::HasDynamicNames {
            expr: inner,
            names,
            any,
        } => {
            let quantifier = if *any { "any" } else { "" };
            format!("{}:${quantifier}({})", expr(inner), expr(names))
        }
        Expr::List(items) => {
            let p: Vec<String> = items.iter().map(expr).collect();
            format!("[{}]", p.join(", "))
        }
        Expr::Map(entries) => {
            let p: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{k}: {}", expr(v)))
                .collect();
            format!("{{{}}}", p.join(", "))
        }
        Expr::Not(inner) => format!("NOT {}", expr(inner)),
        Expr::Negate(inner) => format!("-{}", expr(inner)),
        Expr::Binary { op, lhs, rhs } => format!("({} {op:?} {})", expr(lhs), expr(rhs)),
        Expr::IsNull {
            expr: inner,
            negated,
        } => {
            format!(
                "{} IS {}NULL",
                expr(inner),
                if *negated { "NOT " } else { "" }
            )
        }
        Expr::Function { func, args } => {
            let p: Vec<String> = args.iter().map(expr).collect();
            format!("{func:?}({})", p.join(", "))
        }
        Expr::Case { .. } => "CASE ... END".into(),
        Expr::Index { expr: inner, index } => format!("{}[{}]", expr(inner), expr(index)),
        Expr::Slice {
            expr: inner,
            from,
            to,
        } => format!(
            "{}[{}..{}]",
            expr(inner),
            from.as_deref().map(expr).unwrap_or_default(),
            to.as_deref().map(expr).unwrap_or_default()
        ),
        // How often it is evaluated is the executor's business: the plan
        // reads as if it were evaluated per row.
        Expr::Reused { expr: inner, .. } => expr(inner),
        // The nested plan on one line, root first: `Expand ... <- Argument`.
        Expr::PatternList {
            plan,
            projection,
            exists,
            ..
        } => {
            let mut chain = Vec::new();
            let mut op = Some(&**plan);
            while let Some(o) = op {
                chain.push(describe(o));
                op = o.input();
            }
            if *exists {
                format!("exists{{{}}}", chain.join(" <- "))
            } else {
                format!("[{} | {}]", chain.join(" <- "), expr(projection))
            }
        }
        Expr::Degree { node, dir, types } => {
            let (l, r) = arrows(*dir);
            format!("Degree(({}){l}[{}]{r}())", expr(node), types_text(types))
        }
        Expr::Path(parts) => {
            let p: Vec<String> = parts.iter().map(expr).collect();
            format!("path({})", p.join(", "))
        }
        Expr::ListComprehension {
            var,
            list,
            predicate,
            projection,
        } => {
            let mut text = format!("[${var} IN {}", expr(list));
            if let Some(p) = predicate {
                text.push_str(&format!(" WHERE {}", expr(p)));
            }
            if let Some(p) = projection {
                text.push_str(&format!(" | {}", expr(p)));
            }
            text + "]"
        }
        Expr::Quantifier {
            kind,
            var,
            list,
            predicate,
        } => format!(
            "{kind:?}(${var} IN {} WHERE {})",
            expr(list),
            expr(predicate)
        ),
        Expr::Reduce {
            acc,
            init,
            var,
            list,
            step,
        } => format!(
            "reduce(${acc} = {}, ${var} IN {} | {})",
            expr(init),
            expr(list),
            expr(step)
        ),
        Expr::MapProjection {
            base,
            all_properties,
            items,
        } => {
            let mut p: Vec<String> = Vec::new();
            if *all_properties {
                p.push(".*".into());
            }
            p.extend(items.iter().map(|(k, v)| format!("{k}: {}", expr(v))));
            format!("{} {{{}}}", expr(base), p.join(", "))
        }
    }
}

/// `("key = e, key > e, ...", " RANGE INDEX name [ORDER DESC] [LIMIT e]")`:
/// the conditions the index answers, then the index and how it is read.
fn index_query(query: &IndexQuery) -> (String, String) {
    let keys = &query.index.keys;
    let mut conditions: Vec<String> = query
        .equal
        .iter()
        .zip(keys)
        .map(|(arg, key)| match arg {
            SeekArg::Equal(e) => format!("{key} = {}", expr(e)),
            SeekArg::In(e) => format!("{key} IN {}", expr(e)),
        })
        .collect();
    let rest = &keys[query.equal.len().min(keys.len())..];
    if let Some(key) = rest.first() {
        conditions.push(match &query.next {
            IndexCondition::All => format!("{key} IS NOT NULL"),
            IndexCondition::Range { lower, upper } => {
                let mut parts = Vec::new();
                if let Some(end) = lower {
                    let op = if end.inclusive { ">=" } else { ">" };
                    parts.push(format!("{key} {op} {}", expr(&end.value)));
                }
                if let Some(end) = upper {
                    let op = if end.inclusive { "<=" } else { "<" };
                    parts.push(format!("{key} {op} {}", expr(&end.value)));
                }
                parts.join(" AND ")
            }
            IndexCondition::StartsWith(e) => format!("{key} STARTS WITH {}", expr(e)),
            IndexCondition::EndsWith(e) => format!("{key} ENDS WITH {}", expr(e)),
            IndexCondition::Contains(e) => format!("{key} CONTAINS {}", expr(e)),
        });
        conditions.extend(rest[1..].iter().map(|k| format!("{k} IS NOT NULL")));
    }
    let kind = match query.index.kind {
        IndexKind::Range => "RANGE",
        IndexKind::Text => "TEXT",
    };
    let mut text = format!(" {kind} INDEX {}", query.index.name);
    if let Some(descending) = query.order {
        text.push_str(if descending {
            " ORDER DESC"
        } else {
            " ORDER ASC"
        });
    }
    if let Some(limit) = &query.limit {
        let _ = write!(text, " LIMIT {}", expr(limit));
    }
    (conditions.join(", "), text)
}
