//! The vector functions, scored exactly as vector indexes rank
//! (`nereid_vector::Similarity`): a null argument or a vector invalid for
//! the similarity (NaN, infinite, a zero vector for cosine) gives null, as
//! in Neo4j; vectors of different lengths and non-numeric elements are
//! errors.

use crate::error::ExecResult;
use nereid_planner::VectorFunction;
use nereid_values::Value;
use nereid_vector::{Similarity, Vector};

/// Calls `func` on one row's two (arity-checked) arguments.
pub fn call(func: VectorFunction, args: &[Value]) -> ExecResult<Value> {
    let similarity = match func {
        VectorFunction::Cosine => Similarity::Cosine,
        VectorFunction::Euclidean => Similarity::Euclidean,
    };
    let (Some(a), Some(b)) = (args.first(), args.get(1)) else {
        return Ok(Value::Null);
    };
    let (Some(a), Some(b)) = (Vector::from_value(a)?, Vector::from_value(b)?) else {
        return Ok(Value::Null);
    };
    Ok(similarity
        .score_checked(&a, &b)?
        .map_or(Value::Null, Value::Float))
}
