"""Fixtures for the hostile-input suite: a real `nereid` binary in its own
memory cgroup (cgroup v1 at /sys/fs/cgroup/memory), so that a regression that
makes the server allocate without bound kills the server and fails the test,
not the machine.

Each test gets a fresh server. `alive(server)` is what every test asserts at
its end: the process still runs, another session's `RETURN 1` answers within
its bound, and committed data is intact."""

import contextlib
import os
import sys
import tempfile
import time
import uuid

import pytest
from neo4j import GraphDatabase

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "e2e"))
from nereid_process import NereidProcess  # noqa: E402

CGROUP_ROOT = "/sys/fs/cgroup/memory"
# The bound of the suite's servers: far above what any test needs, far below
# what the reproductions allocated before they were fixed.
MEMORY_LIMIT = int(os.environ.get("NEREID_HOSTILE_MEMORY", str(1536 * 1024 * 1024)))
# How long another session's RETURN 1 may take while a test's hostile
# client is busy (a debug build on a loaded 2-core CI machine).
ANSWER_BOUND_S = float(os.environ.get("NEREID_HOSTILE_ANSWER_BOUND_S", "5"))


class MemoryCgroup:
    """A cgroup v1 memory group; `None` when the controller is not writable
    (the suite then runs unbounded and says so)."""

    def __init__(self, limit):
        self.path = None
        if not os.access(CGROUP_ROOT, os.W_OK):
            return
        path = os.path.join(CGROUP_ROOT, f"nereid-hostile-{uuid.uuid4().hex[:8]}")
        try:
            os.mkdir(path)
            with open(os.path.join(path, "memory.limit_in_bytes"), "w") as f:
                f.write(str(limit))
            # No swap: over the limit the kernel kills, it does not page.
            swap = os.path.join(path, "memory.memsw.limit_in_bytes")
            if os.path.exists(swap):
                try:
                    with open(swap, "w") as f:
                        f.write(str(limit))
                except OSError:
                    pass
            self.path = path
        except OSError:
            self.path = None

    def prefix(self):
        """A command prefix that moves the process into the group before it
        execs the server (so the server's allocations are all charged)."""
        if self.path is None:
            return []
        procs = os.path.join(self.path, "cgroup.procs")
        return ["/bin/sh", "-c", f'echo $$ > "{procs}" && exec "$@"', "nereid-in-cgroup"]

    def oom_kills(self):
        if self.path is None:
            return 0
        try:
            with open(os.path.join(self.path, "memory.oom_control")) as f:
                for line in f:
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def usage(self):
        if self.path is None:
            return 0
        with open(os.path.join(self.path, "memory.max_usage_in_bytes")) as f:
            return int(f.read())

    def remove(self):
        if self.path is not None:
            try:
                os.rmdir(self.path)
            except OSError:
                pass


class HostileServer(NereidProcess):
    """The binary named by $NEREID_BIN in a memory cgroup."""

    def __init__(self, tmp, extra_args=(), extra_env=None, memory_limit=MEMORY_LIMIT):
        binary = os.environ.get("NEREID_BIN")
        if not binary:
            raise RuntimeError("NEREID_BIN must name the nereid binary")
        self.cgroup = MemoryCgroup(memory_limit)
        super().__init__(
            binary,
            os.path.join(tmp, "data"),
            os.path.join(tmp, "server.log"),
            extra_args,
            extra_env,
            command_prefix=self.cgroup.prefix(),
        )

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self):
        super().stop()
        self.cgroup.remove()


@contextlib.contextmanager
def running(extra_args=()):
    """A started HostileServer with `extra_args`, stopped afterwards."""
    with tempfile.TemporaryDirectory(prefix="nereid-hostile-") as tmp:
        srv = HostileServer(tmp, extra_args=extra_args)
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


@contextlib.contextmanager
def connected(server):
    """A driver for `server` (any credentials: no users), closed afterwards."""
    with GraphDatabase.driver(server.uri, auth=("neo4j", "any-password")) as drv:
        yield drv


@pytest.fixture
def server():
    with running() as srv:
        yield srv


@pytest.fixture
def driver(server):
    with connected(server) as drv:
        yield drv


def assert_alive(server, committed=None):
    """The process runs, the cgroup killed nothing, a new session answers
    `RETURN 1` within ANSWER_BOUND_S, and (when given) `committed` — a
    count of :Committed nodes written before the hostile input — is intact."""
    assert server.alive(), f"the server died:\n{server.log_tail()}"
    assert server.cgroup.oom_kills() == 0, "the memory cgroup killed the server"
    with GraphDatabase.driver(server.uri, auth=("neo4j", "any-password")) as drv:
        started = time.monotonic()
        records, _, _ = drv.execute_query("RETURN 1 AS one")
        took = time.monotonic() - started
        assert records[0]["one"] == 1
        assert took < ANSWER_BOUND_S, f"RETURN 1 took {took:.2f} s"
        if committed is not None:
            records, _, _ = drv.execute_query("MATCH (n:Committed) RETURN count(n) AS c")
            assert records[0]["c"] == committed


def commit_marker(drv, count=3):
    """Commits `count` :Committed nodes; returns the count for assert_alive."""
    drv.execute_query("UNWIND range(1, $n) AS i CREATE (:Committed {i: i})", n=count)
    return count
