//! Authentication settings beyond `--auth`/`--no-auth`: where the user's
//! password can come from without showing in `ps` (`--auth-file`), and the
//! server-wide budget for password verifications.

use super::{ConfigError, Secret};
use crate::auth::hashing::{default_concurrency, DEFAULT_RATE};
use std::path::{Path, PathBuf};

/// The flags (and environment variables).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct AuthArgs {
    /// A file whose first line is USER/PASSWORD, as for --auth; unlike
    /// --auth, the password does not appear in the process list
    #[arg(long, env = "NEREID_AUTH_FILE", value_name = "FILE")]
    pub auth_file: Option<PathBuf>,

    /// Password verifications (Argon2id hashes) running at once, for all
    /// clients together [default: a quarter of the cores, at least 1]
    #[arg(long, env = "NEREID_AUTH_HASH_CONCURRENCY", value_name = "N")]
    pub auth_hash_concurrency: Option<usize>,

    /// Password verifications per second, for all clients together; an
    /// attempt that would wait more than 5 s for its turn gets
    /// Security.AuthenticationRateLimit [default: 10]
    #[arg(long, env = "NEREID_AUTH_HASH_RATE", value_name = "PER_SECOND")]
    pub auth_hash_rate: Option<u32>,
}

/// The same settings in the TOML file.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct AuthFile {
    pub auth: Option<Secret>,
    pub auth_file: Option<PathBuf>,
    pub auth_hash_concurrency: Option<usize>,
    pub auth_hash_rate: Option<u32>,
}

/// The resolved budget for password verifications.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthHashing {
    pub concurrency: usize,
    pub per_second: u32,
}

impl Default for AuthHashing {
    fn default() -> Self {
        AuthHashing {
            concurrency: default_concurrency(),
            per_second: DEFAULT_RATE,
        }
    }
}

/// The user to create (from `--auth` or `--auth-file`, flags and
/// environment over the file) and the hashing budget.
pub fn resolve(
    auth: Option<Secret>,
    args: &AuthArgs,
    file: AuthFile,
) -> Result<(Option<Secret>, AuthHashing), ConfigError> {
    if auth.is_some() && args.auth_file.is_some() {
        return Err(ConfigError::Invalid {
            name: "auth_file",
            message: "give --auth (NEREID_AUTH) or --auth-file (NEREID_AUTH_FILE), not both".into(),
        });
    }
    let user = match (auth, &args.auth_file) {
        (Some(spec), _) => Some(spec),
        (None, Some(path)) => Some(read_user_file(path)?),
        (None, None) => match (file.auth, file.auth_file) {
            (Some(spec), _) => Some(spec),
            (None, Some(path)) => Some(read_user_file(&path)?),
            (None, None) => None,
        },
    };
    let defaults = AuthHashing::default();
    let hashing = AuthHashing {
        concurrency: args
            .auth_hash_concurrency
            .or(file.auth_hash_concurrency)
            .unwrap_or(defaults.concurrency),
        per_second: args
            .auth_hash_rate
            .or(file.auth_hash_rate)
            .unwrap_or(defaults.per_second),
    };
    for (name, value) in [
        ("auth_hash_concurrency", hashing.concurrency as u64),
        ("auth_hash_rate", u64::from(hashing.per_second)),
    ] {
        if value == 0 {
            return Err(ConfigError::Invalid {
                name,
                message: "must be at least 1".into(),
            });
        }
    }
    Ok((user, hashing))
}

/// The first line of `path`, without its line end.
fn read_user_file(path: &Path) -> Result<Secret, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let line = text.lines().next().unwrap_or_default();
    if line.is_empty() {
        return Err(ConfigError::Invalid {
            name: "auth_file",
            message: format!("{} is empty; expected USER/PASSWORD", path.display()),
        });
    }
    Ok(Secret::new(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_comes_from_the_flag_or_a_file_never_both() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth");
        std::fs::write(&path, "neo4j/pass word\n").unwrap();
        let args = AuthArgs {
            auth_file: Some(path.clone()),
            ..Default::default()
        };
        let (user, hashing) = resolve(None, &args, AuthFile::default()).unwrap();
        assert_eq!(user.as_ref().map(Secret::expose), Some("neo4j/pass word"));
        assert_eq!(hashing, AuthHashing::default());

        assert!(resolve(Some(Secret::new("a/b")), &args, AuthFile::default()).is_err());

        let from_toml = AuthFile {
            auth_file: Some(path),
            auth_hash_rate: Some(3),
            ..Default::default()
        };
        let (user, hashing) = resolve(None, &AuthArgs::default(), from_toml).unwrap();
        assert_eq!(user.as_ref().map(Secret::expose), Some("neo4j/pass word"));
        assert_eq!(hashing.per_second, 3);

        std::fs::write(dir.path().join("empty"), "\n").unwrap();
        let empty = AuthArgs {
            auth_file: Some(dir.path().join("empty")),
            ..Default::default()
        };
        assert!(resolve(None, &empty, AuthFile::default()).is_err());
        let zero = AuthArgs {
            auth_hash_concurrency: Some(0),
            ..Default::default()
        };
        assert!(resolve(None, &zero, AuthFile::default()).is_err());
    }
}
