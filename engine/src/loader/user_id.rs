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
    let mut key = String::new();
    user_key_into(space, id, &mut key)?;
    Ok(key)
}

/// [`user_key`] of an owned `id`: the id itself when it is its own key
/// (the global space, not starting with `(`), with no copy — an RDF load
/// spells a key for every IRI it meets.
pub(crate) fn owned_user_key(space: Option<&str>, id: String) -> Result<String, DbError> {
    if space.is_none() && !id.starts_with('(') {
        return Ok(id);
    }
    user_key(space, &id)
}

/// [`user_key`] written into `key` (cleared first): a load spells two keys
/// per relationship row, and reusing one buffer saves their allocations.
pub(crate) fn user_key_into(
    space: Option<&str>,
    id: &str,
    key: &mut String,
) -> Result<(), DbError> {
    key.clear();
    match space {
        None if id.starts_with('(') => key.push_str("()"),
        None => {}
        Some(space) if space.contains(')') => {
            return Err(DbError {
                status: Status::ExternalResourceFailed,
                message: format!("id space `{space}`: names of id spaces cannot contain `)`"),
            })
        }
        Some(space) => {
            key.push('(');
            key.push_str(space);
            key.push(')');
        }
    }
    key.push_str(id);
    Ok(())
}
