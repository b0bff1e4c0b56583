// End-to-end smoke test with the official Go driver.
// Usage: go run . bolt://127.0.0.1:PORT
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
	"github.com/neo4j/neo4j-go-driver/v5/neo4j/dbtype"
)

func check(cond bool, msg string, args ...any) {
	if !cond {
		fmt.Fprintf(os.Stderr, "FAIL: "+msg+"\n", args...)
		os.Exit(1)
	}
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
}

func main() {
	ctx := context.Background()
	driver, err := neo4j.NewDriverWithContext(os.Args[1], neo4j.BasicAuth("neo4j", "x", ""))
	must(err)
	defer driver.Close(ctx)
	must(driver.VerifyConnectivity(ctx))

	_, err = neo4j.ExecuteQuery(ctx, driver,
		"CREATE (:Person {name:'Ann', age:42})-[:KNOWS {since:2020}]->(:Person {name:'Bob'})",
		nil, neo4j.EagerResultTransformer)
	must(err)

	res, err := neo4j.ExecuteQuery(ctx, driver,
		"MATCH (a:Person)-[k:KNOWS]->(b) WHERE a.age > $min RETURN a, k, b, a.name AS name ORDER BY name LIMIT 10",
		map[string]any{"min": 40}, neo4j.EagerResultTransformer)
	must(err)
	check(len(res.Records) == 1, "expected one record, got %d", len(res.Records))
	a := res.Records[0].Values[0].(dbtype.Node)
	k := res.Records[0].Values[1].(dbtype.Relationship)
	b := res.Records[0].Values[2].(dbtype.Node)
	check(a.Props["name"] == "Ann", "a.name = %v", a.Props["name"])
	check(k.Type == "KNOWS" && k.StartElementId == a.ElementId && k.EndElementId == b.ElementId, "relationship %+v", k)

	res, err = neo4j.ExecuteQuery(ctx, driver, "MATCH p=(a)-[:KNOWS]->(b) RETURN p", nil, neo4j.EagerResultTransformer)
	must(err)
	p := res.Records[0].Values[0].(dbtype.Path)
	check(len(p.Nodes) == 2 && len(p.Relationships) == 1, "path %+v", p)

	session := driver.NewSession(ctx, neo4j.SessionConfig{})
	defer session.Close(ctx)
	tx, err := session.BeginTransaction(ctx)
	must(err)
	_, err = tx.Run(ctx, "CREATE (:T {v: 1})", nil)
	must(err)
	must(tx.Rollback(ctx))
	_, err = session.ExecuteWrite(ctx, func(tx neo4j.ManagedTransaction) (any, error) {
		_, err := tx.Run(ctx, "CREATE (:T {v: 2})", nil)
		return nil, err
	})
	must(err)
	result, err := session.Run(ctx, "MATCH (t:T) RETURN t.v AS v", nil)
	must(err)
	recs, err := result.Collect(ctx)
	must(err)
	check(len(recs) == 1 && recs[0].Values[0] == int64(2), "T nodes %+v", recs)

	bad, err := session.Run(ctx, "MATCH (n RETURN n", nil)
	if err == nil {
		_, err = bad.Consume(ctx)
	}
	check(err != nil && strings.Contains(err.Error(), "SyntaxError") && strings.Contains(err.Error(), "line 1, column 10"),
		"syntax error expected, got %v", err)
	result, err = session.Run(ctx, "RETURN 1 AS x", nil)
	must(err)
	single, err := result.Single(ctx)
	must(err)
	check(single.Values[0] == int64(1), "RETURN 1 gave %v", single.Values[0])
	fmt.Println("go driver: all checks passed")
}
