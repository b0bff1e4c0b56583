//! The users the server knows, with their passwords hashed by Argon2id,
//! their granted roles and account state, persisted as JSON in
//! `<data_dir>/users.json` (docs/adr/0114-users-and-roles.md).
//!
//! Invariants:
//! - a password is never stored or logged in clear; only its PHC string
//!   (algorithm, parameters, salt and hash) is kept;
//! - the file is replaced atomically (write to a temporary file, fsync,
//!   rename), so a crash leaves either the old or the new list; a change
//!   is visible to logins only once its file is on disk, and a change
//!   whose write fails is not applied at all.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use parking_lot::{Mutex, RwLock};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use thiserror::Error;

/// The file name of the user list inside the data directory.
pub const USERS_FILE: &str = "users.json";

#[derive(Debug, Error)]
pub enum UserStoreError {
    #[error("cannot read the user file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the user file {path} is invalid: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot write the user file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid user specification: {0}")]
    BadSpec(String),
    #[error("cannot hash the password: {0}")]
    Hash(String),
}

/// One user's account.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct UserRecord {
    /// The password's PHC string.
    pub hash: String,
    /// Granted roles (`PUBLIC` is every user's and not listed).
    #[serde(default)]
    pub roles: Vec<String>,
    /// The password must be changed before anything else.
    #[serde(default)]
    pub change_required: bool,
    /// A suspended user cannot log in.
    #[serde(default)]
    pub suspended: bool,
}

/// A user in the file: an account, or (files written before roles
/// existed) a bare hash, whose user was all-powerful and so is read as an
/// administrator.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Stored {
    Account(UserRecord),
    Hash(String),
}

/// The on-disk form.
#[derive(Serialize, Deserialize, Default)]
struct UserFile {
    users: BTreeMap<String, Stored>,
}

/// Users by name.
pub type Users = BTreeMap<String, UserRecord>;

/// The user list of one data directory.
#[derive(Debug)]
pub struct UserStore {
    path: PathBuf,
    users: RwLock<Users>,
    /// Held by a change from reading the list to publishing it, so
    /// changes apply one after another.
    writer: Mutex<()>,
    /// A hash of a random password, verified against when the user is
    /// unknown so that a failed login costs the same either way (made on
    /// first use: a server without users never pays for it).
    decoy: OnceLock<Option<String>>,
}

impl UserStore {
    /// Loads the user list of `data_dir` (an absent file is an empty list).
    pub fn open(data_dir: &Path) -> Result<UserStore, UserStoreError> {
        let path = data_dir.join(USERS_FILE);
        let users = match std::fs::read_to_string(&path) {
            Ok(text) => read_users(&path, &text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(source) => return Err(UserStoreError::Read { path, source }),
        };
        Ok(UserStore {
            path,
            users: RwLock::new(users),
            writer: Mutex::new(()),
            decoy: OnceLock::new(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.users.read().is_empty()
    }

    pub fn len(&self) -> usize {
        self.users.read().len()
    }

    /// A copy of every account.
    pub fn snapshot(&self) -> Users {
        self.users.read().clone()
    }

    pub fn get(&self, name: &str) -> Option<UserRecord> {
        self.users.read().get(name).cloned()
    }

    /// The `--auth USER/PASSWORD` seed: adds `name` as an administrator
    /// whose password need not be changed, or gives an existing `name`
    /// this password and the admin role. Skips the write when nothing
    /// changes.
    pub fn set_password(&self, name: &str, password: &str) -> Result<(), UserStoreError> {
        if name.is_empty() || name.chars().any(char::is_control) {
            return Err(UserStoreError::BadSpec(
                "the user name must be non-empty and printable".into(),
            ));
        }
        if password.is_empty() {
            return Err(UserStoreError::BadSpec(
                "the password must not be empty".into(),
            ));
        }
        let is_admin = self
            .get(name)
            .is_some_and(|u| u.roles.iter().any(|r| r == "admin"));
        if is_admin && self.verify(name, password) {
            return Ok(());
        }
        let hash = hash_password(password)?;
        self.update(|users| {
            let user = users.entry(name.to_string()).or_insert_with(|| UserRecord {
                hash: String::new(),
                roles: Vec::new(),
                change_required: false,
                suspended: false,
            });
            user.hash = hash;
            if !user.roles.iter().any(|r| r == "admin") {
                user.roles.push("admin".into());
            }
            Ok::<_, UserStoreError>(())
        })
    }

    /// Applies `change` to a copy of the list and, when it succeeds,
    /// persists the copy and makes it the list; nothing changes otherwise.
    pub fn update<T, E: From<UserStoreError>>(
        &self,
        change: impl FnOnce(&mut Users) -> Result<T, E>,
    ) -> Result<T, E> {
        let _writer = self.writer.lock();
        let mut users = self.users.read().clone();
        let outcome = change(&mut users)?;
        self.save(&users)?;
        *self.users.write() = users;
        Ok(outcome)
    }

    /// Whether `password` is the password of `name`. Unknown users cost a
    /// full verification too.
    pub fn verify(&self, name: &str, password: &str) -> bool {
        let known = self.get(name).map(|u| u.hash);
        let stored = match &known {
            Some(hash) => hash.as_str(),
            None => {
                let decoy = self
                    .decoy
                    .get_or_init(|| hash_password(SaltString::generate(&mut OsRng).as_str()).ok());
                match decoy {
                    Some(decoy) => decoy.as_str(),
                    None => return false,
                }
            }
        };
        password_matches(password, stored) && known.is_some()
    }

    fn save(&self, users: &Users) -> Result<(), UserStoreError> {
        let write_error = |source| UserStoreError::Write {
            path: self.path.clone(),
            source,
        };
        let file = UserFile {
            users: users
                .iter()
                .map(|(name, user)| (name.clone(), Stored::Account(user.clone())))
                .collect(),
        };
        let text = serde_json::to_string_pretty(&file)
            .map_err(|e| write_error(std::io::Error::other(e)))?;
        let tmp = self.path.with_extension("json.tmp");
        let mut out = std::fs::File::create(&tmp).map_err(write_error)?;
        restrict_permissions(&out).map_err(write_error)?;
        out.write_all(text.as_bytes()).map_err(write_error)?;
        out.sync_all().map_err(write_error)?;
        drop(out);
        std::fs::rename(&tmp, &self.path).map_err(write_error)?;
        if let Some(dir) = self.path.parent() {
            // Make the rename itself durable.
            if let Ok(dir) = std::fs::File::open(dir) {
                let _ = dir.sync_all();
            }
        }
        Ok(())
    }
}

/// The accounts of a user file's text; every hash must parse.
fn read_users(path: &Path, text: &str) -> Result<Users, UserStoreError> {
    let invalid = |message: String| UserStoreError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    let file: UserFile = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    let mut users = BTreeMap::new();
    for (name, stored) in file.users {
        let user = match stored {
            Stored::Account(user) => user,
            Stored::Hash(hash) => UserRecord {
                hash,
                roles: vec!["admin".into()],
                change_required: false,
                suspended: false,
            },
        };
        PasswordHash::new(&user.hash).map_err(|e| invalid(format!("user {name:?}: {e}")))?;
        users.insert(name, user);
    }
    Ok(users)
}

/// Whether `password` hashes to the PHC string `stored`.
pub fn password_matches(password: &str, stored: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else {
        return false;
    };
    Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

/// Whether `text` is an Argon2id PHC string (what `SET ENCRYPTED
/// PASSWORD` takes).
pub fn is_password_hash(text: &str) -> bool {
    PasswordHash::new(text).is_ok_and(|h| h.algorithm.as_str() == "argon2id")
}

/// Hashes with Argon2id and a fresh random salt (the crate's default
/// parameters, OWASP's recommendation: 19 MiB, 2 passes).
pub fn hash_password(password: &str) -> Result<String, UserStoreError> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| UserStoreError::Hash(e.to_string()))
}

/// The user file is readable by the server's user only.
fn restrict_permissions(file: &std::fs::File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// Splits `user/password` (the first `/` separates them, so passwords may
/// contain `/`).
pub fn parse_user_spec(spec: &str) -> Result<(&str, &str), UserStoreError> {
    spec.split_once('/')
        .filter(|(name, password)| !name.is_empty() && !password.is_empty())
        .ok_or_else(|| {
            UserStoreError::BadSpec("expected USER/PASSWORD with both parts non-empty".into())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hashed_persisted_and_verified() {
        let dir = tempfile::tempdir().unwrap();
        let store = UserStore::open(dir.path()).unwrap();
        assert!(store.is_empty());
        store.set_password("neo4j", "s3cret/x").unwrap();
        assert!(store.verify("neo4j", "s3cret/x"));
        assert!(!store.verify("neo4j", "wrong"));
        assert!(!store.verify("nobody", "s3cret/x"));

        let text = std::fs::read_to_string(dir.path().join(USERS_FILE)).unwrap();
        assert!(!text.contains("s3cret"), "the password is stored hashed");
        assert!(text.contains("$argon2id$"), "{text}");

        let reopened = UserStore::open(dir.path()).unwrap();
        assert_eq!(reopened.snapshot().keys().collect::<Vec<_>>(), ["neo4j"]);
        assert!(reopened.verify("neo4j", "s3cret/x"));
        assert_eq!(reopened.get("neo4j").unwrap().roles, ["admin"]);
    }

    #[test]
    fn a_changed_password_replaces_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let store = UserStore::open(dir.path()).unwrap();
        store.set_password("u", "one").unwrap();
        store.set_password("u", "two").unwrap();
        let reopened = UserStore::open(dir.path()).unwrap();
        assert!(reopened.verify("u", "two"));
        assert!(!reopened.verify("u", "one"));
    }

    #[test]
    fn a_file_from_before_roles_reads_its_users_as_administrators() {
        let dir = tempfile::tempdir().unwrap();
        let hash = hash_password("pw").unwrap();
        let old = serde_json::json!({ "users": { "neo4j": hash } });
        std::fs::write(dir.path().join(USERS_FILE), old.to_string()).unwrap();
        let store = UserStore::open(dir.path()).unwrap();
        let user = store.get("neo4j").unwrap();
        assert_eq!(user.roles, ["admin"]);
        assert!(!user.change_required && !user.suspended);
        assert!(store.verify("neo4j", "pw"));
    }

    #[test]
    fn a_failed_change_leaves_the_list_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let store = UserStore::open(dir.path()).unwrap();
        store.set_password("u", "pw").unwrap();
        let refused: Result<(), UserStoreError> = store.update(|users| {
            users.clear();
            Err(UserStoreError::BadSpec("no".into()))
        });
        assert!(refused.is_err());
        assert_eq!(store.len(), 1);
        assert_eq!(UserStore::open(dir.path()).unwrap().len(), 1);
    }

    #[test]
    fn a_corrupt_file_is_an_error_not_an_empty_list() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(USERS_FILE), "{not json").unwrap();
        assert!(matches!(
            UserStore::open(dir.path()),
            Err(UserStoreError::Invalid { .. })
        ));
        std::fs::write(
            dir.path().join(USERS_FILE),
            r#"{"users":{"u":"plain-text"}}"#,
        )
        .unwrap();
        assert!(matches!(
            UserStore::open(dir.path()),
            Err(UserStoreError::Invalid { .. })
        ));
    }

    #[test]
    fn user_specs_split_at_the_first_slash() {
        assert_eq!(parse_user_spec("neo4j/a/b").unwrap(), ("neo4j", "a/b"));
        assert!(parse_user_spec("neo4j").is_err());
        assert!(parse_user_spec("/pw").is_err());
        assert!(parse_user_spec("u/").is_err());
    }
}
