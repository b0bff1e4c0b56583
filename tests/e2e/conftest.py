"""Fixtures for the end-to-end suite: a real `nereid` binary on free loopback
ports with a temporary data directory, driven by the official Neo4j driver.

The binary is taken from $NEREID_BIN (the test script builds it)."""

import os
import tempfile

import pytest
from neo4j import GraphDatabase

from nereid_process import NereidProcess


class Server(NereidProcess):
    """The binary named by $NEREID_BIN on a data dir; its log sits beside it."""

    def __init__(self, data_dir, extra_args=(), extra_env=None):
        binary = os.environ.get("NEREID_BIN")
        if not binary:
            raise RuntimeError("NEREID_BIN must name the nereid binary")
        log_path = os.path.join(os.path.dirname(data_dir), "server.log")
        super().__init__(binary, data_dir, log_path, extra_args, extra_env, keep_ports=True)

    def log(self):
        return self.log_tail()


@pytest.fixture
def server():
    with tempfile.TemporaryDirectory(prefix="nereid-e2e-") as tmp:
        srv = Server(os.path.join(tmp, "data"))
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


@pytest.fixture
def secured():
    """A server with the user neo4j / s3cret-pw (NEREID_AUTH)."""
    with tempfile.TemporaryDirectory(prefix="nereid-e2e-auth-") as tmp:
        srv = Server(os.path.join(tmp, "data"), extra_env={"NEREID_AUTH": "neo4j/s3cret-pw"})
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


@pytest.fixture
def driver(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "any-password"))
    try:
        yield drv
    finally:
        drv.close()
