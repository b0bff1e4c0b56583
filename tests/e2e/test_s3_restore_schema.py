"""Indexes and constraints after a restore from S3 onto an empty data dir
(issue 23): the schema made before the checkpoint comes back from the
checkpoint, the schema made after it from the shipped log tail; on the new
machine every index is ONLINE and answers exactly what a label scan
answers, and every constraint refuses what breaks it.

Uses the moto S3 server of test_s3_restore.py (moto_s3.py), each run
under its own key prefix."""

import tempfile

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

import moto_s3
from test_s3_restore import BUCKET, S3Database, checkpoint, s3  # noqa: F401 (the fixture)

pytest.importorskip("boto3", reason="moto[server] (and boto3) are installed by scripts/test-all")

BEFORE = [
    "CREATE INDEX person_id FOR (n:Person) ON (n.id)",
    "CREATE INDEX person_name_age FOR (n:Person) ON (n.name, n.age)",
    "CREATE TEXT INDEX person_bio FOR (n:Person) ON (n.bio)",
    "CREATE INDEX knows_since FOR ()-[r:KNOWS]-() ON (r.since)",
    "CREATE CONSTRAINT person_email FOR (n:Person) REQUIRE n.email IS UNIQUE",
    "CREATE CONSTRAINT person_name FOR (n:Person) REQUIRE n.name IS NOT NULL",
]
AFTER = [
    "CREATE INDEX person_score FOR (n:Person) ON (n.score)",
    "CREATE CONSTRAINT account_key FOR (n:Account) REQUIRE (n.bank, n.no) IS NODE KEY",
    "CREATE CONSTRAINT person_age FOR (n:Person) REQUIRE n.age IS :: INTEGER",
]
NAMES = ["person_id", "person_name_age", "person_bio", "knows_since", "person_email",
         "person_score", "account_key"]

# (query through an index, the same through the label scan)
SEEKS = [
    ("MATCH (n:Person) WHERE n.id = 7 RETURN n.id AS v",
     "MATCH (n:Person) USING SCAN n:Person WHERE n.id = 7 RETURN n.id AS v"),
    ("MATCH (n:Person) WHERE n.id >= 20 AND n.id < 45 RETURN n.id AS v",
     "MATCH (n:Person) USING SCAN n:Person WHERE n.id >= 20 AND n.id < 45 RETURN n.id AS v"),
    ("MATCH (n:Person) WHERE n.name = 'p3' AND n.age > 0 RETURN n.id AS v",
     "MATCH (n:Person) USING SCAN n:Person WHERE n.name = 'p3' AND n.age > 0 RETURN n.id AS v"),
    ("MATCH (n:Person) WHERE n.bio CONTAINS 'x1' RETURN n.id AS v",
     "MATCH (n:Person) USING SCAN n:Person WHERE n.bio CONTAINS 'x1' RETURN n.id AS v"),
    ("MATCH (n:Person) WHERE n.email STARTS WITH 'e1' RETURN n.id AS v",
     "MATCH (n:Person) USING SCAN n:Person WHERE n.email STARTS WITH 'e1' RETURN n.id AS v"),
    ("MATCH (n:Person) WHERE n.score < 10 RETURN n.id AS v",
     "MATCH (n:Person) USING SCAN n:Person WHERE n.score < 10 RETURN n.id AS v"),
    ("MATCH (n:Account) WHERE n.bank = 'b' AND n.no = 3 RETURN n.no AS v",
     "MATCH (n:Account) USING SCAN n:Account WHERE n.bank = 'b' AND n.no = 3 RETURN n.no AS v"),
    ("MATCH ()-[r:KNOWS]->() WHERE r.since > 40 RETURN r.since AS v",
     "MATCH (a)-[r:KNOWS]->() WHERE r.since + 0 > 40 RETURN r.since AS v"),
]


def people(drv, ids):
    drv.execute_query(
        "UNWIND $ids AS i CREATE (:Person {id: i, name: 'p' + toString(i % 10), age: i % 7, "
        "bio: 'x' + toString(i), email: 'e' + toString(i), score: i * 2})", ids=list(ids))


def values(drv, query):
    records, _, _ = drv.execute_query(query)
    return sorted(r["v"] for r in records)


def operators(plan):
    found = [plan.get("operatorType", "").split("@")[0]]
    for child in plan.get("children", []):
        found.extend(operators(child))
    return found


def refused(drv, query):
    with pytest.raises(ClientError) as error:
        drv.execute_query(query)
    return error.value.code


def test_indexes_and_constraints_come_back_from_s3_exact_and_enforced(s3):
    with tempfile.TemporaryDirectory(prefix="nereid-s3-schema-") as tmp:
        db = S3Database(s3, tmp, ["--checkpoint-on-shutdown", "false", "--checkpoint-log-bytes", "0"])
        first = db.fresh_server()
        try:
            with GraphDatabase.driver(first.uri, auth=("neo4j", "x")) as drv:
                for ddl in BEFORE:
                    drv.execute_query(ddl)
                people(drv, range(0, 30))
                drv.execute_query(
                    "MATCH (a:Person), (b:Person) WHERE b.id = a.id + 1 "
                    "CREATE (a)-[:KNOWS {since: a.id * 2}]->(b)")
                drv.execute_query("CALL db.awaitIndexes(60)")
                checkpoint(drv)
                for ddl in AFTER:
                    drv.execute_query(ddl)
                people(drv, range(30, 60))
                drv.execute_query("UNWIND range(1, 5) AS i CREATE (:Account {bank: 'b', no: i})")
                drv.execute_query("MATCH (n:Person {id: 3}) SET n.id = 1003, n.bio = 'moved'")
                drv.execute_query("MATCH (n:Person {id: 4}) DETACH DELETE n")
                drv.execute_query("CALL db.awaitIndexes(60)")
                expected = [values(drv, scan) for _, scan in SEEKS]
        finally:
            first.stop()
        assert moto_s3.keys(s3, BUCKET, f"{db.prefix}/wal/"), "the log tail was shipped"

        second = db.fresh_server()
        try:
            assert "loaded the checkpoint" in second.log()
            with GraphDatabase.driver(second.uri, auth=("neo4j", "x")) as drv:
                drv.execute_query("CALL db.awaitIndexes(60)")
                records, _, _ = drv.execute_query(
                    "SHOW INDEXES YIELD name, state, populationPercent WHERE name IN $names "
                    "RETURN name, state, populationPercent", names=NAMES)
                assert sorted((r["name"], r["state"], r["populationPercent"]) for r in records) == \
                    sorted((n, "ONLINE", 100.0) for n in NAMES), records
                records, _, _ = drv.execute_query("SHOW CONSTRAINTS YIELD name RETURN name")
                assert sorted(r["name"] for r in records) == sorted(
                    ["person_email", "person_name", "account_key", "person_age"])

                for (indexed, scan), before in zip(SEEKS, expected):
                    _, summary, _ = drv.execute_query("EXPLAIN " + indexed)
                    assert any("Index" in op for op in operators(summary.plan)), (indexed, summary.plan)
                    assert values(drv, indexed) == values(drv, scan) == before, indexed

                violation = "Neo.ClientError.Schema.ConstraintValidationFailed"
                assert refused(drv, "CREATE (:Person {id: -1, name: 'x', email: 'e10'})") == violation
                assert refused(drv, "CREATE (:Person {id: -1})") == violation
                assert refused(drv, "CREATE (:Person {id: -1, name: 'x', age: 'old'})") == violation
                assert refused(drv, "CREATE (:Account {bank: 'b', no: 2})") == violation
                assert refused(drv, "CREATE (:Account {bank: 'b'})") == violation
                records, _, _ = drv.execute_query("MATCH (n:Person {email: 'e10'}) RETURN count(n) AS c")
                assert records[0]["c"] == 1
                # What the constraints allow goes in and is found through the indexes.
                drv.execute_query("CREATE (:Person {id: 5000, name: 'new', email: 'fresh', age: 1})")
                assert values(drv, "MATCH (n:Person) WHERE n.id = 5000 RETURN n.id AS v") == [5000]
        finally:
            second.stop()
