//! Cardinality estimates from the catalog's statistics.
//!
//! A node *frontier* is the set of nodes a scan binds after its label and
//! property-equality filters. With characteristic sets
//! ([`Catalog::estimate_nodes_having`]) the nodes carrying all the labels
//! and keys are counted directly; without, the most selective label's count
//! stands in. Each equality on a key then keeps about `1 / distinct` of
//! them ([`Catalog::distinct_node_values`]; independence assumed between
//! keys). Where an online index would serve the frontier (rule
//! `node_index_seek`), a unique index with every key equal names at most
//! one node per value and a range or string condition keeps a fixed share
//! ([`RANGE_SELECTIVITY`]); an indexed equality whose values are known at
//! planning (literals, parameters' values) is counted in the index instead
//! of averaged. Other predicates are not estimated: they count
//! as keeping every row, which never makes an end look smaller than it is.

use crate::expr::{slots_of, Expr, Slot};
use crate::id_predicate::seekable;
use crate::index_predicate::{choose, condition};
use crate::index_query::{allowed_for, IndexCondition, IndexEntity, IndexQuery, SeekArg};
use crate::parameter_probe::{ParameterProbe, ProbeValue, PLANNING_COUNT_CAP};
use crate::{Catalog, RelStatistics};
use nereid_values::Direction;

/// Estimated nodes bound to `slot` by a scan for `labels` followed by
/// `filters` (those reading other slots too are ignored).
pub(crate) fn node_frontier(
    catalog: &dyn Catalog,
    slot: Slot,
    labels: &[String],
    filters: &[&Expr],
) -> f64 {
    let mut labels: Vec<String> = labels.to_vec();
    let mut keys: Vec<String> = Vec::new();
    // `id(n) = e` names at most one node, `id(n) IN list` at most the
    // list's length (rule `id_seek` makes either a seek).
    if let Some(named) = filters
        .iter()
        .filter_map(|f| ids_named(catalog, f, slot))
        .reduce(f64::min)
    {
        return named;
    }
    for filter in filters {
        if let Expr::HasLabels { expr, labels: more } = filter {
            if **expr == Expr::Slot(slot) {
                for l in more {
                    if !labels.contains(l) {
                        labels.push(l.clone());
                    }
                }
            }
        } else if let Some((lhs, rhs)) = filter.as_equality() {
            let key = equality_key(lhs, rhs, slot).or_else(|| equality_key(rhs, lhs, slot));
            if let Some(key) = key.filter(|k| !keys.contains(k)) {
                keys.push(key);
            }
        }
    }
    let having = catalog.estimate_nodes_having(&labels, &keys);
    let mut estimate = match having {
        Some(n) => n as f64,
        None => labels
            .iter()
            .map(|l| catalog.estimate_nodes(Some(l)))
            .min()
            .unwrap_or_else(|| catalog.estimate_nodes(None)) as f64,
    };
    for key in &keys {
        if let Some(distinct) = catalog.distinct_node_values(key) {
            estimate /= distinct.max(1) as f64;
        }
    }
    match index_seek(catalog, slot, &labels, filters) {
        Some(IndexEstimate::Unique(at_most)) => estimate.min(at_most),
        Some(IndexEstimate::Counted {
            entries,
            keys: counted,
        }) => {
            // The count replaces the label's nodes and the counted keys'
            // averages; the other equalities keep theirs.
            keys.iter()
                .filter(|k| !counted.contains(k))
                .filter_map(|k| catalog.distinct_node_values(k))
                .fold(entries, |e, distinct| e / distinct.max(1) as f64)
        }
        Some(IndexEstimate::Narrowed) => estimate * RANGE_SELECTIVITY,
        None => estimate,
    }
}

/// What an index seek (rule `node_index_seek`) on the frontier adds to the
/// estimate: a unique index with every key equal names at most one node
/// per value (the product of the `IN` lists' lengths, when literal); a
/// range or string condition keeps [`RANGE_SELECTIVITY`] of the nodes
/// (equalities were counted above, through distinct values).
enum IndexEstimate {
    Unique(f64),
    /// The index's entries for the values the leading `keys` equal, when
    /// every value is known at planning (literals, parameters' values).
    Counted {
        entries: f64,
        keys: Vec<String>,
    },
    Narrowed,
}

/// The share of nodes a range (`<`, `>=`, ...) or a string condition
/// (`STARTS WITH`, ...) on an indexed key is assumed to keep: without
/// histograms any fixed share is a guess; a third is Neo4j's default for
/// a range and makes a seek side win over a plain scan of a label of
/// similar size.
const RANGE_SELECTIVITY: f64 = 0.3;

fn index_seek(
    catalog: &dyn Catalog,
    slot: Slot,
    labels: &[String],
    filters: &[&Expr],
) -> Option<IndexEstimate> {
    let indexes = catalog.indexes();
    if indexes.is_empty() {
        return None;
    }
    let hints = catalog.hints();
    let indexes = allowed_for(&indexes, &hints, slot);
    let conditions: Vec<_> = filters
        .iter()
        .map(|f| condition(f, slot, &[slot]))
        .collect();
    let query = choose(&indexes, IndexEntity::Node, labels, &conditions)?.query;
    if hints
        .iter()
        .any(|h| h.slot == slot && h.names(&query.index))
    {
        // `USING INDEX` on this end: start here, whatever the estimates.
        return Some(IndexEstimate::Unique(0.0));
    }
    if query.index.unique && query.equal.len() == query.index.keys.len() {
        let values: f64 = query
            .equal
            .iter()
            .map(|arg| match arg {
                SeekArg::Equal(_) => 1.0,
                SeekArg::In(list) => list_length(catalog, list),
            })
            .product();
        return Some(IndexEstimate::Unique(values));
    }
    if let Some(counted) = counted_entries(catalog, &query) {
        return Some(counted);
    }
    match query.next {
        IndexCondition::All => None,
        _ => Some(IndexEstimate::Narrowed),
    }
}

/// The entries `query`'s index holds for the values its leading keys
/// equal, when each is a literal or a parameter with a known value and no
/// other condition follows (a range after them keeps its fixed share).
/// A count that read a parameter is noted as a probe of the plan.
fn counted_entries(catalog: &dyn Catalog, query: &IndexQuery) -> Option<IndexEstimate> {
    if query.equal.is_empty() || query.next != IndexCondition::All {
        return None;
    }
    let values = query
        .equal
        .iter()
        .map(|arg| match arg {
            SeekArg::Equal(Expr::Literal(value)) => Some(ProbeValue::Literal(value.clone())),
            SeekArg::Equal(Expr::Param(name)) => Some(ProbeValue::Param(name.clone())),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let reads_parameters = values.iter().any(|v| matches!(v, ProbeValue::Param(_)));
    // Counted as a cached plan's check counts it again (module
    // `parameter_probe`), so the two estimates compare like for like.
    let probe = ParameterProbe::IndexEquality {
        index: query.index.name.clone(),
        values,
    };
    let entries = probe.estimate(catalog, PLANNING_COUNT_CAP)?;
    if reads_parameters {
        catalog.note_probe(probe, entries);
    }
    Some(IndexEstimate::Counted {
        entries,
        keys: query.index.keys[..query.equal.len()].to_vec(),
    })
}

/// How many nodes `filter` can name when it is an id predicate on `slot`
/// (module `id_predicate`): the length of the list of ids when it is
/// literal or a parameter with a known value (1 for `id(n) = e`), else
/// [`IDS_IN_UNKNOWN_LIST`].
fn ids_named(catalog: &dyn Catalog, filter: &Expr, slot: Slot) -> Option<f64> {
    let (named, seek) = seekable(filter)?;
    (named == slot).then(|| list_length(catalog, &seek.ids))
}

/// The length of a list of ids: [`known_list_length`], else
/// [`IDS_IN_UNKNOWN_LIST`].
fn list_length(catalog: &dyn Catalog, list: &Expr) -> f64 {
    known_list_length(catalog, list).unwrap_or(IDS_IN_UNKNOWN_LIST)
}

/// The length of a list written in the text, or of a list parameter's
/// value (noted as a probe of the plan, module `parameter_probe`).
pub(crate) fn known_list_length(catalog: &dyn Catalog, list: &Expr) -> Option<f64> {
    match list {
        Expr::List(items) => Some(items.len() as f64),
        Expr::Literal(nereid_values::Value::List(items)) => Some(items.len() as f64),
        Expr::Param(name) => match catalog.parameter(name)? {
            nereid_values::Value::List(items) => {
                let length = items.len() as f64;
                catalog.note_probe(ParameterProbe::ListLength(name.clone()), length);
                Some(length)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The assumed length of a list of ids known only at run time (a
/// parameter): lists of ids are what clients pass to fetch a handful of
/// entities, and any such list is far smaller than a scan.
const IDS_IN_UNKNOWN_LIST: f64 = 100.0;

/// `key` when `property` is `slot.key` and `value` does not read `slot`.
fn equality_key(property: &Expr, value: &Expr, slot: Slot) -> Option<String> {
    let Expr::Property { expr, key } = property else {
        return None;
    };
    if **expr != Expr::Slot(slot) {
        return None;
    }
    let mut reads = Vec::new();
    slots_of(value, &mut reads);
    (!reads.contains(&slot)).then(|| key.clone())
}

/// Average number of relationships of the only type in `types` an expand
/// in `dir` finds per node it starts from; `None` without statistics (or
/// for several types or none).
pub(crate) fn fan_out(catalog: &dyn Catalog, types: &[String], dir: Direction) -> Option<f64> {
    let [rel_type] = types else {
        return None;
    };
    let RelStatistics {
        count,
        distinct_sources,
        distinct_targets,
    } = catalog.relationship_statistics(rel_type)?;
    let starts = match dir {
        Direction::Outgoing => distinct_sources,
        Direction::Incoming => distinct_targets,
        Direction::Both => distinct_sources + distinct_targets,
    };
    let both = if dir == Direction::Both { 2 } else { 1 };
    Some((count * both) as f64 / starts.max(1) as f64)
}
