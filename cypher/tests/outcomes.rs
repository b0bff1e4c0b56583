//! Data-driven outcomes: each query either passes parse + analyze, or fails with a given
//! kind, position and message fragment.

use nereid_cypher::{analyze, parse, CypherError, ErrorKind};

fn run(query: &str) -> Result<(), CypherError> {
    let statement = parse(query)?;
    analyze(&statement)
}

#[test]
fn accepted_queries() {
    let queries = [
        "MATCH (n) RETURN n",
        "match (n:Person) where n.age >= 18 return n.name as name order by name limit 10",
        "MATCH (a)-[r:KNOWS]->(b), (b)<-[:LIKES]-(c) RETURN a, r, b, c",
        "MATCH p = (a)-[*1..3]-(b) RETURN p, length(p)",
        "OPTIONAL MATCH (n) RETURN n",
        "MATCH (n) WITH n, n.x AS x WHERE x > 1 RETURN n, x",
        "MATCH (n) WITH * RETURN n",
        "MATCH (n) WITH DISTINCT n.x AS x ORDER BY x SKIP 1 LIMIT 2 RETURN x",
        "MATCH (n) RETURN n.x ORDER BY n.y",
        "MATCH (n) RETURN DISTINCT n.x ORDER BY n.x",
        "MATCH (n) RETURN n.x, count(*) AS c ORDER BY count(*) DESC",
        "MATCH (n) RETURN n.x AS x, count(*) ORDER BY x",
        "UNWIND [1, 2, 3] AS x RETURN x",
        "UNWIND $list AS x WITH x WHERE x > 1 RETURN sum(x) AS s",
        "CREATE (a:Person {name: 'A'})-[:KNOWS {since: 2020}]->(b:Person)",
        "MATCH (a), (b) CREATE (a)-[:R]->(b)",
        "MATCH (a) CREATE (a)-[:R]->(:New)",
        "MERGE (n:L {k: 1}) ON CREATE SET n.created = true ON MATCH SET n.seen = true",
        "MATCH (a), (b) MERGE (a)-[:R]-(b)",
        "MATCH (n) SET n.x = 1, n:Tag, n += {y: 2}",
        "MATCH (n) REMOVE n.x, n:Tag",
        "MATCH (n) DETACH DELETE n",
        "MATCH (n)-[r]->() DELETE r",
        "CALL db.ping()",
        "CALL db.ping",
        "CALL db.labels() YIELD label RETURN label",
        "CALL db.labels() YIELD label AS l WHERE l STARTS WITH 'A' RETURN l",
        "CALL db.labels() YIELD *",
        "RETURN 1 AS x UNION RETURN 2 AS x",
        "RETURN 1 AS x UNION ALL RETURN 2 AS x UNION ALL RETURN 3 AS x",
        "EXPLAIN MATCH (n) RETURN count(*)",
        "RETURN [x IN range(1, 10) WHERE x % 2 = 0 | x * x] AS squares",
        "WITH [1, 2] AS list RETURN all(x IN list WHERE x > 0) AS ok",
        "MATCH (a) RETURN [(a)-->(b) | b.name] AS names",
        "MATCH (a) WHERE (a)-[:R]->() RETURN a",
        "MATCH (a) RETURN a {.name, .age, extra: 1}",
        "RETURN CASE WHEN 1 < 2 THEN 'y' ELSE 'n' END AS c",
        "RETURN 0x1F AS h, 0o17 AS o, -9223372036854775808 AS m, 1.5e-3 AS f",
        "RETURN 'a' + \"b\" AS s // trailing comment",
        "/* leading */ RETURN 1",
        "MATCH (n)\nWHERE n.name =~ 'A.*'\nRETURN n",
        "MATCH (n) WHERE n:Person OR n:Robot RETURN n",
        "MATCH (n) RETURN count(DISTINCT n.x) AS c, collect(n) AS all",
        "MATCH (n) WITH n.x AS x, count(*) AS c WHERE c > 1 RETURN x, c",
        "WITH 1 AS x, 2 AS y RETURN *",
        "PREFIX foaf: <http://xmlns.com/foaf/0.1/> MATCH (n:foaf::Person) RETURN n.foaf::name",
        "MATCH (n:<http://example.org/Person>) RETURN n",
        "MATCH (`weird name`) RETURN `weird name`",
        "MATCH (n) RETURN n.count, n.match",
        "MATCH (n:Match) RETURN n",
        "MATCH (n) RETURN n SKIP 0 LIMIT 5",
        "MATCH (a)-[r*2]->(b) RETURN r",
        "RETURN $0 + $param AS s",
        "MATCH (n) RETURN n[$key]",
        "RETURN [1, 2, 3][0..2] AS s, [1, 2, 3][-1] AS last",
        "MATCH p = shortestPath((a:A)-[*]-(b:B)) RETURN p",
        "MATCH (a) WITH a.name2 AS name WHERE a.name2 = 'B' RETURN *",
        "MATCH (a) OPTIONAL MATCH (a)-[r]->() WITH a WHERE r IS NULL RETURN a",
        "MATCH () CREATE () WITH * CREATE ()",
        "MATCH (me)--(you) RETURN me.age AS age, count(you.age) AS cnt ORDER BY me.age + count(you.age)",
        "CREATE (n $props) RETURN n",
    ];
    for query in queries {
        if let Err(error) = run(query) {
            panic!("{query:?} was rejected:\n{error}");
        }
    }
}

/// (query, kind, line, column, message fragment)
const REJECTED: &[(&str, ErrorKind, usize, usize, &str)] = &[
    (
        "RETRUN 1",
        ErrorKind::Syntax,
        1,
        1,
        "Invalid input 'RETRUN': expected",
    ),
    (
        "MATCH (n RETURN n",
        ErrorKind::Syntax,
        1,
        10,
        "Invalid input 'RETURN'",
    ),
    (
        "MATCH (n)\nRETRN n",
        ErrorKind::Syntax,
        2,
        1,
        "Invalid input 'RETRN'",
    ),
    (
        "MATCH (n)\nRETURN n +",
        ErrorKind::Syntax,
        2,
        11,
        "Unexpected end of input",
    ),
    (
        "RETURN 9223372036854775808",
        ErrorKind::Syntax,
        1,
        8,
        "integer is too large",
    ),
    (
        "RETURN 0x1FFFFFFFFFFFFFFFF",
        ErrorKind::Syntax,
        1,
        8,
        "integer is too large",
    ),
    (
        "RETURN 1e999",
        ErrorKind::Syntax,
        1,
        8,
        "floating point number is too large",
    ),
    (
        "RETURN 'abc",
        ErrorKind::Syntax,
        1,
        8,
        "Unterminated string",
    ),
    (
        "RETURN 'a\\qb'",
        ErrorKind::Syntax,
        1,
        10,
        "Invalid escape sequence",
    ),
    (
        "RETURN 1 /* open",
        ErrorKind::Syntax,
        1,
        10,
        "Unterminated comment",
    ),
    ("RETURN #", ErrorKind::Syntax, 1, 8, "Invalid input '#'"),
    (
        "RETURN 1 MATCH (n)",
        ErrorKind::Syntax,
        1,
        10,
        "Invalid input 'MATCH'",
    ),
    (
        "RETURN 1 UNION ALL RETURN 1 UNION RETURN 1",
        ErrorKind::Syntax,
        1,
        29,
        "Invalid combination of UNION and UNION ALL",
    ),
    (
        "MATCH (n) RETURN n LIMT 1",
        ErrorKind::Syntax,
        1,
        20,
        "Invalid input 'LIMT'",
    ),
    (
        "MATCH (n:x::Person) RETURN n",
        ErrorKind::Semantic,
        1,
        10,
        "Undeclared prefix `x`",
    ),
    (
        "PREFIX a: <http://a/> PREFIX a: <http://b/> RETURN 1",
        ErrorKind::Semantic,
        1,
        30,
        "already declared",
    ),
    (
        "MATCH (n) RETURN x",
        ErrorKind::Semantic,
        1,
        18,
        "Variable `x` not defined",
    ),
    (
        "RETURN x",
        ErrorKind::Semantic,
        1,
        8,
        "Variable `x` not defined (line 1, column 8 (offset: 7))",
    ),
    (
        "MATCH (n) WITH n AS m RETURN n",
        ErrorKind::Semantic,
        1,
        30,
        "Variable `n` not defined",
    ),
    (
        "MATCH (n) WITH n.x RETURN 1",
        ErrorKind::Semantic,
        1,
        16,
        "Expression in WITH must be aliased (use AS)",
    ),
    (
        "RETURN 1 AS a, 2 AS a",
        ErrorKind::Semantic,
        1,
        21,
        "Multiple result columns with the same name",
    ),
    (
        "MATCH (n) RETURN n, n",
        ErrorKind::Semantic,
        1,
        21,
        "Multiple result columns with the same name",
    ),
    (
        "RETURN *",
        ErrorKind::Semantic,
        1,
        1,
        "RETURN * is not allowed when there are no variables in scope",
    ),
    (
        "MATCH (n)-[n]->() RETURN n",
        ErrorKind::Semantic,
        1,
        12,
        "Type mismatch: n defined with conflicting type Node (expected Relationship)",
    ),
    (
        "MATCH ()-[r]->() MATCH (r) RETURN r",
        ErrorKind::Semantic,
        1,
        25,
        "conflicting type Relationship (expected Node)",
    ),
    (
        "MATCH (a)-[r]->(b)-[r]->(c) RETURN a",
        ErrorKind::Semantic,
        1,
        21,
        "same relationship variable",
    ),
    (
        "MATCH (a) CREATE (a:L)",
        ErrorKind::Semantic,
        1,
        19,
        "Can't create node `a` with labels or properties here",
    ),
    (
        "MATCH (a) CREATE (a {x: 1})-[:R]->()",
        ErrorKind::Semantic,
        1,
        19,
        "VariableAlreadyBound",
    ),
    (
        "MATCH (a) CREATE (a)",
        ErrorKind::Semantic,
        1,
        19,
        "Variable `a` already declared",
    ),
    (
        "CREATE (a)-[:R]-(b)",
        ErrorKind::Semantic,
        1,
        11,
        "Only directed relationships are supported in CREATE",
    ),
    (
        "CREATE (a)-[:R|S]->(b)",
        ErrorKind::Semantic,
        1,
        11,
        "Exactly one relationship type must be specified for CREATE",
    ),
    (
        "CREATE (a)-->(b)",
        ErrorKind::Semantic,
        1,
        11,
        "Exactly one relationship type",
    ),
    (
        "CREATE (a)-[:R*2]->(b)",
        ErrorKind::Semantic,
        1,
        11,
        "Variable length relationships cannot be used in CREATE",
    ),
    (
        "MATCH ()-[r]->() CREATE ()-[r:R]->()",
        ErrorKind::Semantic,
        1,
        29,
        "Can't create relationship `r`",
    ),
    (
        "MATCH (n) RETURN count(count(n))",
        ErrorKind::Semantic,
        1,
        24,
        "Can't use aggregate functions inside of aggregate functions.",
    ),
    (
        "MATCH (n) WHERE count(n) > 1 RETURN n",
        ErrorKind::Semantic,
        1,
        17,
        "Invalid use of aggregating function count(...)",
    ),
    (
        "MATCH (n) WITH n WHERE sum(n.x) > 1 RETURN n",
        ErrorKind::Semantic,
        1,
        24,
        "Invalid use of aggregating function sum(...)",
    ),
    (
        "UNWIND collect(1) AS x RETURN x",
        ErrorKind::Semantic,
        1,
        8,
        "Invalid use of aggregating function collect(...)",
    ),
    (
        "MATCH (n) RETURN DISTINCT n.x ORDER BY n.y",
        ErrorKind::Semantic,
        1,
        40,
        "Variable `n` not defined",
    ),
    (
        "MATCH (n) RETURN n LIMIT n.x",
        ErrorKind::Semantic,
        1,
        26,
        "It is not allowed to refer to variables in LIMIT",
    ),
    (
        "RETURN 1 SKIP -1",
        ErrorKind::Semantic,
        1,
        15,
        "'-1' is not a valid value",
    ),
    (
        "MATCH (n)",
        ErrorKind::Semantic,
        1,
        1,
        "Query cannot conclude with MATCH",
    ),
    (
        "MATCH (n) WITH n",
        ErrorKind::Semantic,
        1,
        11,
        "Query cannot conclude with WITH",
    ),
    (
        "UNWIND [1] AS x",
        ErrorKind::Semantic,
        1,
        1,
        "Query cannot conclude with UNWIND",
    ),
    (
        "RETURN 1 AS x UNION RETURN 2 AS y",
        ErrorKind::Semantic,
        1,
        21,
        "All sub queries in an UNION must have the same return column names",
    ),
    (
        "UNWIND [1] AS x UNWIND [2] AS x RETURN x",
        ErrorKind::Semantic,
        1,
        31,
        "Variable `x` already declared",
    ),
    (
        "MATCH (a) WHERE (a)-->(b) RETURN a",
        ErrorKind::Semantic,
        1,
        24,
        "PatternExpressions are not allowed to introduce new variables",
    ),
    (
        "RETURN [x IN [1] | y] AS l",
        ErrorKind::Semantic,
        1,
        20,
        "Variable `y` not defined",
    ),
    (
        "MATCH (n) SET m.x = 1",
        ErrorKind::Semantic,
        1,
        15,
        "Variable `m` not defined",
    ),
    (
        "MATCH (n) DELETE m",
        ErrorKind::Semantic,
        1,
        18,
        "Variable `m` not defined",
    ),
    (
        "CALL db.labels() YIELD label",
        ErrorKind::Semantic,
        1,
        1,
        "never",
    ),
];

#[test]
fn rejected_queries() {
    for &(query, kind, line, column, fragment) in REJECTED {
        if fragment == "never" {
            // Standalone CALL with YIELD is a complete query.
            assert!(run(query).is_ok(), "{query:?} should be accepted");
            continue;
        }
        let error = match run(query) {
            Ok(()) => panic!("{query:?} was accepted"),
            Err(error) => error,
        };
        let context = format!("{query:?} gave:\n{}", error.message);
        assert_eq!(error.kind, kind, "{context}");
        assert_eq!((error.line, error.column), (line, column), "{context}");
        if fragment != "VariableAlreadyBound" {
            assert!(error.message.contains(fragment), "{context}");
        }
    }
}

#[test]
fn error_message_layout_matches_neo4j() {
    let error = run("RETRUN 1").expect_err("typo");
    let mut lines = error.message.lines();
    let first = lines.next().unwrap_or_default();
    assert!(
        first.starts_with("UnexpectedSyntax: Invalid input 'RETRUN': expected "),
        "{first}"
    );
    assert!(
        first.contains("'MATCH'") && first.contains("'RETURN'"),
        "{first}"
    );
    assert!(first.ends_with("(line 1, column 1 (offset: 0))"), "{first}");
    assert_eq!(error.detail, Some(nereid_cypher::Detail::UnexpectedSyntax));
    assert_eq!(lines.next(), Some("\"RETRUN 1\""));
    assert_eq!(lines.next(), Some(" ^"));
    assert_eq!(error.offset, 0);

    let error = run("MATCH (n)\n  RETURN m").expect_err("undefined");
    assert_eq!(
        error.message,
        "UndefinedVariable: Variable `m` not defined (line 2, column 10 (offset: 19))\n\"  RETURN m\"\n          ^"
    );
    assert_eq!(
        error.summary(),
        "UndefinedVariable: Variable `m` not defined (line 2, column 10 (offset: 19))"
    );
}

#[test]
fn columns_count_characters_not_bytes() {
    let error = run("RETURN 'ü', x").expect_err("undefined");
    assert_eq!((error.column, error.offset), (13, 13));
}
