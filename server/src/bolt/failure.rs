//! Failures reported to the client and the FAILURE metadata per version
//! (bolt-protocol.md §10).

use super::version::BoltVersion;
use nereid_engine::DbError;
use nereid_errors::{Classification, Status};
use nereid_packstream::PackMap;

/// A failed request: a status and a human-readable message.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub status: Status,
    /// Neo4j's text, without the openCypher detail.
    pub message: String,
    /// The openCypher detail (`UndefinedVariable`, ...), sent in the GQL
    /// description only (clients match the message against Neo4j's).
    pub detail: Option<&'static str>,
}

impl Failure {
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
            detail: None,
        }
    }

    /// `Neo.ClientError.Request.Invalid`, for protocol violations.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Failure::new(Status::RequestInvalid, message)
    }

    /// The FAILURE metadata: `{code, message}` up to 5.6; from 5.7 on the
    /// GQL form with `neo4j_code`, `gql_status`, `description` and a
    /// `diagnostic_record` carrying the classification.
    pub fn metadata(&self, version: BoltVersion) -> PackMap {
        if !version.has_gql_failures() {
            return PackMap::new()
                .with("code", self.status.code())
                .with("message", self.message.as_str());
        }
        let classification = match self.status.classification() {
            Classification::ClientError => "CLIENT_ERROR",
            Classification::TransientError => "TRANSIENT_ERROR",
            Classification::DatabaseError => "DATABASE_ERROR",
        };
        let diagnostic = PackMap::new()
            .with("OPERATION", "")
            .with("OPERATION_CODE", "0")
            .with("CURRENT_SCHEMA", "/")
            .with("_classification", classification);
        PackMap::new()
            .with("neo4j_code", self.status.code())
            .with("message", self.message.as_str())
            .with("gql_status", self.status.gql_status())
            .with("description", self.description())
            .with("diagnostic_record", diagnostic)
    }
}

impl Failure {
    /// The GQL status description: the message, after the detail when
    /// there is one (`error: UndefinedVariable: Variable `x` not defined`).
    fn description(&self) -> String {
        match self.detail {
            Some(detail) => format!("error: {detail}: {}", self.message),
            None => format!("error: {}", self.message),
        }
    }
}

impl From<DbError> for Failure {
    fn from(e: DbError) -> Self {
        Failure {
            status: e.status,
            message: e.client_message().to_string(),
            detail: e.detail(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_packstream::PackValue;

    #[test]
    fn the_detail_goes_to_the_description_and_the_message_is_neo4js() {
        let failure = Failure::from(DbError {
            status: Status::SyntaxError,
            message: "UndefinedVariable: Variable `x` not defined".to_string(),
        });
        assert_eq!(failure.message, "Variable `x` not defined");
        let new = failure.metadata(BoltVersion::new(5, 7));
        assert_eq!(
            new.get("message").and_then(PackValue::as_str),
            Some("Variable `x` not defined")
        );
        assert_eq!(
            new.get("description").and_then(PackValue::as_str),
            Some("error: UndefinedVariable: Variable `x` not defined")
        );
        let old = failure.metadata(BoltVersion::new(5, 6));
        assert_eq!(
            old.get("message").and_then(PackValue::as_str),
            Some("Variable `x` not defined")
        );
    }

    #[test]
    fn failure_shape_depends_on_the_version() {
        let failure = Failure::new(Status::SyntaxError, "Invalid input 'RETRUN'");
        let old = failure.metadata(BoltVersion::new(5, 6));
        assert_eq!(
            old.get("code").and_then(PackValue::as_str),
            Some("Neo.ClientError.Statement.SyntaxError")
        );
        assert_eq!(old.len(), 2);
        let new = failure.metadata(BoltVersion::new(5, 7));
        assert!(new.get("code").is_none());
        assert_eq!(
            new.get("neo4j_code").and_then(PackValue::as_str),
            Some("Neo.ClientError.Statement.SyntaxError")
        );
        assert_eq!(
            new.get("gql_status").and_then(PackValue::as_str),
            Some("42001")
        );
        let record = new
            .get("diagnostic_record")
            .and_then(PackValue::as_map)
            .unwrap();
        assert_eq!(
            record.get("_classification").and_then(PackValue::as_str),
            Some("CLIENT_ERROR")
        );
        let transient =
            Failure::new(Status::DeadlockDetected, "conflict").metadata(BoltVersion::new(5, 8));
        let record = transient
            .get("diagnostic_record")
            .and_then(PackValue::as_map)
            .unwrap();
        assert_eq!(
            record.get("_classification").and_then(PackValue::as_str),
            Some("TRANSIENT_ERROR")
        );
    }
}
