//! The error check: `Then a <Type> should be raised at <phase>: <Detail>`.
//!
//! A case passes when all three agree:
//! - **phase**: `compile time` means `Database::run` refused the query; `runtime` means `run`
//!   accepted it and the failure came while pulling its rows (or committing at the end);
//!   `any time` accepts either;
//! - **type**: the last segment of our Neo4j status code (`Neo.ClientError.Statement.TypeError`
//!   is `TypeError`), except that every `Neo.ClientError.Procedure.*` code counts as
//!   `ProcedureError`; the TCK's catch-all `Error` accepts any client error, but not a
//!   `Neo.DatabaseError.*` (an engine that says "not supported" has not found the error);
//! - **detail**: our message starts with the openCypher detail name followed by a colon
//!   (`VariableAlreadyBound: Variable ...`), the convention of the cypher crate's errors; the
//!   TCK's `*` accepts any detail.

use nereid_engine::DbError;

/// When a query failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// At `Database::run` (parse, analysis, planning).
    Compile,
    /// While pulling (execution, commit).
    Run,
}

impl Phase {
    pub fn describe(self) -> &'static str {
        match self {
            Phase::Compile => "compile time",
            Phase::Run => "runtime",
        }
    }
}

/// The expectation of an error step.
#[derive(Clone, Debug)]
pub struct ExpectedError {
    pub error_type: String,
    /// `None` for `any time`.
    pub phase: Option<Phase>,
    pub detail: String,
}

impl ExpectedError {
    /// Parses the step text `a SyntaxError should be raised at compile time: UndefinedVariable`.
    pub fn parse(step: &str) -> Option<ExpectedError> {
        let rest = step
            .strip_prefix("an ")
            .or_else(|| step.strip_prefix("a "))?;
        let (error_type, rest) = rest.split_once(" should be raised at ")?;
        let (phase, detail) = rest.split_once(':')?;
        let phase = match phase.trim() {
            "compile time" => Some(Phase::Compile),
            "runtime" => Some(Phase::Run),
            "any time" => None,
            _ => return None,
        };
        Some(ExpectedError {
            error_type: error_type.trim().to_string(),
            phase,
            detail: detail.trim().to_string(),
        })
    }

    /// `Ok` when `got` at `phase` is the expected error, else what differs.
    pub fn check(&self, phase: Phase, got: &DbError) -> Result<(), String> {
        let mut problems = Vec::new();
        if let Some(want) = self.phase {
            if want != phase {
                problems.push(format!(
                    "phase: expected {}, got {}",
                    want.describe(),
                    phase.describe()
                ));
            }
        }
        let code = got.status.code();
        let got_type = tck_type(code);
        let type_ok = if self.error_type == "Error" {
            code.starts_with("Neo.ClientError.")
        } else {
            got_type == self.error_type
        };
        if !type_ok {
            problems.push(format!(
                "type: expected {}, got {got_type} ({code})",
                self.error_type
            ));
        }
        if self.detail != "*" && detail_of(&got.message) != Some(self.detail.as_str()) {
            problems.push(format!("detail: expected {}", self.detail));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{}\n  error was: {code}: {}",
                problems.join("; "),
                got.message.lines().next().unwrap_or("")
            ))
        }
    }
}

/// The TCK error type a Neo4j status code stands for.
fn tck_type(code: &str) -> &str {
    if code.starts_with("Neo.ClientError.Procedure.") {
        return "ProcedureError";
    }
    code.rsplit('.').next().unwrap_or(code)
}

/// The detail name a message starts with (`VariableAlreadyBound: ...`), if any.
pub fn detail_of(message: &str) -> Option<&str> {
    let (head, _) = message.split_once(':')?;
    (!head.is_empty() && head.chars().all(|c| c.is_ascii_alphanumeric())).then_some(head)
}
