//! Splitting text into words. `words` follows the word boundaries of
//! Unicode's UAX #29, which Lucene's standard tokenizer implements, for the
//! cases text meets in practice: runs of letters and digits are words;
//! `'`, `’`, `.` and `·` join two letters ("don't", "u.s.a"), `.`, `,`
//! and `;` join two digits ("3.14", "1,000"), `_` joins anything; every
//! ideograph or kana is a word of its own; everything else separates.

/// Characters that form a word of their own (Lucene's IDEOGRAPHIC,
/// HIRAGANA and KATAKANA token types; a run of katakana stays one word
/// in UAX #29, a simplification here keeps each one apart).
fn is_single(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FFFF) // CJK extensions B-F
}

fn is_word(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !is_single(c)
}

fn joins_letters(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '.' | '\u{00B7}')
}

fn joins_digits(c: char) -> bool {
    matches!(c, '.' | ',' | ';' | '\'' | '\u{2019}')
}

/// The words of `text`, in order.
pub(crate) fn words(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        if is_single(c) {
            out.push(&text[start..start + c.len_utf8()]);
            i += 1;
            continue;
        }
        if !is_word(c) {
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < chars.len() {
            let c = chars[j].1;
            if is_word(c) {
                j += 1;
                continue;
            }
            let (before, after) = (chars[j - 1].1, chars.get(j + 1).map(|p| p.1));
            let joined = after.is_some_and(|a| {
                (joins_letters(c) && before.is_alphabetic() && a.is_alphabetic())
                    || (joins_digits(c) && before.is_numeric() && a.is_numeric())
            });
            if joined {
                j += 2;
            } else {
                break;
            }
        }
        let end = chars.get(j).map_or(text.len(), |p| p.0);
        out.push(&text[start..end]);
        i = j;
    }
    out
}

/// Runs of letters (Lucene's letter tokenizer, the `simple` analyzer's).
pub(crate) fn letter_runs(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_uax29_in_the_common_cases() {
        assert_eq!(
            words("Don't stop: 3.14, 1,000 and U.S.A. e-mail foo_bar!"),
            ["Don't", "stop", "3.14", "1,000", "and", "U.S.A", "e", "mail", "foo_bar"]
        );
        assert_eq!(words("日本語 abc"), ["日", "本", "語", "abc"]);
        assert_eq!(words("  ...  "), Vec::<&str>::new());
        assert_eq!(words("x2y 42"), ["x2y", "42"]);
    }

    #[test]
    fn letter_runs_split_at_digits_and_punctuation() {
        assert_eq!(letter_runs("R2-D2 isn't"), ["R", "D", "isn", "t"]);
    }
}
