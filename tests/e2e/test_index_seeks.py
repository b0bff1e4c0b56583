"""Index seeks as a driver sees them (issue 23): once an index is ONLINE,
EXPLAIN names Neo4j's index operators and the answers are those of the
label scan; a plan cached before the index existed is replanned; ORDER BY
on the ranged key with LIMIT is read in index order, without a sort.

Indexes are created with Neo4j 5's DDL, which needs the schema DDL parser
(issue 23's other half)."""

import pytest
from neo4j.exceptions import ClientError

PEOPLE = 2000


def operators(plan):
    """Operator names of a plan tree, root first, depth first."""
    out = [plan["operatorType"]]
    for child in plan["children"]:
        out.extend(operators(child))
    return out


def explain(driver, query, **params):
    _, summary, _ = driver.execute_query("EXPLAIN " + query, params)
    return operators(summary.plan)


@pytest.fixture
def people(driver):
    driver.execute_query(
        "UNWIND range(0, $n - 1) AS i "
        "CREATE (:Person {id: i, age: i % 97, name: 'p' + toString(i)})",
        n=PEOPLE,
    )
    # Values of other types under the same key: never in a numeric range.
    driver.execute_query("CREATE (:Person {id: -1, age: 'old'}), (:Person {id: -2, age: [50]})")
    return driver


def create_indexes(driver):
    driver.execute_query("CREATE INDEX person_id FOR (n:Person) ON (n.id)")
    driver.execute_query("CREATE INDEX person_age FOR (n:Person) ON (n.age)")
    driver.execute_query("CALL db.awaitIndexes(60)")


def test_equality_seek_after_the_index_comes_online(people):
    driver = people
    query = "MATCH (n:Person {id: $id}) RETURN n.name AS name"
    # Planned and cached before the index exists: a scan.
    assert "NodeIndexSeek" not in explain(driver, query, id=7)
    records, _, _ = driver.execute_query(query, id=7)
    assert [r["name"] for r in records] == ["p7"]

    create_indexes(driver)
    ops = explain(driver, query, id=7)
    assert "NodeIndexSeek" in ops, ops
    for i in (0, 7, PEOPLE - 1):
        records, _, _ = driver.execute_query(query, id=i)
        assert [r["name"] for r in records] == [f"p{i}"]
    records, _, _ = driver.execute_query(query, id=7.0)
    assert [r["name"] for r in records] == ["p7"], "7.0 = 7 in Cypher"
    records, _, _ = driver.execute_query(query, id="7")
    assert records == []
    records, _, _ = driver.execute_query(
        "MATCH (n:Person) WHERE n.id IN $ids RETURN n.name AS name ORDER BY name",
        ids=[3, 5, 3, 5.0, "x"],
    )
    assert [r["name"] for r in records] == ["p3", "p5"]

    driver.execute_query("DROP INDEX person_id")
    assert "NodeIndexSeek" not in explain(driver, query, id=7)
    records, _, _ = driver.execute_query(query, id=7)
    assert [r["name"] for r in records] == ["p7"]


def test_range_with_order_by_and_limit_reads_the_index_in_order(people):
    driver = people
    create_indexes(driver)
    ages = sorted(((i % 97, i) for i in range(PEOPLE)), key=lambda t: t[0])
    for descending in (False, True):
        direction = " DESC" if descending else ""
        query = (
            "MATCH (n:Person) WHERE n.age >= $low AND n.age < $high "
            f"RETURN n.age AS age ORDER BY n.age{direction} LIMIT $k"
        )
        ops = explain(driver, query, low=10, high=20, k=30)
        assert "NodeIndexSeekByRange" in ops, ops
        assert "Sort" not in ops and "Top" not in ops, ops
        records, _, _ = driver.execute_query(query, low=10, high=20, k=30)
        want = [a for a, _ in ages if 10 <= a < 20]
        want = (sorted(want, reverse=True) if descending else sorted(want))[:30]
        assert [r["age"] for r in records] == want

    # A range of a type no value of which is numeric; and a bound of
    # another type: nothing.
    records, _, _ = driver.execute_query(
        "MATCH (n:Person) WHERE n.age > 'a' RETURN n.id AS id"
    )
    assert [r["id"] for r in records] == [-1]
    records, _, _ = driver.execute_query(
        "MATCH (n:Person) WHERE n.age > 95 AND n.age < 'z' RETURN n.id AS id"
    )
    assert records == []
    # A list bound: the store cannot range over lists; the executor's
    # fallback answers as the scan would.
    records, _, _ = driver.execute_query(
        "MATCH (n:Person) WHERE n.age >= [49] RETURN n.id AS id"
    )
    assert [r["id"] for r in records] == [-2]


def test_unique_constraint_seek(driver):
    driver.execute_query("CREATE CONSTRAINT user_email FOR (u:User) REQUIRE u.email IS UNIQUE")
    driver.execute_query("UNWIND range(1, 50) AS i CREATE (:User {email: 'u' + toString(i) + '@x'})")
    driver.execute_query("CALL db.awaitIndexes(60)")
    query = "MATCH (u:User {email: $e}) RETURN u.email AS e"
    assert "NodeUniqueIndexSeek" in explain(driver, query, e="u1@x")
    records, _, _ = driver.execute_query(query, e="u42@x")
    assert [r["e"] for r in records] == ["u42@x"]


def test_relationship_index_seek(driver):
    driver.execute_query(
        "UNWIND range(1, 40) AS i CREATE (:A {i: i})-[:R {w: i % 10}]->(:B {i: i})"
    )
    driver.execute_query("CREATE INDEX r_w FOR ()-[r:R]-() ON (r.w)")
    driver.execute_query("CALL db.awaitIndexes(60)")
    query = "MATCH (a)-[r:R]->(b) WHERE r.w = $w RETURN a.i AS i ORDER BY i"
    assert "DirectedRelationshipIndexSeek" in explain(driver, query, w=3)
    records, _, _ = driver.execute_query(query, w=3)
    assert [r["i"] for r in records] == [3, 13, 23, 33]


def test_hints(people):
    driver = people
    create_indexes(driver)
    query = "MATCH (n:Person) USING INDEX n:Person(age) WHERE n.id = $id AND n.age >= 0 RETURN n.id AS id"
    ops = explain(driver, query, id=5)
    assert "NodeIndexSeekByRange" in ops and "NodeIndexSeek" not in ops, ops
    records, _, _ = driver.execute_query(query, id=5)
    assert [r["id"] for r in records] == [5]
    ops = explain(driver, "MATCH (n:Person) USING SCAN n:Person WHERE n.id = 5 RETURN n")
    assert not any("Index" in op for op in ops), ops
    # A hint naming a missing index is ignored with Neo4j 5.26's warning
    # (the reference server answers so): the query runs, here through
    # the label (Neo4j requires the hinted key in a predicate it supports).
    query = "MATCH (n:Person) USING INDEX n:Person(nick) WHERE n.nick = 'x' OR n.id = 5 RETURN n.id AS id"
    records, summary, _ = driver.execute_query(query)
    assert [r["id"] for r in records] == [5]
    warnings = [s for s in summary.gql_status_objects if s.gql_status == "01N31"]
    assert len(warnings) == 1, summary.gql_status_objects
    assert warnings[0].status_description == (
        "warn: hinted index does not exist. Unable to create a plan with 'INDEX :Person(nick)' "
        "because the index does not exist.")
    with pytest.raises(ClientError) as unusable:
        driver.execute_query("MATCH (n:Person) USING INDEX n:Person(age) WHERE n.id = 1 RETURN n")
    assert "Cannot use index hint" in unusable.value.message


def test_reads_through_the_index_follow_each_transactions_view(people):
    """MVCC through an index, as two driver sessions see it: a transaction
    sees its own uncommitted writes through the seek and nobody else does
    until it commits; in every view the seek answers what the label scan
    (`USING SCAN`) answers."""
    driver = people
    create_indexes(driver)
    seek = "MATCH (n:Person) WHERE n.id IN [5, 100000] RETURN n.name AS name ORDER BY name"
    scan = "MATCH (n:Person) USING SCAN n:Person WHERE n.id IN [5, 100000] RETURN n.name AS name ORDER BY name"
    assert "NodeIndexSeek" in explain(driver, seek)

    def names(run, query):
        return [r["name"] for r in run(query)]

    def auto(query):
        records, _, _ = driver.execute_query(query)
        return records

    with driver.session() as session:
        tx = session.begin_transaction()
        mine = lambda query: list(tx.run(query))  # noqa: E731
        tx.run("MATCH (n:Person {id: 5}) SET n.id = 6").consume()
        tx.run("CREATE (:Person {id: 100000, name: 'new'})").consume()
        # Its own writes, through the index and through the scan alike.
        assert names(mine, seek) == names(mine, scan) == ["new"]
        # Another session's view is the committed one.
        assert names(auto, seek) == names(auto, scan) == ["p5"]
        tx.commit()
    assert names(auto, seek) == names(auto, scan) == ["new"]

    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("MATCH (n:Person {id: 100000}) DELETE n").consume()
        assert list(tx.run(seek)) == []
        tx.rollback()
    assert names(auto, seek) == ["new"]


@pytest.mark.parametrize(
    "predicate, operator",
    [
        ("n.name STARTS WITH 'p12'", "NodeIndexSeekByRange"),
        ("n.name ENDS WITH '99'", "NodeIndexEndsWithScan"),
        ("n.name CONTAINS '77'", "NodeIndexContainsScan"),
    ],
)
def test_text_index_serves_string_predicates(people, predicate, operator):
    """A TEXT index answers STARTS WITH, ENDS WITH and CONTAINS with the
    operators the reference Neo4j 5.26 plans for them, and the answers of
    the label scan."""
    driver = people
    driver.execute_query("CREATE TEXT INDEX person_name FOR (n:Person) ON (n.name)")
    driver.execute_query("CALL db.awaitIndexes(60)")
    query = f"MATCH (n:Person) WHERE {predicate} RETURN n.id AS id ORDER BY id"
    assert operator in explain(driver, query)
    seek, _, _ = driver.execute_query(query)
    scan, _, _ = driver.execute_query(query.replace("MATCH (n:Person)", "MATCH (n:Person) USING SCAN n:Person"))
    assert [r["id"] for r in seek] == [r["id"] for r in scan]
    assert len(seek) > 0
