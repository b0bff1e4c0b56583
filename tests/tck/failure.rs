//! Why a case failed: a short, stable `reason` (what the expectations file records and the
//! summary counts) and the full `message` (what a developer reads).

use crate::errors::Phase;
use nereid_engine::DbError;
use nereid_errors::Status;

#[derive(Clone, Debug)]
pub struct Failure {
    pub reason: String,
    pub message: String,
}

impl Failure {
    pub fn new(reason: impl Into<String>, message: impl Into<String>) -> Failure {
        Failure {
            reason: reason.into(),
            message: message.into(),
        }
    }
}

/// Plumbing problems (a malformed table, a missing docstring) are the runner's.
impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::new("runner: malformed step", message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::from(message.to_string())
    }
}

/// A short reason for an error we raised where none (or another) was expected:
/// `unsupported: MERGE`, `SyntaxError at compile time: Invalid input 'FOREACH'`, ...
pub fn classify(phase: Phase, error: &DbError) -> String {
    let head = error.message.lines().next().unwrap_or("");
    let head = head.split(" (line ").next().unwrap_or(head);
    if error.status == Status::NotSupported {
        let what = head
            .trim_end_matches(" is not supported yet")
            .replace('`', "");
        return format!("unsupported: {what}");
    }
    let code = error.status.code();
    let short = code.rsplit('.').next().unwrap_or(code);
    format!("{short} at {}: {}", phase.describe(), truncate(head, 50))
}

fn truncate(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out.replace('|', "/")
}
