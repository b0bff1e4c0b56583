"""`CALL neptune.load({...})` (issue 25): Neptune Analytics' batch load as one query, through the
same loader as POST /loader: the loaded graph is there when the call returns, the call yields the
load's outcome, a bad row with failOnError fails the query and leaves nothing, bad options and a
source outside the import directory are clear errors, and the call is refused inside an explicit
transaction (the load commits by itself; like `CALL { } IN TRANSACTIONS`, so it is run with
session.run, not the driver's managed execute_query)."""

import os

import pytest
from neo4j.exceptions import ClientError, DatabaseError


def import_dir(server):
    path = os.path.join(server.data_dir, "import")
    os.makedirs(path, exist_ok=True)
    return path


def write(directory, name, text):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "w") as f:
        f.write(text)


def people(server, name="people"):
    source = os.path.join(import_dir(server), name)
    write(source, "people.csv", ":ID(P),:LABEL,name,age:int\n1,Person,Ann,31\n2,Person,Bob,42\n")
    write(source, "knows.csv", ":START_ID(P),:END_ID(P),:TYPE,since:int\n1,2,KNOWS,2020\n")
    return source


def single(driver, query, **params):
    records, _, _ = driver.execute_query(query, params)
    return records[0][0]


def auto_commit(driver, query):
    """Records and summary of `query` run as an auto-commit transaction."""
    with driver.session() as session:
        result = session.run(query)
        records = list(result)
        return records, result.consume()


def test_a_load_from_cypher_is_visible_when_the_call_returns(server, driver):
    people(server)
    records, summary = auto_commit(
        driver,
        "CALL neptune.load({source: 'file:///people', format: 'opencypher', "
        "failOnError: true, concurrency: 2}) "
        "YIELD state, files, totalRecords, propertyValues, errorCount, errors "
        "RETURN state, files, totalRecords, propertyValues, errorCount, errors")
    row = records[0]
    assert row["state"] == "LOAD_COMPLETED"
    assert (row["files"], row["totalRecords"], row["errorCount"], row["errors"]) == (2, 3, 0, [])
    assert row["propertyValues"] == 5
    assert summary.query_type == "rw"
    assert single(driver, "MATCH (a:Person {name: 'Ann'})-[k:KNOWS]->(b) "
                          "RETURN b.name + ':' + toString(k.since)") == "Bob:2020"


def test_a_bad_row_fails_the_query_and_leaves_nothing(server, driver):
    source = people(server, "bad")
    write(source, "knows.csv", ":START_ID(P),:END_ID(P),:TYPE,since:int\n1,2,KNOWS,soon\n")
    with pytest.raises(ClientError) as failure:
        auto_commit(driver, "CALL neptune.load({source: 'file:///bad', format: 'opencypher'})")
    assert failure.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"
    assert "knows.csv" in failure.value.message
    assert single(driver, "MATCH (n) RETURN count(n)") == 0

    # failOnError false: the good rows load and the bad one is reported.
    records, _ = auto_commit(
        driver,
        "CALL neptune.load({source: 'file:///bad', format: 'opencypher', failOnError: false}) "
        "YIELD state, errorCount, errors RETURN state, errorCount, errors")
    assert records[0]["state"] == "LOAD_COMPLETED"
    assert records[0]["errorCount"] == 1
    error = records[0]["errors"][0]
    assert error["file"].endswith("knows.csv") and (error["line"], error["column"]) == (2, 11)
    assert single(driver, "MATCH (n:Person) RETURN count(n)") == 2


@pytest.mark.parametrize("config, says", [
    ("{format: 'opencypher'}", "`source` is required"),
    ("{source: 'file:///people'}", "`format` is required"),
    ("{source: 'file:///people', format: 'parquet'}", "unknown format `parquet`"),
    ("{source: 'file:///people', format: 'opencypher', failOnErr: true}", "unknown option"),
    ("{source: 'file:///people', format: 'opencypher', concurrency: 0}", "`concurrency`"),
    ("'file:///people'", "expected MAP"),
])
def test_bad_options_are_clear_errors(server, driver, config, says):
    people(server)
    with pytest.raises(ClientError) as failure:
        auto_commit(driver, f"CALL neptune.load({config})")
    assert says in failure.value.message, failure.value.message
    assert single(driver, "MATCH (n) RETURN count(n)") == 0


def test_a_source_outside_the_import_dir_is_refused(server, driver, tmp_path):
    outside = tmp_path / "outside.csv"
    outside.write_text(":ID,:LABEL\n1,X\n")
    with pytest.raises(ClientError) as failure:
        auto_commit(driver,
                    f"CALL neptune.load({{source: 'file://{outside}', format: 'opencypher'}})")
    assert failure.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"
    assert single(driver, "MATCH (n) RETURN count(n)") == 0


def test_refused_in_an_explicit_transaction(server, driver):
    people(server)
    with driver.session() as session:
        tx = session.begin_transaction()
        with pytest.raises(DatabaseError) as failure:
            tx.run("CALL neptune.load({source: 'file:///people', format: 'opencypher'})").consume()
        tx.close()
    assert failure.value.code == "Neo.DatabaseError.Transaction.TransactionStartFailed"
    assert single(driver, "MATCH (n) RETURN count(n)") == 0


def test_an_ntriples_load_from_cypher_is_one_graph_with_its_iris(server, driver):
    """Issue 26: `neptune.load` takes the RDF formats of POST /loader."""
    write(import_dir(server), "people.nt",
          "<http://example.org/ann> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
          "<http://example.org/Person> .\n"
          "<http://example.org/ann> <http://example.org/name> \"Ann\" .\n"
          "<http://example.org/ann> <http://example.org/knows> <http://example.org/bob> .\n")
    records, _ = auto_commit(
        driver,
        "CALL neptune.load({source: 'file:///people.nt', format: 'ntriples', failOnError: true}) "
        "YIELD state, errorCount RETURN state, errorCount")
    assert (records[0]["state"], records[0]["errorCount"]) == ("LOAD_COMPLETED", 0)
    assert single(driver, "PREFIX ex: <http://example.org/> "
                          "MATCH (a:ex::Person)-[:ex::knows]->(b) WHERE id(a) = ex::ann "
                          "RETURN a.ex::name + '>' + elementId(b)") == "Ann>http://example.org/bob"
