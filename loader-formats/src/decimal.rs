//! Ids in canonical decimal: the form of SNB's ids and of most generated
//! ones. Such a text and its number correspond one to one (no sign, no
//! leading zero, fits 64 bits), so a loader may look such an id up by its
//! number and find exactly the vertex of that text; a reader can then hand
//! a relationship's ends over as numbers, with no string per end
//! (docs/adr/0200-relationship-ends-as-decimal-numbers.md).

/// The most digits a `u64` always holds: any 19 digits are below
/// 10^19 < 2^64, so only a 20th digit can overflow.
const SAFE_DIGITS: usize = 19;

/// `id` as a number when it is one in canonical decimal, else `None`.
///
/// Why one pass without checks per digit: a load reads two ends per
/// relationship this way (SNB: 3.1 M), and checking every byte first and
/// then multiplying with overflow checks was a third of the reader's
/// samples (benches/RESULTS.md, session 38); only a 20th digit is checked.
pub fn canonical_decimal(id: &[u8]) -> Option<u64> {
    if id.is_empty() || id.len() > SAFE_DIGITS + 1 || (id[0] == b'0' && id.len() > 1) {
        return None;
    }
    let (head, last) = id.split_at(id.len().min(SAFE_DIGITS));
    let mut n = 0u64;
    for &byte in head {
        let digit = byte.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        n = n * 10 + u64::from(digit);
    }
    match last {
        [] => Some(n),
        [byte] => {
            let digit = byte.wrapping_sub(b'0');
            if digit > 9 {
                return None;
            }
            n.checked_mul(10)?.checked_add(u64::from(digit))
        }
        _ => None,
    }
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

    /// Agrees with the definition (a `u64` whose spelling is the text) on
    /// random texts: digit strings of every length around the limits,
    /// with a leading zero, a non-digit at any place, or bytes above 9.
    #[test]
    fn agrees_with_parsing_and_spelling_back() {
        let reference = |text: &[u8]| {
            let text = std::str::from_utf8(text).ok()?;
            let n: u64 = text.parse().ok()?;
            (n.to_string() == text).then_some(n)
        };
        let mut below = crate::test_random::below(0x9e37_79b9_7f4a_7c15);
        let alphabet = b"0123456789+-:/ a";
        for round in 0..200_000 {
            let len = below(23) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + below(10) as u8).collect();
            match round % 4 {
                0 if len > 0 => {
                    let at = below(len as u64) as usize;
                    text[at] = alphabet[below(alphabet.len() as u64) as usize];
                }
                1 if len > 0 => text[0] = b'1' + below(9) as u8,
                2 if len >= 20 => text[..20].copy_from_slice(b"18446744073709551615"),
                _ => {}
            }
            if round % 4 == 2 && len >= 20 {
                let last = below(10) as u8;
                text[19] = b'0' + last;
                text.truncate(20);
            }
            assert_eq!(canonical_decimal(&text), reference(&text), "{text:?}");
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
