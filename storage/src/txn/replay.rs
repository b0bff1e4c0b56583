//! Log replay: applying a logged transaction at its original ids.

use super::commit::rollback_locked;
use super::state::TxnCore;
use super::write::{Identity, Writer};
use crate::change::Change;
use crate::error::{Result, StorageError};
use crate::store::Store;

/// Applies `changes` through `core` with the logged guis and SIDs forced.
/// On failure the partial writes are rolled back. The caller stamps the
/// commit on success.
pub(crate) fn replay_changes(store: &Store, core: &TxnCore, changes: &[Change]) -> Result<()> {
    let mut st = core.state.lock();
    let mut writer = Writer::new(store, core, &mut st);
    let mut outcome = Ok(());
    let mut n = 0;
    while n < changes.len() {
        // A run of property sets on one entity (what `SET n += $map` and
        // `CREATE (n $map)` log) is applied as one batch: the entity's
        // properties are read once, not once per key.
        let run = property_run(&changes[n..]);
        let applied = if run > 1 {
            apply_property_run(&mut writer, &changes[n..n + run])
        } else {
            apply(&mut writer, &changes[n])
        };
        if let Err(e) = applied {
            let change = &changes[n];
            let which = match run {
                0 | 1 => format!("change {n}"),
                _ => format!("changes {n}..{}", n + run),
            };
            outcome = Err(match e {
                StorageError::Replay(why) => StorageError::Replay(format!("{which}: {why}")),
                other => StorageError::Replay(format!("{which} ({change:?}): {other}")),
            });
            break;
        }
        n += run.max(1);
    }
    if outcome.is_err() {
        rollback_locked(store, core, &mut st);
    }
    outcome
}

/// How many changes at the start of `changes` set properties of one and the
/// same entity (0 when the first change is no property set).
fn property_run(changes: &[Change]) -> usize {
    let target = |change: &Change| match change {
        Change::SetNodeProperty { id, .. } => Some((true, id.0)),
        Change::SetRelProperty { id, .. } => Some((false, id.0)),
        _ => None,
    };
    let Some(first) = changes.first().and_then(target) else {
        return 0;
    };
    changes
        .iter()
        .take_while(|change| target(change) == Some(first))
        .count()
}

/// Applies a run found by [`property_run`] as one batch.
fn apply_property_run(w: &mut Writer<'_>, run: &[Change]) -> Result<()> {
    let pairs = run.iter().filter_map(|change| match change {
        Change::SetNodeProperty { key, value, .. } | Change::SetRelProperty { key, value, .. } => {
            Some((key.as_str(), value.clone()))
        }
        _ => None,
    });
    match &run[0] {
        Change::SetRelProperty { id, .. } => w.set_rel_properties(*id, pairs),
        Change::SetNodeProperty { id, .. } => w.set_node_properties(*id, pairs),
        _ => Ok(()),
    }
}

fn apply(w: &mut Writer<'_>, change: &Change) -> Result<()> {
    match change {
        Change::CreateNode {
            id,
            key,
            labels,
            properties,
        } => w
            .create_node(Identity::Replayed(*id, key), labels, properties)
            .map(drop),
        Change::CreateRel {
            id,
            src,
            dst,
            rel_type,
            properties,
        } => w
            .create_rel(Some(*id), *src, *dst, rel_type, properties)
            .map(drop),
        Change::SetNodeProperty { id, key, value } => w.set_node_property(*id, key, value.clone()),
        Change::SetRelProperty { id, key, value } => w.set_rel_property(*id, key, value.clone()),
        Change::AddLabel { id, label } => w.add_label(*id, label),
        Change::RemoveLabel { id, label } => w.remove_label(*id, label),
        Change::DeleteRel { id } => w.delete_rel(*id),
        Change::DeleteNode { id } => w.delete_node(*id, false),
        Change::CreateIndex(_)
        | Change::DropIndex { .. }
        | Change::CreateConstraint(_)
        | Change::DropConstraint { .. } => {
            super::schema_ddl::replay_schema(w.store, change);
            Ok(())
        }
    }
}
