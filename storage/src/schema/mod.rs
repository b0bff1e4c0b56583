//! Indexes and constraints (Poseidon paper, section 10: an ordered index
//! over O values). The schema is part of the store: its changes are
//! [`Change`](crate::Change)s, logged and replayed like data; indexes are
//! maintained by the transactions that write (module `txn::schema_writes`)
//! and read with MVCC by deciding each candidate in the reader's view
//! (module `seek`).

mod catalog;
mod defs;
mod ends;
mod fulltext_postings;
mod fulltext_search;
mod image;
mod index;
mod key;
mod names;
mod points;
mod populate;
mod seek;
mod stale;
mod vector_ann;
mod vector_search;

pub(crate) use catalog::{backing_index, Catalog, Constraint, Schema};
pub use defs::{
    ConstraintDef, ConstraintInfo, ConstraintKind, Created, EntityKind, IndexDef, IndexInfo,
    IndexKind, IndexState, SchemaRule, SchemaView, ValueType,
};
pub(crate) use ends::from_end;
pub(crate) use fulltext_search::search as fulltext_search;
pub(crate) use image::{check_vector, entity_values, key_of};
pub(crate) use index::{unix_millis, PropertyIndex};
pub(crate) use names::{constraint_name, index_name};
pub(crate) use populate::{entities_of, populate};
pub(crate) use seek::{count_candidates, seek};
pub use seek::{IndexSeek, KeyPredicate};
pub(crate) use stale::StaleEntry;
pub(crate) use vector_search::nearest;
