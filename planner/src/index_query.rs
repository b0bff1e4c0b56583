//! Property indexes as the planner sees them (what [`crate::Catalog::indexes`]
//! lists) and the question an index operator asks one of them
//! ([`IndexQuery`]): equalities on the index's first keys, then one
//! condition on the next key, with values that are expressions evaluated
//! per input row (literals, parameters, anything bound before the seek).
//!
//! The planner knows nothing of how the store keeps an index; the executor
//! turns an `IndexQuery` into the store's seek and, when the store cannot
//! answer it exactly, into the scan and test it replaced.

use crate::expr::Expr;

/// What an index ranges over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexEntity {
    Node,
    Relationship,
}

/// The kinds of property index: a range index is ordered by the values'
/// `ORDER BY` order; a text index holds strings only and serves
/// `STARTS WITH`, `ENDS WITH` and `CONTAINS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexKind {
    Range,
    Text,
}

/// One online index the planner may read through.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct IndexDescriptor {
    pub name: String,
    pub kind: IndexKind,
    pub entity: IndexEntity,
    /// The label (nodes) or relationship type.
    pub label: String,
    /// The property keys, in index order.
    pub keys: Vec<String>,
    /// Whether the index backs a uniqueness (or key) constraint: an
    /// equality on every key then names at most one entity.
    pub unique: bool,
}

/// The value(s) one leading key must equal.
#[derive(Clone, Debug, PartialEq)]
pub enum SeekArg {
    /// `x.key = e`.
    Equal(Expr),
    /// `x.key IN list`: one seek per distinct element, the entities found
    /// de-duplicated.
    In(Expr),
}

/// One end of a range.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeEnd {
    pub value: Expr,
    pub inclusive: bool,
}

/// The condition on the key after the equalities.
#[derive(Clone, Debug, PartialEq)]
pub enum IndexCondition {
    /// Any value (`IS NOT NULL`, or nothing more asked of the key than
    /// what the remaining filters test).
    All,
    /// `lower <(=) x.key <(=) upper` with Cypher's ordering comparison.
    Range {
        lower: Option<RangeEnd>,
        upper: Option<RangeEnd>,
    },
    StartsWith(Expr),
    EndsWith(Expr),
    Contains(Expr),
}

/// The question an index operator asks: rows whose keys satisfy it, read
/// in key order when `order` says so.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexQuery {
    pub index: IndexDescriptor,
    /// One per leading key of the index, in key order.
    pub equal: Vec<SeekArg>,
    /// The condition on key `equal.len()` (`All` when every key is equal).
    pub next: IndexCondition,
    /// `Some(descending)`: rows must come in the order of key
    /// `equal.len()` (rule `index_order`, which removed the sort above).
    pub order: Option<bool>,
    /// At most this many rows per input row (an expression known before
    /// the seek runs: a `LIMIT` right above it with nothing filtering
    /// between); a non-integer value is ignored (the `Limit` above reports
    /// it).
    pub limit: Option<Expr>,
}

impl IndexQuery {
    /// Neo4j's name for the node operator answering this query.
    pub fn node_operator(&self) -> &'static str {
        match &self.next {
            IndexCondition::All if self.equal.is_empty() => "NodeIndexScan",
            IndexCondition::All
                if self.index.unique && self.equal.len() == self.index.keys.len() =>
            {
                "NodeUniqueIndexSeek"
            }
            IndexCondition::All => "NodeIndexSeek",
            IndexCondition::Range { .. } | IndexCondition::StartsWith(_) => "NodeIndexSeekByRange",
            IndexCondition::EndsWith(_) => "NodeIndexEndsWithScan",
            IndexCondition::Contains(_) => "NodeIndexContainsScan",
        }
    }

    /// Neo4j's name for the relationship operator answering this query,
    /// directed or not (`DirectedRelationshipIndexSeek`, ...).
    pub fn relationship_operator(&self, directed: bool) -> String {
        let seek = match &self.next {
            IndexCondition::All if self.equal.is_empty() => "IndexScan",
            IndexCondition::All
                if self.index.unique && self.equal.len() == self.index.keys.len() =>
            {
                "UniqueIndexSeek"
            }
            IndexCondition::All => "IndexSeek",
            IndexCondition::Range { .. } | IndexCondition::StartsWith(_) => "IndexSeekByRange",
            IndexCondition::EndsWith(_) => "IndexEndsWithScan",
            IndexCondition::Contains(_) => "IndexContainsScan",
        };
        let direction = if directed { "Directed" } else { "Undirected" };
        format!("{direction}Relationship{seek}")
    }

    /// Every expression the query evaluates per input row.
    pub fn expressions(&self) -> Vec<&Expr> {
        let mut out: Vec<&Expr> = self
            .equal
            .iter()
            .map(|a| match a {
                SeekArg::Equal(e) | SeekArg::In(e) => e,
            })
            .collect();
        match &self.next {
            IndexCondition::All => {}
            IndexCondition::Range { lower, upper } => {
                out.extend(lower.iter().chain(upper).map(|end| &end.value))
            }
            IndexCondition::StartsWith(e)
            | IndexCondition::EndsWith(e)
            | IndexCondition::Contains(e) => out.push(e),
        }
        out.extend(self.limit.iter());
        out
    }
}

/// A `USING INDEX` hint whose index does not exist, as Neo4j's
/// `HintedIndexNotFound` warning spells it: `described` in the pre-GQL
/// description (`INDEX FOR (`n`:`L`) ON (`n`.`q`)`), `short` in the GQL
/// status (`INDEX :L(q)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingHint {
    pub described: String,
    pub short: String,
}

/// A MATCH's `USING` hint, resolved to the slot of its variable.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexHint {
    pub slot: crate::expr::Slot,
    pub entity: IndexEntity,
    pub label: String,
    /// `USING INDEX`: the keys and kind of the index to read through;
    /// `None` for `USING SCAN` (no index).
    pub index: Option<(Vec<String>, IndexKind)>,
    /// The variable, as written (for messages).
    pub variable: String,
    /// Byte offset of the hint in the query.
    pub offset: usize,
}

impl IndexHint {
    /// Whether `index` is the one this hint names.
    pub fn names(&self, index: &IndexDescriptor) -> bool {
        match &self.index {
            Some((keys, kind)) => {
                index.entity == self.entity
                    && index.label == self.label
                    && index.keys == *keys
                    && index.kind == *kind
            }
            None => false,
        }
    }

    /// The warning's two spellings of this hint's index.
    pub fn missing(&self) -> MissingHint {
        let (keys, kind) = match &self.index {
            Some((keys, IndexKind::Text)) => (keys.join(", "), "TEXT INDEX"),
            Some((keys, IndexKind::Range)) => (keys.join(", "), "INDEX"),
            None => (String::new(), "SCAN"),
        };
        MissingHint {
            described: self.describe(),
            short: format!("{kind} :{}({keys})", self.label),
        }
    }

    /// `INDEX FOR (`n`:`L`) ON (`n`.`p`)`, as Neo4j names an index in
    /// its hint errors.
    pub fn describe(&self) -> String {
        let v = &self.variable;
        let keys = self
            .index
            .as_ref()
            .map(|(keys, _)| {
                keys.iter()
                    .map(|k| format!("`{v}`.`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let kind = match self.index {
            Some((_, IndexKind::Text)) => "TEXT INDEX",
            _ => "INDEX",
        };
        match self.entity {
            IndexEntity::Node => format!("{kind} FOR (`{v}`:`{}`) ON ({keys})", self.label),
            IndexEntity::Relationship => {
                format!("{kind} FOR ()-[`{v}`:`{}`]-() ON ({keys})", self.label)
            }
        }
    }
}

/// The indexes a scan binding `slot` may read through under `hints`: none
/// for `USING SCAN`, only the named one for `USING INDEX`, else all.
pub(crate) fn allowed_for(
    indexes: &[IndexDescriptor],
    hints: &[IndexHint],
    slot: crate::expr::Slot,
) -> Vec<IndexDescriptor> {
    let mine: Vec<&IndexHint> = hints.iter().filter(|h| h.slot == slot).collect();
    if mine.is_empty() {
        return indexes.to_vec();
    }
    indexes
        .iter()
        .filter(|i| mine.iter().all(|h| h.names(i)))
        .cloned()
        .collect()
}
