//! RDF set semantics across loads (a triple loaded twice is one edge) and
//! the export's refusal and batches (docs/adr/0113-streamed-export-and-rdf-sets.md).

use nereid_loader_formats::RdfSyntax;
use nereid_values::Value;

use super::rdf_tests::{load_ok, one, setup, CSV, NT, PEOPLE};

const NQ: super::InputFormat = super::InputFormat::Rdf(RdfSyntax::NQuads);

fn edges(db: &std::sync::Arc<crate::db::Database>) -> Value {
    one(db, "MATCH ()-[r]->() RETURN count(r)")
}

#[test]
fn a_triple_loaded_twice_is_one_edge() {
    let (_dir, db, loader, import) = setup();
    load_ok(&loader, &import, "people.nt", PEOPLE, NT);
    assert_eq!(edges(&db), Value::Int(1));
    // Again, with labels and values: the transaction path.
    load_ok(&loader, &import, "people.nt", PEOPLE, NT);
    assert_eq!(edges(&db), Value::Int(1));
    // Only the edge, between committed vertices: the bulk path.
    let edge =
        "<http://example.org/alice> <http://example.org/worksFor> <http://example.org/acme> .\n";
    load_ok(&loader, &import, "edge.nt", edge, NT);
    assert_eq!(edges(&db), Value::Int(1));
    // The same triple in a named graph is another edge, once.
    let quad = "<http://example.org/alice> <http://example.org/worksFor> <http://example.org/acme> <http://example.org/g> .\n";
    load_ok(&loader, &import, "g.nq", quad, NQ);
    load_ok(&loader, &import, "g.nq", quad, NQ);
    assert_eq!(edges(&db), Value::Int(2));
    // CSV relationships are not RDF: a second equal row is a second edge.
    let csv = ":START_ID,:END_ID,:TYPE\nhttp://example.org/bob,http://example.org/acme,VISITED\n";
    load_ok(&loader, &import, "v.csv", csv, CSV);
    load_ok(&loader, &import, "v.csv", csv, CSV);
    assert_eq!(edges(&db), Value::Int(4));
}

#[test]
fn two_files_of_one_load_give_a_shared_triple_once() {
    let (_dir, db, loader, import) = setup();
    std::fs::create_dir_all(import.join("d")).unwrap();
    let knows = "<http://example.org/a> <http://example.org/knows> <http://example.org/b> .\n";
    std::fs::write(import.join("d/1.nt"), knows).unwrap();
    std::fs::write(import.join("d/2.nt"), knows).unwrap();
    let request = super::LoadRequest {
        source: "file:///d".into(),
        format: NT,
        fail_on_error: true,
        mode: Default::default(),
    };
    let status = loader.run(request).unwrap();
    assert_eq!(status.state, super::LoadState::Completed, "{status:?}");
    assert_eq!(edges(&db), Value::Int(1));
    assert_eq!(one(&db, "MATCH (n) RETURN count(n)"), Value::Int(2));
}

fn export(loader: &super::Loader, syntax: RdfSyntax) -> Result<String, crate::db::DbError> {
    let mut out = Vec::new();
    loader.export_rdf(syntax)?.write_to(&mut out)?;
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn the_export_refuses_relationship_properties_before_writing() {
    let (_dir, _db, loader, import) = setup();
    load_ok(&loader, &import, "people.nt", PEOPLE, NT);
    assert!(export(&loader, RdfSyntax::NQuads).is_ok());
    let csv = ":START_ID,:END_ID,:TYPE,since:Int\nhttp://example.org/bob,http://example.org/alice,KNOWS,2020\n";
    load_ok(&loader, &import, "knows.csv", csv, CSV);
    let Err(e) = loader.export_rdf(RdfSyntax::NTriples) else {
        panic!("an edge property has no RDF form");
    };
    assert_eq!(e.status, nereid_errors::Status::ArgumentError);
    let shown =
        "(http://example.org/bob)-[:KNOWS]->(http://example.org/alice) has the property `since`";
    assert!(e.message.contains(shown), "{}", e.message);
    let Err(e) = loader.export_rdf(RdfSyntax::Turtle) else {
        panic!("Turtle is not written");
    };
    assert_eq!(e.status, nereid_errors::Status::ArgumentError);
}

#[test]
fn the_export_walks_more_nodes_than_a_batch() {
    let (_dir, db, loader, import) = setup();
    let people = 3 * super::export::NODE_BATCH + 17;
    let xsd_integer = "http://www.w3.org/2001/XMLSchema#integer";
    // A ring: every vertex a number and an edge to the next.
    let doc: String = (0..people)
        .map(|i| {
            let (s, next) = (i, (i + 1) % people);
            format!(
                "<http://example.org/p/{s}> <http://example.org/n> \"{s}\"^^<{xsd_integer}> .\n\
                 <http://example.org/p/{s}> <http://example.org/next> <http://example.org/p/{next}> .\n"
            )
        })
        .collect();
    load_ok(&loader, &import, "ring.nt", &doc, NT);
    let text = export(&loader, RdfSyntax::NTriples).unwrap();
    let mut exported: Vec<&str> = text.lines().collect();
    let mut loaded: Vec<&str> = doc.lines().collect();
    exported.sort_unstable();
    loaded.sort_unstable();
    assert_eq!(exported, loaded);
    assert_eq!(
        one(&db, "MATCH (n) RETURN count(n)"),
        Value::Int(people as i64)
    );
}
