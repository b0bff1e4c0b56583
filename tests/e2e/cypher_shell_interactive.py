"""cypher-shell 5.26 used interactively, as a person would: in a terminal
(tmux), typing a query, `:begin` / `:commit`, `:param`, a syntax error, and
`:exit`, reading the screen after each step. Run by scripts/test-all next to
driver_matrix.py (not named test_*.py: it needs the Maven-installed
cypher-shell). A missing java or tmux skips loudly."""

import glob
import os
import shutil
import subprocess
import tempfile
import time
import uuid

import pytest

from conftest import Server

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "drivers", "java", "cypher-shell", "target", "lib")

pytestmark = pytest.mark.skipif(
    shutil.which("java") is None or shutil.which("tmux") is None,
    reason="java and tmux are needed",
)

# Upper bound for the shell to show what is awaited; a correct run needs a
# few seconds (JVM start), so this only stops a broken run from hanging.
PATIENCE_S = 90


class Terminal:
    """One tmux session running a command on a private socket."""

    def __init__(self, command):
        self.socket = f"nereid-{uuid.uuid4().hex[:8]}"
        self.name = "shell"
        self._tmux("new-session", "-d", "-s", self.name, "-x", "200", "-y", "80", command)

    def _tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                              check=check, timeout=30)

    def screen(self):
        out = self._tmux("capture-pane", "-p", "-S", "-", "-t", self.name, check=False)
        return out.stdout

    def type(self, text):
        """Types `text` and Enter. A trailing space keeps tmux from reading
        a final `;` as its own command separator."""
        self._tmux("send-keys", "-t", self.name, "-l", text + " ")
        self._tmux("send-keys", "-t", self.name, "Enter")

    def wait_for(self, needle, after=0):
        """Waits until `needle` shows on the screen after character `after`;
        returns where it ends."""
        deadline = time.monotonic() + PATIENCE_S
        while time.monotonic() < deadline:
            screen = self.screen()
            at = screen.find(needle, after)
            if at >= 0:
                return at + len(needle)
            if not self.alive():
                break
            time.sleep(0.2)
        pytest.fail(f"{needle!r} never showed; the screen:\n{self.screen()}")

    def alive(self):
        return self._tmux("has-session", "-t", self.name, check=False).returncode == 0

    def close(self):
        self._tmux("kill-server", check=False)


@pytest.fixture
def secured():
    with tempfile.TemporaryDirectory(prefix="nereid-e2e-shell-") as tmp:
        srv = Server(os.path.join(tmp, "data"), extra_env={"NEREID_AUTH": "neo4j/shell-pw"})
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


def test_cypher_shell_interactive_session(secured):
    if not glob.glob(os.path.join(LIB, "cypher-shell-*.jar")):
        pytest.fail("cypher-shell is not installed: run scripts/test-all (mvn)")
    command = (f"java -cp '{LIB}/*' org.neo4j.shell.Main "
               f"-a bolt://127.0.0.1:{secured.bolt_port} -u neo4j -p shell-pw")
    term = Terminal(command)
    try:
        at = term.wait_for("neo4j@neo4j>")
        term.type("RETURN 40 + 2 AS answer;")
        at = term.wait_for("| 42", at)
        at = term.wait_for("neo4j@neo4j>", at)

        term.type(":begin")
        at = term.wait_for("neo4j@neo4j#", at)  # '#': inside a transaction
        term.type("CREATE (:Typed {v: 1});")
        at = term.wait_for("Added 1 nodes", at)
        at = term.wait_for("neo4j@neo4j#", at)
        term.type(":commit")
        at = term.wait_for("neo4j@neo4j>", at)

        term.type(":param x => 7")
        at = term.wait_for("neo4j@neo4j>", at)
        term.type("MATCH (t:Typed) RETURN t.v * $x * 6 AS p;")
        at = term.wait_for("| 42", at)
        at = term.wait_for("neo4j@neo4j>", at)

        term.type("RETRUN 1;")
        at = term.wait_for("Invalid input 'RETRUN'", at)
        at = term.wait_for("neo4j@neo4j>", at)
        # The shell is still usable after the error.
        term.type("RETURN 'still here' AS s;")
        at = term.wait_for("still here", at)
        at = term.wait_for("neo4j@neo4j>", at)

        term.type(":exit")
        deadline = time.monotonic() + PATIENCE_S
        while term.alive() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not term.alive(), f":exit did not end the shell:\n{term.screen()}"
    finally:
        term.close()
