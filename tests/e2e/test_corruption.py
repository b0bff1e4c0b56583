"""Corruption injection against the real binary; each case gives the outcome
documented in wal/src/recovery.rs and ARCHITECTURE.md:

- a torn or damaged *last* record of the last segment: truncated at start,
  with a log line saying what was dropped; the server serves the rest;
- damage *before* the tail (an intact record follows, or the segment is
  sealed), a missing segment, or a damaged checkpoint: the server refuses to
  start, exit code non-zero, with a message naming the file (and the byte
  offset for log damage).
"""

import glob
import os
import struct
import subprocess

import pytest
from neo4j import GraphDatabase

from crash_harness import CrashServer

HEADER = 24


def record_offsets(path):
    """Start offsets of the records of a log segment."""
    data = open(path, "rb").read()
    offsets, at = [], HEADER
    while at + 8 <= len(data):
        (length,) = struct.unpack_from("<I", data, at)
        if at + 8 + length > len(data):
            break
        offsets.append(at)
        at += 8 + length
    return offsets, len(data)


def segments(data_dir):
    return sorted(glob.glob(os.path.join(data_dir, "wal", "wal-*.log")))


@pytest.fixture
def populated(tmp_path):
    """A data dir with 10 acknowledged single-node commits, killed -9 (no
    shutdown checkpoint); yields (server, data_dir)."""
    data_dir = str(tmp_path / "data")
    # One log partition: these cases damage the single stream's records
    # (partition 0 is the log directory itself; the multi-partition rules
    # are tested in wal/tests/partitions.rs and by the crash loop).
    server = CrashServer(os.environ["NEREID_BIN"], data_dir, str(tmp_path / "server.log"),
                         ["--wal-segment-bytes", "4096", "--log-partitions", "1"])
    server.start()
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    for i in range(10):
        drv.execute_query("CREATE (:C {i: $i, pad: $pad})", i=i, pad="x" * 40)
    drv.close()
    server.kill9()
    try:
        yield server, data_dir
    finally:
        server.stop()


def committed(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        records, _, _ = drv.execute_query("MATCH (n:C) RETURN n.i AS i ORDER BY i")
        return [r["i"] for r in records]
    finally:
        drv.close()


def refuses_to_start(server):
    """Runs the binary on the damaged data dir; returns (exit code, output)."""
    proc = subprocess.run(
        [server.binary, "--data-dir", server.data_dir,
         "--bolt-address", "127.0.0.1:0", "--http-address", "127.0.0.1:0"],
        capture_output=True, timeout=60,
    )
    return proc.returncode, (proc.stdout + proc.stderr).decode("utf-8", "replace")


def test_a_torn_partial_record_at_the_tail_is_truncated_with_a_log_line(populated):
    server, data_dir = populated
    last = segments(data_dir)[-1]
    with open(last, "ab") as f:
        f.write(struct.pack("<II", 500, 0) + b"\x01" * 11)  # a write cut short
    server.start()
    assert committed(server) == list(range(10))
    assert "truncating an incomplete record at the end of the log" in server.log_tail()


def test_a_flipped_byte_in_the_last_record_drops_only_that_record(populated):
    server, data_dir = populated
    last = segments(data_dir)[-1]
    offsets, size = record_offsets(last)
    data = bytearray(open(last, "rb").read())
    data[offsets[-1] + 12] ^= 0x10
    open(last, "wb").write(bytes(data))
    server.start()
    # Indistinguishable from a torn write: the last commit is truncated away.
    assert committed(server) == list(range(9))
    assert "truncating an incomplete record" in server.log_tail()


def test_a_file_truncated_inside_its_last_record_keeps_the_records_before(populated):
    server, data_dir = populated
    last = segments(data_dir)[-1]
    offsets, size = record_offsets(last)
    os.truncate(last, offsets[-1] + 5)
    server.start()
    assert committed(server) == list(range(9))


def test_a_flipped_byte_before_the_tail_refuses_to_start_naming_file_and_offset(populated):
    server, data_dir = populated
    last = segments(data_dir)[-1]
    offsets, size = record_offsets(last)
    assert len(offsets) >= 3
    data = bytearray(open(last, "rb").read())
    data[offsets[0] + 20] ^= 0x01
    open(last, "wb").write(bytes(data))
    code, output = refuses_to_start(server)
    assert code != 0
    assert last in output and f"corrupt at byte {offsets[0]}" in output, output


def test_damage_in_a_sealed_segment_refuses_to_start(tmp_path):
    data_dir = str(tmp_path / "data")
    server = CrashServer(os.environ["NEREID_BIN"], data_dir, str(tmp_path / "server.log"),
                         ["--wal-segment-bytes", "4096", "--checkpoint-log-bytes", "0",
                          "--log-partitions", "1"])
    server.start()
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    for i in range(60):
        drv.execute_query("CREATE (:C {i: $i, pad: $pad})", i=i, pad="x" * 100)
    drv.close()
    server.kill9()
    files = segments(data_dir)
    assert len(files) >= 2, files
    first = files[0]
    offsets, size = record_offsets(first)
    # Truncating a sealed segment is not a torn tail: later segments exist.
    os.truncate(first, offsets[-1] + 3)
    code, output = refuses_to_start(server)
    assert code != 0 and first in output and "sealed" in output, output
    # A deleted segment (records missing before the rest) is refused too.
    os.remove(first)
    code, output = refuses_to_start(server)
    assert code != 0 and "missing" in output, output


def test_a_damaged_checkpoint_refuses_to_start_naming_the_file(populated):
    server, data_dir = populated
    server.start()
    assert server.http_post("/admin/checkpoint") == 200
    server.kill9()
    parts = sorted(glob.glob(os.path.join(data_dir, "checkpoints", "ckpt-*", "nodes-*.ckp")))
    assert parts
    victim = max(parts, key=os.path.getsize)
    data = bytearray(open(victim, "rb").read())
    data[len(data) // 2] ^= 0x08
    open(victim, "wb").write(bytes(data))
    code, output = refuses_to_start(server)
    assert code != 0 and victim in output and "checkpoint" in output, output
