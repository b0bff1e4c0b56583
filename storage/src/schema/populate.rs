//! Building an index from a snapshot: the entities of its label (or type)
//! read in chunks on a few threads, keys encoded, the entries sorted and
//! merged into the index in one pass. Writers maintain the index from the
//! moment it is in the catalog, so what a build adds and what they add
//! together cover every version a later snapshot can read.

use super::defs::{EntityKind, IndexState};
use super::image::{entity_values, key_of, resolved_values, Resolved};
use super::index::PropertyIndex;
use super::key;
use crate::apl::{Apl, EdgePattern, Endpoint, ModeChoice};
use crate::mvcc::View;
use crate::store::Store;
use crate::txn::Reader;

/// Entities per progress step.
const CHUNK: usize = 16 * 1024;

/// Adds every entity visible at `read_ts`, updating `populationPercent`
/// as it goes. Returns the entries' keys grouped for duplicate detection
/// when `find_duplicate` is set: the first two entities found with one key.
pub(crate) fn populate(
    store: &Store,
    index: &PropertyIndex,
    read_ts: u64,
    find_duplicate: bool,
) -> Option<(u64, u64)> {
    let reader = Reader {
        store,
        view: View::committed(read_ts),
    };
    let mut entities: Vec<u64> = index
        .def
        .labels()
        .flat_map(|label| entities_of(&reader, index.def.entity, label))
        .collect();
    if !index.def.more_labels.is_empty() {
        entities.sort_unstable();
        entities.dedup();
    }
    let total = entities.len().max(1);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let resolved = Resolved::of(store, index);
    let mut built: Vec<(Vec<u8>, u64, bool)> = Vec::with_capacity(entities.len());
    let mut so_far = 0;
    for round in entities.chunks(CHUNK * threads) {
        let parts: Vec<Vec<(Vec<u8>, u64, bool)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = round
                .chunks(CHUNK)
                .map(|chunk| {
                    let reader = Reader {
                        store,
                        view: View::committed(read_ts),
                    };
                    let resolved = &resolved;
                    scope.spawn(move || {
                        chunk
                            .iter()
                            .filter_map(|&e| {
                                let values = resolved_values(&reader, index, resolved, e)?;
                                let k = key_of(index.def.kind, &values)?;
                                index.values_written(e, &values);
                                Some((k.bytes, e, k.wide))
                            })
                            .collect()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        for part in parts {
            built.extend(part);
        }
        so_far += round.len();
        if let IndexState::Populating { percent } = &mut *index.state.lock() {
            *percent = (so_far as f64 * 100.0 / total as f64).min(99.9);
        }
    }
    let duplicate = if find_duplicate {
        first_duplicate(&reader, index, &built)
    } else {
        None
    };
    built.sort_unstable();
    index.insert_all(built);
    duplicate
}

/// The entities visible to `reader` that carry `label` (nodes) or are of
/// type `label` (relationships).
pub(crate) fn entities_of(reader: &Reader<'_>, entity: EntityKind, label: &str) -> Vec<u64> {
    match entity {
        EntityKind::Node => reader
            .scan_nodes(Some(label))
            .into_iter()
            .map(|n| n.0)
            .collect(),
        EntityKind::Relationship => {
            let types = [label.to_string()];
            let pattern = EdgePattern {
                src: Endpoint::Any,
                types: &types,
                dst: Endpoint::Any,
            };
            let apl = Apl {
                reader: Reader {
                    store: reader.store,
                    view: reader.view,
                },
            };
            let mut rels = Vec::new();
            apl.edges(&pattern, None, ModeChoice::Auto, |m| rels.push(m.rel.0));
            rels
        }
    }
}

/// Two entities whose keys hold equal values (Cypher `=`), if any.
fn first_duplicate(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    built: &[(Vec<u8>, u64, bool)],
) -> Option<(u64, u64)> {
    let mut by_value: Vec<(Vec<u8>, u64)> = built
        .iter()
        .map(|(k, e, _)| (key::equality_key(k), *e))
        .collect();
    by_value.sort_unstable();
    by_value.windows(2).find_map(|w| {
        if w[0].0 != w[1].0 {
            return None;
        }
        let a = entity_values(reader, index, w[0].1)?;
        let b = entity_values(reader, index, w[1].1)?;
        let equal = a.iter().zip(&b).all(|(x, y)| x.cypher_eq(y) == Some(true));
        equal.then_some((w[0].1, w[1].1))
    })
}
