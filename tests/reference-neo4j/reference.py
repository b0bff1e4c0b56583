"""The reference Neo4j for side-by-side runs and comparisons: `start` (next
to this file) run in the background in its own process group, its Bolt URI,
and the pid of its JVM (for memory figures)."""

import os
import re
import signal
import subprocess

START = os.path.join(os.path.dirname(os.path.abspath(__file__)), "start")


class ReferenceNeo4j:
    def __init__(self):
        self.proc = None
        self.uri = None

    def start(self):
        self.proc = subprocess.Popen([START], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
        for line in self.proc.stdout:
            # mvn -q may leave colour escapes (no newline) before the READY line.
            ready = re.search(r"READY (bolt://\S+)", line)
            if ready:
                self.uri = ready.group(1)
                return self
        raise RuntimeError("the reference Neo4j did not start")

    def pid(self):
        """The JVM's pid: the process whose command line runs RefServer on our port."""
        port = self.uri.rsplit(":", 1)[1]
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    args = f.read().split(b"\0")
            except OSError:
                continue
            if b"refserver.RefServer" in args and port.encode() in args:
                return int(entry)
        raise RuntimeError("the reference Neo4j's JVM is not running")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=120)
