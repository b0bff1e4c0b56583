//! Clause parsers: MATCH, UNWIND, WITH, RETURN, CREATE, MERGE, SET, REMOVE, DELETE, CALL.

use super::{Fail, PResult, Parser};
use crate::ast::{
    Call, CheckedParameter, Create, Delete, Expr, ExprKind, Ident, Match, Merge, ParameterRole,
    Projection, Remove, RemoveItem, ReturnItem, SetClause, SetItem, SortItem, Span, Unwind, With,
    YieldItem,
};
use crate::lexer::Tok;

impl Parser<'_> {
    /// `[OPTIONAL] MATCH pattern [USING hint]* [WHERE expr]`
    pub(super) fn match_clause(&mut self) -> PResult<Match> {
        let start = self.peek().span;
        let optional = self.eat_kw("OPTIONAL");
        self.expect_kw("MATCH")?;
        let pattern = self.pattern()?;
        let hints = self.hints()?;
        let where_ = self.optional_where()?;
        Ok(Match {
            optional,
            pattern,
            hints,
            where_,
            span: self.span_from(start),
        })
    }

    /// `[WHERE expr]`
    pub(super) fn optional_where(&mut self) -> PResult<Option<Expr>> {
        if self.eat_kw("WHERE") {
            Ok(Some(self.expression()?))
        } else {
            Ok(None)
        }
    }

    /// Span from the start of `start` to the end of the last consumed token.
    pub(super) fn span_from(&self, start: Span) -> Span {
        Span::new(start.start, self.prev_span().end.max(start.start))
    }

    /// `UNWIND expr AS variable`
    pub(super) fn unwind_clause(&mut self) -> PResult<Unwind> {
        let start = self.expect_kw("UNWIND")?;
        let expr = self.expression()?;
        self.expect_kw("AS")?;
        let alias = self.variable()?;
        Ok(Unwind {
            expr,
            alias,
            span: self.span_from(start),
        })
    }

    /// `WITH projection [WHERE expr]`
    pub(super) fn with_clause(&mut self) -> PResult<With> {
        let start = self.expect_kw("WITH")?;
        let mut projection = self.projection_body(start)?;
        let where_ = self.optional_where()?;
        projection.span = self.span_from(start);
        Ok(With {
            projection,
            where_,
            span: self.span_from(start),
        })
    }

    /// `RETURN projection`
    pub(super) fn return_clause(&mut self) -> PResult<Projection> {
        let start = self.expect_kw("RETURN")?;
        self.projection_body(start)
    }

    /// `[DISTINCT] (* | item) (, item)* [ORDER BY ...] [SKIP e] [LIMIT e]`
    fn projection_body(&mut self, start: Span) -> PResult<Projection> {
        let distinct = self.eat_kw("DISTINCT");
        let star = self.eat(Tok::Star);
        let mut items = Vec::new();
        if !star || self.eat(Tok::Comma) {
            loop {
                items.push(self.return_item()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let ordering = self.ordering_body(start)?;
        Ok(Projection {
            distinct,
            star,
            items,
            ..ordering
        })
    }

    /// The expression of a `SKIP` or `LIMIT`; a lone parameter is recorded.
    fn row_count(&mut self) -> PResult<Expr> {
        let expr = self.expression()?;
        self.check_parameter(&expr, ParameterRole::RowCount);
        Ok(expr)
    }

    /// Records `expr` if it is a lone parameter, to be type-checked as `role`.
    pub(super) fn check_parameter(&mut self, expr: &Expr, role: ParameterRole) {
        if let ExprKind::Parameter(name) = &expr.kind {
            let used = CheckedParameter {
                name: name.clone(),
                span: expr.span,
                role,
            };
            if !self.checked.contains(&used) {
                self.checked.push(used);
            }
        }
    }

    /// The parameters recorded by [`Self::check_parameter`], in text order.
    pub(super) fn checked_parameters(&self) -> Vec<CheckedParameter> {
        let mut used = self.checked.clone();
        used.sort_by_key(|p| p.span.start);
        used
    }

    /// `[ORDER BY ...] [SKIP e] [LIMIT e]`, as a projection without items
    /// (also what follows the items of an ordered `SHOW ... YIELD`).
    pub(super) fn ordering_body(&mut self, start: Span) -> PResult<Projection> {
        let mut order_by = Vec::new();
        if self.eat_kw("ORDER") {
            self.expect_kw("BY")?;
            loop {
                order_by.push(self.sort_item()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        let skip = if self.eat_kw("SKIP") {
            Some(self.row_count()?)
        } else {
            None
        };
        let limit = if self.eat_kw("LIMIT") {
            Some(self.row_count()?)
        } else {
            None
        };
        Ok(Projection {
            distinct: false,
            star: false,
            items: Vec::new(),
            order_by,
            skip,
            limit,
            span: self.span_from(start),
        })
    }

    /// `expr [AS alias]`; remembers the expression's source text as the default column name.
    /// The text runs from the item's first token to its last one, not over the expression's
    /// span: a parenthesised operand such as `(list[1]).missing` keeps its parenthesis.
    fn return_item(&mut self) -> PResult<ReturnItem> {
        let start = self.peek().span;
        let expr = self.expression()?;
        let text = self.text(self.span_from(start)).trim().to_string();
        let alias = if self.eat_kw("AS") {
            Some(self.variable()?)
        } else {
            None
        };
        Ok(ReturnItem { expr, alias, text })
    }

    /// `expr [ASC | ASCENDING | DESC | DESCENDING]`
    fn sort_item(&mut self) -> PResult<SortItem> {
        let expr = self.expression()?;
        let ascending = if self.eat_kw("DESC") || self.eat_kw("DESCENDING") {
            false
        } else {
            let _ = self.eat_kw("ASC") || self.eat_kw("ASCENDING");
            true
        };
        Ok(SortItem { expr, ascending })
    }

    /// `CREATE pattern`
    pub(super) fn create_clause(&mut self) -> PResult<Create> {
        let start = self.expect_kw("CREATE")?;
        let pattern = self.writing_names(|p| p.pattern())?;
        Ok(Create {
            pattern,
            span: self.span_from(start),
        })
    }

    /// `MERGE part (ON CREATE SET items | ON MATCH SET items)*`
    pub(super) fn merge_clause(&mut self) -> PResult<Merge> {
        let start = self.expect_kw("MERGE")?;
        let pattern = self.writing_names(|p| p.pattern_part())?;
        let mut on_create = Vec::new();
        let mut on_match = Vec::new();
        while self.eat_kw("ON") {
            let target = if self.eat_kw("CREATE") {
                &mut on_create
            } else if self.eat_kw("MATCH") {
                &mut on_match
            } else {
                return Err(Fail::Expected);
            };
            self.expect_kw("SET")?;
            let items = self.set_items()?;
            target.extend(items);
        }
        Ok(Merge {
            pattern,
            on_create,
            on_match,
            span: self.span_from(start),
        })
    }

    /// `SET item (, item)*`
    pub(super) fn set_clause(&mut self) -> PResult<SetClause> {
        let start = self.expect_kw("SET")?;
        let items = self.set_items()?;
        Ok(SetClause {
            items,
            span: self.span_from(start),
        })
    }

    fn set_items(&mut self) -> PResult<Vec<SetItem>> {
        let mut items = vec![self.set_item()?];
        while self.eat(Tok::Comma) {
            items.push(self.set_item()?);
        }
        Ok(items)
    }

    /// `n.p = e` | `n = e` | `n += e` | `n:L:M`
    fn set_item(&mut self) -> PResult<SetItem> {
        let start = self.peek().span;
        let target = self.property_target()?;
        if let ExprKind::Variable(name) = &target.kind {
            let variable = Ident {
                name: name.clone(),
                span: target.span,
            };
            if self.at(Tok::Colon) {
                let (labels, dynamic) = self.updated_labels()?;
                return Ok(SetItem::Labels {
                    variable,
                    labels,
                    dynamic,
                    span: self.span_from(start),
                });
            }
            if self.eat(Tok::Eq) {
                let value = self.expression()?;
                return Ok(SetItem::Replace {
                    variable,
                    value,
                    span: self.span_from(start),
                });
            }
            if self.eat(Tok::PlusEq) {
                let value = self.expression()?;
                return Ok(SetItem::MergeProperties {
                    variable,
                    value,
                    span: self.span_from(start),
                });
            }
            return self.fail_expecting("'.'");
        }
        let ExprKind::Property(owner, key) = target.kind else {
            return self.fail_expecting("'.'");
        };
        self.expect(Tok::Eq)?;
        let value = self.expression()?;
        Ok(SetItem::Property {
            target: *owner,
            key,
            value,
            span: self.span_from(start),
        })
    }

    /// An atom followed by property lookups (`n`, `n.a`, `n.a.b`); the caller decides what the
    /// shape means. Labels are not consumed here.
    fn property_target(&mut self) -> PResult<Expr> {
        let mut expr = self.atom()?;
        let mut depth = 0;
        while self.at(Tok::Dot) {
            self.grow_tree(1)?;
            depth += 1;
            self.bump();
            let (key, key_span) = self.schema_name()?;
            let span = expr.span.to(key_span);
            expr = Expr::new(ExprKind::Property(Box::new(expr), key), span);
        }
        self.shrink_tree(depth);
        Ok(expr)
    }

    /// `REMOVE item (, item)*` with items `n.p` or `n:L:M`.
    pub(super) fn remove_clause(&mut self) -> PResult<Remove> {
        let start = self.expect_kw("REMOVE")?;
        let mut items = Vec::new();
        loop {
            let item_start = self.peek().span;
            let target = self.property_target()?;
            let item = match target.kind {
                ExprKind::Variable(name) => {
                    let (labels, dynamic) = self.updated_labels()?;
                    RemoveItem::Labels {
                        variable: Ident {
                            name,
                            span: target.span,
                        },
                        labels,
                        dynamic,
                        span: self.span_from(item_start),
                    }
                }
                ExprKind::Property(owner, key) => RemoveItem::Property {
                    target: *owner,
                    key,
                    span: self.span_from(item_start),
                },
                _ => return self.fail_expecting("'.'"),
            };
            items.push(item);
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        Ok(Remove {
            items,
            span: self.span_from(start),
        })
    }

    /// `[DETACH] DELETE expr (, expr)*`
    pub(super) fn delete_clause(&mut self) -> PResult<Delete> {
        let start = self.peek().span;
        let detach = self.eat_kw("DETACH");
        self.expect_kw("DELETE")?;
        let mut exprs = vec![self.expression()?];
        while self.eat(Tok::Comma) {
            exprs.push(self.expression()?);
        }
        Ok(Delete {
            detach,
            exprs,
            span: self.span_from(start),
        })
    }

    /// `CALL ns.name[(args)] [YIELD (* | item (, item)* [WHERE expr])]`
    pub(super) fn call_clause(&mut self) -> PResult<Call> {
        let start = self.expect_kw("CALL")?;
        let (procedure, procedure_span) = self.dotted_name()?;
        let args = if self.eat(Tok::LParen) {
            Some(self.call_arguments()?)
        } else {
            None
        };
        let mut yields = None;
        let mut yield_star = false;
        let mut where_ = None;
        if self.eat_kw("YIELD") {
            if self.eat(Tok::Star) {
                yield_star = true;
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
                yields = Some(items);
                where_ = self.optional_where()?;
            }
        }
        Ok(Call {
            procedure,
            procedure_span,
            args,
            yields,
            yield_star,
            where_,
            show: false,
            span: self.span_from(start),
        })
    }

    /// Comma-separated expressions up to and including `)`; the `(` is already consumed.
    pub(super) fn call_arguments(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if self.eat(Tok::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.expression()?);
            if self.eat(Tok::Comma) {
                continue;
            }
            self.expect(Tok::RParen)?;
            return Ok(args);
        }
    }
}
