"""Point 5: kill -9 and restart; every committed transaction survives and no
uncommitted one appears."""

import threading

from neo4j import GraphDatabase


def count(drv, label):
    records, _, _ = drv.execute_query(f"MATCH (n:{label}) RETURN count(n) AS c")
    return records[0]["c"]


def test_kill_dash_nine_keeps_committed_and_drops_uncommitted(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    drv.execute_query(
        "CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})"
    )
    drv.execute_query("MATCH (n:Person {name:'Bob'}) SET n.age = 33")
    for i in range(20):
        drv.execute_query("CREATE (:Committed {i: $i})", i=i)

    session = drv.session()
    tx = session.begin_transaction()
    tx.run("CREATE (:Uncommitted {i: 1})").consume()
    tx.run("MATCH (n:Person {name:'Ann'}) SET n.age = 99").consume()

    server.kill9()
    try:
        session.close()
    except Exception:
        pass
    drv.close()

    server.start()
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        assert count(drv, "Committed") == 20
        assert count(drv, "Uncommitted") == 0
        records, _, _ = drv.execute_query(
            "MATCH (a:Person)-[k:KNOWS]->(b) RETURN a.age AS a, b.age AS b, k.since AS s"
        )
        assert [r.data() for r in records] == [{"a": 42, "b": 33, "s": 2020}]
        # ids stay stable and new writes continue after recovery
        drv.execute_query("CREATE (:Committed {i: 20})")
        assert count(drv, "Committed") == 21
    finally:
        drv.close()


def test_concurrent_committers_all_survive_kill(server):
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    acked = []
    lock = threading.Lock()

    def writer(w):
        for i in range(25):
            drv.execute_query("CREATE (:W {w: $w, i: $i})", w=w, i=i)
            with lock:
                acked.append((w, i))

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    server.kill9()
    drv.close()

    server.start()
    drv = GraphDatabase.driver(server.uri, auth=("neo4j", "x"))
    try:
        records, _, _ = drv.execute_query("MATCH (n:W) RETURN n.w AS w, n.i AS i")
        assert sorted((r["w"], r["i"]) for r in records) == sorted(acked)
    finally:
        drv.close()
