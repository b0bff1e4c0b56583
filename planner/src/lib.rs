//! From an analysed openCypher AST to a [`PhysicalPlan`] the dfe runs.
//!
//! Pipeline: AST → plan (`lower`) → rewrite rules (`rules/`, one named rule
//! per file) → the last rule, `choose_operators`, makes the physical
//! choices → dead-slot pass. One operator tree ([`Op`], module `plan`)
//! throughout: lowering builds it, rules rewrite it, the dfe runs it.
//!
//! Invariants: the planner never touches storage or the procedure registry
//! directly; it asks the [`Catalog`]. Plans are immutable and `Send + Sync`,
//! so a plan cache can share them between sessions. Estimates come from the
//! catalog's statistics (module `cardinality`); the first cost-based choice
//! is which end of a pattern to start from (rule `start_from_smaller_end`).
//! Parameter values known at planning inform the estimates; where they did,
//! the plan carries probes saying whether it fits other values (module
//! `parameter_probe`).

mod batch_optional;
mod cardinality;
mod dead_slots;
mod error;
mod explain;
mod expr;
mod id_predicate;
mod index_predicate;
mod index_query;
mod lower;
mod parameter_probe;
mod plan;
mod procedure_signature;
mod property_predicate;
mod row_estimate;
pub mod rules;
mod shortest_path;

pub use error::PlanError;
pub use explain::{explain, plan_tree, PlanNode};
pub use expr::{slots_of, BinaryOp, Expr, Quantifier, Slot};
pub use index_query::{
    IndexCondition, IndexDescriptor, IndexEntity, IndexHint, IndexKind, IndexQuery, MissingHint,
    RangeEnd, SeekArg,
};
pub use nereid_functions::{AggregateFunction, ScalarFunction};
pub use nereid_functions::{SpatialFunction, TemporalFunction, TemporalKind, VectorFunction};
pub use parameter_probe::{probes_fit, ParameterProbe, PlannedProbe, ProbeValue};
pub use plan::{
    AdjacentTo, Aggregate, CreateItem, ExpandSpec, HashJoinSpec, LoadCsvSpec, OnError, Op,
    OwnedPlan, PhysicalPlan, PropertyPredicate, PropertyTest, RelTypeName, SetItem, SortKey,
    TransactionBatches, VarExpandSpec,
};
pub use procedure_signature::{ProcedureField, ProcedureSignature, ProcedureType};
pub use shortest_path::{ElementFilter, ShortestPathSpec};

use nereid_cypher::ast::Statement;
use nereid_values::Value;
use std::cell::{Cell, RefCell};

/// What the planner may ask about the database: cardinality estimates and
/// the procedures that exist.
///
/// The statistics methods (all but [`Catalog::estimate_nodes`] and
/// [`Catalog::procedure_signature`]) answer `None` when the catalog keeps no
/// such statistics; the planner then falls back to label counts alone
/// (module `cardinality`).
pub trait Catalog {
    /// Estimated number of nodes carrying `label` (all nodes when `None`).
    fn estimate_nodes(&self, label: Option<&str>) -> u64;
    /// The signature of procedure `name` (exact, case-sensitive), or `None`
    /// when the database has no such procedure.
    fn procedure_signature(&self, name: &str) -> Option<ProcedureSignature>;
    /// Estimated number of nodes carrying every one of `labels` and having
    /// every one of the property `keys` (the store's characteristic sets).
    fn estimate_nodes_having(&self, _labels: &[String], _keys: &[String]) -> Option<u64> {
        None
    }
    /// Estimated number of distinct values of node property `key` (for the
    /// selectivity of an equality: one value matches about 1/distinct).
    fn distinct_node_values(&self, _key: &str) -> Option<u64> {
        None
    }
    /// Count and distinct endpoints of the relationships of `rel_type`.
    fn relationship_statistics(&self, _rel_type: &str) -> Option<RelStatistics> {
        None
    }
    /// The property indexes queries may read through now (online ones
    /// only: an index still populating misses entities). Plans depend on
    /// them, so whoever caches plans must replan when this list changes.
    fn indexes(&self) -> Vec<IndexDescriptor> {
        Vec::new()
    }
    /// The statement's `USING` hints (set by [`plan`] for its rules, never
    /// by a database's catalog).
    fn hints(&self) -> Vec<IndexHint> {
        Vec::new()
    }
    /// Threads one query may run its operators on (the server's
    /// `--query-threads`; 1: every query on its calling thread alone).
    fn query_threads(&self) -> usize {
        1
    }
    /// About how many entries node index `index` holds whose leading keys
    /// equal `values`, counting at most `cap` (an estimate: may count
    /// entries no transaction sees).
    fn count_node_index_entries(&self, _index: &str, _values: &[Value], _cap: u64) -> Option<u64> {
        None
    }
    /// The value of parameter `name` the statement is planned or its plan
    /// checked with (set by [`plan_with_parameters`] and [`with_parameters`],
    /// never by a database's catalog).
    fn parameter(&self, _name: &str) -> Option<&Value> {
        None
    }
    /// Notes that an estimate of `estimate` read parameter values through
    /// `probe` (kept with the plan by [`plan_with_parameters`]).
    fn note_probe(&self, _probe: ParameterProbe, _estimate: f64) {}
    /// A slot past every slot of the plan being planned, for a rule that
    /// computes a value once for several operators (set by
    /// [`plan_with_parameters`], never by a database's catalog; `None`:
    /// such rules leave the plan alone).
    fn fresh_slot(&self) -> Option<usize> {
        None
    }
}

/// Parameter values by name (those of the run a plan is made or checked
/// for).
pub type Parameters<'a> = &'a dyn Fn(&str) -> Option<&'a Value>;

/// A catalog plus what the statement being planned brings: its hints, the
/// parameter values it is planned with, and the probes its estimates read
/// (how the rules, which see only a catalog, learn of them).
struct Planning<'a, 'p> {
    catalog: &'a dyn Catalog,
    hints: &'a [IndexHint],
    parameters: Parameters<'p>,
    probes: RefCell<Vec<PlannedProbe>>,
    /// While planning: the plan's slot count, the slots the lowering
    /// assigned plus those rules took through [`Catalog::fresh_slot`]
    /// (`None` when no plan is being made).
    slots: Option<Cell<usize>>,
}

impl Catalog for Planning<'_, '_> {
    fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        self.catalog.estimate_nodes(label)
    }
    fn procedure_signature(&self, name: &str) -> Option<ProcedureSignature> {
        self.catalog.procedure_signature(name)
    }
    fn estimate_nodes_having(&self, labels: &[String], keys: &[String]) -> Option<u64> {
        self.catalog.estimate_nodes_having(labels, keys)
    }
    fn distinct_node_values(&self, key: &str) -> Option<u64> {
        self.catalog.distinct_node_values(key)
    }
    fn relationship_statistics(&self, rel_type: &str) -> Option<RelStatistics> {
        self.catalog.relationship_statistics(rel_type)
    }
    fn indexes(&self) -> Vec<IndexDescriptor> {
        self.catalog.indexes()
    }
    fn hints(&self) -> Vec<IndexHint> {
        self.hints.to_vec()
    }
    fn query_threads(&self) -> usize {
        self.catalog.query_threads()
    }
    fn count_node_index_entries(&self, index: &str, values: &[Value], cap: u64) -> Option<u64> {
        self.catalog.count_node_index_entries(index, values, cap)
    }
    fn parameter(&self, name: &str) -> Option<&Value> {
        (self.parameters)(name)
    }
    fn note_probe(&self, probe: ParameterProbe, estimate: f64) {
        let mut probes = self.probes.borrow_mut();
        if !probes.iter().any(|p| p.probe == probe) {
            probes.push(PlannedProbe { probe, estimate });
        }
    }
    fn fresh_slot(&self) -> Option<usize> {
        let slots = self.slots.as_ref()?;
        let slot = slots.get();
        slots.set(slot + 1);
        Some(slot)
    }
}

/// `catalog` answering [`Catalog::parameter`] from `parameters`: what
/// [`probes_fit`] and EXPLAIN's estimates read a run's values through.
pub fn with_parameters<'a>(
    catalog: &'a dyn Catalog,
    parameters: Parameters<'a>,
) -> impl Catalog + 'a {
    Planning {
        catalog,
        hints: &[],
        parameters,
        probes: RefCell::new(Vec::new()),
        slots: None,
    }
}

/// Fails unless the plan reads the variable of every `USING INDEX` hint
/// (each naming an index the catalog has) through that index (Neo4j's
/// error for a hint that cannot be used).
fn check_hints(hints: &[IndexHint], plan: &mut Op) -> Result<(), PlanError> {
    for hint in hints.iter().filter(|h| h.index.is_some()) {
        if !seeks_through(plan, hint) {
            let (keys, _) = hint.index.as_ref().expect("an index hint");
            return Err(PlanError::semantic(
                format!(
                    "Cannot use index hint `USING INDEX {}:{}({})` in this context: Index hints \
                     are only supported for the following predicates in WHERE (either directly \
                     or as part of a top-level AND or OR): equality comparison, inequality \
                     (range) comparison, `STARTS WITH`, `IN` condition or checking property \
                     existence. The comparison cannot be performed between two property values. \
                     Note that the label and property comparison must be specified on a \
                     non-optional node",
                    hint.variable,
                    hint.label,
                    keys.join(", ")
                ),
                hint.offset,
            ));
        }
    }
    Ok(())
}

/// Whether `plan` holds a seek binding the hint's slot through its index.
fn seeks_through(plan: &mut Op, hint: &IndexHint) -> bool {
    use Op as L;
    let here = match plan {
        L::NodeIndexSeek { out, query, .. } => *out == hint.slot && hint.names(&query.index),
        L::RelIndexSeek { rel, query, .. } => *rel == hint.slot && hint.names(&query.index),
        _ => false,
    };
    here || plan
        .nested_mut()
        .is_some_and(|p| nereid_stack::deeper(|| seeks_through(p, hint)))
        || plan
            .input_mut()
            .is_some_and(|p| nereid_stack::deeper(|| seeks_through(p, hint)))
}

/// What a catalog knows about one relationship type: how many there are,
/// and from / to how many distinct nodes (so the average fan-out of an
/// expand is `count / distinct_sources` outgoing, `count / distinct_targets`
/// incoming).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RelStatistics {
    pub count: u64,
    pub distinct_sources: u64,
    pub distinct_targets: u64,
}

/// Plans an analysed statement, as for any parameter values.
pub fn plan(stmt: &Statement, catalog: &dyn Catalog) -> Result<PhysicalPlan, PlanError> {
    plan_with_parameters(stmt, catalog, &|_| None)
}

/// Plans an analysed statement with the parameter values it will first run
/// with informing the estimates; the plan's `probes` say which estimates
/// read them (module `parameter_probe`).
pub fn plan_with_parameters(
    stmt: &Statement,
    catalog: &dyn Catalog,
    parameters: Parameters<'_>,
) -> Result<PhysicalPlan, PlanError> {
    let lowered = lower::lower(stmt, catalog)?;
    // A hint naming an index the catalog lacks is dropped with a warning,
    // as Neo4j 5 does (`HintedIndexNotFound`): the query is planned as if
    // it were not written.
    let indexes = catalog.indexes();
    let (hints, missing): (Vec<IndexHint>, Vec<IndexHint>) = lowered
        .hints
        .into_iter()
        .partition(|h| h.index.is_none() || indexes.iter().any(|i| h.names(i)));
    let planning = Planning {
        catalog,
        hints: &hints,
        parameters,
        probes: RefCell::new(Vec::new()),
        slots: Some(Cell::new(lowered.slot_count)),
    };
    let mut root = rules::apply_all(lowered.plan, &planning);
    check_hints(&hints, &mut root)?;
    let (reads, writes) = access(&root);
    let mut plan = PhysicalPlan {
        root,
        slot_count: planning
            .slots
            .as_ref()
            .map_or(lowered.slot_count, Cell::get),
        outputs: lowered.outputs,
        writes,
        reads,
        missing_hints: missing.iter().map(IndexHint::missing).collect(),
        parameters: stmt.parameters.clone(),
        probes: planning.probes.into_inner(),
    };
    dead_slots::mark_dead_slots(&mut plan);
    batch_optional::mark_batched_optionals(&mut plan);
    Ok(plan)
}

/// Whether a plan reads the graph and whether it writes it.
fn access(op: &Op) -> (bool, bool) {
    let (mut reads, mut writes) = match op {
        op if op.matches_entities() => (true, false),
        Op::NodeCountFromStore { .. }
        | Op::RelCountFromStore { .. }
        | Op::NodeIndexMinMax { .. } => (true, false),
        Op::Create { .. } | Op::SetProperties { .. } | Op::Delete { .. } => (false, true),
        Op::Merge { .. } => (true, true),
        // Property reads and procedures read the graph too.
        Op::ProcedureCall { .. } => (true, false),
        _ => (false, false),
    };
    let mut visit = |child: &Op| {
        let (r, w) = nereid_stack::deeper(|| access(child));
        reads |= r;
        writes |= w;
    };
    if let Some(nested) = op.nested() {
        visit(nested);
    }
    if let Some(input) = op.input() {
        visit(input);
    }
    (reads, writes)
}
