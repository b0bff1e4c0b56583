//! openCypher front end of Nereid: lexer, recursive-descent parser, typed AST and semantic
//! analysis.

pub mod ast;
