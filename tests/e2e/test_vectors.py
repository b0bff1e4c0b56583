"""Vectors over Bolt with the official Python driver: the similarity
functions on driver-sent lists (Neo4j's scores: cosine (1 + cos) / 2,
euclidean 1 / (1 + d²)), and their errors as Neo4j status codes."""

import math

import pytest
from neo4j.exceptions import ClientError


def cosine_score(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return (1 + dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))) / 2


def euclidean_score(a, b):
    return 1 / (1 + sum((x - y) ** 2 for x, y in zip(a, b)))


def test_similarity_functions_score_as_neo4j(driver):
    # Elements exactly representable as 32-bit floats, so the expected
    # scores need no rounding.
    a, b = [0.5, -1.25, 2.0, 3.0], [1.0, 0.75, -0.5, 2.5]
    records, _, _ = driver.execute_query(
        "RETURN vector.similarity.cosine($a, $b) AS c, vector.similarity.euclidean($a, $b) AS e",
        a=a,
        b=b,
    )
    assert records[0]["c"] == pytest.approx(cosine_score(a, b), rel=1e-12)
    assert records[0]["e"] == pytest.approx(euclidean_score(a, b), rel=1e-12)


def test_similarity_of_stored_vectors_ranks_nodes(driver):
    driver.execute_query(
        "UNWIND $docs AS d CREATE (:Doc {id: d.id, embedding: d.v})",
        docs=[{"id": 1, "v": [1.0, 0.0]}, {"id": 2, "v": [0.6, 0.8]}, {"id": 3, "v": [-1.0, 0.0]}],
    )
    records, _, _ = driver.execute_query(
        "MATCH (d:Doc) RETURN d.id AS id, vector.similarity.cosine(d.embedding, $q) AS s ORDER BY s DESC",
        q=[1.0, 0.0],
    )
    assert [(r["id"], r["s"]) for r in records] == [(1, 1.0), (2, pytest.approx(0.8)), (3, 0.0)]


def test_invalid_vectors_are_null_and_mismatches_are_errors(driver):
    records, _, _ = driver.execute_query(
        "RETURN vector.similarity.cosine([0.0, 0.0], [1.0, 1.0]) AS zero, vector.similarity.euclidean(null, [1]) AS n"
    )
    assert records[0].data() == {"zero": None, "n": None}
    with pytest.raises(ClientError) as err:
        driver.execute_query("RETURN vector.similarity.cosine($a, $b) AS c", a=[1.0, 2.0], b=[1.0])
    assert err.value.code == "Neo.ClientError.Statement.ArgumentError"
    with pytest.raises(ClientError) as err:
        driver.execute_query("RETURN vector.similarity.euclidean($a, $b) AS c", a=[1.0, "x"], b=[1.0, 2.0])
    assert err.value.code == "Neo.ClientError.Statement.TypeError"


def create_docs_index(driver, dims=2, similarity="cosine"):
    driver.execute_query(
        "CREATE VECTOR INDEX docs IF NOT EXISTS FOR (d:Doc) ON d.embedding "
        "OPTIONS {indexConfig: {`vector.dimensions`: $dims, `vector.similarity_function`: $sim}}",
        dims=dims,
        sim=similarity,
    )
    driver.execute_query("CALL db.awaitIndexes(60)")


def top(driver, k, q, index="docs"):
    records, _, _ = driver.execute_query(
        "CALL db.index.vector.queryNodes($index, $k, $q) YIELD node, score RETURN node.id AS id, score",
        index=index,
        k=k,
        q=q,
    )
    return [(r["id"], r["score"]) for r in records]


def test_vector_index_ddl_and_show(driver):
    create_docs_index(driver, dims=3, similarity="euclidean")
    driver.execute_query(
        "CREATE VECTOR INDEX $name FOR ()-[r:CITES]-() ON (r.embedding)", name="cites"
    )
    driver.execute_query("CALL db.awaitIndexes(60)")
    records, _, _ = driver.execute_query(
        "SHOW VECTOR INDEXES YIELD name, type, entityType, labelsOrTypes, properties, indexProvider, options, state "
        "RETURN * ORDER BY name"
    )
    rows = [r.data() for r in records]
    assert rows == [
        {
            "name": "cites",
            "type": "VECTOR",
            "entityType": "RELATIONSHIP",
            "labelsOrTypes": ["CITES"],
            "properties": ["embedding"],
            "indexProvider": "vector-2.0",
            "options": {
                "indexProvider": "vector-2.0",
                "indexConfig": {"vector.dimensions": None, "vector.similarity_function": "COSINE"},
            },
            "state": "ONLINE",
        },
        {
            "name": "docs",
            "type": "VECTOR",
            "entityType": "NODE",
            "labelsOrTypes": ["Doc"],
            "properties": ["embedding"],
            "indexProvider": "vector-2.0",
            "options": {
                "indexProvider": "vector-2.0",
                "indexConfig": {"vector.dimensions": 3, "vector.similarity_function": "EUCLIDEAN"},
            },
            "state": "ONLINE",
        },
    ]
    records, _, _ = driver.execute_query("SHOW INDEXES YIELD name, type WHERE type = 'VECTOR' RETURN count(*) AS c")
    assert records[0]["c"] == 2
    # IF NOT EXISTS on an existing name is a no-op; without it, an error.
    create_docs_index(driver, dims=3, similarity="euclidean")
    with pytest.raises(ClientError) as err:
        driver.execute_query("CREATE VECTOR INDEX docs FOR (d:Doc) ON d.embedding")
    assert err.value.code.startswith("Neo.ClientError.Schema.")
    with pytest.raises(ClientError) as err:
        driver.execute_query(
            "CREATE VECTOR INDEX bad FOR (d:Doc) ON d.other OPTIONS {indexConfig: {`vector.dimensions`: 0}}"
        )
    assert err.value.code == "Neo.ClientError.Statement.ArgumentError"
    with pytest.raises(ClientError) as err:
        driver.execute_query(
            "CREATE VECTOR INDEX bad FOR (d:Doc) ON d.other "
            "OPTIONS {indexConfig: {`vector.similarity_function`: 'dot'}}"
        )
    assert err.value.code == "Neo.ClientError.Statement.ArgumentError"
    driver.execute_query("DROP INDEX cites")
    records, _, _ = driver.execute_query("SHOW VECTOR INDEXES YIELD name RETURN collect(name) AS names")
    assert records[0]["names"] == ["docs"]


def test_query_nodes_ranks_exactly_and_composes(driver):
    driver.execute_query(
        "UNWIND $docs AS d CREATE (:Doc {id: d.id, embedding: d.v})-[:IN]->(:Topic {name: d.topic})",
        docs=[
            {"id": 1, "v": [1.0, 0.0], "topic": "a"},
            {"id": 2, "v": [0.6, 0.8], "topic": "b"},
            {"id": 3, "v": [-1.0, 0.0], "topic": "a"},
            {"id": 4, "v": [0.0, 1.0], "topic": "b"},
        ],
    )
    # Built in the background over existing data.
    create_docs_index(driver)
    assert top(driver, 2, [1.0, 0.0]) == [(1, 1.0), (2, pytest.approx(0.8))]
    assert [i for i, _ in top(driver, 10, [0.1, 1.0])] == [4, 2, 1, 3]
    # Usable mid-query: per input row, then joined to the graph.
    records, _, _ = driver.execute_query(
        "UNWIND [[1.0, 0.0], [0.0, 1.0]] AS q "
        "CALL db.index.vector.queryNodes('docs', 1, q) YIELD node, score "
        "MATCH (node)-[:IN]->(t:Topic) RETURN node.id AS id, t.name AS topic, score"
    )
    assert [(r["id"], r["topic"]) for r in records] == [(1, "a"), (4, "b")]
    # The score is the similarity function's.
    records, _, _ = driver.execute_query(
        "CALL db.index.vector.queryNodes('docs', 4, $q) YIELD node, score "
        "RETURN score = vector.similarity.cosine(node.embedding, $q) AS same",
        q=[0.3, 0.7],
    )
    assert all(r["same"] for r in records) and len(records) == 4


def test_relationship_index_and_set_vector_property(driver):
    driver.execute_query(
        "CREATE VECTOR INDEX cites FOR ()-[r:CITES]-() ON (r.embedding) "
        "OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}"
    )
    driver.execute_query("CALL db.awaitIndexes(60)")
    driver.execute_query(
        "CREATE (a:P)-[:CITES {id: 1, embedding: [0.0, 0.0]}]->(b:P), (a)-[:CITES {id: 2, embedding: [3.0, 4.0]}]->(b)"
    )
    records, _, _ = driver.execute_query(
        "CALL db.index.vector.queryRelationships('cites', 2, [3.0, 4.0]) YIELD relationship, score "
        "RETURN relationship.id AS id, score"
    )
    assert [(r["id"], r["score"]) for r in records] == [(2, 1.0), (1, pytest.approx(1 / 26))]
    create_docs_index(driver)
    driver.execute_query(
        "CREATE (d:Doc {id: 7}) WITH d CALL db.create.setNodeVectorProperty(d, 'embedding', $v)", v=[0.0, 2]
    )
    assert top(driver, 1, [0.0, 1.0]) == [(7, 1.0)]
    records, _, _ = driver.execute_query("MATCH (d:Doc {id: 7}) RETURN d.embedding AS e")
    assert records[0]["e"] == [0.0, 2.0]


@pytest.mark.parametrize(
    "query, params, code",
    [
        # A write the index cannot hold is refused, nothing applied.
        ("CREATE (:Doc {id: 9, embedding: [1.0, 2.0, 3.0]})", {}, "Neo.ClientError.Statement.ArgumentError"),
        ("CREATE (:Doc {id: 9, embedding: [1.0, 'x']})", {}, "Neo.ClientError.Statement.ArgumentError"),
        ("CREATE (:Doc {id: 9, embedding: [0.0, 0.0]})", {}, "Neo.ClientError.Statement.ArgumentError"),
        ("MATCH (d:Doc {id: 1}) SET d.embedding = [1.0]", {}, "Neo.ClientError.Statement.ArgumentError"),
        ("CREATE (:Doc {id: 9, embedding: $v})", {"v": [float("nan"), 1.0]}, "Neo.ClientError.Statement.ArgumentError"),
        # Queries refused.
        ("CALL db.index.vector.queryNodes('nope', 1, [1.0, 0.0])", {}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.vector.queryNodes('docs', 0, [1.0, 0.0])", {}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.vector.queryNodes('docs', -3, [1.0, 0.0])", {}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.vector.queryNodes('docs', 1, [1.0, 0.0, 0.0])", {}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.vector.queryNodes('docs', 1, $q)", {"q": [float("nan"), 0.0]}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.vector.queryNodes('docs', 1, ['a', 'b'])", {}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("CALL db.index.vector.queryRelationships('docs', 1, [1.0, 0.0])", {}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
        ("MATCH (d:Doc {id: 1}) CALL db.create.setNodeVectorProperty(d, 'embedding', [1.0, 'x'])", {}, "Neo.ClientError.Procedure.ProcedureCallFailed"),
    ],
)
def test_bad_input_is_refused_and_nothing_half_applied(driver, query, params, code):
    create_docs_index(driver)
    driver.execute_query("CREATE (:Doc {id: 1, embedding: [1.0, 0.0]})")
    with pytest.raises(ClientError) as err:
        driver.execute_query("CREATE (:Marker) WITH 1 AS one " + query if query.startswith("MATCH") else query, params)
    assert err.value.code == code
    records, _, _ = driver.execute_query(
        "MATCH (d:Doc) RETURN collect([d.id, d.embedding]) AS docs, COUNT { (:Marker) } AS markers"
    )
    assert records[0]["docs"] == [[1, [1.0, 0.0]]]
    assert records[0]["markers"] == 0


# Transactional semantics: the index answers in each transaction's view.


def ids(tx_or_driver, k, q):
    query = "CALL db.index.vector.queryNodes('docs', $k, $q) YIELD node RETURN node.id AS id"
    if hasattr(tx_or_driver, "execute_query"):
        records, _, _ = tx_or_driver.execute_query(query, k=k, q=q)
        return [r["id"] for r in records]
    return [r["id"] for r in tx_or_driver.run(query, k=k, q=q)]


def seed(driver):
    create_docs_index(driver)
    driver.execute_query(
        "UNWIND $docs AS d CREATE (:Doc {id: d[0], embedding: d[1]})",
        docs=[[1, [1.0, 0.0]], [2, [0.0, 1.0]], [3, [-1.0, 0.1]]],
    )


def test_own_uncommitted_writes_are_seen_and_others_only_after_commit(driver):
    seed(driver)
    with driver.session() as writer, driver.session() as other:
        tx = writer.begin_transaction()
        tx.run("CREATE (:Doc {id: 10, embedding: [0.9, 0.1]})").consume()
        tx.run("MATCH (d:Doc {id: 2}) SET d.embedding = [0.8, 0.2]").consume()
        tx.run("MATCH (d:Doc {id: 1}) DETACH DELETE d").consume()
        # Own inserts, updates and deletes at once.
        assert ids(tx, 3, [1.0, 0.0]) == [10, 2, 3]
        # Nobody else sees them before the commit.
        assert ids(other, 3, [1.0, 0.0]) == [1, 2, 3]
        tx.commit()
        assert ids(other, 3, [1.0, 0.0]) == [10, 2, 3]


def test_a_readers_snapshot_keeps_its_neighbours(driver):
    seed(driver)
    with driver.session() as reader:
        tx = reader.begin_transaction()
        before = ids(tx, 2, [0.0, 1.0])
        assert before == [2, 3]
        driver.execute_query("CREATE (:Doc {id: 20, embedding: [0.0, 1.0]})")
        driver.execute_query("MATCH (d:Doc {id: 2}) SET d.embedding = [-1.0, -1.0]")
        assert ids(tx, 2, [0.0, 1.0]) == before
        tx.commit()
    assert ids(driver, 2, [0.0, 1.0]) == [20, 3]


def test_rollback_leaves_no_trace(driver):
    seed(driver)
    before = ids(driver, 3, [1.0, 0.0])
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:Doc {id: 30, embedding: [1.0, 0.0]})").consume()
        tx.run("MATCH (d:Doc {id: 3}) SET d.embedding = [1.0, 0.01]").consume()
        tx.run("MATCH (d:Doc {id: 1}) DELETE d").consume()
        assert ids(tx, 3, [1.0, 0.0]) == [30, 3, 2]
        tx.rollback()
    assert ids(driver, 3, [1.0, 0.0]) == before
    records, _, _ = driver.execute_query("MATCH (d:Doc) RETURN count(d) AS c")
    assert records[0]["c"] == 3


def test_kill_dash_nine_keeps_every_committed_vector_and_no_uncommitted_one(server):
    from neo4j import GraphDatabase

    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    seed(drv)
    drv.execute_query(
        "UNWIND range(100, 299) AS i CREATE (:Doc {id: i, embedding: [cos(i), sin(i)]})"
    )
    expected = ids(drv, 10, [0.6, 0.8])
    session = drv.session()
    tx = session.begin_transaction()
    tx.run("CREATE (:Doc {id: 999, embedding: [0.6, 0.8]})").consume()
    assert ids(tx, 1, [0.6, 0.8]) == [999]
    server.kill9()
    drv.close()

    server.start()
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        drv.execute_query("CALL db.awaitIndexes(60)")
        assert ids(drv, 10, [0.6, 0.8]) == expected
        records, _, _ = drv.execute_query("MATCH (d:Doc) RETURN count(d) AS c, max(d.id) AS m")
        assert records[0].data() == {"c": 203, "m": 299}
        records, _, _ = drv.execute_query("SHOW VECTOR INDEXES YIELD name, state RETURN name, state")
        assert [r.data() for r in records] == [{"name": "docs", "state": "ONLINE"}]
    finally:
        drv.close()


def clustered(rng, n, dims, clusters):
    centres = [[rng.gauss(0, 1) for _ in range(dims)] for _ in range(clusters)]
    return [[c + rng.gauss(0, 0.3) for c in centres[i % clusters]] for i in range(n)]


@pytest.mark.parametrize("similarity", ["cosine", "euclidean"])
def test_recall_at_ten_against_brute_force(driver, similarity):
    import random

    rng = random.Random(28)
    dims = 16
    data = clustered(rng, 1500, dims, 12)
    queries = clustered(rng, 25, dims, 12)
    create_docs_index(driver, dims=dims, similarity=similarity)
    driver.execute_query(
        "UNWIND range(0, size($data) - 1) AS i CREATE (:Doc {id: i, embedding: $data[i]})", data=data
    )
    score = cosine_score if similarity == "cosine" else euclidean_score
    found = 0
    for q in queries:
        truth = sorted(range(len(data)), key=lambda i: -score(data[i], q))[:10]
        got = [i for i, _ in top(driver, 10, q)]
        found += len(set(truth) & set(got))
    assert found / (10 * len(queries)) >= 0.95


def test_neptune_top_k_by_embedding(driver):
    driver.execute_query(
        "CREATE VECTOR INDEX docs FOR (d:Doc) ON d.embedding "
        "OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}"
    )
    driver.execute_query("CALL db.awaitIndexes(60)")
    driver.execute_query(
        "UNWIND $docs AS d CREATE (:Doc {id: d[0], embedding: d[1]})",
        docs=[[1, [0.0, 0.0]], [2, [1.0, 1.0]], [3, [3.0, 4.0]]],
    )
    records, _, _ = driver.execute_query(
        "CALL neptune.algo.vectors.topK.byEmbedding({embedding: [1.0, 1.0], topK: 2}) YIELD node, score "
        "RETURN node.id AS id, score"
    )
    # Neptune's score: the squared L2 distance, nearest first.
    assert [(r["id"], r["score"]) for r in records] == [(2, 0.0), (1, 2.0)]
    records, _, _ = driver.execute_query(
        "CALL neptune.algo.vectors.topK.byEmbedding({embedding: [3.0, 3.0]}) YIELD node RETURN collect(node.id) AS ids"
    )
    assert records[0]["ids"] == [3, 2, 1]
    with pytest.raises(ClientError) as err:
        driver.execute_query("CALL neptune.algo.vectors.topK.byEmbedding({embedding: [1.0]})")
    assert err.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"


def test_labels_added_and_removed_move_entities_in_and_out(driver):
    seed(driver)
    driver.execute_query("CREATE (:Draft {id: 40, embedding: [1.0, 0.0]})")
    assert 40 not in ids(driver, 10, [1.0, 0.0])
    driver.execute_query("MATCH (d:Draft {id: 40}) SET d:Doc")
    assert ids(driver, 1, [1.0, 0.0])[0] in (1, 40) and 40 in ids(driver, 2, [1.0, 0.0])
    driver.execute_query("MATCH (d:Doc {id: 40}) REMOVE d:Doc")
    assert 40 not in ids(driver, 10, [1.0, 0.0])
    driver.execute_query("MATCH (d:Doc {id: 1}) REMOVE d.embedding")
    assert ids(driver, 10, [1.0, 0.0]) == [2, 3]
    # A label that would index an invalid vector is refused, nothing applied.
    driver.execute_query("CREATE (:Draft {id: 41, embedding: [1.0, 2.0, 3.0]})")
    with pytest.raises(ClientError) as err:
        driver.execute_query("MATCH (d:Draft {id: 41}) SET d:Doc")
    assert err.value.code == "Neo.ClientError.Statement.ArgumentError"
    records, _, _ = driver.execute_query("MATCH (d:Doc {id: 41}) RETURN count(d) AS c")
    assert records[0]["c"] == 0


def test_filtered_search_returns_the_k_best_matching_nodes(driver):
    """`YIELD ... WHERE` on a vector query filters the candidates inside the search (issue 28):
    with 5% of the nodes matching, the ten best *matching* nodes come back, not the matching
    few among the ten best overall."""
    import random

    rng = random.Random(5)
    dims = 16
    data = clustered(rng, 2000, dims, 12)
    langs = ["en" if i % 20 == 7 else "fr" for i in range(len(data))]
    create_docs_index(driver, dims=dims)
    driver.execute_query(
        "UNWIND range(0, size($data) - 1) AS i CREATE (:Doc {id: i, lang: $langs[i], embedding: $data[i]})",
        data=data, langs=langs,
    )
    found = 0
    for q in clustered(rng, 10, dims, 12):
        records, _, _ = driver.execute_query(
            "CALL db.index.vector.queryNodes('docs', 10, $q) YIELD node, score "
            "WHERE node.lang = $lang RETURN node.id AS id, node.lang AS lang, score",
            q=q, lang="en",
        )
        assert len(records) == 10 and all(r["lang"] == "en" for r in records)
        scores = [r["score"] for r in records]
        assert scores == sorted(scores, reverse=True)
        truth = sorted((i for i in range(len(data)) if langs[i] == "en"),
                       key=lambda i: -cosine_score(data[i], q))[:10]
        found += len(set(truth) & {r["id"] for r in records})
    assert found / 100 >= 0.95
    # A WITH in between is an ordinary filter on the ten best overall, as in Neo4j.
    records, _, _ = driver.execute_query(
        "CALL db.index.vector.queryNodes('docs', 10, $q) YIELD node, score WITH node, score "
        "WHERE node.lang = 'en' RETURN count(*) AS c", q=data[0],
    )
    assert records[0]["c"] < 10
    summary = driver.execute_query(
        "EXPLAIN CALL db.index.vector.queryNodes('docs', 10, $q) YIELD node, score "
        "WHERE node.lang = 'en' RETURN node", q=data[0],
    ).summary
    assert "filtering candidates" in str(summary.plan)


def test_selective_filters_score_their_candidates_exactly(driver):
    """A `YIELD ... WHERE` that requires a label or an indexed value of the node, when few
    nodes have it, is answered by scoring those nodes (a pre-filter): exactly the brute-force
    top 10 among them, the transaction's own uncommitted nodes included."""
    import random

    rng = random.Random(9)
    dims = 16
    data = clustered(rng, 3000, dims, 12)
    create_docs_index(driver, dims=dims)
    driver.execute_query("CREATE INDEX doc_lang FOR (d:Doc) ON (d.lang)")
    driver.execute_query("CALL db.awaitIndexes(60)")
    driver.execute_query(
        "UNWIND range(0, size($data) - 1) AS i "
        "CREATE (d:Doc {id: i, lang: CASE WHEN i % 50 = 1 THEN 'en' ELSE 'fr' END, embedding: $data[i]}) "
        "WITH d, i WHERE i % 40 = 2 SET d:Rare",
        data=data,
    )

    def best(q, members):
        return sorted(members, key=lambda i: (-cosine_score(data[i], q), i))[:10]

    for q in clustered(rng, 8, dims, 12):
        for where, members in [
            ("node:Rare", [i for i in range(len(data)) if i % 40 == 2]),
            ("node.lang = $lang", [i for i in range(len(data)) if i % 50 == 1]),
            ("node.lang = $lang AND node:Rare", [i for i in range(len(data)) if i % 50 == 1 and i % 40 == 2]),
        ]:
            records, _, _ = driver.execute_query(
                f"CALL db.index.vector.queryNodes('docs', 10, $q) YIELD node, score WHERE {where} "
                "RETURN node.id AS id", q=q, lang="en",
            )
            assert [r["id"] for r in records] == best(q, members), where
    # Own uncommitted nodes are candidates; other transactions do not see them.
    with driver.session() as s, s.begin_transaction() as tx:
        tx.run("CREATE (:Doc:Rare {id: -1, lang: 'en', embedding: $v})", v=data[0]).consume()
        got = [r["id"] for r in tx.run(
            "CALL db.index.vector.queryNodes('docs', 3, $q) YIELD node WHERE node:Rare RETURN node.id AS id",
            q=data[0])]
        assert got[0] in (-1, 0) and -1 in got
        got = [r["id"] for r in tx.run(
            "CALL db.index.vector.queryNodes('docs', 3, $q) YIELD node WHERE node.lang = 'en' RETURN node.id AS id",
            q=data[0])]
        assert -1 in got
        records, _, _ = driver.execute_query(
            "CALL db.index.vector.queryNodes('docs', 3, $q) YIELD node WHERE node:Rare RETURN node.id AS id",
            q=data[0])
        assert -1 not in [r["id"] for r in records]
        tx.rollback()


def test_neptune_vertex_filter_returns_the_top_k_matching_nodes(driver):
    """Neptune's `vertexFilter` (a JSON string): labels with equals/notEquals, property
    comparisons, andAll/orAll; the topK nearest nodes that pass, not the passing part of the
    topK nearest. 5% of the nodes carry :En."""
    import json
    import random

    rng = random.Random(6)
    dims = 8
    data = clustered(rng, 1000, dims, 10)
    create_docs_index(driver, dims=dims, similarity="euclidean")
    driver.execute_query(
        "UNWIND range(0, size($data) - 1) AS i CREATE (d:Doc {id: i, year: 1990 + i % 40, embedding: $data[i]}) "
        "WITH d, i WHERE i % 20 = 3 SET d:En",
        data=data,
    )

    def sq(a, b):
        return sum((x - y) ** 2 for x, y in zip(a, b))

    def search(q, vertex_filter, k=10):
        records, _, _ = driver.execute_query(
            "CALL neptune.algo.vectors.topK.byEmbedding({embedding: $q, topK: $k, vertexFilter: $f}) "
            "YIELD node, score RETURN node.id AS id, score",
            q=q, k=k, f=json.dumps(vertex_filter),
        )
        return [r["id"] for r in records], [r["score"] for r in records]

    cases = [
        ({"equals": {"property": "~label", "value": "En"}}, lambda i: i % 20 == 3),
        ({"andAll": [{"notEquals": {"property": "~label", "value": "En"}},
                     {"greaterThanOrEquals": {"property": "year", "value": 2027}}]},
         lambda i: i % 20 != 3 and 1990 + i % 40 >= 2027),
        ({"orAll": [{"in": {"property": "year", "value": [1990, 1991]}},
                    {"lessThan": {"property": "id", "value": 3}}]},
         lambda i: 1990 + i % 40 in (1990, 1991) or i < 3),
    ]
    for vertex_filter, passes in cases:
        found = 0
        for q in clustered(rng, 5, dims, 10):
            got, scores = search(q, vertex_filter)
            assert len(got) == 10 and all(passes(i) for i in got), vertex_filter
            assert scores == sorted(scores)
            truth = sorted((i for i in range(len(data)) if passes(i)), key=lambda i: sq(data[i], q))[:10]
            found += len(set(truth) & set(got))
        assert found / 50 >= 0.95, vertex_filter
    # Fewer matching nodes than topK: every one of them.
    got, _ = search(data[0], {"equals": {"property": "id", "value": 17}})
    assert got == [17]
    for bad in ["{", '{"like": {"property": "id", "value": 1}}',
                '{"greaterThan": {"property": "~label", "value": "En"}}']:
        with pytest.raises(ClientError) as err:
            driver.execute_query(
                "CALL neptune.algo.vectors.topK.byEmbedding({embedding: $q, vertexFilter: $f})",
                q=data[0], f=bad,
            )
        assert err.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
        assert "Invalid vertexFilter" in err.value.message


def test_neptune_embedding_procedures_are_transactional(driver):
    driver.execute_query(
        "CREATE VECTOR INDEX docs FOR (d:Doc) ON d.embedding "
        "OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}"
    )
    driver.execute_query("CALL db.awaitIndexes(60)")
    driver.execute_query("UNWIND range(1, 4) AS i CREATE (:Doc {id: i})")
    records, _, _ = driver.execute_query(
        "MATCH (d:Doc) CALL neptune.algo.vectors.upsert(d, [toFloat(d.id), 0.0]) "
        "YIELD node, embedding, success RETURN node.id AS id, embedding, success ORDER BY id"
    )
    assert [(r["id"], r["embedding"], r["success"]) for r in records] == [
        (i, [float(i), 0.0], True) for i in range(1, 5)]
    records, _, _ = driver.execute_query(
        "MATCH (d:Doc {id: 2}) CALL neptune.algo.vectors.get(d) YIELD embedding RETURN embedding")
    assert records[0]["embedding"] == [2.0, 0.0]
    # topK.byNode leaves the node itself out.
    records, _, _ = driver.execute_query(
        "MATCH (d:Doc {id: 2}) CALL neptune.algo.vectors.topK.byNode(d, {topK: 2}) YIELD node, score "
        "RETURN node.id AS id, score")
    assert sorted((r["id"], r["score"]) for r in records) == [(1, 1.0), (3, 1.0)]
    # Neptune's earlier names: topKByNode (a list of sources) and topKByEmbedding.
    records, _, _ = driver.execute_query(
        "MATCH (d:Doc) WHERE d.id IN [1, 4] WITH collect(d) AS ds "
        "CALL neptune.algo.vectors.topKByNode(ds, {topK: 1}) YIELD source, node "
        "RETURN source.id AS s, node.id AS n ORDER BY s")
    assert [(r["s"], r["n"]) for r in records] == [(1, 2), (4, 3)]
    records, _, _ = driver.execute_query(
        "CALL neptune.algo.vectors.topKByEmbedding([3.9, 0.0], {topK: 1}) YIELD embedding, node "
        "RETURN embedding, node.id AS n")
    assert [(r["embedding"], r["n"]) for r in records] == [([3.9, 0.0], 4)]
    # A rolled-back remove leaves the embedding; a committed one takes it away.
    with driver.session() as s:
        with s.begin_transaction() as tx:
            tx.run("MATCH (d:Doc {id: 4}) CALL neptune.algo.vectors.remove(d) YIELD success RETURN success").consume()
            assert tx.run("MATCH (d:Doc {id: 4}) RETURN d.embedding AS e").single()["e"] is None
            tx.rollback()
        assert s.run("MATCH (d:Doc {id: 4}) RETURN d.embedding AS e").single()["e"] == [4.0, 0.0]
        s.run("MATCH (d:Doc {id: 4}) CALL neptune.algo.vectors.remove(d) YIELD success RETURN success").consume()
        ids = s.run("CALL neptune.algo.vectors.topK.byEmbedding({embedding: [4.0, 0.0], topK: 10}) "
                    "YIELD node RETURN collect(node.id) AS ids").single()["ids"]
        assert 4 not in ids and len(ids) == 3
    with pytest.raises(ClientError) as err:
        driver.execute_query(
            "MATCH (d:Doc {id: 1}) CALL neptune.algo.vectors.upsert(d, [1.0, 2.0, 3.0]) YIELD success RETURN success")
    assert err.value.code.startswith("Neo.ClientError.")
    records, _, _ = driver.execute_query(
        "MATCH (d:Doc {id: 1}) CALL neptune.algo.vectors.get(d) YIELD embedding RETURN embedding")
    assert records[0]["embedding"] == [1.0, 0.0]


@pytest.mark.parametrize("metric, want", [
    (None, 25.0), ("L2", 5.0), ("l2squared", 25.0), ("DotProduct", 0.0),
    ("CosineSimilarity", 0.0), ("CosineDistance", 1.0),
])
def test_neptune_distance_between_two_nodes(driver, metric, want):
    driver.execute_query(
        "CREATE VECTOR INDEX docs FOR (d:Doc) ON d.embedding "
        "OPTIONS {indexConfig: {`vector.dimensions`: 2, `vector.similarity_function`: 'euclidean'}}"
    )
    driver.execute_query("CALL db.awaitIndexes(60)")
    driver.execute_query("CREATE (:Doc {id: 1, embedding: [3.0, 0.0]}), (:Doc {id: 2, embedding: [0.0, 4.0]}), "
                         "(:Doc {id: 3})")
    config = {} if metric is None else {"metric": metric}
    for name in ("distance", "distance.byNode"):
        records, _, _ = driver.execute_query(
            f"MATCH (n:Doc {{id: 1}}), (m:Doc {{id: 2}}) CALL neptune.algo.vectors.{name}(n, m, $config) "
            "YIELD source, target, distance RETURN source.id AS s, target.id AS t, distance", config=config)
        assert [(r["s"], r["t"], r["distance"]) for r in records] == [(1, 2, pytest.approx(want))]
    # From an embedding: node 2's own vector, so the same distance to node 1.
    records, _, _ = driver.execute_query(
        "MATCH (n:Doc {id: 1}) CALL neptune.algo.vectors.distance.byEmbedding(n, $config) "
        "YIELD node, distance RETURN node.id AS n, distance",
        config={**config, "embedding": [0.0, 4.0]})
    assert [(r["n"], r["distance"]) for r in records] == [(1, pytest.approx(want))]
    records, _, _ = driver.execute_query(
        "MATCH (n:Doc {id: 1}) CALL neptune.algo.vectors.distanceByEmbedding([0.0, 4.0], n, $config) "
        "YIELD embedding, target, distance RETURN embedding, target.id AS t, distance", config=config)
    assert [(r["embedding"], r["t"], r["distance"]) for r in records] == [([0.0, 4.0], 1, pytest.approx(want))]
    records, _, _ = driver.execute_query(
        "MATCH (n:Doc {id: 1}), (m:Doc {id: 3}) CALL neptune.algo.vectors.distance(n, m) YIELD distance "
        "RETURN distance")
    assert records[0]["distance"] is None
