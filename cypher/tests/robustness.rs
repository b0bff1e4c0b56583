//! The front end never panics and never overflows the stack, whatever the input.

use proptest::prelude::*;

/// Parses and (when parsing succeeds) analyzes; the result itself does not matter here.
fn exercise(query: &str) {
    if let Ok(statement) = nereid_cypher::parse(query) {
        let _ = nereid_cypher::analyze(&statement);
    }
}

/// Fragments that steer random input into the interesting parts of the grammar.
fn cypherish() -> impl Strategy<Value = String> {
    let fragment = prop::sample::select(vec![
        "MATCH ",
        "OPTIONAL ",
        "RETURN ",
        "WITH ",
        "WHERE ",
        "UNWIND ",
        "AS ",
        "CREATE ",
        "MERGE ",
        "ON ",
        "SET ",
        "DELETE ",
        "DETACH ",
        "REMOVE ",
        "CALL ",
        "YIELD ",
        "UNION ",
        "ALL ",
        "ORDER BY ",
        "SKIP ",
        "LIMIT ",
        "DISTINCT ",
        "CASE ",
        "WHEN ",
        "THEN ",
        "ELSE ",
        "END ",
        "NOT ",
        "AND ",
        "OR ",
        "XOR ",
        "IN ",
        "IS ",
        "NULL ",
        "STARTS WITH ",
        "CONTAINS ",
        "count",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "-",
        "->",
        "<-",
        "*",
        "..",
        ":",
        "::",
        "|",
        ",",
        ".",
        "=",
        "<>",
        "<",
        ">=",
        "+",
        "+=",
        "/",
        "%",
        "^",
        "=~",
        "$p",
        "n",
        "m",
        "x",
        "r",
        "1",
        "-9223372036854775808",
        "0x1F",
        "1.5e3",
        "'s'",
        "\"t\\n\"",
        "`q`",
        "PREFIX ",
        "<http://a/>",
        "foaf::name",
        "//c\n",
        "/*c*/",
        ";",
        "\n",
        " ",
        "shortestPath",
    ]);
    prop::collection::vec(fragment, 0..40).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_strings_do_not_panic(query in any::<String>()) {
        exercise(&query);
    }

    #[test]
    fn cypher_like_token_soup_does_not_panic(query in cypherish()) {
        exercise(&query);
    }

    #[test]
    fn error_positions_are_inside_the_query(query in cypherish()) {
        let error = match nereid_cypher::parse(&query) {
            Ok(statement) => match nereid_cypher::analyze(&statement) {
                Ok(()) => return Ok(()),
                Err(error) => error,
            },
            Err(error) => error,
        };
        prop_assert!(error.offset <= query.len());
        prop_assert!(error.line >= 1 && error.column >= 1);
        let suffix = format!("(offset: {}))", error.offset);
        prop_assert!(error.message.contains(&suffix), "{}", error.message);
    }
}

/// Deeply nested input fails cleanly even on a small (test-thread sized) stack.
#[test]
fn deep_nesting_is_rejected_without_stack_overflow() {
    let queries = vec![
        format!("RETURN {}1{}", "(".repeat(5000), ")".repeat(5000)),
        format!("RETURN {}1{}", "[".repeat(5000), "]".repeat(5000)),
        format!("RETURN {}1", "-".repeat(5000)),
        format!("RETURN {}1", "NOT ".repeat(5000)),
        format!("RETURN 1{}", "+1".repeat(50_000)),
        format!("RETURN x{}", ".a".repeat(50_000)),
        format!("RETURN x{}", "[0]".repeat(50_000)),
        format!("RETURN {}", "{a:".repeat(5000)),
        format!("MATCH {}(n){} RETURN n", "(".repeat(5000), ")".repeat(5000)),
        format!("RETURN 1{}", " < 1".repeat(50_000)),
        format!("RETURN 1{}", " IS NULL".repeat(50_000)),
    ];
    let handle = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            for query in &queries {
                let error = nereid_cypher::parse(query).expect_err("too deep");
                assert!(
                    error.message.contains("nested too deeply"),
                    "{}",
                    &error.message[..80]
                );
            }
        })
        .expect("spawn");
    handle.join().expect("no stack overflow or panic");
}

/// The deepest trees the parser accepts can still be analyzed and dropped on a small stack.
#[test]
fn deepest_accepted_trees_fit_a_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(|| {
            let mut accepted = 0;
            for n in [100, 400, 800, 990, 1200] {
                let chain = format!("RETURN 1{} AS x", " + 1".repeat(n));
                let props = format!("WITH {{}} AS x RETURN x{} AS y", ".a".repeat(n));
                for query in [chain, props] {
                    if let Ok(statement) = nereid_cypher::parse(&query) {
                        nereid_cypher::analyze(&statement).expect("valid");
                        accepted += 1;
                    }
                }
            }
            assert!(accepted >= 8, "only {accepted} accepted");
        })
        .expect("spawn");
    handle.join().expect("no stack overflow or panic");
}

/// Moderate nesting that real queries use is accepted.
#[test]
fn reasonable_nesting_is_accepted() {
    let query = format!("RETURN {}1{} AS x", "(".repeat(40), ")".repeat(40));
    exercise(&query);
    assert!(nereid_cypher::parse(&query).is_ok());
    let query = format!("RETURN 1{} AS x", " + 1".repeat(500));
    assert!(nereid_cypher::parse(&query).is_ok());
}
