//! Neo4j's similarity scores. Both map a distance into `[0, 1]`, larger
//! meaning closer, so an index and the functions rank alike:
//! cosine `(1 + cos(a, b)) / 2`, euclidean `1 / (1 + |a - b|²)`.
//! Sums are accumulated in `f64` over the `f32` elements, so a score does
//! not depend on the order an index visits elements in.

use crate::{Vector, VectorError, MAX_DIMENSIONS};

/// A vector index's similarity function.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Similarity {
    Cosine,
    Euclidean,
}

impl Similarity {
    /// Parses `vector.similarity_function`'s value (case-insensitive).
    pub fn from_name(name: &str) -> Option<Similarity> {
        if name.eq_ignore_ascii_case("cosine") {
            Some(Similarity::Cosine)
        } else if name.eq_ignore_ascii_case("euclidean") {
            Some(Similarity::Euclidean)
        } else {
            None
        }
    }

    /// The name `SHOW INDEXES` prints in `indexConfig`.
    pub fn name(self) -> &'static str {
        match self {
            Similarity::Cosine => "COSINE",
            Similarity::Euclidean => "EUCLIDEAN",
        }
    }

    /// Fails unless `v` can be scored with this similarity: 1 to
    /// [`MAX_DIMENSIONS`] finite elements, and for cosine a non-zero norm.
    pub fn check(self, v: &Vector) -> Result<(), VectorError> {
        if v.is_empty() || v.len() > MAX_DIMENSIONS {
            return Err(VectorError::Size { actual: v.len() });
        }
        let invalid = |reason| VectorError::Invalid {
            similarity: self.lower_name(),
            reason,
        };
        if v.as_slice().iter().any(|x| !x.is_finite()) {
            return Err(invalid(
                "an element is NaN, infinite or beyond the range of a 32-bit float",
            ));
        }
        if self == Similarity::Cosine && squared_norm(v.as_slice()) == 0.0 {
            return Err(invalid("its norm is zero"));
        }
        Ok(())
    }

    /// The score of `a` and `b`, both already [`check`](Self::check)ed and
    /// of one length.
    pub fn score(self, a: &[f32], b: &[f32]) -> f64 {
        debug_assert_eq!(a.len(), b.len());
        match self {
            Similarity::Cosine => {
                let cos = dot(a, b) / (squared_norm(a) * squared_norm(b)).sqrt();
                (1.0 + cos.clamp(-1.0, 1.0)) / 2.0
            }
            Similarity::Euclidean => 1.0 / (1.0 + squared_distance(a, b)),
        }
    }

    /// The score of two vectors of any provenance: `Ok(None)` when either is
    /// not valid for this similarity (Neo4j's functions return null then),
    /// an error when their lengths differ.
    pub fn score_checked(self, a: &Vector, b: &Vector) -> Result<Option<f64>, VectorError> {
        a.expect_dimensions(b.len())?;
        if self.check(a).is_err() || self.check(b).is_err() {
            return Ok(None);
        }
        Ok(Some(self.score(a.as_slice(), b.as_slice())))
    }

    fn lower_name(self) -> &'static str {
        match self {
            Similarity::Cosine => "cosine",
            Similarity::Euclidean => "euclidean",
        }
    }
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
}

fn squared_norm(a: &[f32]) -> f64 {
    dot(a, a)
}

/// `|a - b|²`, summed in `f64` (Neptune's default distance, `L2Squared`).
pub fn squared_distance(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| {
            let d = *x as f64 - *y as f64;
            d * d
        })
        .sum()
}
