//! Schema changes through a transaction: `CREATE/DROP INDEX` and
//! `CONSTRAINT` are checked against the catalog when issued and again at
//! commit, under the commit lock, where a constraint is verified against
//! the data (its backing index built there, so no commit slips between
//! the check and the constraint taking effect) before the change is
//! logged; once stamped, the catalog changes. A plain index is populated
//! afterwards in the background, maintained by writers meanwhile.

use super::read::Reader;
use super::schema_clash::{
    constraint_clash, describe_constraint, dropped, index_clash, property_types,
};
use super::schema_writes::{described_keys, entity_name, has_type, label_word};
use super::state::TxnState;
use super::Txn;
use crate::change::Change;
use crate::error::{Result, StorageError};
use crate::mvcc::View;
use crate::schema::{
    backing_index, entities_of, populate, ConstraintDef, ConstraintKind, Created, EntityKind,
    IndexDef, IndexSeek, IndexState, PropertyIndex, SchemaView,
};
use crate::store::Store;
use nereid_values::{NodeId, RelId};
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Txn {
    /// The indexes and constraints as of now (not this transaction's own
    /// uncommitted schema changes).
    pub fn schema(&self) -> SchemaView {
        self.store.schema.view()
    }

    /// `CREATE INDEX`: [`Created::AlreadyExists`] when `if_not_exists`
    /// and an equivalent index or the name exists. An empty name is
    /// generated from the definition. The index exists once the
    /// transaction commits and serves queries once populated.
    pub fn create_index(&self, mut def: IndexDef, if_not_exists: bool) -> Result<Created> {
        if def.name.is_empty() {
            def.name = crate::schema::index_name(&def);
        }
        let mut st = self.begin_schema_change()?;
        let catalog = self.store.schema.catalog();
        if let Some(clash) = index_clash(&catalog, &st.changes, &def) {
            return clash.outcome(if_not_exists);
        }
        st.changes.push(Change::CreateIndex(def));
        st.stats.indexes_added += 1;
        Ok(Created::New)
    }

    /// `DROP INDEX name`: `Ok(false)` when `if_exists` and there is none.
    pub fn drop_index(&self, name: &str, if_exists: bool) -> Result<bool> {
        let mut st = self.begin_schema_change()?;
        let catalog = self.store.schema.catalog();
        let exists = catalog
            .index_named(name)
            .is_some_and(|i| i.owning_constraint.is_none())
            && !dropped(&st.changes, name);
        if !exists {
            if if_exists {
                return Ok(false);
            }
            if catalog.index_named(name).is_some() {
                return Err(StorageError::IndexNotFound(format!(
                    "Unable to drop index: Index belongs to constraint: `{name}`"
                )));
            }
            return Err(StorageError::IndexNotFound(format!(
                "Unable to drop index called `{name}`. There is no such index."
            )));
        }
        st.changes.push(Change::DropIndex {
            name: name.to_string(),
        });
        st.stats.indexes_removed += 1;
        Ok(true)
    }

    /// `CREATE CONSTRAINT`: checked against the data at commit; under
    /// `if_not_exists`, [`Created::AlreadyExists`] when an equivalent
    /// constraint or one of that name exists (an index of that name, or
    /// one over the keys its backing index needs, is an error still).
    pub fn create_constraint(
        &self,
        mut def: ConstraintDef,
        if_not_exists: bool,
    ) -> Result<Created> {
        if def.name.is_empty() {
            def.name = crate::schema::constraint_name(&def, &property_types(&def.kind));
        }
        let mut st = self.begin_schema_change()?;
        let catalog = self.store.schema.catalog();
        if let Some(clash) = constraint_clash(&catalog, &st.changes, &def) {
            return clash.outcome(if_not_exists);
        }
        st.changes.push(Change::CreateConstraint(def));
        st.stats.constraints_added += 1;
        Ok(Created::New)
    }

    /// `DROP CONSTRAINT name` (and its backing index).
    pub fn drop_constraint(&self, name: &str, if_exists: bool) -> Result<bool> {
        let mut st = self.begin_schema_change()?;
        let catalog = self.store.schema.catalog();
        if catalog.constraint_named(name).is_none() || dropped(&st.changes, name) {
            if if_exists {
                return Ok(false);
            }
            return Err(StorageError::ConstraintNotFound(format!(
                "Unable to drop constraint `{name}`: No such constraint {name}."
            )));
        }
        st.changes.push(Change::DropConstraint {
            name: name.to_string(),
        });
        st.stats.constraints_removed += 1;
        Ok(true)
    }

    /// The nodes the online node index `index` holds for `seek` in this
    /// transaction's view (its own writes included), in key order; `None`
    /// when there is no such online index or it cannot answer the seek
    /// exactly (the caller then scans).
    pub fn seek_nodes(&self, index: &str, seek: &IndexSeek) -> Option<Vec<NodeId>> {
        self.seek(index, EntityKind::Node, seek)
            .map(|ids| ids.into_iter().map(NodeId).collect())
    }

    /// [`Txn::seek_nodes`] for a relationship index.
    pub fn seek_rels(&self, index: &str, seek: &IndexSeek) -> Option<Vec<RelId>> {
        self.seek(index, EntityKind::Relationship, seek)
            .map(|ids| ids.into_iter().map(RelId).collect())
    }

    fn seek(&self, name: &str, entity: EntityKind, seek: &IndexSeek) -> Option<Vec<u64>> {
        self.read_index(name, entity, |index| {
            crate::schema::seek(&self.reader(), index, seek)
        })?
    }

    /// `read` applied to the online index `name` over `entity` (counted
    /// as one read of it); `None` when there is no such online index.
    pub(super) fn read_index<T>(
        &self,
        name: &str,
        entity: EntityKind,
        read: impl FnOnce(&crate::schema::PropertyIndex) -> T,
    ) -> Option<T> {
        let catalog = self.store.schema.catalog();
        let index = catalog
            .index_named(name)
            .filter(|i| i.def.entity == entity && i.is_online())?;
        use std::sync::atomic::Ordering::Relaxed;
        index.reads.fetch_add(1, Relaxed);
        let at = *self.index_read_at.get_or_init(crate::schema::unix_millis);
        if index.last_read.load(Relaxed) < at {
            index.last_read.store(at, Relaxed);
        }
        Some(read(index))
    }

    /// The transaction's state, refused when it already changed data.
    fn begin_schema_change(&self) -> Result<parking_lot::MutexGuard<'_, TxnState>> {
        let mut st = self.core.state.lock();
        if st.status != super::state::Status::Active {
            return Err(StorageError::TxnClosed);
        }
        if st.changes.iter().any(|c| !c.is_schema()) || !st.undo.is_empty() {
            return Err(StorageError::SchemaAndDataInOneTransaction(
                "Tried to execute Schema modification after executing Write query".into(),
            ));
        }
        st.schema_change = true;
        Ok(st)
    }
}

impl Store {
    /// The indexes and constraints.
    pub fn schema(&self) -> SchemaView {
        self.schema.view()
    }

    /// About how many entities of `entity` kind the online index `name`
    /// holds for `seek`, counting at most `cap` (see
    /// `schema::count_candidates`): an estimate for planners, read without a
    /// transaction and not counted as a read of the index.
    pub fn estimate_index_entries(
        &self,
        name: &str,
        entity: EntityKind,
        seek: &IndexSeek,
        cap: u64,
    ) -> Option<u64> {
        let catalog = self.schema.catalog();
        let index = catalog
            .index_named(name)
            .filter(|i| i.def.entity == entity && i.is_online())?;
        crate::schema::count_candidates(index, seek, cap)
    }

    /// Entries and approximate bytes of the index `name` (its tree walked:
    /// for benchmarks and reports, not for every `SHOW INDEXES`).
    pub fn index_memory(&self, name: &str) -> Option<(usize, usize)> {
        let catalog = self.schema.catalog();
        let index = catalog.index_named(name)?;
        Some((index.len(), index.approximate_bytes()))
    }

    /// [`SchemaView::version`] alone, without copying the schema: what a
    /// plan cache compares on every lookup.
    pub fn schema_version(&self) -> u64 {
        self.schema.version()
    }

    /// Waits until every index is online (or failed); `false` on timeout.
    pub fn await_indexes(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            let populating = self
                .schema
                .catalog()
                .indexes
                .iter()
                .any(|i| matches!(*i.state.lock(), IndexState::Populating { .. }));
            if !populating {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Builds every index from the latest commit and brings it online:
    /// after log replay, a checkpoint load or a bulk load, none of which
    /// maintain indexes as they go.
    pub fn rebuild_indexes(&self) {
        let read_ts = *self.commit_lock.lock();
        let _pin = self.snapshots.register(|| read_ts);
        for index in &self.schema.catalog().indexes {
            populate(self, index, read_ts, false);
            self.bring_online(index);
        }
        self.snapshots.unregister(read_ts);
    }

    /// The schema as changes that recreate it (for checkpoints): the
    /// constraints, then the indexes no constraint owns.
    pub fn export_schema(&self) -> Vec<Change> {
        let catalog = self.schema.catalog();
        let constraints = catalog
            .constraints
            .iter()
            .map(|c| Change::CreateConstraint(c.def.clone()));
        let indexes = catalog
            .indexes
            .iter()
            .filter(|i| i.owning_constraint.is_none())
            .map(|i| Change::CreateIndex(i.def.clone()));
        constraints.chain(indexes).collect()
    }

    /// Populates a plain index created by the commit at `commit_ts`, on a
    /// thread of its own.
    pub(crate) fn populate_in_background(
        self: &Arc<Self>,
        index: Arc<PropertyIndex>,
        commit_ts: u64,
    ) {
        let store = self.clone();
        let index_again = index.clone();
        let read_ts = store.snapshots.register(|| commit_ts);
        let spawned = std::thread::Builder::new()
            .name("nereid-index-build".into())
            .spawn(move || {
                populate(&store, &index, read_ts, false);
                store.snapshots.unregister(read_ts);
                store.bring_online(&index);
            });
        if spawned.is_err() {
            // No thread to spare: build it here instead.
            let read_ts = self.snapshots.register(|| commit_ts);
            populate(self, &index_again, read_ts, false);
            self.snapshots.unregister(read_ts);
            self.bring_online(&index_again);
        }
    }

    fn bring_online(&self, index: &PropertyIndex) {
        let mut state = index.state.lock();
        if matches!(*state, IndexState::Populating { .. }) {
            *state = IndexState::Online;
            drop(state);
            self.schema.bump();
        }
    }
}

/// A schema change checked under the commit lock, ready to install.
pub(super) enum Prepared {
    Index(Arc<PropertyIndex>),
    DropIndex(String),
    Constraint(Arc<crate::schema::Constraint>),
    DropConstraint(String),
}

/// Checks the transaction's schema changes against the catalog and the
/// data as of `last` (the latest stamped commit; the caller holds the
/// commit lock) and builds constraints' indexes.
pub(super) fn prepare(store: &Store, st: &TxnState, last: u64) -> Result<Vec<Prepared>> {
    let mut prepared = Vec::new();
    let catalog = store.schema.catalog();
    // Issue-time checks saw an older catalog: repeat them against a state
    // that only has the changes before each one.
    for (n, change) in st.changes.iter().enumerate() {
        let before = &st.changes[..n];
        match change {
            Change::CreateIndex(def) => {
                if let Some(clash) = index_clash(&catalog, before, def) {
                    return Err(clash.error());
                }
                prepared.push(Prepared::Index(store.schema.new_index(def.clone(), None)));
            }
            Change::DropIndex { name } => prepared.push(Prepared::DropIndex(name.clone())),
            Change::CreateConstraint(def) => {
                if let Some(clash) = constraint_clash(&catalog, before, def) {
                    return Err(clash.error());
                }
                let index = backing_index(def)
                    .map(|idef| store.schema.new_index(idef, Some(def.name.clone())));
                verify(store, def, index.as_deref(), last)?;
                prepared.push(Prepared::Constraint(
                    store.schema.new_constraint(def.clone(), index),
                ));
            }
            Change::DropConstraint { name } => {
                prepared.push(Prepared::DropConstraint(name.clone()))
            }
            _ => {}
        }
    }
    Ok(prepared)
}

/// Checks the data visible at `read_ts` against a new constraint; a
/// backing index is populated on the way (and brought online).
fn verify(
    store: &Store,
    def: &ConstraintDef,
    index: Option<&PropertyIndex>,
    read_ts: u64,
) -> Result<()> {
    let fail = |why: String| {
        Err(StorageError::ConstraintCreationFailed(format!(
            "Unable to create {}:\n{why}. Note that only the first found violation is shown.",
            describe_constraint(def)
        )))
    };
    if let Some(index) = index {
        if let Some((a, b)) = populate(store, index, read_ts, true) {
            let reader = Reader {
                store,
                view: View::committed(read_ts),
            };
            let values = crate::schema::entity_values(&reader, index, a).unwrap_or_default();
            let shown = described_keys(&def.keys, &values);
            return fail(format!(
                "Both {} and {} have the {} `{}` and property {shown}",
                entity_name(def.entity, Some(a)),
                entity_name(def.entity, Some(b)),
                label_word(def.entity),
                def.label
            ));
        }
        *index.state.lock() = IndexState::Online;
    }
    let needs_scan = matches!(
        def.kind,
        ConstraintKind::Exists | ConstraintKind::Key | ConstraintKind::PropertyType(_)
    );
    if !needs_scan {
        return Ok(());
    }
    let reader = Reader {
        store,
        view: View::committed(read_ts),
    };
    for entity in entities_of(&reader, def.entity, &def.label) {
        for key in &def.keys {
            let value = match def.entity {
                EntityKind::Node => reader.node_property(entity, key),
                EntityKind::Relationship => reader.rel_property(entity, key),
            };
            match (&def.kind, value) {
                (ConstraintKind::Exists | ConstraintKind::Key, None) => {
                    return fail(format!(
                        "{} with {} `{}` must have the property `{key}`",
                        entity_name(def.entity, Some(entity)),
                        label_word(def.entity),
                        def.label
                    ))
                }
                (ConstraintKind::PropertyType(types), Some(v))
                    if !types.iter().any(|t| has_type(&v, t)) =>
                {
                    return fail(format!(
                        "{} with {} `{}` has property `{key}` of type `{}`",
                        entity_name(def.entity, Some(entity)),
                        label_word(def.entity),
                        def.label,
                        v.type_name().to_uppercase()
                    ))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Installs prepared changes (the caller holds the commit lock and has
/// stamped the commit); returns the plain indexes to populate.
pub(super) fn install(store: &Store, prepared: Vec<Prepared>) -> Vec<Arc<PropertyIndex>> {
    let mut to_populate = Vec::new();
    store.schema.edit(|indexes, constraints| {
        for p in prepared {
            match p {
                Prepared::Index(index) => {
                    to_populate.push(index.clone());
                    indexes.push(index);
                }
                Prepared::DropIndex(name) => indexes.retain(|i| i.def.name != name),
                Prepared::Constraint(c) => {
                    if let Some(index) = &c.index {
                        indexes.push(index.clone());
                    }
                    constraints.push(c);
                }
                Prepared::DropConstraint(name) => {
                    constraints.retain(|c| c.def.name != name);
                    indexes.retain(|i| i.owning_constraint.as_deref() != Some(name.as_str()));
                }
            }
        }
    });
    to_populate
}

/// Applies a logged schema change during replay or a checkpoint load:
/// indexes are left POPULATING for [`Store::rebuild_indexes`]. Applying
/// a change the store already reflects changes nothing (a checkpoint
/// holds the schema as of its end, the log after it may repeat it).
pub(crate) fn replay_schema(store: &Store, change: &Change) {
    let catalog = store.schema.catalog();
    let applied = match change {
        Change::CreateIndex(def) => catalog.index_named(&def.name).is_some(),
        Change::DropIndex { name } => catalog.index_named(name).is_none(),
        Change::CreateConstraint(def) => catalog.constraint_named(&def.name).is_some(),
        Change::DropConstraint { name } => catalog.constraint_named(name).is_none(),
        _ => true,
    };
    if applied {
        return;
    }
    let prepared = match change {
        Change::CreateIndex(def) => Prepared::Index(store.schema.new_index(def.clone(), None)),
        Change::DropIndex { name } => Prepared::DropIndex(name.clone()),
        Change::CreateConstraint(def) => {
            let index =
                backing_index(def).map(|idef| store.schema.new_index(idef, Some(def.name.clone())));
            Prepared::Constraint(store.schema.new_constraint(def.clone(), index))
        }
        Change::DropConstraint { name } => Prepared::DropConstraint(name.clone()),
        _ => return,
    };
    install(store, vec![prepared]);
}
