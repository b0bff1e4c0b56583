"""`SHOW TRANSACTIONS` and `TERMINATE TRANSACTIONS` (issue 29), with the columns and messages of
the reference Neo4j 5.26 (recorded from it): a running transaction is listed with its client,
metadata and current query; terminating it stops its running query and fails its next statement
with `Neo.ClientError.Transaction.Terminated`; an unknown id is 'Transaction not found.'."""

import threading
import time

import pytest
from neo4j.exceptions import ClientError

DEFAULT = ["database", "transactionId", "currentQueryId", "connectionId", "clientAddress",
           "username", "currentQuery", "startTime", "status", "elapsedTime"]


def test_listed_with_client_metadata_and_query_then_terminated(driver):
    with driver.session() as a, driver.session() as b:
        tx = a.begin_transaction(metadata={"app": "listing"})
        tx.run("RETURN 1").consume()
        result = b.run("SHOW TRANSACTIONS")
        assert result.keys() == DEFAULT
        rows = [r.data() for r in result]
        mine = [r for r in rows if r["currentQuery"] == "SHOW TRANSACTIONS"]
        assert len(mine) == 1 and mine[0]["status"] == "Running"
        assert mine[0]["transactionId"].startswith("neo4j-transaction-")
        assert mine[0]["connectionId"].startswith("bolt-")
        host, port = mine[0]["clientAddress"].rsplit(":", 1)  # ip:port, as Neo4j shows it
        assert host == "127.0.0.1" and int(port) > 0

        every = b.run("SHOW TRANSACTIONS YIELD * WHERE metaData.app = 'listing'")
        assert len(every.keys()) == 39
        listed = [r.data() for r in every]
        assert len(listed) == 1
        target = listed[0]
        assert (target["protocol"], target["database"]) == ("bolt", "neo4j")
        assert target["currentQuery"] == ""  # between statements

        assert [r.data() for r in b.run("SHOW TRANSACTIONS $id YIELD transactionId",
                                        id=target["transactionId"])] == [
            {"transactionId": target["transactionId"]}]
        done = [r.data() for r in b.run("TERMINATE TRANSACTIONS $ids",
                                        ids=[target["transactionId"], "neo4j-transaction-0"])]
        assert done == [
            {"transactionId": target["transactionId"], "username": "",
             "message": "Transaction terminated."},
            {"transactionId": "neo4j-transaction-0", "username": None,
             "message": "Transaction not found."}]
        with pytest.raises(ClientError) as failure:
            tx.run("RETURN 2").consume()
        assert failure.value.code == "Neo.ClientError.Transaction.Terminated"
        tx.close()
        # The session goes on.
        assert a.run("RETURN 3 AS x").single()["x"] == 3


def test_a_running_query_is_stopped(driver):
    failures = []

    def endless():
        with driver.session() as s:
            try:
                s.run("UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b "
                      "WITH a WHERE a < 0 RETURN count(*)").consume()
            except ClientError as e:
                failures.append(e.code)

    runner = threading.Thread(target=endless)
    runner.start()
    with driver.session() as b:
        target = None
        for _ in range(200):
            rows = [r.data() for r in b.run(
                "SHOW TRANSACTIONS YIELD transactionId, currentQuery, currentQueryId "
                "WHERE currentQuery STARTS WITH 'UNWIND'")]
            if rows:
                target = rows[0]
                break
            time.sleep(0.05)
        assert target and target["currentQueryId"].startswith("query-")
        done = b.run("TERMINATE TRANSACTION '" + target["transactionId"] + "'").single()
        assert done["message"] == "Transaction terminated."
    runner.join(timeout=60)
    assert not runner.is_alive()
    assert failures == ["Neo.ClientError.Transaction.Terminated"]


def test_bad_ids_are_clear(driver):
    with pytest.raises(ClientError) as failure:
        driver.execute_query("TERMINATE TRANSACTIONS")
    assert failure.value.code == "Neo.ClientError.Statement.SyntaxError"
    with pytest.raises(ClientError) as failure:
        driver.execute_query("SHOW TRANSACTIONS $ids", ids=[1])
    assert "strings" in failure.value.message
