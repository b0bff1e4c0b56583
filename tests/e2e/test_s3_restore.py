"""Checkpoints in S3-compatible storage, and restoring a database from the
bucket alone onto an empty data directory (issue 6).

A local S3-compatible server (moto's, installed by scripts/test-all into the
venv) runs on a free loopback port for the module and is stopped at the end.
Every test uses its own key prefix, so they do not see each other's objects."""

import os
import subprocess
import tempfile
import time
import uuid

import pytest
from neo4j import GraphDatabase

from conftest import Server
import moto_s3
from moto_s3 import CREDENTIALS

pytest.importorskip("boto3", reason="moto[server] (and boto3) are installed by scripts/test-all")

BUCKET = "nereid-e2e"


@pytest.fixture(scope="module")
def s3():
    """moto's S3 server on 127.0.0.1 with one empty bucket; yields its URL."""
    yield from moto_s3.serve_or_skip(BUCKET)


def client(endpoint):
    return moto_s3.client(endpoint)


def keys(endpoint, prefix):
    return moto_s3.keys(endpoint, BUCKET, prefix)


class S3Database:
    """Servers on fresh data directories sharing one s3:// checkpoint URI."""

    def __init__(self, endpoint, tmp, extra_args=()):
        self.endpoint = endpoint
        self.prefix = f"db-{uuid.uuid4().hex[:8]}"
        self.tmp = tmp
        self.args = [
            "--checkpoint-uri", f"s3://{BUCKET}/{self.prefix}",
            "--s3-endpoint", endpoint,
            "--s3-region", "us-east-1",
            *extra_args,
        ]
        self.machines = 0

    def fresh_server(self):
        """A server on a new, empty data directory (a new machine)."""
        self.machines += 1
        data_dir = os.path.join(self.tmp, f"machine-{self.machines}", "data")
        os.makedirs(os.path.dirname(data_dir))
        server = Server(data_dir, extra_args=self.args, extra_env=CREDENTIALS)
        server.start()
        return server


def checkpoint(drv):
    records, _, keys_ = drv.execute_query("CALL db.checkpoint()")
    assert keys_ == ["success", "message"]
    assert records[0]["success"] is True, records[0]["message"]
    return records[0]["message"]


def numbers(drv, label):
    records, _, _ = drv.execute_query(f"MATCH (n:{label}) RETURN n.i AS i")
    return sorted(r["i"] for r in records)


def write(drv, label, values):
    for i in values:
        drv.execute_query(f"CREATE (:{label} {{i: $i}})-[:NEXT {{i: $i}}]->(:Tail)", i=i)


def test_a_checkpoint_in_s3_restores_onto_an_empty_data_dir(s3):
    with tempfile.TemporaryDirectory(prefix="nereid-s3-") as tmp:
        db = S3Database(s3, tmp)
        first = db.fresh_server()
        try:
            with GraphDatabase.driver(first.uri, auth=("neo4j", "x")) as drv:
                write(drv, "Row", range(40))
                message = checkpoint(drv)
                assert f"s3://{BUCKET}/{db.prefix}/ckpt-" in message
        finally:
            first.kill9()
        stored = keys(s3, db.prefix + "/")
        assert any(k.endswith("/MANIFEST") for k in stored), stored
        assert any(k.endswith(".ckp") for k in stored), stored

        second = db.fresh_server()
        try:
            assert "loaded the checkpoint" in second.log()
            with GraphDatabase.driver(second.uri, auth=("neo4j", "x")) as drv:
                assert numbers(drv, "Row") == list(range(40))
                records, _, _ = drv.execute_query("MATCH (:Row)-[r:NEXT]->(:Tail) RETURN count(r) AS c")
                assert records[0]["c"] == 40
                # the restored database takes new writes
                write(drv, "Row", [40])
                assert numbers(drv, "Row") == list(range(41))
        finally:
            second.stop()


def test_commits_after_the_checkpoint_come_back_from_shipped_segments(s3):
    with tempfile.TemporaryDirectory(prefix="nereid-s3-") as tmp:
        db = S3Database(s3, tmp, ["--wal-segment-bytes", "4096", "--checkpoint-log-bytes", "0"])
        first = db.fresh_server()
        try:
            with GraphDatabase.driver(first.uri, auth=("neo4j", "x")) as drv:
                write(drv, "Row", range(20))
                checkpoint(drv)
                write(drv, "Row", range(20, 220))
            # Sealed segments are shipped in the background; wait for some.
            deadline = time.time() + 60
            while len(keys(s3, f"{db.prefix}/wal/")) < 3 and time.time() < deadline:
                time.sleep(0.2)
            shipped = keys(s3, f"{db.prefix}/wal/")
            assert len(shipped) >= 3, shipped
        finally:
            first.kill9()

        second = db.fresh_server()
        try:
            assert "restored the shipped log segments" in second.log()
            with GraphDatabase.driver(second.uri, auth=("neo4j", "x")) as drv:
                restored = numbers(drv, "Row")
                # Commits in shipped segments came back, in order, without
                # gaps: a prefix of what was written, longer than the checkpoint.
                assert restored == list(range(len(restored)))
                assert len(restored) > 20
                write(drv, "After", [1])
                assert numbers(drv, "After") == [1]
        finally:
            second.stop()


def test_a_clean_shutdown_without_checkpoint_ships_the_log_tail(s3):
    with tempfile.TemporaryDirectory(prefix="nereid-s3-") as tmp:
        db = S3Database(s3, tmp, ["--checkpoint-on-shutdown", "false", "--checkpoint-log-bytes", "0"])
        first = db.fresh_server()
        try:
            with GraphDatabase.driver(first.uri, auth=("neo4j", "x")) as drv:
                write(drv, "Row", range(25))
                checkpoint(drv)
                write(drv, "Row", range(25, 60))
        finally:
            first.stop()
        assert keys(s3, f"{db.prefix}/wal/"), "the log tail was shipped"

        second = db.fresh_server()
        try:
            with GraphDatabase.driver(second.uri, auth=("neo4j", "x")) as drv:
                assert numbers(drv, "Row") == list(range(60))
                write(drv, "Row", range(60, 70))
        finally:
            second.stop()

        # A third machine restores what the second one committed, too (its
        # segments continue the numbering after the shipped ones).
        third = db.fresh_server()
        try:
            with GraphDatabase.driver(third.uri, auth=("neo4j", "x")) as drv:
                assert numbers(drv, "Row") == list(range(70))
        finally:
            third.stop()


def test_a_damaged_checkpoint_object_refuses_to_restore_naming_it(s3):
    with tempfile.TemporaryDirectory(prefix="nereid-s3-") as tmp:
        db = S3Database(s3, tmp)
        first = db.fresh_server()
        try:
            with GraphDatabase.driver(first.uri, auth=("neo4j", "x")) as drv:
                write(drv, "Row", range(30))
                checkpoint(drv)
        finally:
            first.kill9()
        parts = [k for k in keys(s3, db.prefix + "/") if k.endswith(".ckp")]
        s3c = client(s3)
        sizes = {k: s3c.head_object(Bucket=BUCKET, Key=k)["ContentLength"] for k in parts}
        victim = max(sizes, key=sizes.get)
        data = bytearray(s3c.get_object(Bucket=BUCKET, Key=victim)["Body"].read())
        data[len(data) // 2] ^= 0x08
        s3c.put_object(Bucket=BUCKET, Key=victim, Body=bytes(data))

        data_dir = os.path.join(tmp, "machine-damaged", "data")
        env = dict(os.environ, **CREDENTIALS)
        proc = subprocess.run(
            [os.environ["NEREID_BIN"], "--data-dir", data_dir,
             "--bolt-address", "127.0.0.1:0", "--http-address", "127.0.0.1:0", *db.args],
            capture_output=True, timeout=120, env=env,
        )
        output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
        assert proc.returncode != 0, output
        assert f"s3://{BUCKET}/{victim}" in output and "checksum" in output, output
