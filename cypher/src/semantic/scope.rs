//! Variable scopes: which names are bound at a point of the query, and to what kind of value.

use std::collections::BTreeMap;

/// What a variable (or an expression, see `types::infer`) is statically known to hold.
/// `Value` is anything whose type is not known before running (it may still be a node at
/// runtime, e.g. `head(collect(n))`, so it never conflicts). The value kinds (`Boolean` ..
/// `Map`) are only ever inferred from literals and operators whose result type is fixed, so
/// a conflict with them is a certain error, never a guess.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum VarType {
    Node,
    Relationship,
    /// A variable-length relationship variable (a list of relationships).
    RelationshipList,
    Path,
    Boolean,
    Integer,
    Float,
    String,
    List,
    Map,
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
            VarType::Boolean => "Boolean",
            VarType::Integer => "Integer",
            VarType::Float => "Float",
            VarType::String => "String",
            VarType::List => "List<Any>",
            VarType::Map => "Map",
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
