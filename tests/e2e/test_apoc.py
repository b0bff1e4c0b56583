"""The APOC core subset through the official Python driver, as the GraphRAG
libraries send it (issue 31): langchain-neo4j's `refresh_schema` queries and
`add_graph_documents` writes, LlamaIndex's entity upsert, written out here
verbatim (the libraries themselves are not installed), plus the error
contract clients see for a refused call."""

import pytest
from neo4j.exceptions import ClientError

EXCLUDED_LABELS = ["_Bloom_Perspective_", "_Bloom_Scene_", "__Entity__"]

# langchain-neo4j's refresh_schema, verbatim.
NODE_PROPERTIES_QUERY = """
CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE NOT type = "RELATIONSHIP" AND elementType = "node"
  AND NOT label IN $EXCLUDED_LABELS
WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
RETURN {labels: nodeLabels, properties: properties} AS output

"""

REL_PROPERTIES_QUERY = """
CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE NOT type = "RELATIONSHIP" AND elementType = "relationship"
      AND NOT label in $EXCLUDED_LABELS
WITH label AS nodeLabels, collect({property:property, type:type}) AS properties
RETURN {type: nodeLabels, properties: properties} AS output
"""

REL_QUERY = """
CALL apoc.meta.data()
YIELD label, other, elementType, type, property
WHERE type = "RELATIONSHIP" AND elementType = "node"
UNWIND other AS other_node
WITH * WHERE NOT label IN $EXCLUDED_LABELS
    AND NOT other_node IN $EXCLUDED_LABELS
RETURN {start: label, type: property, end: toString(other_node)} AS output
"""

# langchain-neo4j's add_graph_documents (no base entity label), verbatim.
NODE_IMPORT_QUERY = (
    "UNWIND $data AS row "
    "CALL apoc.merge.node([row.type], {id: row.id}, "
    "row.properties, {}) YIELD node "
    "RETURN distinct 'done' AS result"
)

REL_IMPORT_QUERY = (
    "UNWIND $data AS row "
    "CALL apoc.merge.node([row.source_label], {id: row.source},"
    "{}, {}) YIELD node as source "
    "CALL apoc.merge.node([row.target_label], {id: row.target},"
    "{}, {}) YIELD node as target "
    "CALL apoc.merge.relationship(source, row.type, "
    "{}, row.properties, target) YIELD rel "
    "RETURN distinct 'done'"
)

# LlamaIndex's property graph store entity upsert.
LLAMA_UPSERT = """
UNWIND $data AS row
MERGE (e:__Node__ {id: row.id})
SET e += apoc.map.clean(row.properties, [], [])
SET e.name = row.name, e:`__Entity__`
WITH e, row
CALL apoc.create.addLabels(e, [row.label])
YIELD node
RETURN count(*) AS n
"""


def outputs(driver, query):
    records, _, _ = driver.execute_query(query, EXCLUDED_LABELS=EXCLUDED_LABELS)
    return [r["output"] for r in records]


def test_langchain_graph_documents_and_schema(driver):
    nodes = [
        {"id": "Ann", "type": "Person", "properties": {"age": 42, "born": "1980"}},
        {"id": "Acme", "type": "Company", "properties": {"founded": 1999, "public": True}},
        {"id": "Ann", "type": "Person", "properties": {"age": 42, "born": "1980"}},
    ]
    records, summary, _ = driver.execute_query(NODE_IMPORT_QUERY, data=nodes)
    assert [r["result"] for r in records] == ["done"]
    assert summary.query_type == "rw"
    assert summary.counters.nodes_created == 2
    assert summary.counters.labels_added == 2
    rels = [
        {"source": "Ann", "source_label": "Person", "target": "Acme",
         "target_label": "Company", "type": "WORKS_AT", "properties": {"since": 2020}},
        {"source": "Ann", "source_label": "Person", "target": "Acme",
         "target_label": "Company", "type": "WORKS_AT", "properties": {"since": 2021}},
    ]
    _, summary, _ = driver.execute_query(REL_IMPORT_QUERY, data=rels)
    assert summary.counters.relationships_created == 1
    assert summary.counters.nodes_created == 0

    node_props = sorted(outputs(driver, NODE_PROPERTIES_QUERY), key=lambda o: o["labels"])
    assert node_props == [
        {"labels": "Company", "properties": [
            {"property": "founded", "type": "INTEGER"},
            {"property": "id", "type": "STRING"},
            {"property": "public", "type": "BOOLEAN"},
        ]},
        {"labels": "Person", "properties": [
            {"property": "age", "type": "INTEGER"},
            {"property": "born", "type": "STRING"},
            {"property": "id", "type": "STRING"},
        ]},
    ]
    assert outputs(driver, REL_PROPERTIES_QUERY) == [
        {"type": "WORKS_AT", "properties": [{"property": "since", "type": "INTEGER"}]}
    ]
    assert outputs(driver, REL_QUERY) == [
        {"start": "Person", "type": "WORKS_AT", "end": "Company"}
    ]


def test_excluded_labels_stay_out_of_the_schema(driver):
    driver.execute_query(LLAMA_UPSERT, data=[
        {"id": "e1", "name": "Oslo", "label": "City", "properties": {"pop": 700000, "note": None}},
    ])
    labels = {o["labels"] for o in outputs(driver, NODE_PROPERTIES_QUERY)}
    assert labels == {"__Node__", "City"}
    records, _, _ = driver.execute_query("MATCH (n:City) RETURN labels(n) AS l, n.pop AS pop")
    assert sorted(records[0]["l"]) == ["City", "__Entity__", "__Node__"]
    assert records[0]["pop"] == 700000


def test_refused_call_is_procedure_call_failed_and_writes_nothing(driver):
    with pytest.raises(ClientError) as err:
        driver.execute_query(
            "UNWIND [1, 2] AS i CALL apoc.merge.node(['T'], {id: CASE i WHEN 2 THEN null ELSE i END}) "
            "YIELD node RETURN node"
        )
    assert err.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    records, _, _ = driver.execute_query("MATCH (n:T) RETURN count(n) AS c")
    assert records[0]["c"] == 0


def test_functions_and_schema_procedures(driver):
    _, summary, _ = driver.execute_query("CALL apoc.meta.data() YIELD label RETURN label")
    assert summary.query_type == "r"
    _, summary, _ = driver.execute_query("CALL apoc.merge.node(['A'], {x: 1})")
    assert summary.query_type == "rw"
    driver.execute_query("MATCH (a:A) DELETE a")
    driver.execute_query("CREATE (:A {x: 1, y: 'a'})-[:R {w: 0.5}]->(:B)")
    records, _, _ = driver.execute_query(
        "RETURN apoc.coll.flatten([[1], [2, [3]]]) AS f, apoc.coll.toSet([1, 1, 2]) AS s, "
        "apoc.map.merge({a: 1}, {b: 2}) AS m, apoc.text.join(['x', 'y'], '-') AS j"
    )
    assert records[0].data() == {"f": [1, 2, [3]], "s": [1, 2], "m": {"a": 1, "b": 2}, "j": "x-y"}
    records, _, _ = driver.execute_query(
        "CALL db.schema.nodeTypeProperties() YIELD nodeType, propertyName, propertyTypes, mandatory "
        "RETURN nodeType, propertyName, propertyTypes, mandatory ORDER BY nodeType, propertyName"
    )
    assert [r.values() for r in records] == [
        [":`A`", "x", ["Long"], True],
        [":`A`", "y", ["String"], True],
        [":`B`", None, None, False],
    ]
    records, _, _ = driver.execute_query("CALL db.schema.relTypeProperties()")
    assert [r.data() for r in records] == [
        {"relType": ":`R`", "propertyName": "w", "propertyTypes": ["Double"], "mandatory": True}
    ]
    # Browser's schema view: virtual nodes and relationships as Bolt structures
    records, _, _ = driver.execute_query("CALL db.schema.visualization()")
    nodes, rels = records[0]["nodes"], records[0]["relationships"]
    assert sorted((set(n.labels), n["name"], n["indexes"], n["constraints"]) for n in nodes) == [
        ({"A"}, "A", [], []),
        ({"B"}, "B", [], []),
    ]
    assert all(int(n.element_id.split(":")[-1]) < 0 for n in nodes)
    assert [(r.type, r["name"], r.start_node["name"], r.end_node["name"]) for r in rels] == [
        ("R", "R", "A", "B")
    ]


# langchain-neo4j's refresh_schema reads constraints and RANGE indexes so.
INDEX_QUERY = (
    "CALL apoc.schema.nodes() YIELD label, properties, type, size, "
    "valuesSelectivity WHERE type IN ['RANGE'] RETURN *, "
    "size * valuesSelectivity as distinctValues"
)


def test_langchain_constraint_and_index_queries(driver):
    driver.execute_query("CREATE CONSTRAINT doc_id FOR (d:Document) REQUIRE d.id IS UNIQUE")
    driver.execute_query("CREATE INDEX chunk_kind FOR (c:Chunk) ON (c.kind)")
    driver.execute_query("CALL db.awaitIndexes()")
    driver.execute_query("UNWIND range(1, 4) AS i CREATE (:Chunk {kind: i % 2}), (:Document {id: i})")
    constraints, _, _ = driver.execute_query("SHOW CONSTRAINTS")
    assert [(c["name"], c["labelsOrTypes"], c["properties"]) for c in constraints] == [
        ("doc_id", ["Document"], ["id"])
    ]
    records, _, _ = driver.execute_query(INDEX_QUERY)
    assert [r.data() for r in records] == [{
        "label": "Chunk", "properties": ["kind"], "type": "RANGE", "size": 4,
        "valuesSelectivity": 0.5, "distinctValues": 2.0,
    }]


def test_conditional_queries_run_in_the_calling_transaction(driver):
    """apoc.when / apoc.do.when / apoc.case / apoc.do.case: the selected query runs with the
    given parameters, its rows come back as `value` maps, writes belong to the caller's
    transaction (rolled back with it), and the read-only forms refuse a writing query."""
    records, _, _ = driver.execute_query(
        "UNWIND [1, 2, 3] AS i CALL apoc.when(i > 1, 'RETURN $x * 10 AS big', 'RETURN $x AS small', {x: i}) "
        "YIELD value RETURN i, value ORDER BY i")
    assert [(r["i"], r["value"]) for r in records] == [(1, {"small": 1}), (2, {"big": 20}), (3, {"big": 30})]
    # No else query: one empty map.
    records, _, _ = driver.execute_query("CALL apoc.when(false, 'RETURN 1 AS one') YIELD value RETURN value")
    assert [r["value"] for r in records] == [{}]
    # A query of several rows gives several.
    records, _, _ = driver.execute_query(
        "CALL apoc.case([false, 'RETURN 0 AS n', true, 'UNWIND range(1, $k) AS n RETURN n'], 'RETURN -1 AS n', "
        "{k: 3}) YIELD value RETURN collect(value.n) AS ns")
    assert records[0]["ns"] == [1, 2, 3]
    records, _, _ = driver.execute_query(
        "CALL apoc.case([false, 'RETURN 0 AS n'], 'RETURN -1 AS n') YIELD value RETURN value.n AS n")
    assert records[0]["n"] == -1
    # Writes through the .do forms, counted in the caller's transaction.
    records, summary, _ = driver.execute_query(
        "UNWIND ['a', 'b'] AS k CALL apoc.do.when(k = 'a', 'CREATE (n:W {k: $k}) RETURN n.k AS made', '', {k: k}) "
        "YIELD value RETURN value")
    assert [r["value"] for r in records] == [{"made": "a"}, {}]
    assert summary.query_type in ("w", "rw")
    records, _, _ = driver.execute_query("MATCH (n:W) RETURN collect(n.k) AS ks")
    assert records[0]["ks"] == ["a"]
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CALL apoc.do.case([true, 'CREATE (:W {k: \"rolled\"})'], '') YIELD value RETURN value").consume()
        assert tx.run("MATCH (n:W {k: 'rolled'}) RETURN count(n) AS c").single()["c"] == 1
        tx.rollback()
    records, _, _ = driver.execute_query("MATCH (n:W {k: 'rolled'}) RETURN count(n) AS c")
    assert records[0]["c"] == 0
    # The read-only forms refuse a write; nothing is applied.
    for query in ["CALL apoc.when(true, 'CREATE (:W {k: \"no\"})') YIELD value RETURN value",
                  "CALL apoc.case([true, 'CREATE (:W {k: \"no\"})']) YIELD value RETURN value",
                  "CALL apoc.do.when(true, 'RETURN $missing AS m') YIELD value RETURN value",
                  "CALL apoc.do.when(true, 'RETRUN 1') YIELD value RETURN value",
                  "CALL apoc.do.case([true]) YIELD value RETURN value"]:
        with pytest.raises(ClientError) as err:
            driver.execute_query(query)
        assert err.value.code.startswith("Neo.ClientError."), (query, err.value.code)
    records, _, _ = driver.execute_query("MATCH (n:W {k: 'no'}) RETURN count(n) AS c")
    assert records[0]["c"] == 0


def test_periodic_iterate_commits_each_batch_on_its_own(driver):
    """apoc.periodic.iterate: the iterate query's rows in batches, the action once per batch
    with the columns as variables (APOC's default) or per row as parameters (SINGLE), each batch
    committed by itself; a failing batch is rolled back and reported, the others stay."""
    driver.execute_query("UNWIND range(1, 25) AS i CREATE (:Item {i: i})")
    records, summary, _ = driver.execute_query(
        "CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.done = true', {batchSize: 10}) "
        "YIELD batches, total, committedOperations, failedOperations, failedBatches, errorMessages, "
        "batch, operations, wasTerminated, updateStatistics RETURN *")
    r = records[0]
    assert (r["batches"], r["total"], r["committedOperations"], r["failedOperations"], r["failedBatches"]) == \
        (3, 25, 25, 0, 0)
    assert r["batch"]["committed"] == 3 and r["operations"]["total"] == 25 and not r["wasTerminated"]
    assert r["updateStatistics"]["propertiesSet"] == 25
    records, _, _ = driver.execute_query("MATCH (n:Item) WHERE n.done RETURN count(n) AS c")
    assert records[0]["c"] == 25
    # SINGLE: the columns as parameters, with the call's own params beside them.
    driver.execute_query(
        "CALL apoc.periodic.iterate('MATCH (n:Item) WHERE n.i <= 5 RETURN n.i AS k', "
        "'MATCH (m:Item {i: $k}) SET m.tag = $tag', {batchSize: 2, batchMode: 'SINGLE', params: {tag: 't'}})")
    records, _, _ = driver.execute_query("MATCH (n:Item {tag: 't'}) RETURN count(n) AS c")
    assert records[0]["c"] == 5
    # A batch that fails (division by zero on i = 13) is rolled back; the others commit.
    records, _, _ = driver.execute_query(
        "CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n ORDER BY n.i', "
        "'SET n.inv = 1 / (n.i - 13)', {batchSize: 10}) "
        "YIELD batches, failedBatches, failedOperations, committedOperations, errorMessages RETURN *")
    r = records[0]
    assert (r["batches"], r["failedBatches"], r["failedOperations"], r["committedOperations"]) == (3, 1, 10, 15)
    assert len(r["errorMessages"]) == 1 and list(r["errorMessages"].values()) == [1]
    records, _, _ = driver.execute_query("MATCH (n:Item) WHERE n.inv IS NOT NULL RETURN count(n) AS c")
    assert records[0]["c"] == 15
    # In an explicit transaction (how execute_query runs it), as in APOC: the batches are
    # transactions of their own and stay committed when the caller rolls back.
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CALL apoc.periodic.iterate('MATCH (n:Item) RETURN n', 'SET n.kept = 1', {batchSize: 7})").consume()
        tx.rollback()
    records, _, _ = driver.execute_query("MATCH (n:Item) WHERE n.kept = 1 RETURN count(n) AS c")
    assert records[0]["c"] == 25
