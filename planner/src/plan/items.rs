//! The payloads operators share: sort keys, the items of CREATE and SET,
//! aggregate calls, and the property tests pushed into scans.

use crate::expr::{BinaryOp, Expr, Slot};
use nereid_functions::AggregateFunction;

/// A test of one property of the entity a scan binds (a relationship-type
/// scan, a node property scan), pushed into the scan: true exactly where
/// the filter `x.key <op> value` (or `x.key IS NOT NULL`) would keep the
/// row.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyPredicate {
    pub key: String,
    pub test: PropertyTest,
}

#[derive(Clone, Debug, PartialEq)]
pub enum PropertyTest {
    IsNotNull,
    /// `property <op> value`; `op` is `=`, `<>`, `<`, `<=`, `>` or `>=`,
    /// `value` a literal or parameter (evaluated once).
    Compare {
        op: BinaryOp,
        value: Expr,
    },
}

/// One sort key.
#[derive(Clone, Debug, PartialEq)]
pub struct SortKey {
    pub expr: Expr,
    pub ascending: bool,
}

/// An entity to create.
#[derive(Clone, Debug, PartialEq)]
pub enum CreateItem {
    Node {
        out: Slot,
        labels: Vec<String>,
        /// `(n:$(expr))`: each a label name or a list of them, per row.
        dynamic: Vec<Expr>,
        properties: Vec<(String, Expr)>,
    },
    /// `from` and `to` already hold nodes (the planner orders items so);
    /// direction is normalised: the relationship goes from `from` to `to`.
    Rel {
        out: Slot,
        from: Slot,
        to: Slot,
        rel_type: RelTypeName,
        properties: Vec<(String, Expr)>,
    },
}

/// The type of a relationship to create: written in the query, or named
/// per row by `-[:$(expr)]->` (a string, or a list of exactly one).
#[derive(Clone, Debug, PartialEq)]
pub enum RelTypeName {
    Static(String),
    Dynamic(Expr),
}

/// One SET / REMOVE item. The target evaluates to a node or relationship
/// (null targets are ignored).
#[derive(Clone, Debug, PartialEq)]
pub enum SetItem {
    /// `SET t.key = value`; a null value removes the property (also `REMOVE t.key`).
    Property {
        target: Expr,
        key: String,
        value: Expr,
    },
    /// `SET t = map`: replaces all properties.
    ReplaceProperties { target: Expr, map: Expr },
    /// `SET t += map`: adds/overwrites properties (null values remove).
    MergeProperties { target: Expr, map: Expr },
    /// `SET t:A:B:$(expr)`: `dynamic` each evaluate to a label name or a
    /// list of them.
    AddLabels {
        target: Expr,
        labels: Vec<String>,
        dynamic: Vec<Expr>,
    },
    /// `REMOVE t:A:B:$(expr)`
    RemoveLabels {
        target: Expr,
        labels: Vec<String>,
        dynamic: Vec<Expr>,
    },
}

/// An aggregate call.
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    pub func: AggregateFunction,
    /// `None` only for `count(*)`.
    pub arg: Option<Expr>,
    /// The percentile of `percentileCont` / `percentileDisc`; `None` for the
    /// other functions.
    pub percentile: Option<Expr>,
    pub distinct: bool,
}
