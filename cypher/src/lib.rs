//! openCypher front end of Nereid: a logos lexer, a hand-written recursive-descent parser
//! producing a typed, spanned AST ([`ast`]), and semantic analysis ([`analyze`]).
//!
//! ```
//! let statement = nereid_cypher::parse("MATCH (n:Person) RETURN n.name AS name").unwrap();
//! nereid_cypher::analyze(&statement).unwrap();
//! ```

pub mod ast;
mod error;
mod lexer;
mod parser;
mod projected_aliases;
mod semantic;

pub use error::{CypherError, Detail, ErrorKind};

/// Parses one Cypher statement (optionally prefixed by `EXPLAIN`/`PROFILE` and OneGraph
/// `PREFIX` declarations, optionally ending with `;`). Only grammar is checked here, plus
/// literal ranges and prefix declarations; call [`analyze`] for scoping and typing rules.
/// Property accesses and aggregates that a DISTINCT or aggregating projection's WHERE or
/// ORDER BY repeats are already replaced by the projection's aliases (see
/// `projected_aliases.rs`).
pub fn parse(query: &str) -> Result<ast::Statement, CypherError> {
    parse_with_prefixes(query, &[])
}

/// [`parse`] with `(name, iri)` prefixes declared for every query (a
/// server's `--prefix`, so that clients need not repeat `PREFIX` lines):
/// a `name::local` or backticked `` `name::local` `` the query does not
/// declare itself resolves against them; the query's own `PREFIX` of the
/// same name wins, so a query text means what it says wherever it runs.
pub fn parse_with_prefixes(
    query: &str,
    default_prefixes: &[(String, String)],
) -> Result<ast::Statement, CypherError> {
    let mut statement = parser::parse_statement(query, default_prefixes)?;
    projected_aliases::substitute(&mut statement);
    Ok(statement)
}

/// Semantic checks on a parsed statement: variable scoping, aggregation rules, projection
/// aliases and duplicate columns, node/relationship type conflicts and CREATE rules.
/// Errors point into `stmt.source`.
pub fn analyze(stmt: &ast::Statement) -> Result<(), CypherError> {
    semantic::check_statement(stmt)
}
