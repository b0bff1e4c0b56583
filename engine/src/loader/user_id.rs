//! The one spelling of a loaded vertex's identifier in the vertex
//! dictionary (REL_VERT), which is also its `elementId(n)`.
//!
//! The global id space keeps the id verbatim, so a file without id spaces
//! gives `elementId(n) = 'the id'` (what Neptune's `id(n)` returns); a
//! named space prefixes it: `(Person)933`. An id of the global space that
//! starts with `(` is written `()(x...`, so no two (space, id) pairs share
//! a spelling. Generated vertices (`n<seq>`) live in the global space: the
//! generator skips numbers whose spelling a load took.

use nereid_errors::Status;

use crate::db::DbError;

/// The dictionary form (and `elementId`) of `id` within `space`; refused
/// for a space whose name holds `)`, which would make spellings ambiguous.
pub fn user_key(space: Option<&str>, id: &str) -> Result<String, DbError> {
    match space {
        None if id.starts_with('(') => Ok(format!("(){id}")),
        None => Ok(id.to_string()),
        Some(space) if space.contains(')') => Err(DbError {
            status: Status::ExternalResourceFailed,
            message: format!("id space `{space}`: names of id spaces cannot contain `)`"),
        }),
        Some(space) => Ok(format!("({space}){id}")),
    }
}
