//! Notifications in the PULL/DISCARD SUCCESS summary, per Bolt version.
//!
//! Up to 5.4 they are the `notifications` list: `{code, title,
//! description, severity, category, position?}`. From 5.5 on (5.6 here:
//! 5.5 is never negotiated) Neo4j sends GQL status objects instead, under
//! `statuses`: each notification as `{gql_status, status_description,
//! neo4j_code, title, description, diagnostic_record}` with severity,
//! classification and position in the diagnostic record, plus one status
//! for the result itself (success, no data, or omitted result). Drivers
//! take a `statuses` list as the whole list, so it must hold that result
//! status too; without notifications nothing is sent, and drivers derive
//! the same result status themselves.

use super::version::BoltVersion;
use nereid_engine::{Notification, Position};
use nereid_packstream::{PackMap, PackValue};

/// What the stream produced, for the result's own GQL status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// At least one record was sent.
    Records,
    /// The result has fields but no record came.
    NoData,
    /// The result has no fields (`CREATE (n)`, EXPLAIN).
    Omitted,
}

/// Whether this version carries GQL status objects in summaries.
fn has_gql_statuses(version: BoltVersion) -> bool {
    version >= BoltVersion::new(5, 5)
}

/// Adds `notifications` to a summary's metadata as `version` expects.
pub fn insert(
    meta: &mut PackMap,
    notifications: &[Notification],
    outcome: Outcome,
    version: BoltVersion,
) {
    if notifications.is_empty() {
        return;
    }
    if !has_gql_statuses(version) {
        let list = notifications.iter().map(legacy).map(PackValue::Map);
        meta.insert("notifications", PackValue::List(list.collect()));
        return;
    }
    let mut statuses: Vec<PackMap> = notifications.iter().map(status).collect();
    statuses.push(result_status(outcome));
    // Neo4j's order: no data, then warnings, then success, then information.
    statuses.sort_by_key(|s| match s.get("gql_status").and_then(PackValue::as_str) {
        Some(code) if code.starts_with("02") => 0,
        Some(code) if code.starts_with("01") => 1,
        Some(code) if code.starts_with("00") => 2,
        _ => 3,
    });
    meta.insert(
        "statuses",
        PackValue::List(statuses.into_iter().map(PackValue::Map).collect()),
    );
}

fn position(p: Position) -> PackMap {
    let int = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
    PackMap::new()
        .with("offset", int(p.offset))
        .with("line", int(p.line))
        .with("column", int(p.column))
}

fn legacy(n: &Notification) -> PackMap {
    let mut map = PackMap::new()
        .with("code", n.code)
        .with("title", n.title.as_str())
        .with("description", n.description.as_str())
        .with("severity", n.severity.as_str())
        .with("category", n.category);
    if let Some(p) = n.position {
        map.insert("position", position(p));
    }
    map
}

/// The diagnostic record every GQL status object carries.
fn diagnostic_record() -> PackMap {
    PackMap::new()
        .with("OPERATION", "")
        .with("OPERATION_CODE", "0")
        .with("CURRENT_SCHEMA", "/")
}

fn status(n: &Notification) -> PackMap {
    let mut record = diagnostic_record()
        .with("_severity", n.severity.as_str())
        .with("_classification", n.category);
    if let Some(p) = n.position {
        record.insert("_position", position(p));
    }
    PackMap::new()
        .with("gql_status", n.gql_status)
        .with("status_description", n.status_description.as_str())
        .with("neo4j_code", n.code)
        .with("title", n.title.as_str())
        .with("description", n.description.as_str())
        .with("diagnostic_record", record)
}

fn result_status(outcome: Outcome) -> PackMap {
    let (code, description) = match outcome {
        Outcome::Records => ("00000", "note: successful completion"),
        Outcome::NoData => ("02000", "note: no data"),
        Outcome::Omitted => ("00001", "note: successful completion - omitted result"),
    };
    PackMap::new()
        .with("gql_status", code)
        .with("status_description", description)
        .with("diagnostic_record", diagnostic_record())
}
