"""Full-text indexes over Bolt with the official Python driver: Neo4j 5's
DDL and SHOW columns, db.index.fulltext.queryNodes / queryRelationships
with Lucene's query syntax and BM25 ordering, the analyzers, and the
index's transactions: own writes seen, snapshots kept, rollbacks leaving
nothing, and every committed text (and no uncommitted one) after kill -9."""

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError, Neo4jError

BOOKS = [
    (1, "The Quick Brown Fox", "A fox jumps over the lazy dog"),
    (2, "Graph Databases", "Nodes and relationships, queried with Cypher"),
    (3, "Brown Bears", "Bears of the north: brown, black and grizzly"),
    (4, "Running Fast", "A runner runs and keeps running"),
]


def seed(driver, analyzer=None):
    options = ""
    if analyzer:
        options = " OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer}}"
    driver.execute_query(
        "CREATE FULLTEXT INDEX books IF NOT EXISTS FOR (n:Book|Film) ON EACH [n.title, n.plot]" + options,
        analyzer=analyzer,
    )
    driver.execute_query(
        "UNWIND $rows AS r CREATE (:Book {id: r[0], title: r[1], plot: r[2]})",
        rows=[list(b) for b in BOOKS],
    )
    driver.execute_query("CALL db.awaitIndexes(60)")


def ids(runner, query, index="books", options=None):
    result = runner.run(
        "CALL db.index.fulltext.queryNodes($index, $q, $options) YIELD node, score RETURN node.id AS id, score",
        index=index,
        q=query,
        options=options or {},
    )
    rows = [(r["id"], r["score"]) for r in result]
    scores = [s for _, s in rows]
    assert scores == sorted(scores, reverse=True)
    return [i for i, _ in rows]


def query(driver, q, **kw):
    with driver.session() as s:
        return ids(s, q, **kw)


def test_ddl_and_show_as_neo4j(driver):
    seed(driver)
    driver.execute_query(
        "CREATE FULLTEXT INDEX $name FOR ()-[r:REVIEWS|RATES]-() ON EACH [r.text] "
        "OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}",
        name="reviews",
    )
    driver.execute_query("CALL db.awaitIndexes(60)")
    records, _, _ = driver.execute_query(
        "SHOW FULLTEXT INDEXES YIELD name, type, entityType, labelsOrTypes, properties, indexProvider, options, state "
        "RETURN * ORDER BY name"
    )
    assert [r.data() for r in records] == [
        {
            "name": "books",
            "type": "FULLTEXT",
            "entityType": "NODE",
            "labelsOrTypes": ["Book", "Film"],
            "properties": ["title", "plot"],
            "indexProvider": "fulltext-1.0",
            "options": {
                "indexProvider": "fulltext-1.0",
                "indexConfig": {
                    "fulltext.analyzer": "standard-no-stop-words",
                    "fulltext.eventually_consistent": False,
                },
            },
            "state": "ONLINE",
        },
        {
            "name": "reviews",
            "type": "FULLTEXT",
            "entityType": "RELATIONSHIP",
            "labelsOrTypes": ["REVIEWS", "RATES"],
            "properties": ["text"],
            "indexProvider": "fulltext-1.0",
            "options": {
                "indexProvider": "fulltext-1.0",
                "indexConfig": {"fulltext.analyzer": "english", "fulltext.eventually_consistent": True},
            },
            "state": "ONLINE",
        },
    ]
    # IF NOT EXISTS on an existing one is a no-op; without it, an error.
    seed_again, _, _ = driver.execute_query(
        "CREATE FULLTEXT INDEX books IF NOT EXISTS FOR (n:Book|Film) ON EACH [n.title, n.plot]"
    )
    assert seed_again == []
    with pytest.raises(ClientError) as err:
        driver.execute_query("CREATE FULLTEXT INDEX other FOR (n:Book|Film) ON EACH [n.title, n.plot]")
    assert err.value.code == "Neo.ClientError.Schema.IndexAlreadyExists"
    assert err.value.message == "There already exists an index (:Book:Film {title, plot})."
    # Labels in another order make another index, as in Neo4j.
    driver.execute_query("CREATE FULLTEXT INDEX film_book FOR (n:Film|Book) ON EACH [n.title, n.plot]")
    driver.execute_query("DROP INDEX film_book")
    with pytest.raises(ClientError) as err:
        driver.execute_query("CREATE FULLTEXT INDEX books FOR (n:Other) ON EACH [n.x]")
    assert err.value.code.startswith("Neo.ClientError.Schema.")
    with pytest.raises(Neo4jError) as err:
        driver.execute_query(
            "CREATE FULLTEXT INDEX bad FOR (n:X) ON EACH [n.x] OPTIONS {indexConfig: {`fulltext.analyzer`: 'klingon'}}"
        )
    assert err.value.code == "Neo.DatabaseError.Statement.ExecutionFailed"
    assert err.value.message == "No such full-text analyzer: 'klingon'."
    driver.execute_query("DROP INDEX reviews")
    records, _, _ = driver.execute_query("SHOW FULLTEXT INDEXES YIELD name RETURN collect(name) AS names")
    assert records[0]["names"] == ["books"]


def test_lucene_syntax_and_ranking(driver):
    seed(driver)
    assert query(driver, "brown") == [3, 1]
    assert sorted(query(driver, "fox OR bears")) == [1, 3]
    assert query(driver, "brown AND fox") == [1]
    assert query(driver, "brown -fox") == [3]
    assert query(driver, "+brown NOT bears") == [1]
    assert query(driver, '"quick brown"') == [1]
    assert query(driver, '"brown quick"') == []
    assert query(driver, "title:brown") == [3, 1]
    assert query(driver, "plot:brown") == [3]
    assert query(driver, "run*") == [4]
    assert query(driver, "gr?ph") == [2]
    assert query(driver, "grafh~1") == [2]
    assert query(driver, "(fox OR cypher) AND NOT lazy") == [2]
    assert sorted(query(driver, "*:*")) == [1, 2, 3, 4]
    # Case is folded by the default analyzer, in the text and the query.
    assert query(driver, "CYPHER") == [2]
    # Leading wildcards and term ranges, constant-scored per field.
    assert query(driver, "*rown") == [3, 1]
    assert sorted(query(driver, "[a TO c]")) == [1, 2, 3, 4]
    # Lists of strings are indexed too.
    driver.execute_query("CREATE (:Film {id: 11, title: ['brown', 'cow']}), (:Film {id: 12, title: 42})")
    assert query(driver, "cow") == [11]
    # A field holding the term twice outranks one holding it once.
    assert query(driver, "running OR runs")[0] == 4
    # skip and limit cut the ordered answer.
    everything = query(driver, "brown OR fox OR graph")
    assert query(driver, "brown OR fox OR graph", options={"limit": 2}) == everything[:2]
    assert query(driver, "brown OR fox OR graph", options={"skip": 1}) == everything[1:]


def test_analyzers(driver):
    seed(driver, analyzer="english")
    # Stemmed: run, runs, running and runner's stem meet.
    assert query(driver, "runs") == [4]
    assert query(driver, "bear") == [3]
    # Stop words are not terms.
    assert query(driver, "the") == []
    # The query may be analyzed by another analyzer than the index's.
    assert query(driver, "bears", options={"analyzer": "whitespace"}) == []
    records, _, _ = driver.execute_query(
        "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer, stopwords "
        "RETURN analyzer, size(stopwords) AS stops ORDER BY analyzer"
    )
    names = {r["analyzer"]: r["stops"] for r in records}
    for name in ["standard-no-stop-words", "standard", "english", "simple", "whitespace", "keyword"]:
        assert name in names
    assert names["standard-no-stop-words"] == 0 and names["english"] > 0


def test_relationship_index(driver):
    driver.execute_query("CREATE FULLTEXT INDEX reviews FOR ()-[r:REVIEWS]-() ON EACH [r.text]")
    driver.execute_query("CALL db.awaitIndexes(60)")
    driver.execute_query(
        "CREATE (a:P)-[:REVIEWS {id: 1, text: 'great book'}]->(b:P), (a)-[:REVIEWS {id: 2, text: 'dull'}]->(b), "
        "(a)-[:OTHER {id: 3, text: 'great'}]->(b)"
    )
    records, _, _ = driver.execute_query(
        "CALL db.index.fulltext.queryRelationships('reviews', 'great') YIELD relationship, score "
        "RETURN relationship.id AS id"
    )
    assert [r["id"] for r in records] == [1]
    with pytest.raises(ClientError) as err:
        driver.execute_query("CALL db.index.fulltext.queryNodes('reviews', 'great')")
    assert err.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"


@pytest.mark.parametrize(
    "q, index",
    [
        ("brown", "missing"),
        ("brown AND", "books"),
        ("(brown", "books"),
        ('"brown', "books"),
    ],
)
def test_errors_are_procedure_call_failures(driver, q, index):
    seed(driver)
    with pytest.raises(ClientError) as err:
        query(driver, q, index=index)
    assert err.value.code == "Neo.ClientError.Procedure.ProcedureCallFailed"
    if index == "missing":
        assert "There is no such fulltext schema index: missing" in err.value.message


def test_labels_and_properties_move_entities_in_and_out(driver):
    seed(driver)
    driver.execute_query("CREATE (:Film {id: 10, title: 'Brown Sugar'}), (:Other {id: 11, title: 'brown'})")
    assert sorted(query(driver, "brown")) == [1, 3, 10]
    driver.execute_query("MATCH (n {id: 11}) SET n:Book")
    driver.execute_query("MATCH (n {id: 3}) REMOVE n:Book")
    driver.execute_query("MATCH (n {id: 1}) SET n.title = 'The Quick Red Fox'")
    driver.execute_query("MATCH (n {id: 10}) SET n.title = 42")
    assert sorted(query(driver, "brown")) == [11]


def test_own_uncommitted_writes_are_seen_and_others_only_after_commit(driver):
    seed(driver)
    with driver.session() as writer, driver.session() as other:
        tx = writer.begin_transaction()
        tx.run("CREATE (:Book {id: 10, title: 'Brown Paper'})").consume()
        tx.run("MATCH (b:Book {id: 3}) SET b.title = 'Polar', b.plot = 'white'").consume()
        tx.run("MATCH (b:Book {id: 1}) DETACH DELETE b").consume()
        assert ids(tx, "brown") == [10]
        assert sorted(ids(other, "brown")) == [1, 3]
        tx.commit()
        assert ids(other, "brown") == [10]


def test_a_readers_snapshot_is_stable(driver):
    seed(driver)
    with driver.session() as reader:
        tx = reader.begin_transaction()
        before = ids(tx, "brown")
        driver.execute_query("CREATE (:Book {id: 20, title: 'brown'})")
        driver.execute_query("MATCH (b:Book {id: 3}) DETACH DELETE b")
        assert ids(tx, "brown") == before
        tx.commit()
    assert sorted(query(driver, "brown")) == [1, 20]


def test_rollback_leaves_no_trace(driver):
    seed(driver)
    before = query(driver, "brown OR zebra")
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:Book {id: 30, title: 'zebra'})").consume()
        tx.run("MATCH (b:Book {id: 3}) SET b.title = 'zebra'").consume()
        assert sorted(ids(tx, "zebra")) == [3, 30]
        tx.rollback()
    assert query(driver, "brown OR zebra") == before
    assert query(driver, "zebra") == []


def test_kill_dash_nine_keeps_every_committed_text_and_no_uncommitted_one(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    seed(drv)
    drv.execute_query("UNWIND range(100, 199) AS i CREATE (:Book {id: i, title: 'volume ' + i})")
    assert server.http_post("/admin/checkpoint") == 200
    drv.execute_query("UNWIND range(200, 249) AS i CREATE (:Film {id: i, title: 'volume ' + i})")
    drv.execute_query("MATCH (b:Book {id: 2}) SET b.title = 'Graph Theory'")
    expected = query(drv, "brown OR volume OR theory")
    session = drv.session()
    tx = session.begin_transaction()
    tx.run("CREATE (:Book {id: 999, title: 'uncommitted volume'})").consume()
    server.kill9()
    drv.close()

    server.start()
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        drv.execute_query("CALL db.awaitIndexes(60)")
        assert query(drv, "brown OR volume OR theory") == expected
        assert query(drv, "uncommitted") == []
        assert len(query(drv, "volume")) == 150
        records, _, _ = drv.execute_query("SHOW FULLTEXT INDEXES YIELD name, state, labelsOrTypes RETURN *")
        assert [r.data() for r in records] == [
            {"name": "books", "state": "ONLINE", "labelsOrTypes": ["Book", "Film"]}
        ]
    finally:
        drv.close()
