//! The loader end to end through a [`Database`]: user ids, one
//! transaction, failOnError, the import directory's confinement.

use std::path::Path;
use std::sync::Arc;

use super::{Format, InputFormat, LoadRequest, LoadState, LoadStatus, Loader};
use crate::db::{Database, DbConfig};
use nereid_values::Value;

fn count(db: &Arc<Database>, query: &str) -> i64 {
    let mut result = db.run(None, query, Default::default()).unwrap();
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .unwrap();
    match rows[0][0] {
        Value::Int(n) => n,
        ref other => panic!("{other:?}"),
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

/// Writes `text` as the import directory's file `name` and loads it.
fn load_one(
    loader: &Loader,
    import: &Path,
    name: &str,
    text: &str,
    fail_on_error: bool,
) -> LoadStatus {
    write(import, name, text);
    let request = request(format!("file:///{name}"), fail_on_error);
    loader.run(request).unwrap()
}

fn setup() -> (tempfile::TempDir, Arc<Database>, Loader, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(&DbConfig::new(dir.path().join("data"), 2)).unwrap();
    let import = dir.path().join("import");
    std::fs::create_dir_all(import.join("g")).unwrap();
    let loader = Loader::new(&db, &import, &dir.path().join("data").join("loads")).unwrap();
    (dir, db, loader, import)
}

fn request(source: String, fail_on_error: bool) -> LoadRequest {
    LoadRequest {
        source,
        format: InputFormat::Csv(Format::OpenCypher),
        fail_on_error,
        mode: Default::default(),
    }
}

const PEOPLE: &str = ":ID(Person),:LABEL,name:String\n1,Person,Ann\n2,Person,Bob\n";
const KNOWS: &str = ":START_ID(Person),:END_ID(Person),:TYPE,since:Int\n1,2,KNOWS,2020\n";

#[test]
fn a_directory_loads_nodes_before_relationships_and_keeps_user_ids() {
    let (_dir, db, loader, import) = setup();
    // Named so that the relationship file sorts first.
    write(&import.join("g"), "a_knows.csv", KNOWS);
    write(&import.join("g"), "b_people.csv", PEOPLE);
    let source = format!("file://{}", import.join("g").display());
    let status = loader.run(request(source, true)).unwrap();
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    assert_eq!((status.files_done, status.records), (2, 3));
    assert_eq!(status.property_values, 3);
    assert_eq!(
        count(&db, "MATCH (:Person)-[:KNOWS]->(:Person) RETURN count(*)"),
        1
    );
    let q = "MATCH (n) WHERE elementId(n) = '(Person)2' RETURN count(n)";
    assert_eq!(count(&db, q), 1);
    // A later load finds its endpoints by user id; a duplicate id is refused.
    write(
        &import,
        "more.csv",
        ":START_ID(Person),:END_ID(Person),:TYPE\n2,1,KNOWS\n",
    );
    let status = loader
        .run(request("file:///more.csv".into(), true))
        .unwrap();
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    let status = loader
        .run(request("file:///g/b_people.csv".into(), true))
        .unwrap();
    assert_eq!(status.state, LoadState::Failed);
    assert_eq!(count(&db, "MATCH (n) RETURN count(n)"), 2);
}

#[test]
fn a_bad_row_with_fail_on_error_leaves_nothing() {
    let (_dir, db, loader, import) = setup();
    write(&import.join("g"), "people.csv", PEOPLE);
    write(
        &import.join("g"),
        "rels.csv",
        ":START_ID(Person),:END_ID(Person),:TYPE,since:Int\n1,2,KNOWS,x\n",
    );
    let source = format!("file://{}", import.join("g").display());
    let status = loader.run(request(source.clone(), true)).unwrap();
    assert_eq!(status.state, LoadState::Failed);
    let error = &status.errors[0];
    assert!(error.file.ends_with("rels.csv"), "{error:?}");
    assert_eq!((error.line, error.column), (2, 11));
    assert_eq!(count(&db, "MATCH (n) RETURN count(n)"), 0);
    // Without failOnError the good rows load and the bad one is reported.
    let status = loader.run(request(source, false)).unwrap();
    assert_eq!(status.state, LoadState::Completed);
    assert_eq!(status.error_count, 1);
    assert_eq!(count(&db, "MATCH (n) RETURN count(n)"), 2);
}

/// The bulk path keeps a file's failures beside its rows (ADR 0127): a
/// reader error and a row the load refuses are reported in file order, and
/// without failOnError the other rows load.
#[test]
fn bad_rows_are_reported_in_file_order_and_the_rest_loads() {
    let (_dir, db, loader, import) = setup();
    let people = ":ID(Person),:LABEL,age:Int\n1,Person,30\n2,Person,x\n1,Person,31\n3,Person,40\n";
    write(&import.join("g"), "people.csv", people);
    let source = format!("file://{}", import.join("g").display());
    let status = loader.run(request(source, false)).unwrap();
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    let lines: Vec<u64> = status.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, [3, 4], "{status:?}");
    assert_eq!(status.records, 4);
    assert_eq!(count(&db, "MATCH (n:Person) RETURN count(n)"), 2);
    assert_eq!(count(&db, "MATCH (n:Person) RETURN sum(n.age)"), 70);
}

/// A node row refused for its repeated id is left out of the rows the
/// store takes (ADR 0154): the nodes after it, in its file and in later
/// files, keep the positions their relationships were resolved to.
#[test]
fn a_refused_node_row_shifts_no_relationship_end() {
    let (_dir, db, loader, import) = setup();
    let g = import.join("g");
    write(
        &g,
        "a.csv",
        ":ID(Person),:LABEL,age:Int\n1,Person,30\n2,Person,31\n",
    );
    write(
        &g,
        "b.csv",
        ":ID(Person),:LABEL,age:Int\n1,Person,99\n3,Person,40\n2,Person,98\n4,Person,50\n",
    );
    write(
        &g,
        "c.csv",
        ":ID(Person),:LABEL,age:Int\n4,Person,97\n5,Person,60\n",
    );
    write(
        &g,
        "r.csv",
        ":START_ID(Person),:END_ID(Person),:TYPE\n3,1,KNOWS\n4,2,KNOWS\n5,3,KNOWS\n2,5,KNOWS\n",
    );
    let status = loader
        .run(request(format!("file://{}", g.display()), false))
        .unwrap();
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    assert_eq!(status.error_count, 3, "{status:?}");
    let lines: Vec<(u64, bool)> = status
        .errors
        .iter()
        .map(|e| (e.line, e.file.ends_with("c.csv")))
        .collect();
    assert_eq!(lines, [(2, false), (4, false), (2, true)], "{status:?}");
    assert_eq!(
        status.property_values, 5,
        "the refused rows' values are not counted"
    );
    assert_eq!(count(&db, "MATCH (n:Person) RETURN sum(n.age)"), 211);
    let pairs = "MATCH (a)-[:KNOWS]->(b) RETURN sum(a.age * 1000 + b.age)";
    assert_eq!(
        count(&db, pairs),
        40_030 + 50_031 + 60_040 + 31_060,
        "every end is the node its id names"
    );
}

#[test]
fn a_missing_endpoint_names_its_row() {
    let (_dir, db, loader, import) = setup();
    write(&import, "rels.csv", KNOWS);
    let status = loader
        .run(request("file:///rels.csv".into(), true))
        .unwrap();
    assert_eq!(status.state, LoadState::Failed);
    let failure = status.failure.unwrap();
    assert_eq!(failure.status, nereid_errors::Status::EntityNotFound);
    assert!(
        failure.message.contains("rels.csv:2:1"),
        "{}",
        failure.message
    );
    assert_eq!(count(&db, "MATCH ()-[r]->() RETURN count(r)"), 0);
}

#[test]
fn sources_outside_the_import_directory_are_refused() {
    let (dir, _db, loader, import) = setup();
    write(dir.path(), "secret.csv", PEOPLE);
    let outside = dir.path().join("secret.csv");
    for source in [
        format!("file://{}", outside.display()),
        "file:///../secret.csv".to_string(),
        format!("file://{}/../secret.csv", import.display()),
        "http://example.com/x.csv".to_string(),
    ] {
        let refused = loader.submit(request(source.clone(), true)).unwrap_err();
        assert_eq!(
            refused.status,
            nereid_errors::Status::ExternalResourceFailed,
            "{source}"
        );
    }
    std::os::unix::fs::symlink(&outside, import.join("link.csv")).unwrap();
    assert!(loader
        .submit(request("file:///link.csv".into(), true))
        .is_err());
    std::os::unix::fs::symlink(dir.path(), import.join("g").join("up")).unwrap();
    assert!(loader
        .submit(request("file:///g/up/secret.csv".into(), true))
        .is_err());
}

#[test]
fn user_keys_are_unambiguous() {
    use super::user_key;
    assert_eq!(user_key(None, "a").unwrap(), "a");
    assert_eq!(user_key(Some("P"), "1").unwrap(), "(P)1");
    assert_eq!(user_key(None, "(P)1").unwrap(), "()(P)1");
    assert!(user_key(Some("a)b"), "1").is_err());
}

/// Relationship files are resolved by the parse workers, several at once:
/// each bad row is still reported with its own file and line, in file
/// order, and ends found among committed nodes (an earlier load) as well
/// as the load's own.
#[test]
fn relationship_files_resolved_in_parallel_report_each_bad_row() {
    let (_dir, db, loader, import) = setup();
    let status = load_one(&loader, &import, "people.csv", PEOPLE, true);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    let dir = import.join("g");
    write(&dir, "c.csv", ":ID(Person),:LABEL\n3,Person\n");
    let header = ":START_ID(Person),:END_ID(Person),:TYPE\n";
    write(&dir, "a.csv", &format!("{header}1,3,R\n1,9,R\n"));
    write(&dir, "b.csv", &format!("{header}3,2,R\n7,1,R\n2,1,R\n"));
    let source = format!("file://{}", dir.display());
    let status = loader.run(request(source, false)).unwrap();
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    let places: Vec<(bool, u64)> = status
        .errors
        .iter()
        .map(|e| (e.file.ends_with("a.csv"), e.line))
        .collect();
    assert_eq!(places, [(true, 3), (false, 3)]);
    // Ends read as numbers (ADR 0200) are named by their ids when missing.
    let messages: Vec<&str> = status.errors.iter().map(|e| e.message.as_str()).collect();
    assert!(
        messages[0].contains("no node with id `9` in id space `Person`")
            && messages[1].contains("no node with id `7` in id space `Person`"),
        "{messages:?}"
    );
    assert_eq!(count(&db, "MATCH ()-[r:R]->() RETURN count(r)"), 3);
    // With failOnError the first bad row in file order ends the load.
    let again = import.join("h");
    std::fs::create_dir_all(&again).unwrap();
    for name in ["a.csv", "b.csv"] {
        std::fs::copy(dir.join(name), again.join(name)).unwrap();
    }
    let source = format!("file://{}", again.display());
    let status = loader.run(request(source, true)).unwrap();
    assert_eq!(status.state, LoadState::Failed);
    assert_eq!(status.errors.len(), 1, "{status:?}");
    assert!(status.errors[0].file.ends_with("a.csv"), "{status:?}");
    assert_eq!(count(&db, "MATCH ()-[r:R]->() RETURN count(r)"), 3);
}

/// A node row whose id a committed node has is refused in its place
/// (without failOnError the others load); the rows are looked up only
/// when the snapshot has a node, and a deleted node's id is free again.
#[test]
fn a_committed_nodes_id_is_refused_in_its_row_and_free_once_deleted() {
    let (_dir, db, loader, import) = setup();
    let status = load_one(&loader, &import, "people.csv", PEOPLE, true);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    let more = ":ID(Person),:LABEL,name:String\n3,Person,Cy\n2,Person,Bo\n4,Person,Di\n";
    let status = load_one(&loader, &import, "more.csv", more, false);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    let places: Vec<u64> = status.errors.iter().map(|e| e.line).collect();
    assert_eq!(places, [3], "{status:?}");
    assert!(status.errors[0].message.contains("id `2` already exists"));
    assert_eq!(count(&db, "MATCH (n:Person) RETURN count(n)"), 4);
    let mut deleted = db
        .run(None, "MATCH (n) DETACH DELETE n", Default::default())
        .unwrap();
    deleted.pull(-1, &mut |_, _| {}).unwrap();
    assert_eq!(count(&db, "MATCH (n) RETURN count(n)"), 0);
    let status = load_one(&loader, &import, "again.csv", more, true);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    assert_eq!(count(&db, "MATCH (n:Person) RETURN count(n)"), 3);
}
