"""Write-write conflicts: a writer whose snapshot was already read and that meets
a newer commit gets a TransientError, which the drivers' managed transactions
retry, so concurrent increments lose nothing (waits for uncommitted writes:
test_lock_waits.py)."""

import threading

import pytest
from neo4j import GraphDatabase
from neo4j.exceptions import TransientError


def test_conflicting_explicit_transactions(server, driver):
    driver.execute_query("CREATE (:Counter {n: 0})")
    with driver.session() as s1, driver.session() as s2:
        t1 = s1.begin_transaction()
        t2 = s2.begin_transaction()
        assert t2.run("MATCH (c:Counter) RETURN c.n AS n").single()["n"] == 0
        t1.run("MATCH (c:Counter) SET c.n = c.n + 1").consume()
        t1.commit()
        # t2 answered from its snapshot: its write cannot run again on a newer one.
        with pytest.raises(TransientError) as err:
            t2.run("MATCH (c:Counter) SET c.n = c.n + 10").consume()
            t2.commit()
        assert err.value.code.startswith("Neo.TransientError.")
    records, _, _ = driver.execute_query("MATCH (c:Counter) RETURN c.n AS n")
    assert records[0]["n"] == 1


def test_managed_transactions_retry_and_lose_no_update(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        drv.execute_query("CREATE (:Counter {n: 0})")

        def increment(tx):
            tx.run("MATCH (c:Counter) SET c.n = c.n + 1").consume()

        def worker():
            with drv.session() as s:
                for _ in range(15):
                    s.execute_write(increment)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        records, _, _ = drv.execute_query("MATCH (c:Counter) RETURN c.n AS n")
        assert records[0]["n"] == 60
    finally:
        drv.close()
