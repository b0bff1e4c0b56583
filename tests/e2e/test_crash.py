"""The crash harness inside pytest: a short kill -9 loop (CI runs the long one
through scripts/crash-loop), and proof that the harness's check fails when
the data and the model disagree."""

import os

import pytest
from neo4j import GraphDatabase

import crash_harness


def test_short_crash_loop_keeps_every_acknowledged_commit(tmp_path):
    summary = crash_harness.run(
        os.environ["NEREID_BIN"], iterations=5, seed=6, writers=3, workdir=str(tmp_path)
    )
    assert summary["acknowledged"] > 0


def test_the_check_detects_a_lost_commit_and_a_partial_transaction(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        drv.execute_query("CREATE (:Counter {w: 0})")
        model = crash_harness.Model(1)
        with drv.session() as session:
            tx, ids = crash_harness._run_txn(session, 0, 0)
            tx.commit()
        model.apply(0, 0, ids)
        model.next_i[0] = 1
        crash_harness._check(server.uri, model, {})  # agrees

        lost = crash_harness.Model(1)
        lost.present = {0: dict(model.present[0])}
        lost.counter = {0: 1}
        lost.present[0][1] = (1, 2, 3)  # "acknowledged" but never written
        with pytest.raises(crash_harness.Mismatch, match="acknowledged transaction"):
            crash_harness._check(server.uri, lost, {})

        # Half of transaction 1 (nodes without the counter update) must be
        # reported as a partly visible unacknowledged transaction.
        records, _, _ = drv.execute_query(
            "CREATE (a:T {w: 0, i: 1, k: 0})-[:R {w: 0, i: 1}]->(b:T {w: 0, i: 1, k: 1}) "
            "CREATE (c:T {w: 0, i: 1, k: 2}) RETURN id(a) AS a, id(b) AS b, id(c) AS c"
        )
        partial_ids = (records[0]["a"], records[0]["b"], records[0]["c"])
        with pytest.raises(crash_harness.Mismatch, match="partly visible"):
            crash_harness._check(server.uri, model, {0: (1, partial_ids)})
    finally:
        drv.close()
