//! Lucene's classic query syntax, as Neo4j's full-text procedures accept
//! it: terms and `"quoted phrases"` (with `~slop`), `field:` before either,
//! `AND`/`&&`, `OR`/`||`, `NOT`/`!`, `+` and `-`, parenthesised groups,
//! `^boost`, `prefix*`, `wild?ca*rds`, `fuzzy~` (`~1`, `~2`), `[a TO b]` /
//! `{a TO b}` term ranges and `*:*`, with `\` escaping. Terms and phrases
//! go through the index's analyzer; prefix, wildcard, fuzzy and range
//! terms are only normalized, as Lucene's parser does. Clauses combine as
//! Lucene's: OR by default, an `AND` making both its neighbours required.

use crate::analyzer::Analyzer;

/// A query that is not Lucene syntax; the text is Lucene's `Cannot parse`
/// message, which Neo4j passes on.
#[derive(Debug, thiserror::Error, PartialEq)]
#[error("Cannot parse '{query}': {detail}")]
pub struct QueryError {
    query: String,
    detail: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Occur {
    Must,
    Should,
    MustNot,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Clause {
    occur: Occur,
    pub(crate) node: Node,
    pub(crate) boost: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Node {
    Bool(Vec<Clause>),
    Leaf(Leaf),
    /// `*:*`: every document.
    All,
}

/// One field's test: which field (`None`: every field of the index) and
/// what its terms must hold.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    pub field: Option<String>,
    pub matcher: Matcher,
}

/// What a leaf asks of a field's terms.
#[derive(Clone, Debug, PartialEq)]
pub enum Matcher {
    Term(String),
    /// Terms at these relative positions, within `slop` moves.
    Phrase {
        terms: Vec<(String, u32)>,
        slop: u32,
    },
    Prefix(String),
    /// `*` any run of characters, `?` any one.
    Wildcard(String),
    Fuzzy {
        term: String,
        edits: u32,
    },
    Range {
        lower: Option<String>,
        upper: Option<String>,
        inclusive_lower: bool,
        inclusive_upper: bool,
    },
}

impl Matcher {
    /// The edit distance of `term` when this fuzzy matcher takes it.
    pub(crate) fn fuzzy_distance(&self, term: &str) -> Option<u32> {
        let Matcher::Fuzzy { term: want, edits } = self else {
            return None;
        };
        let d = edit_distance(want, term);
        (d <= *edits).then_some(d)
    }

    /// Whether a single term satisfies the matcher (a phrase: whether the
    /// term is one of its words, which a document holding the phrase has).
    pub fn matches_term(&self, term: &str) -> bool {
        match self {
            Matcher::Term(t) => t == term,
            Matcher::Phrase { terms, .. } => terms.iter().any(|(t, _)| t == term),
            Matcher::Prefix(p) => term.starts_with(p.as_str()),
            Matcher::Wildcard(pattern) => wildcard(pattern, term),
            Matcher::Fuzzy { .. } => self.fuzzy_distance(term).is_some(),
            Matcher::Range {
                lower,
                upper,
                inclusive_lower,
                inclusive_upper,
            } => {
                let above = lower.as_deref().is_none_or(|l| {
                    if *inclusive_lower {
                        term >= l
                    } else {
                        term > l
                    }
                });
                let below = upper.as_deref().is_none_or(|u| {
                    if *inclusive_upper {
                        term <= u
                    } else {
                        term < u
                    }
                });
                above && below
            }
        }
    }

    /// The one term a document must hold for the matcher to match it, when
    /// there is one (a term, or a phrase's first word), so that candidates
    /// come from one posting list instead of a walk over the terms.
    pub fn exact_term(&self) -> Option<&str> {
        match self {
            Matcher::Term(t) => Some(t),
            Matcher::Phrase { terms, .. } => terms.first().map(|(t, _)| t.as_str()),
            _ => None,
        }
    }
}

/// A parsed query.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub(crate) root: Vec<Clause>,
}

impl Query {
    /// Parses `text`, analyzing its terms with `analyzer`.
    pub fn parse(text: &str, analyzer: Analyzer) -> Result<Query, QueryError> {
        let mut parser = Parser {
            text,
            chars: text.chars().collect(),
            at: 0,
            analyzer,
        };
        let root = parser.clauses(0)?;
        if parser.at < parser.chars.len() {
            return Err(parser.error_here());
        }
        Ok(Query { root })
    }

    /// The leaves that can make a document match (those under no `NOT`):
    /// every matching document satisfies one of them, unless the query
    /// matches every document ([`Query::matches_all`]).
    pub fn positive_leaves(&self) -> Vec<&Leaf> {
        let mut out = Vec::new();
        positive(&self.root, &mut out);
        out
    }

    /// Whether a `*:*` can make a document match.
    pub fn matches_all(&self) -> bool {
        fn any_all(clauses: &[Clause]) -> bool {
            clauses.iter().any(|c| {
                c.occur != Occur::MustNot
                    && match &c.node {
                        Node::All => true,
                        Node::Bool(inner) => any_all(inner),
                        Node::Leaf(_) => false,
                    }
            })
        }
        any_all(&self.root)
    }
}

fn positive<'a>(clauses: &'a [Clause], out: &mut Vec<&'a Leaf>) {
    for c in clauses.iter().filter(|c| c.occur != Occur::MustNot) {
        match &c.node {
            Node::Leaf(leaf) => out.push(leaf),
            Node::Bool(inner) => positive(inner, out),
            Node::All => {}
        }
    }
}

/// Whether a document's clauses hold: every required one matches, no
/// prohibited one does, and, without required ones, one optional one does.
/// The score is the sum of the matching clauses' (Lucene's Boolean query).
pub(crate) fn combine(
    clauses: &[Clause],
    mut score: impl FnMut(&Node) -> Option<f64>,
) -> Option<f64> {
    let mut total = 0.0;
    let mut required = false;
    let mut matched = false;
    for clause in clauses {
        let s = score(&clause.node);
        match clause.occur {
            Occur::MustNot => {
                if s.is_some() {
                    return None;
                }
            }
            Occur::Must => {
                required = true;
                total += s? * clause.boost;
                matched = true;
            }
            Occur::Should => {
                if let Some(s) = s {
                    total += s * clause.boost;
                    matched = true;
                }
            }
        }
    }
    (matched || required).then_some(total)
}

/// Characters with a meaning in the syntax (escape them with `\`).
fn special(c: char) -> bool {
    matches!(
        c,
        '+' | '-' | '!' | '(' | ')' | '{' | '}' | '[' | ']' | '^' | '"' | '~' | ':' | '\\' | '/'
    )
}

/// One word as written: its text with escapes resolved, and whether an
/// unescaped `*` or `?` was in it (and where).
struct Word {
    text: String,
    wild: Vec<usize>,
}

struct Parser<'t> {
    text: &'t str,
    chars: Vec<char>,
    at: usize,
    analyzer: Analyzer,
}

impl Parser<'_> {
    fn error(&self, detail: String) -> QueryError {
        QueryError {
            query: self.text.to_string(),
            detail,
        }
    }

    /// Lucene's message for an unexpected token (or the end) here
    /// (columns count from 0, as Lucene's do).
    fn error_here(&self) -> QueryError {
        let column = self.at;
        match self.chars.get(self.at) {
            None => self.error(format!(
                "Encountered \"<EOF>\" at line 1, column {}.",
                self.at
            )),
            Some(c) => self.error(format!(
                "Encountered \" \"{c}\" \"{c} \"\" at line 1, column {column}."
            )),
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    /// Whether the keyword `word` (followed by a separator) is next.
    fn keyword(&self, word: &str) -> bool {
        let n = word.chars().count();
        let matches = self.chars[self.at..]
            .iter()
            .take(n)
            .copied()
            .eq(word.chars());
        matches
            && self
                .chars
                .get(self.at + n)
                .is_none_or(|&c| c.is_whitespace() || c == '(' || c == '"')
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.keyword(s) || (!s.chars().all(char::is_alphabetic) && self.starts(s)) {
            self.at += s.chars().count();
            true
        } else {
            false
        }
    }

    fn starts(&self, s: &str) -> bool {
        self.chars[self.at..]
            .iter()
            .take(s.len())
            .copied()
            .eq(s.chars())
    }

    /// Clauses up to the end or a `)` (at `depth` > 0).
    fn clauses(&mut self, depth: usize) -> Result<Vec<Clause>, QueryError> {
        if depth > 64 {
            return Err(self.error("Too many nested groups.".into()));
        }
        let mut clauses: Vec<Clause> = Vec::new();
        // Whether a clause came before (one the analyzer dropped too).
        let mut seen = false;
        loop {
            self.skip_space();
            match self.peek() {
                None => break,
                Some(')') if depth > 0 => break,
                _ => {}
            }
            let conjunction_at = self.at;
            let and = self.eat("AND") || self.eat("&&");
            let or = !and && (self.eat("OR") || self.eat("||"));
            if (and || or) && !seen {
                return Err(self.error(format!(
                    "Encountered \" <{}> \"{} \"\" at line 1, column {}.",
                    if and { "AND" } else { "OR" },
                    if and { "AND" } else { "OR" },
                    conjunction_at
                )));
            }
            self.skip_space();
            let mut occur = Occur::Should;
            if self.eat("+") {
                occur = Occur::Must;
            } else if self.eat("-") || self.eat("!") || self.eat("NOT") {
                occur = Occur::MustNot;
            }
            self.skip_space();
            if self.peek().is_none() || self.peek() == Some(')') {
                return Err(self.error_here());
            }
            let (node, boost) = self.clause(depth)?;
            seen = true;
            if and {
                if let Some(last) = clauses.last_mut() {
                    if last.occur != Occur::MustNot {
                        last.occur = Occur::Must;
                    }
                }
                if occur == Occur::Should {
                    occur = Occur::Must;
                }
            }
            if let Some(node) = node {
                clauses.push(Clause { occur, node, boost });
            }
        }
        Ok(clauses)
    }

    /// One clause after its modifier: `field:` and a term, phrase, range or
    /// group, then `~` and `^`. `None`: the analyzer left nothing of it.
    fn clause(&mut self, depth: usize) -> Result<(Option<Node>, f64), QueryError> {
        let mut field = None;
        let start = self.at;
        if self.peek().is_some_and(|c| !special(c) || c == '\\') {
            let word = self.word()?;
            if self.peek() == Some(':') {
                self.at += 1;
                if word.text == "*" && self.starts("*") {
                    self.at += 1;
                    let boost = self.boost()?;
                    return Ok((Some(Node::All), boost));
                }
                field = Some(word.text);
            } else {
                self.at = start;
            }
        }
        let node = match self.peek() {
            Some('(') => {
                self.at += 1;
                let inner = self.clauses(depth + 1)?;
                if self.peek() != Some(')') {
                    return Err(self.error_here());
                }
                self.at += 1;
                let inner = inner
                    .into_iter()
                    .map(|c| with_field(c, field.as_deref()))
                    .collect::<Vec<_>>();
                (!inner.is_empty()).then_some(Node::Bool(inner))
            }
            Some('"') => self.phrase(field)?,
            Some('[') | Some('{') => Some(self.range(field)?),
            Some(c) if !special(c) || c == '\\' => {
                let word = self.word()?;
                self.term(field, word)?
            }
            _ => return Err(self.error_here()),
        };
        let boost = self.boost()?;
        Ok((node, boost))
    }

    fn boost(&mut self) -> Result<f64, QueryError> {
        if self.peek() != Some('^') {
            return Ok(1.0);
        }
        self.at += 1;
        self.number().ok_or_else(|| self.error_here())
    }

    /// A number (`2`, `0.5`) at the cursor.
    fn number(&mut self) -> Option<f64> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '.') {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        text.parse().ok()
    }

    /// A word up to whitespace or a special character (`-` and `+` may
    /// follow its first character, as in Lucene's terms).
    fn word(&mut self) -> Result<Word, QueryError> {
        let mut text = String::new();
        let mut wild = Vec::new();
        let mut first = true;
        while let Some(c) = self.peek() {
            if c == '\\' {
                let Some(&next) = self.chars.get(self.at + 1) else {
                    return Err(self.error("Term can not end with escape character.".into()));
                };
                text.push(next);
                self.at += 2;
            } else if c.is_whitespace() || (special(c) && (first || !matches!(c, '-' | '+'))) {
                break;
            } else {
                if c == '*' || c == '?' {
                    wild.push(text.len());
                }
                text.push(c);
                self.at += 1;
            }
            first = false;
        }
        Ok(Word { text, wild })
    }

    /// A term, prefix, wildcard or fuzzy clause from `word`.
    fn term(&mut self, field: Option<String>, word: Word) -> Result<Option<Node>, QueryError> {
        let leaf = |matcher| {
            Some(Node::Leaf(Leaf {
                field: field.clone(),
                matcher,
            }))
        };
        if self.peek() == Some('~') {
            self.at += 1;
            let similarity = self.number().unwrap_or(2.0);
            let term = self.analyzer.normalize(&word.text);
            let edits = if similarity >= 1.0 {
                similarity as u32
            } else {
                ((1.0 - similarity) * term.chars().count() as f64) as u32
            };
            if edits > 2 {
                return Err(self
                    .error("Fractional edit distances are not allowed; at most 2 edits.".into()));
            }
            return Ok(leaf(Matcher::Fuzzy { term, edits }));
        }
        if word.text == "*" && word.wild == [0] {
            return Ok(leaf(Matcher::Prefix(String::new())));
        }
        if !word.wild.is_empty() {
            let normalized = self.analyzer.normalize(&word.text);
            let only_trailing_star = word.wild == [word.text.len() - 1] && word.text.ends_with('*');
            return Ok(leaf(if only_trailing_star {
                let mut prefix = normalized;
                prefix.pop();
                Matcher::Prefix(prefix)
            } else {
                Matcher::Wildcard(normalized)
            }));
        }
        let tokens = self.analyzer.analyze(&word.text);
        Ok(match tokens.len() {
            0 => None,
            1 => leaf(Matcher::Term(tokens[0].text.clone())),
            _ => Some(Node::Bool(
                tokens
                    .into_iter()
                    .map(|t| Clause {
                        occur: Occur::Should,
                        node: Node::Leaf(Leaf {
                            field: field.clone(),
                            matcher: Matcher::Term(t.text),
                        }),
                        boost: 1.0,
                    })
                    .collect(),
            )),
        })
    }

    /// `"words"` and an optional `~slop`.
    fn phrase(&mut self, field: Option<String>) -> Result<Option<Node>, QueryError> {
        self.at += 1;
        let mut text = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(self.error(format!(
                        "Lexical error at line 1, column {}.  Encountered: <EOF> after prefix \"\\\"{text}\" (in lexical state 2)",
                        self.at + 1
                    )))
                }
                Some('"') => break,
                Some('\\') if self.at + 1 < self.chars.len() => {
                    text.push(self.chars[self.at + 1]);
                    self.at += 2;
                }
                Some(c) => {
                    text.push(c);
                    self.at += 1;
                }
            }
        }
        self.at += 1;
        let mut slop = 0;
        if self.peek() == Some('~') {
            self.at += 1;
            slop = self.number().unwrap_or(0.0) as u32;
        }
        let tokens = self.analyzer.analyze(&text);
        let Some(first) = tokens.first().map(|t| t.position) else {
            return Ok(None);
        };
        let matcher = if tokens.len() == 1 {
            Matcher::Term(tokens[0].text.clone())
        } else {
            Matcher::Phrase {
                terms: tokens
                    .into_iter()
                    .map(|t| (t.text, t.position - first))
                    .collect(),
                slop,
            }
        };
        Ok(Some(Node::Leaf(Leaf { field, matcher })))
    }

    /// `[a TO b]`, `{a TO b}` (either end `*`: open).
    fn range(&mut self, field: Option<String>) -> Result<Node, QueryError> {
        let inclusive_lower = self.peek() == Some('[');
        self.at += 1;
        self.skip_space();
        let lower = self.range_end()?;
        self.skip_space();
        if !self.eat("TO") {
            return Err(self.error_here());
        }
        self.skip_space();
        let upper = self.range_end()?;
        self.skip_space();
        let inclusive_upper = match self.peek() {
            Some(']') => true,
            Some('}') => false,
            _ => return Err(self.error_here()),
        };
        self.at += 1;
        Ok(Node::Leaf(Leaf {
            field,
            matcher: Matcher::Range {
                lower,
                upper,
                inclusive_lower,
                inclusive_upper,
            },
        }))
    }

    fn range_end(&mut self) -> Result<Option<String>, QueryError> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| !c.is_whitespace() && !matches!(c, ']' | '}'))
        {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        match text.as_str() {
            "" => Err(self.error_here()),
            "*" => Ok(None),
            t => Ok(Some(self.analyzer.normalize(t.trim_matches('"')))),
        }
    }
}

/// A group's clause under `field:` (`title:(a b)`): its unfielded leaves
/// take the field.
fn with_field(mut clause: Clause, field: Option<&str>) -> Clause {
    fn set(node: &mut Node, field: &str) {
        match node {
            Node::Leaf(leaf) if leaf.field.is_none() => leaf.field = Some(field.to_string()),
            Node::Bool(inner) => inner.iter_mut().for_each(|c| set(&mut c.node, field)),
            _ => {}
        }
    }
    if let Some(field) = field {
        set(&mut clause.node, field);
    }
    clause
}

/// Whether `term` matches `pattern` (`*`: any run, `?`: one character).
fn wildcard(pattern: &str, term: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = term.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// The edit distance between two terms counting a transposition of
/// neighbours as one edit (Lucene's fuzzy queries do).
fn edit_distance(a: &str, b: &str) -> u32 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i as u32;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j as u32;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = u32::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(q: &str) -> Query {
        Query::parse(q, Analyzer::StandardNoStopWords).unwrap()
    }

    fn occurs(q: &Query) -> Vec<Occur> {
        q.root.iter().map(|c| c.occur).collect()
    }

    #[test]
    fn and_makes_both_neighbours_required() {
        assert_eq!(
            occurs(&parse("a AND b c")),
            [Occur::Must, Occur::Must, Occur::Should]
        );
        assert_eq!(occurs(&parse("a OR b")), [Occur::Should, Occur::Should]);
        assert_eq!(
            occurs(&parse("+a -b !c NOT d")),
            [Occur::Must, Occur::MustNot, Occur::MustNot, Occur::MustNot]
        );
        assert_eq!(occurs(&parse("a AND NOT b")), [Occur::Must, Occur::MustNot]);
    }

    #[test]
    fn leaves_by_kind() {
        let q = parse("title:Foo* b?r~ baz~1 \"Quick Fox\"~2 x^2 [a TO c}");
        let matchers: Vec<&Matcher> = q.positive_leaves().iter().map(|l| &l.matcher).collect();
        assert_eq!(matchers[0], &Matcher::Prefix("foo".into()));
        assert_eq!(q.positive_leaves()[0].field.as_deref(), Some("title"));
        assert_eq!(
            matchers[1],
            &Matcher::Fuzzy {
                term: "b?r".into(),
                edits: 2
            }
        );
        assert_eq!(
            matchers[2],
            &Matcher::Fuzzy {
                term: "baz".into(),
                edits: 1
            }
        );
        assert_eq!(
            matchers[3],
            &Matcher::Phrase {
                terms: vec![("quick".into(), 0), ("fox".into(), 1)],
                slop: 2
            }
        );
        assert_eq!(q.root[4].boost, 2.0);
        assert!(matchers[5].matches_term("b") && !matchers[5].matches_term("c"));
    }

    #[test]
    fn groups_and_fields() {
        let q = parse("name:(alice OR bob) -(carol)");
        let leaves = q.positive_leaves();
        assert_eq!(leaves.len(), 2);
        assert!(leaves.iter().all(|l| l.field.as_deref() == Some("name")));
        assert!(parse("*:*").matches_all());
    }

    #[test]
    fn bad_syntax_is_refused_with_lucenes_words() {
        for q in ["a AND", "(a", "\"open", "a)", "AND a", "a^", "title:"] {
            let e = Query::parse(q, Analyzer::Standard).unwrap_err();
            assert!(
                e.to_string().starts_with(&format!("Cannot parse '{q}': ")),
                "{q}: {e}"
            );
        }
    }

    #[test]
    fn multi_term_helpers() {
        assert!(wildcard("f?o*r", "fooxbar"));
        assert!(!wildcard("f?o", "fo"));
        assert_eq!(edit_distance("graph", "grpah"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
