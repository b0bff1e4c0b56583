//! The in-memory OneGraph (1G) store (Poseidon paper, sections 3-5).
//!
//! Public surface: [`Store`] (shared, `Send + Sync`), [`Txn`] (one MVCC
//! transaction, `Send + Sync`, all methods take `&self`), and [`Change`], the
//! logical description of a committed transaction that the log persists and
//! replays.
//!
//! Physical model (the basic-LPG subset of the paper's 13 relations):
//! - dictionaries REL_VERT (vertex identifier strings) and REL_LIT (literal
//!   forms: string/bytes/list values, label names) map lexical forms to
//!   64-bit guis `tag | collision counter | murmur3 hash` (module `ids`);
//! - REL_VP (vertex properties, labels, existence), REL_E (edges) and
//!   REL_EP (edge properties) hold SPOI tuples with an 8-bit type flag on O.
//!   REL_VP is partitioned 1D by the hash bits of S; REL_E on a `P x P` grid
//!   by (S, O); REL_EP lives in the grid cell of its edge (co-located, joined
//!   through the I-index). Every partition indexes S, O (guis only) and I;
//! - a node is its REL_VERT gui ([`NodeId`](nereid_values::NodeId)), a
//!   relationship its REL_E statement id ([`RelId`](nereid_values::RelId)).
//!
//! Invariants:
//! - storage knows nothing about Cypher, plans or the wire protocol;
//! - storage knows nothing about the log: it hands [`Change`]s to a callback
//!   at commit and accepts them back through [`Store::replay`];
//! - a transaction reads the snapshot at its read timestamp plus its own
//!   writes; tuples are only inserted or deleted, never updated in place
//!   (module `mvcc`; dead versions are collected by module `gc`).

mod adjacency;
pub mod apl;
mod atomic_pages;
mod bulk;
mod bulk_edges;
mod bulk_graph;
mod bulk_nodes;
mod change;
mod counts;
mod dictionary;
mod directory;
mod error;
mod export_record;
mod form_table;
mod gc;
mod gui_map;
mod head_table;
mod ids;
mod list_arena;
mod lock_wait;
#[cfg(test)]
mod lock_wait_tests;
mod memory;
mod mvcc;
mod node_index;
mod paged;
mod pinned;
mod predicates;
mod prefetch;
mod read_mostly;
mod relation;
mod resolver;
mod schema;
mod snapshot;
pub mod stats;
mod store;
mod txn;
mod typed_value;
mod value_test;

pub use bulk::{BulkNode, BulkRel};
pub use bulk_graph::{BulkEnd, GraphLoaded, GraphNode, GraphRel, KeyedNode};
pub use change::{Change, StoreConfig, WriteStats};
pub use error::{Result, StorageError};
pub use export_record::{
    Exported, ExportedNode, ExportedProperties, ExportedRel, Labels, ValueRef,
};
pub use gc::SnapshotPin;
pub use lock_wait::WaitLimits;
pub use memory::MemoryUsage;
pub use node_index::NodeIndex;
pub use pinned::free_retired;
pub use prefetch::line as prefetch_line;
pub use resolver::rel_element_id;
pub use schema::{
    ConstraintDef, ConstraintInfo, ConstraintKind, Created, EntityKind, IndexDef, IndexInfo,
    IndexKind, IndexSeek, IndexState, KeyPredicate, SchemaRule, SchemaView, ValueType,
};
pub use snapshot::IdCounters;
pub use store::{CommitTicket, Store};
pub use txn::{CommitError, FulltextOptions, NodeCursor, Txn};
