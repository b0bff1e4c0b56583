//! GQL label expressions (Cypher 5): `:A|B`, `:A&!B`, `:%`, `:(A|B)&C`,
//! `IS A`, in node and relationship patterns and as predicates (`n:A|B`).
//!
//! Two spellings of a conjunction exist: openCypher's `:A:B` and GQL's
//! `:A&B`. Neo4j refuses a mix of `:` with the symbols `|`, `&`, `!`, `%`
//! in one expression (it would read differently to different people), and
//! so does this parser, with Neo4j's texts.

use super::{Fail, PResult, Parser};
use crate::ast::{DynamicNames, LabelExpr, NameKind};
use crate::lexer::Tok;

/// Where a label expression stands: each place allows a different subset.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum LabelPlace {
    /// `(n:...)`: `:A:B`, symbols, dynamic names.
    Node,
    /// `-[r:...]-`: names are types; `:A:B` is refused, `|:` allowed
    /// (openCypher's `:A|:B`).
    Relationship,
    /// `expr:...` in an expression: no dynamic names (Neo4j allows them
    /// only in pattern clauses and SET/REMOVE).
    Predicate,
}

/// What the expression used so far, to refuse mixing the spellings.
#[derive(Default)]
struct Spelling {
    colon: bool,
    symbol: bool,
}

impl Parser<'_> {
    /// The label expression after its `:` (or `IS`), already consumed.
    pub(super) fn label_expression(&mut self, place: LabelPlace) -> PResult<LabelExpr> {
        let start = self.peek().span;
        let mut spelling = Spelling::default();
        let expr = self.label_or(place, &mut spelling)?;
        if spelling.colon && place == LabelPlace::Relationship {
            return self.hard_syntax(
                "Relationship types in a relationship type expressions may not be combined using ':'",
                start,
            );
        }
        if spelling.colon && spelling.symbol {
            return self.hard_syntax(
                "Mixing label expression symbols ('|', '&', '!', and '%') with colon (':') between labels is not allowed. Please only use one set of symbols.",
                start,
            );
        }
        Ok(expr)
    }

    fn label_or(&mut self, place: LabelPlace, spelling: &mut Spelling) -> PResult<LabelExpr> {
        let mut items = vec![self.label_and(place, spelling)?];
        while self.at(Tok::Pipe) {
            let before = (self.pos, self.names.len());
            let bar = self.bump().span;
            if self.peek().kind == Tok::Colon {
                if place != LabelPlace::Relationship {
                    return self
                        .hard_syntax("Label expressions are not allowed to contain '|:'.", bar);
                }
                self.bump();
            } else {
                spelling.symbol = true;
            }
            let item = self.label_and(place, spelling)?;
            // In a comprehension's WHERE the last `|` starts the projection:
            // `[m IN list WHERE m:A | m.name]`, read as Neo4j reads it.
            if place == LabelPlace::Predicate && self.bar_ends_predicate && self.ends_projection() {
                (self.pos, _) = before;
                self.names.truncate(before.1);
                break;
            }
            items.push(item);
        }
        Ok(flatten(items, true))
    }

    /// Whether the token after a would-be alternative shows that it was a
    /// comprehension's projection instead.
    fn ends_projection(&self) -> bool {
        matches!(
            self.peek().kind,
            Tok::RBracket | Tok::Dot | Tok::LParen | Tok::LBracket | Tok::LBrace
        )
    }

    fn label_and(&mut self, place: LabelPlace, spelling: &mut Spelling) -> PResult<LabelExpr> {
        let mut items = vec![self.label_not(place, spelling)?];
        loop {
            if self.eat(Tok::Amp) {
                spelling.symbol = true;
            } else if self.peek().kind == Tok::Colon {
                self.bump();
                spelling.colon = true;
            } else {
                break;
            }
            items.push(self.label_not(place, spelling)?);
        }
        Ok(flatten(items, false))
    }

    fn label_not(&mut self, place: LabelPlace, spelling: &mut Spelling) -> PResult<LabelExpr> {
        if self.eat(Tok::Bang) {
            spelling.symbol = true;
            let inner = self.nested(|p| p.label_not(place, spelling))?;
            return Ok(LabelExpr::Not(Box::new(inner)));
        }
        self.label_atom(place, spelling)
    }

    fn label_atom(&mut self, place: LabelPlace, spelling: &mut Spelling) -> PResult<LabelExpr> {
        if self.eat(Tok::Percent) {
            spelling.symbol = true;
            return Ok(LabelExpr::Wildcard);
        }
        if self.eat(Tok::LParen) {
            spelling.symbol = true;
            let inner = self.nested(|p| p.label_or(place, spelling))?;
            self.expect(Tok::RParen)?;
            return Ok(inner);
        }
        let at = self.peek().span;
        if let Some(names) = self.dynamic_names()? {
            if place == LabelPlace::Predicate {
                return self.hard_syntax(
                    "Dynamic Label and Types are only allowed in MATCH, CREATE, MERGE, SET and REMOVE clauses.",
                    at,
                );
            }
            return Ok(LabelExpr::Dynamic(names));
        }
        let kind = if place == LabelPlace::Relationship {
            NameKind::RelationshipType
        } else {
            NameKind::Label
        };
        match self.name_read(kind) {
            Ok(name) => Ok(LabelExpr::Name(name)),
            Err(Fail::Expected) => {
                self.record("'%'");
                self.record("'!'");
                Err(Fail::Expected)
            }
            Err(hard) => Err(hard),
        }
    }
}

/// One item stays itself; nested lists of the same operator merge.
fn flatten(items: Vec<LabelExpr>, or: bool) -> LabelExpr {
    if items.len() == 1 {
        return items.into_iter().next().expect("one item");
    }
    let mut flat = Vec::with_capacity(items.len());
    for item in items {
        match item {
            LabelExpr::Or(inner) if or => flat.extend(inner),
            LabelExpr::And(inner) if !or => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if or {
        LabelExpr::Or(flat)
    } else {
        LabelExpr::And(flat)
    }
}

/// A node pattern's label expression split for the planner: the plain
/// names (they drive label scans), the dynamic names, and the rest.
pub(super) fn node_parts(expr: LabelExpr) -> (Vec<String>, Vec<DynamicNames>, Vec<LabelExpr>) {
    let conjuncts = match expr {
        LabelExpr::And(items) => items,
        other => vec![other],
    };
    let (mut names, mut dynamic, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    for item in conjuncts {
        match item {
            LabelExpr::Name(name) => names.push(name),
            LabelExpr::Dynamic(d) => dynamic.push(d),
            other => rest.push(other),
        }
    }
    (names, dynamic, rest)
}

/// A relationship pattern's type expression split for the planner: an
/// alternative of names (the expand reads only those types), one dynamic
/// name, or a filter on the type.
pub(super) fn relationship_parts(
    expr: LabelExpr,
) -> (Vec<String>, Option<DynamicNames>, Option<LabelExpr>) {
    match expr {
        LabelExpr::Name(name) => (vec![name], None, None),
        LabelExpr::Dynamic(d) => (Vec::new(), Some(d), None),
        LabelExpr::Or(items) if items.iter().all(|i| matches!(i, LabelExpr::Name(_))) => {
            let names = items
                .into_iter()
                .map(|item| match item {
                    LabelExpr::Name(name) => name,
                    _ => unreachable!("all names"),
                })
                .collect();
            (names, None, None)
        }
        other => (Vec::new(), None, Some(other)),
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{Clause, LabelExpr, Query};

    /// The first MATCH's first node pattern: (names, dynamic count, rest).
    fn node(query: &str) -> (Vec<String>, usize, Vec<LabelExpr>) {
        let statement = crate::parse(query).unwrap_or_else(|e| panic!("{query}: {e}"));
        let Query::Single(single) = statement.query else {
            panic!("a single query");
        };
        let Some(Clause::Match(m)) = single.clauses.into_iter().next() else {
            panic!("a MATCH first");
        };
        let node = m.pattern.into_iter().next().expect("a part").element.start;
        (node.labels, node.dynamic_labels.len(), node.label_filters)
    }

    fn name(n: &str) -> LabelExpr {
        LabelExpr::Name(n.to_string())
    }

    #[test]
    fn conjunctions_of_names_stay_plain_labels() {
        assert_eq!(
            node("MATCH (n:A:B) RETURN n"),
            (vec!["A".into(), "B".into()], 0, vec![])
        );
        assert_eq!(
            node("MATCH (n:A&B) RETURN n"),
            (vec!["A".into(), "B".into()], 0, vec![])
        );
        assert_eq!(
            node("MATCH (n IS A) RETURN n"),
            (vec!["A".into()], 0, vec![])
        );
        assert_eq!(
            node("MATCH (n:A&$('B')) RETURN n"),
            (vec!["A".into()], 1, vec![])
        );
    }

    #[test]
    fn other_conjuncts_become_filters() {
        assert_eq!(
            node("MATCH (n:A&(B|C)) RETURN n"),
            (
                vec!["A".into()],
                0,
                vec![LabelExpr::Or(vec![name("B"), name("C")])]
            )
        );
        assert_eq!(
            node("MATCH (n:!A|%) RETURN n"),
            (
                vec![],
                0,
                vec![LabelExpr::Or(vec![
                    LabelExpr::Not(Box::new(name("A"))),
                    LabelExpr::Wildcard
                ])]
            )
        );
        assert_eq!(
            node("MATCH (n:A|(B|C)) RETURN n").2,
            vec![LabelExpr::Or(vec![name("A"), name("B"), name("C")])]
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_an_overflow() {
        for (open, close) in [("(", ")"), ("!", "")] {
            let query = format!(
                "MATCH (n:{}A{}) RETURN n",
                open.repeat(100_000),
                close.repeat(100_000)
            );
            let error = crate::parse(&query).expect_err("too deep");
            assert!(error.to_string().contains("nested too deeply"), "{error}");
        }
    }
}
