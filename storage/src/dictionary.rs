//! Dictionary relations (REL_VERT, REL_LIT): lexical form <-> 64-bit gui.
//!
//! A gui is `tag | collision counter | hash16(lexical form)` (see
//! [`crate::ids`]). The n-th distinct lexical form that hashes to `h` gets
//! counter `n`, so guis are dense per hash bucket and the hash bits spread
//! vertices uniformly over partitions.
//!
//! Invariants: entries are never removed or changed (dictionaries are not
//! transactional: a lexical form interned by a transaction that later rolls
//! back stays registered, harmlessly); `by_key` and `by_gui` are exact
//! inverses; `next_counter[h]` is greater than every counter in use for `h`.

use crate::ids::{hash16, make_gui, split_gui, COUNTER_BITS};
use parking_lot::RwLock;
use std::collections::HashMap;
use std::sync::Arc;

/// Why a dictionary operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DictError {
    /// 2^28 distinct forms already share this 16-bit hash.
    CounterExhausted,
    /// A replayed `(gui, form)` pair contradicts an existing entry or the layout.
    Inconsistent(String),
}

impl std::fmt::Display for DictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DictError::CounterExhausted => write!(f, "dictionary collision counter exhausted"),
            DictError::Inconsistent(why) => write!(f, "dictionary inconsistency: {why}"),
        }
    }
}

#[derive(Default)]
struct DictInner {
    by_key: HashMap<Arc<[u8]>, u64>,
    by_gui: HashMap<u64, Arc<[u8]>>,
    next_counter: HashMap<u16, u32>,
}

/// One bidirectional, thread-safe dictionary relation.
pub(crate) struct Dictionary {
    tag: u8,
    inner: RwLock<DictInner>,
}

impl Dictionary {
    pub(crate) fn new(tag: u8) -> Self {
        Dictionary {
            tag,
            inner: RwLock::new(DictInner::default()),
        }
    }

    /// The gui of `form`, registering it when new. The flag is true when
    /// this call registered it.
    pub(crate) fn intern(&self, form: &[u8]) -> Result<(u64, bool), DictError> {
        if let Some(&gui) = self.inner.read().by_key.get(form) {
            return Ok((gui, false));
        }
        let mut inner = self.inner.write();
        if let Some(&gui) = inner.by_key.get(form) {
            return Ok((gui, false));
        }
        let hash = hash16(form);
        let counter = inner.next_counter.get(&hash).copied().unwrap_or(0);
        if counter >= (1 << COUNTER_BITS) {
            return Err(DictError::CounterExhausted);
        }
        let gui = make_gui(self.tag, counter, hash);
        let key: Arc<[u8]> = Arc::from(form);
        inner.next_counter.insert(hash, counter + 1);
        inner.by_key.insert(key.clone(), gui);
        inner.by_gui.insert(gui, key);
        Ok((gui, true))
    }

    /// Registers `form` under a gui assigned earlier (log replay). Idempotent
    /// for an identical pair; the counter of its hash continues after it.
    pub(crate) fn register(&self, gui: u64, form: &[u8]) -> Result<(), DictError> {
        let Some((tag, counter, hash)) = split_gui(gui) else {
            return Err(DictError::Inconsistent(format!("malformed gui {gui:#x}")));
        };
        if tag != self.tag || hash != hash16(form) {
            return Err(DictError::Inconsistent(format!(
                "gui {gui:#x} does not belong to this form"
            )));
        }
        let mut inner = self.inner.write();
        match (inner.by_key.get(form), inner.by_gui.get(&gui)) {
            (Some(&existing), _) if existing == gui => return Ok(()),
            (Some(&existing), _) => {
                return Err(DictError::Inconsistent(format!(
                    "form already registered as {existing:#x}, not {gui:#x}"
                )))
            }
            (None, Some(_)) => {
                return Err(DictError::Inconsistent(format!(
                    "gui {gui:#x} already names another form"
                )))
            }
            (None, None) => {}
        }
        let key: Arc<[u8]> = Arc::from(form);
        let next = inner.next_counter.entry(hash).or_insert(0);
        *next = (*next).max(counter + 1);
        inner.by_key.insert(key.clone(), gui);
        inner.by_gui.insert(gui, key);
        Ok(())
    }

    /// The gui of an already registered form.
    pub(crate) fn lookup(&self, form: &[u8]) -> Option<u64> {
        self.inner.read().by_key.get(form).copied()
    }

    /// The lexical form of a gui.
    pub(crate) fn resolve(&self, gui: u64) -> Option<Arc<[u8]>> {
        self.inner.read().by_gui.get(&gui).cloned()
    }

    /// The lexical form of a gui, when it is UTF-8 text.
    pub(crate) fn resolve_str(&self, gui: u64) -> Option<String> {
        let bytes = self.resolve(gui)?;
        std::str::from_utf8(&bytes).ok().map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{TAG_LIT, TAG_VERT};

    #[test]
    fn round_trip_and_idempotent_intern() {
        let d = Dictionary::new(TAG_LIT);
        let (a, fresh) = d.intern(b"Person").unwrap();
        assert!(fresh);
        assert_eq!(d.intern(b"Person").unwrap(), (a, false));
        assert_eq!(d.lookup(b"Person"), Some(a));
        assert_eq!(d.resolve_str(a).as_deref(), Some("Person"));
        assert_eq!(split_gui(a).map(|g| g.0), Some(TAG_LIT));
        assert_eq!(d.lookup(b"nobody"), None);
    }

    #[test]
    fn collision_counter_distinguishes_equal_hashes() {
        // Find two forms with the same 16-bit hash (birthday bound: a few hundred tries).
        let mut seen: HashMap<u16, String> = HashMap::new();
        let (first, second) = (0..100_000)
            .map(|i| format!("k{i}"))
            .find_map(|k| {
                let h = hash16(k.as_bytes());
                match seen.get(&h) {
                    Some(prev) => Some((prev.clone(), k)),
                    None => {
                        seen.insert(h, k);
                        None
                    }
                }
            })
            .unwrap();
        let d = Dictionary::new(TAG_VERT);
        let (a, _) = d.intern(first.as_bytes()).unwrap();
        let (b, _) = d.intern(second.as_bytes()).unwrap();
        assert_eq!(a & 0xffff, b & 0xffff);
        assert_eq!(split_gui(a).unwrap().1, 0);
        assert_eq!(split_gui(b).unwrap().1, 1);
        assert_eq!(d.resolve_str(b).unwrap(), second);
    }

    #[test]
    fn register_continues_counters_and_rejects_contradictions() {
        let d = Dictionary::new(TAG_VERT);
        let h = hash16(b"x");
        let gui = make_gui(TAG_VERT, 7, h);
        d.register(gui, b"x").unwrap();
        d.register(gui, b"x").unwrap();
        assert_eq!(d.lookup(b"x"), Some(gui));
        assert!(d.register(make_gui(TAG_VERT, 8, h), b"x").is_err());
        assert!(d.register(make_gui(TAG_LIT, 7, h), b"x").is_err());
        assert!(d
            .register(make_gui(TAG_VERT, 0, h.wrapping_add(1)), b"x")
            .is_err());
        // a new form with the same hash gets a counter after the replayed one
        let other = (0..4_000_000)
            .map(|i| format!("y{i}"))
            .find(|k| hash16(k.as_bytes()) == h)
            .unwrap();
        let (g2, _) = d.intern(other.as_bytes()).unwrap();
        assert_eq!(split_gui(g2).unwrap().1, 8);
    }
}
