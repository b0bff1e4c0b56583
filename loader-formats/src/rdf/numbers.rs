//! One number per IRI (or blank node id) of a load, shared by every parse
//! worker of every document of it
//! (docs/adr/0155-rdf-records-numbered-by-a-shared-dictionary.md).
//!
//! A bulk load merges the records of one vertex from many pieces and
//! documents; keyed by spelling, that merge hashed and compared every
//! record's IRI on the one loader thread, and each piece named an edge's
//! object in a record of its own. Numbered, the workers do the hashing
//! (in parallel, once per IRI they meet) and the loader indexes a vector
//! by number; an edge names its ends by number alone, so it carries no
//! copy of their IRIs, and a vertex is spelled once, when the loader
//! first meets its number.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

type Fast = foldhash::fast::FixedState;

/// log2 of the number of shards: enough that two or a few dozen workers
/// rarely wait for the same lock.
const SHARD_BITS: u32 = 6;

/// Slots in a shard's smallest table.
const MIN_SLOTS: usize = 64;

/// The IRIs and blank node ids numbered so far; shared (`Arc`) between the
/// readers of a load and the loader merging their records.
pub struct IriNumbers {
    shards: Box<[Mutex<Shard>]>,
    /// Where each shard's table is and its mask, published after each
    /// insert for [`IriNumbers::prefetch`], which reads them without the
    /// lock: a stale pair only makes the hint miss.
    tables: Box<[Table]>,
    /// Hashes a text once: its low bits pick the shard, its high half is
    /// kept in the shard's slot (and places it in the table).
    hasher: Fast,
}

/// One shard: its texts end to end in one arena, each after its length,
/// and an open-addressing table of slots over them. A lookup reads one
/// slot (the text's hash half, number and place side by side) and then
/// the text itself, where a map of `Arc<str>` keys read a control group,
/// a bucket and the text's own allocation: the workers look up every
/// edge's object, at random over the load's IRIs, so each of those reads
/// was a cache miss (docs/adr/0163-rdf-statements-borrowed-from-the-piece.md).
#[derive(Default)]
struct Shard {
    /// Each text's length (4 bytes, little-endian), then its bytes.
    arena: Vec<u8>,
    /// Where each text (by its index in the shard) starts in `arena`.
    starts: Vec<u64>,
    /// A power of two of slots, at most half used.
    slots: Vec<Slot>,
}

/// A shard's table as last published: its address and mask (0: empty).
#[derive(Default)]
struct Table {
    address: AtomicUsize,
    mask: AtomicUsize,
}

/// A table slot; `index` 0 is an empty slot, else the text's index + 1.
#[derive(Clone, Copy, Default)]
struct Slot {
    hash: u32,
    index: u32,
    start: u64,
}

impl Shard {
    fn text_at(&self, start: u64) -> &[u8] {
        let start = start as usize;
        let mut len = [0; 4];
        len.copy_from_slice(&self.arena[start..start + 4]);
        let len = u32::from_le_bytes(len) as usize;
        &self.arena[start + 4..start + 4 + len]
    }

    /// The index of `text`, whose hash half is `hash`, if numbered.
    fn find(&self, hash: u32, text: &str) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot.index == 0 {
                return None;
            }
            if slot.hash == hash && self.text_at(slot.start) == text.as_bytes() {
                return Some(slot.index - 1);
            }
            at = (at + 1) & mask;
        }
    }

    /// Numbers `text` (not yet numbered): answers its index.
    fn insert(&mut self, hash: u32, text: &str) -> u32 {
        if (self.starts.len() + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let index = self.starts.len() as u32;
        let start = self.arena.len() as u64;
        self.arena
            .extend_from_slice(&(text.len() as u32).to_le_bytes());
        self.arena.extend_from_slice(text.as_bytes());
        self.starts.push(start);
        self.place(Slot {
            hash,
            index: index + 1,
            start,
        });
        index
    }

    fn place(&mut self, slot: Slot) {
        let mask = self.slots.len() - 1;
        let mut at = slot.hash as usize & mask;
        while self.slots[at].index != 0 {
            at = (at + 1) & mask;
        }
        self.slots[at] = slot;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Slot::default(); size]);
        for slot in old.into_iter().filter(|s| s.index != 0) {
            self.place(slot);
        }
    }
}

impl Default for IriNumbers {
    fn default() -> Self {
        IriNumbers::new()
    }
}

impl IriNumbers {
    pub fn new() -> IriNumbers {
        IriNumbers {
            shards: (0..1 << SHARD_BITS).map(|_| Mutex::default()).collect(),
            tables: (0..1 << SHARD_BITS).map(|_| Table::default()).collect(),
            hasher: Fast::with_seed(0x4e65_7265_6964),
        }
    }

    /// The number of `text`, given it now if it has none. Numbers are
    /// small (below about the count of texts numbered, rounded up to a
    /// multiple of the shard count), so a loader may index a vector by them.
    pub fn number(&self, text: &str) -> u64 {
        let (shard, hash) = self.hash(text);
        number(self.find_or_insert(shard, hash, text), shard)
    }

    /// The index of `text` in `shard`, inserted if new (the table's place
    /// then published for [`IriNumbers::prefetch`]).
    fn find_or_insert(&self, shard: usize, hash: u32, text: &str) -> u32 {
        let mut locked = lock(&self.shards[shard]);
        if let Some(index) = locked.find(hash, text) {
            return index;
        }
        let index = locked.insert(hash, text);
        let table = &self.tables[shard];
        table
            .address
            .store(locked.slots.as_ptr() as usize, Ordering::Relaxed);
        table.mask.store(locked.slots.len() - 1, Ordering::Relaxed);
        index
    }

    /// Asks for the cache line of the slot a lookup of `text` starts at:
    /// a parse worker names the IRIs of a few statements ahead, so their
    /// probes' misses overlap. A hint only: the table's place is read
    /// without the lock, and a prefetch never faults, whatever the address.
    pub(crate) fn prefetch(&self, text: &str) {
        let (shard, hash) = self.hash(text);
        let table = &self.tables[shard];
        let mask = table.mask.load(Ordering::Relaxed);
        if mask == 0 {
            return;
        }
        let address = table.address.load(Ordering::Relaxed);
        let slot = address.wrapping_add((hash as usize & mask) * std::mem::size_of::<Slot>());
        prefetch_line(slot);
    }

    /// The number of the IRI `text`, numbered now if it is a valid
    /// absolute IRI; `None` if it is not. For a parse that skipped the
    /// IRI checks (`numbered.rs`): a text numbered is checked once, when
    /// first numbered, not at every mention. Blank node ids (`_:...`) share
    /// the dictionary but are never valid IRIs, so they are always checked.
    pub(crate) fn number_of_iri(&self, text: &str) -> Option<u64> {
        let (shard, hash) = self.hash(text);
        if !text.starts_with("_:") {
            if let Some(index) = lock(&self.shards[shard]).find(hash, text) {
                return Some(number(index, shard));
            }
        }
        oxrdf::NamedNodeRef::new(text).ok()?;
        Some(number(self.find_or_insert(shard, hash, text), shard))
    }

    /// `text`'s shard and the hash half its shard keeps.
    fn hash(&self, text: &str) -> (usize, u32) {
        let hash = self.hasher.hash_one(text);
        let shard = (hash & ((1 << SHARD_BITS) - 1)) as usize;
        (shard, (hash >> 32) as u32)
    }

    /// The text numbered `number`, if one is.
    pub fn text(&self, number: u64) -> Option<String> {
        let shard = (number & ((1 << SHARD_BITS) - 1)) as usize;
        let index = usize::try_from(number >> SHARD_BITS).ok()?;
        let locked = lock(&self.shards[shard]);
        let start = *locked.starts.get(index)?;
        // The arena holds only whole `&str`s, so this is one.
        std::str::from_utf8(locked.text_at(start))
            .ok()
            .map(str::to_owned)
    }
}

/// The cache line at `address` (a hint: nothing is read).
#[inline]
fn prefetch_line(address: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline; a prefetch is a hint
        // that never faults and reads nothing the program sees, whatever
        // the address (a table freed by a grow included).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

fn number(index: u32, shard: usize) -> u64 {
    (u64::from(index) << SHARD_BITS) | shard as u64
}

/// A shard's lock; a worker that panicked holding it left it whole (an
/// insert writes its text and its slot before the table is read again).
fn lock(shard: &Mutex<Shard>) -> MutexGuard<'_, Shard> {
    shard
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_text_keeps_its_number_and_numbers_spell_their_texts() {
        let numbers = IriNumbers::new();
        let texts: Vec<String> = (0..5_000).map(|i| format!("http://e/{i}")).collect();
        let first: Vec<u64> = texts.iter().map(|t| numbers.number(t)).collect();
        let again: Vec<u64> = texts.iter().map(|t| numbers.number(t)).collect();
        assert_eq!(first, again);
        let distinct: std::collections::HashSet<_> = first.iter().collect();
        assert_eq!(distinct.len(), texts.len());
        for (text, &number) in texts.iter().zip(&first) {
            assert_eq!(numbers.text(number).as_deref(), Some(text.as_str()));
        }
        assert!(first.iter().all(|&n| n < 2 * texts.len() as u64));
        assert_eq!(numbers.text(1 << 40), None);
    }

    #[test]
    fn threads_numbering_the_same_texts_agree() {
        let numbers = Arc::new(IriNumbers::new());
        let run = |numbers: Arc<IriNumbers>| {
            std::thread::spawn(move || {
                (0..2_000)
                    .map(|i| numbers.number(&format!("_:b{i}")))
                    .collect::<Vec<_>>()
            })
        };
        let (a, b) = (run(numbers.clone()), run(numbers.clone()));
        assert_eq!(a.join().unwrap(), b.join().unwrap());
    }
}
