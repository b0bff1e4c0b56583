//! `LOAD CSV [WITH HEADERS] FROM source AS alias [FIELDTERMINATOR 'c']`
//! and the `IN TRANSACTIONS` suffix of `CALL { }`, the two clauses a bulk
//! import in Cypher is written with.

use super::{PResult, Parser};
use crate::ast::{InTransactions, LoadCsv, OnError};
use crate::lexer::Tok;

impl Parser<'_> {
    /// `LOAD CSV [WITH HEADERS] FROM expr AS variable [FIELDTERMINATOR string]`
    pub(super) fn load_csv_clause(&mut self) -> PResult<LoadCsv> {
        let start = self.expect_kw("LOAD")?;
        self.expect_kw("CSV")?;
        let with_headers = if self.eat_kw("WITH") {
            self.expect_kw("HEADERS")?;
            true
        } else {
            false
        };
        self.expect_kw("FROM")?;
        let source = self.expression()?;
        self.expect_kw("AS")?;
        let alias = self.variable()?;
        let field_terminator = if self.eat_kw("FIELDTERMINATOR") {
            let token = self.expect(Tok::String)?;
            if token.value.chars().count() != 1 {
                return self.hard_syntax(
                    "CSV field terminator can only be one character wide",
                    token.span,
                );
            }
            Some(token.value)
        } else {
            None
        };
        Ok(LoadCsv {
            with_headers,
            source,
            alias,
            field_terminator,
            span: self.span_from(start),
        })
    }

    /// After `CALL { ... }`: `IN [n CONCURRENT] TRANSACTIONS [OF n ROW|ROWS]
    /// [ON ERROR CONTINUE|BREAK|FAIL] [REPORT STATUS AS variable]`, the
    /// options in any order, each at most once.
    pub(super) fn in_transactions(&mut self) -> PResult<Option<InTransactions>> {
        if !self.is_kw_at(0, "IN") {
            return Ok(None);
        }
        let start = self.bump().span;
        let concurrency = if self.at_kw("TRANSACTIONS") {
            None
        } else {
            let n = self.expression()?;
            self.expect_kw("CONCURRENT")?;
            Some(n)
        };
        self.expect_kw("TRANSACTIONS")?;
        let mut spec = InTransactions {
            concurrency,
            batch_size: None,
            on_error: OnError::Fail,
            report_status: None,
            span: start,
        };
        let mut on_error_seen = false;
        loop {
            let at = self.peek().span;
            if self.eat_kw("OF") {
                if spec.batch_size.is_some() {
                    return self.hard_syntax("Duplicated OF ROWS parameter", at);
                }
                spec.batch_size = Some(self.expression()?);
                if !self.eat_kw("ROWS") {
                    self.expect_kw("ROW")?;
                }
            } else if self.eat_kw("ON") {
                if on_error_seen {
                    return self.hard_syntax("Duplicated ON ERROR parameter", at);
                }
                on_error_seen = true;
                self.expect_kw("ERROR")?;
                spec.on_error = if self.eat_kw("CONTINUE") {
                    OnError::Continue
                } else if self.eat_kw("BREAK") {
                    OnError::Break
                } else {
                    self.expect_kw("FAIL")?;
                    OnError::Fail
                };
            } else if self.eat_kw("REPORT") {
                if spec.report_status.is_some() {
                    return self.hard_syntax("Duplicated REPORT STATUS parameter", at);
                }
                self.expect_kw("STATUS")?;
                self.expect_kw("AS")?;
                spec.report_status = Some(self.variable()?);
            } else {
                break;
            }
        }
        spec.span = self.span_from(start);
        Ok(Some(spec))
    }
}
