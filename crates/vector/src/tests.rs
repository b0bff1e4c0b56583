use crate::{Similarity, Vector, VectorError};
use nereid_values::Value;

fn v(xs: &[f32]) -> Vector {
    Vector::new(xs.to_vec())
}

#[test]
fn cosine_maps_the_angle_into_zero_to_one() {
    let s = Similarity::Cosine;
    assert_eq!(s.score(&[1.0, 0.0], &[2.0, 0.0]), 1.0);
    assert_eq!(s.score(&[1.0, 0.0], &[0.0, 3.0]), 0.5);
    assert_eq!(s.score(&[1.0, 0.0], &[-1.0, 0.0]), 0.0);
}

#[test]
fn euclidean_is_one_over_one_plus_the_squared_distance() {
    let s = Similarity::Euclidean;
    assert_eq!(s.score(&[1.0, 1.0], &[1.0, 1.0]), 1.0);
    assert_eq!(s.score(&[0.0, 0.0], &[1.0, 2.0]), 1.0 / 6.0);
}

#[test]
fn invalid_vectors_score_null_and_lengths_must_agree() {
    let cos = Similarity::Cosine;
    assert_eq!(
        cos.score_checked(&v(&[0.0, 0.0]), &v(&[1.0, 0.0])),
        Ok(None)
    );
    assert_eq!(
        cos.score_checked(&v(&[f32::NAN, 0.0]), &v(&[1.0, 0.0])),
        Ok(None)
    );
    assert_eq!(
        Similarity::Euclidean.score_checked(&v(&[0.0, 0.0]), &v(&[0.0, 0.0])),
        Ok(Some(1.0))
    );
    assert_eq!(
        cos.score_checked(&v(&[1.0]), &v(&[1.0, 0.0])),
        Err(VectorError::Dimensions {
            expected: 2,
            actual: 1
        })
    );
}

#[test]
fn a_float_too_large_for_f32_is_invalid() {
    let big = Vector::from_value(&Value::List([Value::Float(1e300)].into()))
        .unwrap()
        .unwrap();
    assert!(Similarity::Euclidean.check(&big).is_err());
}

#[test]
fn only_lists_of_numbers_convert() {
    assert_eq!(Vector::from_value(&Value::Null), Ok(None));
    assert!(Vector::from_value(&Value::Int(1)).is_err());
    let mixed = Value::List([Value::Int(1), Value::String("a".into())].into());
    assert!(matches!(
        Vector::from_value(&mixed),
        Err(VectorError::NotNumeric(_))
    ));
    let ok = Value::List([Value::Int(1), Value::Float(0.5)].into());
    assert_eq!(Vector::from_value(&ok), Ok(Some(v(&[1.0, 0.5]))));
}

#[test]
fn names_parse_case_insensitively() {
    assert_eq!(Similarity::from_name("COSINE"), Some(Similarity::Cosine));
    assert_eq!(
        Similarity::from_name("Euclidean"),
        Some(Similarity::Euclidean)
    );
    assert_eq!(Similarity::from_name("dot"), None);
}

#[test]
fn the_graph_finds_near_points() {
    let graph = crate::hnsw(Similarity::Euclidean, 100);
    for i in 0..200 {
        graph.insert(i, &[i as f32, 0.0]);
    }
    let found = graph.search(&[50.2, 0.0], 3, 50);
    assert_eq!(found, vec![50, 51, 49]);
}
