//! The tuples between two given keys: S = `s` and O = the gui `o` (an
//! edge lookup with both ends bound, Cypher's expand-into).
//!
//! Only the S list of `s` is read: in an index that keeps sorted prefixes
//! (module `list_arena`), the prefix is ordered by (P, O), so each wanted
//! P costs one binary search plus the run of hits, and only the tail of
//! later appends is scanned. A hub's million edges cost ~20 probes instead
//! of a million. Unordered lists are all tail: the same answer, scanned.

use super::Partition;
use crate::relation::subject_index::order_key;
use crate::relation::zone::Tuple;

impl Partition {
    /// Calls `f(index, tuple)` for each tuple with S `s`, O the gui `o`
    /// and P one of `types` (any P for `None`; callers pass no P twice).
    /// Visibility is the caller's to check.
    pub(crate) fn by_subject_object(
        &self,
        s: u64,
        o: u64,
        types: Option<&[u32]>,
        mut f: impl FnMut(u32, Tuple<'_>),
    ) {
        // Asked before the lookup (`SubjectIndex::lists_freed_slots`).
        let exact = self.subject_is();
        let zones = self.zones_now();
        let (prefix, tail) = self.by_s.get_sorted(s, &self.zones);
        let key = |index: u32| order_key(&zones, index);
        let mut hit = |index: u32| {
            let Some(t) = self.tuple_in(zones, index) else {
                return;
            };
            if exact(s, &t)
                && t.o.indexed_gui() == Some(o)
                && types.is_none_or(|types| types.contains(&t.p))
            {
                f(index, t);
            }
        };
        match types {
            Some(types) => {
                for &p in types {
                    let from = prefix.clone().seek(|i| key(i) < (p, o));
                    from.take_while(|&i| key(i) == (p, o)).for_each(&mut hit);
                }
            }
            None => {
                // One binary search per P in the list: to (P, o), then
                // past the rest of P.
                let mut rest = prefix;
                while let Some(first) = rest.clone().next() {
                    let p = key(first).0;
                    rest = rest.seek(|i| key(i) < (p, o));
                    rest.clone()
                        .take_while(|&i| key(i) == (p, o))
                        .for_each(&mut hit);
                    rest = rest.seek(|i| key(i).0 <= p);
                }
            }
        }
        tail.for_each(hit);
    }
}
