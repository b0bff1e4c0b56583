//! A range index's equality side table: for each hash of an equality key
//! (module `key`: numbers' exact parts cleared, so Cypher-equal values
//! share one), the one entity whose entry has it, or a mark that several
//! entries do. A seek for equality on every key of the index looks the
//! hash up instead of descending the tree: absent, no entity can match
//! (the tree is a superset of every view's keys, module `index`); one
//! entity, that entity is the only candidate, decided in the reader's view
//! as a tree candidate is; several, the seek reads the tree.
//! docs/adr/0105-index-point-lookups.md.
//!
//! Invariant, kept under the index's write lock: `map[h] = e` exactly when
//! the tree holds one entry whose equality key hashes to `h`, that entry
//! is `e`'s, and its key is alone in its group ([`key::alone_in_group`]);
//! `map[h] = SHARED` when it holds more (or one key that is not alone);
//! no `h` when it holds none. A mark is never taken back: a hash once
//! shared stays with the tree.

use super::key;
use std::hash::BuildHasher;

/// The value of a hash whose entries the tree must be asked for.
const SHARED: u64 = u64::MAX;

/// What the table says of an equality key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Point {
    /// No entry has it.
    None,
    /// Only this entity's entry has it.
    One(u64),
    /// Several entries may have it: read the tree.
    Shared,
}

/// An open-addressing table with linear probing of 12-byte slots: a
/// 32-bit hash (0: empty) and the entity in two halves. One slot per
/// lookup is one cache line, where `std`'s table reads a control line and
/// a bucket line; 32 bits of hash suffice because two keys that share
/// them only make their slot `SHARED`.
#[derive(Default)]
pub(super) struct Points {
    slots: Vec<[u32; 3]>,
    len: usize,
}

impl Points {
    /// The tree gained the entry `key ++ entity` (it did not hold it).
    pub(super) fn added(&mut self, key: &[u8], entity: u64) {
        let value = if key::alone_in_group(key) {
            entity
        } else {
            SHARED
        };
        if (self.len + 1) * 8 > self.slots.len() * 7 {
            self.grow();
        }
        let tag = hash(&key::equality_key(key));
        let at = self.find(tag);
        let slot = &mut self.slots[at];
        if slot[0] == tag {
            set(slot, SHARED);
        } else {
            *slot = [tag, 0, 0];
            set(slot, value);
            self.len += 1;
        }
    }

    /// The tree lost the entry `key ++ entity`.
    pub(super) fn removed(&mut self, key: &[u8], entity: u64) {
        if self.slots.is_empty() {
            return;
        }
        let tag = hash(&key::equality_key(key));
        let at = self.find(tag);
        if self.slots[at][0] != tag || value(&self.slots[at]) != entity {
            return;
        }
        // Backward-shift deletion: slots after the hole that may live in
        // it move up, so that no probe meets an empty slot too early.
        let mask = self.slots.len() - 1;
        let (mut hole, mut next) = (at, (at + 1) & mask);
        while self.slots[next][0] != 0 {
            let home = self.slots[next][0] as usize & mask;
            if next.wrapping_sub(home) & mask >= next.wrapping_sub(hole) & mask {
                self.slots[hole] = self.slots[next];
                hole = next;
            }
            next = (next + 1) & mask;
        }
        self.slots[hole] = [0; 3];
        self.len -= 1;
    }

    /// What the table holds for `equality_key`.
    pub(super) fn get(&self, equality_key: &[u8]) -> Point {
        if self.slots.is_empty() {
            return Point::None;
        }
        let tag = hash(equality_key);
        let slot = &self.slots[self.find(tag)];
        match (slot[0] == tag, value(slot)) {
            (false, _) => Point::None,
            (true, SHARED) => Point::Shared,
            (true, e) => Point::One(e),
        }
    }

    /// Bytes the table takes.
    pub(super) fn approximate_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<[u32; 3]>()
    }

    /// The slot holding `tag`, or the empty one where it would go.
    fn find(&self, tag: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = tag as usize & mask;
        while self.slots[at][0] != 0 && self.slots[at][0] != tag {
            at = (at + 1) & mask;
        }
        at
    }

    fn grow(&mut self) {
        let len = (self.slots.len() * 2).max(16);
        let old = std::mem::replace(&mut self.slots, vec![[0; 3]; len]);
        for slot in old.into_iter().filter(|s| s[0] != 0) {
            let at = self.find(slot[0]);
            self.slots[at] = slot;
        }
    }
}

fn value(slot: &[u32; 3]) -> u64 {
    u64::from(slot[1]) | u64::from(slot[2]) << 32
}

fn set(slot: &mut [u32; 3], value: u64) {
    slot[1] = value as u32;
    slot[2] = (value >> 32) as u32;
}

/// 32 bits of the key's hash, never 0 (the empty slot's).
fn hash(equality_key: &[u8]) -> u32 {
    let h = foldhash::fast::FixedState::default().hash_one(equality_key);
    ((h >> 32) as u32).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_values::Value;
    use proptest::prelude::*;

    fn key(i: i64) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(key::encode(&Value::Int(i), &mut out));
        out
    }

    proptest! {
        /// Through random adds and removes of entries (as the tree sees
        /// them: each present at most once), the table says `None` only
        /// when no entry has the key and `One(e)` only when `e`'s is the
        /// only one.
        #[test]
        fn table_follows_the_entries(ops in prop::collection::vec((any::<bool>(), 0i64..40, 0u64..3), 0..300)) {
            let mut table = Points::default();
            let mut present: Vec<(i64, u64)> = Vec::new();
            for (add, k, e) in ops {
                let there = present.contains(&(k, e));
                if add && !there {
                    table.added(&key(k), e);
                    present.push((k, e));
                } else if !add && there {
                    table.removed(&key(k), e);
                    present.retain(|&p| p != (k, e));
                }
                for k in 0..40 {
                    let holders: Vec<u64> = present.iter().filter(|p| p.0 == k).map(|p| p.1).collect();
                    match table.get(&key::equality_key(&key(k))) {
                        Point::None => prop_assert!(holders.is_empty()),
                        Point::One(e) => prop_assert_eq!(holders, vec![e]),
                        Point::Shared => {}
                    }
                }
            }
        }
    }
}
