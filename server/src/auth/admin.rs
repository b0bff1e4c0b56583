//! User and role administration over the server's [`UserStore`]: what
//! `CREATE USER`, `ALTER USER`, `GRANT ROLE`, ... do once the engine has
//! checked that the caller may run them (docs/adr/0114-users-and-roles.md).
//! Refusals carry Neo4j 5's messages (compared with the reference server
//! for the commands Community has); `protocol_status.rs` gives them their
//! statuses. Every command is one [`UserStore::update`]: applied whole and
//! durable before it returns, or not at all.

use super::users::{hash_password, is_password_hash, password_matches, UserRecord, Users};
use super::{Authenticator, UserStore, UserStoreError};
use nereid_engine::{DbError, Password, UserCommand, UserDirectory, UserInfo, BUILT_IN_ROLES};
use std::sync::Arc;
use thiserror::Error;

/// Neo4j's default `dbms.security.auth_minimum_password_length` (also in
/// [`AdminError::ShortPassword`]'s text).
const MIN_PASSWORD_CHARS: usize = 8;

/// Why a user command was refused.
#[derive(Debug, Error)]
pub enum AdminError {
    #[error("Failed to {action} the specified user '{user}': {reason}")]
    User {
        action: &'static str,
        user: String,
        reason: String,
    },
    #[error("User '{user}' failed to alter their own password: {reason}")]
    OwnPassword { user: String, reason: &'static str },
    #[error("Failed to {action} role '{role}' {preposition} user '{user}': {reason}")]
    Role {
        action: &'static str,
        preposition: &'static str,
        role: String,
        user: String,
        reason: &'static str,
    },
    #[error("A password must be at least 8 characters.")]
    ShortPassword,
    #[error("Incorrect format of encrypted password. Correct format is an Argon2id PHC string ('$argon2id$v=19$m=...,t=...,p=...$<salt>$<hash>').")]
    EncryptedFormat,
    #[error("This server keeps no users: user administration is not available")]
    NoUsers,
    #[error("{0}")]
    Store(#[from] UserStoreError),
}

/// The engine's view of the server's users.
pub struct UserAdmin(Arc<Authenticator>);

impl UserAdmin {
    pub fn new(auth: Arc<Authenticator>) -> Self {
        UserAdmin(auth)
    }

    fn store(&self) -> Result<&UserStore, AdminError> {
        self.0.users().ok_or(AdminError::NoUsers)
    }

    /// Applies `command`; returns the number of system updates it made,
    /// as Neo4j counts them: one per user created, altered, renamed or
    /// dropped and per role granted or revoked, two for a user replaced
    /// (dropped, then created), none for a command that found nothing to do.
    fn apply(&self, caller: &str, command: UserCommand) -> Result<u64, AdminError> {
        let store = self.store()?;
        match command {
            UserCommand::Create {
                name,
                password,
                change_required,
                suspended,
                if_not_exists,
                or_replace,
            } => {
                let hash = hashed(&password)?;
                store.update(|users| {
                    let exists = users.contains_key(&name);
                    if exists && !or_replace {
                        return if if_not_exists {
                            Ok(0)
                        } else {
                            Err(user_error("create", &name, "User already exists."))
                        };
                    }
                    if or_replace && name == caller {
                        return Err(user_error(
                            "replace",
                            &name,
                            "Deleting yourself is not allowed.",
                        ));
                    }
                    users.insert(
                        name.clone(),
                        UserRecord {
                            hash,
                            roles: Vec::new(),
                            change_required: change_required.unwrap_or(true),
                            suspended: suspended.unwrap_or(false),
                        },
                    );
                    Ok(if exists { 2 } else { 1 })
                })
            }
            UserCommand::Alter {
                name,
                password,
                change_required,
                suspended,
                if_exists,
            } => {
                let existing = store.get(&name);
                let Some(existing) = existing else {
                    return missing(if_exists, "alter", &name);
                };
                if suspended.is_some() && name == caller {
                    return Err(user_error(
                        "alter",
                        &name,
                        "Changing your own activation status is not allowed.",
                    ));
                }
                let hash = match &password {
                    Some(p) if !p.encrypted && password_matches(&p.text, &existing.hash) => {
                        return Err(user_error(
                            "alter",
                            &name,
                            "Old password and new password cannot be the same.",
                        ))
                    }
                    Some(p) => Some(hashed(p)?),
                    None => None,
                };
                store.update(|users| {
                    let user = account(users, &name, "alter")?;
                    if let Some(hash) = hash {
                        user.hash = hash;
                    }
                    if let Some(required) = change_required {
                        user.change_required = required;
                    }
                    if let Some(suspended) = suspended {
                        user.suspended = suspended;
                    }
                    Ok(1)
                })
            }
            UserCommand::Rename {
                from,
                to,
                if_exists,
            } => store.update(|users| {
                let Some(user) = users.remove(&from) else {
                    return missing(if_exists, "rename", &from);
                };
                if users.contains_key(&to) {
                    return Err(AdminError::User {
                        action: "rename",
                        user: from,
                        reason: format!("User '{to}' already exists."),
                    });
                }
                users.insert(to, user);
                Ok(1)
            }),
            UserCommand::Drop { name, if_exists } => store.update(|users| {
                if name == caller && users.contains_key(&name) {
                    return Err(user_error(
                        "delete",
                        &name,
                        "Deleting yourself is not allowed.",
                    ));
                }
                match users.remove(&name) {
                    Some(_) => Ok(1),
                    None => missing(if_exists, "delete", &name),
                }
            }),
            UserCommand::ChangeOwnPassword { old, new } => {
                let own = |reason| AdminError::OwnPassword {
                    user: caller.to_string(),
                    reason,
                };
                let current = store
                    .get(caller)
                    .ok_or_else(|| own("User does not exist."))?;
                if !password_matches(&old, &current.hash) {
                    return Err(own("Invalid principal or credentials."));
                }
                if old == new {
                    return Err(own("Old password and new password cannot be the same."));
                }
                let hash = hashed(&Password {
                    text: new,
                    encrypted: false,
                })?;
                store.update(|users| {
                    let user = users
                        .get_mut(caller)
                        .ok_or_else(|| own("User does not exist."))?;
                    user.hash = hash;
                    user.change_required = false;
                    Ok(1)
                })
            }
            UserCommand::GrantRoles { roles, users } => {
                store.update(|accounts| change_roles(accounts, &roles, &users, true))
            }
            UserCommand::RevokeRoles { roles, users } => {
                store.update(|accounts| change_roles(accounts, &roles, &users, false))
            }
        }
    }
}

impl UserDirectory for UserAdmin {
    fn users(&self) -> Vec<UserInfo> {
        self.store()
            .map(|store| {
                store
                    .snapshot()
                    .into_iter()
                    .map(|(name, user)| info(name, user))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn user(&self, name: &str) -> Option<UserInfo> {
        let user = self.store().ok()?.get(name)?;
        Some(info(name.to_string(), user))
    }

    fn administer(&self, caller: &str, command: UserCommand) -> Result<u64, DbError> {
        self.apply(caller, command)
            .map_err(crate::protocol_status::from_admin)
    }
}

fn info(name: String, user: UserRecord) -> UserInfo {
    UserInfo {
        name,
        roles: user.roles,
        change_required: user.change_required,
        suspended: user.suspended,
    }
}

/// The hash a command's password is stored as: a clear password of at
/// least the minimum length hashed now, or an `ENCRYPTED` one taken as it
/// is when it is an Argon2id PHC string.
fn hashed(password: &Password) -> Result<String, AdminError> {
    if password.encrypted {
        return match is_password_hash(&password.text) {
            true => Ok(password.text.clone()),
            false => Err(AdminError::EncryptedFormat),
        };
    }
    if password.text.chars().count() < MIN_PASSWORD_CHARS {
        return Err(AdminError::ShortPassword);
    }
    Ok(hash_password(&password.text)?)
}

/// Grants (or revokes) every role in `roles` to (from) every user in
/// `users`; all must exist, and `PUBLIC` is nobody's to give or take.
/// Returns how many grants changed (a role already held, or not held, is
/// no change).
fn change_roles(
    accounts: &mut Users,
    roles: &[String],
    users: &[String],
    grant: bool,
) -> Result<u64, AdminError> {
    let mut changed = 0;
    let (action, preposition) = if grant {
        ("grant", "to")
    } else {
        ("revoke", "from")
    };
    for role in roles {
        for name in users {
            let refuse = |reason| AdminError::Role {
                action,
                preposition,
                role: role.clone(),
                user: name.clone(),
                reason,
            };
            if !BUILT_IN_ROLES.contains(&role.as_str()) {
                return Err(refuse("Role does not exist."));
            }
            if role == "PUBLIC" {
                return Err(refuse("Every user has the PUBLIC role."));
            }
            let user = accounts
                .get_mut(name)
                .ok_or_else(|| refuse("User does not exist."))?;
            let held = user.roles.iter().position(|r| r == role);
            match (grant, held) {
                (true, None) => user.roles.push(role.clone()),
                (false, Some(at)) => {
                    user.roles.remove(at);
                }
                _ => continue,
            }
            changed += 1;
        }
    }
    Ok(changed)
}

fn account<'a>(
    users: &'a mut Users,
    name: &str,
    action: &'static str,
) -> Result<&'a mut UserRecord, AdminError> {
    users
        .get_mut(name)
        .ok_or_else(|| user_error(action, name, "User does not exist."))
}

/// A command on a user that does not exist: nothing to do under `IF
/// EXISTS`, an error otherwise.
fn missing(if_exists: bool, action: &'static str, name: &str) -> Result<u64, AdminError> {
    if if_exists {
        Ok(0)
    } else {
        Err(user_error(action, name, "User does not exist."))
    }
}

fn user_error(action: &'static str, user: &str, reason: &str) -> AdminError {
    AdminError::User {
        action,
        user: user.to_string(),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::limiter::FailureLimiter;

    fn admin() -> (tempfile::TempDir, UserAdmin) {
        let dir = tempfile::tempdir().unwrap();
        let users = UserStore::open(dir.path()).unwrap();
        users.set_password("root", "rootpass").unwrap();
        let auth = Authenticator::with_users(users, FailureLimiter::default());
        (dir, UserAdmin::new(Arc::new(auth)))
    }

    fn create(name: &str, password: &str) -> UserCommand {
        UserCommand::Create {
            name: name.into(),
            password: Password {
                text: password.into(),
                encrypted: false,
            },
            change_required: None,
            suspended: None,
            if_not_exists: false,
            or_replace: false,
        }
    }

    fn refusal(admin: &UserAdmin, caller: &str, command: UserCommand) -> String {
        admin.administer(caller, command).unwrap_err().message
    }

    #[test]
    fn users_are_created_with_neo4j_defaults_and_persist() {
        let (dir, admin) = admin();
        admin
            .administer("root", create("alice", "password1"))
            .unwrap();
        let alice = admin.user("alice").unwrap();
        assert!(alice.change_required && !alice.suspended && alice.roles.is_empty());
        let reopened = UserStore::open(dir.path()).unwrap();
        assert!(reopened.verify("alice", "password1"));
        assert_eq!(
            refusal(&admin, "root", create("alice", "password1")),
            "Failed to create the specified user 'alice': User already exists."
        );
        assert_eq!(
            refusal(&admin, "root", create("bob", "short")),
            "A password must be at least 8 characters."
        );
        assert!(admin.user("bob").is_none());
    }

    #[test]
    fn roles_are_granted_and_revoked_among_the_built_in_ones() {
        let (_dir, admin) = admin();
        admin
            .administer("root", create("alice", "password1"))
            .unwrap();
        let grant = |roles: &[&str], users: &[&str]| UserCommand::GrantRoles {
            roles: roles.iter().map(|r| r.to_string()).collect(),
            users: users.iter().map(|u| u.to_string()).collect(),
        };
        admin
            .administer("root", grant(&["reader", "editor"], &["alice"]))
            .unwrap();
        assert_eq!(admin.user("alice").unwrap().roles, ["reader", "editor"]);
        assert_eq!(
            refusal(&admin, "root", grant(&["wizard"], &["alice"])),
            "Failed to grant role 'wizard' to user 'alice': Role does not exist."
        );
        assert_eq!(
            refusal(&admin, "root", grant(&["reader"], &["nobody"])),
            "Failed to grant role 'reader' to user 'nobody': User does not exist."
        );
        let revoke = UserCommand::RevokeRoles {
            roles: vec!["reader".into()],
            users: vec!["alice".into()],
        };
        admin.administer("root", revoke).unwrap();
        assert_eq!(admin.user("alice").unwrap().roles, ["editor"]);
    }

    #[test]
    fn own_password_changes_check_the_old_one_and_clear_the_requirement() {
        let (_dir, admin) = admin();
        admin
            .administer("root", create("alice", "password1"))
            .unwrap();
        let change = |old: &str, new: &str| UserCommand::ChangeOwnPassword {
            old: old.into(),
            new: new.into(),
        };
        assert_eq!(
            refusal(&admin, "alice", change("wrong-one", "password2")),
            "User 'alice' failed to alter their own password: Invalid principal or credentials."
        );
        assert_eq!(
            refusal(&admin, "alice", change("password1", "password1")),
            "User 'alice' failed to alter their own password: Old password and new password cannot be the same."
        );
        admin
            .administer("alice", change("password1", "password2"))
            .unwrap();
        assert!(!admin.user("alice").unwrap().change_required);
        assert_eq!(
            refusal(
                &admin,
                "root",
                UserCommand::Drop {
                    name: "root".into(),
                    if_exists: false
                }
            ),
            "Failed to delete the specified user 'root': Deleting yourself is not allowed."
        );
    }
}
