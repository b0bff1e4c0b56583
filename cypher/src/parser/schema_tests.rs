//! Schema commands: what each desugars into, and where malformed ones are
//! reported (positions as the reference Neo4j 5.26 reports them).

use crate::ast::{Call, Clause, Expr, ExprKind, Literal, Query};

fn call(query: &str) -> Call {
    let statement = crate::parse(query).unwrap_or_else(|e| panic!("{query}: {e}"));
    let Query::Single(single) = statement.query else {
        panic!("expected a single query");
    };
    assert_eq!(single.clauses.len(), 1, "{query}");
    match single.clauses.into_iter().next() {
        Some(Clause::Call(call)) => call,
        other => panic!("expected a call, got {other:?}"),
    }
}

/// An argument as a short text: `'s'`, `true`, `null`, `$p`, `['a', 'b']`.
fn shown(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Literal(Literal::String(s)) => format!("'{s}'"),
        ExprKind::Literal(Literal::Bool(b)) => b.to_string(),
        ExprKind::Literal(Literal::Null) => "null".into(),
        ExprKind::Parameter(p) => format!("${p}"),
        ExprKind::List(items) => format!(
            "[{}]",
            items.iter().map(shown).collect::<Vec<_>>().join(", ")
        ),
        ExprKind::Map(_) => "{map}".into(),
        other => format!("{other:?}"),
    }
}

fn desugared(query: &str) -> String {
    let c = call(query);
    let args = c.args.unwrap_or_default();
    format!(
        "{}({})",
        c.procedure,
        args.iter().map(shown).collect::<Vec<_>>().join(", ")
    )
}

#[test]
fn create_index_forms() {
    assert_eq!(
        desugared("CREATE INDEX FOR (n:Person) ON (n.name)"),
        "internal.schema.createIndex(null, 'RANGE', 'NODE', ['Person'], ['name'], false, null)"
    );
    assert_eq!(
        desugared("create range index idx if not exists for (p:Person) on (p.age, p.name)"),
        "internal.schema.createIndex('idx', 'RANGE', 'NODE', ['Person'], ['age', 'name'], true, null)"
    );
    assert_eq!(
        desugared("CREATE TEXT INDEX $name FOR ()-[r:KNOWS]->() ON r.note OPTIONS {indexConfig: {}}"),
        "internal.schema.createIndex($name, 'TEXT', 'RELATIONSHIP', ['KNOWS'], ['note'], false, {map})"
    );
    assert_eq!(
        desugared("CREATE INDEX `my index` FOR ()<-[r:`A B`]-() ON (r.`k 1`)"),
        "internal.schema.createIndex('my index', 'RANGE', 'RELATIONSHIP', ['A B'], ['k 1'], false, null)"
    );
    // Names may be words that mean something elsewhere.
    assert_eq!(
        desugared("CREATE INDEX FOR FOR (n:L) ON (n.p)"),
        "internal.schema.createIndex('FOR', 'RANGE', 'NODE', ['L'], ['p'], false, null)"
    );
    assert_eq!(
        desugared("CREATE LOOKUP INDEX IF NOT EXISTS FOR ()-[r]-() ON EACH type(r)"),
        "internal.schema.createIndex(null, 'LOOKUP', 'RELATIONSHIP', [], [], true, null)"
    );
    assert_eq!(
        desugared("CREATE FULLTEXT INDEX t FOR (n:A|B) ON EACH [n.x, n.y]"),
        "internal.schema.createIndex('t', 'FULLTEXT', 'NODE', ['A', 'B'], ['x', 'y'], false, null)"
    );
    assert_eq!(
        desugared("CREATE VECTOR INDEX v FOR (n:D) ON n.e OPTIONS $o"),
        "internal.schema.createIndex('v', 'VECTOR', 'NODE', ['D'], ['e'], false, $o)"
    );
}

#[test]
fn create_constraint_forms() {
    assert_eq!(
        desugared("CREATE CONSTRAINT c FOR (n:U) REQUIRE n.e IS UNIQUE"),
        "internal.schema.createConstraint('c', 'UNIQUE', 'NODE', 'U', ['e'], [], false, null)"
    );
    assert_eq!(
        desugared("CREATE CONSTRAINT IF NOT EXISTS FOR (n:U) REQUIRE (n.a, n.b) IS NODE KEY"),
        "internal.schema.createConstraint(null, 'KEY', 'NODE', 'U', ['a', 'b'], [], true, null)"
    );
    assert_eq!(
        desugared("CREATE CONSTRAINT $c FOR ()-[r:T]-() REQUIRE r.p IS NOT NULL"),
        "internal.schema.createConstraint($c, 'EXISTS', 'RELATIONSHIP', 'T', ['p'], [], false, null)"
    );
    assert_eq!(
        desugared("CREATE CONSTRAINT FOR ()-[r:T]-() REQUIRE (r.p) IS REL KEY"),
        "internal.schema.createConstraint(null, 'KEY', 'RELATIONSHIP', 'T', ['p'], [], false, null)"
    );
    assert_eq!(
        desugared("CREATE CONSTRAINT FOR (n:U) REQUIRE n.p IS :: INT | FLOAT | LIST<VARCHAR NOT NULL>"),
        "internal.schema.createConstraint(null, 'PROPERTY_TYPE', 'NODE', 'U', ['p'], ['INTEGER', 'FLOAT', 'LIST<STRING NOT NULL>'], false, null)"
    );
    assert_eq!(
        desugared(
            "CREATE CONSTRAINT FOR (n:U) REQUIRE n.p IS TYPED ANY<TIME WITHOUT TIME ZONE | TIMESTAMP WITH TIMEZONE | SIGNED INTEGER>"
        ),
        "internal.schema.createConstraint(null, 'PROPERTY_TYPE', 'NODE', 'U', ['p'], ['LOCAL TIME', 'ZONED DATETIME', 'INTEGER'], false, null)"
    );
}

#[test]
fn drop_and_show_forms() {
    assert_eq!(
        desugared("DROP INDEX idx"),
        "internal.schema.dropIndex('idx', false)"
    );
    assert_eq!(
        desugared("drop constraint $c if exists"),
        "internal.schema.dropConstraint($c, true)"
    );
    // Without YIELD: the procedure of the default columns.
    assert_eq!(
        desugared("SHOW INDEXES"),
        "internal.show.indexesDefault('ALL')"
    );
    assert_eq!(
        desugared("SHOW TEXT INDEX WHERE name = 'x'"),
        "internal.show.indexesDefault('TEXT')"
    );
    assert_eq!(
        desugared("SHOW RANGE INDEXES YIELD name"),
        "internal.show.indexes('RANGE')"
    );
    assert_eq!(
        desugared("SHOW CONSTRAINTS YIELD *"),
        "internal.show.constraints('ALL')"
    );
    assert_eq!(
        desugared("SHOW REL UNIQUENESS CONSTRAINTS"),
        "internal.show.constraintsDefault('RELATIONSHIP UNIQUE')"
    );
    assert_eq!(
        desugared("SHOW NODE PROPERTY EXISTENCE CONSTRAINT"),
        "internal.show.constraintsDefault('NODE EXIST')"
    );
    assert_eq!(
        desugared("SHOW PROPERTY TYPE CONSTRAINTS"),
        "internal.show.constraintsDefault('PROPERTY TYPE')"
    );
    assert_eq!(
        desugared("SHOW ALL PROCEDURES"),
        "internal.show.procedures()"
    );
}

/// The error's offset and the start of its message (after the detail).
fn error_at(query: &str) -> (usize, String) {
    let e = crate::parse(query).expect_err(query);
    let message = e
        .message
        .split_once(": ")
        .map_or("", |(_, m)| m)
        .to_string();
    (e.offset, message)
}

#[test]
fn malformed_commands_are_syntax_errors_where_neo4j_points() {
    let cases: &[(&str, usize, &str)] = &[
        ("CREATE INDEX ON :U2(a)", 13, "Invalid create index syntax"),
        ("CREATE INDEX FOR (n:U2) ON (m.a)", 28, "Variable `m` not defined"),
        ("CREATE TEXT INDEX t2 FOR (n:U2) ON (n.a, n.b)", 41, "Only single property text"),
        ("CREATE INDEX FOR (n) ON (n.x)", 19, "Invalid input ')'"),
        ("CREATE INDEX FOR (n:A:B) ON (n.x)", 21, "Invalid input ':'"),
        ("CREATE INDEX FOR ()-[r]-() ON (r.x)", 22, "Invalid input ']'"),
        ("CREATE INDEX FOR (n:P4) ON ()", 28, "Invalid input ')'"),
        ("CREATE INDEX ix3 FOR (n:Q) ON (n.c) OPTIONS {foo: 1}", 0, "Failed to create range node property index: Invalid option"),
        ("CREATE CONSTRAINT c21 FOR (n:U2) REQUIRE (n.a, n.b) IS NOT NULL", 48, "Constraint type 'IS NOT NULL' does not allow multiple properties"),
        ("CREATE CONSTRAINT FOR (n:P4) REQUIRE (n.e, n.f) IS :: INTEGER", 44, "Constraint type 'IS TYPED' does not allow multiple properties"),
        ("CREATE CONSTRAINT c21 FOR (n:U2) REQUIRE n.a IS :: INTEGER NOT NULL", 51, "Failed to create node property type constraint: Invalid property type `INTEGER NOT NULL`."),
        ("CREATE CONSTRAINT c21 FOR (n:U2) REQUIRE n.a IS :: LIST<STRING>", 51, "Failed to create node property type constraint: Invalid property type `LIST<STRING>`. Lists cannot have nullable inner types."),
        ("CREATE CONSTRAINT FOR (n:P4) REQUIRE n.e IS :: LIST<LIST<STRING NOT NULL> NOT NULL>", 47, "Failed to create node property type constraint: Invalid property type `LIST<LIST<STRING NOT NULL> NOT NULL>`. Lists cannot have lists as an inner type."),
        ("CREATE CONSTRAINT FOR ()-[r:R]-() REQUIRE r.e IS :: MAP", 52, "Failed to create relationship property type constraint: Invalid property type `MAP`."),
        ("CREATE CONSTRAINT c21 FOR ()-[r:R]-() REQUIRE r.a IS NODE UNIQUE", 26, "'IS NODE UNIQUE' does not allow relationship patterns"),
        ("CREATE CONSTRAINT c21 FOR (n:U2) REQUIRE n.a IS RELATIONSHIP KEY", 26, "'IS RELATIONSHIP KEY' does not allow node patterns"),
        ("CREATE CONSTRAINT c43 FOR (n:P4) ASSERT n.e IS UNIQUE", 33, "Invalid constraint syntax, FOR should not be used in combination with ASSERT"),
        ("CREATE CONSTRAINT ON (n:P4) ASSERT n.e IS UNIQUE", 18, "Invalid constraint syntax, ON and ASSERT should not be used"),
        ("DROP INDEX", 10, "Unexpected end of input"),
        ("SHOW EXISTS CONSTRAINTS", 5, "`SHOW CONSTRAINTS` no longer allows the `EXISTS` keyword"),
        ("SHOW BTREE INDEXES", 5, "Invalid index type b-tree"),
        ("CREATE CONSTRAINT FOR (n:P) REQUIRE n.a IS UNIQUE extra", 50, "Invalid input 'extra'"),
    ];
    for (query, offset, message) in cases {
        let (at, got) = error_at(query);
        assert_eq!(at, *offset, "{query}: {got}");
        assert!(got.starts_with(message), "{query}: {got}");
    }
}
