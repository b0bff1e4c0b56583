//! Subqueries: the expressions `EXISTS { ... }` and `COUNT { ... }`, each in
//! the simple form (a pattern with an optional WHERE) or the full form (a
//! query, possibly with UNION), the clause `CALL { query }`, and `FOREACH`,
//! which runs its update clauses like a unit subquery.

use super::{PResult, Parser};
use crate::ast::{
    CallSubquery, Clause, Expr, ExprKind, Foreach, ImportScope, Match, Query, SingleQuery,
    SubqueryKind, Unwind,
};
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

    /// `FOREACH ( variable IN list | clause+ )`
    pub(super) fn foreach_clause(&mut self) -> PResult<Foreach> {
        let start = self.bump().span;
        self.expect(Tok::LParen)?;
        let unwind_start = self.peek().span;
        let alias = self.variable()?;
        self.expect_kw("IN")?;
        let expr = self.expression()?;
        let unwind = Unwind {
            expr,
            alias,
            span: self.span_from(unwind_start),
        };
        self.expect(Tok::Pipe)?;
        // Bodies nest: each level counts against the parser's nesting bound.
        let clauses = self.nested(|p| {
            let mut clauses = Vec::new();
            while let Some(clause) = p.clause()? {
                clauses.push(clause);
            }
            Ok(clauses)
        })?;
        if clauses.is_empty() {
            return Err(super::Fail::Expected);
        }
        self.expect(Tok::RParen)?;
        Ok(Foreach {
            unwind,
            clauses,
            span: self.span_from(start),
        })
    }

    /// `CALL [( * | variable, ... )] { query } [IN TRANSACTIONS ...]`
    pub(super) fn call_subquery(&mut self) -> PResult<CallSubquery> {
        let start = self.bump().span;
        let scope = if self.eat(Tok::LParen) {
            Some(self.import_scope()?)
        } else {
            None
        };
        self.expect(Tok::LBrace)?;
        let query = self.nested(|p| p.query_body())?;
        self.expect(Tok::RBrace)?;
        let in_transactions = self.in_transactions()?;
        Ok(CallSubquery {
            query: Box::new(query),
            scope,
            in_transactions,
            span: self.span_from(start),
        })
    }

    /// The rest of a variable scope clause after its `(`: `*)`, `)` or
    /// `a, b)`.
    fn import_scope(&mut self) -> PResult<ImportScope> {
        if self.eat(Tok::Star) {
            self.expect(Tok::RParen)?;
            return Ok(ImportScope::All);
        }
        let mut variables = Vec::new();
        if !self.eat(Tok::RParen) {
            loop {
                variables.push(self.variable()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::RParen)?;
        }
        Ok(ImportScope::Variables(variables))
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
                    hints: Vec::new(),
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
