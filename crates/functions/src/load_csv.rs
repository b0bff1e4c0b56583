//! The functions that describe the `LOAD CSV` row being read: not
//! computed from arguments but read from what the `LOAD CSV` operator
//! records beside each row, so the planner (not the executor) resolves
//! them to those values.

use crate::catalogue::{resolve, Implementation};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoadCsvFunction {
    /// `linenumber()`: the 1-based line of the file where the row starts.
    LineNumber,
    /// `file()`: the path of the file the row was read from.
    File,
}

impl LoadCsvFunction {
    /// Resolves a Cypher function name (case-insensitive) through the
    /// catalogue.
    pub fn from_name(name: &str) -> Option<LoadCsvFunction> {
        match resolve(name)? {
            Implementation::LoadCsv(function) => Some(function),
            _ => None,
        }
    }
}
