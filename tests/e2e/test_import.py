"""`nereid import` (issue 25): the offline load of neo4j-admin's habit. Files named by --nodes and
--relationships (anywhere: the operator runs it, so no import-directory confinement) become a data
directory that a server then opens and answers from over Bolt; a bad row fails the command with its
file:line:column and leaves the directory as it was; a data directory in use by a running server is
refused by its lock; bad rows can be skipped on request."""

import os
import subprocess

from neo4j import GraphDatabase

from conftest import Server


def nereid(*args):
    """Exit code and stderr of the binary run with `args`."""
    done = subprocess.run([os.environ["NEREID_BIN"], *args], capture_output=True, text=True,
                          timeout=120)
    return done.returncode, done.stderr


def write(path, text):
    path.write_text(text)
    return str(path)


def count(server, query):
    with GraphDatabase.driver(server.uri, auth=("neo4j", "any")) as driver:
        records, _, _ = driver.execute_query(query)
        return records[0][0]


def test_an_import_is_served_and_a_bad_row_leaves_nothing(tmp_path):
    data = str(tmp_path / "data")
    people = write(tmp_path / "people.csv", ":ID(P),:LABEL,name,born:int\n1,Person,Ann,1990\n"
                                            "2,Person,Bob,1985\n3,Person,Cy,2001\n")
    knows = write(tmp_path / "knows.csv", ":START_ID(P),:END_ID(P),:TYPE\n1,2,KNOWS\n2,3,KNOWS\n")
    code, err = nereid("import", "--data-dir", data, "--nodes", people, "--relationships", knows)
    assert code == 0, err
    assert "imported 5 records" in err

    bad = write(tmp_path / "bad.csv", ":START_ID(P),:END_ID(P),:TYPE\n3,1,KNOWS\n3,9,KNOWS\n")
    code, err = nereid("import", "--data-dir", data, "--relationships", bad)
    assert code == 1
    assert "bad.csv:3:1" in err and "Neo.ClientError.Statement.EntityNotFound" in err

    server = Server(data)
    server.start()
    try:
        assert count(server, "MATCH (p:Person) RETURN count(p)") == 3
        assert count(server, "MATCH (:Person {name: 'Ann'})-[:KNOWS*2]->(c) RETURN c.name") == "Cy"
        assert count(server, "MATCH ()-[k:KNOWS]->() RETURN count(k)") == 2
        # The server holds the directory: a second writer is refused.
        code, err = nereid("import", "--data-dir", data, "--nodes", people)
        assert code == 1 and "cannot open the database" in err, err
    finally:
        server.stop()

    # Skipping bad rows loads the good one.
    code, err = nereid("import", "--data-dir", data, "--relationships", bad, "--skip-bad-rows")
    assert code == 0, err
    assert "1 bad rows skipped" in err
    server = Server(data)
    server.start()
    try:
        assert count(server, "MATCH ()-[k:KNOWS]->() RETURN count(k)") == 3
    finally:
        server.stop()


def test_bad_arguments_are_clear(tmp_path):
    data = str(tmp_path / "data")
    code, err = nereid("import", "--data-dir", data)
    assert code == 1 and "nothing to import" in err
    code, err = nereid("import", "--data-dir", data, "--nodes", str(tmp_path / "missing.csv"))
    assert code == 1 and "missing.csv is not a readable file" in err
    people = write(tmp_path / "p.csv", ":ID,:LABEL\n1,X\n")
    code, err = nereid("import", "--data-dir", data, "--nodes", people, "--format", "turtle2")
    assert code == 1 and "unknown format" in err
