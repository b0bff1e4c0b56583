//! The pieces schema commands share: the `FOR (n:Label)` /
//! `FOR ()-[r:TYPE]-()` pattern an index or constraint ranges over, the
//! property lists over its variable (`ON (n.a, n.b)`, `REQUIRE n.a`), the
//! name a command gives (a symbolic name or a `$parameter`), and literal
//! expressions for the arguments of the internal call a command becomes.

use super::{Fail, PResult, Parser};
use crate::ast::{Expr, ExprKind, Ident, Literal, Span};
use crate::error::{CypherError, Detail};
use crate::lexer::Tok;

/// The entity a schema pattern ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Entity {
    Node,
    Relationship,
}

impl Entity {
    /// The name the internal procedures take (`NODE` / `RELATIONSHIP`).
    pub(super) fn name(self) -> &'static str {
        match self {
            Entity::Node => "NODE",
            Entity::Relationship => "RELATIONSHIP",
        }
    }
}

/// `(n:Label)` or `()-[r:TYPE]-()` as written after `FOR`.
pub(super) struct SchemaPattern {
    pub entity: Entity,
    pub variable: Ident,
    /// One label or type; several for a full-text index (`A|B`); none for
    /// a lookup index.
    pub labels: Vec<String>,
    pub span: Span,
}

/// What a pattern may name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Labels {
    /// Exactly one (property indexes and constraints).
    One,
    /// One or more joined by `|` (full-text indexes).
    Many,
    /// None (lookup indexes).
    Zero,
}

/// A property of the pattern's variable, with where Neo4j points at it:
/// the variable (index errors) or the dot (constraint errors).
pub(super) struct PropertyRef {
    pub key: String,
    pub variable: Span,
    pub dot: Span,
}

impl Parser<'_> {
    /// `(v:L)` or `()-[v:T]-()` (`->`, `<-` accepted: schema ignores
    /// direction).
    pub(super) fn schema_pattern(&mut self, labels: Labels) -> PResult<SchemaPattern> {
        let start = self.expect(Tok::LParen)?;
        if self.eat(Tok::RParen) {
            self.eat(Tok::Lt);
            self.expect(Tok::Minus)?;
            self.expect(Tok::LBracket)?;
            let variable = self.variable()?;
            let names = self.pattern_labels(labels)?;
            self.expect(Tok::RBracket)?;
            self.expect(Tok::Minus)?;
            self.eat(Tok::Gt);
            self.expect(Tok::LParen)?;
            self.expect(Tok::RParen)?;
            return Ok(SchemaPattern {
                entity: Entity::Relationship,
                variable,
                labels: names,
                span: self.span_from(start.span),
            });
        }
        let variable = self.variable()?;
        let names = self.pattern_labels(labels)?;
        self.expect(Tok::RParen)?;
        Ok(SchemaPattern {
            entity: Entity::Node,
            variable,
            labels: names,
            span: self.span_from(start.span),
        })
    }

    fn pattern_labels(&mut self, labels: Labels) -> PResult<Vec<String>> {
        if labels == Labels::Zero {
            return Ok(Vec::new());
        }
        self.expect(Tok::Colon)?;
        let mut names = vec![self.schema_name()?.0];
        while labels == Labels::Many && self.eat(Tok::Pipe) {
            names.push(self.schema_name()?.0);
        }
        Ok(names)
    }

    /// `v.key` where `v` must be the pattern's variable.
    pub(super) fn pattern_property(&mut self, pattern: &SchemaPattern) -> PResult<PropertyRef> {
        let variable = self.variable()?;
        if variable.name != pattern.variable.name {
            return Err(Fail::Hard(CypherError::semantic_detail(
                Detail::UndefinedVariable,
                &format!("Variable `{}` not defined", variable.name),
                self.query,
                variable.span,
            )));
        }
        let dot = self.expect(Tok::Dot)?.span;
        let (key, _) = self.schema_name()?;
        Ok(PropertyRef {
            key,
            variable: variable.span,
            dot,
        })
    }

    /// `(v.a, v.b, ...)` or a single `v.a` without parentheses.
    pub(super) fn schema_properties(
        &mut self,
        pattern: &SchemaPattern,
    ) -> PResult<Vec<PropertyRef>> {
        if !self.eat(Tok::LParen) {
            return Ok(vec![self.pattern_property(pattern)?]);
        }
        let mut properties = vec![self.pattern_property(pattern)?];
        while self.eat(Tok::Comma) {
            properties.push(self.pattern_property(pattern)?);
        }
        self.expect(Tok::RParen)?;
        Ok(properties)
    }

    /// The name a command gives an index or constraint: a symbolic name
    /// (any word, keywords included, or backticked) or a `$parameter`.
    pub(super) fn schema_object_name(&mut self) -> PResult<Expr> {
        let token = self.peek().clone();
        match token.kind {
            Tok::Parameter => {
                self.bump();
                Ok(Expr::new(ExprKind::Parameter(token.value), token.span))
            }
            Tok::Ident | Tok::EscapedIdent => {
                self.bump();
                Ok(string_literal(&token.value, token.span))
            }
            _ => self.fail_expecting("a name or a parameter"),
        }
    }

    /// `IF NOT EXISTS`, when present.
    pub(super) fn if_not_exists(&mut self) -> PResult<bool> {
        if !self.eat_kw("IF") {
            return Ok(false);
        }
        self.expect_kw("NOT")?;
        self.expect_kw("EXISTS")?;
        Ok(true)
    }
}

pub(super) fn string_literal(value: &str, span: Span) -> Expr {
    Expr::new(ExprKind::Literal(Literal::String(value.to_string())), span)
}

pub(super) fn bool_literal(value: bool, span: Span) -> Expr {
    Expr::new(ExprKind::Literal(Literal::Bool(value)), span)
}

pub(super) fn null_literal(span: Span) -> Expr {
    Expr::new(ExprKind::Literal(Literal::Null), span)
}

pub(super) fn string_list<'a>(values: impl IntoIterator<Item = &'a str>, span: Span) -> Expr {
    let items = values
        .into_iter()
        .map(|v| string_literal(v, span))
        .collect();
    Expr::new(ExprKind::List(items), span)
}
