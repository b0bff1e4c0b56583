"""A full disk, for real: the server's data directory on a 16 MiB tmpfs that a
file fills up (issue 30 item 6, docs/adr/0083-resuming-after-a-log-failure.md).

While the disk is full, writes fail with the non-transient
`Neo.DatabaseError.Transaction.TransactionCommitFailed`, reads go on,
`/health` answers 503 and a checkpoint fails without leaving temporary files.
Once the file is deleted, writes succeed again and `/health` is ok; after a
restart exactly the acknowledged writes are there, and no `.tmp` file."""

import errno
import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import DatabaseError

from conftest import HostileServer, assert_alive

COMMIT_FAILED = "Neo.DatabaseError.Transaction.TransactionCommitFailed"
AUTH = ("neo4j", "any-password")


@pytest.fixture
def small_disk():
    """A directory on a fresh 16 MiB tmpfs (skips when mounting is refused)."""
    tmp = tempfile.mkdtemp(prefix="nereid-disk-full-")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", tmp],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        os.rmdir(tmp)
        pytest.skip(f"cannot mount a tmpfs (needs root): {mounted.stderr.strip()}")
    try:
        yield tmp
    finally:
        subprocess.run(["umount", "-l", tmp], check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def start(disk, outside):
    """A server whose data directory is on `disk`; its own log goes to
    `outside`, so that the full disk does not swallow it."""
    srv = HostileServer(disk)
    srv.log_path = os.path.join(outside, "server.log")
    srv.start()
    return srv


def health(srv):
    """(HTTP status, JSON body) of GET /health."""
    url = f"http://127.0.0.1:{srv.http_port}/health"
    try:
        with urllib.request.urlopen(url, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def fill(path):
    """Writes `path` until the file system has no room left."""
    with open(path, "wb", buffering=0) as f:
        for chunk in (1 << 20, 1 << 12, 1):
            while True:
                try:
                    f.write(b"\0" * chunk)
                except OSError as e:
                    assert e.errno == errno.ENOSPC, e
                    break


def tmp_files(root):
    return [
        os.path.join(d, name)
        for d, _, names in os.walk(root)
        for name in names
        if name.endswith(".tmp")
    ]


def test_writes_resume_once_the_full_disk_has_room_again(small_disk):
    outside = tempfile.mkdtemp(prefix="nereid-disk-full-log-")
    srv = start(small_disk, outside)
    drv = GraphDatabase.driver(srv.uri, auth=AUTH)
    try:
        acked = 0
        for _ in range(10):
            drv.execute_query("CREATE (:Acked {i: $i})", i=acked)
            acked += 1
        filler = os.path.join(small_disk, "filler")
        fill(filler)

        # A write may still fit in a page the log already holds; the disk
        # runs out within a few hundred small commits.
        refused = None
        for _ in range(500):
            try:
                drv.execute_query("CREATE (:Acked {i: $i})", i=acked)
                acked += 1
            except DatabaseError as e:
                refused = e
                break
        assert refused is not None, "the full disk never refused a write"
        assert refused.code == COMMIT_FAILED, refused

        # Writes stay refused, with the same status; reads go on.
        with pytest.raises(DatabaseError) as again:
            drv.execute_query("CREATE (:Refused)")
        assert again.value.code == COMMIT_FAILED
        assert "transaction log" in again.value.message
        records, _, _ = drv.execute_query("MATCH (n:Acked) RETURN count(n) AS c")
        assert records[0]["c"] == acked
        records, _, _ = drv.execute_query("MATCH (n:Refused) RETURN count(n) AS c")
        assert records[0]["c"] == 0

        status, body = health(srv)
        assert status == 503, body
        assert body["status"] == "unhealthy" and "reason" in body, body

        # A checkpoint fails on the full disk and leaves no partial file.
        with pytest.raises(urllib.error.HTTPError):
            srv.http_post("/admin/checkpoint")
        assert tmp_files(small_disk) == []

        os.remove(filler)
        status, body = health(srv)
        assert (status, body["status"]) == (200, "ok"), body
        for _ in range(5):
            drv.execute_query("CREATE (:Acked {i: $i})", i=acked)
            acked += 1
        records, _, _ = drv.execute_query("MATCH (n:Acked) RETURN count(n) AS c")
        assert records[0]["c"] == acked

        # Refused commits are never published: a refused write, then space
        # again, then a write (straight away, no /health in between).
        fill(filler)
        for _ in range(500):
            try:
                drv.execute_query("CREATE (:Acked {i: $i})", i=acked)
                acked += 1
            except DatabaseError as e:
                assert e.code == COMMIT_FAILED, e
                break
        os.remove(filler)
        drv.execute_query("CREATE (:Acked {i: $i})", i=acked)
        acked += 1
    finally:
        drv.close()
        srv.stop()

    srv = start(small_disk, outside)
    try:
        assert_alive(srv)
        with GraphDatabase.driver(srv.uri, auth=AUTH) as drv:
            records, _, _ = drv.execute_query(
                "MATCH (n:Acked) RETURN count(n) AS c, count(DISTINCT n.i) AS d, max(n.i) AS m"
            )
            assert (records[0]["c"], records[0]["d"], records[0]["m"]) == (
                acked,
                acked,
                acked - 1,
            )
            records, _, _ = drv.execute_query("MATCH (n:Refused) RETURN count(n) AS c")
            assert records[0]["c"] == 0
        assert tmp_files(small_disk) == []
    finally:
        srv.stop()
        print(srv.log_tail())
        shutil.rmtree(outside, ignore_errors=True)
