//! What Nereid does with Neo4j's pre-parser options (`CYPHER 5
//! runtime=slotted replan=force ...`; the parser only reads their form).
//!
//! Each option Neo4j 5 knows is accepted with Neo4j's values, so queries
//! written for Neo4j (drivers' test suites use `CYPHER runtime=interpreted`)
//! run here. What an option asks for is honoured where it means something
//! here: `replan=force` plans again past the plan cache, `replan=skip` keeps
//! a cached plan however the store has grown, `planner=cost`,
//! `expressionEngine=interpreted`, `operatorEngine=interpreted` and
//! `updateStrategy=eager` are what Nereid does anyway. Any other value
//! asks for machinery Nereid does not have; it is ignored with a warning
//! notification, so the client learns the option had no effect. Unknown
//! names and values are Neo4j's errors (`InvalidCypherOption`:
//! `Statement.ArgumentError`).

use crate::notification::{Notification, Position, Severity};
use nereid_cypher::ast::Statement;

/// How the plan cache treats the statement (`replan=...`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum Replan {
    /// Use a cached plan while it fits the store.
    #[default]
    Default,
    /// Plan again, never from (nor into) the cache.
    Force,
    /// Use a cached plan even when the store has moved away from it.
    Skip,
}

/// The options' effect on one statement.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Decided {
    pub(crate) replan: Replan,
    /// One warning per ignored option.
    pub(crate) notifications: Vec<Notification>,
}

/// Why the options are refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum OptionError {
    /// Names Neo4j does not know.
    Unsupported(Vec<String>),
    /// A value the option does not take.
    InvalidValue {
        name: &'static str,
        value: String,
        valid: &'static [&'static str],
    },
    /// The same option with two different values.
    Conflicting(&'static str),
    /// A `CYPHER n` version other than 5 or 25.
    Version(String),
}

impl std::fmt::Display for OptionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionError::Unsupported(names) => {
                write!(f, "Unsupported options: {}", names.join(", "))
            }
            OptionError::InvalidValue { name, value, valid } => write!(
                f,
                "{value} is not a valid option for {name}. Valid options are: {}",
                valid.join(", ")
            ),
            OptionError::Conflicting(name) => {
                write!(f, "Can't specify multiple conflicting values for {name}")
            }
            OptionError::Version(v) => write!(
                f,
                "{v} is not a valid option for cypher version. Valid options are: 5, 25"
            ),
        }
    }
}

/// One option Neo4j knows: its name, its values besides `default`, and
/// the values Nereid honours.
struct Known {
    name: &'static str,
    values: &'static [&'static str],
    honoured: &'static [&'static str],
}

const KNOWN: &[Known] = &[
    Known {
        name: "runtime",
        values: &["interpreted", "slotted", "pipelined", "parallel"],
        honoured: &[],
    },
    Known {
        name: "planner",
        values: &["cost", "idp", "dp"],
        honoured: &["cost"],
    },
    Known {
        name: "expressionEngine",
        values: &["interpreted", "compiled", "onlyWhenHot"],
        honoured: &["interpreted"],
    },
    Known {
        name: "operatorEngine",
        values: &["interpreted", "compiled"],
        honoured: &["interpreted"],
    },
    Known {
        name: "interpretedPipesFallback",
        values: &["disabled", "whitelisted_plans_only", "all"],
        honoured: &[],
    },
    Known {
        name: "replan",
        values: &["force", "skip"],
        honoured: &["force", "skip"],
    },
    Known {
        name: "connectComponentsPlanner",
        values: &["greedy", "idp"],
        honoured: &[],
    },
    Known {
        name: "updateStrategy",
        values: &["eager"],
        honoured: &["eager"],
    },
];

/// Decides what `stmt`'s options do; `query` is its text, for positions.
pub(crate) fn decide(stmt: &Statement, query: &str) -> Result<Decided, OptionError> {
    if let Some((version, _)) = &stmt.cypher_version {
        if version != "5" && version != "25" {
            return Err(OptionError::Version(version.clone()));
        }
    }
    let unknown: Vec<String> = stmt
        .options
        .iter()
        .filter(|o| known(&o.name).is_none())
        .map(|o| o.name.clone())
        .collect();
    if !unknown.is_empty() {
        return Err(OptionError::Unsupported(unknown));
    }
    let mut decided = Decided::default();
    let mut chosen: Vec<(&'static str, String)> = Vec::new();
    for option in &stmt.options {
        let Some(spec) = known(&option.name) else {
            continue;
        };
        let value = canonical_value(spec, &option.value)?;
        match chosen.iter().find(|(name, _)| *name == spec.name) {
            Some((_, previous)) if *previous != value => {
                return Err(OptionError::Conflicting(spec.name))
            }
            Some(_) => continue,
            None => chosen.push((spec.name, value.clone())),
        }
        match (spec.name, value.as_str()) {
            (_, "default") => {}
            ("replan", "force") => decided.replan = Replan::Force,
            ("replan", "skip") => decided.replan = Replan::Skip,
            (_, v) if spec.honoured.contains(&v) => {}
            (name, v) => decided.notifications.push(ignored(
                name,
                v,
                Position::in_query(query, option.span.start),
            )),
        }
    }
    Ok(decided)
}

fn known(name: &str) -> Option<&'static Known> {
    KNOWN.iter().find(|k| k.name.eq_ignore_ascii_case(name))
}

/// The value as Neo4j spells it, or Neo4j's error for an unknown one.
fn canonical_value(spec: &Known, value: &str) -> Result<String, OptionError> {
    if value.eq_ignore_ascii_case("default") {
        return Ok("default".to_string());
    }
    spec.values
        .iter()
        .find(|v| v.eq_ignore_ascii_case(value))
        .map(|v| v.to_string())
        .ok_or_else(|| OptionError::InvalidValue {
            name: spec.name,
            value: value.to_string(),
            valid: spec.values,
        })
}

/// The warning for an option Nereid accepts but cannot act on. A runtime
/// gets Neo4j's own `RuntimeUnsupportedWarning` (01N40: the runtime asked
/// for is not the one used); the other options have no Neo4j notification
/// (Neo4j always acts on them), so they get one of the same family and a
/// plain GQL warning status.
fn ignored(name: &'static str, value: &str, position: Position) -> Notification {
    if name == "runtime" {
        return Notification {
            code: "Neo.ClientNotification.Statement.RuntimeUnsupportedWarning",
            title: "This query is not supported by the chosen runtime.".into(),
            description: format!(
                "Selected runtime is unsupported for this query, please use a different \
                 runtime instead or fallback to default. (Nereid has one runtime, its \
                 dataflow executor; `runtime={value}` is ignored.)"
            ),
            severity: Severity::Warning,
            category: "UNSUPPORTED",
            gql_status: "01N40",
            status_description: format!(
                "warn: unsupported runtime. The query cannot be executed with \
                 `runtime={value}`, the dataflow runtime is used. Cause: Nereid has no \
                 other runtime."
            ),
            position: Some(position),
        };
    }
    Notification {
        code: "Neo.ClientNotification.Statement.UnsupportedQueryOptionWarning",
        title: "The query option is not supported and was ignored.".into(),
        description: format!(
            "`{name}={value}` asks for something Nereid does not do; the query runs as \
             without it."
        ),
        severity: Severity::Warning,
        category: "UNSUPPORTED",
        gql_status: "01000",
        status_description: format!("warn: unsupported query option. `{name}={value}` is ignored."),
        position: Some(position),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide_text(query: &str) -> Result<Decided, OptionError> {
        let stmt = nereid_cypher::parse(query).expect("parses");
        decide(&stmt, query)
    }

    #[test]
    fn replan_is_honoured_and_an_ignored_runtime_is_reported() {
        let d = decide_text("CYPHER replan=force RETURN 1").unwrap();
        assert_eq!((d.replan, d.notifications.len()), (Replan::Force, 0));
        let d = decide_text("CYPHER 5 runtime=slotted replan=skip RETURN 1").unwrap();
        assert_eq!(d.replan, Replan::Skip);
        assert_eq!(d.notifications.len(), 1);
        let n = &d.notifications[0];
        assert_eq!(n.gql_status, "01N40");
        assert_eq!(n.position.map(|p| (p.offset, p.column)), Some((9, 10)));
        let d = decide_text("EXPLAIN CYPHER planner=COST expressionEngine=interpreted RETURN 1");
        assert_eq!(d.unwrap().notifications, vec![]);
        let d = decide_text("CYPHER connectComponentsPlanner=greedy PROFILE RETURN 1").unwrap();
        assert_eq!(
            d.notifications[0].code,
            "Neo.ClientNotification.Statement.UnsupportedQueryOptionWarning"
        );
    }

    #[test]
    fn unknown_names_values_and_versions_are_refused() {
        assert_eq!(
            decide_text("CYPHER foo=bar runtime=slotted bar=1 RETURN 1"),
            Err(OptionError::Unsupported(vec!["foo".into(), "bar".into()]))
        );
        let e = decide_text("CYPHER runtime=quantum RETURN 1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "quantum is not a valid option for runtime. Valid options are: interpreted, \
             slotted, pipelined, parallel"
        );
        assert_eq!(
            decide_text("CYPHER runtime=slotted runtime=pipelined RETURN 1"),
            Err(OptionError::Conflicting("runtime"))
        );
        assert_eq!(
            decide_text("CYPHER 4.4 RETURN 1"),
            Err(OptionError::Version("4.4".into()))
        );
        assert!(decide_text("CYPHER 25 RETURN 1").is_ok());
    }
}
