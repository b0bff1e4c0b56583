//! Which database a request names (`db` in RUN, BEGIN and ROUTE), and in
//! which access mode (`mode`).
//!
//! Nereid serves one graph, `neo4j`, plus `system`, which answers the
//! administration commands drivers and cypher-shell send to it (SHOW
//! DATABASES, ...). Any other name is `Database.DatabaseNotFound`, as Neo4j
//! answers for a database that does not exist, so that a client pointed at
//! the wrong database fails instead of silently writing to `neo4j`.

use crate::bolt::failure::Failure;
use nereid_errors::Status;
use nereid_packstream::{PackMap, PackValue};

/// The databases this server has; names compare case-insensitively.
pub const DATABASES: [&str; 2] = ["neo4j", "system"];

/// The canonical name of the database `requested` names (`neo4j` when
/// none is named), or the failure for an unknown one.
pub fn resolve(requested: Option<&str>) -> Result<&'static str, Failure> {
    let Some(name) = requested.filter(|name| !name.is_empty()) else {
        return Ok(DATABASES[0]);
    };
    DATABASES
        .into_iter()
        .find(|known| known.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            Failure::new(
                Status::DatabaseNotFound,
                format!("Database does not exist. Database name: '{name}'."),
            )
        })
}

/// [`resolve`] for the `db` entry of a RUN or BEGIN `extra` dictionary;
/// a `db` that is not a string is a malformed request.
pub fn from_extra(extra: &PackMap) -> Result<&'static str, Failure> {
    match extra.get("db") {
        None | Some(PackValue::Null) => resolve(None),
        Some(PackValue::String(name)) => resolve(Some(name)),
        Some(other) => Err(Failure::invalid_request(format!(
            "db must be a string, got {}",
            other.type_name()
        ))),
    }
}

/// Whether a RUN or BEGIN asks for read access mode (`mode: "r"`; write
/// is the default): the engine then refuses a statement that writes.
pub fn read_mode(extra: &PackMap) -> bool {
    extra.get("mode").and_then(PackValue::as_str) == Some("r")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_databases_resolve_and_others_are_not_found() {
        assert_eq!(resolve(None), Ok("neo4j"));
        assert_eq!(resolve(Some("")), Ok("neo4j"));
        assert_eq!(resolve(Some("SYSTEM")), Ok("system"));
        let missing = resolve(Some("movies")).unwrap_err();
        assert_eq!(missing.status, Status::DatabaseNotFound);
        assert!(missing.message.contains("'movies'"), "{}", missing.message);
        let bad = from_extra(&PackMap::new().with("db", 1)).unwrap_err();
        assert_eq!(bad.status, Status::RequestInvalid);
    }
}
