//! The statement's procedures, as seen from inside an expression.
//!
//! Expressions are lowered without the statement's catalog (it is a borrowed
//! trait object, and a `Scope` is cloned into every corner of expression
//! lowering), yet the body of an `EXISTS { }` / `COUNT { }` may `CALL` a
//! procedure, and it must resolve against the same database as a top-level
//! call (a fixture procedure included). So every scope of a statement shares
//! one `ProcedureSnapshot`: a body asks it for a signature; a name it has not
//! seen is recorded as requested and answered "unknown" for now. Once the
//! statement is lowered, `lower` resolves the requested names through the
//! real catalog and, if there were any, lowers the statement again.
//! Invariant: every pass resolves at least one new name, and a statement
//! names finitely many procedures, so this ends; a statement without
//! procedures in expressions is lowered exactly once.
//!
//! The snapshot also holds the statement's online indexes, taken once from
//! the catalog: a pattern inside an expression (IC14's
//! `[(a:Person)<-[:HAS_CREATOR]-() WHERE a.id = startNode(r).id | ...]`)
//! seeks its start node like a top-level MATCH does, and the plan cache,
//! which keys plans on the schema, stays right for nested plans too.

use crate::index_query::IndexDescriptor;
use crate::{Catalog, ProcedureSignature};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

#[derive(Clone, Debug, Default)]
pub(crate) struct ProcedureSnapshot {
    /// `None`: requested in this pass, not resolved yet; `Some(answer)`: the
    /// catalog's answer.
    names: Rc<RefCell<BTreeMap<String, Option<Option<ProcedureSignature>>>>>,
    indexes: Rc<Vec<IndexDescriptor>>,
}

impl ProcedureSnapshot {
    /// A snapshot with no procedure resolved yet and `catalog`'s indexes.
    pub(crate) fn new(catalog: &dyn Catalog) -> ProcedureSnapshot {
        ProcedureSnapshot {
            names: Rc::default(),
            indexes: Rc::new(catalog.indexes()),
        }
    }

    /// Resolves the names requested since the last call through `catalog`;
    /// whether there were any (the statement must then be lowered again).
    pub(crate) fn resolve_requested(&self, catalog: &dyn Catalog) -> bool {
        let mut names = self.names.borrow_mut();
        let mut resolved_any = false;
        for (name, answer) in names.iter_mut() {
            if answer.is_none() {
                *answer = Some(catalog.procedure_signature(name));
                resolved_any = true;
            }
        }
        resolved_any
    }
}

/// The catalog a nested plan inside an expression is lowered and optimised
/// with: no estimates (a nested pattern nearly always starts from a bound
/// node, so they would not change its plan), the statement's procedures
/// through its snapshot and its indexes.
pub(crate) struct NestedCatalog<'a> {
    pub(crate) procedures: &'a ProcedureSnapshot,
}

impl Catalog for NestedCatalog<'_> {
    fn estimate_nodes(&self, _label: Option<&str>) -> u64 {
        0
    }

    fn procedure_signature(&self, name: &str) -> Option<ProcedureSignature> {
        let mut names = self.procedures.names.borrow_mut();
        match names.get(name) {
            Some(Some(answer)) => answer.clone(),
            Some(None) => None,
            None => {
                names.insert(name.to_string(), None);
                None
            }
        }
    }

    fn indexes(&self) -> Vec<IndexDescriptor> {
        self.procedures.indexes.as_ref().clone()
    }
}
