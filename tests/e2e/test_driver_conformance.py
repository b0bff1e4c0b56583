"""What the drivers' conformance suite (testkit, `tests.neo4j.*`) checks,
as our own regression tests with the official driver (issue 32): CYPHER
pre-parser options, exact durations, transaction metadata, records before a
failing row, and the query type."""

import neo4j
import pytest
from neo4j.time import Duration


def test_cypher_options_run_and_an_ignored_runtime_is_a_warning(driver):
    records, summary, _ = driver.execute_query(
        "CYPHER runtime=interpreted WITH $x AS x RETURN x", x=7
    )
    assert [r["x"] for r in records] == [7]
    warnings = [s for s in summary.gql_status_objects if s.is_notification]
    assert [s.gql_status for s in warnings] == ["01N40"]
    assert warnings[0].position.offset == 7
    # An option Nereid honours carries none; replan=force plans again.
    for _ in range(2):
        records, summary, _ = driver.execute_query("CYPHER 5 replan=force RETURN 1 AS one")
        assert records[0]["one"] == 1
        assert not [s for s in summary.gql_status_objects if s.is_notification]
    with pytest.raises(neo4j.exceptions.ClientError) as e:
        driver.execute_query("CYPHER nonsense=1 RETURN 1")
    assert e.value.code == "Neo.ClientError.Statement.ArgumentError"
    assert "Unsupported options: nonsense" in e.value.message


def test_disconnected_patterns_carry_the_cartesian_product_notification(driver):
    _, summary, _ = driver.execute_query("EXPLAIN MATCH (n), (m) RETURN n, m")
    notes = [s for s in summary.gql_status_objects if s.is_notification]
    assert [s.gql_status for s in notes] == ["03N90"]
    assert notes[0].position.offset == 8 and notes[0].position.line == 1
    assert notes[0].severity == neo4j.NotificationSeverity.INFORMATION
    assert notes[0].classification == neo4j.NotificationClassification.PERFORMANCE
    legacy = summary.summary_notifications
    assert [n.code for n in legacy] == ["Neo.ClientNotification.Statement.CartesianProduct"]
    _, summary, _ = driver.execute_query("MATCH (n)-->(m), (m)-->(o) RETURN n")
    assert not [s for s in summary.gql_status_objects if s.is_notification]


def test_names_the_database_never_saw_are_warned_of_in_read_only_queries(driver):
    """As the reference Neo4j 5.26 answers (recorded from it): one warning per unknown label,
    relationship type or property key a read-only query reads, at the name's position."""
    def warnings(query):
        _, summary, _ = driver.execute_query(query)
        return [(n.code.rsplit(".", 1)[-1], n.position.offset, n.description.rsplit(": ", 1)[-1])
                for n in summary.summary_notifications]

    assert warnings("MATCH (n:Nope)-[:NOPE {nope: 1}]->(m) RETURN m") == [
        ("UnknownLabelWarning", 9, "Nope)"), ("UnknownRelationshipTypeWarning", 17, "NOPE)"),
        ("UnknownPropertyKeyWarning", 23, "nope)")]
    assert warnings("MATCH (n) WHERE n:Nope RETURN n.nope2, n {.nope3}") == [
        ("UnknownLabelWarning", 18, "Nope)"), ("UnknownPropertyKeyWarning", 32, "nope2)"),
        ("UnknownPropertyKeyWarning", 43, "nope3)")]
    _, summary, _ = driver.execute_query("EXPLAIN MATCH (n:Nope) RETURN n")
    note = [s for s in summary.gql_status_objects if s.is_notification][0]
    assert (note.gql_status, note.severity, note.classification) == (
        "01N50", neo4j.NotificationSeverity.WARNING, neo4j.NotificationClassification.UNRECOGNIZED)
    assert note.status_description == ("warn: label does not exist. The label `Nope` does not "
                                       "exist. Verify that the spelling is correct.")
    # A query that may create the name is not warned; once it exists, nothing is (no replan).
    assert warnings("MATCH (n:Nope) SET n.nope = 1") == []
    assert warnings("MERGE (n:Nope)-[:NOPE]->(m {nope: 1})") == []
    assert warnings("MATCH (n:Nope)-[:NOPE {nope: 1}]->(m) RETURN m") == []
    assert warnings("CREATE INDEX IF NOT EXISTS FOR (n:Unseen) ON (n.unseen)") == []


def test_duration_fractions_are_exact(driver):
    records, _, _ = driver.execute_query(
        "RETURN duration('P1234M567890DT123456789123.999S') AS d"
    )
    d = records[0]["d"]
    assert isinstance(d, Duration)
    assert (d.months, d.days, d.seconds, d.nanoseconds) == (
        1234,
        567890,
        123456789123,
        999000000,
    )


def test_tx_metadata_is_read_and_replaced(driver):
    metadata = {"foo": 1.5, "bar": "baz"}
    with driver.session() as session:
        result = session.run(neo4j.Query("CALL tx.getMetaData", metadata=metadata))
        assert result.single().value() == metadata

        def work(tx):
            assert tx.run("CALL tx.getMetaData").single().value() == metadata
            tx.run("CALL tx.setMetaData({replaced: true})").consume()
            return tx.run("CALL tx.getMetaData() YIELD metadata RETURN metadata").single()[0]

        replaced = session.execute_read(
            neo4j.unit_of_work(metadata=metadata)(work)
        )
        assert replaced == {"replaced": True}
        # The next transaction starts without it.
        assert session.run("CALL tx.getMetaData").single().value() == {}


def test_records_before_a_failing_row_arrive_first(driver):
    with driver.session() as session:
        result = session.run("UNWIND [1, 0, 2] AS x RETURN 10 / x")
        assert next(iter(result)).values() == [10]
        with pytest.raises(neo4j.exceptions.ClientError):
            next(iter(result))
        assert session.run("RETURN 1 AS n").single()["n"] == 1


@pytest.mark.parametrize(
    "query, expected",
    [
        ("CREATE (n) RETURN n", "rw"),
        ("CREATE (n)", "w"),
        ("MATCH (n) RETURN n", "r"),
        ("EXPLAIN CREATE (n) RETURN n", "rw"),
    ],
)
def test_query_type_is_neo4js(driver, query, expected):
    _, summary, _ = driver.execute_query(query)
    assert summary.query_type == expected
