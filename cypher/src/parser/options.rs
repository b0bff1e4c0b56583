//! Neo4j's pre-parser options: `CYPHER [version] [name=value ...]` before a
//! query (or around `EXPLAIN`/`PROFILE`): `CYPHER 5`, `CYPHER
//! runtime=slotted`, `CYPHER 25 planner=cost replan=force`.
//!
//! Only the form is checked here; which names and values exist and what
//! each means is the server's business (it alone knows what it honours),
//! so they are kept as written, with their spans for notifications.

use super::{PResult, Parser};
use crate::ast::{QueryOption, Span};
use crate::lexer::Tok;

impl Parser<'_> {
    /// After `CYPHER`: an optional version number, then `name=value` pairs.
    /// `version` and `options` collect them across several `CYPHER` groups.
    pub(super) fn cypher_options(
        &mut self,
        version: &mut Option<(String, Span)>,
        options: &mut Vec<QueryOption>,
    ) -> PResult<()> {
        let token = self.peek().clone();
        if matches!(token.kind, Tok::Integer | Tok::Float) {
            self.bump();
            if let Some((previous, _)) = version.as_ref().filter(|(v, _)| *v != token.value) {
                let message = format!(
                    "Can't specify multiple conflicting Cypher versions: {previous} and {}",
                    token.value
                );
                return self.hard_syntax(&message, token.span);
            }
            *version = Some((token.value, token.span));
        }
        while matches!(self.peek().kind, Tok::Ident | Tok::EscapedIdent)
            && self.peek_at(1).kind == Tok::Eq
        {
            let name = self.bump();
            self.bump();
            let value = self.peek().clone();
            if !matches!(value.kind, Tok::Ident | Tok::Integer | Tok::Float) {
                return self.fail_expecting("an option value");
            }
            self.bump();
            options.push(QueryOption {
                name: name.value,
                value: value.value,
                span: name.span.to(value.span),
            });
        }
        Ok(())
    }
}
