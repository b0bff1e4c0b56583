// The shared driver scenarios (the list the Python e2e suite covers) with the
// official Go driver: auto-commit, explicit transactions (commit and
// rollback), managed transactions, errors and session recovery, every value
// type as a parameter and a result (temporal and spatial included), Node /
// Relationship / Path, bookmarks across sessions and `neo4j://` routing.
// Usage: go run ./scenarios bolt://127.0.0.1:PORT
// Prints one line per scenario and "N passed, 0 failed" at the end; exits 1
// on the first failing scenario.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

var ctx = context.Background()

// failure is raised (as a panic) by check and recovered per scenario.
type failure struct{ msg string }

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
		"map":     map[string]any{"a": int64(1), "b": map[string]any{"c": "d"}},
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
		"zdt":  "2015-01-21T12:00+01:00[Europe/Stockholm]",
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
			neo4j.BasicAuth("neo4j", "x", ""))
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

func run(name string, body func(neo4j.DriverWithContext), driver neo4j.DriverWithContext) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Printf("FAIL %s: %v\n", name, r)
			ok = false
		}
	}()
	body(driver)
	fmt.Printf("ok   %s\n", name)
	return true
}

func main() {
	uri := os.Args[1]
	driver, err := neo4j.NewDriverWithContext(uri, neo4j.BasicAuth("neo4j", "x", ""))
	if err != nil {
		fmt.Println("FAIL connect:", err)
		os.Exit(1)
	}
	defer driver.Close(ctx)
	scenarios := []struct {
		name string
		body func(neo4j.DriverWithContext)
	}{
		{"auto-commit", autoCommit},
		{"explicit transaction commit and rollback", explicitTransactions},
		{"managed transactions", managedTransactions},
		{"errors and session recovery", errorsAndRecovery},
		{"primitive values round trip", primitiveValues},
		{"temporal values round trip", temporalValues},
		{"spatial values round trip", spatialValues},
		{"nodes, relationships and paths", graphValues},
		{"bookmarks across sessions", bookmarks},
		{"neo4j:// routing", routing(uri)},
	}
	passed := 0
	for _, s := range scenarios {
		if !run(s.name, s.body, driver) {
			fmt.Printf("%d passed, 1 failed\n", passed)
			driver.Close(ctx)
			os.Exit(1)
		}
		passed++
	}
	fmt.Printf("%d passed, 0 failed\n", passed)
}
