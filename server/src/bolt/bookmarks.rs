//! Bookmarks: what BEGIN and auto-commit RUN carry so that a session reads
//! at least what an earlier one committed (causal consistency).
//!
//! Nereid's bookmarks are `FB:nereid:<commit timestamp>` (written by the
//! engine's `db.rs` at commit). One server publishes a commit before
//! acknowledging it, so a bookmark a client got from this server is always
//! visible already; the wait matters only for a commit still being
//! published, and a bookmark from elsewhere (another data directory) times
//! out instead of reading stale data. Malformed bookmarks are refused.

use nereid_packstream::{PackMap, PackValue};

/// The prefix of every bookmark this server issues.
pub const PREFIX: &str = "FB:nereid:";

/// Why the `bookmarks` field of BEGIN/RUN was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadBookmarks {
    /// The field is not a list of strings: a malformed request.
    NotStrings(String),
    /// A string that is not a bookmark this server issued (Neo4j's
    /// `Transaction.InvalidBookmark`).
    Unparseable(String),
}

impl BadBookmarks {
    pub fn message(&self) -> &str {
        match self {
            BadBookmarks::NotStrings(m) | BadBookmarks::Unparseable(m) => m,
        }
    }
}

/// The newest commit timestamp the `bookmarks` entry of `extra` asks for;
/// `None` when there are none.
pub fn required_commit(extra: &PackMap) -> Result<Option<u64>, BadBookmarks> {
    let items = match extra.get("bookmarks") {
        None | Some(PackValue::Null) => return Ok(None),
        Some(PackValue::List(items)) => items,
        Some(other) => {
            return Err(BadBookmarks::NotStrings(format!(
                "bookmarks must be a list of strings, got {}",
                other.type_name()
            )))
        }
    };
    let mut newest = None;
    for item in items {
        let Some(text) = item.as_str() else {
            return Err(BadBookmarks::NotStrings(format!(
                "bookmarks must be strings, got {}",
                item.type_name()
            )));
        };
        let ts = parse(text)?;
        newest = newest.max(Some(ts));
    }
    Ok(newest)
}

/// The commit timestamp in one bookmark.
pub fn parse(bookmark: &str) -> Result<u64, BadBookmarks> {
    bookmark
        .strip_prefix(PREFIX)
        .and_then(|ts| ts.parse::<u64>().ok())
        .ok_or_else(|| {
            BadBookmarks::Unparseable(format!(
                "Supplied bookmark [{bookmark}] does not conform to pattern {PREFIX}<commit>; only bookmarks issued by this server are accepted"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extra(bookmarks: PackValue) -> PackMap {
        PackMap::new().with("bookmarks", bookmarks)
    }

    #[test]
    fn the_newest_bookmark_wins() {
        let list = PackValue::List(vec!["FB:nereid:7".into(), "FB:nereid:42".into()]);
        assert_eq!(required_commit(&extra(list)), Ok(Some(42)));
        assert_eq!(required_commit(&PackMap::new()), Ok(None));
        assert_eq!(required_commit(&extra(PackValue::List(vec![]))), Ok(None));
        assert_eq!(required_commit(&extra(PackValue::Null)), Ok(None));
    }

    #[test]
    fn malformed_bookmarks_are_refused() {
        for bad in [
            PackValue::from("FB:nereid:7"),
            PackValue::List(vec![PackValue::Int(7)]),
            PackValue::List(vec!["FB:nereid:x".into()]),
            PackValue::List(vec!["FB:nereid:-1".into()]),
            PackValue::List(vec!["FB:kcwQ".into()]),
            PackValue::List(vec!["".into()]),
        ] {
            let unparseable = matches!(&bad, PackValue::List(items) if items[0].as_str().is_some());
            match required_commit(&extra(bad.clone())) {
                Err(BadBookmarks::Unparseable(_)) => assert!(unparseable, "{bad:?}"),
                Err(BadBookmarks::NotStrings(_)) => assert!(!unparseable, "{bad:?}"),
                Ok(_) => panic!("accepted {bad:?}"),
            }
        }
    }
}
