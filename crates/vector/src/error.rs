//! The crate's errors; the engine maps them to Neo4j statuses.

/// Why a value cannot be used as a vector.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VectorError {
    /// The value is not a list, or an element is not a number.
    #[error("Type mismatch: expected List<Integer | Float> but was {0}")]
    NotNumeric(String),
    /// Two vectors (or a vector and an index) disagree on their length.
    #[error("The supplied vectors do not have the same number of dimensions (expected {expected}, was {actual}).")]
    Dimensions { expected: usize, actual: usize },
    /// A vector longer than any index accepts, or empty.
    #[error("A vector must have between 1 and {max} dimensions, was {actual}.", max = crate::MAX_DIMENSIONS)]
    Size { actual: usize },
    /// An element is NaN or infinite, or does not fit an `f32`, or (for
    /// cosine) the vector has no direction.
    #[error("The vector is not valid for {similarity} similarity: {reason}.")]
    Invalid {
        similarity: &'static str,
        reason: &'static str,
    },
}
