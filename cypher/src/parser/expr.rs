//! Operator precedence, lowest to highest (as in the openCypher grammar):
//! `OR` < `XOR` < `AND` < `NOT` < comparisons (chained ones become `AND`s) <
//! `STARTS WITH`/`ENDS WITH`/`CONTAINS`/`=~`/`IN`/`IS [NOT] NULL` < `+ -` < `* / %` < `^` <
//! unary `+ -` < postfix (`.key`, `[i]`, `[a..b]`, `:Label`).

use super::{PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, Literal, UnaryOp};
use crate::lexer::Tok;

impl Parser<'_> {
    /// A full expression.
    pub(super) fn expression(&mut self) -> PResult<Expr> {
        self.nested(|p| p.or_expr())
    }

    /// Parses `next (op next)*` left-associatively, where `op` is found by `operator`.
    fn left_assoc(
        &mut self,
        next: fn(&mut Self) -> PResult<Expr>,
        operator: fn(&mut Self) -> Option<BinaryOp>,
    ) -> PResult<Expr> {
        let mut left = next(self)?;
        let mut grown = 0;
        let result = loop {
            let Some(op) = operator(self) else {
                break Ok(left);
            };
            if let Err(fail) = self.grow_tree(1) {
                break Err(fail);
            }
            grown += 1;
            let right = match next(self) {
                Ok(right) => right,
                Err(fail) => break Err(fail),
            };
            left = binary(op, left, right);
        };
        self.shrink_tree(grown);
        result
    }

    fn or_expr(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::xor_expr, |p| p.eat_kw("OR").then_some(BinaryOp::Or))
    }

    fn xor_expr(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::and_expr, |p| p.eat_kw("XOR").then_some(BinaryOp::Xor))
    }

    fn and_expr(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::not_expr, |p| p.eat_kw("AND").then_some(BinaryOp::And))
    }

    /// `NOT* comparison`
    fn not_expr(&mut self) -> PResult<Expr> {
        if self.at_kw("NOT") {
            let start = self.bump().span;
            let operand = self.nested(|p| p.not_expr())?;
            let span = start.to(operand.span);
            return Ok(Expr::new(
                ExprKind::Unary(UnaryOp::Not, Box::new(operand)),
                span,
            ));
        }
        self.comparison()
    }

    /// `a < b <= c` becomes `a < b AND b <= c` (the shared operand is cloned).
    fn comparison(&mut self) -> PResult<Expr> {
        let first = self.predicate_expr()?;
        let Some(op) = self.comparison_operator() else {
            return Ok(first);
        };
        let mut pending = Some(op);
        let mut left = first;
        let mut combined: Option<Expr> = None;
        let mut grown = 0;
        let result = loop {
            let Some(op) = pending.take() else {
                break Ok(());
            };
            if let Err(fail) = self.grow_tree(2) {
                break Err(fail);
            }
            grown += 2;
            let mut right = match self.predicate_expr() {
                Ok(right) => right,
                Err(fail) => break Err(fail),
            };
            pending = self.comparison_operator();
            let next_left = if pending.is_some() {
                right.clone()
            } else {
                Expr::new(ExprKind::Literal(Literal::Null), right.span)
            };
            self.id_equals_iri(op, &mut left, &mut right);
            let comparison = binary(op, left, right);
            combined = Some(match combined.take() {
                None => comparison,
                Some(previous) => binary(BinaryOp::And, previous, comparison),
            });
            left = next_left;
        };
        self.shrink_tree(grown);
        result?;
        match combined {
            Some(expr) => Ok(expr),
            None => self.fail_expecting("an expression"),
        }
    }

    fn comparison_operator(&mut self) -> Option<BinaryOp> {
        let op = [
            (Tok::Eq, BinaryOp::Eq),
            (Tok::Ne, BinaryOp::Ne),
            (Tok::Lt, BinaryOp::Lt),
            (Tok::Le, BinaryOp::Le),
            (Tok::Gt, BinaryOp::Gt),
            (Tok::Ge, BinaryOp::Ge),
        ]
        .into_iter()
        .find(|(tok, _)| self.at(*tok))
        .map(|(_, op)| op)?;
        self.bump();
        Some(op)
    }

    /// `additive (STARTS WITH a | ENDS WITH a | CONTAINS a | =~ a | IN a | IS [NOT] NULL)*`
    fn predicate_expr(&mut self) -> PResult<Expr> {
        let mut expr = self.additive()?;
        let mut grown = 0;
        let result = loop {
            if let Err(fail) = self.grow_tree(1) {
                break Err(fail);
            }
            grown += 1;
            let step = self.predicate_step(expr);
            match step {
                Ok((next, true)) => expr = next,
                Ok((next, false)) => break Ok(next),
                Err(fail) => break Err(fail),
            }
        };
        self.shrink_tree(grown);
        result
    }

    /// Applies one predicate suffix to `expr`; the flag says whether one was found.
    fn predicate_step(&mut self, expr: Expr) -> PResult<(Expr, bool)> {
        let string_op = if self.is_kw_at(0, "STARTS") && self.is_kw_at(1, "WITH") {
            Some((BinaryOp::StartsWith, 2))
        } else if self.is_kw_at(0, "ENDS") && self.is_kw_at(1, "WITH") {
            Some((BinaryOp::EndsWith, 2))
        } else if self.at_kw("CONTAINS") {
            Some((BinaryOp::Contains, 1))
        } else if self.at(Tok::RegexEq) {
            Some((BinaryOp::RegexMatch, 1))
        } else if self.at_kw("IN") {
            Some((BinaryOp::In, 1))
        } else {
            self.record("'STARTS WITH'");
            self.record("'ENDS WITH'");
            None
        };
        if let Some((op, tokens)) = string_op {
            for _ in 0..tokens {
                self.bump();
            }
            let right = self.additive()?;
            return Ok((binary(op, expr, right), true));
        }
        if self.at_kw("IS") {
            self.bump();
            let negated = self.eat_kw("NOT");
            let end = self.expect_kw("NULL")?;
            let span = expr.span.to(end);
            let kind = if negated {
                ExprKind::IsNotNull(Box::new(expr))
            } else {
                ExprKind::IsNull(Box::new(expr))
            };
            return Ok((Expr::new(kind, span), true));
        }
        Ok((expr, false))
    }

    fn additive(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::multiplicative, |p| {
            if p.eat(Tok::Plus) {
                Some(BinaryOp::Add)
            } else if p.eat(Tok::Minus) {
                Some(BinaryOp::Sub)
            } else {
                None
            }
        })
    }

    fn multiplicative(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::power, |p| {
            if p.eat(Tok::Star) {
                Some(BinaryOp::Mul)
            } else if p.eat(Tok::Slash) {
                Some(BinaryOp::Div)
            } else if p.eat(Tok::Percent) {
                Some(BinaryOp::Mod)
            } else {
                None
            }
        })
    }

    fn power(&mut self) -> PResult<Expr> {
        self.left_assoc(Self::unary, |p| p.eat(Tok::Caret).then_some(BinaryOp::Pow))
    }

    /// `(+|-) unary | postfix`. A minus directly before a number literal is folded into the
    /// literal, which is also how `-9223372036854775808` (whose magnitude exceeds i64) parses.
    fn unary(&mut self) -> PResult<Expr> {
        let op = if self.at(Tok::Minus) {
            UnaryOp::Negate
        } else if self.at(Tok::Plus) {
            UnaryOp::Plus
        } else {
            return self.postfix();
        };
        let start = self.bump().span;
        if op == UnaryOp::Negate && self.peek().kind == Tok::Integer {
            let literal = self.negative_integer_literal(start)?;
            return self.postfix_on(literal);
        }
        let operand = self.nested(|p| p.unary())?;
        let span = start.to(operand.span);
        let kind = match (op, operand.kind) {
            (UnaryOp::Negate, ExprKind::Literal(Literal::Float(f))) => {
                ExprKind::Literal(Literal::Float(-f))
            }
            (op, kind) => ExprKind::Unary(op, Box::new(Expr::new(kind, operand.span))),
        };
        Ok(Expr::new(kind, span))
    }

    /// After a consumed `-` with an integer token next: consumes it and returns the negated
    /// literal (postfix operators then apply to the negative value, as unary minus binds
    /// tighter than everything but postfix in the grammar).
    fn negative_integer_literal(&mut self, minus: crate::ast::Span) -> PResult<Expr> {
        let token = self.peek().clone();
        let Some(magnitude) = super::pattern::parse_unsigned(&token.value) else {
            return self.hard_syntax("integer is too large", minus.to(token.span));
        };
        let value = if magnitude == i64::MIN.unsigned_abs() {
            i64::MIN
        } else {
            match i64::try_from(magnitude) {
                Ok(v) => -v,
                Err(_) => return self.hard_syntax("integer is too large", minus.to(token.span)),
            }
        };
        self.bump();
        Ok(Expr::new(
            ExprKind::Literal(Literal::Integer(value)),
            minus.to(token.span),
        ))
    }
}

/// `left op right` spanning both operands.
pub(super) fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
    let span = left.span.to(right.span);
    Expr::new(ExprKind::Binary(op, Box::new(left), Box::new(right)), span)
}
