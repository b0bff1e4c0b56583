//! Dictionary relations (REL_VERT, REL_LIT): lexical form <-> 64-bit gui.
//!
//! A gui is `tag | collision counter | hash16(lexical form)` (see
//! [`crate::ids`]). The n-th distinct lexical form that hashes to `h` gets
//! counter `n`, so guis are dense per hash bucket and the hash bits spread
//! vertices uniformly over partitions.
//!
//! Layout (memory matters: every vertex and every distinct string value
//! has an entry; so do cache misses: resolving a gui is on the point-read
//! path). Each form is a *record* in one byte arena (module `arena`:
//! segments that never move): its gui (8 bytes), its length (4 bytes),
//! the form, padding to the next multiple of [`UNIT`]; a record is named
//! by its start / `UNIT`, a `u32` (the arena addresses 32 GiB). A
//! [`FormTable`] of record numbers and hash tags finds a record by form,
//! and a direct-access map (module `gui_slots`: guis are dense per hash
//! bucket) by gui. Resolving a gui is two cache misses (the map's slot,
//! the record), checking a form's candidate one (the record holds both the
//! form and the gui). No per-entry allocation, nothing stored twice.
//!
//! Locks: resolving a gui (or a hinted record) takes none. The arena and
//! the gui map are written by one writer at a time (the holder of the
//! write lock, which owns their writer handles) and publish with release
//! stores what readers load with acquire loads. Lookups by form (interning,
//! `lookup`) read the form table under the read lock: its growth moves
//! slots.
//!
//! Invariants: records are never removed or changed (dictionaries are not
//! transactional: a lexical form interned by a transaction that later rolls
//! back stays registered, harmlessly); `by_key` and `by_gui` index exactly
//! the records in the arena (`by_gui` holds record number + 1, so 0 reads
//! as absent; a [`DictWriter`] links its new records into `by_gui` when
//! dropped, and holds the lock until then); the arena's length is a
//! multiple of `UNIT`; `next_counter[h]` is greater than every counter in
//! use for `h`.

mod arena;
mod gui_slots;

use crate::form_table::FormTable;
use crate::ids::{hash16, make_gui, split_gui, COUNTER_BITS};
use crate::read_mostly::{ReadMostly, WriteGuard};
use arena::{Arena, ArenaCursor};
use foldhash::fast::FixedState;
use gui_slots::{GuiSlots, SlotsWriter};
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
    pub(crate) fn from_raw(raw: u32) -> Self {
        RecordHint(raw)
    }

    /// The stored form [`RecordHint::from_raw`] reads back.
    pub(crate) fn raw(self) -> u32 {
        self.0
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

/// The gui in record `r`, if `r` starts a published record header.
fn gui_of(arena: &Arena, r: u32) -> Option<u64> {
    let bytes = arena.get(r as usize * UNIT, 8)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// The length field's flag for a form kept out of line: the record holds
/// its address (8 bytes) instead of the form (module `arena`: larger than
/// a segment).
const OUT_OF_LINE: u32 = 1 << 31;

/// The form in record `r`, if it is published.
fn form_of(arena: &Arena, r: u32) -> Option<&[u8]> {
    let at = r as usize * UNIT;
    let len = arena.get(at + 8, 4)?;
    let len = u32::from_le_bytes(len.try_into().ok()?);
    if len & OUT_OF_LINE == 0 {
        return arena.get(at + HEADER, len as usize);
    }
    let address = arena.get(at + HEADER, 8)?;
    let address = u64::from_le_bytes(address.try_into().ok()?) as usize;
    // Checked against what the arena keeps: even bytes that only look like
    // such a record (a wrong hint) never make a reader follow a pointer.
    arena.kept(address, (len & !OUT_OF_LINE) as usize)
}

/// Record `r`'s form if `r` is a record holding `gui` (a [`RecordHint`]
/// checked before use: a hint that does not name `gui`'s record, or lies
/// outside the published arena, yields `None`).
fn hinted_form(arena: &Arena, r: u32, gui: u64) -> Option<&[u8]> {
    (gui_of(arena, r)? == gui).then(|| form_of(arena, r))?
}

/// What only the writer touches, under the dictionary's lock.
struct DictInner {
    cursor: ArenaCursor,
    slots_writer: SlotsWriter,
    /// Form -> record number.
    by_key: FormTable,
    /// Per 16-bit hash, the next collision counter (empty until first use).
    next_counter: Vec<u32>,
}

impl DictInner {
    fn new() -> Self {
        DictInner {
            cursor: ArenaCursor::default(),
            slots_writer: SlotsWriter::default(),
            by_key: FormTable::new(),
            next_counter: Vec::new(),
        }
    }

    fn find_form(&self, arena: &Arena, form: &[u8]) -> Option<u64> {
        self.find_hashed(arena, form, hash_form(form))
            .map(|found| found.gui)
    }

    /// The registered `form`, given `hash_form(form)`.
    fn find_hashed(&self, arena: &Arena, form: &[u8], hash: u64) -> Option<Interned> {
        let record = self
            .by_key
            .find(hash, |r| form_of(arena, r) == Some(form))?;
        Some(Interned::of(gui_of(arena, record)?, record, false))
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
    /// into the gui map ([`DictInner::link`]) by the caller.
    fn intern(
        &mut self,
        arena: &Arena,
        tag: u8,
        form: &[u8],
        hash: u64,
    ) -> Result<Interned, DictError> {
        if let Some(found) = self.find_hashed(arena, form, hash) {
            return Ok(found);
        }
        let short = hash16(form);
        let counter = *self.next_counter(short);
        if counter >= (1 << COUNTER_BITS) {
            return Err(DictError::CounterExhausted);
        }
        let gui = make_gui(tag, counter, short);
        let record = self.add_hashed(arena, gui, form, hash)?;
        *self.next_counter(short) = counter + 1;
        Ok(Interned::of(gui, record, true))
    }

    /// Makes `record` (holding `gui`) findable by gui.
    fn link(&mut self, slots: &GuiSlots, gui: u64, record: u32) {
        slots.set(&mut self.slots_writer, gui, record + 1);
    }

    /// Appends a new record, findable by form (not yet by gui: see
    /// [`DictInner::link`]); `hash` is `hash_form(form)`.
    fn add_hashed(
        &mut self,
        arena: &Arena,
        gui: u64,
        form: &[u8],
        hash: u64,
    ) -> Result<u32, DictError> {
        let len = u32::try_from(form.len())
            .ok()
            .filter(|&len| len < OUT_OF_LINE)
            .ok_or(DictError::Full)?;
        // Headers are put together on the stack: a `concat` allocated
        // one per record, a malloc and a free for every form a bulk load
        // interns (benches/RESULTS.md, session 38).
        let gui = gui.to_le_bytes();
        let at = if HEADER + form.len() <= arena::BIG {
            let len = len.to_le_bytes();
            arena.append(&mut self.cursor, &[&gui, &len, form], UNIT)
        } else {
            let address = (arena.keep(form) as usize as u64).to_le_bytes();
            let len = (len | OUT_OF_LINE).to_le_bytes();
            arena.append(&mut self.cursor, &[&gui, &len, &address], UNIT)
        }
        .ok_or(DictError::Full)?;
        // Record numbers are stored + 1 in the gui map, so that must fit too.
        let record = u32::try_from(at / UNIT)
            .ok()
            .filter(|&r| r < u32::MAX)
            .ok_or(DictError::Full)?;
        self.by_key.insert(hash, record);
        Ok(record)
    }
}

/// One bidirectional, thread-safe dictionary relation.
pub(crate) struct Dictionary {
    tag: u8,
    inner: ReadMostly<DictInner>,
    /// The records, read without locks (module docs).
    arena: Arena,
    /// Gui -> record number + 1, read without locks.
    slots: GuiSlots,
}

impl Dictionary {
    pub(crate) fn new(tag: u8) -> Self {
        Dictionary {
            tag,
            inner: ReadMostly::new(DictInner::new()),
            arena: Arena::new(),
            slots: GuiSlots::new(tag),
        }
    }

    /// Bytes of its records, gui map and form table (memory accounting:
    /// capacities; the form table is read under the dictionary's read
    /// lock, which commits do not take).
    pub(crate) fn bytes(&self) -> usize {
        let inner = {
            let inner = self.inner.read();
            inner.by_key.bytes() + inner.next_counter.capacity() * size_of::<u32>()
        };
        self.arena.allocated() + self.slots.bytes() + inner
    }

    /// The gui of `form`, registering it when new.
    pub(crate) fn intern(&self, form: &[u8]) -> Result<Interned, DictError> {
        let hash = hash_form(form);
        if let Some(found) = self.inner.read().find_hashed(&self.arena, form, hash) {
            return Ok(found);
        }
        self.intern_locked(&mut self.inner.write(), form, hash)
    }

    /// [`Dictionary::intern`] for a form that is most likely new (a fresh
    /// vertex key): straight to the write lock, one table probe.
    pub(crate) fn intern_new(&self, form: &[u8]) -> Result<Interned, DictError> {
        self.intern_locked(&mut self.inner.write(), form, hash_form(form))
    }

    /// Interns under the write lock, linking a new record at once.
    fn intern_locked(
        &self,
        inner: &mut DictInner,
        form: &[u8],
        hash: u64,
    ) -> Result<Interned, DictError> {
        let interned = inner.intern(&self.arena, self.tag, form, hash)?;
        if interned.fresh {
            inner.link(&self.slots, interned.gui, interned.record);
        }
        Ok(interned)
    }

    /// Exclusive access for a run of interns (a bulk load's chunk): one
    /// lock for the run instead of a read lock, and on a miss a write lock,
    /// per form. (Measured: within noise on the bulk bench by itself; the
    /// interns' table misses, not the locks, are what costs.) Readers
    /// resolving guis meanwhile are not held up; lookups by form are.
    pub(crate) fn writer(&self) -> DictWriter<'_> {
        DictWriter {
            dictionary: self,
            inner: self.inner.write(),
            unlinked: Vec::new(),
        }
    }

    /// Makes room for `additional` more forms (a bulk load that knows what
    /// it will register), so the by-form table does not grow (moving every
    /// slot) meanwhile. The arena needs none: its segments never move.
    pub(crate) fn reserve(&self, additional: usize, _max_len: usize) {
        self.inner.write().by_key.reserve(additional);
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
        match (inner.find_form(&self.arena, form), self.find_gui(gui)) {
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
        let record = inner.add_hashed(&self.arena, gui, form, hash_form(form))?;
        inner.link(&self.slots, gui, record);
        let next = inner.next_counter(hash);
        *next = (*next).max(counter + 1);
        Ok(())
    }

    /// The gui of an already registered form.
    pub(crate) fn lookup(&self, form: &[u8]) -> Option<u64> {
        self.inner.read().find_form(&self.arena, form)
    }

    /// The record of `gui`, if linked.
    fn find_gui(&self, gui: u64) -> Option<u32> {
        self.slots.get(gui).checked_sub(1)
    }

    /// Calls `f` with the lexical form of a gui (no lock taken), read from
    /// the record `hint` names when that record holds `gui` (one cache
    /// miss instead of two: the gui map's slot is skipped), found by gui
    /// otherwise ([`RecordHint::NONE`] always looks the gui up).
    pub(crate) fn with_form_hinted<T>(
        &self,
        gui: u64,
        hint: RecordHint,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Option<T> {
        self.form_hinted(gui, hint).map(f)
    }

    /// The lexical form of a gui as [`Dictionary::with_form_hinted`] finds
    /// it, borrowed: the arena's published bytes are never moved or freed
    /// before the dictionary (module `arena`), so a checkpoint's export
    /// hands them to its encoder instead of copying each into a `String`.
    pub(crate) fn form_hinted(&self, gui: u64, hint: RecordHint) -> Option<&[u8]> {
        if let Some(form) = hint.record().and_then(|r| hinted_form(&self.arena, r, gui)) {
            return Some(form);
        }
        let record = self.find_gui(gui)?;
        form_of(&self.arena, record)
    }

    /// The lexical form of a gui when it is UTF-8 text, borrowed
    /// ([`Dictionary::form_hinted`]).
    pub(crate) fn str_of(&self, gui: u64) -> Option<&str> {
        std::str::from_utf8(self.form_hinted(gui, RecordHint::NONE)?).ok()
    }

    /// Starts loading the gui map's slot of `gui` (first of the two misses
    /// of a lookup by gui; [`Dictionary::prefetch_form`] is the second).
    pub(crate) fn prefetch_gui(&self, gui: u64) {
        self.slots.prefetch(gui);
    }

    /// Starts loading the header line of `gui`'s record, when its slot is
    /// linked (best read after [`Dictionary::prefetch_gui`] had time).
    pub(crate) fn prefetch_form(&self, gui: u64) {
        if let Some(at) = self
            .find_gui(gui)
            .and_then(|r| self.arena.address(r as usize * UNIT))
        {
            crate::prefetch::line(at);
        }
    }

    /// Starts loading the header line of the record `hint` names (a
    /// reader that will decode the value after other work).
    pub(crate) fn prefetch_hinted(&self, hint: RecordHint) {
        if let Some(at) = hint
            .record()
            .and_then(|r| self.arena.address(r as usize * UNIT))
        {
            crate::prefetch::line(at);
        }
    }

    /// True when `hint` names the record of `gui` itself (tests: a write
    /// stored the right hint, not one the lookup by gui had to correct).
    #[cfg(test)]
    pub(crate) fn hint_names(&self, gui: u64, hint: RecordHint) -> bool {
        hint.record()
            .is_some_and(|r| hinted_form(&self.arena, r, gui).is_some())
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

/// A dictionary held exclusively for interning (see
/// [`Dictionary::writer`]); lookups by form wait until it is dropped, so
/// holders keep it for a bounded run.
pub(crate) struct DictWriter<'a> {
    dictionary: &'a Dictionary,
    inner: WriteGuard<'a, DictInner>,
    /// New records not yet in the gui map: linked together when the writer
    /// is dropped, each slot prefetched a few links ahead (a new gui's slot
    /// is a random miss; interleaved with interning, one at a time, they
    /// do not overlap). Nobody finds them by gui before: their guis are
    /// handed out only through this writer, to rows not yet stored.
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
        let d = self.dictionary;
        let interned = self.inner.intern(&d.arena, d.tag, form, hash_form(form))?;
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
        let slots = &self.dictionary.slots;
        let inner = &mut *self.inner;
        for (n, &(gui, record)) in self.unlinked.iter().enumerate() {
            if let Some(&(ahead, _)) = self.unlinked.get(n + LINK_AHEAD) {
                slots.prefetch(ahead);
            }
            inner.link(slots, gui, record);
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
    fn resolving_a_gui_takes_no_lock() {
        let d = Dictionary::new(TAG_LIT);
        let known = d.intern(b"known").unwrap();
        // A writer holds the dictionary (a bulk load's chunk) ...
        let mut writer = d.writer();
        writer.intern(b"new while held").unwrap();
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::channel();
            let d = &d;
            s.spawn(move || {
                let by_gui = d.resolve_str(known.gui);
                let by_hint = d.resolve_str_hinted(known.gui, known.hint());
                tx.send((by_gui, by_hint)).unwrap();
            });
            // ... and a reader resolves a gui meanwhile, without waiting.
            let got = rx.recv_timeout(std::time::Duration::from_secs(10));
            drop(writer);
            let (by_gui, by_hint) = got.expect("resolved while the writer held the lock");
            assert_eq!(by_gui.as_deref(), Some("known"));
            assert_eq!(by_hint.as_deref(), Some("known"));
        });
        let fresh = d.lookup(b"new while held").unwrap();
        assert_eq!(d.resolve_str(fresh).as_deref(), Some("new while held"));
    }

    #[test]
    fn readers_resolve_every_published_gui_while_writers_intern() {
        let d = Dictionary::new(TAG_VERT);
        let published: Vec<std::sync::atomic::AtomicU64> = (0..20_000)
            .map(|_| std::sync::atomic::AtomicU64::new(0))
            .collect();
        std::thread::scope(|s| {
            s.spawn(|| {
                for chunk in (0..published.len()).collect::<Vec<_>>().chunks(500) {
                    let mut writer = d.writer();
                    let got: Vec<(usize, Interned)> = chunk
                        .iter()
                        .map(|&n| (n, writer.intern(format!("v{n}").as_bytes()).unwrap()))
                        .collect();
                    drop(writer);
                    for (n, interned) in got {
                        published[n].store(interned.gui, std::sync::atomic::Ordering::Release);
                    }
                }
            });
            s.spawn(|| {
                for _ in 0..10 {
                    for (n, slot) in published.iter().enumerate().step_by(3) {
                        let gui = slot.load(std::sync::atomic::Ordering::Acquire);
                        if gui != 0 {
                            assert_eq!(d.resolve_str(gui), Some(format!("v{n}")));
                        }
                    }
                }
            });
        });
    }

    #[test]
    fn a_form_larger_than_a_segment_is_kept_out_of_line() {
        let d = Dictionary::new(TAG_LIT);
        let huge: Vec<u8> = (0..arena::BIG + 100).map(|i| (i % 253) as u8).collect();
        let small = d.intern(b"before").unwrap();
        let big = d.intern(&huge).unwrap();
        let after = d.intern(b"after").unwrap();
        assert_eq!(d.lookup(&huge), Some(big.gui));
        let read = |i: &Interned, hint| d.with_form_hinted(i.gui, hint, <[u8]>::to_vec);
        assert_eq!(read(&big, RecordHint::NONE).unwrap(), huge);
        assert_eq!(read(&big, big.hint()).unwrap(), huge);
        assert_eq!(read(&small, big.hint()).as_deref(), Some(&b"before"[..]));
        assert_eq!(
            read(&after, RecordHint::NONE).as_deref(),
            Some(&b"after"[..])
        );
        assert_eq!(d.intern(&huge).unwrap().gui, big.gui);
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
