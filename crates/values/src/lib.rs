//! The value model shared by every layer of nereid.
//!
//! Two forms of graph entity exist on purpose:
//! - during execution a node, relationship or path is only a *reference*
//!   ([`NodeId`], [`RelId`], [`PathValue`]): columns of ids are cheap to move
//!   through the dataflow executor;
//! - at the edge of the system (Bolt records, golden test output) references
//!   are *materialised* into [`NodeData`] / [`RelData`] through an
//!   [`EntityResolver`] that reads the transaction's snapshot;
//! - virtual entities ([`VirtualNode`], [`VirtualRelationship`]), which are
//!   not in the store, carry their labels and properties themselves.
//!
//! Invariant: this crate knows nothing about Cypher syntax, storage layout or
//! the wire protocol; it is the vocabulary the other crates share.

mod footprint;
mod list;
mod nesting;
mod ordering;
pub mod spatial;
pub mod temporal;
pub mod temporal_codec;
pub mod temporal_wide;
mod value;
pub mod value_codec;
mod virtual_entity;

pub use list::List;
pub use nesting::NULL;
pub use ordering::{compare_for_order, Comparison};
pub use spatial::{Crs, Point};
pub use temporal::{Duration, OffsetTime, ZonedDateTime};
pub use temporal_wide::WideLocal;
pub use value::{PathValue, Value};
pub use virtual_entity::{VirtualNode, VirtualRelationship};

use std::collections::BTreeMap;
use std::fmt;

/// A vertex identifier: the 64-bit dictionary gui of the vertex (see the
/// storage crate for its bit layout). The low 48 bits are unique among
/// vertices, so [`NodeId::external`] fits in a JavaScript-safe integer.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct NodeId(pub u64);

/// A relationship identifier: the statement id (SID) of its REL_E tuple.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct RelId(pub u64);

const EXTERNAL_MASK: u64 = (1 << 48) - 1;

impl NodeId {
    /// The integer `id(n)` reports: the gui without its 4-bit relation tag.
    pub fn external(self) -> i64 {
        (self.0 & EXTERNAL_MASK) as i64
    }
}

impl RelId {
    /// The integer `id(r)` reports: the SID without its relation tag.
    pub fn external(self) -> i64 {
        (self.0 & EXTERNAL_MASK) as i64
    }
}

/// Traversal direction of a relationship pattern, seen from its left node.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Direction {
    /// `(a)-[]->(b)`
    Outgoing,
    /// `(a)<-[]-(b)`
    Incoming,
    /// `(a)-[]-(b)`
    Both,
}

impl Direction {
    /// The same relationships seen from the other end.
    pub fn reversed(self) -> Direction {
        match self {
            Direction::Outgoing => Direction::Incoming,
            Direction::Incoming => Direction::Outgoing,
            Direction::Both => Direction::Both,
        }
    }
}

/// A materialised node, as a client sees it.
#[derive(Clone, PartialEq, Debug)]
pub struct NodeData {
    pub id: NodeId,
    pub element_id: String,
    pub labels: Vec<String>,
    pub properties: BTreeMap<String, Value>,
}

/// A materialised relationship, as a client sees it.
#[derive(Clone, PartialEq, Debug)]
pub struct RelData {
    pub id: RelId,
    pub element_id: String,
    pub start: NodeId,
    pub start_element_id: String,
    pub end: NodeId,
    pub end_element_id: String,
    pub rel_type: String,
    pub properties: BTreeMap<String, Value>,
}

/// Reads entity data from one consistent snapshot. Returns `None` for an
/// entity that is not visible (e.g. deleted earlier in the same transaction).
pub trait EntityResolver {
    fn node(&self, id: NodeId) -> Option<NodeData>;
    fn relationship(&self, id: RelId) -> Option<RelData>;
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.external())
    }
}

impl fmt::Display for RelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.external())
    }
}
