//! The openCypher TCK, run in-process: one libtest trial per scenario and per Examples row,
//! so `cargo test -p nereid-tests --test tck -- <filter>` selects cases by name
//! (`<feature path>::<scenario name>[::<row>]`).
//!
//! Features come from `$TCK_DIR/features` (or `$TCK_DIR` itself when it has no `features`
//! folder; default `<repo>/../shared/tck`), named graphs from `<tck>/graphs`. Without a TCK the
//! run warns loudly and passes. Each case gets a fresh database in a temp dir and is judged as
//! `scenario.rs`, `errors.rs` and `side_effects.rs` describe. Cases listed in
//! `expected-failures.txt` may fail (they show as ignored, "known failure"); any other failure
//! is a regression and fails the run. At the end: `TCK: P passed, F failed, S skipped of N`
//! and a table by top-level folder.
//!
//! Environment: `TCK_DIR`; `NEREID_TCK_BLESS=1` rewrites the expectations file from this run
//! (`=fresh` also recomputes the reasons of lines that still fail); `NEREID_TCK_STRICT=1` makes
//! listed failures fail too, to read their messages.

mod errors;
mod expectations;
mod failure;
mod features;
mod materialise;
mod procedure;
mod scenario;
mod selftest;
mod side_effects;
mod value;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use scenario::{Case, Outcome};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// Outcomes of the cases that ran, by case name.
type Results = Arc<Mutex<Vec<(String, String, Outcome)>>>;

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let tck = std::env::var_os("TCK_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join("../shared/tck"));
    let features_dir = if tck.join("features").is_dir() {
        tck.join("features")
    } else {
        tck.clone()
    };
    let graphs = tck.join("graphs");
    let files = features::feature_files(&features_dir);
    if files.is_empty() {
        eprintln!(
            "\n!!!!!!!!!!\nWARNING: no openCypher TCK found at {} (set TCK_DIR); the TCK was NOT run.\n!!!!!!!!!!\n",
            tck.display()
        );
        return ExitCode::SUCCESS;
    }
    let expectations_path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tck/expected-failures.txt");
    let expected = match expectations::load(&expectations_path) {
        Ok(e) => Arc::new(e),
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let bless = std::env::var("NEREID_TCK_BLESS")
        .ok()
        .filter(|v| !v.is_empty() && v != "0");
    let strict = std::env::var("NEREID_TCK_STRICT").is_ok_and(|v| !v.is_empty() && v != "0");

    let mut cases = Vec::new();
    let mut trials = selftest::trials();
    for rel in &files {
        match features::cases_of(&features_dir, rel) {
            Ok(c) => cases.extend(c),
            Err(e) => {
                // A feature the runner cannot read is a runner failure, never a silent skip.
                let name = format!("{}::<parse>", rel.display());
                trials.push(Trial::test(name, move || Err(Failed::from(e))));
            }
        }
    }
    let mut seen = BTreeSet::new();
    for case in &cases {
        assert!(
            seen.insert(case.name.clone()),
            "two cases named {}",
            case.name
        );
    }
    let results: Results = Arc::default();
    let scratch = scenario::scratch_dir();
    for case in cases {
        let graphs = graphs.clone();
        let scratch = scratch.clone();
        let results = results.clone();
        let expected = expected.clone();
        let blessing = bless.is_some();
        let known = blessing || !strict;
        trials.push(Trial::ignorable_test(case.name.clone(), move || {
            let outcome = run_guarded(&case, &graphs, &scratch);
            let verdict = match &outcome {
                Outcome::Passed => Ok(Completion::Completed),
                Outcome::Skipped(reason) => Ok(Completion::ignored_with(reason)),
                Outcome::Failed(f) => match expected.get(&case.name) {
                    Some(reason) if known => {
                        Ok(Completion::ignored_with(format!("known failure: {reason}")))
                    }
                    _ if blessing => Ok(Completion::ignored_with(f.reason.clone())),
                    _ => Err(Failed::from(format!("[{}] {}", f.reason, f.message))),
                },
            };
            results.lock().unwrap_or_else(|e| e.into_inner()).push((
                case.name,
                case.folder,
                outcome,
            ));
            verdict
        }));
    }
    let conclusion = libtest_mimic::run(&args, trials);
    if args.list {
        return ExitCode::SUCCESS;
    }
    let results = std::mem::take(&mut *results.lock().unwrap_or_else(|e| e.into_inner()));
    report(&results, &expected);
    if let Some(mode) = bless {
        let ran: BTreeSet<String> = results.iter().map(|(n, _, _)| n.clone()).collect();
        let failing: BTreeMap<String, String> = results
            .iter()
            .filter_map(|(n, _, o)| match o {
                Outcome::Failed(f) => Some((n.clone(), f.reason.clone())),
                _ => None,
            })
            .collect();
        // `fresh` forgets the old reasons of the cases that ran.
        let old: expectations::Expectations = if mode == "fresh" {
            expected
                .iter()
                .filter(|(n, _)| !ran.contains(*n))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        } else {
            (*expected).clone()
        };
        match expectations::bless(&expectations_path, &old, &ran, &failing) {
            Ok(n) => println!(
                "blessed {}: {n} expected failures",
                expectations_path.display()
            ),
            Err(e) => {
                eprintln!("cannot write {}: {e}", expectations_path.display());
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    conclusion.exit_code()
}

/// Runs a case on its own thread: a panic in the engine is a failure of that case, not of
/// the run, and the stack is large enough for the recursive parser and planner on the TCK's
/// deepest expressions in a debug build (the test threads' default 2 MiB is not).
fn run_guarded(case: &Case, graphs: &Path, scratch: &Path) -> Outcome {
    const STACK: usize = 64 << 20;
    let joined = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, || scenario::run_case(case, graphs, scratch))
            .map(|handle| handle.join())
    });
    match joined {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(payload)) => {
            let text = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Outcome::Failed(failure::Failure::new("panic", format!("panicked: {text}")))
        }
        Err(e) => Outcome::Failed(failure::Failure::new(
            "runner: no thread",
            format!("cannot start the case's thread: {e}"),
        )),
    }
}

/// The summary line, the table by folder, regressions and cases now passing.
fn report(results: &[(String, String, Outcome)], expected: &expectations::Expectations) {
    #[derive(Default)]
    struct Row {
        passed: usize,
        failed: usize,
        skipped: usize,
    }
    let mut by_folder: BTreeMap<&str, Row> = BTreeMap::new();
    let mut total = Row::default();
    let mut now_passing = Vec::new();
    let mut regressions = Vec::new();
    let mut reasons: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, folder, outcome) in results {
        let row = by_folder.entry(folder.as_str()).or_default();
        match outcome {
            Outcome::Passed => {
                row.passed += 1;
                total.passed += 1;
                if expected.contains_key(name) {
                    now_passing.push(name.as_str());
                }
            }
            Outcome::Failed(f) => {
                row.failed += 1;
                total.failed += 1;
                *reasons.entry(f.reason.as_str()).or_default() += 1;
                if !expected.contains_key(name) {
                    regressions.push(name.as_str());
                }
            }
            Outcome::Skipped(_) => {
                row.skipped += 1;
                total.skipped += 1;
            }
        }
    }
    now_passing.sort();
    regressions.sort();
    println!(
        "\n{:<14} {:>7} {:>7} {:>8} {:>7}",
        "folder", "passed", "failed", "skipped", "total"
    );
    for (folder, r) in &by_folder {
        println!(
            "{folder:<14} {:>7} {:>7} {:>8} {:>7}",
            r.passed,
            r.failed,
            r.skipped,
            r.passed + r.failed + r.skipped
        );
    }
    if std::env::var_os("NEREID_TCK_REASONS").is_some() {
        let mut sorted: Vec<_> = reasons.into_iter().collect();
        sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        println!("\nfailures by reason:");
        for (reason, n) in sorted {
            println!("{n:>6}  {reason}");
        }
    }
    for name in &now_passing {
        println!("warning: now passing: remove from the list: {name}");
    }
    for name in &regressions {
        println!("REGRESSION (failing, not in expected-failures.txt): {name}");
    }
    println!(
        "\nTCK: {} passed, {} failed, {} skipped of {}",
        total.passed,
        total.failed,
        total.skipped,
        results.len()
    );
}
