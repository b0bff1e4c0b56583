//! Names written once per chunk: a checkpoint chunk starts with a table of
//! the names its changes use (labels, relationship types, the keys of an
//! entity's property map), each spelled once, and its changes give a name
//! as its number in that table. A loaded graph has a few dozen names and
//! millions of entities, each of which the log's form (names spelled in
//! place) would spell its names for again: SNB SF0.1's checkpoint was
//! 118.7 MB for 88 MB of CSV, much of it the same few names.
//!
//! A chunk: name count (varint) | each name (length-prefixed) | a change
//! list of the codec whose names are varint numbers into the table.

use super::export::encode_exported;
use super::{decode_changes_named, put_str, put_varint, Reader};
use nereid_storage::{Change, Exported};
use std::collections::HashMap;

/// How an encoder writes a name.
pub(super) trait NameOut<'a> {
    fn put(&mut self, out: &mut Vec<u8>, name: &'a str);
}

/// How a decoder reads a name back.
pub(super) trait NameIn {
    fn get(&self, r: &mut Reader<'_>) -> Result<String, String>;
}

/// Names spelled in place (the log's records, and map values' keys).
pub(super) struct Spelled;

impl<'a> NameOut<'a> for Spelled {
    fn put(&mut self, out: &mut Vec<u8>, name: &'a str) {
        put_str(out, name);
    }
}

impl NameIn for Spelled {
    fn get(&self, r: &mut Reader<'_>) -> Result<String, String> {
        r.string()
    }
}

/// Names a chunk's table finds by a scan before it keeps a map: a chunk
/// of a loaded graph names a handful (a label and its keys, or a type),
/// and hashing each name of each change with SipHash was ~3% of a bulk
/// load's samples, more than comparing it against a few short names.
const SCANNED_NAMES: usize = 16;

/// Slots of a chunk's cache of names by address (a power of two).
const BY_ADDRESS: usize = 32;

/// The names of one chunk as it is encoded, numbered in first use order.
#[derive(Default)]
struct NameTable<'a> {
    names: Vec<&'a str>,
    /// Every name by number, once the table outgrows [`SCANNED_NAMES`].
    numbers: HashMap<&'a str, u64, foldhash::fast::RandomState>,
    /// Recently numbered names by address and length, direct-mapped: a
    /// checkpoint's key, type and label names are the store's own strings,
    /// the same few addresses for every entity, and scanning the table
    /// for each was ~7% of a bulk load's checkpoint. Two names borrowed
    /// for `'a` at one address with one length are the same bytes.
    by_address: [(usize, usize, u64); BY_ADDRESS],
}

impl<'a> NameTable<'a> {
    fn number(&mut self, name: &'a str) -> u64 {
        let address = name.as_ptr() as usize;
        let slot = ((address >> 4) ^ (address >> 10)) % BY_ADDRESS;
        let (at, len, number) = self.by_address[slot];
        if at == address && len == name.len() && at != 0 {
            return number;
        }
        let number = self.look_up(name);
        self.by_address[slot] = (address, name.len(), number);
        number
    }

    /// The number of `name`, given it one if it has none.
    fn look_up(&mut self, name: &'a str) -> u64 {
        if self.names.len() <= SCANNED_NAMES {
            // Key and type names come from the store's name tables, the
            // same string each time: the address finds them without
            // comparing bytes (labels are spelled per entity).
            let at = (self.names.iter())
                .position(|n| std::ptr::eq(*n, name))
                .or_else(|| self.names.iter().position(|n| *n == name));
            if let Some(at) = at {
                return at as u64;
            }
        } else if let Some(&number) = self.numbers.get(name) {
            return number;
        }
        self.names.push(name);
        if self.names.len() > SCANNED_NAMES {
            if self.numbers.is_empty() {
                let numbered = self.names.iter().enumerate();
                self.numbers = numbered.map(|(at, &n)| (n, at as u64)).collect();
            } else {
                self.numbers.insert(name, self.names.len() as u64 - 1);
            }
        }
        self.names.len() as u64 - 1
    }
}

impl<'a> NameOut<'a> for NameTable<'a> {
    fn put(&mut self, out: &mut Vec<u8>, name: &'a str) {
        let number = self.number(name);
        put_varint(out, number);
    }
}

/// The names of one chunk as it is decoded.
struct Numbered(Vec<String>);

impl NameIn for Numbered {
    fn get(&self, r: &mut Reader<'_>) -> Result<String, String> {
        let number = r.varint()?;
        usize::try_from(number)
            .ok()
            .and_then(|at| self.0.get(at))
            .cloned()
            .ok_or_else(|| format!("name number {number} of a table of {}", self.0.len()))
    }
}

/// Appends one chunk of `changes` (its name table, then the changes) to
/// `out`; `scratch` is reused between chunks for the changes' bytes.
/// (A checkpoint writes [`encode_exported_chunk`]; this is its `Change`
/// form, which the tests hold it to.)
#[cfg(test)]
pub(crate) fn encode_numbered_chunk(
    changes: &[Change],
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<(), &'static str> {
    numbered_chunk(out, scratch, |list, table| {
        super::encode_changes_named(changes, list, table)
    })
}

/// [`encode_numbered_chunk`] of a store's exported entities: the bytes
/// their `Change` form encodes to.
pub(crate) fn encode_exported_chunk(
    items: &[Exported<'_>],
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<(), &'static str> {
    numbered_chunk(out, scratch, |list, table| {
        encode_exported(items, list, table)
    })
}

/// Appends a chunk: the table of the names `list` numbered while it
/// wrote the change list into `scratch`, then that list.
fn numbered_chunk<'a>(
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    list: impl FnOnce(&mut Vec<u8>, &mut NameTable<'a>) -> Result<(), &'static str>,
) -> Result<(), &'static str> {
    let mut table = NameTable::default();
    scratch.clear();
    list(scratch, &mut table)?;
    put_varint(out, table.names.len() as u64);
    for name in &table.names {
        put_str(out, name);
    }
    out.extend_from_slice(scratch);
    Ok(())
}

/// Decodes a chunk written by [`encode_numbered_chunk`].
pub(crate) fn decode_numbered_chunk(chunk: &[u8]) -> Result<Vec<Change>, String> {
    let mut r = Reader { buf: chunk };
    let count = r.len()?;
    let mut names = Vec::with_capacity(count);
    for _ in 0..count {
        names.push(r.string()?);
    }
    decode_changes_named(&mut r, &Numbered(names))
}

#[cfg(test)]
mod tests {
    use super::super::tests::every_change;
    use super::*;

    #[test]
    fn tables_past_the_scanned_names_number_each_name_once() {
        let names: Vec<String> = (0..3 * SCANNED_NAMES).map(|i| format!("k{i}")).collect();
        let mut table = NameTable::default();
        for round in 0..3 {
            for (at, name) in names.iter().enumerate().take((round + 1) * SCANNED_NAMES) {
                assert_eq!(table.number(name), at as u64, "{name} in round {round}");
            }
        }
        assert_eq!(
            table.names,
            names.iter().map(String::as_str).collect::<Vec<_>>()
        );
    }

    #[test]
    fn names_found_by_address_are_told_apart_by_length_and_equal_by_bytes() {
        let text = String::from("abcabc");
        let copies: Vec<String> = (0..3 * BY_ADDRESS).map(|_| "ab".to_string()).collect();
        let mut table = NameTable::default();
        for round in 0..2 {
            // One address, three lengths: three names.
            assert_eq!(table.number(&text[..1]), 0, "round {round}");
            assert_eq!(table.number(&text[..2]), 1, "round {round}");
            assert_eq!(table.number(&text[..3]), 2, "round {round}");
            // The same bytes elsewhere: the same name.
            assert_eq!(table.number(&text[3..4]), 0, "round {round}");
            for copy in &copies {
                assert_eq!(table.number(copy), 1, "round {round}");
            }
        }
        assert_eq!(table.names, ["a", "ab", "abc"]);
    }

    #[test]
    fn numbered_chunks_round_trip_and_spell_each_name_once() {
        let changes = every_change();
        let (mut chunk, mut scratch) = (Vec::new(), Vec::new());
        encode_numbered_chunk(&changes, &mut chunk, &mut scratch).unwrap();
        assert_eq!(decode_numbered_chunk(&chunk).unwrap(), changes);
        // "k" names the property of 36 SetNode/RelProperty changes: once.
        assert_eq!(chunk.windows(2).filter(|w| w == b"\x01k").count(), 1);
        let mut spelled = Vec::new();
        super::super::encode_changes(&changes, &mut spelled).unwrap();
        assert!(chunk.len() < spelled.len());
    }

    #[test]
    fn malformed_numbered_chunks_are_errors_not_panics() {
        let (mut chunk, mut scratch) = (Vec::new(), Vec::new());
        encode_numbered_chunk(&every_change(), &mut chunk, &mut scratch).unwrap();
        for cut in 0..chunk.len() {
            assert!(
                decode_numbered_chunk(&chunk[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        // An `AddLabel` (tag 5, node 0) naming name 0: of a table of one
        // name it is "L", of an empty table an error.
        let label_0 = [1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let of_l = [&[1, 1, b'L'][..], &label_0].concat();
        assert_eq!(
            decode_numbered_chunk(&of_l).unwrap(),
            vec![Change::AddLabel {
                id: nereid_values::NodeId(0),
                label: "L".into()
            }]
        );
        assert!(decode_numbered_chunk(&[&[0][..], &label_0].concat()).is_err());
    }
}
