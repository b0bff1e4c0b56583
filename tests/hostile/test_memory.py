"""Hostile-input suite, issue 30 item 5: parameters and literals that
allocate without bound. Each query below allocated gigabytes before the
per-query memory budget (--query-max-memory); now it fails with
Neo.TransientError.General.MemoryPoolOutOfMemoryError, the transaction rolls
back, and the server and other sessions go on. Scaled to run in seconds
against a debug build: the server gets a 64 MiB budget, the inputs are
several times that."""


import pytest
from neo4j.exceptions import TransientError

from conftest import assert_alive, commit_marker, connected, running

MEMORY_ERROR = "Neo.TransientError.General.MemoryPoolOutOfMemoryError"
BUDGET = 64 * 1024 * 1024


@pytest.fixture
def budget_server():
    with running(["--query-max-memory", str(BUDGET)]) as srv:
        yield srv


@pytest.fixture
def budget_driver(budget_server):
    with connected(budget_server) as drv:
        yield drv


def refused(drv, query, **params):
    """Runs `query` auto-commit (session.run: no driver retry of the
    transient status) and returns the error it must fail with."""
    with drv.session() as session:
        with pytest.raises(TransientError) as failure:
            session.run(query, **params).consume()
    assert failure.value.code == MEMORY_ERROR, failure.value
    return failure.value


def test_a_range_over_the_budget_is_refused(budget_server, budget_driver):
    committed = commit_marker(budget_driver)
    error = refused(budget_driver, "RETURN size(range(1, 20000000)) AS n")
    assert "--query-max-memory" in error.message
    assert_alive(budget_server, committed)


def test_a_large_list_parameter_is_refused_while_decoding(budget_server, budget_driver):
    committed = commit_marker(budget_driver)
    # 3M one-byte integers: 3 MB on the wire, 120 MB as values.
    refused(budget_driver, "RETURN size($l) AS n", l=[1] * 3_000_000)
    with budget_driver.session() as session:
        n = session.run("RETURN size($l) AS n", l=[1] * 100_000).single()["n"]
    assert n == 100_000
    assert_alive(budget_server, committed)


def test_a_list_built_per_row_is_refused(budget_server, budget_driver):
    committed = commit_marker(budget_driver)
    refused(budget_driver, "UNWIND range(1, 1000) AS i RETURN size(range(1, 100000 + i)) AS n")
    # A list literal copied into every row is shared by the copies
    # (docs/adr/0093-shared-list-values.md): one list, within the budget.
    literal = "[" + ",".join(["1"] * 100_000) + "]"
    with budget_driver.session() as session:
        sizes = [r["n"] for r in session.run(f"UNWIND range(1, 1000) AS i RETURN size({literal}) AS n")]
    assert sizes == [100_000] * 1000
    assert_alive(budget_server, committed)


def test_a_write_over_the_budget_is_not_half_applied(budget_server, budget_driver):
    committed = commit_marker(budget_driver)
    refused(
        budget_driver,
        "UNWIND range(1, 1000) AS i CREATE (:Committed {i: i}) "
        "WITH collect(i) AS c RETURN size(range(1, 20000000)) AS n",
    )
    # In an explicit transaction: the failure rolls the whole transaction back.
    with budget_driver.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:Committed)").consume()
        with pytest.raises(TransientError) as failure:
            tx.run("UNWIND range(1, 3000000) AS i RETURN size(collect(i)) AS n").consume()
        assert failure.value.code == MEMORY_ERROR
        tx.close()
    assert_alive(budget_server, committed)


def test_the_default_budget_stops_the_issue_reproduction(server, driver):
    """Without the flag (1 GiB default), `range(1, 60000000)` (2.2 GiB of
    values; 6.6 GB before) is refused inside the suite's 1.5 GiB cgroup."""
    committed = commit_marker(driver)
    refused(driver, "RETURN size(range(1, 60000000)) AS n")
    assert_alive(server, committed)


def test_a_query_text_too_large_to_plan_within_the_budget_is_refused(budget_server, budget_driver):
    committed = commit_marker(budget_driver)
    # About 1.4 MB of list literal: ~90 MB to parse and plan, over 64 MiB.
    literal = "[" + ",".join(["1"] * 700_000) + "]"
    error = refused(budget_driver, f"RETURN size({literal}) AS n")
    assert "parameters" in error.message
    # A list as large as a parameter is fine.
    records, _, _ = budget_driver.execute_query("RETURN size($l) AS n", l=[1] * 700_000)
    assert records[0]["n"] == 700_000
    assert_alive(budget_server, committed)
