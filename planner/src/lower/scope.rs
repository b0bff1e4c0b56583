//! Variables in scope while lowering a query, and the slot allocator.

use crate::physical::Slot;
use std::collections::BTreeMap;

/// What a variable holds, as far as the planner can tell.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VarKind {
    Node,
    Relationship,
    Path,
    Value,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    vars: BTreeMap<String, (Slot, VarKind)>,
}

impl Scope {
    pub(crate) fn get(&self, name: &str) -> Option<(Slot, VarKind)> {
        self.vars.get(name).copied()
    }

    pub(crate) fn bind(&mut self, name: &str, slot: Slot, kind: VarKind) {
        self.vars.insert(name.to_string(), (slot, kind));
    }

    /// Variables in name order (the column order of `RETURN *`).
    pub(crate) fn names(&self) -> impl Iterator<Item = (&String, Slot)> {
        self.vars.iter().map(|(n, (s, _))| (n, *s))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }
}

/// Hands out slots; every variable and temporary gets a fresh one.
#[derive(Debug, Default)]
pub(crate) struct Slots {
    next: Slot,
}

impl Slots {
    pub(crate) fn fresh(&mut self) -> Slot {
        let s = self.next;
        self.next += 1;
        s
    }

    pub(crate) fn count(&self) -> usize {
        self.next
    }
}
