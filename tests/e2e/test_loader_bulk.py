"""The loader's bulk path (issue 25, ADR 0096): a load is one commit that readers see whole or not
at all, resolves relationship ends against vertices of earlier loads, refuses ids already taken,
and is durable by a checkpoint: kill -9 during a load leaves the graph as it was before it, kill -9
after LOAD_COMPLETED keeps all of it."""

import os
import subprocess
import threading
import time

import pytest
from neo4j import GraphDatabase

from conftest import Server
from test_loader import ROOT, SNB_TEST, import_dir, load, request, single

PEOPLE = 60_000


def write_people(directory, people=PEOPLE, first=0):
    """`people` Person nodes with ids first.., each KNOWS the next one (a ring)."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "people.csv"), "w") as f:
        f.write(":ID(P),:LABEL,name,age:int\n")
        f.writelines(f"{first + i},Person,name{first + i},{i % 90}\n" for i in range(people))
    with open(os.path.join(directory, "knows.csv"), "w") as f:
        f.write(":START_ID(P),:END_ID(P),:TYPE,since:int\n")
        f.writelines(f"{first + i},{first + (i + 1) % people},KNOWS,{2000 + i % 20}\n"
                     for i in range(people))


def write_files(directory, files):
    """Writes {name: text} into a new `directory`."""
    os.makedirs(directory)
    for name, text in files.items():
        with open(os.path.join(directory, name), "w") as f:
            f.write(text)


def counts(driver):
    return (single(driver, "MATCH (n:Person) RETURN count(n)"),
            single(driver, "MATCH ()-[r:KNOWS]->() RETURN count(r)"))


def test_a_reader_sees_none_or_all_of_a_load(server, driver):
    write_people(os.path.join(import_dir(server), "ring"))
    seen, stop = set(), threading.Event()

    def read():
        while not stop.is_set():
            # One statement, one snapshot: nodes and relationships together.
            records, _, _ = driver.execute_query(
                "MATCH (n:Person) OPTIONAL MATCH (n)-[r:KNOWS]->() RETURN count(DISTINCT n), count(r)")
            seen.add((records[0][0], records[0][1]))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        status = load(server, "file:///ring")
    finally:
        stop.set()
        reader.join()
    assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
    assert seen <= {(0, 0), (PEOPLE, PEOPLE)}, seen
    assert counts(driver) == (PEOPLE, PEOPLE)


def test_a_file_read_in_pieces_reports_as_one_reader(server, driver):
    """A node file of ~10 MB is read in pieces by several workers (ADR 0203): quoted fields with
    line breaks near anywhere, a bad value and a repeated id in later pieces are reported with the
    lines one reader of the whole file gives, and relationships find the nodes kept after them."""
    source = os.path.join(import_dir(server), "pieces")
    os.makedirs(source)
    people, line, expected = 320_000, 1, []
    with open(os.path.join(source, "people.csv"), "w") as f:
        f.write(":ID(P),:LABEL,name,age:int\n")
        for i in range(people):
            line += 1
            name = f'"a\nname, ""{i}""\n"' if i % 7 == 0 else f"name{i}"
            pid, age = i, i % 90
            if i == 150_000:
                age = "old"
                expected.append(line)
            if i == 250_000:
                pid = 5  # repeats the id of row 5
                expected.append(line)
            f.write(f"{pid},Person,{name},{age}\n")
            line += name.count("\n")
    assert os.path.getsize(os.path.join(source, "people.csv")) > 8 << 20
    with open(os.path.join(source, "knows.csv"), "w") as f:
        f.write(":START_ID(P),:END_ID(P),:TYPE\n")
        f.writelines(f"{i},{i + 1},KNOWS\n" for i in range(250_001, people - 1))
    status = load(server, "file:///pieces", fail_on_error=False, timeout=300)
    assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
    errors = status["errors"]["errorLogs"]
    assert [(e["file"].endswith("people.csv"), e["line"]) for e in errors] == \
        [(True, n) for n in expected], errors
    assert status["overallStatus"]["totalRecords"] == people + people - 250_002
    assert status["overallStatus"]["filesDone"] == 2, status
    # Left out: the row with the bad value and the repeated id.
    assert single(driver, "MATCH (n:Person) RETURN count(n)") == people - 2
    assert single(driver, "MATCH ()-[r:KNOWS]->() RETURN count(r)") == people - 250_002
    for a in (250_001, 300_000, people - 3):
        knows = f"MATCH (a {{name: 'name{a}'}})-[:KNOWS]->(b) RETURN b.age"
        assert single(driver, knows) == (a + 1) % 90, a


def test_a_second_load_finds_the_first_ones_vertices_and_refuses_their_ids(server, driver):
    base = import_dir(server)
    write_people(os.path.join(base, "first"), people=10)
    assert load(server, "file:///first")["overallStatus"]["status"] == "LOAD_COMPLETED"
    driver.execute_query("CREATE (:Person {name: 'by bolt'})")
    # The relationship goes from a vertex of this load to one of the first load.
    write_files(os.path.join(base, "later"), {
        "more.csv": ":ID(P),:LABEL,name\n100,Person,new\n",
        "edges.csv": ":START_ID(P),:END_ID(P),:TYPE\n100,3,KNOWS\n",
    })
    status = load(server, "file:///later")
    assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
    assert single(driver, "MATCH (:Person {name: 'new'})-[:KNOWS]->(p) RETURN p.name") == "name3"
    assert counts(driver) == (12, 11)

    # An id the first load gave is taken: the whole load is refused, nothing half applied.
    write_files(os.path.join(base, "again"),
                {"dup.csv": ":ID(P),:LABEL,name\n200,Person,fresh\n5,Person,clash\n"})
    status = load(server, "file:///again")
    assert status["overallStatus"]["status"] == "LOAD_FAILED", status
    error = status["errors"]["errorLogs"][0]
    assert error["line"] == 3 and "already exists" in error["message"], error
    assert error["code"] == "Neo.ClientError.Schema.ConstraintValidationFailed", error
    assert counts(driver) == (12, 11)


def test_kill9_during_a_load_leaves_the_graph_as_before_it(server):
    write_people(os.path.join(import_dir(server), "big"), people=400_000)
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        driver.execute_query("CREATE (:Person {name: 'before'})-[:KNOWS]->(:Person {name: 'too'})")
        code, answer = request(server, "POST", "/loader",
                               {"source": "file:///big", "format": "opencypher"})
        assert code == 200, answer
        load_id = answer["payload"]["loadId"]
        state = "LOAD_IN_QUEUE"
        while state == "LOAD_IN_QUEUE":
            _, answer = request(server, "GET", f"/loader/{load_id}")
            state = answer["payload"]["overallStatus"]["status"]
        time.sleep(0.3)
        _, answer = request(server, "GET", f"/loader/{load_id}")
        state = answer["payload"]["overallStatus"]["status"]
        server.kill9()
    finally:
        driver.close()
    server.start()
    driver = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        after = counts(driver)
        if state == "LOAD_COMPLETED":
            assert after == (400_002, 400_001)
        else:
            # Killed while in progress: none of the load (or all of it, if its checkpoint was
            # stored between the last status request and the kill), never a part.
            assert state == "LOAD_IN_PROGRESS", state
            assert after in ((2, 1), (400_002, 400_001)), after
        assert single(driver, "MATCH (:Person {name: 'before'})-[:KNOWS]->(p) RETURN p.name") == "too"
    finally:
        driver.close()


SNB_QUERIES = [
    "MATCH (p:Person)-[:KNOWS]->(f:Person) RETURN p.id AS id, count(f) AS n ORDER BY n DESC, id LIMIT 5",
    "MATCH (m:Comment)-[:HAS_CREATOR]->(p:Person) RETURN p.id AS id, count(m) AS n, max(m.length) AS l "
    "ORDER BY n DESC, id LIMIT 5",
    "MATCH (p:Person)-[:KNOWS]->()-[:KNOWS]->(ff:Person) WHERE p.id = $person RETURN count(DISTINCT ff)",
    "MATCH (t:Tag)<-[:HAS_TAG]-(m:Post) RETURN t.name AS name, count(m) AS n ORDER BY n DESC, name LIMIT 5",
    "MATCH (c:Comment)-[:REPLY_OF]->(post:Post)<-[:CONTAINER_OF]-(f:Forum) "
    "RETURN f.title AS title, count(c) AS n ORDER BY n DESC, title LIMIT 3",
    "MATCH (p:Person)-[:IS_LOCATED_IN]->(c:City)-[:IS_PART_OF]->(co:Country) "
    "RETURN co.name AS name, count(p) AS n ORDER BY n DESC, name LIMIT 5",
    "MATCH (n) RETURN labels(n) AS labels, count(n) AS n ORDER BY n DESC, labels",
    "MATCH ()-[r]->() RETURN type(r) AS type, count(r) AS n ORDER BY type",
]


def test_constraints_are_checked_on_the_bulk_path(server, driver):
    """Under constraints a load still takes the bulk path, which checks uniqueness, keys,
    existence and property types against the loaded rows and the graph: a violation fails the
    whole load naming the label, key and value, and nothing of it is applied (issue 23)."""
    for ddl in [
        "CREATE CONSTRAINT person_email FOR (n:Person) REQUIRE n.email IS UNIQUE",
        "CREATE CONSTRAINT person_name FOR (n:Person) REQUIRE n.name IS NOT NULL",
        "CREATE CONSTRAINT person_age FOR (n:Person) REQUIRE n.age IS :: INTEGER",
        "CREATE CONSTRAINT account_key FOR (n:Account) REQUIRE (n.bank, n.no) IS NODE KEY",
        "CREATE CONSTRAINT pays_ref FOR ()-[r:PAYS]-() REQUIRE r.ref IS UNIQUE",
    ]:
        driver.execute_query(ddl)
    driver.execute_query("CREATE (:Person {name: 'old', email: 'taken@x'})")
    base = import_dir(server)
    people = ":ID(P),:LABEL,name,email,age:int\n"
    write_files(os.path.join(base, "good"), {
        "people.csv": people + "1,Person,a,a@x,30\n2,Person,b,b@x,40\n",
        "accounts.csv": ":ID(A),:LABEL,bank,no:int\n10,Account,first,1\n11,Account,first,2\n",
        "pays.csv": ":START_ID(P),:END_ID(A),:TYPE,ref\n1,10,PAYS,r1\n2,11,PAYS,r2\n",
    })
    status = load(server, "file:///good")
    assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
    with open(server.log_path, errors="replace") as log:
        assert "bulk load committed" in log.read()
    before = (single(driver, "MATCH (n) RETURN count(n)"),
              single(driver, "MATCH ()-[r]->() RETURN count(r)"))
    assert before == (5, 2)

    refused = {
        "dup_in_load": ({"people.csv": people + "3,Person,c,same@x,1\n4,Person,d,same@x,2\n"},
                        ["Person", "email", "'same@x'"]),
        "dup_in_graph": ({"people.csv": people + "5,Person,e,taken@x,1\n"},
                         ["Person", "email", "'taken@x'"]),
        "dup_number": ({"accounts.csv": ":ID(A),:LABEL,bank,no:double\n12,Account,first,2.0\n"},
                       ["Account", "bank", "no"]),
        "missing": ({"people.csv": ":ID(P),:LABEL,email\n6,Person,f@x\n"}, ["Person", "name"]),
        "key_part": ({"accounts.csv": ":ID(A),:LABEL,bank\n13,Account,second\n"},
                     ["Account", "no"]),
        "type": ({"people.csv": ":ID(P),:LABEL,name,age\n7,Person,g,old\n"},
                 ["Person", "age", "INTEGER", "'old'"]),
        "rel": ({"people.csv": people + "8,Person,h,h@x,1\n",
                 "pays.csv": ":START_ID(P),:END_ID(P),:TYPE,ref\n8,8,PAYS,r1\n"},
                ["PAYS", "ref", "'r1'"]),
    }
    for name, (files, words) in refused.items():
        write_files(os.path.join(base, name), files)
        status = load(server, f"file:///{name}")
        assert status["overallStatus"]["status"] == "LOAD_FAILED", (name, status)
        error = status["overallStatus"]["failure"]
        assert error["code"] == "Neo.ClientError.Schema.ConstraintValidationFailed", (name, error)
        assert all(w in error["message"] for w in words), (name, error)
        after = (single(driver, "MATCH (n) RETURN count(n)"),
                 single(driver, "MATCH ()-[r]->() RETURN count(r)"))
        assert after == before, name
    # The loaded entities are in the constraints' indexes: a duplicate by Bolt is refused.
    with pytest.raises(Exception) as clash:
        driver.execute_query("CREATE (:Person {name: 'z', email: 'a@x'})")
    assert "ConstraintValidationFailed" in str(clash.value)


@pytest.mark.skipif(not os.path.isdir(SNB_TEST), reason="the SNB test data set is not in ../shared/data")
def test_a_load_under_constraints_answers_as_without(tmp_path):
    """The same SNB data loaded without constraints and with one (which the bulk path then
    checks) gives the same answers to a few SNB-shaped queries; both take the bulk path."""
    answers = []
    for constrained in (False, True):
        home = tmp_path / f"constrained-{constrained}"
        home.mkdir()
        srv = Server(str(home / "data"))
        srv.start()
        try:
            snb = os.path.join(import_dir(srv), "snb")
            subprocess.run([os.path.join(ROOT, "scripts", "snb-to-opencypher-csv"), snb, "--data",
                            SNB_TEST], check=True, capture_output=True)
            with GraphDatabase.driver(srv.uri, auth=("neo4j", "x")) as driver:
                if constrained:
                    driver.execute_query("CREATE CONSTRAINT unused FOR (n:Unused) REQUIRE n.x IS UNIQUE")
                status = load(srv, "file:///snb")
                assert status["overallStatus"]["status"] == "LOAD_COMPLETED", status
                with open(srv.log_path, errors="replace") as log:
                    assert "bulk load committed" in log.read()
                person = single(driver, "MATCH (p:Person) RETURN min(p.id)")
                answers.append([driver.execute_query(q, {"person": person}).records
                                for q in SNB_QUERIES])
        finally:
            srv.stop()
    free, constrained = answers
    for query, a, b in zip(SNB_QUERIES, free, constrained):
        assert [r.values() for r in a] == [r.values() for r in b], query
        assert a, query
