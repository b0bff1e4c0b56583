"""The query log (issue 29): `--query-log FILE` appends one line per finished query in the shape of
Neo4j's query.log (time, level, query and transaction ids, elapsed ms, rows, client, user, text,
parameters, transaction metadata, and a failure's status); `--slow-query-ms` keeps only slow ones;
`--query-log-redact` writes parameter names without their values."""

import os

import pytest
from neo4j import GraphDatabase, Query
from neo4j.exceptions import ClientError

from conftest import Server


def run_server(tmp_path, *args):
    server = Server(str(tmp_path / "data"), extra_args=args)
    server.start()
    return server


def lines(path):
    with open(path) as f:
        return f.read().splitlines()


def test_every_query_is_logged_with_its_context(tmp_path):
    log = tmp_path / "query.log"
    server = run_server(tmp_path, "--query-log", str(log))
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as driver:
            with driver.session() as session:
                session.run(Query("UNWIND range(1, $n) AS i RETURN i", metadata={"app": "logged"}),
                            n=3).consume()
                with pytest.raises(ClientError):
                    session.run("RETURN 1 +").consume()
                with pytest.raises(ClientError):
                    session.run("UNWIND [1, 0] AS x RETURN 1 / x").consume()
    finally:
        server.stop()
    logged = lines(log)
    ok = [l for l in logged if "UNWIND range" in l]
    assert len(ok) == 1
    assert " INFO  id:query-" in ok[0] and "transaction id:neo4j-transaction-" in ok[0]
    assert " 3 rows - bolt\tbolt-" in ok[0]
    assert ok[0].endswith(" - UNWIND range(1, $n) AS i RETURN i - {n: 3} - {app: 'logged'}")
    syntax = [l for l in logged if "RETURN 1 +" in l]
    assert len(syntax) == 1 and " ERROR id:- " in syntax[0]
    assert syntax[0].split(" - ")[-1].startswith("Neo.ClientError.Statement.SyntaxError: ")
    divided = [l for l in logged if "1 / x" in l]
    assert len(divided) == 1 and "Neo.ClientError.Statement.ArithmeticError" in divided[0]


def test_slow_threshold_and_redaction(tmp_path):
    log = tmp_path / "slow.log"
    server = run_server(tmp_path, "--query-log", str(log), "--slow-query-ms", "60000",
                        "--query-log-redact")
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as driver:
            driver.execute_query("RETURN $secret AS s", secret="hunter2")
    finally:
        server.stop()
    assert not os.path.exists(log) or lines(log) == []

    log = tmp_path / "redacted.log"
    server = run_server(tmp_path, "--query-log", str(log), "--query-log-redact")
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as driver:
            driver.execute_query("RETURN $secret AS s", secret="hunter2")
    finally:
        server.stop()
    logged = [l for l in lines(log) if "$secret" in l]
    assert len(logged) == 1 and " - {secret} - " in logged[0] and "hunter2" not in logged[0]
