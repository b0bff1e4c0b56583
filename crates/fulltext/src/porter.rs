//! The Porter stemming algorithm (M. F. Porter, "An algorithm for suffix
//! stripping", Program 14(3), 1980), which Lucene's English analyzer
//! applies: steps 1a-5b over a lower-case word. Words of two letters or
//! fewer, and words with characters other than a-z, are left alone.

/// `word`'s stem.
pub(crate) fn stem(word: &str) -> String {
    if word.len() <= 2 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut w = Word(word.as_bytes().to_vec());
    w.step1a();
    w.step1b();
    w.step1c();
    w.step2();
    w.step3();
    w.step4();
    w.step5();
    String::from_utf8(w.0).unwrap_or_else(|_| word.to_string())
}

struct Word(Vec<u8>);

impl Word {
    /// Whether the letter at `i` is a consonant ('y' is one at the start
    /// or after a vowel).
    fn consonant(&self, i: usize) -> bool {
        match self.0[i] {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !self.consonant(i - 1),
            _ => true,
        }
    }

    /// The measure m of the first `len` letters: the number of
    /// vowel-consonant sequences in [C](VC)^m[V].
    fn measure(&self, len: usize) -> usize {
        let mut m = 0;
        let mut i = 0;
        while i < len && self.consonant(i) {
            i += 1;
        }
        loop {
            while i < len && !self.consonant(i) {
                i += 1;
            }
            if i >= len {
                return m;
            }
            while i < len && self.consonant(i) {
                i += 1;
            }
            m += 1;
        }
    }

    fn has_vowel(&self, len: usize) -> bool {
        (0..len).any(|i| !self.consonant(i))
    }

    /// The first `len` letters end in a double consonant.
    fn double_consonant(&self, len: usize) -> bool {
        len >= 2 && self.0[len - 1] == self.0[len - 2] && self.consonant(len - 1)
    }

    /// The first `len` letters end consonant-vowel-consonant, the last
    /// not w, x or y.
    fn cvc(&self, len: usize) -> bool {
        len >= 3
            && self.consonant(len - 3)
            && !self.consonant(len - 2)
            && self.consonant(len - 1)
            && !matches!(self.0[len - 1], b'w' | b'x' | b'y')
    }

    fn ends(&self, suffix: &str) -> bool {
        self.0.ends_with(suffix.as_bytes())
    }

    /// The length without `suffix` (which it ends in).
    fn stem_len(&self, suffix: &str) -> usize {
        self.0.len() - suffix.len()
    }

    fn replace(&mut self, suffix: &str, with: &str) {
        let n = self.stem_len(suffix);
        self.0.truncate(n);
        self.0.extend_from_slice(with.as_bytes());
    }

    /// Replaces the first of `rules` whose suffix the word ends in, when
    /// the stem before it has a measure above `min`.
    fn rules(&mut self, rules: &[(&str, &str)], min: usize) {
        for (suffix, with) in rules {
            if self.ends(suffix) {
                if self.measure(self.stem_len(suffix)) > min {
                    self.replace(suffix, with);
                }
                return;
            }
        }
    }

    fn step1a(&mut self) {
        if self.ends("sses") {
            self.replace("sses", "ss");
        } else if self.ends("ies") {
            self.replace("ies", "i");
        } else if !self.ends("ss") && self.ends("s") {
            self.replace("s", "");
        }
    }

    fn step1b(&mut self) {
        if self.ends("eed") {
            if self.measure(self.stem_len("eed")) > 0 {
                self.replace("eed", "ee");
            }
            return;
        }
        let cut = ["ed", "ing"]
            .into_iter()
            .find(|s| self.ends(s) && self.has_vowel(self.stem_len(s)));
        let Some(suffix) = cut else { return };
        self.replace(suffix, "");
        if self.ends("at") || self.ends("bl") || self.ends("iz") {
            self.0.push(b'e');
        } else if self.double_consonant(self.0.len())
            && !matches!(self.0.last(), Some(b'l' | b's' | b'z'))
        {
            self.0.pop();
        } else if self.measure(self.0.len()) == 1 && self.cvc(self.0.len()) {
            self.0.push(b'e');
        }
    }

    fn step1c(&mut self) {
        if self.ends("y") && self.has_vowel(self.stem_len("y")) {
            self.replace("y", "i");
        }
    }

    fn step2(&mut self) {
        self.rules(
            &[
                ("ational", "ate"),
                ("tional", "tion"),
                ("enci", "ence"),
                ("anci", "ance"),
                ("izer", "ize"),
                ("bli", "ble"),
                ("alli", "al"),
                ("entli", "ent"),
                ("eli", "e"),
                ("ousli", "ous"),
                ("ization", "ize"),
                ("ation", "ate"),
                ("ator", "ate"),
                ("alism", "al"),
                ("iveness", "ive"),
                ("fulness", "ful"),
                ("ousness", "ous"),
                ("aliti", "al"),
                ("iviti", "ive"),
                ("biliti", "ble"),
                ("logi", "log"),
            ],
            0,
        );
    }

    fn step3(&mut self) {
        self.rules(
            &[
                ("icate", "ic"),
                ("ative", ""),
                ("alize", "al"),
                ("iciti", "ic"),
                ("ical", "ic"),
                ("ful", ""),
                ("ness", ""),
            ],
            0,
        );
    }

    fn step4(&mut self) {
        const SUFFIXES: [&str; 19] = [
            "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
            "ou", "ism", "ate", "iti", "ous", "ive", "ize",
        ];
        // The longest suffix the word ends in decides ("ement" before
        // "ment" before "ent").
        let Some(suffix) = SUFFIXES
            .iter()
            .filter(|s| self.ends(s))
            .max_by_key(|s| s.len())
        else {
            return;
        };
        let n = self.stem_len(suffix);
        if *suffix == "ion" && !(n > 0 && matches!(self.0[n - 1], b's' | b't')) {
            return;
        }
        if self.measure(n) > 1 {
            self.0.truncate(n);
        }
    }

    fn step5(&mut self) {
        if self.ends("e") {
            let n = self.stem_len("e");
            let m = self.measure(n);
            if m > 1 || (m == 1 && !self.cvc(n)) {
                self.0.truncate(n);
            }
        }
        let n = self.0.len();
        if self.0.ends_with(b"ll") && self.measure(n) > 1 {
            self.0.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn porter_examples() {
        for (word, want) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("hopping", "hop"),
            ("falling", "fall"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("generalization", "gener"),
            ("running", "run"),
            ("runs", "run"),
            ("databases", "databas"),
            ("adjustment", "adjust"),
            ("controlling", "control"),
            ("roll", "roll"),
            ("graphs", "graph"),
        ] {
            assert_eq!(stem(word), want, "{word}");
        }
    }
}
