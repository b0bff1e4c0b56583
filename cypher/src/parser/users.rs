//! User and role administration in Neo4j 5's syntax, desugared (as
//! `schema.rs` does for DDL) into a standalone call of an internal
//! procedure (dfe `procedures/users.rs`) whose arguments are the command's
//! pieces; a name or password may be a `$parameter`:
//!
//! ```text
//! CREATE [OR REPLACE] USER name [IF NOT EXISTS] SET [PLAINTEXT|ENCRYPTED] PASSWORD pw
//!     [[SET PASSWORD] CHANGE [NOT] REQUIRED] [SET STATUS ACTIVE|SUSPENDED]
//!   -> CALL internal.users.create(name, pw, encrypted, changeRequired, suspended, ifNotExists, orReplace)
//! ALTER USER name [IF EXISTS] [SET [PLAINTEXT|ENCRYPTED] PASSWORD pw]
//!     [[SET PASSWORD] CHANGE [NOT] REQUIRED] [SET STATUS ACTIVE|SUSPENDED]
//!   -> CALL internal.users.alter(name, pw, encrypted, changeRequired, suspended, ifExists)
//! ALTER CURRENT USER SET PASSWORD FROM old TO new
//!   -> CALL internal.users.changeOwnPassword(old, new)
//! RENAME USER a [IF EXISTS] TO b  -> CALL internal.users.rename(a, b, ifExists)
//! DROP USER name [IF EXISTS]      -> CALL internal.users.drop(name, ifExists)
//! GRANT ROLE[S] r, ... TO u, ...  -> CALL internal.users.grantRoles([r, ...], [u, ...])
//! REVOKE ROLE[S] r, ... FROM u, ... -> CALL internal.users.revokeRoles([r, ...], [u, ...])
//! ```
//!
//! A setting left out is null: the procedure keeps what the user has (or,
//! for a new user, takes Neo4j's default: change required, active).
//! `SHOW USERS`, `SHOW CURRENT USER` and `SHOW ROLES` are `SHOW` commands
//! (`show.rs`).

use super::schema::internal_call;
use super::schema_pattern::{bool_literal, null_literal, string_literal};
use super::{PResult, Parser};
use crate::ast::{Expr, ExprKind, Literal, Query, Span};
use crate::lexer::Tok;

/// The settings of `CREATE USER` / `ALTER USER`, each null when not
/// written.
struct UserSettings {
    password: Expr,
    encrypted: Expr,
    change_required: Expr,
    suspended: Expr,
}

impl Parser<'_> {
    /// Whether the statement is a user or role command (checked without
    /// recording an expectation, so other errors read as before).
    pub(super) fn at_user_command(&self) -> bool {
        let user_at = |n: usize| self.is_kw_at(n, "USER");
        (self.is_kw_at(0, "CREATE")
            && (user_at(1)
                || (self.is_kw_at(1, "OR") && self.is_kw_at(2, "REPLACE") && user_at(3))))
            || (self.is_kw_at(0, "ALTER")
                && (user_at(1) || (self.is_kw_at(1, "CURRENT") && user_at(2))))
            || ((self.is_kw_at(0, "DROP") || self.is_kw_at(0, "RENAME")) && user_at(1))
            || ((self.is_kw_at(0, "GRANT") || self.is_kw_at(0, "REVOKE"))
                && (self.is_kw_at(1, "ROLE") || self.is_kw_at(1, "ROLES")))
    }

    /// A whole user or role command as a query.
    pub(super) fn user_command(&mut self) -> PResult<Query> {
        let start = self.peek().span;
        let (procedure, args) = if self.eat_kw("CREATE") {
            self.create_user(start)?
        } else if self.eat_kw("ALTER") {
            if self.eat_kw("CURRENT") {
                self.expect_kw("USER")?;
                self.expect_kw("SET")?;
                self.expect_kw("PASSWORD")?;
                self.expect_kw("FROM")?;
                let old = self.password_value()?;
                self.expect_kw("TO")?;
                let new = self.password_value()?;
                ("internal.users.changeOwnPassword", vec![old, new])
            } else {
                self.expect_kw("USER")?;
                let name = self.user_name()?;
                let if_exists = self.user_if_exists()?;
                let settings = self.user_settings(false)?;
                if [
                    &settings.password,
                    &settings.change_required,
                    &settings.suspended,
                ]
                .iter()
                .all(|e| is_null(e))
                {
                    return self.fail_expecting("SET PASSWORD, SET PASSWORD CHANGE or SET STATUS");
                }
                let mut args = vec![name];
                args.extend(settings.into_args());
                args.push(bool_literal(if_exists, start));
                ("internal.users.alter", args)
            }
        } else if self.eat_kw("RENAME") {
            self.expect_kw("USER")?;
            let from = self.user_name()?;
            let if_exists = self.user_if_exists()?;
            self.expect_kw("TO")?;
            let to = self.user_name()?;
            (
                "internal.users.rename",
                vec![from, to, bool_literal(if_exists, start)],
            )
        } else if self.eat_kw("DROP") {
            self.expect_kw("USER")?;
            let name = self.user_name()?;
            let if_exists = self.user_if_exists()?;
            (
                "internal.users.drop",
                vec![name, bool_literal(if_exists, start)],
            )
        } else {
            let grant = self.eat_kw("GRANT");
            if !grant {
                self.expect_kw("REVOKE")?;
            }
            if !self.eat_kw("ROLES") {
                self.expect_kw("ROLE")?;
            }
            let roles = self.name_list()?;
            self.expect_kw(if grant { "TO" } else { "FROM" })?;
            let users = self.name_list()?;
            let procedure = if grant {
                "internal.users.grantRoles"
            } else {
                "internal.users.revokeRoles"
            };
            (procedure, vec![roles, users])
        };
        Ok(internal_call(procedure, args, self.span_from(start)))
    }

    /// `[OR REPLACE] USER name [IF NOT EXISTS] SET ... PASSWORD ...` after
    /// CREATE.
    fn create_user(&mut self, start: Span) -> PResult<(&'static str, Vec<Expr>)> {
        let or_replace = self.eat_kw("OR");
        if or_replace {
            self.expect_kw("REPLACE")?;
        }
        self.expect_kw("USER")?;
        let name = self.user_name()?;
        let if_not_exists = self.if_not_exists()?;
        if or_replace && if_not_exists {
            let shown = match &name.kind {
                ExprKind::Literal(Literal::String(s)) => s.clone(),
                _ => String::new(),
            };
            return self.hard_syntax(
                &format!(
                    "Failed to create the specified user '{shown}': cannot have both `OR REPLACE` and `IF NOT EXISTS`."
                ),
                start,
            );
        }
        let settings = self.user_settings(true)?;
        let mut args = vec![name];
        args.extend(settings.into_args());
        args.push(bool_literal(if_not_exists, start));
        args.push(bool_literal(or_replace, start));
        Ok(("internal.users.create", args))
    }

    /// The `SET ...` clauses of CREATE/ALTER USER; CREATE must set a
    /// password.
    fn user_settings(&mut self, password_required: bool) -> PResult<UserSettings> {
        let here = self.peek().span;
        let mut settings = UserSettings {
            password: null_literal(here),
            encrypted: null_literal(here),
            change_required: null_literal(here),
            suspended: null_literal(here),
        };
        while self.eat_kw("SET") {
            if self.eat_kw("STATUS") {
                let span = self.peek().span;
                let suspended = if self.eat_kw("SUSPENDED") {
                    true
                } else {
                    self.expect_kw("ACTIVE")?;
                    false
                };
                settings.suspended = bool_literal(suspended, span);
                continue;
            }
            let encrypted = self.eat_kw("ENCRYPTED");
            if !encrypted {
                self.eat_kw("PLAINTEXT");
            }
            let span = self.expect_kw("PASSWORD")?;
            if !encrypted && self.at_kw("CHANGE") {
                settings.change_required = self.change_required()?;
                continue;
            }
            settings.password = self.password_value()?;
            settings.encrypted = bool_literal(encrypted, span);
            if self.at_kw("CHANGE") {
                settings.change_required = self.change_required()?;
            }
        }
        if password_required && is_null(&settings.password) {
            return self.fail_expecting("SET PASSWORD");
        }
        Ok(settings)
    }

    /// `CHANGE [NOT] REQUIRED`.
    fn change_required(&mut self) -> PResult<Expr> {
        let span = self.expect_kw("CHANGE")?;
        let required = !self.eat_kw("NOT");
        self.expect_kw("REQUIRED")?;
        Ok(bool_literal(required, span))
    }

    /// `IF EXISTS`, when present.
    fn user_if_exists(&mut self) -> PResult<bool> {
        if !self.eat_kw("IF") {
            return Ok(false);
        }
        self.expect_kw("EXISTS")?;
        Ok(true)
    }

    /// A user or role name: a symbolic name or a parameter.
    fn user_name(&mut self) -> PResult<Expr> {
        self.schema_object_name()
    }

    /// A password: a string literal or a parameter.
    fn password_value(&mut self) -> PResult<Expr> {
        let token = self.peek().clone();
        match token.kind {
            Tok::String => {
                self.bump();
                Ok(string_literal(&token.value, token.span))
            }
            Tok::Parameter => {
                self.bump();
                Ok(Expr::new(ExprKind::Parameter(token.value), token.span))
            }
            _ => self.fail_expecting("a string or a parameter"),
        }
    }

    /// Names separated by commas, as one list expression.
    fn name_list(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        let mut names = vec![self.user_name()?];
        while self.eat(Tok::Comma) {
            names.push(self.user_name()?);
        }
        Ok(Expr::new(ExprKind::List(names), self.span_from(start)))
    }
}

impl UserSettings {
    fn into_args(self) -> [Expr; 4] {
        [
            self.password,
            self.encrypted,
            self.change_required,
            self.suspended,
        ]
    }
}

fn is_null(expr: &Expr) -> bool {
    matches!(expr.kind, ExprKind::Literal(Literal::Null))
}

#[cfg(test)]
mod tests {
    use crate::ast::{Clause, Expr, ExprKind, Literal, Query};

    fn call(query: &str) -> (String, Vec<Expr>) {
        let statement = crate::parse(query).unwrap();
        let Query::Single(single) = statement.query else {
            panic!("expected a single query");
        };
        match single.clauses.into_iter().next() {
            Some(Clause::Call(call)) => (call.procedure, call.args.unwrap()),
            other => panic!("expected a call, got {other:?}"),
        }
    }

    fn literal(expr: &Expr) -> Option<Literal> {
        match &expr.kind {
            ExprKind::Literal(l) => Some(l.clone()),
            _ => None,
        }
    }

    #[test]
    fn user_commands_become_internal_calls_with_their_settings() {
        let (procedure, args) =
            call("CREATE USER alice SET PASSWORD 'pw' CHANGE NOT REQUIRED SET STATUS SUSPENDED");
        assert_eq!(procedure, "internal.users.create");
        assert_eq!(
            args.iter().map(literal).collect::<Vec<_>>(),
            [
                Some(Literal::String("alice".into())),
                Some(Literal::String("pw".into())),
                Some(Literal::Bool(false)),
                Some(Literal::Bool(false)),
                Some(Literal::Bool(true)),
                Some(Literal::Bool(false)),
                Some(Literal::Bool(false)),
            ]
        );
        let (_, args) = call("CREATE OR REPLACE USER $u SET ENCRYPTED PASSWORD $p");
        assert!(matches!(&args[0].kind, ExprKind::Parameter(p) if p == "u"));
        assert!(matches!(&args[1].kind, ExprKind::Parameter(p) if p == "p"));
        assert_eq!(literal(&args[2]), Some(Literal::Bool(true)));
        assert_eq!(literal(&args[3]), Some(Literal::Null));
        assert_eq!(literal(&args[6]), Some(Literal::Bool(true)));

        let (procedure, args) = call("ALTER USER bob IF EXISTS SET PASSWORD CHANGE REQUIRED");
        assert_eq!(procedure, "internal.users.alter");
        assert_eq!(literal(&args[1]), Some(Literal::Null));
        assert_eq!(literal(&args[3]), Some(Literal::Bool(true)));
        assert_eq!(literal(&args[5]), Some(Literal::Bool(true)));

        for (query, procedure) in [
            (
                "ALTER CURRENT USER SET PASSWORD FROM 'a' TO 'b'",
                "internal.users.changeOwnPassword",
            ),
            ("DROP USER bob IF EXISTS", "internal.users.drop"),
            ("RENAME USER bob TO robert", "internal.users.rename"),
            (
                "GRANT ROLE reader TO bob, alice",
                "internal.users.grantRoles",
            ),
            (
                "REVOKE ROLES reader, editor FROM bob",
                "internal.users.revokeRoles",
            ),
        ] {
            assert_eq!(call(query).0, procedure, "{query}");
        }
    }

    #[test]
    fn malformed_user_commands_are_syntax_errors() {
        for bad in [
            "CREATE USER alice",
            "CREATE USER alice SET PASSWORD",
            "CREATE USER alice SET PASSWORD 1",
            "CREATE OR REPLACE USER alice IF NOT EXISTS SET PASSWORD 'p'",
            "ALTER USER alice",
            "ALTER USER alice SET STATUS BLOCKED",
            "ALTER CURRENT USER SET PASSWORD TO 'b'",
            "DROP USER",
            "GRANT ROLE reader bob",
        ] {
            let error = crate::parse(bad).unwrap_err();
            assert_eq!(error.kind, crate::ErrorKind::Syntax, "{bad}: {error}");
        }
    }
}
