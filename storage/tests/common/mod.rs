//! Helpers shared by the storage integration tests.
#![allow(dead_code)]

use nereid_storage::{
    Change, CommitError, EntityKind, IndexDef, IndexKind, Store, StoreConfig, Txn,
};
use nereid_values::Value;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

pub fn store() -> Arc<Store> {
    Store::new(StoreConfig { partitions: 4 })
}

pub fn props(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

pub fn labels(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Commits and publishes, returning the logged changes (empty when read-only).
pub fn commit(txn: &Txn) -> Result<(u64, Vec<Change>), CommitError<Infallible>> {
    let mut logged = (0, Vec::new());
    let ticket = txn.commit(|ts, changes| {
        logged = (ts, changes.to_vec());
        Ok::<(), Infallible>(())
    })?;
    if let Some(ticket) = ticket {
        ticket.publish();
    }
    Ok(logged)
}

/// Creates the index `name` of `kind` on `(:Person {keys})`, commits it and
/// waits until it is online.
pub fn person_index(s: &Arc<Store>, name: &str, keys: &[&str], kind: IndexKind) {
    let t = s.begin();
    let def = IndexDef {
        name: name.into(),
        kind,
        entity: EntityKind::Node,
        label: "Person".into(),
        more_labels: Vec::new(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
    };
    assert!(t.create_index(def, false).unwrap().is_new());
    commit(&t).unwrap();
    assert!(s.await_indexes(Duration::from_secs(30)));
}
