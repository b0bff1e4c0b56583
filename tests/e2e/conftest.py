"""Fixtures for the end-to-end suite: a real `nereid` binary on free loopback
ports with a temporary data directory, driven by the official Neo4j driver.

The binary is taken from $NEREID_BIN (the test script builds it)."""

import os
import signal
import socket
import subprocess
import tempfile
import time

import pytest
from neo4j import GraphDatabase


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortTaken(Exception):
    """The server could not bind its port (another process took it)."""


class Server:
    """One nereid process; can be killed and restarted on the same data dir."""

    def __init__(self, data_dir, extra_args=(), extra_env=None):
        self.binary = os.environ.get("NEREID_BIN")
        if not self.binary:
            raise RuntimeError("NEREID_BIN must name the nereid binary")
        self.data_dir = data_dir
        self.bolt_port = _free_port()
        self.http_port = _free_port()
        self.extra_args = list(extra_args)
        self.extra_env = dict(extra_env or {})
        self.proc = None
        # Once a server ran on these ports, a restart must keep them.
        self.restarting = False
        self.log_path = os.path.join(os.path.dirname(data_dir), f"server-{self.bolt_port}.log")

    @property
    def uri(self):
        return f"bolt://127.0.0.1:{self.bolt_port}"

    def start(self):
        # A free port can be taken by another process between our probe and
        # the server's bind: retry with fresh ports when that happens.
        for attempt in range(5):
            try:
                return self._start_once()
            except PortTaken:
                if self.restarting:
                    raise
                self.bolt_port = _free_port()
                self.http_port = _free_port()
        raise RuntimeError(f"could not find free ports:\n{self.log()}")

    def _start_once(self):
        log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.pop("NEREID_CONFIG", None)
        env.pop("NEREID_AUTH", None)
        env.pop("NEREID_NO_AUTH", None)
        env.update(self.extra_env)
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--data-dir", self.data_dir,
                "--bolt-address", f"127.0.0.1:{self.bolt_port}",
                "--http-address", f"127.0.0.1:{self.http_port}",
                *self.extra_args,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        self.restarting = True
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                text = self.log()
                if "in use" in text.lower() and "address" in text.lower():
                    self.restarting = False
                    raise PortTaken()
                raise RuntimeError(f"nereid exited early:\n{text}")
            try:
                with socket.create_connection(("127.0.0.1", self.bolt_port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"nereid did not start listening:\n{self.log()}")

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-4000:]
        except OSError:
            return ""


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
def driver(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "any-password"))
    try:
        yield drv
    finally:
        drv.close()
