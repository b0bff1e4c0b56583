//! The postings of a full-text index: per key (field), every term ever
//! given an entity (committed or not, later replaced or deleted) with the
//! entities it was given to, and the field's statistics. Like a vector
//! index's graph (module `vector_ann`) it is a superset of what any
//! snapshot reads: a query takes the postings' candidates and decides and
//! scores each in the reader's view (module `fulltext_search`), so a stale
//! posting costs time, never a wrong answer. Nothing is removed; the
//! postings are rebuilt from the store at start-up
//! (docs/adr/0125-full-text-indexes-on-the-store.md).

use nereid_fulltext::{Analyzer, Matcher, Stats, Token};
use nereid_values::Value;
use parking_lot::RwLock;
use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One field's terms and statistics.
#[derive(Default)]
struct Field {
    terms: BTreeMap<String, Vec<u64>>,
    /// Entities ever given a string value of the field.
    entities: HashSet<u64>,
    /// Values written and their terms, for the mean length.
    values: u64,
    terms_written: u64,
}

pub(crate) struct FulltextPostings {
    pub(crate) analyzer: Analyzer,
    /// The index's keys, in order.
    keys: Vec<String>,
    fields: RwLock<Vec<Field>>,
    /// Bytes taken, estimated as terms and postings are added (read by
    /// metrics without the lock).
    bytes: AtomicUsize,
}

/// Estimated bytes of a new term's map entry (beside its text) and of one
/// entity in a field's set.
const TERM_OVERHEAD: usize = 64;
const ENTITY_BYTES: usize = 16;

impl FulltextPostings {
    pub(crate) fn new(analyzer: Analyzer, keys: &[String]) -> Self {
        FulltextPostings {
            analyzer,
            keys: keys.to_vec(),
            fields: RwLock::new(keys.iter().map(|_| Field::default()).collect()),
            bytes: AtomicUsize::new(0),
        }
    }

    /// Adds the terms of `values` (one per key; non-strings have none),
    /// just written to `entity`. Analyzed before the lock is taken.
    pub(crate) fn insert(&self, entity: u64, values: &[Value]) {
        let analyzed: Vec<(usize, Vec<String>, u64)> = values
            .iter()
            .enumerate()
            .filter_map(|(at, v)| {
                let tokens = analyze_value(self.analyzer, v)?;
                let count = tokens.len() as u64;
                let mut terms: Vec<String> = tokens.into_iter().map(|t| t.text).collect();
                terms.sort_unstable();
                terms.dedup();
                Some((at, terms, count))
            })
            .collect();
        if analyzed.is_empty() {
            return;
        }
        let mut added = 0;
        let mut fields = self.fields.write();
        for (at, terms, count) in analyzed {
            let field = &mut fields[at];
            if field.entities.insert(entity) {
                added += ENTITY_BYTES;
            }
            field.values += 1;
            field.terms_written += count;
            for term in terms {
                let len = term.len();
                let list = field.terms.entry(term).or_insert_with(|| {
                    added += len + TERM_OVERHEAD;
                    Vec::new()
                });
                if list.last() != Some(&entity) {
                    list.push(entity);
                    added += 8;
                }
            }
        }
        self.bytes.fetch_add(added, Ordering::Relaxed);
    }

    /// The positions of the keys a leaf looks in: the named one, or all.
    pub(crate) fn fields_of(&self, field: Option<&str>) -> Vec<usize> {
        match field {
            Some(name) => self
                .keys
                .iter()
                .position(|k| k == name)
                .into_iter()
                .collect(),
            None => (0..self.keys.len()).collect(),
        }
    }

    /// Every entity whose value of field `at` was ever given a term
    /// `matcher` takes (sorted, without repeats).
    pub(crate) fn candidates(&self, at: usize, matcher: &Matcher, out: &mut Vec<u64>) {
        let fields = self.fields.read();
        let terms = &fields[at].terms;
        if let Some(term) = matcher.exact_term() {
            out.extend(terms.get(term).into_iter().flatten());
            return;
        }
        let range = match matcher {
            Matcher::Prefix(p) => (Bound::Included(p.clone()), Bound::Unbounded),
            _ => (Bound::Unbounded, Bound::Unbounded),
        };
        for (term, list) in terms.range(range) {
            if let Matcher::Prefix(p) = matcher {
                if !term.starts_with(p.as_str()) {
                    break;
                }
            }
            if matcher.matches_term(term) {
                out.extend(list);
            }
        }
    }

    /// Bytes the postings take, estimated: each term's text and map
    /// entry, each posting, each entity of a field's set.
    pub(crate) fn approximate_bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }
}

/// The terms of an indexed value: a string's, or a list's strings' one
/// after another (Neo4j indexes lists of strings too); `None` for any
/// other value, which the index does not hold.
pub(crate) fn analyze_value(analyzer: Analyzer, value: &Value) -> Option<Vec<Token>> {
    match value {
        Value::String(text) => Some(analyzer.analyze(text)),
        Value::List(items) if items.iter().any(|i| matches!(i, Value::String(_))) => {
            let mut tokens: Vec<Token> = Vec::new();
            for item in items.iter() {
                let Value::String(text) = item else { continue };
                let base = tokens.last().map_or(0, |t| t.position + 1);
                tokens.extend(analyzer.analyze(text).into_iter().map(|t| Token {
                    position: base + t.position,
                    ..t
                }));
            }
            Some(tokens)
        }
        _ => None,
    }
}

/// The postings' statistics, read under the lock one number at a time
/// (a query never holds it while it reads the store).
impl Stats for FulltextPostings {
    fn doc_count(&self, field: &str) -> u64 {
        let Some(at) = self.keys.iter().position(|k| k == field) else {
            return 0;
        };
        self.fields.read()[at].entities.len() as u64
    }

    fn average_length(&self, field: &str) -> f64 {
        let Some(at) = self.keys.iter().position(|k| k == field) else {
            return 1.0;
        };
        let fields = self.fields.read();
        let f = &fields[at];
        if f.values == 0 {
            1.0
        } else {
            f.terms_written as f64 / f.values as f64
        }
    }

    fn doc_freq(&self, field: &str, term: &str) -> u64 {
        let Some(at) = self.keys.iter().position(|k| k == field) else {
            return 0;
        };
        self.fields.read()[at]
            .terms
            .get(term)
            .map_or(0, |l| l.len() as u64)
    }
}
