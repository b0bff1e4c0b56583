//! Checks of the runner's own parts (value notation, error steps), run as trials named
//! `runner::...` next to the TCK cases: a harness-less test binary has no `#[test]`.

use crate::errors::{detail_of, ExpectedError, Phase};
use crate::value::{parse, ListOrder, TckValue};
use libtest_mimic::{Failed, Trial};

/// A named self-check.
type Check = (&'static str, fn() -> Result<(), String>);

pub fn trials() -> Vec<Trial> {
    let checks: [Check; 6] = [
        (
            "runner::value_notation_round_trips",
            value_notation_round_trips,
        ),
        (
            "runner::malformed_values_are_errors",
            malformed_values_are_errors,
        ),
        ("runner::value_comparison_rules", value_comparison_rules),
        ("runner::error_steps_parse", error_steps_parse),
        (
            "runner::details_are_message_prefixes",
            details_are_message_prefixes,
        ),
        (
            "runner::procedure_signatures_parse",
            crate::procedure::signature_notation_parses,
        ),
    ];
    checks
        .into_iter()
        .map(|(name, check)| Trial::test(name, move || check().map_err(Failed::from)))
        .collect()
}

fn same(got: String, want: &str) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("expected `{want}`, got `{got}`"))
    }
}

fn round_trip(text: &str) -> Result<String, String> {
    parse(text).map(|v| v.to_string())
}

fn value_notation_round_trips() -> Result<(), String> {
    for (input, output) in [
        ("null", "null"),
        ("-12", "-12"),
        ("1e3", "1000.0"),
        (".5", "0.5"),
        ("-0.0", "-0.0"),
        ("'it\\'s'", "'it\\'s'"),
        (
            "[1, [true], {a: 'x', b: []}]",
            "[1, [true], {a: 'x', b: []}]",
        ),
        ("(:B:A {k: 1})", "(:A:B {k: 1})"),
        ("({k: 1})", "({k: 1})"),
        ("[:T {k: 'v'}]", "[:T {k: 'v'}]"),
        ("<(:A)-[:T]->(:B)<-[:U]-()>", "<(:A)-[:T]->(:B)<-[:U]-()>"),
        ("{`a b`: 1}", "{a b: 1}"),
    ] {
        same(round_trip(input)?, output)?;
    }
    match parse("NaN")? {
        TckValue::Float(x) if x.is_nan() => Ok(()),
        other => Err(format!("NaN parsed as {other}")),
    }
}

fn malformed_values_are_errors() -> Result<(), String> {
    for bad in ["'open", "[1, 2", "<(:A)-[:T]-(:B)>", "1 2", "", "{a 1}"] {
        if parse(bad).is_ok() {
            return Err(format!("`{bad}` parsed"));
        }
    }
    Ok(())
}

fn value_comparison_rules() -> Result<(), String> {
    let v = |t: &str| parse(t);
    let checks = [
        (v("1")?, v("1.0")?, ListOrder::Strict, false),
        (v("NaN")?, v("NaN")?, ListOrder::Strict, true),
        (v("[1, 2]")?, v("[2, 1]")?, ListOrder::Strict, false),
        (v("[1, 2]")?, v("[2, 1]")?, ListOrder::Ignored, true),
        (v("[1, 1, 2]")?, v("[1, 2, 2]")?, ListOrder::Ignored, false),
        (
            v("(:A {k: 1})")?,
            v("(:A {k: 1.0})")?,
            ListOrder::Strict,
            false,
        ),
        (
            v("<(:A)-[:T]->(:B)>")?,
            v("<(:A)<-[:T]-(:B)>")?,
            ListOrder::Strict,
            false,
        ),
    ];
    for (a, b, lists, want) in checks {
        if a.matches(&b, lists) != want {
            return Err(format!("{a} vs {b} ({lists:?}): expected {want}"));
        }
    }
    Ok(())
}

fn error_steps_parse() -> Result<(), String> {
    let e =
        ExpectedError::parse("a SyntaxError should be raised at compile time: UndefinedVariable")
            .ok_or("did not parse")?;
    if e.error_type != "SyntaxError"
        || e.phase != Some(Phase::Compile)
        || e.detail != "UndefinedVariable"
    {
        return Err(format!("{e:?}"));
    }
    let e = ExpectedError::parse("an Error should be raised at any time: InvalidArgumentType")
        .ok_or("did not parse")?;
    if e.error_type != "Error" || e.phase.is_some() {
        return Err(format!("{e:?}"));
    }
    if ExpectedError::parse("the result should be empty").is_some() {
        return Err("a result step parsed as an error step".into());
    }
    Ok(())
}

fn details_are_message_prefixes() -> Result<(), String> {
    same(
        format!(
            "{:?}",
            detail_of("VariableAlreadyBound: Variable `n` already declared")
        ),
        "Some(\"VariableAlreadyBound\")",
    )?;
    same(
        format!("{:?}", detail_of("Invalid input 'x': expected")),
        "None",
    )?;
    same(format!("{:?}", detail_of("no colon here")), "None")
}
