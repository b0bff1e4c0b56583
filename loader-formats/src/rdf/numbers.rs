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

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, MutexGuard};

type Fast = foldhash::fast::FixedState;

/// log2 of the number of shards: enough that two or a few dozen workers
/// rarely wait for the same lock.
const SHARD_BITS: u32 = 6;

/// The IRIs and blank node ids numbered so far; shared (`Arc`) between the
/// readers of a load and the loader merging their records.
pub struct IriNumbers {
    shards: Box<[Mutex<Shard>]>,
    /// Picks a text's shard (the shard's map hashes it again: the two
    /// hashes must not agree, or each shard's map would use a fraction of
    /// its buckets).
    pick: Fast,
}

#[derive(Default)]
struct Shard {
    numbers: HashMap<Arc<str>, u64, foldhash::fast::RandomState>,
    /// Texts by their index in the shard.
    texts: Vec<Arc<str>>,
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
            pick: Fast::with_seed(0x4e65_7265_6964),
        }
    }

    /// The number of `text`, given it now if it has none. Numbers are
    /// small (below about the count of texts numbered, rounded up to a
    /// multiple of the shard count), so a loader may index a vector by them.
    pub fn number(&self, text: &str) -> u64 {
        let shard = self.shard(text);
        let mut locked = lock(&self.shards[shard]);
        if let Some(&number) = locked.numbers.get(text) {
            return number;
        }
        Self::insert(&mut locked, shard, text)
    }

    /// The number of the IRI `text`, numbered now if it is a valid
    /// absolute IRI; `None` if it is not. For a parse that skipped the
    /// IRI checks (`numbered.rs`): a text numbered is checked once, when
    /// first numbered, not at every mention. Blank node ids (`_:...`) share
    /// the dictionary but are never valid IRIs, so they are always checked.
    pub(crate) fn number_of_iri(&self, text: &str) -> Option<u64> {
        let shard = self.shard(text);
        if !text.starts_with("_:") {
            if let Some(&number) = lock(&self.shards[shard]).numbers.get(text) {
                return Some(number);
            }
        }
        oxrdf::NamedNodeRef::new(text).ok()?;
        let mut locked = lock(&self.shards[shard]);
        if let Some(&number) = locked.numbers.get(text) {
            return Some(number);
        }
        Some(Self::insert(&mut locked, shard, text))
    }

    fn shard(&self, text: &str) -> usize {
        (self.pick.hash_one(text) & ((1 << SHARD_BITS) - 1)) as usize
    }

    fn insert(locked: &mut Shard, shard: usize, text: &str) -> u64 {
        let number = ((locked.texts.len() as u64) << SHARD_BITS) | shard as u64;
        let text: Arc<str> = Arc::from(text);
        locked.texts.push(text.clone());
        locked.numbers.insert(text, number);
        number
    }

    /// The text numbered `number`, if one is.
    pub fn text(&self, number: u64) -> Option<Arc<str>> {
        let shard = (number & ((1 << SHARD_BITS) - 1)) as usize;
        let index = usize::try_from(number >> SHARD_BITS).ok()?;
        lock(&self.shards[shard]).texts.get(index).cloned()
    }
}

/// A shard's lock; a worker that panicked holding it left it whole (each
/// insert is one push and one map insert of the same text).
fn lock(shard: &Mutex<Shard>) -> MutexGuard<'_, Shard> {
    shard
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

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
