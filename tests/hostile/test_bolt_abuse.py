"""Protocol abuse before authentication (issue 30, items 2 and 3): clients
that stream endless messages, hold slots with only the handshake, or stall
after HELLO. Each must cost only its own connection, closed, while other
sessions and committed data go on."""

import os
import tempfile
import threading
import time

import pytest

import bolt_raw
from conftest import HostileServer, assert_alive, commit_marker

# What the server may use beyond its idle footprint while the abuse runs;
# before the fix each streaming client alone held up to 64 MiB.
MEMORY_GROWTH_BOUND = 200 * 1024 * 1024


@pytest.fixture
def make_server():
    """A server with extra flags; stopped at the end of the test."""
    started = []
    tmp = tempfile.TemporaryDirectory(prefix="nereid-hostile-")

    def make(*args):
        srv = HostileServer(os.path.join(tmp.name, str(len(started))), extra_args=args)
        os.makedirs(os.path.join(tmp.name, str(len(started))), exist_ok=True)
        started.append(srv)
        srv.start()
        return srv

    yield make
    for srv in started:
        srv.stop()
    tmp.cleanup()


def test_unterminated_messages_before_logon_are_cut_off(server, driver):
    committed = commit_marker(driver)
    before = server.cgroup.usage()
    results = []

    def abuse():
        sock = bolt_raw.connect(server.bolt_port)
        sent = bolt_raw.stream_unterminated(sock, 60 * 1024 * 1024)
        results.append((sent, bolt_raw.is_closed(sock)))
        sock.close()

    threads = [threading.Thread(target=abuse) for _ in range(8)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(results) == 8
    for sent, closed in results:
        assert closed, "the server kept the connection"
        # The kernel's socket buffers take a few MiB; the server stops
        # reading after 64 KiB.
        assert sent < 16 * 1024 * 1024, f"the server took {sent} bytes"
    assert time.monotonic() - started < 30
    if server.cgroup.path is not None:
        assert server.cgroup.usage() - before < MEMORY_GROWTH_BOUND
    assert_alive(server, committed)


def test_the_buffer_budget_bounds_logged_in_clients_together(make_server):
    server = make_server(
        "--bolt-max-message-bytes", str(4 * 1024 * 1024),
        "--bolt-max-buffered-bytes", str(8 * 1024 * 1024),
    )
    socks = []
    outcomes = []
    for _ in range(4):
        sock = bolt_raw.connect(server.bolt_port)
        sock.sendall(bolt_raw.hello() + bolt_raw.logon("neo4j", "any"))
        bolt_raw.read_message(sock)
        bolt_raw.read_message(sock)
        socks.append(sock)
    # 3 MiB each, under the message limit: the third does not fit in 8 MiB.
    for sock in socks:
        bolt_raw.stream_unterminated(sock, 3 * 1024 * 1024)
        time.sleep(0.3)
    for sock in socks:
        outcomes.append(bolt_raw.is_closed(sock, timeout=1.0))
    assert outcomes[:2] == [False, False], outcomes
    assert all(outcomes[2:]), outcomes
    for sock in socks:
        sock.close()
    assert_alive(server)


def test_stalled_logins_are_closed_at_the_handshake_timeout(make_server):
    server = make_server("--bolt-handshake-timeout-ms", "1000")
    handshake_only = [bolt_raw.connect(server.bolt_port) for _ in range(10)]
    after_hello = []
    for _ in range(10):
        sock = bolt_raw.connect(server.bolt_port)
        sock.sendall(bolt_raw.hello())
        bolt_raw.read_message(sock)
        after_hello.append(sock)
    started = time.monotonic()
    for sock in handshake_only + after_hello:
        assert bolt_raw.is_closed(sock, timeout=5.0), "an unauthenticated client was kept"
        sock.close()
    assert time.monotonic() - started < 5
    assert_alive(server)


def test_handshake_floods_leave_room_for_logins(make_server):
    # 20 slots, 4 reserved: handshake-only clients hold at most 16 at once,
    # and each new one displaces the oldest.
    server = make_server("--bolt-max-connections", "20", "--bolt-reserved-connections", "4")
    from neo4j import GraphDatabase

    with GraphDatabase.driver(server.uri, auth=("neo4j", "any")) as drv:
        committed = commit_marker(drv)
        flood = [bolt_raw.connect(server.bolt_port) for _ in range(60)]
        # The pooled, authenticated connection still works.
        records, _, _ = drv.execute_query("RETURN 1 AS one")
        assert records[0]["one"] == 1
        # New logins get in despite the flood (assert_alive makes one).
        assert_alive(server, committed)
        closed = sum(bolt_raw.is_closed(sock, timeout=0.5) for sock in flood[:40])
        assert closed == 40, f"only {closed} of the oldest 40 were displaced"
        for sock in flood:
            sock.close()
