"""The shared scenario list of issue 3 (connect and authenticate, auto-commit,
explicit and managed transactions, a TransientError retried, several results
in one transaction, paging, DISCARD, RESET, errors and recovery, every value
type, bookmarks, `neo4j://` routing; TLS and the bad password are run by
tests/sidebyside/run) by the JavaScript and Go drivers' scenario programs in
tests/drivers/, each against a fresh server. A scenario may fail only if
tests/sidebyside/known-nereid-failures.txt lists it (a divergence from the
reference Neo4j), and a listed one must still fail, so the list only shrinks.
scripts/test-all installs both drivers; a missing toolchain skips loudly."""

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KNOWN = os.path.join(ROOT, "sidebyside", "known-nereid-failures.txt")


def known_failures(client):
    """The scenarios the client is expected to fail against nereid."""
    known = set()
    with open(KNOWN, encoding="utf-8") as listing:
        for line in listing:
            line = line.split("#", 1)[0].strip()
            if line:
                listed_client, scenario = line.split("\t", 1)
                if listed_client.strip() == client:
                    known.add(scenario.strip())
    return known


def check_outcome(client, stdout, stderr=""):
    """Every scenario ran; exactly the known divergences failed."""
    output = f"{stdout}\n{stderr}"
    summary = re.search(r"^(\d+) passed, (\d+) failed, (\d+) skipped$", stdout, re.MULTILINE)
    assert summary and int(summary.group(1)) >= 10, f"not every scenario ran:\n{output}"
    failed = {m.group(1) for m in re.finditer(r"^FAIL (.+?): ", stdout, re.MULTILINE)}
    assert failed == known_failures(client), f"failures differ from {KNOWN}:\n{output}"


def _run_scenarios(client, cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    check_outcome(client, proc.stdout, proc.stderr)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_driver_scenarios(server):
    cwd = os.path.join(ROOT, "drivers", "js")
    if not os.path.isdir(os.path.join(cwd, "node_modules", "neo4j-driver")):
        pytest.fail("neo4j-driver not installed: run scripts/test-all (it runs npm install)")
    _run_scenarios("js", ["node", "scenarios.mjs", server.uri], cwd)


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_go_driver_scenarios(server):
    _run_scenarios("go", ["go", "run", "./scenarios", server.uri], os.path.join(ROOT, "drivers", "go"))


def test_python_driver_scenarios(server):
    """With the driver of the interpreter running pytest (6.x in scripts/test-all)."""
    client = "py6" if neo4j_major() >= 6 else "py528"
    _run_scenarios(client, [sys.executable, "scenarios.py", server.uri], os.path.join(ROOT, "drivers", "python"))


def neo4j_major():
    import neo4j

    return int(neo4j.__version__.split(".")[0])
