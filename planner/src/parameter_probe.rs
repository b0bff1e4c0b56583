//! Estimates that read a parameter's value, and whether a plan made with
//! them still fits other values (ADR 0152).
//!
//! A plan is cached by query text and reused with other parameter values.
//! Where an estimate read a parameter (`id(n) IN $ids`, an indexed
//! `n.key = $value`, `UNWIND $list`, `LIMIT $n`), the planner notes a
//! [`ParameterProbe`] beside the estimate it gave; before a cached plan is
//! reused, each probe is estimated again with the run's values, and the plan
//! fits when none moved by more than [`REPLAN_RATIO`] either way. An
//! estimate that read only literals is part of the text: no probe.
//!
//! Probes at run time are cheap by construction: a list's length, an
//! integer, or an index count that stops at [`RUN_COUNT_CAP`] entries (a
//! count read at planning stops at [`PLANNING_COUNT_CAP`]). So a frontier
//! planned small that grew tenfold, or planned large that shrank tenfold, is
//! told apart only within those caps; beyond them the plan is kept.

use crate::Catalog;
use nereid_values::Value;

/// How far (as a factor either way) a probe's estimate may move from the
/// one a plan was made with before the plan no longer fits: an order of
/// magnitude, the threshold, below which the cost model's choices
/// rarely flip.
pub(crate) const REPLAN_RATIO: f64 = 10.0;

/// Index entries counted, at most, to estimate a seek at planning.
pub(crate) const PLANNING_COUNT_CAP: u64 = 65_536;

/// Index entries counted, at most, to re-estimate a seek before a cached
/// plan is reused (once per run: the check must stay far cheaper than the
/// query).
pub(crate) const RUN_COUNT_CAP: u64 = 4_096;

/// One estimate that read parameter values.
#[derive(Clone, Debug, PartialEq)]
pub enum ParameterProbe {
    /// The length of the list parameter `$name` (`IN $name`, `UNWIND`).
    ListLength(String),
    /// The integer parameter `$name` (`LIMIT`, `SKIP`).
    Integer(String),
    /// Entries of node index `index` whose leading keys equal `values`.
    IndexEquality {
        index: String,
        values: Vec<ProbeValue>,
    },
}

/// A value a probe reads: written in the text, or a parameter's.
#[derive(Clone, Debug, PartialEq)]
pub enum ProbeValue {
    Literal(Value),
    Param(String),
}

/// A probe and the estimate the plan was made with.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedProbe {
    pub probe: ParameterProbe,
    pub estimate: f64,
}

impl ParameterProbe {
    /// The estimate with the values `catalog` knows (its
    /// [`Catalog::parameter`]), counting at most `cap` index entries;
    /// `None` when a value is missing or of another type (the run reports
    /// that; no estimate).
    pub(crate) fn estimate(&self, catalog: &dyn Catalog, cap: u64) -> Option<f64> {
        match self {
            ParameterProbe::ListLength(name) => match catalog.parameter(name)? {
                Value::List(items) => Some(items.len() as f64),
                _ => None,
            },
            ParameterProbe::Integer(name) => match catalog.parameter(name)? {
                Value::Int(n) => Some((*n).max(0) as f64),
                _ => None,
            },
            ParameterProbe::IndexEquality { index, values } => {
                let values: Vec<Value> = values
                    .iter()
                    .map(|v| match v {
                        ProbeValue::Literal(value) => Some(value.clone()),
                        ProbeValue::Param(name) => catalog.parameter(name).cloned(),
                    })
                    .collect::<Option<_>>()?;
                catalog
                    .count_node_index_entries(index, &values, cap)
                    .map(|n| n as f64)
            }
        }
    }
}

/// Whether a plan made with `planned` fits the values `catalog` knows: no
/// probe's estimate moved by more than [`REPLAN_RATIO`]. A probe that
/// cannot be estimated now (a missing value) does not make the plan stale.
pub fn probes_fit(planned: &[PlannedProbe], catalog: &dyn Catalog) -> bool {
    planned.iter().all(|p| {
        let cap = run_cap(&p.probe, p.estimate);
        match p.probe.estimate(catalog, cap) {
            Some(now) => within_ratio(p.estimate, now, cap),
            None => true,
        }
    })
}

/// The count a run's probe needs: enough to tell a tenfold rise
/// (`planned * 10`) and a tenfold fall, within [`RUN_COUNT_CAP`].
fn run_cap(probe: &ParameterProbe, planned: f64) -> u64 {
    match probe {
        ParameterProbe::IndexEquality { .. } => {
            let needed = (planned * REPLAN_RATIO).ceil() as u64 + 1;
            needed.min(RUN_COUNT_CAP)
        }
        _ => u64::MAX,
    }
}

/// Whether `now` is within [`REPLAN_RATIO`] of `planned` (both taken as at
/// least 1, so 0 and 1 row are alike). A count that reached `cap` is a
/// lower bound: it can show a rise, never a fall.
fn within_ratio(planned: f64, now: f64, cap: u64) -> bool {
    let capped = now >= cap as f64;
    let (planned, now) = (planned.max(1.0), now.max(1.0));
    let rose = now / planned > REPLAN_RATIO;
    let fell = !capped && planned / now > REPLAN_RATIO;
    !(rose || fell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_of_magnitude_either_way_is_stale() {
        assert!(within_ratio(5.0, 50.0, u64::MAX));
        assert!(!within_ratio(5.0, 51.0, u64::MAX));
        assert!(within_ratio(50.0, 5.0, u64::MAX));
        assert!(!within_ratio(50.0, 4.0, u64::MAX));
        assert!(within_ratio(0.0, 9.0, u64::MAX), "0 and 1 row are alike");
        assert!(!within_ratio(0.0, 11.0, u64::MAX));
    }

    #[test]
    fn a_capped_count_shows_a_rise_never_a_fall() {
        // Planned 10, count stopped at its cap of 101: a rise.
        assert!(!within_ratio(10.0, 101.0, 101));
        // Planned 65,536 (a capped count at planning), 4,096 at the run
        // cap: maybe as many, not a fall.
        assert!(within_ratio(65_536.0, 4_096.0, 4_096));
        assert!(!within_ratio(65_536.0, 4_000.0, 4_096));
        let probe = ParameterProbe::IndexEquality {
            index: "i".into(),
            values: vec![],
        };
        assert_eq!(run_cap(&probe, 10.0), 101);
        assert_eq!(run_cap(&probe, 1_000.0), RUN_COUNT_CAP);
    }
}
