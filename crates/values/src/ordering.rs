//! Cypher's comparison semantics over [`Value`], shared by the executor and
//! anything else that needs to order or compare values.

use crate::Value;
use std::cmp::Ordering;

/// The outcome of a Cypher comparison (`<`, `=`, ...): `Undefined` is the
/// `null` result of comparing incomparable values or nulls.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Comparison {
    Ordered(Ordering),
    Undefined,
}

impl Value {
    /// Cypher `=`: `None` when the result is `null`.
    pub fn cypher_eq(&self, other: &Value) -> Option<bool> {
        use Value::*;
        match (self, other) {
            (Null, _) | (_, Null) => None,
            (Int(_) | Float(_), Int(_) | Float(_)) => {
                let (a, b) = (as_f64(self), as_f64(other));
                if let (Int(x), Int(y)) = (self, other) {
                    return Some(x == y);
                }
                if a.is_nan() || b.is_nan() {
                    return Some(false);
                }
                Some(a == b)
            }
            (List(a), List(b)) => {
                if a.len() != b.len() {
                    return Some(false);
                }
                let mut undefined = false;
                for (x, y) in a.iter().zip(b) {
                    match x.cypher_eq(y) {
                        Some(false) => return Some(false),
                        None => undefined = true,
                        Some(true) => {}
                    }
                }
                if undefined {
                    None
                } else {
                    Some(true)
                }
            }
            (Map(a), Map(b)) => {
                if a.len() != b.len() || a.keys().ne(b.keys()) {
                    return Some(false);
                }
                let mut undefined = false;
                for (x, y) in a.values().zip(b.values()) {
                    match x.cypher_eq(y) {
                        Some(false) => return Some(false),
                        None => undefined = true,
                        Some(true) => {}
                    }
                }
                if undefined {
                    None
                } else {
                    Some(true)
                }
            }
            (Bool(a), Bool(b)) => Some(a == b),
            (String(a), String(b)) => Some(a == b),
            (Bytes(a), Bytes(b)) => Some(a == b),
            (Node(a), Node(b)) => Some(a == b),
            (Relationship(a), Relationship(b)) => Some(a == b),
            (Path(a), Path(b)) => Some(a == b),
            _ => Some(false),
        }
    }

    /// Cypher `<`, `<=`, `>`, `>=`: defined only within one comparable family.
    pub fn cypher_cmp(&self, other: &Value) -> Comparison {
        use Value::*;
        match (self, other) {
            (Int(a), Int(b)) => Comparison::Ordered(a.cmp(b)),
            (Int(_) | Float(_), Int(_) | Float(_)) => {
                match as_f64(self).partial_cmp(&as_f64(other)) {
                    Some(o) => Comparison::Ordered(o),
                    None => Comparison::Undefined,
                }
            }
            (String(a), String(b)) => Comparison::Ordered(a.cmp(b)),
            (Bool(a), Bool(b)) => Comparison::Ordered(a.cmp(b)),
            (List(a), List(b)) => {
                for (x, y) in a.iter().zip(b) {
                    match x.cypher_cmp(y) {
                        Comparison::Ordered(Ordering::Equal) => {}
                        other => return other,
                    }
                }
                Comparison::Ordered(a.len().cmp(&b.len()))
            }
            _ => Comparison::Undefined,
        }
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

/// The total order of `ORDER BY` (ascending): maps, nodes, relationships,
/// lists, paths, strings, booleans, numbers (NaN last among them), then null.
pub fn compare_for_order(a: &Value, b: &Value) -> Ordering {
    use Value::*;
    fn rank(v: &Value) -> u8 {
        match v {
            Map(_) => 0,
            Node(_) => 1,
            Relationship(_) => 2,
            List(_) => 3,
            Path(_) => 4,
            Bytes(_) => 5,
            String(_) => 6,
            Bool(_) => 7,
            Int(_) | Float(_) => 8,
            Null => 9,
        }
    }
    let (ra, rb) = (rank(a), rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Int(x), Int(y)) => x.cmp(y),
        (Int(_) | Float(_), Int(_) | Float(_)) => {
            let (x, y) = (as_f64(a), as_f64(b));
            match (x.is_nan(), y.is_nan()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            }
        }
        (String(x), String(y)) => x.cmp(y),
        (Bool(x), Bool(y)) => x.cmp(y),
        (Bytes(x), Bytes(y)) => x.cmp(y),
        (List(x), List(y)) => {
            for (p, q) in x.iter().zip(y) {
                let o = compare_for_order(p, q);
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Map(x), Map(y)) => {
            for ((ka, va), (kb, vb)) in x.iter().zip(y) {
                let o = ka.cmp(kb).then_with(|| compare_for_order(va, vb));
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Node(x), Node(y)) => x.cmp(y),
        (Relationship(x), Relationship(y)) => x.cmp(y),
        (Path(x), Path(y)) => x.nodes.cmp(&y.nodes).then_with(|| x.rels.cmp(&y.rels)),
        _ => Ordering::Equal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_equality_is_undefined() {
        assert_eq!(Value::Null.cypher_eq(&Value::Int(1)), None);
        assert_eq!(Value::Int(1).cypher_eq(&Value::Float(1.0)), Some(true));
        assert_eq!(Value::Int(1).cypher_eq(&Value::from("1")), Some(false));
    }

    #[test]
    fn order_puts_null_last_and_numbers_together() {
        let mut v = vec![
            Value::Null,
            Value::Float(1.5),
            Value::Int(1),
            Value::from("a"),
        ];
        v.sort_by(compare_for_order);
        assert_eq!(
            v,
            vec![
                Value::from("a"),
                Value::Int(1),
                Value::Float(1.5),
                Value::Null
            ]
        );
    }

    #[test]
    fn incomparable_types_are_undefined() {
        assert_eq!(
            Value::Int(1).cypher_cmp(&Value::from("a")),
            Comparison::Undefined
        );
    }
}
