//! Development aid: runs parse + analyze over every query in a directory of TCK `.feature`
//! files and prints the ones whose outcome disagrees with the scenario (accepted vs. a
//! compile-time SyntaxError expectation). Usage: `tck_sweep <features dir>`.
use std::path::Path;

fn visit(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            visit(&path, out);
        } else if path.extension().is_some_and(|e| e == "feature") {
            out.push(path);
        }
    }
}

fn main() {
    let root = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let mut files = Vec::new();
    visit(Path::new(&root), &mut files);
    let (mut ok, mut bad) = (0, 0);
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        // Split into scenarios; in each, the query after "executing query:" and whether a
        // SyntaxError is expected at compile time.
        for scenario in text.split("Scenario").skip(1) {
            let Some(at) = scenario.find("executing query:") else {
                continue;
            };
            let rest = &scenario[at..];
            let Some(open) = rest.find("\"\"\"") else {
                continue;
            };
            let body = &rest[open + 3..];
            let Some(close) = body.find("\"\"\"") else {
                continue;
            };
            let query: String = body[..close]
                .lines()
                .map(|l| l.trim_start())
                .collect::<Vec<_>>()
                .join("\n");
            let expects_syntax = scenario.contains("SyntaxError should be raised at compile time");
            let result =
                nereid_cypher::parse(query.trim()).and_then(|s| nereid_cypher::analyze(&s));
            let agrees = result.is_err() == expects_syntax;
            if agrees {
                ok += 1;
            } else {
                bad += 1;
                let detail = scenario
                    .lines()
                    .find(|l| l.contains("SyntaxError"))
                    .unwrap_or("")
                    .trim()
                    .to_string();
                match result {
                    Ok(()) => println!("ACCEPTED ({detail}): {}", query.trim().replace('\n', " ")),
                    Err(e) => println!(
                        "REJECTED: {}\n   {}",
                        query.trim().replace('\n', " "),
                        e.summary()
                    ),
                }
            }
        }
    }
    println!("agree: {ok}, disagree: {bad}");
}
