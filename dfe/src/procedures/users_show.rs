//! The procedures behind `SHOW USERS`, `SHOW CURRENT USER` and `SHOW [ALL
//! | POPULATED] ROLES [WITH USERS]` (desugared by the parser's `show.rs`),
//! with Neo4j 5's columns. The users come from the database hook; the
//! roles are the built-in ones.

use super::database_hook::current_hook;
use super::user_admin::{UserInfo, BUILT_IN_ROLES};
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

const USER_COLUMNS: &[&str] = &[
    "user",
    "roles",
    "passwordChangeRequired",
    "suspended",
    "home",
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "internal.show.users",
        inputs: &[],
        outputs: USER_COLUMNS,
        description: "SHOW USERS",
        mode: "DBMS",
        body: show_users,
    },
    Procedure {
        name: "internal.show.currentUser",
        inputs: &[],
        outputs: USER_COLUMNS,
        description: "SHOW CURRENT USER",
        mode: "DBMS",
        body: show_current_user,
    },
    Procedure {
        name: "internal.show.roles",
        inputs: &[("populated", ProcedureType::Boolean)],
        outputs: &["role"],
        description: "SHOW ROLES",
        mode: "DBMS",
        body: show_roles,
    },
    Procedure {
        name: "internal.show.rolesWithUsers",
        inputs: &[("populated", ProcedureType::Boolean)],
        outputs: &["role", "member"],
        description: "SHOW ROLES WITH USERS",
        mode: "DBMS",
        body: show_roles_with_users,
    },
];

fn show_users(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(users()?.iter().map(user_row).collect())
}

fn show_current_user(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let hook = current_hook().map_err(|why| ExecError::ProcedureCallFailed(why.into()))?;
    Ok(hook.current_user()?.iter().map(user_row).collect())
}

fn show_roles(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let members = memberships(args)?;
    let mut roles: Vec<&str> = members.iter().map(|(role, _)| *role).collect();
    roles.dedup();
    Ok(roles
        .into_iter()
        .map(|role| vec![Value::String(role.to_string())])
        .collect())
}

fn show_roles_with_users(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(memberships(args)?
        .into_iter()
        .map(|(role, member)| {
            vec![
                Value::String(role.to_string()),
                member.map_or(Value::Null, Value::String),
            ]
        })
        .collect())
}

/// Every (role, member) pair in role order, a role without members once
/// with none; `POPULATED` (the argument) leaves those out.
fn memberships(args: &[Value]) -> ExecResult<Vec<(&'static str, Option<String>)>> {
    let populated = matches!(args.first(), Some(Value::Bool(true)));
    let users = users()?;
    let mut pairs = Vec::new();
    for &role in BUILT_IN_ROLES {
        let members: Vec<String> = users
            .iter()
            .filter(|u| role == "PUBLIC" || u.roles.iter().any(|r| r == role))
            .map(|u| u.name.clone())
            .collect();
        if members.is_empty() && !populated {
            pairs.push((role, None));
        }
        pairs.extend(members.into_iter().map(|m| (role, Some(m))));
    }
    Ok(pairs)
}

fn users() -> ExecResult<Vec<UserInfo>> {
    let hook = current_hook().map_err(|why| ExecError::ProcedureCallFailed(why.into()))?;
    hook.users()
}

/// `user, roles, passwordChangeRequired, suspended, home`; the roles
/// include `PUBLIC`, as Neo4j lists them.
fn user_row(user: &UserInfo) -> Vec<Value> {
    let roles = std::iter::once("PUBLIC".to_string())
        .chain(user.roles.iter().cloned())
        .map(Value::String)
        .collect::<Vec<_>>();
    vec![
        Value::String(user.name.clone()),
        Value::List(roles.into()),
        Value::Bool(user.change_required),
        Value::Bool(user.suspended),
        Value::Null,
    ]
}
