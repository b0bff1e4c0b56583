//! What the `system` database accepts. Nereid keeps its administration
//! state outside any graph, so `system` runs no graph queries: as Neo4j 5
//! answers on its system database, a statement sent there must be an
//! administration command (`SHOW DATABASES`, `SHOW TRANSACTIONS`, ...) or a
//! procedure call of the form `CALL proc [YIELD ...] [RETURN ...]`;
//! anything else is refused with Neo4j's SemanticError text instead of
//! running on the user graph.

use crate::db::DbError;
use nereid_cypher::ast::{Clause, Query};
use nereid_errors::Status;

/// `Ok(())` when `query` may run on the `system` database.
pub fn check(query: &str) -> Result<(), DbError> {
    let statement = nereid_cypher::parse(query).map_err(crate::status::from_cypher)?;
    let clauses = match &statement.query {
        Query::Single(single) => &single.clauses,
        Query::Union { .. } => return Err(unsupported(&["UNION"])),
    };
    let called = clauses.iter().find_map(|c| match c {
        Clause::Call(call) => Some(call.procedure.as_str()),
        _ => None,
    });
    if let Some(procedure) = called {
        // `SHOW ...` and `TERMINATE ...` commands, desugared to internal calls.
        if let Some(shown) = procedure.strip_prefix("internal.show.") {
            return match schema_listing(shown) {
                Some(command) => Err(semantic(format!(
                    "The following commands are not allowed on a system database: {command}."
                ))),
                None => Ok(()),
            };
        }
        if procedure.starts_with("internal.terminate.") {
            return Ok(());
        }
        if procedure.starts_with("internal.schema.") {
            return Err(not_a_system_command(query));
        }
    }
    let mut refused: Vec<&str> = Vec::new();
    for clause in clauses {
        let name = match clause {
            Clause::Call(call) if call.where_.is_some() => "WITH",
            Clause::Call(_) | Clause::Return(_) => continue,
            Clause::Match(_) => "MATCH",
            Clause::Unwind(_) => "UNWIND",
            Clause::With(_) => "WITH",
            Clause::Create(_) => "CREATE",
            Clause::Merge(_) => "MERGE",
            Clause::Set(_) => "SET",
            Clause::Remove(_) => "REMOVE",
            Clause::Delete(_) => "DELETE",
            Clause::CallSubquery(_) => "CALL",
            Clause::Foreach(_) => "FOREACH",
            Clause::LoadCsv(_) => "LOAD CSV",
        };
        if !refused.contains(&name) {
            refused.push(name);
        }
    }
    match (refused.is_empty(), called.is_some()) {
        (false, _) => Err(unsupported(&refused)),
        (true, false) => Err(not_a_system_command(query)),
        (true, true) => Ok(()),
    }
}

/// `SHOW INDEXES` / `SHOW CONSTRAINTS` (a graph's schema, not the DBMS's).
fn schema_listing(shown: &str) -> Option<&'static str> {
    if shown.starts_with("indexes") {
        Some("SHOW INDEXES")
    } else if shown.starts_with("constraints") {
        Some("SHOW CONSTRAINTS")
    } else {
        None
    }
}

fn unsupported(clauses: &[&str]) -> DbError {
    semantic(format!(
        "The following unsupported clauses were used: {}. \nThe system database supports a \
         restricted set of Cypher clauses. The supported clause structure for procedure calls \
         is: CALL, YIELD, RETURN. YIELD and RETURN clauses are optional. The order of the \
         clauses is fixed and each can only occur once.",
        clauses.join(", ")
    ))
}

fn not_a_system_command(query: &str) -> DbError {
    semantic(format!(
        "Not a recognised system command or procedure. This Cypher command can only be \
         executed in a user database: {query}"
    ))
}

fn semantic(message: String) -> DbError {
    DbError {
        status: Status::SemanticError,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn administration_commands_and_plain_calls_pass_graph_queries_do_not() {
        for allowed in [
            "SHOW DATABASES YIELD name",
            "SHOW TRANSACTIONS",
            "SHOW PROCEDURES YIELD name RETURN count(*)",
            "CALL dbms.components()",
            "CALL db.labels() YIELD label RETURN label",
            "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
            "CREATE USER alice SET PASSWORD 'password1'",
            "SHOW USERS",
            "GRANT ROLE reader TO alice",
        ] {
            assert!(check(allowed).is_ok(), "{allowed}");
        }
        for (refused, says) in [
            (
                "MATCH (n) WITH n RETURN count(n)",
                "unsupported clauses were used: MATCH, WITH. ",
            ),
            (
                "CALL db.labels() YIELD label WHERE label = 'x' RETURN label",
                "used: WITH. ",
            ),
            ("CALL { RETURN 1 AS y } RETURN y", "used: CALL. "),
            (
                "RETURN 1 AS x",
                "can only be executed in a user database: RETURN 1 AS x",
            ),
            (
                "CREATE INDEX FOR (n:L) ON (n.p)",
                "Not a recognised system command",
            ),
            (
                "SHOW CONSTRAINTS",
                "not allowed on a system database: SHOW CONSTRAINTS.",
            ),
            (
                "SHOW INDEXES YIELD name",
                "not allowed on a system database: SHOW INDEXES.",
            ),
        ] {
            let e = check(refused).unwrap_err();
            assert_eq!(e.status, nereid_errors::Status::SemanticError, "{refused}");
            assert!(e.message.contains(says), "{refused}: {}", e.message);
        }
    }
}
