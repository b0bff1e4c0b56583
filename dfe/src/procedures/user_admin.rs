//! What user and role administration asks of the server: the users live
//! with the server's authentication (which dfe and the engine know nothing
//! of), so the procedures behind `CREATE USER`, `SHOW USERS`, `GRANT ROLE`
//! ... (`users.rs`, `users_show.rs`) hand a [`UserCommand`] to the
//! running cursor's [`super::DatabaseHook`], which the engine forwards to
//! the directory the server registered, with the calling user.

/// The roles every Neo4j installation has, in `SHOW ROLES` order. `PUBLIC`
/// is every user's; the others are granted.
pub const BUILT_IN_ROLES: &[&str] = &[
    "PUBLIC",
    "admin",
    "architect",
    "editor",
    "publisher",
    "reader",
];

/// A user as `SHOW USERS` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct UserInfo {
    pub name: String,
    /// Granted roles, without `PUBLIC` (which every user has).
    pub roles: Vec<String>,
    pub change_required: bool,
    pub suspended: bool,
}

/// A password as written in a command: in clear, or `ENCRYPTED` (an
/// already hashed form the directory understands).
#[derive(Clone, Debug, PartialEq)]
pub struct Password {
    pub text: String,
    pub encrypted: bool,
}

/// One administration command; `None` settings keep what the user has
/// (or take Neo4j's defaults for a new user: change required, active).
#[derive(Clone, Debug, PartialEq)]
pub enum UserCommand {
    Create {
        name: String,
        password: Password,
        change_required: Option<bool>,
        suspended: Option<bool>,
        if_not_exists: bool,
        or_replace: bool,
    },
    Alter {
        name: String,
        password: Option<Password>,
        change_required: Option<bool>,
        suspended: Option<bool>,
        if_exists: bool,
    },
    Rename {
        from: String,
        to: String,
        if_exists: bool,
    },
    Drop {
        name: String,
        if_exists: bool,
    },
    /// `ALTER CURRENT USER SET PASSWORD FROM old TO new`.
    ChangeOwnPassword {
        old: String,
        new: String,
    },
    GrantRoles {
        roles: Vec<String>,
        users: Vec<String>,
    },
    RevokeRoles {
        roles: Vec<String>,
        users: Vec<String>,
    },
}

/// Whether `procedure` is one of the user and role commands or listings
/// (reported as query type `s`, and run by administrators only, except
/// the two every user may run on themselves).
pub fn is_user_command(procedure: &str) -> bool {
    procedure.starts_with("internal.users.")
        || matches!(
            procedure,
            "internal.show.users"
                | "internal.show.currentUser"
                | "internal.show.roles"
                | "internal.show.rolesWithUsers"
        )
}

/// The commands any authenticated user may run, on their own account.
pub fn is_self_service(procedure: &str) -> bool {
    matches!(
        procedure,
        "internal.show.currentUser" | "internal.users.changeOwnPassword"
    )
}
