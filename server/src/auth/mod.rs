//! Authentication of Bolt clients (HELLO before 5.1, LOGON from 5.1).
//!
//! Policy (ADR docs/adr/0030-bolt-authentication.md):
//! - with users (from `--auth`/`NEREID_AUTH` or the persisted user file),
//!   only the `basic` scheme with a known user and its password passes;
//! - without users, any credentials pass, but only while the Bolt listener
//!   is bound to a loopback address; a server asked to listen elsewhere
//!   without users refuses to start unless `--no-auth` disables
//!   authentication explicitly;
//! - failures are rate limited per client address ([`limiter`]);
//! - password verifications, from all clients together, are bounded in
//!   rate and concurrency ([`hashing`]).
//!
//! Password checks are slow on purpose (Argon2id): callers check
//! [`Authenticator::precheck`], take a permit from
//! [`Authenticator::hash_budget`], and run [`Authenticator::authenticate`]
//! on the execution pool.

pub mod admin;
pub mod hashing;
pub mod limiter;
pub mod users;

use hashing::HashBudget;
use limiter::FailureLimiter;
use nereid_engine::Access;
use parking_lot::Mutex;
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::Instant;
use thiserror::Error;
pub use users::{UserStore, UserStoreError};

/// The authentication fields of HELLO (before 5.1) or LOGON.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AuthToken {
    pub scheme: Option<String>,
    pub principal: Option<String>,
    pub credentials: Option<String>,
}

/// Why a client was refused; `status.rs` maps these to Neo4j statuses.
#[derive(Debug, Error, PartialEq)]
pub enum AuthError {
    #[error("The client is unauthorized due to authentication failure.")]
    BadCredentials,
    #[error("Unsupported authentication token, the scheme '{0}' is not supported.")]
    UnsupportedScheme(String),
    #[error("Unsupported authentication token, missing key `scheme`: authentication is enabled, use the basic scheme.")]
    MissingScheme,
    #[error("The client has provided incorrect authentication details too many times in a row.")]
    RateLimited,
    #[error("The server is verifying its maximum of login attempts; try again later.")]
    Busy,
}

/// Why the server cannot start with the configured authentication.
#[derive(Debug, Error)]
pub enum AuthSetupError {
    #[error(transparent)]
    Users(#[from] UserStoreError),
    #[error("refusing to listen on {0} without users: configure one with --auth USER/PASSWORD (NEREID_AUTH), or disable authentication with --no-auth")]
    OpenOnNetwork(String),
}

#[derive(Debug)]
pub struct Authenticator {
    /// Whether credentials are checked; the users are kept (and
    /// administered) either way.
    enabled: bool,
    users: Option<UserStore>,
    limiter: Mutex<FailureLimiter>,
    hashing: HashBudget,
}

impl Authenticator {
    /// Accepts every client and has no users: for tests.
    pub fn disabled() -> Self {
        Authenticator {
            enabled: false,
            users: None,
            limiter: Mutex::new(FailureLimiter::default()),
            hashing: HashBudget::default(),
        }
    }

    /// Authentication against `users`.
    pub fn with_users(users: UserStore, limiter: FailureLimiter) -> Self {
        Authenticator {
            enabled: true,
            users: Some(users),
            limiter: Mutex::new(limiter),
            hashing: HashBudget::default(),
        }
    }

    /// Replaces the default budget for password verifications.
    pub fn with_hash_budget(mut self, hashing: HashBudget) -> Self {
        self.hashing = hashing;
        self
    }

    /// The budget every verification takes a permit from.
    pub fn hash_budget(&self) -> &HashBudget {
        &self.hashing
    }

    /// Applies the policy for a server on `data_dir` whose Bolt listener
    /// goes to `bolt` (every address it resolves to is in `resolved`):
    /// adds the configured user (`USER/PASSWORD`) to the persisted list,
    /// then decides whether authentication is on. Blocking (hashing, file
    /// I/O).
    pub fn configure(
        data_dir: &Path,
        user_spec: Option<&str>,
        no_auth: bool,
        bolt: &str,
        resolved: &[SocketAddr],
    ) -> Result<Authenticator, AuthSetupError> {
        let users = UserStore::open(data_dir)?;
        if let Some(spec) = user_spec {
            let (name, password) = users::parse_user_spec(spec)?;
            users.set_password(name, password)?;
        }
        let open = |users| Authenticator {
            enabled: false,
            users: Some(users),
            ..Authenticator::disabled()
        };
        if no_auth {
            tracing::warn!("authentication is disabled (--no-auth): any client is accepted");
            return Ok(open(users));
        }
        if !users.is_empty() {
            tracing::info!("authentication enabled ({} user(s))", users.len());
            return Ok(Authenticator::with_users(users, FailureLimiter::default()));
        }
        if !resolved.is_empty() && resolved.iter().all(|a| a.ip().is_loopback()) {
            tracing::info!("no users configured: accepting any credentials on loopback {bolt}");
            return Ok(open(users));
        }
        Err(AuthSetupError::OpenOnNetwork(bolt.to_string()))
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// The users, administered through `admin.rs` (none in tests that
    /// build a disabled authenticator).
    pub fn users(&self) -> Option<&UserStore> {
        self.users.as_ref()
    }

    /// What `user` (authenticated earlier) may run now: the account is
    /// read again for every statement, so a role granted or revoked, a
    /// password changed or an account suspended or dropped takes effect
    /// on sessions already open.
    pub fn access_of(&self, user: &str) -> Access {
        if !self.enabled {
            return Access::Unrestricted;
        }
        match self.users.as_ref().and_then(|users| users.get(user)) {
            Some(account) if account.suspended => Access::Roles(Vec::new()),
            Some(account) if account.change_required => Access::PasswordChangeRequired,
            Some(account) => Access::Roles(account.roles),
            None => Access::Roles(Vec::new()),
        }
    }

    /// The cheap refusals (scheme, per-address lock-out), which need no
    /// hash: checked before an attempt takes a place in the hashing budget.
    pub fn precheck(&self, token: &AuthToken, peer: Option<IpAddr>) -> Result<(), AuthError> {
        if !self.is_enabled() {
            return Ok(());
        }
        let scheme = token.scheme.as_deref().ok_or(AuthError::MissingScheme)?;
        if scheme != "basic" {
            return Err(AuthError::UnsupportedScheme(scheme.to_string()));
        }
        if let Some(peer) = peer {
            if self.limiter.lock().is_locked(peer, Instant::now()) {
                return Err(AuthError::RateLimited);
            }
        }
        Ok(())
    }

    /// Checks `token` from a client at `peer`; returns the user name (None
    /// when authentication is disabled). Slow when enabled: call it off the
    /// I/O threads, holding a permit of [`Self::hash_budget`].
    pub fn authenticate(
        &self,
        token: &AuthToken,
        peer: Option<IpAddr>,
    ) -> Result<Option<String>, AuthError> {
        let users = match (&self.users, self.enabled) {
            (Some(users), true) => users,
            _ => return Ok(None),
        };
        self.precheck(token, peer)?;
        let principal = token.principal.as_deref().unwrap_or_default();
        let credentials = token.credentials.as_deref().unwrap_or_default();
        // A suspended user is refused as a wrong password is (Neo4j says
        // no more).
        let ok = users.verify(principal, credentials)
            && users.get(principal).is_some_and(|u| !u.suspended);
        if let Some(peer) = peer {
            let mut limiter = self.limiter.lock();
            if ok {
                limiter.record_success(peer);
            } else {
                limiter.record_failure(peer, Instant::now());
            }
        }
        if ok {
            Ok(Some(principal.to_string()))
        } else {
            tracing::info!(?peer, user = principal, "authentication failed");
            Err(AuthError::BadCredentials)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn basic(user: &str, password: &str) -> AuthToken {
        AuthToken {
            scheme: Some("basic".into()),
            principal: Some(user.into()),
            credentials: Some(password.into()),
        }
    }

    #[test]
    fn no_users_means_open_on_loopback_and_refusal_elsewhere() {
        let dir = tempfile::tempdir().unwrap();
        let loopback: SocketAddr = "127.0.0.1:7687".parse().unwrap();
        let v6: SocketAddr = "[::1]:7687".parse().unwrap();
        let open =
            Authenticator::configure(dir.path(), None, false, "localhost:7687", &[loopback, v6])
                .unwrap();
        assert!(!open.is_enabled());
        assert_eq!(open.authenticate(&AuthToken::default(), None), Ok(None));

        let any: SocketAddr = "0.0.0.0:7687".parse().unwrap();
        for resolved in [vec![any], vec![loopback, any], vec![]] {
            assert!(matches!(
                Authenticator::configure(dir.path(), None, false, "x:7687", &resolved),
                Err(AuthSetupError::OpenOnNetwork(_))
            ));
        }
        let explicit = Authenticator::configure(dir.path(), None, true, "x:7687", &[any]).unwrap();
        assert!(!explicit.is_enabled());
    }

    #[test]
    fn configured_users_persist_and_only_basic_passes() {
        let dir = tempfile::tempdir().unwrap();
        let any: SocketAddr = "0.0.0.0:7687".parse().unwrap();
        Authenticator::configure(dir.path(), Some("neo4j/secret"), false, "x:1", &[any]).unwrap();
        // Restarted without the setting: the persisted user still guards it.
        let auth = Authenticator::configure(dir.path(), None, false, "x:1", &[any]).unwrap();
        assert!(auth.is_enabled());
        assert_eq!(
            auth.authenticate(&basic("neo4j", "secret"), None),
            Ok(Some("neo4j".into()))
        );
        assert_eq!(
            auth.authenticate(&basic("neo4j", "nope"), None),
            Err(AuthError::BadCredentials)
        );
        assert_eq!(
            auth.authenticate(&AuthToken::default(), None),
            Err(AuthError::MissingScheme)
        );
        let none = AuthToken {
            scheme: Some("none".into()),
            ..AuthToken::default()
        };
        assert_eq!(
            auth.authenticate(&none, None),
            Err(AuthError::UnsupportedScheme("none".into()))
        );
    }

    #[test]
    fn repeated_failures_from_one_address_are_refused_even_with_the_right_password() {
        let dir = tempfile::tempdir().unwrap();
        let users = UserStore::open(dir.path()).unwrap();
        users.set_password("u", "pw").unwrap();
        // A lock time far longer than the test: no timing dependence.
        let auth =
            Authenticator::with_users(users, FailureLimiter::new(2, Duration::from_secs(3600)));
        let peer: IpAddr = "10.1.2.3".parse().unwrap();
        let other: IpAddr = "10.1.2.4".parse().unwrap();
        for _ in 0..2 {
            assert_eq!(
                auth.authenticate(&basic("u", "bad"), Some(peer)),
                Err(AuthError::BadCredentials)
            );
        }
        assert_eq!(
            auth.authenticate(&basic("u", "pw"), Some(peer)),
            Err(AuthError::RateLimited)
        );
        assert_eq!(
            auth.authenticate(&basic("u", "pw"), Some(other)),
            Ok(Some("u".into()))
        );
    }
}
