"""The bulk loader over HTTP (issue 25): the official SNB test data set, converted by
scripts/snb-to-opencypher-csv, loaded through POST /loader and polled to LOAD_COMPLETED; counts
per label and type equal the CSV rows; a vertex is found by its user id over Bolt; a bad row with
failOnError leaves nothing; a source outside the import directory is refused; kill -9 after
completion keeps everything."""

import csv
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from collections import Counter

import pytest
from neo4j import GraphDatabase

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("NEREID_SHARED_DATA", os.path.join(os.path.dirname(ROOT), "shared", "data"))
SNB_TEST = os.path.join(SHARED, "ldbc-snb-interactive-v1-test-data", "vanilla")


def request(server, method, path, body=None):
    """(HTTP status, JSON answer) of one request."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        f"http://127.0.0.1:{server.http_port}{path}", method=method, data=data,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def load(server, source, fail_on_error=True, timeout=120, format="opencypher", mode=None):
    """Submits a load and polls it to a final state; returns its status payload."""
    body = {"source": source, "format": format, "failOnError": fail_on_error}
    if mode is not None:
        body["mode"] = mode
    code, answer = request(server, "POST", "/loader", body)
    assert code == 200, answer
    load_id = answer["payload"]["loadId"]
    deadline = time.time() + timeout
    while time.time() < deadline:
        code, answer = request(server, "GET", f"/loader/{load_id}")
        assert code == 200, answer
        state = answer["payload"]["overallStatus"]["status"]
        if state not in ("LOAD_IN_QUEUE", "LOAD_IN_PROGRESS"):
            return answer["payload"]
        time.sleep(0.05)
    raise AssertionError(f"load {load_id} did not finish")


def import_dir(server):
    path = os.path.join(server.data_dir, "import")
    os.makedirs(path, exist_ok=True)
    return path


def csv_counts(directory):
    """Rows per node label and per relationship type, and rows in all."""
    labels, types, total = Counter(), Counter(), 0
    for name in sorted(os.listdir(directory)):
        with open(os.path.join(directory, name), newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader)
            rows = list(reader)
        total += len(rows)
        if header[0].startswith(":ID"):
            for row in rows:
                for label in row[header.index(":LABEL")].split(";"):
                    labels[label] += 1
        else:
            for row in rows:
                types[row[header.index(":TYPE")]] += 1
    return labels, types, total


def single(driver, query, **params):
    records, _, _ = driver.execute_query(query, params)
    return records[0][0]


def check_counts(driver, labels, types):
    for label, n in labels.items():
        assert single(driver, f"MATCH (n:`{label}`) RETURN count(n)") == n, label
    for rel_type, n in types.items():
        assert single(driver, f"MATCH ()-[r:`{rel_type}`]->() RETURN count(r)") == n, rel_type


def plan_operators(plan):
    yield plan["operatorType"]
    for child in plan.get("children", []):
        yield from plan_operators(child)


@pytest.mark.skipif(not os.path.isdir(SNB_TEST), reason="the SNB test data set is not in ../shared/data")
def test_snb_test_data_loads_over_http_and_survives_kill9(server):
    snb = os.path.join(import_dir(server), "snb")
    subprocess.run([os.path.join(ROOT, "scripts", "snb-to-opencypher-csv"), snb, "--data", SNB_TEST],
                   check=True, capture_output=True)
    labels, types, rows = csv_counts(snb)
    status = load(server, "file:///snb")
    overall = status["overallStatus"]
    assert overall["status"] == "LOAD_COMPLETED", status
    assert overall["filesDone"] == overall["filesTotal"] == len(os.listdir(snb))
    assert overall["totalRecords"] == rows
    assert overall["errorCount"] == 0
    sizes = sum(os.path.getsize(os.path.join(snb, name)) for name in os.listdir(snb))
    assert overall["bytesRead"] == overall["bytesTotal"] == sizes
    assert overall["phase"] == "COMMITTING" and overall["estimatedReadingTimeLeft"] is None
    code, listed = request(server, "GET", "/loader")
    assert code == 200 and overall["loadId"] in listed["payload"]["loadIds"]

    with open(os.path.join(snb, "Person.csv"), newline="") as f:
        person = next(csv.DictReader(f))
    element_id = f"(Person){person[':ID(Person)']}"
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        check_counts(driver, labels, types)
        # By user id: elementId is (space)id, and a seek by it is a dictionary lookup.
        query = "MATCH (p) WHERE elementId(p) = $id RETURN p.firstName"
        assert single(driver, query, id=element_id) == person["firstName"]
        _, summary, _ = driver.execute_query("EXPLAIN " + query, {"id": element_id})
        assert any("IdSeek" in op for op in plan_operators(summary.plan)), summary.plan
        records, _, _ = driver.execute_query(
            "MATCH (p:Person)-[:IS_LOCATED_IN]->(c:City) WHERE elementId(p) = $id RETURN elementId(p)",
            {"id": element_id})
        assert [r[0] for r in records] == [element_id]
    finally:
        driver.close()

    # Completed means durable: kill -9 and restart keep everything.
    server.kill9()
    server.start()
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        check_counts(driver, labels, types)
        assert single(driver, "MATCH (p) WHERE elementId(p) = $id RETURN p.firstName",
                      id=element_id) == person["firstName"]
    finally:
        driver.close()


def test_a_bad_row_with_fail_on_error_leaves_nothing(server, driver):
    source = os.path.join(import_dir(server), "bad")
    os.makedirs(source)
    with open(os.path.join(source, "people.csv"), "w") as f:
        f.write(":ID(P),:LABEL,name\n1,P,Ann\n2,P,Bob\n")
    with open(os.path.join(source, "knows.csv"), "w") as f:
        f.write(":START_ID(P),:END_ID(P),:TYPE,since:int\n1,2,KNOWS,2020\n2,1,KNOWS,soon\n")
    status = load(server, "file:///bad")
    assert status["overallStatus"]["status"] == "LOAD_FAILED", status
    error = status["errors"]["errorLogs"][0]
    assert error["file"].endswith("knows.csv")
    assert (error["line"], error["column"]) == (3, 11)
    assert error["code"] == "Neo.ClientError.Statement.ExternalResourceFailed"
    assert single(driver, "MATCH (n) RETURN count(n)") == 0
    assert single(driver, "MATCH ()-[r]->() RETURN count(r)") == 0

    # failOnError false: the good rows load, the bad one is reported.
    status = load(server, "file:///bad", fail_on_error=False)
    assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
    assert status["overallStatus"]["errorCount"] == 1
    assert single(driver, "MATCH ()-[r:KNOWS]->() RETURN count(r)") == 1


def test_resume_loads_only_what_earlier_loads_of_the_source_did_not(server, driver):
    source = os.path.join(import_dir(server), "grow")
    os.makedirs(source)
    with open(os.path.join(source, "a.csv"), "w") as f:
        f.write(":ID,:LABEL\n1,P\n2,P\n")
    code, answer = request(server, "POST", "/loader", {"source": "file:///grow", "format": "opencypher",
                                                      "mode": "RESUME"})
    assert code == 400 and answer["code"] == "Neo.ClientError.Request.Invalid", answer
    assert load(server, "file:///grow", mode="NEW")["overallStatus"]["status"] == "LOAD_COMPLETED"
    # A file added since: RESUME (and AUTO, the default) load it alone.
    with open(os.path.join(source, "b.csv"), "w") as f:
        f.write(":ID,:LABEL\n3,P\n")
    overall = load(server, "file:///grow", mode="resume")["overallStatus"]
    assert (overall["status"], overall["filesTotal"], overall["totalRecords"]) == ("LOAD_COMPLETED", 1, 1)
    assert single(driver, "MATCH (p:P) RETURN count(p)") == 3
    overall = load(server, "file:///grow")["overallStatus"]
    assert (overall["status"], overall["filesTotal"]) == ("LOAD_COMPLETED", 0)
    # NEW takes every file again: the ids exist, so nothing changes.
    assert load(server, "file:///grow", mode="NEW")["overallStatus"]["status"] == "LOAD_FAILED"
    assert single(driver, "MATCH (p:P) RETURN count(p)") == 3
    code, answer = request(server, "POST", "/loader", {"source": "file:///grow", "format": "opencypher",
                                                      "mode": "RESTART"})
    assert code == 400, answer


def test_load_statuses_and_resume_outlive_a_restart(server):
    """Ended loads are saved in the data directory (ADR 0142): after a restart their status still
    answers, GET /loader lists them, and AUTO skips the files they applied."""
    source = os.path.join(import_dir(server), "kept")
    os.makedirs(source)
    with open(os.path.join(source, "a.csv"), "w") as f:
        f.write(":ID,:LABEL\n1,P\n2,P\n")
    first = load(server, "file:///kept", mode="NEW")
    assert first["overallStatus"]["status"] == "LOAD_COMPLETED"
    load_id = request(server, "GET", "/loader")[1]["payload"]["loadIds"][-1]
    server.stop()
    server.start()
    code, answer = request(server, "GET", f"/loader/{load_id}")
    assert code == 200, answer
    overall = answer["payload"]["overallStatus"]
    assert (overall["status"], overall["totalRecords"]) == ("LOAD_COMPLETED", 2), overall
    assert load_id in request(server, "GET", "/loader")[1]["payload"]["loadIds"]
    with open(os.path.join(source, "b.csv"), "w") as f:
        f.write(":ID,:LABEL\n3,P\n")
    overall = load(server, "file:///kept")["overallStatus"]
    assert (overall["status"], overall["filesTotal"], overall["totalRecords"]) == ("LOAD_COMPLETED", 1, 1)
    with GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as driver:
        assert single(driver, "MATCH (p:P) RETURN count(p)") == 3


def test_sources_outside_the_import_dir_are_refused(server, tmp_path):
    outside = tmp_path / "outside.csv"
    outside.write_text(":ID,:LABEL\n1,X\n")
    inside = import_dir(server)
    os.symlink(outside, os.path.join(inside, "link.csv"))
    for source in (f"file://{outside}", f"file://{inside}/../../outside.csv", "file:///link.csv"):
        code, answer = request(server, "POST", "/loader", {"source": source, "format": "opencypher"})
        assert code == 400, (source, answer)
        assert answer["code"] == "Neo.ClientError.Statement.ExternalResourceFailed", answer
    code, answer = request(server, "POST", "/loader", {"source": "file:///x", "format": "rdfxml"})
    assert code == 400
    code, answer = request(server, "POST", "/loader", {"source": "file:///x" + "x" * (3 << 20),
                                                      "format": "opencypher"})
    assert code == 413, answer
    code, _ = request(server, "GET", "/loader/nope-1")
    assert code == 404


def test_a_load_can_be_cancelled(server, driver):
    source = os.path.join(import_dir(server), "many")
    os.makedirs(source)
    with open(os.path.join(source, "nodes.csv"), "w") as f:
        f.write(":ID,:LABEL\n" + "".join(f"{i},N\n" for i in range(200_000)))
    code, answer = request(server, "POST", "/loader", {"source": "file:///many", "format": "opencypher"})
    load_id = answer["payload"]["loadId"]
    code, answer = request(server, "DELETE", f"/loader/{load_id}")
    assert code == 200, answer
    deadline = time.time() + 60
    while time.time() < deadline:
        _, answer = request(server, "GET", f"/loader/{load_id}")
        state = answer["payload"]["overallStatus"]["status"]
        if state not in ("LOAD_IN_QUEUE", "LOAD_IN_PROGRESS"):
            break
        time.sleep(0.05)
    assert state in ("LOAD_CANCELLED", "LOAD_COMPLETED")
    expected = 0 if state == "LOAD_CANCELLED" else 200_000
    assert single(driver, "MATCH (n:N) RETURN count(n)") == expected
