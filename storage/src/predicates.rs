//! Predicate tables: the P column of the SPOI relations as dense `u32` ids.
//!
//! Two tables exist: property keys (shared by REL_VP and REL_EP, with two
//! reserved ids below) and relationship types (REL_E). Ids are assigned on
//! first use and are *not* persistent: the log carries names, so replay
//! re-interns them. Entries are never removed.

use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

/// REL_VP predicate of the "this vertex exists" tuple (O is empty). It makes
/// a node without labels or properties exist, with a versioned lifetime.
pub(crate) const PRED_EXISTS: u32 = 0;
/// REL_VP predicate of label tuples (O = literal gui of the label name).
pub(crate) const PRED_LABEL: u32 = 1;

/// Names to ids, and ids (minus `first_id`) to names. Looked up once per
/// property access, so the hash is foldhash (randomly seeded per table:
/// names come from queries) rather than SipHash.
type Names = (
    HashMap<Arc<str>, u32, foldhash::fast::RandomState>,
    Vec<Arc<str>>,
);

/// A name <-> id table.
pub(crate) struct PredicateTable {
    first_id: u32,
    inner: RwLock<Names>,
}

impl PredicateTable {
    /// `first_id` leaves room for reserved ids below it.
    pub(crate) fn new(first_id: u32) -> Self {
        PredicateTable {
            first_id,
            inner: RwLock::new((HashMap::default(), Vec::new())),
        }
    }

    pub(crate) fn intern(&self, name: &str) -> u32 {
        if let Some(&id) = self.inner.read().0.get(name) {
            return id;
        }
        let mut inner = self.inner.write();
        if let Some(&id) = inner.0.get(name) {
            return id;
        }
        let id = self.first_id + inner.1.len() as u32;
        let name: Arc<str> = Arc::from(name);
        inner.0.insert(name.clone(), id);
        inner.1.push(name);
        id
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<u32> {
        self.inner.read().0.get(name).copied()
    }

    pub(crate) fn name(&self, id: u32) -> Option<Arc<str>> {
        let index = id.checked_sub(self.first_id)? as usize;
        self.inner.read().1.get(index).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_after_the_reserved_ones() {
        let t = PredicateTable::new(2);
        assert_eq!(t.intern("name"), 2);
        assert_eq!(t.intern("age"), 3);
        assert_eq!(t.intern("name"), 2);
        assert_eq!(t.lookup("age"), Some(3));
        assert_eq!(t.lookup("x"), None);
        assert_eq!(t.name(3).as_deref(), Some("age"));
        assert_eq!(t.name(PRED_LABEL), None);
    }
}
