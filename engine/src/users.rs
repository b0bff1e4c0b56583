//! Where user administration goes: the users belong to the front end that
//! authenticates clients (the server keeps them with their password
//! hashes), so the engine only forwards `CREATE USER`, `SHOW USERS`, ... to
//! the [`UserDirectory`] registered with [`crate::Database::set_user_directory`],
//! naming the user who runs the command.

use crate::db::DbError;
use nereid_dfe::{UserCommand, UserInfo};

/// The users of the server, as the engine's user commands reach them.
pub trait UserDirectory: Send + Sync {
    /// Every user, ordered by name.
    fn users(&self) -> Vec<UserInfo>;

    /// The user called `name`, if there is one.
    fn user(&self, name: &str) -> Option<UserInfo>;

    /// Applies `command` as `caller` (who is known to be allowed to run
    /// it), durably before returning; a refused command changes nothing.
    /// Returns the number of system updates made (Neo4j's
    /// `system-updates`: 0 when there was nothing to do).
    fn administer(&self, caller: &str, command: UserCommand) -> Result<u64, DbError>;
}
