//! The users the server knows, with their passwords hashed by Argon2id,
//! persisted as JSON in `<data_dir>/users.json`.
//!
//! Invariants:
//! - a password is never stored or logged in clear; only its PHC string
//!   (algorithm, parameters, salt and hash) is kept;
//! - the file is replaced atomically (write to a temporary file, fsync,
//!   rename), so a crash leaves either the old or the new list.

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
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

/// The on-disk form.
#[derive(Serialize, Deserialize, Default)]
struct UserFile {
    /// User name to PHC hash string.
    users: BTreeMap<String, String>,
}

/// The user list of one data directory.
#[derive(Debug)]
pub struct UserStore {
    path: PathBuf,
    /// User name to PHC hash string.
    users: BTreeMap<String, String>,
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
            Ok(text) => {
                let file: UserFile =
                    serde_json::from_str(&text).map_err(|e| UserStoreError::Invalid {
                        path: path.clone(),
                        message: e.to_string(),
                    })?;
                for (name, hash) in &file.users {
                    PasswordHash::new(hash).map_err(|e| UserStoreError::Invalid {
                        path: path.clone(),
                        message: format!("user {name:?}: {e}"),
                    })?;
                }
                file.users
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(source) => return Err(UserStoreError::Read { path, source }),
        };
        Ok(UserStore {
            path,
            users,
            decoy: OnceLock::new(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.users.keys().map(String::as_str)
    }

    /// Adds `name` or replaces its password, and persists the list. Skips
    /// the write when the password is already the stored one.
    pub fn set_password(&mut self, name: &str, password: &str) -> Result<(), UserStoreError> {
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
        if self.verify(name, password) {
            return Ok(());
        }
        let hash = hash_password(password)?;
        self.users.insert(name.to_string(), hash);
        self.save()
    }

    /// Whether `password` is the password of `name`. Unknown users cost a
    /// full verification too.
    pub fn verify(&self, name: &str, password: &str) -> bool {
        let (stored, known) = match self.users.get(name) {
            Some(hash) => (hash.as_str(), true),
            None => {
                let decoy = self
                    .decoy
                    .get_or_init(|| hash_password(SaltString::generate(&mut OsRng).as_str()).ok());
                match decoy {
                    Some(decoy) => (decoy.as_str(), false),
                    None => return false,
                }
            }
        };
        let Ok(parsed) = PasswordHash::new(stored) else {
            return false;
        };
        let matches = Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok();
        matches && known
    }

    fn save(&self) -> Result<(), UserStoreError> {
        let write_error = |source| UserStoreError::Write {
            path: self.path.clone(),
            source,
        };
        let file = UserFile {
            users: self.users.clone(),
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

/// Hashes with Argon2id and a fresh random salt (the crate's default
/// parameters, OWASP's recommendation: 19 MiB, 2 passes).
fn hash_password(password: &str) -> Result<String, UserStoreError> {
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
        let mut store = UserStore::open(dir.path()).unwrap();
        assert!(store.is_empty());
        store.set_password("neo4j", "s3cret/x").unwrap();
        assert!(store.verify("neo4j", "s3cret/x"));
        assert!(!store.verify("neo4j", "wrong"));
        assert!(!store.verify("nobody", "s3cret/x"));

        let text = std::fs::read_to_string(dir.path().join(USERS_FILE)).unwrap();
        assert!(!text.contains("s3cret"), "the password is stored hashed");
        assert!(text.contains("$argon2id$"), "{text}");

        let reopened = UserStore::open(dir.path()).unwrap();
        assert_eq!(reopened.names().collect::<Vec<_>>(), ["neo4j"]);
        assert!(reopened.verify("neo4j", "s3cret/x"));
    }

    #[test]
    fn a_changed_password_replaces_the_old_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = UserStore::open(dir.path()).unwrap();
        store.set_password("u", "one").unwrap();
        store.set_password("u", "two").unwrap();
        let reopened = UserStore::open(dir.path()).unwrap();
        assert!(reopened.verify("u", "two"));
        assert!(!reopened.verify("u", "one"));
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
