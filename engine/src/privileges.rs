//! What a client may run, decided once a statement is planned: the access
//! mode of its session (a read session writes nothing) and the roles the
//! front end found for the authenticated user (Neo4j's built-in ones)
//! against what the plan does. Enforced here, not in a front end, so Bolt,
//! the Query API and any later front end refuse alike
//! (docs/adr/0114-users-and-roles.md).
//!
//! | role                 | read | write | schema | administration |
//! |----------------------|------|-------|--------|----------------|
//! | `reader`             | yes  |       |        |                |
//! | `editor`, `publisher`| yes  | yes   |        |                |
//! | `architect`          | yes  | yes   | yes    |                |
//! | `admin`              | yes  | yes   | yes    | yes            |
//!
//! `PUBLIC` alone allows `SHOW CURRENT USER` and `ALTER CURRENT USER SET
//! PASSWORD` only, which every user may run. Administration is user and
//! role management and the procedures that act on the whole database
//! (`db.checkpoint`, `neptune.load`).

use crate::db::DbError;
use crate::transactions::{Access, Client};
use nereid_errors::Status;
use nereid_planner::PhysicalPlan;

/// What Neo4j says to a client that logged in with a password it must
/// change first.
const CREDENTIALS_EXPIRED: &str = "Permission denied.\n\nThe credentials you provided were \
    valid, but must be changed before you can use this instance. If this is the first time you \
    are using Neo4j, this is to ensure you are not using the default credentials in production. \
    If you are not using default credentials, you are getting this message because an \
    administrator requires a password change.\nTo change your password, issue an `ALTER \
    CURRENT USER SET PASSWORD FROM 'current password' TO 'new password'` statement against the \
    system database.";

/// Procedures only administrators call, besides the user commands.
const ADMIN_PROCEDURES: &[&str] = &["db.checkpoint", nereid_dfe::NEPTUNE_LOAD];

/// `Ok` when `client` may run `plan`, whose query type is `query_type`.
pub(crate) fn check(plan: &PhysicalPlan, query_type: &str, client: &Client) -> Result<(), DbError> {
    let calls = |wanted: fn(&str) -> bool| crate::query_type::calls_procedure(&plan.root, wanted);
    let self_service = matches!(&plan.root, nereid_planner::Op::ProcedureCall { name, .. }
        if nereid_dfe::is_self_service(name));
    let listing = matches!(&plan.root, nereid_planner::Op::ProcedureCall { name, .. }
        if name.starts_with("internal.show."));
    let writes = matches!(query_type, "w" | "rw") || (query_type == "s" && !listing);
    if client.read_only && writes {
        return Err(DbError {
            status: Status::AccessMode,
            message: "Writing in read access mode not allowed. Attempted write to neo4j".into(),
        });
    }
    let changes_password = matches!(&plan.root, nereid_planner::Op::ProcedureCall { name, .. }
        if name == "internal.users.changeOwnPassword");
    let roles = match &client.access {
        Access::Unrestricted => return Ok(()),
        Access::PasswordChangeRequired if changes_password => return Ok(()),
        Access::PasswordChangeRequired => {
            return Err(DbError {
                status: Status::CredentialsExpired,
                message: CREDENTIALS_EXPIRED.into(),
            })
        }
        Access::Roles(roles) => roles,
    };
    if self_service {
        return Ok(());
    }
    let has = |role: &str| roles.iter().any(|r| r == role);
    let admin = has("admin");
    if calls(nereid_dfe::is_user_command) && !admin {
        return Err(forbidden("Permission denied.".into()));
    }
    if calls(|name| ADMIN_PROCEDURES.contains(&name)) && !admin {
        return Err(forbidden(refusal(
            "Executing admin procedure",
            client,
            roles,
        )));
    }
    let schema = admin || has("architect");
    let write = schema || has("editor") || has("publisher");
    let read = write || has("reader");
    let (allowed, what) = match query_type {
        "s" => (schema, "Schema operations"),
        "w" | "rw" => (write, "Write operations"),
        _ => (read, "Read operations"),
    };
    if allowed {
        Ok(())
    } else {
        Err(forbidden(refusal(what, client, roles)))
    }
}

/// `<what> is/are not allowed for user 'u' with roles [PUBLIC, ...].`
fn refusal(what: &str, client: &Client, roles: &[String]) -> String {
    let verb = if what.ends_with('s') { "are" } else { "is" };
    let roles = std::iter::once("PUBLIC")
        .chain(roles.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "{what} {verb} not allowed for user '{}' with roles [{roles}].",
        client.username
    )
}

fn forbidden(message: String) -> DbError {
    DbError {
        status: Status::Forbidden,
        message,
    }
}

#[cfg(test)]
mod tests {
    use crate::db::{Database, DbConfig, Params};
    use crate::transactions::{Access, Client};
    use nereid_errors::Status;
    use std::sync::Arc;

    /// The status `query` fails with when `client` runs it (None: it ran).
    fn outcome(db: &Arc<Database>, client: &Client, query: &str) -> Option<Status> {
        let ran = db
            .run_as(None, query, Params::new(), None, Params::new(), client)
            .and_then(|mut result| result.discard(-1));
        ran.err().map(|e| e.status)
    }

    fn user(roles: &[&str]) -> Client {
        Client {
            username: "u".into(),
            access: Access::Roles(roles.iter().map(|r| r.to_string()).collect()),
            ..Client::embedded()
        }
    }

    #[test]
    fn each_role_runs_what_it_allows_and_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).unwrap();
        let read = "MATCH (n) RETURN count(n) AS c";
        let write = "CREATE (:P {k: 1})";
        let schema = "CREATE INDEX FOR (p:P) ON (p.k)";
        let forbidden = Some(Status::Forbidden);
        for (roles, expected) in [
            (&[][..], [forbidden, forbidden, forbidden]),
            (&["reader"][..], [None, forbidden, forbidden]),
            (&["editor"][..], [None, None, forbidden]),
            (&["publisher"][..], [None, None, forbidden]),
        ] {
            let client = user(roles);
            let got = [read, write, schema].map(|q| outcome(&db, &client, q));
            assert_eq!(got, expected, "{roles:?}");
        }
        assert_eq!(outcome(&db, &user(&["architect"]), schema), None);
        assert_eq!(
            outcome(&db, &user(&["editor"]), "CALL db.checkpoint()"),
            forbidden
        );
        let expired = Client {
            access: Access::PasswordChangeRequired,
            ..user(&[])
        };
        assert_eq!(
            outcome(&db, &expired, read),
            Some(Status::CredentialsExpired)
        );
        let read_session = Client {
            read_only: true,
            ..Client::embedded()
        };
        assert_eq!(outcome(&db, &read_session, write), Some(Status::AccessMode));
        assert_eq!(outcome(&db, &read_session, read), None);
        // The embedded caller is unrestricted.
        assert_eq!(outcome(&db, &Client::embedded(), write), None);
    }
}
