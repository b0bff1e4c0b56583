//! Cypher's comparison semantics over [`Value`], shared by the executor and
//! anything else that needs to order or compare values.

use crate::{temporal, Value};
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
                    match nereid_stack::deeper(|| x.cypher_eq(y)) {
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
                    match nereid_stack::deeper(|| x.cypher_eq(y)) {
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
            (VirtualNode(a), VirtualNode(b)) => Some(a.id == b.id),
            (VirtualRelationship(a), VirtualRelationship(b)) => Some(a.id == b.id),
            (Duration(a), Duration(b)) => Some(a == b),
            (Point(a), Point(b)) => Some(a == b),
            _ if self.is_temporal() => match temporal_cmp(self, other) {
                Some(o) => Some(o == Ordering::Equal),
                None => Some(false),
            },
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
                    match nereid_stack::deeper(|| x.cypher_cmp(y)) {
                        Comparison::Ordered(Ordering::Equal) => {}
                        other => return other,
                    }
                }
                Comparison::Ordered(a.len().cmp(&b.len()))
            }
            // Neo4j 5 leaves `<` on points (and durations) undefined.
            (Duration(_) | Point(_), _) => Comparison::Undefined,
            _ => match temporal_cmp(self, other) {
                Some(o) => Comparison::Ordered(o),
                None => Comparison::Undefined,
            },
        }
    }
}

/// Orders two temporal values of the same kind (instants for zoned kinds);
/// `None` for different kinds or non-temporal values. Durations are not
/// ordered by Cypher's comparison operators.
fn temporal_cmp(a: &Value, b: &Value) -> Option<Ordering> {
    use Value::*;
    Some(match (a, b) {
        (Date(x), Date(y)) => x.cmp(y),
        (LocalTime(x), LocalTime(y)) => x.cmp(y),
        (Time(x), Time(y)) => x.utc_nanos().cmp(&y.utc_nanos()),
        (LocalDateTime(x), LocalDateTime(y)) => x.cmp(y),
        (DateTime(x), DateTime(y)) => temporal::cmp_zoned(x, y),
        (WideLocal(_), _) | (_, WideLocal(_)) => {
            let (xc, xl, xt) = crate::WideLocal::parts_of(a)?;
            let (yc, yl, yt) = crate::WideLocal::parts_of(b)?;
            if xt != yt {
                return None;
            }
            (xc, xl).cmp(&(yc, yl))
        }
        _ => return None,
    })
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

/// The total order of `ORDER BY` (ascending): maps, nodes, relationships,
/// lists, paths, temporals, durations, points, byte arrays, strings, booleans,
/// numbers (NaN last among them), then null.
pub fn compare_for_order(a: &Value, b: &Value) -> Ordering {
    use Value::*;
    fn rank(v: &Value) -> u8 {
        match v {
            Map(_) => 0,
            Node(_) | VirtualNode(_) => 1,
            Relationship(_) | VirtualRelationship(_) => 2,
            List(_) => 3,
            Path(_) => 4,
            DateTime(_) => 5,
            LocalDateTime(_) => 6,
            WideLocal(w) if w.has_time => 6,
            Date(_) | WideLocal(_) => 7,
            Time(_) => 8,
            LocalTime(_) => 9,
            Duration(_) => 10,
            Point(_) => 11,
            Bytes(_) => 12,
            String(_) => 13,
            Bool(_) => 14,
            Int(_) | Float(_) => 15,
            Null => 16,
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
                let o = nereid_stack::deeper(|| compare_for_order(p, q));
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Map(x), Map(y)) => {
            for ((ka, va), (kb, vb)) in x.iter().zip(y) {
                let o = ka
                    .cmp(kb)
                    .then_with(|| nereid_stack::deeper(|| compare_for_order(va, vb)));
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Node(x), Node(y)) => x.cmp(y),
        (Relationship(x), Relationship(y)) => x.cmp(y),
        // Virtual entities (negative ids) before the stored ones, by id.
        (VirtualNode(x), VirtualNode(y)) => x.id.cmp(&y.id),
        (VirtualNode(_), Node(_)) | (VirtualRelationship(_), Relationship(_)) => Ordering::Less,
        (Node(_), VirtualNode(_)) | (Relationship(_), VirtualRelationship(_)) => Ordering::Greater,
        (VirtualRelationship(x), VirtualRelationship(y)) => x.id.cmp(&y.id),
        (Path(x), Path(y)) => x.nodes.cmp(&y.nodes).then_with(|| x.rels.cmp(&y.rels)),
        (Duration(x), Duration(y)) => temporal::cmp_duration(x, y),
        (Point(x), Point(y)) => crate::spatial::cmp_points(x, y),
        _ => temporal_cmp(a, b).unwrap_or(Ordering::Equal),
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
