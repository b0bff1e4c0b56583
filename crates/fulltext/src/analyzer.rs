//! The analyzers a full-text index may be created with (Neo4j's names),
//! each a tokenizer and filters as Lucene's analyzer of that name chains
//! them. Positions count every word the tokenizer produced, so a removed
//! stop word leaves a gap a phrase must span, as in Lucene.

use crate::porter::stem;
use crate::tokenize::{letter_runs, words};

/// Lucene's English stop words (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`),
/// which Neo4j's `standard` and `english` analyzers remove.
const ENGLISH_STOP_WORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with",
];

/// A full-text analyzer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Analyzer {
    /// Neo4j's default: the standard tokenizer, lower-cased, nothing removed.
    StandardNoStopWords,
    /// The standard tokenizer, lower-cased, English stop words removed.
    Standard,
    /// `standard`, with possessives dropped and words Porter-stemmed.
    English,
    /// Runs of letters, lower-cased.
    Simple,
    /// Whitespace-separated words as written.
    Whitespace,
    /// The whole value as one term, as written.
    Keyword,
}

/// One term of a text and its position among the text's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    pub position: u32,
}

impl Analyzer {
    /// Every analyzer, in `listAvailableAnalyzers`' order (by name).
    pub const ALL: [Analyzer; 6] = [
        Analyzer::English,
        Analyzer::Keyword,
        Analyzer::Simple,
        Analyzer::Standard,
        Analyzer::StandardNoStopWords,
        Analyzer::Whitespace,
    ];

    /// The analyzer Neo4j calls `name` (case-insensitively, as Neo4j
    /// looks analyzers up).
    pub fn from_name(name: &str) -> Option<Analyzer> {
        Analyzer::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
    }

    pub fn name(self) -> &'static str {
        match self {
            Analyzer::StandardNoStopWords => "standard-no-stop-words",
            Analyzer::Standard => "standard",
            Analyzer::English => "english",
            Analyzer::Simple => "simple",
            Analyzer::Whitespace => "whitespace",
            Analyzer::Keyword => "keyword",
        }
    }

    /// What `db.index.fulltext.listAvailableAnalyzers` says of it
    /// (Neo4j's words).
    pub fn description(self) -> &'static str {
        match self {
            Analyzer::StandardNoStopWords => {
                "The default analyzer. Similar to the 'standard' analyzer, but filters no stop words. Tokenizes on non-letter boundaries filters out punctuation. Does no stemming, but takes care to keep likely product names, URLs and email addresses as single terms."
            }
            Analyzer::Standard => {
                "The standard analyzer. Tokenizes on non-letter and filters out English stop words and punctuation. Does no stemming, but takes care to keep likely product names, URLs and email addresses as single terms."
            }
            Analyzer::English => "English analyzer with stemming and stop word filtering.",
            Analyzer::Simple => {
                "A simple analyzer that tokenizes at non-letter boundaries. No stemming or filtering. Works okay for most European languages, but is terrible for languages where words are not separated by spaces, such as many Asian languages."
            }
            Analyzer::Whitespace => {
                "Breaks text into terms by characters that are considered \"Java whitespace\"."
            }
            Analyzer::Keyword => {
                "Keyword analyzer \"tokenizes\" the text as a single term. Useful for zip-codes, ids, etc. Situations where complete and exact matches are desired."
            }
        }
    }

    /// The stop words it removes.
    pub fn stopwords(self) -> &'static [&'static str] {
        match self {
            Analyzer::Standard | Analyzer::English => &ENGLISH_STOP_WORDS,
            _ => &[],
        }
    }

    /// Whether it lower-cases terms (and so a query's prefix, wildcard and
    /// fuzzy terms, which are not analyzed, only normalized).
    fn lowercases(self) -> bool {
        !matches!(self, Analyzer::Whitespace | Analyzer::Keyword)
    }

    /// A term of a prefix, wildcard or fuzzy query as the index holds
    /// terms (Lucene's `Analyzer.normalize`).
    pub fn normalize(self, term: &str) -> String {
        if self.lowercases() {
            term.to_lowercase()
        } else {
            term.to_string()
        }
    }

    /// The terms of `text`.
    pub fn analyze(self, text: &str) -> Vec<Token> {
        let raw: Vec<&str> = match self {
            Analyzer::StandardNoStopWords | Analyzer::Standard | Analyzer::English => words(text),
            Analyzer::Simple => letter_runs(text),
            Analyzer::Whitespace => text.split_whitespace().collect(),
            Analyzer::Keyword => vec![text],
        };
        let mut out = Vec::with_capacity(raw.len());
        for (position, word) in raw.into_iter().enumerate() {
            let mut term = self.normalize(word);
            if self == Analyzer::English {
                term = drop_possessive(term);
            }
            if self.stopwords().contains(&term.as_str()) {
                continue;
            }
            if self == Analyzer::English {
                term = stem(&term);
            }
            out.push(Token {
                text: term,
                position: position as u32,
            });
        }
        out
    }
}

/// A word without a trailing `'s` (Lucene's English possessive filter).
fn drop_possessive(mut term: String) -> String {
    for suffix in ["'s", "\u{2019}s"] {
        if term.ends_with(suffix) {
            term.truncate(term.len() - suffix.len());
            break;
        }
    }
    term
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(a: Analyzer, text: &str) -> Vec<String> {
        a.analyze(text).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn each_analyzer_as_lucene_chains_it() {
        let text = "The Quick brown-fox isn't running to John's 2 houses";
        assert_eq!(
            terms(Analyzer::StandardNoStopWords, text),
            ["the", "quick", "brown", "fox", "isn't", "running", "to", "john's", "2", "houses"]
        );
        assert_eq!(
            terms(Analyzer::Standard, text),
            ["quick", "brown", "fox", "isn't", "running", "john's", "2", "houses"]
        );
        assert_eq!(
            terms(Analyzer::English, text),
            ["quick", "brown", "fox", "isn't", "run", "john", "2", "hous"]
        );
        assert_eq!(
            terms(Analyzer::Simple, text),
            ["the", "quick", "brown", "fox", "isn", "t", "running", "to", "john", "s", "houses"]
        );
        assert_eq!(
            terms(Analyzer::Whitespace, text),
            [
                "The",
                "Quick",
                "brown-fox",
                "isn't",
                "running",
                "to",
                "John's",
                "2",
                "houses"
            ]
        );
        assert_eq!(terms(Analyzer::Keyword, text), [text]);
    }

    #[test]
    fn removed_stop_words_leave_position_gaps() {
        let positions: Vec<u32> = Analyzer::Standard
            .analyze("quick and the dead")
            .iter()
            .map(|t| t.position)
            .collect();
        assert_eq!(positions, [0, 3]);
    }

    #[test]
    fn names_round_trip() {
        for a in Analyzer::ALL {
            assert_eq!(Analyzer::from_name(a.name()), Some(a));
        }
        assert_eq!(Analyzer::from_name("klingon"), None);
    }
}
