//! `SHOW INDEXES` and `SHOW CONSTRAINTS` (the parser's `show_schema.rs`
//! calls these with the type filter as a string): Neo4j 5.26's columns and
//! values, sorted by name. Each has a second procedure with only the
//! default columns, which are a prefix of all of them, for the command
//! without `YIELD`.
//!
//! Reads are tracked as Neo4j tracks them once its usage sampling has run:
//! `readCount` counts the seeks and scans since the index was created or
//! the server started (`trackedSince`), `lastRead` is null until the first
//! (then the time the reading transaction first read an index). The two
//! LOOKUP indexes (the store's label and type relations) are not tracked:
//! count 0, both times null.

use super::schema_names::{
    constraint_create_statement, constraint_type, entity_name, index_config,
    index_create_statement, index_provider, index_type, property_types, shown_id, LOOKUP_INDEXES,
};
use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::{ConstraintInfo, ConstraintKind, EntityKind, IndexInfo, IndexState, Txn};
use nereid_values::{Value, ZonedDateTime};
use std::collections::BTreeMap;

const INDEX_COLUMNS: &[&str] = &[
    "id",
    "name",
    "state",
    "populationPercent",
    "type",
    "entityType",
    "labelsOrTypes",
    "properties",
    "indexProvider",
    "owningConstraint",
    "lastRead",
    "readCount",
    "trackedSince",
    "options",
    "failureMessage",
    "createStatement",
];
const INDEX_DEFAULT_COLUMNS: usize = 12;

const CONSTRAINT_COLUMNS: &[&str] = &[
    "id",
    "name",
    "type",
    "entityType",
    "labelsOrTypes",
    "properties",
    "ownedIndex",
    "propertyType",
    "options",
    "createStatement",
];
const CONSTRAINT_DEFAULT_COLUMNS: usize = 8;

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "internal.show.indexes",
        inputs: &[("type", ProcedureType::String)],
        outputs: INDEX_COLUMNS,
        description: "SHOW INDEXES YIELD ...",
        mode: "READ",
        body: indexes,
    },
    Procedure {
        name: "internal.show.indexesDefault",
        inputs: &[("type", ProcedureType::String)],
        outputs: INDEX_COLUMNS.split_at(INDEX_DEFAULT_COLUMNS).0,
        description: "SHOW INDEXES",
        mode: "READ",
        body: indexes_default,
    },
    Procedure {
        name: "internal.show.constraints",
        inputs: &[("type", ProcedureType::String)],
        outputs: CONSTRAINT_COLUMNS,
        description: "SHOW CONSTRAINTS YIELD ...",
        mode: "READ",
        body: constraints,
    },
    Procedure {
        name: "internal.show.constraintsDefault",
        inputs: &[("type", ProcedureType::String)],
        outputs: CONSTRAINT_COLUMNS.split_at(CONSTRAINT_DEFAULT_COLUMNS).0,
        description: "SHOW CONSTRAINTS",
        mode: "READ",
        body: constraints_default,
    },
];

fn filter(args: &[Value]) -> &str {
    match args.first() {
        Some(Value::String(s)) => s,
        _ => "ALL",
    }
}

fn indexes_default(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    truncated(indexes(txn, args)?, INDEX_DEFAULT_COLUMNS)
}

fn constraints_default(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    truncated(constraints(txn, args)?, CONSTRAINT_DEFAULT_COLUMNS)
}

/// Rows cut to their first `columns` (the default columns lead).
fn truncated(mut rows: Vec<Vec<Value>>, columns: usize) -> ExecResult<Vec<Vec<Value>>> {
    rows.iter_mut().for_each(|r| r.truncate(columns));
    Ok(rows)
}

fn indexes(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let wanted = filter(args);
    let schema = txn.schema();
    let mut rows: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    if matches!(wanted, "ALL" | "LOOKUP") {
        for lookup in LOOKUP_INDEXES {
            rows.insert(lookup.name.to_string(), lookup_row(lookup));
        }
    }
    for index in &schema.indexes {
        if matches!(wanted, "ALL") || wanted == index_type(index.def.kind) {
            let constraint = index
                .owning_constraint
                .as_ref()
                .and_then(|c| schema.constraints.iter().find(|k| &k.def.name == c));
            rows.insert(index.def.name.clone(), index_row(index, constraint));
        }
    }
    Ok(rows.into_values().collect())
}

fn options(provider: &str) -> Value {
    options_with(provider, BTreeMap::new())
}

fn options_with(provider: &str, config: BTreeMap<String, Value>) -> Value {
    Value::Map(BTreeMap::from([
        ("indexConfig".to_string(), Value::Map(config)),
        ("indexProvider".to_string(), Value::from(provider)),
    ]))
}

fn strings(items: &[String]) -> Value {
    Value::List(items.iter().map(|s| Value::from(s.as_str())).collect())
}

fn lookup_row(lookup: &super::schema_names::LookupIndex) -> Vec<Value> {
    let create = match lookup.entity {
        EntityKind::Node => "FOR (n) ON EACH labels(n)",
        EntityKind::Relationship => "FOR ()-[r]-() ON EACH type(r)",
    };
    vec![
        Value::Int(lookup.id),
        Value::from(lookup.name),
        Value::from("ONLINE"),
        Value::Float(100.0),
        Value::from("LOOKUP"),
        Value::from(entity_name(lookup.entity)),
        Value::Null,
        Value::Null,
        Value::from("token-lookup-1.0"),
        Value::Null,
        Value::Null,
        Value::Int(0),
        Value::Null,
        options("token-lookup-1.0"),
        Value::from(""),
        Value::from(format!("CREATE LOOKUP INDEX `{}` {create}", lookup.name).as_str()),
    ]
}

fn index_row(index: &IndexInfo, constraint: Option<&ConstraintInfo>) -> Vec<Value> {
    let def = &index.def;
    let (state, percent, failure) = match &index.state {
        IndexState::Online => ("ONLINE", 100.0, String::new()),
        IndexState::Populating { percent } => ("POPULATING", *percent, String::new()),
        IndexState::Failed(why) => ("FAILED", 0.0, why.clone()),
    };
    let create = match constraint {
        Some(c) => constraint_create_statement(&c.def),
        None => index_create_statement(def),
    };
    vec![
        Value::Int(shown_id(index.id)),
        Value::from(def.name.as_str()),
        Value::from(state),
        Value::Float(percent),
        Value::from(index_type(def.kind)),
        Value::from(entity_name(def.entity)),
        strings(&def.labels().cloned().collect::<Vec<_>>()),
        strings(&def.keys),
        Value::from(index_provider(def.kind)),
        index
            .owning_constraint
            .as_deref()
            .map_or(Value::Null, Value::from),
        index.last_read.map_or(Value::Null, utc_datetime),
        Value::Int(i64::try_from(index.read_count).unwrap_or(i64::MAX)),
        utc_datetime(index.tracked_since),
        options_with(index_provider(def.kind), index_config(def.kind)),
        Value::from(failure.as_str()),
        Value::from(create.as_str()),
    ]
}

/// A time in Unix milliseconds as a UTC `DATETIME` (how Neo4j shows
/// `lastRead` and `trackedSince`).
fn utc_datetime(millis: u64) -> Value {
    let millis = i64::try_from(millis).unwrap_or(i64::MAX);
    nereid_values::temporal::chrono::DateTime::from_timestamp_millis(millis).map_or(
        Value::Null,
        |t| {
            Value::DateTime(Box::new(ZonedDateTime {
                local: t.naive_utc(),
                offset: 0,
                zone: None,
            }))
        },
    )
}

/// Whether a constraint passes a `SHOW ... CONSTRAINTS` filter
/// (`[NODE | RELATIONSHIP ]UNIQUE | KEY | EXIST | PROPERTY TYPE`, `ALL`).
fn constraint_matches(wanted: &str, c: &ConstraintInfo) -> bool {
    let (entity, kind) = if let Some(rest) = wanted.strip_prefix("NODE ") {
        (Some(EntityKind::Node), rest)
    } else if let Some(rest) = wanted.strip_prefix("RELATIONSHIP ") {
        (Some(EntityKind::Relationship), rest)
    } else {
        (None, wanted)
    };
    let kind_matches = matches!(
        (kind, &c.def.kind),
        ("ALL", _)
            | ("UNIQUE", ConstraintKind::Unique)
            | ("KEY", ConstraintKind::Key)
            | ("EXIST", ConstraintKind::Exists)
            | ("PROPERTY TYPE", ConstraintKind::PropertyType(_))
    );
    kind_matches && entity.is_none_or(|e| e == c.def.entity)
}

fn constraints(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let wanted = filter(args);
    let schema = txn.schema();
    let mut rows: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for c in schema
        .constraints
        .iter()
        .filter(|c| constraint_matches(wanted, c))
    {
        let def = &c.def;
        let property_type = match &def.kind {
            ConstraintKind::PropertyType(types) => Value::from(property_types(types).as_str()),
            _ => Value::Null,
        };
        let options = if def.kind.needs_index() {
            options("range-1.0")
        } else {
            Value::Null
        };
        let row = vec![
            Value::Int(shown_id(c.id)),
            Value::from(def.name.as_str()),
            Value::from(constraint_type(def)),
            Value::from(entity_name(def.entity)),
            strings(std::slice::from_ref(&def.label)),
            strings(&def.keys),
            c.owned_index.as_deref().map_or(Value::Null, Value::from),
            property_type,
            options,
            Value::from(constraint_create_statement(def).as_str()),
        ];
        rows.insert(def.name.clone(), row);
    }
    Ok(rows.into_values().collect())
}
