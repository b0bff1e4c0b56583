//! OneGraph IRIs as values (docs/adr/0108-onegraph-rdf.md): `<http://...>`
//! and `prefix::local` (after `PREFIX prefix: <...>`) where an expression
//! may stand are the IRI's string, and `id(n) = <iri>` compares the
//! vertex's identifier, its element id, since a vertex loaded from RDF (or
//! from a CSV `:ID` holding an IRI) has the IRI as its element id.

use super::{PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, Literal};
use crate::lexer::Tok;

impl Parser<'_> {
    /// An IRI written as a value: `<iri>`, or `prefix::local` when the
    /// next tokens are a word and `::`. `None` when neither starts here.
    pub(super) fn iri_value(&mut self) -> PResult<Option<Expr>> {
        let iri_token = self.peek().kind == Tok::Iri;
        let prefixed = matches!(self.peek().kind, Tok::Ident | Tok::EscapedIdent)
            && self.peek_at(1).kind == Tok::ColonColon;
        if !iri_token && !prefixed {
            return Ok(None);
        }
        let (iri, span) = self.schema_name()?;
        Ok(Some(Expr::new(
            ExprKind::Literal(Literal::String(iri)),
            span,
        )))
    }

    /// Whether `expr` is an IRI written as a value: a string literal not
    /// spelt with quotes.
    fn is_iri_value(&self, expr: &Expr) -> bool {
        let ExprKind::Literal(Literal::String(_)) = &expr.kind else {
            return false;
        };
        let text = self.query.get(expr.span.start..expr.span.end).unwrap_or("");
        !text.starts_with(['\'', '"'])
    }

    /// `id(x) = <iri>` (either way round) becomes `elementId(x) = <iri>`.
    pub(super) fn id_equals_iri(&self, op: BinaryOp, left: &mut Expr, right: &mut Expr) {
        if op != BinaryOp::Eq {
            return;
        }
        if self.is_iri_value(right) {
            to_element_id(left);
        } else if self.is_iri_value(left) {
            to_element_id(right);
        }
    }
}

fn to_element_id(expr: &mut Expr) {
    if let ExprKind::FunctionCall { name, args, .. } = &mut expr.kind {
        if name.eq_ignore_ascii_case("id") && args.len() == 1 {
            *name = "elementId".to_owned();
        }
    }
}
