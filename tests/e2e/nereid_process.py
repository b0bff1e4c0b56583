"""One nereid process on loopback ports: started, killed with SIGKILL,
restarted on the same data directory. Shared by the pytest fixtures
(conftest.py) and the crash harness (crash_harness.py)."""

import os
import signal
import socket
import subprocess
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortTaken(RuntimeError):
    """The server could not bind its port: another process took it between
    our probe and the server's bind (the machine is shared)."""


class NereidProcess:
    """`keep_ports`: once the server has listened, restarts reuse its ports
    (clients keep their URI); otherwise every start picks fresh ones."""

    def __init__(self, binary, data_dir, log_path, extra_args=(), extra_env=None, keep_ports=True,
                 command_prefix=()):
        self.binary = binary
        # Run in front of the binary (e.g. a shell that joins a cgroup and
        # execs the rest of the command line).
        self.command_prefix = list(command_prefix)
        self.data_dir = data_dir
        self.log_path = log_path
        self.extra_args = list(extra_args)
        self.extra_env = dict(extra_env or {})
        self.keep_ports = keep_ports
        self.proc = None
        self.bolt_port = None
        self.http_port = None
        self.ran = False

    @property
    def uri(self):
        return f"bolt://127.0.0.1:{self.bolt_port}"

    def start(self, attempts=5):
        pinned = self.keep_ports and self.ran
        for attempt in range(attempts):
            if not pinned:
                self.bolt_port = free_port()
                self.http_port = free_port()
            try:
                self._start_once()
                self.ran = True
                return
            except PortTaken:
                if pinned or attempt == attempts - 1:
                    raise

    def _start_once(self):
        env = dict(os.environ)
        for name in ("NEREID_CONFIG", "NEREID_AUTH", "NEREID_NO_AUTH"):
            env.pop(name, None)
        env.update(self.extra_env)
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [
                    *self.command_prefix,
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
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                tail = self.log_tail()
                lines = tail.strip().splitlines()
                if lines and "Address already in use" in lines[-1]:
                    raise PortTaken(tail)
                raise RuntimeError(f"nereid exited early (code {self.proc.returncode}):\n{tail}")
            try:
                with socket.create_connection(("127.0.0.1", self.bolt_port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"nereid did not start listening:\n{self.log_tail()}")

    def kill9(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def http_post(self, path):
        req = urllib.request.Request(f"http://127.0.0.1:{self.http_port}{path}", method="POST", data=b"")
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status

    def log_tail(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")[-6000:]
        except OSError:
            return ""
