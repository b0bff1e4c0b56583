//! Walking the plan tree: an operator's input and nested plan, the slots it
//! binds, whether a choice is left open, and dropping a deep tree.

use super::{CreateItem, Op, PhysicalPlan};
use crate::expr::Slot;

/// The main input of an operator, by reference or by mutable reference
/// (one list of the operators that have one).
macro_rules! input_of {
    ($op:expr) => {
        match $op {
            Op::Argument => None,
            Op::NodeScan { input, .. }
            | Op::AllNodesScan { input, .. }
            | Op::NodeByLabelScan { input, .. }
            | Op::NodeByIdSeek { input, .. }
            | Op::NodeByPropertySeek { input, .. }
            | Op::NodePropertyScan { input, .. }
            | Op::NodeIndexSeek { input, .. }
            | Op::RelIndexSeek { input, .. }
            | Op::NodeCountFromStore { input, .. }
            | Op::NodeIndexMinMax { input, .. }
            | Op::RelCountFromStore { input, .. }
            | Op::RelTypeScan { input, .. }
            | Op::Expand { input, .. }
            | Op::Filter { input, .. }
            | Op::Project { input, .. }
            | Op::Aggregate { input, .. }
            | Op::Distinct { input, .. }
            | Op::Sort { input, .. }
            | Op::Top { input, .. }
            | Op::Skip { input, .. }
            | Op::Limit { input, .. }
            | Op::Unwind { input, .. }
            | Op::LoadCsv { input, .. }
            | Op::Optional { input, .. }
            | Op::Apply { input, .. }
            | Op::Eager { input }
            | Op::Gather { input, .. }
            | Op::Create { input, .. }
            | Op::SetProperties { input, .. }
            | Op::Delete { input, .. }
            | Op::ProcedureCall { input, .. }
            | Op::VarExpand { input, .. }
            | Op::ShortestPath { input, .. }
            | Op::Merge { input, .. }
            | Op::HashJoin { input, .. }
            | Op::Union { input, .. } => Some(input),
        }
    };
}

/// The nested plan of an operator (one list for both kinds of reference).
macro_rules! nested_of {
    ($op:expr) => {
        match $op {
            Op::Optional { inner, .. } | Op::Apply { inner, .. } => Some(inner),
            Op::Merge { pattern, .. } => Some(pattern),
            Op::Union { other, .. } => Some(other),
            Op::HashJoin { right, .. } => Some(right),
            _ => None,
        }
    };
}

impl PhysicalPlan {
    /// True when the plan holds a `CALL { } IN TRANSACTIONS`, which
    /// commits transactions of its own and so runs only in an auto-commit
    /// query.
    pub fn commits_in_batches(&self) -> bool {
        any_op(&self.root, &|op| {
            matches!(
                op,
                Op::Apply {
                    transactions: Some(_),
                    ..
                }
            )
        })
    }

    /// True when the plan calls procedure `name` anywhere (subqueries
    /// included).
    pub fn calls_procedure(&self, name: &str) -> bool {
        any_op(
            &self.root,
            &|op| matches!(op, Op::ProcedureCall { name: called, .. } if called == name),
        )
    }
}

/// Whether `test` holds for an operator of the tree under `op`.
fn any_op(op: &Op, test: &dyn Fn(&Op) -> bool) -> bool {
    let mut current = Some(op);
    while let Some(op) = current {
        if test(op) {
            return true;
        }
        if op
            .nested()
            .is_some_and(|nested| nereid_stack::deeper(|| any_op(nested, test)))
        {
            return true;
        }
        current = op.input();
    }
    false
}

impl Op {
    /// The operator's main input (`None` for [`Op::Argument`]); the inner
    /// plan of [`Op::Optional`], the pattern of [`Op::Merge`] and the other
    /// branch of [`Op::Union`] are not its input (see [`Op::nested`]).
    pub fn input(&self) -> Option<&Op> {
        input_of!(self).map(|input| &**input)
    }

    pub fn input_mut(&mut self) -> Option<&mut Op> {
        input_of!(self).map(|input| &mut **input)
    }

    /// Plans nested in this operator besides its input: run per row
    /// (`Optional`, `Apply`, `Merge`) or after it (`Union`).
    pub fn nested(&self) -> Option<&Op> {
        nested_of!(self).map(|nested| &**nested)
    }

    pub fn nested_mut(&mut self) -> Option<&mut Op> {
        nested_of!(self).map(|nested| &mut **nested)
    }

    /// Slots this operator itself binds (not those of its input).
    pub fn bound_here(&self) -> Vec<Slot> {
        use Op::*;
        let created = |items: &[CreateItem]| {
            items
                .iter()
                .map(|i| match i {
                    CreateItem::Node { out, .. } | CreateItem::Rel { out, .. } => *out,
                })
                .collect()
        };
        match self {
            NodeScan { out, .. }
            | AllNodesScan { out, .. }
            | NodeByLabelScan { out, .. }
            | NodeByIdSeek { out, .. }
            | NodeByPropertySeek { out, .. }
            | NodePropertyScan { out, .. }
            | NodeIndexSeek { out, .. }
            | NodeCountFromStore { out, .. }
            | RelCountFromStore { out, .. }
            | Unwind { out, .. } => vec![*out],
            NodeIndexMinMax { extremes, .. } => extremes.iter().map(|(out, _)| *out).collect(),
            RelTypeScan { from, rel, to, .. } | RelIndexSeek { from, rel, to, .. } => {
                vec![*from, *rel, *to]
            }
            Expand { spec, .. } => spec.bound_here(),
            Project { items, .. } => items.iter().map(|(s, _)| *s).collect(),
            Aggregate {
                keys, aggregates, ..
            } => keys
                .iter()
                .map(|(s, _)| *s)
                .chain(aggregates.iter().map(|(s, _)| *s))
                .collect(),
            Optional { nullable, .. } => nullable.clone(),
            Apply {
                returned,
                transactions,
                ..
            } => returned
                .iter()
                .copied()
                .chain(transactions.as_ref().and_then(|t| t.status))
                .collect(),
            LoadCsv { spec, .. } => [Some(spec.out), spec.line, spec.file]
                .into_iter()
                .flatten()
                .collect(),
            Create { items, .. } => created(items),
            ProcedureCall { yields, .. } => yields.iter().map(|(_, s)| *s).collect(),
            VarExpand { spec, .. } => spec.bound_here(),
            ShortestPath { spec, .. } => spec.bound_here(),
            Merge { create, .. } => created(create),
            HashJoin { spec, .. } => spec.right_slots.clone(),
            _ => Vec::new(),
        }
    }

    /// True when rows may be reordered/filtered across this operator without
    /// changing its meaning for a predicate over already-bound slots.
    pub fn is_row_preserving_stream(&self) -> bool {
        self.matches_entities()
            || matches!(
                self,
                Op::Unwind { .. } | Op::LoadCsv { .. } | Op::Project { .. } | Op::Filter { .. }
            )
    }

    /// True for the scans, seeks and expands: per input row, the entities
    /// of the store that match, each bound in a row of its own.
    pub fn matches_entities(&self) -> bool {
        matches!(
            self,
            Op::NodeScan { .. }
                | Op::AllNodesScan { .. }
                | Op::NodeByLabelScan { .. }
                | Op::NodeByIdSeek { .. }
                | Op::NodeByPropertySeek { .. }
                | Op::NodePropertyScan { .. }
                | Op::NodeIndexSeek { .. }
                | Op::RelIndexSeek { .. }
                | Op::RelTypeScan { .. }
                | Op::Expand { .. }
                | Op::VarExpand { .. }
                | Op::ShortestPath { .. }
        )
    }

    /// The choice this operator itself leaves open, for the rule
    /// `choose_operators` to make (`None`: the executor can run it as it
    /// is). A plan `plan()` returns has none; the executor refuses one
    /// that does instead of guessing.
    pub fn unresolved(&self) -> Option<&'static str> {
        match self {
            Op::NodeScan { .. } => Some("a node scan whose label index is not chosen"),
            Op::NodeByIdSeek { labels, .. } | Op::NodeIndexSeek { labels, .. }
                if !labels.is_empty() =>
            {
                Some("a seek whose labels are not checked by a filter")
            }
            Op::NodeByPropertySeek { labels, .. } | Op::NodePropertyScan { labels, .. }
                if labels.len() > 1 =>
            {
                Some("a read whose label is not chosen")
            }
            _ => None,
        }
    }
}

/// Takes `op` apart one operator at a time, children detached first, so
/// dropping a plan never recurses through its depth (a chain of 13,000
/// `WITH`s is a plan 13,000 operators deep). Expressions' pattern plans are
/// dropped as usual: they are as deep as one pattern is long.
fn dismantle(op: Op) {
    fn detach(child: Option<&mut Op>, pending: &mut Vec<Op>) {
        if let Some(child) = child.filter(|c| !matches!(c, Op::Argument)) {
            pending.push(std::mem::replace(child, Op::Argument));
        }
    }
    let mut pending = vec![op];
    while let Some(mut op) = pending.pop() {
        detach(op.input_mut(), &mut pending);
        detach(op.nested_mut(), &mut pending);
    }
}

/// Why `Op` has no `Drop` of its own: rules take operators apart by value,
/// which a type with `Drop` forbids. The owners of whole plans drop them
/// through [`dismantle`] instead: the plan the planner hands out, and
/// [`OwnedPlan`]s.
impl Drop for PhysicalPlan {
    fn drop(&mut self) {
        dismantle(std::mem::replace(&mut self.root, Op::Argument));
    }
}

/// An operator tree owned apart from any plan (the executor keeps the
/// nested plans it instantiates per row in them), dropped without
/// recursion like a [`PhysicalPlan`].
#[derive(Clone, Debug, PartialEq)]
pub struct OwnedPlan(Op);

impl OwnedPlan {
    pub fn new(op: Op) -> OwnedPlan {
        OwnedPlan(op)
    }
}

impl std::ops::Deref for OwnedPlan {
    type Target = Op;

    fn deref(&self) -> &Op {
        &self.0
    }
}

impl Drop for OwnedPlan {
    fn drop(&mut self) {
        dismantle(std::mem::replace(&mut self.0, Op::Argument));
    }
}
