//! `SHOW [type] INDEX[ES]` and `SHOW [type] CONSTRAINT[S]`: the type filter
//! goes to the procedure as one normalised string (`RANGE`, `ALL`,
//! `NODE UNIQUE`, `RELATIONSHIP KEY`, `EXIST`, `PROPERTY TYPE`, ...), since
//! the procedure, not the parser, knows which stored kind each names.

use super::schema_pattern::string_literal;
use super::show::ShowTarget;
use super::{PResult, Parser};

/// Index filters Neo4j 5 accepts before `INDEXES`.
const INDEX_FILTERS: &[&str] = &[
    "ALL", "RANGE", "TEXT", "LOOKUP", "POINT", "VECTOR", "FULLTEXT",
];

impl Parser<'_> {
    /// `[filter] INDEXES` / `[filter] CONSTRAINTS` after `SHOW`; an
    /// ordinary mismatch when neither follows (so `SHOW ALL PROCEDURES`
    /// is tried next).
    pub(super) fn show_schema_target(&mut self) -> PResult<ShowTarget> {
        let start = self.peek().span;
        if self.is_kw_at(0, "BTREE") {
            return self.hard_syntax(
                "Invalid index type b-tree, please omit the `BTREE` filter.",
                start,
            );
        }
        if self.is_kw_at(0, "EXISTS") {
            return self.hard_syntax(
                "`SHOW CONSTRAINTS` no longer allows the `EXISTS` keyword, please use `EXIST` or `PROPERTY EXISTENCE` instead.",
                start,
            );
        }
        if let Some(filter) = INDEX_FILTERS.iter().find(|f| self.is_kw_at(0, f)) {
            if self.is_kw_at(1, "INDEX") || self.is_kw_at(1, "INDEXES") {
                self.bump();
                self.bump();
                return Ok(index_target(filter, start));
            }
        }
        if self.eat_kw("INDEX") || self.eat_kw("INDEXES") {
            return Ok(index_target("ALL", start));
        }
        let filter = self.constraint_filter()?;
        if !(self.eat_kw("CONSTRAINT") || self.eat_kw("CONSTRAINTS")) {
            return self.fail_expecting("'CONSTRAINTS'");
        }
        Ok(ShowTarget {
            procedure: "internal.show.constraints",
            default_columns: Some("internal.show.constraintsDefault"),
            args: vec![string_literal(&filter, start)],
        })
    }

    /// `ALL`, or `[NODE | RELATIONSHIP | REL]` then `UNIQUE` (`UNIQUENESS`),
    /// `KEY`, `EXIST` (`EXISTENCE`, `PROPERTY EXISTENCE`) or
    /// `PROPERTY TYPE`; nothing means `ALL`.
    fn constraint_filter(&mut self) -> PResult<String> {
        if self.eat_kw("ALL") {
            return Ok("ALL".into());
        }
        let entity = if self.eat_kw("NODE") {
            "NODE "
        } else if self.eat_kw("RELATIONSHIP") || self.eat_kw("REL") {
            "RELATIONSHIP "
        } else {
            ""
        };
        let kind = if self.eat_kw("UNIQUE") || self.eat_kw("UNIQUENESS") {
            "UNIQUE"
        } else if self.eat_kw("KEY") {
            "KEY"
        } else if self.eat_kw("EXIST") || self.eat_kw("EXISTENCE") {
            "EXIST"
        } else if self.eat_kw("PROPERTY") {
            if self.eat_kw("TYPE") {
                "PROPERTY TYPE"
            } else {
                if !self.eat_kw("EXISTENCE") {
                    self.expect_kw("EXIST")?;
                }
                "EXIST"
            }
        } else if entity.is_empty() {
            return Ok("ALL".into());
        } else {
            return self.fail_expecting("'UNIQUE', 'KEY', 'EXIST' or 'PROPERTY TYPE'");
        };
        Ok(format!("{entity}{kind}"))
    }
}

fn index_target(filter: &str, start: crate::ast::Span) -> ShowTarget {
    ShowTarget {
        procedure: "internal.show.indexes",
        default_columns: Some("internal.show.indexesDefault"),
        args: vec![string_literal(filter, start)],
    }
}
