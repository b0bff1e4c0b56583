//! The type of a property type constraint (`REQUIRE n.p IS :: INTEGER | FLOAT`),
//! in the GQL spellings Neo4j 5 accepts (`INT`, `TIMESTAMP WITH TIME ZONE`,
//! `ARRAY<VARCHAR NOT NULL>`, `ANY<...>` unions, ...). Each member is
//! handed on under its canonical name (`ZONED DATETIME`,
//! `LIST<STRING NOT NULL>`); a type no property can have (`MAP`, `NODE`),
//! a nullable list element or a list of lists is refused here, as Neo4j
//! refuses it, with the type as written back in canonical form.

use super::{PResult, Parser};
use crate::ast::Span;
use crate::lexer::Tok;

/// A type as written.
enum Ty {
    /// A property value type, by canonical name.
    Base(&'static str),
    /// A type that exists in Cypher but cannot constrain a property.
    Other(String),
    List(Box<Ty>),
    NotNull(Box<Ty>),
    /// `ANY<a | b>` or a bare union: its members.
    Union(Vec<Ty>),
}

impl Ty {
    fn display(&self) -> String {
        match self {
            Ty::Base(name) => name.to_string(),
            Ty::Other(name) => name.clone(),
            Ty::List(inner) => format!("LIST<{}>", inner.display()),
            Ty::NotNull(inner) => format!("{} NOT NULL", inner.display()),
            Ty::Union(members) => members
                .iter()
                .map(Ty::display)
                .collect::<Vec<_>>()
                .join(" | "),
        }
    }

    /// The canonical names of a valid constraint type; otherwise the
    /// reason it is not one (empty when the type is simply not allowed).
    fn members(&self, out: &mut Vec<String>) -> Result<(), &'static str> {
        match self {
            Ty::Base(name) => out.push(name.to_string()),
            Ty::Union(members) => {
                for m in members {
                    m.members(out)?;
                }
            }
            Ty::List(inner) => match inner.as_ref() {
                Ty::NotNull(element) => match element.as_ref() {
                    Ty::Base(name) => out.push(format!("LIST<{name} NOT NULL>")),
                    Ty::List(_) => return Err(" Lists cannot have lists as an inner type."),
                    _ => return Err(""),
                },
                Ty::List(_) => return Err(" Lists cannot have lists as an inner type."),
                _ => return Err(" Lists cannot have nullable inner types."),
            },
            Ty::Other(_) | Ty::NotNull(_) => return Err(""),
        }
        Ok(())
    }
}

impl Parser<'_> {
    /// A constraint's property type (after `IS ::` or `IS TYPED`): the
    /// canonical names of its members, or a syntax error naming the type.
    pub(super) fn property_type(&mut self, entity: &str) -> PResult<Vec<String>> {
        let start = self.peek().span;
        let ty = self.type_union()?;
        let mut names = Vec::new();
        if let Err(reason) = ty.members(&mut names) {
            return self.hard_syntax(
                &format!(
                    "Failed to create {entity} property type constraint: Invalid property type `{}`.{reason}",
                    ty.display()
                ),
                Span::new(start.start, start.start),
            );
        }
        Ok(names)
    }

    fn type_union(&mut self) -> PResult<Ty> {
        let mut members = vec![self.type_term()?];
        while self.eat(Tok::Pipe) {
            members.push(self.type_term()?);
        }
        Ok(if members.len() == 1 {
            members.pop().unwrap_or(Ty::Union(Vec::new()))
        } else {
            Ty::Union(members)
        })
    }

    /// One type, with a trailing `NOT NULL`.
    fn type_term(&mut self) -> PResult<Ty> {
        let ty = self.type_name()?;
        if self.is_kw_at(0, "NOT") && self.is_kw_at(1, "NULL") {
            self.bump();
            self.bump();
            return Ok(Ty::NotNull(Box::new(ty)));
        }
        Ok(ty)
    }

    fn type_name(&mut self) -> PResult<Ty> {
        if self.peek().kind != Tok::Ident {
            return self.fail_expecting("a type");
        }
        let word = self.bump().value.to_ascii_uppercase();
        let ty = match word.as_str() {
            "BOOL" | "BOOLEAN" => Ty::Base("BOOLEAN"),
            "VARCHAR" | "STRING" => Ty::Base("STRING"),
            "INT" | "INTEGER" => Ty::Base("INTEGER"),
            "SIGNED" => {
                self.expect_kw("INTEGER")?;
                Ty::Base("INTEGER")
            }
            "FLOAT" => Ty::Base("FLOAT"),
            "DATE" => Ty::Base("DATE"),
            "DURATION" => Ty::Base("DURATION"),
            "POINT" => Ty::Base("POINT"),
            "LOCAL" | "ZONED" => {
                let zoned = word == "ZONED";
                if self.eat_kw("TIME") {
                    Ty::Base(if zoned { "ZONED TIME" } else { "LOCAL TIME" })
                } else {
                    self.expect_kw("DATETIME")?;
                    Ty::Base(if zoned {
                        "ZONED DATETIME"
                    } else {
                        "LOCAL DATETIME"
                    })
                }
            }
            "TIME" | "TIMESTAMP" => {
                let zoned = if self.eat_kw("WITH") {
                    true
                } else {
                    self.expect_kw("WITHOUT")?;
                    false
                };
                if !self.eat_kw("TIMEZONE") {
                    self.expect_kw("TIME")?;
                    self.expect_kw("ZONE")?;
                }
                Ty::Base(match (word.as_str(), zoned) {
                    ("TIME", true) => "ZONED TIME",
                    ("TIME", false) => "LOCAL TIME",
                    (_, true) => "ZONED DATETIME",
                    (_, false) => "LOCAL DATETIME",
                })
            }
            "LIST" | "ARRAY" => {
                self.expect(Tok::Lt)?;
                let inner = self.type_union()?;
                self.expect(Tok::Gt)?;
                Ty::List(Box::new(inner))
            }
            "ANY" => {
                self.eat_kw("VALUE");
                if self.eat(Tok::Lt) {
                    let inner = self.type_union()?;
                    self.expect(Tok::Gt)?;
                    match inner {
                        Ty::Union(members) => Ty::Union(members),
                        one => Ty::Union(vec![one]),
                    }
                } else {
                    Ty::Other("ANY".into())
                }
            }
            "PROPERTY" => {
                self.expect_kw("VALUE")?;
                Ty::Other("PROPERTY VALUE".into())
            }
            "MAP" | "NODE" | "RELATIONSHIP" | "EDGE" | "VERTEX" | "PATH" | "NULL" | "NOTHING"
            | "PATHS" => Ty::Other(word),
            _ => return self.fail_expecting("a type"),
        };
        Ok(ty)
    }
}
