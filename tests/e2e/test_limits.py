"""Limits and status codes through the official Python driver against the
real binary: the connection cap (flag), the message size limit, an unknown
database and a bookmark this server never issued."""

import os
import tempfile
import time

import pytest
from neo4j import Bookmarks, GraphDatabase
from neo4j.exceptions import ClientError, TransientError

from conftest import Server


@pytest.fixture
def limited():
    with tempfile.TemporaryDirectory(prefix="nereid-e2e-") as tmp:
        srv = Server(
            os.path.join(tmp, "data"),
            extra_args=["--bolt-max-connections", "1", "--bolt-max-message-bytes", "4096"],
        )
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()


def _take_the_only_place(session):
    # The start-up probe's connection may still hold the one place for a
    # moment: retry (bounded) until this session has it.
    deadline = time.monotonic() + 60
    while True:
        try:
            return session.run("RETURN 1 AS x").single()["x"]
        except TransientError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_a_connection_over_the_limit_gets_a_transient_error(limited):
    auth = ("neo4j", "x")
    with GraphDatabase.driver(limited.uri, auth=auth) as first:
        with first.session() as held:
            assert _take_the_only_place(held) == 1
            with GraphDatabase.driver(limited.uri, auth=auth, max_transaction_retry_time=0) as second:
                with pytest.raises(TransientError) as err:
                    second.execute_query("RETURN 1 AS x")
                assert err.value.code == "Neo.TransientError.Request.NoThreadsAvailable"
    # The place is free again once the first client has gone (the server
    # notices the close asynchronously: the driver's retries cover that).
    with GraphDatabase.driver(limited.uri, auth=auth) as again:
        records, _, _ = again.execute_query("RETURN 2 AS x")
        assert records[0]["x"] == 2


def test_an_oversized_message_is_refused(limited):
    with GraphDatabase.driver(limited.uri, auth=("neo4j", "x")) as drv:
        with pytest.raises(Exception):
            drv.execute_query("RETURN $s AS s", {"s": "x" * 10_000})
        records, _, _ = drv.execute_query("RETURN $s AS s", {"s": "x" * 100})
        assert records[0]["s"] == "x" * 100


def test_unknown_database_and_foreign_bookmark_are_client_errors(driver):
    with pytest.raises(ClientError) as err:
        driver.execute_query("RETURN 1", database_="movies")
    assert err.value.code == "Neo.ClientError.Database.DatabaseNotFound"
    records, _, _ = driver.execute_query("RETURN 1 AS x", database_="neo4j")
    assert records[0]["x"] == 1
    with driver.session(bookmarks=Bookmarks.from_raw_values(["FB:kcwQ3Z4s"])) as session:
        with pytest.raises(ClientError) as err:
            session.run("RETURN 1").consume()
    assert err.value.code == "Neo.ClientError.Transaction.InvalidBookmark"
