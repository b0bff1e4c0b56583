//! Bit layouts of guis and statement ids (SIDs), and the partition math.
//!
//! Gui (dictionary id), 64 bits:
//! ```text
//! [63..60] relation tag | [59..44] zero | [43..16] collision counter (28) | [15..0] murmur3 hash (16)
//! ```
//! The hash sits in the least significant bits so that "low bits of S" is a
//! uniform partitioning key; the zero gap keeps the low 48 bits (what
//! `NodeId::external` reports) unique within one dictionary.
//!
//! SID (the I column), 64 bits:
//! ```text
//! [63..60] relation tag | [59..48] zero | [47..28] partition (20) | [27..0] partition-local id (28)
//! ```
//! The low 48 bits are unique within one relation, so `RelId::external`
//! works, and the partition of a SID is readable without any lookup (the
//! I-index of that partition then finds the tuple).

/// Relation tags (top 4 bits of guis and SIDs). 0 is never used, so a zero
/// id is recognisably invalid.
pub(crate) const TAG_VERT: u8 = 1;
pub(crate) const TAG_LIT: u8 = 2;
pub(crate) const TAG_VP: u8 = 3;
pub(crate) const TAG_E: u8 = 4;
pub(crate) const TAG_EP: u8 = 5;

const TAG_SHIFT: u32 = 60;
const HASH_BITS: u32 = 16;
pub(crate) const COUNTER_BITS: u32 = 28;
const PARTITION_SHIFT: u32 = 28;
pub(crate) const LOCAL_BITS: u32 = 28;
/// Partition numbers in a SID have 20 bits; REL_E uses `P * P` cells, so
/// `P <= 1024`.
pub(crate) const MAX_PARTITIONS_PER_DIM: usize = 1024;

/// The seed of the murmur3 hash. It is part of the persistent format: vertex
/// guis are written to the log and checked against the hash on replay.
const HASH_SEED: u32 = 0x4e52_4431;

#[inline]
pub(crate) fn tag_of(id: u64) -> u8 {
    (id >> TAG_SHIFT) as u8
}

/// The 16-bit murmur3 hash of a lexical form: the low bits of
/// MurmurHash3 x64_128. Computed over the slice by `fastmurmur3` (the
/// `murmur3` crate reads through `std::io::Read`, ~4x slower for short
/// forms, a few percent of a bulk load); a test holds the two equal, since
/// the value is part of the persistent format.
pub(crate) fn hash16(bytes: &[u8]) -> u16 {
    let full = fastmurmur3::murmur3_x64_128(bytes, u64::from(HASH_SEED));
    (full & 0xffff) as u16
}

/// The vertex gui whose low 48 bits are `low` (what `NodeId::external`
/// reports); the caller checks that such a vertex exists.
pub(crate) fn vertex_gui_from_external(low: u64) -> u64 {
    (u64::from(TAG_VERT) << TAG_SHIFT) | low
}

pub(crate) fn make_gui(tag: u8, counter: u32, hash: u16) -> u64 {
    (u64::from(tag) << TAG_SHIFT) | (u64::from(counter) << HASH_BITS) | u64::from(hash)
}

/// `(tag, counter, hash)` of a gui, or `None` when the reserved bits are set.
#[inline]
pub(crate) fn split_gui(gui: u64) -> Option<(u8, u32, u16)> {
    let middle = (gui >> (HASH_BITS + COUNTER_BITS)) & ((1 << (TAG_SHIFT - 44)) - 1);
    if middle != 0 {
        return None;
    }
    let counter = ((gui >> HASH_BITS) & ((1 << COUNTER_BITS) - 1)) as u32;
    Some((tag_of(gui), counter, (gui & 0xffff) as u16))
}

pub(crate) fn make_sid(tag: u8, partition: usize, local: u32) -> u64 {
    (u64::from(tag) << TAG_SHIFT) | ((partition as u64) << PARTITION_SHIFT) | u64::from(local)
}

/// `(tag, partition, local)` of a SID, or `None` when the reserved bits are set.
pub(crate) fn split_sid(sid: u64) -> Option<(u8, usize, u32)> {
    if (sid >> 48) & 0xfff != 0 {
        return None;
    }
    let partition = ((sid >> PARTITION_SHIFT) & ((1 << 20) - 1)) as usize;
    let local = (sid & ((1 << LOCAL_BITS) - 1)) as u32;
    Some((tag_of(sid), partition, local))
}

/// Normalises a configured partition count: at least 1, at most
/// [`MAX_PARTITIONS_PER_DIM`], rounded up to a power of two (the partition of
/// a gui is then a mask of its hash bits).
pub(crate) fn normalize_partitions(requested: usize) -> usize {
    requested
        .clamp(1, MAX_PARTITIONS_PER_DIM)
        .next_power_of_two()
}

/// The 1D partition of a vertex gui (REL_VP): the low bits of its hash.
pub(crate) fn vertex_partition(gui: u64, partitions: usize) -> usize {
    (gui as usize) & (partitions - 1)
}

/// The REL_E grid cell of an edge `src -> dst`: row = partition of S, column
/// = partition of O. Edge properties live in the same cell.
pub(crate) fn edge_cell(src: u64, dst: u64, partitions: usize) -> usize {
    vertex_partition(src, partitions) * partitions + vertex_partition(dst, partitions)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The whole 128-bit hash, not only the 16 bits kept, agrees with
        /// the `murmur3` crate's for every length around the block size.
        #[test]
        fn the_hash_is_the_murmur3_crates(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            let reference = murmur3::murmur3_x64_128(&mut &bytes[..], HASH_SEED).unwrap();
            prop_assert_eq!(fastmurmur3::murmur3_x64_128(&bytes, u64::from(HASH_SEED)), reference);
        }
    }

    #[test]
    fn hash16_of_known_forms_is_stable() {
        // Pinned: a change here changes every stored gui.
        let got: Vec<u16> = ["", "a", "person-123456", "n1000000"]
            .iter()
            .map(|form| hash16(form.as_bytes()))
            .collect();
        assert_eq!(got, [64255, 42689, 31872, 4794]);
    }

    #[test]
    fn gui_round_trips_and_external_part_is_unique() {
        let a = make_gui(TAG_VERT, 5, 0xbeef);
        assert_eq!(split_gui(a), Some((TAG_VERT, 5, 0xbeef)));
        let b = make_gui(TAG_VERT, 6, 0xbeef);
        assert_ne!(a & ((1 << 48) - 1), b & ((1 << 48) - 1));
        assert_eq!(split_gui(a | (1 << 50)), None);
    }

    #[test]
    fn sid_round_trips() {
        let sid = make_sid(TAG_E, 1023 * 1024 + 7, (1 << 28) - 1);
        assert_eq!(
            split_sid(sid),
            Some((TAG_E, 1023 * 1024 + 7, (1 << 28) - 1))
        );
        assert_eq!(tag_of(sid), TAG_E);
        assert_eq!(split_sid(sid | (1 << 55)), None);
    }

    #[test]
    fn partition_math() {
        assert_eq!(normalize_partitions(0), 1);
        assert_eq!(normalize_partitions(3), 4);
        assert_eq!(normalize_partitions(1 << 20), MAX_PARTITIONS_PER_DIM);
        let g = make_gui(TAG_VERT, 9, 0b1011);
        assert_eq!(vertex_partition(g, 4), 0b11);
        assert_eq!(vertex_partition(g, 1), 0);
        let h = make_gui(TAG_VERT, 1, 0b0110);
        assert_eq!(edge_cell(g, h, 4), 3 * 4 + 2);
        assert_eq!(edge_cell(h, g, 4), 2 * 4 + 3);
    }

    #[test]
    fn hash_is_deterministic_and_spreads() {
        assert_eq!(hash16(b"abc"), hash16(b"abc"));
        let distinct: std::collections::HashSet<u16> = (0..1000)
            .map(|i| hash16(format!("n{i}").as_bytes()))
            .collect();
        assert!(distinct.len() > 950);
        // every partition of 4 receives vertices
        let mut seen = [0usize; 4];
        for i in 0..400 {
            seen[(hash16(format!("n{i}").as_bytes()) & 3) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 50), "{seen:?}");
    }
}
