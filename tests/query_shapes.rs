//! Query shapes a hostile client chooses: clause chains thousands long,
//! patterns hundreds of hops long, subqueries nested past every bound,
//! UNION chains. Each runs through the whole engine (parse, analyse, plan,
//! rules, physical planning, EXPLAIN rendering, operator construction,
//! execution, drop) on a thread whose stack is as small as a tokio
//! worker's, so any recursion that depth can drive and that neither a
//! parser bound nor `nereid_stack::deeper` covers overflows here, failing
//! the test run instead of a server in production.
//!
//! The outcome must be rows or a Neo4j status; never a panic or an abort.
//! The fixed cases are the reproductions of the hardening issue; the
//! property test generates further shapes.

use nereid_engine::{Database, DbConfig, Params};
use proptest::prelude::*;
use std::sync::Arc;

/// A tokio worker's stack: smaller than the execution pool's, so a
/// recursion left unguarded shows up at smaller depths than in production.
const SMALL_STACK: usize = 2 * 1024 * 1024;

/// `Ok(rows)` or `Err(status code)`.
fn run_on_small_stack(db: &Arc<Database>, query: String) -> Result<usize, String> {
    let db = Arc::clone(db);
    std::thread::Builder::new()
        .stack_size(SMALL_STACK)
        .spawn(move || {
            let mut result = db
                .run(None, &query, Params::new())
                .map_err(|e| e.status.code().to_string())?;
            let mut rows = 0;
            result
                .pull(-1, &mut |_, _| rows += 1)
                .map_err(|e| e.status.code().to_string())?;
            // EXPLAIN's plan tree travels in the summary: dropped here too.
            drop(result.summary());
            Ok(rows)
        })
        .expect("thread starts")
        .join()
        .expect("the query must not panic")
}

fn open() -> (tempfile::TempDir, Arc<Database>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("database opens");
    (dir, db)
}

fn hops(n: usize) -> String {
    "-->()".repeat(n)
}

fn nested_calls(n: usize) -> String {
    format!(
        "{}RETURN 1 AS x{} RETURN 1",
        "CALL { ".repeat(n),
        " }".repeat(n)
    )
}

fn nested_foreach(n: usize) -> String {
    let open: String = (0..n).map(|i| format!("FOREACH (x{i} IN [] | ")).collect();
    format!("{open}CREATE (){}", ")".repeat(n))
}

fn union_chain(parts: usize) -> String {
    (0..parts)
        .map(|i| format!("RETURN {i} AS x"))
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
}

#[test]
fn long_patterns_plan_and_run() {
    let (_dir, db) = open();
    let q = |n| format!("MATCH (a){} RETURN count(*) AS c", hops(n));
    assert_eq!(run_on_small_stack(&db, format!("EXPLAIN {}", q(40))), Ok(0));
    assert_eq!(
        run_on_small_stack(&db, format!("EXPLAIN {}", q(100))),
        Ok(0)
    );
    assert_eq!(run_on_small_stack(&db, q(200)), Ok(1));
    // Variable-length hops: one uniqueness filter each, not one per pair
    // (a 9 KB chain of 1,000 got the server killed by its memory limit;
    // 400 here keep the debug build quick).
    let var_length = format!("MATCH (a){} RETURN count(*) AS c", "-[*]->()".repeat(400));
    assert_eq!(run_on_small_stack(&db, var_length), Ok(1));
}

#[test]
fn long_clause_chains_plan_and_run() {
    let (_dir, db) = open();
    let chain = format!("{}RETURN x", "WITH 1 AS x ".repeat(13_000));
    assert_eq!(run_on_small_stack(&db, chain.clone()), Ok(1));
    assert!(run_on_small_stack(&db, format!("EXPLAIN {chain}")).is_ok());
    assert_eq!(run_on_small_stack(&db, union_chain(2_000)), Ok(2_000));
}

#[test]
fn subqueries_nested_past_the_bound_are_syntax_errors() {
    let (_dir, db) = open();
    let syntax = Err("Neo.ClientError.Statement.SyntaxError".to_string());
    assert_eq!(run_on_small_stack(&db, nested_calls(20_000)), syntax);
    assert_eq!(run_on_small_stack(&db, nested_calls(5_000)), syntax);
    assert_eq!(run_on_small_stack(&db, nested_foreach(10_000)), syntax);
    // Within the bound they run.
    assert_eq!(run_on_small_stack(&db, nested_calls(20)), Ok(1));
    assert_eq!(run_on_small_stack(&db, nested_foreach(20)), Ok(0));
}

/// One generated clause of a query shape.
#[derive(Clone, Debug)]
enum Shape {
    With(usize),
    Match(usize),
    Calls(usize),
    Foreach(usize),
    Exists(usize),
    Union(usize),
    Expression(usize),
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (1..3_000usize).prop_map(Shape::With),
        (1..160usize).prop_map(Shape::Match),
        (1..140usize).prop_map(Shape::Calls),
        (1..140usize).prop_map(Shape::Foreach),
        (1..140usize).prop_map(Shape::Exists),
        (1..400usize).prop_map(Shape::Union),
        (1..1_200usize).prop_map(Shape::Expression),
    ]
}

fn render(shape: &Shape, explain: bool) -> String {
    let body = match *shape {
        Shape::With(n) => format!("{}RETURN x", "WITH 1 AS x ".repeat(n)),
        Shape::Match(n) => format!("MATCH (a){} RETURN count(*)", hops(n)),
        Shape::Calls(n) => nested_calls(n),
        Shape::Foreach(n) => nested_foreach(n),
        Shape::Exists(n) => format!(
            "RETURN {}true{}",
            "EXISTS { MATCH (n) WHERE ".repeat(n),
            " }".repeat(n)
        ),
        Shape::Union(n) => union_chain(n),
        Shape::Expression(n) => format!("RETURN {}1{} AS x", "(".repeat(n), ")".repeat(n)),
    };
    if explain {
        format!("EXPLAIN {body}")
    } else {
        body
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Every shape ends in rows or a Neo4j status on a small stack.
    #[test]
    fn generated_shapes_end_in_rows_or_a_status(shape in shape(), explain in any::<bool>()) {
        let (_dir, db) = open();
        match run_on_small_stack(&db, render(&shape, explain)) {
            Ok(_) => {}
            Err(code) => prop_assert!(code.starts_with("Neo."), "{code}"),
        }
    }
}
