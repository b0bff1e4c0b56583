//! Variables in scope while lowering a query, and the slot allocator.

use super::procedure_snapshot::ProcedureSnapshot;
use crate::expr::Slot;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// What a variable holds, as far as the planner can tell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VarKind {
    Node,
    Relationship,
    Path,
    Value,
}

/// Invariant: every scope of one query shares the query's slot allocator,
/// so expressions can allocate slots for their local variables (list
/// comprehensions, quantifiers, reduce) while being lowered against an
/// immutable scope.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    vars: BTreeMap<String, (Slot, VarKind)>,
    slots: Slots,
    /// The statement's procedures, shared like the allocator.
    procedures: ProcedureSnapshot,
    /// The column order of `RETURN *` when not by name: a `SHOW`
    /// command's yielded columns (see [`Scope::star_columns`]).
    star_order: Vec<String>,
    /// The slots of the last `LOAD CSV`'s `linenumber()` and `file()`:
    /// kept past projections, whose rows carry them unless they aggregate
    /// (then the functions are null, as outside `LOAD CSV`).
    load_csv: Option<(Slot, Slot)>,
}

impl Scope {
    /// An empty scope allocating from `slots`, resolving procedures inside
    /// expressions through `procedures`.
    pub(crate) fn new(slots: &Slots, procedures: &ProcedureSnapshot) -> Scope {
        Scope {
            vars: BTreeMap::new(),
            slots: slots.clone(),
            procedures: procedures.clone(),
            star_order: Vec::new(),
            load_csv: None,
        }
    }

    /// An empty scope sharing this scope's allocator and procedures (and
    /// `LOAD CSV`'s row slots).
    pub(crate) fn emptied(&self) -> Scope {
        Scope {
            load_csv: self.load_csv,
            ..Scope::new(&self.slots, &self.procedures)
        }
    }

    /// Where `linenumber()` and `file()` of the current `LOAD CSV` row
    /// are, outside `LOAD CSV` none.
    pub(crate) fn load_csv(&self) -> Option<(Slot, Slot)> {
        self.load_csv
    }

    pub(crate) fn set_load_csv(&mut self, line: Slot, file: Slot) {
        self.load_csv = Some((line, file));
    }

    /// The statement's procedures (see `procedure_snapshot.rs`).
    pub(crate) fn procedures(&self) -> &ProcedureSnapshot {
        &self.procedures
    }

    /// A fresh slot from the query's allocator (for expression-local variables).
    pub(crate) fn fresh_slot(&self) -> Slot {
        self.slots.fresh()
    }

    /// The query's slot allocator (shared, see above).
    pub(crate) fn slots(&self) -> Slots {
        self.slots.clone()
    }

    /// The slots of every variable in scope.
    pub(crate) fn all_slots(&self) -> Vec<Slot> {
        self.vars.values().map(|(s, _)| *s).collect()
    }

    pub(crate) fn get(&self, name: &str) -> Option<(Slot, VarKind)> {
        self.vars.get(name).copied()
    }

    pub(crate) fn bind(&mut self, name: &str, slot: Slot, kind: VarKind) {
        self.vars.insert(name.to_string(), (slot, kind));
    }

    /// Variables in name order.
    pub(crate) fn names(&self) -> impl Iterator<Item = (&String, Slot)> {
        self.vars.iter().map(|(n, (s, _))| (n, *s))
    }

    /// The columns of `RETURN *` / `WITH *`: by name, except that the
    /// columns a `SHOW` command yielded come first in yield order (Neo4j
    /// lists `SHOW INDEXES YIELD * RETURN *` in the procedure's order).
    pub(crate) fn star_columns(&self) -> Vec<(String, Slot)> {
        let ordered = self
            .star_order
            .iter()
            .filter_map(|name| self.vars.get(name).map(|(s, _)| (name.clone(), *s)));
        let rest = self
            .names()
            .filter(|(name, _)| !self.star_order.contains(name))
            .map(|(name, s)| (name.clone(), s));
        ordered.chain(rest).collect()
    }

    /// Makes `columns` (bound in this scope) the leading columns of
    /// `RETURN *`, in this order.
    pub(crate) fn keep_star_order(&mut self, columns: Vec<String>) {
        self.star_order = columns;
    }

    /// Carries `other`'s `RETURN *` order into this scope (a `WITH *`).
    pub(crate) fn inherit_star_order(&mut self, other: &Scope) {
        self.star_order = other.star_order.clone();
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
}

/// Hands out slots; every variable and temporary gets a fresh one. Clones
/// share one counter (see [`Scope`]). The parts of a UNION after the first
/// reuse the same range ([`Slots::rewind`]): a part's own slots are dead
/// once it has projected into the result slots, and a batch has a column
/// per slot, so numbering every part's slots apart made each of `k` parts'
/// rows `k` wide (quadratic in the number of parts).
#[derive(Clone, Debug, Default)]
pub(crate) struct Slots {
    /// The MATCH clauses' `USING` hints, by slot (shared like the counter;
    /// the rules read them through the catalog, see `crate::plan`).
    hints: Rc<std::cell::RefCell<Vec<crate::index_query::IndexHint>>>,
    next: Rc<Cell<Slot>>,
    /// One past the highest slot ever handed out: the plan's slot count.
    high: Rc<Cell<Slot>>,
}

impl Slots {
    pub(crate) fn fresh(&self) -> Slot {
        let s = self.next.get();
        self.next.set(s + 1);
        self.high.set(self.high.get().max(s + 1));
        s
    }

    /// Hands out slots from `to` again (a [`Slots::count`] taken earlier),
    /// for a UNION part whose slots are never read after the part.
    pub(crate) fn rewind(&self, to: Slot) {
        self.next.set(to);
    }

    /// How many slots the plan needs: one past the highest handed out.
    pub(crate) fn high_water(&self) -> usize {
        self.high.get()
    }

    pub(crate) fn count(&self) -> usize {
        self.next.get()
    }

    pub(crate) fn add_hint(&self, hint: crate::index_query::IndexHint) {
        self.hints.borrow_mut().push(hint);
    }

    pub(crate) fn hints(&self) -> Vec<crate::index_query::IndexHint> {
        self.hints.borrow().clone()
    }
}
