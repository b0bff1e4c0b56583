//! How much memory the store takes, by part, for a metrics endpoint.
//!
//! Every figure comes from capacities (allocated zones, pages, chunks,
//! table sizes, running totals kept where things come and go), never from
//! a walk over tuples or entries: a call costs one step per partition and
//! per zone or page, and takes no lock a commit holds. Relations and their
//! indexes are read pinned without their locks (module `pinned`); the
//! dictionaries' form tables under their read locks, which a commit does
//! not take; property indexes and statistics publish their size in an
//! atomic when they change. Memory retired but not yet reclaimed (replaced
//! zones and tables waiting for readers) is not counted.

use crate::store::Store;

/// The store's memory by part, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryUsage {
    /// The tuples: zones (columns, record hints, version vectors) and
    /// their tables, of REL_VP, REL_E and REL_EP.
    pub relations: u64,
    /// The relations' S, O and I indexes: heads and list arenas.
    pub adjacency: u64,
    /// REL_VERT and REL_LIT (records, gui maps, form tables) and the
    /// property key and relationship type tables.
    pub dictionaries: u64,
    /// Property, text and vector indexes.
    pub indexes: u64,
    /// Optimizer statistics: characteristic sets and sketches.
    pub statistics: u64,
}

impl MemoryUsage {
    /// Each part with its name (the names a metrics label uses).
    pub fn parts(&self) -> [(&'static str, u64); 5] {
        [
            ("relations", self.relations),
            ("adjacency", self.adjacency),
            ("dictionaries", self.dictionaries),
            ("indexes", self.indexes),
            ("statistics", self.statistics),
        ]
    }

    /// Every part together.
    pub fn total(&self) -> u64 {
        self.parts().iter().map(|(_, bytes)| bytes).sum()
    }
}

impl Store {
    /// The store's memory by part (module docs: from capacities, no lock
    /// a commit holds; callable at any time from any thread).
    pub fn memory_usage(&self) -> MemoryUsage {
        let (mut relations, mut adjacency) = (0, 0);
        for relation in [&self.vp, &self.e, &self.ep] {
            let (zones, indexes) = relation.bytes();
            relations += zones;
            adjacency += indexes;
        }
        let dictionaries =
            self.vertices.bytes() + self.literals.bytes() + self.keys.bytes() + self.types.bytes();
        let indexes: usize = self
            .schema
            .catalog()
            .indexes
            .iter()
            .map(|index| index.approximate_bytes())
            .sum();
        MemoryUsage {
            relations: relations as u64,
            adjacency: adjacency as u64,
            dictionaries: dictionaries as u64,
            indexes: indexes as u64,
            statistics: self.stats.bytes() as u64,
        }
    }
}
