//! One TCK case (a scenario, or one Examples row of an outline) run against a fresh in-process
//! database, step by step. The first step that does not hold ends the case.

use crate::errors::{ExpectedError, Phase};
use crate::failure::{classify, Failure};
use crate::materialise::{from_value, to_value};
use crate::procedure;
use crate::side_effects::{Snapshot, KINDS};
use crate::value::{multiset_eq, parse, ListOrder, TckValue};
use nereid_engine::{Database, DbConfig, DbError, Params};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A step with its Examples placeholders already substituted.
#[derive(Clone, Debug)]
pub struct CaseStep {
    pub text: String,
    pub docstring: Option<String>,
    pub table: Option<Vec<Vec<String>>>,
}

/// A runnable case.
#[derive(Clone, Debug)]
pub struct Case {
    /// `<feature path>::<scenario name>[::<example row>]`, the trial name and expectation key.
    pub name: String,
    /// Top-level folder of the feature (`clauses`, `expressions`, `useCases`).
    pub folder: String,
    pub steps: Vec<CaseStep>,
    /// Set when the feature marks the scenario `@ignore`.
    pub ignored: bool,
}

/// How a case ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    Passed,
    Failed(Failure),
    Skipped(String),
}

/// The step that declares a fixture procedure; its signature follows.
const PROCEDURE_STEP: &str = "there exists a procedure ";

/// What the last `executing query` produced.
enum QueryOutcome {
    Rows {
        columns: Vec<String>,
        rows: Vec<Vec<TckValue>>,
    },
    Failed {
        phase: Phase,
        error: DbError,
    },
}

struct Run<'a> {
    db: Arc<Database>,
    graphs: &'a Path,
    params: Params,
    last: Option<QueryOutcome>,
    before: Option<Snapshot>,
    wants_side_effects: bool,
}

/// Runs `case` against a fresh database in a temporary directory under `scratch`.
pub fn run_case(case: &Case, graphs: &Path, scratch: &Path) -> Outcome {
    if case.ignored {
        return Outcome::Skipped("tagged @ignore in the TCK".into());
    }
    let dir = match tempfile::Builder::new()
        .prefix("nereid-tck-")
        .tempdir_in(scratch)
    {
        Ok(d) => d,
        Err(e) => {
            return Outcome::Failed(Failure::new(
                "runner: no temp dir",
                format!("cannot create a temp dir: {e}"),
            ))
        }
    };
    let db = match Database::open(&DbConfig::new(dir.path().to_path_buf(), 4)) {
        Ok(db) => db,
        Err(e) => {
            return Outcome::Failed(Failure::new(
                "database does not open",
                format!("database does not open: {e}"),
            ))
        }
    };
    let mut run = Run {
        db,
        graphs,
        params: Params::new(),
        last: None,
        before: None,
        wants_side_effects: case
            .steps
            .iter()
            .any(|s| s.text == "no side effects" || s.text == "the side effects should be:"),
    };
    for step in &case.steps {
        if let Err(mut failure) = run.step(step) {
            failure.message = format!("step `{}`: {}", step.text, failure.message);
            return Outcome::Failed(failure);
        }
    }
    Outcome::Passed
}

impl Run<'_> {
    fn step(&mut self, step: &CaseStep) -> Result<(), Failure> {
        let text = step.text.as_str();
        match text {
            "an empty graph" | "any graph" => Ok(()),
            "having executed:" => self.setup(docstring(step)?),
            "parameters are:" => self.parameters(table(step)?),
            "executing query:" => {
                if self.wants_side_effects {
                    self.before = Some(
                        Snapshot::take(&self.db).map_err(|e| Failure::new("snapshot failed", e))?,
                    );
                }
                self.last = Some(execute(&self.db, docstring(step)?, &self.params));
                Ok(())
            }
            "executing control query:" => {
                self.last = Some(execute(&self.db, docstring(step)?, &self.params));
                Ok(())
            }
            "the result should be, in any order:" => {
                self.result(table(step)?, false, ListOrder::Strict)
            }
            "the result should be, in order:" => self.result(table(step)?, true, ListOrder::Strict),
            "the result should be (ignoring element order for lists):" => {
                self.result(table(step)?, false, ListOrder::Ignored)
            }
            "the result should be, in order (ignoring element order for lists):" => {
                self.result(table(step)?, true, ListOrder::Ignored)
            }
            "the result should be empty" => match self.rows()? {
                (_, []) => Ok(()),
                (columns, rows) => Err(Failure::new(
                    "wrong result",
                    format!("expected no rows, got:\n{}", render_table(columns, rows)),
                )),
            },
            "no side effects" => self.side_effects(&[]),
            "the side effects should be:" => self.side_effects(table(step)?),
            _ if text.starts_with(PROCEDURE_STEP) => {
                self.fixture_procedure(&text[PROCEDURE_STEP.len()..], step.table.as_deref())
            }
            _ if text.starts_with("the ") && text.ends_with(" graph") => {
                let name = &text["the ".len()..text.len() - " graph".len()];
                self.named_graph(name)
            }
            _ => match ExpectedError::parse(text) {
                Some(expected) => self.error(&expected),
                None => Err(Failure::new("runner: unknown step", text)),
            },
        }
    }

    fn setup(&mut self, query: &str) -> Result<(), Failure> {
        match execute(&self.db, query, &self.params) {
            QueryOutcome::Rows { .. } => Ok(()),
            QueryOutcome::Failed { phase, error } => Err(Failure::new(
                format!("setup: {}", classify(phase, &error)),
                format!("setup query failed: {error}"),
            )),
        }
    }

    fn parameters(&mut self, rows: &[Vec<String>]) -> Result<(), Failure> {
        for row in rows {
            let [name, value] = row.as_slice() else {
                return Err("a parameter row has two cells".into());
            };
            let value = to_value(&parse(value)?)?;
            self.params.insert(name.clone(), value);
        }
        Ok(())
    }

    /// Registers the case's fixture procedure on its database (`procedure.rs`).
    fn fixture_procedure(
        &mut self,
        signature: &str,
        table: Option<&[Vec<String>]>,
    ) -> Result<(), Failure> {
        let signature = procedure::parse_signature(signature)
            .map_err(|e| format!("procedure signature: {e}"))?;
        let rows = procedure::parse_rows(&signature, table.unwrap_or_default())
            .map_err(|e| format!("procedure table: {e}"))?;
        self.db
            .register_procedure(signature, rows)
            .map_err(|e| Failure::new("runner: procedure not registered", e.to_string()))
    }

    /// Runs the scripts a named graph's metadata lists, in order.
    fn named_graph(&mut self, name: &str) -> Result<(), Failure> {
        let dir = self.graphs.join(name);
        let meta = std::fs::read_to_string(dir.join(format!("{name}.json")))
            .map_err(|e| format!("graph `{name}`: {e}"))?;
        let meta: serde_json::Value =
            serde_json::from_str(&meta).map_err(|e| format!("graph `{name}` metadata: {e}"))?;
        let scripts = meta["scripts"].as_array().cloned().unwrap_or_default();
        for script in scripts.iter().filter_map(|s| s.as_str()) {
            let path = dir.join(format!("{script}.cypher"));
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("graph script {}: {e}", path.display()))?;
            for statement in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
                self.setup(statement)?;
            }
        }
        Ok(())
    }

    fn rows(&self) -> Result<(&[String], &[Vec<TckValue>]), Failure> {
        match &self.last {
            None => Err("no query was executed".into()),
            Some(QueryOutcome::Failed { phase, error }) => Err(Failure::new(
                classify(*phase, error),
                format!("the query failed at {}: {error}", phase.describe()),
            )),
            Some(QueryOutcome::Rows { columns, rows }) => Ok((columns, rows)),
        }
    }

    fn result(
        &self,
        table: &[Vec<String>],
        ordered: bool,
        lists: ListOrder,
    ) -> Result<(), Failure> {
        let (columns, rows) = self.rows()?;
        let (header, body) = table.split_first().ok_or("an empty result table")?;
        let expected: Vec<Vec<TckValue>> = body
            .iter()
            .map(|row| row.iter().map(|cell| parse(cell)).collect())
            .collect::<Result<_, _>>()?;
        let row_eq = |a: &Vec<TckValue>, b: &Vec<TckValue>| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.matches(y, lists))
        };
        let same = header.as_slice() == columns
            && if ordered {
                expected.len() == rows.len() && expected.iter().zip(rows).all(|(a, b)| row_eq(a, b))
            } else {
                multiset_eq(&expected, rows, row_eq)
            };
        if same {
            return Ok(());
        }
        let reason = if header.as_slice() == columns {
            "wrong result"
        } else {
            "wrong columns"
        };
        Err(Failure::new(
            reason,
            format!(
                "result differs\n expected:\n{}\n got:\n{}",
                render_table(header, &expected),
                render_table(columns, rows)
            ),
        ))
    }

    fn error(&self, expected: &ExpectedError) -> Result<(), Failure> {
        match &self.last {
            None => Err("no query was executed".into()),
            Some(QueryOutcome::Rows { rows, .. }) => Err(Failure::new(
                format!("no error raised: {}", expected.detail),
                format!(
                    "expected {} {}, but the query succeeded with {} row(s)",
                    expected.error_type,
                    expected.detail,
                    rows.len()
                ),
            )),
            Some(QueryOutcome::Failed { phase, error }) => {
                expected.check(*phase, error).map_err(|message| {
                    let reason = if error.status == nereid_errors::Status::NotSupported {
                        classify(*phase, error)
                    } else {
                        format!("wrong error: expected {}", expected.detail)
                    };
                    Failure::new(reason, message)
                })
            }
        }
    }

    fn side_effects(&self, table: &[Vec<String>]) -> Result<(), Failure> {
        let before = self
            .before
            .as_ref()
            .ok_or("side effects checked before executing a query")?;
        let after = Snapshot::take(&self.db).map_err(|e| Failure::new("snapshot failed", e))?;
        let got = before.diff(&after);
        let mut want: std::collections::BTreeMap<&str, usize> =
            KINDS.iter().map(|k| (*k, 0)).collect();
        for row in table {
            let [kind, count] = row.as_slice() else {
                return Err("a side-effect row has two cells".into());
            };
            let slot = want
                .get_mut(kind.as_str())
                .ok_or_else(|| format!("unknown side effect `{kind}`"))?;
            *slot = count
                .parse()
                .map_err(|_| format!("bad side-effect count `{count}`"))?;
        }
        let differing: Vec<String> = KINDS
            .iter()
            .filter(|k| want[*k] != got[*k])
            .map(|k| format!("{k}: expected {}, got {}", want[k], got[k]))
            .collect();
        if differing.is_empty() {
            Ok(())
        } else {
            Err(Failure::new(
                "wrong side effects",
                format!("side effects differ: {}", differing.join(", ")),
            ))
        }
    }
}

fn execute(db: &Arc<Database>, query: &str, params: &Params) -> QueryOutcome {
    let mut result = match db.run(None, query, params.clone()) {
        Ok(r) => r,
        Err(error) => {
            return QueryOutcome::Failed {
                phase: Phase::Compile,
                error,
            }
        }
    };
    let columns = result.fields().to_vec();
    let mut rows = Vec::new();
    let pulled = result.pull(-1, &mut |row, resolver| {
        rows.push(row.iter().map(|v| from_value(v, resolver)).collect());
    });
    match pulled {
        Ok(_) => QueryOutcome::Rows { columns, rows },
        Err(error) => QueryOutcome::Failed {
            phase: Phase::Run,
            error,
        },
    }
}

fn docstring(step: &CaseStep) -> Result<&str, String> {
    step.docstring
        .as_deref()
        .ok_or_else(|| "the step needs a docstring".to_string())
}

fn table(step: &CaseStep) -> Result<&[Vec<String>], String> {
    step.table
        .as_deref()
        .ok_or_else(|| "the step needs a table".to_string())
}

fn render_table(columns: &[String], rows: &[Vec<TckValue>]) -> String {
    let mut out = format!("   | {} |", columns.join(" | "));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|v| v.to_string()).collect();
        out.push_str(&format!("\n   | {} |", cells.join(" | ")));
    }
    out
}

/// The directory per-case databases go to: `/dev/shm` when present (the log fsyncs every
/// commit, which on a disk would dominate the run), else the system temp dir.
pub fn scratch_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() && tempfile::tempdir_in(shm).is_ok() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}
