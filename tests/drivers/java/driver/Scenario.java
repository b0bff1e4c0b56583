// The shared driver scenarios (issue 3; the same list in every client of
// tests/drivers/) with the official Java driver 5.28: connect and
// authenticate (good and bad password), auto-commit, explicit transactions
// (commit and rollback), a managed transaction retried on a TransientError,
// several results open in one transaction (qid), PULL paging with has_more,
// DISCARD, RESET in the middle of a long stream, failure then recovery, every
// value type (temporal, spatial, bytes, nested lists and maps, Node /
// Relationship / Path), bookmarks across sessions, `neo4j://` routing, TLS.
// Usage: java -cp 'target/classes:target/lib/*' Scenario bolt://HOST:PORT
// Environment: SCENARIO_USER / SCENARIO_PASSWORD (default neo4j / x),
// SCENARIO_AUTH_ENFORCED=1 (run the bad-password scenario), SCENARIO_TLS_URI
// (a bolt+ssc:// listener; else the TLS scenario is skipped).
// Prints one line per scenario (ok / FAIL / skip) and
// "P passed, F failed, S skipped" at the end; exits 1 if any failed.

import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.neo4j.driver.AuthToken;
import org.neo4j.driver.AuthTokens;
import org.neo4j.driver.Config;
import org.neo4j.driver.Driver;
import org.neo4j.driver.GraphDatabase;
import org.neo4j.driver.Record;
import org.neo4j.driver.Result;
import org.neo4j.driver.Session;
import org.neo4j.driver.SessionConfig;
import org.neo4j.driver.Transaction;
import org.neo4j.driver.Values;
import org.neo4j.driver.exceptions.ClientException;
import org.neo4j.driver.exceptions.Neo4jException;
import org.neo4j.driver.exceptions.TransientException;
import org.neo4j.driver.types.IsoDuration;
import org.neo4j.driver.types.Node;
import org.neo4j.driver.types.Path;
import org.neo4j.driver.types.Point;
import org.neo4j.driver.types.Relationship;

public final class Scenario {
    private static final String USER = envOr("SCENARIO_USER", "neo4j");
    private static final String PASSWORD = envOr("SCENARIO_PASSWORD", "x");
    private static final AuthToken AUTH = AuthTokens.basic(USER, PASSWORD);

    /** Thrown by a scenario that cannot run against this server; says why. */
    private static final class Skip extends RuntimeException {
        Skip(String reason) {
            super(reason);
        }
    }

    private interface Body {
        /** Runs the scenario; returns a note to print after "ok", or null. */
        String run(Driver driver) throws Exception;
    }

    private static String envOr(String key, String fallback) {
        String v = System.getenv(key);
        return v == null || v.isEmpty() ? fallback : v;
    }

    private static void check(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }

    private static Record single(Driver driver, String cypher, Map<String, Object> params) {
        List<Record> records = driver.executableQuery(cypher).withParameters(params).execute().records();
        check(records.size() == 1, cypher + ": " + records.size() + " records");
        return records.get(0);
    }

    private static String connect(Driver driver) {
        driver.verifyConnectivity();
        return null;
    }

    private static String badPassword(String uri) {
        if (!"1".equals(System.getenv("SCENARIO_AUTH_ENFORCED"))) {
            throw new Skip("the server does not check passwords");
        }
        try (Driver wrong = GraphDatabase.driver(uri, AuthTokens.basic(USER, PASSWORD + "-wrong"))) {
            wrong.verifyConnectivity();
            throw new AssertionError("bad credentials were accepted");
        } catch (Neo4jException e) {
            check(e.code().equals("Neo.ClientError.Security.Unauthorized"), "code " + e.code());
        }
        return null;
    }

    private static String autoCommit(Driver driver) {
        try (Session session = driver.session()) {
            Result res = session.run("CREATE (n:AutoCommit {v: $v}) RETURN n.v AS v", Map.of("v", 7));
            check(res.single().get("v").asInt() == 7, "v");
            check(res.consume().counters().nodesCreated() == 1, "nodes created");
        }
        return null;
    }

    private static String explicitTransactions(Driver driver) {
        try (Session session = driver.session()) {
            try (Transaction tx = session.beginTransaction()) {
                tx.run("CREATE (:Tx {v: 1})").consume();
                check(tx.run("MATCH (t:Tx) RETURN count(t) AS c").single().get("c").asLong() == 1,
                        "a transaction sees its own writes");
                tx.rollback();
            }
            try (Transaction tx = session.beginTransaction()) {
                tx.run("CREATE (:Tx {v: 2})").consume();
                tx.commit();
            }
            List<Integer> vs = session.run("MATCH (t:Tx) RETURN t.v AS v").list(r -> r.get("v").asInt());
            check(vs.equals(List.of(2)), "after rollback and commit: " + vs);
        }
        return null;
    }

    private static String managedTransactions(Driver driver) {
        try (Session session = driver.session()) {
            session.executeWriteWithoutResult(tx -> tx.run("CREATE (:Managed {v: 3})").consume());
            int v = session.executeRead(tx -> tx.run("MATCH (m:Managed) RETURN m.v AS v").single().get("v").asInt());
            check(v == 3, "managed read " + v);
        }
        return null;
    }

    /**
     * A second session holds a write on the node. A server that fails the conflicting write at
     * once (nereid) sends a TransientError and the driver retries; one that waits on the lock
     * (Neo4j) proceeds once the holder commits. Either way the update lands once, after the
     * holder's.
     */
    private static String transientRetry(Driver driver) throws Exception {
        driver.executableQuery("CREATE (:Contended {v: 0})").execute();
        Session holder = driver.session();
        Transaction holderTx = holder.beginTransaction();
        holderTx.run("MATCH (c:Contended) SET c.v = 100").consume();
        CompletableFuture<Void> released = new CompletableFuture<>();
        Runnable release = () -> {
            synchronized (released) {
                if (!released.isDone()) {
                    try {
                        holderTx.commit();
                        holder.close();
                        released.complete(null);
                    } catch (RuntimeException e) {
                        released.completeExceptionally(e);
                    }
                }
            }
        };
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        timer.schedule(release, 2, TimeUnit.SECONDS);
        List<String> failures = new ArrayList<>();
        try (Session session = driver.session()) {
            session.executeWriteWithoutResult(tx -> {
                if (!failures.isEmpty()) {
                    release.run();
                }
                try {
                    tx.run("MATCH (c:Contended) SET c.v = c.v + 1").consume();
                } catch (Neo4jException e) {
                    failures.add(e.code());
                    throw e;
                }
            });
        } finally {
            release.run();
            timer.shutdownNow();
        }
        released.get();
        for (String code : failures) {
            check(code.startsWith("Neo.TransientError."), "failures " + failures);
        }
        long v = single(driver, "MATCH (c:Contended) RETURN c.v AS v", Map.of()).get("v").asLong();
        check(v == 101, "after " + (failures.size() + 1) + " attempt(s): v = " + v);
        return failures.isEmpty()
                ? "1 attempt, the server waited for the lock"
                : (failures.size() + 1) + " attempt(s), failures: " + String.join(", ", failures);
    }

    private static String severalResults(Driver driver) {
        try (Session session = driver.session(SessionConfig.builder().withFetchSize(2).build());
                Transaction tx = session.beginTransaction()) {
            Result first = tx.run("UNWIND range(1, 5) AS x RETURN x");
            Result second = tx.run("UNWIND range(10, 14) AS y RETURN y");
            int sum = 0;
            while (first.hasNext() || second.hasNext()) {
                if (first.hasNext()) sum += first.next().get("x").asInt();
                if (second.hasNext()) sum += second.next().get("y").asInt();
            }
            tx.commit();
            check(sum == 15 + 60, "sum " + sum);
        }
        return null;
    }

    private static String paging(Driver driver) {
        try (Session session = driver.session(SessionConfig.builder().withFetchSize(3).build())) {
            List<Integer> xs = session.run("UNWIND range(1, 10) AS x RETURN x").list(r -> r.get("x").asInt());
            check(xs.equals(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)), "records " + xs);
        }
        return null;
    }

    private static String discard(Driver driver) {
        try (Session session = driver.session(SessionConfig.builder().withFetchSize(2).build())) {
            // consume() without reading: the driver discards the records; the writes happen.
            var summary = session.run("UNWIND range(1, 50) AS i CREATE (:Discarded {i: i}) RETURN i").consume();
            check(summary.counters().nodesCreated() == 50, "nodes created " + summary.counters().nodesCreated());
            check(session.run("MATCH (d:Discarded) RETURN count(d) AS c").single().get("c").asLong() == 50, "count");
        }
        return null;
    }

    private static String resetMidStream(Driver driver) {
        try (Session session = driver.session(SessionConfig.builder().withFetchSize(10).build())) {
            Transaction tx = session.beginTransaction();
            Result res = tx.run("UNWIND range(1, 10000000) AS x RETURN x");
            for (int i = 1; i <= 3; i++) {
                check(res.next().get("x").asInt() == i, "record " + i);
            }
            // Closing a transaction with a stream open: the driver abandons the stream and
            // resets/rolls back the connection; the session stays usable.
            tx.close();
            check(session.run("RETURN 1 AS x").single().get("x").asInt() == 1, "after the reset");
        }
        return null;
    }

    private static String errorsAndRecovery(Driver driver) {
        try (Session session = driver.session()) {
            try {
                session.run("MATCH (n RETURN n").consume();
                throw new AssertionError("a syntax error was accepted");
            } catch (ClientException e) {
                check(e.code().equals("Neo.ClientError.Statement.SyntaxError"), "syntax error " + e.code());
            }
            try {
                session.run("RETURN 1 / 0 AS x").consume();
                throw new AssertionError("division by zero was accepted");
            } catch (ClientException e) {
                check(e.code().equals("Neo.ClientError.Statement.ArithmeticError"), "arithmetic " + e.code());
            }
            check(session.run("RETURN 1 AS x").single().get("x").asInt() == 1, "after failures");
            try (Transaction tx = session.beginTransaction()) {
                tx.run("RETURN $missing AS x").consume();
                throw new AssertionError("a missing parameter was accepted");
            } catch (ClientException e) {
                check(e.code().equals("Neo.ClientError.Statement.ParameterMissing"), "missing " + e.code());
            }
            check(session.run("RETURN 2 AS x").single().get("x").asInt() == 2, "after a failed transaction");
        }
        return null;
    }

    private static String primitiveValues(Driver driver) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("nothing", null);
        params.put("yes", true);
        params.put("small", -16L);
        params.put("big", 1L << 62);
        params.put("float", 1.5);
        params.put("text", "héllo");
        params.put("list", Arrays.asList(1L, "two", List.of(3.5)));
        params.put("map", Map.of("a", 1L, "b", Map.of("c", "d", "e", List.of(2L, Map.of("f", List.of())))));
        Map<String, Object> all = new LinkedHashMap<>(params);
        all.put("bytes", new byte[] {1, 2, (byte) 255});
        Record r = single(driver, "RETURN $nothing AS nothing, $yes AS yes, $small AS small, $big AS big, "
                + "$float AS float, $text AS text, $bytes AS bytes, $list AS list, $map AS map", all);
        for (var e : params.entrySet()) {
            Object got = r.get(e.getKey()).asObject();
            check(java.util.Objects.equals(got, e.getValue()), e.getKey() + ": sent " + e.getValue() + ", got " + got);
        }
        check(Arrays.equals(r.get("bytes").asByteArray(), new byte[] {1, 2, (byte) 255}), "bytes");
        return null;
    }

    private static String temporalValues(Driver driver) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("date", LocalDate.of(2015, 7, 21));
        params.put("lt", LocalTime.of(21, 40, 32, 142_000_000));
        params.put("t", OffsetTime.of(21, 40, 32, 0, ZoneOffset.ofHours(1)));
        params.put("ldt", LocalDateTime.of(2015, 7, 21, 21, 40, 32, 142_000_000));
        params.put("odt", ZonedDateTime.of(2015, 7, 21, 21, 40, 32, 0, ZoneOffset.ofHours(-5)));
        params.put("zdt", ZonedDateTime.of(2015, 1, 21, 12, 0, 0, 0, ZoneId.of("Europe/Stockholm")));
        Record r = single(driver, "RETURN $date AS date, $lt AS lt, $t AS t, $ldt AS ldt, $odt AS odt, $zdt AS zdt, "
                + "$dur AS dur, toString($zdt) AS zdtText, toString($dur) AS durText, $date + duration('P1D') AS next",
                withDuration(params));
        for (var e : params.entrySet()) {
            Object got = r.get(e.getKey()).asObject();
            check(e.getValue().equals(got), e.getKey() + ": sent " + e.getValue() + ", got " + got);
        }
        IsoDuration dur = r.get("dur").asIsoDuration();
        check(dur.months() == 14 && dur.days() == 3 && dur.seconds() == 14706 && dur.nanoseconds() == 500_000_000,
                "duration " + dur);
        check(r.get("zdtText").asString().equals("2015-01-21T12:00:00+01:00[Europe/Stockholm]"),
                "toString($zdt) = " + r.get("zdtText").asString());
        check(r.get("durText").asString().equals("P1Y2M3DT4H5M6.5S"), "toString($dur) = " + r.get("durText"));
        check(r.get("next").asLocalDate().equals(LocalDate.of(2015, 7, 22)), "date + P1D");
        return null;
    }

    private static Map<String, Object> withDuration(Map<String, Object> params) {
        Map<String, Object> all = new LinkedHashMap<>(params);
        all.put("dur", Values.isoDuration(14, 3, 14706, 500_000_000).asIsoDuration());
        return all;
    }

    private static String spatialValues(Driver driver) {
        Map<String, Object> params = Map.of(
                "c", Values.point(7203, 1.0, 2.5).asPoint(),
                "c3", Values.point(9157, 1.0, 2.0, 3.0).asPoint(),
                "g", Values.point(4326, 12.994341, 55.611784).asPoint(),
                "g3", Values.point(4979, 12.5, 56.25, 100.0).asPoint());
        Record r = single(driver, "RETURN $c AS c, $c3 AS c3, $g AS g, $g3 AS g3, point({x: 3, y: 4}) AS built, "
                + "point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})) AS d, $g3.height AS h, $g.crs AS crs",
                params);
        for (var e : params.entrySet()) {
            Point got = r.get(e.getKey()).asPoint();
            check(got.equals(e.getValue()), e.getKey() + ": sent " + e.getValue() + ", got " + got);
        }
        check(r.get("built").asPoint().srid() == 7203, "built");
        check(r.get("d").asDouble() == 5.0 && r.get("h").asDouble() == 100.0
                && r.get("crs").asString().equals("wgs-84"), "distance, height, crs");
        driver.executableQuery("CREATE (:Place {at: $g})").withParameters(params).execute();
        Point stored = single(driver, "MATCH (p:Place) WHERE p.at = $g RETURN p.at AS at", params).get("at").asPoint();
        check(stored.equals(params.get("g")), "stored point " + stored);
        return null;
    }

    private static String graphValues(Driver driver) {
        driver.executableQuery("CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})")
                .execute();
        Record rec = single(driver, "MATCH p = (a:Person)-[k:KNOWS]->(b) RETURN a, k, b, p", Map.of());
        Node a = rec.get("a").asNode();
        Relationship k = rec.get("k").asRelationship();
        Node b = rec.get("b").asNode();
        Path p = rec.get("p").asPath();
        check(a.hasLabel("Person") && a.get("age").asInt() == 42, "node " + a);
        check(k.type().equals("KNOWS") && k.startNodeElementId().equals(a.elementId())
                && k.endNodeElementId().equals(b.elementId()), "relationship " + k);
        check(p.length() == 1 && p.start().elementId().equals(a.elementId())
                && p.end().elementId().equals(b.elementId()), "path " + p);
        try {
            driver.executableQuery("RETURN $n AS n").withParameters(Map.of("n", a)).execute();
            throw new AssertionError("a Node was accepted as a parameter");
        } catch (RuntimeException refused) {
            // The server (or the driver) refuses a Node as a parameter: as expected.
        }
        return null;
    }

    private static String bookmarks(Driver driver) {
        java.util.Set<org.neo4j.driver.Bookmark> seen;
        try (Session writer = driver.session()) {
            writer.executeWriteWithoutResult(tx -> tx.run("CREATE (:Bookmarked {v: 1})").consume());
            seen = writer.lastBookmarks();
        }
        check(!seen.isEmpty(), "a write commit returns a bookmark");
        try (Session reader = driver.session(SessionConfig.builder().withBookmarks(seen)
                .withDefaultAccessMode(org.neo4j.driver.AccessMode.READ).build())) {
            long c = reader.run("MATCH (b:Bookmarked) RETURN count(b) AS c").single().get("c").asLong();
            check(c == 1, "count after bookmark " + c);
        }
        return null;
    }

    private static String routing(String uri) {
        try (Driver routed = GraphDatabase.driver(uri.replaceFirst("^bolt:", "neo4j:"), AUTH)) {
            routed.verifyConnectivity();
            routed.executableQuery("CREATE (:Routed {v: 1})")
                    .withConfig(org.neo4j.driver.QueryConfig.builder()
                            .withRouting(org.neo4j.driver.RoutingControl.WRITE).build())
                    .execute();
            long c = routed.executableQuery("MATCH (r:Routed) RETURN count(r) AS c")
                    .withConfig(org.neo4j.driver.QueryConfig.builder()
                            .withRouting(org.neo4j.driver.RoutingControl.READ).build())
                    .execute().records().get(0).get("c").asLong();
            check(c == 1, "routed count " + c);
        }
        return null;
    }

    private static String tls() {
        String tlsUri = System.getenv("SCENARIO_TLS_URI");
        if (tlsUri == null || tlsUri.isEmpty()) {
            throw new Skip("no TLS listener given (SCENARIO_TLS_URI)");
        }
        try (Driver secure = GraphDatabase.driver(tlsUri, AUTH)) {
            check(single(secure, "RETURN 1 AS x", Map.of()).get("x").asInt() == 1, "over TLS");
        }
        return null;
    }

    public static void main(String[] args) {
        String uri = args[0];
        Map<String, Body> scenarios = new LinkedHashMap<>();
        scenarios.put("connect and authenticate", Scenario::connect);
        scenarios.put("bad password refused", d -> badPassword(uri));
        scenarios.put("auto-commit", Scenario::autoCommit);
        scenarios.put("explicit transaction commit and rollback", Scenario::explicitTransactions);
        scenarios.put("managed transactions", Scenario::managedTransactions);
        scenarios.put("managed transaction retried on a TransientError", Scenario::transientRetry);
        scenarios.put("several results open in one transaction (qid)", Scenario::severalResults);
        scenarios.put("PULL paging with has_more", Scenario::paging);
        scenarios.put("DISCARD", Scenario::discard);
        scenarios.put("RESET in the middle of a long stream", Scenario::resetMidStream);
        scenarios.put("errors and session recovery", Scenario::errorsAndRecovery);
        scenarios.put("primitive values round trip", Scenario::primitiveValues);
        scenarios.put("temporal values round trip", Scenario::temporalValues);
        scenarios.put("spatial values round trip", Scenario::spatialValues);
        scenarios.put("nodes, relationships and paths", Scenario::graphValues);
        scenarios.put("bookmarks across sessions", Scenario::bookmarks);
        scenarios.put("neo4j:// routing", d -> routing(uri));
        scenarios.put("TLS (bolt+ssc, self-signed certificate)", d -> tls());
        int passed = 0;
        int failed = 0;
        int skipped = 0;
        try (Driver driver = GraphDatabase.driver(uri, AUTH, Config.defaultConfig())) {
            for (var s : scenarios.entrySet()) {
                try {
                    // Every scenario starts from an empty graph, so one server (the reference
                    // Neo4j of tests/sidebyside) can serve every client in turn.
                    driver.executableQuery("MATCH (n) DETACH DELETE n").execute();
                    String note = s.getValue().run(driver);
                    passed++;
                    System.out.println("ok   " + s.getKey() + (note == null ? "" : " -- " + note));
                } catch (Skip e) {
                    skipped++;
                    System.out.println("skip " + s.getKey() + ": " + e.getMessage());
                } catch (Throwable e) {
                    failed++;
                    System.out.println("FAIL " + s.getKey() + ": " + e);
                }
            }
        }
        System.out.println(passed + " passed, " + failed + " failed, " + skipped + " skipped");
        System.exit(failed > 0 ? 1 : 0);
    }
}
