//! The vector functions (`vector.similarity.cosine(a, b)`,
//! `vector.similarity.euclidean(a, b)`): what each name resolves to. The
//! executor implements them with the scores vector indexes rank by.

/// A vector function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum VectorFunction {
    /// `vector.similarity.cosine(a, b)`: `(1 + cos(a, b)) / 2`.
    Cosine,
    /// `vector.similarity.euclidean(a, b)`: `1 / (1 + |a - b|²)`.
    Euclidean,
}
