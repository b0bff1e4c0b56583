//! Graph patterns: `p = (a:L {k: v})-[r:T|U *1..3]->(b)`, `shortestPath(...)`.

use nereid_values::Direction;

use super::label_expr::{self, LabelPlace};
use super::{PResult, Parser};
use crate::ast::{
    DynamicNames, Expr, NameKind, NodePattern, ParameterRole, PathKind, PatternElement,
    PatternPart, RelPattern,
};
use crate::lexer::Tok;

impl Parser<'_> {
    /// `part (, part)*`
    pub(super) fn pattern(&mut self) -> PResult<Vec<PatternPart>> {
        let mut parts = vec![self.pattern_part()?];
        while self.eat(Tok::Comma) {
            parts.push(self.pattern_part()?);
        }
        Ok(parts)
    }

    /// `[var =] (shortestPath(element) | allShortestPaths(element) | element)`
    pub(super) fn pattern_part(&mut self) -> PResult<PatternPart> {
        let start = self.peek().span;
        let variable = if self.is_variable_at(0) && self.peek_at(1).kind == Tok::Eq {
            let variable = self.variable()?;
            self.bump();
            Some(variable)
        } else {
            None
        };
        let kind = if self.is_kw_at(0, "shortestPath") && self.peek_at(1).kind == Tok::LParen {
            PathKind::Shortest
        } else if self.is_kw_at(0, "allShortestPaths") && self.peek_at(1).kind == Tok::LParen {
            PathKind::AllShortest
        } else {
            PathKind::Normal
        };
        let element = if kind == PathKind::Normal {
            self.pattern_element()?
        } else {
            self.bump();
            self.bump();
            let element = self.pattern_element()?;
            self.expect(Tok::RParen)?;
            element
        };
        Ok(PatternPart {
            variable,
            kind,
            element,
            span: self.span_from(start),
        })
    }

    /// `node (rel node)*` or the same in parentheses.
    pub(super) fn pattern_element(&mut self) -> PResult<PatternElement> {
        self.nested(|p| {
            if p.peek().kind == Tok::LParen && p.peek_at(1).kind == Tok::LParen {
                p.bump();
                let element = p.pattern_element()?;
                p.expect(Tok::RParen)?;
                return Ok(element);
            }
            let start = p.node_pattern()?;
            let mut chain = Vec::new();
            while p.at(Tok::Minus) || p.at(Tok::Lt) {
                let rel = p.rel_pattern()?;
                let node = p.node_pattern()?;
                chain.push((rel, node));
            }
            Ok(PatternElement { start, chain })
        })
    }

    /// `( [var] [:L:M] [{map} | $param] )`
    fn node_pattern(&mut self) -> PResult<NodePattern> {
        let start = self.expect(Tok::LParen)?.span;
        let variable = if self.is_variable_at(0) {
            Some(self.variable()?)
        } else {
            self.record("an identifier");
            None
        };
        let (labels, dynamic_labels, label_filters) =
            if self.eat(Tok::Colon) || (variable.is_some() && self.eat_is()) {
                label_expr::node_parts(self.label_expression(LabelPlace::Node)?)
            } else {
                (Vec::new(), Vec::new(), Vec::new())
            };
        let properties = self.pattern_properties()?;
        self.expect(Tok::RParen)?;
        Ok(NodePattern {
            variable,
            labels,
            dynamic_labels,
            label_filters,
            properties,
            span: self.span_from(start),
        })
    }

    /// `IS` as GQL's spelling of `:` after a pattern's variable (`(n IS A)`);
    /// not recorded as an expectation, so error texts name `:` only.
    fn eat_is(&mut self) -> bool {
        let found = self.is_kw_at(0, "IS");
        if found {
            self.bump();
        }
        found
    }

    /// Runs `f` over a pattern that CREATE or MERGE writes.
    pub(super) fn writing_names<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        let outer = std::mem::replace(&mut self.writing_names, true);
        let result = f(self);
        self.writing_names = outer;
        result
    }

    /// Whether `$(`, `$all(` or `$any(` comes next.
    pub(super) fn dynamic_names_ahead(&mut self) -> bool {
        self.at(Tok::DynamicOpen)
            || (self.at(Tok::Parameter)
                && matches!(
                    self.peek().value.to_ascii_lowercase().as_str(),
                    "all" | "any"
                )
                && self.peek_at(1).kind == Tok::LParen)
    }

    /// `$(expr)`, `$all(expr)` or `$any(expr)` if one comes next.
    pub(super) fn dynamic_names(&mut self) -> PResult<Option<DynamicNames>> {
        if !self.dynamic_names_ahead() {
            return Ok(None);
        }
        let any = self.at(Tok::Parameter) && self.peek().value.eq_ignore_ascii_case("any");
        if any && self.writing_names {
            let what = if self.in_relationship {
                "types"
            } else {
                "labels"
            };
            return self.hard_syntax(
                &format!("Dynamic {what} using `$any()` are not allowed in CREATE or MERGE."),
                self.peek().span,
            );
        }
        if !self.eat(Tok::DynamicOpen) {
            self.bump();
            self.bump();
        }
        let expr = self.expression()?;
        self.expect(Tok::RParen)?;
        if self.writing_names {
            self.check_parameter(&expr, ParameterRole::TokenNames);
        }
        Ok(Some(DynamicNames { expr, any }))
    }

    /// `[{map} | $param]` inside a node or relationship pattern.
    fn pattern_properties(&mut self) -> PResult<Option<Expr>> {
        if self.at(Tok::LBrace) {
            return Ok(Some(self.map_literal_of(Some(NameKind::PropertyKey))?));
        }
        if self.at(Tok::Parameter) {
            return Ok(Some(self.atom()?));
        }
        Ok(None)
    }

    /// `<-[...]-`, `-[...]->`, `-[...]-`, `<-[...]->`, or the bracket-less forms (`-->`).
    fn rel_pattern(&mut self) -> PResult<RelPattern> {
        let start = self.peek().span;
        let left_arrow = self.eat(Tok::Lt);
        self.expect(Tok::Minus)?;
        let mut rel = RelPattern {
            variable: None,
            types: Vec::new(),
            dynamic_type: None,
            type_filter: None,
            direction: Direction::Both,
            length: None,
            properties: None,
            span: start,
        };
        if self.eat(Tok::LBracket) {
            let outer = std::mem::replace(&mut self.in_relationship, true);
            let detail = self.rel_detail(&mut rel);
            self.in_relationship = outer;
            detail?;
            self.expect(Tok::RBracket)?;
        }
        self.expect(Tok::Minus)?;
        let right_arrow = self.eat(Tok::Gt);
        rel.direction = match (left_arrow, right_arrow) {
            (true, false) => Direction::Incoming,
            (false, true) => Direction::Outgoing,
            _ => Direction::Both,
        };
        rel.span = self.span_from(start);
        Ok(rel)
    }

    /// Inside the brackets: `[var] [:T|U] [*range] [{map} | $param]`.
    fn rel_detail(&mut self, rel: &mut RelPattern) -> PResult<()> {
        if self.is_variable_at(0) {
            rel.variable = Some(self.variable()?);
        } else {
            self.record("an identifier");
        }
        if self.eat(Tok::Colon) || (rel.variable.is_some() && self.eat_is()) {
            let expr = self.label_expression(LabelPlace::Relationship)?;
            (rel.types, rel.dynamic_type, rel.type_filter) = label_expr::relationship_parts(expr);
        }
        if self.eat(Tok::Star) {
            rel.length = Some(self.length_range()?);
        } else if self.at(Tok::DotDot) {
            return self.hard_syntax(
                "Invalid relationship pattern: a length range starts with `*` (`*1..3`)",
                self.peek().span,
            );
        }
        rel.properties = self.pattern_properties()?;
        Ok(())
    }

    /// After `*`: nothing, `n`, `n..`, `..m`, `n..m`.
    fn length_range(&mut self) -> PResult<(Option<u64>, Option<u64>)> {
        let min = self.optional_hop_count()?;
        if !self.eat(Tok::DotDot) {
            return Ok((min, min));
        }
        let max = self.optional_hop_count()?;
        Ok((min, max))
    }

    fn optional_hop_count(&mut self) -> PResult<Option<u64>> {
        if self.at(Tok::Minus) {
            return self.hard_syntax(
                "Invalid relationship pattern: a length bound cannot be negative",
                self.peek().span,
            );
        }
        if !self.at(Tok::Integer) {
            return Ok(None);
        }
        let token = self.bump();
        match parse_unsigned(&token.value) {
            Some(n) => Ok(Some(n)),
            None => self.hard_syntax("integer is too large", token.span),
        }
    }
}

/// Parses a decimal, `0x` hex or `0o` octal literal's magnitude; `None` on overflow.
pub(super) fn parse_unsigned(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x") {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(octal) = text.strip_prefix("0o") {
        u64::from_str_radix(octal, 8).ok()
    } else {
        text.parse().ok()
    }
}
