//! The shared driver scenarios (issue 3; the same list in every client of
//! tests/drivers/) with neo4rs 0.8 (Bolt 4.1/4.0, credentials in HELLO).
//!
//! Usage: `nereid-neo4rs-scenarios bolt://HOST:PORT`.
//! Environment, as for the other clients: SCENARIO_USER / SCENARIO_PASSWORD
//! (default neo4j / x), SCENARIO_AUTH_ENFORCED=1 (run the bad-password
//! scenario), SCENARIO_TLS_URI (a TLS listener) with SCENARIO_TLS_CA (the PEM
//! certificate to trust for it; neo4rs always verifies, even for `+ssc`).
//!
//! Prints one line per scenario: `ok` (a note after ` -- `), `FAIL` (the
//! failure after `: `), `skip` (this run lacks what the scenario needs, e.g.
//! no TLS listener) or `n/a` (neo4rs 0.8 has no API for what the scenario
//! exercises, with the reason), then "P passed, F failed, S skipped" (the
//! `n/a` lines count as skipped); exits 1 if any scenario failed.

mod retry_log;
mod scenarios;
mod support;

use support::{Outcome, Settings};

#[tokio::main]
async fn main() {
    let Some(uri) = std::env::args().nth(1) else {
        eprintln!("usage: nereid-neo4rs-scenarios bolt://HOST:PORT");
        std::process::exit(2);
    };
    retry_log::install();
    let settings = Settings::from_env(uri);
    let graph = match support::connect(&settings.uri, &settings.password, 2).await {
        Ok(graph) => graph,
        Err(e) => {
            println!("FAIL connect and authenticate: {e}");
            println!("0 passed, 1 failed, 0 skipped");
            std::process::exit(1);
        }
    };
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for &name in scenarios::NAMES {
        // Every scenario starts from an empty graph, so one server (the
        // reference Neo4j of tests/sidebyside) serves every client.
        let outcome = match graph.run(neo4rs::query("MATCH (n) DETACH DELETE n")).await {
            Ok(()) => scenarios::run(name, &graph, &settings).await,
            Err(e) => Err(format!("emptying the graph: {e}")),
        };
        match outcome {
            Ok(Outcome::Passed(note)) => {
                passed += 1;
                match note {
                    Some(note) => println!("ok   {name} -- {note}"),
                    None => println!("ok   {name}"),
                }
            }
            Ok(Outcome::Skipped(reason)) => {
                skipped += 1;
                println!("skip {name}: {reason}");
            }
            Ok(Outcome::NotApplicable(reason)) => {
                skipped += 1;
                println!("n/a  {name}: {reason}");
            }
            Err(failure) => {
                failed += 1;
                let failure: String = failure.chars().take(300).collect();
                println!("FAIL {name}: {failure}");
            }
        }
    }
    println!("{passed} passed, {failed} failed, {skipped} skipped");
    std::process::exit(if failed == 0 { 0 } else { 1 });
}
