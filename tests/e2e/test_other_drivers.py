"""The JavaScript and Go drivers against the same server (point 2). Each
driver's smoke program lives in tests/drivers/; the test script installs the
drivers from their registries. Skipped (loudly) only when the toolchain is
absent from the machine."""

import os
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(cmd, cwd):
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_js_driver(server):
    cwd = os.path.join(ROOT, "drivers", "js")
    if not os.path.isdir(os.path.join(cwd, "node_modules", "neo4j-driver")):
        pytest.fail("neo4j-driver not installed: run scripts/test-all (it runs npm install)")
    out = _run(["node", "smoke.mjs", server.uri], cwd)
    assert "all checks passed" in out


@pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
def test_go_driver(server):
    cwd = os.path.join(ROOT, "drivers", "go")
    out = _run(["go", "run", ".", server.uri], cwd)
    assert "all checks passed" in out
