//! The APOC core functions that GraphRAG and OGM libraries call
//! (`apoc.map.clean`, `apoc.coll.flatten`, ...): what each name resolves
//! to. The executor implements them with APOC's semantics; their names and
//! argument counts are in the catalogue.

use crate::catalogue::{name_of, Implementation};
use crate::ScalarFunction;

/// An APOC function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ApocFunction {
    /// `apoc.any.property(entityOrMap, key)`: also on virtual entities.
    AnyProperty,
    /// `apoc.any.properties(entityOrMap[, keys])`.
    AnyProperties,
    /// `apoc.map.clean(map, keys, values)`.
    MapClean,
    /// `apoc.map.merge(first, second)`.
    MapMerge,
    /// `apoc.map.fromPairs(pairs)`.
    MapFromPairs,
    /// `apoc.coll.flatten(list[, recursive])`.
    CollFlatten,
    /// `apoc.coll.toSet(list)`.
    CollToSet,
    /// `apoc.coll.sum(numbers)`.
    CollSum,
    /// `apoc.coll.sort(list)`.
    CollSort,
    /// `apoc.text.join(strings, delimiter)`.
    TextJoin,
}

impl ApocFunction {
    /// The name APOC's errors quote: the catalogue's.
    pub fn name(self) -> &'static str {
        name_of(Implementation::Scalar(ScalarFunction::Apoc(self)))
    }
}
