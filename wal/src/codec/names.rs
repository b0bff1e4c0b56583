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

use super::{decode_changes_named, encode_changes_named, put_str, put_varint, Reader};
use nereid_storage::Change;
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

/// The names of one chunk as it is encoded, numbered in first use order.
#[derive(Default)]
struct NameTable<'a> {
    numbers: HashMap<&'a str, u64>,
    names: Vec<&'a str>,
}

impl<'a> NameOut<'a> for NameTable<'a> {
    fn put(&mut self, out: &mut Vec<u8>, name: &'a str) {
        let names = &mut self.names;
        let number = *self.numbers.entry(name).or_insert_with(|| {
            names.push(name);
            names.len() as u64 - 1
        });
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
pub(crate) fn encode_numbered_chunk(
    changes: &[Change],
    out: &mut Vec<u8>,
    scratch: &mut Vec<u8>,
) -> Result<(), &'static str> {
    let mut table = NameTable::default();
    scratch.clear();
    encode_changes_named(changes, scratch, &mut table)?;
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
