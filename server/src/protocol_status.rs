//! The errors only a protocol front end meets (authentication, user
//! administration, decoding a client's parameters) as Neo4j statuses. Everything the engine raises
//! arrives already mapped, by the engine's `status.rs`; this is the other
//! half of that mapping, kept here because the engine knows neither
//! authentication nor PackStream (docs/adr/0088-the-engine-crate.md).

use crate::auth::admin::AdminError;
use crate::auth::AuthError;
use nereid_engine::DbError;
use nereid_errors::Status;
use nereid_packstream::ParamError;

/// Every refusal is `Security.Unauthorized` (drivers raise their
/// authentication error for it), except for a rate-limited client, which
/// gets `Security.AuthenticationRateLimit` as from Neo4j, and so does one
/// refused because the server-wide hashing budget is exhausted.
pub(crate) fn from_auth(e: AuthError) -> DbError {
    let status = match e {
        AuthError::RateLimited | AuthError::Busy => Status::AuthenticationRateLimit,
        _ => Status::Unauthorized,
    };
    DbError {
        status,
        message: e.to_string(),
    }
}

/// A refused user command is an `ArgumentError`, as Neo4j 5 reports each
/// of them; a user file that cannot be written is the server's failure.
pub(crate) fn from_admin(e: AdminError) -> DbError {
    let status = match e {
        AdminError::NoUsers => Status::NotSupported,
        AdminError::Store(_) => Status::General,
        _ => Status::ArgumentError,
    };
    DbError {
        status,
        message: e.to_string(),
    }
}

/// Query parameters the server cannot take: a graph entity or an unknown
/// structure is a type error; a value too large for the query's memory
/// budget is refused like a query over its budget.
pub(crate) fn from_param(name: &str, e: ParamError) -> DbError {
    match e {
        ParamError::OverBudget { .. } => {
            nereid_engine::memory_limit(format!("parameter ${name}: {e}"))
        }
        other => DbError {
            status: Status::TypeError,
            message: format!("parameter ${name}: {other}"),
        },
    }
}
