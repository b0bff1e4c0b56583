//! A vector as the index and the functions see it: packed `f32`s, converted
//! once from a Cypher list of numbers.

use crate::VectorError;
use nereid_values::Value;

/// The most dimensions a vector index accepts (Neo4j's limit).
pub const MAX_DIMENSIONS: usize = 4096;

/// A vector of `f32` elements. Neo4j's vector provider keeps 32-bit floats,
/// so a `FLOAT` (64-bit) element is rounded once, here.
#[derive(Debug, Clone, PartialEq)]
pub struct Vector(Vec<f32>);

impl Vector {
    /// The vector a Cypher value stands for: `Ok(None)` for null, an error
    /// for anything but a list of integers and floats. Elements are not
    /// checked for finiteness here: whether a vector is valid depends on the
    /// similarity it is used with ([`crate::Similarity::check`]).
    pub fn from_value(value: &Value) -> Result<Option<Vector>, VectorError> {
        let list = match value {
            Value::Null => return Ok(None),
            Value::List(list) => list,
            other => return Err(VectorError::NotNumeric(other.type_name().to_string())),
        };
        let mut out = Vec::with_capacity(list.len());
        for element in list.iter() {
            out.push(match element {
                Value::Int(i) => *i as f32,
                Value::Float(f) => *f as f32,
                other => {
                    return Err(VectorError::NotNumeric(format!(
                        "a list containing {}",
                        other.type_name()
                    )))
                }
            });
        }
        Ok(Some(Vector(out)))
    }

    /// A vector of the given elements.
    pub fn new(elements: Vec<f32>) -> Vector {
        Vector(elements)
    }

    /// Its elements.
    pub fn as_slice(&self) -> &[f32] {
        &self.0
    }

    /// Its number of dimensions.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Fails unless it has `dimensions` elements.
    pub fn expect_dimensions(&self, dimensions: usize) -> Result<(), VectorError> {
        if self.0.len() == dimensions {
            Ok(())
        } else {
            Err(VectorError::Dimensions {
                expected: dimensions,
                actual: self.0.len(),
            })
        }
    }

    /// The vector as a Cypher list of floats (its `f32`s widened).
    pub fn to_value(&self) -> Value {
        Value::List(self.0.iter().map(|&x| Value::Float(x as f64)).collect())
    }
}
