//! The procedures behind `CREATE`/`ALTER`/`RENAME`/`DROP USER`, `ALTER
//! CURRENT USER SET PASSWORD` and `GRANT`/`REVOKE ROLE` (the parser's
//! `parser/users.rs` desugars each into a call of one of these): the
//! arguments become a [`UserCommand`] for the database hook. They yield no
//! rows, as Neo4j's commands do.

use super::database_hook::current_hook;
use super::user_admin::{Password, UserCommand};
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

const SETTINGS: [(&str, ProcedureType); 4] = [
    ("password", ProcedureType::Any),
    ("encrypted", ProcedureType::Any),
    ("changeRequired", ProcedureType::Any),
    ("suspended", ProcedureType::Any),
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "internal.users.create",
        inputs: &[
            ("name", ProcedureType::Any),
            SETTINGS[0],
            SETTINGS[1],
            SETTINGS[2],
            SETTINGS[3],
            ("ifNotExists", ProcedureType::Boolean),
            ("orReplace", ProcedureType::Boolean),
        ],
        outputs: &[],
        description: "CREATE USER",
        mode: "DBMS",
        body: create,
    },
    Procedure {
        name: "internal.users.alter",
        inputs: &[
            ("name", ProcedureType::Any),
            SETTINGS[0],
            SETTINGS[1],
            SETTINGS[2],
            SETTINGS[3],
            ("ifExists", ProcedureType::Boolean),
        ],
        outputs: &[],
        description: "ALTER USER",
        mode: "DBMS",
        body: alter,
    },
    Procedure {
        name: "internal.users.rename",
        inputs: &[
            ("from", ProcedureType::Any),
            ("to", ProcedureType::Any),
            ("ifExists", ProcedureType::Boolean),
        ],
        outputs: &[],
        description: "RENAME USER",
        mode: "DBMS",
        body: rename,
    },
    Procedure {
        name: "internal.users.drop",
        inputs: &[
            ("name", ProcedureType::Any),
            ("ifExists", ProcedureType::Boolean),
        ],
        outputs: &[],
        description: "DROP USER",
        mode: "DBMS",
        body: drop_user,
    },
    Procedure {
        name: "internal.users.changeOwnPassword",
        inputs: &[("old", ProcedureType::Any), ("new", ProcedureType::Any)],
        outputs: &[],
        description: "ALTER CURRENT USER SET PASSWORD",
        mode: "DBMS",
        body: change_own_password,
    },
    Procedure {
        name: "internal.users.grantRoles",
        inputs: &[("roles", ProcedureType::Any), ("users", ProcedureType::Any)],
        outputs: &[],
        description: "GRANT ROLE",
        mode: "DBMS",
        body: grant_roles,
    },
    Procedure {
        name: "internal.users.revokeRoles",
        inputs: &[("roles", ProcedureType::Any), ("users", ProcedureType::Any)],
        outputs: &[],
        description: "REVOKE ROLE",
        mode: "DBMS",
        body: revoke_roles,
    },
];

fn create(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = text(args, 0, "user name")?;
    let password = password(args)?.ok_or_else(|| argument("a password is required"))?;
    run(UserCommand::Create {
        name,
        password,
        change_required: flag(args, 3)?,
        suspended: flag(args, 4)?,
        if_not_exists: flag(args, 5)?.unwrap_or(false),
        or_replace: flag(args, 6)?.unwrap_or(false),
    })
}

fn alter(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    run(UserCommand::Alter {
        name: text(args, 0, "user name")?,
        password: password(args)?,
        change_required: flag(args, 3)?,
        suspended: flag(args, 4)?,
        if_exists: flag(args, 5)?.unwrap_or(false),
    })
}

fn rename(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    run(UserCommand::Rename {
        from: text(args, 0, "user name")?,
        to: text(args, 1, "user name")?,
        if_exists: flag(args, 2)?.unwrap_or(false),
    })
}

fn drop_user(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    run(UserCommand::Drop {
        name: text(args, 0, "user name")?,
        if_exists: flag(args, 1)?.unwrap_or(false),
    })
}

fn change_own_password(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    run(UserCommand::ChangeOwnPassword {
        old: text(args, 0, "password")?,
        new: text(args, 1, "password")?,
    })
}

fn grant_roles(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    run(UserCommand::GrantRoles {
        roles: names(args, 0, "role name")?,
        users: names(args, 1, "user name")?,
    })
}

fn revoke_roles(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    run(UserCommand::RevokeRoles {
        roles: names(args, 0, "role name")?,
        users: names(args, 1, "user name")?,
    })
}

fn run(command: UserCommand) -> ExecResult<Vec<Vec<Value>>> {
    let hook = current_hook().map_err(|why| ExecError::ProcedureCallFailed(why.into()))?;
    hook.administer_users(command)?;
    Ok(Vec::new())
}

/// A name or password: a string (a parameter may hold anything).
fn text(args: &[Value], at: usize, what: &str) -> ExecResult<String> {
    match args.get(at) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Null) | None => Err(argument(&format!("Expected a {what}, got null"))),
        Some(other) => Err(argument(&format!(
            "Expected a {what} as a String, got {}",
            other.type_name()
        ))),
    }
}

fn names(args: &[Value], at: usize, what: &str) -> ExecResult<Vec<String>> {
    match args.get(at) {
        Some(Value::List(items)) => items
            .iter()
            .map(|item| text(std::slice::from_ref(item), 0, what))
            .collect(),
        _ => text(args, at, what).map(|one| vec![one]),
    }
}

/// The password and whether it is `ENCRYPTED` (arguments 1 and 2).
fn password(args: &[Value]) -> ExecResult<Option<Password>> {
    if matches!(args.get(1), None | Some(Value::Null)) {
        return Ok(None);
    }
    Ok(Some(Password {
        text: text(args, 1, "password")?,
        encrypted: flag(args, 2)?.unwrap_or(false),
    }))
}

fn flag(args: &[Value], at: usize) -> ExecResult<Option<bool>> {
    match args.get(at) {
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(Value::Null) | None => Ok(None),
        Some(other) => Err(argument(&format!(
            "Expected a Boolean, got {}",
            other.type_name()
        ))),
    }
}

fn argument(message: &str) -> ExecError {
    ExecError::Argument(message.to_string())
}
