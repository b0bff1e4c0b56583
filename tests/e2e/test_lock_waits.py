"""A write that meets another open transaction's uncommitted write on the same entity waits for
it, as Neo4j 5 does (docs/adr/0126-waiting-for-uncommitted-writes.md): past the waiter's
timeout it fails with `Neo.ClientError.Transaction.LockClientStopped` (testkit's
`test_tx_timeout` scenarios); once the holder commits, the waiting statement runs again on the
new version (no lost update); once it rolls back, the waiter goes on; a cycle of waits fails one
member with `Neo.TransientError.Transaction.DeadlockDetected`, which `execute_write` retries;
TERMINATE TRANSACTIONS releases a waiter; other sessions are served meanwhile."""

import threading
import time

import pytest
from neo4j import Query
from neo4j.exceptions import ClientError

LOCK_CLIENT_STOPPED = "Neo.ClientError.Transaction.LockClientStopped"


def wait_listed(driver, text):
    """Polls SHOW TRANSACTIONS until a query starting with `text` runs: the waiter is in its
    statement (the outcome checked afterwards does not depend on how far it got)."""
    with driver.session() as s:
        for _ in range(400):
            rows = [r.data() for r in s.run(
                "SHOW TRANSACTIONS YIELD transactionId, currentQuery "
                "WHERE currentQuery STARTS WITH $text", text=text)]
            if rows:
                return rows[0]["transactionId"]
            time.sleep(0.025)
    raise AssertionError(f"no running query starts with {text!r}")


def hold_then_wait(driver, session, hold, wait, work):
    """`session` writes `hold` in a transaction it keeps open; `work` runs on a thread, whose
    query `wait` is then listed running. Returns the open transaction and the thread."""
    tx1 = session.begin_transaction()
    tx1.run(hold).consume()
    waiter = threading.Thread(target=work)
    waiter.start()
    wait_listed(driver, wait)
    return tx1, waiter


def value(driver, key="v"):
    records, _, _ = driver.execute_query(f"MATCH (n:Node) RETURN n.{key} AS v")
    return records[0]["v"]


def test_a_wait_past_the_timeout_fails_with_lock_client_stopped(driver):
    driver.execute_query("MERGE (:Node)")
    with driver.session() as s1, driver.session() as s2:
        tx1 = s1.begin_transaction()
        tx1.run("MATCH (a:Node) SET a.property = 1").consume()
        tx2 = s2.begin_transaction(timeout=0.25)
        with pytest.raises(ClientError) as explicit:
            tx2.run("MATCH (a:Node) SET a.property = 2").consume()
        assert explicit.value.code == LOCK_CLIENT_STOPPED
        tx2.close()
        with pytest.raises(ClientError) as auto:
            s2.run(Query("MATCH (a:Node) SET a.property = 3", timeout=0.25)).consume()
        assert auto.value.code == LOCK_CLIENT_STOPPED
        # The session goes on, and the holder commits its write.
        assert s2.run("RETURN 1 AS x").single()["x"] == 1
        tx1.commit()
    assert value(driver, "property") == 1


def test_a_waiting_write_runs_again_after_the_holder_commits(driver):
    driver.execute_query("CREATE (:Node {v: 10})")
    outcome = {}

    def second():
        with driver.session() as s:
            tx2 = s.begin_transaction()
            record = tx2.run("MATCH (a:Node) SET a.v = a.v + 100 RETURN a.v AS v").single()
            tx2.commit()
            outcome["v"] = record["v"]

    with driver.session() as s1:
        tx1, waiter = hold_then_wait(driver, s1, "MATCH (a:Node) SET a.v = a.v + 1",
                                     "MATCH (a:Node) SET a.v = a.v + 100", second)
        tx1.commit()
        waiter.join(30)
    # The waiter read the holder's value: neither update is lost (Neo4j 5.26 answers 111 too).
    assert outcome == {"v": 111}
    assert value(driver) == 111


def test_a_waiting_write_goes_on_after_the_holder_rolls_back(driver):
    driver.execute_query("CREATE (:Node {v: 10})")
    done = []

    def second():
        with driver.session() as s:
            s.run("MATCH (a:Node) SET a.v = a.v + 100").consume()
            done.append(True)

    with driver.session() as s1:
        tx1, waiter = hold_then_wait(driver, s1, "MATCH (a:Node) SET a.v = 0",
                                     "MATCH (a:Node) SET a.v = a.v + 100", second)
        # Other sessions are served while one waits.
        assert driver.execute_query("RETURN 1 AS x").records[0]["x"] == 1
        tx1.rollback()
        waiter.join(30)
    assert done == [True]
    assert value(driver) == 110


def test_execute_write_retries_a_deadlock_victim(driver):
    driver.execute_query("CREATE (:Node {id: 1, v: 0}), (:Node {id: 2, v: 0})")
    both_hold = threading.Barrier(2)
    attempts = []

    def cross(first, then):
        def work(tx):
            attempts.append(first)
            tx.run("MATCH (a:Node {id: $id}) SET a.v = a.v + 1", id=first).consume()
            if attempts.count(first) == 1:
                both_hold.wait(10)  # each holds one node, then asks for the other's
            tx.run("MATCH (a:Node {id: $id}) SET a.v = a.v + 1", id=then).consume()
        return work

    def worker(first, then):
        with driver.session() as s:
            s.execute_write(cross(first, then))

    workers = [threading.Thread(target=worker, args=ids) for ids in [(1, 2), (2, 1)]]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    # One of them was the victim and ran again: three attempts, four increments.
    assert len(attempts) == 3
    records, _, _ = driver.execute_query("MATCH (a:Node) RETURN a.v AS v ORDER BY a.id")
    assert [r["v"] for r in records] == [2, 2]


def test_terminating_a_waiting_transaction_releases_it(driver):
    driver.execute_query("CREATE (:Node {v: 0})")
    failures = []

    def second():
        with driver.session() as s:
            try:
                s.run("MATCH (a:Node) SET a.v = 2").consume()
            except ClientError as e:
                failures.append(e.code)

    with driver.session() as s1, driver.session() as s3:
        tx1, waiter = hold_then_wait(driver, s1, "MATCH (a:Node) SET a.v = 1",
                                     "MATCH (a:Node) SET a.v = 2", second)
        target = wait_listed(driver, "MATCH (a:Node) SET a.v = 2")
        s3.run("TERMINATE TRANSACTION $id", id=target).consume()
        waiter.join(30)
        assert failures == ["Neo.ClientError.Transaction.Terminated"]
        tx1.commit()
    assert value(driver) == 1
