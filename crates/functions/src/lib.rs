//! Cypher's built-in functions: one catalogue ([`CATALOGUE`]) of names,
//! argument counts, categories and descriptions, and the enums a name
//! resolves to ([`ScalarFunction`], [`AggregateFunction`]).
//!
//! Why a crate of its own: the analyser (`nereid-cypher`) must know which
//! names aggregate, the planner resolves names into the enums its
//! expressions carry, and the executor implements the enums and lists the
//! catalogue for `SHOW FUNCTIONS`. Below all three, the one table serves
//! each without a dependency cycle (docs/adr/0089-one-function-catalogue.md).

mod aggregate;
mod apoc;
mod catalogue;
mod load_csv;
mod scalar;
mod spatial;
mod temporal;
mod vector;

pub use aggregate::AggregateFunction;
pub use apoc::ApocFunction;
pub use catalogue::{implemented, resolve, Category, Implementation, Signature, CATALOGUE};
pub use load_csv::LoadCsvFunction;
pub use scalar::ScalarFunction;
pub use spatial::SpatialFunction;
pub use temporal::{TemporalFunction, TemporalKind};
pub use vector::VectorFunction;

/// Whether `name` (case-insensitive) is an aggregating function.
pub fn is_aggregate(name: &str) -> bool {
    AggregateFunction::from_name(name).is_some()
}

#[cfg(test)]
mod tests;
