//! BM25 scores of one document for a query, as Lucene computes them
//! (`BM25Similarity`, k1 = 1.2, b = 0.75): per matching term
//! `idf * tf / (tf + k1 * (1 - b + b * dl / avgdl))` with
//! `idf = ln(1 + (N - df + 0.5) / (df + 0.5))`, summed over a Boolean
//! query's matching clauses and over the fields an unfielded term is
//! looked for in. A phrase scores like a term whose frequency is the
//! phrase's, with the sum of its words' idf; prefix, wildcard and range
//! clauses score a constant 1 (Lucene's constant-score rewrite); a fuzzy
//! term scores each near term times `1 - edits / length`.

use crate::analyzer::Token;
use crate::query::{combine, Leaf, Matcher, Node, Query};

const K1: f64 = 1.2;
const B: f64 = 0.75;

/// Collection statistics of one index, per field. They may count
/// documents no reader sees any more (Lucene's count deleted documents
/// until a merge too): scores shift slightly, matches never.
pub trait Stats {
    /// Documents with the field.
    fn doc_count(&self, field: &str) -> u64;
    /// The mean number of terms of the field, over those documents.
    fn average_length(&self, field: &str) -> f64;
    /// Documents whose field holds `term`.
    fn doc_freq(&self, field: &str, term: &str) -> u64;
}

/// One document: its fields (the index's properties it has) and their terms.
pub struct Doc {
    pub fields: Vec<(String, Vec<Token>)>,
}

impl Query {
    /// The document's score, `None` when it does not match.
    pub fn score(&self, doc: &Doc, stats: &dyn Stats) -> Option<f64> {
        combine(&self.root, |node| score_node(node, doc, stats))
    }
}

fn score_node(node: &Node, doc: &Doc, stats: &dyn Stats) -> Option<f64> {
    match node {
        Node::All => Some(1.0),
        Node::Bool(clauses) => combine(clauses, |n| score_node(n, doc, stats)),
        Node::Leaf(leaf) => score_leaf(leaf, doc, stats),
    }
}

/// The leaf's score summed over the fields it looks in.
fn score_leaf(leaf: &Leaf, doc: &Doc, stats: &dyn Stats) -> Option<f64> {
    let mut total = None;
    for (field, tokens) in &doc.fields {
        if leaf.field.as_ref().is_some_and(|f| f != field) {
            continue;
        }
        if let Some(s) = score_field(&leaf.matcher, field, tokens, stats) {
            *total.get_or_insert(0.0) += s;
        }
    }
    total
}

fn score_field(matcher: &Matcher, field: &str, tokens: &[Token], stats: &dyn Stats) -> Option<f64> {
    let bm25 = |idf: f64, tf: f64| {
        let avg = stats.average_length(field).max(1.0);
        let norm = K1 * (1.0 - B + B * tokens.len() as f64 / avg);
        idf * tf / (tf + norm)
    };
    let idf = |term: &str| {
        let n = stats.doc_count(field).max(1) as f64;
        let df = stats.doc_freq(field, term).max(1) as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    };
    match matcher {
        Matcher::Term(term) => {
            let tf = tokens.iter().filter(|t| &t.text == term).count();
            (tf > 0).then(|| bm25(idf(term), tf as f64))
        }
        Matcher::Phrase { terms, slop } => {
            let freq = phrase_freq(terms, *slop, tokens);
            (freq > 0).then(|| {
                let idf_sum: f64 = terms.iter().map(|(t, _)| idf(t)).sum();
                bm25(idf_sum, freq as f64)
            })
        }
        Matcher::Fuzzy { term, .. } => {
            let mut seen: Vec<&str> = Vec::new();
            let mut total = None;
            for token in tokens {
                if seen.contains(&token.text.as_str()) {
                    continue;
                }
                let Some(d) = matcher.fuzzy_distance(&token.text) else {
                    continue;
                };
                seen.push(&token.text);
                let tf = tokens.iter().filter(|t| t.text == token.text).count();
                let shorter = term.chars().count().min(token.text.chars().count()).max(1);
                let boost = (1.0 - f64::from(d) / shorter as f64).max(0.0);
                *total.get_or_insert(0.0) += bm25(idf(&token.text), tf as f64) * boost;
            }
            total
        }
        Matcher::Prefix(_) | Matcher::Wildcard(_) | Matcher::Range { .. } => tokens
            .iter()
            .any(|t| matcher.matches_term(&t.text))
            .then_some(1.0),
    }
}

/// How often the phrase occurs: start positions from which each word is
/// found at its offset, moved by at most `slop` positions in total.
fn phrase_freq(terms: &[(String, u32)], slop: u32, tokens: &[Token]) -> usize {
    let Some((first, _)) = terms.first() else {
        return 0;
    };
    tokens
        .iter()
        .filter(|start| &start.text == first)
        .filter(|start| {
            let mut moved = 0u32;
            terms[1..].iter().all(|(word, offset)| {
                let want = i64::from(start.position) + i64::from(*offset);
                let best = tokens
                    .iter()
                    .filter(|t| &t.text == word)
                    .map(|t| (i64::from(t.position) - want).unsigned_abs() as u32)
                    .min();
                match best {
                    Some(d) if moved + d <= slop => {
                        moved += d;
                        true
                    }
                    _ => false,
                }
            })
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Analyzer;

    /// Statistics of a fixed collection: `docs` documents of one field.
    struct Fixed(Vec<Vec<Token>>);

    impl Stats for Fixed {
        fn doc_count(&self, _: &str) -> u64 {
            self.0.len() as u64
        }
        fn average_length(&self, _: &str) -> f64 {
            self.0.iter().map(Vec::len).sum::<usize>() as f64 / self.0.len() as f64
        }
        fn doc_freq(&self, _: &str, term: &str) -> u64 {
            self.0
                .iter()
                .filter(|d| d.iter().any(|t| t.text == term))
                .count() as u64
        }
    }

    fn scores(query: &str, texts: &[&str]) -> Vec<Option<f64>> {
        let a = Analyzer::StandardNoStopWords;
        let docs: Vec<Vec<Token>> = texts.iter().map(|t| a.analyze(t)).collect();
        let stats = Fixed(docs.clone());
        let q = Query::parse(query, a).unwrap();
        docs.into_iter()
            .map(|tokens| {
                q.score(
                    &Doc {
                        fields: vec![("text".into(), tokens)],
                    },
                    &stats,
                )
            })
            .collect()
    }

    #[test]
    fn rarer_terms_and_shorter_fields_score_higher() {
        let s = scores(
            "graph",
            &[
                "graph database",
                "graph of a very long text indeed",
                "other",
            ],
        );
        assert!(s[0].unwrap() > s[1].unwrap());
        assert_eq!(s[2], None);
        let s = scores("graph OR rare", &["graph", "graph rare", "nothing"]);
        assert!(s[1].unwrap() > s[0].unwrap());
    }

    #[test]
    fn boolean_phrase_and_multi_term_matches() {
        let texts = [
            "the quick brown fox",
            "brown quick fox",
            "slow fox",
            "quickly",
        ];
        let matched =
            |q: &str| -> Vec<bool> { scores(q, &texts).iter().map(Option::is_some).collect() };
        assert_eq!(matched("\"quick brown\""), [true, false, false, false]);
        assert_eq!(matched("\"quick brown\"~2"), [true, true, false, false]);
        assert_eq!(matched("fox AND NOT slow"), [true, true, false, false]);
        assert_eq!(matched("+fox -brown"), [false, false, true, false]);
        assert_eq!(matched("quick*"), [true, true, false, true]);
        assert_eq!(matched("qu?ck"), [true, true, false, false]);
        assert_eq!(matched("quikc~1"), [true, true, false, false]);
        assert_eq!(matched("NOT fox"), [false, false, false, false]);
        assert_eq!(matched("text:slow"), [false, false, true, false]);
        assert_eq!(matched("title:slow"), [false, false, false, false]);
        assert_eq!(
            matched("(slow OR brown) AND fox"),
            [true, true, true, false]
        );
        assert_eq!(scores("quick*", &texts)[0], Some(1.0));
    }
}
