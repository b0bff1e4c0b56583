//! The schema vocabulary: what an index or a constraint is, as a user
//! declared it, and what the store reports about it. Names are the user's
//! (labels, relationship types and property keys as strings); nothing here
//! knows Cypher syntax: the DDL's parser and the `SHOW` commands translate.

/// What an index or constraint ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntityKind {
    Node,
    Relationship,
}

/// The kinds of property index the store keeps. Range and text indexes are
/// ordered by the value order of module `key`; a text index holds string
/// values only and serves `STARTS WITH` / `ENDS WITH` / `CONTAINS`. A
/// vector index holds one entry per entity with a vector valid for it (its
/// key is empty: the entry says only that the entity may have one) and is
/// read by nearest-neighbour queries (module `txn::vector_query`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    Range,
    Text,
    Vector {
        /// `vector.dimensions`; `None`: any length (Neo4j allows leaving
        /// it out), every vector of one query then compared by its own.
        dimensions: Option<u32>,
        similarity: nereid_vector::Similarity,
    },
    /// A full-text index: the terms its analyzer makes of the entity's
    /// string values, searched with Lucene's query syntax (module
    /// `fulltext_search`). It ranges over several labels (or types) and
    /// holds an entity with *any* of them and *any* of its keys; its key
    /// is empty, as a vector index's is.
    Fulltext {
        analyzer: nereid_fulltext::Analyzer,
        /// `fulltext.eventually_consistent`: recorded and reported; the
        /// index is always maintained by the writing transaction.
        eventually_consistent: bool,
    },
}

impl IndexKind {
    /// Whether this is a vector index.
    pub fn is_vector(self) -> bool {
        matches!(self, IndexKind::Vector { .. })
    }

    /// Whether this is a full-text index.
    pub fn is_fulltext(self) -> bool {
        matches!(self, IndexKind::Fulltext { .. })
    }
}

/// An index as declared: one label (or relationship type) and one or more
/// property keys, in order (a composite index serves prefixes of `keys`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexDef {
    pub name: String,
    pub kind: IndexKind,
    pub entity: EntityKind,
    /// The label (nodes) or relationship type.
    pub label: String,
    /// A full-text index's further labels (or types), after `label`;
    /// empty for every other kind.
    pub more_labels: Vec<String>,
    pub keys: Vec<String>,
}

impl IndexDef {
    /// Whether `other` indexes the same thing (Neo4j's "equivalent"
    /// schema rule: same kind, entity, label and keys, whatever the name).
    pub fn equivalent(&self, other: &IndexDef) -> bool {
        std::mem::discriminant(&self.kind) == std::mem::discriminant(&other.kind)
            && self.entity == other.entity
            && self.label == other.label
            && self.more_labels == other.more_labels
            && self.keys == other.keys
    }

    /// Its labels (or types): `label`, then `more_labels`.
    pub fn labels(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.label).chain(&self.more_labels)
    }

    /// Whether it ranges over `label`.
    pub fn has_label(&self, label: &str) -> bool {
        self.labels().any(|l| l == label)
    }
}

/// A property value type of a property type constraint (`IS :: INTEGER`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    Boolean,
    String,
    Integer,
    Float,
    Date,
    LocalTime,
    ZonedTime,
    LocalDateTime,
    ZonedDateTime,
    Duration,
    Point,
    /// A list whose elements are all of the type (never null).
    List(Box<ValueType>),
}

/// What a constraint requires of every entity with its label (or type).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintKind {
    /// No two entities have equal values for all the keys (entities
    /// missing any key are not compared). Backed by a range index with
    /// the constraint's name.
    Unique,
    /// Every key is present (not null).
    Exists,
    /// `Unique` and `Exists` together (Neo4j's node key / relationship key).
    Key,
    /// The key's value, when present, is of one of the types.
    PropertyType(Vec<ValueType>),
}

impl ConstraintKind {
    /// Whether the constraint owns a backing index.
    pub fn needs_index(&self) -> bool {
        matches!(self, ConstraintKind::Unique | ConstraintKind::Key)
    }
}

/// A constraint as declared.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstraintDef {
    pub name: String,
    pub kind: ConstraintKind,
    pub entity: EntityKind,
    pub label: String,
    pub keys: Vec<String>,
}

impl ConstraintDef {
    /// Same kind over the same entity, label and keys, whatever the name.
    pub fn equivalent(&self, other: &ConstraintDef) -> bool {
        self.kind == other.kind
            && self.entity == other.entity
            && self.label == other.label
            && self.keys == other.keys
    }
}

/// An index or a constraint, as a schema command found it.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaRule {
    Index(IndexDef),
    Constraint(ConstraintDef),
}

/// What `CREATE INDEX` / `CREATE CONSTRAINT` did: created the rule (at
/// commit), or, under `IF NOT EXISTS`, nothing because `existing` (an
/// equivalent rule, or one of that name) is already there, which Neo4j
/// tells the client in a notification.
#[derive(Clone, Debug, PartialEq)]
pub enum Created {
    New,
    AlreadyExists(SchemaRule),
}

impl Created {
    pub fn is_new(&self) -> bool {
        matches!(self, Created::New)
    }
}

/// Whether queries may use an index yet.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexState {
    /// Being built from a snapshot; `percent` of the entities it started
    /// from are in. Writes already maintain it; queries do not use it.
    Populating {
        percent: f64,
    },
    Online,
    /// Population failed (a constraint found violating data): kept so
    /// that `SHOW INDEXES` says why until it is dropped.
    Failed(String),
}

/// One index as `SHOW INDEXES` reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexInfo {
    /// Stable for the index's life, never reused.
    pub id: u64,
    pub def: IndexDef,
    pub state: IndexState,
    /// The constraint this index backs, if any.
    pub owning_constraint: Option<String>,
    /// Seeks and scans served since start-up (Neo4j's `readCount`).
    pub read_count: u64,
    /// When it was last read, in Unix milliseconds (Neo4j's `lastRead`;
    /// `None`: not since start-up).
    pub last_read: Option<u64>,
    /// Since when reads are counted, in Unix milliseconds (Neo4j's
    /// `trackedSince`: its creation, or this process's start).
    pub tracked_since: u64,
    /// Entries held, stale ones not yet collected included.
    pub entries: usize,
}

/// One constraint as `SHOW CONSTRAINTS` reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstraintInfo {
    pub id: u64,
    pub def: ConstraintDef,
    /// The name of its backing index (unique and key constraints).
    pub owned_index: Option<String>,
}

/// The schema at one moment. `version` grows with every schema change and
/// every index that comes online, so plans made against an older version
/// can be told apart (the plan cache keys on it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SchemaView {
    pub version: u64,
    pub indexes: Vec<IndexInfo>,
    pub constraints: Vec<ConstraintInfo>,
}

impl SchemaView {
    /// The online index of `kind` over exactly `(entity, label, keys)`.
    pub fn online_index(
        &self,
        kind: IndexKind,
        entity: EntityKind,
        label: &str,
        keys: &[String],
    ) -> Option<&IndexInfo> {
        self.indexes.iter().find(|i| {
            i.def.kind == kind
                && i.def.entity == entity
                && i.def.label == label
                && i.def.keys == keys
                && i.state == IndexState::Online
        })
    }
}
