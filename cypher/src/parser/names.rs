//! Names: variables, schema names (labels, types, property keys) with OneGraph prefix
//! resolution, and dotted function/procedure names.

use super::{PResult, Parser};
use crate::ast::{Ident, NameKind, NameUse, Span};
use crate::lexer::Tok;

/// Words that cannot name a variable (they always mean their keyword). Kept to the words
/// whose use as a variable would make clause boundaries or expressions ambiguous; labels,
/// relationship types and property keys may still use any of them.
const RESERVED: &[&str] = &[
    "AND", "AS", "CALL", "CASE", "CONTAINS", "CREATE", "DELETE", "DETACH", "DISTINCT", "ELSE",
    "ENDS", "FALSE", "IN", "IS", "LIMIT", "MATCH", "MERGE", "NOT", "NULL", "ON", "OPTIONAL", "OR",
    "ORDER", "REMOVE", "RETURN", "SET", "SKIP", "STARTS", "THEN", "TRUE", "UNION", "UNWIND",
    "WHEN", "WHERE", "WITH", "XOR",
];

/// Whether `word` is reserved (case-insensitive).
pub(super) fn is_reserved(word: &str) -> bool {
    RESERVED.iter().any(|kw| kw.eq_ignore_ascii_case(word))
}

impl Parser<'_> {
    /// Whether the token `n` ahead can name a variable.
    pub(super) fn is_variable_at(&self, n: usize) -> bool {
        let token = self.peek_at(n);
        match token.kind {
            Tok::EscapedIdent => true,
            Tok::Ident => !is_reserved(&token.value),
            _ => false,
        }
    }

    /// A variable name (identifier that is not a reserved word, or a backticked name).
    pub(super) fn variable(&mut self) -> PResult<Ident> {
        if self.is_variable_at(0) {
            let token = self.bump();
            Ok(Ident {
                name: token.value,
                span: token.span,
            })
        } else {
            self.fail_expecting("an identifier")
        }
    }

    /// A label, relationship type or property key: a word, a backticked name, an IRI in angle
    /// brackets, or `prefix::local` (resolved against the `PREFIX` declarations, then the default prefixes).
    pub(super) fn schema_name(&mut self) -> PResult<(String, Span)> {
        let token = self.peek().clone();
        match token.kind {
            Tok::Iri => {
                self.bump();
                Ok((token.value, token.span))
            }
            Tok::Ident | Tok::EscapedIdent => {
                self.bump();
                if self.peek().kind != Tok::ColonColon {
                    return Ok((self.prefixed_in_backticks(token.value), token.span));
                }
                self.bump();
                let local = self.peek().clone();
                if !matches!(local.kind, Tok::Ident | Tok::EscapedIdent) {
                    return self.fail_expecting("a local name");
                }
                self.bump();
                let span = token.span.to(local.span);
                match self.prefix_iri(&token.value) {
                    Some(iri) => Ok((format!("{iri}{}", local.value), span)),
                    None => self
                        .hard_semantic(&format!("Undeclared prefix `{}`", token.value), token.span),
                }
            }
            _ => self.fail_expecting("a name"),
        }
    }

    /// A backticked `prefix::local` names the IRI when `prefix` is declared
    /// (`n.`ex::name``), and itself otherwise.
    fn prefixed_in_backticks(&self, name: String) -> String {
        let Some((prefix, local)) = name.split_once("::") else {
            return name;
        };
        match self.prefix_iri(prefix) {
            Some(iri) => format!("{iri}{local}"),
            None => name,
        }
    }

    /// A [`Self::schema_name`] the query reads as `kind`, recorded for
    /// `Statement::names`.
    pub(super) fn name_read(&mut self, kind: NameKind) -> PResult<String> {
        let (name, span) = self.schema_name()?;
        self.names.push(NameUse {
            kind,
            name: name.clone(),
            span,
        });
        Ok(name)
    }

    /// The names recorded, each token once, in text order.
    pub(super) fn names_read(&self) -> Vec<NameUse> {
        let mut names = self.names.clone();
        names.sort_by_key(|n| (n.span.start, n.kind));
        names.dedup_by_key(|n| (n.span.start, n.kind));
        names
    }

    /// The labels of SET and REMOVE: `:L`, or `:$(expr)` naming them at run
    /// time (Cypher 5.26), in any mix (`n:A:$(x)`).
    pub(super) fn updated_labels(&mut self) -> PResult<(Vec<String>, Vec<crate::ast::Expr>)> {
        self.expect(Tok::Colon)?;
        let (mut labels, mut dynamic) = (Vec::new(), Vec::new());
        loop {
            if self.eat(Tok::DynamicOpen) {
                let names = self.expression()?;
                self.check_parameter(&names, crate::ast::ParameterRole::TokenNames);
                dynamic.push(names);
                self.expect(Tok::RParen)?;
            } else {
                labels.push(self.schema_name()?.0);
            }
            if !self.eat(Tok::Colon) {
                return Ok((labels, dynamic));
            }
        }
    }

    /// `a.b.c` for functions and procedures, original case, with its span.
    pub(super) fn dotted_name(&mut self) -> PResult<(String, Span)> {
        let first = self.peek().clone();
        if !matches!(first.kind, Tok::Ident | Tok::EscapedIdent) {
            return self.fail_expecting("a procedure name");
        }
        self.bump();
        let mut name = first.value;
        let mut span = first.span;
        while self.peek().kind == Tok::Dot
            && matches!(self.peek_at(1).kind, Tok::Ident | Tok::EscapedIdent)
        {
            self.bump();
            let part = self.bump();
            name.push('.');
            name.push_str(&part.value);
            span = span.to(part.span);
        }
        Ok((name, span))
    }

    /// Whether the tokens ahead read `name(.name)* (` — a function call rather than a variable
    /// or property access. Returns the number of name tokens (`2k+1`) when they do.
    pub(super) fn function_call_ahead(&self) -> Option<usize> {
        let mut n = 0;
        loop {
            if !matches!(self.peek_at(n).kind, Tok::Ident | Tok::EscapedIdent) {
                return None;
            }
            match self.peek_at(n + 1).kind {
                Tok::LParen => return Some(n + 1),
                Tok::Dot => n += 2,
                _ => return None,
            }
        }
    }
}
