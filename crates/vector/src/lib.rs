//! Vectors (embeddings) for the vector functions and vector indexes.
//!
//! Why a crate of its own: the executor computes `vector.similarity.*` and
//! the store ranks an index's entries, and both must score exactly alike
//! (Neo4j documents the functions as identical to its index). The one
//! conversion from a Cypher list to packed `f32`s and the one definition of
//! each score live here, below both.

mod ann;
mod error;
mod hnsw;
mod similarity;
mod vector;

pub use ann::{hnsw, AnnGraph, CONNECTIONS, EF_CONSTRUCTION};
pub use error::VectorError;
pub use similarity::{squared_distance, Similarity};
pub use vector::{Vector, MAX_DIMENSIONS};

#[cfg(test)]
mod tests;
