//! Schema commands, in Neo4j 5's syntax, desugared (as `show.rs` does for
//! `SHOW`) into a standalone call of an internal procedure (dfe
//! `procedures/schema_ddl.rs`) whose arguments are the command's pieces, so
//! planning and execution need nothing new and a `$name` is an ordinary
//! parameter:
//!
//! ```text
//! CREATE [RANGE|TEXT|POINT|VECTOR] INDEX [name] [IF NOT EXISTS] FOR pattern ON (v.p, ...) [OPTIONS m]
//! CREATE LOOKUP INDEX ... FOR (n) ON EACH labels(n) | FOR ()-[r]-() ON EACH type(r)
//! CREATE FULLTEXT INDEX ... FOR (n:A|B) ON EACH [n.p, ...]
//!   -> CALL internal.schema.createIndex(name, type, entity, labels, properties, ifNotExists, options)
//! CREATE CONSTRAINT [name] [IF NOT EXISTS] FOR pattern REQUIRE props IS kind [OPTIONS m]
//!   -> CALL internal.schema.createConstraint(name, kind, entity, label, properties, types, ifNotExists, options)
//! DROP INDEX name [IF EXISTS]       -> CALL internal.schema.dropIndex(name, ifExists)
//! DROP CONSTRAINT name [IF EXISTS]  -> CALL internal.schema.dropConstraint(name, ifExists)
//! ```
//!
//! Whether a type of index is served is the procedure's business: the
//! parser accepts every type Neo4j 5 has, so a user gets a clear "not
//! supported" rather than a syntax error for valid Cypher.

use super::schema_pattern::{
    bool_literal, null_literal, string_list, string_literal, Entity, Labels, PropertyRef,
    SchemaPattern,
};
use super::{PResult, Parser};
use crate::ast::{Call, Clause, Expr, ExprKind, Query, SingleQuery, Span};
use crate::lexer::Tok;

/// Index types Neo4j 5 knows, as written before `INDEX`.
const INDEX_TYPES: &[&str] = &[
    "RANGE", "TEXT", "POINT", "LOOKUP", "FULLTEXT", "VECTOR", "BTREE",
];

/// What `OPTIONS` may hold.
const OPTION_KEYS: &[&str] = &["indexProvider", "indexConfig"];

impl Parser<'_> {
    /// Whether the statement is a schema command (checked without
    /// recording an expectation, so other errors read as before).
    pub(super) fn at_schema_command(&self) -> bool {
        if self.is_kw_at(0, "DROP") {
            return true;
        }
        self.is_kw_at(0, "CREATE")
            && (self.is_kw_at(1, "INDEX")
                || self.is_kw_at(1, "CONSTRAINT")
                || (INDEX_TYPES.iter().any(|t| self.is_kw_at(1, t)) && self.is_kw_at(2, "INDEX")))
    }

    /// A whole schema command as a query.
    pub(super) fn schema_command(&mut self) -> PResult<Query> {
        let start = self.peek().span;
        let (procedure, args) = if self.eat_kw("DROP") {
            self.drop_command()?
        } else {
            self.expect_kw("CREATE")?;
            if self.eat_kw("CONSTRAINT") {
                self.create_constraint(start)?
            } else {
                self.create_index(start)?
            }
        };
        Ok(internal_call(procedure, args, self.span_from(start)))
    }

    /// `INDEX name [IF EXISTS]` / `CONSTRAINT name [IF EXISTS]` after DROP.
    fn drop_command(&mut self) -> PResult<(&'static str, Vec<Expr>)> {
        let procedure = if self.eat_kw("INDEX") {
            "internal.schema.dropIndex"
        } else if self.eat_kw("CONSTRAINT") {
            "internal.schema.dropConstraint"
        } else {
            return self.fail_expecting("'INDEX' or 'CONSTRAINT'");
        };
        if self.is_kw_at(0, "ON") && self.peek_at(1).kind == Tok::Colon {
            return self.hard_syntax(
                "Indexes and constraints are dropped by name: `DROP INDEX name` / `DROP CONSTRAINT name`",
                self.peek().span,
            );
        }
        let name = self.schema_object_name()?;
        let if_exists = if self.eat_kw("IF") {
            self.expect_kw("EXISTS")?;
            true
        } else {
            false
        };
        let span = self.prev_span();
        Ok((procedure, vec![name, bool_literal(if_exists, span)]))
    }

    /// The optional name and `IF NOT EXISTS` before `FOR`.
    fn name_and_if_not_exists(&mut self) -> PResult<(Expr, bool)> {
        let here = self.peek().span;
        let unnamed = (self.is_kw_at(0, "IF") && self.is_kw_at(1, "NOT"))
            || (self.is_kw_at(0, "FOR") && self.peek_at(1).kind == Tok::LParen);
        let name = if unnamed {
            null_literal(Span::new(here.start, here.start))
        } else {
            self.schema_object_name()?
        };
        let if_not_exists = self.if_not_exists()?;
        Ok((name, if_not_exists))
    }

    fn create_index(&mut self, start: Span) -> PResult<(&'static str, Vec<Expr>)> {
        let kind = if self.is_kw_at(0, "INDEX") {
            "RANGE".to_string()
        } else {
            self.bump().value.to_ascii_uppercase()
        };
        let kind_span = self.prev_span();
        self.expect_kw("INDEX")?;
        if kind == "BTREE" {
            return self.hard_syntax(
                "Invalid index type b-tree, use a RANGE, TEXT or POINT index instead",
                kind_span,
            );
        }
        if self.is_kw_at(0, "ON") && self.peek_at(1).kind == Tok::Colon {
            return self.hard_syntax(
                "Invalid create index syntax, use `CREATE INDEX FOR ...` instead.",
                self.peek().span,
            );
        }
        let (name, if_not_exists) = self.name_and_if_not_exists()?;
        self.expect_kw("FOR")?;
        let labels = match kind.as_str() {
            "LOOKUP" => Labels::Zero,
            "FULLTEXT" => Labels::Many,
            _ => Labels::One,
        };
        let pattern = self.schema_pattern(labels)?;
        self.expect_kw("ON")?;
        let properties = match kind.as_str() {
            "LOOKUP" => {
                self.lookup_function(&pattern)?;
                Vec::new()
            }
            "FULLTEXT" => {
                self.expect_kw("EACH")?;
                self.expect(Tok::LBracket)?;
                let mut properties = vec![self.pattern_property(&pattern)?];
                while self.eat(Tok::Comma) {
                    properties.push(self.pattern_property(&pattern)?);
                }
                self.expect(Tok::RBracket)?;
                properties
            }
            _ => self.schema_properties(&pattern)?,
        };
        if matches!(kind.as_str(), "TEXT" | "POINT" | "VECTOR") && properties.len() > 1 {
            return self.hard_syntax(
                &format!(
                    "Only single property {} indexes are supported",
                    kind.to_ascii_lowercase()
                ),
                properties[1].variable,
            );
        }
        let what = format!(
            "{} {} property index",
            kind.to_ascii_lowercase(),
            pattern.entity.name().to_ascii_lowercase()
        );
        let options = self.options(start, &what)?;
        let span = self.span_from(start);
        Ok((
            "internal.schema.createIndex",
            vec![
                name,
                string_literal(&kind, kind_span),
                string_literal(pattern.entity.name(), pattern.span),
                string_list(pattern.labels.iter().map(String::as_str), pattern.span),
                key_list(&properties, span),
                bool_literal(if_not_exists, span),
                options,
            ],
        ))
    }

    /// `EACH labels(n)` / `EACH type(r)` of a lookup index.
    fn lookup_function(&mut self, pattern: &SchemaPattern) -> PResult<()> {
        self.expect_kw("EACH")?;
        match pattern.entity {
            Entity::Node => self.expect_kw("LABELS")?,
            Entity::Relationship => self.expect_kw("TYPE")?,
        };
        self.expect(Tok::LParen)?;
        let variable = self.variable()?;
        if variable.name != pattern.variable.name {
            return self.hard_semantic(
                &format!("Variable `{}` not defined", variable.name),
                variable.span,
            );
        }
        self.expect(Tok::RParen)?;
        Ok(())
    }

    /// After `CREATE CONSTRAINT`.
    fn create_constraint(&mut self, start: Span) -> PResult<(&'static str, Vec<Expr>)> {
        if self.is_kw_at(0, "ON") && self.peek_at(1).kind == Tok::LParen {
            return self.hard_syntax(
                "Invalid constraint syntax, ON and ASSERT should not be used. Replace ON with FOR and ASSERT with REQUIRE.",
                self.peek().span,
            );
        }
        let (name, if_not_exists) = self.name_and_if_not_exists()?;
        self.expect_kw("FOR")?;
        let pattern = self.schema_pattern(Labels::One)?;
        if self.is_kw_at(0, "ASSERT") {
            return self.hard_syntax(
                "Invalid constraint syntax, FOR should not be used in combination with ASSERT. Replace ASSERT with REQUIRE.",
                self.peek().span,
            );
        }
        self.expect_kw("REQUIRE")?;
        let properties = self.schema_properties(&pattern)?;
        self.expect_kw("IS")?;
        let (kind, types) = self.constraint_kind(&pattern, &properties)?;
        let options = self.options(start, "constraint")?;
        let span = self.span_from(start);
        Ok((
            "internal.schema.createConstraint",
            vec![
                name,
                string_literal(kind, span),
                string_literal(pattern.entity.name(), pattern.span),
                string_literal(&pattern.labels[0], pattern.span),
                key_list(&properties, span),
                string_list(types.iter().map(String::as_str), span),
                bool_literal(if_not_exists, span),
                options,
            ],
        ))
    }

    /// What follows `IS`: `UNIQUE`, `KEY`, `NOT NULL` or a type, with the
    /// entity words Neo4j allows checked against the pattern.
    fn constraint_kind(
        &mut self,
        pattern: &SchemaPattern,
        properties: &[PropertyRef],
    ) -> PResult<(&'static str, Vec<String>)> {
        let single = |p: &mut Self, what: &str| -> PResult<()> {
            match properties.get(1) {
                Some(second) => p.hard_syntax(
                    &format!("Constraint type '{what}' does not allow multiple properties"),
                    second.dot,
                ),
                None => Ok(()),
            }
        };
        let entity_word = if self.eat_kw("NODE") {
            Some(Entity::Node)
        } else if self.eat_kw("RELATIONSHIP") || self.eat_kw("REL") {
            Some(Entity::Relationship)
        } else {
            None
        };
        let written = self.prev_span();
        let kind = if entity_word.is_none() && self.eat_kw("NOT") {
            self.expect_kw("NULL")?;
            single(self, "IS NOT NULL")?;
            return Ok(("EXISTS", Vec::new()));
        } else if entity_word.is_none() && (self.eat(Tok::ColonColon) || self.eat_kw("TYPED")) {
            single(self, "IS TYPED")?;
            let entity = pattern.entity.name().to_ascii_lowercase();
            let types = self.property_type(&entity)?;
            return Ok(("PROPERTY_TYPE", types));
        } else if self.eat_kw("UNIQUE") {
            "UNIQUE"
        } else if self.eat_kw("KEY") {
            "KEY"
        } else if entity_word.is_some() {
            return self.fail_expecting("'UNIQUE' or 'KEY'");
        } else {
            return self.fail_expecting("'UNIQUE', 'KEY', 'NOT NULL', '::' or 'TYPED'");
        };
        if let Some(word) = entity_word {
            if word != pattern.entity {
                let text = self.text(written.to(self.prev_span())).to_ascii_uppercase();
                let other = match pattern.entity {
                    Entity::Node => "node",
                    Entity::Relationship => "relationship",
                };
                return self.hard_syntax(
                    &format!("'IS {text}' does not allow {other} patterns"),
                    pattern.span,
                );
            }
        }
        Ok((kind, Vec::new()))
    }

    /// `OPTIONS {...}` (a map or a parameter), or null. A literal map may
    /// only name Neo4j's two options; their values mean nothing here.
    fn options(&mut self, start: Span, what: &str) -> PResult<Expr> {
        if !self.eat_kw("OPTIONS") {
            return Ok(null_literal(self.prev_span()));
        }
        let options = if self.peek().kind == Tok::Parameter {
            let token = self.bump();
            Expr::new(ExprKind::Parameter(token.value), token.span)
        } else {
            self.map_literal()?
        };
        if let ExprKind::Map(entries) = &options.kind {
            if entries
                .iter()
                .any(|(k, _)| !OPTION_KEYS.contains(&k.as_str()))
            {
                return self.hard_syntax(
                    &format!(
                        "Failed to create {what}: Invalid option provided, valid options are `indexProvider` and `indexConfig`."
                    ),
                    Span::new(start.start, start.start),
                );
            }
        }
        Ok(options)
    }
}

fn key_list(properties: &[PropertyRef], span: Span) -> Expr {
    string_list(properties.iter().map(|p| p.key.as_str()), span)
}

/// `CALL procedure(args)` as the whole statement.
pub(super) fn internal_call(procedure: &str, args: Vec<Expr>, span: Span) -> Query {
    Query::Single(SingleQuery {
        clauses: vec![Clause::Call(Call {
            procedure: procedure.to_string(),
            procedure_span: span,
            args: Some(args),
            yields: None,
            yield_star: false,
            where_: None,
            show: false,
            span,
        })],
        span,
    })
}
