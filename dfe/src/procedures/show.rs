//! The procedures behind the `SHOW` commands (the parser turns
//! `SHOW DATABASES` and friends into calls of these). Their names live in
//! the `internal.show` namespace, which `SHOW PROCEDURES` does not list.
//!
//! Columns follow Neo4j 5.26's default columns for each command
//! (bolt-protocol.md §14). Nereid serves one database, `neo4j`, plus the
//! `system` database Neo4j tools expect; both are always online.

use super::{Procedure, NAMESPACES};
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;
use std::sync::RwLock;

/// The namespace of procedures that exist only to implement commands.
pub(super) const INTERNAL_PREFIX: &str = "internal.";

/// The procedure behind `SHOW PROCEDURES`; the registry adds the procedures
/// registered at run time to what its body lists (the built-ins).
pub(super) const LIST_PROCEDURES: &str = "internal.show.procedures";

/// The default and home database.
pub const DEFAULT_DATABASE: &str = "neo4j";
/// Neo4j's administration database, present so that tools can `:use` it.
pub const SYSTEM_DATABASE: &str = "system";

const DATABASE_COLUMNS: &[&str] = &[
    "name",
    "type",
    "aliases",
    "access",
    "address",
    "role",
    "writer",
    "requestedStatus",
    "currentStatus",
    "statusMessage",
    "default",
    "home",
    "constituents",
];
/// `SHOW DEFAULT DATABASE` / `SHOW HOME DATABASE` omit `default`/`home`.
const SINGLE_DATABASE_COLUMNS: &[&str] = &[
    "name",
    "type",
    "aliases",
    "access",
    "address",
    "role",
    "writer",
    "requestedStatus",
    "currentStatus",
    "statusMessage",
    "constituents",
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "internal.show.databases",
        inputs: &[],
        outputs: DATABASE_COLUMNS,
        description: "SHOW DATABASES",
        mode: "DBMS",
        body: databases,
    },
    Procedure {
        name: "internal.show.database",
        inputs: &[("name", ProcedureType::String)],
        outputs: DATABASE_COLUMNS,
        description: "SHOW DATABASE name",
        mode: "DBMS",
        body: database,
    },
    Procedure {
        name: "internal.show.defaultDatabase",
        inputs: &[],
        outputs: SINGLE_DATABASE_COLUMNS,
        description: "SHOW DEFAULT DATABASE / SHOW HOME DATABASE",
        mode: "DBMS",
        body: default_database,
    },
    Procedure {
        name: LIST_PROCEDURES,
        inputs: &[],
        outputs: &["name", "description", "mode", "worksOnSystem"],
        description: "SHOW PROCEDURES",
        mode: "DBMS",
        body: procedures,
    },
    Procedure {
        name: "internal.show.functions",
        inputs: &[],
        outputs: &["name", "category", "description"],
        description: "SHOW FUNCTIONS",
        mode: "DBMS",
        body: functions,
    },
];

/// The Bolt address `SHOW DATABASES` reports; the server sets it at start
/// to its advertised address. Neo4j's own default is `localhost:7687`.
static ADVERTISED_ADDRESS: RwLock<Option<String>> = RwLock::new(None);

/// Sets the address `SHOW DATABASES` reports (the server's advertised
/// Bolt address).
pub fn set_advertised_address(address: &str) {
    *ADVERTISED_ADDRESS
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(address.to_string());
}

fn advertised_address() -> String {
    ADVERTISED_ADDRESS
        .read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
        .unwrap_or_else(|| "localhost:7687".to_string())
}

/// One row in `DATABASE_COLUMNS` order.
fn database_row(name: &str) -> Vec<Value> {
    let is_default = name == DEFAULT_DATABASE;
    vec![
        Value::from(name),
        Value::from(if is_default { "standard" } else { "system" }),
        Value::List(vec![].into()),
        Value::from("read-write"),
        Value::from(advertised_address()),
        Value::from("primary"),
        Value::Bool(true),
        Value::from("online"),
        Value::from("online"),
        Value::from(""),
        Value::Bool(is_default),
        Value::Bool(is_default),
        Value::List(vec![].into()),
    ]
}

fn databases(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(vec![
        database_row(DEFAULT_DATABASE),
        database_row(SYSTEM_DATABASE),
    ])
}

/// `SHOW DATABASE name`: the one row, or none for an unknown name (as
/// Neo4j does).
fn database(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = match args.first() {
        Some(Value::String(name)) => name.as_str(),
        Some(other) => {
            return Err(ExecError::Type(format!(
                "A database name must be a string, got {other:?}"
            )))
        }
        None => return Ok(vec![]),
    };
    Ok([DEFAULT_DATABASE, SYSTEM_DATABASE]
        .into_iter()
        .filter(|db| db.eq_ignore_ascii_case(name))
        .map(database_row)
        .collect())
}

fn default_database(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let mut row = database_row(DEFAULT_DATABASE);
    // Drop `default` and `home` (indexes 10 and 11).
    row.drain(10..12);
    Ok(vec![row])
}

/// The rows of a listing command (`SHOW PROCEDURES`, `SHOW FUNCTIONS`):
/// the entries sorted by `key` (their name, as each command orders it),
/// each turned into its columns by `row`.
fn sorted_rows<T, K: Ord>(
    entries: impl Iterator<Item = T>,
    key: impl Fn(&T) -> K,
    row: impl Fn(&T) -> Vec<Value>,
) -> Vec<Vec<Value>> {
    let mut listed: Vec<T> = entries.collect();
    listed.sort_by_cached_key(key);
    listed.iter().map(row).collect()
}

fn procedures(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let listed = NAMESPACES
        .iter()
        .flat_map(|procedures| procedures.iter())
        .filter(|p| !p.name.starts_with(INTERNAL_PREFIX));
    Ok(sorted_rows(
        listed,
        // Exact names, as the registry orders the merged listing.
        |p| p.name,
        |p| {
            vec![
                Value::from(p.name),
                Value::from(p.description),
                Value::from(p.mode),
                Value::Bool(p.mode == "DBMS"),
            ]
        },
    ))
}

/// The signatures of the function catalogue that nereid implements, by
/// name (Neo4j's default columns: name, category, description).
fn functions(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(sorted_rows(
        nereid_functions::implemented(),
        // Case-insensitively, so `toString` sits among the `t`s; overloads
        // in the catalogue's order (fewest arguments first).
        |signature| signature.name.to_ascii_lowercase(),
        |signature| {
            vec![
                Value::from(signature.name),
                Value::from(signature.category.name()),
                Value::from(signature.description),
            ]
        },
    ))
}
