"""Indexes and constraints through kill -9, a checkpoint, and an index build
cut short: after every restart each index and constraint exists, comes
online, answers exactly, and constraints still hold. Plus the uniqueness
race over Bolt: MERGE from many sessions at once leaves one node per key."""

import threading

import neo4j.exceptions
import pytest
from neo4j import GraphDatabase

AUTH = ("neo4j", "x")


def connect(server):
    return GraphDatabase.driver(server.uri, auth=AUTH)


def schema(drv):
    indexes, _, _ = drv.execute_query(
        "SHOW INDEXES YIELD name, state, type, labelsOrTypes, properties "
        "WHERE type <> 'LOOKUP' RETURN name, state, type ORDER BY name"
    )
    constraints, _, _ = drv.execute_query("SHOW CONSTRAINTS YIELD name, type RETURN name, type ORDER BY name")
    return [r.data() for r in indexes], [r.data() for r in constraints]


def await_online(drv):
    drv.execute_query("CALL db.awaitIndexes(60)")


def assert_duplicate_refused(drv, email):
    with pytest.raises(neo4j.exceptions.ConstraintError) as refused:
        drv.execute_query("CREATE (:User {email: $e})", e=email)
    assert refused.value.code == "Neo.ClientError.Schema.ConstraintValidationFailed"


def test_schema_survives_kill_dash_nine(server):
    drv = connect(server)
    drv.execute_query("CREATE CONSTRAINT user_email FOR (u:User) REQUIRE u.email IS UNIQUE")
    drv.execute_query("CREATE INDEX person_age FOR (p:Person) ON (p.age)")
    drv.execute_query("CREATE TEXT INDEX person_name FOR (p:Person) ON (p.name)")
    drv.execute_query(
        "UNWIND range(1, 500) AS i CREATE (:User {email: 'u' + i}), (:Person {age: i % 50, name: 'p' + i})"
    )
    drv.execute_query("DROP INDEX person_name")
    await_online(drv)
    before = schema(drv)
    server.kill9()
    drv.close()

    server.start()
    drv = connect(server)
    try:
        await_online(drv)
        assert schema(drv) == before
        assert [i["state"] for i in before[0]] == ["ONLINE", "ONLINE"]
        assert_duplicate_refused(drv, "u7")
        records, _, _ = drv.execute_query("MATCH (p:Person) WHERE p.age = 7 RETURN count(p) AS c")
        assert records[0]["c"] == 10
        records, _, _ = drv.execute_query("MATCH (p:Person) WHERE p.age >= 48 RETURN count(p) AS c")
        assert records[0]["c"] == 20
    finally:
        drv.close()


def test_schema_survives_a_checkpoint_and_the_log_after_it(server):
    drv = connect(server)
    drv.execute_query("CREATE CONSTRAINT user_email FOR (u:User) REQUIRE u.email IS UNIQUE")
    drv.execute_query("UNWIND range(1, 100) AS i CREATE (:User {email: 'u' + i})")
    assert server.http_post("/admin/checkpoint") == 200
    drv.execute_query("CREATE INDEX user_age FOR (u:User) ON (u.age)")
    drv.execute_query("UNWIND range(101, 200) AS i CREATE (:User {email: 'u' + i, age: i})")
    server.kill9()
    drv.close()

    server.start()
    drv = connect(server)
    try:
        await_online(drv)
        indexes, constraints = schema(drv)
        assert [i["name"] for i in indexes] == ["user_age", "user_email"]
        assert [c["name"] for c in constraints] == ["user_email"]
        assert_duplicate_refused(drv, "u150")
        assert_duplicate_refused(drv, "u50")
        records, _, _ = drv.execute_query("MATCH (u:User) WHERE u.age < 111 RETURN count(u) AS c")
        assert records[0]["c"] == 10
    finally:
        drv.close()


def test_an_index_build_cut_short_is_built_at_restart(server):
    drv = connect(server)
    drv.execute_query("UNWIND range(1, 200000) AS i CREATE (:Item {n: i})")
    drv.execute_query("CREATE INDEX item_n FOR (i:Item) ON (i.n)")
    server.kill9()
    drv.close()

    server.start()
    drv = connect(server)
    try:
        await_online(drv)
        indexes, _ = schema(drv)
        assert indexes == [{"name": "item_n", "state": "ONLINE", "type": "RANGE"}]
        records, _, _ = drv.execute_query(
            "MATCH (i:Item) WHERE i.n > 199990 RETURN i.n AS n ORDER BY n"
        )
        assert [r["n"] for r in records] == list(range(199991, 200001))
    finally:
        drv.close()


def test_merge_from_many_sessions_leaves_one_node_per_key(server):
    drv = connect(server)
    drv.execute_query("CREATE CONSTRAINT user_email FOR (u:User) REQUIRE u.email IS UNIQUE")
    errors = []

    def merge(worker):
        try:
            with drv.session() as session:
                for i in range(60):
                    session.execute_write(
                        lambda tx: tx.run("MERGE (u:User {email: $e})", e=f"e{(i + worker) % 30}").consume()
                    )
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=merge, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        records, _, _ = drv.execute_query("MATCH (u:User) RETURN u.email AS e")
        emails = [r["e"] for r in records]
        assert len(emails) == 30 and len(set(emails)) == 30
    finally:
        drv.close()
