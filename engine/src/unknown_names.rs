//! Neo4j's warnings for names the database has never seen: a label
//! (`UnknownLabelWarning`, GQL 01N50), relationship type
//! (`UnknownRelationshipTypeWarning`, 01N51) or property key
//! (`UnknownPropertyKeyWarning`, 01N52) that a read-only query reads, most
//! often a misspelling. A query that writes gets none (it may create the
//! name), as in Neo4j. The names come from the parser with their positions
//! and are kept with the cached plan; whether they exist is asked of the
//! store at every run, since a name created after planning stops the
//! warning without a replan. Texts as the reference Neo4j 5.26 words them.

use crate::notification::{Notification, Position, Severity};
use nereid_cypher::ast::{NameKind, NameUse};
use nereid_storage::Txn;
use std::sync::Arc;

/// `notifications` plus one warning per name of `names` that `txn`'s store
/// has never seen (the same `Arc` when every name is known).
pub(crate) fn with_unknown(
    notifications: &Arc<[Notification]>,
    names: &[NameUse],
    txn: &Txn,
    query: &str,
) -> Arc<[Notification]> {
    let unknown: Vec<&NameUse> = names.iter().filter(|n| !known(n, txn)).collect();
    if unknown.is_empty() {
        return Arc::clone(notifications);
    }
    notifications
        .iter()
        .cloned()
        .chain(unknown.into_iter().map(|n| warning(n, query)))
        .collect()
}

fn known(name: &NameUse, txn: &Txn) -> bool {
    match name.kind {
        NameKind::Label => txn.label_known(&name.name),
        NameKind::RelationshipType => txn.rel_type_known(&name.name),
        NameKind::PropertyKey => txn.property_key_known(&name.name),
    }
}

/// How Neo4j words the warning for one kind of name.
struct Wording {
    code: &'static str,
    title: &'static str,
    /// "labels" in "One of the labels in your query ...".
    plural: &'static str,
    /// "label name is" in "(the missing label name is: X)".
    missing: &'static str,
    gql_status: &'static str,
    /// "label" in "warn: label does not exist."
    kind: &'static str,
    /// "label" in "The label `X` does not exist."
    noun: &'static str,
}

fn wording(kind: NameKind) -> Wording {
    match kind {
        NameKind::Label => Wording {
            code: "Neo.ClientNotification.Statement.UnknownLabelWarning",
            title: "The provided label is not in the database.",
            plural: "labels",
            missing: "label name is",
            gql_status: "01N50",
            kind: "label",
            noun: "label",
        },
        NameKind::RelationshipType => Wording {
            code: "Neo.ClientNotification.Statement.UnknownRelationshipTypeWarning",
            title: "The provided relationship type is not in the database.",
            plural: "relationship types",
            missing: "relationship type is",
            gql_status: "01N51",
            kind: "relationship type",
            noun: "relationship type",
        },
        NameKind::PropertyKey => Wording {
            code: "Neo.ClientNotification.Statement.UnknownPropertyKeyWarning",
            title: "The provided property key is not in the database",
            plural: "property names",
            missing: "property name is",
            gql_status: "01N52",
            kind: "property key",
            noun: "property",
        },
    }
}

fn warning(name: &NameUse, query: &str) -> Notification {
    let w = wording(name.kind);
    let n = &name.name;
    Notification {
        code: w.code,
        title: w.title.into(),
        description: format!(
            "One of the {} in your query is not available in the database, make sure you \
             didn't misspell it or that the label is available when you run this statement in \
             your application (the missing {}: {n})",
            w.plural, w.missing
        ),
        severity: Severity::Warning,
        category: "UNRECOGNIZED",
        gql_status: w.gql_status,
        status_description: format!(
            "warn: {} does not exist. The {} `{n}` does not exist. Verify that the spelling is \
             correct.",
            w.kind, w.noun
        ),
        position: Some(Position::in_query(query, name.span.start)),
    }
}
