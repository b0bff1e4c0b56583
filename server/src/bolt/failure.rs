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
    pub message: String,
}

impl Failure {
    pub fn new(status: Status, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
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
            .with("description", format!("error: {}", self.message))
            .with("diagnostic_record", diagnostic)
    }
}

impl From<DbError> for Failure {
    fn from(e: DbError) -> Self {
        Failure {
            status: e.status,
            message: e.message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_packstream::PackValue;

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
