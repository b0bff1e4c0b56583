//! The logical plan: what to compute, before any choice of operator.
//!
//! It differs from the physical plan where a choice exists: a node scan
//! carries the *set* of labels it must have (the physical planner picks the
//! label index to use), and sort and limit stay separate operators (a rule
//! may fuse them). Variables already live in slots: the lowering assigns
//! every variable its slot once, so rules never renumber.

use crate::expr::{Expr, Slot};
use crate::index_query::IndexQuery;
use crate::physical::{Aggregate, CreateItem, PropertyPredicate, SetItem, SortKey};
use crate::shortest_path::ShortestPathSpec;
use nereid_values::Direction;

#[derive(Clone, Debug, PartialEq)]
pub enum LogicalPlan {
    Argument,
    NodeScan {
        input: Box<LogicalPlan>,
        out: Slot,
        labels: Vec<String>,
    },
    /// The nodes whose `id(n)` (`elementId(n)` with `element`) is an
    /// element of the list `ids` (evaluated per input row) and that carry
    /// every one of `labels`.
    NodeByIdSeek {
        input: Box<LogicalPlan>,
        out: Slot,
        ids: Expr,
        element: bool,
        labels: Vec<String>,
    },
    /// The nodes whose property `key` may equal `value` (evaluated per
    /// input row) and that carry every one of `labels`: those whose `key`
    /// is that string when it is one (an O-index probe), every node with
    /// the labels otherwise. A superset: the equality filter stays above.
    NodeByPropertySeek {
        input: Box<LogicalPlan>,
        out: Slot,
        key: String,
        value: Expr,
        labels: Vec<String>,
    },
    /// The nodes carrying every one of `labels` whose property passes
    /// `predicate` (exactly the rows `Filter(predicate)` over the
    /// `NodeScan` it replaces keeps), tested by the store on stored values.
    NodePropertyScan {
        input: Box<LogicalPlan>,
        out: Slot,
        labels: Vec<String>,
        predicate: Box<PropertyPredicate>,
    },
    /// The nodes an index finds for `query` (see `Op::NodeIndexSeek`; rule
    /// `node_index_seek`) that also carry every one of `labels` (the
    /// index's own label excluded).
    NodeIndexSeek {
        input: Box<LogicalPlan>,
        out: Slot,
        labels: Vec<String>,
        query: Box<IndexQuery>,
    },
    /// The relationships an index finds for `query`, with their ends (see
    /// `Op::RelationshipIndexSeek`; rule `rel_index_seek`).
    RelIndexSeek {
        input: Box<LogicalPlan>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        query: Box<IndexQuery>,
    },
    /// `count(..)` of the nodes carrying `label` (all nodes for `None`),
    /// read from the store's counts into `out` (rule `count_from_store`).
    NodeCountFromStore {
        input: Box<LogicalPlan>,
        out: Slot,
        label: Option<String>,
    },
    /// `count(..)` of the relationships of one of `types` (any type when
    /// empty), read from the store's counts into `out`.
    RelCountFromStore {
        input: Box<LogicalPlan>,
        out: Slot,
        types: Vec<String>,
    },
    /// The relationships of `types` read by type (see
    /// `Op::RelationshipTypeScan`; rule `rel_type_scan`).
    RelTypeScan {
        input: Box<LogicalPlan>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        types: Vec<String>,
        predicate: Option<Box<PropertyPredicate>>,
    },
    Expand {
        input: Box<LogicalPlan>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        types: Vec<String>,
        into: bool,
    },
    Filter {
        input: Box<LogicalPlan>,
        predicate: Expr,
    },
    Project {
        input: Box<LogicalPlan>,
        items: Vec<(Slot, Expr)>,
    },
    Aggregate {
        input: Box<LogicalPlan>,
        keys: Vec<(Slot, Expr)>,
        aggregates: Vec<(Slot, Aggregate)>,
    },
    Distinct {
        input: Box<LogicalPlan>,
        slots: Vec<Slot>,
    },
    Sort {
        input: Box<LogicalPlan>,
        keys: Vec<SortKey>,
    },
    Top {
        input: Box<LogicalPlan>,
        keys: Vec<SortKey>,
        limit: Expr,
    },
    Skip {
        input: Box<LogicalPlan>,
        count: Expr,
    },
    Limit {
        input: Box<LogicalPlan>,
        count: Expr,
    },
    Unwind {
        input: Box<LogicalPlan>,
        expr: Expr,
        out: Slot,
    },
    Optional {
        input: Box<LogicalPlan>,
        inner: Box<LogicalPlan>,
        nullable: Vec<Slot>,
    },
    Eager {
        input: Box<LogicalPlan>,
    },
    /// `CALL { ... }`: `inner` runs per input row (see `Op::Apply`).
    Apply {
        input: Box<LogicalPlan>,
        inner: Box<LogicalPlan>,
        returned: Vec<Slot>,
        unit: bool,
    },
    Create {
        input: Box<LogicalPlan>,
        items: Vec<CreateItem>,
    },
    SetProperties {
        input: Box<LogicalPlan>,
        items: Vec<SetItem>,
    },
    Delete {
        input: Box<LogicalPlan>,
        items: Vec<Expr>,
        detach: bool,
    },
    ProcedureCall {
        input: Box<LogicalPlan>,
        name: String,
        args: Vec<Expr>,
        yields: Vec<(String, Slot)>,
    },
    VarExpand {
        input: Box<LogicalPlan>,
        from: Slot,
        rels: Slot,
        to: Slot,
        dir: Direction,
        types: Vec<String>,
        min: u64,
        max: Option<u64>,
        into: bool,
        properties: Vec<(String, Expr)>,
    },
    /// `shortestPath` / `allShortestPaths` between two bound nodes (see
    /// `Op::ShortestPath`).
    ShortestPath {
        input: Box<LogicalPlan>,
        spec: Box<ShortestPathSpec>,
    },
    Merge {
        input: Box<LogicalPlan>,
        pattern: Box<LogicalPlan>,
        create: Vec<CreateItem>,
        on_create: Vec<SetItem>,
        on_match: Vec<SetItem>,
    },
    Union {
        input: Box<LogicalPlan>,
        other: Box<LogicalPlan>,
    },
}

impl LogicalPlan {
    /// The operator's input, if it has one (the main input for `Optional`).
    pub fn input_mut(&mut self) -> Option<&mut LogicalPlan> {
        use LogicalPlan::*;
        match self {
            Argument => None,
            NodeScan { input, .. }
            | NodeByIdSeek { input, .. }
            | NodeByPropertySeek { input, .. }
            | NodePropertyScan { input, .. }
            | NodeIndexSeek { input, .. }
            | RelIndexSeek { input, .. }
            | NodeCountFromStore { input, .. }
            | RelCountFromStore { input, .. }
            | RelTypeScan { input, .. }
            | Expand { input, .. }
            | Filter { input, .. }
            | Project { input, .. }
            | Aggregate { input, .. }
            | Distinct { input, .. }
            | Sort { input, .. }
            | Top { input, .. }
            | Skip { input, .. }
            | Limit { input, .. }
            | Unwind { input, .. }
            | Optional { input, .. }
            | Apply { input, .. }
            | Eager { input }
            | Create { input, .. }
            | SetProperties { input, .. }
            | Delete { input, .. }
            | ProcedureCall { input, .. }
            | VarExpand { input, .. }
            | ShortestPath { input, .. }
            | Merge { input, .. }
            | Union { input, .. } => Some(input),
        }
    }

    /// The nested plan besides the input (Optional's inner, Merge's
    /// pattern, Union's other branch).
    pub fn nested_mut(&mut self) -> Option<&mut LogicalPlan> {
        use LogicalPlan::*;
        match self {
            Optional { inner, .. } | Apply { inner, .. } => Some(inner),
            Merge { pattern, .. } => Some(pattern),
            Union { other, .. } => Some(other),
            _ => None,
        }
    }

    /// Slots this operator itself binds (not those of its input).
    pub fn bound_here(&self) -> Vec<Slot> {
        use LogicalPlan::*;
        match self {
            NodeScan { out, .. }
            | NodeByIdSeek { out, .. }
            | NodeByPropertySeek { out, .. }
            | NodePropertyScan { out, .. }
            | NodeIndexSeek { out, .. }
            | NodeCountFromStore { out, .. }
            | RelCountFromStore { out, .. }
            | Unwind { out, .. } => vec![*out],
            RelTypeScan { from, rel, to, .. } | RelIndexSeek { from, rel, to, .. } => {
                vec![*from, *rel, *to]
            }
            Expand { rel, to, into, .. } => {
                if *into {
                    vec![*rel]
                } else {
                    vec![*rel, *to]
                }
            }
            Project { items, .. } => items.iter().map(|(s, _)| *s).collect(),
            Aggregate {
                keys, aggregates, ..
            } => keys
                .iter()
                .map(|(s, _)| *s)
                .chain(aggregates.iter().map(|(s, _)| *s))
                .collect(),
            Optional { nullable, .. } => nullable.clone(),
            Apply { returned, .. } => returned.clone(),
            Create { items, .. } => items
                .iter()
                .map(|i| match i {
                    CreateItem::Node { out, .. } | CreateItem::Rel { out, .. } => *out,
                })
                .collect(),
            ProcedureCall { yields, .. } => yields.iter().map(|(_, s)| *s).collect(),
            VarExpand { rels, to, into, .. } => {
                if *into {
                    vec![*rels]
                } else {
                    vec![*rels, *to]
                }
            }
            ShortestPath { spec, .. } => spec.bound_here(),
            Merge { create, .. } => create
                .iter()
                .map(|i| match i {
                    CreateItem::Node { out, .. } | CreateItem::Rel { out, .. } => *out,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// True when rows may be reordered/filtered across this operator without
    /// changing its meaning for a predicate over already-bound slots.
    pub fn is_row_preserving_stream(&self) -> bool {
        matches!(
            self,
            LogicalPlan::NodeScan { .. }
                | LogicalPlan::NodeByIdSeek { .. }
                | LogicalPlan::NodeByPropertySeek { .. }
                | LogicalPlan::NodePropertyScan { .. }
                | LogicalPlan::NodeIndexSeek { .. }
                | LogicalPlan::RelIndexSeek { .. }
                | LogicalPlan::RelTypeScan { .. }
                | LogicalPlan::Expand { .. }
                | LogicalPlan::VarExpand { .. }
                | LogicalPlan::ShortestPath { .. }
                | LogicalPlan::Unwind { .. }
                | LogicalPlan::Project { .. }
                | LogicalPlan::Filter { .. }
        )
    }
}
