//! `expected-failures.txt`: the cases that do not pass today, one per line,
//! `<feature path>::<scenario name>[::<example row>] | <short reason>`; `#` starts a comment.
//!
//! The file only shrinks as the language work lands: a listed case that passes is reported
//! ("now passing: remove it"), a failing case that is not listed fails the run (a regression).
//! `NEREID_TCK_BLESS=1` rewrites it from the cases that ran, keeping the reasons of lines that
//! still fail and the lines of cases that did not run (a filtered run blesses only its part).

use std::collections::BTreeMap;
use std::path::Path;

const HEADER: &str = "\
# openCypher TCK cases that do not pass yet: `<case> | <reason>`.
# Regenerate with `NEREID_TCK_BLESS=1 cargo test -p nereid-tests --test tck`
# (see ARCHITECTURE.md, section tests). Remove a line when its case passes.
";

/// Case name → reason.
pub type Expectations = BTreeMap<String, String>;

pub fn load(path: &Path) -> Result<Expectations, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Expectations::new()),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let mut out = Expectations::new();
    for (no, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, reason) = line.rsplit_once(" | ").ok_or_else(|| {
            format!(
                "{}:{}: expected `<case> | <reason>`",
                path.display(),
                no + 1
            )
        })?;
        out.insert(name.trim().to_string(), reason.trim().to_string());
    }
    Ok(out)
}

/// Rewrites the file: `failing` (case → fresh reason) replaces what the `ran` cases had,
/// an old reason is kept for a case that still fails, and cases that did not run keep
/// their lines.
pub fn bless(
    path: &Path,
    old: &Expectations,
    ran: &std::collections::BTreeSet<String>,
    failing: &BTreeMap<String, String>,
) -> std::io::Result<usize> {
    let mut next: Expectations = old
        .iter()
        .filter(|(name, _)| !ran.contains(*name))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (name, reason) in failing {
        let reason = old.get(name).unwrap_or(reason);
        next.insert(name.clone(), reason.clone());
    }
    let mut text = String::from(HEADER);
    for (name, reason) in &next {
        text.push_str(&format!("{name} | {reason}\n"));
    }
    std::fs::write(path, text)?;
    Ok(next.len())
}
