"""Bulk loads from S3 (issues 25 and 26): `s3://bucket/prefix` sources for POST /loader and
`neptune.load`, read from moto's S3-compatible server through the same `--s3-endpoint` the
checkpoints use. A prefix loads every object under it of the format's extension (plain, .gz or
.zst) in key order, node files first; one object loads alone; counts and ids are checked over
Bolt. A missing bucket or key, an unreachable endpoint and a truncated compressed object each
make the load LOAD_FAILED with the object named, and leave nothing."""

import gzip
import os
import shutil
import subprocess
import uuid

import pytest
from neo4j import GraphDatabase

import moto_s3
from conftest import Server
from moto_s3 import CREDENTIALS
from nereid_process import free_port
from test_loader import ROOT, SNB_TEST, check_counts, csv_counts, load, single

pytest.importorskip("boto3", reason="moto[server] (and boto3) are installed by scripts/test-all")

BUCKET = "nereid-loads"
RDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rdf")


@pytest.fixture(scope="module")
def s3():
    """moto's S3 server on 127.0.0.1 with one empty bucket; yields its URL."""
    yield from moto_s3.serve_or_skip(BUCKET)


def started(tmp_path, endpoint):
    server = Server(str(tmp_path / "data"), extra_args=["--s3-endpoint", endpoint, "--s3-region", "us-east-1"],
                    extra_env=CREDENTIALS)
    server.start()
    return server


@pytest.fixture
def s3_server(s3, tmp_path):
    """A server reading s3:// sources from moto; yields (server, driver, fresh key prefix)."""
    server = started(tmp_path, s3)
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        yield server, driver, f"t-{uuid.uuid4().hex[:8]}"
    finally:
        driver.close()
        server.stop()


def put(endpoint, key, body):
    moto_s3.client(endpoint).put_object(Bucket=BUCKET, Key=key, Body=body)
    return len(body)


def zstd(data):
    """`data` compressed by the zstd command."""
    return subprocess.run(["zstd", "-q", "-c"], input=data, check=True, capture_output=True).stdout


def failed_on(status, key):
    """The load failed and its first error names the object `key`."""
    assert status["overallStatus"]["status"] == "LOAD_FAILED", status
    error = status["errors"]["errorLogs"][0]
    assert key in error["file"] or key in error["message"], error
    assert error["code"] == "Neo.ClientError.Statement.ExternalResourceFailed", error
    return error


@pytest.mark.skipif(not os.path.isdir(SNB_TEST), reason="the SNB test data set is not in ../shared/data")
def test_snb_csvs_load_from_a_bucket_prefix(s3, s3_server, tmp_path):
    server, driver, prefix = s3_server
    snb = tmp_path / "snb"
    subprocess.run([os.path.join(ROOT, "scripts", "snb-to-opencypher-csv"), str(snb), "--data", SNB_TEST],
                   check=True, capture_output=True)
    labels, types, rows = csv_counts(snb)
    names = sorted(os.listdir(snb))
    sizes = 0
    for i, name in enumerate(names):
        data = (snb / name).read_bytes()
        # Objects plain, gzip- and zstd-compressed, read as files are.
        if i % 3 == 1:
            name, data = name + ".gz", gzip.compress(data)
        elif i % 3 == 2 and shutil.which("zstd"):
            name, data = name + ".zst", zstd(data)
        sizes += put(s3, f"{prefix}/snb/{name}", data)
    # Not the format's, or not under `snb/`: not loaded.
    put(s3, f"{prefix}/snb/README.txt", b"not a csv")
    put(s3, f"{prefix}/snb-other/Person.csv", b":ID,:LABEL\nx,Other\n")

    status = load(server, f"s3://{BUCKET}/{prefix}/snb")
    overall = status["overallStatus"]
    assert overall["status"] == "LOAD_COMPLETED", status
    assert overall["filesDone"] == overall["filesTotal"] == len(names)
    assert overall["totalRecords"] == rows
    assert overall["bytesRead"] == overall["bytesTotal"] == sizes
    check_counts(driver, labels, types)
    assert single(driver, "MATCH (n:Other) RETURN count(n)") == 0
    person = single(driver, "MATCH (p:Person) RETURN elementId(p) ORDER BY elementId(p) LIMIT 1")
    assert single(driver, "MATCH (p) WHERE elementId(p) = $id RETURN count(p)", id=person) == 1


def test_an_ntriples_object_loads_and_joins_csv_vertices(s3, s3_server):
    server, driver, prefix = s3_server
    with open(os.path.join(RDF, "people.nt"), "rb") as f:
        put(s3, f"{prefix}/people.nt.gz", gzip.compress(f.read()))
    status = load(server, f"s3://{BUCKET}/{prefix}/people.nt.gz", format="ntriples")
    assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
    assert status["overallStatus"]["filesTotal"] == 1
    assert single(driver, "MATCH (n) WHERE id(n) = <http://example.org/alice> RETURN n.`http://example.org/name`") \
        == "Alice"
    # A CSV object whose :ID is the same IRI adds to that vertex's graph.
    put(s3, f"{prefix}/cities/city.csv", b":ID,:LABEL,name\nhttp://example.org/paris,City,Paris\n")
    put(s3, f"{prefix}/cities/lives.csv",
        b":START_ID,:END_ID,:TYPE\nhttp://example.org/alice,http://example.org/paris,LIVES_IN\n")
    status = load(server, f"s3://{BUCKET}/{prefix}/cities")
    assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
    assert single(driver, "PREFIX ex: <http://example.org/> "
                          "MATCH (a)-[:LIVES_IN]->(c:City) WHERE id(a) = ex::alice RETURN c.name") == "Paris"


def test_neptune_load_reads_a_bucket(s3, s3_server):
    server, driver, prefix = s3_server
    put(s3, f"{prefix}/g/nodes.csv", b"~id,~label,name:String\nv1,Person,Ann\nv2,Person,Bob\n")
    put(s3, f"{prefix}/g/edges.csv", b"~id,~from,~to,~label,since:Int\ne1,v1,v2,KNOWS,2020\n")
    with driver.session() as session:
        records = list(session.run(
            f"CALL neptune.load({{source: 's3://{BUCKET}/{prefix}/g', format: 'csv'}}) "
            "YIELD state, files, totalRecords RETURN state, files, totalRecords"))
    assert (records[0]["state"], records[0]["files"], records[0]["totalRecords"]) == ("LOAD_COMPLETED", 2, 3)
    assert single(driver, "MATCH (a:Person)-[k:KNOWS]->(b) RETURN a.name + b.name + toString(k.since)") \
        == "AnnBob2020"


def test_missing_buckets_keys_and_truncated_objects_fail_the_load(s3, s3_server):
    server, driver, prefix = s3_server
    failed_on(load(server, f"s3://no-such-bucket-{prefix}/x"), f"no-such-bucket-{prefix}")
    failed_on(load(server, f"s3://{BUCKET}/{prefix}/absent"), f"{prefix}/absent")

    people = b":ID,:LABEL,name\n" + b"".join(b"%d,P,name-%d\n" % (i, i) for i in range(20000))
    compressed = gzip.compress(people)
    put(s3, f"{prefix}/bad/a_people.csv", b":ID,:LABEL\nok,P\n")
    put(s3, f"{prefix}/bad/b_people.csv.gz", compressed[: len(compressed) // 2])
    failed_on(load(server, f"s3://{BUCKET}/{prefix}/bad"), f"{prefix}/bad/b_people.csv.gz")
    assert single(driver, "MATCH (n) RETURN count(n)") == 0


def test_refused_credentials_fail_the_load(tmp_path):
    if moto_s3.executable() is None:
        pytest.skip("moto_server is not installed next to this Python")
    # moto checks credentials once three requests (its start probe, the bucket, the object) were
    # served: the server's are unknown to it, so its listing is refused.
    with moto_s3.moto_s3("guarded", env={"INITIAL_NO_AUTH_ACTION_COUNT": "3"}) as endpoint:
        put_in = moto_s3.client(endpoint)
        put_in.put_object(Bucket="guarded", Key="in/people.csv", Body=b":ID,:LABEL\n1,P\n")
        server = started(tmp_path, endpoint)
        try:
            error = failed_on(load(server, "s3://guarded/in"), "in")
            assert "InvalidAccessKeyId" in error["message"], error
        finally:
            server.stop()


def test_an_unreachable_endpoint_fails_the_load(tmp_path):
    server = started(tmp_path, f"http://127.0.0.1:{free_port()}")
    try:
        failed_on(load(server, f"s3://{BUCKET}/somewhere/data.csv"), "somewhere/data.csv")
    finally:
        server.stop()


def test_load_csv_reads_an_object_from_s3(s3, s3_server):
    """`LOAD CSV FROM 's3://bucket/key'` streams one object through the same S3 settings;
    `file()` names it; a missing object is Neo4j's ExternalResourceFailed and writes nothing."""
    _, driver, prefix = s3_server
    put(s3, f"{prefix}/people.csv", b"name,age\nAda,36\nAlan,41\n")
    url = f"s3://{BUCKET}/{prefix}/people.csv"
    records, summary, _ = driver.execute_query(
        "LOAD CSV WITH HEADERS FROM $url AS row CREATE (p:P {name: row.name, age: toInteger(row.age)}) "
        "RETURN p.name AS name, p.age AS age, file() AS f, linenumber() AS line", url=url)
    assert [(r["name"], r["age"], r["line"]) for r in records] == [("Ada", 36, 2), ("Alan", 41, 3)]
    assert all(r["f"].endswith(f"{prefix}/people.csv") for r in records)
    assert summary.counters.nodes_created == 2
    for missing in [f"s3://{BUCKET}/{prefix}/absent.csv", f"s3://{BUCKET}"]:
        with pytest.raises(Exception) as failure:
            driver.execute_query("LOAD CSV FROM $url AS row CREATE (:Q)", url=missing)
        assert failure.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"
    records, _, _ = driver.execute_query("MATCH (q:Q) RETURN count(q) AS c")
    assert records[0]["c"] == 0
