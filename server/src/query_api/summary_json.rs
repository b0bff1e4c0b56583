//! What follows a result's rows in a Query API answer: counters (when
//! asked), notifications, an EXPLAIN or PROFILE plan, and the bookmark, in
//! Neo4j's field names.

use nereid_engine::Summary;
use nereid_planner::PlanNode;
use serde_json::{json, Map, Value as Json};

/// Adds the summary's fields to `answer`.
pub(crate) fn add(answer: &mut Map<String, Json>, summary: &Summary, counters: bool) {
    if counters {
        answer.insert("counters".into(), counters_json(summary));
    }
    if !summary.notifications.is_empty() {
        let notes: Vec<Json> = summary
            .notifications
            .iter()
            .map(|n| {
                let mut note = json!({
                    "code": n.code,
                    "description": n.description,
                    "severity": n.severity.as_str(),
                    "title": n.title,
                    "category": n.category,
                });
                if let Some(p) = n.position {
                    note["position"] =
                        json!({ "offset": p.offset, "line": p.line, "column": p.column });
                }
                note
            })
            .collect();
        answer.insert("notifications".into(), Json::Array(notes));
    }
    if let Some(profile) = &summary.profile {
        let mut next = 0;
        answer.insert(
            "profiledQueryPlan".into(),
            nereid_stack::deeper(|| profiled(&profile.plan, &profile.operators, &mut next)),
        );
    } else if let Some(plan) = &summary.plan {
        answer.insert("queryPlan".into(), nereid_stack::deeper(|| explained(plan)));
    }
}

fn counters_json(summary: &Summary) -> Json {
    let mut counters = serde_json::Map::new();
    let mut updates = 0;
    for (name, count) in summary.stats.counters() {
        updates += count;
        counters.insert(name.into(), json!(count));
    }
    counters.insert("containsUpdates".into(), json!(updates > 0));
    counters.insert(
        "containsSystemUpdates".into(),
        json!(summary.system_updates > 0),
    );
    counters.insert("systemUpdates".into(), json!(summary.system_updates));
    Json::Object(counters)
}

fn explained(plan: &PlanNode) -> Json {
    let children: Vec<Json> = plan
        .children
        .iter()
        .map(|c| nereid_stack::deeper(|| explained(c)))
        .collect();
    json!({
        "operatorType": plan.operator_type,
        "arguments": { "Details": plan.details },
        "identifiers": plan.identifiers,
        "children": children,
    })
}

fn profiled(
    plan: &PlanNode,
    operators: &[nereid_engine::OperatorProfile],
    next: &mut usize,
) -> Json {
    let own = operators.get(*next).copied().unwrap_or_default();
    *next += 1;
    let children: Vec<Json> = plan
        .children
        .iter()
        .map(|c| nereid_stack::deeper(|| profiled(c, operators, next)))
        .collect();
    json!({
        "operatorType": plan.operator_type,
        "arguments": {
            "Details": plan.details,
            "Rows": own.rows,
            "DbHits": own.db_hits,
            "Time": own.time_ns,
        },
        "identifiers": plan.identifiers,
        "dbHits": own.db_hits,
        "records": own.rows,
        "time": own.time_ns,
        "hasPageCacheStats": false,
        "pageCacheHits": 0,
        "pageCacheMisses": 0,
        "pageCacheHitRatio": 0.0,
        "children": children,
    })
}
