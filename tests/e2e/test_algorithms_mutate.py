"""The `.mutate` variants of `neptune.algo.*` (issue 27): each writes its per-node result as the
property `writeProperty` inside the calling transaction, so the rest of the transaction sees it,
a rollback removes it and a commit keeps it (across a restart); the values written equal what the
reading variant yields. Run on the LDBC Graphalytics example graphs as test_algorithms.py loads
them."""

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

from test_algorithms import expected, same_partition, session  # noqa: F401 (fixture)

# procedure, reading variant's YIELD column, extra options
VARIANTS = [
    ("wcc", "component", {}),
    ("scc", "component", {}),
    ("degree", "degree", {}),
    ("pageRank", "rank", {"numOfIterations": 5}),
    ("labelPropagation", "community", {}),
    ("closenessCentrality", "score", {"numSources": 100}),
    ("louvain", "community", {}),
]


def graph_config(extra=None):
    return {"vertexLabel": "D", "edgeLabels": ["ED"], **(extra or {})}


def test_a_rolled_back_wcc_mutate_leaves_nothing_and_its_values_are_graphalytics(session):
    with session.begin_transaction() as tx:
        success = tx.run("CALL neptune.algo.wcc.mutate($config) YIELD success RETURN success",
                         config=graph_config({"writeProperty": "wcc"})).single()[0]
        assert success is True
        seen = {r["id"]: r["wcc"] for r in tx.run("MATCH (n:D) RETURN n.id AS id, n.wcc AS wcc")}
        assert same_partition(seen, expected("directed", "WCC"))
        tx.rollback()
    left = session.run("MATCH (n) WHERE n.wcc IS NOT NULL RETURN count(n)").single()[0]
    assert left == 0


@pytest.mark.parametrize("procedure, column, extra", VARIANTS)
def test_mutate_writes_what_the_reading_variant_yields(session, procedure, column, extra):
    read = session.run(f"CALL neptune.algo.{procedure}($config) YIELD node, {column} "
                       f"RETURN node.id AS id, {column} AS value", config=graph_config(extra)).data()
    summary = session.run(f"CALL neptune.algo.{procedure}.mutate($config) YIELD success RETURN success",
                          config=graph_config({**extra, "writeProperty": "result"})).consume()
    assert summary.counters.properties_set == len(read)
    written = session.run("MATCH (n:D) RETURN n.id AS id, n.result AS value").data()
    assert {r["id"]: r["value"] for r in written} == {r["id"]: r["value"] for r in read}
    assert session.run("MATCH (n:U) WHERE n.result IS NOT NULL RETURN count(n)").single()[0] == 0


def test_committed_mutate_survives_a_restart(server, driver):
    with driver.session() as s:
        s.run("UNWIND range(1, 5) AS i CREATE (:P {id: i})").consume()
        s.run("MATCH (a:P), (b:P) WHERE b.id = a.id + 1 CREATE (a)-[:N]->(b)").consume()
        s.run("CALL neptune.algo.degree.mutate({writeProperty: 'deg', traversalDirection: 'both'}) "
              "YIELD success RETURN success").consume()
    server.stop()
    server.start()
    with GraphDatabase.driver(server.uri, auth=("neo4j", "any-password")) as again:
        with again.session() as s:
            rows = s.run("MATCH (n:P) RETURN n.id AS id, n.deg AS deg ORDER BY id").data()
    assert [r["deg"] for r in rows] == [1, 2, 2, 2, 1]


@pytest.mark.parametrize("config, named", [
    ({}, "writeProperty"),
    ({"writeProperty": ""}, "writeProperty"),
    ({"writeProperty": 3}, "writeProperty"),
])
def test_mutate_without_a_usable_write_property_fails_and_writes_nothing(session, config, named):
    with pytest.raises(ClientError) as failure:
        session.run("CALL neptune.algo.pageRank.mutate($config) YIELD success RETURN success",
                    config=config).consume()
    assert failure.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    assert named in failure.value.message
