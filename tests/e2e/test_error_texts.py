"""Neo4j's error texts through the official Python driver (issue 31): the
FAILURE message is Neo4j's own text, recorded from the reference Neo4j 5.26
(clients such as langchain and LlamaIndex match it), and nereid's openCypher
detail (`UndefinedVariable`, ...) travels in the GQL status description
only (ADR 0138). A `SKIP` / `LIMIT` parameter of the wrong type fails when
the query is compiled, with the parameter's position, as Neo4j's does."""

import pytest
from neo4j.exceptions import ClientError

# (query, parameters, code, message, detail) - messages as Neo4j 5.26 sends them.
SAME_AS_NEO4J = [
    ("RETURN foo(1)", {}, "Neo.ClientError.Statement.SyntaxError",
     "Unknown function 'foo' (line 1, column 8 (offset: 7))\n\"RETURN foo(1)\"\n        ^",
     "UnknownFunction"),
    ("MATCH (n) RETURN m", {}, "Neo.ClientError.Statement.SyntaxError",
     "Variable `m` not defined (line 1, column 18 (offset: 17))\n\"MATCH (n) RETURN m\"\n                  ^",
     "UndefinedVariable"),
    ("MATCH (a) CREATE (a)", {}, "Neo.ClientError.Statement.SyntaxError",
     "Variable `a` already declared (line 1, column 19 (offset: 18))\n\"MATCH (a) CREATE (a)\"\n                   ^",
     "VariableAlreadyBound"),
    ("RETURN count(count(1))", {}, "Neo.ClientError.Statement.SyntaxError",
     "Can't use aggregate functions inside of aggregate functions. (line 1, column 14 (offset: 13))\n"
     "\"RETURN count(count(1))\"\n              ^",
     "NestedAggregation"),
    ("CALL db.nope()", {}, "Neo.ClientError.Procedure.ProcedureNotFound",
     "There is no procedure with the name `db.nope` registered for this database instance. "
     "Please ensure you've spelled the procedure name correctly and that the procedure is properly deployed.",
     "ProcedureNotFound"),
    ("MATCH (n) RETURN n LIMIT true", {}, "Neo.ClientError.Statement.SyntaxError",
     "Invalid input. 'true' is not a valid value. Must be a non-negative integer. (line 1, column 26 (offset: 25))\n"
     "\"MATCH (n) RETURN n LIMIT true\"\n                          ^",
     "InvalidArgumentType"),
    ("MATCH (n) RETURN n LIMIT 'x'", {}, "Neo.ClientError.Statement.SyntaxError",
     "Invalid input. 'x' is not a valid value. Must be a non-negative integer. (line 1, column 26 (offset: 25))\n"
     "\"MATCH (n) RETURN n LIMIT 'x'\"\n                          ^",
     "InvalidArgumentType"),
    ("MATCH (n) RETURN n LIMIT null", {}, "Neo.ClientError.Statement.SyntaxError",
     "Invalid input. 'NULL' is not a valid value. Must be a non-negative integer. (line 1, column 26 (offset: 25))\n"
     "\"MATCH (n) RETURN n LIMIT null\"\n                          ^",
     "InvalidArgumentType"),
    ("MATCH (n) RETURN n SKIP $x", {"x": "y"}, "Neo.ClientError.Statement.SyntaxError",
     "Type mismatch for parameter 'x': expected Integer but was String (line 1, column 25 (offset: 24))\n"
     "\"MATCH (n) RETURN n SKIP $x\"\n                         ^",
     None),
    ("MATCH (n) RETURN n LIMIT $x", {"x": True}, "Neo.ClientError.Statement.SyntaxError",
     "Type mismatch for parameter 'x': expected Integer but was Boolean (line 1, column 26 (offset: 25))\n"
     "\"MATCH (n) RETURN n LIMIT $x\"\n                          ^",
     None),
    ("RETURN 1/0", {}, "Neo.ClientError.Statement.ArithmeticError", "/ by zero", None),
    # a lone parameter naming labels or types that a clause writes
    ('MERGE (a:$($x))', {'x': 1}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch for parameter \'x\': expected String or List<String> but was Integer (line 1, column 12 (offset: 11))\n"MERGE (a:$($x))"\n            ^',
     None),
    ('CREATE ()-[:$($x)]->()', {'x': 1}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch for parameter \'x\': expected String or List<String> but was Integer (line 1, column 15 (offset: 14))\n"CREATE ()-[:$($x)]->()"\n               ^',
     None),
    ('MATCH (n) SET n:$($x)', {'x': True}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch for parameter \'x\': expected String or List<String> but was Boolean (line 1, column 19 (offset: 18))\n"MATCH (n) SET n:$($x)"\n                   ^',
     None),
    ('CREATE (a:$($x))', {'x': {'a': 1}}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch for parameter \'x\': expected String or List<String> but was Map, Node or Relationship (line 1, column 13 (offset: 12))\n"CREATE (a:$($x))"\n             ^',
     None),
    ('MATCH (n) REMOVE n:$($x)', {'x': 7}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch for parameter \'x\': expected String or List<String> but was Integer (line 1, column 22 (offset: 21))\n"MATCH (n) REMOVE n:$($x)"\n                      ^',
     None),
    # operand types known before running (literals, labels on non-entities)
    ('RETURN toUpper(1) AS x', {}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch: expected String but was Integer (line 1, column 16 (offset: 15))\n"RETURN toUpper(1) AS x"\n                ^',
     "InvalidArgumentType"),
    ("RETURN 1 + 'a' - true AS x", {}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch: expected Float, Integer, Duration, Date, Time, LocalTime, LocalDateTime or DateTime but was String (line 1, column 10 (offset: 9))\n"RETURN 1 + \'a\' - true AS x"\n          ^',
     "InvalidArgumentType"),
    ('RETURN 2 / true AS x', {}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch: expected Float or Integer but was Boolean (line 1, column 12 (offset: 11))\n"RETURN 2 / true AS x"\n            ^',
     "InvalidArgumentType"),
    ('RETURN -true AS x', {}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch: expected Float or Integer but was Boolean (line 1, column 9 (offset: 8))\n"RETURN -true AS x"\n         ^',
     "InvalidArgumentType"),
    ('RETURN 1:P AS x', {}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch: expected Node or Relationship but was Integer (line 1, column 8 (offset: 7))\n"RETURN 1:P AS x"\n        ^',
     "InvalidArgumentType"),
    ("RETURN 'a':P|Q AS x", {}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch: expected Node or Relationship but was String (line 1, column 8 (offset: 7))\n"RETURN \'a\':P|Q AS x"\n        ^',
     "InvalidArgumentType"),
    ('RETURN reverse(true) AS x', {}, 'Neo.ClientError.Statement.SyntaxError',
     'Type mismatch: expected String or List<T> but was Boolean (line 1, column 16 (offset: 15))\n"RETURN reverse(true) AS x"\n                ^',
     "InvalidArgumentType"),
]


@pytest.mark.parametrize("query,params,code,message,detail", SAME_AS_NEO4J)
def test_messages_are_neo4js_and_the_detail_is_in_the_description(driver, query, params, code, message,
                                                                  detail):
    with driver.session() as s:
        with pytest.raises(ClientError) as failure:
            s.run(query, params).consume()
    error = failure.value
    assert (error.code, error.message) == (code, message)
    description = error.gql_status_description
    if detail:
        assert description == f"error: {detail}: {message}"
    else:
        assert description == f"error: {message}"


def test_wrong_typed_row_count_parameter_fails_before_anything_runs(driver):
    with driver.session() as s:
        result = None
        with pytest.raises(ClientError) as failure:
            result = s.run("CREATE (:Written) WITH 1 AS one MATCH (n) RETURN n LIMIT $x", x="3")
            result.consume()
        assert "Type mismatch for parameter 'x'" in failure.value.message
        assert s.run("MATCH (n:Written) RETURN count(n) AS c").single()["c"] == 0
        # numbers pass the check; a float or a negative one is refused when the clause runs
        rows = s.run("UNWIND range(1, 3) AS i RETURN i LIMIT $x", x=2).value()
        assert rows == [1, 2]
        with pytest.raises(ClientError) as negative:
            s.run("UNWIND range(1, 3) AS i RETURN i LIMIT $x", x=-1).consume()
        assert (negative.value.code, negative.value.message) == (
            "Neo.ClientError.Statement.ArgumentError",
            "LIMIT: Invalid input. '-1' is not a valid value. Must be a non-negative integer.")
