//! The plan cache: a query text planned once is executed again from its
//! plan, skipping parse, analysis and planning (tens of microseconds, the
//! bulk of a point query's server-side cost). A text's plan serves every
//! parameter value, except where its estimates read a value (the plan's
//! probes, ADR 0152): such a plan is reused only for values that estimate
//! within an order of magnitude of the ones it was made with, and a text
//! keeps up to [`VARIANTS_PER_TEXT`] plans for values that estimate apart.
//!
//! Invariants:
//! - only successfully planned statements are cached, so a cached query
//!   never skips an error it should report;
//! - an entry is dropped when the database's shape has moved far from the
//!   one it was planned for (node count outside [half, double] of the count
//!   at planning: estimates steer operator choices) or when the schema
//!   version differs from the one it was planned under (an index came
//!   online or was dropped: plans name the indexes they read; a plan kept
//!   by `replan=skip` stays correct, its seeks falling back to scans), and
//!   the whole cache is cleared when procedures are registered (plans
//!   embed signatures);
//! - the cache is bounded: beyond `capacity` the least recently used
//!   quarter is evicted.

use crate::notification::Notification;
use nereid_planner::PhysicalPlan;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

/// A cached plan and what it was made under.
#[derive(Clone)]
pub(crate) struct CachedPlan {
    pub(crate) plan: Arc<PhysicalPlan>,
    /// `EXPLAIN` statements return no rows and no fields.
    pub(crate) explain: bool,
    /// `PROFILE` statements run and report what each operator did.
    pub(crate) profile: bool,
    /// Nodes in the store when the plan was made.
    nodes_at_planning: u64,
    /// The store's schema version when the plan was made.
    schema_at_planning: u64,
    /// What its `CYPHER` options made of it: notifications to report, and
    /// whether it is used however the store moved (`replan=skip`).
    pub(crate) notifications: Arc<[Notification]>,
    /// The names a read-only statement reads, checked against the store at
    /// every run (`unknown_names.rs`); empty for a statement that writes.
    pub(crate) names_read: Arc<[nereid_cypher::ast::NameUse]>,
    /// The parameters whose type is known at compile time, checked before
    /// every run (`parameter_types.rs`).
    pub(crate) checked_parameters: Arc<[nereid_cypher::ast::CheckedParameter]>,
    keep_when_stale: bool,
}

impl CachedPlan {
    pub(crate) fn new(
        plan: Arc<PhysicalPlan>,
        explain: bool,
        nodes_at_planning: u64,
        schema_at_planning: u64,
    ) -> CachedPlan {
        CachedPlan {
            plan,
            explain,
            profile: false,
            nodes_at_planning,
            schema_at_planning,
            notifications: Arc::from([]),
            names_read: Arc::from([]),
            checked_parameters: Arc::from([]),
            keep_when_stale: false,
        }
    }

    /// The plan of a `PROFILE` statement when `profile`.
    pub(crate) fn profiled(mut self, profile: bool) -> CachedPlan {
        self.profile = profile;
        self
    }

    /// The plan with the notifications its query reports, kept even when
    /// stale when `keep_when_stale` (`CYPHER replan=skip`).
    pub(crate) fn with_options(
        mut self,
        notifications: Vec<Notification>,
        keep_when_stale: bool,
    ) -> CachedPlan {
        self.notifications = Arc::from(notifications);
        self.keep_when_stale = keep_when_stale;
        self
    }

    /// Keeps `names` to warn of those the store lacks when the statement
    /// only reads (Neo4j warns neither where a query may create the name
    /// nor in schema commands).
    pub(crate) fn warning_of_unknown(
        mut self,
        names: Vec<nereid_cypher::ast::NameUse>,
    ) -> CachedPlan {
        if crate::query_type::of(&self.plan) == "r" {
            self.names_read = Arc::from(names);
        }
        self
    }

    /// Keeps the statement's type-checked parameters.
    pub(crate) fn with_checked_parameters(
        mut self,
        used: Vec<nereid_cypher::ast::CheckedParameter>,
    ) -> CachedPlan {
        self.checked_parameters = Arc::from(used);
        self
    }
}

/// Plans kept for one text at most: values that estimate apart by orders
/// of magnitude are few in practice (a handful of heavy hitters beside the
/// long tail), and each plan is small.
pub(crate) const VARIANTS_PER_TEXT: usize = 4;

struct Variant {
    cached: CachedPlan,
    last_used: u64,
}

pub(crate) struct PlanCache {
    capacity: usize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    /// Each text's plans, the first made first.
    entries: HashMap<String, Vec<Variant>>,
    clock: u64,
    hits: u64,
    misses: u64,
}

impl PlanCache {
    pub(crate) fn new(capacity: usize) -> PlanCache {
        PlanCache {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// A plan for `query` if one is cached, still fits a store of
    /// `nodes_now` nodes and schema `schema_now`, and `fits` the run's
    /// parameter values (asked only of plans with probes, outside the
    /// lock: a probe may count index entries).
    pub(crate) fn get(
        &self,
        query: &str,
        nodes_now: u64,
        schema_now: u64,
        fits: impl Fn(&CachedPlan) -> bool,
    ) -> Option<CachedPlan> {
        let probed: Vec<CachedPlan> = {
            let mut inner = self.inner.lock();
            inner.clock += 1;
            let clock = inner.clock;
            let Some(variants) = inner.entries.get_mut(query) else {
                inner.misses += 1;
                return None;
            };
            variants.retain(|v| {
                v.cached.keep_when_stale
                    || (still_fits(v.cached.nodes_at_planning, nodes_now)
                        && v.cached.schema_at_planning == schema_now)
            });
            let any_values = variants
                .iter_mut()
                .find(|v| v.cached.keep_when_stale || v.cached.plan.probes.is_empty());
            if let Some(variant) = any_values {
                variant.last_used = clock;
                let hit = variant.cached.clone();
                inner.hits += 1;
                return Some(hit);
            }
            if variants.is_empty() {
                inner.entries.remove(query);
                inner.misses += 1;
                return None;
            }
            variants.iter().map(|v| v.cached.clone()).collect()
        };
        let chosen = probed.into_iter().find(|c| fits(c));
        let mut inner = self.inner.lock();
        inner.clock += 1;
        let clock = inner.clock;
        match &chosen {
            Some(hit) => {
                inner.hits += 1;
                let same = |v: &&mut Variant| Arc::ptr_eq(&v.cached.plan, &hit.plan);
                if let Some(v) = inner
                    .entries
                    .get_mut(query)
                    .and_then(|vs| vs.iter_mut().find(same))
                {
                    v.last_used = clock;
                }
            }
            None => inner.misses += 1,
        }
        chosen
    }

    #[cfg(test)]
    pub(crate) fn insert(
        &self,
        query: &str,
        plan: Arc<PhysicalPlan>,
        explain: bool,
        nodes: u64,
        schema: u64,
    ) {
        self.insert_cached(query, CachedPlan::new(plan, explain, nodes, schema));
    }

    /// Caches `cached` as a plan of `query`: beside the text's other plans
    /// when its estimates read parameter values (the least recently used
    /// dropped past [`VARIANTS_PER_TEXT`]), in place of them otherwise.
    pub(crate) fn insert_cached(&self, query: &str, cached: CachedPlan) {
        let mut inner = self.inner.lock();
        if !inner.entries.contains_key(query) && inner.entries.len() >= self.capacity {
            evict_oldest_quarter(&mut inner.entries);
        }
        inner.clock += 1;
        let last_used = inner.clock;
        let variants = inner.entries.entry(query.to_string()).or_default();
        if cached.plan.probes.is_empty() {
            variants.clear();
        } else if variants.len() >= VARIANTS_PER_TEXT {
            let oldest = (0..variants.len())
                .min_by_key(|&i| variants[i].last_used)
                .expect("variants");
            variants.remove(oldest);
        }
        variants.push(Variant { cached, last_used });
    }

    /// Forgets every plan (the procedures changed).
    pub(crate) fn clear(&self) {
        self.inner.lock().entries.clear();
    }

    /// `(hits, misses, texts)`, for metrics and tests.
    pub(crate) fn counters(&self) -> (u64, u64, usize) {
        let inner = self.inner.lock();
        (inner.hits, inner.misses, inner.entries.len())
    }

    /// Plans kept for `query`.
    #[cfg(test)]
    fn variants(&self, query: &str) -> usize {
        self.inner.lock().entries.get(query).map_or(0, Vec::len)
    }
}

fn still_fits(at_planning: u64, now: u64) -> bool {
    let (low, high) = (at_planning / 2, at_planning.saturating_mul(2).max(64));
    (low..=high).contains(&now)
}

fn evict_oldest_quarter(entries: &mut HashMap<String, Vec<Variant>>) {
    let used = |vs: &Vec<Variant>| vs.iter().map(|v| v.last_used).max().unwrap_or(0);
    let mut ages: Vec<u64> = entries.values().map(used).collect();
    ages.sort_unstable();
    let cutoff = ages[ages.len() / 4];
    entries.retain(|_, vs| used(vs) > cutoff);
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_planner::Op;

    fn any(_: &CachedPlan) -> bool {
        true
    }

    fn plan() -> Arc<PhysicalPlan> {
        Arc::new(bare())
    }

    fn bare() -> PhysicalPlan {
        PhysicalPlan {
            root: Op::Argument,
            slot_count: 0,
            outputs: Vec::new(),
            writes: false,
            reads: false,
            missing_hints: Vec::new(),
            parameters: Vec::new(),
            probes: Vec::new(),
        }
    }

    fn probed(estimate: f64) -> Arc<PhysicalPlan> {
        let mut plan = bare();
        plan.probes = vec![nereid_planner::PlannedProbe {
            probe: nereid_planner::ParameterProbe::ListLength("ids".into()),
            estimate,
        }];
        Arc::new(plan)
    }

    #[test]
    fn a_plan_whose_estimates_read_values_serves_only_values_that_fit() {
        let cache = PlanCache::new(8);
        cache.insert("q", probed(10.0), false, 10, 0);
        let near = |c: &CachedPlan| c.plan.probes[0].estimate == 10.0;
        let far = |_: &CachedPlan| false;
        assert!(cache.get("q", 10, 0, near).is_some());
        assert!(
            cache.get("q", 10, 0, far).is_none(),
            "no plan fits: plan anew"
        );
        cache.insert("q", probed(1000.0), false, 10, 0);
        assert_eq!(cache.variants("q"), 2, "both kept");
        let big = |c: &CachedPlan| c.plan.probes[0].estimate == 1000.0;
        let hit = cache.get("q", 10, 0, big).expect("the second variant");
        assert_eq!(hit.plan.probes[0].estimate, 1000.0);
        assert_eq!(cache.counters(), (2, 1, 1));
    }

    #[test]
    fn a_text_keeps_its_most_recently_used_variants() {
        let cache = PlanCache::new(8);
        for e in 0..VARIANTS_PER_TEXT {
            cache.insert("q", probed(10f64.powi(e as i32)), false, 10, 0);
        }
        let first = |c: &CachedPlan| c.plan.probes[0].estimate == 1.0;
        assert!(cache.get("q", 10, 0, first).is_some(), "touched: kept");
        cache.insert("q", probed(1e9), false, 10, 0);
        assert_eq!(cache.variants("q"), VARIANTS_PER_TEXT);
        assert!(cache.get("q", 10, 0, first).is_some());
        let second = |c: &CachedPlan| c.plan.probes[0].estimate == 10.0;
        assert!(
            cache.get("q", 10, 0, second).is_none(),
            "least recently used"
        );
        cache.insert("q", plan(), false, 10, 0);
        assert_eq!(
            cache.variants("q"),
            1,
            "a plan for any values replaces them"
        );
    }

    #[test]
    fn hits_until_the_store_changes_shape() {
        let cache = PlanCache::new(8);
        assert!(cache.get("q", 1000, 0, any).is_none());
        cache.insert("q", plan(), false, 1000, 0);
        assert!(cache.get("q", 1500, 0, any).is_some());
        assert!(cache.get("q", 600, 0, any).is_some());
        assert!(
            cache.get("q", 2001, 0, any).is_none(),
            "more than double: replan"
        );
        assert!(
            cache.get("q", 1000, 0, any).is_none(),
            "the stale entry was dropped"
        );
        assert_eq!(cache.counters(), (2, 3, 0));
    }

    #[test]
    fn a_small_store_keeps_its_plans_while_it_grows_a_little() {
        let cache = PlanCache::new(8);
        cache.insert("q", plan(), true, 0, 0);
        let hit = cache.get("q", 64, 0, any).expect("cached");
        assert!(hit.explain);
        assert!(cache.get("q", 65, 0, any).is_none());
    }

    #[test]
    fn a_plan_kept_when_stale_survives_any_growth() {
        let cache = PlanCache::new(8);
        let kept = CachedPlan::new(plan(), false, 10, 0).with_options(Vec::new(), true);
        cache.insert_cached("q", kept);
        assert!(cache.get("q", 1_000_000, 0, any).is_some(), "replan=skip");
        cache.insert("r", plan(), false, 10, 0);
        assert!(cache.get("r", 1_000_000, 0, any).is_none());
    }

    #[test]
    fn a_schema_change_replans() {
        let cache = PlanCache::new(8);
        cache.insert("q", plan(), false, 10, 3);
        assert!(cache.get("q", 10, 3, any).is_some());
        assert!(
            cache.get("q", 10, 4, any).is_none(),
            "an index came online or went: replan"
        );
        assert!(
            cache.get("q", 10, 3, any).is_none(),
            "the stale entry was dropped"
        );
    }

    #[test]
    fn eviction_keeps_the_recently_used() {
        let cache = PlanCache::new(4);
        for q in ["a", "b", "c", "d"] {
            cache.insert(q, plan(), false, 10, 0);
        }
        assert!(cache.get("a", 10, 0, any).is_some());
        cache.insert("e", plan(), false, 10, 0);
        assert!(
            cache.get("a", 10, 0, any).is_some(),
            "recently used survives"
        );
        assert!(
            cache.get("b", 10, 0, any).is_none(),
            "least recently used evicted"
        );
        assert!(cache.get("e", 10, 0, any).is_some());
        cache.clear();
        assert_eq!(cache.counters().2, 0);
    }
}
