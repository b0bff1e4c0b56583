"""Authentication abuse (issue 30, item 8): a flood of wrong passwords from
rotating source addresses must not eat the CPU that queries need, the
password must be settable without showing in `ps`, and the unauthenticated
admin endpoint must refuse cross-origin requests and name no paths."""

import json
import os
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest
from neo4j import GraphDatabase

import bolt_raw
from conftest import HostileServer, assert_alive, commit_marker

# assert_alive logs in with this password, so the tests' user has it.
PASSWORD = "any-password"
HASH_RATE = 5


@pytest.fixture
def tmp():
    with tempfile.TemporaryDirectory(prefix="nereid-hostile-") as path:
        yield path


def start(tmp, args=(), env=None):
    srv = HostileServer(tmp, extra_args=args, extra_env=env)
    srv.start()
    return srv


def test_a_login_flood_from_many_addresses_is_bounded_server_wide(tmp):
    server = start(
        tmp,
        ["--auth-hash-rate", str(HASH_RATE), "--auth-hash-concurrency", "1"],
        {"NEREID_AUTH": f"neo4j/{PASSWORD}"},
    )
    try:
        with GraphDatabase.driver(server.uri, auth=("neo4j", PASSWORD)) as drv:
            committed = commit_marker(drv)
            outcomes = {"Unauthorized": 0, "AuthenticationRateLimit": 0, "other": 0}
            lock = threading.Lock()
            stop = time.monotonic() + 3.0

            def flood(worker):
                n = 0
                while time.monotonic() < stop:
                    # A fresh source address per attempt: the per-address
                    # lock-out never triggers.
                    n += 1
                    source = f"127.{10 + worker}.{n // 250 % 250}.{1 + n % 250}"
                    try:
                        sock = bolt_raw.connect(server.bolt_port, source=source)
                        sock.sendall(bolt_raw.hello() + bolt_raw.logon("neo4j", "wrong"))
                        bolt_raw.read_message(sock)
                        reply = bolt_raw.read_message(sock)
                        sock.close()
                    except (ConnectionError, OSError):
                        reply = b""
                    kind = next((k for k in outcomes if k.encode() in reply), "other")
                    with lock:
                        outcomes[kind] += 1

            # More clients at once than the queue admits (rate x 5 s wait).
            threads = [threading.Thread(target=flood, args=(w,)) for w in range(40)]
            started = time.monotonic()
            for t in threads:
                t.start()
            latencies = []
            while time.monotonic() < stop:
                t0 = time.monotonic()
                drv.execute_query("RETURN 1 AS one")
                latencies.append(time.monotonic() - t0)
                time.sleep(0.05)
            for t in threads:
                t.join(timeout=30)
            elapsed = time.monotonic() - started
            # Every hash was a wrong password: at most the rate over the
            # whole flood, plus the one-second burst.
            assert outcomes["Unauthorized"] <= HASH_RATE * elapsed + HASH_RATE + 2, outcomes
            assert outcomes["AuthenticationRateLimit"] > 0, outcomes
            median = statistics.median(latencies)
            print(f"login flood: {outcomes} in {elapsed:.1f} s; RETURN 1 median {median * 1000:.0f} ms")
            assert median < 0.5, f"RETURN 1 median {median:.3f} s under the flood ({outcomes})"
        assert_alive(server, committed)
    finally:
        server.stop()


def test_the_password_can_come_from_a_file_not_the_command_line(tmp):
    secret_file = os.path.join(tmp, "auth")
    with open(secret_file, "w") as f:
        f.write(f"neo4j/{PASSWORD}\n")
    server = start(tmp, ["--auth-file", secret_file])
    try:
        with open(f"/proc/{server.proc.pid}/cmdline", "rb") as f:
            cmdline = f.read()
        assert PASSWORD.encode() not in cmdline
        with GraphDatabase.driver(server.uri, auth=("neo4j", "not-it")) as drv:
            with pytest.raises(Exception) as refused:
                drv.execute_query("RETURN 1")
            assert "Unauthorized" in str(refused.value) or "authentication" in str(refused.value).lower()
        assert_alive(server)
    finally:
        server.stop()


def post(server, headers):
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.http_port}/admin/checkpoint",
        method="POST",
        data=b"x",
        headers={"Content-Type": "text/plain", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_admin_endpoint_refuses_cross_origin_posts_and_names_no_path(server, driver):
    committed = commit_marker(driver)
    for hostile in [
        {"Origin": "http://evil.example"},
        {"Origin": f"http://localhost.evil.example:{server.http_port}"},
        {"Sec-Fetch-Site": "cross-site"},
    ]:
        status, body = post(server, hostile)
        assert status == 403, (hostile, status, body)
    for allowed in [{}, {"Origin": f"http://127.0.0.1:{server.http_port}"}]:
        status, body = post(server, allowed)
        assert status == 200, (allowed, status, body)
        answer = json.loads(body)
        assert "dir" not in answer["checkpoint"], body
        assert server.data_dir not in body and os.path.basename(tmp_of(server)) not in body, body
    assert_alive(server, committed)


def tmp_of(server):
    return os.path.dirname(server.data_dir)
