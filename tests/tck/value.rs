//! TCK value notation: the cells of expected result tables and of `parameters are:`.
//!
//! `null`, `true`, integers, floats (`1.0`, `-0.0`, `1e3`, `.5`, `NaN`, `Infinity`),
//! single-quoted strings (with Cypher's `\'`, `\"` and `\\` escapes; any other backslash stands
//! for itself, gherkin having already turned a cell's `\n` into a newline), lists, maps,
//! nodes `(:L:M {k: v})`, relationships `[:T {k: v}]` and paths `<(:A)-[:T]->(:B)<-[:U]-()>`.
//!
//! Results are materialised into the same [`TckValue`] tree (nodes by labels and properties, not
//! by id), so expected and actual compare structurally.

use std::collections::{BTreeMap, BTreeSet};

/// A value as the TCK writes it.
#[derive(Clone, Debug)]
pub enum TckValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    List(Vec<TckValue>),
    Map(BTreeMap<String, TckValue>),
    Node(TckNode),
    Rel(TckRel),
    Path(TckPath),
}

#[derive(Clone, Debug)]
pub struct TckNode {
    pub labels: BTreeSet<String>,
    pub props: BTreeMap<String, TckValue>,
}

#[derive(Clone, Debug)]
pub struct TckRel {
    pub rel_type: String,
    pub props: BTreeMap<String, TckValue>,
}

/// A path: its first node, then (relationship, traversed forward?, next node) steps.
#[derive(Clone, Debug)]
pub struct TckPath {
    pub start: TckNode,
    pub steps: Vec<(TckRel, bool, TckNode)>,
}

/// How lists compare: `ignoring element order for lists` compares them as multisets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ListOrder {
    Strict,
    Ignored,
}

impl TckValue {
    /// Structural equality. Floats compare by value except that NaN equals NaN (a result
    /// table cannot say anything else); integers never equal floats (the TCK tells them apart).
    pub fn matches(&self, other: &TckValue, lists: ListOrder) -> bool {
        use TckValue::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (String(a), String(b)) => a == b,
            (List(a), List(b)) => match lists {
                ListOrder::Strict => {
                    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.matches(y, lists))
                }
                ListOrder::Ignored => multiset_eq(a, b, |x, y| x.matches(y, lists)),
            },
            (Map(a), Map(b)) => props_match(a, b, lists),
            (Node(a), Node(b)) => a.matches(b, lists),
            (Rel(a), Rel(b)) => a.matches(b, lists),
            (Path(a), Path(b)) => {
                a.start.matches(&b.start, lists)
                    && a.steps.len() == b.steps.len()
                    && a.steps.iter().zip(&b.steps).all(|(x, y)| {
                        x.0.matches(&y.0, lists) && x.1 == y.1 && x.2.matches(&y.2, lists)
                    })
            }
            _ => false,
        }
    }
}

impl TckNode {
    fn matches(&self, other: &TckNode, lists: ListOrder) -> bool {
        self.labels == other.labels && props_match(&self.props, &other.props, lists)
    }
}

impl TckRel {
    fn matches(&self, other: &TckRel, lists: ListOrder) -> bool {
        self.rel_type == other.rel_type && props_match(&self.props, &other.props, lists)
    }
}

fn props_match(
    a: &BTreeMap<String, TckValue>,
    b: &BTreeMap<String, TckValue>,
    lists: ListOrder,
) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, va), (kb, vb))| ka == kb && va.matches(vb, lists))
}

/// Whether `a` and `b` hold the same elements with the same multiplicities under `eq`
/// (an equivalence relation, so greedy matching is exact).
pub fn multiset_eq<T>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let found = (0..b.len()).find(|&i| !used[i] && eq(x, &b[i]));
        if let Some(i) = found {
            used[i] = true;
        }
        found.is_some()
    })
}

impl std::fmt::Display for TckValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TckValue::Null => write!(f, "null"),
            TckValue::Bool(b) => write!(f, "{b}"),
            TckValue::Int(i) => write!(f, "{i}"),
            TckValue::Float(x) => write!(f, "{}", format_float(*x)),
            TckValue::String(s) => write!(f, "'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
            TckValue::List(items) => {
                write!(f, "[")?;
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{x}")?;
                }
                write!(f, "]")
            }
            TckValue::Map(m) => write_props(f, m),
            TckValue::Node(n) => write!(f, "{n}"),
            TckValue::Rel(r) => write!(f, "{r}"),
            TckValue::Path(p) => {
                write!(f, "<{}", p.start)?;
                for (rel, forward, node) in &p.steps {
                    if *forward {
                        write!(f, "-{rel}->{node}")?;
                    } else {
                        write!(f, "<-{rel}-{node}")?;
                    }
                }
                write!(f, ">")
            }
        }
    }
}

fn format_float(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

fn write_props(
    f: &mut std::fmt::Formatter<'_>,
    m: &BTreeMap<String, TckValue>,
) -> std::fmt::Result {
    write!(f, "{{")?;
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 {
            write!(f, ", ")?;
        }
        write!(f, "{k}: {v}")?;
    }
    write!(f, "}}")
}

impl std::fmt::Display for TckNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "(")?;
        for l in &self.labels {
            write!(f, ":{l}")?;
        }
        if !self.props.is_empty() {
            if !self.labels.is_empty() {
                write!(f, " ")?;
            }
            write_props(f, &self.props)?;
        }
        write!(f, ")")
    }
}

impl std::fmt::Display for TckRel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[:{}", self.rel_type)?;
        if !self.props.is_empty() {
            write!(f, " ")?;
            write_props(f, &self.props)?;
        }
        write!(f, "]")
    }
}

/// Parses one cell. The whole text must be one value.
pub fn parse(text: &str) -> Result<TckValue, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        pos: 0,
    };
    let v = p.value()?;
    p.skip_ws();
    if p.pos != p.s.len() {
        return Err(p.fail("end of value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn fail(&self, wanted: &str) -> String {
        format!(
            "bad TCK value `{}`: expected {wanted} at offset {}",
            self.text, self.pos
        )
    }

    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.fail(&format!("`{}`", c as char)))
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn value(&mut self) -> Result<TckValue, String> {
        match self.peek() {
            Some(b'\'') => self.string().map(TckValue::String),
            Some(b'[') => {
                // A list, unless it opens a relationship (`[:T ...]`).
                let save = self.pos;
                self.pos += 1;
                if self.peek() == Some(b':') {
                    self.pos = save;
                    return self.rel().map(TckValue::Rel);
                }
                self.pos = save;
                self.list()
            }
            Some(b'{') => self.props().map(TckValue::Map),
            Some(b'(') => self.node().map(TckValue::Node),
            Some(b'<') => self.path().map(TckValue::Path),
            Some(_) => self.scalar(),
            None => Err(self.fail("a value")),
        }
    }

    fn scalar(&mut self) -> Result<TckValue, String> {
        for (word, value) in [
            ("null", TckValue::Null),
            ("true", TckValue::Bool(true)),
            ("false", TckValue::Bool(false)),
            ("NaN", TckValue::Float(f64::NAN)),
            ("Infinity", TckValue::Float(f64::INFINITY)),
            ("-Infinity", TckValue::Float(f64::NEG_INFINITY)),
        ] {
            if self.rest().starts_with(word) && !self.ident_continues(self.pos + word.len()) {
                self.pos += word.len();
                return Ok(value);
            }
        }
        self.number()
    }

    fn ident_continues(&self, at: usize) -> bool {
        self.s
            .get(at)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    }

    fn number(&mut self) -> Result<TckValue, String> {
        let start = self.pos;
        if matches!(self.s.get(self.pos), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        let mut float = false;
        while let Some(&c) = self.s.get(self.pos) {
            match c {
                b'0'..=b'9' => {}
                b'.' | b'e' | b'E' => float = true,
                b'-' | b'+' if matches!(self.s[self.pos - 1], b'e' | b'E') => {}
                _ => break,
            }
            self.pos += 1;
        }
        let lexeme = &self.text[start..self.pos];
        if lexeme.is_empty() || lexeme == "-" || lexeme == "+" {
            return Err(self.fail("a value"));
        }
        if float {
            lexeme
                .parse::<f64>()
                .map(TckValue::Float)
                .map_err(|_| self.fail("a float"))
        } else {
            lexeme
                .parse::<i64>()
                .map(TckValue::Int)
                .map_err(|_| self.fail("an integer"))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect(b'\'')?;
        let mut out = String::new();
        let mut chars = self.text[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\'' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => match self.text[self.pos + i + 1..].chars().next() {
                    Some(escaped @ ('\'' | '\\' | '"')) => {
                        chars.next();
                        out.push(escaped);
                    }
                    _ => out.push('\\'),
                },
                c => out.push(c),
            }
        }
        Err(self.fail("a closing quote"))
    }

    fn list(&mut self) -> Result<TckValue, String> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        if self.eat(b']') {
            return Ok(TckValue::List(items));
        }
        loop {
            items.push(self.value()?);
            if self.eat(b']') {
                return Ok(TckValue::List(items));
            }
            self.expect(b',')?;
        }
    }

    fn name(&mut self) -> Result<String, String> {
        self.skip_ws();
        if self.s.get(self.pos) == Some(&b'`') {
            let end = self.rest()[1..]
                .find('`')
                .ok_or_else(|| self.fail("a closing backtick"))?;
            let name = self.rest()[1..1 + end].to_string();
            self.pos += end + 2;
            return Ok(name);
        }
        let start = self.pos;
        while self.ident_continues(self.pos) {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.fail("a name"));
        }
        Ok(self.text[start..self.pos].to_string())
    }

    fn props(&mut self) -> Result<BTreeMap<String, TckValue>, String> {
        self.expect(b'{')?;
        let mut map = BTreeMap::new();
        if self.eat(b'}') {
            return Ok(map);
        }
        loop {
            let key = self.name()?;
            self.expect(b':')?;
            let value = self.value()?;
            map.insert(key, value);
            if self.eat(b'}') {
                return Ok(map);
            }
            self.expect(b',')?;
        }
    }

    fn node(&mut self) -> Result<TckNode, String> {
        self.expect(b'(')?;
        let mut labels = BTreeSet::new();
        while self.eat(b':') {
            labels.insert(self.name()?);
        }
        let props = if self.peek() == Some(b'{') {
            self.props()?
        } else {
            BTreeMap::new()
        };
        self.expect(b')')?;
        Ok(TckNode { labels, props })
    }

    fn rel(&mut self) -> Result<TckRel, String> {
        self.expect(b'[')?;
        self.expect(b':')?;
        let rel_type = self.name()?;
        let props = if self.peek() == Some(b'{') {
            self.props()?
        } else {
            BTreeMap::new()
        };
        self.expect(b']')?;
        Ok(TckRel { rel_type, props })
    }

    fn path(&mut self) -> Result<TckPath, String> {
        self.expect(b'<')?;
        let start = self.node()?;
        let mut steps = Vec::new();
        loop {
            if self.eat(b'>') {
                return Ok(TckPath { start, steps });
            }
            let backward = self.eat(b'<');
            self.expect(b'-')?;
            let rel = self.rel()?;
            self.expect(b'-')?;
            let forward = self.eat(b'>');
            if forward == backward {
                return Err(self.fail("a directed relationship"));
            }
            let node = self.node()?;
            steps.push((rel, forward, node));
        }
    }
}
