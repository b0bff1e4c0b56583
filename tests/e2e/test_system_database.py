"""Queries on the `system` database (issue 29): administration commands and plain procedure calls
run there; graph queries are refused with the reference Neo4j 5.26's SemanticError texts instead of
running on the user graph (which they did before)."""

import pytest
from neo4j.exceptions import ClientError


def test_administration_commands_and_procedure_calls_run_on_system(driver):
    records, _, _ = driver.execute_query("SHOW DATABASES YIELD name", database_="system")
    assert {r["name"] for r in records} == {"neo4j", "system"}
    records, _, _ = driver.execute_query("CALL dbms.components()", database_="system")
    assert records[0]["name"] == "Neo4j Kernel"


@pytest.mark.parametrize("query, says", [
    ("MATCH (n) RETURN count(n)", "The following unsupported clauses were used: MATCH. "),
    ("CREATE (n:Leak)", "The following unsupported clauses were used: CREATE. "),
    ("RETURN 1 AS x", "This Cypher command can only be executed in a user database: RETURN 1 AS x"),
    ("SHOW INDEXES", "The following commands are not allowed on a system database: SHOW INDEXES."),
])
def test_graph_queries_are_refused_on_system(driver, query, says):
    with pytest.raises(ClientError) as failure:
        driver.execute_query(query, database_="system")
    assert failure.value.code == "Neo.ClientError.Statement.SemanticError"
    assert says in failure.value.message
    # Nothing reached the user graph.
    records, _, _ = driver.execute_query("MATCH (n:Leak) RETURN count(n) AS c")
    assert records[0]["c"] == 0
