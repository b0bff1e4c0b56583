//! The plan: one tree of operators from lowering to execution.
//!
//! Why one tree: lowering builds it, every rewrite rule rewrites it, and
//! the executor (dfe) runs it, so a rule (a join order, a seek) is written
//! once, against the operators the executor runs, and nothing copies a plan
//! from one vocabulary into another. A few operators and fields state *what*
//! to compute and leave a choice open (a [`Op::NodeScan`] carries the set
//! of labels its nodes must have, not the label index to read): the last
//! rule, `choose_operators`, makes those choices (the physical planning),
//! so a plan that [`crate::plan`] returns holds none of them
//! ([`Op::unresolved`]).
//!
//! Row model: every row of a query has the same fixed number of *slots*
//! ([`PhysicalPlan::slot_count`]); the planner assigns each variable and each
//! intermediate value a slot once, and operators only fill slots (unfilled
//! slots are `null`). A batch is therefore a set of `slot_count` columns.
//! Rules never renumber slots.
//!
//! Every operator except [`Op::Argument`] has an `input`. Leaves that scan
//! (e.g. [`Op::NodeByLabelScan`]) produce, *for each input row*, that row
//! extended with each scanned entity, so chaining two scans is a cartesian
//! product and the right side of [`Op::Optional`] sees the outer row through
//! its own `Argument` leaf.

mod batches;
mod expand;
mod hash_join;
mod items;
mod tree;

pub use batches::{LoadCsvSpec, OnError, TransactionBatches};
pub use expand::{AdjacentTo, ExpandSpec, VarExpandSpec};
pub use hash_join::HashJoinSpec;
pub use items::{
    Aggregate, CreateItem, PropertyPredicate, PropertyTest, RelTypeName, SetItem, SortKey,
};
pub use tree::OwnedPlan;

use crate::expr::{Expr, Slot};
use crate::index_query::{IndexDescriptor, IndexQuery};
use crate::shortest_path::ShortestPathSpec;
use nereid_values::Direction;

/// A complete executable plan: the root operator after every rule, with
/// what the executor and the session need to know about it.
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
    /// The `USING INDEX` hints naming an index that does not exist, which
    /// planning ignored (the engine warns of each).
    pub missing_hints: Vec<crate::MissingHint>,
    /// The parameters the query text reads (see `Statement::parameters`).
    pub parameters: Vec<String>,
    /// The estimates that read parameter values, with the values the plan
    /// was made with (a cache checks them before reuse: `probes_fit`).
    pub probes: Vec<crate::PlannedProbe>,
}

/// An operator and, through its `input` (and nested plan), the plan under
/// it.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// Emits one row: the enclosing [`Op::Optional`]'s current outer row, or
    /// at the top of the plan a single row of nulls.
    Argument,
    /// For each input row, every visible node carrying all of `labels` into
    /// `out`. Logical: `choose_operators` reads the label with the fewest
    /// nodes ([`Op::NodeByLabelScan`], [`Op::AllNodesScan`] without labels)
    /// and checks the others with a filter.
    NodeScan {
        input: Box<Op>,
        out: Slot,
        labels: Vec<String>,
    },
    /// For each input row, every visible node into `out`.
    AllNodesScan {
        input: Box<Op>,
        out: Slot,
    },
    /// For each input row, every visible node with `label` into `out`.
    NodeByLabelScan {
        input: Box<Op>,
        out: Slot,
        label: String,
    },
    /// For each input row, the visible nodes whose `id(n)` (or, with
    /// `element`, `elementId(n)`) is an element of the list `ids` (evaluated
    /// for that row; duplicates and values of another type ignored) into
    /// `out`, and that carry every one of `labels` (`choose_operators`
    /// moves the labels into a filter above: the executor runs the seek
    /// with none).
    NodeByIdSeek {
        input: Box<Op>,
        out: Slot,
        ids: Expr,
        element: bool,
        labels: Vec<String>,
    },
    /// For each input row, the visible nodes carrying every one of `labels`
    /// whose property `key` is `value` when that evaluates to a string,
    /// found through the store's index of string values; when it is not a
    /// string, every visible node with the labels. Candidates: the equality
    /// filter above the seek decides. The executor reads through at most
    /// one label (`choose_operators` keeps the one with the fewest nodes
    /// and checks the others with a filter).
    NodeByPropertySeek {
        input: Box<Op>,
        out: Slot,
        key: String,
        value: Expr,
        labels: Vec<String>,
    },
    /// For each input row, every visible node carrying every one of
    /// `labels` whose property passes `predicate` (exactly the rows
    /// `Filter(predicate)` over the [`Op::NodeScan`] it replaces keeps),
    /// tested by the store on the stored values (a relation scan of the
    /// vertex properties). At most one label, as for
    /// [`Op::NodeByPropertySeek`].
    NodePropertyScan {
        input: Box<Op>,
        out: Slot,
        labels: Vec<String>,
        predicate: Box<PropertyPredicate>,
    },
    /// For each input row, the visible nodes an index finds for `query`
    /// (its values evaluated for that row) into `out`: exactly the nodes
    /// with the index's label whose keys satisfy the query under Cypher's
    /// comparisons, in key order when `query.order` asks, that also carry
    /// every one of `labels` (the index's own excluded; `choose_operators`
    /// moves them into a filter above, as for [`Op::NodeByIdSeek`]). When
    /// the store cannot answer (the index is gone, or the values are of a
    /// kind it cannot range over) the executor scans the label and tests
    /// the same conditions, so the rows never depend on the index. EXPLAIN
    /// names it as Neo4j does (`NodeIndexSeek`, `NodeUniqueIndexSeek`,
    /// `NodeIndexSeekByRange`, `NodeIndexScan`, ...).
    NodeIndexSeek {
        input: Box<Op>,
        out: Slot,
        labels: Vec<String>,
        query: Box<IndexQuery>,
    },
    /// For each input row, the visible relationships a relationship index
    /// finds for `query` into `rel`, with their ends as [`Op::RelTypeScan`]
    /// binds them (`Both`: one row each way, a self-loop once); the same
    /// fallback as [`Op::NodeIndexSeek`] (a scan of the type). EXPLAIN:
    /// `DirectedRelationshipIndexSeek`, ...
    RelIndexSeek {
        input: Box<Op>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        query: Box<IndexQuery>,
    },
    /// The number of visible nodes carrying `label` (all nodes for `None`),
    /// from the store's per-snapshot counts, as one row holding it in `out`
    /// (like an aggregation without keys: exactly one row, other slots
    /// null). Its input is the plan's `Argument`. EXPLAIN:
    /// `NodeCountFromCountStore`.
    NodeCountFromStore {
        input: Box<Op>,
        out: Slot,
        label: Option<String>,
    },
    /// For each `(out, max)` of `extremes`, `min(node.key)` (`max` when
    /// `max`) over the nodes of the label of the range `index` on that one
    /// key, read from the index's end when the values there decide it
    /// exactly, else aggregated over one scan of the label shared by every
    /// extreme the index cannot decide (planner rule `min_max_from_index`);
    /// one row holding each in its `out`, like an aggregation without keys.
    /// `node` is the scanned variable's slot (for EXPLAIN; never bound). Its
    /// input is the plan's `Argument`. EXPLAIN: `NodeIndexScan`.
    NodeIndexMinMax {
        input: Box<Op>,
        extremes: Vec<(Slot, bool)>,
        node: Slot,
        index: IndexDescriptor,
    },
    /// [`Op::NodeCountFromStore`] for the relationships of one of `types`
    /// (any type when empty). EXPLAIN: `RelationshipCountFromCountStore`.
    RelCountFromStore {
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
    RelTypeScan {
        input: Box<Op>,
        from: Slot,
        rel: Slot,
        to: Slot,
        dir: Direction,
        types: Vec<String>,
        predicate: Option<Box<PropertyPredicate>>,
    },
    /// For each input row, one hop from a bound node ([`ExpandSpec`]).
    Expand {
        input: Box<Op>,
        spec: ExpandSpec,
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
    /// Sort, keeping only the first `limit` rows. With `admit`, only rows
    /// for which it is true are kept, and it is evaluated only for rows
    /// that could enter the kept set (rule `top_admits_filter`).
    Top {
        input: Box<Op>,
        keys: Vec<SortKey>,
        limit: Expr,
        admit: Option<Box<Expr>>,
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
    /// pass after the rules; empty copies every slot), so a list unwound
    /// from a slot is not copied into each of its elements' rows.
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
        /// Set (by `crate::batch_optional`) when `inner` keeps each
        /// argument row's outputs together and in argument order: the
        /// executor then runs it once per input batch, each argument row
        /// carrying its position in the batch in this scratch slot, which
        /// tells whose rows come out (EXPLAIN: `by batch`).
        origin: Option<Slot>,
    },
    /// Materialises all input rows before emitting any: separates reads from
    /// later writes so a query never sees its own writes half-way.
    Eager {
        input: Box<Op>,
    },
    /// Runs the `chain` operators under it (its input and the streaming
    /// operators below it: expands, filters, projections, optional
    /// matches) on `workers` threads. The operator under the chain (the
    /// producer) runs on the calling thread and hands its rows out in
    /// morsels; each worker runs its own copy of the chain over a morsel,
    /// and the morsels' rows come back in the producer's order, so every
    /// operator above sees the rows of a serial run in the same order
    /// (rule `parallel_gather`, docs/adr/0139-morsel-driven-parallel-segments.md).
    Gather {
        input: Box<Op>,
        workers: usize,
        chain: usize,
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
        /// `IN TRANSACTIONS`: the body runs batch by batch, each batch in a
        /// transaction of its own (only in an auto-commit query).
        transactions: Option<Box<TransactionBatches>>,
    },
    /// For each input row, one row per record of a CSV file (`LOAD CSV`).
    LoadCsv {
        input: Box<Op>,
        spec: Box<LoadCsvSpec>,
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
    /// the procedure to slots. `filter`, only for a procedure that
    /// [filters its candidates](crate::ProcedureSignature::filters_candidates):
    /// the `YIELD ... WHERE` predicate the call applies to each candidate
    /// row before choosing its results.
    ProcedureCall {
        input: Box<Op>,
        name: String,
        args: Vec<Expr>,
        yields: Vec<(String, Slot)>,
        filter: Option<Box<Expr>>,
    },
    /// Variable-length expand: for each input row, every path
    /// [`VarExpandSpec`] asks for.
    VarExpand {
        input: Box<Op>,
        spec: VarExpandSpec,
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
    /// Hash join ([`HashJoinSpec`]; rule `hash_join`,
    /// docs/adr/0144-hash-join.md): the rows of `input` joined on equal
    /// keys with the rows of `right`, a plan on its own `Argument` leaf
    /// (the one the join itself is built on) that reads nothing `input`
    /// binds. One side is read whole into a hash table, the other streams.
    HashJoin {
        input: Box<Op>,
        right: Box<Op>,
        spec: Box<HashJoinSpec>,
    },
    /// UNION ALL: the rows of `input`, then the rows of `other` (both built
    /// on their own Argument leaf; each writes the same result slots).
    Union {
        input: Box<Op>,
        other: Box<Op>,
    },
}
