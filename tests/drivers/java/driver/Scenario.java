// The shared driver scenarios with the official Java driver (5.28).
// Usage: java -cp 'target/classes:target/lib/*' Scenario HOST:PORT USER PASSWORD [bad-auth]
// Prints "all checks passed" and exits 0, or names the failed check and exits 1.

import java.util.List;
import java.util.Map;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.Value;
import org.neo4j.driver.Values;
import org.neo4j.driver.exceptions.AuthenticationException;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.driver.types.Node;
import org.neo4j.driver.types.Path;
import org.neo4j.driver.types.Relationship;

public final class Scenario {
    private static void check(boolean condition, String what) {
        if (!condition) {
            System.err.println("FAIL: " + what);
            System.exit(1);
        }
        System.out.println("ok: " + what);
    }

    public static void main(String[] args) {
        String address = args[0];
        var auth = AuthTokens.basic(args[1], args[2]);
        if (args.length > 3 && args[3].equals("bad-auth")) {
            try (Driver driver = GraphDatabase.driver("bolt://" + address, auth)) {
                driver.verifyConnectivity();
                check(false, "bad credentials are refused");
            } catch (AuthenticationException e) {
                check(e.code().equals("Neo.ClientError.Security.Unauthorized"), "bad credentials are refused: " + e.code());
            }
            System.out.println("all checks passed");
            return;
        }
        // A small fetch size: every result below is pulled in pages (has_more).
        Config config = Config.builder().withFetchSize(2).build();
        try (Driver driver = GraphDatabase.driver("bolt://" + address, auth, config)) {
            driver.verifyConnectivity();
            check(true, "connect and authenticate");

            try (Session session = driver.session()) {
                check(session.run("RETURN 1 AS x").single().get("x").asInt() == 1, "auto-commit");

                List<Record> paged = session.run("UNWIND range(1, 7) AS x RETURN x").list();
                check(paged.size() == 7 && paged.get(6).get("x").asInt() == 7, "PULL paging with has_more");

                try {
                    session.run("RETRUN 1").consume();
                    check(false, "a syntax error fails");
                } catch (ClientException e) {
                    check(e.code().equals("Neo.ClientError.Statement.SyntaxError"), "a syntax error fails: " + e.code());
                }
                check(session.run("RETURN 2 AS x").single().get("x").asInt() == 2, "recovery after a failure");

                try (Transaction tx = session.beginTransaction()) {
                    tx.run("CREATE (:J {v: 1})").consume();
                    tx.commit();
                }
                try (Transaction tx = session.beginTransaction()) {
                    tx.run("CREATE (:J {v: 2})").consume();
                    tx.rollback();
                }
                long kept = session.run("MATCH (j:J) RETURN count(j) AS c").single().get("c").asLong();
                check(kept == 1, "explicit commit and rollback");

                try (Transaction tx = session.beginTransaction()) {
                    Result first = tx.run("UNWIND range(1, 5) AS x RETURN x");
                    Result second = tx.run("UNWIND range(10, 14) AS y RETURN y");
                    int sum = 0;
                    while (first.hasNext() || second.hasNext()) {
                        if (first.hasNext()) sum += first.next().get("x").asInt();
                        if (second.hasNext()) sum += second.next().get("y").asInt();
                    }
                    tx.commit();
                    check(sum == 15 + 60, "two results open in one transaction (qid)");
                }

                int written = session.executeWrite(tx -> tx.run("CREATE (j:J {v: 3}) RETURN j.v AS v").single().get("v").asInt());
                check(written == 3, "managed write transaction");

                Record graph = session.run(
                        "CREATE p = (a:P {name: 'a'})-[r:K {w: 1}]->(b:P {name: 'b'}) "
                                + "RETURN a, r, p, [1, 2.5, 'x', true, null] AS l, {k: 'v'} AS m, $bytes AS bytes",
                        Map.of("bytes", new byte[] {1, 2, 3}))
                        .single();
                Node a = graph.get("a").asNode();
                Relationship r = graph.get("r").asRelationship();
                Path p = graph.get("p").asPath();
                check(a.hasLabel("P") && a.get("name").asString().equals("a"), "node");
                check(r.type().equals("K") && r.startNodeElementId().equals(a.elementId()), "relationship");
                check(p.length() == 1 && p.end().get("name").asString().equals("b"), "path");
                List<Object> list = graph.get("l").asList();
                check(list.size() == 5 && list.get(1).equals(2.5) && list.get(4) == null, "list of mixed values");
                check(graph.get("m").get("k").asString().equals("v"), "map");
                check(graph.get("bytes").asByteArray().length == 3, "bytes");

                var labels = session.run("CALL db.labels()").list(rec -> rec.get("label").asString());
                check(labels.contains("J") && labels.contains("P"), "db.labels");
            }

            try (Session system = driver.session(SessionConfig.forDatabase("system"))) {
                var names = system.run("SHOW DATABASES").list(rec -> rec.get("name").asString());
                check(names.contains("neo4j") && names.contains("system"), "SHOW DATABASES");
            }

            var bookmarks = driver.executableQuery("CREATE (:B)").execute().summary();
            check(bookmarks != null, "executableQuery");
            try (Session writer = driver.session()) {
                writer.run("CREATE (:Marker)").consume();
                var seen = writer.lastBookmarks();
                try (Session reader = driver.session(SessionConfig.builder().withBookmarks(seen).build())) {
                    long markers = reader.run("MATCH (m:Marker) RETURN count(m) AS c").single().get("c").asLong();
                    check(markers == 1 && !seen.isEmpty(), "bookmarks across sessions");
                }
            }
        }
        try (Driver routed = GraphDatabase.driver("neo4j://" + address, auth)) {
            Value one = routed.executableQuery("RETURN 1 AS x").execute().records().get(0).get("x");
            check(one.equals(Values.value(1)), "neo4j:// routing");
        }
        System.out.println("all checks passed");
    }
}
