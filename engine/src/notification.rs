//! Notifications: warnings and information a query's summary carries
//! (Bolt's `notifications` list, or GQL status objects under `statuses`
//! from Bolt 5.5 on; `bolt/notifications.rs` encodes them).
//!
//! They are decided while planning and kept with the cached plan, so a
//! query run from the plan cache reports the same ones.

/// How serious a notification is (Neo4j's two severities).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Warning,
    Information,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "WARNING",
            Severity::Information => "INFORMATION",
        }
    }
}

/// Where in the query text a notification points (line and column from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

impl Position {
    /// The position of byte `offset` in `query`.
    pub fn in_query(query: &str, offset: usize) -> Position {
        let before = &query[..offset.min(query.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Position {
            offset,
            line,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

/// One notification, with both the pre-GQL fields (code, title,
/// description, category) and the GQL status object's.
#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    /// `Neo.ClientNotification.Statement.*`.
    pub code: &'static str,
    pub title: String,
    pub description: String,
    pub severity: Severity,
    /// Neo4j's category (`UNSUPPORTED`, `PERFORMANCE`, ...), which is also
    /// the GQL status object's classification.
    pub category: &'static str,
    /// The GQL status code (`01N40`).
    pub gql_status: &'static str,
    /// The GQL status description (`warn: unsupported runtime. ...`).
    pub status_description: String,
    pub position: Option<Position>,
}

impl Notification {
    /// Neo4j's warning for a `USING INDEX` hint whose index does not
    /// exist (planned as if the hint were not written).
    pub(crate) fn hinted_index_not_found(hint: &nereid_planner::MissingHint) -> Notification {
        Notification {
            code: "Neo.ClientNotification.Schema.HintedIndexNotFound",
            title: "The request (directly or indirectly) referred to an index that does not exist."
                .into(),
            description: format!(
                "The hinted index does not exist, please check the schema (index is: {})",
                hint.described
            ),
            severity: Severity::Warning,
            category: "HINT",
            gql_status: "01N31",
            status_description: format!(
                "warn: hinted index does not exist. Unable to create a plan with '{}' because \
                 the index does not exist.",
                hint.short
            ),
            position: None,
        }
    }
}

impl From<nereid_dfe::SchemaNotice> for Notification {
    /// Neo4j 5's notification for a schema command that did nothing
    /// (texts recorded from the reference Neo4j 5.26; no position).
    fn from(notice: nereid_dfe::SchemaNotice) -> Notification {
        use nereid_dfe::SchemaNotice;
        let (code, gql_status, description, status, command) = match notice {
            SchemaNotice::AlreadyExists { command, existing } => (
                "Neo.ClientNotification.Schema.IndexOrConstraintAlreadyExists",
                "00NA0",
                format!("`{existing}` already exists."),
                format!(
                    "index or constraint already exists. The command '{command}' has no effect. \
                     The index or constraint specified by '{existing}' already exists."
                ),
                command,
            ),
            SchemaNotice::DoesNotExist { command, name } => (
                "Neo.ClientNotification.Schema.IndexOrConstraintDoesNotExist",
                "00NA1",
                format!("`{name}` does not exist."),
                format!(
                    "index or constraint does not exist. The command '{command}' has no \
                     effect. The specified index or constraint `{name}` does not exist."
                ),
                command,
            ),
        };
        Notification {
            code,
            title: format!("`{command}` has no effect."),
            description,
            severity: Severity::Information,
            category: "SCHEMA",
            gql_status,
            status_description: format!("note: successful completion - {status}"),
            position: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        let query = "CYPHER\n  runtime=slotted RETURN 'é'";
        assert_eq!(
            Position::in_query(query, 9),
            Position {
                offset: 9,
                line: 2,
                column: 3
            }
        );
        assert_eq!(Position::in_query(query, 0).column, 1);
    }
}
