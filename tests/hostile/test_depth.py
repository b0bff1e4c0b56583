"""Query shapes that overflowed the stack and aborted the process
(hardening item 1), sent by a real driver: each ends in rows or a Neo4j
status, and the server and its other sessions go on."""

import pytest
from neo4j.exceptions import Neo4jError

from conftest import assert_alive, commit_marker


def hops(n):
    return "-->()" * n


CASES = [
    # (query, expected: rows count or a status code)
    ("EXPLAIN MATCH (a)" + hops(40) + " RETURN count(*)", 0),
    ("EXPLAIN MATCH (a)" + hops(100) + " RETURN count(*)", 0),
    ("EXPLAIN MATCH (a)" + hops(200) + " RETURN count(*)", "Neo.DatabaseError.Statement.ExecutionFailed"),
    ("MATCH (a)" + hops(200) + " RETURN count(*)", 1),
    ("MATCH (a)" + "-[*]->()" * 400 + " RETURN count(*)", 1),
    ("WITH 1 AS x " * 13000 + "RETURN x", 1),
    (
        "".join(f"FOREACH (x{i} IN [] | " for i in range(10000)) + "CREATE ()" + ")" * 10000,
        "Neo.ClientError.Statement.SyntaxError",
    ),
    ("CALL { " * 20000 + "RETURN 1 AS x" + " }" * 20000 + " RETURN 1", "Neo.ClientError.Statement.SyntaxError"),
    ("RETURN " + "(" * 5000 + "1" + ")" * 5000, "Neo.ClientError.Statement.SyntaxError"),
    # A value nested 20,000 levels deep, built by the query (parameters are
    # limited to 64 levels): dropping, copying and comparing it recursed
    # once per level and overflowed an executor thread's stack. Slow (the
    # memory budget walks the accumulator at each step), but it must end.
    (
        "WITH reduce(f = {equals: 1}, i IN range(1, 20000) | {andAll: [f]}) AS f "
        "WITH f, f AS g WHERE f = g RETURN size(keys(f)) AS k",
        1,
    ),
]


@pytest.mark.parametrize("query,expected", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_deep_shapes_end_in_rows_or_a_status(server, driver, query, expected):
    committed = commit_marker(driver)
    driver.execute_query("CREATE ()-[:R]->()")
    if isinstance(expected, int):
        records, _, _ = driver.execute_query(query)
        assert len(records) == expected
    else:
        with pytest.raises(Neo4jError) as failure:
            driver.execute_query(query)
        assert failure.value.code == expected
    assert_alive(server, committed)
