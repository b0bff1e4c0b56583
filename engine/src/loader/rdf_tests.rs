//! RDF loads end to end through a [`Database`]: IRIs as vertex ids shared
//! with CSV `:ID`s, merging into committed vertices, blank-node scope,
//! and bad documents leaving nothing (docs/adr/0108-onegraph-rdf.md).

use std::path::Path;
use std::sync::Arc;

use nereid_loader_formats::RdfSyntax;
use nereid_values::Value;

use super::{Format, InputFormat, LoadRequest, LoadState, Loader};
use crate::db::{Database, DbConfig};

pub(super) fn rows(db: &Arc<Database>, query: &str) -> Vec<Vec<Value>> {
    let mut result = db.run(None, query, Default::default()).unwrap();
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .unwrap();
    rows
}

pub(super) fn one(db: &Arc<Database>, query: &str) -> Value {
    rows(db, query).remove(0).remove(0)
}

pub(super) fn setup() -> (tempfile::TempDir, Arc<Database>, Loader, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = Database::open(&DbConfig::new(dir.path().join("data"), 2)).unwrap();
    let import = dir.path().join("import");
    std::fs::create_dir_all(&import).unwrap();
    let loader = Loader::new(&db, &import, &dir.path().join("data").join("loads")).unwrap();
    (dir, db, loader, import)
}

pub(super) fn load(
    loader: &Loader,
    import: &Path,
    name: &str,
    text: &str,
    format: InputFormat,
) -> super::LoadStatus {
    std::fs::write(import.join(name), text).unwrap();
    let request = LoadRequest {
        source: format!("file:///{name}"),
        format,
        fail_on_error: true,
        mode: Default::default(),
    };
    loader.run(request).unwrap()
}

/// Loads a file that must load.
pub(super) fn load_ok(loader: &Loader, import: &Path, name: &str, text: &str, format: InputFormat) {
    let status = load(loader, import, name, text, format);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
}

pub(super) const CSV: InputFormat = InputFormat::Csv(Format::OpenCypher);
pub(super) const NT: InputFormat = InputFormat::Rdf(RdfSyntax::NTriples);

pub(super) const PEOPLE: &str = r#"<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Person> .
<http://example.org/alice> <http://example.org/name> "Alice" .
<http://example.org/alice> <http://example.org/worksFor> <http://example.org/acme> .
<http://example.org/alice> <http://example.org/born> "1990-05-17"^^<http://www.w3.org/2001/XMLSchema#date> .
<http://example.org/bob> <http://example.org/name> "Bob" .
<http://example.org/bob> <http://example.org/name> "Robert" .
"#;

pub(super) const PREFIX: &str = "PREFIX ex: <http://example.org/> ";

#[test]
fn rdf_then_csv_share_iris_and_are_found_by_iri() {
    let (_dir, db, loader, import) = setup();
    load_ok(&loader, &import, "people.nt", PEOPLE, NT);
    let q = format!("{PREFIX}MATCH (n:ex::Person) WHERE id(n) = ex::alice RETURN n.ex::name");
    assert_eq!(one(&db, &q), Value::String("Alice".into()));
    let q = "MATCH (n) WHERE id(n) = <http://example.org/bob> RETURN n.`http://example.org/name`";
    assert_eq!(
        one(&db, q),
        Value::List(vec![Value::String("Bob".into()), Value::String("Robert".into())].into())
    );
    // A CSV relationship file joins RDF vertices by IRI.
    let csv = ":START_ID,:END_ID,:TYPE,since:Int\nhttp://example.org/bob,http://example.org/alice,KNOWS,2020\n";
    load_ok(&loader, &import, "knows.csv", csv, CSV);
    let q = format!("{PREFIX}MATCH (b)-[k:KNOWS]->(a)-[:ex::worksFor]->(c) RETURN b.ex::name, k.since, id(c) = ex::acme");
    let row = rows(&db, &q).remove(0);
    assert_eq!(row[1], Value::Int(2020));
    assert_eq!(row[2], Value::Bool(true));
    assert_eq!(one(&db, "MATCH (n) RETURN count(n)"), Value::Int(3));
}

#[test]
fn an_rdf_load_counts_its_literals_as_property_values() {
    let (_dir, _db, loader, import) = setup();
    let status = load(&loader, &import, "people.nt", PEOPLE, NT);
    assert_eq!(status.state, LoadState::Completed, "{status:?}");
    // One per property of a subject, as a CSV row counts them: Alice's
    // name and birth date, Bob's two names as one list (they were 0).
    assert_eq!(status.property_values, 3, "{status:?}");
}

#[test]
fn rdf_adds_to_vertices_a_csv_created() {
    let (_dir, db, loader, import) = setup();
    let csv = ":ID,:LABEL,name:String\nhttp://example.org/alice,Employee,Alice\n";
    load_ok(&loader, &import, "staff.csv", csv, CSV);
    load_ok(&loader, &import, "people.nt", PEOPLE, NT);
    let q = format!("{PREFIX}MATCH (n:Employee:ex::Person) RETURN n.name, n.ex::name, n.ex::born");
    let row = rows(&db, &q).remove(0);
    assert_eq!(row[0], Value::String("Alice".into()));
    assert_eq!(row[1], Value::String("Alice".into()));
    assert!(matches!(row[2], Value::Date(_)), "{row:?}");
    assert_eq!(one(&db, "MATCH (n) RETURN count(n)"), Value::Int(3));
    // Loading the same facts again changes no value (RDF is a set).
    load_ok(&loader, &import, "people.nt", PEOPLE, NT);
    let q = format!("{PREFIX}MATCH (n) WHERE id(n) = ex::bob RETURN size(n.ex::name)");
    assert_eq!(one(&db, &q), Value::Int(2));
}

#[test]
fn blank_nodes_are_new_vertices_in_every_load() {
    let (_dir, db, loader, import) = setup();
    let doc = "_:x <http://example.org/p> \"v\" .\n";
    for _ in 0..2 {
        let status = load(&loader, &import, "b.nt", doc, NT);
        assert_eq!(status.state, LoadState::Completed, "{status:?}");
    }
    assert_eq!(one(&db, "MATCH (n) RETURN count(n)"), Value::Int(2));
}

#[test]
fn a_bad_document_fails_the_load_and_leaves_nothing() {
    let (_dir, db, loader, import) = setup();
    std::fs::create_dir_all(import.join("d")).unwrap();
    std::fs::write(import.join("d/a.nt"), PEOPLE).unwrap();
    let bad = "<http://example.org/x> <http://example.org/p> \"ok\" .\n<http://example.org/x> <http://example.org/p> .\n";
    std::fs::write(import.join("d/b.nt"), bad).unwrap();
    let request = LoadRequest {
        source: "file:///d".into(),
        format: NT,
        fail_on_error: true,
        mode: Default::default(),
    };
    let status = loader.run(request).unwrap();
    assert_eq!(status.state, LoadState::Failed, "{status:?}");
    let failure = status.failure.unwrap();
    assert!(failure.message.contains("b.nt:2:"), "{}", failure.message);
    assert_eq!(one(&db, "MATCH (n) RETURN count(n)"), Value::Int(0));
    let status = load(
        &loader,
        &import,
        "t.ttl",
        "ex:a ex:p 1 .\n",
        InputFormat::Rdf(RdfSyntax::Turtle),
    );
    assert_eq!(status.state, LoadState::Failed);
    let message = status.failure.unwrap().message;
    assert!(message.contains("t.ttl:1:"), "{message}");
}

/// `people` subjects, each with a number, an edge to a company and one to
/// the next person: about 250 bytes a subject.
fn people_document(people: i64) -> String {
    let mut doc = String::new();
    for i in 0..people {
        let p = format!("<http://example.org/person/{i}>");
        doc.push_str(&format!(
            "{p} <http://example.org/n> \"{i}\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n\
             {p} <http://example.org/worksFor> <http://example.org/acme> .\n"
        ));
        if i + 1 < people {
            let next = format!("<http://example.org/person/{}>", i + 1);
            doc.push_str(&format!("{p} <http://example.org/knows> {next} .\n"));
        }
    }
    doc
}

/// Subjects enough for a document of more than two of the reader's
/// pieces (8 MiB each), parsed on worker threads and merged while parsed.
const MANY_PIECES: i64 = 75_000;

/// Edges take their ends from the vertex records of their group by
/// position (`bulk_rdf.rs`): ends in the load, committed ends, and ends
/// in another piece of the document (over two pieces, merged as each is
/// parsed: ADR 0150) all resolve to the right vertices.
#[test]
fn edges_find_their_ends_across_pieces_and_in_the_graph() {
    let (_dir, db, loader, import) = setup();
    let csv = ":ID,:LABEL,name:String\nhttp://example.org/acme,Company,Acme\n";
    load_ok(&loader, &import, "acme.csv", csv, CSV);
    let people = MANY_PIECES;
    let doc = people_document(people);
    assert!(
        doc.len() > 16 << 20,
        "{} bytes: under three pieces",
        doc.len()
    );
    load_ok(&loader, &import, "people.nt", &doc, NT);
    let q =
        format!("{PREFIX}MATCH (a)-[:ex::knows]->(b) WHERE b.ex::n = a.ex::n + 1 RETURN count(*)");
    assert_eq!(one(&db, &q), Value::Int(people - 1));
    let q = format!("{PREFIX}MATCH ()-[k:ex::knows]->() RETURN count(k)");
    assert_eq!(one(&db, &q), Value::Int(people - 1));
    let q =
        format!("{PREFIX}MATCH (p)-[:ex::worksFor]->(c:Company) RETURN count(DISTINCT p), c.name");
    assert_eq!(
        rows(&db, &q),
        vec![vec![Value::Int(people), Value::String("Acme".into())]]
    );
    assert_eq!(
        one(&db, "MATCH (n) RETURN count(n)"),
        Value::Int(people + 1)
    );
}

/// A syntax error after pieces already merged: with failOnError the load
/// fails naming the line and leaves nothing (the streamed records were
/// merged into rows never committed); without it the broken document is
/// skipped whole (read whole before any record) and the next file loads.
#[test]
fn a_late_syntax_error_leaves_nothing_of_its_document() {
    let mut doc = people_document(MANY_PIECES);
    doc.push_str("<http://example.org/x> <http://example.org/p> .\n");
    let line = doc.lines().count();
    for fail_on_error in [true, false] {
        let (_dir, db, loader, import) = setup();
        std::fs::create_dir_all(import.join("d")).unwrap();
        std::fs::write(import.join("d/a.nt"), &doc).unwrap();
        std::fs::write(import.join("d/b.nt"), PEOPLE).unwrap();
        let request = LoadRequest {
            source: "file:///d".into(),
            format: NT,
            fail_on_error,
            mode: Default::default(),
        };
        let status = loader.run(request).unwrap();
        let at = format!("a.nt:{line}:");
        let count = one(&db, "MATCH (n) RETURN count(n)");
        if fail_on_error {
            assert_eq!(status.state, LoadState::Failed, "{status:?}");
            let message = status.failure.unwrap().message;
            assert!(message.contains(&at), "{message}");
            assert_eq!(count, Value::Int(0));
        } else {
            let errors: Vec<(&str, u64)> = status
                .errors
                .iter()
                .map(|e| (e.file.as_str(), e.line))
                .collect();
            assert_eq!(errors.len(), 1, "{errors:?}");
            assert!(
                errors[0].0.ends_with("a.nt") && errors[0].1 == line as u64,
                "{errors:?}"
            );
            assert_eq!(count, Value::Int(3), "only b.nt's vertices");
        }
    }
}
