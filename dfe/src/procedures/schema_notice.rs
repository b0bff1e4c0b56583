//! What a schema command reports when it does nothing: `CREATE ... IF NOT
//! EXISTS` finding the rule there, `DROP ... IF EXISTS` finding nothing
//! called so. Neo4j 5 tells the client in a notification naming the
//! command and the rule in its own normalized Cypher (variable `e`,
//! `RANGE` written out, `IS NODE UNIQUE` as `IS UNIQUE`, names in
//! backticks only where needed); the texts here are that form, recorded
//! from the reference Neo4j 5.26. The engine turns a [`SchemaNotice`]
//! into the notification (`engine/src/notification.rs`).
//!
//! A procedure body reports through the call's collector, which the
//! procedure-call operator makes current with the database hook
//! (`database_hook::with_hook`), so bodies keep their plain signature.

use super::schema_names::{constraint_predicate, index_type};
use nereid_storage::{ConstraintDef, EntityKind, IndexDef, SchemaRule};
use nereid_values::Value;
use std::sync::{Arc, Mutex};

/// A schema command that had no effect, in Neo4j's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaNotice {
    /// `command` did nothing: `existing` is already there.
    AlreadyExists { command: String, existing: String },
    /// `command` did nothing: nothing is called `name`.
    DoesNotExist { command: String, name: String },
}

/// The notices of one running statement, shared with its procedure calls.
pub(crate) type Notices = Arc<Mutex<Vec<SchemaNotice>>>;

/// A name as Neo4j writes it in these texts: bare when it is a plain
/// identifier (a letter or `_`, then letters, digits or `_`), else in
/// backticks with backticks doubled.
fn name(text: &str) -> String {
    let mut chars = text.chars();
    let plain = chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_');
    if plain {
        text.to_string()
    } else {
        format!("`{}`", text.replace('`', "``"))
    }
}

fn pattern(entity: EntityKind, label: &str) -> String {
    pattern_of(entity, &name(label))
}

/// `label` already quoted (or several joined by `|`).
fn pattern_of(entity: EntityKind, label: &str) -> String {
    match entity {
        EntityKind::Node => format!("FOR (e:{label})"),
        EntityKind::Relationship => format!("FOR ()-[e:{label}]-()"),
    }
}

fn properties(keys: &[String]) -> String {
    let keys: Vec<String> = keys.iter().map(|k| format!("e.{}", name(k))).collect();
    format!("({})", keys.join(", "))
}

/// `OPTIONS {...}` as Neo4j prints the map back (strings in double
/// quotes; entries in key order, which is how the map reaches here).
fn options(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        other => format!(" OPTIONS {}", literal(other)),
    }
}

fn literal(value: &Value) -> String {
    match value {
        Value::Map(entries) => {
            let entries: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", name(k), literal(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        Value::List(items) => {
            let items: Vec<String> = items.iter().map(literal).collect();
            format!("[{}]", items.join(", "))
        }
        Value::String(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
        Value::Null => "NULL".into(),
        other => other.to_string(),
    }
}

/// `[name ]` before `IF NOT EXISTS` (nothing for a generated name).
fn given_name(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("{} ", name(text))
    }
}

/// `FOR (e:A) ON (e.p)`, or a lookup index's `FOR (e) ON EACH labels(e)`.
fn index_schema(kind: &str, def: &IndexDef) -> String {
    match (kind, def.entity) {
        ("LOOKUP", EntityKind::Node) => "FOR (e) ON EACH labels(e)".into(),
        ("LOOKUP", EntityKind::Relationship) => "FOR ()-[e]-() ON EACH type(e)".into(),
        ("FULLTEXT", _) => {
            let labels: Vec<String> = def.labels().map(|l| name(l)).collect();
            let keys: Vec<String> = def.keys.iter().map(|k| format!("e.{}", name(k))).collect();
            format!(
                "{} ON EACH [{}]",
                pattern_of(def.entity, &labels.join("|")),
                keys.join(", ")
            )
        }
        _ => format!(
            "{} ON {}",
            pattern(def.entity, &def.label),
            properties(&def.keys)
        ),
    }
}

/// `CREATE RANGE INDEX ix IF NOT EXISTS FOR (e:A) ON (e.p)` for the
/// command that asked for `def` (`kind` as written: `RANGE`, `LOOKUP`, ...).
pub(super) fn create_index_command(kind: &str, def: &IndexDef, options_value: &Value) -> String {
    format!(
        "CREATE {kind} INDEX {}IF NOT EXISTS {}{}",
        given_name(&def.name),
        index_schema(kind, def),
        options(options_value)
    )
}

/// `RANGE INDEX ix FOR (e:A) ON (e.p)`.
pub(super) fn index_description(kind: &str, def: &IndexDef) -> String {
    format!(
        "{kind} INDEX {} {}",
        name(&def.name),
        index_schema(kind, def)
    )
}

/// `FOR (e:U) REQUIRE (e.e) IS UNIQUE` and the other kinds' predicates.
fn constraint_schema(def: &ConstraintDef) -> String {
    format!(
        "{} REQUIRE {} IS {}",
        pattern(def.entity, &def.label),
        properties(&def.keys),
        constraint_predicate(def)
    )
}

/// `CREATE CONSTRAINT c IF NOT EXISTS FOR (e:U) REQUIRE (e.e) IS UNIQUE`.
pub(super) fn create_constraint_command(def: &ConstraintDef, options_value: &Value) -> String {
    format!(
        "CREATE CONSTRAINT {}IF NOT EXISTS {}{}",
        given_name(&def.name),
        constraint_schema(def),
        options(options_value)
    )
}

/// How the rule a command found is named in the notice.
pub(super) fn rule_description(rule: &SchemaRule) -> String {
    match rule {
        SchemaRule::Index(def) => index_description(index_type(def.kind), def),
        SchemaRule::Constraint(def) => {
            format!("CONSTRAINT {} {}", name(&def.name), constraint_schema(def))
        }
    }
}

/// The notice of `DROP INDEX` / `DROP CONSTRAINT` (`what`) `IF EXISTS`
/// finding nothing called `dropped`.
pub(super) fn does_not_exist(what: &str, dropped: &str) -> SchemaNotice {
    SchemaNotice::DoesNotExist {
        command: format!("DROP {what} {} IF EXISTS", name(dropped)),
        name: dropped.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn index(name: &str, entity: EntityKind, label: &str, keys: &[&str]) -> IndexDef {
        IndexDef {
            name: name.into(),
            kind: nereid_storage::IndexKind::Range,
            entity,
            label: label.into(),
            more_labels: Vec::new(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
        }
    }

    /// Texts the reference Neo4j 5.26 gave for these commands.
    #[test]
    fn commands_and_rules_read_as_neo4j_writes_them() {
        let def = index("", EntityKind::Node, "A", &["p", "q"]);
        assert_eq!(
            create_index_command("RANGE", &def, &Value::Null),
            "CREATE RANGE INDEX IF NOT EXISTS FOR (e:A) ON (e.p, e.q)"
        );
        let def = index("x`y", EntityKind::Relationship, "La bel", &["é", "1a"]);
        assert_eq!(
            index_description("RANGE", &def),
            "RANGE INDEX `x``y` FOR ()-[e:`La bel`]-() ON (e.é, e.`1a`)"
        );
        let options = Value::Map(BTreeMap::from([(
            "indexConfig".to_string(),
            Value::Map(BTreeMap::from([
                ("vector.dimensions".to_string(), Value::Int(3)),
                (
                    "vector.similarity_function".to_string(),
                    Value::from("cosine"),
                ),
            ])),
        )]));
        let def = index("vix", EntityKind::Node, "A", &["v"]);
        assert_eq!(
            create_index_command("VECTOR", &def, &options),
            "CREATE VECTOR INDEX vix IF NOT EXISTS FOR (e:A) ON (e.v) OPTIONS {indexConfig: \
             {`vector.dimensions`: 3, `vector.similarity_function`: \"cosine\"}}"
        );
        assert_eq!(
            create_index_command("LOOKUP", &def, &Value::Map(BTreeMap::new())),
            "CREATE LOOKUP INDEX vix IF NOT EXISTS FOR (e) ON EACH labels(e) OPTIONS {}"
        );
        let constraint = ConstraintDef {
            name: "c1".into(),
            kind: nereid_storage::ConstraintKind::Unique,
            entity: EntityKind::Relationship,
            label: "R".into(),
            keys: vec!["e".into()],
        };
        assert_eq!(
            rule_description(&SchemaRule::Constraint(constraint)),
            "CONSTRAINT c1 FOR ()-[e:R]-() REQUIRE (e.e) IS UNIQUE"
        );
        assert_eq!(
            does_not_exist("INDEX", "we`ird"),
            SchemaNotice::DoesNotExist {
                command: "DROP INDEX `we``ird` IF EXISTS".into(),
                name: "we`ird".into()
            }
        );
    }
}
