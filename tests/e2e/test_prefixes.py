"""OneGraph prefixes declared once for every query (issue 26: "how PREFIX declarations may be set
once per session rather than in every query"): a server started with `--prefix ex=IRI` (or
NEREID_PREFIXES, or the config file's `[prefixes]` table) resolves `ex::local` in queries that do
not declare `ex` themselves, through the official Python driver; a query's own PREFIX of the same
name wins; SHOW SETTINGS lists them; a bad prefix stops the server at start with the setting's
name."""

import subprocess

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import ClientError

from conftest import Server
from test_rdf import load


@pytest.fixture
def prefixed(tmp_path):
    server = Server(str(tmp_path / "data"),
                    extra_args=("--prefix", "ex=http://example.org/",
                                "--prefix", "foaf=http://xmlns.com/foaf/0.1/"),
                    extra_env={"NEREID_PREFIXES": "ex=http://ignored.org/ dc=http://ignored.org/"})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_queries_use_the_servers_prefixes_without_declaring_them(prefixed):
    assert load(prefixed, "people.nt", "ntriples")["overallStatus"]["status"] == "LOAD_COMPLETED"
    with GraphDatabase.driver(prefixed.uri, auth=("neo4j", "x")) as driver:
        def single(query):
            records, _, _ = driver.execute_query(query)
            return records[0][0]

        # RDF vertices by IRI, labels, keys and IRIs as values: no PREFIX line.
        assert single("MATCH (n) WHERE id(n) = ex::bob RETURN n.ex::name") == "Bob"
        assert single("MATCH (n:ex::Person {`ex::name`: 'Alice'}) RETURN n.ex::age") == 34
        assert single("RETURN ex::alice") == "http://example.org/alice"
        # Writes name IRIs the same way; what comes back is the full IRI.
        driver.execute_query("CREATE (:foaf::Agent {foaf::nick: 'c'})")
        assert single("MATCH (a:foaf::Agent) RETURN labels(a)") == ["http://xmlns.com/foaf/0.1/Agent"]
        assert single("MATCH (a:<http://xmlns.com/foaf/0.1/Agent>) RETURN keys(a)") == [
            "http://xmlns.com/foaf/0.1/nick"]
        # The flags won over the environment; a query's own declaration wins over both.
        assert single("PREFIX ex: <http://xmlns.com/foaf/0.1/> MATCH (a:ex::Agent) "
                      "RETURN a.ex::nick") == "c"
        # A name neither declares is still an error, with nothing applied.
        before = single("MATCH (n) RETURN count(n)")
        with pytest.raises(ClientError) as error:
            driver.execute_query("CREATE (:owl::Thing)")
        assert "Undeclared prefix `owl`" in error.value.message
        assert single("MATCH (n) RETURN count(n)") == before
        records, _, _ = driver.execute_query(
            "SHOW SETTINGS 'prefixes' YIELD name, value, isExplicitlySet")
        assert records[0].data() == {"name": "prefixes", "isExplicitlySet": True,
                                     "value": "ex=http://example.org/ foaf=http://xmlns.com/foaf/0.1/"}


def test_a_bad_prefix_stops_the_server_at_start_naming_the_setting(tmp_path):
    server = Server(str(tmp_path / "data"))
    result = subprocess.run([server.binary, "--data-dir", str(tmp_path / "data"),
                             "--prefix", "ex=example.org/"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "prefixes" in result.stderr and "absolute" in result.stderr, result.stderr
