//! How Neo4j 5.26 names schema things in `SHOW INDEXES` / `SHOW
//! CONSTRAINTS` (types, providers, create statements) and the property
//! value types of type constraints, in one place for the DDL and SHOW
//! procedures.

use nereid_storage::{ConstraintDef, ConstraintKind, EntityKind, IndexDef, IndexKind, ValueType};
use nereid_values::Value;
use std::collections::BTreeMap;

/// One of the two lookup indexes every Neo4j database has. Nereid answers
/// label and type scans from the store's own label and type relations,
/// which are exactly such indexes (always complete, always online), so
/// they are listed under Neo4j's default names and ids 1 and 2; the
/// store's index and constraint ids are shown shifted past them.
pub(super) struct LookupIndex {
    pub id: i64,
    pub name: &'static str,
    pub entity: EntityKind,
}

pub(super) const LOOKUP_INDEXES: &[LookupIndex] = &[
    LookupIndex {
        id: 1,
        name: "index_343aff4e",
        entity: EntityKind::Node,
    },
    LookupIndex {
        id: 2,
        name: "index_f7700477",
        entity: EntityKind::Relationship,
    },
];

/// The id `SHOW` reports for a store index or constraint id.
pub(super) fn shown_id(store_id: u64) -> i64 {
    i64::try_from(store_id).unwrap_or(i64::MAX - 2) + LOOKUP_INDEXES.len() as i64
}

pub(super) fn entity_name(entity: EntityKind) -> &'static str {
    match entity {
        EntityKind::Node => "NODE",
        EntityKind::Relationship => "RELATIONSHIP",
    }
}

pub(super) fn index_type(kind: IndexKind) -> &'static str {
    match kind {
        IndexKind::Range => "RANGE",
        IndexKind::Text => "TEXT",
        IndexKind::Vector { .. } => "VECTOR",
        IndexKind::Fulltext { .. } => "FULLTEXT",
    }
}

pub(super) fn index_provider(kind: IndexKind) -> &'static str {
    match kind {
        IndexKind::Range => "range-1.0",
        IndexKind::Text => "text-2.0",
        IndexKind::Vector { .. } => "vector-2.0",
        IndexKind::Fulltext { .. } => "fulltext-1.0",
    }
}

/// `UNIQUENESS`, `RELATIONSHIP_KEY`, `NODE_PROPERTY_EXISTENCE`, ...
pub(super) fn constraint_type(def: &ConstraintDef) -> &'static str {
    let node = def.entity == EntityKind::Node;
    match (&def.kind, node) {
        (ConstraintKind::Unique, true) => "UNIQUENESS",
        (ConstraintKind::Unique, false) => "RELATIONSHIP_UNIQUENESS",
        (ConstraintKind::Key, true) => "NODE_KEY",
        (ConstraintKind::Key, false) => "RELATIONSHIP_KEY",
        (ConstraintKind::Exists, true) => "NODE_PROPERTY_EXISTENCE",
        (ConstraintKind::Exists, false) => "RELATIONSHIP_PROPERTY_EXISTENCE",
        (ConstraintKind::PropertyType(_), true) => "NODE_PROPERTY_TYPE",
        (ConstraintKind::PropertyType(_), false) => "RELATIONSHIP_PROPERTY_TYPE",
    }
}

/// `INTEGER | FLOAT` for a type constraint.
pub(super) fn property_types(types: &[ValueType]) -> String {
    types.iter().map(type_name).collect::<Vec<_>>().join(" | ")
}

/// A name in backticks, as Neo4j writes names in create statements.
fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `FOR (n:`L`)` / `FOR ()-[r:`T`]-()` and the variable (`label`
/// already quoted; a full-text index's several joined by `|`).
fn pattern(entity: EntityKind, label: &str) -> (String, &'static str) {
    match entity {
        EntityKind::Node => (format!("FOR (n:{label})"), "n"),
        EntityKind::Relationship => (format!("FOR ()-[r:{label}]-()"), "r"),
    }
}

fn properties(var: &str, keys: &[String]) -> String {
    keys.iter()
        .map(|k| format!("{var}.{}", quoted(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn index_create_statement(def: &IndexDef) -> String {
    let mut statement = if def.kind.is_fulltext() {
        let labels: Vec<String> = def.labels().map(|l| quoted(l)).collect();
        let (pattern, var) = pattern(def.entity, &labels.join("|"));
        format!(
            "CREATE FULLTEXT INDEX {} {pattern} ON EACH [{}]",
            quoted(&def.name),
            properties(var, &def.keys)
        )
    } else {
        let (pattern, var) = pattern(def.entity, &quoted(&def.label));
        format!(
            "CREATE {} INDEX {} {pattern} ON ({})",
            index_type(def.kind),
            quoted(&def.name),
            properties(var, &def.keys)
        )
    };
    let config = index_config(def.kind);
    if def.kind.is_fulltext() {
        // Neo4j prints a full-text index's configuration without the
        // provider, its entries joined by a bare comma.
        let entries: Vec<String> = config.iter().map(|(k, v)| format!("`{k}`: {v}")).collect();
        statement.push_str(&format!(
            " OPTIONS {{indexConfig: {{{}}}}}",
            entries.join(",")
        ));
    } else if !config.is_empty() {
        let entries: Vec<String> = config.iter().map(|(k, v)| format!("`{k}`: {v}")).collect();
        statement.push_str(&format!(
            " OPTIONS {{indexConfig: {{{}}}, indexProvider: '{}'}}",
            entries.join(", "),
            index_provider(def.kind)
        ));
    }
    statement
}

/// `options.indexConfig` of `SHOW INDEXES`: a vector index's dimensions
/// (null when not given) and similarity function, a full-text index's
/// analyzer and consistency, as Neo4j names them; empty for the other
/// kinds.
pub(super) fn index_config(kind: IndexKind) -> BTreeMap<String, Value> {
    if let IndexKind::Fulltext {
        analyzer,
        eventually_consistent,
    } = kind
    {
        return BTreeMap::from([
            (
                "fulltext.analyzer".to_string(),
                Value::from(analyzer.name()),
            ),
            (
                "fulltext.eventually_consistent".to_string(),
                Value::Bool(eventually_consistent),
            ),
        ]);
    }
    let IndexKind::Vector {
        dimensions,
        similarity,
    } = kind
    else {
        return BTreeMap::new();
    };
    BTreeMap::from([
        (
            "vector.dimensions".to_string(),
            dimensions.map_or(Value::Null, |d| Value::Int(i64::from(d))),
        ),
        (
            "vector.similarity_function".to_string(),
            Value::from(similarity.name()),
        ),
    ])
}

/// What follows `IS` in a constraint's Cypher: `UNIQUE`, `NODE KEY`,
/// `NOT NULL`, `:: INTEGER | FLOAT`, ...
pub(super) fn constraint_predicate(def: &ConstraintDef) -> String {
    match (&def.kind, def.entity) {
        (ConstraintKind::Unique, _) => "UNIQUE".to_string(),
        (ConstraintKind::Key, EntityKind::Node) => "NODE KEY".into(),
        (ConstraintKind::Key, EntityKind::Relationship) => "RELATIONSHIP KEY".into(),
        (ConstraintKind::Exists, _) => "NOT NULL".into(),
        (ConstraintKind::PropertyType(types), _) => format!(":: {}", property_types(types)),
    }
}

pub(super) fn constraint_create_statement(def: &ConstraintDef) -> String {
    let (pattern, var) = pattern(def.entity, &quoted(&def.label));
    format!(
        "CREATE CONSTRAINT {} {pattern} REQUIRE ({}) IS {}",
        quoted(&def.name),
        properties(var, &def.keys),
        constraint_predicate(def)
    )
}

/// The canonical name the parser hands over (`LOCAL DATETIME`,
/// `LIST<STRING NOT NULL>`) as a value type.
pub(super) fn parse_value_type(name: &str) -> Option<ValueType> {
    if let Some(inner) = name
        .strip_prefix("LIST<")
        .and_then(|rest| rest.strip_suffix(" NOT NULL>"))
    {
        return Some(ValueType::List(Box::new(parse_value_type(inner)?)));
    }
    BASE_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t.clone())
}

/// Neo4j's order of the members of a type union (`BOOLEAN | INTEGER`).
pub(super) fn value_type_rank(t: &ValueType) -> usize {
    match t {
        ValueType::List(inner) => BASE_TYPES.len() + value_type_rank(inner),
        base => BASE_TYPES
            .iter()
            .position(|(_, b)| b == base)
            .unwrap_or(BASE_TYPES.len()),
    }
}

fn type_name(t: &ValueType) -> String {
    match t {
        ValueType::List(inner) => format!("LIST<{} NOT NULL>", type_name(inner)),
        base => BASE_TYPES
            .iter()
            .find(|(_, b)| b == base)
            .map_or_else(String::new, |(n, _)| n.to_string()),
    }
}

/// The property value types, in Neo4j's order.
const BASE_TYPES: &[(&str, ValueType)] = &[
    ("BOOLEAN", ValueType::Boolean),
    ("STRING", ValueType::String),
    ("INTEGER", ValueType::Integer),
    ("FLOAT", ValueType::Float),
    ("DATE", ValueType::Date),
    ("LOCAL TIME", ValueType::LocalTime),
    ("ZONED TIME", ValueType::ZonedTime),
    ("LOCAL DATETIME", ValueType::LocalDateTime),
    ("ZONED DATETIME", ValueType::ZonedDateTime),
    ("DURATION", ValueType::Duration),
    ("POINT", ValueType::Point),
];
