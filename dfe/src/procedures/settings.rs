//! The procedures behind `SHOW SETTINGS [names]` (the parser desugars the
//! command into a call of these), with Neo4j 5.26's columns. The settings
//! are the server's, handed to the engine by its embedder and reached
//! through the [`super::DatabaseHook`]; none is dynamic (every setting is
//! read at start).

use super::database_hook::{current_hook, Setting};
use super::transactions::strings_arg;
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

/// `SHOW SETTINGS YIELD *`.
const ALL_COLUMNS: &[&str] = &[
    "name",
    "value",
    "isDynamic",
    "defaultValue",
    "description",
    "startupValue",
    "isExplicitlySet",
    "validValues",
    "isDeprecated",
];

/// `SHOW SETTINGS` without `YIELD`.
const DEFAULT_COLUMNS: &[&str] = &["name", "value", "isDynamic", "defaultValue", "description"];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "internal.show.settings",
        inputs: &[("names", ProcedureType::Any)],
        outputs: ALL_COLUMNS,
        description: "SHOW SETTINGS ... YIELD",
        mode: "DBMS",
        body: show_all,
    },
    Procedure {
        name: "internal.show.settingsDefault",
        inputs: &[("names", ProcedureType::Any)],
        outputs: DEFAULT_COLUMNS,
        description: "SHOW SETTINGS",
        mode: "DBMS",
        body: show_default,
    },
];

fn show_all(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    show(args, ALL_COLUMNS)
}

fn show_default(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    show(args, DEFAULT_COLUMNS)
}

/// The settings named (all when none are), by name.
fn show(args: &[Value], columns: &[&str]) -> ExecResult<Vec<Vec<Value>>> {
    let wanted = strings_arg(args.first(), "Setting names")?;
    let hook = current_hook().map_err(|why| ExecError::ProcedureCallFailed(why.into()))?;
    let mut settings = hook.settings();
    settings.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(settings
        .iter()
        .filter(|s| wanted.as_ref().is_none_or(|names| names.contains(&s.name)))
        .map(|s| columns.iter().map(|c| column(s, c)).collect())
        .collect())
}

fn column(s: &Setting, name: &str) -> Value {
    let text = |t: &str| Value::String(t.to_string());
    match name {
        "name" => text(&s.name),
        "value" | "startupValue" => text(&s.value),
        "isDynamic" | "isDeprecated" => Value::Bool(false),
        "defaultValue" => text(&s.default_value),
        "description" => text(&s.description),
        "isExplicitlySet" => Value::Bool(s.explicitly_set),
        "validValues" => text(""),
        _ => Value::Null,
    }
}
