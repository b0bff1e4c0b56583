"""The shared driver scenarios (issue 3; the same list in every client of
tests/drivers/) with the official Python driver (6.x or 5.28, whichever the
interpreter has): connect and authenticate (good and bad password),
auto-commit, explicit transactions (commit and rollback), a managed
transaction retried on a TransientError, several results open in one
transaction (qid), PULL paging with has_more, DISCARD, RESET in the middle of
a long stream, failure then recovery, every value type (temporal, spatial,
bytes, nested lists and maps, Node / Relationship / Path), bookmarks across
sessions, `neo4j://` routing, TLS.

Usage: python scenarios.py bolt://127.0.0.1:PORT
Environment: SCENARIO_USER / SCENARIO_PASSWORD (default neo4j / x),
SCENARIO_AUTH_ENFORCED=1 (run the bad-password scenario), SCENARIO_TLS_URI
(a bolt+ssc:// listener; else the TLS scenario is skipped).
Prints one line per scenario (ok / FAIL / skip) and
"P passed, F failed, S skipped" at the end; exits 1 if any failed.
"""

import datetime
import os
import sys
import threading

import neo4j
from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, ClientError, Neo4jError
from neo4j.graph import Node, Path, Relationship
from neo4j.spatial import CartesianPoint, WGS84Point
from neo4j.time import Date, DateTime, Duration, Time

URI = sys.argv[1]
USER = os.environ.get("SCENARIO_USER") or "neo4j"
PASSWORD = os.environ.get("SCENARIO_PASSWORD") or "x"
AUTH = (USER, PASSWORD)


class Skip(Exception):
    """A scenario that cannot run against this server; says why."""


SCENARIOS = []


def scenario(name):
    def register(body):
        SCENARIOS.append((name, body))
        return body
    return register


def single(driver, query, **params):
    records, _, _ = driver.execute_query(query, params)
    assert len(records) == 1, f"{query}: {len(records)} records"
    return records[0]


@scenario("connect and authenticate")
def connect(driver):
    driver.verify_connectivity()


@scenario("bad password refused")
def bad_password(driver):
    if os.environ.get("SCENARIO_AUTH_ENFORCED") != "1":
        raise Skip("the server does not check passwords")
    with GraphDatabase.driver(URI, auth=(USER, PASSWORD + "-wrong")) as wrong:
        try:
            wrong.verify_connectivity()
        except AuthError as e:
            assert e.code == "Neo.ClientError.Security.Unauthorized", e.code
        else:
            raise AssertionError("bad credentials were accepted")


@scenario("auto-commit")
def auto_commit(driver):
    with driver.session() as session:
        result = session.run("CREATE (n:AutoCommit {v: $v}) RETURN n.v AS v", v=7)
        assert result.single()["v"] == 7
        assert result.consume().counters.nodes_created == 1


@scenario("explicit transaction commit and rollback")
def explicit(driver):
    with driver.session() as session:
        with session.begin_transaction() as tx:
            tx.run("CREATE (:Tx {v: 1})").consume()
            assert tx.run("MATCH (t:Tx) RETURN count(t) AS c").single()["c"] == 1
            tx.rollback()
        with session.begin_transaction() as tx:
            tx.run("CREATE (:Tx {v: 2})").consume()
            tx.commit()
        assert [r["v"] for r in session.run("MATCH (t:Tx) RETURN t.v AS v")] == [2]


@scenario("managed transactions")
def managed(driver):
    with driver.session() as session:
        session.execute_write(lambda tx: tx.run("CREATE (:Managed {v: 3})").consume())
        v = session.execute_read(lambda tx: tx.run("MATCH (m:Managed) RETURN m.v AS v").single()["v"])
        assert v == 3, v


@scenario("managed transaction retried on a TransientError")
def transient_retry(driver):
    """A second session holds a write on the node. A server that fails the
    conflicting write at once sends a TransientError and the driver retries;
    one that waits for the holder (Neo4j, and nereid since ADR 0126)
    proceeds once the holder commits. Either way the update lands once,
    after the holder's."""
    driver.execute_query("CREATE (:Contended {v: 0})")
    holder = driver.session()
    holder_tx = holder.begin_transaction()
    holder_tx.run("MATCH (c:Contended) SET c.v = 100").consume()
    lock = threading.Lock()
    released = []

    def release():
        with lock:
            if not released:
                holder_tx.commit()
                holder.close()
                released.append(True)

    timer = threading.Timer(2.0, release)
    timer.start()
    failures = []

    def increment(tx):
        if failures:
            release()
        try:
            tx.run("MATCH (c:Contended) SET c.v = c.v + 1").consume()
        except Neo4jError as e:
            failures.append(e.code)
            raise

    try:
        with driver.session() as session:
            session.execute_write(increment)
    finally:
        timer.cancel()
        release()
    assert all(code.startswith("Neo.TransientError.") for code in failures), failures
    v = single(driver, "MATCH (c:Contended) RETURN c.v AS v")["v"]
    assert v == 101, f"after {len(failures) + 1} attempt(s): v = {v}"
    if not failures:
        return "1 attempt, the server waited for the lock"
    return f"{len(failures) + 1} attempt(s), failures: {', '.join(failures)}"


@scenario("several results open in one transaction (qid)")
def several_results(driver):
    with driver.session(fetch_size=2) as session, session.begin_transaction() as tx:
        first = iter(tx.run("UNWIND range(1, 5) AS x RETURN x"))
        second = iter(tx.run("UNWIND range(10, 14) AS y RETURN y"))
        total = 0
        for a, b in zip(first, second):
            total += a["x"] + b["y"]
        tx.commit()
        assert total == 15 + 60, total


@scenario("PULL paging with has_more")
def paging(driver):
    with driver.session(fetch_size=3) as session:
        xs = [r["x"] for r in session.run("UNWIND range(1, 10) AS x RETURN x")]
        assert xs == list(range(1, 11)), xs


@scenario("DISCARD")
def discard(driver):
    with driver.session(fetch_size=2) as session:
        # consume() without reading: the driver discards; the writes happen.
        summary = session.run("UNWIND range(1, 50) AS i CREATE (:Discarded {i: i}) RETURN i").consume()
        assert summary.counters.nodes_created == 50, summary.counters
        assert session.run("MATCH (d:Discarded) RETURN count(d) AS c").single()["c"] == 50


@scenario("RESET in the middle of a long stream")
def reset_mid_stream(driver):
    with driver.session(fetch_size=10) as session:
        tx = session.begin_transaction()
        stream = iter(tx.run("UNWIND range(1, 10000000) AS x RETURN x"))
        assert [next(stream)["x"] for _ in range(3)] == [1, 2, 3]
        # Closing a transaction with a stream open: the driver abandons the
        # stream; the session stays usable.
        tx.close()
        assert session.run("RETURN 1 AS x").single()["x"] == 1


@scenario("errors and session recovery")
def errors(driver):
    with driver.session() as session:
        for query, code in [("MATCH (n RETURN n", "Neo.ClientError.Statement.SyntaxError"),
                            ("RETURN 1 / 0 AS x", "Neo.ClientError.Statement.ArithmeticError")]:
            try:
                session.run(query).consume()
            except ClientError as e:
                assert e.code == code, e.code
            else:
                raise AssertionError(f"{query} was accepted")
        assert session.run("RETURN 1 AS x").single()["x"] == 1
        try:
            with session.begin_transaction() as tx:
                tx.run("RETURN $missing AS x").consume()
        except ClientError as e:
            assert e.code == "Neo.ClientError.Statement.ParameterMissing", e.code
        else:
            raise AssertionError("a missing parameter was accepted")
        assert session.run("RETURN 2 AS x").single()["x"] == 2


@scenario("primitive values round trip")
def primitives(driver):
    params = {"nothing": None, "yes": True, "small": -16, "big": 1 << 62, "float": 1.5, "text": "héllo",
              "bytes": bytearray([1, 2, 255]), "list": [1, "two", [3.5]],
              "map": {"a": 1, "b": {"c": "d", "e": [2, {"f": []}]}}}
    record = single(driver, "RETURN " + ", ".join(f"${k} AS {k}" for k in params), **params)
    for key, sent in params.items():
        assert record[key] == sent, f"{key}: sent {sent!r}, got {record[key]!r}"


@scenario("temporal values round trip")
def temporal(driver):
    params = {
        "date": Date(2015, 7, 21),
        "lt": Time(21, 40, 32, 142000000),
        "ldt": DateTime(2015, 7, 21, 21, 40, 32, 142000000),
        "odt": DateTime(2015, 7, 21, 21, 40, 32, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=-5))),
        "dur": Duration(months=14, days=3, seconds=14706, nanoseconds=500000000),
    }
    record = single(driver, "RETURN $date AS date, $lt AS lt, $ldt AS ldt, $odt AS odt, $dur AS dur, "
                    "toString(datetime({year: 2015, month: 1, day: 21, hour: 12, timezone: 'Europe/Stockholm'})) "
                    "AS zdtText, $date + duration('P1D') AS next", **params)
    for key, sent in params.items():
        assert record[key] == sent, f"{key}: sent {sent!r}, got {record[key]!r}"
    assert record["zdtText"] == "2015-01-21T12:00:00+01:00[Europe/Stockholm]", record["zdtText"]
    assert record["next"] == Date(2015, 7, 22), record["next"]
    offset_time = single(driver, "RETURN time('21:40:32+01:00') AS t")["t"]
    assert (offset_time.hour, offset_time.utc_offset()) == (21, datetime.timedelta(hours=1)), offset_time


@scenario("spatial values round trip")
def spatial(driver):
    params = {"c": CartesianPoint((1.0, 2.5)), "c3": CartesianPoint((1.0, 2.0, 3.0)),
              "g": WGS84Point((12.994341, 55.611784)), "g3": WGS84Point((12.5, 56.25, 100.0))}
    record = single(driver, "RETURN $c AS c, $c3 AS c3, $g AS g, $g3 AS g3, "
                    "point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})) AS d, $g.crs AS crs", **params)
    for key, sent in params.items():
        got = record[key]
        assert got == sent and got.srid == sent.srid, f"{key}: sent {sent!r}, got {got!r}"
    assert record["d"] == 5.0 and record["crs"] == "wgs-84", (record["d"], record["crs"])


@scenario("nodes, relationships and paths")
def graph(driver):
    driver.execute_query("CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})")
    record = single(driver, "MATCH p = (a:Person)-[k:KNOWS]->(b) RETURN a, k, b, p")
    a, k, b, p = record["a"], record["k"], record["b"], record["p"]
    assert isinstance(a, Node) and isinstance(k, Relationship) and isinstance(p, Path)
    assert a.labels == {"Person"} and a["age"] == 42, a
    assert k.type == "KNOWS" and k.start_node.element_id == a.element_id and k.end_node.element_id == b.element_id
    assert len(p) == 1 and p.start_node.element_id == a.element_id and p.end_node.element_id == b.element_id


@scenario("bookmarks across sessions")
def bookmarks(driver):
    with driver.session() as writer:
        writer.execute_write(lambda tx: tx.run("CREATE (:Bookmarked {v: 1})").consume())
        seen = writer.last_bookmarks()
    assert seen, "a write commit returns a bookmark"
    with driver.session(bookmarks=seen, default_access_mode=neo4j.READ_ACCESS) as reader:
        assert reader.run("MATCH (b:Bookmarked) RETURN count(b) AS c").single()["c"] == 1


@scenario("neo4j:// routing")
def routing(driver):
    with GraphDatabase.driver(URI.replace("bolt://", "neo4j://", 1), auth=AUTH) as routed:
        routed.verify_connectivity()
        routed.execute_query("CREATE (:Routed {v: 1})", routing_=neo4j.RoutingControl.WRITE)
        records, _, _ = routed.execute_query("MATCH (r:Routed) RETURN count(r) AS c",
                                             routing_=neo4j.RoutingControl.READ)
        assert records[0]["c"] == 1


@scenario("indexes and constraints: DDL, SHOW and counters")
def schema_ddl(driver):
    # Issue 23. The graph is emptied before each scenario, the schema is
    # not: drop what this scenario creates first (one server serves every
    # client). Only what Neo4j Community has (range and text indexes,
    # uniqueness constraints), so the reference server answers too.
    names = ["sc_name", "sc_text", "sc_rel", "sc_email"]
    for name in names:
        driver.execute_query(f"DROP CONSTRAINT {name} IF EXISTS")
        driver.execute_query(f"DROP INDEX {name} IF EXISTS")

    def counters(query, **params):
        _, summary, keys = driver.execute_query(query, params)
        assert keys == [], (query, keys)
        assert summary.query_type == "s", (query, summary.query_type)
        c = summary.counters
        return (c.indexes_added, c.indexes_removed, c.constraints_added, c.constraints_removed)

    def code_of(query, **params):
        try:
            driver.execute_query(query, params)
        except Neo4jError as e:
            return e.code
        raise AssertionError(f"{query}: no error")

    assert counters("CREATE INDEX sc_name FOR (n:ScPerson) ON (n.name)") == (1, 0, 0, 0)
    assert counters("CREATE INDEX sc_name IF NOT EXISTS FOR (n:ScPerson) ON (n.name)") == (0, 0, 0, 0)
    assert counters("CREATE TEXT INDEX $n FOR (n:ScPerson) ON (n.bio)", n="sc_text") == (1, 0, 0, 0)
    assert counters("CREATE INDEX sc_rel FOR ()-[r:SC_KNOWS]->() ON (r.since, r.w)") == (1, 0, 0, 0)
    assert counters("CREATE CONSTRAINT sc_email FOR (n:ScUser) REQUIRE n.email IS UNIQUE") == (0, 0, 1, 0)
    driver.execute_query("CALL db.awaitIndexes(60)")

    records, summary, keys = driver.execute_query(
        "SHOW INDEXES YIELD name, state, populationPercent, type, entityType, labelsOrTypes, "
        "properties, indexProvider, owningConstraint, options, failureMessage, createStatement "
        "WHERE name STARTS WITH 'sc_' RETURN * ORDER BY name")
    assert summary.query_type == "r"
    got = [r.data() for r in records]
    want = [
        ("sc_email", "RANGE", "NODE", ["ScUser"], ["email"], "range-1.0", "sc_email",
         "CREATE CONSTRAINT `sc_email` FOR (n:`ScUser`) REQUIRE (n.`email`) IS UNIQUE"),
        ("sc_name", "RANGE", "NODE", ["ScPerson"], ["name"], "range-1.0", None,
         "CREATE RANGE INDEX `sc_name` FOR (n:`ScPerson`) ON (n.`name`)"),
        ("sc_rel", "RANGE", "RELATIONSHIP", ["SC_KNOWS"], ["since", "w"], "range-1.0", None,
         "CREATE RANGE INDEX `sc_rel` FOR ()-[r:`SC_KNOWS`]-() ON (r.`since`, r.`w`)"),
        ("sc_text", "TEXT", "NODE", ["ScPerson"], ["bio"], "text-2.0", None,
         "CREATE TEXT INDEX `sc_text` FOR (n:`ScPerson`) ON (n.`bio`)"),
    ]
    assert len(got) == len(want), got
    for row, (name, kind, entity, labels, props, provider, owner, create) in zip(got, want):
        assert row == {
            "name": name, "state": "ONLINE", "populationPercent": 100.0, "type": kind,
            "entityType": entity, "labelsOrTypes": labels, "properties": props,
            "indexProvider": provider, "owningConstraint": owner,
            "options": {"indexConfig": {}, "indexProvider": provider}, "failureMessage": "",
            "createStatement": create,
        }, row
    _, _, keys = driver.execute_query("SHOW INDEXES")
    assert keys == ["id", "name", "state", "populationPercent", "type", "entityType",
                    "labelsOrTypes", "properties", "indexProvider", "owningConstraint",
                    "lastRead", "readCount"], keys
    lookups, _, _ = driver.execute_query(
        "SHOW LOOKUP INDEXES YIELD name, entityType, createStatement RETURN * ORDER BY name")
    assert [r.data() for r in lookups] == [
        {"name": "index_343aff4e", "entityType": "NODE",
         "createStatement": "CREATE LOOKUP INDEX `index_343aff4e` FOR (n) ON EACH labels(n)"},
        {"name": "index_f7700477", "entityType": "RELATIONSHIP",
         "createStatement": "CREATE LOOKUP INDEX `index_f7700477` FOR ()-[r]-() ON EACH type(r)"},
    ]
    # An ordered YIELD: ORDER BY, SKIP, LIMIT, then WHERE and RETURN.
    ordered, _, keys = driver.execute_query(
        "SHOW INDEXES YIELD name, type ORDER BY name DESC SKIP 1 LIMIT 2 WHERE name STARTS WITH 'sc_'")
    assert keys == ["name", "type"], keys
    assert [r.data() for r in ordered] == [
        {"name": "sc_rel", "type": "RANGE"}, {"name": "sc_name", "type": "RANGE"}], ordered
    # A hint naming a missing index: a warning, and the query runs.
    driver.execute_query("CREATE (:ScPerson {name: 'h'})")
    hinted, summary, _ = driver.execute_query(
        "MATCH (n:ScPerson) USING INDEX n:ScPerson(nick) WHERE n.nick = 'x' OR n.name = 'h' "
        "RETURN n.name AS name")
    assert [r["name"] for r in hinted] == ["h"], hinted
    assert [s.status_description for s in summary.gql_status_objects if s.gql_status == "01N31"] == [
        "warn: hinted index does not exist. Unable to create a plan with 'INDEX :ScPerson(nick)' "
        "because the index does not exist."], summary.gql_status_objects
    records, _, keys = driver.execute_query("SHOW CONSTRAINTS YIELD * WHERE name = 'sc_email'")
    assert keys == ["id", "name", "type", "entityType", "labelsOrTypes", "properties",
                    "ownedIndex", "propertyType", "options", "createStatement"], keys
    row = records[0].data()
    del row["id"]
    assert row == {
        "name": "sc_email", "type": "UNIQUENESS", "entityType": "NODE", "labelsOrTypes": ["ScUser"],
        "properties": ["email"], "ownedIndex": "sc_email", "propertyType": None,
        "options": {"indexConfig": {}, "indexProvider": "range-1.0"},
        "createStatement": "CREATE CONSTRAINT `sc_email` FOR (n:`ScUser`) REQUIRE (n.`email`) IS UNIQUE",
    }, row

    assert code_of("CREATE INDEX sc_name FOR (n:ScPerson) ON (n.name)") == \
        "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
    assert code_of("CREATE INDEX sc_other FOR (n:ScPerson) ON (n.name)") == \
        "Neo.ClientError.Schema.IndexAlreadyExists"
    assert code_of("CREATE INDEX sc_name FOR (n:ScPerson) ON (n.age)") == \
        "Neo.ClientError.Schema.IndexWithNameAlreadyExists"
    assert code_of("CREATE INDEX FOR (n:ScUser) ON (n.email)") == \
        "Neo.ClientError.Schema.ConstraintAlreadyExists"
    assert code_of("DROP INDEX sc_email") == "Neo.DatabaseError.Schema.IndexDropFailed"
    assert code_of("DROP INDEX sc_missing") == "Neo.DatabaseError.Schema.IndexDropFailed"
    assert code_of("DROP CONSTRAINT sc_missing") == "Neo.DatabaseError.Schema.ConstraintDropFailed"
    assert code_of("CALL db.awaitIndex('sc_missing', 1)") == "Neo.ClientError.Schema.IndexNotFound"
    assert code_of("CREATE INDEX ON :ScPerson(name)") == "Neo.ClientError.Statement.SyntaxError"

    driver.execute_query("CREATE (:ScUser {email: 'a@x'})")
    assert code_of("CREATE (:ScUser {email: 'a@x'})") == \
        "Neo.ClientError.Schema.ConstraintValidationFailed"
    driver.execute_query("CREATE (:ScDup {k: 1}), (:ScDup {k: 1})")
    assert code_of("CREATE CONSTRAINT sc_dup FOR (n:ScDup) REQUIRE n.k IS UNIQUE") == \
        "Neo.DatabaseError.Schema.ConstraintCreationFailed"

    with driver.session() as session:
        tx = session.begin_transaction()
        try:
            tx.run("CREATE (:ScTx)").consume()
            tx.run("CREATE INDEX sc_tx FOR (n:ScTx) ON (n.p)").consume()
            raise AssertionError("schema change after a write was accepted")
        except Neo4jError as e:
            assert e.code == "Neo.ClientError.Transaction.ForbiddenDueToTransactionType", e.code
        finally:
            tx.close()

    assert counters("DROP INDEX sc_name") == (0, 1, 0, 0)
    assert counters("DROP INDEX sc_text") == (0, 1, 0, 0)
    assert counters("DROP INDEX sc_rel") == (0, 1, 0, 0)
    assert counters("DROP CONSTRAINT sc_email") == (0, 0, 0, 1)
    assert counters("DROP CONSTRAINT sc_email IF EXISTS") == (0, 0, 0, 0)
    records, _, _ = driver.execute_query("SHOW INDEXES YIELD name WHERE name STARTS WITH 'sc_'")
    assert records == [], records


@scenario("TLS (bolt+ssc, self-signed certificate)")
def tls(driver):
    tls_uri = os.environ.get("SCENARIO_TLS_URI")
    if not tls_uri:
        raise Skip("no TLS listener given (SCENARIO_TLS_URI)")
    with GraphDatabase.driver(tls_uri, auth=AUTH) as secure:
        assert single(secure, "RETURN 1 AS x")["x"] == 1


def main():
    counts = {"ok": 0, "FAIL": 0, "skip": 0}
    with GraphDatabase.driver(URI, auth=AUTH) as driver:
        for name, body in SCENARIOS:
            try:
                # Every scenario starts from an empty graph, so one server (the
                # reference Neo4j of tests/sidebyside) serves every client.
                driver.execute_query("MATCH (n) DETACH DELETE n")
                note = body(driver)
                counts["ok"] += 1
                print(f"ok   {name}" + (f" -- {note}" if note else ""), flush=True)
            except Skip as reason:
                counts["skip"] += 1
                print(f"skip {name}: {reason}", flush=True)
            except Exception as e:  # noqa: BLE001 -- any failure is reported, then the next scenario runs
                counts["FAIL"] += 1
                print(f"FAIL {name}: {type(e).__name__}: {str(e)[:300]!r}", flush=True)
    print(f"{counts['ok']} passed, {counts['FAIL']} failed, {counts['skip']} skipped")
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
