//! Ids in canonical decimal: the form of SNB's ids and of most generated
//! ones. Such a text and its number correspond one to one (no sign, no
//! leading zero, fits 64 bits), so a loader may look such an id up by its
//! number and find exactly the vertex of that text; a reader can then hand
//! a relationship's ends over as numbers, with no string per end
//! (docs/adr/0200-relationship-ends-as-decimal-numbers.md).

/// `id` as a number when it is one in canonical decimal, else `None`.
pub fn canonical_decimal(id: &[u8]) -> Option<u64> {
    let canonical = !id.is_empty()
        && id.len() <= 20
        && id.iter().all(u8::is_ascii_digit)
        && (id[0] != b'0' || id.len() == 1);
    if !canonical {
        return None;
    }
    id.iter().try_fold(0u64, |n, &d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_only_canonical_decimals() {
        assert_eq!(canonical_decimal(b"0"), Some(0));
        assert_eq!(canonical_decimal(b"933"), Some(933));
        assert_eq!(
            canonical_decimal(b"18446744073709551615"),
            Some(u64::MAX),
            "the largest fits"
        );
        for text in [
            "",
            "007",
            "00",
            "+1",
            "-1",
            "1.0",
            " 1",
            "1e3",
            "٣",
            "18446744073709551616",
            "99999999999999999999",
            "100000000000000000000",
        ] {
            assert_eq!(canonical_decimal(text.as_bytes()), None, "{text:?}");
        }
    }

    /// One to one: every number's own spelling gives it back, and any text
    /// that gives a number is that number's spelling.
    #[test]
    fn a_number_and_its_spelling_correspond() {
        for n in [0u64, 1, 9, 10, 933, 10995116278291, u64::MAX - 1, u64::MAX] {
            assert_eq!(canonical_decimal(n.to_string().as_bytes()), Some(n));
        }
        for text in ["1", "10", "0", "4294967296", "01", "0x1"] {
            if let Some(n) = canonical_decimal(text.as_bytes()) {
                assert_eq!(n.to_string(), text);
            }
        }
    }
}
