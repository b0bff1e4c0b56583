//! The parser builds the AST we expect: shapes, spans, resolved names, precedence.

use nereid_cypher::ast::*;
use nereid_cypher::parse;
use nereid_values::Direction;

fn single(query: &str) -> Vec<Clause> {
    match parse(query)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
        .query
    {
        Query::Single(q) => q.clauses,
        other => panic!("not a single query: {other:?}"),
    }
}

fn returned(query: &str) -> Projection {
    match single(query).pop() {
        Some(Clause::Return(p)) => p,
        other => panic!("no RETURN: {other:?}"),
    }
}

/// The expression of the first RETURN item, with spans erased for easy comparison.
fn expr(text: &str) -> String {
    let projection = returned(&format!("RETURN {text}"));
    shape(&projection.items[0].expr)
}

/// A compact, span-free rendering of an expression tree.
fn shape(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Literal(Literal::Integer(i)) => i.to_string(),
        ExprKind::Literal(Literal::Float(f)) => format!("{f:?}"),
        ExprKind::Literal(Literal::String(s)) => format!("'{s}'"),
        ExprKind::Literal(Literal::Bool(b)) => b.to_string(),
        ExprKind::Literal(Literal::Null) => "null".into(),
        ExprKind::Variable(v) => v.clone(),
        ExprKind::Parameter(p) => format!("${p}"),
        ExprKind::Property(inner, key) => format!("{}.{key}", shape(inner)),
        ExprKind::Binary(op, l, r) => format!("({} {op:?} {})", shape(l), shape(r)),
        ExprKind::Unary(op, inner) => format!("({op:?} {})", shape(inner)),
        ExprKind::IsNull(inner) => format!("({} IsNull)", shape(inner)),
        ExprKind::IsNotNull(inner) => format!("({} IsNotNull)", shape(inner)),
        ExprKind::HasLabels(inner, labels) => format!("({}:{})", shape(inner), labels.join(":")),
        ExprKind::HasLabelExpr(inner, labels) => format!("({}:{labels:?})", shape(inner)),
        ExprKind::List(items) => format!(
            "[{}]",
            items.iter().map(shape).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Index(l, i) => format!("{}[{}]", shape(l), shape(i)),
        ExprKind::FunctionCall {
            name,
            distinct,
            args,
        } => format!(
            "{name}({}{})",
            if *distinct { "DISTINCT " } else { "" },
            args.iter().map(shape).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::CountStar => "count(*)".into(),
        other => format!("{other:?}"),
    }
}

#[test]
fn operator_precedence_follows_the_grammar() {
    let cases = [
        ("1 + 2 * 3", "(1 Add (2 Mul 3))"),
        ("(1 + 2) * 3", "((1 Add 2) Mul 3)"),
        ("2 ^ 3 ^ 2", "((2 Pow 3) Pow 2)"),
        ("-2 ^ 2", "(-2 Pow 2)"),
        ("-x ^ 2", "((Negate x) Pow 2)"),
        ("a OR b XOR c AND NOT d", "(a Or (b Xor (c And (Not d))))"),
        ("NOT a = b", "(Not (a Eq b))"),
        ("1 < x < 3", "((1 Lt x) And (x Lt 3))"),
        ("a + 1 IN [1, 2]", "((a Add 1) In [1, 2])"),
        (
            "a.name STARTS WITH 'A' AND a.name ENDS WITH 'z'",
            "((a.name StartsWith 'A') And (a.name EndsWith 'z'))",
        ),
        ("a CONTAINS b =~ c", "((a Contains b) RegexMatch c)"),
        (
            "x IS NULL OR y IS NOT NULL",
            "((x IsNull) Or (y IsNotNull))",
        ),
        ("n:Person:Actor", "(n:Person:Actor)"),
        ("n.a.b[0]", "n.a.b[0]"),
        ("count(*)", "count(*)"),
        ("count(DISTINCT n.x)", "count(DISTINCT n.x)"),
        ("apoc.coll.sum([1])", "apoc.coll.sum([1])"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("0x1F + 0o17", "(31 Add 15)"),
        ("1 - -1", "(1 Sub -1)"),
        ("1e3 + .5", "(1000.0 Add 0.5)"),
        ("$p + $0", "($p Add $0)"),
        ("a <> b", "(a Ne b)"),
        ("10 % 3 / 2", "((10 Mod 3) Div 2)"),
    ];
    for (text, expected) in cases {
        assert_eq!(expr(text), expected, "for {text}");
    }
}

#[test]
fn return_items_keep_source_text_and_aliases() {
    let p = returned("MATCH (n) RETURN DISTINCT n.name,  count( * ) AS c ORDER BY c DESC, n.name ASCENDING SKIP 1 LIMIT $l");
    assert!(p.distinct);
    assert_eq!(p.items[0].text, "n.name");
    assert_eq!(p.items[0].column_name(), "n.name");
    assert_eq!(p.items[1].text, "count( * )");
    assert_eq!(p.items[1].column_name(), "c");
    assert_eq!(p.order_by.len(), 2);
    assert!(!p.order_by[0].ascending);
    assert!(p.order_by[1].ascending);
    assert!(p.skip.is_some());
    assert_eq!(
        p.limit.map(|l| l.kind),
        Some(ExprKind::Parameter("l".into()))
    );
}

#[test]
fn match_pattern_shapes() {
    let clauses = single("OPTIONAL MATCH p = (a:Person {name: 'x'})-[r:KNOWS|:LIKES *1..3]->(b)<-[:T]-(c), (d)--(e) WHERE a.age > 3 RETURN p");
    let Clause::Match(m) = &clauses[0] else {
        panic!("expected MATCH")
    };
    assert!(m.optional);
    assert_eq!(m.pattern.len(), 2);
    let part = &m.pattern[0];
    assert_eq!(part.variable.as_ref().map(|v| v.name.as_str()), Some("p"));
    let start = &part.element.start;
    assert_eq!(start.labels, vec!["Person"]);
    assert_eq!(start.span, Span::new(19, 41));
    assert!(matches!(
        start.properties.as_ref().map(|p| &p.kind),
        Some(ExprKind::Map(_))
    ));
    let (rel, b) = &part.element.chain[0];
    assert_eq!(rel.types, vec!["KNOWS", "LIKES"]);
    assert_eq!(rel.direction, Direction::Outgoing);
    assert_eq!(rel.length, Some((Some(1), Some(3))));
    assert_eq!(b.variable.as_ref().map(|v| v.name.as_str()), Some("b"));
    assert_eq!(part.element.chain[1].0.direction, Direction::Incoming);
    assert_eq!(m.pattern[1].element.chain[0].0.direction, Direction::Both);
    assert!(m.where_.is_some());
}

#[test]
fn variable_length_forms() {
    let cases = [
        ("*", (None, None)),
        ("*2", (Some(2), Some(2))),
        ("*1..", (Some(1), None)),
        ("*..4", (None, Some(4))),
        ("*0..4", (Some(0), Some(4))),
    ];
    for (text, expected) in cases {
        let clauses = single(&format!("MATCH (a)-[{text}]->(b) RETURN a"));
        let Clause::Match(m) = &clauses[0] else {
            panic!("expected MATCH")
        };
        assert_eq!(
            m.pattern[0].element.chain[0].0.length,
            Some(expected),
            "{text}"
        );
    }
}

#[test]
fn shortest_path_parts() {
    let clauses = single("MATCH p = shortestPath((a)-[*]-(b)) RETURN p");
    let Clause::Match(m) = &clauses[0] else {
        panic!("expected MATCH")
    };
    assert_eq!(m.pattern[0].kind, PathKind::Shortest);
    assert_eq!(m.pattern[0].element.chain.len(), 1);
}

#[test]
fn updating_clauses() {
    let clauses =
        single("MATCH (n) SET n.x = 1, n = {a: 1}, n += $m, n:A:B REMOVE n.y, n:C DETACH DELETE n");
    let Clause::Set(set) = &clauses[1] else {
        panic!("expected SET")
    };
    assert!(matches!(&set.items[0], SetItem::Property { key, .. } if key == "x"));
    assert!(matches!(&set.items[1], SetItem::Replace { .. }));
    assert!(matches!(&set.items[2], SetItem::MergeProperties { .. }));
    assert!(matches!(&set.items[3], SetItem::Labels { labels, .. } if labels == &["A", "B"]));
    let Clause::Remove(remove) = &clauses[2] else {
        panic!("expected REMOVE")
    };
    assert!(matches!(&remove.items[0], RemoveItem::Property { key, .. } if key == "y"));
    assert!(matches!(&remove.items[1], RemoveItem::Labels { .. }));
    assert!(matches!(&clauses[3], Clause::Delete(d) if d.detach && d.exprs.len() == 1));
}

#[test]
fn merge_with_actions() {
    let clauses = single("MERGE (n:L {k: 1}) ON CREATE SET n.c = 1 ON MATCH SET n.m = 2, n.x = 3 ON CREATE SET n.d = 4");
    let Clause::Merge(merge) = &clauses[0] else {
        panic!("expected MERGE")
    };
    assert_eq!(merge.on_create.len(), 2);
    assert_eq!(merge.on_match.len(), 2);
}

#[test]
fn call_forms() {
    let Clause::Call(call) = &single("CALL db.ping")[0] else {
        panic!("expected CALL")
    };
    assert_eq!(call.procedure, "db.ping");
    assert_eq!(call.args, None);
    let Clause::Call(call) = &single("CALL db.ping()")[0] else {
        panic!("expected CALL")
    };
    assert_eq!(call.args, Some(vec![]));
    let clauses = single("CALL db.labels() YIELD label AS l WHERE l <> 'x' RETURN l");
    let Clause::Call(call) = &clauses[0] else {
        panic!("expected CALL")
    };
    let yields = call.yields.as_ref().expect("yields");
    assert_eq!(yields[0].name.name, "label");
    assert_eq!(yields[0].binding().name, "l");
    assert!(call.where_.is_some());
}

#[test]
fn union_explain_and_semicolon() {
    let statement = parse("EXPLAIN RETURN 1 AS x UNION ALL RETURN 2 AS x;").expect("parses");
    assert!(statement.explain);
    assert!(
        matches!(statement.query, Query::Union { all: true, ref queries } if queries.len() == 2)
    );
    let statement = parse("RETURN 1 AS x UNION RETURN 2 AS x").expect("parses");
    assert!(matches!(statement.query, Query::Union { all: false, .. }));
}

#[test]
fn prefixes_resolve_labels_types_and_keys() {
    let statement = parse(
        "PREFIX foaf: <http://xmlns.com/foaf/0.1/>\nPREFIX ex: <http://example.org/>\n\
         MATCH (n:foaf::Person {foaf::name: 'A'})-[:foaf::knows|<http://x.org/r>]->(m) \
         SET m.ex::seen = true RETURN n.foaf::name, n {.foaf::age}",
    )
    .expect("parses");
    assert_eq!(
        statement.prefixes,
        vec![
            ("foaf".to_string(), "http://xmlns.com/foaf/0.1/".to_string()),
            ("ex".to_string(), "http://example.org/".to_string()),
        ]
    );
    let Query::Single(q) = &statement.query else {
        panic!("single")
    };
    let Clause::Match(m) = &q.clauses[0] else {
        panic!("match")
    };
    let node = &m.pattern[0].element.start;
    assert_eq!(node.labels, vec!["http://xmlns.com/foaf/0.1/Person"]);
    let Some(ExprKind::Map(entries)) = node.properties.as_ref().map(|p| &p.kind) else {
        panic!("map")
    };
    assert_eq!(entries[0].0, "http://xmlns.com/foaf/0.1/name");
    assert_eq!(
        m.pattern[0].element.chain[0].0.types,
        vec!["http://xmlns.com/foaf/0.1/knows", "http://x.org/r"]
    );
    let Clause::Set(set) = &q.clauses[1] else {
        panic!("set")
    };
    assert!(
        matches!(&set.items[0], SetItem::Property { key, .. } if key == "http://example.org/seen")
    );
    let Clause::Return(ret) = &q.clauses[2] else {
        panic!("return")
    };
    assert_eq!(
        shape(&ret.items[0].expr),
        "n.http://xmlns.com/foaf/0.1/name"
    );
    assert!(matches!(
        &ret.items[1].expr.kind,
        ExprKind::MapProjection { items, .. }
            if items == &[MapProjectionItem::Property("http://xmlns.com/foaf/0.1/age".into())]
    ));
}

#[test]
fn default_prefixes_resolve_where_the_query_declares_none() {
    let defaults = [
        ("ex".to_string(), "http://example.org/".to_string()),
        ("foaf".to_string(), "http://xmlns.com/foaf/0.1/".to_string()),
    ];
    let labels = |query: &str| {
        let statement = nereid_cypher::parse_with_prefixes(query, &defaults).expect("parses");
        let Query::Single(q) = &statement.query else {
            panic!("single")
        };
        let Clause::Match(m) = &q.clauses[0] else {
            panic!("match")
        };
        let node = &m.pattern[0].element.start;
        let key = match node.properties.as_ref().map(|p| &p.kind) {
            Some(ExprKind::Map(entries)) => entries[0].0.clone(),
            _ => String::new(),
        };
        (node.labels.clone(), key, statement.prefixes)
    };
    // Defaults stand for undeclared names, in `name::local` and backticks.
    assert_eq!(
        labels("MATCH (n:ex::Person {`foaf::name`: 'A'}) RETURN n"),
        (
            vec!["http://example.org/Person".to_string()],
            "http://xmlns.com/foaf/0.1/name".to_string(),
            vec![]
        )
    );
    // The query's own declaration wins over a default of the same name.
    assert_eq!(
        labels("PREFIX ex: <http://other.org/>\nMATCH (n:ex::Person) RETURN n").0,
        vec!["http://other.org/Person".to_string()]
    );
    // An IRI written as a value resolves too; an unknown name still fails.
    assert!(nereid_cypher::parse_with_prefixes("RETURN ex::alice", &defaults).is_ok());
    let error =
        nereid_cypher::parse_with_prefixes("RETURN owl::Thing", &defaults).expect_err("undeclared");
    assert!(
        error.to_string().contains("Undeclared prefix `owl`"),
        "{error}"
    );
    assert!(parse("MATCH (n:ex::Person) RETURN n").is_err());
}

#[test]
fn keywords_are_case_insensitive_and_names_keep_case() {
    let p = returned("match (Foo:BarLabel) where Foo.Prop = 1 return Foo.Prop as `My Col`");
    assert_eq!(p.items[0].column_name(), "My Col");
    assert_eq!(shape(&p.items[0].expr), "Foo.Prop");
}

#[test]
fn comprehensions_quantifiers_case_and_patterns() {
    let p = returned(
        "MATCH (a) RETURN [x IN range(1, 3) WHERE x > 1 | x * 2] AS l, \
         any(y IN a.list WHERE y = 1) AS q, CASE a.x WHEN 1 THEN 'one' ELSE 'other' END AS c, \
         [(a)-[:R]->(b) WHERE b.v > 0 | b.v] AS pc, exists((a)-->()) AS e, [1, 2, 3][1..] AS s",
    );
    assert!(matches!(
        p.items[0].expr.kind,
        ExprKind::ListComprehension {
            predicate: Some(_),
            projection: Some(_),
            ..
        }
    ));
    assert!(matches!(
        p.items[1].expr.kind,
        ExprKind::Quantifier {
            kind: QuantifierKind::Any,
            ..
        }
    ));
    assert!(matches!(
        p.items[2].expr.kind,
        ExprKind::Case {
            operand: Some(_),
            else_: Some(_),
            ..
        }
    ));
    assert!(matches!(
        p.items[3].expr.kind,
        ExprKind::PatternComprehension {
            predicate: Some(_),
            ..
        }
    ));
    let ExprKind::FunctionCall { args, .. } = &p.items[4].expr.kind else {
        panic!("function call")
    };
    assert!(matches!(args[0].kind, ExprKind::PatternExpression(_)));
    assert!(matches!(
        p.items[5].expr.kind,
        ExprKind::Slice(_, Some(_), None)
    ));
}

#[test]
fn parenthesized_expressions_are_not_patterns() {
    assert_eq!(expr("(x) - 1"), "(x Sub 1)");
    assert_eq!(expr("(1)"), "1");
    let p = returned("MATCH (a) WHERE (a)-[:R]->(:B) RETURN a");
    assert_eq!(p.items[0].text, "a");
}

#[test]
fn strings_and_spans() {
    let p = returned("RETURN 'it\\'s', \"tab\\there\"");
    assert_eq!(shape(&p.items[0].expr), "'it's'");
    assert_eq!(shape(&p.items[1].expr), "'tab\there'");
    assert_eq!(p.items[0].expr.span, Span::new(7, 14));
    assert_eq!(p.items[0].text, "'it\\'s'");
}
