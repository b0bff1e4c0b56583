//! OneGraph IRIs as values (docs/adr/0108-onegraph-rdf.md): `<http://...>`
//! and `prefix::local` (after `PREFIX prefix: <...>`) where an expression
//! may stand are the IRI's string, and `id(n) = <iri>` compares the
//! vertex's identifier, its element id, since a vertex loaded from RDF (or
//! from a CSV `:ID` holding an IRI) has the IRI as its element id.

use super::{PResult, Parser};
use crate::ast::{BinaryOp, Expr, ExprKind, Literal};
use crate::lexer::Tok;

impl Parser<'_> {
    /// Whether an IRI written as a value starts here: `<iri>`, or
    /// `prefix::local` (a word and `::`). Checked apart from
    /// [`Parser::iri_value`] so that `atom`, which recurses as deep as the
    /// query nests, keeps a small stack frame.
    pub(super) fn at_iri_value(&self) -> bool {
        self.peek().kind == Tok::Iri
            || (matches!(self.peek().kind, Tok::Ident | Tok::EscapedIdent)
                && self.peek_at(1).kind == Tok::ColonColon)
    }

    /// The IRI written as a value here (see [`Parser::at_iri_value`]).
    #[inline(never)]
    pub(super) fn iri_value(&mut self) -> PResult<Expr> {
        let (iri, span) = self.schema_name()?;
        Ok(Expr::new(ExprKind::Literal(Literal::String(iri)), span))
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
