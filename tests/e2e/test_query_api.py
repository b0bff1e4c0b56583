"""Neo4j's HTTP Query API (issue 29): `POST /db/neo4j/query/v2` and explicit transactions under
`/query/v2/tx`, in the shapes the reference Neo4j 5.26's own Query API answers with (recorded
from it: plain and typed JSON values, entities, temporals, points, counters, errors before and
after rows, 404/415/406 refusals, transaction ids that vanish after commit, rollback or a failed
statement), behind the Bolt users' credentials."""

import base64
import json
import urllib.error
import urllib.request

import pytest

TYPED = "application/vnd.neo4j.query"


def post(server, path, body=None, accept="application/json", content_type="application/json",
         method="POST", user=None):
    """(HTTP status, JSON answer or None) of one request."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    headers = {"Content-Type": content_type, "Accept": accept}
    if user:
        headers["Authorization"] = "Basic " + base64.b64encode(user.encode()).decode()
    request = urllib.request.Request(f"http://127.0.0.1:{server.http_port}{path}", data=data,
                                     headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        text = e.read()
        return e.code, json.loads(text) if text else None


def query(server, statement, **options):
    return post(server, "/db/neo4j/query/v2", {"statement": statement, **options})


def test_values_in_plain_json(server):
    code, answer = query(
        server,
        "CREATE p = (a:P {name: 'A', n: 1})-[r:K {w: 2.5}]->(b:Q) RETURN a, r, p, "
        "date('2024-01-02') AS d, datetime('2024-01-01T21:40:32.5-01:00') AS dt, "
        "datetime({year: 2024, month: 1, day: 1, timezone: 'Europe/Paris'}) AS zdt, "
        "localdatetime('2024-01-01T10:00') AS ldt, time('10:00+01:00') AS t, "
        "localtime('10:00:01') AS lt, duration('P1Y2M3DT4H5M6.5S') AS du, point({x: 1, y: 2}) AS pt, "
        "point({latitude: 1.5, longitude: 2, height: 3}) AS pt3, 9007199254740993 AS big, "
        "1.0 / 3 AS f, 1.0 AS one, [1, 'a', null] AS l, {k: true} AS m, null AS nul")
    assert code == 202, answer
    data = answer["data"]
    assert data["fields"] == ["a", "r", "p", "d", "dt", "zdt", "ldt", "t", "lt", "du", "pt", "pt3",
                              "big", "f", "one", "l", "m", "nul"]
    a, r, p, *rest = data["values"][0]
    assert a == {"elementId": a["elementId"], "labels": ["P"], "properties": {"name": "A", "n": 1}}
    assert r == {"elementId": r["elementId"], "startNodeElementId": a["elementId"],
                 "endNodeElementId": r["endNodeElementId"], "type": "K", "properties": {"w": 2.5}}
    assert p[0] == a and p[1] == r and p[2]["labels"] == ["Q"] and len(p) == 3
    assert rest == ["2024-01-02", "2024-01-01T21:40:32.5-01:00", "2024-01-01T00:00:00+01:00",
                    "2024-01-01T10:00:00", "10:00:00+01:00", "10:00:01", "P1Y2M3DT4H5M6.5S",
                    "SRID=7203;POINT (1.0 2.0)", "SRID=4979;POINT Z (2.0 1.5 3.0)",
                    9007199254740993, 1 / 3, 1.0, [1, "a", None], {"k": True}, None]
    assert isinstance(rest[9], int) and isinstance(rest[11], float)
    assert len(answer["bookmarks"]) == 1


def test_values_and_parameters_in_typed_json(server):
    code, answer = post(
        server, "/db/neo4j/query/v2",
        {"statement": "CREATE (a:P {n: $n}) RETURN a, $d AS d, $p AS p, $x AS x, $l AS l, "
                      "datetime({year: 2024, month: 1, day: 1, timezone: 'Europe/Paris'}) AS zdt",
         "parameters": {"n": {"$type": "Integer", "_value": "5"},
                        "d": {"$type": "Date", "_value": "2024-01-02"},
                        "p": {"$type": "Point", "_value": "SRID=4326;POINT (1.5 2.5)"},
                        "x": {"$type": "Float", "_value": "1.0"},
                        "l": {"$type": "List", "_value": [{"$type": "String", "_value": "s"}]}}},
        accept=TYPED, content_type=TYPED)
    assert code == 202, answer
    a, d, p, x, l, zdt = answer["data"]["values"][0]
    assert a == {"$type": "Node", "_value": {"_element_id": a["_value"]["_element_id"],
                                             "_labels": ["P"],
                                             "_properties": {"n": {"$type": "Integer", "_value": "5"}}}}
    assert d == {"$type": "Date", "_value": "2024-01-02"}
    assert p == {"$type": "Point", "_value": "SRID=4326;POINT (1.5 2.5)"}
    assert x == {"$type": "Float", "_value": "1.0"}
    assert l == {"$type": "List", "_value": [{"$type": "String", "_value": "s"}]}
    assert zdt == {"$type": "ZonedDateTime", "_value": "2024-01-01T00:00:00+01:00[Europe/Paris]"}


def test_counters_notifications_and_plans(server):
    code, answer = query(server, "CREATE (n:X) SET n.a = 1 RETURN n.a AS a", includeCounters=True)
    assert code == 202
    counters = answer["counters"]
    assert (counters["nodesCreated"], counters["propertiesSet"], counters["labelsAdded"]) == (1, 1, 1)
    assert counters["containsUpdates"] is True
    code, answer = query(server, "MATCH (a), (b) RETURN count(*) AS c")
    assert answer["notifications"][0]["code"] == "Neo.ClientNotification.Statement.CartesianProduct"
    code, answer = query(server, "EXPLAIN MATCH (n:X) RETURN n")
    assert answer["data"]["values"] == [] and answer["queryPlan"]["operatorType"].startswith("Produce")
    code, answer = query(server, "PROFILE MATCH (n:X) RETURN n")
    plan = answer["profiledQueryPlan"]
    assert plan["records"] == 1 and "dbHits" in plan and "children" in plan


def test_errors_and_refusals(server):
    code, answer = query(server, "RETURN 1 +")
    assert code == 400 and answer["errors"][0]["code"] == "Neo.ClientError.Statement.SyntaxError"
    # A failure after rows: the rows before it and the error, with 202 as Neo4j answers.
    code, answer = query(server, "UNWIND [1, 0] AS x RETURN 1 / x AS y")
    assert code == 202 and answer["data"]["values"] == [[1]]
    assert answer["errors"][0]["code"] == "Neo.ClientError.Statement.ArithmeticError"
    code, answer = query(server, "RETURN nope AS x")
    assert code == 400 and answer["errors"][0]["code"] == "Neo.ClientError.Statement.SyntaxError"
    # A missing parameter fails before the statement runs, nothing written (400, as Neo4j).
    code, answer = query(server, "CREATE (:Missing) RETURN $p AS p, $q AS q", parameters={"q": 1})
    assert code == 400, answer
    assert answer["errors"][0]["code"] == "Neo.ClientError.Statement.ParameterMissing"
    assert "Expected parameter(s): p" in answer["errors"][0]["message"]
    assert query(server, "MATCH (n:Missing) RETURN count(n) AS c")[1]["data"]["values"] == [[0]]
    code, answer = query(server, "CREATE ()", accessMode="READ")
    assert code == 400 and answer["errors"][0]["code"] == "Neo.ClientError.Statement.AccessMode"
    assert query(server, "MATCH (n) RETURN count(n) AS c")[1]["data"]["values"] == [[0]]
    assert query(server, "RETURN 1 AS x", accessMode="READ")[0] == 202
    for body in ({"statment": "RETURN 1"}, b"{bad", {"statement": "RETURN 1", "foo": 1},
                 {"statement": "RETURN $x", "parameters": {"x": 12345678901234567890}}):
        code, answer = post(server, "/db/neo4j/query/v2", body)
        assert code == 400 and answer["errors"][0]["code"] == "Neo.ClientError.Request.Invalid", body
    # An oversized body: 413 in the API's error shape (64 MiB at most are read).
    code, answer = post(server, "/db/neo4j/query/v2",
                        {"statement": "RETURN size($x) AS n", "parameters": {"x": "a" * (65 << 20)}})
    assert code == 413 and answer["errors"][0]["code"] == "Neo.ClientError.Request.Invalid"
    code, answer = post(server, "/db/neo4j/query/v2",
                        {"statement": "RETURN size($x) AS n", "parameters": {"x": "a" * (3 << 20)}})
    assert code == 202 and answer["data"]["values"] == [[3 << 20]]
    code, answer = post(server, "/db/nope/query/v2", {"statement": "RETURN 1"})
    assert code == 404 and answer["errors"][0]["code"] == "Neo.ClientError.Database.DatabaseNotFound"
    assert post(server, "/db/neo4j/query/v2", {"statement": "RETURN 1"},
                content_type="text/plain")[0] == 415
    assert post(server, "/db/neo4j/query/v2", {"statement": "RETURN 1"}, accept="text/html")[0] == 406


def test_values_nested_past_the_bound_are_refused_not_fatal(server):
    """A value nested 20,000 levels deep overflowed the HTTP worker's stack
    (serde_json writes and drops recursively) and killed the server: past
    200 levels the Query API answers an ArgumentError instead; below, the
    value comes back whole, plain and typed."""
    nest = "RETURN reduce(f = 1, i IN range(1, $n) | {a: [f]}) AS f"
    code, answer = query(server, nest, parameters={"n": 100})
    assert code == 202, answer
    value = answer["data"]["values"][0][0]
    for _ in range(100):
        value = value["a"][0]
    assert value == 1
    code, answer = post(server, "/db/neo4j/query/v2", {"statement": nest, "parameters": {"n": 90}},
                        accept="application/vnd.neo4j.query")
    assert code == 202, answer
    code, answer = query(server, nest, parameters={"n": 3000})
    assert answer["errors"][0]["code"] == "Neo.ClientError.Statement.ArgumentError", answer
    assert "deeper than 200 levels" in answer["errors"][0]["message"]
    assert query(server, "RETURN 1 AS x")[1]["data"]["values"] == [[1]]


def test_explicit_transactions(server):
    tx = "/db/neo4j/query/v2/tx"
    code, answer = post(server, tx, {"statement": "CREATE (n:T) RETURN 1 AS one"})
    assert code == 202 and answer["data"]["values"] == [[1]]
    tx_id = answer["transaction"]["id"]
    assert answer["transaction"]["expires"].endswith("Z")
    code, answer = post(server, f"{tx}/{tx_id}", {"statement": "MATCH (n:T) RETURN count(n) AS c"})
    assert answer["data"]["values"] == [[1]]
    assert query(server, "MATCH (n:T) RETURN count(n) AS c")[1]["data"]["values"] == [[0]]
    code, answer = post(server, f"{tx}/{tx_id}/commit", {})
    assert code == 202 and len(answer["bookmarks"]) == 1
    assert query(server, "MATCH (n:T) RETURN count(n) AS c")[1]["data"]["values"] == [[1]]
    code, answer = post(server, f"{tx}/{tx_id}", {"statement": "RETURN 1"})
    assert code == 404 and answer["errors"][0]["code"] == "Neo.ClientError.Request.Invalid"

    # Rolled back with DELETE; a statement at commit runs before the commit.
    tx_id = post(server, tx, b"")[1]["transaction"]["id"]
    post(server, f"{tx}/{tx_id}", {"statement": "CREATE (:Gone)"})
    assert post(server, f"{tx}/{tx_id}", method="DELETE")[0] == 200
    assert query(server, "MATCH (n:Gone) RETURN count(n) AS c")[1]["data"]["values"] == [[0]]
    tx_id = post(server, tx, {})[1]["transaction"]["id"]
    code, answer = post(server, f"{tx}/{tx_id}/commit", {"statement": "CREATE (:Kept) RETURN 2 AS two"})
    assert code == 202 and answer["data"]["values"] == [[2]] and answer["bookmarks"]
    assert query(server, "MATCH (n:Kept) RETURN count(n) AS c")[1]["data"]["values"] == [[1]]

    # A failed statement ends the transaction, as in Neo4j.
    tx_id = post(server, tx, {"statement": "CREATE (:Failed)"})[1]["transaction"]["id"]
    code, answer = post(server, f"{tx}/{tx_id}", {"statement": "RETURN 1 / 0"})
    assert answer["errors"][0]["code"] == "Neo.ClientError.Statement.ArithmeticError"
    assert post(server, f"{tx}/{tx_id}/commit", {})[0] == 404
    assert query(server, "MATCH (n:Failed) RETURN count(n) AS c")[1]["data"]["values"] == [[0]]


def test_credentials_are_required_when_users_exist(secured):
    body = {"statement": "RETURN 1 AS x"}
    code, answer = post(secured, "/db/neo4j/query/v2", body)
    assert code == 401 and answer["errors"][0]["code"] == "Neo.ClientError.Security.Unauthorized"
    assert post(secured, "/db/neo4j/query/v2", body, user="neo4j:wrong")[0] == 401
    code, answer = post(secured, "/db/neo4j/query/v2", body, user="neo4j:s3cret-pw")
    assert code == 202 and answer["data"]["values"] == [[1]]
