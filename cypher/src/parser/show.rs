//! `SHOW` commands, desugared into a standalone call of an internal
//! procedure with fixed columns (dfe `procedures/show.rs`), so that the
//! planner and executor need nothing new:
//!
//! ```text
//! SHOW DATABASES | SHOW DATABASE name | SHOW DEFAULT DATABASE | SHOW HOME DATABASE
//!    | SHOW [ALL | BUILT IN] PROCEDURES | SHOW [ALL | BUILT IN] FUNCTIONS
//!    | SHOW [type] INDEXES | SHOW [type] CONSTRAINTS  (show_schema.rs)
//!    | SHOW [ALL] TRANSACTIONS [ids] | SHOW SETTINGS [names]
//!    | SHOW USERS | SHOW CURRENT USER | SHOW [ALL | POPULATED] ROLES [WITH USERS]
//!   [YIELD * | YIELD item, ... [ORDER BY ...] [SKIP n] [LIMIT n] [WHERE expr] [RETURN ...]
//!    | WHERE expr]
//! ```
//!
//! An ordered `YIELD` (`ORDER BY`, `SKIP` or `LIMIT` after its items or
//! `*`, as Neo4j 5 accepts) becomes `CALL ... YIELD items WITH * ORDER BY
//! ... SKIP ... LIMIT ... WHERE ...` followed by the `RETURN` written, or
//! by `RETURN *`; the call is marked `show`, so that its `YIELD *` may be
//! followed by clauses and `RETURN *` keeps the yield order.
//!
//! `SHOW DATABASES WHERE p` becomes `CALL internal.show.databases() YIELD *`
//! filtered by `p`; `YIELD ... RETURN ...` keeps the `RETURN` clause.
//! A command whose default columns are fewer than its `YIELD *` columns
//! calls a second procedure with just those when it has no `YIELD`, so the
//! column lists live only with the procedures.

use super::{PResult, Parser};
use crate::ast::{
    Call, Clause, Expr, ExprKind, Literal, Projection, Query, SingleQuery, Span, With, YieldItem,
};
use crate::lexer::Tok;

/// The procedure a `SHOW` command calls.
pub(super) struct ShowTarget {
    /// Called when the command has a `YIELD` (every column).
    pub procedure: &'static str,
    /// Called without a `YIELD`, when the command's default columns are
    /// fewer than all (`SHOW INDEXES`, `SHOW CONSTRAINTS`).
    pub default_columns: Option<&'static str>,
    pub args: Vec<Expr>,
}

impl Parser<'_> {
    /// Whether the statement is a `SHOW` command (checked without
    /// recording an expectation, so other errors read as before).
    pub(super) fn at_show_command(&self) -> bool {
        self.is_kw_at(0, "SHOW")
            || (self.is_kw_at(0, "TERMINATE")
                && (self.is_kw_at(1, "TRANSACTIONS") || self.is_kw_at(1, "TRANSACTION")))
    }

    /// A whole `SHOW ...` command as a query.
    pub(super) fn show_command(&mut self) -> PResult<Query> {
        let (start, target) = if self.at_kw("TERMINATE") {
            let start = self.expect_kw("TERMINATE")?;
            (start, self.terminate_target()?)
        } else {
            let start = self.expect_kw("SHOW")?;
            (start, self.show_target()?)
        };
        let procedure_span = self.span_from(start);
        let mut call = Call {
            procedure: target.procedure.to_string(),
            procedure_span,
            args: Some(target.args),
            yields: None,
            yield_star: false,
            where_: None,
            show: true,
            span: procedure_span,
        };
        let mut clauses = Vec::new();
        let mut tail = None;
        let yielded = self.at_kw("YIELD");
        if self.eat_kw("YIELD") {
            if self.eat(Tok::Star) {
                call.yield_star = true;
            } else {
                let mut items = Vec::new();
                loop {
                    let name = self.variable()?;
                    let alias = if self.eat_kw("AS") {
                        Some(self.variable()?)
                    } else {
                        None
                    };
                    items.push(YieldItem { name, alias });
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
                call.yields = Some(items);
            }
            let ordering = self.show_ordering()?;
            let where_ = self.optional_show_where()?;
            if self.at_kw("RETURN") {
                tail = Some(Clause::Return(self.return_clause()?));
            }
            match ordering {
                Some(ordering) => {
                    let span = self.span_from(start);
                    if tail.is_none() {
                        tail = Some(Clause::Return(every_column(span)));
                    }
                    clauses.push(Clause::With(With {
                        projection: Projection {
                            star: true,
                            span,
                            ..ordering
                        },
                        where_,
                        span,
                    }));
                }
                None => call.where_ = where_,
            }
        } else if let Some(predicate) = self.optional_show_where()? {
            call.yield_star = true;
            call.where_ = Some(predicate);
        }
        if let (false, Some(brief)) = (yielded, target.default_columns) {
            call.procedure = brief.to_string();
        }
        call.span = self.span_from(start);
        clauses.insert(0, Clause::Call(call));
        clauses.extend(tail);
        Ok(Query::Single(SingleQuery {
            clauses,
            span: self.span_from(start),
        }))
    }

    /// `[ORDER BY ...] [SKIP n] [LIMIT n]` after a `YIELD`'s items, as the
    /// body of the `WITH *` they become (`None` when none is written).
    fn show_ordering(&mut self) -> PResult<Option<Projection>> {
        if !(self.at_kw("ORDER") || self.at_kw("SKIP") || self.at_kw("LIMIT")) {
            return Ok(None);
        }
        let start = self.peek().span;
        Ok(Some(self.ordering_body(start)?))
    }

    fn optional_show_where(&mut self) -> PResult<Option<Expr>> {
        if self.eat_kw("WHERE") {
            Ok(Some(self.expression()?))
        } else {
            Ok(None)
        }
    }

    /// What is shown: the internal procedure and its arguments.
    fn show_target(&mut self) -> PResult<ShowTarget> {
        let plain = |procedure: &'static str, args: Vec<Expr>| ShowTarget {
            procedure,
            default_columns: None,
            args,
        };
        if self.eat_kw("DATABASES") {
            return Ok(plain("internal.show.databases", vec![]));
        }
        if self.eat_kw("DATABASE") {
            let name = self.database_name()?;
            return Ok(plain("internal.show.database", vec![name]));
        }
        if self.eat_kw("DEFAULT") || self.eat_kw("HOME") {
            self.expect_kw("DATABASE")?;
            return Ok(plain("internal.show.defaultDatabase", vec![]));
        }
        if let Some(target) = self.attempt(Self::show_schema_target)? {
            return Ok(target);
        }
        if let Some(target) = self.show_security_target()? {
            return Ok(target);
        }
        if !self.eat_kw("ALL") && self.eat_kw("BUILT") {
            self.expect_kw("IN")?;
        }
        // `SHOW SETTINGS [names]`, `SHOW TRANSACTIONS [ids]`: fewer columns
        // without a YIELD.
        for (plural, singular, procedure, default_columns) in [
            (
                "SETTINGS",
                "SETTING",
                "internal.show.settings",
                "internal.show.settingsDefault",
            ),
            (
                "TRANSACTIONS",
                "TRANSACTION",
                "internal.show.transactions",
                "internal.show.transactionsDefault",
            ),
        ] {
            if self.eat_kw(plural) || self.eat_kw(singular) {
                let names = self.listed_names(false)?;
                return Ok(ShowTarget {
                    procedure,
                    default_columns: Some(default_columns),
                    args: vec![names],
                });
            }
        }
        if self.eat_kw("PROCEDURES") || self.eat_kw("PROCEDURE") {
            return Ok(plain("internal.show.procedures", vec![]));
        }
        if self.eat_kw("FUNCTIONS") || self.eat_kw("FUNCTION") {
            return Ok(plain("internal.show.functions", vec![]));
        }
        self.fail_expecting(
            "DATABASES, DATABASE, DEFAULT DATABASE, HOME DATABASE, PROCEDURES, FUNCTIONS, INDEXES, CONSTRAINTS, SETTINGS or TRANSACTIONS",
        )
    }

    /// `USERS`, `CURRENT USER`, `[ALL | POPULATED] ROLES [WITH USERS]`
    /// (dfe `procedures/users_show.rs`); `None` when the command shows
    /// something else.
    fn show_security_target(&mut self) -> PResult<Option<ShowTarget>> {
        let plain = |procedure: &'static str, args: Vec<Expr>| {
            Some(ShowTarget {
                procedure,
                default_columns: None,
                args,
            })
        };
        if self.eat_kw("USERS") {
            return Ok(plain("internal.show.users", vec![]));
        }
        if self.eat_kw("CURRENT") {
            self.expect_kw("USER")?;
            return Ok(plain("internal.show.currentUser", vec![]));
        }
        let roles_at = |n: usize| self.is_kw_at(n, "ROLES") || self.is_kw_at(n, "ROLE");
        let qualified = (self.is_kw_at(0, "ALL") || self.is_kw_at(0, "POPULATED")) && roles_at(1);
        if !(qualified || roles_at(0)) {
            return Ok(None);
        }
        let start = self.peek().span;
        let populated = self.eat_kw("POPULATED");
        if !populated {
            self.eat_kw("ALL");
        }
        if !self.eat_kw("ROLES") {
            self.expect_kw("ROLE")?;
        }
        let with_users = self.eat_kw("WITH");
        if with_users && !self.eat_kw("USERS") {
            self.expect_kw("USER")?;
        }
        let procedure = if with_users {
            "internal.show.rolesWithUsers"
        } else {
            "internal.show.roles"
        };
        Ok(plain(
            procedure,
            vec![Expr::new(
                ExprKind::Literal(Literal::Bool(populated)),
                self.span_from(start),
            )],
        ))
    }

    /// `TERMINATE TRANSACTION[S] ids`.
    fn terminate_target(&mut self) -> PResult<ShowTarget> {
        if !self.eat_kw("TRANSACTIONS") {
            self.expect_kw("TRANSACTION")?;
        }
        let ids = self.listed_names(true)?;
        Ok(ShowTarget {
            procedure: "internal.terminate.transactions",
            default_columns: None,
            args: vec![ids],
        })
    }

    /// The ids after `SHOW`/`TERMINATE TRANSACTIONS` (or the names after
    /// `SHOW SETTINGS`): string literals
    /// separated by commas (as one list), or one expression (a parameter
    /// holding a string or a list); null for none (`SHOW` only).
    fn listed_names(&mut self, required: bool) -> PResult<Expr> {
        let token = self.peek().clone();
        if token.kind == Tok::String {
            let mut ids = Vec::new();
            let mut span: Span = token.span;
            loop {
                let id = self.peek().clone();
                if id.kind != Tok::String {
                    return self.fail_expecting("a string");
                }
                self.bump();
                span = span.to(id.span);
                ids.push(Expr::new(
                    ExprKind::Literal(Literal::String(id.value)),
                    id.span,
                ));
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            return Ok(Expr::new(ExprKind::List(ids), span));
        }
        let ends = self.at_kw("YIELD")
            || self.at_kw("WHERE")
            || matches!(token.kind, Tok::Eof | Tok::Semicolon);
        if ends && !required {
            return Ok(Expr::new(ExprKind::Literal(Literal::Null), token.span));
        }
        if ends {
            return self.fail_expecting("a transaction id");
        }
        self.expression()
    }

    /// A database name: a symbolic name (dots allowed), a string or a
    /// parameter.
    fn database_name(&mut self) -> PResult<Expr> {
        let token = self.peek().clone();
        match token.kind {
            Tok::Parameter => {
                self.bump();
                Ok(Expr::new(ExprKind::Parameter(token.value), token.span))
            }
            Tok::String => {
                self.bump();
                Ok(Expr::new(
                    ExprKind::Literal(Literal::String(token.value)),
                    token.span,
                ))
            }
            Tok::Ident | Tok::EscapedIdent => {
                self.bump();
                let mut name = token.value;
                let mut span: Span = token.span;
                while self.peek().kind == Tok::Dot
                    && matches!(self.peek_at(1).kind, Tok::Ident | Tok::EscapedIdent)
                {
                    self.bump();
                    let part = self.bump();
                    name.push('.');
                    name.push_str(&part.value);
                    span = span.to(part.span);
                }
                Ok(Expr::new(ExprKind::Literal(Literal::String(name)), span))
            }
            _ => self.fail_expecting("a database name"),
        }
    }
}

/// `RETURN *`: what a `SHOW` whose `YIELD` is ordered returns when no
/// `RETURN` follows (the yielded columns in yield order, see
/// `Call::show`).
fn every_column(span: Span) -> Projection {
    Projection {
        distinct: false,
        star: true,
        items: Vec::new(),
        order_by: Vec::new(),
        skip: None,
        limit: None,
        span,
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{Clause, ExprKind, Literal, Query};

    fn call(query: &str) -> crate::ast::Call {
        let statement = crate::parse(query).unwrap();
        let Query::Single(single) = statement.query else {
            panic!("expected a single query");
        };
        match single.clauses.into_iter().next() {
            Some(Clause::Call(call)) => call,
            other => panic!("expected a call, got {other:?}"),
        }
    }

    #[test]
    fn show_commands_become_internal_calls() {
        assert_eq!(call("SHOW DATABASES").procedure, "internal.show.databases");
        assert_eq!(
            call("show default database;").procedure,
            "internal.show.defaultDatabase"
        );
        assert_eq!(
            call("SHOW HOME DATABASE").procedure,
            "internal.show.defaultDatabase"
        );
        assert_eq!(
            call("SHOW ALL PROCEDURES").procedure,
            "internal.show.procedures"
        );
        assert_eq!(
            call("SHOW BUILT IN FUNCTIONS").procedure,
            "internal.show.functions"
        );
        let filtered = call("SHOW DATABASES WHERE name = 'neo4j'");
        assert!(filtered.yield_star && filtered.where_.is_some());
        let named = call("SHOW DATABASE `my.db`");
        let args = named.args.unwrap();
        assert!(matches!(&args[0].kind, ExprKind::Literal(Literal::String(s)) if s == "my.db"));
        let dotted = call("SHOW DATABASE a.b");
        assert!(matches!(
            &dotted.args.unwrap()[0].kind,
            ExprKind::Literal(Literal::String(s)) if s == "a.b"
        ));
        let param = call("SHOW DATABASE $db YIELD name");
        assert!(matches!(&param.args.unwrap()[0].kind, ExprKind::Parameter(p) if p == "db"));
        assert_eq!(
            call("SHOW SETTINGS").procedure,
            "internal.show.settingsDefault"
        );
        let named = call("SHOW SETTING 'log', 'partitions' YIELD *");
        assert_eq!(named.procedure, "internal.show.settings");
        assert!(matches!(&named.args.unwrap()[0].kind, ExprKind::List(names) if names.len() == 2));
    }

    #[test]
    fn malformed_show_commands_are_syntax_errors() {
        for bad in [
            "SHOW",
            "SHOW TABLES",
            "SHOW DATABASE",
            "SHOW DEFAULT",
            "SHOW BUILT PROCEDURES",
        ] {
            assert!(crate::parse(bad).is_err(), "{bad}");
        }
    }
}
