//! Constraints: uniqueness at write time and against concurrent commits,
//! existence at commit, property types at write time, creation over data
//! that breaks them, and schema changes surviving replay.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::{
    Change, CommitError, ConstraintDef, ConstraintKind, EntityKind, IndexDef, IndexKind, IndexSeek,
    IndexState, StorageError, Store, StoreConfig, ValueType,
};
use nereid_values::Value;
use std::sync::Arc;
use std::time::Duration;

fn constraint(name: &str, kind: ConstraintKind, keys: &[&str]) -> ConstraintDef {
    ConstraintDef {
        name: name.into(),
        kind,
        entity: EntityKind::Node,
        label: "User".into(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
    }
}

fn add(s: &Arc<Store>, def: ConstraintDef) -> Result<(), StorageError> {
    let t = s.begin();
    t.create_constraint(def, false)?;
    match commit(&t) {
        Ok(_) => Ok(()),
        Err(CommitError::Storage(e)) => Err(e),
        Err(CommitError::Log(never)) => match never {},
    }
}

fn user(s: &Arc<Store>, email: Value) -> Result<(), StorageError> {
    let t = s.begin();
    t.create_node(&labels(&["User"]), &props(&[("email", email)]))?;
    commit(&t).map(drop).map_err(|e| match e {
        CommitError::Storage(e) => e,
        CommitError::Log(never) => match never {},
    })
}

#[test]
fn a_unique_key_is_refused_at_the_write_and_names_the_holder() {
    let s = store();
    add(&s, constraint("email", ConstraintKind::Unique, &["email"])).unwrap();
    user(&s, Value::from("a@x")).unwrap();
    let err = user(&s, Value::from("a@x")).unwrap_err();
    let StorageError::ConstraintViolation(msg) = err else {
        panic!("{err:?}")
    };
    assert!(
        msg.contains("label `User`") && msg.contains("`email` = 'a@x'"),
        "{msg}"
    );
    // 1 and 1.0 are one value.
    user(&s, Value::Int(1)).unwrap();
    assert!(user(&s, Value::Float(1.0)).is_err());
    // Nothing of the failed write is left.
    let t = s.begin();
    assert_eq!(t.scan_nodes(Some("User")).len(), 2);
    // A key freed by a change can be taken again.
    let holder = t
        .seek_nodes("email", &IndexSeek::equal(vec![Value::from("a@x")]))
        .unwrap()[0];
    t.set_node_property(holder, "email", Value::from("b@x"))
        .unwrap();
    t.create_node(&labels(&["User"]), &props(&[("email", Value::from("a@x"))]))
        .unwrap();
    commit(&t).unwrap();
}

#[test]
fn two_transactions_never_both_commit_one_key() {
    let s = store();
    add(&s, constraint("email", ConstraintKind::Unique, &["email"])).unwrap();
    let a = s.begin();
    let b = s.begin();
    a.create_node(&labels(&["User"]), &props(&[("email", Value::from("k"))]))
        .unwrap();
    b.create_node(&labels(&["User"]), &props(&[("email", Value::from("k"))]))
        .unwrap();
    commit(&a).unwrap();
    let err = commit(&b).unwrap_err();
    assert!(
        matches!(err, CommitError::Storage(StorageError::WriteConflict(_))),
        "{err:?}"
    );
    // The retry sees the committed key and is refused for good.
    assert!(matches!(
        user(&s, Value::from("k")),
        Err(StorageError::ConstraintViolation(_))
    ));
}

#[test]
fn many_threads_racing_for_keys_leave_one_node_per_key() {
    let s = store();
    add(&s, constraint("email", ConstraintKind::Unique, &["email"])).unwrap();
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let s = s.clone();
            std::thread::spawn(move || {
                for key in 0..40 {
                    // MERGE: look up, create if absent, retry on conflict.
                    loop {
                        let t = s.begin();
                        let email = Value::from(format!("u{key}"));
                        let found = t
                            .seek_nodes("email", &IndexSeek::equal(vec![email.clone()]))
                            .unwrap();
                        if found.is_empty() {
                            let created =
                                t.create_node(&labels(&["User"]), &props(&[("email", email)]));
                            if created.is_err() {
                                continue;
                            }
                        }
                        if commit(&t).is_ok() {
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let t = s.begin();
    let mut emails: Vec<Value> = t
        .scan_nodes(Some("User"))
        .into_iter()
        .map(|n| t.node_property(n, "email").unwrap())
        .collect();
    assert_eq!(emails.len(), 40);
    emails.dedup();
    assert_eq!(emails.len(), 40);
}

#[test]
fn existence_is_checked_at_commit() {
    let s = store();
    add(
        &s,
        constraint("has_email", ConstraintKind::Exists, &["email"]),
    )
    .unwrap();
    let t = s.begin();
    let n = t.create_node(&labels(&["User"]), &props(&[])).unwrap();
    // Within the transaction the property may come later.
    t.set_node_property(n, "email", Value::from("x")).unwrap();
    commit(&t).unwrap();
    let t = s.begin();
    t.set_node_property(n, "email", Value::Null).unwrap();
    let err = commit(&t).unwrap_err();
    let CommitError::Storage(StorageError::ConstraintViolation(msg)) = err else {
        panic!("{err:?}")
    };
    assert!(msg.contains("must have the property `email`"), "{msg}");
    assert_eq!(s.begin().node_property(n, "email"), Some(Value::from("x")));
}

#[test]
fn property_types_are_checked_at_the_write() {
    let s = store();
    let typed = ConstraintKind::PropertyType(vec![ValueType::Integer, ValueType::Float]);
    add(&s, constraint("age_number", typed, &["age"])).unwrap();
    let t = s.begin();
    let n = t
        .create_node(&labels(&["User"]), &props(&[("age", Value::Int(3))]))
        .unwrap();
    assert!(matches!(
        t.set_node_property(n, "age", Value::from("old")),
        Err(StorageError::ConstraintViolation(_))
    ));
    t.set_node_property(n, "age", Value::Float(3.5)).unwrap();
    let other = t
        .create_node(&labels(&["Other"]), &props(&[("age", Value::from("x"))]))
        .unwrap();
    assert!(matches!(
        t.add_label(other, "User"),
        Err(StorageError::ConstraintViolation(_))
    ));
    commit(&t).unwrap();
}

#[test]
fn creating_a_constraint_over_breaking_data_fails_and_names_a_node() {
    let s = store();
    user(&s, Value::from("dup")).unwrap();
    user(&s, Value::from("dup")).unwrap();
    let err = add(&s, constraint("email", ConstraintKind::Unique, &["email"])).unwrap_err();
    let StorageError::ConstraintCreationFailed(msg) = err else {
        panic!("{err:?}")
    };
    assert!(msg.contains("Both Node(") && msg.contains("'dup'"), "{msg}");
    assert!(s.schema().constraints.is_empty() && s.schema().indexes.is_empty());
    let err = add(&s, constraint("name", ConstraintKind::Key, &["name"])).unwrap_err();
    assert!(matches!(err, StorageError::ConstraintCreationFailed(_)));
}

#[test]
fn schema_and_data_do_not_share_a_transaction() {
    let s = store();
    let t = s.begin();
    t.create_node(&labels(&["User"]), &props(&[])).unwrap();
    let err = t
        .create_constraint(constraint("c", ConstraintKind::Unique, &["email"]), false)
        .unwrap_err();
    assert!(matches!(
        err,
        StorageError::SchemaAndDataInOneTransaction(_)
    ));
    let t = s.begin();
    t.create_constraint(constraint("c", ConstraintKind::Unique, &["email"]), false)
        .unwrap();
    assert!(t.create_node(&labels(&["User"]), &props(&[])).is_err());
}

#[test]
fn names_and_equivalents_clash_as_in_neo4j() {
    let s = store();
    add(&s, constraint("c", ConstraintKind::Unique, &["email"])).unwrap();
    // Neo4j 5.26: "equivalent" when the name is the same too; under
    // another name it is ConstraintAlreadyExists.
    let again = add(&s, constraint("other", ConstraintKind::Unique, &["email"]));
    assert!(matches!(
        again,
        Err(StorageError::ConstraintAlreadyExists(_))
    ));
    let equivalent = add(&s, constraint("c", ConstraintKind::Unique, &["email"]));
    assert!(matches!(
        equivalent,
        Err(StorageError::EquivalentSchemaRuleExists(_))
    ));
    let same_name = add(&s, constraint("c", ConstraintKind::Exists, &["email"]));
    assert!(matches!(
        same_name,
        Err(StorageError::ConstraintNameTaken(_))
    ));
    let t = s.begin();
    assert!(!t
        .create_constraint(constraint("c", ConstraintKind::Unique, &["email"]), true)
        .unwrap()
        .is_new());
    let index = IndexDef {
        name: "c".into(),
        kind: IndexKind::Text,
        entity: EntityKind::Node,
        label: "User".into(),
        more_labels: Vec::new(),
        keys: vec!["x".into()],
    };
    assert!(matches!(
        t.create_index(index, false),
        Err(StorageError::IndexNameTaken(_)) | Err(StorageError::ConstraintNameTaken(_))
    ));
    // The backing index belongs to the constraint.
    assert!(matches!(
        t.drop_index("c", false),
        Err(StorageError::IndexNotFound(_))
    ));
    assert!(matches!(
        t.drop_constraint("nope", false),
        Err(StorageError::ConstraintNotFound(_))
    ));
    assert!(!t.drop_constraint("nope", true).unwrap());
    assert!(t.drop_constraint("c", false).unwrap());
    commit(&t).unwrap();
    assert!(s.schema().indexes.is_empty());
}

#[test]
fn the_schema_survives_replay_and_is_rebuilt() {
    let s = store();
    let mut log: Vec<(u64, Vec<Change>)> = Vec::new();
    add(&s, constraint("email", ConstraintKind::Unique, &["email"])).unwrap();
    let t = s.begin();
    t.create_index(
        IndexDef {
            name: "age".into(),
            kind: IndexKind::Range,
            entity: EntityKind::Node,
            label: "User".into(),
            more_labels: Vec::new(),
            keys: vec!["age".into()],
        },
        false,
    )
    .unwrap();
    log.push(commit(&t).unwrap());
    assert!(s.await_indexes(Duration::from_secs(10)));
    let t = s.begin();
    for i in 0..100 {
        t.create_node(
            &labels(&["User"]),
            &props(&[
                ("email", Value::from(format!("e{i}"))),
                ("age", Value::Int(i % 7)),
            ]),
        )
        .unwrap();
    }
    log.push(commit(&t).unwrap());
    // A fresh store from the schema export plus the log.
    let fresh = Store::new(StoreConfig { partitions: 4 });
    fresh.replay(1, &s.export_schema()).unwrap();
    for (ts, changes) in &log {
        if changes.iter().all(|c| c.is_schema()) {
            continue;
        }
        fresh.replay(ts + 1, changes).unwrap();
    }
    fresh.rebuild_indexes();
    let view = fresh.schema();
    assert_eq!(view.constraints.len(), 1);
    assert_eq!(view.indexes.len(), 2);
    assert!(view.indexes.iter().all(|i| i.state == IndexState::Online));
    let t = fresh.begin();
    let sevens = t
        .seek_nodes("age", &IndexSeek::equal(vec![Value::Int(3)]))
        .unwrap();
    assert_eq!(sevens.len(), 14);
    assert!(matches!(
        t.create_node(&labels(&["User"]), &props(&[("email", Value::from("e5"))])),
        Err(StorageError::ConstraintViolation(_))
    ));
}

#[test]
fn the_schema_travels_in_a_checkpoint_and_the_log_after_it_repeats_harmlessly() {
    let s = store();
    add(&s, constraint("email", ConstraintKind::Unique, &["email"])).unwrap();
    user(&s, Value::from("a")).unwrap();
    user(&s, Value::from("b")).unwrap();
    let at = s.visible_ts();
    let fresh = Store::new(StoreConfig { partitions: 4 });
    for part in 0..s.node_partitions() {
        let nodes: Vec<_> = s.export_nodes(at, part).collect();
        fresh.load_snapshot(at, &nodes).unwrap();
    }
    for cell in 0..s.rel_partitions() {
        let rels: Vec<_> = s.export_rels(at, cell).collect();
        fresh.load_snapshot(at, &rels).unwrap();
    }
    fresh.finish_snapshot_load(at, &s.id_counters()).unwrap();
    // The constraint's creation again, as a log after the checkpoint may hold it.
    fresh
        .replay(
            at + 1,
            &[Change::CreateConstraint(constraint(
                "email",
                ConstraintKind::Unique,
                &["email"],
            ))],
        )
        .unwrap();
    fresh.rebuild_indexes();
    assert_eq!(fresh.schema().constraints.len(), 1);
    assert_eq!(fresh.schema().indexes.len(), 1);
    assert!(matches!(
        user(&fresh, Value::from("b")),
        Err(StorageError::ConstraintViolation(_))
    ));
    user(&fresh, Value::from("c")).unwrap();
}
