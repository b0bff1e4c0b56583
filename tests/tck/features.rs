//! Reading the feature files into [`Case`]s: one per scenario, one per Examples row of a
//! scenario outline (placeholders `<name>` substituted in step texts, docstrings and tables),
//! with the feature's Background steps first.

use crate::scenario::{Case, CaseStep};
use gherkin::{Feature, GherkinEnv, Step};
use std::path::{Path, PathBuf};

/// Every `*.feature` under `dir`, sorted, as paths relative to `dir`.
pub fn feature_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|x| x == "feature") {
                if let Ok(rel) = path.strip_prefix(dir) {
                    out.push(rel.to_path_buf());
                }
            }
        }
    }
    out.sort();
    out
}

/// The cases of one feature file; `rel` is its path relative to the features directory.
pub fn cases_of(root: &Path, rel: &Path) -> Result<Vec<Case>, String> {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let feature = Feature::parse(escape_table_backslashes(&text), GherkinEnv::default())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let rel_name = rel.to_string_lossy().replace('\\', "/");
    let folder = rel_name.split('/').next().unwrap_or("").to_string();
    let background: Vec<&Step> = feature
        .background
        .iter()
        .flat_map(|b| b.steps.iter())
        .collect();
    let mut cases = Vec::new();
    for scenario in &feature.scenarios {
        let ignored = scenario.tags.iter().any(|t| t == "ignore");
        let base = format!("{rel_name}::{}", scenario.name.trim());
        let steps = background.iter().copied().chain(scenario.steps.iter());
        let rows: Vec<(Vec<String>, Vec<String>)> = scenario
            .examples
            .iter()
            .filter_map(|ex| ex.table.as_ref())
            .flat_map(|t| {
                let header = t.rows.first().cloned().unwrap_or_default();
                t.rows
                    .iter()
                    .skip(1)
                    .map(move |row| (header.clone(), row.clone()))
            })
            .collect();
        if rows.is_empty() {
            cases.push(Case {
                name: base,
                folder: folder.clone(),
                steps: steps.map(|s| substitute(s, &[], &[])).collect(),
                ignored,
            });
            continue;
        }
        for (i, (header, row)) in rows.iter().enumerate() {
            cases.push(Case {
                name: format!("{base}::{}", i + 1),
                folder: folder.clone(),
                steps: steps.clone().map(|s| substitute(s, header, row)).collect(),
                ignored,
            });
        }
    }
    Ok(cases)
}

/// `step` with every `<name>` of `header` replaced by the cell of `row`.
fn substitute(step: &Step, header: &[String], row: &[String]) -> CaseStep {
    let fill = |text: &str| {
        header
            .iter()
            .zip(row)
            .fold(text.to_string(), |acc, (k, v)| {
                acc.replace(&format!("<{k}>"), v)
            })
    };
    CaseStep {
        text: fill(step.value.trim()),
        docstring: step.docstring.as_deref().map(|d| fill(d.trim())),
        table: step.table.as_ref().map(|t| {
            t.rows
                .iter()
                .map(|r| r.iter().map(|c| fill(c)).collect())
                .collect()
        }),
    }
}

/// Gherkin keeps a backslash that escapes nothing (`\'` in a table cell) as itself, but the
/// `gherkin` crate rejects the cell; doubling such backslashes in table rows gives the standard
/// reading (`\\`, `\|` and `\n` are left alone for the crate to unescape).
fn escape_table_backslashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if !line.trim_start().starts_with('|') {
            out.push_str(line);
            continue;
        }
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.peek() {
                Some(&next @ ('\\' | '|' | 'n')) => {
                    out.push('\\');
                    out.push(next);
                    chars.next();
                }
                _ => out.push_str("\\\\"),
            }
        }
    }
    out
}
