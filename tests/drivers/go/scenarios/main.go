// The shared driver scenarios (issue 3; the same list in every client of
// tests/drivers/) with the official Go driver: connect and authenticate (good
// and bad password), auto-commit, explicit transactions (commit and
// rollback), a managed transaction retried on a TransientError, several
// results open in one transaction (qid), PULL paging with has_more, DISCARD,
// RESET in the middle of a long stream, failure then recovery, every value
// type (temporal, spatial, bytes, nested lists and maps, Node / Relationship /
// Path), bookmarks across sessions, `neo4j://` routing, TLS.
// Usage: go run ./scenarios bolt://127.0.0.1:PORT
// Environment: SCENARIO_USER / SCENARIO_PASSWORD (default neo4j / x),
// SCENARIO_AUTH_ENFORCED=1 (run the bad-password scenario), SCENARIO_TLS_URI
// (a bolt+ssc:// listener; else the TLS scenario is skipped).
// Prints one line per scenario (ok / FAIL / skip) and
// "P passed, F failed, S skipped" at the end; exits 1 if any failed.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

var ctx = context.Background()

// failure is raised (as a panic) by check and recovered per scenario.
type failure struct{ msg string }

// skipped is raised (as a panic) by a scenario that cannot run against this
// server, with the reason.
type skipped struct{ reason string }

var (
	user     = envOr("SCENARIO_USER", "neo4j")
	password = envOr("SCENARIO_PASSWORD", "x")
	auth     = neo4j.BasicAuth(user, password, "")
	// note is printed after a passing scenario's name (e.g. retry attempts).
	note string
)

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

func check(cond bool, msg string, args ...any) {
	if !cond {
		panic(failure{fmt.Sprintf(msg, args...)})
	}
}

func must(err error) {
	if err != nil {
		panic(failure{err.Error()})
	}
}

func query(driver neo4j.DriverWithContext, cypher string, params map[string]any) *neo4j.Record {
	res, err := neo4j.ExecuteQuery(ctx, driver, cypher, params, neo4j.EagerResultTransformer)
	must(err)
	check(len(res.Records) == 1, "%q: expected one record, got %d", cypher, len(res.Records))
	return res.Records[0]
}

func get(rec *neo4j.Record, key string) any {
	v, ok := rec.Get(key)
	check(ok, "no column %q", key)
	return v
}

func errorCode(err error) string {
	var neoErr *neo4j.Neo4jError
	if errors.As(err, &neoErr) {
		return neoErr.Code
	}
	return fmt.Sprintf("not a Neo4jError: %v", err)
}

func autoCommit(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	res, err := session.Run(ctx, "CREATE (n:AutoCommit {v: $v}) RETURN n.v AS v", map[string]any{"v": 7})
	must(err)
	rec, err := res.Single(ctx)
	must(err)
	check(rec.Values[0] == int64(7), "v = %v", rec.Values[0])
	summary, err := res.Consume(ctx)
	must(err)
	check(summary.Counters().NodesCreated() == 1, "nodes created %d", summary.Counters().NodesCreated())
}

func explicitTransactions(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	tx, err := session.BeginTransaction(ctx)
	must(err)
	_, err = tx.Run(ctx, "CREATE (:Tx {v: 1})", nil)
	must(err)
	res, err := tx.Run(ctx, "MATCH (t:Tx) RETURN count(t) AS c", nil)
	must(err)
	rec, err := res.Single(ctx)
	must(err)
	check(rec.Values[0] == int64(1), "a transaction sees its own writes: %v", rec.Values[0])
	must(tx.Rollback(ctx))
	tx, err = session.BeginTransaction(ctx)
	must(err)
	_, err = tx.Run(ctx, "CREATE (:Tx {v: 2})", nil)
	must(err)
	must(tx.Commit(ctx))
	res, err = session.Run(ctx, "MATCH (t:Tx) RETURN t.v AS v", nil)
	must(err)
	recs, err := res.Collect(ctx)
	must(err)
	check(len(recs) == 1 && recs[0].Values[0] == int64(2), "after rollback and commit: %v", recs)
}

func managedTransactions(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	_, err := session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		_, err := tx.Run(ctx, "CREATE (:Managed {v: 3})", nil)
		return nil, err
	})
	must(err)
	v, err := session.ExecuteRead(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		res, err := tx.Run(ctx, "MATCH (m:Managed) RETURN m.v AS v", nil)
		if err != nil {
			return nil, err
		}
		rec, err := res.Single(ctx)
		if err != nil {
			return nil, err
		}
		return rec.Values[0], nil
	})
	must(err)
	check(v == int64(3), "managed read %v", v)
}

func errorsAndRecovery(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	failing := func(cypher string, params map[string]any) error {
		res, err := session.Run(ctx, cypher, params)
		if err == nil {
			_, err = res.Consume(ctx)
		}
		return err
	}
	err := failing("MATCH (n RETURN n", nil)
	check(errorCode(err) == "Neo.ClientError.Statement.SyntaxError", "syntax error: %v", err)
	err = failing("RETURN 1 / 0 AS x", nil)
	check(errorCode(err) == "Neo.ClientError.Statement.ArithmeticError", "division by zero: %v", err)
	res, err := session.Run(ctx, "RETURN 1 AS x", nil)
	must(err)
	rec, err := res.Single(ctx)
	must(err)
	check(rec.Values[0] == int64(1), "after failures: %v", rec.Values[0])
	tx, err := session.BeginTransaction(ctx)
	must(err)
	// Runs in a transaction are pipelined: the failure arrives with the records.
	missing, err := tx.Run(ctx, "RETURN $missing AS x", nil)
	if err == nil {
		_, err = missing.Consume(ctx)
	}
	check(errorCode(err) == "Neo.ClientError.Statement.ParameterMissing", "missing parameter: %v", err)
	_ = tx.Close(ctx)
	res, err = session.Run(ctx, "RETURN 2 AS x", nil)
	must(err)
	rec, err = res.Single(ctx)
	must(err)
	check(rec.Values[0] == int64(2), "after failed transaction: %v", rec.Values[0])
}

func primitiveValues(driver neo4j.DriverWithContext) {
	params := map[string]any{
		"nothing": nil,
		"yes":     true,
		"small":   int64(-16),
		"big":     int64(1) << 62,
		"float":   1.5,
		"text":    "héllo",
		"bytes":   []byte{1, 2, 255},
		"list":    []any{int64(1), "two", []any{3.5}},
		"map":     map[string]any{"a": int64(1), "b": map[string]any{"c": "d", "e": []any{int64(2), map[string]any{"f": []any{}}}}},
	}
	rec := query(driver, "RETURN $nothing AS nothing, $yes AS yes, $small AS small, $big AS big, "+
		"$float AS float, $text AS text, $bytes AS bytes, $list AS list, $map AS map", params)
	for key, sent := range params {
		got := get(rec, key)
		check(reflect.DeepEqual(got, sent), "%s: sent %#v, got %#v", key, sent, got)
	}
}

func temporalValues(driver neo4j.DriverWithContext) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	must(err)
	params := map[string]any{
		"date": dbtype.Date(time.Date(2015, 7, 21, 0, 0, 0, 0, time.UTC)),
		"lt":   dbtype.LocalTime(time.Date(0, 1, 1, 21, 40, 32, 142000000, time.UTC)),
		"t":    dbtype.Time(time.Date(0, 1, 1, 21, 40, 32, 0, time.FixedZone("Offset", 3600))),
		"ldt":  dbtype.LocalDateTime(time.Date(2015, 7, 21, 21, 40, 32, 142000000, time.UTC)),
		// The driver sends a DateTime with an offset for a zone named "Offset".
		"odt": time.Date(2015, 7, 21, 21, 40, 32, 0, time.FixedZone("Offset", -18000)),
		"zdt": time.Date(2015, 1, 21, 12, 0, 0, 0, stockholm),
		"dur": dbtype.Duration{Months: 14, Days: 3, Seconds: 14706, Nanos: 500000000},
	}
	rec := query(driver, "RETURN toString($date) AS date, toString($lt) AS lt, toString($t) AS t, "+
		"toString($ldt) AS ldt, toString($odt) AS odt, toString($zdt) AS zdt, toString($dur) AS dur, "+
		"$date AS dateBack, $zdt AS zdtBack, $dur AS durBack", params)
	want := map[string]string{
		"date": "2015-07-21",
		"lt":   "21:40:32.142",
		"t":    "21:40:32+01:00",
		"ldt":  "2015-07-21T21:40:32.142",
		"odt":  "2015-07-21T21:40:32-05:00",
		"zdt":  "2015-01-21T12:00:00+01:00[Europe/Stockholm]",
		"dur":  "P1Y2M3DT4H5M6.5S",
	}
	for key, text := range want {
		check(get(rec, key) == text, "toString($%s) = %v, want %s", key, get(rec, key), text)
	}
	dateBack, ok := get(rec, "dateBack").(dbtype.Date)
	check(ok && dateBack.String() == "2015-07-21", "date back %v", get(rec, "dateBack"))
	zdtBack, ok := get(rec, "zdtBack").(time.Time)
	check(ok && zdtBack.Equal(params["zdt"].(time.Time)) && zdtBack.Location().String() == "Europe/Stockholm",
		"zoned datetime back %v", get(rec, "zdtBack"))
	check(get(rec, "durBack") == params["dur"], "duration back %v", get(rec, "durBack"))
}

func spatialValues(driver neo4j.DriverWithContext) {
	params := map[string]any{
		"c":  dbtype.Point2D{X: 1, Y: 2.5, SpatialRefId: 7203},
		"c3": dbtype.Point3D{X: 1, Y: 2, Z: 3, SpatialRefId: 9157},
		"g":  dbtype.Point2D{X: 12.994341, Y: 55.611784, SpatialRefId: 4326},
		"g3": dbtype.Point3D{X: 12.5, Y: 56.25, Z: 100, SpatialRefId: 4979},
	}
	rec := query(driver, "RETURN $c AS c, $c3 AS c3, $g AS g, $g3 AS g3, point({x: 3, y: 4}) AS built, "+
		"point.distance(point({x: 0, y: 0}), point({x: 3, y: 4})) AS d, $g3.height AS h, $g.crs AS crs", params)
	for key, sent := range params {
		check(get(rec, key) == sent, "%s: sent %#v, got %#v", key, sent, get(rec, key))
	}
	check(get(rec, "built") == dbtype.Point2D{X: 3, Y: 4, SpatialRefId: 7203}, "built %v", get(rec, "built"))
	check(get(rec, "d") == 5.0 && get(rec, "h") == 100.0 && get(rec, "crs") == "wgs-84",
		"d=%v h=%v crs=%v", get(rec, "d"), get(rec, "h"), get(rec, "crs"))
	_, err := neo4j.ExecuteQuery(ctx, driver, "CREATE (:Place {at: $g})", params, neo4j.EagerResultTransformer)
	must(err)
	stored := query(driver, "MATCH (p:Place) WHERE p.at = $g RETURN p.at AS at", params)
	check(get(stored, "at") == params["g"], "stored point %v", get(stored, "at"))
}

func graphValues(driver neo4j.DriverWithContext) {
	_, err := neo4j.ExecuteQuery(ctx, driver,
		"CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})",
		nil, neo4j.EagerResultTransformer)
	must(err)
	rec := query(driver, "MATCH p = (a:Person)-[k:KNOWS]->(b) RETURN a, k, b, p", nil)
	a := get(rec, "a").(dbtype.Node)
	k := get(rec, "k").(dbtype.Relationship)
	b := get(rec, "b").(dbtype.Node)
	p := get(rec, "p").(dbtype.Path)
	check(reflect.DeepEqual(a.Labels, []string{"Person"}) && a.Props["age"] == int64(42), "node %+v", a)
	check(k.Type == "KNOWS" && k.StartElementId == a.ElementId && k.EndElementId == b.ElementId, "relationship %+v", k)
	check(len(p.Nodes) == 2 && len(p.Relationships) == 1 && p.Nodes[0].ElementId == a.ElementId &&
		p.Relationships[0].ElementId == k.ElementId, "path %+v", p)
}

func bookmarks(driver neo4j.DriverWithContext) {
	writer := driver.NewSession(ctx, neo4j.SessionConfig{})
	_, err := writer.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		_, err := tx.Run(ctx, "CREATE (:Bookmarked {v: 1})", nil)
		return nil, err
	})
	must(err)
	marks := writer.LastBookmarks()
	must(writer.Close(ctx))
	check(len(marks) > 0 && marks[0] != "", "bookmarks %v", marks)
	reader := driver.NewSession(ctx, neo4j.SessionConfig{Bookmarks: marks, AccessMode: neo4j.AccessModeRead})
	defer reader.Close(ctx)
	res, err := reader.Run(ctx, "MATCH (b:Bookmarked) RETURN count(b) AS c", nil)
	must(err)
	rec, err := res.Single(ctx)
	must(err)
	check(rec.Values[0] == int64(1), "count after bookmark %v", rec.Values[0])
}

func routing(uri string) func(neo4j.DriverWithContext) {
	return func(neo4j.DriverWithContext) {
		routed, err := neo4j.NewDriverWithContext(strings.Replace(uri, "bolt://", "neo4j://", 1),
			auth)
		must(err)
		defer routed.Close(ctx)
		must(routed.VerifyConnectivity(ctx))
		_, err = neo4j.ExecuteQuery(ctx, routed, "CREATE (:Routed {v: 1})", nil,
			neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithWritersRouting())
		must(err)
		res, err := neo4j.ExecuteQuery(ctx, routed, "MATCH (r:Routed) RETURN count(r) AS c", nil,
			neo4j.EagerResultTransformer, neo4j.ExecuteQueryWithReadersRouting())
		must(err)
		check(res.Records[0].Values[0] == int64(1), "routed count %v", res.Records[0].Values[0])
	}
}

func connectAndAuthenticate(driver neo4j.DriverWithContext) {
	must(driver.VerifyConnectivity(ctx))
	info, err := driver.GetServerInfo(ctx)
	must(err)
	check(info.ProtocolVersion().Major >= 4, "negotiated Bolt %v", info.ProtocolVersion())
}

func badPassword(uri string) func(neo4j.DriverWithContext) {
	return func(neo4j.DriverWithContext) {
		if os.Getenv("SCENARIO_AUTH_ENFORCED") != "1" {
			panic(skipped{"the server does not check passwords"})
		}
		wrong, err := neo4j.NewDriverWithContext(uri, neo4j.BasicAuth(user, password+"-wrong", ""))
		must(err)
		defer wrong.Close(ctx)
		err = wrong.VerifyConnectivity(ctx)
		check(errorCode(err) == "Neo.ClientError.Security.Unauthorized", "bad password: %v", err)
	}
}

// transientRetry: a second session holds a write on the node. A server that
// fails the conflicting write at once (nereid) sends a TransientError and the
// driver retries; one that waits on the lock (Neo4j) proceeds once the
// holder commits. Either way the update lands once, after the holder's.
func transientRetry(driver neo4j.DriverWithContext) {
	_, err := neo4j.ExecuteQuery(ctx, driver, "CREATE (:Contended {v: 0})", nil, neo4j.EagerResultTransformer)
	must(err)
	holder := driver.NewSession(ctx, neo4j.SessionConfig{})
	holderTx, err := holder.BeginTransaction(ctx)
	must(err)
	_, err = holderTx.Run(ctx, "MATCH (c:Contended) SET c.v = 100", nil)
	must(err)
	var once sync.Once
	var releaseErr error
	release := func() {
		once.Do(func() {
			releaseErr = holderTx.Commit(ctx)
			holder.Close(ctx)
		})
	}
	safety := time.AfterFunc(2*time.Second, release)
	defer safety.Stop()
	defer release()
	var failures []string
	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	_, err = session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		if len(failures) > 0 {
			release()
		}
		res, err := tx.Run(ctx, "MATCH (c:Contended) SET c.v = c.v + 1", nil)
		if err == nil {
			_, err = res.Consume(ctx)
		}
		if err != nil {
			failures = append(failures, errorCode(err))
		}
		return nil, err
	})
	must(err)
	release()
	must(releaseErr)
	for _, code := range failures {
		check(strings.HasPrefix(code, "Neo.TransientError."), "failures %v", failures)
	}
	rec := query(driver, "MATCH (c:Contended) RETURN c.v AS v", nil)
	check(get(rec, "v") == int64(101), "after %d attempt(s): v = %v", len(failures)+1, get(rec, "v"))
	if len(failures) == 0 {
		note = "1 attempt, the server waited for the lock"
	} else {
		note = fmt.Sprintf("%d attempt(s), failures: %s", len(failures)+1, strings.Join(failures, ", "))
	}
}

func severalResults(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{FetchSize: 2})
	defer session.Close(ctx)
	tx, err := session.BeginTransaction(ctx)
	must(err)
	first, err := tx.Run(ctx, "UNWIND range(1, 5) AS x RETURN x", nil)
	must(err)
	second, err := tx.Run(ctx, "UNWIND range(10, 14) AS y RETURN y", nil)
	must(err)
	sum := int64(0)
	for {
		a, b := first.Next(ctx), second.Next(ctx)
		if !a && !b {
			break
		}
		if a {
			sum += first.Record().Values[0].(int64)
		}
		if b {
			sum += second.Record().Values[0].(int64)
		}
	}
	must(first.Err())
	must(second.Err())
	must(tx.Commit(ctx))
	check(sum == 15+60, "sum %d", sum)
}

func paging(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{FetchSize: 3})
	defer session.Close(ctx)
	res, err := session.Run(ctx, "UNWIND range(1, 10) AS x RETURN x", nil)
	must(err)
	recs, err := res.Collect(ctx)
	must(err)
	check(len(recs) == 10, "records %d", len(recs))
	for i, rec := range recs {
		check(rec.Values[0] == int64(i+1), "record %d = %v", i, rec.Values[0])
	}
}

func discard(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{FetchSize: 2})
	defer session.Close(ctx)
	// Consume without reading: the driver discards the records; the writes
	// happen all the same.
	res, err := session.Run(ctx, "UNWIND range(1, 50) AS i CREATE (:Discarded {i: i}) RETURN i", nil)
	must(err)
	summary, err := res.Consume(ctx)
	must(err)
	check(summary.Counters().NodesCreated() == 50, "nodes created %d", summary.Counters().NodesCreated())
	rec := query(driver, "MATCH (d:Discarded) RETURN count(d) AS c", nil)
	check(get(rec, "c") == int64(50), "count %v", get(rec, "c"))
}

func resetMidStream(driver neo4j.DriverWithContext) {
	session := driver.NewSession(ctx, neo4j.SessionConfig{FetchSize: 10})
	streamCtx, cancel := context.WithCancel(ctx)
	res, err := session.Run(streamCtx, "UNWIND range(1, 10000000) AS x RETURN x", nil)
	must(err)
	for i := int64(1); i <= 3; i++ {
		check(res.Next(streamCtx) && res.Record().Values[0] == i, "record %d", i)
	}
	// Cancelling the context mid-stream makes the driver RESET the connection.
	cancel()
	_ = res.Next(streamCtx)
	session.Close(ctx)
	rec := query(driver, "RETURN 1 AS x", nil)
	check(get(rec, "x") == int64(1), "after reset %v", get(rec, "x"))
}

func tlsSelfSigned(neo4j.DriverWithContext) {
	tlsURI := os.Getenv("SCENARIO_TLS_URI")
	if tlsURI == "" {
		panic(skipped{"no TLS listener given (SCENARIO_TLS_URI)"})
	}
	secure, err := neo4j.NewDriverWithContext(tlsURI, auth)
	must(err)
	defer secure.Close(ctx)
	rec := query(secure, "RETURN 1 AS x", nil)
	check(get(rec, "x") == int64(1), "over TLS %v", get(rec, "x"))
}

func run(name string, body func(neo4j.DriverWithContext), driver neo4j.DriverWithContext) (outcome string) {
	defer func() {
		switch r := recover().(type) {
		case nil:
		case skipped:
			fmt.Printf("skip %s: %s\n", name, r.reason)
			outcome = "skip"
		default:
			fmt.Printf("FAIL %s: %v\n", name, r)
			outcome = "fail"
		}
	}()
	note = ""
	// Every scenario starts from an empty graph, so one server (the reference
	// Neo4j of tests/sidebyside) can serve every client in turn.
	_, err := neo4j.ExecuteQuery(ctx, driver, "MATCH (n) DETACH DELETE n", nil, neo4j.EagerResultTransformer)
	must(err)
	body(driver)
	if note != "" {
		fmt.Printf("ok   %s -- %s\n", name, note)
	} else {
		fmt.Printf("ok   %s\n", name)
	}
	return "ok"
}

func main() {
	uri := os.Args[1]
	driver, err := neo4j.NewDriverWithContext(uri, auth)
	if err != nil {
		fmt.Println("FAIL connect:", err)
		os.Exit(1)
	}
	scenarios := []struct {
		name string
		body func(neo4j.DriverWithContext)
	}{
		{"connect and authenticate", connectAndAuthenticate},
		{"bad password refused", badPassword(uri)},
		{"auto-commit", autoCommit},
		{"explicit transaction commit and rollback", explicitTransactions},
		{"managed transactions", managedTransactions},
		{"managed transaction retried on a TransientError", transientRetry},
		{"several results open in one transaction (qid)", severalResults},
		{"PULL paging with has_more", paging},
		{"DISCARD", discard},
		{"RESET in the middle of a long stream", resetMidStream},
		{"errors and session recovery", errorsAndRecovery},
		{"primitive values round trip", primitiveValues},
		{"temporal values round trip", temporalValues},
		{"spatial values round trip", spatialValues},
		{"nodes, relationships and paths", graphValues},
		{"bookmarks across sessions", bookmarks},
		{"neo4j:// routing", routing(uri)},
		{"TLS (bolt+ssc, self-signed certificate)", tlsSelfSigned},
	}
	counts := map[string]int{}
	for _, s := range scenarios {
		counts[run(s.name, s.body, driver)]++
	}
	driver.Close(ctx)
	fmt.Printf("%d passed, %d failed, %d skipped\n", counts["ok"], counts["fail"], counts["skip"])
	if counts["fail"] > 0 {
		os.Exit(1)
	}
}
