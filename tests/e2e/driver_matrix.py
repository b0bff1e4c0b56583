"""The shared driver scenarios with the JVM and Rust clients (issue 3):
the Java driver 5.28, cypher-shell 5.26 (both from Maven Central) and neo4rs
0.8 (crates.io). scripts/test-all installs and builds them, then runs this
file explicitly (it is not named test_*.py, so the Python-driver runs of
tests/e2e do not repeat it). A missing toolchain skips loudly; a toolchain
present but clients not installed fails."""

import glob
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import Server
from test_driver_scenarios import check_outcome

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JAVA_DRIVER = os.path.join(ROOT, "drivers", "java", "driver")
CYPHER_SHELL = os.path.join(ROOT, "drivers", "java", "cypher-shell")

needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="java is not installed")


@pytest.fixture(scope="module")
def secured():
    with tempfile.TemporaryDirectory(prefix="nereid-e2e-matrix-") as tmp:
        srv = Server(os.path.join(tmp, "data"), extra_env={"NEREID_AUTH": "neo4j/matrix-pw"})
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


def _run(cmd, cwd=None, stdin=None):
    return subprocess.run(
        cmd, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=600
    )


def _java_classpath():
    classes = os.path.join(JAVA_DRIVER, "target", "classes")
    if not os.path.exists(os.path.join(classes, "Scenario.class")):
        pytest.fail("the Java scenario is not built: run scripts/test-all (mvn + javac)")
    return classes + os.pathsep + os.path.join(JAVA_DRIVER, "target", "lib", "*")


def _address(server):
    return f"127.0.0.1:{server.bolt_port}"


@needs_java
def test_java_driver_scenarios(secured):
    """The shared list (the bad password included: the server has a user)."""
    env = dict(os.environ, SCENARIO_PASSWORD="matrix-pw", SCENARIO_AUTH_ENFORCED="1")
    proc = subprocess.run(["java", "-cp", _java_classpath(), "Scenario", f"bolt://{_address(secured)}"],
                          env=env, capture_output=True, text=True, timeout=600)
    check_outcome("java", proc.stdout, proc.stderr)
    assert "ok   bad password refused" in proc.stdout, proc.stdout


def _cypher_shell(server, *args, stdin=None):
    lib = os.path.join(CYPHER_SHELL, "target", "lib")
    if not glob.glob(os.path.join(lib, "cypher-shell-*.jar")):
        pytest.fail("cypher-shell is not installed: run scripts/test-all (mvn)")
    cmd = ["java", "-cp", os.path.join(lib, "*"), "org.neo4j.shell.Main",
           "-a", f"bolt://{_address(server)}", "--format", "plain", *args]
    return _run(cmd, stdin=stdin)


@needs_java
def test_cypher_shell_non_interactive(secured):
    proc = _cypher_shell(secured, "-u", "neo4j", "-p", "matrix-pw",
                         "CREATE (:Shell {v: 1}); MATCH (s:Shell) RETURN s.v AS v, 'x' AS t;")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["v, t", '1, "x"']


@needs_java
def test_cypher_shell_reads_queries_from_stdin(secured):
    proc = _cypher_shell(secured, "-u", "neo4j", "-p", "matrix-pw", stdin="RETURN 41 + 1 AS answer;\n")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["answer", "42"]


@needs_java
def test_cypher_shell_system_database(secured):
    proc = _cypher_shell(secured, "-u", "neo4j", "-p", "matrix-pw", "-d", "system", "SHOW DATABASES YIELD name;")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == ["name", '"neo4j"', '"system"']


@needs_java
def test_cypher_shell_errors(secured):
    wrong = _cypher_shell(secured, "-u", "neo4j", "-p", "wrong", "RETURN 1;")
    assert wrong.returncode != 0
    assert "unauthorized" in wrong.stderr.lower(), wrong.stderr
    syntax = _cypher_shell(secured, "-u", "neo4j", "-p", "matrix-pw", "RETRUN 1;")
    assert syntax.returncode != 0
    assert "Invalid input 'RETRUN'" in syntax.stderr, syntax.stderr


@needs_java
def test_java_driver_joins_rdf_and_csv_facts():
    """Issue 26: RDF and CSV loaded through POST /loader, sharing IRIs, joined over Bolt by the
    Java driver (tests/drivers/java/driver/OneGraphJoin.java), as test_rdf.py does in Python."""
    from test_rdf import load

    with tempfile.TemporaryDirectory(prefix="nereid-e2e-onegraph-") as tmp:
        srv = Server(os.path.join(tmp, "data"))
        srv.start()
        try:
            for name, fmt in (("employers.csv", "opencypher"), ("people.nt", "ntriples"),
                              ("works_for.csv", "opencypher")):
                assert load(srv, name, fmt)["overallStatus"]["status"] == "LOAD_COMPLETED"
            classpath = _java_classpath()
            if not os.path.exists(os.path.join(JAVA_DRIVER, "target", "classes", "OneGraphJoin.class")):
                pytest.fail("OneGraphJoin is not built: run scripts/test-all (javac)")
            proc = _run(["java", "-cp", classpath, "OneGraphJoin", f"bolt://{_address(srv)}"])
        finally:
            srv.stop()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines() == [
        "by iri|Alice",
        "by prefix|Bob",
        "join|Alice|Bob|2019|Acme|[http://example.org/Person]|http://example.org/acme",
    ], proc.stdout


def _neo4rs_binary():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "drivers", "rust", "target"))
    binary = os.path.join(target, "debug", "nereid-neo4rs-scenarios")
    if not os.path.exists(binary):
        pytest.fail("the neo4rs scenario is not built: run scripts/test-all")
    return binary


def test_neo4rs_scenarios(secured):
    """The shared list (the bad password included: the server has a user);
    what neo4rs 0.8 cannot express prints `n/a`, and TLS runs in
    tests/sidebyside/run."""
    env = dict(os.environ, SCENARIO_PASSWORD="matrix-pw", SCENARIO_AUTH_ENFORCED="1")
    proc = subprocess.run([_neo4rs_binary(), f"bolt://{_address(secured)}"],
                          env=env, capture_output=True, text=True, timeout=600)
    check_outcome("neo4rs", proc.stdout, proc.stderr)
    assert "ok   bad password refused" in proc.stdout, proc.stdout
