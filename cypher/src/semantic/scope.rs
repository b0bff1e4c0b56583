//! Variable scopes: which names are bound at a point of the query, and to what kind of value.

use std::collections::BTreeMap;

/// What a variable is known to hold. `Value` is anything not produced by a pattern (it may
/// still be a node at runtime, e.g. `head(collect(n))`, so it never conflicts).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VarType {
    Node,
    Relationship,
    /// A variable-length relationship variable (a list of relationships).
    RelationshipList,
    Path,
    Value,
}

impl VarType {
    /// The name used in type-mismatch messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            VarType::Node => "Node",
            VarType::Relationship => "Relationship",
            VarType::RelationshipList => "List<Relationship>",
            VarType::Path => "Path",
            VarType::Value => "Any",
        }
    }
}

/// The variables visible at a point of a single query. Ordered by name, which is also the
/// column order `RETURN *` produces.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    vars: BTreeMap<String, VarType>,
    /// After `YIELD *` the bound names are unknown; undefined-variable checks are then skipped.
    pub open: bool,
}

impl Scope {
    pub(crate) fn get(&self, name: &str) -> Option<VarType> {
        self.vars.get(name).copied()
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.open || self.vars.contains_key(name)
    }

    pub(crate) fn bind(&mut self, name: &str, ty: VarType) {
        self.vars.insert(name.to_string(), ty);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Bound names in `RETURN *` order.
    pub(crate) fn names(&self) -> impl Iterator<Item = (&String, &VarType)> {
        self.vars.iter()
    }
}
