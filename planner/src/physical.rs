//! The physical plan: what the dataflow executor (dfe) runs.
//!
//! Row model: every row of a query has the same fixed number of *slots*
//! ([`PhysicalPlan::slot_count`]); the planner assigns each variable and each
//! intermediate value a slot once, and operators only fill slots (unfilled
//! slots are `null`). A batch is therefore a set of `slot_count` columns.
//!
//! Every operator except [`Op::Argument`] has an `input`. Leaves that scan
//! (e.g. [`Op::NodeByLabelScan`]) produce, *for each input row*, that row
//! extended with each scanned entity, so chaining two scans is a cartesian
//! product and the right side of [`Op::Optional`] sees the outer row through
//! its own `Argument` leaf.

use crate::expr::{BinaryOp, Expr, Slot};
use crate::index_query::IndexQuery;
use crate::shortest_path::ShortestPathSpec;
use nereid_functions::AggregateFunction;
use nereid_values::Direction;

/// A complete executable plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PhysicalPlan {
    pub root: Op,
    /// Number of slots in every row.
    pub slot_count: usize,
    /// Result columns, in order: (name, slot).
    pub outputs: Vec<(String, Slot)>,
    /// True when the plan contains an updating operator.
    pub writes: bool,
    /// True when the plan reads the graph.
    pub reads: bool,
}

/// A physical operator.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Emits one row: the enclosing [`Op::Optional`]'s current outer row, or
    /// at the top of the plan a single row of nulls.
    Argument,
    /// For each input row, every visible node into `out`.
    AllNodesScan {
        input: Box<Op>,
        out: Slot,
    },
    /// For each input row, the visible nodes whose `id(n)` (or, with
    /// `element`, `elementId(n)`) is an element of the list `ids` (evaluated
    /// for that row; duplicates and values of another type ignored) into
    /// `out`.
    NodeByIdSeek {
        input: Box<Op>,
        out: Slot,
        ids: Expr,
        element: bool,
    },
    /// For each input row, the visible nodes (carrying `label`, when
    /// given) whose property `key` is `value` when that evaluates to a
    /// string, found through the store's index of string values; when it
    /// is not a string, every visible node (with `label`). Candidates: the
    /// equality filter above the seek decides.
    NodeByPropertySeek {
        input: Box<Op>,
        out: Slot,
        label: Option<String>,
        key: String,
        value: Expr,
    },
    /// For each input row, every visible node (carrying `label`, when
    /// given) whose property passes `predicate`, tested by the store on
    /// the stored values (a relation scan of the vertex properties).
    NodePropertyScan {
        input: Box<Op>,
        out: Slot,
        label: Option<String>,
        predicate: Box<PropertyPredicate>,
    },
    /// For each input row, the visible nodes an index finds for `query`
    /// (its values evaluated for that row) into `out`: exactly the nodes
    /// with the index's label whose keys satisfy the query under Cypher's
    /// comparisons, in key order when `query.order` asks. When the store
    /// cannot answer (the index is gone, or the values are of a kind it
    /// cannot range over) the executor scans the label and tests the same
    /// conditions, so the rows never depend on the index. EXPLAIN names it
    /// as Neo4j does (`NodeIndexSeek`, `NodeUniqueIndexSeek`,
    /// `NodeIndexSeekByRange`, `NodeIndexScan`, ...).
    NodeIndexSeek {
        input: Box<Op>,
        out: Slot,
        query: Box<IndexQuery>,
    },
    /// For each input row, the visible relationships a relationship index
    /// finds for `query` into `rel`, with their ends as
    /// [`Op::RelationshipTypeScan`] binds them (`Both`: one row each way, a
    /// self-loop once); the same fallback as [`Op::NodeIndexSeek`] (a scan
    /// of the type). EXPLAIN: `DirectedRelationshipIndexSeek`, ...
    RelationshipIndexSeek {
        input: Box<Op>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        query: Box<IndexQuery>,
    },
    /// For each input row, every visible node with `label` into `out`.
    NodeByLabelScan {
        input: Box<Op>,
        out: Slot,
        label: String,
    },
    /// The number of visible nodes carrying `label` (all nodes for `None`),
    /// from the store's per-snapshot counts, as one row holding it in `out`
    /// (like an aggregation without keys: exactly one row, other slots
    /// null). Its input is the plan's `Argument`.
    NodeCountFromCountStore {
        input: Box<Op>,
        out: Slot,
        label: Option<String>,
    },
    /// [`Op::NodeCountFromCountStore`] for the relationships of one of
    /// `types` (any type when empty).
    RelationshipCountFromCountStore {
        input: Box<Op>,
        out: Slot,
        types: Vec<String>,
    },
    /// For each input row, every visible relationship of one of `types`,
    /// read by type from the store (Neo4j's `DirectedRelationshipTypeScan`
    /// / `UndirectedRelationshipTypeScan`): its start node into `from` and
    /// end node into `to` for `Outgoing` (the reverse for `Incoming`); for
    /// `Both`, one row each way, a self-loop once (the rows AllNodesScan +
    /// Expand would give). With `predicate`, only relationships whose
    /// property passes it, tested by the store on the stored value.
    RelationshipTypeScan {
        input: Box<Op>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        types: Vec<String>,
        predicate: Option<Box<PropertyPredicate>>,
    },
    /// For each input row, each relationship of the node in `from` (in `dir`,
    /// of one of `types`, any type when empty) into `rel` and its other end
    /// into `to`. When `into` is true, `to` is already bound and only
    /// relationships reaching that node are kept. A null `from` yields no rows.
    Expand {
        input: Box<Op>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        types: Vec<String>,
        into: bool,
    },
    /// Keeps rows where `predicate` is `true` (not `false`, not `null`).
    Filter {
        input: Box<Op>,
        predicate: Expr,
    },
    /// Evaluates each expression (against the input row) into its slot.
    Project {
        input: Box<Op>,
        items: Vec<(Slot, Expr)>,
    },
    /// Groups by `keys` and computes `aggregates`; the output rows hold only
    /// the key and aggregate slots. Without keys, always exactly one row.
    Aggregate {
        input: Box<Op>,
        keys: Vec<(Slot, Expr)>,
        aggregates: Vec<(Slot, Aggregate)>,
    },
    /// Drops rows whose values in `slots` were seen before.
    Distinct {
        input: Box<Op>,
        slots: Vec<Slot>,
    },
    /// Stable sort by `keys` (ORDER BY order, nulls last when ascending).
    Sort {
        input: Box<Op>,
        keys: Vec<SortKey>,
    },
    /// Sort, keeping only the first `limit` rows.
    Top {
        input: Box<Op>,
        keys: Vec<SortKey>,
        limit: Expr,
    },
    /// `count` evaluates to a non-negative integer without reading rows.
    Skip {
        input: Box<Op>,
        count: Expr,
    },
    Limit {
        input: Box<Op>,
        count: Expr,
    },
    /// For each input row and each element of the list `expr`, the row with
    /// the element in `out`. `null` yields no rows; a non-list yields itself.
    /// The output rows hold null in the `dead` slots: slots `expr` reads
    /// that no operator above reads (filled in by the planner's dead-slot
    /// pass; empty copies every slot), so a list unwound from a slot is not
    /// copied into each of its elements' rows.
    Unwind {
        input: Box<Op>,
        expr: Expr,
        out: Slot,
        dead: Vec<Slot>,
    },
    /// For each input row, the rows of `inner` (run with that row as its
    /// argument), or when there are none, the input row with `nullable` set
    /// to null.
    Optional {
        input: Box<Op>,
        inner: Box<Op>,
        nullable: Vec<Slot>,
    },
    /// `CALL { ... }`: for each input row, `inner` runs with that row as its
    /// argument; each inner row adds its `returned` slots to a copy of the
    /// input row (no inner row: the input row is dropped). With `unit` (no
    /// RETURN in the body) the inner plan is drained for its writes and the
    /// input row passes once.
    Apply {
        input: Box<Op>,
        inner: Box<Op>,
        returned: Vec<Slot>,
        unit: bool,
    },
    /// Materialises all input rows before emitting any: separates reads from
    /// later writes so a query never sees its own writes half-way.
    Eager {
        input: Box<Op>,
    },
    /// Creates nodes and relationships for each input row (after draining the
    /// input: updating operators are eager).
    Create {
        input: Box<Op>,
        items: Vec<CreateItem>,
    },
    /// SET and REMOVE for each input row.
    SetProperties {
        input: Box<Op>,
        items: Vec<SetItem>,
    },
    /// Deletes the node, relationship or path each expression yields (nulls
    /// are ignored).
    Delete {
        input: Box<Op>,
        items: Vec<Expr>,
        detach: bool,
    },
    /// Calls a procedure for each input row; `yields` maps result columns of
    /// the procedure to slots.
    ProcedureCall {
        input: Box<Op>,
        name: String,
        args: Vec<Expr>,
        yields: Vec<(String, Slot)>,
    },
    /// Variable-length expand: for each input row, every path of `min..=max`
    /// relationships (unbounded when `max` is `None`) from the node in `from`
    /// in `dir`, of one of `types` (any when empty), each relationship having
    /// `properties` (evaluated once per input row), and no relationship used
    /// twice in one path. The list of relationships goes into `rels`, the
    /// last node into `to` (with `into`, `to` is bound and only paths ending
    /// there are kept). A zero-length path binds `to` to the start node.
    VarExpand {
        input: Box<Op>,
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
    /// `shortestPath` / `allShortestPaths`: for each input row, a
    /// breadth-first search from the node in `spec.from` to the node in
    /// `spec.to` (a null end yields nothing). The shortest path of `min..=max`
    /// relationships satisfying `spec.predicate` (evaluated with the path
    /// bound), or with `all` every such path of that length; no relationship
    /// is used twice in a path. Start and end being the same node is an error
    /// unless `min` is 0 (then the path has length 0), as in Neo4j.
    ShortestPath {
        input: Box<Op>,
        spec: Box<ShortestPathSpec>,
    },
    /// MERGE: drains its input, then for each input row in order runs
    /// `pattern` (an Argument-rooted read plan, seeing this statement's
    /// earlier writes, including those of earlier rows) with the row as its
    /// argument. Each match is emitted after `on_match`; when nothing
    /// matches, `create` fills the pattern's unbound slots, `on_create`
    /// runs, and that single row is emitted.
    Merge {
        input: Box<Op>,
        pattern: Box<Op>,
        create: Vec<CreateItem>,
        on_create: Vec<SetItem>,
        on_match: Vec<SetItem>,
    },
    /// UNION ALL: the rows of `input`, then the rows of `other` (both built
    /// on their own Argument leaf; each writes the same result slots).
    Union {
        input: Box<Op>,
        other: Box<Op>,
    },
}

/// The main input of an operator, by reference or by mutable reference
/// (one list of the operators that have one).
macro_rules! input_of {
    ($op:expr) => {
        match $op {
            Op::Argument => None,
            Op::AllNodesScan { input, .. }
            | Op::NodeByLabelScan { input, .. }
            | Op::NodeByIdSeek { input, .. }
            | Op::NodeByPropertySeek { input, .. }
            | Op::NodePropertyScan { input, .. }
            | Op::NodeIndexSeek { input, .. }
            | Op::RelationshipIndexSeek { input, .. }
            | Op::NodeCountFromCountStore { input, .. }
            | Op::RelationshipCountFromCountStore { input, .. }
            | Op::RelationshipTypeScan { input, .. }
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
            | Op::Optional { input, .. }
            | Op::Apply { input, .. }
            | Op::Eager { input }
            | Op::Create { input, .. }
            | Op::SetProperties { input, .. }
            | Op::Delete { input, .. }
            | Op::ProcedureCall { input, .. }
            | Op::VarExpand { input, .. }
            | Op::ShortestPath { input, .. }
            | Op::Merge { input, .. }
            | Op::Union { input, .. } => Some(input),
        }
    };
}

impl Op {
    /// The operator's main input (`None` for [`Op::Argument`]); the inner
    /// plan of [`Op::Optional`], the pattern of [`Op::Merge`] and the other
    /// branch of [`Op::Union`] are not its input (see [`Op::nested`]).
    pub fn input(&self) -> Option<&Op> {
        input_of!(self).map(|input| &**input)
    }

    pub(crate) fn input_mut(&mut self) -> Option<&mut Op> {
        input_of!(self).map(|input| &mut **input)
    }

    /// Plans nested in this operator besides its input: run per row
    /// (`Optional`, `Merge`) or after it (`Union`).
    pub fn nested(&self) -> Option<&Op> {
        match self {
            Op::Optional { inner, .. } | Op::Apply { inner, .. } => Some(inner),
            Op::Merge { pattern, .. } => Some(pattern),
            Op::Union { other, .. } => Some(other),
            _ => None,
        }
    }

    pub(crate) fn nested_mut(&mut self) -> Option<&mut Op> {
        match self {
            Op::Optional { inner, .. } | Op::Apply { inner, .. } => Some(inner),
            Op::Merge { pattern, .. } => Some(pattern),
            Op::Union { other, .. } => Some(other),
            _ => None,
        }
    }
}

/// A plan is as deep as its query is long (a chain of 13,000 `WITH`s is
/// 13,000 operators deep): its inputs are dropped on a guarded stack, one
/// level at a time, instead of by the compiler's recursive drop.
impl Drop for Op {
    fn drop(&mut self) {
        fn detach(child: Option<&mut Op>) -> Option<Op> {
            child
                .filter(|op| !matches!(op, Op::Argument))
                .map(|op| std::mem::replace(op, Op::Argument))
        }
        let input = detach(self.input_mut());
        let nested = detach(self.nested_mut());
        if input.is_some() || nested.is_some() {
            nereid_stack::deeper(|| drop((input, nested)));
        }
    }
}

/// A test of one property of the entity a scan binds (a relationship-type
/// scan, a node property scan), pushed into the scan: true exactly where
/// the filter `x.key <op> value` (or `x.key IS NOT NULL`) would keep the
/// row.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyPredicate {
    pub key: String,
    pub test: PropertyTest,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PropertyTest {
    IsNotNull,
    /// `property <op> value`; `op` is `=`, `<>`, `<`, `<=`, `>` or `>=`,
    /// `value` a literal or parameter (evaluated once).
    Compare {
        op: BinaryOp,
        value: Expr,
    },
}

/// One sort key.
#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub expr: Expr,
    pub ascending: bool,
}

/// An entity to create.
#[derive(Clone, Debug, PartialEq)]
pub enum CreateItem {
    Node {
        out: Slot,
        labels: Vec<String>,
        properties: Vec<(String, Expr)>,
    },
    /// `from` and `to` already hold nodes (the planner orders items so);
    /// direction is normalised: the relationship goes from `from` to `to`.
    Rel {
        out: Slot,
        from: Slot,
        to: Slot,
        rel_type: String,
        properties: Vec<(String, Expr)>,
    },
}

/// One SET / REMOVE item. The target evaluates to a node or relationship
/// (null targets are ignored).
#[derive(Clone, Debug, PartialEq)]
pub enum SetItem {
    /// `SET t.key = value`; a null value removes the property (also `REMOVE t.key`).
    Property {
        target: Expr,
        key: String,
        value: Expr,
    },
    /// `SET t = map`: replaces all properties.
    ReplaceProperties { target: Expr, map: Expr },
    /// `SET t += map`: adds/overwrites properties (null values remove).
    MergeProperties { target: Expr, map: Expr },
    /// `SET t:A:B`
    AddLabels { target: Expr, labels: Vec<String> },
    /// `REMOVE t:A:B`
    RemoveLabels { target: Expr, labels: Vec<String> },
}

/// An aggregate call.
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    pub func: AggregateFunction,
    /// `None` only for `count(*)`.
    pub arg: Option<Expr>,
    /// The percentile of `percentileCont` / `percentileDisc`; `None` for the
    /// other functions.
    pub percentile: Option<Expr>,
    pub distinct: bool,
}
