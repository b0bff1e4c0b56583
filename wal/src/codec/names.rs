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
//!
//! Since checkpoint format 3, a chunk also writes the ids of its
//! `CreateNode` and `CreateRel` records (node id; relationship id, source,
//! target) as zigzag varints of the difference from the same field of
//! the chunk's record before (0 before the first), where the log writes 8
//! bytes each: an export lists a cell's relationships with consecutive
//! ids, sources ascending per type and targets ascending per source, so
//! most differences take one to three bytes. A relationship record of
//! SNB SF0.1 was 28 bytes, 25 of them its head; the checkpoint is what a
//! bulk load writes to be durable, the disk's time at 10x scale
//! (benches/RESULTS.md, session 38).

use super::export::encode_exported;
use super::{decode_changes_named, put_str, put_u64, put_varint, Reader};
use nereid_storage::{Change, Exported};
use std::cell::Cell;
use std::collections::HashMap;

/// An id field of an entity record's head, each differenced against its
/// own kind in a chunk.
#[derive(Clone, Copy)]
pub(super) enum IdField {
    Node = 0,
    Rel = 1,
    Src = 2,
    Dst = 3,
}

/// How an encoder writes a name, and an entity head's ids.
pub(super) trait NameOut<'a> {
    fn put(&mut self, out: &mut Vec<u8>, name: &'a str);

    /// An id of a `CreateNode`/`CreateRel` head: 8 bytes unless the
    /// chunk differences them.
    fn put_id(&mut self, out: &mut Vec<u8>, _field: IdField, id: u64) {
        put_u64(out, id);
    }
}

/// How a decoder reads a name back, and an entity head's ids.
pub(super) trait NameIn {
    fn get(&self, r: &mut Reader<'_>) -> Result<String, String>;

    fn get_id(&self, r: &mut Reader<'_>, _field: IdField) -> Result<u64, String> {
        r.u64()
    }
}

/// The ids a chunk's records write as differences: the last of each
/// [`IdField`].
#[derive(Default)]
struct LastIds([u64; 4]);

impl LastIds {
    /// `id` as the zigzag difference from the field's last id.
    fn put(&mut self, out: &mut Vec<u8>, field: IdField, id: u64) {
        let last = std::mem::replace(&mut self.0[field as usize], id);
        let delta = id.wrapping_sub(last) as i64;
        put_varint(out, ((delta << 1) ^ (delta >> 63)) as u64);
    }

    /// The id whose difference from the field's last id is the next
    /// zigzag varint of `r`.
    fn get(&mut self, r: &mut Reader<'_>, field: IdField) -> Result<u64, String> {
        let zigzag = r.varint()?;
        let delta = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
        let id = self.0[field as usize].wrapping_add(delta as u64);
        self.0[field as usize] = id;
        Ok(id)
    }
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

/// The names of one chunk as it is encoded, numbered in first use order,
/// and its records' last ids.
#[derive(Default)]
struct NameTable<'a> {
    names: Vec<&'a str>,
    /// Every name by number, once the table outgrows [`SCANNED_NAMES`].
    numbers: HashMap<&'a str, u64, foldhash::fast::RandomState>,
    /// `None`: ids in 8 bytes (format 2, which the tests still write).
    ids: Option<LastIds>,
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

    fn put_id(&mut self, out: &mut Vec<u8>, field: IdField, id: u64) {
        match &mut self.ids {
            Some(ids) => ids.put(out, field, id),
            None => put_u64(out, id),
        }
    }
}

/// The names of one chunk as it is decoded, and its records' last ids
/// (`None`: ids in 8 bytes, format 2).
struct Numbered {
    names: Vec<String>,
    ids: Option<Cell<LastIds>>,
}

impl NameIn for Numbered {
    fn get(&self, r: &mut Reader<'_>) -> Result<String, String> {
        let number = r.varint()?;
        usize::try_from(number)
            .ok()
            .and_then(|at| self.names.get(at))
            .cloned()
            .ok_or_else(|| format!("name number {number} of a table of {}", self.names.len()))
    }

    fn get_id(&self, r: &mut Reader<'_>, field: IdField) -> Result<u64, String> {
        match &self.ids {
            Some(cell) => {
                let mut ids = cell.take();
                let id = ids.get(r, field);
                cell.set(ids);
                id
            }
            None => r.u64(),
        }
    }
}

/// How a chunk writes its records' ids: differenced (format 3) or in 8
/// bytes (format 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChunkIds {
    Differenced,
    Fixed,
}

/// Appends one chunk of `changes` (its name table, then the changes) to
/// `out`; `scratch` is reused between chunks for the changes' bytes.
/// (A checkpoint writes [`encode_exported_chunk`]; this is its `Change`
/// form, which the tests hold it to.)
#[cfg(test)]
pub(crate) fn encode_numbered_chunk(
    changes: &[Change],
    ids: ChunkIds,
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<(), &'static str> {
    numbered_chunk(out, scratch, ids, |list, table| {
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
    numbered_chunk(out, scratch, ChunkIds::Differenced, |list, table| {
        encode_exported(items, list, table)
    })
}

/// Appends a chunk: the table of the names `list` numbered while it
/// wrote the change list into `scratch`, then that list.
fn numbered_chunk<'a>(
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
    ids: ChunkIds,
    list: impl FnOnce(&mut Vec<u8>, &mut NameTable<'a>) -> Result<(), &'static str>,
) -> Result<(), &'static str> {
    let mut table = NameTable {
        ids: (ids == ChunkIds::Differenced).then(LastIds::default),
        ..NameTable::default()
    };
    scratch.clear();
    list(scratch, &mut table)?;
    put_varint(out, table.names.len() as u64);
    for name in &table.names {
        put_str(out, name);
    }
    out.extend_from_slice(scratch);
    Ok(())
}

/// Decodes a chunk written by [`encode_numbered_chunk`] with `ids`.
pub(crate) fn decode_numbered_chunk(chunk: &[u8], ids: ChunkIds) -> Result<Vec<Change>, String> {
    let mut r = Reader { buf: chunk };
    let count = r.len()?;
    let mut names = Vec::with_capacity(count);
    for _ in 0..count {
        names.push(r.string()?);
    }
    let ids = (ids == ChunkIds::Differenced).then(Cell::default);
    decode_changes_named(&mut r, &Numbered { names, ids })
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
        encode_numbered_chunk(&changes, ChunkIds::Fixed, &mut chunk, &mut scratch).unwrap();
        assert_eq!(
            decode_numbered_chunk(&chunk, ChunkIds::Fixed).unwrap(),
            changes
        );
        // "k" names the property of 36 SetNode/RelProperty changes: once.
        assert_eq!(chunk.windows(2).filter(|w| w == b"\x01k").count(), 1);
        let mut spelled = Vec::new();
        super::super::encode_changes(&changes, &mut spelled).unwrap();
        assert!(chunk.len() < spelled.len());
    }

    #[test]
    fn malformed_numbered_chunks_are_errors_not_panics() {
        for ids in [ChunkIds::Fixed, ChunkIds::Differenced] {
            let (mut chunk, mut scratch) = (Vec::new(), Vec::new());
            encode_numbered_chunk(&every_change(), ids, &mut chunk, &mut scratch).unwrap();
            for cut in 0..chunk.len() {
                assert!(
                    decode_numbered_chunk(&chunk[..cut], ids).is_err(),
                    "cut at {cut} ({ids:?})"
                );
            }
        }

        // An `AddLabel` (tag 5, node 0) naming name 0: of a table of one
        // name it is "L", of an empty table an error.
        let label_0 = [1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let of_l = [&[1, 1, b'L'][..], &label_0].concat();
        assert_eq!(
            decode_numbered_chunk(&of_l, ChunkIds::Fixed).unwrap(),
            vec![Change::AddLabel {
                id: nereid_values::NodeId(0),
                label: "L".into()
            }]
        );
        assert!(decode_numbered_chunk(&[&[0][..], &label_0].concat(), ChunkIds::Fixed).is_err());
    }

    /// Records of a loaded cell: consecutive ids, sources ascending,
    /// targets anywhere (some below the record before, some far above),
    /// and ids at the ends of the range, where a difference wraps.
    fn rels(n: u64) -> Vec<Change> {
        let node =
            |i: u64| nereid_values::NodeId((3 << 60) | (i * 7919 % 50_000) << 16 | (i % 65_536));
        (0..n)
            .map(|i| Change::CreateRel {
                id: nereid_values::RelId((2 << 60) | (5 << 32) | i),
                src: node(i / 3),
                dst: match i % 5 {
                    0 => nereid_values::NodeId(u64::MAX - i),
                    1 => nereid_values::NodeId(i),
                    _ => node(i * 13 + 1),
                },
                rel_type: if i % 4 == 0 { "A" } else { "B" }.to_string(),
                properties: Default::default(),
            })
            .chain((0..n).map(|i| Change::CreateNode {
                id: node(i * 3),
                key: format!("k{i}"),
                labels: vec!["L".into()],
                properties: Default::default(),
            }))
            .collect()
    }

    #[test]
    fn differenced_ids_round_trip_and_take_fewer_bytes() {
        let changes = [rels(500), every_change()].concat();
        let mut sizes = Vec::new();
        for ids in [ChunkIds::Fixed, ChunkIds::Differenced] {
            let (mut chunk, mut scratch) = (Vec::new(), Vec::new());
            encode_numbered_chunk(&changes, ids, &mut chunk, &mut scratch).unwrap();
            assert_eq!(
                decode_numbered_chunk(&chunk, ids).unwrap(),
                changes,
                "{ids:?}"
            );
            sizes.push(chunk.len());
        }
        // Mostly small differences: well under two thirds of the bytes.
        assert!(sizes[1] * 3 < sizes[0] * 2, "{sizes:?}");
    }
}
