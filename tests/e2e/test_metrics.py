"""GET /metrics (issue 29): the Prometheus text parses with the official
Python client's parser, names follow the conventions, and the numbers move
with the work done."""

import os
import urllib.request

import pytest
from neo4j.exceptions import ClientError, TransientError

parser = pytest.importorskip(
    "prometheus_client.parser", reason="prometheus_client is installed by scripts/test-all"
)


def scrape(server):
    """{family name: family} of one scrape, checking the media type."""
    with urllib.request.urlopen(f"http://127.0.0.1:{server.http_port}/metrics", timeout=10) as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = resp.read().decode()
    return {f.name: f for f in parser.text_string_to_metric_families(text)}


def value(families, name, **labels):
    """The value of the sample `name` with exactly `labels`."""
    for family in families.values():
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    raise AssertionError(f"no sample {name}{labels}")


def test_the_metrics_parse_and_follow_the_conventions(server, driver):
    driver.execute_query("RETURN 1")
    families = scrape(server)
    expected = {
        "nereid_bolt_connections_open": "gauge",
        "nereid_bolt_connections": "counter",
        "nereid_queries": "counter",
        "nereid_query_duration_seconds": "histogram",
        "nereid_transactions_active": "gauge",
        "nereid_transactions_committed": "counter",
        "nereid_transactions_rolled_back": "counter",
        "nereid_write_conflicts": "counter",
        "nereid_log_written_bytes": "counter",
        "nereid_log_fsync_duration_seconds": "histogram",
        "nereid_checkpoints": "counter",
        "nereid_plan_cache_hits": "counter",
        "nereid_plan_cache_misses": "counter",
        "nereid_plan_cache_entries": "gauge",
    }
    for name, kind in expected.items():
        assert name in families, f"{name} missing from {sorted(families)}"
        assert families[name].type == kind, (name, families[name].type)
    for name, family in families.items():
        assert name.startswith(("nereid_", "process_")), name
        if family.type == "counter":
            assert all(s.name.endswith("_total") for s in family.samples), family.samples
    # A histogram's +Inf bucket holds every observation.
    inf = value(families, "nereid_query_duration_seconds_bucket", le="+Inf")
    assert inf == value(families, "nereid_query_duration_seconds_count") >= 1
    assert value(families, "nereid_bolt_connections_open") >= 1


def test_queries_commits_and_the_log_move_the_numbers(server, driver):
    before = scrape(server)
    driver.execute_query("CREATE (:Metric {i: 1})")
    with pytest.raises(ClientError):
        driver.execute_query("RETURN nope")
    with driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:Metric {i: 2})").consume()
        tx.rollback()
    server.http_post("/admin/checkpoint")
    after = scrape(server)

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("nereid_queries_total", outcome="success") >= 2
    assert moved("nereid_queries_total", outcome="client_error") == 1
    assert moved("nereid_transactions_committed_total") >= 1
    assert moved("nereid_transactions_rolled_back_total") >= 1
    assert moved("nereid_log_written_bytes_total") > 0
    assert moved("nereid_log_fsync_duration_seconds_count") >= 1
    assert moved("nereid_checkpoints_total") == 1
    assert value(after, "nereid_checkpoint_last_duration_seconds") > 0
    assert value(after, "nereid_checkpoint_age_seconds") >= 0
    assert moved("nereid_query_duration_seconds_count") >= 3
    # The same text twice is a hit the second time.
    driver.execute_query("MATCH (m:Metric) RETURN count(m) AS c")
    driver.execute_query("MATCH (m:Metric) RETURN count(m) AS c")
    again = scrape(server)
    assert value(again, "nereid_plan_cache_hits_total") > value(after, "nereid_plan_cache_hits_total")
    assert value(again, "nereid_transactions_active") == 0


def test_a_write_conflict_is_counted(server, driver):
    driver.execute_query("CREATE (:Contended {v: 0})")
    before = value(scrape(server), "nereid_write_conflicts_total")
    with driver.session() as first, driver.session() as second:
        t1 = first.begin_transaction()
        t2 = second.begin_transaction()
        # t2's snapshot is seen before t1 commits: its write cannot run
        # again on a newer one, and fails.
        t2.run("MATCH (n:Contended) RETURN n.v").consume()
        t1.run("MATCH (n:Contended) SET n.v = 1").consume()
        t1.commit()
        with pytest.raises(TransientError):
            t2.run("MATCH (n:Contended) SET n.v = 2").consume()
            t2.commit()
    assert value(scrape(server), "nereid_write_conflicts_total") == before + 1


def test_loads_are_counted_by_state_with_their_rows(server, driver):
    families = scrape(server)
    assert value(families, "nereid_loads", state="LOAD_COMPLETED") == 0
    source = os.path.join(server.data_dir, "import", "people")
    os.makedirs(source, exist_ok=True)
    with open(os.path.join(source, "people.csv"), "w") as f:
        f.write(":ID(P),:LABEL,name,age:int\n1,Person,Ann,31\n2,Person,Bob,42\n")
    with driver.session() as session:
        session.run("CALL neptune.load({source: 'file:///people', format: 'opencypher'}) "
                    "YIELD state RETURN state").consume()
    families = scrape(server)
    assert families["nereid_loads"].type == "gauge"
    assert value(families, "nereid_loads", state="LOAD_COMPLETED") == 1
    assert value(families, "nereid_loads", state="LOAD_IN_PROGRESS") == 0
    assert value(families, "nereid_load_records_total") == 2
    assert value(families, "nereid_load_property_values_total") == 4
    assert value(families, "nereid_load_running_read_bytes") == 0


def test_store_memory_is_reported_by_part_and_grows_with_data(server, driver):
    parts = ("relations", "adjacency", "dictionaries", "indexes", "statistics")
    before = scrape(server)
    assert before["nereid_store_memory_bytes"].type == "gauge"
    empty = {part: value(before, "nereid_store_memory_bytes", part=part) for part in parts}
    assert all(bytes_ >= 0 for bytes_ in empty.values()), empty
    driver.execute_query("CREATE INDEX member_id FOR (m:Member) ON (m.id)")
    driver.execute_query("CREATE TEXT INDEX member_name FOR (m:Member) ON (m.name)")
    driver.execute_query("CALL db.awaitIndexes()")
    driver.execute_query(
        "UNWIND range(1, 50000) AS i "
        "CREATE (:Member {id: i, name: 'member number ' + toString(i)})"
        "-[:JOINED {at: i}]->(:Club {id: i % 100})")
    after = scrape(server)
    loaded = {part: value(after, "nereid_store_memory_bytes", part=part) for part in parts}
    for part in parts:
        assert loaded[part] > 0, (part, loaded)
        assert loaded[part] > empty[part], (part, empty, loaded)
    # 100,000 nodes and 50,000 relationships with their labels and
    # properties are some 450,000 tuples, of at least 4 bytes each.
    assert loaded["relations"] > 450_000 * 4, loaded
