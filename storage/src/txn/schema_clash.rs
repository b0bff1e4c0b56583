//! Whether a new index or constraint clashes with the schema (the
//! catalog plus the transaction's own earlier schema changes), and Neo4j's
//! words for each clash. Checked when the command runs and again at
//! commit; under `IF NOT EXISTS` some clashes mean "already there"
//! ([`Clash::Existing`]), which the command reports instead of failing.

use super::schema_writes::type_name;
use crate::change::Change;
use crate::error::{Result, StorageError};
use crate::schema::{
    backing_index, Catalog, ConstraintDef, ConstraintKind, Created, EntityKind, IndexDef,
    IndexKind, SchemaRule,
};

/// How a property-type constraint shows its types (`STRING | INTEGER`);
/// empty for the other kinds.
pub(super) fn property_types(kind: &ConstraintKind) -> String {
    match kind {
        ConstraintKind::PropertyType(types) => {
            types.iter().map(type_name).collect::<Vec<_>>().join(" | ")
        }
        _ => String::new(),
    }
}

/// Whether the transaction's `earlier` changes drop `name`.
pub(super) fn dropped(earlier: &[Change], name: &str) -> bool {
    earlier.iter().any(|c| {
        matches!(c, Change::DropIndex { name: n } | Change::DropConstraint { name: n } if n == name)
    })
}

fn describe_index(def: &IndexDef) -> String {
    let (kind, provider) = match def.kind {
        IndexKind::Range => ("RANGE", "range-1.0"),
        IndexKind::Text => ("TEXT", "text-2.0"),
        IndexKind::Vector { .. } => ("VECTOR", "vector-2.0"),
        IndexKind::Fulltext { .. } => ("FULLTEXT", "fulltext-1.0"),
    };
    format!(
        "Index( name='{}', type='{kind}', schema={}, indexProvider='{provider}' )",
        def.name,
        schema_text(def.entity, &labels_text(def), &def.keys)
    )
}

/// An index's labels as Neo4j's schema descriptions join them (`A:B`).
fn labels_text(def: &IndexDef) -> String {
    def.labels().cloned().collect::<Vec<_>>().join(":")
}

/// The error for an index equivalent to `other` under another name: the
/// index exists, or is the backing index of a constraint.
fn index_exists_as(catalog: &Catalog, other: &IndexDef) -> StorageError {
    let schema = schema_text(other.entity, &labels_text(other), &other.keys);
    let owner = catalog
        .index_named(&other.name)
        .and_then(|i| i.owning_constraint.clone())
        .and_then(|c| catalog.constraint_named(&c).map(|c| c.def.kind.clone()));
    match owner {
        Some(kind) => StorageError::ConstraintAlreadyExists(format!(
            "There is a {} constraint on {schema}, so an index is already created that matches this.",
            match kind {
                ConstraintKind::Key => "key",
                _ => "uniqueness",
            }
        )),
        None => StorageError::IndexAlreadyExists(format!("There already exists an index {schema}.")),
    }
}

pub(super) fn describe_constraint(def: &ConstraintDef) -> String {
    // Neo4j's words: 'UNIQUENESS', 'RELATIONSHIP UNIQUENESS', 'NODE KEY',
    // 'NODE PROPERTY EXISTENCE', 'NODE PROPERTY TYPE' (then the types).
    let entity = match def.entity {
        EntityKind::Node => "NODE",
        EntityKind::Relationship => "RELATIONSHIP",
    };
    let (kind, types) = match &def.kind {
        ConstraintKind::Unique if def.entity == EntityKind::Node => ("UNIQUENESS".into(), None),
        ConstraintKind::Unique => ("RELATIONSHIP UNIQUENESS".into(), None),
        ConstraintKind::Exists => (format!("{entity} PROPERTY EXISTENCE"), None),
        ConstraintKind::Key => (format!("{entity} KEY"), None),
        ConstraintKind::PropertyType(_) => (
            format!("{entity} PROPERTY TYPE"),
            Some(property_types(&def.kind)),
        ),
    };
    let types = types.map_or(String::new(), |t| format!(", propertyType={t}"));
    format!(
        "Constraint( name='{}', type='{kind}', schema={}{types} )",
        def.name,
        schema_text(def.entity, &def.label, &def.keys)
    )
}

/// `(:Label {a, b})` or `()-[:TYPE {a}]-()`.
fn schema_text(entity: EntityKind, label: &str, keys: &[String]) -> String {
    let keys = keys.join(", ");
    match entity {
        EntityKind::Node => format!("(:{label} {{{keys}}})"),
        EntityKind::Relationship => format!("()-[:{label} {{{keys}}}]-()"),
    }
}

/// Why a rule cannot be created: a rule that `IF NOT EXISTS` takes for
/// the one asked for (`existing`), or a conflict that refuses even then.
pub(super) enum Clash {
    Existing(SchemaRule, StorageError),
    Refused(StorageError),
}

impl Clash {
    pub(super) fn outcome(self, if_not_exists: bool) -> Result<Created> {
        match self {
            Clash::Existing(rule, _) if if_not_exists => Ok(Created::AlreadyExists(rule)),
            Clash::Existing(_, err) | Clash::Refused(err) => Err(err),
        }
    }

    pub(super) fn error(self) -> StorageError {
        match self {
            Clash::Existing(_, err) | Clash::Refused(err) => err,
        }
    }
}

/// Why `def` cannot be created now (the catalog plus this transaction's
/// own schema changes), if it cannot. As in Neo4j, `IF NOT EXISTS` takes
/// any index that is equivalent or has the name (a constraint's backing
/// index included) for the one asked for.
pub(super) fn index_clash(catalog: &Catalog, st: &[Change], def: &IndexDef) -> Option<Clash> {
    let pending = pending_indexes(st);
    let existing = catalog
        .indexes
        .iter()
        .filter(|i| {
            !dropped(st, &i.def.name)
                && !i.owning_constraint.as_ref().is_some_and(|c| dropped(st, c))
        })
        .map(|i| i.def.clone())
        .chain(pending);
    for other in existing {
        if other.equivalent(def) {
            // Neo4j: "equivalent" only when the names agree too.
            let err = if other.name != def.name {
                index_exists_as(catalog, &other)
            } else {
                StorageError::EquivalentSchemaRuleExists(format!(
                    "An equivalent index already exists, '{}'.",
                    describe_index(&other)
                ))
            };
            return Some(Clash::Existing(SchemaRule::Index(other), err));
        }
        if other.name == def.name {
            // A constraint's backing index has the constraint's name.
            let owned = catalog
                .index_named(&other.name)
                .is_some_and(|i| i.owning_constraint.is_some());
            let err = if owned {
                StorageError::ConstraintNameTaken(format!(
                    "There already exists a constraint called '{}'.",
                    def.name
                ))
            } else {
                StorageError::IndexNameTaken(format!(
                    "There already exists an index called '{}'.",
                    def.name
                ))
            };
            return Some(Clash::Existing(SchemaRule::Index(other), err));
        }
    }
    let constraint = catalog
        .constraint_named(&def.name)
        .filter(|c| !dropped(st, &c.def.name))
        .map(|c| c.def.clone())
        .or_else(|| {
            pending_constraints(st)
                .find(|c| c.name == def.name)
                .cloned()
        })?;
    let err = StorageError::ConstraintNameTaken(format!(
        "There already exists a constraint called '{}'.",
        def.name
    ));
    Some(Clash::Existing(SchemaRule::Constraint(constraint), err))
}

pub(super) fn constraint_clash(
    catalog: &Catalog,
    st: &[Change],
    def: &ConstraintDef,
) -> Option<Clash> {
    let existing = catalog
        .constraints
        .iter()
        .filter(|c| !dropped(st, &c.def.name))
        .map(|c| c.def.clone())
        .chain(pending_constraints(st).cloned());
    for other in existing {
        let err = if other.equivalent(def) && other.name != def.name {
            StorageError::ConstraintAlreadyExists(format!(
                "Constraint already exists: {}",
                describe_constraint(&other)
            ))
        } else if other.equivalent(def) {
            StorageError::EquivalentSchemaRuleExists(format!(
                "An equivalent constraint already exists, '{}'.",
                describe_constraint(&other)
            ))
        } else if other.name == def.name {
            StorageError::ConstraintNameTaken(format!(
                "There already exists a constraint called '{}'.",
                def.name
            ))
        } else {
            continue;
        };
        return Some(Clash::Existing(SchemaRule::Constraint(other), err));
    }
    let index_named = catalog
        .index_named(&def.name)
        .is_some_and(|i| !dropped(st, &i.def.name));
    if index_named || pending_indexes(st).any(|i| i.name == def.name) {
        return Some(Clash::Refused(StorageError::IndexNameTaken(format!(
            "There already exists an index called '{}'.",
            def.name
        ))));
    }
    if let Some(backing) = backing_index(def) {
        let taken = catalog.indexes.iter().find(|i| {
            !dropped(st, &i.def.name)
                && i.def.kind == IndexKind::Range
                && i.def.entity == backing.entity
                && i.def.label == backing.label
                && i.def.keys == backing.keys
        });
        if let Some(index) = taken {
            return Some(Clash::Refused(StorageError::IndexAlreadyExists(format!(
                "There already exists an index {}. A constraint cannot be created until the index has been dropped.",
                schema_text(index.def.entity, &labels_text(&index.def), &index.def.keys)
            ))));
        }
    }
    None
}

fn pending_indexes(st: &[Change]) -> impl Iterator<Item = IndexDef> + '_ {
    st.iter().filter_map(|c| match c {
        Change::CreateIndex(def) => Some(def.clone()),
        Change::CreateConstraint(def) => backing_index(def),
        _ => None,
    })
}

fn pending_constraints(st: &[Change]) -> impl Iterator<Item = &ConstraintDef> {
    st.iter().filter_map(|c| match c {
        Change::CreateConstraint(def) => Some(def),
        _ => None,
    })
}
