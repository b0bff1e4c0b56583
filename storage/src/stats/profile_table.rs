//! Interned vertex profiles: every distinct profile (members AND
//! multiplicities AND existence count) is stored once, under a small id,
//! with the number of vertices that currently have it.
//!
//! Why: most vertices of a graph share their profile with many others (same
//! labels, same keys, same out-degrees per type), so storing it per vertex
//! cost ~180 bytes each for information that is mostly repeated. A vertex
//! now holds only a `u32` id (module `crate::gui_map`).
//!
//! Invariants:
//! - id 0 is never assigned: it means "no profile" (an empty profile, a
//!   vertex without existence tuple or members, is never interned);
//! - `entries[id]` is `Some` exactly for the ids in `ids`, and its `refs` is
//!   the number of vertices holding that id (> 0); an entry whose last
//!   vertex lets go is freed at once and its id reused by a later intern.

use super::characteristic::Member;
use foldhash::fast::FixedState;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// What one vertex has right now.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Profile {
    /// Existence tuples: 1 for a live vertex (may dip during a batch, and
    /// stays at or below 0 for a vertex seen only through stray members).
    pub(crate) live: i64,
    /// Members with their multiplicity, sorted by member, none zero.
    pub(crate) members: Vec<(Member, i64)>,
}

impl Profile {
    /// Adds `delta` to the multiplicity of `member`, keeping the list sorted
    /// and free of zeros.
    pub(crate) fn bump(&mut self, member: Member, delta: i64) {
        match self.members.binary_search_by(|(m, _)| m.cmp(&member)) {
            Ok(at) => {
                self.members[at].1 += delta;
                if self.members[at].1 == 0 {
                    self.members.remove(at);
                }
            }
            Err(at) => self.members.insert(at, (member, delta)),
        }
    }

    /// Nothing worth keeping: no existence tuple and no members (a
    /// negative existence count alone is forgotten, as it always was).
    pub(crate) fn is_empty(&self) -> bool {
        self.live <= 0 && self.members.is_empty()
    }

    /// The characteristic set the profile belongs to (its members).
    pub(crate) fn set_key(&self) -> Vec<Member> {
        self.members.iter().map(|(m, _)| *m).collect()
    }
}

/// One word per member (its kind, id and multiplicity folded together;
/// equal profiles hash equal, which is all a hash owes `Eq`): the derived
/// hash wrote three, and a load interns a profile per vertex and per run
/// of a source's edges, millions of them (the hashing was an eighth of a
/// graph load's edge statistics).
impl Hash for Profile {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_i64(self.live);
        state.write_usize(self.members.len());
        for &(member, n) in &self.members {
            let (kind, id) = match member {
                Member::Label(gui) => (1u64, gui),
                Member::Key(key) => (2, u64::from(key)),
                Member::OutType(ty) => (3, u64::from(ty)),
            };
            state.write_u64(id ^ (kind << 62) ^ (n as u64).rotate_left(32));
        }
    }
}

#[derive(Clone, Debug)]
struct Interned {
    profile: Arc<Profile>,
    refs: u64,
}

/// The table of distinct profiles.
#[derive(Clone, Debug)]
pub(crate) struct ProfileTable {
    entries: Vec<Option<Interned>>,
    ids: HashMap<Arc<Profile>, u32, FixedState>,
    free: Vec<u32>,
    /// The id [`ProfileTable::acquire`] returned last (0: none): runs of
    /// alike vertices (a bulk load's rows) compare against it instead of
    /// hashing their profile. Only a hint: its entry may have been freed
    /// or reused since, so it is compared, never trusted.
    last: u32,
    /// Bytes of the interned profiles' own allocations (memory
    /// accounting, kept as they come and go).
    interned_bytes: usize,
}

/// Bytes one interned profile allocates: the shared box and its members.
fn interned_bytes(profile: &Profile) -> usize {
    // The `Arc`'s two counts, then the profile.
    2 * size_of::<usize>() + size_of::<Profile>() + size_of_val(profile.members.as_slice())
}

impl Default for ProfileTable {
    fn default() -> Self {
        ProfileTable {
            // Slot 0 stays empty: id 0 is "no profile".
            entries: vec![None],
            ids: HashMap::default(),
            free: Vec::new(),
            last: 0,
            interned_bytes: 0,
        }
    }
}

impl ProfileTable {
    /// The profile with id `id`, if it is in use.
    pub(crate) fn get(&self, id: u32) -> Option<&Profile> {
        self.entries
            .get(id as usize)?
            .as_ref()
            .map(|e| e.profile.as_ref())
    }

    /// Takes one more reference to `profile`, interning a copy when new;
    /// returns its id, or 0 for the empty profile (which is not stored).
    pub(crate) fn acquire(&mut self, profile: &Profile) -> u32 {
        if profile.is_empty() {
            return 0;
        }
        if let Some(Some(entry)) = self.entries.get_mut(self.last as usize) {
            if *entry.profile == *profile {
                entry.refs += 1;
                return self.last;
            }
        }
        let id = self.acquire_hashed(profile);
        self.last = id;
        id
    }

    fn acquire_hashed(&mut self, profile: &Profile) -> u32 {
        if let Some(&id) = self.ids.get(profile) {
            if let Some(entry) = &mut self.entries[id as usize] {
                entry.refs += 1;
            }
            return id;
        }
        let profile = Arc::new(profile.clone());
        self.interned_bytes += interned_bytes(&profile);
        let entry = Some(Interned {
            profile: profile.clone(),
            refs: 1,
        });
        let id = match self.free.pop() {
            Some(id) => {
                self.entries[id as usize] = entry;
                id
            }
            None => {
                // More than u32::MAX - 1 distinct profiles would need more
                // vertices than the store can address (28-bit counters are
                // per hash bucket, but a vertex has ~100 bytes of tuples).
                let id = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
                self.entries.push(entry);
                id
            }
        };
        self.ids.insert(profile, id);
        id
    }

    /// Drops one reference to `id` (0 is ignored), freeing the entry when it
    /// was the last.
    pub(crate) fn release(&mut self, id: u32) {
        let Some(slot) = self.entries.get_mut(id as usize) else {
            return;
        };
        let Some(entry) = slot else {
            return;
        };
        entry.refs -= 1;
        if entry.refs == 0 {
            if let Some(entry) = slot.take() {
                self.interned_bytes -= interned_bytes(&entry.profile);
                self.ids.remove(entry.profile.as_ref());
            }
            self.free.push(id);
        }
    }

    /// Bytes of the table and its profiles (memory accounting, O(1)).
    pub(crate) fn bytes(&self) -> usize {
        let entries = self.entries.capacity() * size_of::<Option<Interned>>();
        let ids = self.ids.capacity() * (size_of::<(Arc<Profile>, u32)>() + 1);
        entries + ids + self.free.capacity() * size_of::<u32>() + self.interned_bytes
    }

    /// Number of distinct profiles in use.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }

    /// Number of vertices holding profile `id`.
    #[cfg(test)]
    pub(crate) fn refs(&self, id: u32) -> u64 {
        self.entries
            .get(id as usize)
            .and_then(|e| e.as_ref())
            .map_or(0, |e| e.refs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(live: i64, members: &[(Member, i64)]) -> Profile {
        Profile {
            live,
            members: members.to_vec(),
        }
    }

    #[test]
    fn equal_profiles_share_an_id_and_freed_ids_are_reused() {
        let mut table = ProfileTable::default();
        let a = table.acquire(&profile(1, &[(Member::Key(1), 1)]));
        let b = table.acquire(&profile(1, &[(Member::Key(1), 1)]));
        let c = table.acquire(&profile(1, &[(Member::Key(1), 1), (Member::OutType(2), 3)]));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, 0);
        assert_eq!(table.refs(a), 2);
        assert_eq!(table.len(), 2);

        table.release(c);
        assert_eq!(table.get(c), None);
        assert_eq!(table.len(), 1);
        let d = table.acquire(&profile(0, &[(Member::Label(9), 1)]));
        assert_eq!(d, c, "the freed id is reused");
        assert_eq!(table.get(d), Some(&profile(0, &[(Member::Label(9), 1)])));

        table.release(a);
        assert_eq!(table.refs(a), 1);
        assert!(table.get(a).is_some());
    }

    #[test]
    fn the_empty_profile_is_never_stored() {
        let mut table = ProfileTable::default();
        assert_eq!(table.acquire(&Profile::default()), 0);
        table.release(0);
        assert_eq!(table.len(), 0);
        assert_eq!(table.get(0), None);
    }

    #[test]
    fn multiplicities_and_existence_distinguish_profiles() {
        let mut table = ProfileTable::default();
        let one = table.acquire(&profile(1, &[(Member::OutType(2), 1)]));
        let two = table.acquire(&profile(1, &[(Member::OutType(2), 2)]));
        let dead = table.acquire(&profile(0, &[(Member::OutType(2), 1)]));
        assert_ne!(one, two);
        assert_ne!(one, dead);
        assert_ne!(two, dead);
    }
}
