//! Dictionary relations (REL_VERT, REL_LIT): lexical form <-> 64-bit gui.
//!
//! A gui is `tag | collision counter | hash16(lexical form)` (see
//! [`crate::ids`]). The n-th distinct lexical form that hashes to `h` gets
//! counter `n`, so guis are dense per hash bucket and the hash bits spread
//! vertices uniformly over partitions.
//!
//! Layout (memory matters: every vertex and every distinct string value
//! has an entry; so do cache misses: resolving a gui is on the point-read
//! path). Each form is a *record* in one byte arena: its gui (8 bytes),
//! its length (4 bytes), the form, padding to the next multiple of
//! [`UNIT`]; a record is named by its start / `UNIT`, a `u32` (the arena
//! addresses 32 GiB). A [`FormTable`] of record numbers and hash tags
//! finds a record by form, and a [`GuiMap`] (a direct-access array: guis are dense per
//! hash bucket) by gui. Resolving a gui is two cache misses (the map's
//! slot, the record), checking a form's candidate one (the record holds
//! both the form and the gui). No per-entry allocation, nothing stored
//! twice.
//!
//! Invariants: records are never removed or changed (dictionaries are not
//! transactional: a lexical form interned by a transaction that later rolls
//! back stays registered, harmlessly); `by_key` and `by_gui` index exactly
//! the records in the arena (`by_gui` holds record number + 1, so 0 reads
//! as absent; a [`DictWriter`] links its new records into `by_gui` when
//! dropped, and holds the lock until then); the arena's length is a
//! multiple of `UNIT`; `next_counter[h]` is greater than every counter in
//! use for `h`.

use crate::form_table::FormTable;
use crate::gui_map::GuiMap;
use crate::ids::{hash16, make_gui, split_gui, COUNTER_BITS};
use crate::read_mostly::{ReadMostly, WriteGuard};
use foldhash::fast::FixedState;
use std::hash::BuildHasher;

/// Why a dictionary operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DictError {
    /// 2^28 distinct forms already share this 16-bit hash.
    CounterExhausted,
    /// A replayed `(gui, form)` pair contradicts an existing entry or the layout.
    Inconsistent(String),
    /// More forms than 32-bit record numbers can address.
    Full,
}

impl std::fmt::Display for DictError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DictError::CounterExhausted => write!(f, "dictionary collision counter exhausted"),
            DictError::Inconsistent(why) => write!(f, "dictionary inconsistency: {why}"),
            DictError::Full => write!(f, "dictionary full (32 GiB of forms)"),
        }
    }
}

/// What interning a form gives back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Interned {
    pub(crate) gui: u64,
    /// True when this call registered the form.
    pub(crate) fresh: bool,
    /// The record holding the form (internal: see [`Interned::hint`]).
    record: u32,
}

impl Interned {
    fn of(gui: u64, record: u32, fresh: bool) -> Self {
        Interned { gui, fresh, record }
    }

    /// Where the form lives, for a tuple that stores this gui to keep
    /// beside it.
    pub(crate) fn hint(&self) -> RecordHint {
        RecordHint(self.record + 1)
    }
}

/// The record that holds a literal's form, kept beside a tuple whose O is
/// that literal's gui, so that reading the value goes to the form directly
/// instead of through the gui map first (on the point-read path that is one
/// dependent cache miss of two). A hint is only ever an accelerator: the
/// dictionary checks that the record it names holds the gui, and looks the
/// gui up as usual when it does not (or when there is no hint), so a
/// missing or stale hint costs time, never a wrong answer. Records never
/// move or change (module docs), so a hint once right stays right.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RecordHint(u32);

impl RecordHint {
    /// No hint: the gui is looked up.
    pub(crate) const NONE: RecordHint = RecordHint(0);

    /// A hint from its stored form, record number + 1 (0: none).
    #[cfg(test)]
    pub(crate) fn from_raw(raw: u32) -> Self {
        RecordHint(raw)
    }

    fn record(self) -> Option<u32> {
        self.0.checked_sub(1)
    }
}

/// In-memory hashing only (never persisted), so a fixed fast hash is fine.
const HASHER: FixedState = FixedState::with_seed(0x6e65_7265_6964);

fn hash_form(form: &[u8]) -> u64 {
    HASHER.hash_one(form)
}

/// Records start at multiples of this many bytes.
const UNIT: usize = 8;
/// A record's gui and form length, before the form.
const HEADER: usize = 12;

/// The gui in record `r`.
fn gui_of(arena: &[u8], r: u32) -> u64 {
    let at = r as usize * UNIT;
    let mut gui = [0; 8];
    gui.copy_from_slice(&arena[at..at + 8]);
    u64::from_le_bytes(gui)
}

/// The form in record `r`.
fn form_of(arena: &[u8], r: u32) -> &[u8] {
    let at = r as usize * UNIT;
    let mut len = [0; 4];
    len.copy_from_slice(&arena[at + 8..at + HEADER]);
    let start = at + HEADER;
    &arena[start..start + u32::from_le_bytes(len) as usize]
}

struct DictInner {
    arena: Vec<u8>,
    /// Form -> record number.
    by_key: FormTable,
    /// Gui -> record number + 1.
    by_gui: GuiMap,
    /// Per 16-bit hash, the next collision counter (empty until first use).
    next_counter: Vec<u32>,
}

impl DictInner {
    fn new(tag: u8) -> Self {
        DictInner {
            arena: Vec::new(),
            by_key: FormTable::new(),
            by_gui: GuiMap::new(tag),
            next_counter: Vec::new(),
        }
    }

    fn form(&self, record: u32) -> &[u8] {
        form_of(&self.arena, record)
    }

    fn find_form(&self, form: &[u8]) -> Option<u64> {
        self.find_hashed(form, hash_form(form))
            .map(|found| found.gui)
    }

    /// The registered `form`, given `hash_form(form)`.
    fn find_hashed(&self, form: &[u8], hash: u64) -> Option<Interned> {
        let record = self.by_key.find(hash, |r| self.form(r) == form)?;
        Some(Interned::of(gui_of(&self.arena, record), record, false))
    }

    /// Record `r`'s form if `r` is a record holding `gui` (a
    /// [`RecordHint`] checked before use: a hint that does not name
    /// `gui`'s record, or lies outside the arena, yields `None`).
    fn hinted_form(&self, r: u32, gui: u64) -> Option<&[u8]> {
        let at = r as usize * UNIT;
        let header = self.arena.get(at..at.checked_add(HEADER)?)?;
        let (stored, len) = header.split_at(8);
        if u64::from_le_bytes(stored.try_into().ok()?) != gui {
            return None;
        }
        let len = u32::from_le_bytes(len.try_into().ok()?) as usize;
        self.arena.get(at + HEADER..(at + HEADER).checked_add(len)?)
    }

    fn find_gui(&self, gui: u64) -> Option<u32> {
        self.by_gui.get(gui).checked_sub(1)
    }

    fn next_counter(&mut self, hash: u16) -> &mut u32 {
        if self.next_counter.is_empty() {
            self.next_counter = vec![0; 1 << 16];
        }
        &mut self.next_counter[usize::from(hash)]
    }

    /// The gui of `form` (whose `hash_form` is `hash`), registering it
    /// under the next counter of its hash when new (one probe of the
    /// by-form table either way). A new record (`fresh`) is to be linked
    /// into `by_gui` ([`DictInner::link`]) by the caller.
    fn intern(&mut self, tag: u8, form: &[u8], hash: u64) -> Result<Interned, DictError> {
        if let Some(found) = self.find_hashed(form, hash) {
            return Ok(found);
        }
        let short = hash16(form);
        let counter = *self.next_counter(short);
        if counter >= (1 << COUNTER_BITS) {
            return Err(DictError::CounterExhausted);
        }
        let gui = make_gui(tag, counter, short);
        let record = self.add_hashed(gui, form, hash)?;
        *self.next_counter(short) = counter + 1;
        Ok(Interned::of(gui, record, true))
    }

    /// [`DictInner::intern`], linking a new record at once.
    fn intern_linked(&mut self, tag: u8, form: &[u8], hash: u64) -> Result<Interned, DictError> {
        let interned = self.intern(tag, form, hash)?;
        if interned.fresh {
            self.link(interned.gui, interned.record);
        }
        Ok(interned)
    }

    /// Makes `record` (holding `gui`) findable by gui.
    fn link(&mut self, gui: u64, record: u32) {
        self.by_gui.set(gui, record + 1);
    }

    fn add(&mut self, gui: u64, form: &[u8]) -> Result<u32, DictError> {
        self.add_hashed(gui, form, hash_form(form))
    }

    /// Appends a new record, findable by form (not yet by gui: see
    /// [`DictInner::link`]); `hash` is `hash_form(form)`.
    fn add_hashed(&mut self, gui: u64, form: &[u8], hash: u64) -> Result<u32, DictError> {
        let at = self.arena.len();
        // Record numbers are stored + 1 in `by_gui`, so that must fit too.
        let record = u32::try_from(at / UNIT)
            .ok()
            .filter(|&r| r < u32::MAX)
            .ok_or(DictError::Full)?;
        let len = u32::try_from(form.len()).map_err(|_| DictError::Full)?;
        self.arena.extend_from_slice(&gui.to_le_bytes());
        self.arena.extend_from_slice(&len.to_le_bytes());
        self.arena.extend_from_slice(form);
        self.arena
            .resize((HEADER + form.len()).next_multiple_of(UNIT) + at, 0);
        self.by_key.insert(hash, record);
        Ok(record)
    }
}

/// One bidirectional, thread-safe dictionary relation.
pub(crate) struct Dictionary {
    tag: u8,
    inner: ReadMostly<DictInner>,
}

impl Dictionary {
    pub(crate) fn new(tag: u8) -> Self {
        Dictionary {
            tag,
            inner: ReadMostly::new(DictInner::new(tag)),
        }
    }

    /// The gui of `form`, registering it when new.
    pub(crate) fn intern(&self, form: &[u8]) -> Result<Interned, DictError> {
        let hash = hash_form(form);
        if let Some(found) = self.inner.read().find_hashed(form, hash) {
            return Ok(found);
        }
        self.inner.write().intern_linked(self.tag, form, hash)
    }

    /// [`Dictionary::intern`] for a form that is most likely new (a fresh
    /// vertex key): straight to the write lock, one table probe.
    pub(crate) fn intern_new(&self, form: &[u8]) -> Result<Interned, DictError> {
        self.inner
            .write()
            .intern_linked(self.tag, form, hash_form(form))
    }

    /// Exclusive access for a run of interns (a bulk load's chunk): one
    /// lock for the run instead of a read lock, and on a miss a write lock,
    /// per form. (Measured: within noise on the bulk bench by itself; the
    /// interns' table misses, not the locks, are what costs.)
    pub(crate) fn writer(&self) -> DictWriter<'_> {
        DictWriter {
            tag: self.tag,
            inner: self.inner.write(),
            unlinked: Vec::new(),
        }
    }

    /// Makes room for `additional` more forms of at most `max_len` bytes
    /// each (a bulk load that knows what it will register), so neither the
    /// by-form table grows (moving every slot) nor the arena regrows
    /// (copying it, and leaving up to half of it spare).
    pub(crate) fn reserve(&self, additional: usize, max_len: usize) {
        let mut inner = self.inner.write();
        let DictInner { arena, by_key, .. } = &mut *inner;
        let record = (HEADER + max_len).next_multiple_of(UNIT);
        arena.reserve(additional.saturating_mul(record));
        by_key.reserve(additional);
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
        match (inner.find_form(form), inner.find_gui(gui)) {
            (Some(existing), _) if existing == gui => return Ok(()),
            (Some(existing), _) => {
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
        let record = inner.add(gui, form)?;
        inner.link(gui, record);
        let next = inner.next_counter(hash);
        *next = (*next).max(counter + 1);
        Ok(())
    }

    /// The gui of an already registered form.
    pub(crate) fn lookup(&self, form: &[u8]) -> Option<u64> {
        self.inner.read().find_form(form)
    }

    /// Calls `f` with the lexical form of a gui (under the read lock),
    /// read from the record `hint` names when that record holds `gui` (one
    /// cache miss instead of two: the gui map's slot is skipped), found by
    /// gui otherwise ([`RecordHint::NONE`] always looks the gui up).
    pub(crate) fn with_form_hinted<T>(
        &self,
        gui: u64,
        hint: RecordHint,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Option<T> {
        let inner = self.inner.read();
        if let Some(form) = hint.record().and_then(|r| inner.hinted_form(r, gui)) {
            return Some(f(form));
        }
        let record = inner.find_gui(gui)?;
        Some(f(inner.form(record)))
    }

    /// Starts loading the header line of the record `hint` names (a
    /// reader that will decode the value after other work).
    pub(crate) fn prefetch_hinted(&self, hint: RecordHint) {
        if let Some(r) = hint.record() {
            let inner = self.inner.read();
            if let Some(at) = inner.arena.get(r as usize * UNIT) {
                crate::prefetch::line(at);
            }
        }
    }

    /// True when `hint` names the record of `gui` itself (tests: a write
    /// stored the right hint, not one the lookup by gui had to correct).
    #[cfg(test)]
    pub(crate) fn hint_names(&self, gui: u64, hint: RecordHint) -> bool {
        let inner = self.inner.read();
        hint.record()
            .is_some_and(|r| inner.hinted_form(r, gui).is_some())
    }

    /// The lexical form of a gui, when it is UTF-8 text.
    pub(crate) fn resolve_str(&self, gui: u64) -> Option<String> {
        self.resolve_str_hinted(gui, RecordHint::NONE)
    }

    /// [`Dictionary::resolve_str`] through [`Dictionary::with_form_hinted`].
    pub(crate) fn resolve_str_hinted(&self, gui: u64, hint: RecordHint) -> Option<String> {
        self.with_form_hinted(gui, hint, |bytes| {
            std::str::from_utf8(bytes).ok().map(str::to_owned)
        })?
    }
}

/// A dictionary held exclusively (see [`Dictionary::writer`]); readers
/// wait until it is dropped, so holders keep it for a bounded run.
pub(crate) struct DictWriter<'a> {
    tag: u8,
    inner: WriteGuard<'a, DictInner>,
    /// New records not yet in `by_gui`: linked together when the writer is
    /// dropped, each slot prefetched a few links ahead (a new gui's slot
    /// is a random miss; interleaved with interning, one at a time, they
    /// do not overlap). Nobody reads by gui before: the writer holds the
    /// lock, and interning reads by form only.
    unlinked: Vec<(u64, u32)>,
}

impl DictWriter<'_> {
    /// Prefetches what interning `form` will read first (its by-form
    /// slot): a bulk load calls it a few forms ahead of their interns.
    #[inline]
    pub(crate) fn prefetch(&self, form: &[u8]) {
        self.inner.by_key.prefetch(hash_form(form));
    }

    /// As [`Dictionary::intern`].
    pub(crate) fn intern(&mut self, form: &[u8]) -> Result<Interned, DictError> {
        let interned = self.inner.intern(self.tag, form, hash_form(form))?;
        if interned.fresh {
            self.unlinked.push((interned.gui, interned.record));
        }
        Ok(interned)
    }
}

/// How many links ahead [`DictWriter`] prefetches a slot.
const LINK_AHEAD: usize = 16;

impl Drop for DictWriter<'_> {
    fn drop(&mut self) {
        let inner = &mut *self.inner;
        for (n, &(gui, record)) in self.unlinked.iter().enumerate() {
            if let Some(&(ahead, _)) = self.unlinked.get(n + LINK_AHEAD) {
                inner.by_gui.prefetch(ahead);
            }
            inner.link(gui, record);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{TAG_LIT, TAG_VERT};

    #[test]
    fn round_trip_and_idempotent_intern() {
        let d = Dictionary::new(TAG_LIT);
        let first = d.intern(b"Person").unwrap();
        let (a, fresh) = (first.gui, first.fresh);
        assert!(fresh);
        let again = d.intern(b"Person").unwrap();
        assert_eq!(
            (again.gui, again.fresh, again.hint()),
            (a, false, first.hint())
        );
        assert_eq!(d.lookup(b"Person"), Some(a));
        assert_eq!(d.resolve_str(a).as_deref(), Some("Person"));
        assert_eq!(split_gui(a).map(|g| g.0), Some(TAG_LIT));
        assert_eq!(d.lookup(b"nobody"), None);
    }

    #[test]
    fn a_hint_is_used_only_when_its_record_holds_the_gui() {
        let d = Dictionary::new(TAG_LIT);
        let mut writer = d.writer();
        let interned: Vec<Interned> = ["alpha", "b", "a much longer form than a unit"]
            .iter()
            .map(|f| writer.intern(f.as_bytes()).unwrap())
            .collect();
        drop(writer);
        let form = |gui, hint| d.with_form_hinted(gui, hint, |f| f.to_vec());
        for i in &interned {
            let by_gui = form(i.gui, RecordHint::NONE).unwrap();
            assert_eq!(form(i.gui, i.hint()).unwrap(), by_gui);
            // Every wrong hint falls back to the lookup by gui: another
            // record, a position inside a record, past the arena, absurd.
            for other in &interned {
                assert_eq!(form(i.gui, other.hint()).unwrap(), by_gui);
            }
            for raw in [2, 3, 1_000, u32::MAX] {
                assert_eq!(form(i.gui, RecordHint::from_raw(raw)).unwrap(), by_gui);
            }
        }
        let unknown = make_gui(TAG_LIT, 9, 9);
        assert_eq!(form(unknown, interned[0].hint()), None);
    }

    #[test]
    fn forms_of_every_length_round_trip_in_their_records() {
        let d = Dictionary::new(TAG_LIT);
        let forms: Vec<Vec<u8>> = (0..40).map(|n| vec![b'a' + n as u8 % 26; n]).collect();
        let guis: Vec<u64> = forms.iter().map(|f| d.intern(f).unwrap().gui).collect();
        for (form, gui) in forms.iter().zip(&guis) {
            assert_eq!(d.lookup(form), Some(*gui));
            assert_eq!(
                d.with_form_hinted(*gui, RecordHint::NONE, <[u8]>::to_vec)
                    .as_ref(),
                Some(form)
            );
        }
        assert_eq!(d.inner.read().arena.len() % UNIT, 0);
    }

    #[test]
    fn collision_counter_distinguishes_equal_hashes() {
        // Find two forms with the same 16-bit hash (birthday bound: a few hundred tries).
        let mut seen: std::collections::HashMap<u16, String> = Default::default();
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
        let a = d.intern(first.as_bytes()).unwrap().gui;
        let b = d.intern(second.as_bytes()).unwrap().gui;
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
        let g2 = d.intern(other.as_bytes()).unwrap().gui;
        assert_eq!(split_gui(g2).unwrap().1, 8);
    }
}
