//! Statement level: `EXPLAIN`/`PROFILE`, `PREFIX` declarations, `UNION`, and clause dispatch.

use super::{PResult, Parser};
use crate::ast::{Clause, Query, SingleQuery, Span, Statement};
use crate::lexer::Tok;

impl Parser<'_> {
    /// `(CYPHER options | EXPLAIN | PROFILE | PREFIX name: <iri>)* query ';'? EOF`
    pub(super) fn statement(&mut self) -> PResult<Statement> {
        let mut explain = false;
        let mut profile = false;
        let mut cypher_version = None;
        let mut options = Vec::new();
        loop {
            if self.eat_kw("CYPHER") {
                self.cypher_options(&mut cypher_version, &mut options)?;
            } else if self.eat_kw("EXPLAIN") {
                explain = true;
            } else if self.eat_kw("PROFILE") {
                profile = true;
            } else if self.at_kw("PREFIX") {
                self.prefix_declaration()?;
            } else {
                break;
            }
        }
        let query = if self.at_user_command() {
            self.user_command()?
        } else if self.at_show_command() {
            self.show_command()?
        } else if self.at_schema_command() {
            self.schema_command()?
        } else {
            self.query_body()?
        };
        self.eat(Tok::Semicolon);
        self.expect(Tok::Eof)?;
        Ok(Statement {
            explain,
            profile,
            cypher_version,
            options,
            prefixes: self.prefixes.clone(),
            parameters: self.parameter_names(),
            names: self.names_read(),
            checked_parameters: self.checked_parameters(),
            query,
            source: self.query.to_string(),
        })
    }

    /// Every `$name` of the text, each once, in order of first use. A
    /// `$name` right before `(` is no parameter but a dynamic label's
    /// quantifier (`:$any(...)`, `:$all(...)`): a parameter is never called.
    fn parameter_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        let called = |i: usize| {
            self.tokens
                .get(i + 1)
                .is_some_and(|t| t.kind == Tok::LParen)
        };
        for (i, token) in self.tokens.iter().enumerate() {
            if token.kind != Tok::Parameter || called(i) {
                continue;
            }
            if !names.contains(&token.value) {
                names.push(token.value.clone());
            }
        }
        names
    }

    /// `PREFIX name: <iri>`; redeclaring a name with a different IRI is an error.
    fn prefix_declaration(&mut self) -> PResult<()> {
        self.expect_kw("PREFIX")?;
        let name_token = self.peek().clone();
        let name = match name_token.kind {
            Tok::Ident | Tok::EscapedIdent => {
                self.bump();
                name_token.value.clone()
            }
            _ => return self.fail_expecting("a prefix name"),
        };
        self.expect(Tok::Colon)?;
        let iri = self.expect(Tok::Iri)?.value;
        match self.prefixes.iter().find(|(declared, _)| *declared == name) {
            Some((_, previous)) if *previous != iri => self.hard_semantic(
                &format!("Prefix `{name}` is already declared as <{previous}>"),
                name_token.span,
            ),
            Some(_) => Ok(()),
            None => {
                self.prefixes.push((name, iri));
                Ok(())
            }
        }
    }

    /// `single (UNION [ALL] single)*`; mixing `UNION` and `UNION ALL` is rejected.
    pub(super) fn query_body(&mut self) -> PResult<Query> {
        let first = self.single_query()?;
        let mut queries = vec![first];
        let mut all: Option<bool> = None;
        while self.at_kw("UNION") {
            let union_span = self.bump().span;
            let this_all = self.eat_kw("ALL");
            match all {
                Some(previous) if previous != this_all => {
                    return self
                        .hard_syntax("Invalid combination of UNION and UNION ALL", union_span);
                }
                _ => all = Some(this_all),
            }
            queries.push(self.single_query()?);
        }
        match all {
            None => Ok(Query::Single(queries.remove(0))),
            Some(all) => Ok(Query::Union { all, queries }),
        }
    }

    /// One or more clauses; `RETURN` ends the sequence.
    fn single_query(&mut self) -> PResult<SingleQuery> {
        let start = self.peek().span;
        let mut clauses = Vec::new();
        loop {
            match self.clause()? {
                Some(clause) => {
                    let is_return = matches!(clause, Clause::Return(_));
                    clauses.push(clause);
                    if is_return {
                        break;
                    }
                }
                None if clauses.is_empty() => return Err(super::Fail::Expected),
                None => break,
            }
        }
        Ok(SingleQuery {
            clauses,
            span: Span::new(start.start, self.prev_span().end),
        })
    }

    /// One clause, or `None` when the current token does not start a clause.
    pub(super) fn clause(&mut self) -> PResult<Option<Clause>> {
        let clause = if self.at_kw("MATCH") || self.at_kw("OPTIONAL") {
            Clause::Match(self.match_clause()?)
        } else if self.at_kw("UNWIND") {
            Clause::Unwind(self.unwind_clause()?)
        } else if self.at_kw("WITH") {
            Clause::With(self.with_clause()?)
        } else if self.at_kw("RETURN") {
            Clause::Return(self.return_clause()?)
        } else if self.at_kw("CREATE") {
            Clause::Create(self.create_clause()?)
        } else if self.at_kw("MERGE") {
            Clause::Merge(self.merge_clause()?)
        } else if self.at_kw("SET") {
            Clause::Set(self.set_clause()?)
        } else if self.at_kw("REMOVE") {
            Clause::Remove(self.remove_clause()?)
        } else if self.at_kw("DELETE") || self.at_kw("DETACH") {
            Clause::Delete(self.delete_clause()?)
        } else if self.at_kw("LOAD") {
            Clause::LoadCsv(self.load_csv_clause()?)
        } else if self.at_kw("FOREACH") {
            Clause::Foreach(self.foreach_clause()?)
        } else if self.at_kw("CALL") && matches!(self.peek_at(1).kind, Tok::LBrace | Tok::LParen) {
            Clause::CallSubquery(self.call_subquery()?)
        } else if self.at_kw("CALL") {
            Clause::Call(self.call_clause()?)
        } else {
            return Ok(None);
        };
        Ok(Some(clause))
    }
}
