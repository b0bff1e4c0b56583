"""What clients do around queries: the procedures and SHOW commands they
call on connect, and bookmarks across sessions (official Python driver)."""

import pytest
from neo4j import Bookmarks
from neo4j.exceptions import ClientError


def test_schema_procedures(driver):
    driver.execute_query(
        "CREATE (:Person {name:'Ann'})-[:KNOWS {since: 2020}]->(:Person:Admin {name:'Bob'})"
    )
    labels, _, keys = driver.execute_query("CALL db.labels()")
    assert keys == ["label"]
    assert sorted(r["label"] for r in labels) == ["Admin", "Person"]
    types, _, _ = driver.execute_query("CALL db.relationshipTypes()")
    assert [r["relationshipType"] for r in types] == ["KNOWS"]
    props, _, _ = driver.execute_query("CALL db.propertyKeys()")
    assert sorted(r["propertyKey"] for r in props) == ["name", "since"]


def test_license_agreement_is_not_found_as_on_community(driver):
    with pytest.raises(ClientError) as err:
        driver.execute_query("CALL dbms.licenseAgreementDetails()")
    assert err.value.code == "Neo.ClientError.Procedure.ProcedureNotFound"


def test_show_databases_on_the_system_database(driver, server):
    records, _, keys = driver.execute_query("SHOW DATABASES", database_="system")
    assert keys == [
        "name", "type", "aliases", "access", "address", "role", "writer",
        "requestedStatus", "currentStatus", "statusMessage", "default", "home",
        "constituents",
    ]
    by_name = {r["name"]: r for r in records}
    assert set(by_name) == {"neo4j", "system"}
    assert by_name["neo4j"]["default"] is True and by_name["neo4j"]["home"] is True
    assert by_name["system"]["type"] == "system"
    assert by_name["neo4j"]["address"] == f"127.0.0.1:{server.bolt_port}"
    default, _, _ = driver.execute_query("SHOW DEFAULT DATABASE")
    assert [r["name"] for r in default] == ["neo4j"]


def test_show_procedures_and_functions(driver):
    procedures, _, keys = driver.execute_query("SHOW PROCEDURES")
    assert keys == ["name", "description", "mode", "worksOnSystem"]
    names = [r["name"] for r in procedures]
    assert "db.ping" in names and "db.labels" in names
    assert not any(n.startswith("internal.") for n in names)
    functions, _, keys = driver.execute_query("SHOW FUNCTIONS")
    assert keys == ["name", "category", "description"]
    assert "count" in [r["name"] for r in functions]


def test_bookmarks_carry_reads_across_sessions(driver):
    with driver.session() as writer:
        writer.run("CREATE (:Marker {v: 1})").consume()
        bookmarks = writer.last_bookmarks()
    assert list(bookmarks.raw_values)[0].startswith("FB:nereid:")
    with driver.session(bookmarks=bookmarks) as reader:
        assert reader.run("MATCH (m:Marker) RETURN m.v AS v").single()["v"] == 1
    with driver.session(bookmarks=bookmarks) as tx_reader:
        with tx_reader.begin_transaction() as tx:
            assert tx.run("MATCH (m:Marker) RETURN count(m) AS c").single()["c"] == 1


def test_malformed_bookmarks_are_client_errors(driver):
    bad = Bookmarks.from_raw_values(["not-a-bookmark"])
    with driver.session(bookmarks=bad) as session:
        with pytest.raises(ClientError) as err:
            session.run("RETURN 1").consume()
    assert "bookmark" in err.value.message
    # The driver's pool recovers: the next session works.
    records, _, _ = driver.execute_query("RETURN 1 AS x")
    assert records[0]["x"] == 1
