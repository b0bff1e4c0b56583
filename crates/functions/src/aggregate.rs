//! The aggregating functions. Names and descriptions are the catalogue's;
//! this is what a name resolves to. EXPLAIN prints the variant's `Debug`
//! text lower-cased (`count(...)`, `percentilecont(...)`).

use crate::catalogue::{arity_of, resolve, Implementation};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AggregateFunction {
    Count,
    Collect,
    Sum,
    Avg,
    Min,
    Max,
    StDev,
    StDevP,
    /// Takes a second argument, the percentile (evaluated per row; the first
    /// row's value is used).
    PercentileCont,
    PercentileDisc,
}

impl AggregateFunction {
    /// Resolves a Cypher function name (case-insensitive) through the
    /// catalogue.
    pub fn from_name(name: &str) -> Option<AggregateFunction> {
        match resolve(name)? {
            Implementation::Aggregate(function) => Some(function),
            _ => None,
        }
    }

    /// Allowed argument counts (inclusive), from the catalogue (`count(*)`
    /// is syntax of its own).
    pub fn arity(self) -> (usize, usize) {
        arity_of(Implementation::Aggregate(self))
    }
}
