"""PROFILE over Bolt (issue 24): the query runs and returns its rows, and
the summary's `profile` is the plan with what each operator did on its own
(rows, store calls as db hits, time in nanoseconds), in the shape the
drivers and cypher-shell read (Neo4j 5's keys: `rows`, `dbHits`, `time`,
`pageCacheHits`, `pageCacheMisses`, and the same under `args`)."""


def flatten(plan):
    out = [plan]
    for child in plan["children"]:
        out.extend(flatten(child))
    return out


def test_profile_returns_rows_and_per_operator_figures(driver):
    driver.execute_query(
        "UNWIND range(1, 300) AS i CREATE (:ProfP {i: i})-[:PROF_R]->(:ProfQ {i: i % 7})"
    )
    records, summary, _ = driver.execute_query(
        "PROFILE MATCH (p:ProfP)-[:PROF_R]->(q:ProfQ) WHERE q.i = 3 RETURN p.i AS i ORDER BY i LIMIT 5"
    )
    assert [r["i"] for r in records] == [3, 10, 17, 24, 31]
    assert summary.plan is None
    profile = summary.profile
    assert profile["operatorType"] == "ProduceResults"
    assert profile["rows"] == 5
    nodes = flatten(profile)
    for node in nodes:
        for key in ("rows", "dbHits", "time", "pageCacheHits", "pageCacheMisses"):
            assert isinstance(node[key], int) and node[key] >= 0, (node["operatorType"], key)
        assert node["args"]["Rows"] == node["rows"]
        assert node["args"]["DbHits"] == node["dbHits"]
    # 43 of the 300 q nodes have i = 3 (i % 7): whichever end the planner
    # starts from, an operator emits exactly them, and the operators that
    # read the store (the scan, the expand, the property or label tests)
    # report the calls they made.
    assert any(n["rows"] == 43 for n in nodes)
    assert all(n["dbHits"] > 0 for n in nodes if n["operatorType"] == "Expand")
    assert sum(n["dbHits"] for n in nodes) >= 43
    assert sum(n["time"] for n in nodes) > 0


def test_profile_of_a_write_applies_it_once(driver):
    _, summary, _ = driver.execute_query("PROFILE CREATE (:ProfW {x: 1}) RETURN 1 AS one")
    assert summary.counters.nodes_created == 1
    assert summary.profile["rows"] == 1
    records, _, _ = driver.execute_query("MATCH (w:ProfW) RETURN count(w) AS n")
    assert records[0]["n"] == 1


def test_explain_profile_explains_without_running(driver):
    _, summary, _ = driver.execute_query("EXPLAIN PROFILE CREATE (:ProfV)")
    assert summary.plan is not None
    records, _, _ = driver.execute_query("MATCH (v:ProfV) RETURN count(v) AS n")
    assert records[0]["n"] == 0


def test_explain_and_profile_carry_estimated_rows_per_operator(driver):
    driver.execute_query(
        "UNWIND range(1, 40) AS i CREATE (a:EstA {i: i}) "
        "CREATE (a)-[:EST_R]->(:EstB), (a)-[:EST_R]->(:EstB)"
    )
    _, summary, _ = driver.execute_query("EXPLAIN MATCH (a:EstA)-[:EST_R]->(b) RETURN b LIMIT 25")
    nodes = flatten(summary.plan)
    for node in nodes:
        assert isinstance(node["args"]["EstimatedRows"], float), node["operatorType"]
    by_type = {n["operatorType"]: n["args"]["EstimatedRows"] for n in nodes}
    # The label's count is exact; the expand multiplies it by the type's
    # average fan-out (80 relationships from 40 sources, a distinct count
    # that is an estimate itself); the limit caps what flows above it.
    assert by_type["NodeByLabelScan"] == 40.0
    assert 60.0 <= by_type["Expand"] <= 100.0
    assert by_type["Limit"] == 25.0
    assert by_type["ProduceResults"] == 25.0
    _, summary, _ = driver.execute_query("PROFILE MATCH (a:EstA) RETURN count(a) AS n")
    profiled = flatten(summary.profile)
    assert all(isinstance(n["args"]["EstimatedRows"], float) for n in profiled)
    assert profiled[0]["args"]["EstimatedRows"] == 1.0
