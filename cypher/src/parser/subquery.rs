//! Subquery expressions: `EXISTS { ... }` and `COUNT { ... }`, each in the
//! simple form (a pattern with an optional WHERE) or the full form (a query,
//! possibly with UNION).

use super::{PResult, Parser};
use crate::ast::{Clause, Expr, ExprKind, Match, Query, SingleQuery, SubqueryKind};
use crate::lexer::Tok;

/// Keywords that open the full form's first clause.
const CLAUSE_STARTS: &[&str] = &[
    "MATCH", "OPTIONAL", "WITH", "UNWIND", "CALL", "RETURN", "CREATE", "MERGE", "SET", "DELETE",
    "DETACH", "REMOVE",
];

impl Parser<'_> {
    /// `EXISTS {` or `COUNT {` followed by a pattern or a clause. The check
    /// of the third token keeps a map projection of a variable called
    /// `exists` or `count` (`count {.x}`) a map projection.
    pub(super) fn subquery_ahead(&self) -> Option<SubqueryKind> {
        let kind = if self.is_kw_at(0, "EXISTS") {
            SubqueryKind::Exists
        } else if self.is_kw_at(0, "COUNT") {
            SubqueryKind::Count
        } else {
            return None;
        };
        if self.peek_at(1).kind != Tok::LBrace {
            return None;
        }
        let opens_body = self.peek_at(2).kind == Tok::LParen
            || CLAUSE_STARTS.iter().any(|kw| self.is_kw_at(2, kw))
            || (self.peek_at(2).kind == Tok::Ident && self.peek_at(3).kind == Tok::Eq);
        opens_body.then_some(kind)
    }

    /// `EXISTS|COUNT { pattern [WHERE expr] }` or `EXISTS|COUNT { query }`.
    pub(super) fn subquery_expression(&mut self, kind: SubqueryKind) -> PResult<Expr> {
        let start = self.bump().span;
        self.expect(Tok::LBrace)?;
        let query = if CLAUSE_STARTS.iter().any(|kw| self.is_kw_at(0, kw)) {
            self.query_body()?
        } else {
            let body_start = self.peek().span;
            let pattern = self.pattern()?;
            let where_ = self.optional_where()?;
            let span = self.span_from(body_start);
            Query::Single(SingleQuery {
                clauses: vec![Clause::Match(Match {
                    optional: false,
                    pattern,
                    where_,
                    span,
                })],
                span,
            })
        };
        self.expect(Tok::RBrace)?;
        Ok(Expr::new(
            ExprKind::Subquery(kind, Box::new(query)),
            self.span_from(start),
        ))
    }
}
