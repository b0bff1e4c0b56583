//! The store's schema: the indexes and constraints that exist, swapped as
//! a whole (readers take an `Arc` of the current catalog and never block a
//! schema change).

use super::defs::{
    ConstraintDef, ConstraintInfo, ConstraintKind, EntityKind, IndexDef, IndexInfo, IndexKind,
    SchemaView,
};
use super::index::PropertyIndex;
use parking_lot::{Mutex, RwLock};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub(crate) struct Constraint {
    pub(crate) id: u64,
    pub(crate) def: ConstraintDef,
    /// The backing index of a unique or key constraint.
    pub(crate) index: Option<Arc<PropertyIndex>>,
}

/// One immutable generation of the schema.
#[derive(Default)]
pub(crate) struct Catalog {
    pub(crate) indexes: Vec<Arc<PropertyIndex>>,
    pub(crate) constraints: Vec<Arc<Constraint>>,
    /// Every property key an index or constraint reads, so that a write of
    /// any other key skips the schema at the cost of one hash lookup.
    keys: HashSet<String>,
    /// Every label (or type) an index or constraint ranges over.
    labels: HashSet<(EntityKind, String)>,
}

impl Catalog {
    fn new(indexes: Vec<Arc<PropertyIndex>>, constraints: Vec<Arc<Constraint>>) -> Self {
        let mut keys = HashSet::new();
        let mut labels = HashSet::new();
        for (entity, label, k) in indexes
            .iter()
            .flat_map(|i| i.def.labels().map(|l| (i.def.entity, l, &i.def.keys)))
            .chain(
                constraints
                    .iter()
                    .map(|c| (c.def.entity, &c.def.label, &c.def.keys)),
            )
        {
            labels.insert((entity, label.clone()));
            keys.extend(k.iter().cloned());
        }
        Catalog {
            indexes,
            constraints,
            keys,
            labels,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.indexes.is_empty() && self.constraints.is_empty()
    }

    pub(crate) fn reads_key(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    pub(crate) fn covers(&self, entity: EntityKind, label: &str) -> bool {
        self.labels.contains(&(entity, label.to_string()))
    }

    /// The indexes over `entity` whose label is one of `labels`.
    pub(crate) fn indexes_on<'a>(
        &'a self,
        entity: EntityKind,
        labels: &'a [String],
    ) -> impl Iterator<Item = &'a Arc<PropertyIndex>> + 'a {
        self.indexes
            .iter()
            .filter(move |i| i.def.entity == entity && labels.iter().any(|l| i.def.has_label(l)))
    }

    /// The constraints over `entity` whose label is one of `labels`.
    pub(crate) fn constraints_on<'a>(
        &'a self,
        entity: EntityKind,
        labels: &'a [String],
    ) -> impl Iterator<Item = &'a Arc<Constraint>> + 'a {
        self.constraints
            .iter()
            .filter(move |c| c.def.entity == entity && labels.contains(&c.def.label))
    }

    pub(crate) fn index_named(&self, name: &str) -> Option<&Arc<PropertyIndex>> {
        self.indexes.iter().find(|i| i.def.name == name)
    }

    pub(crate) fn constraint_named(&self, name: &str) -> Option<&Arc<Constraint>> {
        self.constraints.iter().find(|c| c.def.name == name)
    }
}

/// The schema's home in the store.
#[derive(Default)]
pub(crate) struct Schema {
    current: RwLock<Arc<Catalog>>,
    next_id: AtomicU64,
    /// Grows with every change of the catalog and every index that comes
    /// online (plans are cached per version).
    version: AtomicU64,
    /// Entries that may be stale (module `stale`).
    pub(crate) stale: Mutex<Vec<super::stale::StaleEntry>>,
}

impl Schema {
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.current.read().clone()
    }

    pub(crate) fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    pub(crate) fn bump(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// A new index (state POPULATING), not yet in the catalog.
    pub(crate) fn new_index(&self, def: IndexDef, owner: Option<String>) -> Arc<PropertyIndex> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        Arc::new(PropertyIndex::new(id, def, owner))
    }

    /// A new constraint with its backing index (already populated by the
    /// caller), not yet in the catalog.
    pub(crate) fn new_constraint(
        &self,
        def: ConstraintDef,
        index: Option<Arc<PropertyIndex>>,
    ) -> Arc<Constraint> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        Arc::new(Constraint { id, def, index })
    }

    /// Replaces the catalog by `edit` of a copy of it.
    pub(crate) fn edit(
        &self,
        edit: impl FnOnce(&mut Vec<Arc<PropertyIndex>>, &mut Vec<Arc<Constraint>>),
    ) {
        let mut current = self.current.write();
        let mut indexes = current.indexes.clone();
        let mut constraints = current.constraints.clone();
        edit(&mut indexes, &mut constraints);
        *current = Arc::new(Catalog::new(indexes, constraints));
        drop(current);
        self.bump();
    }

    pub(crate) fn view(&self) -> SchemaView {
        let catalog = self.catalog();
        let version = self.version();
        SchemaView {
            version,
            indexes: catalog
                .indexes
                .iter()
                .map(|i| IndexInfo {
                    id: i.id,
                    def: i.def.clone(),
                    state: i.state.lock().clone(),
                    owning_constraint: i.owning_constraint.clone(),
                    read_count: i.reads.load(Ordering::Relaxed),
                    last_read: Some(i.last_read.load(Ordering::Relaxed)).filter(|&t| t > 0),
                    tracked_since: i.tracked_since,
                    entries: i.len(),
                })
                .collect(),
            constraints: catalog
                .constraints
                .iter()
                .map(|c| ConstraintInfo {
                    id: c.id,
                    def: c.def.clone(),
                    owned_index: c.index.as_ref().map(|i| i.def.name.clone()),
                })
                .collect(),
        }
    }
}

/// The index definition a unique or key constraint is backed by: a range
/// index with the constraint's name (as Neo4j names it).
pub(crate) fn backing_index(def: &ConstraintDef) -> Option<IndexDef> {
    matches!(def.kind, ConstraintKind::Unique | ConstraintKind::Key).then(|| IndexDef {
        name: def.name.clone(),
        kind: IndexKind::Range,
        entity: def.entity,
        label: def.label.clone(),
        more_labels: Vec::new(),
        keys: def.keys.clone(),
    })
}
