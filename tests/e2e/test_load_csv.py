"""LOAD CSV and CALL { ... } IN TRANSACTIONS over Bolt (issues 25 and 31): files are read from
the import directory only; rows are lists, or maps with headers, with unquoted empty fields
null; batches commit one by one, each seen by the next and by other sessions as soon as it
commits; ON ERROR CONTINUE / BREAK with REPORT STATUS; the summary counts every batch's writes;
in an explicit transaction the query is refused with Neo4j's code and text (langchain and
LlamaIndex retry in auto-commit on exactly these)."""

import gzip
import os

import pytest
from neo4j.exceptions import ClientError, DatabaseError


def import_dir(server):
    path = os.path.join(server.data_dir, "import")
    os.makedirs(path, exist_ok=True)
    return path


def write(server, name, text, compress=False):
    path = os.path.join(import_dir(server), name)
    data = text.encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if compress else data)
    return path


def rows(driver, query, **params):
    """Rows and summary of `query` in an auto-commit transaction (`execute_query` would run it
    in an explicit one, where IN TRANSACTIONS is refused, as in Neo4j)."""
    with driver.session() as session:
        result = session.run(query, params)
        records = [r.data() for r in result]
        return records, result.consume()


PEOPLE = 'id,name,age\n1,Ann,31\n2,"Bob, Jr.",\n3,"",45\n4,Dee,52\n5,Eve,28\n'


def test_rows_are_maps_with_headers_and_lists_without(server, driver):
    write(server, "people.csv", PEOPLE)
    got, _ = rows(driver, "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row RETURN row")
    assert got[0] == {"row": {"id": "1", "name": "Ann", "age": "31"}}
    # Unquoted empty: null; quoted empty: the empty string.
    assert got[1] == {"row": {"id": "2", "name": "Bob, Jr.", "age": None}}
    assert got[2]["row"]["name"] == ""
    assert len(got) == 5
    got, _ = rows(driver, "LOAD CSV FROM 'file:///people.csv' AS row RETURN row LIMIT 2")
    assert got == [{"row": ["id", "name", "age"]}, {"row": ["1", "Ann", "31"]}]
    write(server, "semi.csv.gz", "a;b\n1;2\n", compress=True)
    got, _ = rows(driver, "LOAD CSV WITH HEADERS FROM $url AS r FIELDTERMINATOR ';' "
                          "RETURN toInteger(r.a) + toInteger(r.b) AS s", url="file:///semi.csv.gz")
    assert got == [{"s": 3}]


def test_linenumber_and_file_describe_the_row_being_read(server, driver):
    path = os.path.realpath(write(server, "lines.csv", 'id,note\n1,plain\n2,"two\nlines"\n3,last\n'))
    got, _ = rows(driver, "LOAD CSV WITH HEADERS FROM 'file:///lines.csv' AS row "
                          "RETURN row.id AS id, linenumber() AS line, file() AS file")
    # The line a record starts on (a quoted field may span lines); the file's absolute path.
    assert got == [{"id": "1", "line": 2, "file": path}, {"id": "2", "line": 3, "file": path},
                   {"id": "3", "line": 5, "file": path}]
    got, _ = rows(driver, "LOAD CSV FROM 'file:///lines.csv' AS row "
                          "WITH row WHERE linenumber() > 1 RETURN collect(linenumber()) AS lines")
    assert got == [{"lines": [2, 3, 5]}]
    # Also per row inside the batches of CALL { } IN TRANSACTIONS.
    rows(driver, "LOAD CSV WITH HEADERS FROM 'file:///lines.csv' AS row "
                 "CALL (row) { CREATE (:Line {id: row.id, at: linenumber(), from: file()}) } "
                 "IN TRANSACTIONS OF 2 ROWS")
    got, _ = rows(driver, "MATCH (l:Line) RETURN l.id AS id, l.at AS at, l.from = $path AS same ORDER BY id",
                  path=path)
    assert got == [{"id": "1", "at": 2, "same": True}, {"id": "2", "at": 3, "same": True},
                   {"id": "3", "at": 5, "same": True}]
    # Outside LOAD CSV (and after an aggregation ends its rows) both are null.
    got, _ = rows(driver, "RETURN linenumber() AS line, file() AS file")
    assert got == [{"line": None, "file": None}]
    got, _ = rows(driver, "LOAD CSV FROM 'file:///lines.csv' AS row WITH count(*) AS n "
                          "RETURN n, linenumber() AS line")
    assert got == [{"n": 4, "line": None}]
    with pytest.raises(ClientError):
        rows(driver, "LOAD CSV FROM 'file:///lines.csv' AS row RETURN linenumber(1)")


def test_batches_commit_and_the_summary_counts_them(server, driver):
    write(server, "people.csv", PEOPLE)
    _, summary = rows(
        driver,
        "LOAD CSV WITH HEADERS FROM 'file:///people.csv' AS row "
        "CALL (row) { CREATE (:Person {id: toInteger(row.id), name: row.name}) } "
        "IN TRANSACTIONS OF 2 ROWS",
    )
    assert summary.counters.nodes_created == 5
    assert summary.counters.properties_set == 10
    got, _ = rows(driver, "MATCH (p:Person) RETURN count(p) AS n, sum(p.id) AS s")
    assert got == [{"n": 5, "s": 15}]
    # The older importing-WITH form; each batch sees the ones before it.
    _, summary = rows(
        driver,
        "UNWIND [1, 2, 3, 1, 2] AS i CALL { WITH i MERGE (:Seen {i: i}) } IN TRANSACTIONS OF 1 ROW",
    )
    assert summary.counters.nodes_created == 3
    # A mass delete in batches: the outer MATCH keeps reading its own snapshot.
    _, summary = rows(driver, "MATCH (p:Person) CALL (p) { DETACH DELETE p } IN TRANSACTIONS OF 2 ROWS")
    assert summary.counters.nodes_deleted == 5
    assert rows(driver, "MATCH (p:Person) RETURN count(p) AS n")[0] == [{"n": 0}]


def test_returning_body_and_error_behaviours(server, driver):
    got, _ = rows(
        driver,
        "UNWIND [1, 2, 0, 4] AS i "
        "CALL (i) { CREATE (n:R {v: 10 / i}) RETURN n.v AS v } IN TRANSACTIONS OF 1 ROW "
        "ON ERROR CONTINUE REPORT STATUS AS s "
        "RETURN i, v, s.committed AS ok, s.started AS started, s.errorMessage IS NULL AS clean",
    )
    assert [(r["i"], r["v"], r["ok"], r["clean"]) for r in got] == [
        (1, 10, True, True), (2, 5, True, True), (0, None, False, False), (4, 2, True, True)]
    assert rows(driver, "MATCH (n:R) RETURN count(n) AS n")[0] == [{"n": 3}]
    got, _ = rows(
        driver,
        "UNWIND [1, 0, 4] AS i "
        "CALL (i) { CREATE (:B {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW "
        "ON ERROR BREAK REPORT STATUS AS s RETURN i, s.started AS started, s.committed AS ok",
    )
    assert [(r["i"], r["started"], r["ok"]) for r in got] == [(1, True, True), (0, True, False), (4, False, False)]
    assert rows(driver, "MATCH (n:B) RETURN count(n) AS n")[0] == [{"n": 1}]
    # ON ERROR FAIL (the default): the query fails; batches committed before it stay.
    with pytest.raises(ClientError) as failure:
        rows(driver, "UNWIND [1, 0] AS i CALL (i) { CREATE (:F {v: 10 / i}) } IN TRANSACTIONS OF 1 ROW")
    assert failure.value.code == "Neo.ClientError.Statement.ArithmeticError"
    assert rows(driver, "MATCH (n:F) RETURN count(n) AS n")[0] == [{"n": 1}]


def test_explicit_transactions_are_refused_with_neo4js_code_and_text(driver):
    with driver.session() as session:
        tx = session.begin_transaction()
        with pytest.raises(DatabaseError) as refused:
            tx.run("UNWIND [1] AS i CALL (i) { CREATE (:X) } IN TRANSACTIONS").consume()
        tx.close()
        assert refused.value.code == "Neo.DatabaseError.Transaction.TransactionStartFailed"
        assert refused.value.message == (
            "A query with 'CALL { ... } IN TRANSACTIONS' can only be executed in an implicit "
            "transaction, but tried to execute in an explicit transaction.")
        # The session goes on, and auto-commit runs it.
        session.run("UNWIND [1] AS i CALL (i) { CREATE (:X) } IN TRANSACTIONS").consume()
        assert session.run("MATCH (x:X) RETURN count(x) AS n").single()["n"] == 1


@pytest.mark.parametrize("query, code", [
    ("CALL { CALL { CREATE (:N) } IN TRANSACTIONS } IN TRANSACTIONS", "Neo.ClientError.Statement.SyntaxError"),
    ("CALL { CREATE (:N) } IN TRANSACTIONS REPORT STATUS AS s RETURN s", "Neo.ClientError.Statement.SyntaxError"),
    ("UNWIND [1] AS i CALL (i) { CREATE (:N) } IN TRANSACTIONS OF 0 ROWS", "Neo.ClientError.Statement.ArgumentError"),
    ("LOAD CSV FROM 'file:///missing.csv' AS r RETURN r", "Neo.ClientError.Statement.ExternalResourceFailed"),
    ("LOAD CSV FROM 'file:///../../../etc/passwd' AS r RETURN r", "Neo.ClientError.Statement.ExternalResourceFailed"),
    ("LOAD CSV FROM 'https://example.org/x.csv' AS r RETURN r", "Neo.ClientError.Statement.ExternalResourceFailed"),
    ("LOAD CSV FROM 42 AS r RETURN r", "Neo.ClientError.Statement.TypeError"),
    ("LOAD CSV FROM 'file:///x.csv' AS r", "Neo.ClientError.Statement.SyntaxError"),
])
def test_bad_input_gets_a_status_and_nothing_is_written(server, driver, query, code):
    with pytest.raises(ClientError) as failure:
        rows(driver, query)
    assert failure.value.code == code, failure.value.message
    assert rows(driver, "MATCH (n) RETURN count(n) AS n")[0] == [{"n": 0}]


def test_a_broken_file_names_its_line_and_leaves_nothing(server, driver):
    write(server, "broken.csv", 'a,b\n1,2\n3,"4\n')
    with pytest.raises(ClientError) as failure:
        rows(driver, "LOAD CSV WITH HEADERS FROM 'file:///broken.csv' AS r CREATE (:Row {a: r.a})")
    assert failure.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"
    assert "broken.csv:3" in failure.value.message, failure.value.message
    assert rows(driver, "MATCH (n) RETURN count(n) AS n")[0] == [{"n": 0}]
