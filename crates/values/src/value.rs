//! The [`Value`] enum: every value a query can produce or a client can send.

use crate::spatial::Point;
use crate::temporal::{self, Duration, OffsetTime, ZonedDateTime};
use crate::temporal_wide::WideLocal;
use crate::{List, NodeId, RelId, VirtualNode, VirtualRelationship};
use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A Cypher value. Entities are references (see the crate docs).
///
/// Temporal and spatial types arrive with the Bolt and openCypher issues; the
/// enum is `non_exhaustive` so that adding them is not a breaking change.
///
/// A query can nest lists and maps as deep as it likes (`reduce` wrapping
/// an accumulator 100,000 times), so nothing about a value may recurse on
/// the thread's stack unguarded: `Drop` takes nested containers apart with
/// a work list, and `Clone`, `Debug`, equality, hashing, `Display` and the
/// comparisons recurse through `nereid_stack::deeper` (see `nesting.rs`).
#[derive(Default)]
#[non_exhaustive]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Bytes(Vec<u8>),
    /// Shared: a clone costs a pointer (see [`List`]).
    List(List),
    /// Keys are kept sorted: Cypher maps are unordered, and a sorted map
    /// makes equality, hashing and golden output deterministic.
    Map(BTreeMap<String, Value>),
    Node(NodeId),
    Relationship(RelId),
    Path(Box<PathValue>),
    /// A node not in the store (see `virtual_entity.rs`); shared, so a
    /// copy costs a pointer.
    VirtualNode(Arc<VirtualNode>),
    /// A relationship not in the store, between virtual nodes.
    VirtualRelationship(Arc<VirtualRelationship>),
    Date(NaiveDate),
    LocalTime(NaiveTime),
    Time(OffsetTime),
    LocalDateTime(NaiveDateTime),
    DateTime(Box<ZonedDateTime>),
    Duration(Duration),
    Point(Point),
    /// A date or local date-time in a year chrono cannot hold (beyond about
    /// ±262,000; openCypher allows ±999,999,999). Never stored or sent
    /// with a plain form's representation; see `temporal_wide.rs`.
    WideLocal(Box<WideLocal>),
}

/// A path as alternating nodes and relationships: `nodes.len() == rels.len() + 1`.
/// `reversed[i]` is true when `rels[i]` is traversed against its direction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PathValue {
    pub nodes: Vec<NodeId>,
    pub rels: Vec<RelId>,
}

impl Value {
    /// The type name used in error messages (`Integer`, `String`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "Null",
            Value::Bool(_) => "Boolean",
            Value::Int(_) => "Integer",
            Value::Float(_) => "Float",
            Value::String(_) => "String",
            Value::Bytes(_) => "ByteArray",
            Value::List(_) => "List",
            Value::Map(_) => "Map",
            Value::Node(_) | Value::VirtualNode(_) => "Node",
            Value::Relationship(_) | Value::VirtualRelationship(_) => "Relationship",
            Value::Path(_) => "Path",
            Value::Date(_) => "Date",
            Value::LocalTime(_) => "LocalTime",
            Value::Time(_) => "Time",
            Value::LocalDateTime(_) => "LocalDateTime",
            Value::DateTime(_) => "DateTime",
            Value::Duration(_) => "Duration",
            Value::Point(_) => "Point",
            Value::WideLocal(w) if w.has_time => "LocalDateTime",
            Value::WideLocal(_) => "Date",
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// True for values that may be stored as a property: primitives and
    /// homogeneous-enough lists of primitives (null is "no property").
    pub fn is_storable(&self) -> bool {
        match self {
            Value::Bool(_)
            | Value::Int(_)
            | Value::Float(_)
            | Value::String(_)
            | Value::Bytes(_) => true,
            v if v.has_binary_form() => true,
            Value::List(items) => items.iter().all(|v| {
                v.has_binary_form()
                    || matches!(
                        v,
                        Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::String(_)
                    )
            }),
            _ => false,
        }
    }

    /// True for dates, times, datetimes and durations.
    pub fn is_temporal(&self) -> bool {
        matches!(
            self,
            Value::Date(_)
                | Value::LocalTime(_)
                | Value::Time(_)
                | Value::LocalDateTime(_)
                | Value::DateTime(_)
                | Value::WideLocal(_)
                | Value::Duration(_)
        )
    }

    /// True for the values [`crate::value_codec`] persists: temporal values
    /// and points.
    pub fn has_binary_form(&self) -> bool {
        self.is_temporal() || matches!(self, Value::Point(_))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(v.to_string())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::String(v)
    }
}

/// Structural equality, used for grouping, DISTINCT and tests. Unlike Cypher's
/// `=`, it is two-valued: `Null == Null`, and `1 == 1.0` (numbers compare by
/// value so that `DISTINCT` and grouping treat them the way Cypher does).
impl PartialEq for Value {
    fn eq(&self, other: &Self) -> bool {
        use Value::*;
        match (self, other) {
            (Null, Null) => true,
            (Bool(a), Bool(b)) => a == b,
            (Int(a), Int(b)) => a == b,
            (Float(a), Float(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Int(a), Float(b)) | (Float(b), Int(a)) => (*a as f64) == *b,
            (String(a), String(b)) => a == b,
            (Bytes(a), Bytes(b)) => a == b,
            (List(a), List(b)) => nereid_stack::deeper(|| a == b),
            (Map(a), Map(b)) => nereid_stack::deeper(|| a == b),
            (Node(a), Node(b)) => a == b,
            (Relationship(a), Relationship(b)) => a == b,
            (Path(a), Path(b)) => a == b,
            (VirtualNode(a), VirtualNode(b)) => a.id == b.id,
            (VirtualRelationship(a), VirtualRelationship(b)) => a.id == b.id,
            (Date(a), Date(b)) => a == b,
            (LocalTime(a), LocalTime(b)) => a == b,
            (Time(a), Time(b)) => a == b,
            (LocalDateTime(a), LocalDateTime(b)) => a == b,
            (DateTime(a), DateTime(b)) => a == b,
            (Duration(a), Duration(b)) => a == b,
            (Point(a), Point(b)) => a == b,
            (WideLocal(a), WideLocal(b)) => a == b,
            _ => false,
        }
    }
}
impl Eq for Value {}

impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        use Value::*;
        match self {
            Null => 0u8.hash(state),
            Bool(b) => b.hash(state),
            // Integers and integral floats must hash alike (they are equal).
            Int(i) => (*i as f64).to_bits().hash(state),
            Float(f) => {
                if f.is_nan() {
                    f64::NAN.to_bits().hash(state)
                } else if *f == 0.0 {
                    0.0f64.to_bits().hash(state)
                } else {
                    f.to_bits().hash(state)
                }
            }
            String(s) => s.hash(state),
            Bytes(b) => b.hash(state),
            List(l) => nereid_stack::deeper(|| l.hash(state)),
            Map(m) => nereid_stack::deeper(|| m.hash(state)),
            Node(n) => n.hash(state),
            Relationship(r) => r.hash(state),
            Path(p) => p.hash(state),
            VirtualNode(n) => n.id.hash(state),
            VirtualRelationship(r) => r.id.hash(state),
            Date(d) => d.hash(state),
            LocalTime(t) => t.hash(state),
            Time(t) => t.hash(state),
            LocalDateTime(t) => t.hash(state),
            DateTime(t) => t.hash(state),
            Duration(d) => d.hash(state),
            Point(p) => p.hash(state),
            WideLocal(w) => w.hash(state),
        }
    }
}

/// Cypher literal syntax, as the TCK writes expected values
/// (`'text'`, `[1, 2]`, `{a: 1}`); entities print as their ids.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => write!(f, "null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => fmt_float(*x, f),
            Value::String(s) => write!(f, "'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
            Value::Bytes(b) => {
                write!(f, "0x")?;
                for byte in b {
                    write!(f, "{byte:02x}")?;
                }
                Ok(())
            }
            Value::List(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    nereid_stack::deeper(|| write!(f, "{v}"))?;
                }
                write!(f, "]")
            }
            Value::Map(m) => {
                write!(f, "{{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    nereid_stack::deeper(|| write!(f, "{k}: {v}"))?;
                }
                write!(f, "}}")
            }
            Value::Node(n) => write!(f, "node({n})"),
            Value::Relationship(r) => write!(f, "relationship({r})"),
            Value::VirtualNode(n) => write!(f, "node({})", n.id),
            Value::VirtualRelationship(r) => write!(f, "relationship({})", r.id),
            Value::Path(p) => {
                write!(f, "path(")?;
                for (i, n) in p.nodes.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", {}, ", p.rels[i - 1])?;
                    }
                    write!(f, "{n}")?;
                }
                write!(f, ")")
            }
            // Temporal values print as the TCK writes them: quoted strings.
            Value::Date(d) => {
                write!(f, "'")?;
                temporal::fmt_date(*d, f)?;
                write!(f, "'")
            }
            Value::LocalTime(t) => {
                write!(f, "'")?;
                temporal::fmt_time(*t, f)?;
                write!(f, "'")
            }
            Value::Time(t) => write!(f, "'{t}'"),
            Value::LocalDateTime(t) => {
                write!(f, "'")?;
                temporal::fmt_local_datetime(*t, f)?;
                write!(f, "'")
            }
            Value::DateTime(t) => write!(f, "'{t}'"),
            Value::Duration(d) => write!(f, "'{d}'"),
            Value::Point(p) => write!(f, "{p}"),
            Value::WideLocal(w) => write!(f, "'{w}'"),
        }
    }
}

/// Floats always show a fractional part or exponent, so `1.0` never reads as
/// the integer `1`.
pub(crate) fn fmt_float(x: f64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if x.is_nan() {
        write!(f, "NaN")
    } else if x.is_infinite() {
        write!(f, "{}", if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else if x == x.trunc() && x.abs() < 1e16 {
        write!(f, "{x:.1}")
    } else {
        write!(f, "{x}")
    }
}
