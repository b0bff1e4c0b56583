//! Log replay: applying a logged transaction at its original ids.

use super::commit::rollback_locked;
use super::state::TxnCore;
use super::write::Writer;
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
    for (n, change) in changes.iter().enumerate() {
        if let Err(e) = apply(&mut writer, change) {
            outcome = Err(match e {
                StorageError::Replay(why) => StorageError::Replay(format!("change {n}: {why}")),
                other => StorageError::Replay(format!("change {n} ({change:?}): {other}")),
            });
            break;
        }
    }
    if outcome.is_err() {
        rollback_locked(store, core, &mut st);
    }
    outcome
}

fn apply(w: &mut Writer<'_>, change: &Change) -> Result<()> {
    match change {
        Change::CreateNode {
            id,
            key,
            labels,
            properties,
        } => w
            .create_node(Some((*id, key)), labels, properties)
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
    }
}
