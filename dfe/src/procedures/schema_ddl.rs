//! The procedures behind `CREATE/DROP INDEX` and `CREATE/DROP CONSTRAINT`
//! (the parser's `schema.rs` turns each command into a standalone call of
//! one of these, its pieces as arguments). They build the store's
//! definitions and hand them to the transaction; the store checks names
//! and equivalence, and applies the change at commit.
//!
//! Range, text and vector indexes are what the store keeps. Lookup indexes
//! exist as the store's label and type relations (see `schema_show.rs`):
//! they cannot be created again or dropped. Point and full-text indexes
//! parse but are refused here as not supported yet, never silently
//! accepted. A command that does nothing (`IF NOT EXISTS` finding the
//! rule, `IF EXISTS` finding none) reports a [`SchemaNotice`].

use super::database_hook::report;
use super::fulltext_options::fulltext_kind;
use super::schema_names::{self, LookupIndex, LOOKUP_INDEXES};
use super::schema_notice::{
    create_constraint_command, create_index_command, does_not_exist, index_description,
    rule_description, SchemaNotice,
};
use super::vector_options::vector_kind;
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::{
    ConstraintDef, ConstraintKind, Created, EntityKind, IndexDef, IndexKind, StorageError, Txn,
};
use nereid_values::Value;

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "internal.schema.createIndex",
        inputs: &[
            ("name", ProcedureType::Any),
            ("type", ProcedureType::String),
            ("entityType", ProcedureType::String),
            ("labelsOrTypes", ProcedureType::List),
            ("properties", ProcedureType::List),
            ("ifNotExists", ProcedureType::Boolean),
            ("options", ProcedureType::Any),
        ],
        outputs: &[],
        description: "CREATE INDEX",
        mode: "SCHEMA",
        body: create_index,
    },
    Procedure {
        name: "internal.schema.createConstraint",
        inputs: &[
            ("name", ProcedureType::Any),
            ("type", ProcedureType::String),
            ("entityType", ProcedureType::String),
            ("labelOrType", ProcedureType::String),
            ("properties", ProcedureType::List),
            ("propertyTypes", ProcedureType::List),
            ("ifNotExists", ProcedureType::Boolean),
            ("options", ProcedureType::Any),
        ],
        outputs: &[],
        description: "CREATE CONSTRAINT",
        mode: "SCHEMA",
        body: create_constraint,
    },
    Procedure {
        name: "internal.schema.dropIndex",
        inputs: &[
            ("name", ProcedureType::Any),
            ("ifExists", ProcedureType::Boolean),
        ],
        outputs: &[],
        description: "DROP INDEX",
        mode: "SCHEMA",
        body: drop_index,
    },
    Procedure {
        name: "internal.schema.dropConstraint",
        inputs: &[
            ("name", ProcedureType::Any),
            ("ifExists", ProcedureType::Boolean),
        ],
        outputs: &[],
        description: "DROP CONSTRAINT",
        mode: "SCHEMA",
        body: drop_constraint,
    },
];

/// The procedures whose calls are schema commands (query type `s`).
pub fn is_schema_command(procedure: &str) -> bool {
    PROCEDURES.iter().any(|p| p.name == procedure)
}

fn create_index(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = name_arg(&args[0], true)?;
    let written = text(&args[1]);
    let entity = entity_arg(&args[2]);
    let labels = strings(&args[3]);
    let keys = strings(&args[4]);
    let if_not_exists = matches!(args[5], Value::Bool(true));
    let mut labels = labels.into_iter();
    let def = IndexDef {
        name,
        kind: IndexKind::Range,
        entity,
        label: labels.next().unwrap_or_default(),
        // Only the FULLTEXT syntax takes several (the parser checks).
        more_labels: labels.collect(),
        keys,
    };
    let command = || create_index_command(written, &def, &args[6]);
    let kind = match written {
        "RANGE" => IndexKind::Range,
        "TEXT" => IndexKind::Text,
        "VECTOR" => vector_kind(&args[6])?,
        "FULLTEXT" => fulltext_kind(&args[6])?,
        "LOOKUP" => return create_lookup_index(entity, if_not_exists, command),
        other => {
            return Err(ExecError::ExecutionFailed(format!(
                "{other} indexes are not supported yet: Nereid keeps RANGE, TEXT, VECTOR and \
                 FULLTEXT indexes (and the two LOOKUP indexes, which always exist)"
            )))
        }
    };
    if let Some(lookup) = lookup_named(&def.name) {
        if !if_not_exists {
            return Err(index_name_taken(&def.name));
        }
        report(SchemaNotice::AlreadyExists {
            command: command(),
            existing: lookup_description(lookup),
        });
        return Ok(Vec::new());
    }
    let command = command();
    if let Created::AlreadyExists(rule) =
        txn.create_index(IndexDef { kind, ..def }, if_not_exists)?
    {
        report(SchemaNotice::AlreadyExists {
            command,
            existing: rule_description(&rule),
        });
    }
    Ok(Vec::new())
}

/// `CREATE LOOKUP INDEX`: one always exists for each entity, so this is
/// Neo4j's answer to creating an equivalent index.
fn create_lookup_index(
    entity: EntityKind,
    if_not_exists: bool,
    command: impl FnOnce() -> String,
) -> ExecResult<Vec<Vec<Value>>> {
    let existing = LOOKUP_INDEXES
        .iter()
        .find(|l| l.entity == entity)
        .unwrap_or(&LOOKUP_INDEXES[0]);
    if if_not_exists {
        report(SchemaNotice::AlreadyExists {
            command: command(),
            existing: lookup_description(existing),
        });
        return Ok(Vec::new());
    }
    let which = match entity {
        EntityKind::Node => "(:<any-labels>)",
        EntityKind::Relationship => "()-[:<any-types>]-()",
    };
    Err(StorageError::EquivalentSchemaRuleExists(format!(
        "An equivalent index already exists, 'Index( name='{}', type='LOOKUP', schema={which}, indexProvider='token-lookup-1.0' )'.",
        existing.name
    ))
    .into())
}

/// The lookup index called `name`, if any.
fn lookup_named(name: &str) -> Option<&'static LookupIndex> {
    LOOKUP_INDEXES.iter().find(|l| l.name == name)
}

fn lookup_description(lookup: &LookupIndex) -> String {
    let def = IndexDef {
        name: lookup.name.to_string(),
        kind: IndexKind::Range,
        entity: lookup.entity,
        label: String::new(),
        more_labels: Vec::new(),
        keys: Vec::new(),
    };
    index_description("LOOKUP", &def)
}

fn index_name_taken(name: &str) -> ExecError {
    StorageError::IndexNameTaken(format!("There already exists an index called '{name}'.")).into()
}

fn create_constraint(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = name_arg(&args[0], true)?;
    let entity = entity_arg(&args[2]);
    let label = text(&args[3]).to_string();
    let keys = strings(&args[4]);
    let if_not_exists = matches!(args[6], Value::Bool(true));
    let kind = match text(&args[1]) {
        "UNIQUE" => ConstraintKind::Unique,
        "KEY" => ConstraintKind::Key,
        "EXISTS" => ConstraintKind::Exists,
        _ => {
            let mut types = strings(&args[5])
                .iter()
                .map(|t| schema_names::parse_value_type(t))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| ExecError::Argument("unknown property type".into()))?;
            types.sort_by_key(schema_names::value_type_rank);
            types.dedup();
            ConstraintKind::PropertyType(types)
        }
    };
    // Neo4j refuses a constraint named like an index even under IF NOT
    // EXISTS (the index is not the constraint asked for).
    if lookup_named(&name).is_some() {
        return Err(index_name_taken(&name));
    }
    let def = ConstraintDef {
        name,
        kind,
        entity,
        label,
        keys,
    };
    let command = create_constraint_command(&def, &args[7]);
    if let Created::AlreadyExists(rule) = txn.create_constraint(def, if_not_exists)? {
        report(SchemaNotice::AlreadyExists {
            command,
            existing: rule_description(&rule),
        });
    }
    Ok(Vec::new())
}

fn drop_index(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = name_arg(&args[0], false)?;
    let if_exists = matches!(args[1], Value::Bool(true));
    if LOOKUP_INDEXES.iter().any(|l| l.name == name) {
        return Err(ExecError::ExecutionFailed(format!(
            "Unable to drop index `{name}`: Nereid's LOOKUP indexes are the store's own label and \
             type relations and cannot be dropped"
        )));
    }
    if !txn.drop_index(&name, if_exists)? {
        report(does_not_exist("INDEX", &name));
    }
    Ok(Vec::new())
}

fn drop_constraint(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = name_arg(&args[0], false)?;
    let if_exists = matches!(args[1], Value::Bool(true));
    if !txn.drop_constraint(&name, if_exists)? {
        report(does_not_exist("CONSTRAINT", &name));
    }
    Ok(Vec::new())
}

/// The name argument: a string (a `$parameter` may hold anything); null
/// when the command gave none and `optional` (the store then generates one).
fn name_arg(value: &Value, optional: bool) -> ExecResult<String> {
    match value {
        Value::String(s) if !s.is_empty() => Ok(s.clone()),
        Value::Null if optional => Ok(String::new()),
        other => Err(ExecError::Argument(format!(
            "Expected a non-empty STRING as the index or constraint name, but was: {}",
            if matches!(other, Value::Null) {
                "NULL".to_string()
            } else {
                other.to_string()
            }
        ))),
    }
}

fn text(value: &Value) -> &str {
    match value {
        Value::String(s) => s,
        _ => "",
    }
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::List(items) => items.iter().map(|v| text(v).to_string()).collect(),
        _ => Vec::new(),
    }
}

fn entity_arg(value: &Value) -> EntityKind {
    match text(value) {
        "RELATIONSHIP" => EntityKind::Relationship,
        _ => EntityKind::Node,
    }
}
