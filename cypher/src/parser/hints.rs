//! Planner hints after a MATCH pattern, in Neo4j's syntax:
//! `USING [RANGE | TEXT] INDEX [SEEK] v:Label(key, ...)` and
//! `USING SCAN v:Label`. `USING JOIN ON` is not accepted: the planner has
//! no joins to choose. What a hint names is checked when planning (the
//! parser never sees the catalog).

use super::{PResult, Parser};
use crate::ast::Hint;
use crate::lexer::Tok;

impl Parser<'_> {
    /// Zero or more `USING ...` hints.
    pub(super) fn hints(&mut self) -> PResult<Vec<Hint>> {
        let mut hints = Vec::new();
        while self.at_kw("USING") {
            let start = self.bump().span;
            if self.eat_kw("SCAN") {
                let variable = self.variable()?;
                self.expect(Tok::Colon)?;
                let (label, _) = self.schema_name()?;
                hints.push(Hint::Scan {
                    variable,
                    label,
                    span: self.span_from(start),
                });
                continue;
            }
            let text = self.eat_kw("TEXT");
            if !text {
                self.eat_kw("RANGE");
            }
            self.expect_kw("INDEX")?;
            self.eat_kw("SEEK");
            let variable = self.variable()?;
            self.expect(Tok::Colon)?;
            let (label, _) = self.schema_name()?;
            self.expect(Tok::LParen)?;
            let mut keys = vec![self.schema_name()?.0];
            while self.eat(Tok::Comma) {
                keys.push(self.schema_name()?.0);
            }
            self.expect(Tok::RParen)?;
            hints.push(Hint::Index {
                variable,
                label,
                keys,
                text,
                span: self.span_from(start),
            });
        }
        Ok(hints)
    }
}

#[cfg(test)]
mod tests {
    use crate::ast::{Clause, Hint, Query};
    use crate::parse;

    fn hints(query: &str) -> Vec<Hint> {
        let stmt = parse(query).expect("parses");
        let Query::Single(single) = stmt.query else {
            panic!("a single query");
        };
        let Clause::Match(m) = &single.clauses[0] else {
            panic!("a MATCH first");
        };
        m.hints.clone()
    }

    #[test]
    fn index_and_scan_hints() {
        let found = hints(
            "MATCH (n:Person)-[r:KNOWS]->(m:Person) USING INDEX n:Person(name) \
             USING INDEX SEEK r:KNOWS(since, weight) USING TEXT INDEX m:Person(bio) \
             USING SCAN m:Person WHERE n.name = 'x' RETURN n",
        );
        let shape: Vec<(String, String, Vec<String>, bool)> = found
            .iter()
            .map(|h| match h {
                Hint::Index {
                    variable,
                    label,
                    keys,
                    text,
                    ..
                } => (variable.name.clone(), label.clone(), keys.clone(), *text),
                Hint::Scan {
                    variable, label, ..
                } => (variable.name.clone(), label.clone(), Vec::new(), false),
            })
            .collect();
        let s = |x: &str| x.to_string();
        assert_eq!(
            shape,
            vec![
                (s("n"), s("Person"), vec![s("name")], false),
                (s("r"), s("KNOWS"), vec![s("since"), s("weight")], false),
                (s("m"), s("Person"), vec![s("bio")], true),
                (s("m"), s("Person"), Vec::new(), false),
            ]
        );
        assert!(hints("MATCH (n) RETURN n").is_empty());
    }

    #[test]
    fn malformed_hints_are_syntax_errors() {
        for query in [
            "MATCH (n:P) USING INDEX n:P RETURN n",
            "MATCH (n:P) USING INDEX n:P() RETURN n",
            "MATCH (n:P) USING JOIN ON n RETURN n",
            "MATCH (n:P) USING SCAN n RETURN n",
        ] {
            assert!(parse(query).is_err(), "{query}");
        }
    }
}
