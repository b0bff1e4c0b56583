"""The shared scenario list (auto-commit, explicit and managed transactions,
errors and recovery, every value type incl. temporal and spatial, graph
structures, bookmarks, `neo4j://` routing) run by the JavaScript and Go
drivers' scenario programs in tests/drivers/, each against a fresh server.
scripts/test-all installs both drivers; a missing toolchain skips loudly."""

import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run_scenarios(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    output = f"{proc.stdout}\n{proc.stderr}"
    assert proc.returncode == 0, f"{cmd} failed:\n{output}"
    summary = re.search(r"^(\d+) passed, 0 failed$", proc.stdout, re.MULTILINE)
    assert summary and int(summary.group(1)) >= 10, f"not every scenario ran:\n{output}"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_driver_scenarios(server):
    cwd = os.path.join(ROOT, "drivers", "js")
    if not os.path.isdir(os.path.join(cwd, "node_modules", "neo4j-driver")):
        pytest.fail("neo4j-driver not installed: run scripts/test-all (it runs npm install)")
    _run_scenarios(["node", "scenarios.mjs", server.uri], cwd)


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_go_driver_scenarios(server):
    _run_scenarios(["go", "run", "./scenarios", server.uri], os.path.join(ROOT, "drivers", "go"))
