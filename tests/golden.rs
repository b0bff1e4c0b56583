//! Golden query files: `tests/golden/*.test`, run in-process against the
//! engine (parse → plan → execute → commit, with a real log in a temp dir).
//!
//! File format — a sequence of steps separated by blank lines, all run
//! against one fresh database per file:
//!
//! ```text
//! # a comment
//! > MATCH (n:Person) RETURN n.name AS name ORDER BY name
//! name
//! 'Ann'
//! 'Bob'
//! ```
//!
//! `> query` is the statement (one line). The next line is the header (the
//! column names joined by ` | `) followed by one line per row, values in the
//! TCK's notation (`(:L {k: 'v'})`, `[:T {k: 1}]`, `<(:A)-[:T]->(:B)>`).
//! Rows compare in order when the query has ORDER BY, as a multiset
//! otherwise. A step without a header expects no columns. `error: <code>`
//! expects a failure with that Neo4j status code; `restart` reopens the
//! database from its data directory (recovery from the log).
//! `begin` opens an explicit transaction: the queries after it run inside it
//! until `commit` or `rollback`, except those written `>! query`, which run
//! in their own auto-commit transaction (a concurrent writer).
//! A cell written `<datetime>` matches any datetime value (`'2026-11-27T06:34:27.929Z'`):
//! for columns such as `trackedSince` that hold the moment a test ran.
//! `procedure <signature>` registers a table procedure on the file's
//! database (`test.p(in :: INTEGER?) :: (out :: STRING?)`), its rows on the
//! following lines as Cypher expressions joined by ` | ` (inputs, then
//! outputs), evaluated by the engine itself.

use nereid_engine::{Database, DbConfig, Params, ProcedureSignature, Transaction};
use nereid_values::{EntityResolver, NodeData, RelData, Value};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[test]
fn golden_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/golden exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "test"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no golden files found in {}",
        dir.display()
    );
    let mut failures = Vec::new();
    for file in &files {
        if let Err(e) = run_file(file) {
            failures.push(format!("{}: {e}", file.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "golden failures:\n{}",
        failures.join("\n\n")
    );
}

enum Step {
    Query {
        line: usize,
        query: String,
        expect: Expect,
        /// `>!`: outside the open explicit transaction.
        auto_commit: bool,
    },
    Restart,
    Begin,
    Commit,
    Rollback,
    Procedure {
        line: usize,
        signature: String,
        rows: Vec<String>,
    },
}

enum Expect {
    Rows {
        header: Option<String>,
        rows: Vec<String>,
    },
    Error(String),
}

fn parse_file(text: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut block: Vec<(usize, &str)> = Vec::new();
    let lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end()));
    for (no, line) in lines.chain(std::iter::once((0, ""))) {
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if !block.is_empty() {
                steps.push(parse_block(&block));
                block.clear();
            }
            continue;
        }
        block.push((no, line));
    }
    steps
}

fn parse_block(block: &[(usize, &str)]) -> Step {
    let (line, first) = block[0];
    match first {
        "restart" => return Step::Restart,
        "begin" => return Step::Begin,
        "commit" => return Step::Commit,
        "rollback" => return Step::Rollback,
        _ => {}
    }
    if let Some(signature) = first.strip_prefix("procedure ") {
        return Step::Procedure {
            line,
            signature: signature.to_string(),
            rows: block[1..].iter().map(|(_, l)| l.to_string()).collect(),
        };
    }
    let (query, auto_commit) = match first.strip_prefix(">! ") {
        Some(query) => (query.to_string(), true),
        None => (
            first
                .strip_prefix("> ")
                .unwrap_or_else(|| panic!("line {line}: a step starts with '> query' or 'restart'"))
                .to_string(),
            false,
        ),
    };
    let rest: Vec<&str> = block[1..].iter().map(|(_, l)| *l).collect();
    let expect = match rest.first() {
        Some(l) if l.starts_with("error: ") => Expect::Error(l["error: ".len()..].to_string()),
        Some(header) => Expect::Rows {
            header: Some(header.to_string()),
            rows: rest[1..].iter().map(|s| s.to_string()).collect(),
        },
        None => Expect::Rows {
            header: None,
            rows: Vec::new(),
        },
    };
    Step::Query {
        line,
        query,
        expect,
        auto_commit,
    }
}

fn open(dir: &Path) -> Arc<Database> {
    Database::open(&DbConfig::new(dir.to_path_buf(), 4)).expect("database opens")
}

fn run_file(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut db = open(tmp.path());
    let mut tx: Option<Transaction> = None;
    for step in parse_file(&text) {
        match step {
            Step::Restart => {
                drop(tx.take());
                drop(db);
                db = open(tmp.path());
            }
            Step::Begin => tx = Some(db.begin()),
            Step::Commit => {
                let open = tx.take().ok_or("commit without begin")?;
                db.commit(open).map_err(|e| e.message)?;
            }
            Step::Rollback => db.rollback(tx.take().ok_or("rollback without begin")?),
            Step::Query {
                line,
                query,
                expect,
                auto_commit,
            } => {
                let inside = if auto_commit { None } else { tx.as_ref() };
                check(&db, inside, line, &query, expect)?
            }
            Step::Procedure {
                line,
                signature,
                rows,
            } => register(&db, &signature, &rows).map_err(|e| format!("line {line}: {e}"))?,
        }
    }
    Ok(())
}

/// Registers a `procedure` step's fixture; each row is evaluated as
/// `RETURN [cells]`.
fn register(db: &Arc<Database>, signature: &str, rows: &[String]) -> Result<(), String> {
    let signature = ProcedureSignature::parse_notation(signature)?;
    let mut values = Vec::new();
    for row in rows {
        let query = format!("RETURN [{}] AS row", row.replace(" | ", ", "));
        let mut result = db.run(None, &query, Params::new()).map_err(|e| e.message)?;
        result
            .pull(-1, &mut |cells, _| {
                if let Some(Value::List(cells)) = cells.first() {
                    values.push(cells.to_vec());
                }
            })
            .map_err(|e| e.message)?;
    }
    db.register_procedure(signature, values)
        .map_err(|e| e.message)
}

fn check(
    db: &Arc<Database>,
    tx: Option<&Transaction>,
    line: usize,
    query: &str,
    expect: Expect,
) -> Result<(), String> {
    let outcome = run(db, tx, query);
    match (expect, outcome) {
        (Expect::Error(code), Err(e)) if e.status.code() == code => Ok(()),
        (Expect::Error(code), Err(e)) => Err(format!(
            "line {line}: `{query}` expected {code}, got {}: {}",
            e.status.code(),
            e.message
        )),
        (Expect::Error(code), Ok(_)) => {
            Err(format!("line {line}: `{query}` expected {code}, got rows"))
        }
        (Expect::Rows { .. }, Err(e)) => Err(format!(
            "line {line}: `{query}` failed: {}: {}",
            e.status.code(),
            e.message
        )),
        (Expect::Rows { header, mut rows }, Ok((fields, mut got))) => {
            let got_header = fields.join(" | ");
            let want_header = header.unwrap_or_default();
            if got_header != want_header {
                return Err(format!(
                    "line {line}: `{query}` columns: expected `{want_header}`, got `{got_header}`"
                ));
            }
            if !query.to_ascii_uppercase().contains("ORDER BY") {
                rows.sort();
                got.sort();
            }
            let same = rows.len() == got.len()
                && rows
                    .iter()
                    .zip(&got)
                    .all(|(want, got)| row_matches(want, got));
            if !same {
                return Err(format!(
                    "line {line}: `{query}`\n  expected:\n    {}\n  got:\n    {}",
                    rows.join("\n    "),
                    got.join("\n    ")
                ));
            }
            Ok(())
        }
    }
}

type Rows = (Vec<String>, Vec<String>);

/// `want` equals `got`, each `<datetime>` in `want` standing for a quoted
/// datetime in `got`.
fn row_matches(want: &str, got: &str) -> bool {
    const ANY: &str = "<datetime>";
    let mut pieces = want.split(ANY);
    let Some(first) = pieces.next() else {
        return want == got;
    };
    let Some(mut rest) = got.strip_prefix(first) else {
        return false;
    };
    for piece in pieces {
        let Some(len) = quoted_datetime_len(rest) else {
            return false;
        };
        match rest[len..].strip_prefix(piece) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

/// The length of the quoted datetime `'dddd-dd-ddTdd:dd:dd[.d+]Z'` that
/// `text` starts with.
fn quoted_datetime_len(text: &str) -> Option<usize> {
    let body = text.strip_prefix('\'')?;
    let end = body.find('\'')?;
    let value = &body[..end];
    let shape = "dddd-dd-ddTdd:dd:dd";
    let fixed = value.get(..shape.len())?;
    let fits =
        fixed
            .chars()
            .zip(shape.chars())
            .all(|(c, s)| if s == 'd' { c.is_ascii_digit() } else { c == s });
    let tail = &value[shape.len()..];
    let fraction = tail.strip_suffix('Z')?;
    let fraction_ok = fraction.is_empty()
        || fraction
            .strip_prefix('.')
            .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
    (fits && fraction_ok).then_some(end + 2)
}

fn run(
    db: &Arc<Database>,
    tx: Option<&Transaction>,
    query: &str,
) -> Result<Rows, nereid_engine::DbError> {
    let mut result = db.run(tx, query, Params::new())?;
    let fields = result.fields().to_vec();
    let mut rows = Vec::new();
    result.pull(-1, &mut |row, resolver| {
        let cells: Vec<String> = row.iter().map(|v| render(v, resolver)).collect();
        rows.push(cells.join(" | "));
    })?;
    Ok((fields, rows))
}

/// TCK notation for values, with entities materialised.
fn render(v: &Value, r: &dyn EntityResolver) -> String {
    match v {
        Value::Node(id) => match r.node(*id) {
            Some(n) => node(&n, r),
            None => "(deleted)".into(),
        },
        Value::Relationship(id) => match r.relationship(*id) {
            Some(rel) => relationship(&rel, r),
            None => "[deleted]".into(),
        },
        Value::Path(p) => {
            let mut out = String::from("<");
            for (i, nid) in p.nodes.iter().enumerate() {
                if i > 0 {
                    let rid = p.rels[i - 1];
                    let rel = r.relationship(rid);
                    let forward = rel.as_ref().is_some_and(|x| x.start == p.nodes[i - 1]);
                    let text = rel.map(|x| relationship(&x, r)).unwrap_or_default();
                    if forward {
                        out.push_str(&format!("-{text}->"));
                    } else {
                        out.push_str(&format!("<-{text}-"));
                    }
                }
                out.push_str(&r.node(*nid).map(|n| node(&n, r)).unwrap_or_default());
            }
            out.push('>');
            out
        }
        Value::List(items) => {
            let parts: Vec<String> = items.iter().map(|x| render(x, r)).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Map(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, x)| format!("{k}: {}", render(x, r)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_string(),
    }
}

fn props(p: &std::collections::BTreeMap<String, Value>, r: &dyn EntityResolver) -> String {
    if p.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = p
        .iter()
        .map(|(k, v)| format!("{k}: {}", render(v, r)))
        .collect();
    format!(" {{{}}}", parts.join(", "))
}

fn node(n: &NodeData, r: &dyn EntityResolver) -> String {
    let mut labels = n.labels.clone();
    labels.sort();
    let labels: String = labels.iter().map(|l| format!(":{l}")).collect();
    let p = props(&n.properties, r);
    if labels.is_empty() {
        format!("({})", p.trim_start())
    } else {
        format!("({labels}{p})")
    }
}

fn relationship(rel: &RelData, r: &dyn EntityResolver) -> String {
    format!("[:{}{}]", rel.rel_type, props(&rel.properties, r))
}
