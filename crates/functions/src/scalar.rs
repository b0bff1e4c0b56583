//! The scalar functions the executor implements. Names, argument counts and
//! descriptions are the catalogue's ([`crate::CATALOGUE`]); this is what a
//! name resolves to. The variants' `Debug` text is what EXPLAIN prints
//! (`ToUpper($0)`, `Temporal(Construct(Date))()`), so renaming one changes
//! plan snapshots.

use crate::catalogue::{arity_of, resolve, Implementation};
use crate::{ApocFunction, SpatialFunction, TemporalFunction, VectorFunction};

/// A scalar (per-row) function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScalarFunction {
    Apoc(ApocFunction),
    Id,
    ElementId,
    Labels,
    Type,
    Properties,
    Keys,
    Size,
    Length,
    Coalesce,
    ToString,
    ToInteger,
    ToFloat,
    ToBoolean,
    Head,
    Last,
    Tail,
    Range,
    Abs,
    StartNode,
    EndNode,
    Nodes,
    Relationships,
    ToUpper,
    ToLower,
    Trim,
    Exists,
    LTrim,
    RTrim,
    Substring,
    Replace,
    Split,
    Left,
    Right,
    Reverse,
    Ceil,
    Floor,
    Round,
    Sign,
    Sqrt,
    Exp,
    Log,
    Log10,
    E,
    Pi,
    Rand,
    Sin,
    Cos,
    Tan,
    Cot,
    Asin,
    Acos,
    Atan,
    Atan2,
    Haversin,
    Degrees,
    Radians,
    IsEmpty,
    Temporal(TemporalFunction),
    Spatial(SpatialFunction),
    Vector(VectorFunction),
}

impl ScalarFunction {
    /// Resolves a Cypher function name (case-insensitive) through the
    /// catalogue.
    pub fn from_name(name: &str) -> Option<ScalarFunction> {
        match resolve(name)? {
            Implementation::Scalar(function) => Some(function),
            _ => None,
        }
    }

    /// Allowed argument counts (inclusive): from the least to the most any
    /// of its catalogue rows takes (`usize::MAX`: any number).
    pub fn arity(self) -> (usize, usize) {
        arity_of(Implementation::Scalar(self))
    }
}
