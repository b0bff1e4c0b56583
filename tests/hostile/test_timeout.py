"""Transaction timeouts (issue 24, Executor / Limits): the driver's
`timeout` (Bolt `tx_timeout`) and the server's --transaction-timeout stop a
query that would run for hours with
Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration or
Neo.ClientError.Transaction.TransactionTimedOut, roll its transaction back,
and leave the session, the driver and other sessions working.

Bounds are generous (a debug build on a loaded 2-core machine): the point
is that the query ends, not how fast."""

import threading
import time

import pytest
from neo4j import Query
from neo4j.exceptions import Neo4jError

from conftest import assert_alive, commit_marker, connected, running

CLIENT_TIMEOUT = "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"
SERVER_TIMEOUT = "Neo.ClientError.Transaction.TransactionTimedOut"
# A cartesian product of three scans over this many nodes: 27 billion rows,
# hours of work for any build.
NODES = 3000
ENDLESS = "MATCH (a), (b), (c) RETURN count(*) AS n"
# The longest a query past a 0.5 s timeout may take to stop here.
ENDS_WITHIN_S = 30.0


def populate(drv):
    drv.execute_query("UNWIND range(1, $n) AS i CREATE (:N {i: i})", n=NODES)
    return commit_marker(drv)


def timed_out(server, run):
    """Calls `run`, which must fail with a Neo4j error within ENDS_WITHIN_S,
    and returns the error. It runs on a thread: a query that does not stop
    gets its server killed (which ends the call) and fails the test instead
    of hanging it."""
    outcome = {}

    def call():
        try:
            run()
            outcome["error"] = None
        except Exception as error:  # noqa: BLE001 - reported below
            outcome["error"] = error

    started = time.monotonic()
    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(ENDS_WITHIN_S)
    took = time.monotonic() - started
    if worker.is_alive():
        server.proc.kill()
        worker.join()
        raise AssertionError(f"the query still ran after {took:.0f} s")
    error = outcome["error"]
    assert error is not None, "the query succeeded"
    assert isinstance(error, Neo4jError), f"not a server failure: {error!r}"
    return error


def test_the_drivers_timeout_stops_an_auto_commit_query(server, driver):
    committed = populate(driver)
    with driver.session() as session:
        error = timed_out(server, lambda: session.run(Query(ENDLESS, timeout=0.5)).consume())
        assert error.code == CLIENT_TIMEOUT, error
        # The same session (after the driver's RESET) goes on.
        assert session.run("RETURN 1 AS one").single()["one"] == 1
    # And so does the driver's pool.
    records, _, _ = driver.execute_query("MATCH (n:N) RETURN count(n) AS c")
    assert records[0]["c"] == NODES
    assert_alive(server, committed)


@pytest.mark.parametrize(
    "pause_s, second",
    [
        # The second statement starts after the deadline.
        (1.5, "RETURN 1 AS one"),
        # The second statement runs when the deadline passes.
        (0.0, ENDLESS),
    ],
    ids=["starts-late", "runs-past"],
)
def test_an_explicit_transaction_fails_past_its_deadline(server, driver, pause_s, second):
    committed = populate(driver)
    with driver.session() as session:
        tx = session.begin_transaction(timeout=0.5)
        tx.run("CREATE (:Late)").consume()
        time.sleep(pause_s)
        error = timed_out(server, lambda: tx.run(second).consume())
        assert error.code == CLIENT_TIMEOUT, error
        tx.close()
        assert session.run("RETURN 1 AS one").single()["one"] == 1
        # The first statement's write was rolled back with the transaction.
        assert session.run("MATCH (n:Late) RETURN count(n) AS c").single()["c"] == 0
    assert_alive(server, committed)


def test_the_servers_default_applies_without_a_driver_timeout():
    with running(["--transaction-timeout", "500ms"]) as srv, connected(srv) as drv:
        committed = populate(drv)
        with drv.session() as session:
            error = timed_out(srv, lambda: session.run(ENDLESS).consume())
            assert error.code == SERVER_TIMEOUT, error
            assert "--transaction-timeout" in error.message
            assert session.run("RETURN 1 AS one").single()["one"] == 1
        assert_alive(srv, committed)


def test_other_sessions_run_normally_meanwhile(server, driver):
    committed = populate(driver)
    outcome = {}

    def long_one():
        with driver.session() as session:
            try:
                session.run(Query(ENDLESS, timeout=3.0)).consume()
                outcome["error"] = None
            except Neo4jError as error:
                outcome["error"] = error

    worker = threading.Thread(target=long_one)
    worker.start()
    try:
        time.sleep(0.3)  # the long query is running
        answers = 0
        while worker.is_alive() and answers < 20:
            with driver.session() as session:
                count = session.run("MATCH (n:N) RETURN count(n) AS c").single()["c"]
            assert count == NODES
            answers += 1
        assert answers > 0
    finally:
        worker.join(ENDS_WITHIN_S + 3.0)
    assert not worker.is_alive(), "the long query did not stop at its deadline"
    assert outcome["error"] is not None and outcome["error"].code == CLIENT_TIMEOUT
    assert_alive(server, committed)



# A path this long makes closeness from every node about 10^11 steps.
PATH_NODES = 20000
ENDLESS_ALGORITHM = ("CALL neptune.algo.closenessCentrality({numSources: $n, edgeLabels: ['NEXT']}) "
                     "YIELD node, score RETURN count(*) AS n")


def test_the_drivers_timeout_stops_a_graph_algorithm_between_rounds(server, driver):
    driver.execute_query("UNWIND range(1, $n) AS i CREATE (:P {i: i})", n=PATH_NODES)
    driver.execute_query("MATCH (p:P) WITH p ORDER BY p.i WITH collect(p) AS ps "
                         "UNWIND range(0, size(ps) - 2) AS k WITH ps[k] AS a, ps[k + 1] AS b "
                         "CREATE (a)-[:NEXT]->(b)")
    committed = commit_marker(driver)
    with driver.session() as session:
        query = Query(ENDLESS_ALGORITHM, timeout=0.5)
        error = timed_out(server, lambda: session.run(query, n=PATH_NODES).consume())
        assert error.code == CLIENT_TIMEOUT, error
        assert session.run("RETURN 1 AS one").single()["one"] == 1
        # The mutate variant stops the same way and writes nothing.
        mutate = Query("CALL neptune.algo.closenessCentrality.mutate({numSources: $n, "
                       "edgeLabels: ['NEXT'], writeProperty: 'c'}) YIELD success RETURN success",
                       timeout=0.5)
        error = timed_out(server, lambda: session.run(mutate, n=PATH_NODES).consume())
        assert error.code == CLIENT_TIMEOUT, error
        written = session.run("MATCH (p:P) WHERE p.c IS NOT NULL RETURN count(p) AS c").single()["c"]
        assert written == 0
    assert_alive(server, committed)
