"""Runaway and stuck queries (hardening item 4): a query whose client
leaves or RESETs stops, a client that does not read holds no execution
thread, and a short query is answered while long ones run on every
thread."""

import os
import threading
import time

from neo4j import GraphDatabase

import bolt_raw
from conftest import ANSWER_BOUND_S, assert_alive, commit_marker

# Cartesian products over this many nodes: long enough to outlast a test
# many times over (a billion rows), cheap to set up.
NODES = 1000
LONG_QUERY = "MATCH (a), (b), (c) RETURN count(*) AS n"
# Rows that take far longer to produce than the test waits.
BIG_RESULT = "MATCH (a), (b), (c) RETURN a.i AS x, b.i AS y"


def cpu_seconds(pid):
    """User plus system CPU time the process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def cpu_share(pid, seconds=1.0):
    """Cores' worth of CPU the process uses over `seconds`."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


def wait_idle(pid, bound=5.0):
    """The CPU share once the server had `bound` seconds to calm down
    (the share is sampled until it is low or the bound has passed)."""
    deadline = time.monotonic() + bound
    share = cpu_share(pid, 0.5)
    while share > 0.2 and time.monotonic() < deadline:
        share = cpu_share(pid, 0.5)
    return share


def populate(driver):
    driver.execute_query("UNWIND range(1, $n) AS i CREATE (:N {i: i})", n=NODES)
    return commit_marker(driver)


def start_long(server, query=LONG_QUERY, n=-1):
    # A small receive buffer: a client that never reads holds little in
    # the kernel, so the server reaches the point where it waits soon.
    sock = bolt_raw.login(server.bolt_port, rcvbuf=16 * 1024)
    # RUN's SUCCESS is flushed with the PULL's first output (pipelined
    # requests are answered in one write): nothing to read yet.
    sock.sendall(bolt_raw.run(query) + bolt_raw.pull(n))
    return sock


def test_a_client_that_leaves_stops_its_query(server, driver):
    committed = populate(driver)
    sock = start_long(server)
    time.sleep(0.5)
    assert cpu_share(server.proc.pid, 0.5) > 0.5, "the query should be running"
    sock.close()
    assert wait_idle(server.proc.pid) < 0.2, "the query kept running after its client left"
    assert_alive(server, committed)


def test_reset_stops_a_running_query_at_once(server, driver):
    committed = populate(driver)
    sock = start_long(server)
    time.sleep(0.5)
    started = time.monotonic()
    sock.sendall(bolt_raw.reset())
    assert bolt_raw.tag(bolt_raw.read_message(sock)) == bolt_raw.SUCCESS  # the RUN
    assert bolt_raw.tag(bolt_raw.read_message(sock)) == bolt_raw.IGNORED  # the PULL
    assert bolt_raw.tag(bolt_raw.read_message(sock)) == bolt_raw.SUCCESS  # the RESET
    assert time.monotonic() - started < ANSWER_BOUND_S
    assert wait_idle(server.proc.pid) < 0.2
    # The session goes on after the RESET.
    sock.sendall(bolt_raw.run("RETURN 1 AS one") + bolt_raw.pull())
    tags = [bolt_raw.tag(bolt_raw.read_message(sock)) for _ in range(3)]
    assert tags == [bolt_raw.SUCCESS, bolt_raw.RECORD, bolt_raw.SUCCESS]
    sock.close()
    assert_alive(server, committed)


def test_short_queries_are_answered_beside_long_and_stuck_ones(server, driver):
    committed = populate(driver)
    # Long queries on every execution thread and more (2 x 2 cores), and
    # two clients that asked for a huge result and never read it.
    long_ones = [start_long(server) for _ in range(4)]
    stuck = [start_long(server, BIG_RESULT) for _ in range(2)]
    time.sleep(1.0)
    with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as other:
        for _ in range(10):
            started = time.monotonic()
            records, _, _ = other.execute_query("RETURN 1 AS one")
            took = time.monotonic() - started
            assert records[0]["one"] == 1
            assert took < ANSWER_BOUND_S, f"RETURN 1 took {took:.2f} s beside long queries"
    for sock in long_ones + stuck:
        sock.close()
    assert wait_idle(server.proc.pid) < 0.2
    assert_alive(server, committed)


def test_a_stuck_reader_holds_no_execution_thread(server, driver):
    committed = populate(driver)
    # More stuck readers than execution threads: each asked for rows it
    # never reads.
    stuck = [start_long(server, BIG_RESULT) for _ in range(6)]
    time.sleep(1.0)
    # Their queries are parked: the server idles while they wait (after
    # filling the sockets' buffers, slowly in a debug build).
    assert wait_idle(server.proc.pid, bound=30.0) < 0.2
    results = []

    def ask():
        with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as other:
            results.append(other.execute_query("MATCH (n:N) RETURN count(n) AS c").records[0]["c"])

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=ANSWER_BOUND_S * 4)
    assert results == [NODES] * 4
    for sock in stuck:
        sock.close()
    assert_alive(server, committed)


def test_a_long_loop_inside_one_expression_stops_when_its_client_leaves(server, driver):
    committed = commit_marker(driver)
    # One row, one expression: a reduce whose every step builds and sums a
    # list of 100,000 values (minutes of work between two batches; a
    # growing nested accumulator no longer is, since a list's footprint is
    # counted once).
    sock = start_long(server, "RETURN reduce(a = 0, x IN range(1, 100000) | "
                              "a + size([y IN range(1, 100000) WHERE y % 7 = x % 7])) AS n")
    time.sleep(0.5)
    assert cpu_share(server.proc.pid, 0.5) > 0.5, "the query should be running"
    sock.close()
    assert wait_idle(server.proc.pid) < 0.2, "the loop kept running after its client left"
    assert_alive(server, committed)
