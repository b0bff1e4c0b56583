//! Atoms and postfix operators: literals, parameters, variables, lists, maps, CASE,
//! comprehensions, quantifiers, function calls, map projections, pattern predicates,
//! property access, indexing, slicing and label predicates.

use super::label_expr::LabelPlace;
use super::{Fail, PResult, Parser};
use crate::ast::{
    Expr, ExprKind, Ident, LabelExpr, Literal, MapProjectionItem, NameKind, PatternElement,
    QuantifierKind, Reduce,
};
use crate::lexer::Tok;

impl Parser<'_> {
    /// An atom followed by any postfix operators.
    pub(super) fn postfix(&mut self) -> PResult<Expr> {
        let atom = self.atom()?;
        self.postfix_on(atom)
    }

    /// `expr ( .key | [i] | [a..b] )* [:L:M]`
    pub(super) fn postfix_on(&mut self, mut expr: Expr) -> PResult<Expr> {
        let mut grown = 0;
        let result = self.postfix_loop(&mut expr, &mut grown);
        self.shrink_tree(grown);
        result?;
        if self.eat(Tok::Colon) {
            let labels = self.label_expression(LabelPlace::Predicate)?;
            let span = self.span_from(expr.span);
            let kind = match plain_conjunction(labels) {
                Ok(names) => ExprKind::HasLabels(Box::new(expr), names),
                Err(labels) => ExprKind::HasLabelExpr(Box::new(expr), Box::new(labels)),
            };
            expr = Expr::new(kind, span);
        }
        Ok(expr)
    }

    fn postfix_loop(&mut self, expr: &mut Expr, grown: &mut usize) -> PResult<()> {
        loop {
            if self.at(Tok::Dot) {
                self.bump();
                let key = self.name_read(NameKind::PropertyKey)?;
                let span = self.span_from(expr.span);
                wrap_in_place(expr, |inner| {
                    Expr::new(ExprKind::Property(Box::new(inner), key), span)
                });
            } else if self.at(Tok::LBracket) {
                self.bump();
                let from = if self.at(Tok::DotDot) {
                    None
                } else {
                    Some(Box::new(self.expression()?))
                };
                if self.eat(Tok::DotDot) {
                    let to = if self.at(Tok::RBracket) {
                        None
                    } else {
                        Some(Box::new(self.expression()?))
                    };
                    self.expect(Tok::RBracket)?;
                    let span = self.span_from(expr.span);
                    wrap_in_place(expr, |inner| {
                        Expr::new(ExprKind::Slice(Box::new(inner), from, to), span)
                    });
                } else {
                    self.expect(Tok::RBracket)?;
                    let Some(index) = from else {
                        return Err(Fail::Expected);
                    };
                    let span = self.span_from(expr.span);
                    wrap_in_place(expr, |inner| {
                        Expr::new(ExprKind::Index(Box::new(inner), index), span)
                    });
                }
            } else {
                return Ok(());
            }
            self.grow_tree(1)?;
            *grown += 1;
        }
    }

    /// One atom (no postfix operators).
    pub(super) fn atom(&mut self) -> PResult<Expr> {
        if self.at_iri_value() {
            return self.iri_value();
        }
        let token = self.peek().clone();
        let span = token.span;
        let literal = |kind| Ok(Expr::new(ExprKind::Literal(kind), span));
        match token.kind {
            Tok::Integer => {
                self.bump();
                match super::pattern::parse_unsigned(&token.value)
                    .and_then(|n| i64::try_from(n).ok())
                {
                    Some(n) => literal(Literal::Integer(n)),
                    None => self.hard_syntax("integer is too large", span),
                }
            }
            Tok::Float => {
                self.bump();
                match token.value.parse::<f64>() {
                    Ok(f) if f.is_finite() => literal(Literal::Float(f)),
                    _ => self.hard_syntax("floating point number is too large", span),
                }
            }
            Tok::String => {
                self.bump();
                literal(Literal::String(token.value))
            }
            Tok::Parameter => {
                self.bump();
                Ok(Expr::new(ExprKind::Parameter(token.value), span))
            }
            Tok::LBracket => self.nested(|p| p.bracket_atom()),
            Tok::LBrace => self.nested(|p| p.map_literal()),
            Tok::LParen => self.nested(|p| p.paren_atom()),
            Tok::Ident | Tok::EscapedIdent => self.word_atom(),
            _ => self.fail_expecting("an expression"),
        }
    }

    /// Atoms starting with a word: keywords literals, CASE, count(*), quantifiers, function
    /// calls, variables and map projections.
    fn word_atom(&mut self) -> PResult<Expr> {
        let token = self.peek().clone();
        let span = token.span;
        let keyword = token.kind == Tok::Ident;
        let literal = |kind| Ok(Expr::new(ExprKind::Literal(kind), span));
        if keyword {
            if self.is_kw_at(0, "NULL") {
                self.bump();
                return literal(Literal::Null);
            }
            if self.is_kw_at(0, "TRUE") {
                self.bump();
                return literal(Literal::Bool(true));
            }
            if self.is_kw_at(0, "FALSE") {
                self.bump();
                return literal(Literal::Bool(false));
            }
            if self.is_kw_at(0, "CASE") {
                return self.nested(|p| p.case_expression());
            }
            if self.is_kw_at(0, "COUNT")
                && self.peek_at(1).kind == Tok::LParen
                && self.peek_at(2).kind == Tok::Star
                && self.peek_at(3).kind == Tok::RParen
            {
                for _ in 0..4 {
                    self.bump();
                }
                return Ok(Expr::new(ExprKind::CountStar, self.span_from(span)));
            }
            if token.value.eq_ignore_ascii_case("REDUCE")
                && self.peek_at(1).kind == Tok::LParen
                && self.is_variable_at(2)
                && self.peek_at(3).kind == Tok::Eq
            {
                return self.nested(|p| p.reduce());
            }
            if let Some(kind) = quantifier_kind(&token.value) {
                if self.peek_at(1).kind == Tok::LParen
                    && self.is_variable_at(2)
                    && self.is_kw_at(3, "IN")
                {
                    return self.nested(|p| p.quantifier(kind));
                }
            }
        }
        if let Some(kind) = self.subquery_ahead() {
            return self.nested(|p| p.subquery_expression(kind));
        }
        if self.function_call_ahead().is_some() {
            return self.nested(|p| p.function_call());
        }
        let variable = self.variable()?;
        if self.peek().kind == Tok::LBrace {
            return self.nested(|p| p.map_projection(variable));
        }
        Ok(Expr::new(ExprKind::Variable(variable.name), variable.span))
    }

    /// `name(.name)*( [DISTINCT] args )`
    fn function_call(&mut self) -> PResult<Expr> {
        let (name, name_span) = self.dotted_name()?;
        self.expect(Tok::LParen)?;
        let distinct = self.eat_kw("DISTINCT");
        let args = self.call_arguments()?;
        Ok(Expr::new(
            ExprKind::FunctionCall {
                name,
                distinct,
                args,
            },
            self.span_from(name_span),
        ))
    }

    /// A comprehension's WHERE, where a `|` after a label test may start
    /// the projection.
    fn comprehension_predicate(&mut self) -> PResult<Expr> {
        let outer = std::mem::replace(&mut self.bar_ends_predicate, true);
        let predicate = self.expression();
        self.bar_ends_predicate = outer;
        predicate
    }

    /// `reduce ( acc = init , var IN list | step )`
    fn reduce(&mut self) -> PResult<Expr> {
        let start = self.bump().span;
        self.expect(Tok::LParen)?;
        let accumulator = self.variable()?;
        self.expect(Tok::Eq)?;
        let init = self.expression()?;
        self.expect(Tok::Comma)?;
        let variable = self.variable()?;
        self.expect_kw("IN")?;
        let list = self.expression()?;
        self.expect(Tok::Pipe)?;
        let step = self.expression()?;
        self.expect(Tok::RParen)?;
        Ok(Expr::new(
            ExprKind::Reduce(Box::new(Reduce {
                accumulator,
                init,
                variable,
                list,
                step,
            })),
            self.span_from(start),
        ))
    }

    /// `all|any|none|single ( var IN list WHERE predicate )`
    fn quantifier(&mut self, kind: QuantifierKind) -> PResult<Expr> {
        let start = self.bump().span;
        self.expect(Tok::LParen)?;
        let variable = self.variable()?;
        self.expect_kw("IN")?;
        let list = self.expression()?;
        self.expect_kw("WHERE")?;
        let predicate = self.expression()?;
        self.expect(Tok::RParen)?;
        Ok(Expr::new(
            ExprKind::Quantifier {
                kind,
                variable,
                list: Box::new(list),
                predicate: Box::new(predicate),
            },
            self.span_from(start),
        ))
    }

    /// `CASE [operand] (WHEN a THEN b)+ [ELSE c] END`
    fn case_expression(&mut self) -> PResult<Expr> {
        let start = self.bump().span;
        let operand = if self.at_kw("WHEN") {
            None
        } else {
            Some(Box::new(self.expression()?))
        };
        let mut whens = Vec::new();
        while self.eat_kw("WHEN") {
            let condition = self.expression()?;
            self.expect_kw("THEN")?;
            let result = self.expression()?;
            whens.push((condition, result));
        }
        if whens.is_empty() {
            return self.fail_expecting("'WHEN'");
        }
        let else_ = if self.eat_kw("ELSE") {
            Some(Box::new(self.expression()?))
        } else {
            None
        };
        self.expect_kw("END")?;
        Ok(Expr::new(
            ExprKind::Case {
                operand,
                whens,
                else_,
            },
            self.span_from(start),
        ))
    }

    /// `[` starts a list comprehension, a pattern comprehension or a list literal.
    fn bracket_atom(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        if self.is_variable_at(1) && self.is_kw_at(2, "IN") {
            return self.list_comprehension();
        }
        if let Some(expr) = self.attempt(|p| p.pattern_comprehension())? {
            return Ok(expr);
        }
        self.expect(Tok::LBracket)?;
        let mut items = Vec::new();
        if !self.eat(Tok::RBracket) {
            loop {
                items.push(self.expression()?);
                if self.eat(Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RBracket)?;
                break;
            }
        }
        Ok(Expr::new(ExprKind::List(items), self.span_from(start)))
    }

    /// `[var IN list [WHERE pred] [| projection]]`
    fn list_comprehension(&mut self) -> PResult<Expr> {
        let start = self.expect(Tok::LBracket)?.span;
        let variable = self.variable()?;
        self.expect_kw("IN")?;
        let list = self.expression()?;
        let predicate = if self.eat_kw("WHERE") {
            Some(Box::new(self.comprehension_predicate()?))
        } else {
            None
        };
        let projection = if self.eat(Tok::Pipe) {
            Some(Box::new(self.expression()?))
        } else {
            None
        };
        self.expect(Tok::RBracket)?;
        Ok(Expr::new(
            ExprKind::ListComprehension {
                variable,
                list: Box::new(list),
                predicate,
                projection,
            },
            self.span_from(start),
        ))
    }

    /// `[[p =] (a)-->(b) [WHERE pred] | projection]`
    fn pattern_comprehension(&mut self) -> PResult<Expr> {
        let start = self.expect(Tok::LBracket)?.span;
        let variable = if self.is_variable_at(0) && self.peek_at(1).kind == Tok::Eq {
            let variable = self.variable()?;
            self.bump();
            Some(variable)
        } else {
            None
        };
        if self.peek().kind != Tok::LParen {
            return Err(Fail::Expected);
        }
        let pattern = self.relationships_pattern()?;
        let predicate = if self.eat_kw("WHERE") {
            Some(Box::new(self.comprehension_predicate()?))
        } else {
            None
        };
        self.expect(Tok::Pipe)?;
        let projection = Box::new(self.expression()?);
        self.expect(Tok::RBracket)?;
        Ok(Expr::new(
            ExprKind::PatternComprehension {
                variable,
                pattern: Box::new(pattern),
                predicate,
                projection,
            },
            self.span_from(start),
        ))
    }

    /// A pattern element with at least one relationship.
    fn relationships_pattern(&mut self) -> PResult<PatternElement> {
        let element = self.pattern_element()?;
        if element.chain.is_empty() {
            return self.fail_expecting("'-'");
        }
        Ok(element)
    }

    /// `(` starts a pattern predicate `(a)-->(b)` or a parenthesized expression.
    fn paren_atom(&mut self) -> PResult<Expr> {
        let start = self.peek().span;
        if let Some(pattern) = self.attempt(|p| p.relationships_pattern())? {
            return Ok(Expr::new(
                ExprKind::PatternExpression(Box::new(pattern)),
                self.span_from(start),
            ));
        }
        self.expect(Tok::LParen)?;
        let inner = self.expression()?;
        self.expect(Tok::RParen)?;
        Ok(inner)
    }

    /// `{key: expr, ...}` with resolved keys.
    pub(super) fn map_literal(&mut self) -> PResult<Expr> {
        self.map_literal_of(None)
    }

    /// A map literal whose keys the query reads as `keys` names (a
    /// pattern's property map: its keys are property keys) when given.
    pub(super) fn map_literal_of(&mut self, keys: Option<NameKind>) -> PResult<Expr> {
        let start = self.expect(Tok::LBrace)?.span;
        let mut entries = Vec::new();
        if !self.eat(Tok::RBrace) {
            loop {
                let key = match keys {
                    Some(kind) => self.name_read(kind)?,
                    None => self.schema_name()?.0,
                };
                self.expect(Tok::Colon)?;
                let value = self.expression()?;
                entries.push((key, value));
                if self.eat(Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RBrace)?;
                break;
            }
        }
        Ok(Expr::new(ExprKind::Map(entries), self.span_from(start)))
    }

    /// `var { .key, .*, key: expr, other }`
    fn map_projection(&mut self, variable: Ident) -> PResult<Expr> {
        self.expect(Tok::LBrace)?;
        let mut items = Vec::new();
        if !self.eat(Tok::RBrace) {
            loop {
                items.push(self.map_projection_item()?);
                if self.eat(Tok::Comma) {
                    continue;
                }
                self.expect(Tok::RBrace)?;
                break;
            }
        }
        let span = self.span_from(variable.span);
        Ok(Expr::new(ExprKind::MapProjection { variable, items }, span))
    }

    fn map_projection_item(&mut self) -> PResult<MapProjectionItem> {
        if self.eat(Tok::Dot) {
            if self.eat(Tok::Star) {
                return Ok(MapProjectionItem::AllProperties);
            }
            return Ok(MapProjectionItem::Property(
                self.name_read(NameKind::PropertyKey)?,
            ));
        }
        if self.peek_at(1).kind == Tok::Colon || self.peek_at(1).kind == Tok::ColonColon {
            let (key, _) = self.schema_name()?;
            self.expect(Tok::Colon)?;
            return Ok(MapProjectionItem::Literal(key, self.expression()?));
        }
        Ok(MapProjectionItem::Variable(self.variable()?))
    }
}

/// The quantifier a word names, if any.
fn quantifier_kind(word: &str) -> Option<QuantifierKind> {
    [
        ("ALL", QuantifierKind::All),
        ("ANY", QuantifierKind::Any),
        ("NONE", QuantifierKind::None),
        ("SINGLE", QuantifierKind::Single),
    ]
    .into_iter()
    .find(|(name, _)| name.eq_ignore_ascii_case(word))
    .map(|(_, kind)| kind)
}

/// Replaces `*slot` with `wrap(old)`.
fn wrap_in_place(slot: &mut Expr, wrap: impl FnOnce(Expr) -> Expr) {
    let placeholder = Expr::new(ExprKind::Literal(Literal::Null), slot.span);
    let inner = std::mem::replace(slot, placeholder);
    *slot = wrap(inner);
}

/// The names of a label expression that is only a conjunction of names
/// (`n:A:B`, `n:A&B`), or the expression itself.
fn plain_conjunction(labels: LabelExpr) -> Result<Vec<String>, LabelExpr> {
    match labels {
        LabelExpr::Name(name) => Ok(vec![name]),
        LabelExpr::And(items) if items.iter().all(|i| matches!(i, LabelExpr::Name(_))) => Ok(items
            .into_iter()
            .map(|item| match item {
                LabelExpr::Name(name) => name,
                _ => unreachable!("all names"),
            })
            .collect()),
        other => Err(other),
    }
}
