"""Points 2-4 of the walking skeleton: queries in auto-commit and explicit
transactions, graph types arriving as driver objects, syntax errors."""

import pytest
from neo4j.exceptions import ClientError, CypherSyntaxError
from neo4j.graph import Node, Path, Relationship

CREATE_ANN_BOB = (
    "CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})"
)


def test_return_literal(driver):
    records, _, _ = driver.execute_query("RETURN 1 AS one, 'two' AS two, [1, 2.5, null] AS l")
    assert [r.data() for r in records] == [{"one": 1, "two": "two", "l": [1, 2.5, None]}]


def test_parameters_round_trip(driver):
    params = {"i": -129, "f": 1.5, "s": "héllo", "b": True, "l": [1, "x"], "m": {"k": [1]}, "n": None}
    records, _, _ = driver.execute_query(
        "RETURN $i AS i, $f AS f, $s AS s, $b AS b, $l AS l, $m AS m, $n AS n", params
    )
    assert records[0].data() == params


def test_create_and_match_graph_objects(driver):
    _, summary, _ = driver.execute_query(CREATE_ANN_BOB)
    counters = summary.counters
    assert counters.nodes_created == 2
    assert counters.relationships_created == 1
    assert counters.properties_set == 4
    assert counters.labels_added == 2

    records, _, keys = driver.execute_query(
        "MATCH (a:Person)-[k:KNOWS]->(b) WHERE a.age > 40 "
        "RETURN a, k, b, a.name AS name ORDER BY name LIMIT 10"
    )
    assert keys == ["a", "k", "b", "name"]
    assert len(records) == 1
    a, k, b, name = records[0]["a"], records[0]["k"], records[0]["b"], records[0]["name"]
    assert isinstance(a, Node) and isinstance(b, Node) and isinstance(k, Relationship)
    assert a.labels == frozenset({"Person"}) and dict(a) == {"name": "Ann", "age": 42}
    assert dict(b) == {"name": "Bob"}
    assert k.type == "KNOWS" and dict(k) == {"since": 2020}
    assert k.start_node.element_id == a.element_id
    assert k.end_node.element_id == b.element_id
    assert a.element_id != b.element_id
    assert name == "Ann"


def test_paths(driver):
    driver.execute_query(CREATE_ANN_BOB)
    records, _, _ = driver.execute_query("MATCH p=(a)-[:KNOWS]->(b) RETURN p")
    assert len(records) == 1
    p = records[0]["p"]
    assert isinstance(p, Path)
    assert [n["name"] for n in p.nodes] == ["Ann", "Bob"]
    assert [r.type for r in p.relationships] == ["KNOWS"]
    assert p.start_node["name"] == "Ann" and p.end_node["name"] == "Bob"


def test_path_traversed_backwards(driver):
    driver.execute_query(CREATE_ANN_BOB)
    records, _, _ = driver.execute_query("MATCH p=(b {name:'Bob'})<-[:KNOWS]-(a) RETURN p")
    p = records[0]["p"]
    assert [n["name"] for n in p.nodes] == ["Bob", "Ann"]
    rel = p.relationships[0]
    assert rel.start_node["name"] == "Ann" and rel.end_node["name"] == "Bob"


def test_functions_and_aggregation(driver):
    driver.execute_query(CREATE_ANN_BOB)
    records, _, _ = driver.execute_query(
        "MATCH (n:Person) RETURN count(n) AS c, collect(n.name) AS names, "
        "sum(coalesce(n.age, 0)) AS total, min(n.name) AS first"
    )
    row = records[0].data()
    assert row["c"] == 2 and sorted(row["names"]) == ["Ann", "Bob"]
    assert row["total"] == 42 and row["first"] == "Ann"
    records, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, labels(a) AS l, keys(r) AS k, "
        "toString(a.age) AS s, id(a) = id(a) AS same, elementId(b) IS NOT NULL AS e"
    )
    assert records[0].data() == {"t": "KNOWS", "l": ["Person"], "k": ["since"], "s": "42",
                                 "same": True, "e": True}


def test_explicit_transaction_commit_and_rollback(driver):
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:T {v: 1})")
        assert tx.run("MATCH (t:T) RETURN count(t) AS c").single()["c"] == 1
        tx.commit()

        tx = session.begin_transaction()
        tx.run("CREATE (:T {v: 2})")
        tx.rollback()

        assert session.run("MATCH (t:T) RETURN t.v AS v").single()["v"] == 1


def test_managed_transaction_functions(driver):
    def work(tx, v):
        tx.run("CREATE (:M {v: $v})", v=v)
        return tx.run("MATCH (m:M) RETURN count(m) AS c").single()["c"]

    with driver.session() as session:
        assert session.execute_write(work, 7) == 1
        assert session.execute_read(lambda tx: tx.run("MATCH (m:M) RETURN m.v AS v").single()["v"]) == 7


def test_uncommitted_writes_are_invisible_to_others(driver):
    with driver.session() as s1, driver.session() as s2:
        tx = s1.begin_transaction()
        tx.run("CREATE (:Iso)")
        assert s2.run("MATCH (n:Iso) RETURN count(n) AS c").single()["c"] == 0
        tx.commit()
        assert s2.run("MATCH (n:Iso) RETURN count(n) AS c").single()["c"] == 1


def test_set_delete_and_detach_delete(driver):
    driver.execute_query(CREATE_ANN_BOB)
    _, summary, _ = driver.execute_query("MATCH (n:Person {name:'Bob'}) SET n.age = 7, n.x = 'y'")
    assert summary.counters.properties_set == 2
    records, _, _ = driver.execute_query("MATCH (n:Person {name:'Bob'}) RETURN n.age AS age")
    assert records[0]["age"] == 7
    with pytest.raises(ClientError):
        driver.execute_query("MATCH (n:Person {name:'Bob'}) DELETE n")
    _, summary, _ = driver.execute_query("MATCH (n:Person {name:'Bob'}) DETACH DELETE n")
    assert summary.counters.nodes_deleted == 1 and summary.counters.relationships_deleted == 1
    records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS c")
    assert records[0]["c"] == 1


def test_unwind_with_distinct_skip_limit(driver):
    records, _, _ = driver.execute_query(
        "UNWIND [3, 1, 2, 3, 1] AS x WITH DISTINCT x ORDER BY x DESC SKIP 1 LIMIT 5 RETURN collect(x) AS xs"
    )
    assert records[0]["xs"] == [2, 1]


def test_optional_match(driver):
    driver.execute_query(CREATE_ANN_BOB)
    records, _, _ = driver.execute_query(
        "MATCH (n:Person) OPTIONAL MATCH (n)-[:KNOWS]->(m) RETURN n.name AS n, m.name AS m ORDER BY n"
    )
    assert [r.data() for r in records] == [{"n": "Ann", "m": "Bob"}, {"n": "Bob", "m": None}]


def test_streaming_pull_returns_first_records_without_the_rest(driver):
    with driver.session(fetch_size=100) as session:
        result = session.run("UNWIND range(1, 1000000) AS x RETURN x")
        first = [next(iter(result))["x"] for _ in range(5)]
        assert first == [1, 2, 3, 4, 5]
        result.consume()


def test_syntax_error_has_position_and_session_survives(driver):
    with driver.session() as session:
        with pytest.raises(CypherSyntaxError) as err:
            session.run("MATCH (n RETURN n").consume()
        assert err.value.code == "Neo.ClientError.Statement.SyntaxError"
        assert "line 1, column 10" in err.value.message
        assert session.run("RETURN 1 AS x").single()["x"] == 1
        with pytest.raises(CypherSyntaxError) as err:
            session.run("RETRUN 1").consume()
        assert "line 1, column 1" in err.value.message
        assert session.run("RETURN 2 AS x").single()["x"] == 2


def test_semantic_error_is_a_client_error(driver):
    with pytest.raises(ClientError) as err:
        driver.execute_query("RETURN x")
    assert err.value.code == "Neo.ClientError.Statement.SyntaxError" or \
        err.value.code == "Neo.ClientError.Statement.SemanticError"
    assert "line 1, column 8" in err.value.message


def test_db_ping(driver):
    records, _, _ = driver.execute_query("CALL db.ping()")
    assert records[0]["success"] is True


def test_verify_connectivity_and_server_info(driver):
    driver.verify_connectivity()
    info = driver.get_server_info()
    assert info.agent.startswith("Neo4j/")


def test_prefix_names(driver):
    driver.execute_query(
        "PREFIX foaf: <http://xmlns.com/foaf/0.1/> CREATE (:foaf::Person {foaf::name: 'Ann'})"
    )
    records, _, _ = driver.execute_query(
        "MATCH (n) RETURN labels(n) AS l, keys(n) AS k"
    )
    assert records[0].data() == {"l": ["http://xmlns.com/foaf/0.1/Person"],
                                 "k": ["http://xmlns.com/foaf/0.1/name"]}


def test_slow_query_does_not_stall_other_connections(server, driver):
    import threading

    done = threading.Event()

    def slow():
        with driver.session() as s:
            s.run("UNWIND range(1, 30000000) AS x RETURN count(x) AS c").single()
        done.set()

    t = threading.Thread(target=slow)
    t.start()
    other = __import__("neo4j").GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        for _ in range(5):
            assert other.execute_query("RETURN 1 AS x")[0][0]["x"] == 1
        assert not done.is_set(), "the slow query finished first; make it slower"
    finally:
        other.close()
        t.join()


def test_explain_returns_no_rows_and_the_plan_in_the_summary(driver):
    records, summary, keys = driver.execute_query("EXPLAIN MATCH (n:Person) WHERE id(n) = $id RETURN n.name AS name",
                                                  id=1)
    assert records == [] and keys == []
    plan = summary.plan
    assert plan["operatorType"] == "ProduceResults"
    assert plan["identifiers"] == ["name"]
    names = []
    node = plan
    while node["children"]:
        node = node["children"][0]
        names.append(node["operatorType"])
    assert "NodeByIdSeek" in names, names
    assert names[-1] == "Argument"
    assert all(isinstance(n["args"]["Details"], str) for n in [plan, node])
    # Nothing ran: no counters, no writes.
    _, summary, _ = driver.execute_query("EXPLAIN CREATE (:Ghost)")
    assert summary.plan["children"][0]["operatorType"] == "Create"
    records, _, _ = driver.execute_query("MATCH (g:Ghost) RETURN count(g) AS c")
    assert records[0]["c"] == 0
