//! The cartesian-product notification (`Neo.ClientNotification.Statement.
//! CartesianProduct`, GQL 03N90): a MATCH whose comma-separated patterns
//! fall apart into groups sharing no variable builds every combination of
//! the groups' rows, which is rarely meant and often slow. Decided from the
//! query text's patterns, like Neo4j's, and cached with the plan.

use crate::notification::{Notification, Position, Severity};
use nereid_cypher::ast::{Clause, Match, PatternPart, Query, Statement};
use std::collections::BTreeSet;

/// One notification per MATCH of `statement` (subquery bodies included)
/// whose patterns are disconnected.
pub(crate) fn notifications(statement: &Statement, query: &str) -> Vec<Notification> {
    let mut found = Vec::new();
    walk(&statement.query, query, &mut found);
    found
}

fn walk(query: &Query, text: &str, found: &mut Vec<Notification>) {
    let singles = match query {
        Query::Single(single) => std::slice::from_ref(single),
        Query::Union { queries, .. } => queries.as_slice(),
    };
    for clause in singles.iter().flat_map(|single| &single.clauses) {
        clauses(clause, text, found);
    }
}

fn clauses(clause: &Clause, text: &str, found: &mut Vec<Notification>) {
    match clause {
        Clause::Match(m) => {
            if let Some(n) = disconnected(m, text) {
                found.push(n);
            }
        }
        Clause::CallSubquery(call) => walk(&call.query, text, found),
        Clause::Foreach(foreach) => foreach.clauses.iter().for_each(|c| clauses(c, text, found)),
        _ => {}
    }
}

/// The variables a pattern part names (path, nodes, relationships).
fn variables(part: &PatternPart) -> BTreeSet<&str> {
    let element = &part.element;
    let nodes = std::iter::once(&element.start).chain(element.chain.iter().map(|(_, n)| n));
    let rels = element.chain.iter().map(|(r, _)| r);
    part.variable
        .iter()
        .chain(nodes.filter_map(|n| n.variable.as_ref()))
        .chain(rels.filter_map(|r| r.variable.as_ref()))
        .map(|v| v.name.as_str())
        .collect()
}

fn disconnected(m: &Match, text: &str) -> Option<Notification> {
    if m.pattern.len() < 2 {
        return None;
    }
    // Groups of parts joined by shared variables, merged as parts arrive.
    let mut groups: Vec<BTreeSet<&str>> = Vec::new();
    for part in &m.pattern {
        let mut joined = variables(part);
        groups.retain(|group| {
            if group.is_disjoint(&joined) {
                true
            } else {
                joined.extend(group.iter().copied());
                false
            }
        });
        // An anonymous part (no variable) joins nothing: a group of its own.
        groups.push(joined);
    }
    if groups.len() < 2 {
        return None;
    }
    let parts: Vec<&str> = m
        .pattern
        .iter()
        .map(|p| text.get(p.span.start..p.span.end).unwrap_or(""))
        .collect();
    let listed = parts.join(", ");
    Some(Notification {
        code: "Neo.ClientNotification.Statement.CartesianProduct",
        title: "This query builds a cartesian product between disconnected patterns.".into(),
        description: format!(
            "If a part of a query contains multiple disconnected patterns, this will build a \
             cartesian product between all those parts. This may produce a large amount of data \
             and slow down query processing. While occasionally intended, it may often be \
             possible to reformulate the query that avoids the use of this cross product, \
             perhaps by adding a relationship between the different parts or by using OPTIONAL \
             MATCH (patterns: {listed})"
        ),
        severity: Severity::Information,
        category: "PERFORMANCE",
        gql_status: "03N90",
        status_description: format!(
            "info: cartesian product. The disconnected patterns `{listed}` build a cartesian \
             product. A cartesian product may produce a large amount of data and slow down \
             query processing."
        ),
        position: Some(Position::in_query(text, m.span.start)),
    })
}

#[cfg(test)]
mod tests {
    fn codes(query: &str) -> usize {
        let statement = nereid_cypher::parse(query).expect("parses");
        super::notifications(&statement, query).len()
    }

    #[test]
    fn only_disconnected_patterns_are_reported() {
        assert_eq!(codes("MATCH (n), (m) RETURN n, m"), 1);
        assert_eq!(codes("MATCH (), () RETURN 1"), 1);
        assert_eq!(codes("MATCH (a)-->(b), (b)-->(c), (c)-->(a) RETURN a"), 0);
        assert_eq!(codes("MATCH (a)-->(b), (c), (b)-->(c) RETURN a"), 0);
        assert_eq!(codes("MATCH (a) MATCH (b) RETURN a, b"), 0);
        assert_eq!(
            codes("UNWIND [1] AS i CALL { MATCH (a), (b) RETURN a } RETURN i"),
            1
        );
    }
}
