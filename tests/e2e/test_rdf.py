"""OneGraph over Bolt (issue 26, ADR 0108): an N-Triples file and openCypher CSV files sharing
IRIs loaded through POST /loader are one graph; vertices are found by IRI (`id(n) = <iri>`,
`prefix::local` after PREFIX) and RDF facts join CSV facts in one query, through the official
Python driver; a Turtle file with an undeclared prefix fails with its line and leaves nothing;
GET /export writes N-Quads that, loaded into an empty server, give the same graph; the export
streams (chunked transfer) and refuses relationship properties before its first byte; a triple
loaded twice is one edge (ADR 0113); a document of several 8 MiB pieces (parsed on worker threads,
its vertices numbered by one dictionary: ADRs 0150, 0155) gives the graph it spells, kept by a
kill -9 after LOAD_COMPLETED."""

import json
import os
import re
import shutil
import tempfile
import urllib.error
import urllib.request

from neo4j import GraphDatabase

from conftest import Server
from test_loader import import_dir, request, single

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rdf")
PREFIX = "PREFIX ex: <http://example.org/> "


def load(server, name, fmt, mode="NEW"):
    """Copies a data file into the import directory and loads it to a final state."""
    shutil.copy(os.path.join(HERE, name), import_dir(server))
    return run_load(server, name, fmt, mode)


def run_load(server, name, fmt, mode="NEW"):
    """Loads `name` of the import directory to a final state (every time: mode NEW, not the
    default AUTO, which skips a file an earlier load of it loaded); answers the status payload."""
    code, answer = request(server, "POST", "/loader",
                           {"source": f"file:///{name}", "format": fmt, "failOnError": True, "mode": mode})
    assert code == 200, answer
    load_id = answer["payload"]["loadId"]
    while True:
        code, answer = request(server, "GET", f"/loader/{load_id}")
        assert code == 200, answer
        status = answer["payload"]["overallStatus"]["status"]
        if status not in ("LOAD_IN_QUEUE", "LOAD_IN_PROGRESS"):
            return answer["payload"]


def test_rdf_and_csv_sharing_iris_are_one_graph(server):
    assert load(server, "employers.csv", "opencypher")["overallStatus"]["status"] == "LOAD_COMPLETED"
    payload = load(server, "people.nt", "ntriples")
    assert payload["overallStatus"]["status"] == "LOAD_COMPLETED", payload
    assert load(server, "works_for.csv", "opencypher")["overallStatus"]["status"] == "LOAD_COMPLETED"
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        # A vertex by IRI, written both ways.
        assert single(driver, "MATCH (n) WHERE id(n) = <http://example.org/alice> "
                              "RETURN n.`http://example.org/name`") == "Alice"
        assert single(driver, PREFIX + "MATCH (n) WHERE id(n) = ex::bob RETURN n.ex::name") == "Bob"
        assert single(driver, PREFIX + "MATCH (n {`ex::name`: 'Alice'}) RETURN n.ex::age") == 34
        # RDF facts (type, knows) joined with CSV facts (WORKS_FOR, the company's name).
        records, _, _ = driver.execute_query(
            PREFIX + "MATCH (b:ex::Person)<-[:ex::knows]-(a:ex::Person)-[w:WORKS_FOR]->(c:Company) "
            "RETURN a.ex::name AS a, b.ex::name AS b, w.since AS since, c.name AS company, "
            "labels(a) AS labels, elementId(c) AS company_id")
        assert [r.data() for r in records] == [{
            "a": "Alice", "b": "Bob", "since": 2019, "company": "Acme",
            "labels": ["http://example.org/Person"], "company_id": "http://example.org/acme",
        }]
        # Language-tagged literals keep their tag (a repeated predicate is a list).
        labels = single(driver, PREFIX + "MATCH (n) WHERE id(n) = ex::alice RETURN n.ex::label")
        assert sorted(labels) == ['"Alice"@en', '"Alicia"@es']
        # A blank node is a vertex of its own, reached through its edge.
        assert single(driver, PREFIX + "MATCH (:ex::Person)-[:ex::member]->(t) RETURN t.ex::name") \
            == "Blue team"
        assert single(driver, "MATCH (n) RETURN count(n)") == 4
    finally:
        driver.close()


def test_a_bad_turtle_file_fails_with_its_line_and_leaves_nothing(server):
    payload = load(server, "bad.ttl", "turtle")
    assert payload["overallStatus"]["status"] == "LOAD_FAILED", payload
    errors = payload["errors"]["errorLogs"]
    assert "bad.ttl:3:" in errors[0]["message"], errors
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        assert single(driver, "MATCH (n) RETURN count(n)") == 0
    finally:
        driver.close()


def export(server, fmt="nquads"):
    url = f"http://127.0.0.1:{server.http_port}/export?format={fmt}"
    with urllib.request.urlopen(url, timeout=30) as resp:
        assert resp.status == 200
        return resp.read().decode()


def canonical(text):
    """The statements as a sorted list, blank-node labels (which every load scopes anew)
    replaced by one placeholder."""
    return sorted(re.sub(r"_:\S+", "_:b", line) for line in text.splitlines() if line)


def test_export_then_load_into_an_empty_server_gives_the_same_graph(server):
    for name, fmt in (("people.nt", "ntriples"), ("graphs.nq", "nquads")):
        payload = load(server, name, fmt)
        assert payload["overallStatus"]["status"] == "LOAD_COMPLETED", payload
    first = export(server)
    assert '<http://example.org/g1> .' in first
    assert '"Alicia"@es' in first
    assert '"2024"^^<http://www.w3.org/2001/XMLSchema#gYear>' in first
    with tempfile.TemporaryDirectory(prefix="nereid-e2e-rdf-") as tmp:
        other = Server(os.path.join(tmp, "data"))
        other.start()
        try:
            with open(os.path.join(import_dir(other), "dump.nq"), "w", encoding="utf-8") as f:
                f.write(first)
            code, answer = request(other, "POST", "/loader",
                                   {"source": "file:///dump.nq", "format": "nquads"})
            assert code == 200, answer
            load_id = answer["payload"]["loadId"]
            while True:
                _, answer = request(other, "GET", f"/loader/{load_id}")
                state = answer["payload"]["overallStatus"]["status"]
                if state not in ("LOAD_IN_QUEUE", "LOAD_IN_PROGRESS"):
                    break
            assert state == "LOAD_COMPLETED", answer
            second = export(other)
            assert canonical(second) == canonical(first), (first, second)
            driver = GraphDatabase.driver(other.uri, auth=("neo4j", "x"))
            try:
                query = (PREFIX + "MATCH (a)-[k:ex::knows]->(b) WHERE id(a) = ex::alice "
                         "RETURN k.`~graph` AS g, b.ex::score AS score, b.ex::flag AS flag "
                         "ORDER BY g")
                records, _, _ = driver.execute_query(query)
                assert [r.data() for r in records] == [
                    {"g": "http://example.org/g1", "score": 1.5, "flag": True},
                    {"g": None, "score": 1.5, "flag": True},
                ]
            finally:
                driver.close()
        finally:
            other.stop()


def test_export_streams_a_graph_larger_than_a_chunk(server):
    """More than the server's 64 KiB chunk: sent with chunked transfer, every statement once."""
    lines = []
    for i in range(3000):
        s = f"<http://example.org/person/{i}>"
        lines.append(f'{s} <http://example.org/name> "Person number {i}" .')
        lines.append(f"{s} <http://example.org/knows> <http://example.org/person/{(i * 7) % 3000}> .")
    text = "\n".join(lines) + "\n"
    assert len(text) > 4 * 65536
    with open(os.path.join(import_dir(server), "many.nt"), "w", encoding="utf-8") as f:
        f.write(text)
    assert run_load(server, "many.nt", "ntriples")["overallStatus"]["status"] == "LOAD_COMPLETED"
    url = f"http://127.0.0.1:{server.http_port}/export?format=ntriples"
    with urllib.request.urlopen(url, timeout=30) as resp:
        assert resp.status == 200
        assert resp.headers["Transfer-Encoding"] == "chunked", dict(resp.headers)
        assert resp.headers["Content-Type"] == "application/n-triples"
        body = resp.read().decode()
    assert sorted(body.splitlines()) == sorted(lines)


def test_export_refuses_relationship_properties_before_its_first_byte(server):
    for name, fmt in (("employers.csv", "opencypher"), ("people.nt", "ntriples"),
                      ("works_for.csv", "opencypher")):
        assert load(server, name, fmt)["overallStatus"]["status"] == "LOAD_COMPLETED"
    url = f"http://127.0.0.1:{server.http_port}/export?format=nquads"
    try:
        urllib.request.urlopen(url, timeout=30)
        raise AssertionError("an export with a relationship property must be refused")
    except urllib.error.HTTPError as e:
        assert e.code == 400
        answer = json.loads(e.read())
    assert answer["code"] == "Neo.ClientError.Statement.ArgumentError", answer
    assert "[:WORKS_FOR]" in answer["message"] and "`since`" in answer["message"], answer
    code, answer = request(server, "GET", "/export?format=turtle")
    assert code == 400 and "expected ntriples or nquads" in answer["message"], answer


def test_a_triple_loaded_twice_is_one_edge(server):
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        for name, fmt in (("people.nt", "ntriples"), ("graphs.nq", "nquads")):
            assert load(server, name, fmt)["overallStatus"]["status"] == "LOAD_COMPLETED"
        counts = single(driver, "MATCH ()-[r]->() RETURN count(r)")
        for name, fmt in (("people.nt", "ntriples"), ("graphs.nq", "nquads")):
            assert load(server, name, fmt)["overallStatus"]["status"] == "LOAD_COMPLETED"
        # The blank node `_:team` is a new vertex in every load, so its `member` edge is new
        # too; every other edge is there once.
        assert single(driver, "MATCH ()-[r]->() RETURN count(r)") == counts + 1
        assert single(driver, "MATCH ()-[r:`http://example.org/knows`]->() RETURN count(r)") == 3
    finally:
        driver.close()


def test_export_of_a_query_subgraph(server):
    """`GET /export?query=...`: only what the read-only query returns (nodes, relationships,
    paths, inside lists too) and the ends of its relationships; the graph's other statements
    are left out; a writing query and a relationship property in the subgraph are refused."""
    import urllib.parse

    lines = []
    for i in range(6):
        s = f"<http://example.org/p{i}>"
        lines.append(f'{s} <http://example.org/name> "P{i}" .')
        lines.append(f"{s} <http://example.org/knows> <http://example.org/p{(i + 1) % 6}> .")
    with open(os.path.join(import_dir(server), "ring.nt"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    assert run_load(server, "ring.nt", "ntriples")["overallStatus"]["status"] == "LOAD_COMPLETED"

    def subgraph(query):
        q = urllib.parse.quote(query)
        url = f"http://127.0.0.1:{server.http_port}/export?format=ntriples&query={q}"
        with urllib.request.urlopen(url, timeout=30) as resp:
            return sorted(resp.read().decode().splitlines())

    # One relationship: both its ends with their properties, and the edge.
    got = subgraph("MATCH (a)-[k]->(b) WHERE id(a) = <http://example.org/p0> RETURN k")
    assert got == sorted([lines[0], lines[1], lines[2]])
    # A path of two hops and a list of one node.
    got = subgraph("MATCH p = (a)-[*2]->(b) WHERE id(a) = <http://example.org/p2> "
                   "MATCH (c) WHERE id(c) = <http://example.org/p5> RETURN p, [c] AS more")
    assert got == sorted([lines[4], lines[5], lines[6], lines[7], lines[8], lines[10]])
    for query, code in [("CREATE (n) RETURN n", "Neo.ClientError.Statement.ArgumentError"),
                        ("MATCH (n RETURN n", "Neo.ClientError.Statement.SyntaxError")]:
        q = urllib.parse.quote(query)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/export?query={q}", timeout=30)
            raise AssertionError(f"{query} must be refused")
        except urllib.error.HTTPError as e:
            assert e.code == 400
            assert json.loads(e.read())["code"] == code
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        assert single(driver, "MATCH (n) RETURN count(n)") == 6
    finally:
        driver.close()


def test_a_document_of_many_pieces_loads_whole_and_survives_kill9(server):
    """~13 MB of N-Triples: subjects, blank nodes and edge objects met in several pieces, an
    object that is never a subject, a literal with escapes; counts, lookups by IRI and edges
    equal what the file says, before and after kill -9."""
    people = 60_000
    knows = lambda i: ((i * 7919) % people, (i * 104729 + 1) % people)
    with open(os.path.join(import_dir(server), "many.nt"), "w", encoding="utf-8") as f:
        for i in range(people):
            s = f"<http://example.org/p/{i}>"
            f.write(f"{s} <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Person> .\n")
            f.write(f'{s} <http://example.org/name> "Person {i} \\u00E9\\n" .\n')
            f.write(f'{s} <http://example.org/age> "{i % 90}"^^<http://www.w3.org/2001/XMLSchema#integer> .\n')
            for t in knows(i):
                f.write(f"{s} <http://example.org/knows> <http://example.org/p/{t}> .\n")
            f.write(f"{s} <http://example.org/in> _:g{i % 1000} .\n")
            f.write(f"{s} <http://example.org/likes> <http://example.org/thing> .\n")
    edges = sum(len(set(knows(i))) for i in range(people))
    assert os.path.getsize(os.path.join(import_dir(server), "many.nt")) > 12 << 20

    def check():
        driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
        try:
            assert single(driver, "MATCH (n) RETURN count(n)") == people + 1000 + 1
            assert single(driver, "MATCH (n:`http://example.org/Person`) RETURN count(n)") == people
            knows_query = "MATCH (:`http://example.org/Person`)-[r:`http://example.org/knows`]->() RETURN count(r)"
            assert single(driver, knows_query) == edges
            assert single(driver, "MATCH ()-[r:`http://example.org/in`]->() RETURN count(r)") == people
            assert single(driver, PREFIX + "MATCH (t)<-[:ex::likes]-() WHERE id(t) = ex::thing RETURN count(*)") == people
            query = PREFIX + "MATCH (p)-[:ex::knows]->(q) WHERE id(p) = <http://example.org/p/12345> RETURN collect(elementId(q))"
            assert sorted(single(driver, query)) == sorted(f"http://example.org/p/{t}" for t in set(knows(12345)))
            query = PREFIX + "MATCH (p) WHERE id(p) = <http://example.org/p/59999> RETURN [p.`ex::name`, p.`ex::age`]"
            assert single(driver, query) == ["Person 59999 \u00e9\n", 59999 % 90]
        finally:
            driver.close()

    assert run_load(server, "many.nt", "ntriples")["overallStatus"]["status"] == "LOAD_COMPLETED"
    check()
    server.kill9()
    server.start()
    check()
